"""`kb roots`, tested blind from its spec on a campaign unlike records/: Qwen3-30B-A3B served by
vLLM on one DGX Spark (GB10, compute capability 12.1), four stacks in a base chain (CUDA 12.8 →
FlashInfer 0.6.7 → CUDA 13.0 → vLLM 0.13), six blockers of its own, and errors that are the
blackwell catalog's signatures verbatim.

What the records say (reviewed attempts only; the draft never counts):

* campaign root ``cuda-12.8-toolkit-predates-sm121`` (fixed_by cuda>=13.0, so resolved on the
  current stack) is reached by 4 attempts: directly (2026-03-07), through
  ``triton-ptxas-sm121a-unknown`` (03-03), ``flashinfer-jit-needs-newer-nvcc`` (03-05) and
  ``fp8-moe-falls-back-to-marlin`` → ``flashinfer-jit-needs-newer-nvcc`` (03-06).
* catalog root ``toolchain-too-old-for-sm12x`` is reached by 3 attempts, all by signature
  (03-03 and 03-23 via ``triton-ptxas-rejects-sm121a``, 03-05 via
  ``flashinfer-jit-sm12x-needs-cuda-12.9``); it has no fix, so it stands: a dispute with the
  campaign root, whose records claim CUDA 13 fixed it.
* catalog root ``binaries-not-built-for-sm120``: 2 attempts, by the signature of
  ``vllm-deepgemm-invalid-image-on-sm121``; they are every attempt of campaign root
  ``deepgemm-cubins-invalid-on-gb10``, which is therefore recorded as that catalog row.
* campaign root ``unified-memory-oversubscribed``: 2 failed attempts, stands.
* catalog root ``arch-allowlist-omits-sm12x``: 1 attempt, an improved one that names the catalog's
  ``vllm-marlin-fp4-fallback-on-sm120`` in its ``blocked_by`` (the Marlin FP4 fallback), so it is
  never blocked now. A variant tree moves that warning into the attempt's ``error`` instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from click.testing import CliRunner

from kb.cli import cli

CATALOG = Path(__file__).resolve().parent.parent / "kb" / "catalogs" / "blackwell" / "blockers"

CAMPAIGN = "qwen3-30b-a3b-dgx-spark"
PLATFORM = "dgx-spark-gb10"
CURRENT = "spark-cu130-vllm013"

# catalog ids / signatures used verbatim in errors
TRITON_SIG = "Value 'sm_121a' is not defined for option 'gpu-name'"
FI_SIG = "SM 12.x requires CUDA >= 12.9"
DG_SIG = "(/opt/deep_gemm/jit/handle.hpp:141): 200 (CUDA_ERROR_INVALID_IMAGE, device kernel image is invalid)"
# the catalog's signature needs DeepGEMM's own path, as vLLM prints it (a bare driver error names no library)
MARLIN_SIG = "Your GPU does not have native support for FP4 computation but FP4 quantization is being used"
MARLIN_WARNING = (f"WARNING: {MARLIN_SIG}. Weight-only FP4 compression will be used leveraging the "
                  "Marlin kernel.")

# campaign blockers
ROOT_CUDA = "cuda-12.8-toolkit-predates-sm121"
B_TRITON = "triton-ptxas-sm121a-unknown"
B_FI = "flashinfer-jit-needs-newer-nvcc"
B_MARLIN = "fp8-moe-falls-back-to-marlin"
ROOT_DG = "deepgemm-cubins-invalid-on-gb10"
ROOT_MEM = "unified-memory-oversubscribed"

# catalog roots
TOOLCHAIN = "toolchain-too-old-for-sm12x"
BINARIES = "binaries-not-built-for-sm120"
ALLOWLIST = "arch-allowlist-omits-sm12x"

# attempts
A_BASE = "2026-03-02-baseline-cu128"
A_TRITON = "2026-03-03-triton-fused-moe"
A_FI = "2026-03-05-flashinfer-067-cutlass-moe"
A_MARLIN = "2026-03-06-fp8-moe-marlin-fallback"
A_NVCC = "2026-03-07-build-vllm-sm121a"
A_DG = "2026-03-09-deepgemm-fp8-linear"
A_MEM = "2026-03-12-gpu-mem-util-095"
A_BASE13 = "2026-03-16-baseline-cu130"
A_FI13 = "2026-03-17-flashinfer-cutlass-moe-cu130"
A_DG13 = "2026-03-19-deepgemm-cu130"
A_NVFP4 = "2026-03-20-nvfp4-marlin"
A_DRAFT = "2026-03-21-deepgemm-retry-draft"
A_TRITON13 = "2026-03-23-triton-attention-cu130"
A_MEM13 = "2026-03-25-gpu-mem-util-090-cu130"
A_LAST = "2026-03-27-mtp-speculation"

IMPROVED = {A_FI13, A_NVFP4, A_LAST, A_BASE13}
SUCCEEDED = IMPROVED | {A_BASE}

FLAGS = ["--tensor-parallel-size 1", "--max-model-len 32768"]


def attempt(date: str, title: str, stack: str, outcome: str, approach: str, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"title": title, "date": date, "campaign": CAMPAIGN, "approach": approach,
                           "platform": PLATFORM, "stack": stack, "config": {"flags": list(FLAGS)},
                           "outcome": outcome}
    rec.update(extra)
    return rec


def tok(v: float) -> dict[str, str]:
    return {"output_throughput": f"{v} tok/s"}


FILES: dict[str, Any] = {
    f"platforms/{PLATFORM}.yaml": {
        "title": "NVIDIA DGX Spark (GB10 Grace Blackwell superchip)", "gpu": "NVIDIA GB10", "gpu_count": 1,
        "compute_capability": "12.1", "arch": "sm_121", "interconnect": "NVLink-C2C (CPU-GPU, unified memory)",
        "nvlink": False, "memory_gib": 128, "host": "DGX OS 7 (Ubuntu 24.04, aarch64)"},
    "stacks/spark-cu128.yaml": {
        "title": "CUDA 12.8 stack as shipped (torch 2.8 cu128, vLLM 0.10.2)",
        "components": {"driver": "580.95.05", "cuda": "12.8.1", "torch": "2.8.0+cu128", "torch-cuda": "12.8",
                       "triton": "3.4.0", "flashinfer": "0.6.4", "vllm": "0.10.2", "nccl": "2.27.3"}},
    "stacks/spark-cu128-fi067.yaml": {
        "title": "CUDA 12.8 with FlashInfer 0.6.7", "base": "spark-cu128",
        "components": {"flashinfer": "0.6.7"}},
    "stacks/spark-cu130.yaml": {
        "title": "CUDA 13.0 stack (torch 2.9.1 cu130, vLLM 0.12)", "base": "spark-cu128-fi067",
        "components": {"cuda": "13.0.2", "torch": "2.9.1+cu130", "torch-cuda": "13.0", "triton": "3.5.0",
                       "flashinfer": "0.6.9", "vllm": "0.12.0"}},
    f"stacks/{CURRENT}.yaml": {
        "title": "CUDA 13.0 stack with vLLM 0.13", "base": "spark-cu130", "components": {"vllm": "0.13.0"}},
    f"campaigns/{CAMPAIGN}.yaml": {
        "title": "Qwen3-30B-A3B decode throughput on one DGX Spark", "model": "Qwen3-30B-A3B (MoE, 3B active)",
        "platform": PLATFORM, "stack": "spark-cu128",
        "goal": "Raise single-stream decode throughput of Qwen3-30B-A3B served by vLLM on a DGX Spark.",
        "metric": {"name": "output_throughput", "unit": "tok/s", "direction": "higher"},
        "baseline": "38.5 tok/s", "baseline_attempt": A_BASE, "target": "60 tok/s",
        "started": "2026-03-02", "catalogs": ["blackwell"], "status": "active"},
    # -- blockers of the campaign: a chain cuda-12.8 <- {triton, flashinfer <- marlin}, and two roots alone
    f"blockers/{ROOT_CUDA}.yaml": {
        "title": "The CUDA 12.8 toolkit predates sm_121 (GB10)", "component": "cuda",
        "applies_when": {"compute_capability": ">=12.1,<12.2"},
        "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=13.0"},
                      "note": "The campaign's reading: the CUDA 13 upgrade made the JIT paths work."}],
        "status": "fixed",
        "description": "nvcc, ptxas and the JITs built on CUDA 12.8 know sm_120 but not sm_121."},
    f"blockers/{B_TRITON}.yaml": {
        "title": "Triton's ptxas does not know sm_121a", "caused_by": [ROOT_CUDA], "component": "triton",
        "workaround": "TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas"},
    f"blockers/{B_FI}.yaml": {
        "title": "FlashInfer 0.6.7's JIT refuses SM 12.x under nvcc 12.8", "caused_by": [ROOT_CUDA],
        "component": "flashinfer"},
    f"blockers/{B_MARLIN}.yaml": {
        "title": "FP8 MoE falls back to Marlin without the FlashInfer CUTLASS MoE kernels",
        "caused_by": [B_FI], "component": "vllm"},
    f"blockers/{ROOT_DG}.yaml": {
        "title": "DeepGEMM cubins are invalid on GB10", "workaround": "VLLM_USE_DEEP_GEMM=0"},
    f"blockers/{ROOT_MEM}.yaml": {
        "title": "KV-cache sizing oversubscribes GB10's unified memory",
        "workaround": "--gpu-memory-utilization 0.75"},
    # -- attempts
    f"attempts/{A_BASE}.yaml": attempt("2026-03-02", "Baseline on the shipped CUDA 12.8 stack", "spark-cu128",
                                       "baseline", "Serve BF16 weights with defaults.", metrics=tok(38.5)),
    f"attempts/{A_TRITON}.yaml": attempt(
        "2026-03-03", "Triton fused-MoE kernels", "spark-cu128", "failed", "Use Triton's fused MoE kernels.",
        baseline=A_BASE, error=f"ptxas fatal   : {TRITON_SIG}", blocked_by=[B_TRITON]),
    f"attempts/{A_FI}.yaml": attempt(
        "2026-03-05", "FlashInfer 0.6.7 CUTLASS MoE", "spark-cu128-fi067", "failed",
        "Move FlashInfer to 0.6.7 for its CUTLASS MoE backend.", baseline=A_BASE,
        error=f"RuntimeError: {FI_SIG}", blocked_by=[B_FI]),
    f"attempts/{A_MARLIN}.yaml": attempt(
        "2026-03-06", "FP8 MoE checkpoint", "spark-cu128-fi067", "regressed", "Serve the FP8 checkpoint.",
        baseline=A_BASE, metrics=tok(29.8), blocked_by=[B_MARLIN]),
    f"attempts/{A_NVCC}.yaml": attempt(
        "2026-03-07", "Build vLLM from source for sm_121a", "spark-cu128", "failed",
        "Build vLLM's kernels for sm_121a with the 12.8 toolkit.", baseline=A_BASE,
        error="nvcc fatal   : Unsupported gpu architecture 'compute_121a'", blocked_by=[ROOT_CUDA]),
    f"attempts/{A_DG}.yaml": attempt(
        "2026-03-09", "DeepGEMM FP8 linear layers", "spark-cu128", "failed", "Enable DeepGEMM for FP8 GEMMs.",
        baseline=A_BASE, error=f"RuntimeError: CUDA driver error: {DG_SIG}", blocked_by=[ROOT_DG]),
    f"attempts/{A_MEM}.yaml": attempt(
        "2026-03-12", "gpu-memory-utilization 0.95", "spark-cu128", "failed", "Give the KV cache 95% of memory.",
        baseline=A_BASE, error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB",
        blocked_by=[ROOT_MEM]),
    f"attempts/{A_BASE13}.yaml": attempt(
        "2026-03-16", "Baseline re-measured on CUDA 13", "spark-cu130", "improved", "Same flags as the baseline.",
        baseline=A_BASE, metrics=tok(44.0)),
    f"attempts/{A_FI13}.yaml": attempt(
        "2026-03-17", "FlashInfer CUTLASS MoE on CUDA 13", "spark-cu130", "improved",
        "Retry the CUTLASS MoE backend after the upgrade.", baseline=A_BASE, retry_of=A_FI, metrics=tok(52.3)),
    f"attempts/{A_DG13}.yaml": attempt(
        "2026-03-19", "DeepGEMM on CUDA 13", "spark-cu130", "failed", "Retry DeepGEMM after the upgrade.",
        baseline=A_BASE13, retry_of=A_DG, error=f"RuntimeError: CUDA driver error: {DG_SIG}",
        blocked_by=[ROOT_DG]),
    f"attempts/{A_NVFP4}.yaml": attempt(
        "2026-03-20", "NVFP4 checkpoint through Marlin", "spark-cu130", "improved",
        "Serve the NVFP4 checkpoint; vLLM picks the Marlin weight-only path.", baseline=A_BASE13,
        metrics=tok(58.7), blocked_by=["vllm-marlin-fp4-fallback-on-sm120"],
        notes=f"vLLM logged: {MARLIN_WARNING}"),
    f"attempts/{A_DRAFT}.yaml": attempt(
        "2026-03-21", "DeepGEMM again (imported, unreviewed)", "spark-cu130", "failed", "DeepGEMM once more.",
        error=f"RuntimeError: CUDA driver error: {DG_SIG}", blocked_by=[ROOT_DG], status="draft"),
    f"attempts/{A_TRITON13}.yaml": attempt(
        "2026-03-23", "Triton attention backend on CUDA 13", CURRENT, "failed",
        "Use the Triton attention backend now that CUDA 13 is in.", baseline=A_NVFP4,
        error=f"ptxas fatal   : {TRITON_SIG}"),
    f"attempts/{A_MEM13}.yaml": attempt(
        "2026-03-25", "gpu-memory-utilization 0.90 on CUDA 13", CURRENT, "failed",
        "Give the KV cache 90% of memory.", baseline=A_NVFP4,
        error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", blocked_by=[ROOT_MEM]),
    f"attempts/{A_LAST}.yaml": attempt(
        "2026-03-27", "MTP speculative decoding", CURRENT, "improved", "Qwen3's MTP head as the drafter.",
        baseline=A_NVFP4, metrics=tok(63.4)),
    # -- decisions
    "decisions/2026-03-14-upgrade-to-cuda-13.yaml": {
        "title": "Move the Spark's software stack to CUDA 13", "status": "accepted", "date": "2026-03-14",
        "deciders": ["perf team"], "campaign": CAMPAIGN,
        "context": "Three JIT paths failed on sm_121 under the 12.8 toolkit.",
        "considered_options": [
            {"title": "Stay on CUDA 12.8", "cons": ["Triton, FlashInfer and nvcc keep failing"],
             "evidence": [A_TRITON, A_FI]},
            {"title": "Upgrade to CUDA 13", "pros": ["sm_121 support in the toolkit"],
             "evidence": [A_TRITON, A_FI, A_NVCC, A_FI13]}],
        "outcome": {"chosen": "Upgrade to CUDA 13", "rationale": "The failures share the old toolkit."},
        "resolves": [ROOT_CUDA],
        "stack_change": {"from": "spark-cu128-fi067", "to": "spark-cu130"}},
    "decisions/2026-03-22-serve-nvfp4-through-marlin.yaml": {
        "title": "Serve the NVFP4 checkpoint through Marlin", "status": "accepted", "date": "2026-03-22",
        "deciders": ["perf team"], "campaign": CAMPAIGN,
        "context": "Native FP4 MoE kernels are not available on GB10; Marlin's weight-only path is.",
        "considered_options": [
            {"title": "FP8 checkpoint", "evidence": [A_MARLIN]},
            {"title": "NVFP4 through Marlin", "evidence": [A_NVFP4]}],
        "outcome": {"chosen": "NVFP4 through Marlin"}},
}


# -- an oracle over the catalog's data files (not kb's code) -----------------------------------

def catalog() -> dict[str, dict[str, Any]]:
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(CATALOG.glob("*.yaml"))}


def sig_matches(sig: str, text: str) -> bool:
    text = " ".join(text.split())
    if len(sig) > 2 and sig.startswith("/") and sig.endswith("/"):
        return re.search(sig[1:-1], text) is not None
    return " ".join(sig.split()) in text


def catalog_matches(text: str) -> set[str]:
    return {bid for bid, rec in catalog().items() if any(sig_matches(s, text) for s in rec.get("signatures") or [])}


def catalog_roots() -> set[str]:
    return {bid for bid, rec in catalog().items() if not rec.get("caused_by")}


MET_CATALOG_ROOTS = {TOOLCHAIN, BINARIES, ALLOWLIST}


# -- running kb ---------------------------------------------------------------------------------

@pytest.fixture
def records(write_tree: Callable[[dict[str, Any]], Path]) -> Path:
    return write_tree(FILES)


def kb(root: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--records", str(root), *args])


@pytest.fixture
def out(records: Path) -> dict[str, Any]:
    r = kb(records, "roots", "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def rows(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in out["roots"]}


# -- the test data itself ---------------------------------------------------------------------

def test_the_errors_match_exactly_the_intended_catalog_blockers():
    """Guards the fixture, not kb: each error is one catalog signature and nothing else."""
    errors = {rel: rec.get("error") for rel, rec in FILES.items() if rel.startswith("attempts/")}
    got = {Path(rel).stem: catalog_matches(e) for rel, e in errors.items() if e}
    assert got == {
        A_TRITON: {"triton-ptxas-rejects-sm121a"},
        A_FI: {"flashinfer-jit-sm12x-needs-cuda-12.9"},
        A_NVCC: set(),
        A_DG: {"vllm-deepgemm-invalid-image-on-sm121"},
        A_MEM: set(),
        A_DG13: {"vllm-deepgemm-invalid-image-on-sm121"},
        A_DRAFT: {"vllm-deepgemm-invalid-image-on-sm121"},
        A_TRITON13: {"triton-ptxas-rejects-sm121a"},
        A_MEM13: set(),
    }
    cat = catalog()
    assert cat["triton-ptxas-rejects-sm121a"]["caused_by"] == [TOOLCHAIN]
    assert cat["flashinfer-jit-sm12x-needs-cuda-12.9"]["caused_by"] == [TOOLCHAIN]
    assert cat["vllm-deepgemm-invalid-image-on-sm121"]["caused_by"] == [BINARIES]
    assert cat["vllm-marlin-fp4-fallback-on-sm120"]["caused_by"] == [ALLOWLIST]
    assert catalog_matches(MARLIN_WARNING) == {"vllm-marlin-fp4-fallback-on-sm120"}
    assert MET_CATALOG_ROOTS <= catalog_roots()
    assert not any(cat[r].get("fixed_by") or cat[r].get("applies_when") for r in MET_CATALOG_ROOTS)


def test_the_records_check_clean(records):
    r = kb(records, "check")
    assert r.exit_code == 0, r.output


# -- kb roots -------------------------------------------------------------------------------------

def test_json_header_names_the_campaign_and_its_current_stack(out):
    # the campaign record says spark-cu128; the latest attempt by date ran on spark-cu130-vllm013
    assert out["campaign"] == CAMPAIGN
    assert out["current_stack"] == CURRENT


def test_rows_ranked_by_history_then_blocked_now_then_id(out):
    ids = [row["id"] for row in out["roots"]]
    # 4 attempts; 3 (3 blocked now); 2 (2 now) x2 by id; 1
    assert ids[:5] == [ROOT_CUDA, TOOLCHAIN, BINARIES, ROOT_MEM, ALLOWLIST]
    assert [len(row["attempts"]) for row in out["roots"][:5]] == [4, 3, 2, 2, 1]


def test_attempts_counted_through_chains_and_signatures_reviewed_only(out):
    r = rows(out)
    assert r[ROOT_CUDA]["attempts"] == sorted([A_TRITON, A_FI, A_MARLIN, A_NVCC])
    assert r[TOOLCHAIN]["attempts"] == sorted([A_TRITON, A_FI, A_TRITON13])
    assert r[BINARIES]["attempts"] == sorted([A_DG, A_DG13])  # not the draft
    assert r[ROOT_MEM]["attempts"] == sorted([A_MEM, A_MEM13])
    assert r[ALLOWLIST]["attempts"] == [A_NVFP4]
    assert all(A_DRAFT not in row["attempts"] for row in out["roots"])


def test_sources(out):
    r = rows(out)
    assert r[ROOT_CUDA]["source"] == "campaign"
    assert r[ROOT_MEM]["source"] == "campaign"
    for cid in MET_CATALOG_ROOTS:
        assert r[cid]["source"] == "catalog blackwell"


def test_current_and_now(out):
    r = rows(out)
    # resolved by cuda>=13.0 on spark-cu130-vllm013 (cuda 13.0.2)
    assert r[ROOT_CUDA]["now"] == "resolved"
    assert r[ROOT_CUDA]["current"] == []
    # the catalog root has no fix: every failed attempt that reached it still counts
    assert r[TOOLCHAIN]["now"] == "stands"
    assert r[TOOLCHAIN]["current"] == sorted([A_TRITON, A_FI, A_TRITON13])
    assert r[BINARIES]["now"] == "stands"
    assert r[BINARIES]["current"] == sorted([A_DG, A_DG13])
    assert r[ROOT_MEM]["now"] == "stands"
    assert r[ROOT_MEM]["current"] == sorted([A_MEM, A_MEM13])
    # reached only by an improved attempt: stands, but blocks nothing now
    assert r[ALLOWLIST]["now"] == "stands"
    assert r[ALLOWLIST]["current"] == []


def test_no_succeeded_attempt_is_blocked_now(out):
    for row in out["roots"]:
        assert not SUCCEEDED & set(row["current"]), row["id"]
    assert A_NVFP4 in rows(out)[ALLOWLIST]["attempts"]


def test_linked_by_names_the_matching_catalog_blocker(out):
    r = rows(out)
    assert r[TOOLCHAIN]["linked_by"] == {
        A_TRITON: "signature of triton-ptxas-rejects-sm121a",
        A_FI: "signature of flashinfer-jit-sm12x-needs-cuda-12.9",
        A_TRITON13: "signature of triton-ptxas-rejects-sm121a",
    }
    reviewed = {k: v for k, v in r[BINARIES]["linked_by"].items() if k != A_DRAFT}
    assert reviewed == {
        A_DG: "signature of vllm-deepgemm-invalid-image-on-sm121",
        A_DG13: "signature of vllm-deepgemm-invalid-image-on-sm121",
    }
    # reached through blocked_by (a catalog blocker named directly), not by signature
    assert r[ALLOWLIST]["linked_by"] == {}
    assert r[ROOT_CUDA]["linked_by"] == {}
    assert r[ROOT_MEM]["linked_by"] == {}


def test_campaign_root_wholly_matched_by_the_catalog_is_recorded_as_its_row(out):
    r = rows(out)
    assert r[BINARIES]["also_recorded_as"] == [ROOT_DG]
    # shown as the catalog row, not as a row of its own
    assert ROOT_DG not in r
    # a campaign root with an attempt the catalog does not reach (03-06, 03-07) is its own row
    assert r[TOOLCHAIN]["also_recorded_as"] == []
    assert ROOT_CUDA in r


def test_dispute_campaign_fix_by_upgrade_against_standing_catalog_root(out):
    r = rows(out)
    assert r[ROOT_CUDA]["disputes"] == [{
        "record": TOOLCHAIN,
        "title": catalog()[TOOLCHAIN]["title"],
        "source": "catalog blackwell",
        "claim": f"stands on {CURRENT}",
    }]
    assert r[TOOLCHAIN]["disputes"] == [{
        "record": ROOT_CUDA,
        "title": FILES[f"blockers/{ROOT_CUDA}.yaml"]["title"],
        "source": "campaign",
        "claim": "fixed_by cuda>=13.0",
    }]
    # both stand: no dispute
    assert r[BINARIES]["disputes"] == []
    assert r[ROOT_MEM]["disputes"] == []


def test_fixes(out):
    r = rows(out)
    assert r[ROOT_CUDA]["fixes"] == [{"blocker": ROOT_CUDA, "kind": "enables", "requires": {"cuda": ">=13.0"}}]
    assert {"blocker": "flashinfer-jit-sm12x-needs-cuda-12.9", "kind": "enables",
            "requires": {"cuda": ">=12.9"}} in r[TOOLCHAIN]["fixes"]
    assert r[ROOT_MEM]["fixes"] == []


def test_not_met_lists_the_other_catalog_roots(out):
    expected = sorted(catalog_roots() - MET_CATALOG_ROOTS)
    assert len(expected) == 4
    assert sorted(out["not_met"]) == expected
    assert not set(out["not_met"]) & {row["id"] for row in out["roots"]}


def test_text_output_order_and_footer(records):
    r = kb(records, "roots")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    heads = [m.group(1) for m in (re.match(r"^\d+\.\s+(\S+)", ln) for ln in lines) if m]
    assert heads[:5] == [ROOT_CUDA, TOOLCHAIN, BINARIES, ROOT_MEM, ALLOWLIST]
    assert ROOT_DG not in heads
    n = len(catalog_roots() - MET_CATALOG_ROOTS)
    footer = f"{n} catalog root causes met no attempt here; 'kb roots --catalog' lists them"
    assert [ln for ln in lines if "catalog root causes met no attempt" in ln] == [footer]
    assert lines[-1].strip() == footer


def test_now_ranks_by_blocked_now_first(records):
    r = kb(records, "roots", "--now", "--json")
    assert r.exit_code == 0, r.output
    ids = [row["id"] for row in json.loads(r.stdout)["roots"]]
    # blocked now 3; 2 and 2 (history 2 each, by id); then 0 now: history 4 before 1
    assert ids[:5] == [TOOLCHAIN, BINARIES, ROOT_MEM, ROOT_CUDA, ALLOWLIST]


def test_linked_by_keys_are_attempts_of_the_row(out):
    """linked_by explains how the row's attempts were reached, reviewed or draft (drafts are
    counted apart, under "drafts"; how they were linked is shown too). Written first as a subset
    of the reviewed attempts; kb's documented reading (kb.queries.roots.RootCause) covers both."""
    for row in out["roots"]:
        assert set(row["linked_by"]) <= set(row["attempts"]) | set(row["drafts"]), row["id"]
    binaries = rows(out)["binaries-not-built-for-sm120"]
    assert binaries["linked_by"].get(A_DRAFT) == "signature of vllm-deepgemm-invalid-image-on-sm121"


def test_improved_attempt_whose_error_matches_a_signature_reaches_the_catalog_root(write_tree):
    """Written first as: a success whose error text matches a catalog signature counts for that
    root. kb's reading: roots count attempts that were blocked; a success printing a standing
    blocker's error is a contradiction, which kb check flags (success-error-matches-standing-blocker)."""
    files = dict(FILES)
    rec = dict(files[f"attempts/{A_NVFP4}.yaml"])
    del rec["blocked_by"], rec["notes"]
    rec["error"] = MARLIN_WARNING
    files[f"attempts/{A_NVFP4}.yaml"] = rec
    root = write_tree(files)
    r = kb(root, "roots", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert ALLOWLIST not in rows(out) and ALLOWLIST in out["not_met"]
    check = kb(root, "check")
    assert check.exit_code == 0, check.output
    hits = [ln for ln in check.stdout.splitlines() if ln.startswith(f"records/attempts/{A_NVFP4}.yaml:")]
    assert len(hits) == 1 and ": error: warning: outcome is improved, yet its error matches blocker " \
        "vllm-marlin-fp4-fallback-on-sm120 (catalog blackwell" in hits[0], check.stdout
