"""Line maps of cached records, kept by content so that locating a warning does not parse the file.

A record taken from the store's cache (:mod:`kb.store.cache`) comes without its line map: the
map is only needed to say on which line a problem or warning lies, and most records have none.
But ``kb check`` locates every warning of the campaign on every run (at 10,000 attempts about
1,730 records carry one), so after an edit it parsed all those files again just for their
lines. This module keeps the line map (:attr:`kb.yamldoc.Document.lines`: field path → 1-based
line) of every record whose line was asked for, under the path and the SHA-256 of the bytes it
was parsed from, beside the record cache; the next check takes it from here when the file still
has the same bytes, and parses only what changed.

Where: ``lines.map`` in the records folder's cache folder (:func:`kb.store.cache.cache_path`).
Trust: the same header as the record cache (:data:`FORMAT` then the fingerprint of the code that
parses YAML and of its libraries, :func:`kb.store.cache.fingerprint`) and the CRC-32 of the
pickled payload; it is unpickled with no global allowed at all (only dicts, tuples, strings,
bytes and integers can come out), and anything but ``{path: (32-byte digest, {tuple of
str/int: positive int})}`` means: trust none of it, parse again. Writes are atomic; a folder
that cannot be written is skipped (the file only saves time).
"""

from __future__ import annotations

import io
import pickle
from itertools import chain
from pathlib import Path
from typing import Any

FORMAT = b"kb-line-maps 1\n"
"""First line of the line-map file; a file that does not start with it is never unpickled."""

FILE_NAME = "lines.map"
"""Name of the line-map file in a records folder's cache folder (not ``*.pickle``: that is a shard)."""

LineMap = dict[tuple[Any, ...], int]
"""Field path (``("blocked_by", 0)``) → 1-based line, as :attr:`kb.yamldoc.Document.lines`."""


class _NoGlobals(pickle.Unpickler):
    """Refuses every global: the line-map file holds only built-in containers and scalars."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in kb's line maps")


_PARTS = {str, int}


def _is_line_map(lines: Any) -> bool:
    """Whether ``lines`` is a dict of tuples of str/int to positive ints (checked by C loops:
    a 10,000-attempt campaign's map file holds about 60,000 of them)."""
    if type(lines) is not dict or not lines:
        return type(lines) is dict
    values = lines.values()
    return (set(map(type, lines)) == {tuple} and set(map(type, chain.from_iterable(lines))) <= _PARTS
            and set(map(type, values)) == {int} and min(values) > 0)


class LineMaps:
    """The line maps of one records folder's cached records (see the module docstring).

    ``path``: the cache folder (:func:`kb.store.cache.cache_path`), or ``None`` for no file
    (nothing is found, nothing written). ``current``: the files of the load this serves, path →
    SHA-256 digest of the bytes (:attr:`kb.store.RecordSet.sources`): a kept map whose file still
    has those bytes stays in the file at :meth:`save`, the others are dropped. The file is read
    the first time :meth:`get` is called (never, when no line of a cached record is asked for).
    """

    def __init__(self, path: Path | None, current: dict[str, bytes]):
        self.path = path
        self.current = current
        self._old: dict[str, tuple[bytes, LineMap]] | None = None
        self.used: dict[str, tuple[bytes, LineMap]] = {}

    def _kept(self) -> dict[str, tuple[bytes, LineMap]]:
        if self._old is None:
            self._old = read_line_maps(self.path / FILE_NAME) if self.path is not None else {}
        return self._old

    def get(self, rel: str, digest: bytes) -> LineMap | None:
        """The line map kept for the file ``rel`` when its bytes hashed to ``digest``, else ``None``."""
        entry = self._kept().get(rel)
        if entry is None or entry[0] != digest:
            return None
        self.used[rel] = entry
        return entry[1]

    def note(self, rel: str, digest: bytes, lines: LineMap) -> None:
        """Keep ``lines``, the line map of the file ``rel`` parsed from bytes hashing to ``digest``."""
        if self.path is not None:
            self.used[rel] = (digest, lines)

    def save(self) -> bool:
        """Write the maps used in this run and those kept whose file is unchanged (same path, same
        digest in ``current``), when that differs from the file read. Atomic; returns whether it
        was written (``False`` also when nothing changed or the folder cannot be written)."""
        if self.path is None or not self.used:
            return False
        old = self._kept()
        keep = {rel: e for rel, e in old.items() if self.current.get(rel) == e[0]}
        keep.update(self.used)
        if keep.keys() == old.keys() and all(old[rel][0] == e[0] for rel, e in keep.items()):
            return False
        from kb.atomic import write_bytes_atomic
        from kb.errors import KbError
        from kb.store.cache import _check, _header

        payload = pickle.dumps(keep, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            write_bytes_atomic(self.path / FILE_NAME, FORMAT + _header() + _check(payload) + payload,
                               overwrite=True, durable=False)
        except (OSError, KbError):
            return False  # read-only folder or full disk: the maps only save time
        self._old = keep
        return True


def read_line_maps(path: Path) -> dict[str, tuple[bytes, LineMap]]:
    """The line maps in the file at ``path``: ``{record file path as loaded: (SHA-256 digest of
    its bytes, line map)}``; ``{}`` when it is missing, written by another kb or libraries,
    torn, corrupt, or holds anything else."""
    from kb.store.cache import _CHECK_LEN, _check, _header

    try:
        data = path.read_bytes()
    except OSError:
        return {}
    head = FORMAT + _header()
    if not data.startswith(head):
        return {}
    payload = memoryview(data)[len(head) + _CHECK_LEN:]
    if data[len(head):len(head) + _CHECK_LEN] != _check(payload):
        return {}
    try:
        maps = _NoGlobals(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - any damage at all means: parse again
        return {}
    if type(maps) is not dict or not all(
            type(rel) is str and type(e) is tuple and len(e) == 2 and type(e[0]) is bytes and len(e[0]) == 32
            and _is_line_map(e[1]) for rel, e in maps.items()):
        return {}
    return maps


def save_line_maps(origins: Any) -> int:
    """Save the line maps used by the records of ``origins`` (:attr:`kb.store.RecordSet.origins`:
    id → :class:`kb.store.Origin`), once per records folder they were loaded from. Returns the
    number of files written. Called by ``kb check`` after it located every problem and warning."""
    seen: dict[int, LineMaps] = {}
    for origin in origins.values():
        maps = origin.line_maps
        if maps is not None:
            seen.setdefault(id(maps), maps)
    return sum(maps.save() for maps in seen.values())
