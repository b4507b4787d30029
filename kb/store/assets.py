"""The records folder's ``assets/``: images and files that record text links to."""

from __future__ import annotations

from pathlib import Path

from kb.leftovers import leftover_kind
from kb.store.entries import not_utf8

ASSETS_FOLDER = "assets"
"""``records/assets/``: images and files that record text links to (``![timeline](timeline.png)``),
published beside the site's pages; see :func:`list_assets`."""


def list_assets(root: str | Path) -> dict[str, Path]:
    """Regular files under ``<root>/assets/`` by their path relative to it (``nccl/timeline.png``),
    hidden files, editor leftovers and names that are not UTF-8 left out (the load reports those,
    and symlink loops and FIFOs there: :func:`kb.store.listing.scan`); linked folders are not
    entered; ``{}`` when there is no such folder."""
    base = Path(root) / ASSETS_FOLDER
    if not base.is_dir():
        return {}
    out = {}
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base)
        if (p.is_file() and not any(part.startswith(".") for part in rel.parts) and not leftover_kind(p.name)
                and not_utf8(str(rel)) is None):
            out[rel.as_posix()] = p
    return out
