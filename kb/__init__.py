"""kb: a knowledge base of engineering attempts, blockers, root causes and decisions.

Pipeline (see DESIGN.md): models → store → graph → queries → presentation (CLI, MkDocs plugin,
importers). :mod:`kb.pipeline` runs load → check → link once for every entry point.

As a library: ``kb.load(records)`` loads once and answers ``roots``, ``why``, ``unblocks`` and
``diff`` in process; ``kb.check``, ``kb.roots``, ``kb.why``, ``kb.unblocks``, ``kb.diff`` take a
records folder too (:mod:`kb.api`).

``kb.__version__`` is kb's version, read from the installed package's metadata (pyproject.toml is
its one source) the first time it is asked for: reading package metadata costs a noticeable part
of a short command's start-up, and most commands never need it.
"""

from typing import Any

__all__ = ["Knowledge", "Run", "__version__", "check", "diff", "load", "log_attempt", "record_run", "roots", "unblocks",
           "why"]

DISTRIBUTION = "kb-campaign"
"""kb's distribution name (what pip installs; the package and the command stay ``kb``): the name
``kb`` on PyPI belongs to an unrelated project."""

_API = frozenset({"Knowledge", "Run", "check", "diff", "load", "log_attempt", "record_run", "roots", "unblocks", "why"})


def __getattr__(name: str) -> Any:
    if name in _API:  # the library API (kb.api), imported when first asked for: the CLI never pays for it
        import importlib

        value = getattr(importlib.import_module("kb.api"), name)
        globals()[name] = value
        return value
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version(DISTRIBUTION)
        except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
            value = "0+unknown"
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module 'kb' has no attribute {name!r}")
