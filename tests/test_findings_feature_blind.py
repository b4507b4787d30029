"""Blind tests, written from the spec of the "success where a blocker of the same feature still
stands" finding of `kb check` (not from the code): which attempts run a blocker's feature, when
the blocker stands on the attempt's stack, and how several such warnings about one blocker are
folded into one line at the blocker (plain output) while `-v` and `--json` keep each."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from kb.cli import cli

PLATFORM = {"title": "8x RTX PRO 6000", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 8,
            "compute_capability": "12.0", "interconnect": "PCIe Gen5", "nvlink": False}

STANDS = "still stands"


def blocker(flags: list[str] | None = None, *, applies_when: dict[str, str] | None = None,
            fixed_by: list[dict[str, str]] | None = None, title: str = "a JIT gate") -> dict[str, Any]:
    b: dict[str, Any] = {"title": title,
                         "applies_when": {"flashinfer": "<0.6.17"} if applies_when is None else applies_when,
                         "fixed_by": [{"flashinfer": ">=0.6.17"}] if fixed_by is None else fixed_by}
    if flags is not None:
        b["flags"] = flags
    return b


def attempt(flags: list[str], *, outcome: str = "improved", stack: str = "cu128", baseline: str | None = None,
            blocked_by: list[str] | None = None, day: str = "2026-02-10", env: dict[str, str] | None = None
            ) -> dict[str, Any]:
    a: dict[str, Any] = {"title": f"run {outcome}", "date": day, "campaign": "c", "approach": "try a setting",
                         "stack": stack, "config": {"flags": flags}, "outcome": outcome}
    if env is not None:
        a["config"]["env"] = env
    if baseline is not None:
        a["baseline"] = baseline
    if outcome == "failed":
        a["error"] = "RuntimeError: gate"
    else:
        a["metrics"] = {"output_throughput": "91 tok/s"}
    if blocked_by is not None:
        a["blocked_by"] = blocked_by
    return a


def base(stacks: dict[str, Any] | None = None) -> dict[str, Any]:
    files: dict[str, Any] = {
        "platforms/rtx.yaml": PLATFORM,
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "rtx", "stack": "cu128",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
    }
    if stacks is None:
        stacks = {"cu128": {"title": "CUDA 12.8", "components": {"cuda": "12.8.1", "flashinfer": "0.6.4"}}}
    for sid, s in stacks.items():
        files[f"stacks/{sid}.yaml"] = s
    return files


@pytest.fixture
def check(write_tree: Callable[[dict[str, Any]], Path]) -> Callable[..., Any]:
    def run(files: dict[str, Any], *args: str) -> Any:
        root = write_tree(files)
        return CliRunner().invoke(cli, ["--records", str(root), "check", *args])

    return run


def line_of(files: dict[str, Any], rel: str, key: str, write_tree) -> int:
    """The 1-based line of ``key:`` at the top level of the written file ``rel``."""
    root = write_tree(files)
    for n, text in enumerate((root / rel).read_text(encoding="utf-8").splitlines(), start=1):
        if text.startswith(f"{key}:"):
            return n
    raise AssertionError(f"no {key}: in {rel}")


def stands_lines(out: str, blocker_id: str | None = None) -> list[str]:
    pat = f"where blocker {blocker_id} still stands" if blocker_id else "where blocker "
    return [ln for ln in out.splitlines() if pat in ln and STANDS in ln]


def group_lines(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if "run this blocker's feature on stacks where it stands" in ln]


# --- 1. which attempts run the blocker's feature: flags named by the blocker -------------------

@pytest.mark.parametrize("success_flags", [
    ["--enable-x"],
    ["--enable-x=true"],
    ["--enable-x 1"],
    ["--tp 8", "--enable-x", "1"],          # value as its own token
    ["--tp 8", "--enable-x=false"],        # matched by name, whatever value
])
def test_named_flag_matched_by_name_whatever_value(check, write_tree, success_flags):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--enable-x"], outcome="failed", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1, r.stdout
    n = line_of(files, "attempts/2026-02-10-ok.yaml", "outcome", write_tree)
    assert lines[0].startswith(f"records/attempts/2026-02-10-ok.yaml:{n}: outcome: warning:"), lines[0]
    assert "where blocker gate still stands" in lines[0]
    assert check(files, "--strict").exit_code == 1


@pytest.mark.parametrize("success_flags", [
    ["--enable-x-lite"],                   # a different flag whose name starts the same
    ["--enable-xyz=1"],
    ["--no-enable-x"],
    ["--tp 8"],
    [],
])
def test_named_flag_not_run_gives_no_warning(check, success_flags):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--enable-x", "--tp 8"], outcome="failed",
                                                       blocked_by=["gate"], day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    assert stands_lines(r.stdout) == [], r.stdout
    assert r.stdout == ""


@pytest.mark.parametrize(("success_flags", "warns"), [
    (["SGLANG_ENABLE_X=1"], True),
    (["--tp 8", "SGLANG_ENABLE_X=1"], True),
    (["SGLANG_ENABLE_X=0"], False),     # env settings match exactly, value included
    (["SGLANG_ENABLE_X=10"], False),
    (["SGLANG_ENABLE_X"], False),
    (["SGLANG_OTHER=2", "SGLANG_ENABLE_X=1"], True),   # two env settings, the blocker's second
    (["--enable-y", "SGLANG_ENABLE_X=1"], True),
])
def test_named_env_setting_matched_exactly(check, success_flags, warns):
    files = base()
    files["blockers/gate.yaml"] = blocker(["SGLANG_ENABLE_X=1"])
    files["attempts/2026-02-01-failed.yaml"] = attempt(["SGLANG_ENABLE_X=1"], outcome="failed",
                                                       blocked_by=["gate"], day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    got = stands_lines(r.stdout, "gate")
    assert len(got) == (1 if warns else 0), r.stdout
    if warns:
        assert got[0].startswith("records/attempts/2026-02-10-ok.yaml:")


def test_named_env_setting_given_under_config_env(check):
    """Not in the spec (which speaks of config.flags), but config.env is where the schema keeps
    environment variables: a team's records would put SGLANG_ENABLE_X there too."""
    files = base()
    files["blockers/gate.yaml"] = blocker(["SGLANG_ENABLE_X=1"])
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--tp 8"], env={"SGLANG_ENABLE_X": "1"})
    files["attempts/2026-02-11-ok.yaml"] = attempt(["--tp 8"], env={"SGLANG_ENABLE_X": "0"}, day="2026-02-11")
    r = check(files)
    assert [ln.split(":")[0] for ln in stands_lines(r.stdout, "gate")] == ["records/attempts/2026-02-10-ok.yaml"]


