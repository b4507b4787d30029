"""Two contradictions judged under an attempt's own stack: a failure naming a blocker that stack
resolves (``blocked-where-fixed``), and a success whose error text matches a blocker standing there
(``success-error-matches-standing-blocker``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from kb.cli import cli

PLATFORM = {"title": "8x RTX PRO 6000", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 8,
            "compute_capability": "12.0", "interconnect": "PCIe Gen5", "nvlink": False}
GATE = {"title": "a JIT gate", "applies_when": {"flashinfer": "<0.6.17"}, "fixed_by": [{"flashinfer": ">=0.6.17"}],
        "signatures": ["No supported CUDA architectures found for major versions [9, 10]"]}


def tree(stack_fi: str, attempt: dict[str, Any], blocker: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "platforms/rtx.yaml": PLATFORM,
        "stacks/s.yaml": {"title": "the stack", "components": {"cuda": "12.9.1", "flashinfer": stack_fi}},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "rtx", "stack": "s",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
        "blockers/gate.yaml": blocker or GATE,
        "attempts/2026-03-01-run.yaml": {"title": "the run", "date": "2026-03-01", "campaign": "c",
                                         "approach": "turn it on", "stack": "s", **attempt},
    }


@pytest.fixture
def check(write_tree: Callable[[dict[str, Any]], Path]) -> Callable[..., Any]:
    def run(files: dict[str, Any]) -> Any:
        root = write_tree(files)
        old = os.getcwd()
        os.chdir(root.parent)  # beside the folder, as a user runs it: the explaining commands need no --records
        try:
            return CliRunner().invoke(cli, ["--records", "records", "check"])
        finally:
            os.chdir(old)

    return run


FAILED = {"outcome": "failed", "error": "RuntimeError: boom", "blocked_by": ["gate"]}


@pytest.mark.parametrize(("stack_fi", "attempt", "warned"), [
    ("0.6.17", FAILED, True),                                   # the stack meets the fix
    ("0.7.0", {**FAILED, "outcome": "regressed", "metrics": {"output_throughput": "80 tok/s"}}, True),
    ("0.6.4", FAILED, False),                                   # it stands there: no contradiction
    ("0.6.17", {**FAILED, "outcome": "inconclusive"}, False),   # inconclusive claims nothing
])
def test_a_failure_naming_a_blocker_its_stack_is_outside_of(check, stack_fi, attempt, warned):
    r = check(tree(stack_fi, attempt))
    assert r.exit_code == 0, r.output
    how = f"does not apply on stack s (applies only when flashinfer<0.6.17; the stack has flashinfer {stack_fi})"
    expected = [f"records/attempts/2026-03-01-run.yaml:9: blocked_by.0: warning: blocked_by names gate, which "
                f"{how}: either the attempt ran on another stack, or gate's fixed_by or applies_when is wrong [explained by: kb why 2026-03-01-run]"] if warned else []
    assert r.stdout.splitlines() == expected


OK = {"outcome": "improved", "metrics": {"output_throughput": "96 tok/s"},
      "error": "warning: No supported CUDA architectures found for major versions [9, 10]; fell back"}


@pytest.mark.parametrize(("stack_fi", "attempt", "blocker", "warned"), [
    ("0.6.4", OK, None, True),                                           # the gate stands: the run cannot have worked
    ("0.6.4", {**OK, "outcome": "baseline"}, None, True),
    ("0.6.17", OK, None, False),                                         # fixed on its stack
    ("0.6.4", {**OK, "error": "all fine"}, None, False),                 # no signature in the text
    ("0.6.4", OK, {**GATE, "signatures": ["CUDA out of memory", "No supported CUDA architectures"]}, True),
    ("0.6.4", {**OK, "error": "CUDA out of memory once, retried"},       # a generic signature alone links nothing
     {**GATE, "signatures": ["CUDA out of memory"]}, False),
])
def test_a_success_whose_error_matches_a_standing_blocker(check, stack_fi, attempt, blocker, warned):
    r = check(tree(stack_fi, attempt, blocker))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    if not warned:
        assert lines == []
        return
    assert len(lines) == 1
    assert lines[0].startswith("records/attempts/2026-03-01-run.yaml:")
    assert ": error: warning: outcome is " in lines[0] and ", yet its error matches blocker gate (signature " in lines[0]
    assert "which stands on stack s: if the run hit it, the outcome or the stack is wrong" in lines[0]


def test_a_failure_naming_a_blocker_its_stack_resolves_by_a_fix(check):
    gate = {"title": "a JIT gate", "fixed_by": [{"flashinfer": ">=0.6.17"}]}  # no applies_when: only the fix
    r = check(tree("0.6.17", FAILED, gate))
    assert r.stdout.splitlines() == [
        "records/attempts/2026-03-01-run.yaml:9: blocked_by.0: warning: blocked_by names gate, which stack s resolves "
        "(flashinfer>=0.6.17): either the attempt ran on another stack, or gate's fixed_by or applies_when is wrong "
        "[explained by: kb why 2026-03-01-run]"]
    assert check(tree("0.6.4", FAILED, gate)).stdout == ""


def test_a_failure_naming_a_blocker_whose_component_the_stack_leaves_out(check):
    """The stack does not record the blocker's component (NCCL ships inside torch's wheels): what to
    complete is the stack record, and the warning says so."""
    nccl = {"title": "NCCL P2P disabled, slow allreduce", "component": "nccl", "status": "open"}
    r = check(tree("0.6.4", FAILED, nccl))
    assert r.stdout.splitlines() == [
        "records/attempts/2026-03-01-run.yaml:9: blocked_by.0: warning: blocked_by names gate, which lives in nccl, "
        "but stack s records no nccl: add nccl's version to the stack (a component may ship inside another: "
        "torch's wheels bundle NCCL and Triton), or remove gate's component if it does not live there "
        "[explained by: kb why 2026-03-01-run]"]
