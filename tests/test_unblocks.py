"""kb.queries.unblocks and resolve_blockers on the Cases of issue 3 (tests/unblock_cases.py)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from unblock_cases import CASES, GATE, SYMM, TWO, VERIFY, WHEEL

from kb.cli import cli
from kb.errors import UsageError
from kb.models import Component
from kb.pipeline import load_graph
from kb.queries import resolve_blockers, unblocks
from kb.versions import satisfies


@pytest.fixture
def kg(write_tree):
    return load_graph(write_tree(CASES))


def _resolved(res):
    return {r["id"]: r["by"] for r in res.resolved}


def _still(res):
    """Every blocker still standing, whether or not an attempt of the campaign met it."""
    return {s.id: s.missing for s in res.still_blocked + res.other_still_blocked}


def test_cuda_13_alone_leaves_the_jit_gate_standing_for_want_of_flashinfer(kg):
    res = unblocks(kg, {"cuda": "13.0"}, from_stack="cu128")
    assert GATE not in _resolved(res)
    assert _still(res)[GATE] == ["flashinfer>=0.6.17"]
    assert _still(res)[VERIFY] == [f"cause {GATE} (needs flashinfer>=0.6.17)"]
    assert res.retry == []


def test_flashinfer_0_6_17_alone_leaves_it_standing_for_want_of_cuda_12_9(kg):
    res = unblocks(kg, {"flashinfer": "0.6.17"}, from_stack="cu128")
    assert GATE not in _resolved(res)
    assert _still(res)[GATE] == ["cuda>=12.9"]


def test_cuda_13_and_flashinfer_0_6_17_together_resolve_it(kg):
    res = unblocks(kg, {"cuda": "13.0", "flashinfer": "0.6.17"}, from_stack="cu128")
    assert _resolved(res)[GATE] == "flashinfer>=0.6.17, cuda>=12.9"
    assert res.resolved[[r["id"] for r in res.resolved].index(GATE)]["was_missing"] == ["flashinfer>=0.6.17", "cuda>=12.9"]
    # the attempts it blocked become worth retrying, with their last figure
    assert [(r.id, r.last_metric, r.resolved_blockers) for r in res.retry] == [
        ("2026-02-21-eagle3", "output_throughput 54.1 tok/s", [VERIFY]),
        ("2026-02-23-fusion", None, [GATE]),
    ]


def test_a_whole_target_stack_resolves_like_its_components(kg):
    res = unblocks(kg, to_stack="cu130", from_stack="cu128")
    assert _resolved(res)[GATE] == "flashinfer>=0.6.17, cuda>=12.9"
    assert res.change == {"cuda": "13.0", "flashinfer": "0.6.17", "torch": "2.11.0.dev20260220+cu130"}


def test_torch_symm_mem_has_no_known_fix_and_shows_its_workaround(kg):
    res = unblocks(kg, {"cuda": "13.0", "flashinfer": "0.6.17", "torch": "2.11.0"}, from_stack="cu128")
    still = {s.id: s for s in res.still_blocked}
    assert still[SYMM].missing == ["no known fix"]
    assert still[SYMM].workaround == "Leave --enable-torch-symm-mem off."
    assert still[SYMM].attempts == ["2026-02-23-symm-mem"]


def test_torch_wheel_resolved_by_a_local_tagged_torch_and_cuda_12_8(kg):
    res = unblocks(kg, {"torch": "2.7.0+cu128", "cuda": "12.8"}, from_stack="cu126")
    assert _resolved(res)[WHEEL] == "torch>=2.7.0, cuda>=12.8"
    assert [r.id for r in res.retry] == ["2026-01-10-old-torch"]
    alone = unblocks(kg, {"torch": "2.7.0+cu128"}, from_stack="cu126")
    assert _still(alone)[WHEEL] == ["cuda>=12.8"]


def test_a_blocker_without_a_fix_follows_its_causes(kg):
    res = unblocks(kg, {"cuda": "13.0", "flashinfer": "0.6.17"}, from_stack="cu128")
    assert _resolved(res)[VERIFY] == "its causes are resolved"  # one cause, resolved
    assert _still(res)[TWO] == [f"cause {SYMM} (no known fix)"]  # two causes, one resolved: names the other
    assert "2026-02-24-both-allreduces" not in [r.id for r in res.retry]


def test_13_0_satisfies_ge_13(kg):
    assert satisfies("13.0", ">=13").ok is True
    assert _resolved(unblocks(kg, {"cuda": "13.0"}, from_stack="cu128"))["needs-cuda-13"] == "cuda>=13"


def test_a_pre_release_decides_and_says_so(kg):
    assert satisfies("2.11.0.dev20260220+cu130", ">=2.11.0.dev0").ok is True
    verdict = satisfies("2.11.0.dev20260220+cu130", ">=2.11")
    assert (verdict.ok, verdict.note) == (False, "2.11.0.dev20260220+cu130 is a pre-release, which >=2.11 excludes")
    res = unblocks(kg, {"torch": "2.11.0.dev20260220+cu130"}, from_stack="cu128")
    assert _resolved(res)["needs-torch-2.11-nightly"] == "torch>=2.11.0.dev0"
    assert _still(res)["needs-torch-2.11"] == ["torch>=2.11"]
    assert res.notes == [
        "needs-torch-2.11-nightly: torch: 2.11.0.dev20260220+cu130 is a pre-release, admitted because >=2.11.0.dev0 names one",
        "needs-torch-2.11: torch: 2.11.0.dev20260220+cu130 is a pre-release, which >=2.11 excludes",
    ]


def test_an_installed_nightly_satisfies_a_lower_bound_whatever_packaging_defaults_to():
    # PEP 440: installed pre-releases are accepted for all specifiers; packaging changed its default in 25.0
    assert satisfies("2.11.0.dev20260220+cu130", ">=2.7.0").ok is True
    assert satisfies("2.11.0.dev1", "<2.11").ok is False  # <V never admits V's own pre-releases


def test_only_blockers_standing_under_from_count(kg):
    res = unblocks(kg, {"cuda": "13.0", "flashinfer": "0.6.17"}, from_stack="cu128")
    reported = set(_resolved(res)) | set(_still(res))
    assert "fixed-already" not in reported  # already resolved under cu128
    assert WHEEL not in reported  # torch 2.10 + cuda 12.8.1 already fix it


def test_blockers_whose_applies_when_does_not_hold_are_not_standing(kg):
    res = unblocks(kg, {"cuda": "13.0"}, from_stack="cu128")
    reported = set(_resolved(res)) | set(_still(res))
    assert {"nvlink-only-bug", "hopper-only-bug", "old-cuda-only-bug"}.isdisjoint(reported)
    # one that stops applying under the new stack counts as unblocked
    assert _resolved(res)["cuda12-only-bug"] == "no longer applies (applies only when cuda<13; the stack has cuda 13.0)"
    states = resolve_blockers(kg, kg.stack_components("cu128"), kg.get("rtx-pro-6000-x8"))
    assert states["nvlink-only-bug"].state == "not_applicable"
    assert states["hopper-only-bug"].state == "not_applicable"
    assert states["cuda12-only-bug"].state == "stands"


def test_from_defaults_to_the_latest_attempts_stack(kg):
    assert unblocks(kg, {"cuda": "13.0"}).from_stack == "cu128"


def test_resolution_is_the_same_for_any_input_order(kg):
    comps = {"cuda": Component(version="13.0"), "flashinfer": Component(version="0.6.17")}
    a = resolve_blockers(kg, comps)
    b = resolve_blockers(kg, dict(reversed(list(comps.items()))))
    assert {k: (v.state, v.missing) for k, v in a.items()} == {k: (v.state, v.missing) for k, v in b.items()}


def test_unknown_stack_and_empty_change_are_usage_errors(kg):
    with pytest.raises(UsageError, match="unknown stack 'cu999' \\(known stacks: cu126, cu128, cu130\\)"):
        unblocks(kg, {"cuda": "13.0"}, from_stack="cu999")
    with pytest.raises(UsageError, match="nothing to change"):
        unblocks(kg, {})


def test_cli_text_names_what_is_missing_and_the_pre_release(write_tree):
    root = write_tree(CASES)
    r = CliRunner().invoke(cli, ["--records", str(root), "unblocks", "cuda=13.0", "--from", "cu128"])
    assert r.exit_code == 0, r.output
    # folded by default: the blockers the campaign's attempts met, by id, and a count of the rest
    assert (f"still blocked (4; 2 more that no attempt of the campaign met; --all lists them with what each needs): "
            f"eagle3-verify-latency, fast-allreduce-unavailable, {GATE}, {SYMM}") in r.output
    assert f"  ✗ {GATE}" not in r.output
    r = CliRunner().invoke(cli, ["--records", str(root), "unblocks", "cuda=13.0", "--from", "cu128", "--all"])
    assert r.exit_code == 0, r.output
    assert f"  ✗ {GATE}: needs flashinfer>=0.6.17" in r.output
    assert f"  ✗ {SYMM}: no known fix (workaround: Leave --enable-torch-symm-mem off.)" in r.output
    r = CliRunner().invoke(cli, ["--records", str(root), "unblocks", "torch=2.11.0.dev20260220+cu130"])
    assert "note: needs-torch-2.11: torch: 2.11.0.dev20260220+cu130 is a pre-release, which >=2.11 excludes" in r.output


def test_a_component_given_twice_is_refused_not_silently_overwritten():
    from kb.queries import parse_change

    with pytest.raises(UsageError, match="cuda is given twice"):
        parse_change(["cuda=13.0", "CUDA=12.0"])
