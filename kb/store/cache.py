"""The store's cache of validated records: what validating each record file produced (the
record, or its problems), kept under the SHA-256 of the file's bytes.

Parsing and validating a record costs far more than reading it (measured in
``bench/bench_scale.py``: at 1,000 attempts, 0.33 s to parse and validate, 0.02 s to read the
same records back from the cache). A load still reads every file and hashes it; an entry is
reused only when the path and the hash both match. So an edit is seen whatever happened to the
file's mtime or size, a deleted file's entry is dropped at the next save, and every problem of
every file is reported on every run (problems are cached with their file's entry).

Where: ``<records>/../.kb-cache/records-<16 hex of the SHA-256 of the records folder's real
path>/<nn>.pickle``: beside ``records/``, never inside it, hidden (MkDocs never publishes it) and
git-ignored (the folder gets a ``.gitignore`` of ``*``). The entries are split into
:data:`SHARDS` files by their path (:func:`shard_of`), so that an edit rewrites only the shard of
the file edited (a 10,000-attempt cache is about 10 MB: rewriting it whole after every save in
``kb serve`` cost more than the page); each shard is read, trusted or rebuilt on its own. ``$KB_CACHE_DIR`` moves it;
``KB_CACHE=off`` (or ``0``, ``no``, ``false``) turns it off. A records folder inside the kb
package (a catalog shipped with kb, which may be installed read-only) is cached in the cache
folder of the campaign that loads it (:func:`load_records`'s ``cache_for``), or not at all.

Trust: a cache file starts with :data:`FORMAT` and a fingerprint of everything that decides what
validation produces: the source of the modules that parse and validate (models, validation,
YAML, versions, errors, the store's reader and this module; kb's version where a source cannot
be read), and the versions of Python, pydantic, PyYAML, libyaml and packaging. A file with another header (another kb, an
edited model), a truncated or corrupt one (the next line holds the CRC-32 of the pickled
entries: shards are written atomically but without waiting for the disk, so one torn by a crash
fails it), or one holding anything but entries of kb's record models is ignored and rebuilt. It is unpickled with an allow-list (kb's model classes and
enums, :class:`kb.errors.Problem`, :class:`datetime.date` and :class:`datetime.datetime`), so a
planted file cannot run code. Writes are atomic (:func:`kb.atomic.write_bytes_atomic`); a cache
that cannot be written (read-only folder, full disk) is skipped silently: it only saves time.
"""

from __future__ import annotations

import enum
import hashlib
import io
import os
import pickle
import sys
import zlib
from pathlib import Path
from typing import Any

FORMAT = b"kb-record-cache 5\n"
"""First line of a cache file; a file that does not start with it is never unpickled."""

SHARDS = 32
"""Number of shard files a records folder's cache is split into (by :func:`shard_of`)."""

_SOURCE_MODULES = ("kb.models", "kb.validation", "kb.yamldoc",
                   "kb.versions", "kb.errors", "kb.leftovers", "kb.store.read", "kb.store.cache")
"""kb modules whose code decides what loading a record file produces (their source is hashed)."""

OFF_VALUES = ("off", "0", "no", "false")
"""Values of ``$KB_CACHE`` that turn the cache off."""

Entry = tuple[bytes, Any, tuple[Any, ...]]
"""One cached file: ``(sha256 digest of its bytes, record or None, problems)``."""

_fingerprint: bytes | None = None


