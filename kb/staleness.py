"""When a catalog record counts as stale, and what day it is: light enough for a warm
``kb check`` (which prints staleness from a kept report, importing neither the models nor the
queries). The audit itself is :mod:`kb.queries.audit`."""

from __future__ import annotations

import datetime as dt
import os

from kb.errors import UsageError

STALE_AFTER_DAYS = 90
"""Days after its check that a catalog record counts as stale."""

TODAY_ENV = "KB_TODAY"
"""Environment variable: the date (``YYYY-MM-DD``) kb takes as today when judging staleness
(for reproducible builds and tests); unset, the system date."""


def today() -> dt.date:
    """:data:`TODAY_ENV` as a date, else the system's date. Raises :class:`kb.errors.UsageError`
    for a value that is not ``YYYY-MM-DD``."""
    text = os.environ.get(TODAY_ENV, "").strip()
    if not text:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{TODAY_ENV}={text!r} is not a date; write YYYY-MM-DD, e.g. 2026-12-01, or unset it") from None
