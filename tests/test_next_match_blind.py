"""Blind tests of `kb next` and `kb match`, written from their spec only (not from kb's code).

Each test writes a small campaign of its own (platforms, stacks with base chains, campaigns with
and without a target, blockers, attempts, decisions) and runs the CLI on it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from kb.cli import cli

# --------------------------------------------------------------------------- platforms

H100 = {"title": "8x H100 SXM", "gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 8,
        "compute_capability": "9.0", "arch": "sm_90", "interconnect": "NVLink 4", "nvlink": True}
A100 = {"title": "4x A100 PCIe", "gpu": "NVIDIA A100 40GB", "gpu_count": 4,
        "compute_capability": "8.0", "arch": "sm_80", "interconnect": "PCIe Gen4", "nvlink": False}
L40S = {"title": "2x L40S", "gpu": "NVIDIA L40S", "gpu_count": 2,
        "compute_capability": "8.9", "arch": "sm_89", "interconnect": "PCIe Gen4", "nvlink": False}
RTX = {"title": "4x RTX PRO 6000", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 4,
       "compute_capability": "12.0", "arch": "sm_120", "interconnect": "PCIe Gen5", "nvlink": False}

METRIC = {"name": "output_throughput", "unit": "tok/s"}

KIND_ORDER = {"retry": 0, "verify-credit": 1, "measure-baseline": 2, "start-plan": 3}


def attempt(date: str, campaign: str, stack: str, outcome: str, *, platform: str, flags: list[str] | None = None,
            tps: float | None = None, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"title": f"run of {date}", "date": date, "campaign": campaign,
                           "approach": extra.pop("approach", "serve the model"), "platform": platform,
                           "stack": stack, "config": {"flags": flags or ["--tp 8"]}, "outcome": outcome}
    if tps is not None:
        rec["metrics"] = {"output_throughput": f"{tps} tok/s"}
    rec.update(extra)
    return rec


def decision(date: str, campaign: str, *, status: str = "accepted", **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"title": f"decision of {date}", "status": status, "date": date, "campaign": campaign,
                           "context": "What we knew.", "considered_options": [{"title": "Do it"}, {"title": "Wait"}],
                           "outcome": {"chosen": "Do it"}}
    rec.update(extra)
    return rec


@pytest.fixture
def kb(write_tree: Callable[[dict[str, Any]], Path]) -> Callable[..., Any]:
    """Write ``files`` as a records tree and run ``kb --records ROOT *args`` on it."""

    def run(files: dict[str, Any], *args: str, input: str | None = None) -> Any:
        root = write_tree(files)
        return CliRunner().invoke(cli, ["--records", str(root), *args], input=input)

    return run


def steps_of(result: Any) -> list[dict[str, Any]]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if result.stdout.strip() else []


# --------------------------------------------------------------------------- campaign: llama on H100
# Stacks: old (cuda 12.4, vllm 0.6.3) and new (base old, vllm 0.7.0). One blocker fixed by vllm 0.7,
# one hardware-ish blocker no upgrade fixes.


def llama_tree() -> dict[str, Any]:
    c = "llama-h100"
    return {
        "platforms/h100.yaml": H100,
        "stacks/old.yaml": {"title": "old", "components": {"cuda": "12.4.1", "torch": "2.5.1", "vllm": "0.6.3"}},
        "stacks/new.yaml": {"title": "new", "base": "old", "components": {"vllm": "0.7.0"}},
        "campaigns/llama-h100.yaml": {"title": "Llama 70B on H100", "model": "Llama-3.1-70B", "platform": "h100",
                                      "stack": "old", "metric": METRIC, "target": "200 tok/s"},
        "blockers/vllm-fp8-marlin-crash.yaml": {
            "title": "vLLM FP8 Marlin kernel crashes at load", "component": "vllm",
            "applies_when": {"vllm": "<0.7.0"}, "fixed_by": [{"vllm": ">=0.7.0"}],
            "signatures": ["fp8_marlin_gemm: invalid configuration argument"]},
        "blockers/no-nvlink-sharp.yaml": {
            "title": "NVLink SHARP is not available on this fabric",
            "fixed_by": [{"kind": "hardware_gap", "advice": "use NCCL ring"}],
            "signatures": ["NVLS is not supported on this system"]},
        "attempts/2026-03-01-baseline.yaml": attempt("2026-03-01", c, "old", "baseline", platform="h100", tps=100),
        "attempts/2026-03-02-fp8.yaml": attempt(
            "2026-03-02", c, "old", "failed", platform="h100", flags=["--tp 8", "--quantization fp8"],
            approach="FP8 weights with the Marlin kernel",
            error="RuntimeError: fp8_marlin_gemm: invalid configuration argument",
            blocked_by=["vllm-fp8-marlin-crash"]),
        "attempts/2026-03-03-nvls.yaml": attempt(
            "2026-03-03", c, "old", "failed", platform="h100", flags=["--tp 8"],
            approach="NCCL NVLS allreduce", error="NCCL WARN NVLS is not supported on this system",
            blocked_by=["no-nvlink-sharp"]),
        "attempts/2026-03-05-baseline-new.yaml": attempt("2026-03-05", c, "new", "baseline", platform="h100", tps=110),
    }


def test_retry_of_an_attempt_whose_blocker_the_new_stack_resolves(kb):
    steps = steps_of(kb(llama_tree(), "next", "--json"))
    assert [(s["kind"], s["target"]) for s in steps] == [("retry", "2026-03-02-fp8")]
    step = steps[0]
    assert set(step) >= {"kind", "campaign", "target", "title", "reason", "rank"}
    assert set(step["rank"]) >= {"unblocks", "headroom", "predicted"}
    assert step["campaign"] == "llama-h100"
    assert step["title"]
    # the reason says which blocker is resolved, and on which stack
    assert "vllm-fp8-marlin-crash" in step["reason"] and "new" in step["reason"]
    assert "catalog predicts" not in step["reason"]
    assert step["rank"]["predicted"] != "fails"
    assert step["rank"]["unblocks"] == 1
    # target 200 tok/s, best so far 110 tok/s
    assert step["rank"]["headroom"] == pytest.approx(90)


def test_the_hardware_gap_blocker_gives_no_retry(kb):
    steps = steps_of(kb(llama_tree(), "next", "--json"))
    assert "2026-03-03-nvls" not in [s["target"] for s in steps]


@pytest.mark.parametrize("how", ["baseline", "flags"])
def test_a_retry_already_made_leaves_nothing_to_do(kb, how):
    files = llama_tree()
    extra: dict[str, Any] = {"baseline": "2026-03-02-fp8"} if how == "baseline" else {}
    files["attempts/2026-03-06-fp8-again.yaml"] = attempt(
        "2026-03-06", "llama-h100", "new", "improved", platform="h100",
        flags=["--tp 8", "--quantization fp8"] if how == "flags" else ["--quantization fp8", "--tp 8", "--kv-cache-dtype fp8"],
        approach="FP8 weights with the Marlin kernel", tps=150, **extra)
    r = kb(files, "next")
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert r.stderr.strip()  # a sentence saying there is nothing to do


def test_nothing_to_do_with_json_is_also_nothing_on_stdout(kb):
    """Written first as: nothing on stdout with --json either. kb's reading: --json always prints
    the list (``[]`` here), so that a script reads one shape; the sentence is for people."""
    files = llama_tree()
    files["attempts/2026-03-06-fp8-again.yaml"] = attempt(
        "2026-03-06", "llama-h100", "new", "improved", platform="h100", flags=["--tp 8", "--quantization fp8"],
        approach="FP8 weights with the Marlin kernel", tps=150, baseline="2026-03-02-fp8")
    r = kb(files, "next", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == []
    plain = kb(files, "next")
    assert plain.exit_code == 0 and plain.stdout == "" and plain.stderr.strip()


def test_a_repeat_on_the_stack_where_the_blocker_stands_is_no_retry(kb):
    files = llama_tree()
    files["attempts/2026-03-04-fp8-repeat.yaml"] = attempt(
        "2026-03-04", "llama-h100", "old", "failed", platform="h100", flags=["--tp 8", "--quantization fp8"],
        approach="FP8 weights with the Marlin kernel", baseline="2026-03-02-fp8",
        error="RuntimeError: fp8_marlin_gemm: invalid configuration argument", blocked_by=["vllm-fp8-marlin-crash"])
    steps = steps_of(kb(files, "next", "--json"))
    retries = [s for s in steps if s["kind"] == "retry"]
    assert retries, "the repeat ran on 'old', where vllm-fp8-marlin-crash still stands: the retry is still due"
    assert {s["target"] for s in retries} <= {"2026-03-02-fp8", "2026-03-04-fp8-repeat"}
    assert all("vllm-fp8-marlin-crash" in s["reason"] and "new" in s["reason"] for s in retries)


# --------------------------------------------------------------------------- base chain, co-requirement


def chain_tree(current: str) -> dict[str, Any]:
    c = "mixtral-a100"
    return {
        "platforms/a100.yaml": A100,
        "stacks/base-a.yaml": {"title": "a", "components": {"cuda": "12.1.0", "torch": "2.3.0",
                                                            "sglang": "0.4.0", "flashinfer": "0.2.0"}},
        "stacks/mid-b.yaml": {"title": "b", "base": "base-a", "components": {"flashinfer": "0.2.5"}},
        "stacks/top-c.yaml": {"title": "c", "base": "mid-b", "components": {"sglang": "0.4.5"}},
        "campaigns/mixtral-a100.yaml": {"title": "Mixtral on A100", "model": "Mixtral-8x7B", "platform": "a100",
                                        "metric": METRIC},
        # needs both upgrades together: a co-requirement is not a fix alone
        "blockers/moe-align-kernel.yaml": {
            "title": "moe_align_block_size kernel mismatch between sglang and flashinfer",
            "component": "sglang", "applies_when": {"sglang": "<0.4.5"},
            "fixed_by": [{"sglang": ">=0.4.5", "flashinfer": ">=0.2.5"}]},
        "attempts/2026-04-01-baseline.yaml": attempt("2026-04-01", c, "base-a", "baseline", platform="a100", tps=40),
        "attempts/2026-04-02-moe.yaml": attempt(
            "2026-04-02", c, "base-a", "regressed", platform="a100", flags=["--tp 4", "--enable-ep-moe"], tps=30,
            approach="expert parallel MoE", blocked_by=["moe-align-kernel"]),
        f"attempts/2026-04-09-baseline-{current}.yaml": attempt("2026-04-09", c, current, "baseline",
                                                                platform="a100", tps=44),
    }


def test_a_co_requirement_half_met_on_the_current_stack_gives_no_retry(kb):
    r = kb(chain_tree("mid-b"), "next", "--json")
    assert r.exit_code == 0, r.output
    assert [s for s in steps_of(r) if s["kind"] == "retry"] == []


def test_the_fix_met_through_a_base_chain_gives_a_retry_without_target_headroom(kb):
    steps = steps_of(kb(chain_tree("top-c"), "next", "--json"))
    retries = [s for s in steps if s["kind"] == "retry"]
    assert [s["target"] for s in retries] == ["2026-04-02-moe"]
    assert "moe-align-kernel" in retries[0]["reason"] and "top-c" in retries[0]["reason"]
    assert retries[0]["campaign"] == "mixtral-a100"
    assert retries[0]["rank"]["headroom"] is None  # the campaign has no target


# --------------------------------------------------------------------------- blackwell catalog predictions


def blackwell_tree() -> dict[str, Any]:
    c = "qwen-rtx"
    return {
        "platforms/rtx.yaml": RTX,
        "stacks/cu128.yaml": {"title": "CUDA 12.8", "components": {"cuda": "12.8.1", "torch": "2.9.0+cu128",
                                                                   "sglang": "0.5.2", "flashinfer": "0.6.4"}},
        "stacks/cu130.yaml": {"title": "CUDA 13", "base": "cu128", "components": {"cuda": "13.0.1"}},
        "campaigns/qwen-rtx.yaml": {"title": "Qwen3 on RTX PRO 6000", "model": "Qwen3-235B", "platform": "rtx",
                                    "metric": METRIC, "target": "120 tok/s", "catalogs": ["blackwell"]},
        "blockers/sm120-needs-cuda13.yaml": {
            "title": "SM120 is not supported by the CUDA 12.8 stack", "component": "cuda",
            "applies_when": {"compute_capability": ">=12.0,<13.0"},
            "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=13.0"}}]},
        "blockers/symm-mem-keyerror.yaml": {
            "title": "symmetric memory allreduce has no entry for capability 12", "component": "sglang",
            "caused_by": ["sm120-needs-cuda13"], "flags": ["--enable-torch-symm-mem"],
            "signatures": ["KeyError: 12"]},
        "blockers/custom-op-sm120.yaml": {
            "title": "our custom rope kernel has no SM120 build", "component": "cuda",
            "caused_by": ["sm120-needs-cuda13"], "signatures": ["rope_fused_kernel: no SM120 image"]},
        "attempts/2026-05-01-baseline.yaml": attempt("2026-05-01", c, "cu128", "baseline", platform="rtx", tps=70),
        "attempts/2026-05-02-a-symm-mem.yaml": attempt(
            "2026-05-02", c, "cu128", "failed", platform="rtx", flags=["--tp 4", "--enable-torch-symm-mem"],
            approach="torch symmetric memory allreduce", error="KeyError: 12", blocked_by=["symm-mem-keyerror"]),
        "attempts/2026-05-03-custom-op.yaml": attempt(
            "2026-05-03", c, "cu128", "failed", platform="rtx", flags=["--tp 4", "--rope-kernel fused"],
            approach="fused rope kernel", error="RuntimeError: rope_fused_kernel: no SM120 image",
            blocked_by=["custom-op-sm120"]),
        "attempts/2026-05-10-baseline-cu130.yaml": attempt("2026-05-10", c, "cu130", "baseline",
                                                           platform="rtx", tps=75),
    }


def test_the_catalog_predicts_a_retry_still_fails_and_it_ranks_after_the_other(kb):
    steps = steps_of(kb(blackwell_tree(), "next", "--json"))
    retries = [s for s in steps if s["kind"] == "retry"]
    assert [s["target"] for s in retries] == ["2026-05-03-custom-op", "2026-05-02-a-symm-mem"]
    custom, symm = retries
    assert custom["rank"]["unblocks"] == symm["rank"]["unblocks"]
    assert symm["rank"]["predicted"] == "fails"
    assert "the catalog predicts it still fails" in symm["reason"]
    assert "symm-mem-keyerror" in symm["reason"] and "cu130" in symm["reason"]
    # the catalog's blocker of the same failure (KeyError: 12) still stands on cu130 (cc 12.0)
    assert "sglang-symm-mem-size-table-keyerror-12" in symm["reason"]
    assert custom["rank"]["predicted"] != "fails"
    assert "the catalog predicts it still fails" not in custom["reason"]
    assert custom["rank"]["headroom"] == pytest.approx(45)  # 120 - 75
    assert "custom-op-sm120" in custom["reason"] and "cu130" in custom["reason"]


# --------------------------------------------------------------------------- verify-credit


def credit_tree() -> dict[str, Any]:
    c = "gemma-a100"
    return {
        "platforms/a100.yaml": A100,
        "stacks/v1.yaml": {"title": "v1", "components": {"cuda": "12.1.1", "torch": "2.3.0", "vllm": "0.5.0",
                                                         "flash-attn": "2.5.8"}},
        "stacks/v2.yaml": {"title": "v2", "base": "v1", "components": {"cuda": "12.4.1", "torch": "2.4.0",
                                                                       "vllm": "0.6.0"}},
        "campaigns/gemma-a100.yaml": {"title": "Gemma on A100", "model": "Gemma-2-27B", "platform": "a100",
                                      "metric": METRIC, "target": "90 tok/s"},
        "blockers/paged-attn-illegal-access.yaml": {
            "title": "paged attention illegal memory access with CUDA 12.1", "component": "cuda",
            "fixed_by": [{"cuda": ">=12.4"}],
            "signatures": ["paged_attention_v2_kernel: an illegal memory access"]},
        "attempts/2026-06-01-baseline.yaml": attempt("2026-06-01", c, "v1", "baseline", platform="a100", tps=50),
        "attempts/2026-06-02-long-ctx.yaml": attempt(
            "2026-06-02", c, "v1", "failed", platform="a100", flags=["--tp 4", "--max-model-len 32768"],
            approach="long context", error="paged_attention_v2_kernel: an illegal memory access",
            blocked_by=["paged-attn-illegal-access"]),
        "decisions/2026-06-05-upgrade-cuda-124.yaml": decision(
            "2026-06-05", c, resolves=["paged-attn-illegal-access"], stack_change={"from": "v1", "to": "v2"}),
        "attempts/2026-06-07-long-ctx-v2.yaml": attempt(
            "2026-06-07", c, "v2", "improved", platform="a100", flags=["--tp 4", "--max-model-len 32768"],
            approach="long context", baseline="2026-06-02-long-ctx", tps=60),
        "attempts/2026-06-08-baseline-v2.yaml": attempt("2026-06-08", c, "v2", "baseline", platform="a100", tps=55),
    }


def test_verify_credit_names_the_credited_and_the_other_changed_components(kb):
    steps = steps_of(kb(credit_tree(), "next", "--json"))
    assert [(s["kind"], s["target"]) for s in steps] == [("verify-credit", "2026-06-05-upgrade-cuda-124")]
    reason = steps[0]["reason"]
    assert "cuda" in reason
    assert "torch" in reason and "vllm" in reason
    assert "flash-attn" not in reason  # did not change between v1 and v2
    assert steps[0]["campaign"] == "gemma-a100"
    assert steps[0]["rank"]["headroom"] == pytest.approx(30)  # 90 - 60
    assert steps[0]["rank"]["unblocks"] >= 1


@pytest.mark.parametrize("bound", [{"cuda": "<12.4"}, {"torch": "<2.4"}])
def test_verify_credit_also_when_the_blocker_has_an_applies_when_bound(kb, bound):
    # the spec's conditions hold (accepted, stack_change v1 -> v2 resolves the blocker, cuda, torch and
    # vllm changed, no attempt changed cuda alone); an applies_when bound is no exception in it
    files = credit_tree()
    files["blockers/paged-attn-illegal-access.yaml"]["applies_when"] = bound
    steps = steps_of(kb(files, "next", "--json"))
    assert [(s["kind"], s["target"]) for s in steps] == [("verify-credit", "2026-06-05-upgrade-cuda-124")]


def test_an_attempt_that_changed_only_cuda_settles_the_credit(kb):
    files = credit_tree()
    files["stacks/v1-cuda124.yaml"] = {"title": "v1 with CUDA 12.4 only", "base": "v1",
                                       "components": {"cuda": "12.4.1"}}
    files["attempts/2026-06-06-long-ctx-cuda-only.yaml"] = attempt(
        "2026-06-06", "gemma-a100", "v1-cuda124", "improved", platform="a100",
        flags=["--tp 4", "--max-model-len 32768"], approach="long context", baseline="2026-06-02-long-ctx", tps=58)
    steps = steps_of(kb(files, "next", "--json"))
    assert [s for s in steps if s["kind"] == "verify-credit"] == []


def test_a_one_component_change_or_a_proposed_decision_needs_no_credit_check(kb):
    files = credit_tree()
    files["stacks/v2.yaml"] = {"title": "v2", "base": "v1", "components": {"cuda": "12.4.1"}}
    assert [s for s in steps_of(kb(files, "next", "--json")) if s["kind"] == "verify-credit"] == []
    files = credit_tree()
    files["decisions/2026-06-05-upgrade-cuda-124.yaml"]["status"] = "proposed"
    assert [s for s in steps_of(kb(files, "next", "--json")) if s["kind"] == "verify-credit"] == []


# --------------------------------------------------------------------------- measure-baseline, start-plan


def plan_tree() -> dict[str, Any]:
    c = "phi-l40s"
    return {
        "platforms/l40s.yaml": L40S,
        "stacks/trt.yaml": {"title": "TensorRT-LLM", "components": {"cuda": "12.6.3", "tensorrt-llm": "0.16.0"}},
        "stacks/trt-next.yaml": {"title": "TensorRT-LLM next", "base": "trt",
                                 "components": {"tensorrt-llm": "0.17.0"}},
        "campaigns/phi-l40s.yaml": {"title": "Phi-4 on L40S", "model": "Phi-4", "platform": "l40s",
                                    "metric": METRIC, "target": "300 tok/s"},
        "attempts/2026-07-01-baseline.yaml": attempt("2026-07-01", c, "trt", "baseline", platform="l40s", tps=210),
        "attempts/2026-07-03-inflight.yaml": attempt("2026-07-03", c, "trt", "improved", platform="l40s",
                                                     flags=["--max_batch_size 64"], tps=230,
                                                     baseline="2026-07-01-baseline"),
        "decisions/2026-07-10-try-fp8-kv.yaml": decision(
            "2026-07-10", c, plan=["Build the engine with FP8 KV cache.", "Re-run the benchmark at 64 requests."]),
    }


def test_start_plan_for_an_accepted_decision_nothing_has_followed(kb):
    steps = steps_of(kb(plan_tree(), "next", "--json"))
    assert [(s["kind"], s["target"], s["campaign"]) for s in steps] == [
        ("start-plan", "2026-07-10-try-fp8-kv", "phi-l40s")]
    assert steps[0]["rank"]["headroom"] == pytest.approx(70)  # 300 - 230


@pytest.mark.parametrize("change", ["attempt-on-the-day", "proposed"])
def test_no_start_plan_once_an_attempt_follows_or_when_not_accepted(kb, change):
    files = plan_tree()
    if change == "proposed":
        files["decisions/2026-07-10-try-fp8-kv.yaml"]["status"] = "proposed"
    else:
        files["attempts/2026-07-10-fp8-kv.yaml"] = attempt("2026-07-10", "phi-l40s", "trt", "improved",
                                                           platform="l40s", flags=["--kv_cache_dtype fp8"],
                                                           tps=250, baseline="2026-07-01-baseline")
    r = kb(files, "next")
    assert r.exit_code == 0, r.output
    assert r.stdout == "" and r.stderr.strip()


def test_measure_baseline_when_the_current_stack_has_measurements_but_no_baseline(kb):
    files = plan_tree()
    files["decisions/2026-07-10-try-fp8-kv.yaml"]["status"] = "rejected"
    files["attempts/2026-07-12-next.yaml"] = attempt("2026-07-12", "phi-l40s", "trt-next", "improved",
                                                     platform="l40s", flags=["--max_batch_size 64"], tps=260,
                                                     baseline="2026-07-03-inflight")
    steps = steps_of(kb(files, "next", "--json"))
    assert [(s["kind"], s["campaign"]) for s in steps] == [("measure-baseline", "phi-l40s")]
    assert "trt-next" in steps[0]["title"] + steps[0]["reason"]
    assert steps[0]["rank"]["headroom"] == pytest.approx(40)  # 300 - 260


def test_no_measure_baseline_when_the_current_stack_carries_other_metrics_only(kb):
    files = plan_tree()
    files["decisions/2026-07-10-try-fp8-kv.yaml"]["status"] = "rejected"
    a = attempt("2026-07-12", "phi-l40s", "trt-next", "neutral", platform="l40s", flags=["--max_batch_size 64"])
    a["metrics"] = {"ttft": "180 ms"}
    files["attempts/2026-07-12-next.yaml"] = a
    r = kb(files, "next")
    assert r.exit_code == 0, r.output
    assert r.stdout == "" and r.stderr.strip()


# --------------------------------------------------------------------------- ranking across campaigns


def two_campaigns() -> dict[str, Any]:
    files = {
        "platforms/l40s.yaml": L40S,
        "platforms/h100.yaml": H100,
        "stacks/s1.yaml": {"title": "s1", "components": {"cuda": "12.4.1", "vllm": "0.6.3"}},
        "stacks/s2.yaml": {"title": "s2", "base": "s1", "components": {"vllm": "0.6.4"}},
    }
    # aaa: small headroom (100 - 95 = 5); zzz: large headroom (500 - 300 = 200); mmm: no target
    for cid, plat, target, best in [("aaa-small", "l40s", "100 tok/s", 95), ("zzz-large", "h100", "500 tok/s", 300),
                                    ("mmm-none", "l40s", None, 10)]:
        camp: dict[str, Any] = {"title": cid, "model": "m", "platform": plat, "metric": METRIC}
        if target:
            camp["target"] = target
        files[f"campaigns/{cid}.yaml"] = camp
        files[f"attempts/2026-08-01-{cid}-base.yaml"] = attempt("2026-08-01", cid, "s1", "baseline",
                                                                platform=plat, tps=best - 5)
        files[f"attempts/2026-08-02-{cid}-s2.yaml"] = attempt("2026-08-02", cid, "s2", "improved", platform=plat,
                                                              tps=best, baseline=f"2026-08-01-{cid}-base")
    return files


def test_equal_steps_rank_by_headroom_descending(kb):
    steps = steps_of(kb(two_campaigns(), "next", "--json"))
    assert [(s["kind"], s["campaign"]) for s in steps] == [
        ("measure-baseline", "zzz-large"), ("measure-baseline", "aaa-small"), ("measure-baseline", "mmm-none")]
    assert [s["rank"]["headroom"] for s in steps[:2]] == [pytest.approx(200), pytest.approx(5)]
    assert steps[2]["rank"]["headroom"] is None
    assert len({s["rank"]["unblocks"] for s in steps}) == 1


def test_campaign_filter_and_limit(kb):
    files = two_campaigns()
    only = steps_of(kb(files, "next", "--json", "--campaign", "aaa-small"))
    assert [(s["kind"], s["campaign"]) for s in only] == [("measure-baseline", "aaa-small")]
    first = steps_of(kb(files, "next", "--json", "-n", "1"))
    assert [s["campaign"] for s in first] == ["zzz-large"]
    two = steps_of(kb(files, "next", "--json", "--limit", "2"))
    assert [s["campaign"] for s in two] == ["zzz-large", "aaa-small"]


def test_all_four_kinds_in_one_campaign_follow_the_ranking(kb):
    files = credit_tree()
    del files["attempts/2026-06-07-long-ctx-v2.yaml"]  # the retry is not made yet
    del files["attempts/2026-06-08-baseline-v2.yaml"]  # no baseline on v2
    files["attempts/2026-06-04-other-v2.yaml"] = attempt("2026-06-04", "gemma-a100", "v2", "improved",
                                                         platform="a100", flags=["--tp 2"], tps=57)
    files["decisions/2026-06-05-upgrade-cuda-124.yaml"]["plan"] = ["Re-run the long-context attempt on v2."]
    steps = steps_of(kb(files, "next", "--json"))
    assert sorted(s["kind"] for s in steps) == sorted(KIND_ORDER)
    retry = next(s for s in steps if s["kind"] == "retry")
    assert retry["target"] == "2026-06-02-long-ctx"
    assert "paged-attn-illegal-access" in retry["reason"] and "v2" in retry["reason"]
    start = next(s for s in steps if s["kind"] == "start-plan")
    assert start["target"] == "2026-06-05-upgrade-cuda-124"

    def key(s: dict[str, Any]) -> tuple:
        h = s["rank"]["headroom"]
        return (-s["rank"]["unblocks"], s["rank"]["predicted"] == "fails", KIND_ORDER[s["kind"]],
                -(h if h is not None else float("-inf")))

    assert [key(s) for s in steps] == sorted(key(s) for s in steps)
    assert all(s["rank"]["headroom"] == pytest.approx(33) for s in steps)  # 90 - 57


# --------------------------------------------------------------------------- kb match

TRACEBACK = """\
Traceback (most recent call last):
  File "/opt/serve/launch.py", line 88, in <module>
    main()
  File "/opt/serve/launch.py", line 61, in main
    engine.warmup()
  File "/opt/serve/engine.py", line 412, in warmup
    torch.cuda.synchronize()
