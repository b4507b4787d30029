"""Odd entries under a records folder: what kb must never open, and names it cannot print.

A records folder is edited by hand, by scripts and by tools, and the file system lets it hold
more than files and folders:

* a symlink loop (``ln -s x.yaml x.yaml``, ``a.yaml -> b.yaml -> a.yaml``): following it fails
  with ``ELOOP`` (Linux gives up after 40 links), so it is neither a file nor a folder;
* a FIFO, socket or device file under a record's name (``mkfifo attempts/x.yaml``): opening a
  FIFO for reading waits for a writer, so a reader that opens it hangs for ever, and opening a
  device can act on the device;
* a name that is not UTF-8 (bytes written under another encoding): on POSIX Python hands such a
  name over with each undecodable byte as a lone surrogate (PEP 383, ``surrogateescape``), which
  no UTF-8 output, JSON file or pydantic model accepts.

:func:`entry_type` tells these apart from the ``os.DirEntry`` a listing gave, without a system
call for a plain file or folder (the entry's type comes with the listing); :func:`odd_problem`
words what is wrong and how to fix it; :func:`shown` is a name with its undecodable bytes
escaped (``\\xff``), safe to print; :func:`read_regular` reads a file without ever waiting on a
FIFO that took a file's place after it was listed. This module imports only the standard
library: :mod:`kb.store.memo` (loaded before anything else by ``kb check``) uses it too.
"""

from __future__ import annotations

import errno
import os
import stat

FILE = "file"
DIR = "folder"
LOOP = "symlink loop"
MISSING = "missing"
"""What :func:`entry_type` gives for an entry that is no longer there, or a link to nothing."""

SPECIAL = {stat.S_IFIFO: "FIFO", stat.S_IFSOCK: "socket", stat.S_IFCHR: "character device",
           stat.S_IFBLK: "block device"}
"""File types that are neither regular files nor folders, by ``stat.S_IFMT`` of their mode."""


def entry_type(e: os.DirEntry[str]) -> str:
    """What the listed entry ``e`` is, following symlinks: :data:`FILE` (a regular file),
    :data:`DIR`, :data:`LOOP`, :data:`MISSING` (gone since it was listed, or a link to nothing),
    one of :data:`SPECIAL`'s values (``"FIFO"``), ``"special file"`` for any other type, or
    ``"unreadable (<reason>)"`` when the file system refuses to say. Never raises. A plain file
    or folder costs no system call (``os.scandir`` gave its type); a link or anything else, one."""
    try:
        if e.is_file():
            return FILE
        if e.is_dir():
            return DIR
        mode = e.stat().st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return LOOP
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return MISSING
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):  # made a file since it was listed
        return FILE
    if stat.S_ISDIR(mode):
        return DIR
    return SPECIAL.get(stat.S_IFMT(mode), "special file")


def is_special(kind: str) -> bool:
    """Whether ``kind`` (from :func:`entry_type`) is neither a file, a folder, a loop nor missing:
    an entry kb must never open."""
    return kind not in (FILE, DIR, LOOP, MISSING)


def shown(name: str) -> str:
    """``name`` (a file name or path as Python got it from the file system) as it can be printed:
    each byte that was not UTF-8 escaped as ``\\xNN``; other names are returned unchanged.

    >>> shown("x.yaml"), shown(os.fsdecode(b"\\xffbad.yaml"))
    ('x.yaml', '\\\\xffbad.yaml')
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


def not_utf8(name: str) -> bytes | None:
    """The first byte of ``name`` that is not UTF-8 (as :func:`shown` escapes it), or ``None``
    when the name is valid UTF-8 text."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:
        return name[exc.start].encode("utf-8", "surrogateescape")
    return None


def odd_problem(e: os.DirEntry[str], kind: str, record: bool = True, files: str = "record files") -> str | None:
    """The problem message for the entry ``e`` of type ``kind`` (:func:`entry_type`), or
    ``None`` when it is an ordinary file or folder with a UTF-8 name. ``record``: whether it would be read as a record
    (named ``*.yaml``/``*.yml``); a FIFO, socket or device under another name is only a stray
    the caller reports as such, but a loop or a name that is not UTF-8 is reported whatever the
    name; so is a link to nothing named as a record file. ``files``: what such files are called
    in the message (``"asset files"`` under ``assets/``). Each message says what is wrong and
    how to fix it."""
    if kind == LOOP:
        return ("symlink loop: following the link leads back to a link, never to a file; "
                "remove the link loop or point the link at a real file")
    if kind.startswith("unreadable"):
        return f"cannot tell what it is: {kind[len('unreadable ('):-1]}; fix its permissions or remove it"
    if record and kind == MISSING and _is_link(e):
        try:
            target = os.readlink(e.path)
        except OSError:  # gone since it was listed: the reader says so
            return None
        return (f"the link leads to nothing ({shown(target)} does not exist); "
                f"point it at a {files[:-1]} or remove the link")
    if record and is_special(kind):
        if _is_link(e):
            return f"the link leads to a {kind}, not a regular file; {files} must be regular files; remove the link"
        return f"is a {kind}, not a regular file; {files} must be regular files; remove the {kind}"
    bad = not_utf8(e.name)
    if bad is not None:
        what = "folder" if kind == DIR else "file"
        return (f"{what} name is not valid UTF-8 (byte 0x{bad[0]:02x}); kb cannot show or store it: "
                f"rename it in UTF-8")
    return None


def _is_link(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_symlink()
    except OSError:
        return False


CHUNK = 65536
"""Size of each raw read (64 KiB)."""


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the file at ``path``, read with raw ``os.read`` calls of :data:`CHUNK` bytes
    (a buffered ``open()`` allocates a buffer and asks the file system twice more per file);
    with ``limit``, at most ``limit + 1`` bytes are read (more means: too big; the caller
    decides). The file is opened ``O_NONBLOCK`` (no effect on a regular file): a FIFO that took
    a listed file's place is never waited on, and one read as empty is checked and refused.
    Raises :class:`OSError` as ``os.open`` does, ``OSError(EINVAL)`` for a file found not to be
    a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_BINARY", 0))
    try:
        data = os.read(fd, CHUNK)
        if len(data) == CHUNK:  # a short read of a regular file is its end
            parts = [data]
            size = len(data)
            while (limit is None or size <= limit) and (more := os.read(fd, CHUNK)):
                parts.append(more)
                size += len(more)
            data = b"".join(parts)
        elif not data and not stat.S_ISREG(mode := os.fstat(fd).st_mode):  # an empty read: is it a file at all?
            what = SPECIAL.get(stat.S_IFMT(mode), "special file")
            raise OSError(errno.EINVAL, f"a {what}, not a regular file", os.fsdecode(path))
    finally:
        os.close(fd)
    return data