def test_blocker_with_several_flags_any_one_is_enough(check):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x", "SGLANG_X=1"])
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--enable-x"], outcome="failed", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-a.yaml"] = attempt(["SGLANG_X=1"], day="2026-02-10")
    files["attempts/2026-02-11-b.yaml"] = attempt(["--enable-x=1"], day="2026-02-11")
    files["attempts/2026-02-12-c.yaml"] = attempt(["SGLANG_X=2", "--enable-y"], day="2026-02-12")
    r = check(files)
    assert r.exit_code == 0, r.output
    paths = [ln.split(":")[0] for ln in stands_lines(r.stdout, "gate")]
    assert paths == ["records/attempts/2026-02-10-a.yaml", "records/attempts/2026-02-11-b.yaml"], r.stdout


def test_named_flags_decide_even_without_a_blocked_attempt(check):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--enable-x"])
    r = check(files)
    assert r.exit_code == 0, r.output
    assert len(stands_lines(r.stdout, "gate")) == 1, r.stdout


# --- 2. no flags named: the flags that set a blocked attempt apart ------------------------------

BASELINE_FLAGS = ["--tp 8", "--speculative-algorithm EAGLE3"]


@pytest.mark.parametrize(("success_flags", "warns"), [
    (["--enable-fusion"], True),                               # only the set-apart flag
    (["--enable-fusion", "--tp 8"], True),
    (["--tp 8", "--speculative-algorithm EAGLE3", "--enable-fusion", "--cuda-graph-max-bs 128"], True),
    (["--tp 8", "--speculative-algorithm EAGLE3"], False),     # only what the baseline ran
    (["--tp 8"], False),
    (["--tp 8", "--speculative-algorithm EAGLE3", "--cuda-graph-max-bs 128"], False),
])
def test_unnamed_flags_set_apart_from_the_blocked_attempts_baseline(check, success_flags, warns):
    files = base()
    files["blockers/gate.yaml"] = blocker()
    files["attempts/2026-01-20-baseline.yaml"] = attempt(BASELINE_FLAGS, outcome="baseline", day="2026-01-20",
                                                         stack="cu128")
    files["attempts/2026-02-01-failed.yaml"] = attempt(BASELINE_FLAGS + ["--enable-fusion"], outcome="failed",
                                                       baseline="2026-01-20-baseline", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    # the baseline attempt itself (outcome baseline, no --enable-fusion) must not be flagged either
    got = stands_lines(r.stdout, "gate")
    assert [ln.split(":")[0] for ln in got] == (["records/attempts/2026-02-10-ok.yaml"] if warns else []), r.stdout


@pytest.mark.parametrize(("success_flags", "warns"), [
    (["--enable-fusion", "--fusion-backend trtllm"], True),
    (["--fusion-backend trtllm", "--enable-fusion", "--tp 8"], True),
    (["--enable-fusion"], False),                       # every set-apart flag is needed
    (["--fusion-backend trtllm"], False),
])
def test_unnamed_flags_without_baseline_need_all_of_the_blocked_attempts_flags(check, success_flags, warns):
    files = base()
    files["blockers/gate.yaml"] = blocker()
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--enable-fusion", "--fusion-backend trtllm"],
                                                       outcome="failed", blocked_by=["gate"], day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    assert len(stands_lines(r.stdout, "gate")) == (1 if warns else 0), r.stdout


@pytest.mark.parametrize(("success_flags", "warns"), [
    (["--tp 8", "SGLANG_FUSION=1"], True),
    (["SGLANG_FUSION=1"], True),
    (["--tp 8", "SGLANG_FUSION=0"], False),
    (["--tp 8"], False),
])
def test_unnamed_env_setting_set_apart_from_the_baseline(check, success_flags, warns):
    files = base()
    files["blockers/gate.yaml"] = blocker()
    files["attempts/2026-01-20-baseline.yaml"] = attempt(["--tp 8"], outcome="regressed", day="2026-01-20")
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--tp 8", "SGLANG_FUSION=1"], outcome="failed",
                                                       baseline="2026-01-20-baseline", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    assert len(stands_lines(r.stdout, "gate")) == (1 if warns else 0), r.stdout


@pytest.mark.parametrize(("failed_flags", "success_flags"), [
    (["SGLANG_A=1", "SGLANG_B=1"], ["SGLANG_B=1", "SGLANG_A=1"]),        # the same settings, another order
    (["SGLANG_A=1"], ["--tp 8", "SGLANG_A=1"]),
    (["--enable-a", "--tp 8"], ["--tp 8", "--enable-a"]),
])
def test_unnamed_flags_order_does_not_matter(check, failed_flags, success_flags):
    files = base()
    files["blockers/gate.yaml"] = blocker()
    files["attempts/2026-02-01-failed.yaml"] = attempt(failed_flags, outcome="failed", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    assert len(stands_lines(r.stdout, "gate")) == 1, r.stdout


@pytest.mark.parametrize(("success_flags", "warns"), [
    (["--enable-a"], True),
    (["--enable-b"], True),
    (["--enable-c"], False),
])
def test_unnamed_flags_any_blocked_attempt_names_a_feature(check, success_flags, warns):
    files = base()
    files["blockers/gate.yaml"] = blocker()
    files["attempts/2026-02-01-failed-a.yaml"] = attempt(["--enable-a"], outcome="failed", blocked_by=["gate"],
                                                         day="2026-02-01")
    files["attempts/2026-02-02-failed-b.yaml"] = attempt(["--enable-b"], outcome="failed", blocked_by=["gate"],
                                                         day="2026-02-02")
    files["attempts/2026-02-10-ok.yaml"] = attempt(success_flags)
    r = check(files)
    assert r.exit_code == 0, r.output
    assert len(stands_lines(r.stdout, "gate")) == (1 if warns else 0), r.stdout


# --- outcomes, and citing the blocker ----------------------------------------------------------

@pytest.mark.parametrize(("outcome", "warns"), [
    ("improved", True),
    ("baseline", True),
    ("regressed", False),
    ("failed", False),
    ("neutral", False),
    ("inconclusive", False),
])
def test_only_improved_or_baseline_claims_success(check, outcome, warns):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--enable-x"], outcome="failed", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-run.yaml"] = attempt(["--enable-x"], outcome=outcome)
    r = check(files)
    assert r.exit_code == 0, r.output
    got = stands_lines(r.stdout, "gate")
    assert [ln.split(":")[0] for ln in got] == (["records/attempts/2026-02-10-run.yaml"] if warns else []), r.stdout


def test_an_attempt_citing_the_blocker_is_not_this_warning(check):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["attempts/2026-02-01-failed.yaml"] = attempt(["--enable-x"], outcome="failed", blocked_by=["gate"],
                                                       day="2026-02-01")
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--enable-x"], blocked_by=["gate"])
    r = check(files)
    assert stands_lines(r.stdout, "gate") == [], r.stdout


# --- 3. where the blocker stands ---------------------------------------------------------------

@pytest.mark.parametrize(("components", "bl", "warns"), [
    ({"cuda": "12.8.1", "flashinfer": "0.6.4"}, blocker(["--enable-x"]), True),
    ({"cuda": "12.8.1", "flashinfer": "0.6.17"}, blocker(["--enable-x"]), False),     # applies_when not met
    ({"cuda": "12.8.1", "flashinfer": "0.7.0"}, blocker(["--enable-x"]), False),
    # applies everywhere, fixed by flashinfer alone: the stack meets the fix
    ({"cuda": "12.8.1", "flashinfer": "0.6.17"},
     blocker(["--enable-x"], applies_when={}, fixed_by=[{"flashinfer": ">=0.6.17"}]), False),
    # a co-requirement is not a fix alone: flashinfer met, cuda not: it still stands
    ({"cuda": "12.8.1", "flashinfer": "0.6.17"},
     blocker(["--enable-x"], applies_when={}, fixed_by=[{"flashinfer": ">=0.6.17", "cuda": ">=12.9"}]), True),
    ({"cuda": "12.9.1", "flashinfer": "0.6.17"},
     blocker(["--enable-x"], applies_when={}, fixed_by=[{"flashinfer": ">=0.6.17", "cuda": ">=12.9"}]), False),
    # one of two alternative fixes met
    ({"cuda": "13.0.1", "flashinfer": "0.6.4"},
     blocker(["--enable-x"], applies_when={}, fixed_by=[{"flashinfer": ">=0.6.17"}, {"cuda": ">=13.0"}]), False),
    # applies_when on a component the stack meets; fix not met
    ({"cuda": "12.8.1", "flashinfer": "0.6.4"},
     blocker(["--enable-x"], applies_when={"cuda": "<12.9"}, fixed_by=[{"cuda": ">=12.9"}]), True),
    ({"cuda": "13.0.1", "flashinfer": "0.6.4"},
     blocker(["--enable-x"], applies_when={"cuda": "<12.9"}, fixed_by=[{"cuda": ">=12.9"}]), False),
])
def test_the_blocker_must_stand_on_the_attempts_stack(check, components, bl, warns):
    files = base({"cu128": {"title": "stack", "components": components}})
    files["blockers/gate.yaml"] = bl
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--enable-x=1"])
    r = check(files)
    assert r.exit_code == 0, r.output
    assert len(stands_lines(r.stdout, "gate")) == (1 if warns else 0), r.stdout


@pytest.mark.parametrize(("child_components", "base_components", "warns"), [
    # the base stack carries the old flashinfer; the child overrides cuda only
    ({"cuda": "13.0.1"}, {"cuda": "12.8.1", "flashinfer": "0.6.4"}, True),
    # the base stack carries the fixed flashinfer
    ({"cuda": "13.0.1"}, {"cuda": "12.8.1", "flashinfer": "0.6.17"}, False),
    # the child overrides flashinfer to the fixed version
    ({"flashinfer": "0.6.17"}, {"cuda": "12.8.1", "flashinfer": "0.6.4"}, False),
    # the child overrides flashinfer back to an old version over a fixed base
    ({"flashinfer": "0.6.4"}, {"cuda": "12.8.1", "flashinfer": "0.6.17"}, True),
])
def test_components_come_through_the_base_stack(check, child_components, base_components, warns):
    files = base({"cu128": {"title": "base", "components": base_components},
                  "cu130": {"title": "child", "base": "cu128", "components": child_components}})
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--enable-x"], stack="cu130")
    r = check(files)
    assert r.exit_code == 0, r.output
    got = stands_lines(r.stdout, "gate")
    assert len(got) == (1 if warns else 0), r.stdout
    if warns:
        assert got[0].startswith("records/attempts/2026-02-10-ok.yaml:")


# --- several blockers against one attempt ------------------------------------------------------

def test_several_blockers_against_one_attempt_each_warn(check, write_tree):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["blockers/other.yaml"] = blocker(["SGLANG_Y=1"], applies_when={"cuda": "<13"}, fixed_by=[{"cuda": ">=13"}],
                                           title="another gate")
    files["blockers/fixed.yaml"] = blocker(["--enable-x"], applies_when={"cuda": ">=13"}, fixed_by=[],
                                           title="not on this stack")
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--enable-x=1", "SGLANG_Y=1"])
    r = check(files)
    assert r.exit_code == 0, r.output
    n = line_of(files, "attempts/2026-02-10-ok.yaml", "outcome", write_tree)
    # one warning per record and kind (issue 24, item 4), naming the other blocker it stands for
    gate = stands_lines(r.stdout, "gate")
    assert len(gate) == 1, r.stdout
    assert gate[0].startswith(f"records/attempts/2026-02-10-ok.yaml:{n}: outcome: warning:")
    assert "; and 1 more like it: about other" in gate[0]
    assert stands_lines(r.stdout, "fixed") == []
    assert "1 warning" in r.stderr


def test_citing_one_blocker_leaves_the_other_warning(check):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["blockers/other.yaml"] = blocker(["SGLANG_Y=1"], title="another gate")
    files["attempts/2026-02-10-ok.yaml"] = attempt(["--enable-x", "SGLANG_Y=1"], blocked_by=["other"])
    r = check(files)
    assert len(stands_lines(r.stdout, "gate")) == 1, r.stdout
    assert stands_lines(r.stdout, "other") == [], r.stdout


# --- 4. folding: exactly 3 and exactly 4 -------------------------------------------------------

def successes(files: dict[str, Any], n: int, flags: list[str], *, start: int = 10, stack: str = "cu128",
              outcomes: list[str] | None = None, prefix: str = "ok") -> list[str]:
    ids = []
    for i in range(n):
        aid = f"2026-02-{start + i:02d}-{prefix}-{i}"
        files[f"attempts/{aid}.yaml"] = attempt(flags, day=f"2026-02-{start + i:02d}", stack=stack,
                                                outcome=(outcomes[i] if outcomes else "improved"))
        ids.append(aid)
    return ids


def test_exactly_three_stay_three_lines(check, write_tree):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    ids = successes(files, 3, ["--enable-x=true"])
    r = check(files)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines] == [f"records/attempts/{a}.yaml" for a in ids]
    assert all("where blocker gate still stands" in ln for ln in lines)
    assert group_lines(r.stdout) == []
    assert "3 warnings" in r.stderr and "shown as" not in r.stderr
    data = json.loads(check(files, "--json").stdout)
    assert len(data["warnings"]) == 3
    assert data.get("groups", []) == []


