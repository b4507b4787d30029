"""Dates as logs write them: ISO 8601 (``2025-12-11``, ``2025-12-11T07:47:00Z``), with slashes
(``2025/12/11``), the output of ``date`` (``Thu Dec 11 07:47:00 UTC 2025``), month names
(``Dec 11, 2025``, ``11 December 2025``), US order (``07/11/2025``, month first unless that
cannot be), day first with dots (``11.12.2025``), and, in file names only, ``20251211``.

>>> find_date("## 2026-02-19 — baseline"), find_date("Generated: Sat Sep  6 09:55:04 AM EDT 2025")
(datetime.date(2026, 2, 19), datetime.date(2025, 9, 6))
>>> find_date("v2.10.0 and 590.48.01") is None, file_date("vulkan_benchmark_20251211_074700.txt")
(True, datetime.date(2025, 12, 11))
"""

from __future__ import annotations

import datetime as dt
import re

SOURCES = {"ISO 8601; POSIX date(1) default output; English month names; the dotted day.month.year of "
           "DIN 5008 and GOST R 7.0.97": ()}
"""The forms read."""

_MONTHS = {name: number for number, names in enumerate(
    (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
     ("dec", "december")), 1) for name in names}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_ISO = re.compile(r"(?<![\d.])(\d{4})[-/](\d{2})[-/](\d{2})(?!\d|\.\d)")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?:\d{{1,2}}:\d{{2}}(?::\d{{2}})?\s*(?:[AP]M)?\s*(?:[A-Z]{{2,5}}\s+)?)?(\d{{4}})\b", re.I)
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}\.?,?\s+(\d{{4}})\b", re.I)
_US = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_DOTTED = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\d.])")
"""``11.03.2026``: day, month, year, as German, Russian and most of Europe write a date with dots."""
_COMPACT = re.compile(r"(?<!\d)(20\d{2})(\d{2})(\d{2})(?!\d)")
_STAMP = re.compile(r"(?<!\d)(20\d{2})(\d{2})(\d{2})-\d{6}(?!\d)")
"""``20250826-093012``: the ``date`` vLLM's benchmark saves with its result."""


def _valid(year: int, month: int, day: int) -> dt.date | None:
    if not 1990 <= year <= 2100:
        return None
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def find_date(text: str) -> dt.date | None:
    """The first date ``text`` writes in one of the forms above, or ``None``."""
    found: list[tuple[int, dt.date]] = []
    for match in _ISO.finditer(text):
        date = _valid(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if date:
            found.append((match.start(), date))
            break
    for match in _MONTH_DAY_YEAR.finditer(text):
        date = _valid(int(match.group(3)), _MONTHS[match.group(1).lower()[:3] if match.group(1).lower()[:4] != "sept"
                                                     else "sep"], int(match.group(2)))
        if date:
            found.append((match.start(), date))
            break
    for match in _DAY_MONTH_YEAR.finditer(text):
        date = _valid(int(match.group(3)), _MONTHS[match.group(2).lower()[:3]], int(match.group(1)))
        if date:
            found.append((match.start(), date))
            break
    for match in _STAMP.finditer(text):
        date = _valid(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if date:
            found.append((match.start(), date))
            break
    for match in _DOTTED.finditer(text):
        date = _valid(int(match.group(3)), int(match.group(2)), int(match.group(1)))
        if date:
            found.append((match.start(), date))
            break
    for match in _US.finditer(text):  # as US programs print it (TensorRT-LLM's log prefix): month first
        month, day = int(match.group(1)), int(match.group(2))
        date = _valid(int(match.group(3)), month, day) or _valid(int(match.group(3)), day, month)
        if date:
            found.append((match.start(), date))
            break
    return min(found)[1] if found else None


def opening_date(line: str) -> dt.date | None:
    """The date of a line (markup already taken off) that opens with its date (``_2025-03-27 ·
    node h100-a3 · ..._``) or with a short field whose value is a date (``Date: 2025-04-09 · Node:
    ...``, ``Fecha: 12/03/2025, portátil ...``), however long the line; else ``None``.

    >>> opening_date("Date: 2025-04-09 · Node: h200-b12 (1x H200 141 GB, driver 570.124.06) · Container: x")
    datetime.date(2025, 4, 9)
    >>> opening_date("_2025-03-27 · node a3 · 1x H100_"), opening_date("Released in 2024, see 2025-01-01") is None
    (datetime.date(2025, 3, 27), True)
    """
    plain = line.strip().strip("_*").strip()
    lead = plain.split(" ", 1)[0].rstrip(",;.·:")
    if lead[:1].isdigit() and only_date(lead):
        return only_date(lead)
    name, colon, value = plain.partition(":")
    if not colon or not name.strip() or len(name.split()) > 2:
        return None
    first = value.strip().split(" ", 1)[0].rstrip(",;.·")
    return only_date(first) or (find_date(first) if first[:1].isdigit() else None)


_RUNS_ON = re.compile(r"\b(?:runs?|ran|measured|benchmarked|tested|recorded)\b[^.;]{0,30}?\bon\s+(?=\S*\d)", re.I)


def runs_date(text: str) -> dt.date | None:
    """The date a sentence says the runs were made on (``All runs were measured on 2025-04-10 with
    the ShareGPT workload, ...``, ``All runs on 2025-03-22``), however long the sentence; ``None``
    when no sentence says so.

    >>> runs_date("macOS 15.3, plugged in. All runs on 2025-03-22, same prompt as before, 256 tokens out.")
    datetime.date(2025, 3, 22)
    >>> runs_date("vLLM 0.6.3 was released on 2024-10-14.") is None
    True
    """
    found = _RUNS_ON.search(text)
    return find_date(text[found.end():found.end() + 30]) if found else None


def file_date(name: str) -> dt.date | None:
    """The date a file name carries (``2025-12-11`` or ``20251211``), or ``None``."""
    return find_date(name) or next((d for m in _COMPACT.finditer(name)
                                    if (d := _valid(int(m.group(1)), int(m.group(2)), int(m.group(3))))), None)


_LEADING = re.compile(r"^\s*(?:\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2})\s*(?:[—–:|-]+\s*)?")


_TIME_OF_DAY = re.compile(r"^[T ]?\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$")


def only_date(cell: str) -> dt.date | None:
    """The date of a cell that holds a date and nothing else, or a date and its time of day
    (``2026-07-26``, ``2025/03/04``, ``2025-10-06T04:27:59.057``, ``2026-03-01 14:02:11Z``); ``None``
    for any other cell.

    >>> only_date("2025-10-06T04:27:59.057513"), only_date("2026-07-26 — reran"), only_date("v2026-07-26")
    (datetime.date(2025, 10, 6), None, None)
    """
    day = find_date(cell)
    return day if day is not None and not _TIME_OF_DAY.sub("", without_date(cell)) else None


def is_stamp(cell: str) -> bool:
    """Whether a cell is a date with its time of day (a request's time stamp)."""
    return only_date(cell) is not None and ":" in cell


def without_date(title: str) -> str:
    """A heading without the date it starts with (``2026-02-21 — EAGLE-3 speculation`` →
    ``EAGLE-3 speculation``).

    >>> without_date("2026-02-21 — EAGLE-3 speculation")
    'EAGLE-3 speculation'
    """
    return _LEADING.sub("", title).strip()
