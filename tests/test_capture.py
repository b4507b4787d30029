"""Tests of kb.capture: parsers on real tool output, tool discovery, and capture_machine with an
injected runner (fixtures under tests/fixtures/capture/, each folder's README says how recorded)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from kb import capture as cap_mod
from kb.capture import (
    Capture,
    ProbeResult,
    capture_machine,
    find_nvcc,
    find_tool,
    run_subprocess,
)
from kb.toolout import (
    parse_nvcc_version,
    parse_nvidia_smi,
    parse_nvidia_smi_query_csv,
    parse_pip_freeze,
    parse_topology,
    parse_torch_probe,
)
from kb.versions import arch_of, components_from_packages

FIXTURES = Path(__file__).parent / "fixtures" / "capture"
H200X2 = FIXTURES / "h200x2"
H200X1 = FIXTURES / "h200x1"
RTX = FIXTURES / "rtxpro6000x8"
NOGPU = FIXTURES / "nogpu"


NO_NVCC = (
    "nvcc not found on PATH, $CUDA_HOME, $CUDA_PATH nor in /usr/local/cuda/bin, /usr/local/cuda-*/bin, "
    "/opt/cuda/bin: CUDA toolkit version unknown"
)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- nvidia-smi


def test_nvidia_smi_h200x2_driver_cuda_and_gpus():
    smi = parse_nvidia_smi(read(H200X2 / "nvidia-smi.txt"))
    assert smi["driver"] == "580.159.04"
    assert smi["cuda_driver"] == "13.0"
    assert smi["gpu_count"] == 2
    assert smi["gpus"] == [
        {"index": 0, "name": "NVIDIA H200", "bus_id": "00000000:00:06.0", "memory_total_mib": 143771},
        {"index": 1, "name": "NVIDIA H200", "bus_id": "00000000:00:07.0", "memory_total_mib": 143771},
    ]


def test_nvidia_smi_h200x1_recorded_on_device():
    smi = parse_nvidia_smi(read(H200X1 / "nvidia-smi.txt"))
    assert (smi["driver"], smi["cuda_driver"], smi["gpu_count"]) == ("580.159.04", "13.0", 1)
    assert smi["gpus"][0]["name"] == "NVIDIA H200"


def test_nvidia_smi_rtx_pro_names_are_truncated_in_the_table():
    smi = parse_nvidia_smi(read(RTX / "nvidia-smi.txt"))
    assert smi["driver"] == "590.48.01"
    assert smi["cuda_driver"] == "13.1"
    assert smi["gpu_count"] == 8
    assert {g["name"] for g in smi["gpus"]} == {"NVIDIA RTX PRO 6000 Blac..."}
    assert [g["bus_id"][9:11] for g in smi["gpus"]] == ["01", "21", "41", "61", "81", "A1", "C1", "E1"]
    assert smi["gpus"][7]["memory_total_mib"] == 97887


def test_nvidia_smi_no_driver_message_gives_nothing():
    smi = parse_nvidia_smi(read(NOGPU / "nvidia-smi-no-driver.txt"))
    assert smi == {"driver": None, "cuda_driver": None, "gpu_count": 0, "gpus": []}


def test_nvidia_smi_process_rows_are_not_gpus():
    text = read(H200X1 / "nvidia-smi.txt").replace(
        "|  No running processes found ",
        "|    0   N/A  N/A         1234      C   python3                   1000MiB |\n|",
    )
    assert parse_nvidia_smi(text)["gpu_count"] == 1


# --------------------------------------------------------------------------- --query-gpu CSV


def test_query_csv_h200x2():
    gpus = parse_nvidia_smi_query_csv(read(H200X2 / "nvidia-smi-query.csv"))
    assert gpus == [
        {
            "index": 0,
            "name": "NVIDIA H200",
            "compute_cap": "9.0",
            "driver_version": "580.159.04",
            "memory_total_mib": 143771,
            "pci_bus_id": "00000000:00:06.0",
        },
        {
            "index": 1,
            "name": "NVIDIA H200",
            "compute_cap": "9.0",
            "driver_version": "580.159.04",
            "memory_total_mib": 143771,
            "pci_bus_id": "00000000:00:07.0",
        },
    ]


def test_query_csv_rtx_pro_full_names_and_capability():
    gpus = parse_nvidia_smi_query_csv(read(RTX / "nvidia-smi-query.csv"))
    assert len(gpus) == 8
    assert {g["name"] for g in gpus} == {"NVIDIA RTX PRO 6000 Blackwell Server Edition"}
    assert {g["compute_cap"] for g in gpus} == {"12.0"}
    assert {g["driver_version"] for g in gpus} == {"590.48.01"}
    assert gpus[5]["pci_bus_id"] == "00000000:A1:00.0"


def test_query_csv_without_header_or_units_uses_given_fields():
    gpus = parse_nvidia_smi_query_csv(
        read(H200X1 / "query-noheader-nounits.csv"), fields=("index", "name", "compute_cap", "memory.total")
    )
    assert gpus == [{"index": 0, "name": "NVIDIA H200", "compute_cap": "9.0", "memory_total_mib": 143771}]


def test_query_csv_error_text_gives_no_gpu():
    assert parse_nvidia_smi_query_csv(read(H200X1 / "query-bad-field.txt")) == []
    assert parse_nvidia_smi_query_csv("") == []


def test_query_csv_not_available_values_are_none():
    gpus = parse_nvidia_smi_query_csv(
        "index, name, compute_cap, driver_version, memory.total [MiB], pci.bus_id\n"
        "0, Tesla K80, [N/A], 470.256.02, [N/A], 00000000:00:04.0\n"
    )
    assert gpus[0]["compute_cap"] is None and gpus[0]["memory_total_mib"] is None
    assert gpus[0]["driver_version"] == "470.256.02"


# --------------------------------------------------------------------------- topo -m


def test_topology_h200x2_nvlink_nv18_with_ansi_header():
    raw = read(H200X2 / "nvidia-smi-topo-m.txt")
    assert "\x1b[4m" in raw  # the real quirk is in the fixture
    topo = parse_topology(raw)
    assert topo["gpus"] == ["GPU0", "GPU1"]
    assert topo["matrix"] == {"GPU0": {"GPU0": "X", "GPU1": "NV18"}, "GPU1": {"GPU0": "NV18", "GPU1": "X"}}
    assert topo["interconnect"] == "NVLink"
    assert topo["nvlink_links"] == 18
    assert topo["nvlink_complete"] is True
    assert topo["cpu_affinity"] == {"GPU0": "0-31", "GPU1": "0-31"}
    assert topo["numa_affinity"] == {"GPU0": "0", "GPU1": "0"}
    assert topo["nics"] == []


def test_topology_single_gpu_has_no_interconnect():
    topo = parse_topology(read(H200X1 / "nvidia-smi-topo-m.txt"))
    assert topo["gpus"] == ["GPU0"]
    assert topo["matrix"] == {"GPU0": {"GPU0": "X"}}
    assert topo["interconnect"] is None
    assert topo["nvlink_links"] is None
    assert topo["cpu_affinity"] == {"GPU0": "0-15"}


def test_topology_rtx_pro_pcie_only_with_nics():
    topo = parse_topology(read(RTX / "nvidia-smi-topo-m.txt"))
    assert topo["gpus"] == [f"GPU{i}" for i in range(8)]
    assert topo["nics"] == ["NIC0", "NIC1"]
    assert topo["interconnect"] == "PCIe"
    assert topo["nvlink_links"] is None
    assert topo["matrix"]["GPU0"] == {
        "GPU0": "X",
        "GPU1": "PHB",
        "GPU2": "NODE",
        "GPU3": "NODE",
        "GPU4": "SYS",
        "GPU5": "SYS",
        "GPU6": "SYS",
        "GPU7": "SYS",
    }
    assert "NIC0" not in topo["matrix"]
    assert topo["cpu_affinity"]["GPU5"] == "48-95,144-191"
    assert topo["numa_affinity"]["GPU5"] == "1"


def test_topology_partial_nvlink_reports_fewest_links():
    text = (
        "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\n"
        "GPU0\t X \tNV4\tSYS\tSYS\t0-15\n"
        "GPU1\tNV4\t X \tSYS\tSYS\t0-15\n"
        "GPU2\tSYS\tSYS\t X \tNV2\t16-31\n"
        "GPU3\tSYS\tSYS\tNV2\t X \t16-31\n"
    )
    topo = parse_topology(text)
    assert topo["interconnect"] == "NVLink"
    assert topo["nvlink_links"] == 2
    assert topo["nvlink_complete"] is False


def test_topology_of_garbage_is_empty():
    topo = parse_topology("nvidia-smi: command not found\n")
    assert topo["gpus"] == [] and topo["interconnect"] is None and topo["matrix"] == {}


# --------------------------------------------------------------------------- nvcc


def test_nvcc_h200x2_through_cuda_symlink():
    nv = parse_nvcc_version(read(H200X2 / "nvcc-version.txt"))
    assert nv == {"toolkit": "13.0.88", "release": "13.0", "path": "/usr/local/cuda/bin/nvcc"}


def test_nvcc_discovery_transcript_from_device():
    text = read(H200X1 / "nvcc-discovery.txt")
    assert "exit 127" in text  # nvcc not on PATH=/usr/bin:/bin there
    assert parse_nvcc_version(text)["toolkit"] == "13.0.88"


def test_nvcc_12_8():
    nv = parse_nvcc_version(read(RTX / "nvcc-version.txt"))
    assert nv == {"toolkit": "12.8.93", "release": "12.8", "path": None}


def test_nvcc_build_line_alone():
    nv = parse_nvcc_version("Build cuda_12.8.r12.8/compiler.35583870_0\n")
    assert nv["toolkit"] == "12.8"
    assert nv["release"] == "12.8"


def test_nvcc_garbage():
    assert parse_nvcc_version("bash: nvcc: command not found") == {"toolkit": None, "release": None, "path": None}


# --------------------------------------------------------------------------- pip


def test_pip_freeze_h200x2():
    pkgs = parse_pip_freeze(read(H200X2 / "pip-freeze.txt"))
    assert len(pkgs) == 196
    assert pkgs["torch"] == "2.11.0"
    assert pkgs["triton"] == "3.6.0"
    assert pkgs["nvidia-nccl-cu13"] == "2.28.9"
    assert pkgs["jinja2"] == "3.1.6"  # PEP 503 name
    assert pkgs["python-dateutil"] == "2.9.0.post0"
    assert pkgs["torch-geometric"] == "2.8.0.post1"


def test_pip_list_selected():
    pkgs = parse_pip_freeze(read(H200X2 / "pip-list-selected.txt"))
    assert pkgs == {"jax": "0.11.2", "torch": "2.11.0", "triton": "3.6.0"}


def test_pip_list_header_is_skipped():
    text = "Package    Version\n---------- -------\nsgl_kernel 0.3.16.post4\ntorch      2.10.0+cu128\n"
    assert parse_pip_freeze(text) == {"sgl-kernel": "0.3.16.post4", "torch": "2.10.0+cu128"}


def test_pip_freeze_keeps_local_tag_and_skips_urls_and_editables():
    pkgs = parse_pip_freeze(read(RTX / "pip-freeze.txt"))
    assert pkgs == {
        "flashinfer-python": "0.6.4",
        "nvidia-nccl-cu12": "2.27.5",
        "sgl-kernel": "0.3.16.post4",
        "torch": "2.10.0+cu128",
        "triton": "3.5.1",
    }


def test_components_from_packages_maps_distribution_names():
    comps, dists = components_from_packages(parse_pip_freeze(read(RTX / "pip-freeze.txt")))
    assert comps == {
        "torch": "2.10.0+cu128",
        "triton": "3.5.1",
        "flashinfer": "0.6.4",
        "sgl-kernel": "0.3.16.post4",
        "nccl": "2.27.5",
    }
    assert dists["flashinfer"] == "flashinfer-python"
    assert dists["nccl"] == "nvidia-nccl-cu12"


def test_components_from_h200x2_freeze():
    comps, dists = components_from_packages(parse_pip_freeze(read(H200X2 / "pip-freeze.txt")))
    assert comps == {"torch": "2.11.0", "triton": "3.6.0", "nccl": "2.28.9"}
    assert dists["nccl"] == "nvidia-nccl-cu13"


# --------------------------------------------------------------------------- torch probe


def test_torch_probe_h200x2():
    t = parse_torch_probe(read(H200X2 / "torch-probe.txt"))
    assert t["python"] == "3.12.3"
    assert t["torch"] == "2.11.0+cu130"
    assert t["torch_cuda"] == "13.0"
    assert t["cuda_available"] is True
    assert t["device_count"] == 2
    assert t["devices"] == [
        {"index": 0, "name": "NVIDIA H200", "capability": "9.0", "memory_bytes": 150109880320},
        {"index": 1, "name": "NVIDIA H200", "capability": "9.0", "memory_bytes": 150109880320},
    ]
    assert t["nccl"] == "2.28.9"
    assert t["triton"] == "3.6.0"
    assert t["errors"] == {}


def test_torch_probe_recorded_with_our_script_on_device():
    t = parse_torch_probe(read(H200X1 / "torch-probe.txt"))
    assert (t["torch"], t["torch_cuda"], t["nccl"], t["triton"]) == ("2.11.0+cu130", "13.0", "2.28.9", "3.6.0")
    assert [d["capability"] for d in t["devices"]] == ["9.0"]
    # the real quirk: the distribution's metadata has no local tag, torch.__version__ has
    assert t["dists"] == {"torch": "2.11.0", "triton": "3.6.0", "nvidia-nccl-cu13": "2.28.9"}


def test_torch_probe_without_visible_devices():
    t = parse_torch_probe(read(H200X1 / "torch-probe-no-visible-devices.txt"))
    assert t["cuda_available"] is False
    assert t["devices"] == []
    assert t["nccl"] == "2.28.9"


def test_torch_probe_blackwell_capability_12_0():
    t = parse_torch_probe(read(RTX / "torch-probe.txt"))
    assert t["torch"] == "2.10.0+cu128"
    assert t["torch_cuda"] == "12.8"
    assert len(t["devices"]) == 8
    assert t["devices"][3]["name"] == "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    assert t["devices"][3]["capability"] == "12.0"


def test_torch_probe_without_torch():
    t = parse_torch_probe(read(NOGPU / "torch-probe.txt"))
    assert t["python"] == "3.11.7"
    assert "torch" not in t
    assert t["errors"] == {
        "torch": "ModuleNotFoundError: No module named 'torch'",
        "triton": "ModuleNotFoundError: No module named 'triton'",
    }


def test_torch_probe_cpu_build_and_int_nccl_codes():
    t = parse_torch_probe("torch 2.10.0+cpu\ntorch.version.cuda None\ncuda available False\nnccl 21805\n")
    assert t["torch_cuda"] is None
    assert t["nccl"] == "2.18.5"
    assert parse_torch_probe("nccl 2708\n")["nccl"] == "2.7.8"


def test_torch_probe_script_output_parses_here():
    out = subprocess.run(
        [sys.executable, "-c", cap_mod.TORCH_PROBE_SCRIPT], capture_output=True, text=True, timeout=60, check=False
    )
    t = parse_torch_probe(out.stdout)
    assert t["python"] == ".".join(map(str, sys.version_info[:3]))
    assert ("torch" in t) != ("torch" in t["errors"])  # either a version or the reason why not


# --------------------------------------------------------------------------- small helpers


@pytest.mark.parametrize(
    ("capability", "arch"),
    [("9.0", "sm_90"), ("12.0", "sm_120"), ("8.6", "sm_86"), ("10.3", "sm_103"), ("", None), ("9", None)],
)
def test_arch_of(capability, arch):
    if arch is None:
        with pytest.raises(ValueError, match="not a compute capability"):
            arch_of(capability)
    else:
        assert arch_of(capability) == arch


# --------------------------------------------------------------------------- finding tools


def touch_exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_find_nvcc_picks_highest_versioned_prefix(tmp_path):
    touch_exe(tmp_path / "usr/local/cuda-12.4/bin/nvcc")
    want = touch_exe(tmp_path / "usr/local/cuda-12.8/bin/nvcc")
    (tmp_path / "usr/local/cuda-13.0").mkdir(parents=True)  # a folder without nvcc is passed over
    assert find_nvcc(search_path=str(tmp_path / "empty"), root=tmp_path, env={}) == want


def test_find_nvcc_compares_versions_not_strings(tmp_path):
    touch_exe(tmp_path / "usr/local/cuda-12.9/bin/nvcc")
    want = touch_exe(tmp_path / "usr/local/cuda-12.10/bin/nvcc")
    assert find_nvcc(search_path="", root=tmp_path, env={}) == want


def test_find_nvcc_prefers_usr_local_cuda_symlink(tmp_path):
    touch_exe(tmp_path / "usr/local/cuda-13.0/bin/nvcc")
    target = tmp_path / "usr/local/cuda-12.8"
    touch_exe(target / "bin/nvcc")
    (tmp_path / "usr/local/cuda").symlink_to(target)
    assert find_nvcc(search_path="", root=tmp_path, env={}) == tmp_path / "usr/local/cuda/bin/nvcc"


def test_find_nvcc_opt_cuda_and_cuda_home(tmp_path):
    opt = touch_exe(tmp_path / "opt/cuda/bin/nvcc")
    assert find_nvcc(search_path="", root=tmp_path, env={}) == opt
    home = touch_exe(tmp_path / "home/me/cuda-12.6/bin/nvcc")
    assert find_nvcc(search_path="", root=tmp_path, env={"CUDA_HOME": "/home/me/cuda-12.6"}) == home


def test_find_nvcc_path_wins_and_non_executables_are_skipped(tmp_path):
    on_path = touch_exe(tmp_path / "bin/nvcc")
    touch_exe(tmp_path / "usr/local/cuda/bin/nvcc")
    assert find_nvcc(search_path=str(tmp_path / "bin"), root=tmp_path, env={}) == on_path
    on_path.chmod(0o644)
    (tmp_path / "usr/local/cuda/bin/nvcc").chmod(0o644)
    assert find_nvcc(search_path=str(tmp_path / "bin"), root=tmp_path, env={}) is None


def test_find_tool_nvidia_smi_in_driver_mount(tmp_path):
    smi = touch_exe(tmp_path / "usr/local/nvidia/bin/nvidia-smi")  # where the H200 machine has it
    assert find_tool("nvidia-smi", cap_mod.NVIDIA_SMI_PREFIXES, search_path="", root=tmp_path) == smi


# --------------------------------------------------------------------------- capture_machine


class FakeRunner:
    """Answers probes from fixture files, keyed by (program basename, first argument)."""

    def __init__(self, answers: Mapping[tuple[str, str], object]):
        self.answers = answers
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str], timeout_s: float) -> ProbeResult:
        self.calls.append(list(argv))
        key = (os.path.basename(argv[0]), argv[1] if len(argv) > 1 else "")
        if key[1] == "-c":
            key = ("python", "-c")
        if key[0] == "nvidia-smi" and key[1].startswith("--query-gpu"):
            key = ("nvidia-smi", "--query-gpu")
        answer = self.answers.get(key)
        if answer is None:
            raise FileNotFoundError(2, "No such file or directory", argv[0])
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, ProbeResult):
            return answer
        return ProbeResult(0, read(answer) if isinstance(answer, Path) else str(answer))


def machine_answers(folder: Path, nvcc: Path) -> dict[tuple[str, str], object]:
    return {
        ("nvidia-smi", ""): folder / "nvidia-smi.txt",
        ("nvidia-smi", "--query-gpu"): folder / "nvidia-smi-query.csv",
        ("nvidia-smi", "topo"): folder / "nvidia-smi-topo-m.txt",
        ("nvcc", "--version"): nvcc,
        ("python", "-c"): folder / "torch-probe.txt",
    }


def metadata_from(freeze: Path):
    pkgs = parse_pip_freeze(read(freeze))
    return lambda dist: pkgs.get(dist)


def test_capture_h200x2_nvlink(tmp_path):
    touch_exe(tmp_path / "usr/bin/nvidia-smi")
    touch_exe(tmp_path / "usr/local/cuda/bin/nvcc")  # not on PATH: found through the prefix
    runner = FakeRunner(machine_answers(H200X2, H200X2 / "nvcc-version.txt"))
    cap = capture_machine(
        runner=runner,
        python="/opt/torch/.venv/bin/python3",
        search_path=str(tmp_path / "usr/bin"),
        root=tmp_path,
        env={},
        metadata=metadata_from(H200X2 / "pip-freeze.txt"),
    )
    assert cap.components == {
        "driver": "580.159.04",
        "cuda-driver": "13.0",
        "cuda": "13.0.88",
        "torch": "2.11.0+cu130",  # torch.__version__ wins over the metadata's 2.11.0
        "torch-cuda": "13.0",
        "nccl": "2.28.9",
        "triton": "3.6.0",
    }
    assert cap.platform == {
        "gpu": "NVIDIA H200",
        "gpu_count": 2,
        "compute_capability": "9.0",
        "arch": "sm_90",
        "memory_gib": 140.4,
        "interconnect": "NVLink",
        "nvlink_links": 18,
        "topology": {"GPU0": {"GPU0": "X", "GPU1": "NV18"}, "GPU1": {"GPU0": "NV18", "GPU1": "X"}},
    }
    assert cap.notes == ["not installed in /opt/torch/.venv/bin/python3: flashinfer, sglang, sgl-kernel, vllm"]
    assert cap.sources["cuda"] == f"{tmp_path}/usr/local/cuda/bin/nvcc --version"
    assert cap.sources["torch"] == "torch probe (torch.__version__)"
    assert cap.sources["nccl"] == "torch probe (torch.cuda.nccl.version())"
    assert cap.sources["interconnect"] == "nvidia-smi topo -m"
    assert cap.sources["cuda-driver"] == "nvidia-smi (CUDA Version)"
    assert cap.host["python"] == "3.12.3"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", cap.captured_at)
    assert all(call[0].startswith(str(tmp_path)) for call in runner.calls if "nvidia-smi" in call[0])


def test_capture_h200x1_matches_the_run_recorded_on_the_device(tmp_path):
    recorded = json.loads(read(H200X1 / "capture-recorded.json"))
    touch_exe(tmp_path / "usr/local/nvidia/bin/nvidia-smi")
    touch_exe(tmp_path / "usr/local/cuda/bin/nvcc")
    cap = capture_machine(
        runner=FakeRunner(machine_answers(H200X1, H200X2 / "nvcc-version.txt")),
        python="/opt/torch/.venv/bin/python3",
        search_path="",
        root=tmp_path,
        env={},
        metadata=metadata_from(H200X2 / "pip-freeze.txt"),  # the same image's packages
    )
    assert cap.components == recorded["components"]
    assert cap.platform == recorded["platform"]
    assert cap.notes == recorded["notes"]
    assert "interconnect" not in cap.platform
    assert cap.notes[0] == "one GPU: no GPU-to-GPU interconnect to report"


def test_capture_rtx_pro_pcie_nvcc_only_under_cuda_12_8(tmp_path):
    touch_exe(tmp_path / "usr/bin/nvidia-smi")
    touch_exe(tmp_path / "usr/local/cuda-12.4/bin/nvcc")
    touch_exe(tmp_path / "usr/local/cuda-12.8/bin/nvcc")
    answers = machine_answers(RTX, RTX / "nvcc-version.txt")
    runner = FakeRunner(answers)
    cap = capture_machine(
        runner=runner,
        python="/usr/bin/python3",
        search_path=str(tmp_path / "usr/bin"),  # PATH without nvcc
        root=tmp_path,
        env={},
        metadata=metadata_from(RTX / "pip-freeze.txt"),
    )
    assert [c for c in runner.calls if c[0].endswith("nvcc")] == [
        [f"{tmp_path}/usr/local/cuda-12.8/bin/nvcc", "--version"]
    ]
    assert cap.components == {
        "driver": "590.48.01",
        "cuda-driver": "13.1",
        "cuda": "12.8.93",
        "torch": "2.10.0+cu128",
        "torch-cuda": "12.8",
        "nccl": "2.27.5",
        "triton": "3.5.1",
        "flashinfer": "0.6.4",
        "sgl-kernel": "0.3.16.post4",
    }
    assert cap.sources["flashinfer"] == "importlib.metadata (flashinfer-python)"
    assert cap.platform["gpu"] == "NVIDIA RTX PRO 6000 Blackwell Server Edition"  # the CSV's full name
    assert cap.platform["gpu_count"] == 8
    assert cap.platform["compute_capability"] == "12.0"
    assert cap.platform["arch"] == "sm_120"
    assert cap.platform["interconnect"] == "PCIe"
    assert cap.platform["nvlink_links"] is None
    assert cap.platform["memory_gib"] == 95.6  # 97887 MiB
    assert cap.notes == ["not installed in /usr/bin/python3: sglang, vllm"]

    platform = cap.to_platform_dict("rtx-pro-6000-x8", "8× RTX PRO 6000 Blackwell")
    assert platform["nvlink"] is False
    assert {k: platform[k] for k in ("gpu_count", "compute_capability", "arch", "interconnect")} == {
        "gpu_count": 8,
        "compute_capability": "12.0",
        "arch": "sm_120",
        "interconnect": "PCIe",
    }


def test_capture_without_gpu_or_tools_says_what_it_could_not(tmp_path):
    runner = FakeRunner({("python", "-c"): NOGPU / "torch-probe.txt"})
    cap = capture_machine(
        runner=runner, python="/usr/bin/python3", search_path="", root=tmp_path, env={}, metadata=lambda d: None
    )
    assert cap.components == {}
    assert cap.platform == {}
    assert cap.notes == [
        "nvidia-smi not found on PATH nor in /usr/bin, /usr/local/nvidia/bin, /usr/lib/wsl/lib: no driver or GPU facts",
        NO_NVCC,
        "not installed in /usr/bin/python3: torch, triton, flashinfer, sglang, sgl-kernel, vllm",
    ]
    assert [c[1] for c in runner.calls] == ["-c"]  # only the torch probe ran
    stack = cap.to_stack_dict("2026-11-30-no-gpu", "No GPU")
    assert stack["components"] == {}
    assert stack["captured"]["host_facts"].startswith("no GPU found, Python 3.11.7")
    assert "nvidia-smi not found" in stack["notes"]
    assert set(cap.to_platform_dict("p", "P")) == {"id", "title", "notes"}


def test_capture_no_driver_records_the_exit_and_message(tmp_path):
    touch_exe(tmp_path / "usr/bin/nvidia-smi")
    failed = ProbeResult(9, read(NOGPU / "nvidia-smi-no-driver.txt"))
    runner = FakeRunner(
        {
            ("nvidia-smi", ""): failed,
            ("nvidia-smi", "--query-gpu"): failed,
            ("nvidia-smi", "topo"): failed,
            ("python", "-c"): NOGPU / "torch-probe.txt",
        }
    )
    cap = capture_machine(runner=runner, python="py", search_path="", root=tmp_path, env={}, metadata=lambda d: None)
    message = "exited 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    # noted once, not again for --query-gpu and topo -m, which failed the same way
    assert cap.notes == [
        f"nvidia-smi {message} Make sure that the latest NVIDIA driver is installed and running.",
        NO_NVCC,
        "not installed in py: torch, triton, flashinfer, sglang, sgl-kernel, vllm",
    ]
    assert "driver" not in cap.components and cap.platform == {}


def test_capture_timeouts_and_vanished_tools_become_notes(tmp_path):
    touch_exe(tmp_path / "usr/bin/nvidia-smi")
    touch_exe(tmp_path / "usr/local/cuda/bin/nvcc")
    runner = FakeRunner(
        {
            ("nvidia-smi", ""): subprocess.TimeoutExpired("nvidia-smi", 2.5),
            ("nvidia-smi", "--query-gpu"): subprocess.TimeoutExpired("nvidia-smi", 2.5),
            ("nvidia-smi", "topo"): PermissionError(13, "Permission denied"),
            ("python", "-c"): RuntimeError("runner bug"),
            # nvcc: FileNotFoundError (removed between discovery and run)
        }
    )
    cap = capture_machine(
        timeout_s=2.5,
        runner=runner,
        python="py",
        search_path="",
        root=tmp_path,
        env={},
        metadata=metadata_from(H200X2 / "pip-freeze.txt"),
    )
    assert cap.notes == [
        "nvidia-smi timed out after 2.5 s",  # --query-gpu timed out too: not said twice
        "nvidia-smi topo -m could not run: [Errno 13] Permission denied",
        f"nvcc ({tmp_path}/usr/local/cuda/bin/nvcc) not found",
        "torch probe failed: RuntimeError: runner bug",
        "not installed in py: flashinfer, sglang, sgl-kernel, vllm",
    ]
    # what importlib.metadata knows survives
    assert cap.components == {"torch": "2.11.0", "triton": "3.6.0", "nccl": "2.28.9"}
    assert cap.sources["nccl"] == "importlib.metadata (nvidia-nccl-cu13)"


def test_capture_notes_torch_that_differs_from_metadata(tmp_path):
    runner = FakeRunner({("python", "-c"): H200X2 / "torch-probe.txt"})
    cap = capture_machine(
        runner=runner, python="py", search_path="", root=tmp_path, env={}, metadata={"torch": "2.10.0"}.get
    )
    assert cap.components["torch"] == "2.11.0+cu130"
    assert "torch 2.11.0+cu130 imported by py differs from the installed metadata 2.10.0" in cap.notes


def test_capture_reads_packages_in_the_probed_interpreter(tmp_path):
    probe = (
        "python 3.12.3\ntorch 2.10.0+cu128\ntorch.version.cuda 12.8\ncuda available False\nnccl (2, 27, 5)\n"
        "triton 3.5.1\ndist torch 2.10.0+cu128\ndist triton 3.5.1\ndist flashinfer-python 0.6.4\n"
        "dist sglang 0.5.8\ndist sgl-kernel 0.3.16.post4\ndist nvidia-nccl-cu12 2.27.5\n"
    )
    runner = FakeRunner({("python", "-c"): probe})
    cap = capture_machine(
        runner=runner,
        python="/srv/sglang/.venv/bin/python",
        search_path="",
        root=tmp_path,
        env={},
        metadata={"torch": "2.11.0", "vllm": "0.11.0"}.get,  # kb's own interpreter: not what runs sglang
    )
    assert cap.components == {
        "torch": "2.10.0+cu128",
        "torch-cuda": "12.8",
        "triton": "3.5.1",
        "flashinfer": "0.6.4",
        "sglang": "0.5.8",
        "sgl-kernel": "0.3.16.post4",
        "nccl": "2.27.5",
    }
    assert cap.sources["sglang"] == "importlib.metadata in /srv/sglang/.venv/bin/python (sglang)"
    assert "not installed in /srv/sglang/.venv/bin/python: vllm" in cap.notes
    assert "torch sees no CUDA device (torch.cuda.is_available() is False)" in cap.notes


def test_torch_probe_dist_lines():
    t = parse_torch_probe("dist flashinfer-python 0.6.4\ndist sgl_kernel 0.3.16.post4\n")
    assert t["dists"] == {"flashinfer-python": "0.6.4", "sgl-kernel": "0.3.16.post4"}


def test_capture_gpu_facts_from_torch_when_nvidia_smi_is_missing(tmp_path):
    runner = FakeRunner({("python", "-c"): H200X2 / "torch-probe.txt"})
    cap = capture_machine(runner=runner, python="py", search_path="", root=tmp_path, env={}, metadata=lambda d: None)
    assert cap.platform["gpu"] == "NVIDIA H200"
    assert cap.platform["gpu_count"] == 2
    assert cap.platform["compute_capability"] == "9.0"
    assert cap.platform["memory_gib"] == 139.8  # 150109880320 bytes
    assert cap.sources["gpu"] == "torch probe (torch.cuda.get_device_properties)"


def test_capture_with_real_subprocesses_is_bounded(tmp_path):
    start = time.monotonic()
    cap = capture_machine(timeout_s=30, search_path=str(tmp_path), root=tmp_path, env={})
    assert time.monotonic() - start < 30
    assert cap.notes[0].startswith("nvidia-smi not found on PATH")
    assert "cuda" not in cap.components
    assert cap.host["python"] == ".".join(map(str, sys.version_info[:3]))


# --------------------------------------------------------------------------- run_subprocess


def test_run_subprocess_output_and_exit():
    result = run_subprocess([sys.executable, "-c", "import sys; print('hi'); sys.exit(3)"], 30)
    assert result == ProbeResult(3, "hi\n", "")


def test_run_subprocess_timeout_kills():
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_subprocess([sys.executable, "-c", "import time; time.sleep(30)"], 0.5)
    assert time.monotonic() - start < 10


def test_run_subprocess_missing_binary():
    with pytest.raises(FileNotFoundError):
        run_subprocess(["/nonexistent/nvidia-smi"], 5)


# --------------------------------------------------------------------------- record dicts


def h200x2_capture() -> Capture:
    return Capture(
        components={"driver": "580.159.04", "cuda": "13.0.88", "torch": "2.11.0+cu130"},
        platform={
            "gpu": "NVIDIA H200",
            "gpu_count": 2,
            "compute_capability": "9.0",
            "arch": "sm_90",
            "interconnect": "NVLink",
            "nvlink_links": 18,
            "memory_gib": 140.4,
        },
        notes=["not installed in py: vllm"],
        sources={"driver": "nvidia-smi", "cuda": "/usr/local/cuda/bin/nvcc --version", "torch": "torch probe"},
        captured_at="2026-11-30T08:54:22Z",
        host={"python": "3.12.3", "system": "Linux", "machine": "x86_64"},
    )


def test_to_stack_dict():
    stack = h200x2_capture().to_stack_dict("2026-11-30-h200-cu130", "H200 CUDA 13.0")
    assert stack == {
        "id": "2026-11-30-h200-cu130",
        "title": "H200 CUDA 13.0",
        "components": {"driver": "580.159.04", "cuda": "13.0.88", "torch": "2.11.0+cu130"},
        "captured": {
            "at": "2026-11-30T08:54:22Z",
            "by": "kb capture",
            "host_facts": "2× NVIDIA H200 (NVLink, NV18), driver 580.159.04, Python 3.12.3, Linux x86_64",
        },
        "notes": "- not installed in py: vllm\n\nCaptured from:\n"
        "- `cuda`: /usr/local/cuda/bin/nvcc --version\n- `driver`: nvidia-smi\n- `torch`: torch probe",
    }


def test_to_stack_dict_with_component_sources():
    stack = h200x2_capture().to_stack_dict("s", "S", component_sources=True)
    assert stack["components"]["torch"] == {"version": "2.11.0+cu130", "source": "torch probe"}
    assert stack["notes"] == "- not installed in py: vllm"


def test_to_platform_dict():
    platform = h200x2_capture().to_platform_dict("h200-x2", "2× H200 NVLink")
    assert platform == {
        "id": "h200-x2",
        "title": "2× H200 NVLink",
        "gpu": "NVIDIA H200",
        "gpu_count": 2,
        "compute_capability": "9.0",
        "arch": "sm_90",
        "interconnect": "NVLink",
        "memory_gib": 140.4,
        "nvlink": True,
        "notes": "- `nvidia-smi topo -m`: NV18 (18 bonded NVLinks) between GPU pairs\n"
        "- captured 2026-11-30T08:54:22Z by kb capture: "
        "2× NVIDIA H200 (NVLink, NV18), driver 580.159.04, Python 3.12.3, Linux x86_64",
    }


def test_record_dicts_validate_against_the_models():
    models = pytest.importorskip("kb.models")
    cap = h200x2_capture()
    stack = models.Stack.model_validate(cap.to_stack_dict("2026-11-30-h200-cu130", "H200 CUDA 13.0"))
    assert stack.components["torch"].version == "2.11.0+cu130"
    platform = models.Platform.model_validate(cap.to_platform_dict("h200-x2", "2× H200 NVLink"))
    assert platform.arch == "sm_90" and platform.nvlink is True
