"""Blind tests of three promises (written from the spec, not from kb's code):

1. `kb roots --json` / `kb why --json` link a failed attempt to a catalog root cause through a
   catalog blocker whose signature its error matches only when that blocker could apply to it
   (applies_when on the campaign's platform and the attempt's stack, and the blocker's component).
2. `kb check`'s blocked-where-fixed warning names why a blocker with causes is resolved:
   "(its causes do not apply here)", "(its causes are resolved or do not apply here)",
   "(its causes are resolved)".
3. `kb match --file` reads UTF-8 (BOM or not), UTF-16 (LE/BE with BOM) and files with NUL/control
   bytes, prints no control characters but newline/tab, clips the headline to 300 characters, and
   matches regex signatures line by line within the first 2,000 characters of a line.

Signatures, components and applies_when bounds are copied from kb/catalogs/blackwell/blockers/.
"""

from __future__ import annotations

import json
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kb.cli import cli

# --- platforms ---------------------------------------------------------------------------------

A100 = {"title": "8x A100", "gpu": "A100", "gpu_count": 8, "compute_capability": "8.0", "interconnect": "NVLink"}
H100 = {"title": "8x H100", "gpu": "H100", "gpu_count": 8, "compute_capability": "9.0", "interconnect": "NVLink"}
B200 = {"title": "8x B200", "gpu": "B200", "gpu_count": 8, "compute_capability": "10.0", "interconnect": "NVLink"}
RTX = {"title": "8x RTX PRO 6000", "gpu": "RTX PRO 6000", "gpu_count": 8, "compute_capability": "12.0",
       "interconnect": "PCIe Gen5"}
GB10 = {"title": "DGX Spark", "gpu": "GB10", "gpu_count": 1, "compute_capability": "12.1",
        "interconnect": "NVLink-C2C"}
PLATFORMS = {"A100": A100, "H100": H100, "B200": B200, "RTX": RTX, "GB10": GB10}

# --- catalog signatures (copied verbatim from kb/catalogs/blackwell/blockers/) -------------------

FUSION_GATE = "No supported CUDA architectures found for major versions [9, 10]"  # flashinfer, cc>=12.0,<13
JIT_NEEDS_129 = "SM 12.x requires CUDA >= 12.9"  # flashinfer, cc 12.x, flashinfer>=0.6.7, cuda<12.9
PTXAS_121A = "Value 'sm_121a' is not defined for option 'gpu-name'"  # triton, cc>=12.1,<12.2
PTXAS_120 = "Value 'sm_120' is not defined for option 'gpu-name'"  # triton, cc>=12.0,<12.1, triton<3.3.0
# sgl-kernel, cuda>=13.0 (no cc); the catalog's signature is sgl-kernel's own line (a bare "libcudart.so.12:
# cannot open shared object file" names no library, so the 2026-12-02 audit dropped it)
SGL_COMMON_OPS = "[sgl_kernel] CRITICAL: Could not load any common_ops library!"
FLASHMLA = "Sparse Attention Forward Kernel is only supported on SM90a and SM100f architectures"  # 2 causes
BNB = "Could not find the bitsandbytes CUDA binary at /opt/venv/lib/bitsandbytes/libbitsandbytes_cuda128.so"
PCIE_AR = "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs"
KEYERROR = "KeyError: 12"  # sglang-symm-mem-size-table-keyerror-12
UNKNOWN_ARCH = "Unknown CUDA arch (12.0) or GPU not supported"  # regex signature of torch-cpp-extension-...

BASE = {"cuda": "12.8.1", "torch": "2.10.0+cu128", "sglang": "0.5.8"}
CONTROL_OK = {"\n", "\t"}


# --- helpers (shaped like tests/test_break_round.py's tree and kb) -------------------------------

def tree(platform: dict[str, Any], attempt: dict[str, Any], extra: dict[str, Any] | None = None,
         components: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "platforms/p.yaml": platform,
        "stacks/s.yaml": {"title": "s", "components": dict(BASE if components is None else components)},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p", "stack": "s", "catalogs": ["blackwell"],
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
        "attempts/2026-03-02-run.yaml": {"title": "the run", "date": "2026-03-02", "campaign": "c", "approach": "a",
                                         "stack": "s", **attempt},
        **(extra or {}),
    }


