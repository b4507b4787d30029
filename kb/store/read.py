"""Reading ``records/``: every record file loaded and validated, every problem collected (a bad file
costs only itself); many files are parsed on several cores (:mod:`kb.store.parallel`)."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, TypeVar

from pydantic import ValidationError

from kb.errors import InvalidRecords, Problem, RecordError
from kb.models import KINDS, Record
from kb.store.entries import read_regular
from kb.store.lines import LineMaps
from kb.store.listing import scan
from kb.store.parallel import Job, parse_ahead
from kb.validation import located_problems
from kb.yamldoc import Document, parse_document

R = TypeVar("R", bound=Record)

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Largest record file read (2 MiB); records are small, a bigger file is a mistake."""


class Origin:
    """Where a record was read from: ``path`` as shown in problems (relative to the parent of
    its records or catalog folder), its line map ``doc``, and ``file``, the file on disk.

    A record that came from the cache (:mod:`kb.store.cache`) has no line map yet: the first time
    a line is asked for (to locate a problem or warning), ``doc`` takes the map kept for the
    file's bytes (``kept``: the :class:`kb.store.lines.LineMaps` of its records folder, the path
    it was loaded under and the SHA-256 of the bytes it was loaded from), else parses ``file``
    again; it is an empty map when the file cannot be read or parsed any more. A map parsed or
    taken is noted in ``kept``, to be saved by :func:`kb.store.lines.save_line_maps`.
    """

    __slots__ = ("_doc", "_file", "_kept", "path")

    def __init__(self, path: str, doc: Document | None = None, file: str | Path | None = None,
                 kept: tuple[LineMaps, str, bytes] | None = None):
        self.path = path
        self._doc = doc
        self._file = file
        self._kept = kept

    @property
    def doc(self) -> Document:
        """The file's :class:`Document` (values and line map), parsed on first use when cached;
        only ``lines`` is filled when the map was kept (:mod:`kb.store.lines`)."""
        if self._doc is None:
            kept = self._kept
            lines = kept[0].get(kept[1], kept[2]) if kept is not None else None
            if lines is not None:
                self._doc = Document(None, lines)
            else:
                self._doc, same = _reparse(self._file, self.path, kept[2] if kept is not None else None)
                if kept is not None and same:
                    kept[0].note(kept[1], kept[2], self._doc.lines)
        elif self._kept is not None and self._kept[1] not in self._kept[0].used:
            kept = self._kept
            kept[0].note(kept[1], kept[2], self._doc.lines)
        return self._doc

    @property
    def line_maps(self) -> LineMaps | None:
        """The :class:`kb.store.lines.LineMaps` this record's line map is kept in, or ``None``."""
        return None if self._kept is None else self._kept[0]

    @property
    def file(self) -> Path | None:
        """The record's file on disk (absolute), or ``None`` when not known."""
        return None if self._file is None else Path(self._file)

    def line(self, *field_path: Any) -> int:
        """1-based line of ``field_path`` in the file (nearest located ancestor)."""
        return self.doc.line_of(tuple(field_path))

    def moved(self, path: str) -> Origin:
        """This origin shown under another ``path`` (a catalog's record by its absolute path);
        the line map, parsed or not, goes with it."""
        return Origin(path, self._doc, self._file, self._kept)

    def __repr__(self) -> str:
        return f"Origin({self.path!r}, file={self._file!r})"


def _reparse(file: str | Path | None, rel: str, digest: bytes | None = None) -> tuple[Document, bool]:
    """The line map of a cached record's ``file`` (an empty one if it cannot be read or parsed),
    and whether it was parsed from bytes hashing to ``digest`` (``False`` when no ``digest`` is
    given, or the file changed since it was loaded: then the map is used but not kept)."""
    if file is None:
        return Document(None), False
    try:
        data = read_regular(file)
        text = data.decode("utf-8")
        doc = parse_document(text[1:] if text.startswith("\ufeff") else text, rel)
    except (OSError, UnicodeDecodeError, RecordError):
        return Document(None), False
    return doc, digest is not None and hashlib.sha256(data).digest() == digest


