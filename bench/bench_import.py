"""Benchmark: import large synthetic Claude Code transcripts (not part of the test suite).

    python bench/bench_import.py [--shape large-output|many-small|both] [--keep] MEGABYTES...

For each size (default 200) and shape, writes a transcript of about MEGABYTES to a temporary
folder (``$TMPDIR``, deleted afterwards unless ``--keep``), imports it with ``--dry-run``
semantics (nothing written) in a fresh subprocess, and prints the file size, drafts found,
wall time, the floor (a fresh process that reads the file and ``json.loads`` each line), the
ratio of the two, and the import subprocess's max RSS.

Shapes:

``large-output``
    Agent turns that ``cat server.log`` and get about 110 KB of log back (in the
    ``tool_result`` content and again in ``toolUseResult.stdout``, as Claude Code writes it);
    one turn in 50 is a ``bench_serving`` run whose output ends with the benchmark summary.
``many-small``
    Short lines: person prompts, assistant prose, ``ls``/``grep``/``sed`` calls with small
    results; one ``nvidia-smi`` probe per 1000 turns and one benchmark run per 500 turns.

The import streams JSONL in windows and caps each event's text (see kb.importers.sessions), so
max RSS should stay about flat as the file grows.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_BENCH_TAIL = """
============ Serving Benchmark Result ============
Backend:                                 sglang
Successful requests:                     64
Benchmark duration (s):                  312.48
Request throughput (req/s):              0.20
Output token throughput (tok/s):         {tok}
Total Token throughput (tok/s):          301.77
Mean TTFT (ms):                          1834.20
Median TTFT (ms):                        1790.55
Mean TPOT (ms):                          11.17
==================================================
"""


class Writer:
    """Claude Code lines with fresh uuids, message ids and tool-use ids."""

    def __init__(self, out) -> None:
        self.out = out
        self.n = 0
        self.written = 0
        self.seconds = 0

    def _stamp(self) -> str:
        self.seconds += 1
        day, rest = divmod(self.seconds, 86400)
        return f"2026-03-{1 + day % 28:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}.000Z"

    def line(self, kind: str, message: dict, **extra) -> None:
        self.n += 1
        record = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/srv/kimi-serving",
                  "sessionId": "bench-session", "version": "2.0.14", "gitBranch": "main", "type": kind,
                  "message": message, "uuid": f"u-{self.n}", "timestamp": self._stamp(), **extra}
        text = json.dumps(record) + "\n"
        self.out.write(text)
        self.written += len(text)

    def user(self, text: str) -> None:
        self.line("user", {"role": "user", "content": text})

    def say(self, text: str) -> None:
        self.line("assistant", {"id": f"msg_{self.n}", "type": "message", "role": "assistant",
                                "model": "claude-opus-4-1", "content": [{"type": "text", "text": text}]})

    def run(self, command: str, output: str, description: str, is_error: bool = False) -> None:
        tool_id = f"toolu_{self.n}"
        self.line("assistant", {"id": f"msg_{self.n}", "type": "message", "role": "assistant",
                                "model": "claude-opus-4-1", "content": [
                                    {"type": "tool_use", "id": tool_id, "name": "Bash",
                                     "input": {"command": command, "description": description}}]})
        self.line("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": output, "is_error": is_error}]},
            toolUseResult={"stdout": output, "stderr": "", "interrupted": False, "isImage": False})


def _server_log(size: int, seed: int) -> str:
    lines = []
    total = 0
    i = 0
    while total < size:
        line = (f"[2026-03-01 10:{i // 60 % 60:02d}:{i % 60:02d} TP{i % 8}] Decode batch. #running-req: {seed % 64}, "
                f"#token: {i * 37 % 90000}, token usage: 0.{i % 100:02d}, cuda graph: True, gen throughput (token/s): "
                f"{80 + i % 20}.{i % 100:02d}, #queue-req: 0")
        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(lines)


def make_large_output(path: Path, megabytes: float) -> None:
    target = int(megabytes * 2**20)
    with open(path, "w") as out:
        w = Writer(out)
        w.user("Find out why decode throughput drops after an hour; the server log is in /srv/kimi-serving.")
        turn = 0
        while w.written < target:
            turn += 1
            if turn % 50 == 0:
                w.say("Re-running the serving benchmark with the current settings.")
                w.run("python -m sglang.bench_serving --backend sglang --num-prompts 64 --max-concurrency 8",
                      _server_log(100_000, turn) + _BENCH_TAIL.format(tok=f"{85 + turn % 10}.{turn % 100:02d}"),
                      f"Benchmark run {turn}")
            else:
                w.say("Looking at the server log around the slowdown.")
                w.run("cat /srv/kimi-serving/server.log", _server_log(110_000, turn), "Read the server log")


def make_many_small(path: Path, megabytes: float) -> None:
    target = int(megabytes * 2**20)
    with open(path, "w") as out:
        w = Writer(out)
        turn = 0
        while w.written < target:
            turn += 1
            if turn % 100 == 1:
                w.user(f"Step {turn}: keep tuning the cuda graph batch sizes and tell me what changes.")
            if turn % 1000 == 2:
                w.run("nvidia-smi", "| NVIDIA-SMI 590.48.01    Driver Version: 590.48.01    CUDA Version: 13.1 |",
                      "Check the driver")
            if turn % 500 == 0:
                w.say(f"Now benchmark with --cuda-graph-max-bs {turn % 512}.")
                w.run(f"python -m sglang.bench_serving --backend sglang --num-prompts 64  # run {turn}",
                      _BENCH_TAIL.format(tok=f"{85 + turn % 10}.{turn % 100:02d}"), f"Benchmark run {turn}")
                continue
            w.say(f"Checking file {turn % 37} for the batch-size table before changing it.")
            command = ("ls -la python/sglang/srt/model_executor", "grep -n cuda_graph_bs python/sglang/srt/server_args.py",
                       f"sed -n {turn % 400},{turn % 400 + 20}p python/sglang/srt/model_executor/cuda_graph_runner.py")[turn % 3]
            w.run(command, "\n".join(f"{turn % 400 + k}:    capture_bs = [1, 2, 4, 8] + list(range(16, 257, 8))"
                                     for k in range(4)), "Look at the code")


SHAPES = {"large-output": make_large_output, "many-small": make_many_small}

_CHILD = """
import json, resource, sys, time
from kb.importers.drafts import import_logs
start = time.perf_counter()
report = import_logs(sys.argv[1], [sys.argv[2]], dry_run=True)
elapsed = time.perf_counter() - start
errors = [f.error for f in report.files if f.error]
print(json.dumps({"drafts": len(report.drafts), "seconds": elapsed, "errors": errors,
                  "facts": sum(len(f.facts) for f in report.files),
                  "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


_FLOOR = """
import json, sys, time
start = time.perf_counter()
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if line.strip():
            json.loads(line)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""
"""The floor: read the transcript and ``json.loads`` every line, nothing more (issue 22: the
import is to take at most 10x this)."""


def measure(shape: str, megabytes: float, tmp: Path) -> dict:
    log = tmp / f"{shape}-{megabytes:g}mb.jsonl"
    start = time.perf_counter()
    SHAPES[shape](log, megabytes)
    generated = time.perf_counter() - start
    records = tmp / "records"
    if not records.exists():
        shutil.copytree(ROOT / "records", records)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(records), str(log)], capture_output=True,
                              text=True, check=True)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        floor = subprocess.run([sys.executable, "-c", _FLOOR, str(log)], capture_output=True, text=True, check=True)
        result["floor_s"] = json.loads(floor.stdout.strip().splitlines()[-1])["seconds"]
    finally:
        size = log.stat().st_size
        log.unlink()
    result.update(shape=shape, mib=size / 2**20, generate_s=generated)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=float, default=[200], help="transcript sizes in MB")
    parser.add_argument("--shape", choices=[*SHAPES, "both"], default="both")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs are deleted anyway)")
    args = parser.parse_args()
    shapes = list(SHAPES) if args.shape == "both" else [args.shape]
    tmp = Path(tempfile.mkdtemp(prefix="kb-bench-"))
    print(f"{'shape':<13} {'size':>9} {'drafts':>6} {'facts':>6} {'time':>8} {'s/100MiB':>8} {'floor':>7} "
          f"{'x floor':>7} {'max RSS':>9}")
    try:
        for megabytes in args.sizes:
            for shape in shapes:
                r = measure(shape, megabytes, tmp)
                print(f"{r['shape']:<13} {r['mib']:>5.0f} MiB {r['drafts']:>6} {r['facts']:>6} {r['seconds']:>6.1f} s "
                      f"{r['seconds'] / r['mib'] * 100:>8.1f} {r['floor_s']:>5.2f} s {r['seconds'] / r['floor_s']:>7.1f} "
                      f"{r['max_rss_mib']:>5.0f} MiB"
                      + (f"  errors: {r['errors']}" if r["errors"] else ""), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
