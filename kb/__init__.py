"""kb: a knowledge base of engineering attempts, blockers, root causes and decisions.

Pipeline (see DESIGN.md): models → store → graph → queries → presentation (CLI, MkDocs plugin,
importers). :mod:`kb.pipeline` runs load → check → link once for every entry point.

``kb.__version__`` is kb's version, read from the installed package's metadata (pyproject.toml is
its one source) the first time it is asked for: reading package metadata costs a noticeable part
of a short command's start-up, and most commands never need it.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("kb")
        except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
            value = "0+unknown"
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module 'kb' has no attribute {name!r}")
