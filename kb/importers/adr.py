"""Existing ADR logs → decision records: ``kb import --format adr DIR``.

Formats read (their shapes, as their templates and public logs show them; nothing of their text
is kept here):

* **adr-tools** (Michael Nygard's form, ``doc/adr/0001-....md``): ``# 1. Title``, a ``Date:``
  line, sections ``Status`` (a word, plus link lines such as ``Supersedes [2. X](0002-x.md)`` or
  ``Superseded by [...]``, spelt ``Supercedes`` / ``Superceded by`` by adr-tools itself, which also
  removes the status word of the ADR it supersedes), ``Context``, ``Decision``, ``Consequences``.
  Hand-written logs of that form add statuses such as ``Pending`` or ``Partly superseded``.
* **MADR 2** and **log4brains** (``yyyymmdd-slug.md``, a ``.log4brains.yml`` above): bullet
  metadata under the title (``* Status:``, ``* Deciders:``, ``* Date:``, log4brains' ``- Tags:``),
  ``Technical Story:``, sections ``Context and Problem Statement``, ``Decision Drivers``,
  ``Considered Options``, ``Decision Outcome`` (``Chosen option: "X", because ...``, ``###
  Positive/Negative Consequences``), ``Pros and Cons of the Options``, ``Links``.
* **MADR 3 and 4**: YAML front matter (``status``, ``date``, ``deciders`` in 3,
  ``decision-makers`` in 4, ``consulted``, ``informed``; every field optional, and MADR's own log
  states no status at all), ``### Consequences`` with ``Good, because`` / ``Bad, because`` /
  ``Neutral, because`` items, ``Validation`` (3) or ``### Confirmation`` (4), ``More Information``.
* **Hand-written records** (joelparkerhenderson/architecture-decision-record's examples, one
  folder per decision): ``Status:`` / ``Date:`` / ``Decision Date:`` lines, a ``### Status``
  inside ``## Summary``, sections such as ``Issue``, ``Background``, ``Proposal``, ``Rationale``.

What the log says is kept as it says it: a status kb has no word for (``on hold``, ``Partly
superseded``) is recorded as the nearest kb status with the original kept verbatim beside it
(the ``status`` source's quote, and the notes) and a warning; ``Superseded by X`` in an ADR is the
log's own statement, kept, and ``X`` is recorded as superseding it. kb's own rules for supersession
(:data:`kb.graph.RETIRING`) apply to what kb infers: an ADR that another lists as superseded is
recorded superseded only when that other one was accepted, and a rejected ADR supersedes nothing.

A decision's date is the one its document gives (front matter, a ``Date:`` line, a
``yyyymmdd-`` file name), else the date of the commit that added the file (``git log --follow``,
when the folder is in a git work tree and the history reaches that commit), else the import day,
marked assumed; never the file's modification time, which a checkout sets to the day of the
clone. An ADR without a status is accepted when it records the option taken (a ``Chosen option``
line or a decision section), proposed otherwise, marked assumed. Each assumption is a source of
the record (``field: date`` / ``field: status``), a warning, and a count in the report.

Images and files the ADRs link to (relative Markdown ``![...](...)`` or HTML ``<img src>``) are
copied into the records' ``assets/decisions/`` through the store and the links rewritten, so that
``kb check`` and the site find them.

Nothing is dropped silently: what has no place in a decision record (consulted, informed,
validation, unknown sections, link kinds other than supersede) is kept in the record's ``notes``
under its own heading, and each such move is a warning in the report. Records are written
through the store (atomic, never overwriting); a file already imported (same sha256 in a
decision's ``source``) is reported as ``exists`` and not written again.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import unquote

from pydantic import ValidationError

from kb.ids import dated_id, free_id, slugify
from kb.importers.adrfile import INDEX_NAMES, AdrFile, Section, classify, find_adr_files, is_placeholder, read_adr
from kb.models import Decision
from kb.redact import Redactor
from kb.store import RecordSet, create_record, load_records, record_to_data
from kb.validation import located_problems

STATUSES = ("proposed", "accepted", "rejected", "deprecated", "superseded")

NEAREST: dict[str, str] = {
    "draft": "proposed", "pending": "proposed", "open": "proposed", "on hold": "proposed", "hold": "proposed",
    "postponed": "proposed", "deferred": "proposed", "in progress": "proposed", "wip": "proposed",
    "under review": "proposed", "in review": "proposed", "review": "proposed", "under discussion": "proposed",
    "in discussion": "proposed", "discussing": "proposed", "suggested": "proposed", "planned": "proposed",
    "approved": "accepted", "decided": "accepted", "agreed": "accepted", "adopted": "accepted", "active": "accepted",
    "final": "accepted", "done": "accepted", "implemented": "accepted", "completed": "accepted",
    "declined": "rejected", "refused": "rejected", "cancelled": "rejected", "canceled": "rejected",
    "abandoned": "rejected", "withdrawn": "rejected", "dropped": "rejected",
    "obsolete": "deprecated", "retired": "deprecated", "outdated": "deprecated", "archived": "deprecated",
    "replaced": "superseded", "superceded": "superseded",
}
"""Status words of ADR logs that kb has no word for → the nearest kb status. Sources: the status
lists of log4brains' template (draft), Tyree and Akerman's (pending, decided, approved), the
examples of joelparkerhenderson/architecture-decision-record (Draft/Final/Postponed/Cancelled,
Approved, Decided), adr/madr's own log (on hold), alphagov/govuk-aws' log (Pending, Approved),
and adr-tools' spelling "superceded"."""

_PARTIAL = re.compile(r"\b(partly|partially|partial|in part)\b", re.I)
_RETIRED = re.compile(r"\b(supersed|superced|deprecat|replac|obsolet)", re.I)

_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
_LINK_KIND = re.compile(
    r"^(supersedes|supercedes|superseded by|superceded by|replaces|replaced by|amends|amended by|clarifies|"
    r"clarified by|refines|refined by|extends|extended by|relates to|related to|see also|depends on|"
    r"reverts|reverted by)\b[:\s]*(.*)$", re.I | re.S)
