"""The store: the only code that reads or writes ``records/`` on disk.

Layout: one YAML file per record, one folder per kind (``records/attempts/<id>.yaml``, see
:data:`kb.models.KINDS`). Loading collects every problem of every file and never stops at the
first; a bad file costs only itself. Writing is atomic (temporary file in the same folder, then a
hard link that fails if the name exists, so a record is never overwritten and two concurrent
writers never take the same id).
"""

from __future__ import annotations

import difflib
import errno
import os
import tempfile
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Iterable, Iterator, TypeVar

import yaml
from pydantic import ValidationError

from kb.errors import InvalidRecords, Problem, RecordError, RecordExists, WriteError
from kb.ids import suffixed
from kb.models import KINDS, Record
from kb.validation import located_problems
from kb.yamldoc import Document, parse_document

R = TypeVar("R", bound=Record)

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Largest record file read (2 MiB); records are small, a bigger file is a mistake."""


@dataclass
class Origin:
    """Where a record was read from: ``path`` relative to the records root, and its line map."""

    path: str
    doc: Document

    def line(self, *field_path: Any) -> int:
        """1-based line of ``field_path`` in the file (nearest located ancestor)."""
        return self.doc.line_of(tuple(field_path))


@dataclass
class RecordSet:
    """Every valid record, by id, with where each came from.

    ``records``: id → record (ids are unique across kinds). ``origins``: id → :class:`Origin`.
    """

    records: dict[str, Record] = field(default_factory=dict)
    origins: dict[str, Origin] = field(default_factory=dict)
    broken: set[str] = field(default_factory=set)
    """Ids (file names) of record files that exist but failed to load: already reported, so
    references to them are not reported again as unknown."""

    def of_kind(self, cls: type[R]) -> list[R]:
        """Records of one model class, sorted by id."""
        return sorted((r for r in self.records.values() if isinstance(r, cls)), key=lambda r: r.id)

    def get(self, record_id: str) -> Record | None:
        """The record with id ``record_id``, or ``None``."""
        return self.records.get(record_id)

    def problem(self, record_id: str, field_path: tuple[Any, ...], message: str) -> Problem:
        """A :class:`Problem` located at ``field_path`` of record ``record_id``."""
        origin = self.origins[record_id]
        return Problem(origin.path, origin.line(*field_path), ".".join(map(str, field_path)), message)

    def __len__(self) -> int:
        return len(self.records)


@dataclass
class LoadResult:
    """What :func:`load_records` read: the valid records and every problem found."""

    records: RecordSet
    problems: list[Problem]

    def raise_if_invalid(self) -> RecordSet:
        """Return the records, or raise :class:`InvalidRecords` with every problem."""
        if self.problems:
            raise InvalidRecords(self.problems)
        return self.records


RECORD_SUFFIXES = (".yaml", ".yml")
"""File name endings of record files."""


def record_files(root: Path) -> Iterator[tuple[str, Path]]:
    """Yield ``(folder, path)`` for every ``*.yaml``/``*.yml`` under the kind folders of ``root``.

    Hidden files (a name starting with ``.``: editor swap files, a killed writer's
    ``.<id>.<pid>.<random>.tmp``) are not records and are skipped.
    """
    for folder in KINDS:
        d = root / folder
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if p.suffix in RECORD_SUFFIXES and not p.name.startswith(".") and not p.is_dir():
                    yield folder, p


def _stray_files(root: Path) -> Iterator[Path]:
    """Files in a kind folder that kb would not read: not hidden and not ``.yaml``/``.yml``
    (``x.YAML``, ``x.yaml.bak``, ``notes.txt``), or folders there. Reported, so that a record
    saved under a wrong name is never silently left out."""
    for folder in KINDS:
        d = root / folder
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if not p.name.startswith(".") and (p.is_dir() or p.suffix not in RECORD_SUFFIXES):
                    yield p


def load_records(root: str | Path) -> LoadResult:
    """Read and validate every record under ``root`` (a ``records/`` folder).

    Returns a :class:`LoadResult`; never raises for bad records (they become problems). Raises
    :class:`kb.errors.RecordError` only when ``root`` itself is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise RecordError(Problem(str(root), None, "", "records folder not found; create it or pass --records PATH"))
    problems: list[Problem] = []
    result = RecordSet()
    first_seen: dict[str, str] = {}
    real_root = root.resolve()
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and entry.name not in KINDS:
            hint = difflib.get_close_matches(entry.name, list(KINDS), n=1)
            problems.append(
                Problem(
                    _rel(entry, root), None, "",
                    f"unknown folder; records live in {', '.join(KINDS)}"
                    + (f" (did you mean '{hint[0]}'?)" if hint else ""),
                )
            )
        elif entry.is_file() and entry.suffix in (".yaml", ".yml"):
            problems.append(
                Problem(_rel(entry, root), None, "", f"record outside a kind folder; move it into one of {', '.join(KINDS)}")
            )
    for stray in _stray_files(root):
        if stray.is_dir():
            msg = "a folder inside a kind folder is not read; records are files <id>.yaml: move its records up"
        else:
            wanted = stray.name[: -len(stray.suffix)] + ".yaml" if stray.suffix.lower() in RECORD_SUFFIXES else None
            msg = ("not a record file, so kb does not read it; "
                   + (f"rename it to {wanted}" if wanted else "records are named <id>.yaml: rename it or move it out of records/"))
        problems.append(Problem(_rel(stray, root), None, "", msg))
    for folder, path in record_files(root):
        rel = _rel(path, root)
        try:
            text = _read_text(path, rel, real_root)
        except RecordError as exc:
            problems.append(exc.problem)
            result.broken.add(path.stem)
            continue
        record, doc, found = parse_record(text, rel, folder, path.stem)
        if record is None or doc is None:
            problems.extend(found)
            result.broken.add(path.stem)
            continue
        origin = Origin(rel, doc)
        if record.id in first_seen:
            problems.append(
                Problem(rel, origin.line("id"), "id",
                        f"duplicate id '{record.id}' (also {first_seen[record.id]}); ids are unique across all kinds: rename one")
            )
            continue
        first_seen[record.id] = rel
        result.records[record.id] = record
        result.origins[record.id] = origin
    return LoadResult(result, problems)


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent)) if root.name else str(path)
    except ValueError:
        return str(path)


