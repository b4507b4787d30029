"""The records folder's ``assets/``: images and files that record text links to."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Any

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


def save_asset(root: str | Path, rel: str, data: bytes) -> str:
    """Write ``data`` as ``<root>/assets/<rel>`` (a file a record's text links to) and return the
    path under ``assets/`` it is at: ``rel`` itself, or ``rel`` when a file with the same bytes is
    already there (nothing written), else ``<stem>-2<suffix>``, ``-3``, … (never overwriting).
    The write is atomic (:func:`kb.atomic.write_bytes_atomic`). Raises :class:`ValueError` for a
    ``rel`` that is absolute, climbs out (``..``), is hidden or is not one kb's links name
    (:func:`kb.attachments.local_target`), and :class:`kb.errors.WriteError` when the disk refuses
    or ``root`` is a catalog (read-only to kb's writers)."""
    from kb.atomic import write_bytes_atomic
    from kb.attachments import local_target
    from kb.errors import RecordExists
    from kb.store.write import refuse_catalog

    parts = rel.split("/")
    if local_target(rel) != rel or any(not part or part.startswith(".") for part in parts):
        raise ValueError(f"asset path '{rel}': expected a relative path such as 'decisions/plot.png' (no '..', "
                         "no hidden parts, a file extension)")
    refuse_catalog(root)
    base = Path(root) / ASSETS_FOLDER
    stem, dot, suffix = parts[-1].rpartition(".")
    for n in range(1, 1000):
        name = parts[-1] if n == 1 else f"{stem}-{n}{dot}{suffix}"
        candidate = "/".join([*parts[:-1], name])
        target = base / candidate
        if target.is_file() and target.read_bytes() == data:
            return candidate
        if os.path.lexists(target):
            continue
        try:
            write_bytes_atomic(target, data)
        except RecordExists:
            continue
        return candidate
    raise ValueError(f"asset path '{rel}': 999 names taken under {base}; rename the file")


def save_asset_text(root: str | Path, name: str, source: IO[str], redactor: Any) -> Path:
    """Write the text read from ``source`` line by line under ``<root>/assets/<name>`` (a new
    file: ``-2``, ``-3`` … before the suffix when the name is taken; never overwriting), each
    line through ``redactor`` (a :class:`kb.redact.Redactor`: the write gate's policy for what a
    session or a machine printed), in bounded memory; atomic (a temporary file in the same
    folder, then a hard link under the free name). Returns the path written. Raises
    :class:`kb.errors.WriteError` when the disk refuses or ``root`` is a catalog."""
    import tempfile

    from kb.atomic import TEMP_SUFFIX, _write_error
    from kb.store.write import refuse_catalog

    refuse_catalog(root)
    target = Path(root) / ASSETS_FOLDER / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise _write_error(target, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for line in source:
                out.write(redactor.redact(line.rstrip("\n")) + "\n")
            out.flush()
            os.fsync(out.fileno())
        stem, suffix = target.stem, target.suffix
        for n in range(1, 1000):
            candidate = target if n == 1 else target.with_name(f"{stem}-{n}{suffix}")
            try:
                os.link(tmp, candidate)
            except FileExistsError:
                continue
            return candidate
        raise FileExistsError(target)
    except OSError as exc:
        raise _write_error(target, exc) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
