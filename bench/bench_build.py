"""Benchmark: load, check, rank and build the site for a synthetic campaign of N attempts.

Usage: python bench/bench_build.py [N ...]   (default: 100 1000)

Writes N attempts (a third failed, blocked by one of 30 blockers under 5 root causes) next to
the real campaign's records in a temporary folder, then times each step in a fresh process and
reports wall time and peak resident memory (ru_maxrss). Targets: a 1,000-attempt site builds in
well under the 23-34 s / 385 MB that a navigation listing every record cost (DESIGN.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

STEP = r"""
import json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from kb.pipeline import load
from kb.queries import roots
loaded = load(sys.argv[1])
records, problems = loaded.records, loaded.problems
t1 = time.perf_counter()
kg = loaded.graph
r = roots(kg)
t2 = time.perf_counter()
from kb.site.build import build_site
import logging; logging.getLogger("mkdocs").setLevel(logging.ERROR)
build_site(sys.argv[1], site_dir=sys.argv[2])
t3 = time.perf_counter()
print(json.dumps({"records": len(records), "problems": len(problems), "check_s": t1 - t0,
                  "graph_roots_s": t2 - t1, "build_s": t3 - t2,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_tree(dest: Path, n: int) -> None:
    shutil.copytree(ROOT / "records", dest)
    for r in range(5):
        (dest / "blockers" / f"bench-root-{r}.yaml").write_text(
            yaml.safe_dump({"title": f"Synthetic root cause {r}", "fixed_by": [{"cuda": f">=13.{r}"}]}), encoding="utf-8")
    for b in range(30):
        (dest / "blockers" / f"bench-blocker-{b}.yaml").write_text(
            yaml.safe_dump({"title": f"Synthetic blocker {b}", "caused_by": [f"bench-root-{b % 5}"],
                            "signatures": [f"error code {b}"]}), encoding="utf-8")
    for i in range(n):
        failed = i % 3 == 0
        rec = {"title": f"Synthetic attempt {i}", "date": f"2026-03-{1 + i % 28:02d}",
               "campaign": "kimi-k25-eagle3-blackwell", "approach": f"flag variant {i}",
               "stack": "cuda-12.8", "outcome": "failed" if failed else ("improved" if i % 2 else "regressed"),
               "config": {"flags": [f"--opt-{i}", "--tp 8"]}}
        if failed:
            rec["error"] = f"RuntimeError: error code {i % 30}"
            rec["blocked_by"] = [f"bench-blocker-{i % 30}"]
        else:
            rec["metrics"] = {"output_throughput": f"{60 + (i % 40) * 0.5} tok/s"}
        (dest / "attempts" / f"2026-03-01-bench-{i:05d}.yaml").write_text(yaml.safe_dump(rec), encoding="utf-8")


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [100, 1000]
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            records = Path(tmp) / "records"
            make_tree(records, n)
            out = subprocess.run([sys.executable, "-c", STEP, str(records), str(Path(tmp) / "site")],
                                 capture_output=True, text=True, cwd=tmp, check=True)
            res = json.loads(out.stdout.strip().splitlines()[-1])
            pages = sum(1 for _ in (Path(tmp) / "site").rglob("index.html"))
            print(f"{n:>6} attempts: {res['records']} records, check {res['check_s']:.2f} s, "
                  f"graph+roots {res['graph_roots_s']:.2f} s, site build {res['build_s']:.2f} s "
                  f"({pages} pages), peak RSS {res['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
