"""Error text: the line that names a failure, and a bounded excerpt of a long log.

A record keeps the error's headline and an excerpt, never a whole log (a 310-line log pasted
into a record made a 6,800 px page): :func:`error_excerpt` keeps the first lines, the lines
leading to the headline (a traceback) and the last lines, at most :data:`EXCERPT_LINES`, with a
line saying how many were cut at each gap.

>>> text = "\\n".join(f"step {i}" for i in range(300)) + "\\nTraceback (most recent call last):\\n  File x\\nKeyError: 12"
>>> excerpt = error_excerpt(text)
>>> len(excerpt.splitlines()) <= EXCERPT_LINES, excerpt.splitlines()[-1]
(True, 'KeyError: 12')
"""

from __future__ import annotations

import re

EXCERPT_LINES = 40
"""Most lines an error excerpt keeps (cut markers included)."""

LINE_CHARS = 400
"""Longest line kept in an excerpt (characters); a longer one is cut with ``…``."""

HEAD_LINES = 4
TAIL_LINES = 4

_EXCEPTION_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*(Error|Exception|Interrupt|Warning)\b")


def error_headline(text: str) -> str:
    """The line of an error text that names the failure: the last exception line of a Python
    traceback (``KeyError: 12``), else the last line that is not an exit-code note, else ``""``.

    >>> error_headline("Traceback (most recent call last):\\n  File x\\nKeyError: 12\\n\\nExit code 1")
    'KeyError: 12'
    >>> error_headline("incompatible with CUDA graphs")
    'incompatible with CUDA graphs'
    """
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    exc = [ln for ln in lines if _EXCEPTION_LINE.match(ln)]
    if exc:
        return exc[-1]
    rest = [ln for ln in lines if not re.match(r"(?i)^exit code:? *-?\d+$", ln)]
    return rest[-1] if rest else (lines[-1] if lines else "")


def error_excerpt(text: str, max_lines: int = EXCERPT_LINES) -> str:
    """``text`` itself when it has at most ``max_lines`` lines, else its first
    :data:`HEAD_LINES`, the lines before and at its :func:`error_headline` (the traceback), and
    its last :data:`TAIL_LINES`, with ``[… N lines cut …]`` at each gap; at most ``max_lines``
    lines in all, each at most :data:`LINE_CHARS` characters. Leading and trailing blank lines
    are dropped."""
    lines = [ln if len(ln) <= LINE_CHARS else ln[: LINE_CHARS - 1] + "…" for ln in text.strip("\n").splitlines()]
    if len(lines) <= max_lines:
        return "\n".join(lines)
    head = error_headline(text)
    at = max((i for i, ln in enumerate(lines) if ln.strip() == head), default=len(lines) - 1)
    keep: set[int] = set(range(HEAD_LINES)) | set(range(len(lines) - TAIL_LINES, len(lines)))
    budget = max_lines - len(keep) - 3  # room for up to three cut markers
    start = at
    while start > 0 and at - start + 1 < budget - 2:
        start -= 1
    keep |= set(range(start, min(len(lines), at + 3)))
    out: list[str] = []
    last = -1
    for i in sorted(keep):
        if i > last + 1:
            out.append(f"[… {i - last - 1} lines cut …]")
        out.append(lines[i])
        last = i
    if last < len(lines) - 1:
        out.append(f"[… {len(lines) - 1 - last} lines cut …]")
    return "\n".join(out[:max_lines])
