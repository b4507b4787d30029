"""What the model can now say (issue 24, item 6): a build option an upgrade makes possible, limits
on tensor-parallel size and GPU count, components bundled in another, doubt on an introduced
blocker only from a success that ran what it is about, and ``workaround`` text without ``None``."""

from __future__ import annotations

import pytest

from kb.models import Attempt, Blocker, Component, Fix
from kb.pipeline import load_graph
from kb.queries import resolve_blockers, unblocks
from kb.queries.credit import stack_diff
from kb.queries.fixes import fix_phrase
from kb.queries.resolution import run_condition_reason, tensor_parallel_size

PLATFORM = {"title": "p", "gpu": "g", "gpu_count": 2, "compute_capability": "12.0", "interconnect": "PCIe Gen5"}
CAMPAIGN = {"title": "c", "model": "m", "platform": "p", "metric": {"name": "output_throughput", "unit": "tok/s"}}


def _attempt(flags=(), settings=None, **kw):
    data = {"id": "a", "title": "t", "campaign": "c", "date": "2026-01-01", "approach": "x", "outcome": "improved",
            "config": {"flags": list(flags), "settings": settings or {}}, **kw}
    return Attempt.model_validate(data)


@pytest.mark.parametrize(("flags", "settings", "tp"), [
    (["--tensor-parallel-size", "4"], None, 4),
    (["--tensor-parallel-size=2"], None, 2),
    (["--tp-size 8"], None, 8),
    (["--tp", "2", "--dp", "4"], None, 2),
    (["-tp 4"], None, 4),
    (["--pipeline-parallel-size", "2"], None, None),
    ([], {"tensor_parallel_size": "8"}, 8),
    ([], {"tp": "1"}, 1),
    (["--tpx", "3"], None, None),
])
def test_the_tensor_parallel_size_of_a_run_is_read_from_its_flag_or_settings(flags, settings, tp):
    assert tensor_parallel_size(_attempt(flags, settings)) == tp


def test_a_tp_limited_blocker_rules_out_runs_at_another_size():
    b = Blocker(id="b", title="t", applies_when={"tensor_parallel_size": ">=4"})
    assert run_condition_reason(b, _attempt(["--tp", "2"])) == "applies only at tensor-parallel size >=4; the run used 2"
    assert run_condition_reason(b, _attempt(["--tp", "4"])) == ""
    assert run_condition_reason(b, _attempt()) == ""  # no size recorded: not ruled out


def _tree(write_tree, blockers, stacks=None, attempts=None, platform=None):
    files = {"platforms/p.yaml": platform or PLATFORM, "campaigns/c.yaml": CAMPAIGN,
             "stacks/s.yaml": {"title": "s", "components": {"cuda": "12.6.3", "torch": "2.7.0", "sglang": "0.5.8"}}}
    files.update({f"blockers/{k}.yaml": v for k, v in blockers.items()})
    files.update({f"stacks/{k}.yaml": v for k, v in (stacks or {}).items()})
    files.update({f"attempts/{k}.yaml": v for k, v in (attempts or {}).items()})
    return load_graph(write_tree(files))


def test_gpu_count_and_tp_conditions_decide_applicability_on_the_platform(write_tree):
    kg = _tree(write_tree, {"multi": {"title": "only with 4 or more GPUs", "applies_when": {"gpu_count": ">=4"}},
                            "tp8": {"title": "only at TP 8", "applies_when": {"tensor_parallel_size": ">=8"}},
                            "tp2": {"title": "only at TP 2 or more", "applies_when": {"tensor_parallel_size": ">=2"}}})
    st = resolve_blockers(kg, kg.stack_components("s"), kg.get("p"))
    assert st["multi"].state == "not_applicable"
    assert st["multi"].reason == "applies only with gpu_count >=4; p has 2"
    assert st["tp8"].state == "not_applicable"
    assert st["tp8"].reason == "applies only at tensor-parallel size >=8; p has 2 GPUs"
    assert st["tp2"].state == "stands"