def fingerprint() -> bytes:
    """32 hex digits (bytes) naming this kb and its libraries (see the module docstring); a
    cache written under another fingerprint is never read. Computed once per process. kb's
    version (package metadata, slow to read) stands in only for a module whose source cannot
    be read: the sources themselves say more than the version."""
    global _fingerprint
    if _fingerprint is None:
        import importlib

        import packaging
        import pydantic
        import yaml

        try:
            from yaml import _yaml
            libyaml = _yaml.get_version_string()
        except ImportError:  # pragma: no cover - depends on how PyYAML was built
            libyaml = "none"
        h = hashlib.sha256(f"{sys.version}|{pydantic.VERSION}|{yaml.__version__}|{libyaml}|"
                           f"{packaging.__version__}".encode())
        for name in _SOURCE_MODULES:
            mod = importlib.import_module(name)
            h.update(name.encode() + b"\0")
            try:
                h.update(Path(mod.__file__ or "").read_bytes())
            except OSError:  # no source to hash (a frozen build): its name and kb's version stand in
                from kb import __version__  # read from the package metadata: 26 ms, so only here

                h.update(f"kb {__version__}".encode())
        _fingerprint = h.hexdigest()[:32].encode()
    return _fingerprint


def _header() -> bytes:
    return FORMAT + fingerprint() + b"\n"


_CHECK_LEN = 9


def _check(payload: bytes | memoryview) -> bytes:
    """The line after the header: the CRC-32 of the pickled entries (8 hex digits and a newline).
    Shards are written without waiting for the disk; a shard torn by a crash fails it and is
    rebuilt. (A planted file is no threat it must stop: the unpickler allows only kb's models.)"""
    return b"%08x\n" % zlib.crc32(payload)


def cache_folder(records_root: Path) -> Path | None:
    """The folder of the caches of the records folder ``records_root``: ``$KB_CACHE_DIR``, else
    ``.kb-cache`` beside the records folder; ``None`` when ``$KB_CACHE`` turns the cache off or
    the records folder lies inside the kb package (read-only package data)."""
    if os.environ.get("KB_CACHE", "").strip().lower() in OFF_VALUES:
        return None
    if os.environ.get("KB_CACHE_DIR"):
        return Path(os.environ["KB_CACHE_DIR"])
    real = records_root.resolve()
    if real.is_relative_to(_PACKAGE):
        return None
    return real.parent / ".kb-cache"


_PACKAGE = Path(__file__).resolve().parent.parent
"""The kb package folder: records folders inside it (shipped catalogs) are never cached there."""


def cache_path(root: Path, cache_for: Path | None = None) -> Path | None:
    """The folder of the cache shards of the records folder ``root`` (``records-<tag>``, holding
    ``00.pickle`` … :func:`shard_path`), kept in the cache folder of ``cache_for`` (a campaign's
    records folder loading ``root`` as a catalog; default ``root`` itself), or ``None`` when there
    is no cache (see :func:`cache_folder`)."""
    folder = cache_folder(cache_for if cache_for is not None else root)
    if folder is None:
        return None
    tag = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:16]
    return folder / f"records-{tag}"


def shard_of(rel: str) -> int:
    """The shard (0 to :data:`SHARDS` - 1) holding the entry of the record file ``rel`` (its path
    as loaded, ``records/attempts/x.yaml``): CRC-32 of the path, so a file keeps its shard
    whatever its content."""
    return zlib.crc32(rel.encode("utf-8", "surrogateescape")) % SHARDS


def shard_path(base: Path, shard: int) -> Path:
    """The file of shard ``shard`` in the cache folder ``base`` (:func:`cache_path`)."""
    return base / f"{shard:02d}.pickle"


