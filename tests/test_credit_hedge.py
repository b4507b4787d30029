"""A fix an accepted decision credits while other components changed with the credited one is a
hypothesis: every answer that phrases the fix says so (kb.queries.fixtext.credit_hedge), until an
attempt that changed only the credited component verifies it. The records are the ones written
blind for `kb next` (tests/test_next_match_blind.py)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from test_next_match_blind import attempt, credit_tree

from kb.cli import cli

BLOCKER = "paged-attn-illegal-access"
HEDGE = "credited, not verified: nccl, torch, triton, vllm changed with cuda in 2026-06-05-upgrade-cuda-124"
# (nccl and triton ship inside torch's wheels: they moved with torch)


def roots_fix(write_tree, files) -> str:
    data = json.loads(CliRunner().invoke(cli, ["--records", str(write_tree(files)), "roots", "--json"]).stdout)
    return next(r["fix"] for r in data["roots"] if r["id"] == BLOCKER)


def test_a_confounded_credit_is_hedged_in_every_answer(write_tree):
    root = write_tree(credit_tree())
    assert roots_fix(write_tree, credit_tree()) == f"fixed by cuda>=12.4 ({HEDGE})"
    why = CliRunner().invoke(cli, ["--records", str(root), "why", "2026-06-02-long-ctx"]).stdout
    assert f"fixed by cuda>=12.4 ({HEDGE})" in why
    match = json.loads(CliRunner().invoke(cli, ["--records", str(root), "match", "--json",
                                                "paged_attention_v2_kernel: an illegal memory access"]).stdout)
    assert match["matches"][0]["fix"] == f"fixed by cuda>=12.4 ({HEDGE})"


def test_an_attempt_that_changed_only_the_credited_component_verifies_it(write_tree):
    files = credit_tree()
    files["stacks/v1-cuda124.yaml"] = {"title": "v1 with CUDA 12.4 only", "base": "v1", "components": {"cuda": "12.4.1"}}
    files["attempts/2026-06-06-long-ctx-cuda-only.yaml"] = attempt(
        "2026-06-06", "gemma-a100", "v1-cuda124", "improved", platform="a100",
        flags=["--tp 4", "--max-model-len 32768"], approach="long context", baseline="2026-06-02-long-ctx", tps=58)
    assert roots_fix(write_tree, files) == "fixed by cuda>=12.4"


def test_a_one_component_change_or_a_decision_not_accepted_carries_no_hedge(write_tree):
    files = credit_tree()
    files["stacks/v2.yaml"] = {"title": "v2", "base": "v1", "components": {"cuda": "12.4.1"}}
    assert roots_fix(write_tree, files) == "fixed by cuda>=12.4"
    files = credit_tree()
    files["decisions/2026-06-05-upgrade-cuda-124.yaml"]["status"] = "proposed"
    assert roots_fix(write_tree, files) == "fixed by cuda>=12.4"
