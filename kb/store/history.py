"""When each record file last changed, from the git history of the records folder (the site's
"last updated" dates)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def last_changed(root: str | Path) -> dict[str, Any]:
    """Date of the last commit that touched each record file, when ``root`` is inside a git
    work tree: ``{"decisions/<id>.yaml": date}`` (paths relative to ``root``). One ``git log``
    for the whole folder; ``{}`` when git is missing, ``root`` is not in a repository, or git
    fails (dates are a courtesy on the site, never a reason to fail)."""
    import datetime as _dt
    import subprocess

    try:
        out = subprocess.run(  # noqa: S603 - a fixed git command, no shell
            ["git", "-C", str(root), "log", "--relative", "--format=%x00%cs", "--name-only", "--", "."],  # noqa: S607
            capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0:
        return {}
    found: dict[str, _dt.date] = {}
    current: _dt.date | None = None
    for line in out.stdout.splitlines():
        if line.startswith("\x00"):
            try:
                current = _dt.date.fromisoformat(line[1:].strip())
            except ValueError:
                current = None
        elif line.strip() and current is not None:
            found.setdefault(line.strip(), current)
    return found