class _Unpickler(pickle.Unpickler):
    """Finds only kb's record models and enums, :class:`kb.errors.Problem` and dates: any other
    global (``os.system``, ``builtins.eval``) makes the load fail, so a planted file runs nothing."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        if module == "kb.models":
            from pydantic import BaseModel

            obj = getattr(sys.modules.get(module), name, None)
            if isinstance(obj, type) and issubclass(obj, (BaseModel, enum.Enum)) and obj.__module__ == module:
                return obj
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in kb's record cache")


_PLAIN = {("datetime", "date"), ("datetime", "datetime"), ("kb.errors", "Problem")}


class RecordCache:
    """The entries of one records folder's cache, in :data:`SHARDS` shard files.

    :meth:`get` hands back an entry only when its content hash matches; :meth:`put` keeps a
    fresh one; :meth:`save` writes, per shard, the entries met in this load (so those of deleted
    files drop out) when any of that shard was added or dropped; the other shards are left as
    they are. With ``path`` ``None`` there is no cache file: nothing is read,
    :meth:`save` writes nothing, and :meth:`get` finds only what :meth:`put` kept in memory.
    """

    def __init__(self, path: Path | None):
        self.path = path
        self.old: list[dict[str, Entry]] = [read_entries(shard_path(path, n)) if path is not None else {}
                                            for n in range(SHARDS)]
        self.new: list[dict[str, Entry]] = [{} for _ in range(SHARDS)]
        self.dirty: set[int] = set()

    def get(self, rel: str, digest: bytes) -> Entry | None:
        """The entry of the file ``rel`` whose bytes hash to ``digest`` (one :meth:`put` in this
        load, else one read from the cache file), or ``None``."""
        n = shard_of(rel)
        entry = self.new[n].get(rel) or self.old[n].get(rel)
        if entry is None or entry[0] != digest:
            return None
        self.new[n][rel] = entry
        return entry

    def put(self, rel: str, digest: bytes, record: Any, problems: list[Any]) -> None:
        """Remember what validating the file ``rel`` (content hash ``digest``) produced, to be
        written by :meth:`save`."""
        n = shard_of(rel)
        self.new[n][rel] = (digest, record, tuple(problems))
        self.dirty.add(n)

    def save(self, shards: list[int] | None = None) -> list[int]:
        """Write, atomically, each shard one of whose entries changed or was dropped in this load
        (of ``shards`` only, when given: a worker of :mod:`kb.store.parallel` writes its own).
        Returns the shards written (``[]`` also when none could be)."""
        if self.path is None:
            return []
        todo = [n for n in (range(SHARDS) if shards is None else shards)
                if n in self.dirty or self.old[n].keys() - self.new[n].keys()]
        if not todo:
            return []
        from kb.atomic import write_bytes_atomic
        from kb.errors import KbError

        written = []
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                write_bytes_atomic(ignore, b"# kb's cache of validated records: never commit or publish it\n*\n",
                                   overwrite=True)
            old_single = self.path.with_name(self.path.name + ".pickle")  # kb-record-cache 2: one file
            if old_single.is_file():
                old_single.unlink()
            for n in todo:
                payload = pickle.dumps(self.new[n], protocol=pickle.HIGHEST_PROTOCOL)
                write_bytes_atomic(shard_path(self.path, n), _header() + _check(payload) + payload,
                                   overwrite=True, durable=False)
                written.append(n)
        except (OSError, KbError):
            pass  # read-only folder or full disk: the cache only saves time
        return written


def read_entries(path: Path) -> dict[str, Entry]:
    """The entries of the cache shard file at ``path`` (:func:`shard_path`): ``{rel path:
    (digest, record or None, problems)}``; ``{}`` when it is missing, written under another
    fingerprint, truncated, corrupt, or holds anything that is not such an entry."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    head = _header()
    if not data.startswith(head):
        return {}
    payload = memoryview(data)[len(head) + _CHECK_LEN:]
    if data[len(head):len(head) + _CHECK_LEN] != _check(payload):
        return {}  # torn by a crash (shards are written without fsync) or edited: rebuild
    try:
        entries = _Unpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - any damage at all (truncated, garbled, a global not allowed) means: rebuild
        return {}
    if not isinstance(entries, dict):
        return {}
    from kb.errors import Problem
    from kb.models import Record

    for rel, entry in entries.items():
        if not (isinstance(rel, str) and type(entry) is tuple and len(entry) == 3 and type(entry[0]) is bytes
                and (entry[1] is None or isinstance(entry[1], Record)) and type(entry[2]) is tuple
                and all(type(p) is Problem for p in entry[2])):
            return {}  # not what kb writes: trust none of it
    return entries
