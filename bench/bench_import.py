"""Benchmark: import a large synthetic Claude Code transcript (not part of the test suite).

    python bench/bench_import.py [MEGABYTES]

Writes a transcript of about MEGABYTES (default 50) made of the shared sample's runs repeated,
imports it with --dry-run semantics (nothing written) and prints the time, the peak Python
memory (tracemalloc) and the peak RSS. The reader streams lines, but the Session keeps every
event, so memory grows with the events kept (about the text of the log), not with the file's
bytes alone.
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "fixtures" / "logs" / "claude-campaign.jsonl"


def make_log(path: Path, megabytes: float) -> int:
    lines = [line for line in SAMPLE.read_text().splitlines()[1:19]]
    target = int(megabytes * 1024 * 1024)
    written = n = 0
    with open(path, "w") as out:
        while written < target:
            for line in lines:
                record = json.loads(line)
                record["uuid"] = f"{record['uuid']}-{n}"
                if isinstance(record.get("message"), dict) and "id" in record["message"]:
                    record["message"]["id"] = f"{record['message']['id']}-{n}"
                    for block in record["message"].get("content", []):
                        if isinstance(block, dict) and block.get("type") == "tool_use":
                            block["id"] = f"{block['id']}-{n}"
                elif isinstance(record.get("message", {}).get("content"), list):
                    for block in record["message"]["content"]:
                        if isinstance(block, dict) and block.get("type") == "tool_result":
                            block["tool_use_id"] = f"{block['tool_use_id']}-{n}"
                text = json.dumps(record) + "\n"
                out.write(text)
                written += len(text)
            n += 1
    return n


def main() -> None:
    from kb.importers.drafts import import_logs

    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 50
    tmp = Path(tempfile.mkdtemp())
    try:
        log = tmp / "big.jsonl"
        repeats = make_log(log, megabytes)
        records = tmp / "records"
        shutil.copytree(ROOT / "records", records)
        tracemalloc.start()
        start = time.perf_counter()
        report = import_logs(records, [log], dry_run=True)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{log.stat().st_size / 2**20:.1f} MiB, {repeats} repeats, {len(report.drafts)} drafts: "
              f"{elapsed:.1f} s, peak traced {peak / 2**20:.0f} MiB, max RSS {rss:.0f} MiB")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
