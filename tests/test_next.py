"""`kb next`: what to try next, each step with its reason, ranked by the attempts it would unblock."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS
from test_roots_blind import FILES

from kb.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def kb(records: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(records), "next", *args])


def test_the_campaign_next_steps_are_ranked_with_their_reasons():
    data = json.loads(kb(CAMPAIGN_RECORDS, "--json").stdout)
    assert [(s["kind"], s["target"], s["rank"]["unblocks"]) for s in data] == [
        ("verify-credit", "2026-02-26-upgrade-to-cuda-13", 3),
        ("retry", "2026-02-23-torch-symm-mem", 2),
        ("measure-baseline", "kimi-k25-eagle3-blackwell", 1)]
    credit, retry, base = (s["reason"] for s in data)
    assert credit.startswith("it credits cuda with fixing sm120-unsupported-by-cuda-12.8-stack (cuda>=13.0), but "
                             "flashinfer, nccl, sgl-kernel, sglang, torch, triton changed with it")
    assert retry == "its blocker torch-symm-mem-no-capability-12 is resolved on cuda-13.0"
    assert base.startswith("no baseline on cuda-13.0: the last baseline, 2026-02-19-baseline-tp8 (82.0 tok/s), ran on cuda-12.8")
    text = kb(CAMPAIGN_RECORDS, "-n", "1").stdout.splitlines()
    assert text[0] == "1. Verify the credit of 2026-02-26-upgrade-to-cuda-13  (verify-credit; unblocks 3)"
    assert len(text) == 2


def test_the_live_records_name_the_symm_mem_retry_with_the_catalog_prediction_and_a_cuda13_baseline():
    data = json.loads(kb(ROOT / "records", "--json").stdout)
    retry = next(s for s in data if s["kind"] == "retry")
    assert retry["target"] == "2026-02-23-torch-symm-mem" and retry["rank"]["predicted"] == "fails"
    assert "the catalog predicts it still fails: sglang-symm-mem-size-table-keyerror-12 still stands" in retry["reason"]
    assert any(s["kind"] == "measure-baseline" and s["title"] == "Measure a baseline on cuda-13.0" for s in data)


def test_a_second_campaign_names_its_own_steps(write_tree):
    root = write_tree(FILES)
    data = json.loads(kb(root, "--json").stdout)
    assert [(s["kind"], s["target"]) for s in data] == [
        ("verify-credit", "2026-03-14-upgrade-to-cuda-13"), ("measure-baseline", "qwen3-30b-a3b-dgx-spark")]
    assert data[0]["rank"]["headroom"] < 0  # past its target already
    assert "target met" in kb(root).stdout.splitlines()[0]


def test_an_unknown_campaign_is_refused_and_nothing_to_do_is_said(write_tree):
    r = kb(CAMPAIGN_RECORDS, "--campaign", "nope")
    assert r.exit_code != 0 and "unknown campaign 'nope'" in r.output
    root = write_tree({
        "platforms/p.yaml": {"title": "p", "gpu": "g", "gpu_count": 1, "compute_capability": "9.0"},
        "stacks/s.yaml": {"title": "s", "components": {"cuda": "12.8"}},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p", "stack": "s",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
        "attempts/2026-01-01-base.yaml": {"title": "base", "date": "2026-01-01", "campaign": "c", "approach": "a",
                                          "stack": "s", "outcome": "baseline",
                                          "metrics": {"output_throughput": "10 tok/s"}},
    })
    r = kb(root)
    assert r.exit_code == 0 and r.stdout == "" and "nothing to try next" in r.stderr
