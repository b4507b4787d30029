"""Capture the software stack and platform of the machine kb runs on (``kb capture``).

Two layers, in the order the data flows:

1. **Parsers** — pure functions from a tool's text output to plain data, tested on real output
   (``tests/fixtures/capture/``): :func:`parse_nvidia_smi`, :func:`parse_nvidia_smi_query_csv`,
   :func:`parse_topology`, :func:`parse_nvcc_version`, :func:`parse_pip_freeze`,
   :func:`parse_torch_probe`. They never raise on unexpected text: what they cannot read is
   left out (``None`` or absent), so a changed tool degrades a capture instead of breaking it.
2. **Probes** — :func:`capture_machine` finds and runs each tool (every probe optional, each
   bounded by a timeout, run side by side) and merges what the parsers read into a
   :class:`Capture`: components (``driver``, ``cuda``, ``torch``, ...), platform facts, the
   command each fact came from, and notes saying what could not be probed and why.

Only the standard library and :mod:`packaging`; nothing here imports torch itself (torch is
probed in a subprocess, :data:`TORCH_PROBE_SCRIPT`, so a broken CUDA install cannot hang or crash
kb).

>>> arch_for_capability("12.0"), arch_for_capability("9.0")
('sm_120', 'sm_90')
>>> parse_nvcc_version("Cuda compilation tools, release 13.0, V13.0.88")["toolkit"]
'13.0.88'
>>> parse_topology("\\tGPU0\\tGPU1\\nGPU0\\t X \\tNV18\\nGPU1\\tNV18\\t X \\n")["interconnect"]
'NVLink'
"""

from __future__ import annotations

import concurrent.futures
import csv
import datetime as _dt
import importlib.metadata
import io
import os
import platform as _platform
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

__all__ = [
    "COMPONENT_DISTRIBUTIONS",
    "CUDA_PREFIXES",
    "NVIDIA_SMI_PREFIXES",
    "QUERY_GPU_FIELDS",
    "TORCH_PROBE_SCRIPT",
    "Capture",
    "ProbeResult",
    "Runner",
    "arch_for_capability",
    "capture_machine",
    "components_from_packages",
    "find_nvcc",
    "find_tool",
    "parse_nvcc_version",
    "parse_nvidia_smi",
    "parse_nvidia_smi_query_csv",
    "parse_pip_freeze",
    "parse_topology",
    "parse_torch_probe",
    "run_subprocess",
]

# --------------------------------------------------------------------------- constants

QUERY_GPU_FIELDS: tuple[str, ...] = (
    "index",
    "name",
    "compute_cap",
    "driver_version",
    "memory.total",
    "pci.bus_id",
)
"""Fields asked of ``nvidia-smi --query-gpu`` (``compute_cap`` needs driver 510 or later)."""

CUDA_PREFIXES: tuple[str, ...] = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda")
"""Where a CUDA toolkit is installed when ``nvcc`` is not on PATH, in the order searched.

``/usr/local/cuda`` is the distribution's chosen default (a symlink, often through
``/etc/alternatives``); among versioned ``/usr/local/cuda-X.Y`` folders the highest version wins;
``/opt/cuda`` is Arch Linux's prefix. ``$CUDA_HOME`` and ``$CUDA_PATH`` are tried before all of them.
"""

NVIDIA_SMI_PREFIXES: tuple[str, ...] = ("/usr/bin", "/usr/local/nvidia/bin", "/usr/lib/wsl/lib")
"""Where ``nvidia-smi`` lives when it is not on PATH (distribution package, containers that mount
the driver under ``/usr/local/nvidia``, WSL)."""

COMPONENT_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "triton": ("triton", "pytorch-triton"),
    "flashinfer": ("flashinfer-python", "flashinfer"),
    "sglang": ("sglang",),
    "sgl-kernel": ("sgl-kernel",),
    "vllm": ("vllm",),
    "nccl": ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"),
}
"""Component → the Python distributions (PyPI names, first found wins) that provide it.

Source: PyPI names of each project (``flashinfer-python`` is FlashInfer's wheel; ``pytorch-triton``
is the nightly index's Triton; ``nvidia-nccl-cuXX`` is the NCCL wheel torch depends on).
"""

