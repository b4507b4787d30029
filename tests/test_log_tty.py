"""`kb log` on a real terminal (a pseudo-terminal): it prompts for what is missing, asks again
after a bad answer, and writes the record."""

from __future__ import annotations

import sys

import yaml
from terminal import Terminal


def test_kb_log_prompts_on_a_terminal_and_asks_again(campaign_copy, tmp_path):
    term = Terminal([sys.executable, "-m", "kb", "--records", str(campaign_copy), "log"], cwd=str(tmp_path))
    try:
        term.expect("title:")
        term.send("NCCL Tree retry")
        term.expect("campaign: kimi-k25-eagle3-blackwell")  # the only campaign: said, not asked
        term.expect("approach (what was tried):")
        term.send("Force NCCL_ALGO=Tree with CUDA graphs off")
        term.expect("outcome (baseline, improved, regressed, neutral, failed, inconclusive):")
        term.send("wonderful")
        term.expect("Error: 'wonderful' is not one of")
        term.send("regressed")
        term.expect("stack (cuda-12.8, cuda-13.0, -) [cuda-13.0]:")
        term.send("cuda-12.8")
        term.expect("flags of the run (e.g. --tp 8 --enable-x; empty if none):")
        term.send("--tp 8 NCCL_ALGO=Tree")
        term.expect("output_throughput in tok/s (empty to skip):")
        term.send("41.2")
        screen = term.expect("logged attempt 2026-")
    finally:
        code = term.close()
    assert code == 0, screen
    [path] = [p for p in (campaign_copy / "attempts").iterdir() if "nccl-tree-retry" in p.name]
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert (record["title"], record["outcome"], record["stack"]) == ("NCCL Tree retry", "regressed", "cuda-12.8")
    assert record["metrics"] == {"output_throughput": "41.2 tok/s"}
    assert record["config"]["flags"] == ["--tp 8 NCCL_ALGO=Tree"]
    assert record["campaign"] == "kimi-k25-eagle3-blackwell"
