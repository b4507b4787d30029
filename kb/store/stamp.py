"""A cheap look at whether a records folder changed: the file system's own record of every entry
(:func:`stamp`), for a process that keeps records loaded (``kb daemon``) and must know before each
answer whether they are still what is on disk.

Hashing every record file's bytes (:func:`kb.store.memo.tree_digest`) reads the whole folder: at
10,000 attempts about 0.1 s, the whole of a warm ``kb check``. Looking at each entry's status
(``stat``) reads no file. The status of a record file names it by device, inode, size,
modification time and status-change time (``st_ctime``, which the kernel sets on every write,
rename or link and no user call can set back), as Git's index does; a folder's entries are named by
their names, kinds and link targets, walked as :func:`~kb.store.memo.tree_digest` walks them.

A write in the same clock tick as the look can leave every time as it was (file-system clocks
advance in ticks of a few milliseconds, some in 2-second steps): Git calls such entries "racy". A
stamp is therefore *settled* only when no record file changed in the :data:`SETTLE_NS` before it was
taken; an unsettled stamp says nothing, and the caller hashes the content instead.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any, NamedTuple

from kb.store.memo import RECORD_SUFFIXES

SETTLE_NS = 3_000_000_000
"""3 s: a record file whose modification or status-change time lies within this of the moment a
stamp is taken makes the stamp unsettled (it covers coarse clocks, FAT's 2-second steps included)."""


class Stamp(NamedTuple):
    """What :func:`stamp` saw: ``entries`` (one item per entry, in the order the folders list them:
    a folder's path, a link's path and target, a record file's path, device, inode, size, mode and
    times in ns, another file's path, the path and type of anything else: a FIFO, socket or device)
    and ``settled`` (no record file changed in the :data:`SETTLE_NS` before the look, so equal
    entries later mean unchanged files)."""

    entries: list[Any]
    settled: bool

    def same(self, other: Stamp | None) -> bool:
        """Whether ``other`` (an earlier stamp of the same folder) was settled and saw exactly
        these entries: then no record file changed in between."""
        return other is not None and other.settled and other.entries == self.entries


def stamp(folder: str | Path) -> Stamp:
    """The :class:`Stamp` of ``folder`` (a records folder), taken without reading any file (at
    10,000 attempts about 0.03 s, a third of hashing them).

    Two stamps of the same folder with equal entries, the earlier one settled, mean that no entry
    was added, removed, renamed or relinked and no record file was written in between (within the
    limits of the file system's clock: see the module's text). An entry that cannot be looked at is
    stamped as such (with its error number), never skipped; never raises for the folder's content.
    A folder listed in another order than before only makes the stamps differ (the caller then
    hashes the content)."""
    started = time.time_ns()
    entries: list[Any] = []
    newest = _walk(str(folder), entries, set())
    return Stamp(entries, newest < started - SETTLE_NS)


def _walk(folder: str, out: list[Any], seen: set[tuple[int, int]]) -> int:
    """Append the entries of ``folder`` (and of the folders in it, each real folder once) to
    ``out``; returns the newest modification or status-change time (ns) of a record file in it
    (0 when none)."""
    newest = 0
    try:
        st = os.stat(folder)
        if (st.st_dev, st.st_ino) in seen:
            out.append(("@", folder))
            return 0
        seen.add((st.st_dev, st.st_ino))
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError as exc:
        out.append(("!", folder, exc.errno))
        return 0
    for e in entries:
        try:
            if e.is_symlink():
                out.append(("L", e.path, os.readlink(e.path)))
            if e.is_dir():
                out.append(e.path)
                inner = _walk(e.path, out, seen)
                if inner > newest:
                    newest = inner
            elif e.name.endswith(RECORD_SUFFIXES):
                s = e.stat()
                changed = s.st_ctime_ns if s.st_ctime_ns > s.st_mtime_ns else s.st_mtime_ns
                if changed > newest:
                    newest = changed
                out.append((e.path, s.st_dev, s.st_ino, s.st_size, s.st_mode, s.st_mtime_ns, s.st_ctime_ns))
            elif e.is_file():
                out.append(("N", e.path))
            else:  # a FIFO, socket or device (never opened): its type counts (the load reports it)
                out.append(("S", e.path, stat.S_IFMT(os.stat(e.path).st_mode)))
        except OSError as exc:
            out.append(("!", e.path, exc.errno))
    return newest
