"""Importers: session logs (agent transcripts, lab notebooks, plan documents) → draft records.

Step 1, reading: :func:`read_session` turns any format of FORMATS.md into one
:class:`Session` of :class:`Event` objects, each with a :class:`Locator` to its source;
:func:`iter_windows` reads the same log as consecutive windows, so that a long Claude or Codex
transcript is imported in bounded memory.
"""

from kb.importers.events import (
    FORMATS,
    Event,
    EventKind,
    Locator,
    LogFormatError,
    ReadWarning,
    Role,
    Session,
    Table,
    TableRow,
)
from kb.importers.sessions import detect_format, iter_windows, read_session

__all__ = [
    "FORMATS",
    "Event",
    "EventKind",
    "Locator",
    "LogFormatError",
    "ReadWarning",
    "Role",
    "Session",
    "Table",
    "TableRow",
    "detect_format",
    "iter_windows",
    "read_session",
]