RuntimeError: CUDA error: paged_attention_v2_kernel: an illegal memory access was encountered
"""

MULTILINE_LOG = """\
INFO 06-02 10:11:12 engine.py:210 starting engine with tp=4
INFO 06-02 10:11:13 pinned.py:40 allocating host buffers
ERROR 06-02 10:11:14 worker.py:77 worker 2 died
torch.OutOfMemoryError: Cannot allocate 1048576 bytes of pinned memory
INFO 06-02 10:11:15 engine.py:300 shutting down
"""


def match_tree() -> dict[str, Any]:
    files = credit_tree()
    files["blockers/paged-attn-illegal-access.yaml"]["signatures"] = [
        "paged_attention_v2_kernel: an   illegal memory access"]  # whitespace collapses
    files["blockers/pinned-host-memory.yaml"] = {
        "title": "pinned host memory runs out with 4 workers",
        "signatures": [r"/Cannot allocate \d+ bytes of pinned memory/"],
        "workaround": "lower --swap-space"}
    files["blockers/oom-generic.yaml"] = {"title": "something ran out of memory", "signatures": ["OOM"]}
    # three attempts hit the paged-attention blocker, written out of date order
    for date, slug in [("2026-06-02", "long-ctx"), ("2026-06-04", "long-ctx-b"), ("2026-06-03", "long-ctx-c")]:
        files[f"attempts/{date}-{slug}.yaml"] = attempt(
            date, "gemma-a100", "v1", "failed", platform="a100", flags=["--tp 4", "--max-model-len 32768"],
            approach="long context", blocked_by=["paged-attn-illegal-access"],
            error=TRACEBACK if slug == "long-ctx-b" else
            "RuntimeError: CUDA error: paged_attention_v2_kernel: an illegal memory access was encountered")
    files["attempts/2026-06-03-swap.yaml"] = attempt(
        "2026-06-03", "gemma-a100", "v1", "failed", platform="a100", flags=["--tp 4", "--swap-space 64"],
        approach="more swap space", blocked_by=["pinned-host-memory"],
        error="torch.OutOfMemoryError: Cannot allocate 4096 bytes of pinned memory")
    return files


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_match_a_whole_traceback_by_a_whitespace_collapsed_signature(kb, write_tree):
    r = kb(match_tree(), "match", TRACEBACK)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    i = lines.index("matches: paged-attn-illegal-access: paged attention illegal memory access with CUDA 12.1")
    assert lines[i + 1].startswith("   signature: ") and "paged_attention_v2_kernel" in lines[i + 1]
    assert lines[i + 2].startswith("   fix: ") and "cuda>=12.4" in lines[i + 2]
    assert lines[i + 3] == "   hit before by: 2026-06-04-long-ctx-b, 2026-06-03-long-ctx-c, 2026-06-02-long-ctx"
    same = [ln for ln in lines if ln.startswith("same error printed by: ")]
    assert len(same) == 1
    assert set(same[0].removeprefix("same error printed by: ").split(", ")) == {
        "2026-06-04-long-ctx-b", "2026-06-03-long-ctx-c", "2026-06-02-long-ctx"}
    assert not any(ln.startswith("possible match") for ln in lines)


def test_match_json_of_a_traceback(kb):
    r = kb(match_tree(), "match", "--json", TRACEBACK)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data) == {"headline", "matches", "same_error"}
    assert data["headline"] == ("RuntimeError: CUDA error: paged_attention_v2_kernel: an illegal memory access "
                                "was encountered")
    assert [m["blocker"] for m in data["matches"]] == ["paged-attn-illegal-access"]
    m = data["matches"][0]
    assert set(m) == {"blocker", "title", "source", "signatures", "specific", "fix", "attempts", "same_as"}
    assert m["title"] == "paged attention illegal memory access with CUDA 12.1"
    assert m["source"] == "campaign"
    assert m["specific"] is True
    assert m["same_as"] is None
    assert m["attempts"] == ["2026-06-04-long-ctx-b", "2026-06-03-long-ctx-c", "2026-06-02-long-ctx"]
    assert "cuda>=12.4" in m["fix"]
    assert sorted(data["same_error"]) == ["2026-06-02-long-ctx", "2026-06-03-long-ctx-c", "2026-06-04-long-ctx-b"]


def test_match_a_multi_line_log_by_a_regex_signature_from_a_file_and_stdin(kb, tmp_path):
    log = tmp_path / "server.log"
    log.write_text(MULTILINE_LOG, encoding="utf-8")
    r = kb(match_tree(), "match", "--json", "--file", str(log))
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    # the headline is the last exception line, not the last line of the log
    assert data["headline"] == "torch.OutOfMemoryError: Cannot allocate 1048576 bytes of pinned memory"
    by_id = {m["blocker"]: m for m in data["matches"]}
    assert by_id["pinned-host-memory"]["specific"] is True
    assert by_id["pinned-host-memory"]["signatures"] == [r"/Cannot allocate \d+ bytes of pinned memory/"]
    assert by_id["pinned-host-memory"]["attempts"] == ["2026-06-03-swap"]
    assert "paged-attn-illegal-access" not in by_id
    # a different number of bytes: not the same headline
    assert data["same_error"] == []
    # the same text piped on standard input, with no TEXT and with '-', and with --file -
    for args in (["match", "--json"], ["match", "--json", "-"], ["match", "--json", "--file", "-"]):
        piped = kb({}, *args, input=MULTILINE_LOG)
        assert piped.exit_code == 0, (args, piped.output)
        assert json.loads(piped.stdout) == data, args


def test_a_short_signature_is_only_a_possible_match(kb):
    """Written first as: a short signature ("OOM") is always a possible match. kb's rule
    (kb.queries.signatures.SPECIFIC_LENGTH): a short literal links when it is the only match, and
    is a possible match beside another blocker's match."""
    alone = kb(match_tree(), "match", "--json", "RuntimeError: OOM while growing the KV cache")
    assert [(m["blocker"], m["specific"]) for m in json.loads(alone.stdout)["matches"]] == [("oom-generic", True)]
    files = match_tree()
    files["blockers/kv-cache-growth-oom.yaml"] = {"title": "KV cache growth runs out of memory",
                                                  "signatures": ["OOM while growing the KV cache"]}
    r = kb(files, "match", "RuntimeError: OOM while growing the KV cache")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "matches: kv-cache-growth-oom: KV cache growth runs out of memory" in lines
    assert "possible match (a short or generic signature): oom-generic: something ran out of memory" in lines


