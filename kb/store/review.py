"""The records folder's ``review/``: what ``kb review`` keeps beside the records.

- ``review/rejected.yaml``: the drafts a person rejected, each with the reason given and the
  identity of the passage it was drafted from (the importer's stable passage key, and the log's
  sha256 with the locator), so that importing the same log again leaves it out
  (:func:`rejected_passages`);
- ``review/edits/<id>.yaml``: an edit of a draft that does not validate yet, kept until it does,
  so that an edit is never lost when the reviewer skips the draft or quits.

Drafts themselves are attempt records with ``status: draft`` under ``attempts/``, like any
attempt; nothing here is a record, and the load does not read this folder. Every write is atomic
(:mod:`kb.atomic`).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from kb.atomic import write_text_atomic
from kb.errors import Problem, RecordError, WriteError

REVIEW_FOLDER = "review"
"""``records/review/``: the review's own files (see the module docstring)."""

REJECTIONS_FILE = "rejected.yaml"
EDITS_FOLDER = "edits"

_HEADER = ("# Drafts rejected in `kb review`: `kb import` leaves out the passages named here.\n"
           "# Written by kb; delete an entry to let its passage be imported again.\n")
_FIELDS = ("id", "title", "reason", "date", "file", "sha256", "locator", "key")
_REQUIRED = ("id", "reason", "date")


@dataclass(frozen=True)
class Rejection:
    """One rejected draft: its record ``id`` and ``title``, the ``reason`` a person gave, the
    ``date`` it was rejected, and where it was drafted from (``file``, ``sha256`` of the log,
    ``locator`` and ``key``: the ``source`` entry of field ``attempt`` the importer wrote; all
    ``None`` for a draft written by hand)."""

    id: str
    reason: str
    date: dt.date
    title: str = ""
    file: str | None = None
    sha256: str | None = None
    locator: str | None = None
    key: str | None = None

    def to_data(self) -> dict[str, Any]:
        """The entry as the file holds it (empty fields left out)."""
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


def rejections_path(root: str | Path) -> Path:
    """``<root>/review/rejected.yaml``."""
    return Path(root) / REVIEW_FOLDER / REJECTIONS_FILE


def load_rejections(root: str | Path) -> list[Rejection]:
    """The rejections kept under ``root``, in file order; ``[]`` when there is no file.

    Raises :class:`kb.errors.RecordError` naming the file, line and field of the first thing
    that is not a rejection (not a mapping ``rejected: [...]``, an entry without ``id``,
    ``reason`` or ``date``, an unknown key), saying how to fix it."""
    from kb.yamldoc import parse_document

    path = rejections_path(root)
    rel = f"{Path(root).name or root}/{REVIEW_FOLDER}/{REJECTIONS_FILE}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(Problem(rel, None, "", f"cannot read it ({exc}); kb review writes this file: "
                                                  "restore it from version control")) from None
    doc = parse_document(text, rel)
    if doc.data is None:
        return []
    items = doc.data.get("rejected") if isinstance(doc.data, dict) else None
    if not isinstance(doc.data, dict) or set(doc.data) - {"rejected"} or not isinstance(items, list):
        raise RecordError(Problem(rel, 1, "", "expected a mapping with one key, 'rejected', holding a list of "
                                              "rejected drafts (each: id, reason, date, and where it came from)"))
    out = []
    for i, item in enumerate(items):
        line = doc.line_of(("rejected", i))
        if not isinstance(item, dict):
            raise RecordError(Problem(rel, line, f"rejected.{i}", "expected a mapping (id, reason, date, ...)"))
        unknown = sorted(str(k) for k in item if k not in _FIELDS)
        if unknown:
            raise RecordError(Problem(rel, line, f"rejected.{i}", f"unknown key(s) {', '.join(unknown)}; "
                                                                 f"valid keys: {', '.join(_FIELDS)}"))
        for name in _REQUIRED:
            if item.get(name) in (None, ""):
                raise RecordError(Problem(rel, line, f"rejected.{i}.{name}", f"required field '{name}' is missing; add it"))
        if not isinstance(item["date"], dt.date):
            raise RecordError(Problem(rel, doc.line_of(("rejected", i, "date")), f"rejected.{i}.date",
                                      f"'{item['date']}' is not a date; write it as YYYY-MM-DD"))
        for name in _FIELDS:
            if name != "date" and item.get(name) is not None and not isinstance(item[name], str):
                raise RecordError(Problem(rel, doc.line_of(("rejected", i, name)), f"rejected.{i}.{name}",
                                          f"expected text, not {item[name]!r}; quote it"))
        out.append(Rejection(**{k: item[k] for k in _FIELDS if k in item}))
    return out


def add_rejection(root: str | Path, rejection: Rejection) -> Path:
    """Append ``rejection`` to the file (created with its folder when missing), rewritten
    atomically; return its path. An entry of the same ``id`` is replaced. Raises the errors of
    :func:`load_rejections` for a file that does not read, and :class:`kb.errors.WriteError`."""
    from kb.store.write import refuse_catalog

    refuse_catalog(root)
    kept = [r for r in load_rejections(root) if r.id != rejection.id] + [rejection]
    text = _HEADER + yaml.safe_dump({"rejected": [r.to_data() for r in kept]}, sort_keys=False,
                                    allow_unicode=True, width=100)
    return write_text_atomic(rejections_path(root), text, overwrite=True)


def rejected_passages(rejections: list[Rejection]) -> dict[tuple[str, str], Rejection]:
    """The passages the rejections name, keyed as the importer identifies passages
    (:func:`kb.importers.matching._existing_sources`): ``("key", key)`` and ``(sha256, locator)``."""
    out: dict[tuple[str, str], Rejection] = {}
    for r in rejections:
        if r.key:
            out.setdefault(("key", r.key), r)
        if r.sha256 and r.locator:
            out.setdefault((r.sha256, r.locator), r)
    return out


# --------------------------------------------------------------------------- unfinished edits


def edit_path(root: str | Path, record_id: str) -> Path:
    """Where an unfinished edit of draft ``record_id`` is kept: ``<root>/review/edits/<id>.yaml``."""
    return Path(root) / REVIEW_FOLDER / EDITS_FOLDER / f"{record_id}.yaml"


def keep_edit(root: str | Path, record_id: str, text: str) -> Path:
    """Keep ``text`` as the unfinished edit of ``record_id`` (atomically, replacing an older
    one); return its path. Raises :class:`kb.errors.WriteError`."""
    from kb.store.write import refuse_catalog

    refuse_catalog(root)
    return write_text_atomic(edit_path(root, record_id), text, overwrite=True)


def read_edit(root: str | Path, record_id: str) -> str | None:
    """The unfinished edit of ``record_id``, or ``None`` when there is none."""
    try:
        return edit_path(root, record_id).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise WriteError(f"{edit_path(root, record_id)}: cannot read the unfinished edit ({exc}); "
                         "move it away to start the edit again from the draft") from None


def drop_edit(root: str | Path, record_id: str) -> None:
    """Remove the unfinished edit of ``record_id`` (once it was saved as the record); nothing
    when there is none."""
    path = edit_path(root, record_id)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise WriteError(f"{path}: cannot remove the edit already saved ({exc.strerror}); delete it by hand") from None