def kb(root: Path, *args: str, stdin: str | bytes | None = None) -> Any:
    return CliRunner().invoke(cli, ["--records", str(root), *args], input=stdin)


def roots_json(root: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    r = kb(root, "roots", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    return {row["id"]: row for row in data["roots"]}, data["not_met"]


def failed(error: str, **more: Any) -> dict[str, Any]:
    return {"outcome": "failed", "error": error, **more}


def assert_linked(root: Path, root_cause: str, attempt: str = "2026-03-02-run") -> dict[str, Any]:
    rows, not_met = roots_json(root)
    assert root_cause in rows, (root_cause, sorted(rows), not_met)
    assert attempt in rows[root_cause]["attempts"]
    assert root_cause not in not_met
    return rows[root_cause]


def assert_not_linked(root: Path, root_cause: str, attempt: str = "2026-03-02-run") -> None:
    rows, not_met = roots_json(root)
    if root_cause in rows:
        assert attempt not in rows[root_cause]["attempts"], rows[root_cause]
    else:
        assert root_cause in not_met, (sorted(rows), not_met)


# ================================ 1. roots / why: applicability ================================

@pytest.mark.parametrize("name,expect", [("A100", False), ("H100", False), ("B200", False), ("RTX", True),
                                         ("GB10", True)])
def test_fusion_gate_links_only_on_sm12x(write_tree, name, expect):
    root = write_tree(tree(PLATFORMS[name], failed(FUSION_GATE), components={**BASE, "flashinfer": "0.6.4"}))
    if expect:
        row = assert_linked(root, "arch-allowlist-omits-sm12x")
        assert row["met"] == ["flashinfer-allreduce-fusion-sm12x-gate"]
        assert row["linked_by"]["2026-03-02-run"] == "signature of flashinfer-allreduce-fusion-sm12x-gate"
    else:
        rows, not_met = roots_json(root)
        assert rows == {} and "arch-allowlist-omits-sm12x" in not_met


def test_catalog_blocker_whose_component_the_stack_lacks_does_not_link(write_tree):
    root = write_tree(tree(RTX, failed(FUSION_GATE)))  # no flashinfer in the stack
    rows, not_met = roots_json(root)
    assert "arch-allowlist-omits-sm12x" not in rows
    assert "arch-allowlist-omits-sm12x" in not_met


def test_component_inherited_through_a_base_chain_links(write_tree):
    extra = {"stacks/s0.yaml": {"title": "s0", "components": {**BASE, "flashinfer": "0.6.4"}},
             "stacks/s1.yaml": {"title": "s1", "base": "s0", "components": {"torch": "2.10.0+cu128"}},
             "stacks/s.yaml": {"title": "s", "base": "s1", "components": {"cuda": "12.8.1"}}}
    root = write_tree(tree(RTX, failed(FUSION_GATE), extra))
    assert_linked(root, "arch-allowlist-omits-sm12x")


@pytest.mark.parametrize("stack,expect", [
    ("s-fi069", True),    # flashinfer 0.6.9 over a 0.6.4 base, cuda 12.8.1: >=0.6.7 and <12.9 hold
    ("s-base", False),    # flashinfer 0.6.4: the lower bound >=0.6.7 fails
    ("s-cu13", False),    # cuda 13.0.1 on top of s-fi069: cuda<12.9 fails
])
def test_version_bounds_through_base_chain(write_tree, stack, expect):
    extra = {"stacks/s-base.yaml": {"title": "b", "components": {**BASE, "flashinfer": "0.6.4"}},
             "stacks/s-fi069.yaml": {"title": "f", "base": "s-base", "components": {"flashinfer": "0.6.9"}},
             "stacks/s-cu13.yaml": {"title": "g", "base": "s-fi069", "components": {"cuda": "13.0.1"}}}
    root = write_tree(tree(RTX, failed(JIT_NEEDS_129, stack=stack), extra))
    if expect:
        row = assert_linked(root, "toolchain-too-old-for-sm12x")
        assert row["met"] == ["flashinfer-jit-sm12x-needs-cuda-12.9"]
    else:
        assert_not_linked(root, "toolchain-too-old-for-sm12x")


def test_attempt_component_override_counts_for_bounds(write_tree):
    ok = write_tree(tree(RTX, failed(JIT_NEEDS_129, components={"flashinfer": "0.6.9"}),
                         components={**BASE, "flashinfer": "0.6.4"}))
    assert_linked(ok, "toolchain-too-old-for-sm12x")


def test_attempt_override_that_breaks_the_bound_unlinks(write_tree):
    root = write_tree(tree(RTX, failed(JIT_NEEDS_129, components={"cuda": "12.9.1"}),
                           components={**BASE, "flashinfer": "0.6.9"}))
    assert_not_linked(root, "toolchain-too-old-for-sm12x")


@pytest.mark.parametrize("plat,error,triton,expect", [
    ("GB10", PTXAS_121A, "3.5.0", True),
    ("RTX", PTXAS_121A, "3.5.0", False),   # cc 12.0 outside >=12.1,<12.2
    ("RTX", PTXAS_120, "3.2.0", True),
    ("RTX", PTXAS_120, "3.3.1", False),    # triton<3.3.0 fails
    ("GB10", PTXAS_120, "3.2.0", False),   # cc 12.1 outside >=12.0,<12.1
])
def test_triton_ptxas_bounds(write_tree, plat, error, triton, expect):
    root = write_tree(tree(PLATFORMS[plat], failed(f"triton.runtime.errors.PTXASError: ptxas fatal   : {error}"),
                           components={**BASE, "triton": triton}))
    (assert_linked if expect else assert_not_linked)(root, "toolchain-too-old-for-sm12x")


@pytest.mark.parametrize("cuda,with_sgl,expect", [("13.0.1", True, True), ("12.8.1", True, False),
                                                  ("13.0.1", False, False)])
def test_cuda13_blocker_without_capability_bound_on_b200(write_tree, cuda, with_sgl, expect):
    comps = {**BASE, "cuda": cuda}
    if with_sgl:
        comps["sgl-kernel"] = {"source": "built from source"}  # present, without a version
    root = write_tree(tree(B200, failed(f"ImportError: libcudart.so.12: cannot open shared object file\n{SGL_COMMON_OPS}"), components=comps))
    (assert_linked if expect else assert_not_linked)(root, "binaries-not-built-for-sm120")


def test_multi_cause_catalog_blocker_links_both_roots_only_where_it_applies(write_tree):
    comps = {**BASE, "flashmla": "1.0.0"}
    rtx = write_tree(tree(RTX, failed(FLASHMLA), components=comps))
    for rc in ("sm12x-hardware-gap", "binaries-not-built-for-sm120"):
        assert assert_linked(rtx, rc)["met"] == ["flashmla-kernels-sm90-sm100-only"]


def test_multi_cause_catalog_blocker_on_h100_leaves_both_roots_not_met(write_tree):
    root = write_tree(tree(H100, failed(FLASHMLA), components={**BASE, "flashmla": "1.0.0"}))
    rows, not_met = roots_json(root)
    assert rows == {}
    assert {"sm12x-hardware-gap", "binaries-not-built-for-sm120"} <= set(not_met)


@pytest.mark.parametrize("plat,bnb,expect", [("RTX", "0.45.0", True), ("RTX", "0.45.3", False),
                                             ("A100", "0.45.0", False)])
def test_regex_signature_with_version_bound(write_tree, plat, bnb, expect):
    root = write_tree(tree(PLATFORMS[plat], failed(BNB), components={**BASE, "bitsandbytes": bnb}))
    (assert_linked if expect else assert_not_linked)(root, "binaries-not-built-for-sm120")


@pytest.mark.parametrize("plat,expect", [("RTX", True), ("H100", False)])
def test_interconnect_condition(write_tree, plat, expect):
    root = write_tree(tree(PLATFORMS[plat], failed(PCIE_AR), components={**BASE, "vllm": "0.11.0"}))
    (assert_linked if expect else assert_not_linked)(root, "pcie-only-topology")


def test_only_the_attempt_it_applies_to_is_counted(write_tree):
    extra = {"stacks/s-new.yaml": {"title": "n", "base": "s", "components": {"triton": "3.3.1"}},
             "attempts/2026-03-03-again.yaml": {"title": "again", "date": "2026-03-03", "campaign": "c",
                                                "approach": "a", "stack": "s-new", **failed(PTXAS_120)}}
    root = write_tree(tree(RTX, failed(PTXAS_120), extra, components={**BASE, "triton": "3.2.0"}))
    row = assert_linked(root, "toolchain-too-old-for-sm12x")
    assert row["attempts"] == ["2026-03-02-run"]
    assert "2026-03-03-again" not in row["linked_by"]


def dispute_tree(platform, error, comps):
    return tree(platform, failed(error, blocked_by=["local"]), {
        "blockers/local.yaml": {"title": "local root", "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=13.0"}}]},
        "stacks/s13.yaml": {"title": "s13", "base": "s", "components": {"cuda": "13.0.1"}},
        "attempts/2026-03-05-later.yaml": {"title": "later", "date": "2026-03-05", "campaign": "c", "approach": "a",
                                           "stack": "s13", "outcome": "improved",
                                           "metrics": {"output_throughput": "90 tok/s"}}}, components=comps)