def test_a_generic_signature_is_only_a_possible_match(kb):
    files = match_tree()
    files["blockers/oom-generic.yaml"]["signatures"] = ["CUDA out of memory"]
    err = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 39.39 GiB total)"
    r = kb(files, "match", err)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "possible match (a short or generic signature): oom-generic: something ran out of memory" in lines
    assert not any(ln.startswith("matches: ") for ln in lines)


def test_no_match(kb):
    r = kb(match_tree(), "match", "ValueError: tokenizer_config.json not found")
    assert "no blocker of the campaign or its catalogs matches this error" in r.output
    assert "matches:" not in r.stdout and "possible match" not in r.stdout
    data = json.loads(kb({}, "match", "--json", "ValueError: tokenizer_config.json not found").stdout)
    assert data["matches"] == [] and data["headline"] == "ValueError: tokenizer_config.json not found"


def test_match_is_read_only(kb, write_tree):
    root = write_tree(match_tree())
    before = tree_digest(root)
    for args in (["match", TRACEBACK], ["match", "--json", "OOM"], ["match", "nothing like it"]):
        r = CliRunner().invoke(cli, ["--records", str(root), *args])
        assert r.exit_code in (0, 1), r.output
    assert tree_digest(root) == before


def test_match_a_catalog_signature_the_campaign_has_no_blocker_for(kb):
    files = blackwell_tree()
    err = ("ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'\n"
           "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error")
    r = kb(files, "match", "Value 'sm_120' is not defined for option 'gpu-name'")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    head = [ln for ln in lines if ln.startswith("matches: ")]
    assert len(head) == 1
    assert head[0].startswith("matches: triton-bundled-ptxas-rejects-sm120")
    assert head[0].endswith("Triton before 3.3 ships a ptxas that does not know sm_120")
    i = lines.index(head[0])
    assert "Value 'sm_120' is not defined for option 'gpu-name'" in lines[i + 1]
    assert lines[i + 2].startswith("   fix: ") and "triton>=3.3.0" in lines[i + 2]
    data = json.loads(kb({}, "match", "--json", err).stdout)
    m = {x["blocker"]: x for x in data["matches"]}["triton-bundled-ptxas-rejects-sm120"]
    assert m["source"] == "catalog blackwell" and m["specific"] is True and m["same_as"] is None
    assert m["attempts"] == []
    assert data["headline"] == "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error"