def test_a_success_at_a_tp_size_the_blocker_does_not_reach_is_no_contradiction(write_tree):
    from kb.queries.findings import findings

    atts = {
        "a-tp1": {"title": "tp1 run", "campaign": "c", "date": "2026-01-02", "approach": "x", "outcome": "improved",
                  "stack": "s", "config": {"flags": ["--tp 1", "--enable-x"]},
                  "metrics": {"output_throughput": "10 tok/s"}},
        "a-tp2": {"title": "tp2 run", "campaign": "c", "date": "2026-01-03", "approach": "x", "outcome": "improved",
                  "stack": "s", "config": {"flags": ["--tp 2", "--enable-x"]},
                  "metrics": {"output_throughput": "11 tok/s"}},
        "a-fail": {"title": "tp1 fail", "campaign": "c", "date": "2026-01-04", "approach": "x", "outcome": "failed",
                   "stack": "s", "config": {"flags": ["--tp 1"]}, "blocked_by": ["tp2"]},
    }
    kg = _tree(write_tree, {"tp2": {"title": "x hangs at TP 2+", "flags": ["--enable-x"],
                                    "applies_when": {"tensor_parallel_size": ">=2"}}}, attempts=atts)
    got = {(f.record, f.kind) for f in findings(kg)}
    assert ("a-tp2", "success-where-blocker-stands") in got
    assert ("a-tp1", "success-where-blocker-stands") not in got
    [f] = [f for f in findings(kg) if f.record == "a-fail"]
    assert f.kind == "blocked-where-fixed"
    assert "does not apply to this run (applies only at tensor-parallel size >=2; the run used 1)" in f.message


def test_a_build_option_an_upgrade_makes_possible_is_reported_by_unblocks(write_tree):
    kg = _tree(write_tree, {"arch": {"title": "wheels carry no sm_120 code", "component": "torch",
                                     "fixed_by": [{"kind": "build_option", "flag": "TORCH_CUDA_ARCH_LIST=12.0",
                                                   "requires": {"cuda": ">=12.8"}}]}})
    res = unblocks(kg, {"cuda": "12.8.1"}, from_stack="s")
    assert res.rebuild == [{"id": "arch", "title": "wheels carry no sm_120 code", "flag": "TORCH_CUDA_ARCH_LIST=12.0",
                            "note": None, "requires": {"cuda": ">=12.8"}, "release": None, "pr": None}]
    [still] = res.still_blocked + res.other_still_blocked  # until someone rebuilds, saying how
    assert still.id == "arch" and still.missing == ["a rebuild (TORCH_CUDA_ARCH_LIST=12.0), possible after the change"]
    assert unblocks(kg, {"torch": "2.8.0"}, from_stack="s").rebuild == []  # cuda still 12.6: not possible yet
    from kb.render import unblocks_text

    text = unblocks_text(res)
    assert "fixable by a rebuild the change makes possible (1):" in text
    assert "arch: wheels carry no sm_120 code  [rebuild with TORCH_CUDA_ARCH_LIST=12.0, possible with cuda>=12.8]" in text


def test_a_component_bundled_in_torch_is_present_without_being_recorded(write_tree):
    kg = _tree(write_tree, {"nccl-shm": {"title": "NCCL shared-memory overrun", "component": "nccl",
                                         "fixed_by": [{"kind": "enables", "requires": {"nccl": ">=2.26"}}]},
                            "tri": {"title": "Triton codegen", "component": "triton"},
                            "fa": {"title": "flash-attn", "component": "flash-attn"}},
               stacks={"bare": {"title": "no torch", "components": {"cuda": "12.8.1"}}})
    st = resolve_blockers(kg, kg.stack_components("s"), kg.get("p"))
    assert st["nccl-shm"].state == "stands"  # torch's wheels bring an NCCL: not "the stack has no nccl"
    assert st["tri"].state == "stands"
    assert st["fa"].state == "not_applicable"
    bare = resolve_blockers(kg, kg.stack_components("bare"), kg.get("p"))
    assert bare["nccl-shm"].reason == "the stack has no nccl"


def test_a_bundled_component_changes_with_its_bundler():
    before = {"torch": Component(version="2.7.0"), "cuda": Component(version="12.8")}
    after = {"torch": Component(version="2.8.0"), "cuda": Component(version="12.8")}
    assert stack_diff(before, after) == [
        {"component": "nccl", "before": "bundled in torch 2.7.0", "after": "bundled in torch 2.8.0"},
        {"component": "torch", "before": "2.7.0", "after": "2.8.0"},
        {"component": "triton", "before": "bundled in torch 2.7.0", "after": "bundled in torch 2.8.0"},
    ]
    # a stack that records its NCCL on its own (a system NCCL) keeps it when torch moves
    own = {"nccl": Component(version="2.27.3")}
    assert [d["component"] for d in stack_diff({**before, **own}, {**after, **own})] == ["torch", "triton"]
    # recorded as bundled: it moves with torch though its own entry is unchanged
    tied = {"nccl": Component(version="2.27.3", bundled_in="torch")}
    assert stack_diff({**before, **tied}, {**after, **tied})[0] == {
        "component": "nccl", "before": "bundled in torch 2.7.0", "after": "bundled in torch 2.8.0"}


