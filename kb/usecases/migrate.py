"""``kb migrate``: rewrite records written in an older shape to :data:`kb.models.SCHEMA_VERSION`.

Old records keep loading as they are; a migration only makes their files say what kb would write
today. Version 1 → 2 writes every ``fixed_by`` shorthand (``{cuda: ">=13.0"}``) in full
(``{kind: enables, requires: {cuda: ">=13.0"}}``) and stamps ``schema_version: 2``.

:func:`plan_migration` reads and changes nothing; :func:`apply_migration` writes each planned
record through the store's write gate (:func:`kb.store.save_record`: redacted, atomic, in place).
Catalogs are read-only and never migrated. A file that does not load is left alone and named.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.errors import KbError, Problem, RecordError, WriteError
from kb.models import FIX_KEYS, SCHEMA_VERSION, Blocker, Record
from kb.redact import Redactor
from kb.store import dump_record, load_records, parse_record, record_text, redact_record, save_record
from kb.store.entries import read_regular


@dataclass
class Migration:
    """One record to rewrite: its ``id``, ``path`` (as problems show it), ``file`` on disk, the
    version it is in (``from_version``), what changes (``changes``: one line each), and the file's
    text before and after (``before``/``after``)."""

    id: str
    path: str
    file: Path
    from_version: int
    changes: list[str]
    before: str
    after: str
    record: Record = field(repr=False)
    key_order: list[str] = field(default_factory=list, repr=False)

    def diff(self) -> str:
        """A unified diff of the file, ``a/PATH`` → ``b/PATH``."""
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            f"a/{self.path}", f"b/{self.path}"))

    @property
    def drops_comments(self) -> bool:
        """Whether the file has comments (other than kb's modeline) that the rewrite loses: a
        ``#`` starting a line or following a blank outside quotes, not inside a block scalar
        (``notes: |`` text keeps its ``#`` lines)."""
        block: int | None = None  # the indentation a block scalar's lines exceed
        for line in self.before.splitlines():
            indent = len(line) - len(line.lstrip(" "))
            if block is not None:
                if not line.strip() or indent > block:
                    continue
                block = None
            if re.search(r":[ \t]*[|>][+-]?\d*[ \t]*(?:#.*)?$", line):
                block = indent
            if "yaml-language-server:" in line:
                continue
            if _comment_at(line) is not None:
                return True
        return False


def _comment_at(line: str) -> int | None:
    """Where a YAML comment starts in ``line`` (a ``#`` at its start or after a blank, outside
    quotes), or ``None``."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return None


@dataclass
class MigrationPlan:
    """What :func:`plan_migration` found: ``todo`` (records to rewrite), ``current`` (how many
    are already in :data:`SCHEMA_VERSION`'s shape) and ``unreadable`` (``path: message`` of files
    that do not load, left alone)."""

    todo: list[Migration]
    current: int
    unreadable: list[str]


def _changes(record: Record, data: dict[str, Any]) -> list[str]:
    """What the rewrite changes in a record whose file held ``data``, one line each."""
    out = []
    if isinstance(record, Blocker):
        got = data.get("fixed_by")
        raw: list[Any] = got if isinstance(got, list) else []
        out += [f"fixed_by.{i}: shorthand written in full (kind: enables, requires)"
                for i, f in enumerate(raw) if isinstance(f, dict) and not any(k in FIX_KEYS for k in f)]
    out.append(f"schema_version: {record.schema_version or 1} → {SCHEMA_VERSION}")
    return out


def plan_migration(root: str | Path) -> MigrationPlan:
    """The records under ``root`` written in a shape older than :data:`SCHEMA_VERSION`, with the
    text each file would have. Reads only. Raises :class:`kb.errors.WriteError` when ``root`` is
    a catalog (catalogs are read-only)."""
    from kb.store.write import refuse_catalog

    refuse_catalog(root)
    loaded = load_records(root)
    todo: list[Migration] = []
    current = 0
    unreadable = [str(p) for p in loaded.problems]
    for rid, rec in sorted(loaded.records.records.items()):
        if (rec.schema_version or 1) >= SCHEMA_VERSION:
            current += 1
            continue
        origin = loaded.records.origins[rid]
        if origin.file is None:
            continue
        before = read_regular(origin.file).decode("utf-8")
        data = origin.doc.data if isinstance(origin.doc.data, dict) else {}
        new = rec.model_copy(update={"schema_version": SCHEMA_VERSION})
        again, _, problems = parse_record(dump_record(new, key_order=list(data)), origin.path, type(rec).folder, rid)
        if again is None or again.model_copy(update={"schema_version": None}) != rec.model_copy(
                update={"schema_version": None}):
            why = "; ".join(p.message for p in problems) or "it would read back as a different record"
            unreadable.append(f"{origin.path}: not migrated: {why} (please report this as a kb bug)")
            continue
        # what the write gate will write: the same redaction, shown in the plan and the diff
        clean, counts = redact_record(new, Redactor(personal=False))
        after = record_text(root, clean, key_order=list(data), before=before)
        changes = _changes(rec, data)
        if counts:
            changes.append("redacted: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
                           + " (the values are replaced in the file)")
        todo.append(Migration(rid, origin.path, origin.file, rec.schema_version or 1, changes,
                              before, after, clean, list(data)))
    return MigrationPlan(todo, current, unreadable)


def apply_migration(root: str | Path, plan: MigrationPlan) -> list[Path]:
    """Write each record of ``plan`` in place through the write gate; return the paths written.
    A record whose file changed since it was planned is refused (:class:`kb.errors.RecordError`),
    and nothing after it is written. The plan only holds rewrites whose text was read back to
    the same record (:func:`plan_migration`); any other is listed under ``unreadable``."""
    written: list[Path] = []
    try:  # Ctrl-C anywhere in the loop (reading a file back, not only writing one) says how far it got
        for m in plan.todo:
            done = f"{len(written)} of {len(plan.todo)} records were rewritten before it" if written \
                else "nothing was written"
            if read_regular(m.file).decode("utf-8") != m.before:
                raise RecordError(Problem(m.path, None, "", f"changed since the migration was planned; {done}: "
                                                            "run kb migrate again"))
            try:
                # the team's own records: secrets go, what they say otherwise stays (README, "Redaction");
                # written to the very file it was read from (a .yml name, the target of a link)
                written.append(save_record(root, m.record, new=False, overwrite=True, key_order=m.key_order,
                                           redactor=Redactor(personal=False), at=m.file).path)
            except WriteError as exc:
                raise WriteError(f"{exc}".replace("; nothing was changed", "") + f" ({done}; every file is whole: "
                                 "run kb migrate --write again for the rest)") from None
    except KeyboardInterrupt:
        raise MigrationInterrupted(len(written), len(plan.todo)) from None
    return written


class MigrationInterrupted(KbError):
    """``kb migrate --write`` was interrupted (Ctrl-C) after ``done`` of ``total`` records; every
    file is whole (each write is atomic)."""

    def __init__(self, done: int, total: int):
        super().__init__(f"interrupted after rewriting {done} of {total} records; every file is whole: "
                         "run kb migrate --write again for the rest")
        self.done, self.total = done, total