def why_disputes(root: Path) -> list[dict[str, Any]]:
    r = kb(root, "why", "2026-03-02-run", "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)["disputes"]


def test_why_dispute_from_a_catalog_root_that_applies(write_tree):
    root = write_tree(dispute_tree(RTX, FUSION_GATE, {**BASE, "flashinfer": "0.6.4"}))
    d = why_disputes(root)
    assert [(x["root"], x["record"], x["claim"]) for x in d] == [("local", "arch-allowlist-omits-sm12x", "stands on s13")]


@pytest.mark.parametrize("plat,comps", [
    (H100, {**BASE, "flashinfer": "0.6.4"}),    # capability outside the catalog blocker's bound
    (RTX, dict(BASE)),                          # the stack has no flashinfer
    (B200, {**BASE, "flashinfer": "0.6.4"}),
])
def test_no_why_dispute_from_a_catalog_root_the_attempt_cannot_meet(write_tree, plat, comps):
    root = write_tree(dispute_tree(plat, FUSION_GATE, comps))
    assert why_disputes(root) == []
    rows, not_met = roots_json(root)
    assert rows["local"]["disputes"] == [] and "arch-allowlist-omits-sm12x" in not_met


def test_no_dispute_when_version_bound_excludes_catalog_blocker(write_tree):
    # torch-cu126-wheels-lack-sm120 applies only with torch-cuda<12.8
    err = "UserWarning: NVIDIA RTX PRO 6000 with CUDA capability sm_120 is not compatible with the current PyTorch installation."
    root = write_tree(dispute_tree(RTX, err, {**BASE, "torch-cuda": "12.8"}))
    assert why_disputes(root) == []
    assert_not_linked(root, "binaries-not-built-for-sm120")


# ============================ 2. kb check: blocked-where-fixed wording ==========================

def check_out(root: Path) -> str:
    r = kb(root, "check")
    assert r.exit_code == 0, r.output
    return r.output


def blocked(platform, blockers, stack="s", comps=None, **att):
    files = tree(platform, failed("boom", blocked_by=["x"], stack=stack, **att), blockers, components=comps)
    if stack != "s":
        files[f"stacks/{stack}.yaml"] = {"title": stack, "base": "s", "components": {"torch": "2.10.0+cu128"}}
    return files


def test_check_causes_do_not_apply_on_h100(write_tree):
    root = write_tree(blocked(H100, {"blockers/x.yaml": {"title": "x", "caused_by": ["y"]},
                                     "blockers/y.yaml": {"title": "y", "applies_when": {"compute_capability": ">=12.0"}}},
                              stack="h100-stack"))
    out = check_out(root)
    assert "blocked_by names x, which stack h100-stack resolves (its causes do not apply here)" in out


def test_check_catalog_cause_for_gb10_does_not_apply_on_rtx(write_tree):
    root = write_tree(blocked(RTX, {"blockers/x.yaml": {"title": "x", "caused_by": ["triton-ptxas-rejects-sm121a"]}},
                              comps={**BASE, "triton": "3.5.0"}))
    assert "blocked_by names x, which stack s resolves (its causes do not apply here)" in check_out(root)


def test_check_two_causes_neither_applies(write_tree):
    root = write_tree(blocked(A100, {
        "blockers/x.yaml": {"title": "x", "caused_by": ["y", "z"]},
        "blockers/y.yaml": {"title": "y", "applies_when": {"compute_capability": ">=12.0,<13"}},
        "blockers/z.yaml": {"title": "z", "component": "deep-gemm"}}))  # the stack has no deep-gemm
    assert "blocked_by names x, which stack s resolves (its causes do not apply here)" in check_out(root)


def test_check_cause_version_bound_fails_through_base_override(write_tree):
    files = blocked(GB10, {"blockers/x.yaml": {"title": "x", "caused_by": ["y"]},
                           "blockers/y.yaml": {"title": "y", "component": "flashinfer",
                                               "applies_when": {"compute_capability": ">=12.1,<12.2",
                                                                "flashinfer": "<0.6.8"}}},
                    stack="gb10", comps={**BASE, "flashinfer": "0.6.4"})
    files["stacks/gb10.yaml"] = {"title": "gb10", "base": "s", "components": {"flashinfer": "0.6.9"}}
    assert "blocked_by names x, which stack gb10 resolves (its causes do not apply here)" in check_out(write_tree(files))


def test_check_causes_resolved_or_not_applying_on_b200(write_tree):
    root = write_tree(blocked(B200, {
        "blockers/x.yaml": {"title": "x", "caused_by": ["y", "z"]},
        "blockers/y.yaml": {"title": "y", "applies_when": {"compute_capability": ">=12.0"}},
        "blockers/z.yaml": {"title": "z", "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=12.8"}}]}}))
    assert "blocked_by names x, which stack s resolves (its causes are resolved or do not apply here)" in check_out(root)


