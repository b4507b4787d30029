"""The store: the only code that reads or writes ``records/`` on disk.

Layout: one YAML file per record, one folder per kind (``records/attempts/<id>.yaml``, see
:data:`kb.models.KINDS`). Loading collects every problem of every file and never stops at the
first; a bad file costs only itself. Writing is atomic (temporary file in the same folder, then a
hard link that fails if the name exists, so a record is never overwritten and two concurrent
writers never take the same id).
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Iterable, Iterator, TypeVar

import yaml
from pydantic import ValidationError

from kb.atomic import write_text_atomic
from kb.errors import InvalidRecords, Problem, RecordError, RecordExists, WriteError
from kb.ids import slugify, suffixed
from kb.leftovers import leftover_kind
from kb.models import KINDS, Record
from kb.redact import Redactor
from kb.validation import located_problems
from kb.yamldoc import Document, parse_document

R = TypeVar("R", bound=Record)

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Largest record file read (2 MiB); records are small, a bigger file is a mistake."""


@dataclass
class Origin:
    """Where a record was read from: ``path`` as shown in problems (relative to the parent of
    its records or catalog folder), its line map, and ``file``, the file on disk (absolute)."""

    path: str
    doc: Document
    file: Path | None = None

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
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """Editor and OS leftovers skipped (``x.yaml~``, ``Thumbs.db``; see :mod:`kb.leftovers`):
    ``(path relative to the records root's parent, what it is)``, sorted by path."""
    catalog_of: dict[str, str] = field(default_factory=dict)
    """Id → name of the catalog a record was read from (:mod:`kb.catalog`); absent for the
    campaign's own records. Catalog records are read-only to kb's writers."""

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


ASSETS_FOLDER = "assets"
"""``records/assets/``: images and files that record text links to (``![timeline](timeline.png)``),
published beside the site's pages; see :func:`list_assets`."""


def list_assets(root: str | Path) -> dict[str, Path]:
    """Files under ``<root>/assets/`` by their path relative to it (``nccl/timeline.png``),
    hidden files and editor leftovers left out; ``{}`` when there is no such folder."""
    base = Path(root) / ASSETS_FOLDER
    if not base.is_dir():
        return {}
    out = {}
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts) and not leftover_kind(p.name):
            out[rel.as_posix()] = p
    return out


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
                if (not p.name.startswith(".") and (p.is_dir() or p.suffix not in RECORD_SUFFIXES)
                        and not (leftover_kind(p.name) and not p.is_dir())):
                    yield p


def _leftover_files(root: Path) -> list[tuple[Path, str]]:
    """Editor and OS leftovers (:func:`kb.leftovers.leftover_kind`) in ``root`` and its kind
    folders, with what each is: skipped, never read, only counted."""
    found = []
    for d in [root, *(root / folder for folder in KINDS)]:
        if d.is_dir():
            for p in sorted(d.iterdir()):
                what = leftover_kind(p.name)
                if what and not p.is_dir():
                    found.append((p, what))
    return found


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
        if entry.is_dir() and entry.name not in KINDS and entry.name != ASSETS_FOLDER:
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
    result.ignored = [(_rel(p, root), what) for p, what in _leftover_files(root)]
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
        origin = Origin(rel, doc, path.resolve())
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


