"""Files people's tools leave next to records: editor backups, swap and lock files, merge
leftovers, operating-system files. Pure name rules; the store decides what to do with them.

A records folder lives in an editor and a git checkout, so it collects:

* Emacs: ``x.yaml~`` (backup on first save), ``#x.yaml#`` (autosave), ``.#x.yaml`` (lock link);
* Vim: ``.x.yaml.swp`` / ``.swo`` / ``.swn`` swap files (also without the dot, with ``directory=.``);
* git mergetool and patch: ``x.yaml.orig``, ``x.yaml.rej``;
* macOS ``.DS_Store``, Windows ``Thumbs.db`` and ``desktop.ini``.

Such a file is never a record, and failing every command on it punishes normal editing, so the
store skips it and only counts it (``kb check -v`` lists them). A near-miss that looks like a
record saved under a wrong name (``x.YAML``, ``x.yaml.txt``) is *not* a leftover: it stays a
problem, because a record would otherwise be silently left out.
"""

from __future__ import annotations

_SUFFIXES = (".orig", ".rej", ".swp", ".swo", ".swn")
_OS_FILES = {".ds_store", "thumbs.db", "desktop.ini", "ehthumbs.db"}


def leftover_kind(name: str) -> str | None:
    """What kind of leftover the file ``name`` is, or ``None`` when it is not one.

    >>> leftover_kind("x.yaml~"), leftover_kind("#x.yaml#"), leftover_kind(".#x.yaml")
    ('editor backup', 'editor autosave', 'editor lock file')
    >>> leftover_kind("x.yaml.orig"), leftover_kind(".x.yaml.swp"), leftover_kind("Thumbs.db")
    ('merge leftover', 'editor swap file', 'operating-system file')
    >>> leftover_kind("x.YAML") is None and leftover_kind("x.yaml.txt") is None
    True
    """
    lower = name.lower()
    if lower in _OS_FILES or lower.startswith("._"):  # ._x.yaml: macOS resource fork on foreign disks
        return "operating-system file"
    if name.endswith("~"):
        return "editor backup"
    if len(name) > 2 and name.startswith("#") and name.endswith("#"):
        return "editor autosave"
    if name.startswith(".#"):
        return "editor lock file"
    if lower.endswith((".orig", ".rej")):
        return "merge leftover"
    if lower.endswith(_SUFFIXES):
        return "editor swap file"
    return None
