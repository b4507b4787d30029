"""A success where a blocker stands: which blocker's feature an attempt runs, and how many such
findings about one blocker `kb check` prints (one line at the blocker once several successes
contradict it; `-v` and `--json` keep each)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from kb.cli import cli

PLATFORM = {"title": "8x RTX PRO 6000", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 8,
            "compute_capability": "12.0", "interconnect": "PCIe Gen5", "nvlink": False}


def tree(blocker: dict[str, Any], failed_flags: list[str], successes: list[list[str]]) -> dict[str, Any]:
    """Records: one blocker standing on the only stack, one attempt it blocked (run with
    ``failed_flags``), and one improved attempt per entry of ``successes`` (its flags)."""
    files: dict[str, Any] = {
        "platforms/rtx.yaml": PLATFORM,
        "stacks/cu128.yaml": {"title": "CUDA 12.8", "components": {"cuda": "12.8.1", "flashinfer": "0.6.4"}},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "rtx", "stack": "cu128",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
        "blockers/gate.yaml": {"title": "a JIT gate", "applies_when": {"flashinfer": "<0.6.17"},
                               "fixed_by": [{"flashinfer": ">=0.6.17"}], **blocker},
        "attempts/2026-02-01-failed.yaml": {"title": "failed run", "date": "2026-02-01", "campaign": "c",
                                            "approach": "turn it on", "stack": "cu128",
                                            "config": {"flags": failed_flags}, "outcome": "failed",
                                            "error": "RuntimeError: gate", "blocked_by": ["gate"]},
    }
    for i, flags in enumerate(successes):
        files[f"attempts/2026-02-{10 + i:02d}-ok-{i}.yaml"] = {
            "title": f"run {i}", "date": f"2026-02-{10 + i:02d}", "campaign": "c", "approach": "another setting",
            "stack": "cu128", "config": {"flags": flags}, "outcome": "improved",
            "metrics": {"output_throughput": f"{90 + i} tok/s"}}
    return files


@pytest.fixture
def check(write_tree: Callable[[dict[str, Any]], Path]) -> Callable[..., Any]:
    def run(files: dict[str, Any], *args: str) -> Any:
        root = write_tree(files)
        return CliRunner().invoke(cli, ["--records", str(root), "check", *args])

    return run


@pytest.mark.parametrize(("blocker", "failed", "success", "why"), [
    # the blocker names no flags: the flags that set the attempt it blocked apart name the feature
    ({}, ["--enable-fusion"], ["--enable-fusion", "--tp 8"], "it blocked 2026-02-01-failed, run with the same --enable-fusion"),
    ({}, ["--enable-fusion", "--tp 8"], ["--tp 8", "--enable-fusion"], "run with the same --enable-fusion, --tp 8"),
    # the blocker names its flag: running it is what counts, by name (a value given or not)
    ({"flags": ["--enable-fusion"]}, ["--enable-fusion"], ["--enable-fusion=true"], "it runs with --enable-fusion, the flag"),
    ({"flags": ["SGLANG_ENABLE_FUSION=1"]}, ["--other"], ["SGLANG_ENABLE_FUSION=1"], "it runs with SGLANG_ENABLE_FUSION=1"),
])
def test_a_success_running_the_blocker_feature_is_one_warning(check, blocker, failed, success, why):
    r = check(tree(blocker, failed, [success]))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and "attempts/2026-02-10-ok-0.yaml" in lines[0] and "where blocker gate still stands" in lines[0]
    assert why in lines[0]


@pytest.mark.parametrize(("blocker", "failed", "success"), [
    # the blocker names its flag; the success runs only what the blocked attempt also ran
    ({"flags": ["--enable-fusion"]}, ["--enable-fusion", "--tp 8"], ["--tp 8"]),
    ({"flags": ["--enable-fusion"]}, ["--speculative-algorithm EAGLE3", "--tp 8"], ["--speculative-algorithm EAGLE3", "--tp 8"]),
    ({"flags": ["SGLANG_ENABLE_FUSION=1"]}, ["SGLANG_ENABLE_FUSION=1", "--tp 8"], ["SGLANG_ENABLE_FUSION=0", "--tp 8"]),
    # no flags named, and the success lacks one of the blocked attempt's flags
    ({}, ["--enable-fusion", "--tp 8"], ["--tp 8"]),
])
def test_a_success_not_running_the_blocker_feature_is_no_warning(check, blocker, failed, success):
    r = check(tree(blocker, failed, [success]))
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert "warning" not in r.stderr


def test_many_successes_against_one_blocker_are_one_line_at_the_blocker(check):
    files = tree({"flags": ["--enable-fusion"]}, ["--enable-fusion"], [["--enable-fusion"]] * 5)
    r = check(files)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("records/blockers/gate.yaml:2: applies_when: warning: 5 attempts recorded as improved or "
                               "baseline run this blocker's feature on stacks where it stands "
                               "(2026-02-10-ok-0 (stack cu128), 2026-02-11-ok-1 (stack cu128), 2026-02-12-ok-2 (stack cu128), …)")
    assert "5 warnings (5 of them shown as 1 line at the blocker many attempts are at odds with; -v lists each)" in r.stderr

    verbose = check(files, "-v")
    assert [ln.split(":")[0] for ln in verbose.stdout.splitlines()] == [
        f"records/attempts/2026-02-{10 + i}-ok-{i}.yaml" for i in range(5)]

    data = json.loads(check(files, "--json").stdout)
    assert len(data["warnings"]) == 5
    assert [(g["path"], g["field"], g["warnings"]) for g in data["groups"]] == [
        ("records/blockers/gate.yaml", "applies_when", [0, 1, 2, 3, 4])]
    assert check(files, "--strict").exit_code == 1


def test_three_successes_stay_three_lines(check):
    r = check(tree({"flags": ["--enable-fusion"]}, ["--enable-fusion"], [["--enable-fusion"]] * 3))
    assert [ln.split(":")[0] for ln in r.stdout.splitlines()] == [
        f"records/attempts/2026-02-{10 + i}-ok-{i}.yaml" for i in range(3)]
    assert "3 warnings" in r.stderr and "shown as" not in r.stderr


def test_the_grouped_report_is_kept_and_given_again(check, write_tree):
    files = tree({"flags": ["--enable-fusion"]}, ["--enable-fusion"], [["--enable-fusion"]] * 4)
    first = check(files)
    again = check({})  # nothing changed: the kept report
    assert again.stdout == first.stdout and again.stderr == first.stderr
    assert "4 warnings (4 of them shown as 1 line" in again.stderr