_SUPERSEDES = ("supersedes", "supercedes", "replaces")
_SUPERSEDED_BY = ("superseded by", "superceded by", "replaced by")
_CHOSEN = re.compile(r"^Chosen option:\s*(.+?)(?:,?\s+because\b[,:]?\s*(.*))?$", re.I | re.S)
_ARGUMENT = re.compile(r"^(Good|Bad|Neutral),?\s+because\b[,:]?\s*(.*)$", re.I | re.S)
_ISO = re.compile(r"(?<!\d)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)")
_DAY_FIRST = re.compile(r"(?<!\d)(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?!\d)")
_NAME_DATE = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})[-_ ]")

CONTEXT_SECTIONS = ("context and problem statement", "context", "context and problem", "problem statement",
                    "problem", "issue", "background", "context and requirements")
OPTION_SECTIONS = ("considered options", "options considered", "considered alternatives", "alternatives considered",
                   "options", "alternatives")
DECISION_TEXT_SECTIONS = ("decision", "proposal", "decided approach", "decision made", "resolution")

GIT_TIMEOUT_S = 60.0
"""Longest the git history of one import may take (all files together); the files not reached by
then get the import day, marked assumed, with a warning saying why."""


@dataclass
class AdrResult:
    """What became of one ADR file: ``state`` is ``new`` (dry run), ``written``, ``exists``
    (already imported as ``id``) or ``failed`` (``problems`` say why); ``warnings`` name what was
    moved to notes or guessed; ``date_from`` is ``document``, ``git`` or ``assumed``,
    ``status_from`` ``document`` or ``assumed``, ``status_text`` the status as the ADR wrote it
    when kb had no word for it (kept verbatim), ``images`` the files copied into ``assets/``."""

    file: str
    format: str
    id: str
    state: str
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    record: Decision | None = None
    date_from: str = "document"
    status_from: str = "document"
    status_text: str | None = None
    images: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        data: dict[str, Any] = {"file": self.file, "format": self.format, "id": self.id, "state": self.state,
                                "warnings": self.warnings, "problems": self.problems, "date_from": self.date_from,
                                "status_from": self.status_from, "status_text": self.status_text,
                                "images": self.images}
        if self.record is not None:
            data["record"] = {k: (v.isoformat() if isinstance(v, dt.date) else v)
                              for k, v in record_to_data(self.record).items()}
        return data


@dataclass
class AdrReport:
    """The result of :func:`import_adrs`: one :class:`AdrResult` per ADR file, the files skipped
    (``(path, why)``), what was redacted (kind → count) and ``tally``: how many decisions took
    each assumption (``status assumed``, ``status kept verbatim``, ``date from git history``,
    ``date assumed``) and how many images were copied."""

    dry_run: bool
    results: list[AdrResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)
    tally: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {"dry_run": self.dry_run, "results": [r.to_dict() for r in self.results],
                "skipped": [{"file": f, "why": w} for f, w in self.skipped],
                "redactions": dict(sorted(self.redactions.items())),
                "counts": dict(Counter(r.state for r in self.results)),
                "tally": dict(sorted(self.tally.items()))}


# --------------------------------------------------------------------------- reading values


def _bullets(text: str) -> list[str]:
    """List items of ``text`` (continuation lines joined), without template ellipses."""
    items: list[str] = []
    for line in text.split("\n"):
        m = _BULLET.match(line)
        if m:
            items.append(m.group(1).strip())
        elif items and line.startswith(("  ", "\t")) and line.strip():
            items[-1] += " " + line.strip()
    return [i for i in items if i.strip(" .…") != ""]


def _non_bullet(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not _BULLET.match(line)).strip()


