"""Publishing a folder whole: a site or an export is written beside the old one and swapped in,
so that a reader, a kill or a full disk sees the old folder or the new one, never half of each.

:func:`staging_for` makes the folder to write into (``.<name>.kb-new-<pid>`` beside the target,
on the same file system, so the swap is a rename); with ``seed`` it starts as a copy of the
target made of hard links (an export into a folder that holds other files keeps them, and costs
no copy: kb's writers replace a file by renaming a new one over it, which leaves the old inode to
the old folder). :func:`swap_in` exchanges the two names in one step where the kernel can
(``renameat2(RENAME_EXCHANGE)``, Linux 3.15 and later, glibc 2.28), else by two renames with the
old folder kept aside until the new one is in place; then removes the old one. :func:`discard`
removes a staging folder after a failure. Leftovers of killed writers (whose pid no longer
exists) are removed the next time the same target is staged.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
from pathlib import Path

from kb.atomic import process_alive
from kb.errors import WriteError

_TAG = ".kb-new-"
_OLD = ".kb-old-"


def _name(target: Path, tag: str, pid: int | None = None) -> Path:
    return target.parent / f".{target.name}{tag}{os.getpid() if pid is None else pid}"


def sweep_leftovers(target: Path) -> list[Path]:
    """Remove the staging and set-aside folders of ``target`` that killed writers left (their pid
    is gone); a set-aside old folder found while ``target`` is missing is put back instead (a kill
    between the two renames of :func:`swap_in`'s fallback). Returns what was removed."""
    target = Path(target)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for e in entries:
        for tag in (_TAG, _OLD):
            head = f".{target.name}{tag}"
            if not e.name.startswith(head) or not e.name[len(head):].isdigit() or process_alive(int(e.name[len(head):])):
                continue
            if tag == _OLD and not target.exists():
                os.replace(e.path, target)
                continue
            shutil.rmtree(e.path, ignore_errors=True)
            removed.append(Path(e.path))
    return removed


def staging_for(target: str | Path, *, seed: bool = False) -> Path:
    """A new, empty folder beside ``target`` to write its next version into (with ``seed``, a
    hard-linked copy of ``target``'s files). Raises :class:`kb.errors.WriteError` when the parent
    folder cannot be written."""
    target = Path(target).absolute()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        sweep_leftovers(target)
        staging = _name(target, _TAG)
        shutil.rmtree(staging, ignore_errors=True)
        if seed and target.is_dir():
            shutil.copytree(target, staging, symlinks=True, copy_function=_link_or_copy)
        else:
            staging.mkdir()
    except OSError as exc:
        raise WriteError(f"{target}: cannot prepare the new version beside it ({exc.strerror or exc}); "
                         "nothing was changed") from None
    return staging


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap the names ``a`` and ``b`` atomically; ``False`` where the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    try:
        libc = ctypes.CDLL(libc_name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(staging: Path, target: str | Path) -> None:
    """Make ``staging`` the folder ``target`` in one step and remove the old version. Raises
    :class:`kb.errors.WriteError` (``target`` unchanged) when the rename is refused."""
    target = Path(target).absolute()
    try:
        if not target.exists():
            os.rename(staging, target)
            return
        if _exchange(staging, target):
            shutil.rmtree(staging, ignore_errors=True)  # the old version, now under the staging name
            return
        aside = _name(target, _OLD)
        os.rename(target, aside)
        try:
            os.rename(staging, target)
        except OSError:
            os.rename(aside, target)
            raise
        shutil.rmtree(aside, ignore_errors=True)
    except OSError as exc:
        raise WriteError(f"{target}: cannot put the new version in place ({exc.strerror or exc}); "
                         f"the old one is unchanged") from None


def discard(staging: Path) -> None:
    """Remove a staging folder (after a failed or interrupted write); errors are ignored."""
    shutil.rmtree(staging, ignore_errors=True)
