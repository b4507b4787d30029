"""kb new decision|blocker: valid skeletons, and a decision drafted from what an upgrade unblocks."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from unblock_cases import CASES, GATE, VERIFY

from kb.cli import cli
from kb.errors import QueryError
from kb.graph import load_graph
from kb.logbook import decision_from_upgrade, new_decision
from kb.models import Decision
from kb.store import load_records

TODAY = dt.date.today()


def invoke(root: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(root), *args])


def read(path: str | Path) -> dict:
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def test_new_decision_is_a_valid_proposed_madr_skeleton(write_tree):
    root = write_tree(CASES)
    r = invoke(root, "new", "decision", "Adopt", "NCCL", "2.28")
    assert r.exit_code == 0, r.output
    path = root / "decisions" / f"{TODAY.isoformat()}-adopt-nccl-2.28.yaml"
    assert r.stdout == f"{path}\n"
    data = read(path)
    assert (data["title"], data["status"], data["date"]) == ("Adopt NCCL 2.28", "proposed", TODAY)
    assert data["considered_options"][0]["title"] == data["outcome"]["chosen"] == "Adopt NCCL 2.28"
    assert {"context", "decision_drivers", "considered_options", "outcome", "consequences"} <= set(data)
    assert load_records(root).problems == []


def test_new_blocker_is_a_valid_open_skeleton_and_never_overwrites(write_tree):
    root = write_tree(CASES)
    first = invoke(root, "new", "blocker", "NCCL hangs on P2P")
    second = invoke(root, "new", "blocker", "NCCL hangs on P2P", "--json")
    assert first.stdout == f"{root / 'blockers' / 'nccl-hangs-on-p2p.yaml'}\n"
    assert json.loads(second.stdout) == {"id": "nccl-hangs-on-p2p-2", "kind": "blocker",
                                         "path": str(root / "blockers" / "nccl-hangs-on-p2p-2.yaml")}
    assert read(first.stdout.strip())["title"] == "NCCL hangs on P2P"
    records = load_records(root)
    assert records.problems == []
    assert records.records.records["nccl-hangs-on-p2p"].status == "open"


def test_new_decision_from_upgrade_fills_context_resolves_evidence_and_stack_change(write_tree):
    root = write_tree(CASES)
    r = invoke(root, "new", "decision", "--from-upgrade", "cuda=13.0", "--from-upgrade", "flashinfer=0.6.17",
               "--from", "cu128", "Move to CUDA 13 and flashinfer 0.6.17")
    assert r.exit_code == 0, r.output
    data = read(r.stdout.strip())
    assert data["resolves"] == ["cuda12-only-bug", VERIFY, GATE, "needs-cuda-13"]
    assert data["considered_options"][0]["evidence"] == ["2026-02-21-eagle3", "2026-02-23-fusion"]
    assert data["stack_change"] == {"from": "cu128", "components": {"cuda": "13.0", "flashinfer": "0.6.17"}}
    assert data["campaign"] == "blackwell"
    ctx = data["context"]
    assert ctx.startswith("Moving from stack cu128 to cuda=13.0 flashinfer=0.6.17 would resolve 4 blockers:\n")
    assert f"- {GATE}: FlashInfer allreduce-fusion JIT gate lists only majors 9 and 10 (flashinfer>=0.6.17, cuda>=12.9)" in ctx
    assert "- 2026-02-21-eagle3: EAGLE-3 (regressed, output_throughput 54.1 tok/s; worth retrying)" in ctx
    assert "- torch-symm-mem-no-capability-12: no known fix (workaround: Leave --enable-torch-symm-mem off.)" in ctx
    assert load_records(root).problems == []


def test_an_upgrade_that_resolves_nothing_drafts_nothing(write_tree):
    root = write_tree(CASES)
    before = sorted((root / "decisions").glob("*")) if (root / "decisions").exists() else []
    r = invoke(root, "new", "decision", "--from-upgrade", "vllm=0.17", "--from", "cu128", "Nothing")
    assert r.exit_code == 1
    assert "vllm=0.17 resolves no standing blocker from stack cu128; nothing to draft a decision from" in r.output
    assert (sorted((root / "decisions").glob("*")) if (root / "decisions").exists() else []) == before


def test_bad_change_and_bad_usage(write_tree):
    root = write_tree(CASES)
    assert invoke(root, "new", "decision", "--from-upgrade", "cuda", "T").exit_code == 1
    assert invoke(root, "new", "decision").exit_code == 2
    assert invoke(root, "new", "decision", "--date", "2026-02-30", "T").exit_code == 2
    assert invoke(root, "new", "frobnicate", "T").exit_code == 2


def test_library_decision_from_the_campaign_records_upgrade_to_cuda_13(campaign_copy):
    kg = load_graph(campaign_copy)
    d = decision_from_upgrade(kg, "Upgrade to CUDA 13", {"cuda": "13.0"}, from_stack="cuda-12.8",
                              date=dt.date(2026, 2, 26))
    assert isinstance(d, Decision)
    assert d.id == "2026-02-26-upgrade-to-cuda-13"
    assert "sm120-unsupported-by-cuda-12.8-stack" in d.resolves
    assert d.evidence[:1] == ["2026-02-21-eagle3-speculation"]
    with pytest.raises(QueryError, match="resolves no standing blocker from stack cuda-13.0"):
        decision_from_upgrade(kg, "Again", {"cuda": "13.0"}, from_stack="cuda-13.0")


def test_new_decision_validates_the_title():
    assert new_decision("  Keep CUDA 12.8  ", date=dt.date(2026, 1, 2)).id == "2026-01-02-keep-cuda-12.8"