_MONTHS = {m: i for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"], 1)}


def parse_date(value: Any) -> tuple[dt.date | None, str | None]:
    """A date written in an ADR, and a note when it was read with an assumption.

    Read: a YAML date; ISO ``2021-07-15`` (``/`` allowed, a time after it ignored); ``15/07/2021``
    and ``15.07.2021`` day first (adr-tools wrote ``dd/mm/yyyy`` before ISO 8601, its ADR 8);
    ``July 15, 2021``, ``15 July 2021``, ``Jul 15 2021`` (English month names). A placeholder
    (``[Insert Date]``, ``{YYYY-MM-DD}``) or text without a date gives ``(None, None)``.

    >>> parse_date("2021-07-15"), parse_date("December 1, 2021")[0], parse_date("16/02/2016")[0]
    ((datetime.date(2021, 7, 15), None), datetime.date(2021, 12, 1), datetime.date(2016, 2, 16))
    >>> parse_date("[Date of decision]"), parse_date("03/04/2019")[1]
    ((None, None), 'read day first (3 April 2019), as adr-tools wrote dd/mm/yyyy')
    """
    if isinstance(value, dt.datetime):
        return value.date(), None
    if isinstance(value, dt.date):
        return value, None
    text = str(value or "").strip()
    if not text or is_placeholder(text):
        return None, None
    try:
        m = _ISO.search(text)
        if m:
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))), None
        m = _DAY_FIRST.search(text)
        if m:
            day, month, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
            date = dt.date(year, month, day)
            note = None if day > 12 or day == month else (
                f"read day first ({day} {date.strftime('%B')} {year}), as adr-tools wrote dd/mm/yyyy")
            return date, note
        m = re.search(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", text)
        if m and m.group(1)[:3].lower() in _MONTHS:
            return dt.date(int(m.group(3)), _MONTHS[m.group(1)[:3].lower()], int(m.group(2))), None
        m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\b", text)
        if m and m.group(2)[:3].lower() in _MONTHS:
            return dt.date(int(m.group(3)), _MONTHS[m.group(2)[:3].lower()], int(m.group(1))), None
    except ValueError:
        return None, None
    return None, None


def _people(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value or "").strip().strip("[]{}")
    if is_placeholder(str(value or "")):
        return []
    return [p.strip() for p in re.split(r",|;|\band\b", text) if p.strip()]


def _targets(text: str) -> list[str]:
    """Link targets (paths) or ``ADR-0005`` / ``ADR #33`` references in ``text``."""
    found = [posix for _label, posix in _LINK.findall(text)]
    rest = _LINK.sub("", text)
    found += re.findall(r"\bADR\s*[-#]?\s*(\d+)\b", rest, re.I)
    found += re.findall(r"\b(\d{4,8}-[\w.-]+?)(?:\.md)?\b", rest) if not found else []
    return found


def _plain(text: str) -> str:
    """An option or a chosen option reduced for comparing: link labels for links, no emphasis,
    code marks or quotes, lower case, spaces folded.

    >>> _plain('[MADR](https://adr.github.io/madr/) 4.0.0 – The Markdown ADRs'), _plain('"`NNNN-x.md`"')
    ('madr 4.0.0 – the markdown adrs', 'nnnn-x.md')
    """
    text = _LINK.sub(lambda m: m.group(1), text)
    text = re.sub(r"<(https?://[^>]+)>", r"\1", text)
    text = re.sub("[*_`\"'\u201c\u201d\u2018\u2019]", "", text)
    return " ".join(text.lower().split()).strip(" .:;,")


def _match_option(chosen: str, titles: list[str]) -> str | None:
    """The considered option ``chosen`` names: the same text once links, emphasis and quotes are
    set aside; else the option that starts with it and goes on after a separator (``MADR 4.0.0``
    names ``[MADR](...) 4.0.0 – The Markdown ...``); else one containing the other."""
    want = _plain(chosen)
    plain = {t: _plain(t) for t in titles}
    for t, p in plain.items():
        if p == want:
            return t
    for t, p in plain.items():
        if p.startswith(want) and re.match(r"^\s*([–—:,(]|-\s|\s-|$)", p[len(want):]):
            return t
    for t, p in plain.items():
        if want and p and (want in p or p in want):
            return t
    return None


# --------------------------------------------------------------------------- status


@dataclass
class StatusReading:
    """An ADR's status text read: ``status`` (a kb status, or ``None`` when the ADR states none),
    ``verbatim`` (the text kept beside it when kb has no word for it), ``note`` (why it was read
    so), the supersede links (``(kind, text, line)``), and lines of other link kinds."""

    status: str | None
    verbatim: str | None = None
    note: str | None = None
    links: list[tuple[str, str, str]] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def read_status(text: str) -> StatusReading:
    """Read an ADR's status text (front matter value, ``Status:`` line or ``Status`` section).

    >>> r = read_status("Superceded by [2. Use SGLang](0002-use-sglang.md)"); r.status, r.links[0][0]
    ('superseded', 'superseded_by')
    >>> read_status("accepted; supersedes ADR-0045").links[0][:2], read_status("Partly superseded").status
    (('supersedes', 'ADR-0045'), 'accepted')
    >>> read_status("on hold").verbatim, read_status("[Draft/Final/Postponed/Cancelled]").status
    ('on hold', None)
    """
    lines = [ln.strip() for ln in str(text or "").split("\n") if ln.strip()]
    clauses: list[str] = []
    for ln in lines:
        ln = re.sub(r"^\s*[-*+]\s+", "", ln).strip()
        clauses += [c.strip() for c in re.split(r";\s*", ln) if c.strip()]
    reading = StatusReading(None)
    word: str | None = None
    for clause in clauses:
        bare = re.sub(r"[*_]", "", clause).strip()
        m = _LINK_KIND.match(bare)
        if m:
            kind = m.group(1).lower()
            if kind in _SUPERSEDES:
                reading.links.append(("supersedes", m.group(2).strip(), clause))
            elif kind in _SUPERSEDED_BY:
                reading.links.append(("superseded_by", m.group(2).strip(), clause))
            else:
                reading.other.append(clause)
        elif word is None:
            word = bare
        else:
            reading.other.append(clause)
    if word is not None and is_placeholder(word):
        word = None
    by = any(k == "superseded_by" for k, _t, _c in reading.links)
    if word is None:
        reading.status = "superseded" if by else None
        return reading
    norm = " ".join(re.sub(r"[^a-z ]", " ", word.lower()).split())
    first = norm.split(" ", 1)[0] if norm else ""
    if _PARTIAL.search(norm) and _RETIRED.search(norm):
        reading.status, reading.verbatim = "accepted", word
        reading.note = "it still stands in part: recorded as 'accepted'"
    elif norm in STATUSES or first in STATUSES:
        reading.status = norm if norm in STATUSES else first
        if norm not in STATUSES and not re.match(rf"^{first}\b[\s.,:(-]*(by|on|since|in|at|as of)?\b", norm):
            reading.verbatim = word
    else:
        phrase = next((p for p in sorted(NEAREST, key=len, reverse=True) if re.match(rf"^{p}\b", norm)), None)
        if phrase is not None:
            reading.status, reading.verbatim = NEAREST[phrase], word
            reading.note = f"recorded as '{NEAREST[phrase]}', the nearest kb status"
        else:
            reading.status, reading.verbatim = "proposed", word
            reading.note = f"not one of {', '.join(STATUSES)}: recorded as 'proposed'"
    if by and reading.status != "superseded":
        reading.note = (f"'{word}' with a 'superseded by' line: recorded as 'superseded', as the line says")
        reading.verbatim = reading.verbatim or word
        reading.status = "superseded"
    return reading


# --------------------------------------------------------------------------- mapping


class _Mapper:
    """Turns one :class:`AdrFile` into decision record data, collecting warnings."""

    def __init__(self, adr: AdrFile, resolve: Callable[[AdrFile, str], str | None]):
        self.adr = adr
        self.resolve = resolve
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.supersedes: list[str] = []
        self.superseded_by: list[str] = []
        self.status_from = "document"
        self.status_text: str | None = None
        self.status_quote = ""
        self.status_line: int | None = None
        self.decided = False

    def warn_kept(self, what: str, body: str, heading: str | None = None) -> None:
        self.warnings.append(f"{self.adr.rel}: {what} has no field in a kb decision: kept in notes")
        self.notes.append(f"**{heading or what}**\n\n{body}".strip())

    def link(self, kind: str, text: str, line_text: str) -> None:
        targets = [self.resolve(self.adr, t) for t in _targets(text)]
        if not targets or None in targets:
            self.warn_kept(f"link '{line_text.strip()}' (target not among the imported ADRs)", line_text.strip())
            return
        (self.supersedes if kind == "supersedes" else self.superseded_by).extend(t for t in targets if t)

    def _status_text(self) -> tuple[Any, int | None]:
        adr = self.adr
        if adr.meta.get("status") not in (None, ""):
            return adr.meta["status"], adr.meta_lines.get("status")
        for s in sorted((s for s in adr.sections if s.name == "status"), key=lambda s: s.level):
            first = next((i for i, ln in enumerate(s.lines) if ln.strip()), 0)
            return s.text, s.line + 1 + first
        return None, None

    def status(self) -> str | None:
        """The ADR's status as it states it (``None`` when it states none), links recorded."""
        raw, line = self._status_text()
        self.status_line = line
        self.status_quote = " ".join(str(raw or "").split())
        reading = read_status(str(raw or ""))
        for kind, text, clause in reading.links:
            self.link(kind, text, clause)
        for clause in reading.other:
            self.warn_kept(f"status line '{clause}'", clause)
        if reading.verbatim is not None:
            self.status_text = reading.verbatim
            self.warnings.append(f"{self.adr.rel}: status '{reading.verbatim}' {reading.note or 'read as ' + repr(reading.status)}; "
                                 "the ADR's words kept verbatim beside it (source and notes)")
            self.notes.append(f"**Status in the ADR**\n\n{reading.verbatim}")
        elif reading.note:
            self.warnings.append(f"{self.adr.rel}: {reading.note}")
        return reading.status

    def build(self) -> dict[str, Any]:
        adr = self.adr
        meta = adr.meta
        data: dict[str, Any] = {"title": adr.title}
        status = self.status()
        data["date"] = adr.date
        if adr.date_warning:
            self.warnings.append(adr.date_warning)
        deciders = meta.get("decision-makers", meta.get("deciders"))
        if deciders:
            data["deciders"] = _people(deciders)
        for key in ("consulted", "informed"):
            if meta.get(key) and _people(meta[key]):
                self.warn_kept(key.capitalize(), ", ".join(_people(meta[key])))
        if meta.get("tags") and not is_placeholder(str(meta["tags"])):
            tags = meta["tags"] if isinstance(meta["tags"], list) else re.split(r"[\s,]+", str(meta["tags"]))
            data["tags"] = [str(t).strip() for t in tags if str(t).strip()]
        known = {"status", "date", "deciders", "decision-makers", "consulted", "informed", "tags"}
        rest = sorted(set(meta) - known)
        if rest:
            self.warn_kept(f"metadata {', '.join(repr(k) for k in rest)}",
                           "\n".join(f"- {k}: {meta[k]}" for k in rest), "Metadata")
        if adr.preamble:
            label = "Technical Story" if adr.preamble.lower().startswith("technical story") else "Text before the first section"
            self.warn_kept(label, adr.preamble)
        self._sections(list(adr.sections), data)
        if status is None:
            status = "accepted" if self.decided else "proposed"
            self.status_from = "assumed"
            why = ("it records the option taken" if self.decided else "it records no option taken")
            self.warnings.append(f"{adr.rel}: no status: recorded as '{status}' ({why}), marked assumed")
        data["status"] = status
        if self.supersedes:
            data["supersedes"] = list(dict.fromkeys(self.supersedes))
        data["source"] = [{"file": adr.rel, "format": adr.format, "sha256": adr.sha256,
                           "locator": f"ADR {adr.number}" if adr.number is not None else "whole file"}]
        if self.status_from == "assumed":
            data["source"].append({"file": adr.rel, "field": "status", "summary": (
                f"assumed: the ADR states no status; '{status}' because "
                f"{'it records the option taken' if self.decided else 'it records no option taken'}")})
        else:
            src: dict[str, Any] = {"file": adr.rel, "field": "status", "quote": self.status_quote[:500]}
            if self.status_line:
                src["locator"] = f"line {self.status_line}"
            data["source"].append(src)
        if adr.date_from == "git":
            data["source"].append({"file": adr.rel, "field": "date", "locator": "git log --follow",
                                   "summary": "the date of the commit that added the file; the ADR states none"})
        elif adr.date_from == "assumed":
            data["source"].append({"file": adr.rel, "field": "date", "summary": (
                "assumed: the import day; the ADR states no date and no git history of the file was found")})
        if self.notes:
            data["notes"] = "\n\n".join(self.notes)
        return data

    def _sections(self, sections: list[Section], data: dict[str, Any]) -> None:
        options: dict[str, dict[str, Any]] = {}
        chosen: str | None = None
        rationale: list[str] = []
        decision_text = ""
        consequences: dict[str, list[str]] = {"good": [], "bad": [], "neutral": []}
        parent = ""
        for s in sections:
            name = s.name
            if s.level <= 2:
                parent = name
            if name == "status":
                continue
            if name in CONTEXT_SECTIONS and "context" not in data:
                data["context"] = s.text
            elif name == "decision drivers":
                data["decision_drivers"] = _bullets(s.text)
            elif name in OPTION_SECTIONS and _bullets(s.text):
                for item in _bullets(s.text):
                    title = re.sub(r"^(\*\*|__)([^*_]+)\1$", r"\2", item).strip("\"'")  # **X** alone: X
                    options.setdefault(title, {"title": title})
                prose = _non_bullet(s.text)
                if prose:
                    self.warn_kept(f"Section '{s.title}' (text beside the options)", prose, s.title)
            elif name == "decision outcome":
                first, _, rest = s.text.partition("\n\n")
                m = _CHOSEN.match(" ".join(first.split()))
                if m:
                    chosen = m.group(1).strip().strip("\"'“”")
                    rationale.append((m.group(2) or "").strip())
                    rationale.append(rest.strip())
                else:
                    rationale.append(s.text)
                    if s.text:
                        self.decided = True
            elif name in DECISION_TEXT_SECTIONS and not decision_text:
                decision_text = s.text
            elif name in ("consequences", "positive consequences", "negative consequences"):
                self._consequences(s, name, consequences)
            elif parent == "pros and cons of the options" and s.level >= 3:
                opt_title = s.title.strip("\"'")
                match = _match_option(opt_title, list(options)) if options else None
                opt = options.setdefault(match or opt_title, {"title": match or opt_title})
                desc = []
                for item in _bullets(s.text):
                    m = _ARGUMENT.match(item)
                    if m and m.group(1).lower() == "good":
                        opt.setdefault("pros", []).append(m.group(2).strip())
                    elif m and m.group(1).lower() == "bad":
                        opt.setdefault("cons", []).append(m.group(2).strip())
                    else:
                        desc.append(f"- {item}")
                body = "\n".join(x for x in [_non_bullet(s.text), "\n".join(desc)] if x)
                if body:
                    opt["description"] = f"{opt['description']}\n\n{body}" if opt.get("description") else body
            elif name == "pros and cons of the options":
                if s.text:
                    self.warn_kept("Pros and Cons of the Options (introduction)", s.text)
            elif name == "links":
                for item in _bullets(s.text):
                    m = _LINK_KIND.match(re.sub(r"[*_]", "", item))
                    if m and m.group(1).lower() in _SUPERSEDES + _SUPERSEDED_BY:
                        self.link("supersedes" if m.group(1).lower() in _SUPERSEDES else "superseded_by", m.group(2), item)
                    else:
                        self.warn_kept(f"link '{item}'", item)
            elif name == "more information":
                if s.text:
                    self.notes.append(f"**{s.title}**\n\n{s.text}")
            elif s.text or s.level <= 2:
                self.warn_kept(f"Section '{s.title}'", s.text, s.title)
        if "context" not in data:
            self.warnings.append(f"{self.adr.rel}: no context section: context left empty")
            data["context"] = ""
        if decision_text:  # adr-tools: the decision is the one option taken
            self.decided = True
            if chosen is None:
                options.setdefault(self.adr.title, {"title": self.adr.title, "description": decision_text})
                chosen = self.adr.title
            else:  # a chosen option and a decision section (MADR with a Nygard-style section): why it was taken
                rationale.append(decision_text)
        if chosen is not None:
            self.decided = True
            match = _match_option(chosen, list(options))
            if match is None:
                options[chosen] = {"title": chosen}
                if len(options) > 1:
                    self.warnings.append(f"{self.adr.rel}: chosen option '{chosen}' is not among the considered options: added")
                match = chosen
            chosen = match
        elif options:
            chosen = next(iter(options))
            self.warnings.append(f"{self.adr.rel}: no 'Chosen option:' line: recorded '{chosen}' (the first option) as chosen; check it")
        else:
            options[self.adr.title] = {"title": self.adr.title}
            chosen = self.adr.title
            self.warnings.append(f"{self.adr.rel}: no options and no decision section: the title is recorded as the only option")
        data["considered_options"] = list(options.values())
        why = "\n\n".join(r for r in rationale if r)
        data["outcome"] = {"chosen": chosen, **({"rationale": why} if why else {})}
        if any(consequences.values()):
            data["consequences"] = {k: v for k, v in consequences.items() if v}

    def _consequences(self, s: Section, name: str, out: dict[str, list[str]]) -> None:
        default = {"positive consequences": "good", "negative consequences": "bad"}.get(name, "neutral")
        items = _bullets(s.text)
        prose = _non_bullet(s.text)
        for item in items:
            m = _ARGUMENT.match(item)
            out[m.group(1).lower() if m else default].append(m.group(2).strip() if m else item)
        if prose:
            out[default].append(prose)


# --------------------------------------------------------------------------- dates from git


def _git_env() -> dict[str, str]:
    """The environment for git: none of the ``GIT_*`` variables a hook or a wrapper may have set
    (``GIT_DIR``, ``GIT_INDEX_FILE`` would point git at another repository), no prompts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    return env


def git_added_dates(paths: list[Path], *, budget_s: float = GIT_TIMEOUT_S) -> tuple[dict[Path, dt.date], str | None]:
    """For each file of ``paths`` that git tracks, the author date (in the author's time zone) of
    the commit that added it, followed back through renames; and a note when some could not be
    asked (no git, time out).

    Renames are followed one commit at a time: the commit that added the path, and whether that
    commit removed another file git pairs with it (``git diff-tree -M``, status ``R``). ``git log
    --follow`` is not used: it also takes an added file for a *copy* of a similar one (ADRs written
    from one template are similar), which would give a new ADR the date of an old one. A commit at a
    shallow clone's boundary is not the one that added the file (the history stops there): such
    files get no date. The calls run four at a time and stop after ``budget_s`` seconds in all."""
    if not paths:
        return {}, None
    if shutil.which("git") is None:
        return {}, "git is not installed"
    env = _git_env()
    deadline = time.monotonic() + budget_s
    late: list[Path] = []

    def git(cwd: Path, *args: str) -> str | None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired("git", 0)
        out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,  # noqa: S603,S607 - git, fixed argv, no shell
                             timeout=min(left, 20), check=False)
        return out.stdout if out.returncode == 0 else None

    try:
        head = git(paths[0].parent, "rev-parse", "--show-toplevel", "--git-path", "shallow")
    except (OSError, subprocess.TimeoutExpired):
        return {}, "git did not answer"
    if head is None:
        return {}, None  # not a git work tree
    lines = head.splitlines()
    shallow: set[str] = set()
    if len(lines) > 1:
        shallow_file = Path(lines[1]) if os.path.isabs(lines[1]) else paths[0].parent / lines[1]
        with contextlib.suppress(OSError):  # no such file: not a shallow clone
            shallow = set(shallow_file.read_text(encoding="ascii").split())

    def added(path: Path) -> tuple[Path, dt.date | None]:
        cwd = path.parent
        try:
            prefix = (git(cwd, "rev-parse", "--show-prefix") or "").strip()
            current, rev = prefix + path.name, "HEAD"
            for _hop in range(50):
                log = git(cwd, "log", "-1", "--diff-filter=A", "--format=%H %P%x09%ad", "--date=short", rev,
                          "--", f":(top){current}")
                if not log or "\t" not in log:
                    return path, None
                ids, date = log.strip().split("\t", 1)
                commit, *parents = ids.split()
                if commit in shallow:
                    return path, None
                renamed = None
                if parents:
                    diff = (git(cwd, "diff-tree", "-z", "-r", "-M", "--name-status", "--diff-filter=R", "--no-commit-id",
                                parents[0], commit) or "").split("\0")  # -z: names unquoted (git quotes non-ASCII)
                    renamed = next((diff[i + 1] for i in range(0, len(diff) - 2, 3)
                                    if diff[i].startswith("R") and diff[i + 2] == current), None)
                if renamed is None:
                    return path, dt.date.fromisoformat(date.strip())
                current, rev = renamed, parents[0]
        except subprocess.TimeoutExpired:
            late.append(path)
        except (OSError, ValueError):
            pass
        return path, None

    with ThreadPoolExecutor(max_workers=4) as pool:
        found = {p: d for p, d in pool.map(added, paths) if d is not None}
    note = (f"git history took longer than {budget_s:g} s: {len(late)} file(s) not asked" if late else None)
    return found, note


def _document_date(adr: AdrFile) -> tuple[dt.date | None, str | None]:
    """The date the ADR itself gives: its metadata (front matter, a ``Date:`` line), else a date at
    the start of its file name (log4brains' ``yyyymmdd-``, ``YYYY-MM-DD-``); and a note about how
    it was read."""
    raw = adr.meta.get("date")
    date, note = parse_date(raw)
    if date is not None:
        return date, (f"{adr.rel}: date '{raw}' {note}" if note else None)
    bad = (f"{adr.rel}: date '{raw}' is not a date kb reads (YYYY-MM-DD): looked further"
           if raw not in (None, "") and not is_placeholder(str(raw)) else None)
    m = _NAME_DATE.match(adr.path.name)
    if m:
        date, _ = parse_date(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
        if date is not None:
            return date, bad
    return None, bad


def _undated_id(adr: AdrFile) -> str:
    """The id of an ADR whose date is assumed: its file's name (its folder's for ``NAME/index.md``),
    never a date that would change with the day of the import."""
    stem = adr.path.parent.name if adr.path.name.lower() in INDEX_NAMES else adr.path.stem
    return slugify(stem, fallback="decision")


# --------------------------------------------------------------------------- images and files

_IMAGE = re.compile(r"(!\[[^\]\n]*\]\()\s*(<[^>\n]*>|[^)\s]+)(\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_FILE_LINK = re.compile(r"((?<!!)\[[^\]\n]*\]\()\s*(<[^>\n]*>|[^)\s]+)(\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_HTML_IMG = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))[^>]*>", re.I)
_HTML_ALT = re.compile(r"\balt\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.I)
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")


class _Assets:
    """The files the ADRs of one import link to: found relative to each ADR, copied into the
    records' ``assets/decisions/`` (through :func:`kb.store.save_asset`; only planned in a dry
    run), and the links rewritten to them."""

    def __init__(self, root: Path, folder: Path, dry_run: bool):
        self.root, self.folder, self.dry_run = root, folder.resolve(), dry_run
        self.top = self._work_tree(folder) or self.folder
        self.copied: dict[Path, str] = {}

    @staticmethod
    def _work_tree(folder: Path) -> Path | None:
        if shutil.which("git") is None:
            return None
        try:
            out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, env=_git_env(),  # noqa: S607 - git, fixed argv
                                 capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return Path(out.stdout.strip()).resolve() if out.returncode == 0 and out.stdout.strip() else None

    def relink(self, adr: AdrFile, text: str, warnings: list[str], images: list[str]) -> str:
        """``text`` with every relative link to a file of the log pointing at its copy."""
        out: list[str] = []
        fence = False
        for line in text.split("\n"):
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
                out.append(line)
                continue
            if fence or ("](" not in line and "<img" not in line.lower()):
                out.append(line)
                continue
            parts = []
            last = 0
            for m in _CODE_SPAN.finditer(line):
                parts.append(self._relink_prose(adr, line[last:m.start()], warnings, images))
                parts.append(m.group(0))
                last = m.end()
            parts.append(self._relink_prose(adr, line[last:], warnings, images))
            out.append("".join(parts))
        return "\n".join(out)

    def _relink_prose(self, adr: AdrFile, text: str, warnings: list[str], images: list[str]) -> str:
        def md(m: re.Match[str], image: bool) -> str:
            new = self._target(adr, m.group(2).strip("<>"), image, warnings, images)
            return m.group(0) if new is None else f"{m.group(1)}{new}{m.group(3) or ''})"

        def html(m: re.Match[str]) -> str:
            src = next(g for g in m.groups() if g is not None)
            new = self._target(adr, src, True, warnings, images)
            if new is None:
                return m.group(0)
            alt = _HTML_ALT.search(m.group(0))
            label = next((g for g in alt.groups() if g is not None), "") if alt else ""
            return f"![{label or Path(new).stem}]({new})"

        text = _IMAGE.sub(lambda m: md(m, True), text)
        text = _FILE_LINK.sub(lambda m: md(m, False), text)
        return _HTML_IMG.sub(html, text)

    def _target(self, adr: AdrFile, url: str, image: bool, warnings: list[str], images: list[str]) -> str | None:
        """The link to the copy of the file ``url`` names (``None``: leave the link as it is: a
        URL, an anchor, a page, a folder, or a file that is not there, warned)."""
        from kb.attachments import local_target

        if not url or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) or url.startswith(("#", "/", "\\")):
            return None
        path = unquote(url.split("#", 1)[0].split("?", 1)[0])
        if not path or path.lower().endswith((".md", ".markdown", ".html", ".htm")) or not Path(path).suffix:
            return None
        found = (adr.path.parent / path).resolve()
        if not image and not found.is_relative_to(self.folder):
            return None  # a link to the repository's own files (code, configuration): left as written
        if not found.is_relative_to(self.top):
            warnings.append(f"{adr.rel}: links to '{url}', outside the log's folder: not copied; copy it into "
                            f"{self.root / 'assets'} and fix the link")
            return None
        if not found.is_file():
            if local_target(url) is not None or image:
                warnings.append(f"{adr.rel}: links to '{url}', which is not in the log: kb check will report it; "
                                f"add the file under {self.root / 'assets'} or fix the link")
            return None
        if found not in self.copied:
            base = Path(os.path.commonpath([self.folder, found]))  # the ADR folder, or the nearest folder above both
            rel = "decisions/" + "/".join(re.sub(r"\s+", "-", part).lstrip(".") or "_"
                                          for part in found.relative_to(base).parts)
            if self.dry_run:
                self.copied[found] = rel
            else:
                from kb.errors import WriteError
                from kb.store import save_asset

                try:
                    self.copied[found] = save_asset(self.root, rel, found.read_bytes())
                except (ValueError, WriteError) as exc:
                    warnings.append(f"{adr.rel}: links to '{url}', not copied: {exc}")
                    return None
        images.append(self.copied[found])
        return self.copied[found]


def _walk_text(value: Any, fn: Callable[[str], str], key: str = "") -> Any:
    if key == "source":
        return value
    if isinstance(value, str):
        return fn(value) if ("](" in value or "<img" in value.lower()) else value
    if isinstance(value, list):
        return [_walk_text(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _walk_text(v, fn, k) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- pipeline


def import_adrs(root: str | Path, folder: str | Path, *, dry_run: bool = False,
                progress: Callable[[list[Path], str], Iterable[Path]] | None = None,
                redact_personal: bool = False, today: dt.date | None = None,
                git_budget_s: float = GIT_TIMEOUT_S) -> AdrReport:
    """Convert every ADR under ``folder`` into a decision record under ``root``.

    An ADR log is the team's own document: its secrets are replaced, what it says otherwise is
    kept (names, e-mail addresses, hosts, address plans), unless ``redact_personal``. ``today``
    is the import day an undated ADR gets (default: the local date); ``git_budget_s`` bounds the
    time spent reading git history for dates.

    Returns an :class:`AdrReport`; a file that cannot be read or mapped fails alone
    (``state == "failed"``). Raises :class:`FileNotFoundError` when ``folder`` is not a folder.
    Written records go through :func:`kb.store.create_record` (atomic, never overwriting), and
    the files they link to through :func:`kb.store.save_asset`. ``progress(paths, label)``, when
    given, wraps the files as they are read (a progress bar).
    """
    root, folder = Path(root), Path(folder)
    today = today or dt.date.today()
    report = AdrReport(dry_run=dry_run)
    paths, skipped = find_adr_files(folder)
    report.skipped = [(str(p), why) for p, why in skipped]
    log4brains = any((d / ".log4brains.yml").is_file() for d in [folder, *folder.resolve().parents])
    records = load_records(root).records if root.is_dir() else RecordSet()
    imported = {s.sha256: d.id for d in records.of_kind(Decision) for s in d.source if s.sha256}
    taken: set[str] = set(records.records)
    adrs: list[AdrFile] = []
    by_folder = Counter(p.parent for p in paths)  # NAME/index.md alone in its folder: a folder per decision
    for p in (progress(paths, "reading ADRs") if progress else paths):
        rel = str(p)
        try:
            adr = read_adr(p, rel, log4brains or bool(re.match(r"^\d{8}-", p.name)))
        except UnicodeDecodeError as exc:
            line = exc.object[: exc.start].count(b"\n") + 1
            report.results.append(AdrResult(rel, "?", "", "failed", problems=[
                f"{rel}:{line}: not UTF-8 (byte 0x{exc.object[exc.start]:02x}); save the file as UTF-8"]))
            continue
        except (ValueError, OSError) as exc:
            report.results.append(AdrResult(rel, "?", "", "failed", problems=[f"{rel}: {exc}"]))
            continue
        why = classify(adr, alone=p.parent != folder and by_folder[p.parent] == 1)
        if why:
            report.skipped.append((rel, why))
            continue
        adrs.append(adr)
    report.skipped.sort()
    undated = []
    for adr in adrs:
        adr.date, adr.date_warning = _document_date(adr)
        if adr.date is None:
            undated.append(adr)
    git, git_note = git_added_dates([a.path for a in undated], budget_s=git_budget_s)
    for adr in undated:
        date = git.get(adr.path)
        if date is not None:
            adr.date, adr.date_from = date, "git"
            adr.date_warning = _join(adr.date_warning, f"{adr.rel}: no date in the ADR: took {date.isoformat()}, the "
                                                       "day git history shows it was added")
        else:
            adr.date, adr.date_from = today, "assumed"
            adr.date_warning = _join(adr.date_warning, f"{adr.rel}: no date in the ADR nor in git history"
                                                       f"{' (' + git_note + ')' if git_note else ''}: recorded the "
                                                       f"import day {today.isoformat()}, marked assumed")
    for adr in adrs:
        if adr.sha256 in imported:
            adr.id = imported[adr.sha256]
        else:
            assert adr.date is not None  # every ADR has one by now: its own, git's, or the import day
            base = dated_id(adr.date, adr.title, fallback="decision") if adr.date_from != "assumed" else _undated_id(adr)
            adr.id = free_id(base, taken)
            taken.add(adr.id)
    resolve = _resolver(adrs)
    mapped: dict[str, tuple[AdrFile, _Mapper, dict[str, Any]]] = {}
    for adr in adrs:
        mapper = _Mapper(adr, resolve)
        mapped[adr.id] = (adr, mapper, mapper.build())
    _settle_supersession(mapped)
    assets = _Assets(root, folder, dry_run)
    redactor = Redactor(personal=redact_personal)  # a team's own decision log: only secrets go (README, "Redaction")
    for adr, mapper, data in mapped.values():
        result = AdrResult(adr.rel, adr.format, adr.id, "exists" if adr.sha256 in imported else "new", mapper.warnings,
                           date_from=adr.date_from, status_from=mapper.status_from, status_text=mapper.status_text)
        report.results.append(result)
        if result.state == "exists":
            continue
        def relink(text: str, adr: AdrFile = adr, result: AdrResult = result) -> str:
            return assets.relink(adr, text, result.warnings, result.images)

        try:
            data = _walk_text(data, relink)
        except OSError as exc:
            result.state, result.problems = "failed", [f"{adr.rel}: a file it links to could not be copied: {exc}"]
            continue
        result.images = list(dict.fromkeys(result.images))
        data = _redact(data, redactor)
        try:
            record = Decision.model_validate({**data, "id": adr.id})
        except ValidationError as exc:
            result.state = "failed"
            result.problems = [str(p) for p in located_problems(exc, Decision, adr.rel)]
            continue
        result.record = record
        result.id = record.id
        if not dry_run:
            record, _path = create_record(root, record, taken=set(records.records) - {record.id}, redactor=redactor)
            result.record, result.id, result.state = record, record.id, "written"
    for r in report.results:
        if r.state in ("new", "written"):
            report.tally["status assumed"] += r.status_from == "assumed"
            report.tally["status kept verbatim"] += r.status_text is not None
            report.tally["date from git history"] += r.date_from == "git"
            report.tally["date assumed"] += r.date_from == "assumed"
            report.tally["images copied"] += len(r.images)
    report.tally = +report.tally
    report.redactions = redactor.counts
    return report


def _join(a: str | None, b: str) -> str:
    return f"{a}; {b}" if a else b


def _resolver(adrs: list[AdrFile]) -> Callable[[AdrFile, str], str | None]:
    """A function ``(adr, target) → id`` for a link or reference written in ``adr``: a path
    relative to it, a file name or stem, ``ADR-0005``'s number, or a folder-per-decision name."""
    by_path = {a.path.resolve(): a.id for a in adrs}
    by_name: dict[str, str] = {}
    for a in adrs:
        if a.path.name.lower() in INDEX_NAMES:
            by_name.setdefault(a.path.parent.name.lower(), a.id)
        else:
            by_name.setdefault(a.path.name.lower(), a.id)
            by_name.setdefault(a.path.stem.lower(), a.id)
        if a.number is not None:
            by_name.setdefault(str(a.number), a.id)

    def resolve(adr: AdrFile, target: str) -> str | None:
        t = unquote(target.split("#", 1)[0]).strip()
        if not t:
            return None
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t):
            p = (adr.path.parent / t).resolve()
            for cand in (p, p / "index.md", p / "README.md"):
                if cand in by_path:
                    return by_path[cand]
        name = t.rstrip("/").rsplit("/", 1)[-1].lower()
        if name.isdigit():
            return by_name.get(str(int(name)))
        return by_name.get(name) or by_name.get(re.sub(r"\.(md|markdown)$", "", name))

    return resolve