def test_exactly_four_fold_into_one_line_at_the_blocker(check, write_tree):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    ids = successes(files, 4, ["--enable-x 1"])
    r = check(files)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1, r.stdout
    assert lines[0].startswith("records/blockers/gate.yaml:"), lines[0]
    assert ("4 attempts recorded as improved or baseline run this blocker's feature on stacks where it stands"
            in lines[0])
    assert "4 warnings (4 of them shown as 1 line" in r.stderr
    assert check(files, "--strict").exit_code == 1

    v = check(files, "-v")
    assert [ln.split(":")[0] for ln in v.stdout.splitlines()] == [f"records/attempts/{a}.yaml" for a in ids]
    n = line_of(files, f"attempts/{ids[0]}.yaml", "outcome", write_tree)
    assert v.stdout.splitlines()[0].startswith(f"records/attempts/{ids[0]}.yaml:{n}: outcome: warning:")
    assert all("where blocker gate still stands" in ln for ln in v.stdout.splitlines())

    data = json.loads(check(files, "--json").stdout)
    assert len(data["warnings"]) == 4
    assert all("where blocker gate still stands" in w["message"] for w in data["warnings"])
    assert len(data["groups"]) == 1
    g = data["groups"][0]
    assert {"path", "line", "field", "message", "warnings"} <= set(g)
    assert g["path"] == "records/blockers/gate.yaml"
    assert isinstance(g["line"], int) and g["line"] >= 1
    assert sorted(g["warnings"]) == [0, 1, 2, 3]
    assert "4 attempts" in g["message"]