def test_check_causes_all_resolved_on_gb10(write_tree):
    root = write_tree(blocked(GB10, {
        "blockers/x.yaml": {"title": "x", "caused_by": ["y", "z"]},
        "blockers/y.yaml": {"title": "y", "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=12.8"}}]},
        "blockers/z.yaml": {"title": "z", "fixed_by": [{"kind": "enables", "requires": {"torch": ">=2.9"}}]}}))
    out = check_out(root)
    assert "blocked_by names x, which stack s resolves (its causes are resolved)" in out
    assert "do not apply" not in out


def test_check_no_warning_when_a_cause_still_stands(write_tree):
    root = write_tree(blocked(RTX, {
        "blockers/x.yaml": {"title": "x", "caused_by": ["y", "z"]},
        "blockers/y.yaml": {"title": "y", "applies_when": {"compute_capability": ">=12.0"}},
        "blockers/z.yaml": {"title": "z", "fixed_by": [{"kind": "enables", "requires": {"cuda": ">=12.8"}}]}}))
    assert "which stack s resolves" not in check_out(root)


def test_check_nested_chain_cause_not_applying(write_tree):
    # x -> y -> z; z cannot apply on H100, so y and then x are resolved under s.
    root = write_tree(blocked(H100, {
        "blockers/x.yaml": {"title": "x", "caused_by": ["y"]},
        "blockers/y.yaml": {"title": "y", "caused_by": ["z"]},
        "blockers/z.yaml": {"title": "z", "applies_when": {"compute_capability": ">=12.0"}}}))
    out = check_out(root)
    assert "blocked_by names x, which stack s resolves (its causes" in out


