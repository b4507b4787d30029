"""Written blind from the feature description (not from the implementation): run conditions
(gpu_count, tensor_parallel_size), components bundled in torch, build options a change makes
possible, doubts of introduced blockers, fix text, schema versions and ``kb migrate``, catalog
staleness and the catalog pages of the site."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from click.testing import CliRunner

from kb.cli import cli
from kb.models import Component, Fix
from kb.pipeline import load_graph
from kb.queries import resolve_blockers, unblocks
from kb.queries.credit import stack_diff
from kb.queries.findings import findings
from kb.queries.fixes import fix_phrase

ROOT = Path(__file__).resolve().parents[1]
LIVE_RECORDS = ROOT / "records"
CATALOG_DIR = ROOT / "kb" / "catalogs" / "blackwell" / "blockers"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

METRIC = {"name": "output_throughput", "unit": "tok/s"}


def platform(n: int) -> dict[str, Any]:
    return {"title": f"{n}x RTX PRO 6000", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": n,
            "compute_capability": "12.0", "interconnect": "PCIe Gen5", "nvlink": False}


BASE: dict[str, Any] = {
    "platforms/p8.yaml": platform(8),
    "platforms/p2.yaml": platform(2),
    "platforms/p1.yaml": platform(1),
    "stacks/s.yaml": {"title": "CUDA 12.8", "components": {"cuda": "12.8.1", "torch": "2.10.0",
                                                           "sglang": "0.5.8", "flashinfer": "0.6.4"}},
    "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p8", "stack": "s", "metric": METRIC},
}


def attempt(title: str, *, date: str = "2026-02-10", outcome: str = "improved", stack: str = "s",
            platform_id: str | None = "p8", flags: list[str] | None = None, settings: dict[str, str] | None = None,
            **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"title": title, "date": date, "campaign": "c", "approach": extra.pop("approach", "a run"),
                           "stack": stack}
    if platform_id:
        rec["platform"] = platform_id
    config: dict[str, Any] = {}
    if flags is not None:
        config["flags"] = flags
    if settings is not None:
        config["settings"] = settings
    if config:
        rec["config"] = config
    rec["outcome"] = outcome
    if outcome in ("improved", "baseline"):
        rec["metrics"] = {"output_throughput": "90 tok/s"}
    rec.update(extra)
    return rec


def comps(kg: Any, stack: str) -> dict[str, Component]:
    return kg.stack_components(stack)


# --------------------------------------------------------------------------- 1. run conditions


@pytest.mark.parametrize(("condition", "plat", "state_is_na"), [
    ({"tensor_parallel_size": ">=4"}, "p2", True),     # 1 and 2 GPUs cannot run TP 4
    ({"tensor_parallel_size": ">=4"}, "p8", False),
    ({"tensor_parallel_size": "==3"}, "p2", True),
    ({"tensor_parallel_size": "==3"}, "p8", False),    # TP 3 fits in 8 GPUs
    ({"tensor_parallel_size": ">1"}, "p1", True),
    ({"tensor_parallel_size": "<=2"}, "p8", False),    # TP 1 or 2 on an 8-GPU box
    ({"tensor_parallel_size": ">=2,<4"}, "p2", False),
    ({"gpu_count": ">=4"}, "p2", True),
    ({"gpu_count": ">=4"}, "p8", False),
    ({"gpu_count": "==1"}, "p1", False),
    ({"gpu_count": "==1"}, "p8", True),
    ({"gpu_count": ">=2", "tensor_parallel_size": ">=8"}, "p2", True),
])
def test_run_conditions_against_the_platform_without_an_attempt(write_tree, condition, plat, state_is_na):
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": {"title": "multi-GPU limit", "applies_when": condition}}))
    st = resolve_blockers(kg, comps(kg, "s"), platform=kg.get(plat))
    if state_is_na:
        assert st["b"].state == "not_applicable", st["b"]
    else:
        assert st["b"].state == "stands", st["b"]


def test_the_run_conditions_load_and_check_clean(write_tree):
    root = write_tree({**BASE, "blockers/b.yaml": {"title": "multi-GPU limit",
                                                   "applies_when": {"gpu_count": ">=2", "tensor_parallel_size": ">=4",
                                                                    "cuda": "<13"}}})
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 0, r.output
    b = load_graph(root).get("b")
    assert str(b.applies_when.gpu_count) == ">=2" and str(b.applies_when.tensor_parallel_size) == ">=4"
    assert dict(b.applies_when.components) == {"cuda": "<13"}


def test_a_malformed_tp_specifier_is_a_problem(write_tree):
    root = write_tree({**BASE, "blockers/b.yaml": {"title": "t", "applies_when": {"tensor_parallel_size": "four or more"}}})
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 1
    assert "blockers/b.yaml" in r.output and "tensor_parallel_size" in r.output


TP_BLOCKER = {"title": "fails at tensor parallel 4 and above", "applies_when": {"tensor_parallel_size": ">=4"}}


@pytest.mark.parametrize(("flags", "settings"), [
    (["--tensor-parallel-size 2"], None),
    (["--tensor-parallel-size=2"], None),
    (["--tensor-parallel-size", "2"], None),
    (["--tp-size 2"], None),
    (["--tp-size", "2"], None),
    (["--tp 2"], None),
    (["--tp", "2"], None),
    (["-tp 2"], None),
    (["-tp", "2"], None),
    (["--cuda-graph-max-bs 128", "--tp", "2", "--trust-remote-code"], None),
    (None, {"tensor_parallel_size": "2"}),
    (None, {"tp_size": "2"}),
    (None, {"tp": "2"}),
])
def test_a_failed_run_outside_the_tp_condition_is_blocked_where_fixed(write_tree, flags, settings):
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": TP_BLOCKER,
                                "attempts/2026-02-10-x.yaml": attempt("tp 2 run", outcome="failed", flags=flags,
                                                                      settings=settings, blocked_by=["b"])}))
    found = [f for f in findings(kg) if f.record == "2026-02-10-x"]
    kinds = [f.kind for f in found]
    assert "blocked-where-fixed" in kinds, found
    msg = next(f.message for f in found if f.kind == "blocked-where-fixed")
    assert "tensor-parallel size" in msg


@pytest.mark.parametrize("flags", [["--tp 8"], ["--tp", "4"], ["--tensor-parallel-size=4"], ["-tp 8"]])
def test_a_failed_run_inside_the_tp_condition_is_no_contradiction(write_tree, flags):
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": TP_BLOCKER,
                                "attempts/2026-02-10-x.yaml": attempt("tp run", outcome="failed", flags=flags,
                                                                      blocked_by=["b"])}))
    assert [f for f in findings(kg) if f.kind == "blocked-where-fixed"] == []


def test_a_failed_run_without_tp_on_a_two_gpu_platform_cannot_meet_a_tp4_blocker(write_tree):
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": TP_BLOCKER,
                                "attempts/2026-02-10-x.yaml": attempt("run", outcome="failed", platform_id="p2",
                                                                      flags=["--cuda-graph-max-bs 128"],
                                                                      blocked_by=["b"])}))
    assert "blocked-where-fixed" in [f.kind for f in findings(kg) if f.record == "2026-02-10-x"]


def test_a_failed_run_without_tp_in_a_two_gpu_campaign_cannot_meet_a_tp4_blocker(write_tree):
    camp = {**BASE["campaigns/c.yaml"], "platform": "p2"}
    kg = load_graph(write_tree({**BASE, "campaigns/c.yaml": camp, "blockers/b.yaml": TP_BLOCKER,
                                "attempts/2026-02-10-x.yaml": attempt("run", outcome="failed", platform_id=None,
                                                                      flags=["--cuda-graph-max-bs 128"],
                                                                      blocked_by=["b"])}))
    [f] = [f for f in findings(kg) if f.record == "2026-02-10-x"]
    assert f.kind == "blocked-where-fixed" and "tensor-parallel size" in f.message and "2 GPUs" in f.message


def test_a_failed_run_in_a_two_gpu_campaign_cannot_meet_a_gpu_count_blocker(write_tree):
    camp = {**BASE["campaigns/c.yaml"], "platform": "p2"}
    kg = load_graph(write_tree({**BASE, "campaigns/c.yaml": camp,
                                "blockers/b.yaml": {"title": "4+ GPUs", "applies_when": {"gpu_count": ">=4"}},
                                "attempts/2026-02-10-x.yaml": attempt("run", outcome="failed", platform_id=None,
                                                                      blocked_by=["b"])}))
    assert [f.kind for f in findings(kg) if f.record == "2026-02-10-x"] == ["blocked-where-fixed"]


def test_a_failed_run_on_its_own_two_gpu_platform_cannot_meet_a_gpu_count_blocker(write_tree):
    # the attempt names the platform it ran on (p2) although the campaign's is p8
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": {"title": "4+ GPUs", "applies_when": {"gpu_count": ">=4"}},
                                "attempts/2026-02-10-x.yaml": attempt("run", outcome="failed", platform_id="p2",
                                                                      blocked_by=["b"])}))
    assert [f.kind for f in findings(kg) if f.record == "2026-02-10-x"] == ["blocked-where-fixed"]


FLAG_TP_BLOCKER = {"title": "fusion breaks at TP>=4", "flags": ["--enable-fusion"],
                   "applies_when": {"tensor_parallel_size": ">=4"}}


@pytest.mark.parametrize(("flags", "contradiction"), [
    (["--enable-fusion", "--tp 2"], False),
    (["--enable-fusion", "--tensor-parallel-size=2"], False),
    (["--enable-fusion", "-tp", "1"], False),
    (["--enable-fusion", "--tp 8"], True),
    (["--enable-fusion", "--tp-size", "4"], True),
])
def test_an_improved_run_outside_the_tp_condition_is_no_contradiction(write_tree, flags, contradiction):
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": FLAG_TP_BLOCKER,
                                "attempts/2026-02-10-ok.yaml": attempt("fusion on", flags=flags)}))
    kinds = [f.kind for f in findings(kg) if f.record == "2026-02-10-ok"]
    assert ("success-where-blocker-stands" in kinds) is contradiction, kinds


def test_an_improved_run_on_too_few_gpus_for_a_gpu_count_blocker_is_no_contradiction(write_tree):
    blocker = {"title": "fusion breaks on 4+ GPUs", "flags": ["--enable-fusion"], "applies_when": {"gpu_count": ">=4"}}
    kg = load_graph(write_tree({**BASE, "blockers/b.yaml": blocker,
                                "attempts/2026-02-10-small.yaml": attempt("2 gpus", platform_id="p2",
                                                                          flags=["--enable-fusion"]),
                                "attempts/2026-02-11-big.yaml": attempt("8 gpus", date="2026-02-11", platform_id="p8",
                                                                        flags=["--enable-fusion"])}))
    by = {f.record for f in findings(kg) if f.kind == "success-where-blocker-stands"}
    assert by == {"2026-02-11-big"}


def test_check_cli_reports_the_tp_mismatch_as_a_warning(write_tree):
    root = write_tree({**BASE, "blockers/b.yaml": TP_BLOCKER,
                       "attempts/2026-02-10-x.yaml": attempt("tp 2 run", outcome="failed", flags=["--tp", "2"],
                                                             blocked_by=["b"])})
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stdout.splitlines() if "attempts/2026-02-10-x.yaml" in x]
    assert lines and "warning" in lines[0] and "tensor-parallel size" in lines[0]
    r = CliRunner().invoke(cli, ["--records", str(root), "check", "--strict"])
    assert r.exit_code == 1


# --------------------------------------------------------------------------- 2. bundled components


@pytest.mark.parametrize("component", ["nccl", "triton", "NCCL", "Triton"])
def test_torch_bundles_nccl_and_triton(write_tree, component):
    files = {**BASE, "stacks/t.yaml": {"title": "torch only", "components": {"cuda": "12.8.1", "torch": "2.10.0"}},
             "stacks/n.yaml": {"title": "no torch", "components": {"cuda": "12.8.1", "llama-cpp": {"source": "b4000 build"}}},
             "blockers/b.yaml": {"title": "bundled library bug", "component": component}}
    kg = load_graph(write_tree(files))
    assert resolve_blockers(kg, comps(kg, "t"), platform=kg.get("p8"))["b"].state == "stands"
    assert resolve_blockers(kg, comps(kg, "n"), platform=kg.get("p8"))["b"].state == "not_applicable"


def test_a_component_bundled_in_torch_is_recorded_with_its_version(write_tree):
    files = {**BASE, "stacks/t.yaml": {"title": "torch", "components": {
        "cuda": "12.8.1", "torch": "2.10.0", "nccl": {"version": "2.27.3", "bundled_in": "torch"}}},
             "blockers/old.yaml": {"title": "old nccl", "component": "nccl", "applies_when": {"nccl": "<2.28"}},
             "blockers/new.yaml": {"title": "new nccl", "component": "nccl", "applies_when": {"nccl": ">=2.28"}}}
    root = write_tree(files)
    assert CliRunner().invoke(cli, ["--records", str(root), "check"]).exit_code == 0
    kg = load_graph(root)
    c = comps(kg, "t")["nccl"]
    assert c.version == "2.27.3" and c.bundled_in == "torch"
    st = resolve_blockers(kg, comps(kg, "t"), platform=kg.get("p8"))
    assert st["old"].state == "stands"
    assert st["new"].state == "not_applicable"


def test_bundled_in_is_canonicalised():
    assert Component(version="3.4.0", bundled_in="Torch").bundled_in == "torch"
    assert Component.model_validate({"version": "2.27.3", "bundled_in": "torch"}).version == "2.27.3"


def _rows(diff: list[dict[str, str]]) -> dict[str, tuple[str, str]]:
    return {d["component"]: (d["before"], d["after"]) for d in diff}


def test_stack_diff_moves_bundled_libraries_with_torch():
    before = {"cuda": Component(version="12.8.1"), "torch": Component(version="2.10.0")}
    after = {"cuda": Component(version="13.0.1"), "torch": Component(version="2.11.0")}
    rows = _rows(stack_diff(before, after))
    assert rows["torch"] == ("2.10.0", "2.11.0")
    assert rows["nccl"] == ("bundled in torch 2.10.0", "bundled in torch 2.11.0")
    assert rows["triton"] == ("bundled in torch 2.10.0", "bundled in torch 2.11.0")
    assert rows["cuda"] == ("12.8.1", "13.0.1")


def test_stack_diff_without_a_torch_change_names_no_bundled_library():
    before = {"cuda": Component(version="12.8.1"), "torch": Component(version="2.10.0")}
    after = {"cuda": Component(version="13.0.1"), "torch": Component(version="2.10.0")}
    assert set(_rows(stack_diff(before, after))) == {"cuda"}


def test_stack_diff_without_torch_names_no_bundled_library():
    before = {"cuda": Component(version="12.8.1"), "sglang": Component(version="0.5.8")}
    after = {"cuda": Component(version="13.0.1"), "sglang": Component(version="0.5.9")}
    assert set(_rows(stack_diff(before, after))) == {"cuda", "sglang"}


def test_stack_diff_with_nccl_recorded_as_bundled_in_torch():
    before = {"torch": Component(version="2.10.0"), "nccl": Component(version="2.27.3", bundled_in="torch")}
    after = {"torch": Component(version="2.11.0"), "nccl": Component(version="2.27.3", bundled_in="torch")}
    rows = _rows(stack_diff(before, after))
    assert "nccl" in rows and rows["nccl"][0] != rows["nccl"][1]
    assert "triton" in rows


def test_stack_diff_keeps_a_separately_installed_nccl_that_did_not_change():
    # a system NCCL recorded on its own (no bundled_in) does not move with torch
    before = {"torch": Component(version="2.10.0"), "nccl": Component(version="2.28.3")}
    after = {"torch": Component(version="2.11.0"), "nccl": Component(version="2.28.3")}
    rows = _rows(stack_diff(before, after))
    assert "nccl" not in rows
    assert rows["triton"] == ("bundled in torch 2.10.0", "bundled in torch 2.11.0")


# --------------------------------------------------------------------------- 3. rebuilds


REBUILD = {
    **BASE,
    "stacks/old.yaml": {"title": "CUDA 12.6", "components": {"cuda": "12.6.3", "torch": "2.10.0"}},
    "stacks/mid.yaml": {"title": "CUDA 12.8", "components": {"cuda": "12.8.0", "torch": "2.10.0"}},
    "blockers/arch.yaml": {"title": "extension built without sm_120",
                           "fixed_by": [{"kind": "build_option", "flag": "TORCH_CUDA_ARCH_LIST=12.0",
                                         "requires": {"cuda": ">=12.8"}, "release": "12.8",
                                         "pr": "pytorch/pytorch#12345"}]},
    "blockers/plain.yaml": {"title": "needs a rebuild, any cuda",
                            "fixed_by": [{"kind": "build_option", "flag": "TORCH_CUDA_ARCH_LIST=12.0+PTX"}]},
    "attempts/2026-02-10-ext.yaml": attempt("build the extension", outcome="failed", stack="old", blocked_by=["arch"]),
}


@pytest.mark.parametrize("change", [{"cuda": "12.8.1"}, {"cuda": "12.8"}, {"cuda": "13.0.1"}])
def test_a_change_that_makes_a_build_option_possible_lists_it_as_a_rebuild(write_tree, change):
    kg = load_graph(write_tree(REBUILD))
    res = unblocks(kg, change, from_stack="old")
    assert [r["id"] for r in res.rebuild] == ["arch"]
    [r] = res.rebuild
    assert r["title"] == "extension built without sm_120"
    assert r["flag"] == "TORCH_CUDA_ARCH_LIST=12.0"
    assert r["requires"] in ({"cuda": ">=12.8"}, "cuda>=12.8")
    assert r["release"] == "12.8" and r["pr"] == "pytorch/pytorch#12345"
    standing = {s.id for s in res.still_blocked + res.other_still_blocked}
    assert "arch" in standing
    assert "arch" not in {x["id"] for x in res.resolved}


@pytest.mark.parametrize(("stack", "change"), [("old", {"cuda": "12.7"}), ("mid", {"cuda": "12.9"}),
                                               ("old", {"torch": "2.11.0"})])
def test_no_rebuild_when_the_requirement_still_fails_or_held_before(write_tree, stack, change):
    kg = load_graph(write_tree(REBUILD))
    assert unblocks(kg, change, from_stack=stack).rebuild == []


def test_unblocks_text_has_the_rebuild_section(write_tree):
    root = write_tree(REBUILD)
    r = CliRunner().invoke(cli, ["--records", str(root), "unblocks", "cuda=12.8.1", "--from", "old"])
    assert r.exit_code == 0, r.output
    assert "fixable by a rebuild the change makes possible (1):" in r.stdout
    section = r.stdout.split("fixable by a rebuild the change makes possible (1):", 1)[1]
    assert "arch" in section and "TORCH_CUDA_ARCH_LIST=12.0" in section
    assert "plain" not in section.split("\n\n")[0]
    assert "None" not in r.stdout


def test_unblocks_json_carries_the_rebuild_list(write_tree):
    root = write_tree(REBUILD)
    r = CliRunner().invoke(cli, ["--records", str(root), "unblocks", "cuda=12.8.1", "--from", "old", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [x["id"] for x in data["rebuild"]] == ["arch"]
    assert data["rebuild"][0]["flag"] == "TORCH_CUDA_ARCH_LIST=12.0"
    r = CliRunner().invoke(cli, ["--records", str(root), "unblocks", "cuda=12.7", "--from", "old"])
    assert "fixable by a rebuild" not in r.stdout


# --------------------------------------------------------------------------- 4. doubts of introduced blockers


DOUBT_BASE = {
    **BASE,
    "stacks/old.yaml": {"title": "old", "components": {"cuda": "12.8.1", "torch": "2.10.0", "sglang": "0.5.8",
                                                       "sgl-kernel": "0.3.20", "flashinfer": "0.6.4",
                                                       "deep-gemm": "2.1.0"}},
    "stacks/new.yaml": {"title": "new", "components": {"cuda": "13.0.1", "torch": "2.10.0", "sglang": "0.5.8",
                                                       "sgl-kernel": "0.3.20", "flashinfer": "0.6.4",
                                                       "deep-gemm": "2.1.0"}},
}


def doubt_of(write_tree: Callable[[dict[str, Any]], Path], blocker: dict[str, Any], success: dict[str, Any]) -> str:
    files = {**DOUBT_BASE, "blockers/intro.yaml": {"title": "starts with CUDA 13", "applies_when": {"cuda": ">=13.0"},
                                                   **blocker},
             "attempts/2026-02-20-ok.yaml": attempt(success.pop("title", "a run on the new stack"),
                                                    stack=success.pop("stack", "new"), **success)}
    kg = load_graph(write_tree(files))
    res = unblocks(kg, {"cuda": "13.0.1"}, from_stack="old")
    intro = {i["id"]: i for i in res.introduced}
    assert "intro" in intro, res.introduced
    return intro["intro"].get("doubt") or ""


SUCCESS_DOUBT = "2026-02-20-ok came out"


@pytest.mark.parametrize(("blocker", "success"), [
    ({"component": "cuda"}, {"flags": ["--tp 8"]}),
    ({"component": "torch"}, {"flags": ["--tp 8"]}),
    ({"component": "sglang"}, {}),
    ({"component": "sgl-kernel"}, {"flags": ["--tp 8"]}),          # sgl-kernel is loaded with sglang
    ({"component": "flashinfer"}, {"flags": ["--attention-backend flashinfer"]}),
    ({"component": "flashinfer"}, {"flags": ["--attention-backend", "flashinfer"]}),
    ({"component": "flashinfer"}, {"approach": "Serve with the flashinfer attention kernels"}),
    ({"component": "deep-gemm"}, {"title": "deep-gemm MoE on the new stack"}),
    ({"component": "deep-gemm"}, {"title": "DeepGEMM MoE on the new stack"}),
    ({"component": "flashinfer"}, {"flags": ["--attention-backend=flashinfer"]}),
    ({"component": "flashinfer"}, {"config": {"command": "python -m sglang.launch_server --attention-backend flashinfer"}}),
    ({"flags": ["--enable-fusion"], "component": "flashinfer"}, {"flags": ["--enable-fusion", "--tp 8"]}),
    ({"flags": ["SGLANG_FUSION=1"]}, {"config": {"env": {"SGLANG_FUSION": "1"}}}),
    ({"component": "cuda"}, {"outcome": "baseline"}),
])
def test_a_success_that_exercised_an_introduced_blocker_doubts_it(write_tree, blocker, success):
    assert SUCCESS_DOUBT in doubt_of(write_tree, blocker, success)


@pytest.mark.parametrize(("blocker", "success"), [
    ({"component": "flashinfer"}, {"flags": ["--attention-backend triton"]}),
    ({"component": "deep-gemm"}, {"flags": ["--tp 8"]}),
    ({"flags": ["--enable-fusion"], "component": "cuda"}, {"flags": ["--tp 8"]}),
    ({"flags": ["--enable-fusion"]}, {"flags": ["--tp 8"], "approach": "plain decoding"}),
    ({"flags": ["SGLANG_FUSION=1"]}, {"flags": ["--tp 8"]}),
])
def test_a_success_that_did_not_exercise_an_introduced_blocker_gives_no_doubt_from_it(write_tree, blocker, success):
    assert SUCCESS_DOUBT not in doubt_of(write_tree, blocker, success)


def test_a_flagged_blocker_no_success_ran_is_doubted_only_by_its_flag(write_tree):
    assert doubt_of(write_tree, {"flags": ["--enable-fusion"], "component": "cuda"},
                    {"flags": ["--tp 8"]}) == "only where a run sets --enable-fusion"


def test_a_success_on_the_old_stack_gives_no_success_doubt(write_tree):
    assert SUCCESS_DOUBT not in doubt_of(write_tree, {"component": "cuda"}, {"stack": "old"})


def test_a_failed_run_on_the_new_stack_gives_no_success_doubt(write_tree):
    assert SUCCESS_DOUBT not in doubt_of(write_tree, {"component": "cuda"},
                                         {"outcome": "failed", "error": "RuntimeError: something else"})


# --------------------------------------------------------------------------- 5. fix text


@pytest.mark.parametrize(("fix", "text"), [
    (Fix(kind="workaround", advice="keep NCCL's ring allreduce"), "workaround; keep NCCL's ring allreduce"),
    (Fix(kind="workaround", advice="serve without speculation"), "workaround; serve without speculation"),
])
def test_a_workaround_with_only_advice_reads_without_none(fix, text):
    assert fix_phrase(fix) == text


@pytest.mark.parametrize("fix", [
    Fix(kind="workaround", note="see the upstream thread"),
    Fix(kind="build_option", advice="rebuild the extension for sm_120"),
    Fix(kind="build_option", note="rebuild from source"),
    Fix(kind="workaround", flag="NCCL_P2P_DISABLE=1"),
    Fix(kind="hardware_gap"),
    Fix(kind="enables", pr="flashinfer-ai/flashinfer#3903"),
])
def test_no_fix_reads_none(fix):
    assert "None" not in fix_phrase(fix)
    assert "None" not in fix_phrase(fix, notes=False)


def test_why_and_unblocks_never_print_none_for_an_advice_workaround(write_tree):
    root = write_tree({**BASE, "blockers/b.yaml": {"title": "bus contention",
                                                   "fixed_by": [{"kind": "workaround", "advice": "keep NCCL ring"}]},
                       "attempts/2026-02-10-x.yaml": attempt("x", outcome="failed", blocked_by=["b"])})
    for args in (["why", "2026-02-10-x"], ["unblocks", "cuda=13.0", "--from", "s"], ["roots"]):
        r = CliRunner().invoke(cli, ["--records", str(root), *args])
        assert r.exit_code == 0, r.output
        assert "None" not in r.stdout, (args, r.stdout)
    r = CliRunner().invoke(cli, ["--records", str(root), "why", "2026-02-10-x"])
    assert "workaround; keep NCCL ring" in r.stdout


# --------------------------------------------------------------------------- 6. schema versions and kb migrate


def test_schema_version_2_and_none_load(write_tree):
    root = write_tree({**BASE, "blockers/a.yaml": {"schema_version": 2, "title": "v2",
                                                   "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=13.0"}}]},
                       "blockers/b.yaml": {"title": "v1", "fixed_by": [{"cuda": ">=13.0"}]}})
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 0, r.output
    kg = load_graph(root)
    assert kg.get("a").fixed_by == kg.get("b").fixed_by


@pytest.mark.parametrize(("rel", "rec"), [
    ("blockers/future.yaml", {"schema_version": 3, "title": "from a newer kb"}),
    ("attempts/2026-02-10-future.yaml", {"schema_version": 7, **attempt("from the future")}),
    ("stacks/future.yaml", {"schema_version": 3, "title": "new", "components": {"cuda": "13.0"}}),
])
def test_a_newer_schema_version_is_refused(write_tree, rel, rec):
    root = write_tree({**BASE, rel: rec})
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 1
    line = next(x for x in r.output.splitlines() if rel in x)
    assert "schema_version" in line and "newer than this kb reads" in line and "upgrade kb" in line


MIGRATE = {
    **BASE,
    "blockers/short.yaml": {"title": "fixed by CUDA 13", "component": "cuda", "fixed_by": [{"cuda": ">=13.0"}],
                            "status": "fixed", "tags": ["sm120"]},
    "blockers/two.yaml": {"title": "two alternatives", "fixed_by": [{"torch": ">=2.11", "cuda": ">=13.0"},
                                                                   {"kind": "workaround", "flag": "X=1"}]},
    "blockers/full.yaml": {"schema_version": 2, "title": "already v2",
                           "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=13.0"}}]},
}


def _migrate(root: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--records", str(root), "migrate", *args])


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.yaml"))}


def test_migrate_dry_run_lists_and_writes_nothing(write_tree):
    root = write_tree(MIGRATE)
    before = _snapshot(root)
    r = _migrate(root)
    assert r.exit_code == 0, r.output
    assert "short" in r.output and "two" in r.output
    assert "blockers/full.yaml" not in r.output
    assert _snapshot(root) == before


def test_migrate_write_rewrites_the_shorthand_and_stamps_the_version(write_tree):
    root = write_tree(MIGRATE)
    r = _migrate(root, "--write")
    assert r.exit_code == 0, r.output
    data = yaml.safe_load((root / "blockers/short.yaml").read_text(encoding="utf-8"))
    assert data["schema_version"] == 2
    assert data["fixed_by"] == [{"kind": "enables", "requires": {"cuda": ">=13.0"}}]
    keys = [k for k in data if k != "schema_version"]
    assert keys == ["title", "component", "fixed_by", "status", "tags"]
    two = yaml.safe_load((root / "blockers/two.yaml").read_text(encoding="utf-8"))
    assert two["fixed_by"] == [{"kind": "enables", "requires": {"torch": ">=2.11", "cuda": ">=13.0"}},
                               {"kind": "workaround", "flag": "X=1"}]
    assert two["schema_version"] == 2


def test_migrate_twice_has_nothing_to_do(write_tree):
    root = write_tree(MIGRATE)
    assert _migrate(root, "--write").exit_code == 0
    after = _snapshot(root)
    r = _migrate(root, "--write")
    assert r.exit_code == 0
    assert "nothing to migrate" in r.output.lower()
    assert _snapshot(root) == after
    assert "nothing to migrate" in _migrate(root).output.lower()


def test_migrate_diff_shows_unified_diffs(write_tree):
    root = write_tree(MIGRATE)
    before = _snapshot(root)
    r = _migrate(root, "--diff")
    assert r.exit_code == 0, r.output
    assert re.search(r"^--- .*short\.yaml", r.output, re.M) and re.search(r"^\+\+\+ .*short\.yaml", r.output, re.M)
    assert re.search(r"^@@ ", r.output, re.M)
    assert re.search(r"^\+schema_version: 2$", r.output, re.M)
    assert re.search(r"^\+.*kind: enables", r.output, re.M)
    assert _snapshot(root) == before


def test_migrate_keeps_the_meaning_and_check_still_passes(write_tree):
    root = write_tree(MIGRATE)
    kg = load_graph(root)
    fixes = {b: kg.get(b).fixed_by for b in ("short", "two", "full")}
    assert _migrate(root, "--write").exit_code == 0
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 0, r.output
    kg2 = load_graph(root)
    assert {b: kg2.get(b).fixed_by for b in fixes} == fixes


@pytest.mark.parametrize("broken", [
    "title: [unclosed\nfixed_by:\n  - {cuda: '>=13.0'}\n",                        # not YAML
    "title: bad\nfixed_by:\n  - {cuda: 'thirteen'}\n",                             # not a specifier
    "schema_version: 3\ntitle: newer\nfixed_by:\n  - {cuda: '>=13.0'}\n",         # from a newer kb
])
def test_migrate_skips_and_names_a_file_that_does_not_load(write_tree, broken):
    root = write_tree({**MIGRATE, "blockers/broken.yaml": broken})
    broken = (root / "blockers/broken.yaml").read_bytes()
    r = _migrate(root, "--write")
    assert "broken" in r.output
    assert (root / "blockers/broken.yaml").read_bytes() == broken
    assert yaml.safe_load((root / "blockers/short.yaml").read_text(encoding="utf-8"))["schema_version"] == 2


def test_migrate_never_touches_a_catalog(write_tree, tmp_path):
    team = tmp_path / "team-catalog"
    (team / "blockers").mkdir(parents=True)
    (team / "CATALOG.md").write_text("# team catalog\n", encoding="utf-8")
    (team / "blockers" / "team-gate.yaml").write_text(
        "title: a team gate\ncomponent: cuda\nfixed_by:\n  - {cuda: '>=13.0'}\nchecked: 2026-11-30\n", encoding="utf-8")
    cat_before = (team / "blockers" / "team-gate.yaml").read_bytes()
    shipped_before = {p.name: p.read_bytes() for p in CATALOG_DIR.glob("*.yaml")}
    files = {**MIGRATE, "campaigns/c.yaml": {**BASE["campaigns/c.yaml"], "catalogs": ["blackwell", "../team-catalog"]}}
    root = write_tree(files)
    r = _migrate(root, "--write")
    assert r.exit_code == 0, r.output
    assert "team-gate" not in _migrate(root).output
    assert (team / "blockers" / "team-gate.yaml").read_bytes() == cat_before
    assert {p.name: p.read_bytes() for p in CATALOG_DIR.glob("*.yaml")} == shipped_before


def test_migrate_the_campaign_copy(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(LIVE_RECORDS, root)
    check_before = CliRunner().invoke(cli, ["--records", str(root), "check"])
    r = _migrate(root, "--write")
    assert r.exit_code == 0, r.output
    check_after = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert check_after.exit_code == 0, check_after.output
    assert check_after.stdout.count("warning:") == check_before.stdout.count("warning:")
    assert "nothing to migrate" in _migrate(root).output.lower()


# --------------------------------------------------------------------------- 7. catalog staleness


@pytest.fixture
def campaign_records(tmp_path: Path) -> Path:
    root = tmp_path / "records"
    shutil.copytree(LIVE_RECORDS, root)
    return root


def _check(root: Path, today: str, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--records", str(root), "check", *args], env={"KB_TODAY": today})


CHECKED = {p.stem: yaml.load(p.read_text(encoding="utf-8"), Loader=_LOADER)["checked"] for p in CATALOG_DIR.glob("*.yaml")}
EARLIEST, LATEST = min(CHECKED.values()), max(CHECKED.values())


def _stale_ids(today: Any) -> set[str]:
    return {k for k, d in CHECKED.items() if (today - d).days > 90}


@pytest.mark.parametrize("days_after", [
    ("earliest", 90),      # exactly 90 days: not more than 90, nothing stale
    ("earliest", 91),      # the records checked first are stale
    ("latest", 90),
    ("latest", 91),        # every record is stale
    ("latest", 400),
])
def test_verbose_check_lists_each_stale_catalog_record(campaign_records, days_after):
    import datetime as dt

    which, n = days_after
    today = (EARLIEST if which == "earliest" else LATEST) + dt.timedelta(days=n)
    want = _stale_ids(today)
    if which == "earliest":
        assert want == set() if n == 90 else want
    if which == "latest" and n > 90:
        assert want == set(CHECKED)
    r = _check(campaign_records, today.isoformat(), "-v")
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stderr.splitlines() if x.startswith("stale: catalog ")]
    assert len(lines) == len(want)
    assert all(x.startswith("stale: catalog blackwell: ") for x in lines)
    assert {x.split(": ")[2] for x in lines} == want
    for x in lines:
        rid = x.split(": ")[2]
        assert str(CHECKED[rid]) in x
    assert "stale:" not in r.stdout


def test_check_without_verbose_prints_one_summary_line(campaign_records):
    r = _check(campaign_records, "2030-06-01")
    assert r.exit_code == 0, r.output
    assert not any(x.startswith("stale: ") for x in r.stderr.splitlines())
    summary = [x for x in r.stderr.splitlines() if "90 days" in x]
    assert len(summary) == 1 and str(len(CHECKED)) in summary[0]
    r = _check(campaign_records, LATEST.isoformat())
    assert "90 days" not in r.stderr


def test_check_json_lists_the_stale_records(campaign_records):
    import datetime as dt

    today = EARLIEST + dt.timedelta(days=91)
    r = _check(campaign_records, today.isoformat(), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    stale = {s["id"]: s for s in data["stale"]}
    assert set(stale) == _stale_ids(today) and stale
    first = [s for s in stale.values() if s["checked"] == str(EARLIEST)]
    assert first
    for s in first:
        assert set(s) >= {"id", "catalog", "checked", "age_days"}
        assert s["catalog"] == "blackwell" and s["age_days"] == 91
    assert json.loads(_check(campaign_records, LATEST.isoformat(), "--json").stdout)["stale"] == []


def test_staleness_follows_kb_today_even_when_the_report_is_remembered(campaign_records):
    fresh = LATEST.isoformat()
    assert "90 days" not in _check(campaign_records, fresh).stderr
    assert "90 days" not in _check(campaign_records, fresh).stderr
    r = _check(campaign_records, "2030-06-01", "-v")
    assert len([x for x in r.stderr.splitlines() if x.startswith("stale: ")]) == len(CHECKED)
    assert json.loads(_check(campaign_records, fresh, "--json").stdout)["stale"] == []


def test_records_without_catalogs_have_nothing_stale(write_tree):
    root = write_tree(BASE)
    r = CliRunner().invoke(cli, ["--records", str(root), "check", "-v", "--json"], env={"KB_TODAY": "2030-01-01"})
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["stale"] == []


# --------------------------------------------------------------------------- 8. the site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("site")
    root = base / "records"
    shutil.copytree(LIVE_RECORDS, root)
    out = base / "site"
    r = CliRunner().invoke(cli, ["--records", str(root), "build", "--site-dir", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))


TITLES = {p.stem: yaml.load(p.read_text(encoding="utf-8"), Loader=_LOADER)["title"] for p in CATALOG_DIR.glob("*.yaml")}


def _row(html: str, rid: str) -> str:
    import html as h

    title = re.sub(r"\s+", " ", h.escape(TITLES[rid], quote=False))
    for row in re.findall(r"<tr.*?</tr>", html, re.S):
        if title in row or f"/{rid}/" in row:
            return row
    raise AssertionError(f"no row for {rid}")


def _cells(row: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td.*?</td>", row, re.S)]


def test_the_catalog_page_lists_every_catalog_record_with_its_date(site):
    page = site / "catalogs" / "index.html"
    assert page.exists()
    html = _text(page)
    for rid, checked in CHECKED.items():
        assert str(checked) in _cells(_row(html, rid)), rid


def test_the_catalog_page_says_which_records_were_met_here(site):
    html = _text(site / "catalogs" / "index.html")
    met = _cells(_row(html, "flashinfer-allreduce-fusion-sm12x-gate"))
    also_met = _cells(_row(html, "sglang-symm-mem-size-table-keyerror-12"))
    unmet = _cells(_row(html, "xformers-wheels-no-sm120"))
    assert met[-1] == also_met[-1] == "yes"
    assert unmet[-1] != "yes"


def test_the_upgrade_paths_page_names_the_disputes(site):
    html = _text(site / "upgrades" / "index.html")
    assert "Disputed by a catalog" in html
    assert "flashinfer-allreduce-fusion-sm12x-gate" in html
    assert "sglang-symm-mem-size-table-keyerror-12" in html


def test_the_blockers_index_lists_only_the_catalog_blockers_that_bear(site):
    html = _text(site / "blockers" / "index.html")
    assert "flashinfer-allreduce-fusion-sm12x-gate" in html
    assert "sglang-symm-mem-size-table-keyerror-12" in html
    for unrelated in ("xformers-wheels-no-sm120", "bitsandbytes-no-cuda128-binary",
                      "flash-attention-3-hopper-only-on-sm120"):
        assert unrelated not in html, unrelated
    camp = site / "campaigns" / "kimi-k25-eagle3-blackwell" / "index.html"
    if camp.exists():
        assert "xformers-wheels-no-sm120" not in _text(camp)