def test_baseline_outcomes_and_several_stacks_count_toward_the_fold(check):
    files = base({"cu128": {"title": "CUDA 12.8", "components": {"cuda": "12.8.1", "flashinfer": "0.6.4"}},
                  "cu129": {"title": "CUDA 12.9", "base": "cu128", "components": {"cuda": "12.9.1"}},
                  "fixed": {"title": "fixed", "base": "cu128", "components": {"flashinfer": "0.6.17"}}})
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    successes(files, 2, ["--enable-x"], start=10, stack="cu128", outcomes=["improved", "baseline"], prefix="a")
    successes(files, 2, ["--enable-x"], start=12, stack="cu129", outcomes=["baseline", "improved"], prefix="b")
    successes(files, 3, ["--enable-x"], start=14, stack="fixed", prefix="c")       # blocker fixed there
    r = check(files)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1, r.stdout
    assert lines[0].startswith("records/blockers/gate.yaml:")
    assert "4 attempts recorded as improved or baseline" in lines[0]
    assert "(stack fixed)" not in lines[0] and "-c-" not in lines[0]
    data = json.loads(check(files, "--json").stdout)
    assert len(data["warnings"]) == 4


def test_three_standing_plus_fixed_elsewhere_do_not_fold(check):
    files = base({"cu128": {"title": "CUDA 12.8", "components": {"cuda": "12.8.1", "flashinfer": "0.6.4"}},
                  "fixed": {"title": "fixed", "base": "cu128", "components": {"flashinfer": "0.6.17"}}})
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    ids = successes(files, 3, ["--enable-x"], start=10, prefix="a")
    successes(files, 2, ["--enable-x"], start=13, stack="fixed", prefix="b")
    r = check(files)
    assert [ln.split(":")[0] for ln in r.stdout.splitlines()] == [f"records/attempts/{a}.yaml" for a in ids]
    assert "3 warnings" in r.stderr and "shown as" not in r.stderr


