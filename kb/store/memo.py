"""Results kept under the content of a records folder: what ``kb check`` reported for the exact
bytes of every file, reported again without loading anything when nothing changed.

``kb check`` reports the problems and warnings of every record on every run. Both are a function
of the records folder (every ``*.yaml``/``*.yml`` file's bytes, and the names and kinds of every
other entry: strays, leftovers, assets), of the catalogs its campaigns use, and of kb itself.
:func:`tree_digest` hashes the first (SHA-256, reading every record file: an edit is seen
whatever its mtime); a result is stored with the digests of the catalog folders it read
(``deps``); :func:`recall` hands it back only when the folder and every dep hash the same and the
result was written by this kb (:func:`code_fingerprint`: the source of every kb module, Python,
and the installed distributions beside kb's libraries). This module imports neither the models
nor pydantic, so a warm ``kb check`` costs little more than reading the files.

Where: ``<cache folder>/<name>-<16 hex of the records folder's real path>.json`` in the cache
folder of :mod:`kb.store.cache` (``.kb-cache/`` beside ``records/``, ``$KB_CACHE_DIR``;
``KB_CACHE=off`` turns this off too). The file is JSON (never unpickled); anything unexpected in
it, or a file that cannot be read or written, means: no result, compute it again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from kb.store.entries import read_regular

FORMAT = "kb-result-memo 1"
"""The ``format`` every memo file names; another value is never trusted."""

RECORD_SUFFIXES = (".yaml", ".yml")
"""Files whose bytes are hashed (the record files); of every other entry only the name counts."""

_LIBRARIES = ("yaml", "pydantic", "pydantic_core", "networkx", "packaging", "click")
"""Libraries whose installed versions can change what a result holds."""

_code: str | None = None


def code_fingerprint() -> str:
    """64 hex digits naming this kb and its libraries: the bytes of every ``.py`` file of the kb
    package, Python's version, and the names of the installed distributions (``*.dist-info``,
    which carry their versions) in the folders that hold :data:`_LIBRARIES`. Computed once per
    process; reads about 1 MB."""
    global _code
    if _code is None:
        h = hashlib.sha256(f"{FORMAT}|{sys.version}|{sys.executable}".encode())
        package = Path(__file__).resolve().parent.parent
        for path in sorted(package.rglob("*.py")):
            h.update(b"\0" + str(path.relative_to(package)).encode() + b"\0")
            try:
                h.update(path.read_bytes())
            except OSError:
                h.update(b"!unreadable")
        places = set()
        for name in _LIBRARIES:
            spec = importlib.util.find_spec(name)
            origin = spec.origin if spec is not None else None
            h.update(f"\0{name}={origin}".encode())
            if origin:
                places.add(Path(origin).parent.parent)
        for place in sorted(places):
            try:
                h.update("\0".join(sorted(n for n in os.listdir(place) if n.endswith(".dist-info"))).encode())
            except OSError:
                h.update(b"!unlisted")
        _code = h.hexdigest()
    return _code


def tree_digest(folder: Path, keep: dict[str, bytes] | None = None, listing: list[str] | None = None) -> str:
    """SHA-256 (hex) of ``folder``: every entry's path relative to it and kind (folder, file,
    link and its target), walked in name order, and the bytes of every ``*.yaml``/``*.yml`` file
    (through links). Linked folders are walked too (the store reads a linked kind folder), each
    real folder once (a link back up cannot loop). Entries that cannot be read are hashed as
    such, never skipped: a symlink loop by its link and error, a FIFO, socket or device file by its
    file type (it is never opened: reading a FIFO would wait for a writer).

    ``keep``: when given, the bytes of every ``*.yaml``/``*.yml`` file hashed are put in it under
    the file's path as walked (``<folder>/attempts/x.yaml``), so that a load can use exactly the
    bytes this digest names (:func:`kb.pipeline.load`'s ``prefetched``) instead of reading the
    files a second time. ``listing``: when given, the walk's entries without the files' bytes
    are appended to it (:func:`listing_digest` of it is the folder's listing digest)."""
    h = hashlib.sha256()
    _walk(folder, "", h, set(), keep, listing)
    return h.hexdigest()


def listing_digest(folder: Path | None = None, listing: list[str] | None = None) -> str:
    """SHA-256 (hex) of what :func:`tree_digest` hashes but the record files' bytes: every
    entry's path, kind and link target, without reading a file. Of ``folder`` (walked now), or of
    a ``listing`` a :func:`tree_digest` walk gathered. After a load that used exactly the bytes a
    tree digest read (:class:`kb.store.Prefetched`, nothing missed), the same listing means the
    folder still holds what that digest named."""
    if listing is None:
        listing = []
        _walk(folder if folder is not None else Path("."), "", None, set(), None, listing)
    return hashlib.sha256("\0".join(listing).encode("utf-8", "surrogateescape")).hexdigest()


def _walk(folder: Path | str, prefix: str, h: Any, seen: set[tuple[int, int]],
          keep: dict[str, bytes] | None = None, listing: list[str] | None = None) -> None:
    """Hash ``folder`` into ``h`` (``None``: do not read files) and append its entries to ``listing``."""
    def note(item: str) -> None:
        if h is not None:
            h.update(item.encode("utf-8", "surrogateescape"))
        if listing is not None:
            listing.append(item)

    try:
        st = os.stat(folder)
        if (st.st_dev, st.st_ino) in seen:
            note(f"\0@{prefix}")  # a folder met before (a loop)
            return
        seen.add((st.st_dev, st.st_ino))
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        note(f"\0!{prefix}:{exc.errno}")
        return
    for e in entries:
        rel = prefix + e.name
        try:
            if e.is_symlink():
                note(f"\0L{rel}\0{os.readlink(e.path)}")
            if e.is_dir():
                note(f"\0D{rel}")
                _walk(e.path, rel + "/", h, seen, keep, listing)
            elif not e.is_file():  # a FIFO, socket or device, never opened (a link to nothing: OSError below)
                note(f"\0S{rel}\0{stat.S_IFMT(os.stat(e.path).st_mode):o}")
            elif e.name.endswith(RECORD_SUFFIXES):
                if listing is not None:
                    listing.append(f"\0F{rel}")
                if h is not None:
                    data = read_regular(e.path)  # raw reads, never waiting on a FIFO
                    h.update(f"\0F{rel}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
                    h.update(data)
                    if keep is not None:
                        keep[e.path] = data
            else:
                note(f"\0N{rel}")
        except OSError as exc:
            note(f"\0!{rel}:{exc.errno}")


def memo_path(root: Path, name: str) -> Path | None:
    """The memo file of result ``name`` for the records folder ``root``; ``None`` when the
    cache is off or the folder lies inside the kb package (see :func:`kb.store.cache.cache_folder`)."""
    from kb.store.cache import cache_folder

    folder = cache_folder(root)
    if folder is None:
        return None
    tag = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:16]
    return folder / f"{name}-{tag}.json"


def _read(root: Path, name: str) -> dict[str, Any] | None:
    """The memo file ``name`` of the records folder ``root`` as a dict of this :data:`FORMAT`;
    ``None`` when it is missing, unreadable, not JSON or of another format."""
    path = memo_path(root, name)
    if path is None:
        return None
    try:
        memo = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return memo if isinstance(memo, dict) and memo.get("format") == FORMAT else None


def recall(root: str | Path, name: str, tree: str | None = None) -> Any | None:
    """The result ``name`` stored for ``root`` (a records folder) when the folder, every
    catalog folder it depended on, and kb are as they were then; else ``None``. ``tree``: the
    folder's :func:`tree_digest` when the caller has just taken it (a check that will load the
    records on a miss hashes the folder once, keeping the bytes); else it is taken here."""
    root = Path(root)
    memo = _read(root, name)
    if not (memo is not None and isinstance(memo.get("deps"), list)
            and "result" in memo and memo.get("code") == code_fingerprint()):
        return None
    if memo.get("tree") != (tree if tree is not None else tree_digest(root)):
        return None
    return memo["result"] if _deps_unchanged(memo["deps"]) else None


def remember(root: str | Path, name: str, result: Any, deps: list[Path], tree: str, listing: str | None = None) -> bool:
    """Store ``result`` (JSON-able) as ``name`` for ``root``, computed when ``root`` hashed to
    ``tree`` (:func:`tree_digest`, taken before reading it, so that an edit made meanwhile is
    never hidden), with the catalog folders ``deps`` it read. ``listing``: the
    :func:`listing_digest` of that same walk, given only when the result was computed from
    exactly the record bytes it read (:class:`kb.store.Prefetched`, nothing missed); then the
    folder's listing is compared again instead of every file's bytes. Atomic; returns whether it
    was written (a folder that cannot be written is skipped: the memo only saves time)."""
    root = Path(root)
    path = memo_path(root, name)
    if path is None:
        return False
    if (listing_digest(root) != listing) if listing is not None else (tree_digest(root) != tree):
        return False  # changed while it was read: keep nothing
    memo = {"format": FORMAT, "code": code_fingerprint(), "tree": tree,
            "deps": [[str(Path(d).resolve()), tree_digest(Path(d))] for d in deps], "result": result}
    return _write(path, memo)


def content_key(sources: dict[str, bytes]) -> str:
    """64 hex digits naming the content of a loaded record set: every file read (path and the
    SHA-256 of its bytes, :attr:`kb.store.RecordSet.sources`, in path order) and this kb
    (:func:`code_fingerprint`). Two loads with the same key read the same bytes with the same code."""
    h = hashlib.sha256(code_fingerprint().encode())
    for rel in sorted(sources):
        h.update(b"\0" + rel.encode("utf-8", "surrogateescape") + b"\0" + sources[rel])
    return h.hexdigest()


def known(root: str | Path, name: str, key: str) -> bool:
    """Whether ``key`` (:func:`content_key`) was marked under ``name`` for the records folder
    ``root`` by :func:`mark` (the last key marked counts; anything unexpected in the file: no)."""
    memo = _read(Path(root), name)
    return memo is not None and memo.get("key") == key


def mark(root: str | Path, name: str, key: str) -> bool:
    """Remember ``key`` under ``name`` for ``root`` (atomic; one key per name, the last one).
    Returns whether it was written (an unwritable cache folder is skipped)."""
    path = memo_path(Path(root), name)
    if path is None:
        return False
    from kb.atomic import write_bytes_atomic
    from kb.errors import KbError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ignore = path.parent / ".gitignore"
        if not ignore.exists():
            write_bytes_atomic(ignore, b"# kb's cache of validated records: never commit or publish it\n*\n",
                               overwrite=True)
        write_bytes_atomic(path, json.dumps({"format": FORMAT, "key": key}).encode(), overwrite=True)
    except (OSError, KbError):
        return False
    return True


ANSWERS = "answers"
"""Name of the memo file holding the query answers kept for one content of a records folder."""

MAX_ANSWERS = 64
"""Most answers kept for one content (the oldest are dropped first)."""


def recall_answer(root: str | Path, tree: str, key: str) -> Any | None:
    """The answer kept under ``key`` (a query and its arguments, e.g. ``'["roots", {"limit": 5}]'``)
    for the records folder ``root`` whose content hashes to ``tree`` (:func:`tree_digest`, taken
    by the caller), when it was computed from that same content, the same catalog folders and
    this kb (:func:`code_fingerprint`); else ``None``."""
    memo = _answers(Path(root), tree)
    if memo is None:
        return None
    return memo["answers"].get(key)


def _answers(root: Path, tree: str) -> dict[str, Any] | None:
    memo = _read(root, ANSWERS)
    if not (memo is not None and memo.get("code") == code_fingerprint() and memo.get("tree") == tree
            and isinstance(memo.get("answers"), dict) and isinstance(memo.get("deps"), list)):
        return None
    return memo if _deps_unchanged(memo["deps"]) else None


def _deps_unchanged(deps: list[Any]) -> bool:
    """Whether every ``[folder, digest]`` pair of a memo's ``deps`` is well formed and the
    folder still hashes to its digest (:func:`tree_digest`)."""
    for dep in deps:
        if not (isinstance(dep, list) and len(dep) == 2 and all(isinstance(x, str) for x in dep)):
            return False
        if tree_digest(Path(dep[0])) != dep[1]:
            return False
    return True


def remember_answer(root: str | Path, tree: str, listing: str, key: str, answer: Any, deps: list[Path]) -> bool:
    """Keep ``answer`` (JSON-able) under ``key`` for ``root`` as computed from the content
    ``tree`` and the catalog folders ``deps``. The caller guarantees the answer was computed from
    exactly the record bytes ``tree`` read (:class:`kb.store.Prefetched`, nothing missed);
    ``listing`` is the :func:`listing_digest` of that walk, compared again here (a file added or
    removed meanwhile keeps nothing). Answers kept for the same content stay (at most
    :data:`MAX_ANSWERS`); those of another content are dropped. Atomic; returns whether it was
    written (an unwritable cache folder is skipped: the memo only saves time)."""
    root = Path(root)
    path = memo_path(root, ANSWERS)
    if path is None or listing_digest(root) != listing:
        return False
    deps_now = [[str(Path(d).resolve()), tree_digest(Path(d))] for d in deps]
    memo = _answers(root, tree)
    answers: dict[str, Any] = memo["answers"] if memo is not None and memo["deps"] == deps_now else {}
    answers.pop(key, None)
    answers[key] = answer
    while len(answers) > MAX_ANSWERS:
        answers.pop(next(iter(answers)))
    return _write(path, {"format": FORMAT, "code": code_fingerprint(), "tree": tree, "deps": deps_now,
                         "answers": answers})


def _write(path: Path, memo: dict[str, Any]) -> bool:
    from kb.atomic import write_bytes_atomic
    from kb.errors import KbError

    try:
        data = json.dumps(memo, ensure_ascii=False).encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        ignore = path.parent / ".gitignore"
        if not ignore.exists():
            write_bytes_atomic(ignore, b"# kb's cache of validated records: never commit or publish it\n*\n",
                               overwrite=True)
        write_bytes_atomic(path, data, overwrite=True)
    except (OSError, KbError, ValueError, TypeError):  # unwritable folder, or text JSON cannot carry
        return False
    return True