# ================================== 3. kb match --file =========================================

def match(write_tree, tmp_path: Path, data: bytes, *args: str, platform=RTX, extra=None) -> Any:
    root = write_tree(tree(platform, failed("unrelated"), extra))
    f = tmp_path / "err.log"
    f.write_bytes(data)
    r = kb(root, "match", "--file", str(f), *args)
    assert r.exit_code == 0, r.output
    return r


def no_controls(text: str) -> list[str]:
    return [hex(ord(c)) for c in text if unicodedata.category(c) == "Cc" and c not in CONTROL_OK]


ETAT = "KeyError: 12 — état"


@pytest.mark.parametrize("enc", ["utf-8", "utf-8-bom", "utf-16-le-bom", "utf-16-be-bom"])
def test_match_file_encodings(write_tree, tmp_path, enc):
    text = f"Traceback (most recent call last):\r\n  File \"x.py\", line 3\r\n{ETAT}\r\n"
    data = {"utf-8": text.encode("utf-8"), "utf-8-bom": b"\xef\xbb\xbf" + text.encode("utf-8"),
            "utf-16-le-bom": b"\xff\xfe" + text.encode("utf-16-le"),
            "utf-16-be-bom": b"\xfe\xff" + text.encode("utf-16-be")}[enc]
    r = match(write_tree, tmp_path, data)
    assert r.output.splitlines()[0] == f"error: {ETAT}"
    assert "matches: sglang-symm-mem-size-table-keyerror-12, catalog blackwell" in r.output
    assert no_controls(r.output) == [] and "\ufeff" not in r.output
    j = json.loads(match(write_tree, tmp_path, data, "--json").output)
    assert j["headline"] == ETAT
    assert [m["blocker"] for m in j["matches"]] == ["sglang-symm-mem-size-table-keyerror-12"]


