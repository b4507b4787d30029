"""Parsers of the tool output kb reads, shared by ``kb capture`` and ``kb import``.

Pure functions from a tool's text to plain data, tested on real output
(``tests/fixtures/capture/``): :func:`parse_nvidia_smi`, :func:`parse_nvidia_smi_query_csv`,
:func:`parse_topology`, :func:`parse_nvcc_version`, :func:`parse_pip_freeze`,
:func:`parse_torch_probe`. They never raise on unexpected text: what they cannot read is left
out (``None`` or absent), so a changed tool degrades a capture or an import instead of breaking it.

>>> parse_nvcc_version("Cuda compilation tools, release 13.0, V13.0.88")["toolkit"]
'13.0.88'
>>> parse_topology("\\tGPU0\\tGPU1\\nGPU0\\t X \\tNV18\\nGPU1\\tNV18\\t X \\n")["interconnect"]
'NVLink'
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from typing import Any

from packaging.utils import canonicalize_name

QUERY_GPU_FIELDS: tuple[str, ...] = (
    "index",
    "name",
    "compute_cap",
    "driver_version",
    "memory.total",
    "pci.bus_id",
)
"""Fields asked of ``nvidia-smi --query-gpu`` (``compute_cap`` needs driver 510 or later)."""

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
