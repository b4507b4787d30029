"""Writing records: the YAML a record is written as, and the one write gate every writer passes
(:func:`save_record`: redact, then create atomically under a free id, never overwriting)."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Iterable, Iterator, TypeVar

import yaml
from pydantic import ValidationError

from kb.atomic import write_text_atomic
from kb.errors import InvalidRecords, RecordExists, WriteError
from kb.ids import slugify, suffixed
from kb.models import FIX_KEYS, SCHEMA_VERSION, Record
from kb.redact import Redactor
from kb.validation import located_problems

R = TypeVar("R", bound=Record)

CATALOG_MARKER = "CATALOG.md"
"""The file that makes a folder a catalog (:mod:`kb.catalog`): it says what the catalog holds.
kb's writers refuse to write into a folder holding one."""

SHIPPED_CATALOGS = Path(__file__).resolve().parent.parent / "catalogs"
"""The folder of the catalogs shipped with kb (package data, one sub-folder per catalog)."""


def catalog_folder_reason(root: str | Path) -> str | None:
    """Why the records folder ``root`` is a catalog, read-only to kb's writers (``None`` when
    it is not one): it lies inside the catalogs shipped with kb (:data:`SHIPPED_CATALOGS`), or
    it or a folder above it holds :data:`CATALOG_MARKER`."""
    real = Path(root).resolve()
    if real.is_relative_to(SHIPPED_CATALOGS):
        return f"it is a catalog shipped with kb ({real})"
    for folder in (real, *real.parents):
        if (folder / CATALOG_MARKER).is_file():
            return f"it is a catalog ({folder / CATALOG_MARKER} marks it)"
    return None


def refuse_catalog(root: str | Path) -> None:
    """Raise :class:`WriteError` when the records folder ``root`` is a catalog
    (:func:`catalog_folder_reason`): catalogs are read-only to kb's writers. :func:`save_record`
    calls it; a writer that asks questions first (``kb log`` on a terminal) calls it before
    asking, so nobody answers questions for a record that cannot be written."""
    why = catalog_folder_reason(root)
    if why:
        raise WriteError(f"{root}: not written: {why}, and catalogs are read-only to kb's writers; write into "
                         "the campaign's records folder (--records PATH or $KB_RECORDS) and refer to the "
                         "catalog's records by id")


# --------------------------------------------------------------------------- writing


class _Dumper(yaml.SafeDumper):
    pass


_YAML_BREAKS = ("\x85", "\u2028", "\u2029")
"""Characters YAML reads as line breaks (NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR): a text holding
one is written double-quoted, where they are escaped, so that it reads back the same."""


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if any(c in data for c in _YAML_BREAKS):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _str_representer)


def record_to_data(record: Record) -> dict[str, Any]:
    """The record as the plain mapping its YAML file holds (defaults and ``None`` left out,
    metrics and versions in their short forms, ``id`` omitted since it is the file name), in
    the shape of :data:`kb.models.SCHEMA_VERSION`: ``schema_version`` first, every fix of
    ``fixed_by`` in full (``{kind: enables, requires: {...}}``, never the version-1 shorthand)."""
    data = record.model_dump(mode="python", by_alias=True, exclude_defaults=True, exclude_none=True)
    data.pop("id", None)
    data.pop("schema_version", None)
    if isinstance(data.get("fixed_by"), list):
        data["fixed_by"] = [_full_fix(x) for x in data["fixed_by"]]
    return {"schema_version": SCHEMA_VERSION, **_compact(data)}


def _full_fix(fix: Any) -> Any:
    """A dumped fix in full: the shorthand ``{cuda: ">=13.0"}`` becomes ``{kind: enables,
    requires: {...}}``, and a full fix whose default ``kind`` was left out gets it back first."""
    if not isinstance(fix, dict) or "kind" in fix:
        return fix
    if any(k in FIX_KEYS for k in fix):
        return {"kind": "enables", **fix}
    return {"kind": "enables", "requires": fix}


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


