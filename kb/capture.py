"""Capture the software stack and platform of the machine kb runs on (``kb capture``).

:func:`capture_machine` finds and runs each tool (every probe optional, each bounded by a
timeout, run side by side) and merges what the parsers of :mod:`kb.toolout` read into a
:class:`Capture`: components (``driver``, ``cuda``, ``torch``, ...), platform facts, the command
each fact came from, and notes saying what could not be probed and why.

Only the standard library and :mod:`packaging`; nothing here imports torch itself (torch is
probed in a subprocess, :data:`TORCH_PROBE_SCRIPT`, so a broken CUDA install cannot hang or crash
kb).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as _dt
import os
import platform as _platform
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from kb.probes import (
    CUDA_PREFIXES,
    NVIDIA_SMI_PREFIXES,
    ProbeResult,
    Runner,
    _metadata_version,
    find_nvcc,
    find_tool,
    run_subprocess,
)
from kb.toolout import (
    QUERY_GPU_FIELDS,
    parse_nvcc_version,
    parse_nvidia_smi,
    parse_nvidia_smi_query_csv,
    parse_topology,
    parse_torch_probe,
)
from kb.versions import (
    CAPTURED_COMPONENTS,
    COMPONENTS,
    arch_of,
    components_from_packages,
)

__all__ = [
    "CUDA_PREFIXES",
    "NVIDIA_SMI_PREFIXES",
    "TORCH_PROBE_SCRIPT",
    "Capture",
    "ProbeResult",
    "Runner",
    "capture_machine",
    "find_nvcc",
    "find_tool",
    "run_subprocess",
]


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
""".replace("DISTRIBUTIONS", repr(tuple(d for c in CAPTURED_COMPONENTS for d in COMPONENTS[c])))
"""Python run in a subprocess (``python -c``) to read torch's runtime facts and the versions of
:data:`kb.versions.CAPTURED_COMPONENTS` installed in that interpreter; prints the line format
:func:`parse_torch_probe` reads (``torch 2.11.0+cu130``, ``nccl (2, 28, 9)``,
``dist flashinfer-python 0.6.4``, ...)."""


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
    def out(name: str) -> str | None:
        result = results.get(name)
        return result.stdout if result is not None else None

    smi = parse_nvidia_smi(text) if (text := out("smi")) else None
    query = parse_nvidia_smi_query_csv(text) if (text := out("query")) else []
    torch = parse_torch_probe(text) if (text := out("torch")) else None
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
            with contextlib.suppress(ValueError):
                plat["arch"] = arch_of(capability)
        else:
            cap.notes.append("compute capability unknown (needs nvidia-smi from driver 510+, or torch with CUDA)")
        if gpus[0]["mib"]:
            plat["memory_gib"] = round(gpus[0]["mib"] / 1024, 1)
            src["memory_gib"] = gpu_src
        # --- interconnect
        if len(gpus) >= 2:
            topo = parse_topology(text) if (text := out("topo")) else None
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
    if (text := out("nvcc")) is not None:
        nv = parse_nvcc_version(text)
        if nv["toolkit"]:
            comp["cuda"], src["cuda"] = nv["toolkit"], f"{nvcc} --version"
        else:
            cap.notes.append(f"{nvcc} --version: no version found in its output")

    # --- Python packages: the probed interpreter's metadata (else this one's), then torch's own facts
    if torch and torch.get("dists"):
        installed, how = torch["dists"], f"importlib.metadata in {python}"
    else:
        installed = {d: v for c in CAPTURED_COMPONENTS for d in COMPONENTS[c] if (v := metadata(d))}
        how = "importlib.metadata"
    found, dists = components_from_packages(installed)
    for name, version in found.items():
        comp[name], src[name] = version, f"{how} ({dists[name]})"
    missing = [c for c in CAPTURED_COMPONENTS if c not in found and c != "nccl"]
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
