"""How ``kb check``'s findings grow with the records (issue 25: one rule once printed 111,209
warnings at 10,000 attempts; findings must grow with the records, not with pairs of them).

For each generator (``gen_campaign``: one campaign; ``gen_fleet``: 40 campaigns on 8 platforms)
and size, writes the records, runs ``kb check --json`` and ``kb check`` in a subprocess and
reports: findings (warnings in the JSON report), the most findings any one record has of one
kind, the lines the text report prints, and the size of the kept report. Linear growth means
findings per attempt stay flat as the size grows.

    python bench/bench_findings.py --sizes 1000 3000 10000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_campaign import generate  # noqa: E402
from gen_fleet import generate_fleet  # noqa: E402


def measure(generator: str, n: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="kb-findings-") as tmp:
        root = Path(tmp) / "records"
        (generate if generator == "campaign" else generate_fleet)(root, n)
        env = {"KB_CACHE": "off", "PATH": "/usr/bin:/bin"}
        run = [sys.executable, "-m", "kb", "--records", str(root), "check"]
        js = subprocess.run([*run, "--json"], capture_output=True, text=True, env=env, check=False)
        report = json.loads(js.stdout)
        text = subprocess.run(run, capture_output=True, text=True, env=env, check=False)
    per = Counter((w["path"], w["message"].split(":")[0]) for w in report["warnings"])
    kinds = Counter(w["path"].split("/")[1] for w in report["warnings"])
    return {"generator": generator, "attempts": n, "findings": len(report["warnings"]),
            "per_attempt": round(len(report["warnings"]) / n, 3),
            "max_per_record_and_kind": max(per.values(), default=0),
            "printed_lines": len(text.stdout.splitlines()), "report_bytes": len(js.stdout),
            "by_folder": dict(kinds)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    ap.add_argument("--generators", nargs="+", default=["campaign", "fleet"], choices=["campaign", "fleet"])
    args = ap.parse_args()
    print("| generator | attempts | findings | per attempt | lines printed | JSON report |")
    print("|---|---:|---:|---:|---:|---:|")
    for g in args.generators:
        for n in args.sizes:
            m = measure(g, n)
            print(f"| {g} | {n:,} | {m['findings']:,} | {m['per_attempt']} | {m['printed_lines']:,} | "
                  f"{int(m['report_bytes']) / 1e6:.2f} MB |", flush=True)


if __name__ == "__main__":
    main()