QUIET_WORDS = ("](", "TODO")
"""What ``kb check`` looks for in every record's text: a Markdown link's ``](`` (links to files
under ``assets/``, :mod:`kb.attachments`) and kb's ``TODO`` placeholder (``kb.usecases.log.TODO``)."""
_QUIET_TEXT = (*QUIET_WORDS, "\\")
_QUIET_BYTES = tuple(w.encode() for w in _QUIET_TEXT)


@dataclass(frozen=True, slots=True)
class LooseRecord:
    """What a record file that failed validation still says about other records: ``path`` as
    shown in problems, ``folder`` (its kind folder, ``attempts``), and ``values``: each top-level
    field whose value is a string or a list of strings → ``((index or None, value, line), ...)``.
    Which of those fields are references is the graph's business (:func:`kb.graph.loose_reference_problems`)."""

    path: str
    folder: str
    values: dict[str, tuple[tuple[int | None, str, int], ...]]
    reported: frozenset[str] = frozenset()
    """Fields (``stack``, ``blocked_by.0``) whose value validation already reported."""


def loose_record(rel: str, folder: str, doc: Document | None, text: str | None = None,
                 problems: list[Problem] | tuple[Problem, ...] = ()) -> LooseRecord | None:
    """The :class:`LooseRecord` of a file that failed to load, from its parsed ``doc`` (or its
    ``text``, parsed again) and the ``problems`` validation found in it; ``None`` when the file
    is not a YAML mapping."""
    if doc is None and text is not None:
        try:
            doc = parse_document(text, rel)
        except RecordError:
            return None
    if doc is None or not isinstance(doc.data, dict):
        return None
    values: dict[str, tuple[tuple[int | None, str, int], ...]] = {}
    for key, value in doc.data.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, str):
            values[key] = ((None, value, doc.line_of((key,))),)
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            values[key] = tuple((i, v, doc.line_of((key, i))) for i, v in enumerate(value))
    return LooseRecord(rel, folder, values, frozenset(p.field for p in problems))


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
    shadowed: dict[str, set[str]] = field(default_factory=dict)
    """Catalog name → ids of its records not loaded because a record loaded first took the id
    (the clash is reported once): that catalog's references to them are not checked."""
    loose: dict[str, LooseRecord] = field(default_factory=dict)
    """Id (file name) → the reference-shaped values of a record file that failed to load
    (:class:`LooseRecord`), so that its references are checked in the same run as its own
    problems (a fix of the schema error does not reveal a second round of problems)."""
    sources: dict[str, bytes] = field(default_factory=dict)
    """Every record file read (valid or not) → the SHA-256 digest of its bytes (``b""`` when it
    could not be read): what the records were made from, so that a result computed from them
    (:func:`kb.pipeline.load`'s reference check) can be kept under their content. Catalog files
    are added by :func:`kb.catalog.merge_catalogs` under ``catalog <n> <folder>/<path>``."""

    quiet: dict[str, Record] = field(default_factory=dict, repr=False, compare=False)
    """Id → the record made from a file whose bytes and name hold none of :data:`QUIET_WORDS`
    and no backslash (no YAML escape): its JSON text cannot hold those words either
    (:meth:`may_hold`). A record replaced under its id is no longer quiet (compared by identity)."""

    keep_json: bool = False
    """Whether :meth:`json_of` keeps the text it made (``kb check`` turns it on: it asks twice of
    every record; a site build asks once and would hold 10,000 texts for its whole run)."""
    _json: dict[str, tuple[Record, str]] = field(default_factory=dict, repr=False, compare=False)

    def json_of(self, record_id: str) -> str:
        """The record ``record_id`` as JSON text (``model_dump_json(by_alias=True,
        exclude_none=True)``), made once per record when :attr:`keep_json` (made again if the
        record under that id was replaced): ``kb check`` asks twice of every record whether its
        text holds something (a Markdown link, kb's ``TODO`` placeholder), and dumping 10,000
        records cost about 0.1 s each time. Raises ``KeyError`` for an unknown id, and pydantic's
        ``ValueError`` for a value JSON cannot carry."""
        record = self.records[record_id]
        kept = self._json.get(record_id)
        if kept is None or kept[0] is not record:
            kept = (record, record.model_dump_json(by_alias=True, exclude_none=True))
            if self.keep_json:
                self._json[record_id] = kept
        return kept[1]

    def may_hold(self, record_id: str, word: str) -> bool:
        """Whether the JSON text of record ``record_id`` (:meth:`json_of`) holds ``word``; for a
        word of :data:`QUIET_WORDS` and a :attr:`quiet` record, ``False`` without making the text.

        Sound because YAML makes a value's characters from the file's own characters except
        through escapes (a backslash, in double-quoted scalars) and line folding (which only adds
        spaces or line breaks), the id comes from the file name, and no default of kb's models
        holds these words. Raises what :meth:`json_of` raises."""
        if word in QUIET_WORDS and self.quiet.get(record_id) is self.records[record_id]:
            return False
        return word in self.json_of(record_id)

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