def test_two_blockers_each_with_four_or_more_are_two_lines(check):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["blockers/other.yaml"] = blocker(["SGLANG_Y=1"], title="another gate")
    gate_ids = successes(files, 4, ["--enable-x=on"], start=10, prefix="x")
    other_ids = successes(files, 5, ["SGLANG_Y=1"], start=14, prefix="y")
    r = check(files)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    by_path = {ln.split(":")[0]: ln for ln in lines}
    assert set(by_path) == {"records/blockers/gate.yaml", "records/blockers/other.yaml"}
    assert "4 attempts recorded as improved or baseline" in by_path["records/blockers/gate.yaml"]
    assert "5 attempts recorded as improved or baseline" in by_path["records/blockers/other.yaml"]
    assert "9 warnings" in r.stderr
    assert re.search(r"9 of them shown as 2 lines?\b", r.stderr), r.stderr

    v = check(files, "-v")
    assert sorted(ln.split(":")[0] for ln in v.stdout.splitlines()) == sorted(
        f"records/attempts/{a}.yaml" for a in gate_ids + other_ids)

    data = json.loads(check(files, "--json").stdout)
    warnings = data["warnings"]
    assert len(warnings) == 9
    groups = {g["path"]: g for g in data["groups"]}
    assert set(groups) == {"records/blockers/gate.yaml", "records/blockers/other.yaml"}
    gi, oi = groups["records/blockers/gate.yaml"]["warnings"], groups["records/blockers/other.yaml"]["warnings"]
    assert len(gi) == 4 and len(oi) == 5 and not set(gi) & set(oi)
    assert all("where blocker gate still stands" in warnings[i]["message"] for i in gi)
    assert all("where blocker other still stands" in warnings[i]["message"] for i in oi)
    assert sorted(warnings[i]["path"] for i in gi) == [f"records/attempts/{a}.yaml" for a in gate_ids]


def test_one_blocker_folded_another_not(check):
    files = base()
    files["blockers/gate.yaml"] = blocker(["--enable-x"])
    files["blockers/other.yaml"] = blocker(["SGLANG_Y=1"], title="another gate")
    successes(files, 4, ["--enable-x"], start=10, prefix="x")
    other_ids = successes(files, 2, ["SGLANG_Y=1"], start=14, prefix="y")
    r = check(files)
    lines = r.stdout.splitlines()
    assert len(lines) == 3, r.stdout
    assert len(group_lines(r.stdout)) == 1 and group_lines(r.stdout)[0].startswith("records/blockers/gate.yaml:")
    assert [ln.split(":")[0] for ln in stands_lines(r.stdout, "other")] == [
        f"records/attempts/{a}.yaml" for a in other_ids]
    assert "6 warnings (4 of them shown as 1 line" in r.stderr
    data = json.loads(check(files, "--json").stdout)
    assert len(data["warnings"]) == 6 and len(data["groups"]) == 1