def test_match_file_with_nul_and_binary_bytes(write_tree, tmp_path):
    data = b"PK\x03\x04\x00\x00\xff\xfe\x00junk\x1b\x07\n\x00RuntimeError: " + FUSION_GATE.encode() + b"\x00\r\n"
    r = match(write_tree, tmp_path, data)
    assert r.output.splitlines()[0].startswith("error: ")
    assert "matches: flashinfer-allreduce-fusion-sm12x-gate" in r.output
    assert no_controls(r.output) == []


def test_match_output_has_no_control_characters(write_tree, tmp_path):
    # DEL, C1 controls, VT, FF, CR, BEL, ESC around a matching line; the earlier attempt carries some too.
    prior = {"attempts/2026-03-01-prior.yaml": {"title": "prior", "date": "2026-03-01", "campaign": "c",
                                                "approach": "a", "stack": "s",
                                                **failed("boom\x1b[0m\x7f\nKeyError: 12\x07\r\n")}}
    data = "\x0b\x0cKeyError: 12\x7f\u009b\u0085 tail\r\n".encode("utf-8")
    r = match(write_tree, tmp_path, data, extra=prior)
    assert "sglang-symm-mem-size-table-keyerror-12" in r.output
    assert no_controls(r.output) == []
    assert no_controls(json.loads(match(write_tree, tmp_path, data, "--json", extra=prior).output)["headline"]) == []


def test_match_ansi_coloured_line_still_matches(write_tree, tmp_path):
    # Interpretation of "reads files with control bytes": an ESC-coloured line is still read.
    r = match(write_tree, tmp_path, b"\x1b[31mKeyError: 12\x1b[0m\n")
    assert "matches: sglang-symm-mem-size-table-keyerror-12" in r.output
    assert no_controls(r.output) == []


@pytest.mark.parametrize("line,clipped", [("x" * 5000, True), ("y" * 300, False), ("y" * 301, True),
                                          ("é" * 400, True), ("e\u0301" * 200, True)],
                         ids=["x5000", "y300", "y301", "e-acute400", "combining400"])
def test_match_headline_clip(write_tree, tmp_path, line, clipped):
    r = match(write_tree, tmp_path, (line + "\n").encode("utf-8"))
    first = r.output.splitlines()[0]
    assert first.startswith("error: ")
    headline = first[len("error: "):]
    assert len(headline) <= 300
    assert headline.endswith("…") == clipped
    if not clipped:
        assert headline == line
    else:
        assert len(headline) >= 250 and line.startswith(headline[:-1])


def test_match_regex_is_line_by_line(write_tree, tmp_path):
    extra = {"blockers/local.yaml": {"title": "local", "signatures": ["/alpha-widget\\s+beta-gadget/"]}}
    across = match(write_tree, tmp_path, b"alpha-widget\nbeta-gadget\n", extra=extra)
    assert "local" not in across.output.split("\n", 1)[1]
    within = match(write_tree, tmp_path, b"noise\nalpha-widget \t beta-gadget\n", extra=extra)
    assert "matches: local" in within.output


@pytest.mark.parametrize("offset,expect", [(0, True), (1500, True), (2500, False), (100_000, False)])
def test_match_regex_within_first_2000_chars_of_a_line(write_tree, tmp_path, offset, expect):
    data = ("a" * offset + " " + UNKNOWN_ARCH + " " + "b" * 5000 + "\n").encode()
    r = match(write_tree, tmp_path, data)
    assert ("torch-cpp-extension-unknown-cuda-arch" in r.output) == expect
    assert len(r.output.splitlines()[0]) <= len("error: ") + 300


def test_match_regex_on_the_line_after_a_huge_line(write_tree, tmp_path):
    data = ("z" * 2_000_000 + "\n" + BNB + "\n").encode()
    t = time.monotonic()
    r = match(write_tree, tmp_path, data)
    assert time.monotonic() - t < 20
    assert "matches: bitsandbytes-no-cuda128-binary" in r.output