class Prefetched:
    """Bytes of record files read ahead of a load (by :func:`kb.store.memo.tree_digest`'s
    ``keep``), by path as the store lists it (``<root>/attempts/x.yaml``): :func:`load_records`
    takes a file's bytes from here instead of reading it again, and counts in ``missed`` the
    record files it had to read itself. ``missed == 0`` after a load means every record loaded
    came from exactly the bytes the digest named."""

    __slots__ = ("files", "missed")

    def __init__(self, files: dict[str, bytes]):
        self.files = files
        self.missed = 0


def load_records(root: str | Path, cache_for: str | Path | None = None,
                 prefetched: Prefetched | None = None) -> LoadResult:
    """Read and validate every record under ``root`` (a ``records/`` folder).

    Each file is read and hashed; what validating it produced (the record, or its problems) is
    taken from the store's cache (:mod:`kb.store.cache`) when the same path had the same bytes
    before, else parsed and validated and kept for next time. Problems are reported on every
    load either way. ``cache_for``: the campaign records folder whose cache folder keeps this
    folder's cache (a catalog's; default ``root``). ``prefetched``: record files' bytes read
    beforehand (:class:`Prefetched`), used instead of reading those files again.

    Returns a :class:`LoadResult`; never raises for bad records (they become problems). Raises
    :class:`kb.errors.RecordError` only when ``root`` itself is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise RecordError(Problem(str(root), None, "", "records folder not found; create it or pass --records PATH"))
    from kb.store.cache import RecordCache, cache_path

    with gc_paused():  # reading the cache back allocates as much as building the records
        cache = RecordCache(cache_path(root, Path(cache_for) if cache_for is not None else None))
        result = _load(root, cache, prefetched)
    cache.save()
    return result


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a block allocates many objects that all
    stay alive (loading 10,000 records makes about a million): each time the allocation
    threshold is crossed the collector walks the young objects again, for nothing. Reference
    counting still frees whatever is not in a cycle; the collector resumes (if it was on) after."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _load(root: Path, cache: Any, prefetched: Prefetched | None = None) -> LoadResult:
    result = RecordSet()
    first_seen: dict[str, str] = {}
    real_root = root.resolve()
    found_in = scan(root)
    problems = found_in.problems
    result.ignored = found_in.ignored
    for rel, stem in found_in.broken:  # named as records, reported instead of read (a loop, a FIFO)
        result.broken.add(stem)
        result.sources[rel] = b""
    prefix = f"{root.name}/" if root.name else None
    sha256 = hashlib.sha256
    maps = LineMaps(cache.path, result.sources) if cache.path is not None else None
    jobs = [Job(folder, e, f"{prefix}{folder}/{e.name}" if prefix is not None else e.path, e.name.rsplit(".", 1)[0])
            for folder, e in found_in.records]
    ahead = parse_ahead(jobs, cache, lambda job: _peek_bytes(job, real_root, prefetched), _parse_job)
    bases = {folder: os.path.join(real_root, folder, "") for folder in KINDS}  # os.path.join per file: 0.03 s at 10k
    for job in jobs:
        entry, rel, stem = job.entry, job.rel, job.stem
        try:
            data = _read_bytes(entry, rel, real_root, prefetched)
        except RecordError as exc:
            problems.append(exc.problem)
            result.broken.add(stem)
            result.sources[rel] = b""
            continue
        digest = sha256(data).digest()
        result.sources[rel] = digest
        hit = cache.get(rel, digest)
        doc: Document | None = None
        if hit is not None:
            record, found = hit[1], list(hit[2])
            parsed = ahead.get(rel)
            if parsed is not None and parsed[0] == digest:
                doc = parsed[1]
        else:
            record, doc, found = _parse_job(data, job)
            cache.put(rel, digest, record, found)
        if record is None:
            problems.extend(found)
            result.broken.add(stem)
            loose = loose_record(rel, job.folder, doc, None if doc is not None else _text_or_none(data), found)
            if loose is not None:
                result.loose[stem] = loose
            continue
        origin = Origin(rel, doc, bases[job.folder] + entry.name, (maps, rel, digest) if maps is not None else None)
        if record.id in first_seen:
            problems.append(
                Problem(rel, origin.line("id"), "id",
                        f"duplicate id '{record.id}' (also {first_seen[record.id]}); ids are unique across all kinds: rename one")
            )
            continue
        first_seen[record.id] = rel
        result.records[record.id] = record
        result.origins[record.id] = origin
        if not any(w in data for w in _QUIET_BYTES) and not any(w in stem for w in _QUIET_TEXT):
            result.quiet[record.id] = record
    return LoadResult(result, problems)


def _read_bytes(entry: os.DirEntry[str], rel: str, real_root: Path, prefetched: Prefetched | None = None) -> bytes:
    """The bytes of one record file (from ``prefetched`` when it holds them); raises
    :class:`RecordError` for a symlink that leads out of the records folder, a file over
    :data:`MAX_FILE_BYTES` or one that cannot be read."""
    if entry.is_symlink():
        try:
            target = Path(entry.path).resolve()
        except (OSError, RuntimeError):  # a loop made since the listing (Python 3.11 raises RuntimeError)
            raise RecordError(Problem(rel, None, "", "symlink loop: following the link leads back to a link, "
                                                     "never to a file; remove the link loop")) from None
        if not target.is_relative_to(real_root):
            raise RecordError(Problem(rel, None, "", f"symlink points outside the records folder ({target}); copy the file in instead"))
    if prefetched is not None:
        ahead = prefetched.files.pop(entry.path, None)
        if ahead is not None and len(ahead) <= MAX_FILE_BYTES:
            return ahead
        prefetched.missed += 1
    try:
        data = read_regular(entry.path, MAX_FILE_BYTES)
        if len(data) > MAX_FILE_BYTES:
            size = os.stat(entry.path).st_size
            raise RecordError(Problem(rel, None, "", f"file is {size} bytes; a record is at most {MAX_FILE_BYTES} bytes: move large text (logs) out of the record"))
    except OSError as exc:
        raise RecordError(Problem(rel, None, "", f"cannot read: {exc.strerror}")) from None
    return data




def _peek_bytes(job: Job, real_root: Path, prefetched: Prefetched | None) -> bytes:
    """:func:`_read_bytes` of ``job``'s file, leaving ``prefetched`` as it is (the load takes from it after)."""
    ahead = prefetched.files.get(job.entry.path) if prefetched is not None else None
    if ahead is not None and len(ahead) <= MAX_FILE_BYTES and not job.entry.is_symlink():
        return ahead
    return _read_bytes(job.entry, job.rel, real_root)


def _parse_job(data: bytes, job: Job) -> tuple[Record | None, Document | None, list[Problem]]:
    """:func:`parse_record` of the bytes ``data`` of ``job``'s file; a file that is not UTF-8 text
    gives its problem."""
    try:
        return parse_record(_decode(data, job.rel), job.rel, job.folder, job.stem)
    except RecordError as exc:
        return None, None, [exc.problem]


def _text_or_none(data: bytes) -> str | None:
    """``data`` as UTF-8 text (a byte order mark dropped), or ``None`` when it is not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[1:] if text.startswith("\ufeff") else text


def _decode(data: bytes, rel: str) -> str:
    """``data`` as text (a UTF-8 byte order mark dropped); raises :class:`RecordError` when it
    is not UTF-8 or holds NUL bytes."""
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