def dump_record(record: Record, *, schema_ref: str | None = None, key_order: Iterable[str] = ()) -> str:
    """YAML text for ``record`` (block style, multi-line strings as ``|``; keys in ``key_order``
    first, e.g. the order of the file being rewritten, then the rest in model order).

    With ``schema_ref`` (a path or URL of the kind's JSON Schema, see :func:`schema_ref`) the text
    starts with a ``# yaml-language-server: $schema=...`` modeline, so editors complete and check it.
    """
    data = record_to_data(record)
    order = [k for k in ("schema_version", *key_order) if k in data]
    data = {**{k: data[k] for k in order}, **{k: v for k, v in data.items() if k not in order}}
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
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


_MODELINE = re.compile(r"#[ \t]*yaml-language-server:[ \t]*\$schema=(\S+)[ \t]*$")


def file_schema_ref(text: str) -> str | None:
    """The ``$schema`` of the yaml-language-server modeline on the first line of a record file's
    ``text``, or ``None`` when that line is not one.

    >>> file_schema_ref("# yaml-language-server: $schema=../../schemas/stack.schema.json\\ntitle: x\\n")
    '../../schemas/stack.schema.json'
    >>> file_schema_ref("title: x\\n# yaml-language-server: $schema=a.json\\n") is None
    True
    """
    first = text.split("\n", 1)[0].rstrip("\r")
    m = _MODELINE.fullmatch(first.lstrip("\ufeff"))
    return m.group(1) if m else None


def record_text(root: str | Path, record: Record, *, key_order: Iterable[str] = (), before: str | None = None) -> str:
    """The text the write gate writes for ``record`` under ``root``: the modeline, then the YAML
    (:func:`dump_record`). A rewrite keeps the modeline of the file it replaces (``before``, its
    text), so a schema reference set by hand (a URL, a catalog's path) stays and a file never gets
    a second one; a new file points at :func:`schema_ref`."""
    ref = (file_schema_ref(before) if before is not None else None) or schema_ref(root, record)
    return dump_record(record, schema_ref=ref, key_order=key_order)


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
        return redactor.redact_value(key, value)
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
                overwrite: bool = False, redactor: Redactor | None = None, key_order: Iterable[str] = (),
                at: Path | None = None) -> Saved:
    """The one write gate: every writer (``kb log``, ``kb new``, ``kb capture``, ``kb import``)
    writes a record through here.

    Redacts the record (:func:`redact_record`, with ``redactor`` when the caller has one that
    learned names, e.g. from a session's working folder), then writes it atomically
    (:func:`kb.atomic.write_text_atomic`; new files get the process umask). With ``new`` a taken
    id is suffixed ``-2``, ``-3``, … (ids in ``taken`` are skipped: ids are unique across kinds);
    without it the id is kept and an existing file is refused, or replaced when ``overwrite``
    (``key_order``: keys to write first, in that order, as :func:`dump_record`; ``at``: the file
    to write instead of ``<root>/<folder>/<id>.yaml``, e.g. the ``.yml`` file a record was read
    from, or the file a link in the records folder points to; it must lie inside ``root``).

    Raises :class:`RecordExists` (an existing record, not ``new`` nor ``overwrite``),
    :class:`InvalidRecords` (the redacted record does not validate), :class:`WriteError` (the
    disk refused, every suffixed id is taken, or ``root`` is a catalog:
    :func:`catalog_folder_reason`; catalogs are read-only to kb's writers).
    """
    refuse_catalog(root)
    clean, counts = redact_record(record, redactor)
    if new:
        clean, path = _create(root, clean, set(taken))
    else:
        target = record_path(root, clean) if at is None else _inside(root, at)
        text = record_text(root, clean, key_order=key_order, before=_current_text(target) if overwrite else None)
        path = write_text_atomic(target, text, overwrite=overwrite)
    return Saved(clean, path, counts)


