"""kb.machine (Capture → Stack/Platform records) and the kb capture command, on canned captures."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from kb.capture import Capture
from kb.cli import cli
from kb.errors import QueryError
from kb.machine import overrides_against, platform_from_capture, stack_from_capture
from kb.models import Component
from kb.store import load_records

H200 = Capture(
    components={"driver": "580.159.04", "cuda-driver": "13.0", "cuda": "12.8.93", "torch": "2.9.1+cu128",
                "torch-cuda": "12.8", "nccl": "2.27.5", "flashinfer-python": "0.6.4", "sgl-kernel": "0.3.x"},
    platform={"gpu": "NVIDIA H200", "gpu_count": 2, "compute_capability": "9.0", "arch": "sm_90",
              "interconnect": "NVLink", "nvlink_links": 18, "memory_gib": 140.4},
    notes=["not installed in /usr/bin/python3: sglang, vllm"],
    sources={"driver": "nvidia-smi", "cuda": "/usr/local/cuda/bin/nvcc --version"},
    captured_at="2026-03-01T10:00:00Z", host={"python": "3.12.3", "system": "Linux", "machine": "x86_64"})
NO_GPU = Capture(components={"torch": "2.9.1"}, notes=["nvidia-smi not found on PATH: no driver or GPU facts"],
                 captured_at="2026-03-01T10:00:00Z")


def test_stack_from_capture_adapts_names_and_keeps_non_pep440_versions_as_sources():
    s = stack_from_capture(H200, "h200-box", "H200 box")
    assert s.components["flashinfer"] == Component(version="0.6.4")
    assert s.components["sgl-kernel"] == Component(source="reported as 0.3.x (not a PEP 440 version)")
    assert s.components["torch"].version == "2.9.1+cu128"
    assert s.captured == {"at": "2026-03-01T10:00:00Z", "by": "kb capture",
                          "host_facts": "2× NVIDIA H200 (NVLink, NV18), driver 580.159.04, Python 3.12.3, Linux x86_64"}


def test_platform_from_capture():
    p = platform_from_capture(H200, "h200x2", "2× H200")
    assert (p.gpu, p.gpu_count, p.compute_capability, p.arch, p.interconnect, p.nvlink, p.memory_gib) == (
        "NVIDIA H200", 2, "9.0", "sm_90", "NVLink", True, 140.4)


def test_no_gpu_no_platform():
    with pytest.raises(QueryError, match="no GPU found on this machine.*nvidia-smi not found on PATH"):
        platform_from_capture(NO_GPU, "x", "x")


def test_overrides_keep_only_what_differs():
    base = {"cuda": Component(version="12.8.93"), "torch": Component(version="2.9.0")}
    got = overrides_against({"cuda": Component(version="12.8.93"), "torch": Component(version="2.9.1")}, base)
    assert got == {"torch": Component(version="2.9.1")}


@pytest.fixture
def fake(monkeypatch):
    def use(cap: Capture) -> None:
        monkeypatch.setattr("kb.capture.capture_machine", lambda *a, **k: cap)
    return use


def test_capture_prints_a_stack_record(fake, tmp_path):
    fake(H200)
    r = CliRunner().invoke(cli, ["--records", str(tmp_path / "records"), "capture"])
    assert r.exit_code == 0, r.output
    data = yaml.safe_load(r.stdout)
    assert data["title"] == "Stack captured 2026-03-01 on 2× NVIDIA H200"
    assert data["components"]["cuda"] == "12.8.93"
    assert "kb capture: note: not installed in /usr/bin/python3: sglang, vllm" in r.stderr
    assert not (tmp_path / "records").exists()


def test_capture_writes_stack_and_platform_never_overwriting(fake, tmp_path):
    fake(H200)
    root = tmp_path / "records"
    r = CliRunner().invoke(cli, ["--records", str(root), "capture", "--write", "h200-box"])
    assert (r.exit_code, r.stdout) == (0, f"{root / 'stacks' / 'h200-box.yaml'}\n")
    r = CliRunner().invoke(cli, ["--records", str(root), "capture", "--platform", "--write", "h200x2", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert (data["kind"], data["id"], data["record"]["gpu_count"]) == ("platform", "h200x2", 2)
    again = CliRunner().invoke(cli, ["--records", str(root), "capture", "--write", "h200-box"])
    assert again.exit_code == 1
    assert "already exists; kb does not overwrite records" in again.output
    assert load_records(root).problems == []


def test_capture_without_a_gpu_still_works_and_says_what_it_missed(fake, tmp_path):
    fake(NO_GPU)
    r = CliRunner().invoke(cli, ["--records", str(tmp_path), "capture"])
    assert r.exit_code == 0
    assert yaml.safe_load(r.stdout)["components"] == {"torch": "2.9.1"}
    assert "kb capture: captured: no GPU found" in r.stderr
    assert "kb capture: note: nvidia-smi not found on PATH: no driver or GPU facts" in r.stderr
    r = CliRunner().invoke(cli, ["--records", str(tmp_path), "capture", "--platform"])
    assert r.exit_code == 1
    assert "no GPU found on this machine, so no platform record can be made" in r.output


def test_capture_refuses_a_bad_id(fake, tmp_path):
    fake(H200)
    r = CliRunner().invoke(cli, ["--records", str(tmp_path), "capture", "--write", "Bad Id"])
    assert r.exit_code == 1
    assert "kb capture (stack Bad Id): id: 'Bad Id' is not a valid id" in r.output