def test_match_names_the_catalogs_record_of_a_campaign_blocker(kb):
    files = blackwell_tree()
    files["blockers/torch-wheel-no-sm120.yaml"] = {
        "title": "our torch wheel has no sm_120 kernels", "component": "torch",
        "signatures": ["sm_120 is not compatible with the current PyTorch installation"]}
    files["attempts/2026-05-04-old-wheel.yaml"] = attempt(
        "2026-05-04", "qwen-rtx", "cu128", "failed", platform="rtx", flags=["--tp 4", "--enable-mixed-chunk"],
        approach="an older image", blocked_by=["torch-wheel-no-sm120"],
        error="UserWarning: NVIDIA RTX PRO 6000 Blackwell with CUDA capability sm_120 is not compatible with the "
              "current PyTorch installation.")
    err = ("/usr/lib/python3/site-packages/torch/cuda/__init__.py:230: UserWarning:\n"
           "NVIDIA RTX PRO 6000 Blackwell with CUDA capability sm_120 is not compatible with the current PyTorch "
           "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.")
    r = kb(files, "match", err)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "matches: torch-wheel-no-sm120: our torch wheel has no sm_120 kernels" in lines
    assert ("the catalog's record of torch-wheel-no-sm120: torch-cu126-wheels-lack-sm120, catalog blackwell: "
            "PyTorch wheels built with CUDA 12.6 or older carry no sm_120 kernels") in lines
    i = lines.index("matches: torch-wheel-no-sm120: our torch wheel has no sm_120 kernels")
    assert lines[i + 3] == "   hit before by: 2026-05-04-old-wheel"
    data = json.loads(kb({}, "match", "--json", err).stdout)
    by_id = {m["blocker"]: m for m in data["matches"]}
    assert by_id["torch-cu126-wheels-lack-sm120"]["same_as"] == "torch-wheel-no-sm120"
    assert by_id["torch-cu126-wheels-lack-sm120"]["source"] == "catalog blackwell"
    assert by_id["torch-wheel-no-sm120"]["source"] == "campaign"
    assert by_id["torch-wheel-no-sm120"]["attempts"] == ["2026-05-04-old-wheel"]
