"""Atomic creation of a text file: a temporary file in the same folder, fsynced, then a hard link
to the final name that fails if the name exists (git's lock-and-rename, made exclusive).

A crash at any point leaves either no file or the complete one; two writers never take the same
name. New files get ``0666 & ~umask`` like any editor's (``tempfile.mkstemp`` alone gives 0600,
which teammates on a shared host cannot read); a replaced file keeps its mode.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

from kb.errors import RecordExists, WriteError


def current_umask() -> int:
    """The process umask (read from ``/proc/self/status`` where the kernel shows it, else set
    and restored at once, which is not thread-safe but has no other portable reader)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM for the block (``pthread_sigmask``; POSIX, any thread): a signal that
    arrives meanwhile is delivered when the block ends. Where signal masks do not exist, nothing."""
    held = {signal.SIGINT, signal.SIGTERM}
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def write_text_atomic(target: Path, text: str, *, overwrite: bool = False) -> Path:
    """Atomically create ``target`` with ``text`` (see the module docstring); with ``overwrite``
    an existing file is replaced (:func:`os.replace`), keeping its mode. Returns ``target``.

    Raises :class:`RecordExists` if ``target`` exists and ``overwrite`` is false, and
    :class:`WriteError` when the disk is full, the folder read-only, or similar."""
    return write_bytes_atomic(target, text.encode("utf-8"), overwrite=overwrite)


def write_bytes_atomic(target: Path, data: bytes, *, overwrite: bool = False, durable: bool = True) -> Path:
    """:func:`write_text_atomic` for bytes (the store's cache of validated records): the same
    temporary file, fsync and exclusive link or replace, the same errors. ``durable=False`` skips
    the two fsyncs (file and folder): for a cache whose reader checks a checksum and rebuilds a
    file torn by a crash (:mod:`kb.store.cache`), where waiting for the disk 64 times per cold
    ``kb check`` cost 0.3 s; the write is still atomic for other processes."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if not overwrite and target.exists():
            raise RecordExists(target)
        sweep_temp_files(target.parent)
    except RecordExists:
        raise
    except OSError as exc:
        raise _write_error(target, exc) from None
    tmp = None
    try:
        # created inside the try whose finally removes it, with SIGINT held until its name is known:
        # a Ctrl-C between the file's creation and mkstemp's return would leave it behind unnamed
        with _interrupts_held():
            fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=target.parent)
        try:
            mode = target.stat().st_mode & 0o7777 if overwrite else None
        except FileNotFoundError:
            mode = None
        os.fchmod(fd, mode if mode is not None else 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
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
                fd2 = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
                with os.fdopen(fd2, "wb") as fh2:
                    fh2.write(data)
        if durable:
            _fsync_dir(target.parent)
    except RecordExists:
        raise
    except OSError as exc:
        raise _write_error(target, exc) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
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
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        parts = name[: -len(TEMP_SUFFIX)].rsplit(".", 2)
        if len(parts) != 3 or not parts[1].isdigit() or process_alive(int(parts[1])):
            continue
        try:
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine (this process counts; a pid kb may not
    signal is taken as alive): a temporary file or folder of a live writer is never swept."""
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
