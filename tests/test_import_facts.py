"""Stack facts from tool output are read with the parsers `kb capture` uses (kb.toolout) and
named by the one component table (kb.versions)."""

from __future__ import annotations

from import_helpers import claude_log

from kb.importers import read_session
from kb.importers.score import score_session as extract


def facts(path):
    return [(f.scope, f.name, f.value) for f in extract(read_session(path)).facts]


def test_nvcc_full_version_is_read_as_capture_reads_it(tmp_path):
    out = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
           "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n")
    log = claude_log(tmp_path / "s.jsonl", [("run", "nvcc --version", out)])
    found = extract(read_session(log)).facts
    assert [(f.name, f.value) for f in found] == [("cuda", "13.0.88")]
    assert found[0].evidence.quote == "Cuda compilation tools, release 13.0, V13.0.88"


def test_pip_names_are_mapped_by_the_component_table(tmp_path):
    out = "Package            Version\n------------------ ----------\nsgl_kernel         0.3.21\nnumpy 2.1.0\nnvidia-nccl-cu13   2.28.9\n"
    log = claude_log(tmp_path / "s.jsonl", [("run", "pip list", out),
                                            ("run", "pip show flashinfer_python", "Name: flashinfer_python\nVersion: 0.6.4\nSummary: x\n")])
    assert facts(log) == [("stack", "sgl-kernel", "0.3.21"), ("stack", "nccl", "2.28.9"), ("stack", "flashinfer", "0.6.4")]


def test_kb_torch_probe_output(tmp_path):
    out = ("python 3.12.3\ntorch 2.11.0+cu130\ntorch.version.cuda 13.0\ncuda available True\ndevice_count 2\n"
           "device 0 NVIDIA H200 capability (9, 0) memory_bytes 150109880320\nnccl (2, 28, 9)\n")
    log = claude_log(tmp_path / "s.jsonl", [("run", "python probe.py", out)])
    assert facts(log) == [("stack", "torch", "2.11.0+cu130"), ("stack", "torch-cuda", "13.0"), ("stack", "nccl", "2.28.9"),
                          ("platform", "gpu_count", "2"), ("platform", "compute_capability", "9.0")]


def test_the_extractor_keeps_no_component_table_of_its_own():
    import kb.importers.read.stack as module

    assert not hasattr(module, "KNOWN_COMPONENTS")