def test_doubt_on_an_introduced_blocker_needs_a_success_that_ran_it(write_tree):
    stacks = {"new": {"title": "new", "base": "s", "components": {"cuda": "13.0.1", "flashinfer": "0.6.9"}}}
    blockers = {"fi-fp4": {"title": "FlashInfer FP4 GEMM fails on CUDA 13", "component": "flashinfer",
                           "applies_when": {"cuda": ">=13.0"}},
                "fused": {"title": "fused path fails on CUDA 13", "flags": ["--enable-fused"],
                          "applies_when": {"cuda": ">=13.0"}},
                "torch13": {"title": "torch fails on CUDA 13", "component": "torch", "applies_when": {"cuda": ">=13.0"}}}
    plain = {"ok": {"title": "plain run", "campaign": "c", "date": "2026-01-05", "approach": "x", "outcome": "improved",
                    "stack": "new", "config": {"flags": ["--tp 2"]}, "metrics": {"output_throughput": "10 tok/s"}}}
    kg = _tree(write_tree, blockers, stacks=stacks, attempts=plain)
    doubt = {i["id"]: i["doubt"] for i in unblocks(kg, {"cuda": "13.0.1", "flashinfer": "0.6.9"}, from_stack="s").introduced}
    assert doubt["fi-fp4"] == ""  # the plain run never used FlashInfer
    assert doubt["fused"] == "only where a run sets --enable-fused"
    assert doubt["torch13"] == "ok came out improved on stack new, where it applies"  # every run loads torch
    named = {"ok": {**plain["ok"], "config": {"flags": ["--tp 2", "--attention-backend flashinfer"]}}}
    kg = _tree(write_tree, blockers, stacks=stacks, attempts=named)
    doubt = {i["id"]: i["doubt"] for i in unblocks(kg, {"cuda": "13.0.1", "flashinfer": "0.6.9"}, from_stack="s").introduced}
    assert doubt["fi-fp4"] == "ok came out improved on stack new, where it applies"


@pytest.mark.parametrize(("fix", "text"), [
    ({"kind": "workaround", "advice": "switch backend to NCCL"}, "workaround; switch backend to NCCL"),
    ({"kind": "workaround", "flag": "NCCL_P2P_DISABLE=1"}, "workaround: NCCL_P2P_DISABLE=1"),
    ({"kind": "build_option", "flag": "TORCH_CUDA_ARCH_LIST=12.0", "requires": {"cuda": ">=12.8"}},
     "build option: TORCH_CUDA_ARCH_LIST=12.0 (with cuda>=12.8)"),
])
def test_fix_text_never_says_none(fix, text):
    assert fix_phrase(Fix.model_validate(fix)) == text


def test_a_retry_made_on_a_stack_where_the_blocker_still_stood_is_not_credited_to_the_change(write_tree):
    stacks = {"new": {"title": "new", "base": "s", "components": {"cuda": "13.0.1"}}}
    blockers = {"old-cuda": {"title": "needs CUDA 13", "component": "cuda",
                             "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=13.0"}}]}}
    atts = {"a1": {"title": "first", "campaign": "c", "date": "2026-01-01", "approach": "x", "outcome": "failed",
                   "stack": "s", "blocked_by": ["old-cuda"]},
            "a2": {"title": "again, another flag", "campaign": "c", "date": "2026-01-02", "approach": "x",
                   "outcome": "failed", "stack": "s", "retry_of": "a1", "blocked_by": ["old-cuda"]}}
    kg = _tree(write_tree, blockers, stacks=stacks, attempts=atts)
    res = unblocks(kg, {"cuda": "13.0.1"}, from_stack="s")
    assert res.retried == []
    assert {r.id for r in res.retry} == {"a1", "a2"}
    atts["a3"] = {"title": "on CUDA 13", "campaign": "c", "date": "2026-01-03", "approach": "x", "outcome": "improved",
                  "stack": "new", "retry_of": "a1", "metrics": {"output_throughput": "10 tok/s"}}
    kg = _tree(write_tree, blockers, stacks=stacks, attempts=atts)
    res = unblocks(kg, {"cuda": "13.0.1"}, from_stack="s")
    assert [(d.of, d.id) for d in res.retried] == [("a1", "a3")]


@pytest.mark.parametrize(("torch", "state"), [("2.10.0+cu128", "stands"), ("2.7.0+cu126", "not_applicable"),
                                               ("2.11.0.dev20260220+cu130", "stands"), ("2.7.0", "not_applicable")])
def test_torch_cuda_is_read_from_torch_s_local_version_label(write_tree, torch, state):
    kg = _tree(write_tree, {"cu128-only": {"title": "only torch built for CUDA 12.8 or newer",
                                           "applies_when": {"torch-cuda": ">=12.8"}}},
               stacks={"t": {"title": "t", "components": {"cuda": "12.8.1", "torch": torch}}})
    st = resolve_blockers(kg, kg.stack_components("t"), kg.get("p"))
    assert st["cu128-only"].state == state
    if torch == "2.7.0+cu126":
        assert st["cu128-only"].reason == "applies only when torch-cuda>=12.8; the stack has torch-cuda 12.6"