def _settle_supersession(mapped: dict[str, tuple[AdrFile, _Mapper, dict[str, Any]]]) -> None:
    """Supersession across the imported log.

    What an ADR says of itself is kept: ``Superseded by B`` makes it superseded and B its
    superseder (recorded in B's ``supersedes``), unless B is rejected (a rejected decision
    supersedes nothing, :data:`kb.graph.RETIRING`); a superseded status no accepted decision
    answers stays as the log states it, with a warning (``kb check`` warns too). What kb infers
    follows kb's rules: an ADR another lists in ``supersedes`` is recorded superseded only when
    that other one was accepted (accepted, deprecated or superseded since); a proposed lister
    leaves it standing (the change is pending); a rejected ADR's ``supersedes`` are dropped, kept
    in its notes. Each change is a warning of the ADR changed."""
    from kb.graph import RETIRING

    def status(rid: str) -> str:
        return str(mapped[rid][2]["status"])

    for rid, (_adr, mapper, _data) in mapped.items():  # "superseded by B" on A: B supersedes A
        for newer in mapper.superseded_by:
            if newer not in mapped or newer == rid:
                continue
            sup = mapped[newer][2].setdefault("supersedes", [])
            if status(newer) == "rejected":
                if rid not in sup:
                    mapper.warnings.append(f"{mapper.adr.rel}: superseded by {newer}, which is rejected: kept "
                                           "'superseded' as the log says, but a rejected decision supersedes nothing, "
                                           f"so {newer} lists nothing")
                continue
            if rid not in sup:
                sup.append(rid)
    for _rid, (_adr, mapper, data) in mapped.items():
        if data["status"] == "rejected" and data.get("supersedes"):
            gone = data.pop("supersedes")
            mapper.warnings.append(f"{mapper.adr.rel}: status 'rejected' but it supersedes {', '.join(gone)}: a rejected "
                                   "decision supersedes nothing; the links are kept in notes")
            _add_note(data, "**Would have superseded**\n\n" + "\n".join(f"- {g}" for g in gone))
    listers: dict[str, list[str]] = {}
    for rid, (_adr, _mapper, data) in mapped.items():
        for t in data.get("supersedes", []):
            listers.setdefault(t, []).append(rid)
    for rid, (_adr, mapper, data) in mapped.items():
        by = [b for b in listers.get(rid, []) if b in mapped]
        retiring = [b for b in by if status(b) in RETIRING]
        if data["status"] != "superseded" and retiring:
            was = data["status"]
            mapper.warnings.append(f"{mapper.adr.rel}: status '{was}' in the ADR, but {', '.join(retiring)} "
                                   f"({status(retiring[0])}) supersedes it: recorded as 'superseded'; the ADR's status "
                                   "kept beside it (source and notes)")
            _add_note(data, f"**Status in the ADR**\n\n{was if mapper.status_from == 'document' else '(none)'}")
            if mapper.status_text is None:
                mapper.status_text = mapper.status_quote or "(none)"
            data["status"] = "superseded"
            if mapper.status_from == "assumed":
                mapper.status_from = "document"
                data["source"] = [s for s in data["source"] if s.get("field") != "status"]
        elif data["status"] == "superseded" and not retiring:
            pending = ", ".join(f"{b} ({status(b)})" for b in by) or "no imported decision"
            mapper.warnings.append(f"{mapper.adr.rel}: the ADR says it is superseded, but only {pending} lists it: kept "
                                   "as the log states; a decision stands until the one replacing it is accepted, so "
                                   "kb check warns about it")


def _add_note(data: dict[str, Any], text: str) -> None:
    data["notes"] = f"{data['notes']}\n\n{text}" if data.get("notes") else text


def _redact(value: Any, redactor: Redactor, key: str = "") -> Any:
    if isinstance(value, str):
        return value if key in ("sha256", "format") else redactor.redact_value(key, value)
    if isinstance(value, list):
        return [_redact(v, redactor, key) for v in value]
    if isinstance(value, dict):
        return {k: _redact(v, redactor, k) for k, v in value.items()}
    return value
