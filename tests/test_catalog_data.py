"""Structural checks of the Blackwell blocker catalog shipped under kb/catalogs/blackwell.

These tests read the YAML files with PyYAML only (no kb models), so they hold while kb's models
learn to read catalogs. They check what a catalog must promise: the seven root causes exist, every
``caused_by`` resolves, every version constraint is a PEP 440 specifier set, every record carries its
checked date and sources, no two blockers claim the same error text, and ten real upstream error
lines each land on exactly one record.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

CATALOG = Path(__file__).resolve().parents[1] / "kb" / "catalogs" / "blackwell"
BLOCKERS = CATALOG / "blockers"

ROOT_IDS = {
    "arch-allowlist-omits-sm12x",
    "binaries-not-built-for-sm120",
    "toolchain-too-old-for-sm12x",
    "sm12x-hardware-gap",
    "pcie-only-topology",
    "wrong-results-from-kernels",
    "flag-misuse",
}
TOP_KEYS = {
    "title", "component", "caused_by", "applies_when", "flags", "fixed_by", "signatures",
    "upstream", "status", "checked", "description", "source", "verified", "inferred_signatures",
}
FIX_KINDS = {"enables", "disables", "workaround", "build_option", "hardware_gap"}
FIX_KEYS = {"kind", "requires", "release", "pr", "reverted", "flag", "advice", "note"}
REF = re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<num>\d+)$")
ID = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


def _load() -> dict[str, dict]:
    records = {}
    for path in sorted(BLOCKERS.glob("*.yaml")):
        with path.open(encoding="utf-8") as fh:
            records[path.stem] = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return records


RECORDS = _load()
ISSUES = {k: v for k, v in RECORDS.items() if k not in ROOT_IDS}


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _matches(signature: str, line: str) -> bool:
    """Literal substring after collapsing whitespace; ``/regex/`` is searched with re.search."""
    line = _collapse(line)
    if len(signature) > 2 and signature.startswith("/") and signature.endswith("/"):
        return re.search(signature[1:-1], line) is not None
    return _collapse(signature) in line


def _matching_ids(line: str) -> list[str]:
    return sorted(
        bid for bid, rec in RECORDS.items()
        if any(_matches(sig, line) for sig in rec.get("signatures") or [])
    )


def test_catalog_has_all_roots_and_at_least_32_issue_blockers():
    assert ROOT_IDS <= set(RECORDS), sorted(ROOT_IDS - set(RECORDS))
    assert len(ISSUES) >= 32, len(ISSUES)
    for rid in ROOT_IDS:
        rec = RECORDS[rid]
        assert "caused_by" not in rec, rid
        assert "component" not in rec, rid


def test_readme_names_every_root_and_the_check_date():
    text = (CATALOG / "CATALOG.md").read_text(encoding="utf-8")
    for rid in ROOT_IDS:
        assert f"`{rid}`" in text, rid
    assert "2026-11-30" in text


@pytest.mark.parametrize("bid", sorted(RECORDS))
def test_record_keys_ids_and_types(bid):
    rec = RECORDS[bid]
    assert ID.match(bid), bid
    assert isinstance(rec, dict), bid
    assert set(rec) <= TOP_KEYS, sorted(set(rec) - TOP_KEYS)
    assert isinstance(rec["title"], str) and "\n" not in rec["title"] and rec["title"].strip()
    assert rec["status"] in {"open", "fixed", "wontfix"}, rec["status"]
    assert isinstance(rec["checked"], dt.date), rec["checked"]
    assert dt.date(2026, 11, 30) <= rec["checked"] <= dt.date(2026, 12, 2), rec["checked"]
    if rec["checked"] >= dt.date(2026, 12, 2):  # the audit: what each check verified is written down
        assert isinstance(rec.get("verified"), list) and rec["verified"], bid
        assert all(isinstance(v, str) and v.strip() for v in rec["verified"]), bid
    for sig in rec.get("inferred_signatures") or []:
        assert sig in (rec.get("signatures") or []), (bid, sig)
    assert isinstance(rec["description"], str) and len(rec["description"].split()) >= 15


@pytest.mark.parametrize("bid", sorted(ISSUES))
def test_issue_blockers_have_component_cause_and_signature(bid):
    rec = ISSUES[bid]
    assert isinstance(rec.get("component"), str) and rec["component"], bid
    causes = rec.get("caused_by")
    assert isinstance(causes, list) and 1 <= len(causes) <= 2, causes
    for cause in causes:
        assert cause in RECORDS, f"{bid}: caused_by names unknown id {cause!r}"
        assert cause in ROOT_IDS, f"{bid}: caused_by {cause!r} is not a root cause"
    sigs = rec.get("signatures")
    # an empty list is written on purpose: a slowdown, a wrong result or a generic crash has no
    # error line of its own (CATALOG.md: generic lines are never signatures)
    assert isinstance(sigs, list), bid
    for sig in sigs:
        assert isinstance(sig, str) and len(sig) >= 10, (bid, sig)
        if sig.startswith("/") and sig.endswith("/"):
            re.compile(sig[1:-1])


@pytest.mark.parametrize("bid", sorted(RECORDS))
def test_constraints_are_pep440_specifier_sets(bid):
    rec = RECORDS[bid]
    for comp, spec in (rec.get("applies_when") or {}).items():
        assert isinstance(spec, str), (bid, comp, spec)
        if comp == "interconnect":
            continue
        SpecifierSet(spec)  # raises InvalidSpecifier when malformed
    for fix in rec.get("fixed_by") or []:
        for comp, spec in (fix.get("requires") or {}).items():
            assert isinstance(spec, str), (bid, comp, spec)
            SpecifierSet(spec)


@pytest.mark.parametrize("bid", sorted(RECORDS))
def test_component_names_are_canonical(bid):
    rec = RECORDS[bid]
    names = [rec["component"]] if "component" in rec else []
    names += [k for k in rec.get("applies_when") or {} if k not in {"compute_capability", "interconnect", "gpu_count", "tensor_parallel_size"}]
    names += [k for fix in rec.get("fixed_by") or [] for k in fix.get("requires") or {}]
    for name in names:
        assert name == canonicalize_name(name), (bid, name)


@pytest.mark.parametrize("bid", sorted(RECORDS))
def test_fixes_have_a_kind_and_what_that_kind_needs(bid):
    for fix in RECORDS[bid].get("fixed_by") or []:
        assert set(fix) <= FIX_KEYS, sorted(set(fix) - FIX_KEYS)
        kind = fix["kind"]
        assert kind in FIX_KINDS, kind
        if kind in {"workaround", "build_option"}:
            assert isinstance(fix.get("flag"), str) and fix["flag"], bid
        if kind == "hardware_gap":
            assert "requires" not in fix, bid
            assert "switch backend" in fix.get("advice", ""), bid
        if "pr" in fix:
            assert REF.match(fix["pr"]), fix["pr"]
            assert fix["pr"] in RECORDS[bid]["upstream"], (bid, fix["pr"])
        if "reverted" in fix:
            assert isinstance(fix["reverted"], bool)


@pytest.mark.parametrize("bid", sorted(RECORDS))
def test_every_upstream_ref_has_a_source_with_url_and_summary(bid):
    rec = RECORDS[bid]
    sources = rec["source"]
    assert sources, bid
    urls = []
    for src in sources:
        assert src["url"].startswith("https://github.com/"), src["url"]
        assert isinstance(src["summary"], str) and len(src["summary"].split()) >= 8
        urls.append(src["url"])
    assert rec["upstream"], bid
    for ref in rec["upstream"]:
        m = REF.match(ref)
        assert m, ref
        expected = re.compile(
            rf"^https://github\.com/{re.escape(m['repo'])}/(issues|pull)/{m['num']}$"
        )
        assert any(expected.match(u) for u in urls), f"{bid}: no source for {ref}"
    assert len(urls) == len(rec["upstream"]), bid


def test_signatures_of_distinct_blockers_do_not_overlap():
    owners = [(bid, sig) for bid, rec in RECORDS.items() for sig in rec.get("signatures") or []]
    for bid, sig in owners:
        for other, osig in owners:
            if other == bid:
                continue
            assert _collapse(sig) not in _collapse(osig), (bid, sig, other, osig)


def test_required_facts_of_the_key_blockers():
    fusion = RECORDS["flashinfer-allreduce-fusion-sm12x-gate"]
    enables = [f for f in fusion["fixed_by"] if f["kind"] == "enables"]
    assert enables[0]["requires"] == {"flashinfer": ">=0.6.17", "cuda": ">=12.9"}
    assert enables[0]["pr"] == "flashinfer-ai/flashinfer#3903"
    # no upper bound on flashinfer: 0.6.17 alone (on a CUDA 12.8 toolkit) does not fix it
    assert fusion["applies_when"] == {"compute_capability": ">=12.0,<13"}

    symm = RECORDS["sglang-symm-mem-size-table-keyerror-12"]
    assert [f["kind"] for f in symm["fixed_by"]] == ["disables"]
    assert "KeyError: 12" in symm["signatures"]

    jit = RECORDS["flashinfer-jit-sm12x-needs-cuda-12.9"]
    assert jit["applies_when"]["flashinfer"] == ">=0.6.7"
    assert jit["applies_when"]["cuda"] == "<12.9"
    assert "0.6.4" not in SpecifierSet(jit["applies_when"]["flashinfer"])

    cudart = RECORDS["sgl-kernel-preloads-libcudart-12-on-cuda-13"]
    assert cudart["applies_when"] == {"cuda": ">=13.0"}
    # only builds with an arch list naming old targets: a flag condition, not every CUDA 13 stack
    assert RECORDS["cuda13-drops-pre-turing-arch-targets"]["flags"] == ["TORCH_CUDA_ARCH_LIST", "CMAKE_CUDA_ARCHITECTURES"]

    ptxas = RECORDS["triton-ptxas-rejects-sm121a"]
    assert ptxas["fixed_by"][0]["kind"] == "workaround"
    assert ptxas["fixed_by"][0]["flag"].startswith("TRITON_PTXAS_PATH=")

    ext = RECORDS["torch-cpp-extension-unknown-cuda-arch"]
    assert ext["fixed_by"][0] == {**ext["fixed_by"][0], "kind": "build_option",
                                  "flag": "TORCH_CUDA_ARCH_LIST=12.0"}

    gemm = RECORDS["deepgemm-sm100-only-kernels-on-sm12x"]
    assert gemm["fixed_by"][0]["kind"] == "hardware_gap"
    assert gemm["fixed_by"][0]["advice"].startswith("switch backend")
    assert gemm["caused_by"] == ["sm12x-hardware-gap"]

    hyper = RECORDS["deepgemm-hyperconnection-no-arch-12-in-older-revisions"]
    # the fixing PR is known, the release that ships it is not (a nightly build number is no release)
    assert hyper["fixed_by"][0]["kind"] == "enables"
    assert "requires" not in hyper["fixed_by"][0] and hyper["fixed_by"][0]["pr"] == "vllm-project/vllm#52035"


# Ten error lines as printed in the upstream threads (paths and prefixes kept), with the record
# each one must name.
UPSTREAM_LINES = [
    ("Exception: Capture cuda graph failed: No supported CUDA architectures found for major "
     "versions [9, 10].", "flashinfer-allreduce-fusion-sm12x-gate"),
    ("ValueError: Unknown CUDA arch (10.1) or GPU not supported",
     "torch-cpp-extension-unknown-cuda-arch"),
    ("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
     "triton-ptxas-rejects-sm121a"),
    ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
     "PyTorch installation.", "torch-cu126-wheels-lack-sm120"),
    ("RuntimeError: Assertion error (/workspace/.deps/deepgemm-src/csrc/apis/layout.hpp:60): "
     "Unknown SF transformation", "vllm-deepgemm-sm120-pin-mismatch"),
    ("tvm.error.InternalError: Assertion error (/deepgemm/csrc/apis/hyperconnection.hpp:56): "
     "Unsupported architecture", "deepgemm-hyperconnection-no-arch-12-in-older-revisions"),
    ("(EngineCore_DP0 pid=79) ERROR 09-15 21:45:00 [core.py:719] NotImplementedError: No compiled "
     "get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA device capability: 120. Re",
     "vllm-cutlass-fp8-moe-no-sm120"),
    ("test:259034:259124 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856",
     "nccl-2.25-shared-memory-exceeds-rtx5090"),
    ("ptxas /tmp/tmpxft_00018a8b_00000000-10_quantization.compute_120.ptx, line 15870; error   : "
     "Instruction 'cvt with .e2m1x2' not supported on .target 'sm_120'",
     "flashinfer-fp4-cvt-needs-arch-suffix"),
    ("    raise RuntimeError(\"FlashInfer requires GPUs with sm75 or higher\")",
     "flashinfer-jit-sm12x-needs-cuda-12.9"),
]


def test_table_has_ten_distinct_lines_and_ids():
    assert len({line for line, _ in UPSTREAM_LINES}) == 10
    assert len({bid for _, bid in UPSTREAM_LINES}) == 10


@pytest.mark.parametrize(("line", "expected"), UPSTREAM_LINES)
def test_upstream_error_line_names_exactly_one_blocker(line, expected):
    assert _matching_ids(line) == [expected]


def test_campaign_symm_mem_line_names_the_keyerror_blocker():
    # The line as the campaign's own session log printed it (samples/claude-campaign.jsonl).
    line = ("self.max_size = TORCH_SYMM_MEM_ALL_REDUCE_MAX_SIZES[self.device_capability]"
            "[self.world_size] KeyError: 12")
    assert _matching_ids(line) == ["sglang-symm-mem-size-table-keyerror-12"]


def test_generic_cuda_error_matches_no_blocker():
    # A bare "no kernel image" says nothing about which package lacks sm_120: no record may claim it.
    line = ("RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert _matching_ids(line) == []
