"""Finding and running the tools ``kb capture`` probes: where nvcc and nvidia-smi live when they
are not on PATH, a bounded subprocess runner, and installed distributions' versions.

Each probe is optional and bounded by a timeout; a tool that is missing, hangs or fails gives a
:class:`ProbeResult` saying so, never an exception.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

CUDA_PREFIXES: tuple[str, ...] = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda")
"""Where a CUDA toolkit is installed when ``nvcc`` is not on PATH, in the order searched.

``/usr/local/cuda`` is the distribution's chosen default (a symlink, often through
``/etc/alternatives``); among versioned ``/usr/local/cuda-X.Y`` folders the highest version wins;
``/opt/cuda`` is Arch Linux's prefix. ``$CUDA_HOME`` and ``$CUDA_PATH`` are tried before all of them.
"""

NVIDIA_SMI_PREFIXES: tuple[str, ...] = ("/usr/bin", "/usr/local/nvidia/bin", "/usr/lib/wsl/lib")
"""Where ``nvidia-smi`` lives when it is not on PATH (distribution package, containers that mount
the driver under ``/usr/local/nvidia``, WSL)."""

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
    proc = subprocess.Popen(  # noqa: S603 - the probes' own fixed argv (nvidia-smi, nvcc, pip), no shell
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
