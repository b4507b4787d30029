"""Reading ``records/``: every record file loaded and validated, every problem collected (a bad file
costs only itself), the assets folder listed, and each record file's last commit date."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, TypeVar

from pydantic import ValidationError

from kb.errors import InvalidRecords, Problem, RecordError
from kb.leftovers import leftover_kind
from kb.models import KINDS, Record
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
