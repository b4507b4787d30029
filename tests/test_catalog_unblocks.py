"""kb unblocks over a campaign and its catalogs (issue 12): where the catalog disagrees with what the
campaign's own model resolves, and introduced blockers a retry would meet for certain or only may."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.pipeline import load_graph
from kb.queries import unblocks

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "fixtures" / "cases" / "truth" / "contradiction-success-where-blocker-applies"


@pytest.fixture(scope="module")
def campaign_kg():
    """The campaign of the repository (records/), which lists the Blackwell catalog."""
    return load_graph(ROOT / "records")


def test_cuda_13_resolves_the_campaign_s_blockers_and_names_the_catalog_records_that_disagree(campaign_kg):
    res = unblocks(campaign_kg, {"cuda": "13.0"}, from_stack="cuda-12.8")
    assert {r["id"] for r in res.resolved} >= {"flashinfer-allreduce-fusion-jit-no-sm120", "torch-symm-mem-no-capability-12"}
    assert res.disputed == [
        {"own": "flashinfer-allreduce-fusion-jit-no-sm120", "by": "its causes are resolved",
         "catalog_id": "flashinfer-allreduce-fusion-sm12x-gate", "catalog": "blackwell", "why": "same error signature",
         "state": "stands", "missing": ["flashinfer>=0.6.17"], "source": "sgl-project/sglang#15650"},
        {"own": "torch-symm-mem-no-capability-12", "by": "its causes are resolved",
         "catalog_id": "sglang-symm-mem-size-table-keyerror-12", "catalog": "blackwell", "why": "same error signature",
         "state": "stands", "missing": ["cause arch-allowlist-omits-sm12x (no known fix)"],
         "source": "sgl-project/sglang#10571"},
    ]
    # the catalog's records of failures the campaign met bear on it: listed without --all, with their cause
    assert {s.id for s in res.still_blocked} == {
        "flashinfer-allreduce-fusion-sm12x-gate", "sglang-symm-mem-size-table-keyerror-12", "arch-allowlist-omits-sm12x",
        "ep-a2a-gpu-memory-exhausted", "nccl-tree-incompatible-with-cuda-graphs", "pcie-bus-contention"}


def test_introduced_blockers_a_success_contradicts_are_only_possible_hits(campaign_kg):
    res = unblocks(campaign_kg, {"cuda": "13.0"}, from_stack="cuda-12.8")
    assert res.retry_would_hit == []
    [cand] = res.retry
    assert cand.id == "2026-02-23-torch-symm-mem"
    assert cand.would_hit == []
    assert cand.disputed == ["sglang-symm-mem-size-table-keyerror-12"]
    success = "2026-02-27-eagle3-cuda13 came out improved on stack cuda-13.0, where it applies"
    assert cand.may_hit == {
        "cuda13-drops-pre-turing-arch-targets": "only where a run sets CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST",
        "sgl-kernel-cu130-wheel-torch-abi-mismatch": success,
        "sgl-kernel-preloads-libcudart-12-on-cuda-13": success,
    }
    assert {i["id"]: i["doubt"] for i in res.introduced} == {
        "cuda13-drops-pre-turing-arch-targets": "only where a run sets CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST",
        "sgl-kernel-cu130-wheel-torch-abi-mismatch": success,
        "sgl-kernel-preloads-libcudart-12-on-cuda-13": success,
    }


def test_the_default_output_says_where_the_catalog_disagrees():
    r = CliRunner().invoke(cli, ["--records", str(ROOT / "records"), "unblocks", "--from", "cuda-12.8", "cuda=13.0"])
    assert r.exit_code == 0, r.output
    assert ("resolved here, but the catalog disagrees (2):\n"
            "  ≠ flashinfer-allreduce-fusion-jit-no-sm120 [its causes are resolved]: catalog blackwell's "
            "flashinfer-allreduce-fusion-sm12x-gate (same error signature) still stands: needs flashinfer>=0.6.17 "
            "(source sgl-project/sglang#15650)\n") in r.stdout
    assert ("  ↻ 2026-02-23-torch-symm-mem: Torch symmetric-memory allreduce (was failed) — the catalog disagrees: "
            "sglang-symm-mem-size-table-keyerror-12 still stands — may hit cuda13-drops-pre-turing-arch-targets "
            "(only where a run sets CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST) — may hit "
            "sgl-kernel-cu130-wheel-torch-abi-mismatch, sgl-kernel-preloads-libcudart-12-on-cuda-13 "
            "(2026-02-27-eagle3-cuda13 came out improved on stack cuda-13.0, where it applies)") in r.stdout
    assert "would hit" not in r.stdout


def test_flashinfer_0_6_17_alone_leaves_the_fusion_gate_standing_on_its_nvcc_co_requirement(campaign_kg):
    res = unblocks(campaign_kg, {"flashinfer": "0.6.17"}, from_stack="cuda-12.8")
    still = {s.id: s.missing for s in res.still_blocked}
    assert still["flashinfer-allreduce-fusion-sm12x-gate"] == ["cuda>=12.9"]
    # flashinfer 0.6.17 on SM12x also starts the catalog's vLLM sink-prefill garbling (flashinfer>=0.6.16.post1)
    assert {i["id"]: i["missing"] for i in res.introduced} == {
        "flashinfer-jit-sm12x-needs-cuda-12.9": ["cuda>=12.9"],
        "vllm-flashinfer-sm12x-sink-prefill-garbled": ["cause wrong-results-from-kernels (no known fix)"]}
    res = unblocks(campaign_kg, {"flashinfer": "0.6.17", "cuda": "13.0"}, from_stack="cuda-12.8")
    assert "flashinfer-allreduce-fusion-sm12x-gate" in {r["id"] for r in res.resolved}
    assert res.disputed[0]["catalog_id"] == "sglang-symm-mem-size-table-keyerror-12"
    assert len(res.disputed) == 1


def test_a_retry_whose_conditions_kb_confirms_would_hit(tmp_path):
    dest = tmp_path / "records"
    shutil.copytree(CASE / "records", dest)
    camp = dest / "campaigns" / "c.yaml"
    camp.write_text(camp.read_text(encoding="utf-8") + "catalogs: [blackwell]\n", encoding="utf-8")
    (dest / "blockers" / "ext-build.yaml").write_text(
        "title: our extension needs CUDA 13\ncomponent: cuda\nfixed_by:\n  - {cuda: '>=13.0'}\n", encoding="utf-8")
    for name, env in (("with-arch-list", "env: {TORCH_CUDA_ARCH_LIST: '6.0;12.0'}"), ("plain", "flags: [--tp 8]")):
        (dest / "attempts" / f"2026-02-24-{name}.yaml").write_text(
            f"title: ext {name}\ndate: 2026-02-24\ncampaign: c\napproach: build\nstack: cu128\nconfig: {{{env}}}\n"
            "outcome: failed\nblocked_by: [ext-build]\n", encoding="utf-8")
    res = unblocks(load_graph(dest), {"cuda": "13.0"}, from_stack="cu128")
    assert [(c.id, c.would_hit) for c in res.retry_would_hit] == [
        ("2026-02-24-with-arch-list", ["cuda13-drops-pre-turing-arch-targets"])]
    assert [(c.id, c.may_hit) for c in res.retry] == [
        ("2026-02-24-plain", {"cuda13-drops-pre-turing-arch-targets":
                              "only where a run sets CMAKE_CUDA_ARCHITECTURES or TORCH_CUDA_ARCH_LIST"})]


def test_check_warns_on_a_decision_whose_credit_the_catalog_disputes():
    r = CliRunner().invoke(cli, ["--records", str(ROOT / "records"), "check"])
    assert r.exit_code == 0, r.output
    lines = [line for line in r.stdout.splitlines() if "credits the stack change" in line]
    assert lines == [
        "records/decisions/2026-02-26-upgrade-to-cuda-13.yaml:91: resolves.0: warning: credits the stack change with "
        "fixing sm120-unsupported-by-cuda-12.8-stack, and through it flashinfer-allreduce-fusion-jit-no-sm120; catalog "
        "blackwell's flashinfer-allreduce-fusion-sm12x-gate (same error signature) still stands under cuda-13.0: needs "
        "flashinfer>=0.6.17 (source sgl-project/sglang#15650) [explained by: kb unblocks --from cuda-12.8 --to cuda-13.0]",
        "records/decisions/2026-02-26-upgrade-to-cuda-13.yaml:91: resolves.0: warning: credits the stack change with "
        "fixing sm120-unsupported-by-cuda-12.8-stack, and through it torch-symm-mem-no-capability-12; catalog "
        "blackwell's sglang-symm-mem-size-table-keyerror-12 (same error signature) still stands under cuda-13.0: "
        "needs cause arch-allowlist-omits-sm12x (no known fix) (source sgl-project/sglang#10571) "
        "[explained by: kb unblocks --from cuda-12.8 --to cuda-13.0]",
    ]
    # and the campaign's own "fusion worked on CUDA 13" claim, naming the catalog record
    assert ("records/attempts/2026-02-27-eagle3-cuda13.yaml:11: outcome: warning: outcome is improved on stack "
            "cuda-13.0, where blocker flashinfer-allreduce-fusion-sm12x-gate (catalog blackwell, source "
            "sgl-project/sglang#15650) still stands (needs flashinfer>=0.6.17)") in r.stdout


def test_without_the_catalog_the_decision_is_not_disputed(tmp_path):
    dest = tmp_path / "records"
    shutil.copytree(ROOT / "records", dest)
    camp = next((dest / "campaigns").glob("*.yaml"))
    camp.write_text(camp.read_text(encoding="utf-8").replace("catalogs: [blackwell]\n", ""), encoding="utf-8")
    r = CliRunner().invoke(cli, ["--records", str(dest), "check"])
    assert r.exit_code == 0, r.output
    assert "credits the stack change" not in r.stdout and "catalog" not in r.stdout


def test_counterparts_pair_the_campaign_s_blockers_with_the_catalog_s_and_agree_with_same_failure(campaign_kg):
    from kb.models import Blocker
    from kb.queries.counterparts import counterparts, same_failure

    pairs = counterparts(campaign_kg)
    assert pairs == {
        "flashinfer-allreduce-fusion-jit-no-sm120": {"flashinfer-allreduce-fusion-sm12x-gate": "same error signature"},
        "torch-symm-mem-no-capability-12": {"sglang-symm-mem-size-table-keyerror-12": "same error signature"},
    }
    catalog = campaign_kg.records.catalog_of
    blockers = campaign_kg.of_kind(Blocker)
    brute = {o.id: {c.id: why for c in blockers if c.id in catalog and (why := same_failure(o, c))}
             for o in blockers if o.id not in catalog}
    assert {k: v for k, v in brute.items() if v} == pairs
