"""Progress bars for long work (import, build), drawn on stderr only when it is a terminal.

Piped or redirected stderr (CI logs, ``2> file``, tests) gets no bar at all, so logs stay clean
and results on stdout are never mixed with drawing. The library takes a ``progress`` callable
(this module's :func:`progress`) instead of knowing about terminals.
"""

from __future__ import annotations

import sys
from typing import Iterable, Iterator, Sequence, TypeVar

import click

T = TypeVar("T")


def wants_progress(stream: object = None) -> bool:
    """True when ``stream`` (default: stderr) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed stream
        return False


def progress(items: Sequence[T] | Iterable[T], label: str, length: int | None = None) -> Iterator[T]:
    """Yield ``items``, drawing a bar labelled ``label`` on stderr when it is a terminal."""
    if not wants_progress():
        yield from items
        return
    with click.progressbar(items, label=label, length=length, file=sys.stderr, show_pos=True) as bar:
        yield from bar