def dump_record(record: Record, *, schema_ref: str | None = None) -> str:
    """YAML text for ``record`` (block style, keys in model order, multi-line strings as ``|``).

    With ``schema_ref`` (a path or URL of the kind's JSON Schema, see :func:`schema_ref`) the text
    starts with a ``# yaml-language-server: $schema=...`` modeline, so editors complete and check it.
    """
    text = yaml.dump(record_to_data(record), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return f"# yaml-language-server: $schema={schema_ref}\n{text}" if schema_ref else text


SCHEMA_URL_ENV = "KB_SCHEMA_URL"
"""Environment variable: a base URL the modeline of written records points at
(``$KB_SCHEMA_URL/<kind>.schema.json``) instead of the relative ``schemas/`` folder."""


def schema_ref(root: str | Path, record: Record) -> str:
    """Where the modeline of ``record``'s file points: ``$KB_SCHEMA_URL/<kind>.schema.json`` when
    that variable is set, else the path from the record's folder to ``schemas/<kind>.schema.json``
    beside the records folder (``../../schemas/decision.schema.json``; ``kb schema --out schemas``
    writes them there)."""
    name = f"{record.kind}.schema.json"
    base = os.environ.get(SCHEMA_URL_ENV, "").strip()
    if base:
        return f"{base.rstrip('/')}/{name}"
    root = Path(root)
    schemas = Path(os.path.abspath(root)).parent / "schemas" / name
    return Path(os.path.relpath(schemas, os.path.abspath(root / record.folder))).as_posix()


def record_path(root: str | Path, record: Record) -> Path:
    """Where ``record`` lives under ``root``: ``<root>/<folder>/<id>.yaml``."""
    return Path(root) / record.folder / f"{record.id}.yaml"


# --------------------------------------------------------------------------- the write gate

_IDENTIFIERS = frozenset({"sha256", "format", "field", "size", "redacted"})
"""Keys whose values are identifiers or figures kb made, not text from a person or a log."""

_PLACEHOLDER = re.compile(r"<(secret|host|user|email)>")


@dataclass
class Saved:
    """What :func:`save_record` wrote: the ``record`` as written (redacted, with its final id),
    its ``path``, and ``redactions``: what this write replaced, kind → count (``token``,
    ``home-user``, ``email``, …; see :mod:`kb.redact`), never the values."""

    record: Record
    path: Path
    redactions: Counter[str]

    def summary(self) -> str:
        """``"email 1, token 2"`` or ``"nothing"``."""
        return ", ".join(f"{k} {n}" for k, n in sorted(self.redactions.items())) or "nothing"


def redact_record(record: R, redactor: Redactor | None = None) -> tuple[R, Counter[str]]:
    """``record`` with every secret and personal detail in its text replaced (:mod:`kb.redact`),
    and the kinds replaced (kind → count).

    Every string value is redacted except identifiers kb made (``sha256``, ``format``, …);
    mapping keys (component and variable names) are kept. When the title changes and the id was
    made from it, the id is made again from the redacted title. ``redacted`` is set to the
    placeholders the text now holds (``secret``, ``host``, ``user``, ``email`` → count), so the
    record says what was redacted, whoever redacted it. Raises :class:`InvalidRecords` if the
    redacted record no longer validates (a secret where a version belongs).
    """
    redactor = redactor or Redactor()
    before = Counter(redactor.counts)
    data = _redact_value(record_to_data(record), redactor)
    counts = Counter(redactor.counts)
    counts.subtract(before)
    counts = +counts
    rid = record.id
    title = data.get("title")
    if isinstance(title, str) and title != record.title:
        old, new = slugify(record.title), slugify(title)
        if rid.endswith(old):
            rid = rid[: len(rid) - len(old)] + new
    found = Counter(m.group(1) for text in _strings(data) for m in _PLACEHOLDER.finditer(text))
    data.pop("redacted", None)
    if found:
        data["redacted"] = dict(sorted(found.items()))
    try:
        clean = type(record).model_validate({**data, "id": rid})
    except ValidationError as exc:
        raise InvalidRecords(located_problems(exc, type(record), f"{record.folder}/{rid}.yaml")) from None
    return clean, counts


def _redact_value(value: Any, redactor: Redactor, key: str = "") -> Any:
    if key in _IDENTIFIERS:
        return value
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, list):
        return [_redact_value(v, redactor, key) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, redactor, str(k)) for k, v in value.items()}
    return value


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in _IDENTIFIERS:
                yield from _strings(v)


