"""kb: a knowledge base of engineering attempts, blockers, root causes and decisions.

Pipeline (see DESIGN.md): models → store → graph → queries → presentation (CLI, MkDocs plugin,
importers). :mod:`kb.pipeline` runs load → check → link once for every entry point.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kb")
    """kb's version, read from the installed package's metadata (pyproject.toml is its one source)."""
except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
    __version__ = "0+unknown"
