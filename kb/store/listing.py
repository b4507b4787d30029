"""Listing a records folder: which entries are record files to read, and a problem for every
entry that is not (a stray, a record outside a kind folder, a symlink loop, a FIFO, a name that
is not UTF-8), without opening any of them. :mod:`kb.store.read` then reads the record files."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from kb.errors import Problem
from kb.leftovers import leftover_kind
from kb.models import KINDS
from kb.store.assets import ASSETS_FOLDER
from kb.store.entries import DIR, FILE, MISSING, entry_type, odd_problem, shown
from kb.store.review import REVIEW_FOLDER

RECORD_SUFFIXES = (".yaml", ".yml")
"""File name endings of record files."""


def listing(folder: Path | str) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` sorted by name; ``[]`` when it is not a folder. One
    ``os.scandir`` (its entries know whether they are folders or links without another system
    call): listing 10,000 records through ``pathlib`` cost more than reading them."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def record_files(root: Path) -> Iterator[tuple[str, Path]]:
    """Yield ``(folder, path)`` for every ``*.yaml``/``*.yml`` under the kind folders of ``root``
    that :func:`load_records <kb.store.read.load_records>` would read.

    Hidden files (a name starting with ``.``: editor swap files, a killed writer's
    ``.<id>.<pid>.<random>.tmp``) are not records and are skipped, as are the entries
    :func:`scan` reports instead (symlink loops, FIFOs and other special files, names that are
    not UTF-8).
    """
    for folder, e in scan(Path(root)).records:
        yield folder, Path(e.path)


def rel_path(path: Path | str, root: Path) -> str:
    """``path`` as problems show it: relative to the parent of the records folder ``root``
    (``records/attempts/x.yaml``), each byte of it that is not UTF-8 escaped (:func:`shown`)."""
    path = Path(path)
    try:
        text = str(path.relative_to(root.parent)) if root.name else str(path)
    except ValueError:
        text = str(path)
    return shown(text)


@dataclass
class Scan:
    """What :func:`scan` found in a records folder.

    ``records``: ``(kind folder, entry)`` of each record file to read, kind folders in
    :data:`kb.models.KINDS` order, entries by name. ``problems``: one per entry that is not read
    and should be (see :func:`scan`). ``broken``: ``(path as shown, id)`` of each entry named as
    a record file that is reported instead of read (a loop, a FIFO, a name that is not UTF-8):
    it exists, so references to its id are not reported again as unknown. ``ignored``: editor
    and OS leftovers skipped, ``(path as shown, what it is)``, in listing order.
    """

    records: list[tuple[str, os.DirEntry[str]]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    broken: list[tuple[str, str]] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)


def _is_record_name(name: str) -> bool:
    return name.endswith(RECORD_SUFFIXES) and not name.startswith(".")


def scan(root: Path) -> Scan:
    """List the records folder ``root`` and its kind folders; open nothing.

    Reported (each a :class:`Problem` naming the entry's path, :func:`rel_path`): a folder or a
    ``*.yaml`` file beside the kind folders; in a kind folder, a folder, a file kb would not read
    (``x.YAML``, ``notes.txt``), and anything named as a record file that is not one (a FIFO,
    socket or device file, a link to one, a link to nothing); anywhere, a symlink loop and a name that is not UTF-8
    and a link to nothing named as a record file (:func:`kb.store.entries.odd_problem` words
    each). Hidden entries (``.x.yaml``) are skipped, editor and OS leftovers
    (:func:`kb.leftovers.leftover_kind`) only listed in ``ignored``. Under ``assets/``, only
    the odd entries are reported (:func:`_scan_assets`); ``review/`` (:mod:`kb.store.review`:
    rejected drafts, unfinished edits) is not read.
    """
    out = Scan()
    top = listing(root)
    kinds: dict[str, list[os.DirEntry[str]]] = {}
    for e in top:
        what = entry_type(e)
        if _skipped(e, what, root, out):
            continue
        if e.name in KINDS and what == DIR:
            kinds[e.name] = listing(e.path)
            continue
        odd = odd_problem(e, what, record=_is_record_name(e.name) or e.name in KINDS)
        if odd is not None:
            out.problems.append(Problem(rel_path(e.path, root), None, "", odd))
        elif what == DIR and e.name == ASSETS_FOLDER:
            _scan_assets(e.path, root, out)
        elif what == DIR and e.name == REVIEW_FOLDER:
            continue  # kb review's own files (kb.store.review), not records
        elif what == DIR:
            hint = difflib.get_close_matches(e.name, list(KINDS), n=1)
            out.problems.append(Problem(rel_path(e.path, root), None, "",
                                        f"unknown folder; records live in {', '.join(KINDS)}"
                                        + (f" (did you mean '{hint[0]}'?)" if hint else "")))
        elif what == FILE and e.name.endswith(RECORD_SUFFIXES):
            out.problems.append(Problem(rel_path(e.path, root), None, "",
                                        f"record outside a kind folder; move it into one of {', '.join(KINDS)}"))
    for folder in KINDS:
        for e in kinds.get(folder, ()):
            what = entry_type(e)
            if _skipped(e, what, root, out):
                continue
            named = e.name.endswith(RECORD_SUFFIXES)
            odd = odd_problem(e, what, record=named)
            if odd is not None:
                rel = rel_path(e.path, root)
                out.problems.append(Problem(rel, None, "", odd))
                if named:
                    out.broken.append((rel, shown(e.name.rsplit(".", 1)[0])))
            elif named and what in (FILE, MISSING):
                out.records.append((folder, e))
            else:
                out.problems.append(Problem(rel_path(e.path, root), None, "", _stray(e.name, what)))
    return out


def _scan_assets(folder: str, root: Path, out: Scan) -> None:
    """Report the odd entries under ``assets/`` (a symlink loop, a FIFO or other special file, a
    link to nothing, a name that is not UTF-8): :func:`kb.store.list_assets` leaves them out, so
    a page's picture would be silently missing. Walked as that listing walks it: hidden entries
    and leftovers skipped, linked folders not entered (no loop through a link back up)."""
    for e in listing(folder):
        if e.name.startswith(".") or leftover_kind(e.name):
            continue
        what = entry_type(e)
        odd = odd_problem(e, what, files="asset files")
        if odd is not None:
            out.problems.append(Problem(rel_path(e.path, root), None, "", odd))
        elif what == DIR and not e.is_symlink():
            _scan_assets(e.path, root, out)


def _stray(name: str, what: str) -> str:
    """The problem of an entry in a kind folder that kb would not read: a folder there, or a
    file not named ``*.yaml``/``*.yml`` (``x.YAML``, ``x.yaml.bak``, ``notes.txt``). Reported, so
    that a record saved under a wrong name is never silently left out."""
    if what == DIR:
        return "a folder inside a kind folder is not read; records are files <id>.yaml: move its records up"
    suffix = os.path.splitext(name)[1]
    wanted = name[: -len(suffix)] + ".yaml" if suffix.lower() in RECORD_SUFFIXES else None
    return ("not a record file, so kb does not read it; "
            + (f"rename it to {wanted}" if wanted else "records are named <id>.yaml: rename it or move it out of records/"))


def _skipped(e: os.DirEntry[str], what: str, root: Path, out: Scan) -> bool:
    """Whether the scan leaves ``e`` (of type ``what``) out: an editor or OS leftover that is not a
    folder (noted in ``out.ignored``), or a hidden entry."""
    leftover = leftover_kind(e.name)
    if leftover and what != DIR:
        out.ignored.append((rel_path(e.path, root), leftover))
        return True
    return e.name.startswith(".")