def save_record(root: str | Path, record: Record, *, new: bool = True, taken: Iterable[str] = (),
                overwrite: bool = False, redactor: Redactor | None = None) -> Saved:
    """The one write gate: every writer (``kb log``, ``kb new``, ``kb capture``, ``kb import``)
    writes a record through here.

    Redacts the record (:func:`redact_record`, with ``redactor`` when the caller has one that
    learned names, e.g. from a session's working folder), then writes it atomically
    (:func:`kb.atomic.write_text_atomic`; new files get the process umask). With ``new`` a taken
    id is suffixed ``-2``, ``-3``, … (ids in ``taken`` are skipped: ids are unique across kinds);
    without it the id is kept and an existing file is refused, or replaced when ``overwrite``.

    Raises :class:`RecordExists` (an existing record, not ``new`` nor ``overwrite``),
    :class:`InvalidRecords` (the redacted record does not validate), :class:`WriteError` (the
    disk refused, or every suffixed id is taken).
    """
    clean, counts = redact_record(record, redactor)
    if new:
        clean, path = _create(root, clean, set(taken))
    else:
        text = dump_record(clean, schema_ref=schema_ref(root, clean))
        path = write_text_atomic(record_path(root, clean), text, overwrite=overwrite)
    return Saved(clean, path, counts)


def write_record(root: str | Path, record: Record, *, overwrite: bool = False) -> Path:
    """Write ``record`` under its own id through the write gate (:func:`save_record` with
    ``new=False``); return its path. Raises :class:`RecordExists` if it exists and ``overwrite``
    is false, and the errors of :func:`save_record`."""
    return save_record(root, record, new=False, overwrite=overwrite).path


def create_record(root: str | Path, record: R, *, taken: Iterable[str] = (), max_tries: int = 1000) -> tuple[R, Path]:
    """Write a *new* ``record`` through the write gate (:func:`save_record`), suffixing its id on
    collision; return the record as written and its path."""
    saved = save_record(root, record, new=True, taken=taken)
    return saved.record, saved.path  # type: ignore[return-value]


def _create(root: str | Path, record: R, taken: set[str], max_tries: int = 1000) -> tuple[R, Path]:
    """Create ``record`` under ``root``: ``record.id`` first, then ``<id>-2``, ``<id>-3``, … An
    id is skipped when it is in ``taken`` or its file exists. The check that decides is the
    exclusive hard link of :func:`kb.atomic.write_text_atomic`, so two processes writing the
    same id at the same moment both succeed, under distinct ids. Raises :class:`WriteError`
    after ``max_tries`` taken ids."""
    base = record.id
    for n in range(1, max_tries + 1):
        rid = base if n == 1 else suffixed(base, n)
        if rid in taken:
            continue
        candidate = record.model_copy(update={"id": rid})
        try:
            text = dump_record(candidate, schema_ref=schema_ref(root, candidate))
            return candidate, write_text_atomic(record_path(root, candidate), text)
        except RecordExists:
            continue
    raise WriteError(f"{Path(root) / record.folder}: ids {base} to {base}-{max_tries} are all taken; pick another title")


def last_changed(root: str | Path) -> dict[str, Any]:
    """Date of the last commit that touched each record file, when ``root`` is inside a git
    work tree: ``{"decisions/<id>.yaml": date}`` (paths relative to ``root``). One ``git log``
    for the whole folder; ``{}`` when git is missing, ``root`` is not in a repository, or git
    fails (dates are a courtesy on the site, never a reason to fail)."""
    import datetime as _dt
    import subprocess

    try:
        out = subprocess.run(["git", "-C", str(root), "log", "--relative", "--format=%x00%cs", "--name-only", "--", "."],
                             capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0:
        return {}
    found: dict[str, _dt.date] = {}
    current: _dt.date | None = None
    for line in out.stdout.splitlines():
        if line.startswith("\x00"):
            try:
                current = _dt.date.fromisoformat(line[1:].strip())
            except ValueError:
                current = None
        elif line.strip() and current is not None:
            found.setdefault(line.strip(), current)
    return found