def _read_text(path: Path, rel: str, real_root: Path) -> str:
    if path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(real_root):
            raise RecordError(Problem(rel, None, "", f"symlink points outside the records folder ({target}); copy the file in instead"))
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise RecordError(Problem(rel, None, "", f"file is {size} bytes; a record is at most {MAX_FILE_BYTES} bytes: move large text (logs) out of the record"))
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(Problem(rel, None, "", f"cannot read: {exc.strerror}")) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RecordError(Problem(rel, line, "", f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the file as UTF-8")) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte order mark is harmless: drop it
    if "\x00" in text:
        raise RecordError(Problem(rel, text[: text.index("\x00")].count("\n") + 1, "", "file holds NUL bytes; a record is text"))
    return text


def parse_record(text: str, rel: str, folder: str, stem: str) -> tuple[Record | None, Document | None, list[Problem]]:
    """Parse and validate the text of one record file.

    ``rel`` is the path shown in problems, ``folder`` the kind folder (``attempts``), ``stem`` the
    file name without extension (the id). Returns ``(record, document, [])`` or
    ``(None, document or None, problems)``; never raises for bad text.
    """
    model = KINDS[folder]
    try:
        doc = parse_document(text, rel)
    except RecordError as exc:
        return None, None, [exc.problem]
    if doc.data is None:
        article = "an" if model.kind[0] in "aeiou" else "a"
        return None, doc, [Problem(rel, None, "", f"empty file (no YAML data); {article} {model.kind} record is a YAML "
                                                  "mapping (e.g. 'title: ...'): fill it in or delete the file")]
    if not isinstance(doc.data, dict):
        what = "a list" if isinstance(doc.data, list) else f"a single value ({type(doc.data).__name__})"
        return None, doc, [Problem(rel, 1, "", f"the file holds {what}; a record is a YAML mapping of field: value")]
    data = dict(doc.data)
    if "id" in data:
        if data["id"] != stem:
            return None, doc, [Problem(rel, doc.line_of(("id",)), "id",
                                       f"id '{data['id']}' differs from the file name '{stem}'; rename the file or fix the id")]
    else:
        data["id"] = stem
    try:
        return model.model_validate(data), doc, []
    except ValidationError as exc:
        return None, doc, located_problems(exc, model, rel, doc)


# --------------------------------------------------------------------------- writing


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _str_representer)


def record_to_data(record: Record) -> dict[str, Any]:
    """The record as the plain mapping its YAML file holds (defaults and ``None`` left out,
    metrics and versions in their short forms, ``id`` omitted since it is the file name)."""
    data = record.model_dump(mode="python", by_alias=True, exclude_defaults=True, exclude_none=True)
    data.pop("id", None)
    return _compact(data)


def _compact(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        if set(value) == {"version"} and isinstance(value["version"], str):
            return value["version"]
        if set(value) <= {"value", "unit", "text"} and "value" in value and "unit" in value:
            return f"{value.get('text') or format(value['value'], 'g')} {value['unit']}"
        if set(value) == {"components"}:
            return _compact(value["components"])
        return {k: _compact(v) for k, v in value.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def dump_record(record: Record) -> str:
    """YAML text for ``record`` (block style, keys in model order, multi-line strings as ``|``)."""
    return yaml.dump(record_to_data(record), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def record_path(root: str | Path, record: Record) -> Path:
    """Where ``record`` lives under ``root``: ``<root>/<folder>/<id>.yaml``."""
    return Path(root) / record.folder / f"{record.id}.yaml"


def write_record(root: str | Path, record: Record, *, overwrite: bool = False) -> Path:
    """Write ``record`` atomically under ``root``; return its path.

    The text is written to a temporary file in the target folder, flushed and fsynced, then
    hard-linked to its final name (which fails if the name exists) and the temporary removed; a
    crash at any point leaves either no record or the complete one. With ``overwrite=True`` the
    temporary file replaces an existing record with :func:`os.replace`.

    Raises :class:`RecordExists` if the record exists and ``overwrite`` is false, and
    :class:`WriteError` when the disk is full, the folder read-only, or similar.
    """
    target = record_path(root, record)
    text = dump_record(record)
    return write_text_atomic(target, text, overwrite=overwrite)


def write_text_atomic(target: Path, text: str, *, overwrite: bool = False) -> Path:
    """Atomically create ``target`` with ``text`` (see :func:`write_record`)."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if not overwrite and target.exists():
            raise RecordExists(target)
        sweep_temp_files(target.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=target.parent)
    except RecordExists:
        raise
    except OSError as exc:
        raise _write_error(target, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)
            except FileExistsError:
                raise RecordExists(target) from None
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                    raise
                # file systems without hard links: O_EXCL create is still exclusive
                fd2 = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with os.fdopen(fd2, "w", encoding="utf-8") as fh2:
                    fh2.write(text)
        _fsync_dir(target.parent)
    except RecordExists:
        raise
    except OSError as exc:
        raise _write_error(target, exc) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


TEMP_SUFFIX = ".tmp"
"""Temporary files are ``.<id>.<pid>.<random>.tmp`` in the record's folder: hidden, so never
read as records, and naming the process that writes them."""


def _write_error(target: Path, exc: OSError) -> WriteError:
    reason = exc.strerror or str(exc)
    hint = {errno.ENOSPC: "free some space", errno.EDQUOT: "free some space (disk quota exceeded)",
            errno.EROFS: "the file system is mounted read-only: remount it read-write or use another --records"}.get(
        exc.errno or 0, "check the folder exists and is writable")
    return WriteError(f"{target}: cannot write ({reason}); nothing was changed: {hint}, then run the command again")


def sweep_temp_files(folder: Path) -> list[Path]:
    """Remove the temporary files a killed writer left in ``folder``; return those removed.

    A temporary file names its writer's pid (``.<id>.<pid>.<random>.tmp``); it is removed only
    when that process no longer exists on this machine, so a live writer's file is never
    touched. (On a folder shared by several machines a pid means nothing elsewhere: leave such
    files alone there, which the pid check cannot promise.) Files of other shapes are kept.
    Errors are ignored: sweeping is housekeeping, never a reason to fail a write.
    """
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        parts = name[: -len(TEMP_SUFFIX)].rsplit(".", 2)
        if len(parts) != 3 or not parts[1].isdigit() or _alive(int(parts[1])):
            continue
        try:
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def create_record(root: str | Path, record: R, *, taken: Iterable[str] = (), max_tries: int = 1000) -> tuple[R, Path]:
    """Write a *new* ``record`` under ``root``, suffixing its id on collision; return it and its path.

    ``record.id`` is tried first, then ``<id>-2``, ``<id>-3``, … . An id is skipped when it is in
    ``taken`` (ids of other kinds: ids are unique across all kinds) or when the file exists. The
    check that decides is the exclusive hard link of :func:`write_text_atomic`, so two processes
    writing the same id at the same moment both succeed, under distinct ids. The suffixed id is
    shortened from the end of its slug if it would pass the 120-character id limit.

    Raises :class:`WriteError` after ``max_tries`` taken ids, or when the disk refuses the write.
    """
    taken = set(taken)
    base = record.id
    for n in range(1, max_tries + 1):
        rid = base if n == 1 else suffixed(base, n)
        if rid in taken:
            continue
        candidate = record.model_copy(update={"id": rid})
        try:
            return candidate, write_record(root, candidate)
        except RecordExists:
            continue
    raise WriteError(f"{Path(root) / record.folder}: ids {base} to {base}-{max_tries} are all taken; pick another title")