def _current_text(path: Path) -> str | None:
    """The text of the record file a rewrite replaces, or ``None`` when there is none to read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _inside(root: str | Path, path: Path) -> Path:
    """``path`` with its links followed, when that lies inside ``root``; raises
    :class:`WriteError` when it lies elsewhere (kb writes only into the records folder)."""
    real, top = Path(path).resolve(), Path(root).resolve()
    if not real.is_relative_to(top):
        raise WriteError(f"{path}: links to {real}, outside the records folder {root}; kb writes only inside it: "
                         "replace the link by the file, then run the command again")
    return real


def remove_record(root: str | Path, record: Record, *, at: Path | None = None) -> Path:
    """Remove ``record``'s file (``<root>/<folder>/<id>.yaml``, or ``at``: the file it was read
    from, which must lie inside ``root``); return the path removed. Used when a draft is merged
    into another attempt or rejected (``kb review``): the one unlink of the store, refused in a
    catalog as every write is. The folder is synced, so the removal survives a crash.

    Raises :class:`WriteError` (a catalog, a file outside ``root``, the disk refused) and
    :class:`kb.errors.RecordError` when there is no such file."""
    from kb.errors import Problem, RecordError

    refuse_catalog(root)
    target = record_path(root, record) if at is None else _inside(root, at)
    try:
        os.unlink(target)
    except FileNotFoundError:
        raise RecordError(Problem(str(target), None, "", "no such record file (removed meanwhile?); "
                                                          "run the command again")) from None
    except OSError as exc:
        raise WriteError(f"{target}: cannot remove it ({exc.strerror}); check the folder is writable") from None
    try:
        fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass  # a folder that cannot be synced (some network file systems): the unlink stands
    return target


def write_record(root: str | Path, record: Record, *, overwrite: bool = False) -> Path:
    """Write ``record`` under its own id through the write gate (:func:`save_record` with
    ``new=False``); return its path. Raises :class:`RecordExists` if it exists and ``overwrite``
    is false, and the errors of :func:`save_record`."""
    return save_record(root, record, new=False, overwrite=overwrite).path


def create_record(root: str | Path, record: R, *, taken: Iterable[str] = (), max_tries: int = 1000,
                  redactor: Redactor | None = None) -> tuple[R, Path]:
    """Write a *new* ``record`` through the write gate (:func:`save_record`, with ``redactor``
    when given: ``Redactor(personal=False)`` for a team's own document), suffixing its id on
    collision; return the record as written and its path."""
    saved = save_record(root, record, new=True, taken=taken, redactor=redactor)
    return saved.record, saved.path  # type: ignore[return-value]


def free_id(root: str | Path, record: Record, taken: Iterable[str] = (), max_tries: int = 1000) -> str:
    """The id :func:`save_record` with ``new`` would give ``record`` now under ``root``: its own
    id, else the first of ``<id>-2``, ``<id>-3``, … that is not in ``taken`` and whose name is
    free (no file, link, loop or FIFO there: the exclusive link that writes would fail on it;
    what a ``--dry-run`` shows; reads only). Raises :class:`WriteError` after ``max_tries``."""
    for rid in _candidate_ids(record.id, set(taken), max_tries):
        if not os.path.lexists(record_path(root, record.model_copy(update={"id": rid}))):  # a loop, a FIFO: taken too
            return rid
    raise _all_taken(root, record, max_tries)


def _candidate_ids(base: str, taken: set[str], max_tries: int) -> Iterator[str]:
    """``base``, then ``<base>-2``, ``<base>-3``, … up to ``max_tries`` ids, those in ``taken`` left out."""
    for n in range(1, max_tries + 1):
        rid = base if n == 1 else suffixed(base, n)
        if rid not in taken:
            yield rid


def _all_taken(root: str | Path, record: Record, max_tries: int) -> WriteError:
    return WriteError(f"{Path(root) / record.folder}: ids {record.id} to {record.id}-{max_tries} are all taken; "
                      "pick another title")


def _create(root: str | Path, record: R, taken: set[str], max_tries: int = 1000) -> tuple[R, Path]:
    """Create ``record`` under ``root``: ``record.id`` first, then ``<id>-2``, ``<id>-3``, … An
    id is skipped when it is in ``taken`` or its file exists. The check that decides is the
    exclusive hard link of :func:`kb.atomic.write_text_atomic`, so two processes writing the
    same id at the same moment both succeed, under distinct ids. Raises :class:`WriteError`
    after ``max_tries`` taken ids."""
    for rid in _candidate_ids(record.id, taken, max_tries):
        candidate = record.model_copy(update={"id": rid})
        try:
            text = record_text(root, candidate)
            return candidate, write_text_atomic(record_path(root, candidate), text)
        except RecordExists:
            continue
    raise _all_taken(root, record, max_tries)