TORCH_PROBE_SCRIPT = r"""
import sys
print("python", sys.version.split()[0])
try:
    import torch
except Exception as exc:
    print("torch-error", type(exc).__name__ + ":", str(exc).splitlines()[0] if str(exc) else "")
else:
    print("torch", torch.__version__)
    print("torch.version.cuda", torch.version.cuda)
    try:
        available = torch.cuda.is_available()
        print("cuda available", available)
        if available:
            count = torch.cuda.device_count()
            print("device_count", count)
            for i in range(count):
                p = torch.cuda.get_device_properties(i)
                print("device", i, p.name, "capability", (p.major, p.minor), "memory_bytes", p.total_memory)
    except Exception as exc:
        print("cuda-error", type(exc).__name__ + ":", str(exc).splitlines()[0] if str(exc) else "")
    try:
        print("nccl", torch.cuda.nccl.version())
    except Exception as exc:
        print("nccl-error", type(exc).__name__ + ":", str(exc).splitlines()[0] if str(exc) else "")
try:
    import triton
    print("triton", triton.__version__)
except Exception as exc:
    print("triton-error", type(exc).__name__ + ":", str(exc).splitlines()[0] if str(exc) else "")
import importlib.metadata as md
for dist in DISTRIBUTIONS:
    try:
        print("dist", dist, md.version(dist))
    except Exception:
        pass
""".replace("DISTRIBUTIONS", repr(tuple(d for ds in COMPONENT_DISTRIBUTIONS.values() for d in ds)))
"""Python run in a subprocess (``python -c``) to read torch's runtime facts and the versions of
:data:`COMPONENT_DISTRIBUTIONS` installed in that interpreter; prints the line format
:func:`parse_torch_probe` reads (``torch 2.11.0+cu130``, ``nccl (2, 28, 9)``,
``dist flashinfer-python 0.6.4``, ...)."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_DEVICE_LABEL = re.compile(r"^(GPU|NIC)\d+$")
_NVLINK = re.compile(r"^NV(\d+)$")
_PCIE_LINKS = frozenset({"PIX", "PXB", "PHB", "NODE", "SYS"})
_MIB = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*MiB\s*$")

# --------------------------------------------------------------------------- parsers


def _clean(text: str) -> str:
    """Drop ANSI escape codes and carriage returns."""
    return _ANSI.sub("", text).replace("\r", "")


def parse_nvidia_smi(text: str) -> dict[str, Any]:
    """Read the driver, the CUDA version it supports and the GPU table from plain ``nvidia-smi``.

    Returns ``{"driver": "580.159.04" | None, "cuda_driver": "13.0" | None, "gpu_count": int,
    "gpus": [{"index": 0, "name": "NVIDIA H200", "bus_id": "00000000:00:06.0",
    "memory_total_mib": 143771 | None}, ...]}``. ``cuda_driver`` is the highest CUDA version the
    driver supports (the banner's "CUDA Version"), not the installed toolkit. Names in this table
    may be cut short with ``...`` (``NVIDIA RTX PRO 6000 Blac...``): prefer
    :func:`parse_nvidia_smi_query_csv` for names. Never raises; unreadable parts are ``None``/empty.
    """
    text = _clean(text)
    driver = re.search(r"Driver Version:\s*([0-9][\w.]*)", text)
    cuda = re.search(r"CUDA Version:\s*([0-9][\w.]*)", text)
    gpus: list[dict[str, Any]] = []
    row = re.compile(
        r"^\|\s*(\d+)\s+(.+?)\s+(?:On|Off|N/A|WDDM|TCC|MCDM)\s+\|"
        r"\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\b"
    )
    memory = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB")
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = row.match(line)
        if not m:
            continue
        total = None
        if i + 1 < len(lines):
            mm = memory.search(lines[i + 1])
            if mm:
                total = int(mm.group(2))
        gpus.append(
            {"index": int(m.group(1)), "name": m.group(2).strip(), "bus_id": m.group(3), "memory_total_mib": total}
        )
    return {
        "driver": driver.group(1) if driver else None,
        "cuda_driver": cuda.group(1) if cuda else None,
        "gpu_count": len(gpus),
        "gpus": gpus,
    }


def parse_nvidia_smi_query_csv(text: str, fields: Sequence[str] = QUERY_GPU_FIELDS) -> list[dict[str, Any]]:
    """Read ``nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total,pci.bus_id
    --format=csv`` (header optional: without one, ``fields`` gives the column order).

    Returns one dict a GPU, keys being the field names with ``.`` as ``_`` and units moved into the
    key: ``{"index": 0, "name": "NVIDIA H200", "compute_cap": "9.0", "driver_version": "580.159.04",
    "memory_total_mib": 143771, "pci_bus_id": "00000000:00:06.0"}``. ``[N/A]``/``[Not Supported]``
    become ``None``. Error text (e.g. ``Field "compute_cap" is not a valid field to query.`` from a
    driver older than 510) yields ``[]``. Never raises.
    """
    rows = [r for r in csv.reader(io.StringIO(_clean(text)), skipinitialspace=True) if any(c.strip() for c in r)]
    if not rows:
        return []
    header = [c.strip() for c in rows[0]]
    if header and header[0] == "index":
        columns = header
        rows = rows[1:]
    else:
        columns = list(fields)
    keys: list[str] = []
    for col in columns:
        unit = re.search(r"\[(\w+)\]\s*$", col)
        name = re.sub(r"\s*\[\w+\]\s*$", "", col).replace(".", "_")
        if unit:
            name = f"{name}_{unit.group(1).lower()}"
        elif name == "memory_total":
            name = "memory_total_mib"  # `--format=csv,nounits` drops the unit; nvidia-smi reports MiB
        keys.append(name)
    gpus: list[dict[str, Any]] = []
    for r in rows:
        if len(r) != len(keys) or not r[0].strip().isdigit():
            continue  # an error message, not a GPU row
        gpu: dict[str, Any] = {}
        for key, raw in zip(keys, r, strict=True):
            value: Any = raw.strip()
            if value.startswith("[") and value.endswith("]"):
                value = None  # [N/A], [Not Supported], [Insufficient Permissions]
            elif key == "index":
                value = int(value)
            elif key.endswith("_mib"):
                m = _MIB.match(value) or re.match(r"^\s*(\d+(?:\.\d+)?)\s*$", value)
                value = int(float(m.group(1))) if m else None
            gpu[key] = value
        gpus.append(gpu)
    return gpus


def parse_topology(text: str) -> dict[str, Any]:
    """Read the link matrix of ``nvidia-smi topo -m`` and name the GPU-to-GPU interconnect.

    Strips ANSI escape codes (nvidia-smi underlines the header line with them). Returns::

        {"gpus": ["GPU0", "GPU1"],
         "matrix": {"GPU0": {"GPU0": "X", "GPU1": "NV18"}, "GPU1": {...}},   # GPU rows, GPU columns
         "nics": ["NIC0", ...], "cpu_affinity": {"GPU0": "0-31"}, "numa_affinity": {"GPU0": "0"},
         "interconnect": "NVLink" | "PCIe" | None,
         "nvlink_links": 18 | None,       # fewest bonded NVLinks between any NVLink-joined pair
         "nvlink_complete": True | False | None}   # every GPU pair joined by NVLink?

    ``NV#`` between two GPUs means a bonded set of # NVLinks; when any pair has one the
    interconnect is ``"NVLink"`` (``nvlink_complete`` says whether all pairs do); when the pairs
    show only ``PIX``/``PXB``/``PHB``/``NODE``/``SYS`` it is ``"PCIe"`` (the legend nvidia-smi prints
    is the source of these meanings). One GPU, or no matrix: ``interconnect`` is ``None``.
    Never raises.
    """
    lines = _clean(text).splitlines()
    columns: list[str] = []
    body_start = 0
    for i, line in enumerate(lines):
        tokens = line.split()
        labels = [t for t in tokens if _DEVICE_LABEL.match(t)]
        # The header is the first line whose leading tokens are device labels and which does not
        # itself start with a row label followed by link cells.
        if labels and tokens[: len(labels)] == labels and (len(tokens) == len(labels) or not _is_cell(tokens[1])):
            columns = labels
            body_start = i + 1
            break
    matrix: dict[str, dict[str, str]] = {}
    cpu_affinity: dict[str, str] = {}
    numa_affinity: dict[str, str] = {}
    for line in lines[body_start:] if columns else []:
        tokens = line.split()
        if not tokens or not _DEVICE_LABEL.match(tokens[0]):
            if tokens and tokens[0].startswith("Legend"):
                break
            continue
        label, cells = tokens[0], tokens[1 : 1 + len(columns)]
        if len(cells) < len(columns):
            continue
        row = dict(zip(columns, cells, strict=True))
        rest = tokens[1 + len(columns) :]
        if label.startswith("GPU"):  # NIC rows only name the links to NICs, which kb does not record
            matrix[label] = {c: v for c, v in row.items() if c.startswith("GPU")}
            if rest:
                cpu_affinity[label] = rest[0]
            if len(rest) > 1:
                numa_affinity[label] = rest[1]
    gpus = [c for c in columns if c.startswith("GPU") and c in matrix]
    pairs = [matrix[a][b] for i, a in enumerate(gpus) for b in gpus[i + 1 :] if b in matrix[a]]
    nv = [int(m.group(1)) for m in (_NVLINK.match(p) for p in pairs) if m]
    if nv:
        interconnect, links, complete = "NVLink", min(nv), len(nv) == len(pairs)
    elif pairs and all(p in _PCIE_LINKS for p in pairs):
        interconnect, links, complete = "PCIe", None, False
    else:
        interconnect, links, complete = None, None, None
    return {
        "gpus": gpus,
        "matrix": matrix,
        "nics": [c for c in columns if c.startswith("NIC")],
        "cpu_affinity": cpu_affinity,
        "numa_affinity": numa_affinity,
        "interconnect": interconnect,
        "nvlink_links": links,
        "nvlink_complete": complete,
    }


def _is_cell(token: str) -> bool:
    return token == "X" or token in _PCIE_LINKS or bool(_NVLINK.match(token))


def parse_nvcc_version(text: str) -> dict[str, str | None]:
    """Read the CUDA toolkit version from ``nvcc --version``.

    Returns ``{"toolkit": "13.0.88", "release": "13.0", "path": "/usr/local/cuda/bin/nvcc" | None}``:
    ``toolkit`` is nvcc's full version (``release 13.0, V13.0.88`` → ``"13.0.88"``); when only the
    ``Build cuda_12.8.r12.8/compiler.35583870_0`` line is there, both ``toolkit`` and ``release``
    are ``"12.8"``. ``path`` is a leading absolute path line (``command -v nvcc`` output) if
    present. Unreadable text gives ``None`` values. Never raises.

    >>> parse_nvcc_version("Build cuda_12.8.r12.8/compiler.35583870_0")
    {'toolkit': '12.8', 'release': '12.8', 'path': None}
    """
    text = _clean(text)
    release = re.search(r"release\s+(\d+(?:\.\d+)*)\s*,\s*V(\d+(?:\.\d+)*)", text)
    path = re.search(r"^(/\S*nvcc)\s*$", text, re.MULTILINE)
    if release:
        return {"toolkit": release.group(2), "release": release.group(1), "path": path and path.group(1)}
    build = re.search(r"Build\s+cuda_(\d+(?:\.\d+)*)\.r", text)
    version = build.group(1) if build else None
    return {"toolkit": version, "release": version, "path": path and path.group(1)}


def parse_pip_freeze(text: str) -> dict[str, str]:
    """Read ``pip freeze`` or ``pip list`` output into ``{canonical name: version}``.

    Names are normalised by PEP 503 (``Jinja2`` → ``jinja2``, ``sgl_kernel`` → ``sgl-kernel``);
    versions are kept verbatim, local tags included (``2.11.0+cu130``). Accepts ``name==version``,
    ``name===version``, ``name @ url`` (version unknown: skipped), ``-e`` lines (skipped), comments
    and the ``Package Version`` / ``-------`` header of ``pip list``. Never raises.

    >>> parse_pip_freeze("Jinja2==3.1.6\\nsgl_kernel==0.3.21\\n")
    {'jinja2': '3.1.6', 'sgl-kernel': '0.3.21'}
    """
    packages: dict[str, str] = {}
    for raw in _clean(text).splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")) or " @ " in line:
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*(\S+)$", line)
        if not m:
            m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s+(\d\S*)(?:\s+\S.*)?$", line)  # pip list
        if m:
            packages[canonicalize_name(m.group(1))] = m.group(2)
    return packages


def parse_torch_probe(text: str) -> dict[str, Any]:
    """Read the output of :data:`TORCH_PROBE_SCRIPT` (the format of ``torch-probe.txt`` fixtures).

    Returns ``{"python": "3.12.3", "torch": "2.11.0+cu130", "torch_cuda": "13.0" | None,
    "cuda_available": bool | None, "device_count": int | None, "devices": [{"index": 0,
    "name": "NVIDIA H200", "capability": "9.0", "memory_bytes": 150109880320}],
    "nccl": "2.28.9" | None, "triton": "3.6.0" | None, "dists": {"flashinfer-python": "0.6.4"},
    "errors": {"torch": "ModuleNotFoundError: ..."}}``; keys of facts not printed are absent.
    ``torch.__version__`` keeps its local tag verbatim (``dists`` holds the metadata's, often without
    it: ``dist torch 2.11.0``). ``nccl`` accepts torch's tuple ``(2, 28, 9)`` and the older
    integer code (``21805`` → 2.18.5, ``2708`` → 2.7.8: NCCL_VERSION_CODE, which changed from
    ``X*1000+Y*100+Z`` to ``X*10000+Y*100+Z`` at 2.9). Never raises.
    """
    out: dict[str, Any] = {"devices": [], "errors": {}}
    device = re.compile(r"^device (\d+) (.+?) capability \((\d+), (\d+)\)(?: memory_bytes (\d+))?$")
    for raw in _clean(text).splitlines():
        line = raw.strip()
        m = device.match(line)
        if m:
            out["devices"].append(
                {
                    "index": int(m.group(1)),
                    "name": m.group(2),
                    "capability": f"{m.group(3)}.{m.group(4)}",
                    "memory_bytes": int(m.group(5)) if m.group(5) else None,
                }
            )
            continue
        key, _, value = line.partition(" ")
        value = value.strip()
        if key.endswith("-error"):
            out["errors"][key[: -len("-error")]] = value
        elif line.startswith("torch.version.cuda"):
            cuda = line[len("torch.version.cuda") :].strip()
            out["torch_cuda"] = None if cuda in ("", "None") else cuda
        elif line.startswith("cuda available"):
            out["cuda_available"] = line.split()[-1] == "True"
        elif key == "device_count" and value.isdigit():
            out["device_count"] = int(value)
        elif key == "nccl":
            out["nccl"] = _nccl_version(value)
        elif key == "dist" and len(value.split()) == 2:
            dist, version = value.split()
            out.setdefault("dists", {})[canonicalize_name(dist)] = version
        elif key in ("python", "torch", "triton") and value and value != "None":
            out[key] = value
    return out


def _nccl_version(value: str) -> str | None:
    numbers = [int(n) for n in re.findall(r"\d+", value)]
    if len(numbers) >= 3:
        return ".".join(str(n) for n in numbers[:3])
    if len(numbers) == 1:
        code = numbers[0]
        if code >= 10000:
            return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
        return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"
    return None


def arch_for_capability(capability: str) -> str | None:
    """The ``sm_XY`` name of a compute capability (``"9.0"`` → ``"sm_90"``, ``"12.0"`` →
    ``"sm_120"``), as nvcc's ``-arch`` spells it; ``None`` if ``capability`` is not ``major.minor``."""
    m = re.match(r"^\s*(\d+)\.(\d+)\s*$", capability or "")
    return f"sm_{m.group(1)}{m.group(2)}" if m else None


def components_from_packages(packages: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Pick the components kb tracks out of ``{distribution name: version}`` (e.g. from
    :func:`parse_pip_freeze` or :mod:`importlib.metadata`).

    Returns ``(components, distributions)``: ``{"torch": "2.11.0", "nccl": "2.28.9", ...}`` and, for
    each component found, the distribution it was read from (``{"nccl": "nvidia-nccl-cu13"}``).
    Names are matched after PEP 503 normalisation; :data:`COMPONENT_DISTRIBUTIONS` says which
    distribution provides which component.
    """
    normal = {canonicalize_name(k): v for k, v in packages.items()}
    components: dict[str, str] = {}
    distributions: dict[str, str] = {}
    for component, dists in COMPONENT_DISTRIBUTIONS.items():
        for dist in dists:
            if dist in normal:
                components[component] = normal[dist]
                distributions[component] = dist
                break
    return components, distributions


# --------------------------------------------------------------------------- finding tools


def _version_key(path: Path) -> tuple[Version, int]:
    suffix = path.name.partition("-")[2]
    try:
        return Version(suffix), len(suffix)
    except InvalidVersion:
        return Version("0"), 0


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_tool(
    name: str,
    prefixes: Iterable[str] = (),
    *,
    search_path: str | None = None,
    root: str | os.PathLike[str] = "/",
) -> Path | None:
    """Find executable ``name`` on PATH, else in ``prefixes`` (folders holding it, searched in order).

    ``search_path`` replaces ``$PATH`` (``None``: the environment's). ``root`` is prepended to each
    prefix (tests point it at a fake filesystem). A prefix may end in a glob (``/usr/local/cuda-*``,
    then ``bin/`` is looked in); matches are tried highest version first (``cuda-12.10`` before
    ``cuda-12.9``, by :class:`packaging.version.Version`). Returns the path or ``None``; never raises.
    """
    found = shutil.which(name, path=search_path)
    if found:
        return Path(found)
    base = Path(root)
    for prefix in prefixes:
        rel = prefix.lstrip("/")
        if "*" in rel:
            parent, pattern = os.path.split(rel)
            candidates = sorted((base / parent).glob(pattern), key=_version_key, reverse=True)
            paths = [c / "bin" / name for c in candidates]
        else:
            paths = [base / rel / name]
        for path in paths:
            if _executable(path):
                return path
    return None


def find_nvcc(
    *,
    search_path: str | None = None,
    root: str | os.PathLike[str] = "/",
    env: Mapping[str, str] | None = None,
) -> Path | None:
    """Find ``nvcc``: on PATH, else ``$CUDA_HOME/bin``, ``$CUDA_PATH/bin``, then
    :data:`CUDA_PREFIXES` (``/usr/local/cuda/bin``, the highest ``/usr/local/cuda-X.Y/bin``,
    ``/opt/cuda/bin``) under ``root``. ``env`` replaces ``os.environ`` for the two variables.
    Returns the path or ``None``; never raises.
    """
    env = os.environ if env is None else env
    homes = [env[v] for v in ("CUDA_HOME", "CUDA_PATH") if env.get(v)]
    prefixes = [f"{h.rstrip('/')}/bin" for h in homes]
    prefixes += [p if "*" in p else f"{p}/bin" for p in CUDA_PREFIXES]
    return find_tool("nvcc", prefixes, search_path=search_path, root=root)


# --------------------------------------------------------------------------- running probes


@dataclass(frozen=True)
class ProbeResult:
    """What one command printed: exit status, standard output and standard error (text)."""

    returncode: int
    stdout: str
    stderr: str = ""


Runner = Callable[[Sequence[str], float], ProbeResult]
"""Runs ``argv`` with a timeout in seconds. Raises ``FileNotFoundError`` (or another ``OSError``)
when the program cannot start and ``subprocess.TimeoutExpired`` when it runs too long; a non-zero
exit is a result, not an error."""


def run_subprocess(argv: Sequence[str], timeout_s: float) -> ProbeResult:
    """The default :data:`Runner`: run ``argv`` (no shell) and wait at most ``timeout_s`` seconds.

    The command runs in its own process session so that, on timeout, it and any children it
    started are killed together. Raises ``FileNotFoundError``/``OSError`` (cannot start) or
    ``subprocess.TimeoutExpired`` (killed after ``timeout_s``).
    """
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.communicate()
        raise
    return ProbeResult(proc.returncode, out, err)


def _metadata_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a broken dist-info must not break a capture
        return None


# --------------------------------------------------------------------------- the capture


@dataclass
class Capture:
    """What :func:`capture_machine` read about this machine.

    - ``components``: canonical component → version string, local tags verbatim: ``driver``,
      ``cuda`` (toolkit, from nvcc), ``cuda-driver`` (CUDA version the driver supports), ``torch``,
      ``torch-cuda`` (``torch.version.cuda``), ``nccl``, ``flashinfer``, ``sglang``, ``sgl-kernel``,
      ``vllm``, ``triton``; a component not found is absent.
    - ``platform``: ``gpu`` (name; several names joined by ``" + "`` when GPUs differ),
      ``gpu_count`` (int), ``compute_capability`` (``"9.0"``), ``arch`` (``"sm_90"``),
      ``interconnect`` (``"NVLink"``/``"PCIe"``/``None``), ``nvlink_links`` (int or ``None``),
      ``memory_gib`` (float, per GPU, 1 decimal), ``topology`` (the ``topo -m`` GPU matrix);
      keys of facts not found are absent.
    - ``notes``: what could not be probed and why (``"nvidia-smi not found ..."``).
    - ``sources``: component or platform key → the command it came from.
    - ``captured_at``: ISO 8601 UTC time of the capture; ``host``: Python version, OS, machine.
    """

    components: dict[str, str] = field(default_factory=dict)
    platform: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    captured_at: str = ""
    host: dict[str, str] = field(default_factory=dict)

    def host_facts(self) -> str:
        """One line summing up the machine: ``"2× NVIDIA H200 (NVLink, NV18), driver 580.159.04,
        Python 3.12.3, Linux x86_64"`` (parts that were not found are left out)."""
        parts: list[str] = []
        p = self.platform
        if p.get("gpu"):
            gpu = f"{p.get('gpu_count', 1)}× {p['gpu']}"
            if p.get("interconnect") == "NVLink" and p.get("nvlink_links"):
                gpu += f" (NVLink, NV{p['nvlink_links']})"
            elif p.get("interconnect"):
                gpu += f" ({p['interconnect']})"
            parts.append(gpu)
        else:
            parts.append("no GPU found")
        if self.components.get("driver"):
            parts.append(f"driver {self.components['driver']}")
        if self.host.get("python"):
            parts.append(f"Python {self.host['python']}")
        system = " ".join(v for v in (self.host.get("system"), self.host.get("machine")) if v)
        if system:
            parts.append(system)
        return ", ".join(parts)

    def _notes_markdown(self, with_sources: bool) -> str | None:
        lines = [f"- {n}" for n in self.notes]
        if with_sources and self.sources:
            if lines:
                lines.append("")
            lines.append("Captured from:")
            lines += [f"- `{k}`: {v}" for k, v in sorted(self.sources.items())]
        return "\n".join(lines) or None

    def to_stack_dict(self, id: str, title: str, *, component_sources: bool = False) -> dict[str, Any]:
        """A stack record as a plain dict: ``{"id", "title", "components": {name: version},
        "captured": {"at": ISO 8601, "by": "kb capture", "host_facts": str}, "notes": Markdown}``.

        With ``component_sources`` each component is ``{"version": ..., "source": command}``
        instead of a bare version string. ``notes`` lists what could not be probed and where each
        component came from; it is absent when there is nothing to say.
        """
        components: dict[str, Any] = {}
        for name, version in self.components.items():
            if component_sources and name in self.sources:
                components[name] = {"version": version, "source": self.sources[name]}
            else:
                components[name] = version
        record: dict[str, Any] = {
            "id": id,
            "title": title,
            "components": components,
            "captured": {"at": self.captured_at, "by": "kb capture", "host_facts": self.host_facts()},
        }
        notes = self._notes_markdown(with_sources=not component_sources)
        if notes:
            record["notes"] = notes
        return record

    def to_platform_dict(self, id: str, title: str) -> dict[str, Any]:
        """A platform record as a plain dict: ``{"id", "title", "gpu", "gpu_count",
        "compute_capability", "arch", "interconnect", "nvlink", "memory_gib", "notes"}``.

        Keys whose fact was not found are left out (a machine without a GPU gives only ``id``,
        ``title`` and ``notes``). ``nvlink`` is ``True`` when the GPUs are joined by NVLink and
        ``False`` for PCIe only; the NVLink link count goes into ``notes`` (``NV18``).
        """
        p = self.platform
        record: dict[str, Any] = {"id": id, "title": title}
        for key in ("gpu", "gpu_count", "compute_capability", "arch", "interconnect", "memory_gib"):
            if p.get(key) is not None:
                record[key] = p[key]
        if p.get("interconnect") in ("NVLink", "PCIe"):
            record["nvlink"] = p["interconnect"] == "NVLink"
        notes: list[str] = []
        if p.get("nvlink_links"):
            notes.append(
                f"- `nvidia-smi topo -m`: NV{p['nvlink_links']} ({p['nvlink_links']} bonded NVLinks) between GPU pairs"
            )
        notes += [f"- {n}" for n in self.notes if not n.startswith(("not installed", "torch"))]
        notes.append(f"- captured {self.captured_at} by kb capture: {self.host_facts()}")
        record["notes"] = "\n".join(notes)
        return record


def capture_machine(
    timeout_s: float = 10.0,
    runner: Runner | None = None,
    *,
    python: str | None = None,
    search_path: str | None = None,
    root: str | os.PathLike[str] = "/",
    env: Mapping[str, str] | None = None,
    metadata: Callable[[str], str | None] | None = None,
) -> Capture:
    """Probe this machine's GPUs, driver, CUDA toolkit and Python packages into a :class:`Capture`.

    Probes, run side by side, each optional and killed after ``timeout_s`` seconds:
    ``nvidia-smi``; ``nvidia-smi --query-gpu=...`` (:data:`QUERY_GPU_FIELDS`); ``nvidia-smi topo -m``
    (read only when there are two or more GPUs); ``nvcc --version`` (found by :func:`find_nvcc`); and
    ``python -c`` :data:`TORCH_PROBE_SCRIPT` for torch's runtime facts. Package versions come from
    :mod:`importlib.metadata` as the probe script reads it in ``python`` (the interpreter that runs the
    inference stack, which need not be kb's own, e.g. when kb is installed with pipx); when the probe
    gives none, from this interpreter (``metadata(dist) -> version | None`` replaces that lookup).

    Precedence: torch's own ``__version__`` (local tag kept) over the distribution's metadata; NCCL
    from ``torch.cuda.nccl.version()`` over the ``nvidia-nccl-cu*`` wheel; GPU names, capability
    and memory from the CSV query over the table and torch. Every fact's command is in ``sources``.

    ``runner`` replaces :func:`run_subprocess` (tests pass canned output); ``python`` is the
    interpreter probed (default ``sys.executable``); ``search_path``, ``root`` and ``env`` replace
    ``$PATH``, ``/`` and ``os.environ`` when finding tools. Never raises for a missing tool, a
    timeout, a failing command or unreadable output: each becomes a line in ``notes``.
    """
    run = runner or run_subprocess
    python = python or sys.executable
    metadata = metadata or _metadata_version
    cap = Capture(
        captured_at=_dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        host={"system": _platform.system(), "machine": _platform.machine()},
    )

    def probe(argv: Sequence[str], label: str) -> tuple[ProbeResult | None, str | None]:
        """Run one probe; return its result, or ``None`` and the note saying why not."""
        try:
            result = run(argv, timeout_s)
        except FileNotFoundError:
            return None, f"{label} not found"
        except subprocess.TimeoutExpired:
            return None, f"{label} timed out after {timeout_s:g} s"
        except OSError as exc:
            return None, f"{label} could not run: {exc}"
        except Exception as exc:  # noqa: BLE001 - a runner's bug must not lose the rest of the capture
            return None, f"{label} failed: {type(exc).__name__}: {exc}"
        if result.returncode != 0:
            why = (result.stderr.strip() or result.stdout.strip()).splitlines()
            return None, f"{label} exited {result.returncode}" + (f": {why[0].strip()}" if why else "")
        return result, None

    smi = find_tool("nvidia-smi", NVIDIA_SMI_PREFIXES, search_path=search_path, root=root)
    nvcc = find_nvcc(search_path=search_path, root=root, env=env)
    jobs: dict[str, tuple[list[str], str]] = {}
    missing: dict[str, tuple[None, str]] = {}
    if smi:
        jobs["smi"] = ([str(smi)], "nvidia-smi")
        query = [str(smi), f"--query-gpu={','.join(QUERY_GPU_FIELDS)}", "--format=csv"]
        jobs["query"] = (query, "nvidia-smi --query-gpu")
        jobs["topo"] = ([str(smi), "topo", "-m"], "nvidia-smi topo -m")
    else:
        where = ", ".join(NVIDIA_SMI_PREFIXES)
        missing["smi"] = (None, f"nvidia-smi not found on PATH nor in {where}: no driver or GPU facts")
    if nvcc:
        jobs["nvcc"] = ([str(nvcc), "--version"], f"nvcc ({nvcc})")
    else:
        missing["nvcc"] = (
            None,
            (
                "nvcc not found on PATH, $CUDA_HOME, $CUDA_PATH nor in /usr/local/cuda/bin, "
                "/usr/local/cuda-*/bin, /opt/cuda/bin: CUDA toolkit version unknown"
            ),
        )
    jobs["torch"] = ([python, "-c", TORCH_PROBE_SCRIPT], "torch probe")
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {key: pool.submit(probe, argv, label) for key, (argv, label) in jobs.items()}
        done = {key: future.result() for key, future in futures.items()}
    # Fixed order, so that notes read the same whichever probe finished first.
    order = ("smi", "query", "topo", "nvcc", "torch")
    outcomes = {key: done[key] if key in done else missing[key] for key in order if key in done or key in missing}
    results = {key: result for key, (result, _) in outcomes.items()}
    smi_reason = _reason(outcomes.get("smi", (None, None))[1], "nvidia-smi")
    for key, (_, note) in outcomes.items():
        if note is None:
            continue
        if key in ("query", "topo") and smi_reason and _reason(note, jobs[key][1]) == smi_reason:
            continue  # nvidia-smi's own failure, already noted once
        cap.notes.append(note)

    try:
        _merge(cap, results, nvcc=nvcc, python=python, metadata=metadata)
    except Exception as exc:  # noqa: BLE001 - a parser bug must not cost the facts already read
        cap.notes.append(f"capture incomplete: {type(exc).__name__}: {exc}")
    return cap


def _merge(
    cap: Capture,
    results: Mapping[str, ProbeResult | None],
    *,
    nvcc: Path | None,
    python: str,
    metadata: Callable[[str], str | None],
) -> None:
    comp, src, plat = cap.components, cap.sources, cap.platform

    # --- driver and GPUs
    smi = parse_nvidia_smi(results["smi"].stdout) if results.get("smi") else None
    query = parse_nvidia_smi_query_csv(results["query"].stdout) if results.get("query") else []
    torch = parse_torch_probe(results["torch"].stdout) if results.get("torch") else None
    if smi and smi["driver"]:
        comp["driver"], src["driver"] = smi["driver"], "nvidia-smi"
    elif query and query[0].get("driver_version"):
        comp["driver"], src["driver"] = query[0]["driver_version"], "nvidia-smi --query-gpu=driver_version"
    if smi and smi["cuda_driver"]:
        comp["cuda-driver"], src["cuda-driver"] = smi["cuda_driver"], "nvidia-smi (CUDA Version)"

    if query:
        gpus = [
            {"name": g.get("name"), "capability": g.get("compute_cap"), "mib": g.get("memory_total_mib")} for g in query
        ]
        gpu_src = "nvidia-smi --query-gpu"
    elif smi and smi["gpus"]:
        gpus = [{"name": g["name"], "capability": None, "mib": g["memory_total_mib"]} for g in smi["gpus"]]
        gpu_src = "nvidia-smi"
    elif torch and torch["devices"]:
        gpus = [
            {"name": d["name"], "capability": d["capability"], "mib": (d["memory_bytes"] or 0) / 2**20 or None}
            for d in torch["devices"]
        ]
        gpu_src = "torch probe (torch.cuda.get_device_properties)"
    else:
        gpus = []
    if gpus:
        names = list(dict.fromkeys(g["name"] for g in gpus if g["name"]))
        if names:
            plat["gpu"] = " + ".join(names)
        if len(names) > 1:
            cap.notes.append(f"GPUs differ: {', '.join(names)}; platform facts are those of GPU 0")
        plat["gpu_count"] = len(gpus)
        src["gpu"] = src["gpu_count"] = gpu_src
        capability = gpus[0]["capability"]
        if not capability and torch and torch["devices"]:
            capability = torch["devices"][0]["capability"]
            src["compute_capability"] = "torch probe (torch.cuda.get_device_capability)"
        elif capability:
            src["compute_capability"] = gpu_src
        if capability:
            plat["compute_capability"] = capability
            arch = arch_for_capability(capability)
            if arch:
                plat["arch"] = arch
        else:
            cap.notes.append("compute capability unknown (needs nvidia-smi from driver 510+, or torch with CUDA)")
        if gpus[0]["mib"]:
            plat["memory_gib"] = round(gpus[0]["mib"] / 1024, 1)
            src["memory_gib"] = gpu_src
        # --- interconnect
        if len(gpus) >= 2:
            topo = parse_topology(results["topo"].stdout) if results.get("topo") else None
            if topo and topo["interconnect"]:
                plat["interconnect"] = topo["interconnect"]
                plat["nvlink_links"] = topo["nvlink_links"]
                plat["topology"] = topo["matrix"]
                src["interconnect"] = "nvidia-smi topo -m"
                if topo["interconnect"] == "NVLink" and not topo["nvlink_complete"]:
                    cap.notes.append("NVLink joins only some GPU pairs; the others go through PCIe")
            elif results.get("topo"):
                cap.notes.append("nvidia-smi topo -m: no GPU link matrix found in its output")
        else:
            cap.notes.append("one GPU: no GPU-to-GPU interconnect to report")
    elif smi is not None or query:
        cap.notes.append("nvidia-smi ran but listed no GPU")

    # --- CUDA toolkit
    if results.get("nvcc"):
        nv = parse_nvcc_version(results["nvcc"].stdout)
        if nv["toolkit"]:
            comp["cuda"], src["cuda"] = nv["toolkit"], f"{nvcc} --version"
        else:
            cap.notes.append(f"{nvcc} --version: no version found in its output")

    # --- Python packages: the probed interpreter's metadata (else this one's), then torch's own facts
    if torch and torch.get("dists"):
        installed, how = torch["dists"], f"importlib.metadata in {python}"
    else:
        installed = {d: v for ds in COMPONENT_DISTRIBUTIONS.values() for d in ds if (v := metadata(d))}
        how = "importlib.metadata"
    found, dists = components_from_packages(installed)
    for name, version in found.items():
        comp[name], src[name] = version, f"{how} ({dists[name]})"
    missing = [c for c in COMPONENT_DISTRIBUTIONS if c not in found and c != "nccl"]
    if torch is not None:
        for key, name, what in (
            ("torch", "torch", "torch.__version__"),
            ("torch_cuda", "torch-cuda", "torch.version.cuda"),
            ("nccl", "nccl", "torch.cuda.nccl.version()"),
            ("triton", "triton", "triton.__version__"),
        ):
            if torch.get(key):
                meta = comp.get(name)
                if meta and name == "torch" and _public(meta) != _public(torch[key]):
                    cap.notes.append(
                        f"torch {torch[key]} imported by {python} differs from the installed metadata {meta}"
                    )
                comp[name], src[name] = torch[key], f"torch probe ({what})"
                if name in missing:
                    missing.remove(name)
        for what, error in torch["errors"].items():
            if what in comp or (what in missing and error.startswith("ModuleNotFoundError")):
                continue  # read another way, or already reported as not installed
            cap.notes.append(f"torch probe: {what} could not be read in {python}: {error}")
        if torch.get("torch") and not torch.get("torch_cuda"):
            cap.notes.append("torch is a CPU-only build (torch.version.cuda is None)")
        if torch.get("cuda_available") is False:
            cap.notes.append("torch sees no CUDA device (torch.cuda.is_available() is False)")
    if missing:
        cap.notes.append(f"not installed in {python}: {', '.join(missing)}")
    cap.host["python"] = (torch or {}).get("python") or _platform.python_version()


def _reason(note: str | None, label: str) -> str | None:
    """The part of a probe's note after its label (``"nvidia-smi exited 9: ..."`` → ``"exited 9: ..."``)."""
    return note[len(label) :].strip() if note and note.startswith(label) else None


def _public(version: str) -> str:
    try:
        return Version(version).public
    except InvalidVersion:
        return version
