"""Attempts from Markdown notebooks and plan documents: table rows (:mod:`.tables`), runs written
as list items, dated paragraphs; decisions, rejected options and preamble facts.

- *Runs as list items* (the common notebook shape: ``## 2026-06-07`` then ``- Served ...`` with
  sub-items ``- decode was about 7.7 tok/s``): a top-level item and its sub-items are one
  attempt when they give a figure (:func:`kb.importers.extract.measurements.prose_figures`) or
  an outcome (``outcome: failed – ...``, ``❌``, ``failed``, ``Winner``, ``regressed``, a signed
  ``+31.6 %``, ``from 89 s to 219 ms``); sections about what was not done (``Not tried``,
  ``Alternatives``, ``Next``, ``Ideas``, ``TODO``, ``would try``) give options, not attempts.
- *Dates*: the section's heading date (a sub-heading takes its parent's), else the preamble's
  ``Date:`` line (``**Date**: November 4, 2025``) or a paragraph opening with a date
  (``_2026-08-03_ · shape ...``), else none (flagged in the draft).
- Attempts of a document are one family (each is compared with the latest baseline above
  it), except the arms of an A/B table row.
"""

from __future__ import annotations

import datetime as dt
import re

from kb.importers.events import Event, Session
from kb.importers.extract.config import _FLAG, _cell_config, row_config
from kb.importers.extract.facts import _facts_before, _prose_facts
from kb.importers.extract.failures import error_headline
from kb.importers.extract.measurements import prose_figures, signed_percent
from kb.importers.extract.model import (
    Evidence,
    ExtractedAttempt,
    Extraction,
    Statement,
    _first_paragraph,
    _first_sentence,
    _plain,
    locator_text,
    short_quote,
)
from kb.importers.extract.outcomes import _DECISION
from kb.importers.extract.tables import outcome_cell, plain, table_attempts

_CONCLUSION = re.compile(r"^\s*(?:\*\*)?(?:Conclusion|Result)(?:\*\*)?\s*:", re.I)
_REJECTED = re.compile(r"^\s*(?:\*\*)?(?:Rejected|Not tried|Ruled out|Dropped)\b[^:]*:\s*(.+)$", re.I | re.S)
_DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*(?:[—–:-]+\s*)?")
_NOT_DONE = re.compile(r"\b(?:not tried|alternatives?|next steps?|try next|would try|ideas?|todo|to do|backlog|rejected|"
                       r"ruled out|open questions?|future)\b", re.I)
_NOT_DONE_ITEM = re.compile(r"\bnot (?:yet )?tried\b|\bnot run\b|\bnever (?:ran|run|tried)\b|\bno time\b", re.I)
_PREAMBLE_DATE = re.compile(r"^\s*(?:\*\*|__)?Date(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?\s*(.+?)\s*$", re.I | re.M)
_OUTCOME_NOTE = re.compile(r"\boutcome\s*:\s*(.+)$", re.I | re.S)
_FAILURE_WORDS = re.compile(r"(?:^|\s)❌|\bfailed\b|\bcrash(?:ed)?\b|\bOOM\b|out of memory|\bTraceback\b", re.I)
_ITEM_OUTCOME = [(re.compile(r"\bwinner\b", re.I), "improved"), (re.compile(r"\bregress(?:ed|ion)\b", re.I), "regressed")]
MAX_TITLE = 80


def _extract_document(session: Session, out: Extraction) -> None:
    events = session.events
    headings = [e for e in events if e.kind == "heading"]
    first_dated = next((h.index for h in headings if h.timestamp is not None), len(events))
    lines = _source_lines(session)
    # preamble facts
    for event in events:
        if event.kind in ("text", "list_item") and (event.index < first_dated or re.match(r"^\s*(Stack|Platform|Environment|Hardware)\b", event.text)):
            out.facts.extend(_prose_facts(event))
    # sections: events grouped under their innermost heading
    sections: list[tuple[Event | None, list[Event]]] = [(None, [])]
    for event in events:
        if event.kind == "heading":
            sections.append((event, []))
        else:
            sections[-1][1].append(event)
    doc_date, doc_basis = _preamble_date(events, first_dated)
    references = _reference_words(events)
    for heading, body in sections:
        date = _heading_date(headings, heading)
        basis = f"dated {date.isoformat()} from the heading \"{short_quote(heading.text, 60)}\"" if date and heading else None
        if date is None and doc_date is not None:
            date, basis = doc_date, doc_basis
        title = _DATE_PREFIX.sub("", heading.text).strip() if heading is not None else ""
        is_decision = heading is not None and re.search(r"\b(Decision|Decided)\b", heading.text, re.I)
        if is_decision and heading is not None:
            texts = [e.text for e in body if e.kind in ("text", "list_item")]
            if texts:
                out.decisions.append(Statement("decision", "\n\n".join(texts),
                                               Evidence("decision", locator_text(heading.locator), short_quote(texts[0]))))
        start = len(out.attempts)
        for position, event in enumerate(body):
            if event.kind == "table" and event.table is not None:
                above = next((e.text for e in reversed(body[:position]) if e.kind == "text"), "")
                below = " ".join(e.text for e in body[position + 1:position + 3] if e.kind == "text")
                table_attempts(event, date, lines, out, above, below, references)
        has_table_attempts = len(out.attempts) > start
        not_done = heading is not None and bool(_NOT_DONE.search(heading.text))
        items = [e for e in body if e.kind == "list_item"]
        tops = [e for e in items if not any(o is not e and _inside(e, o) for o in items)]
        item_events: set[int] = set()
        if not not_done and not is_decision:
            for top in tops:
                group = [top] + [e for e in items if e is not top and _inside(e, top)]
                attempt = _item_attempt(top, group, title, date)
                if attempt is not None:
                    out.attempts.append(attempt)
                    item_events.update(id(e) for e in group)
        conclusions: list[Event] = []
        others: list[Event] = []
        for event in body:
            if event.kind not in ("text", "list_item") or id(event) in item_events:
                continue
            rejected = _REJECTED.match(event.text)
            if rejected:
                for option in _split_options(rejected.group(1)):
                    out.options.append(Statement("option", option, Evidence("option", locator_text(event.locator), short_quote(event.text))))
                continue
            if not_done and event.kind == "list_item":
                out.options.append(Statement("option", event.text.strip(), Evidence("option", locator_text(event.locator), short_quote(event.text))))
                continue
            if is_decision:
                continue
            if _DECISION.search(event.text):
                out.decisions.append(Statement("decision", event.text.strip(), Evidence("decision", locator_text(event.locator), short_quote(event.text))))
                continue
            if _CONCLUSION.match(event.text):
                conclusions.append(event)
                continue
            if date is not None and not has_table_attempts and event.kind == "text" and not not_done:
                attempt = _prose_attempt(event, title, date)
                if attempt is not None:
                    out.attempts.append(attempt)
                    continue
            others.append(event)
        new = out.attempts[start:]
        for event in conclusions:
            if new:
                for attempt in new:
                    attempt.notes.append(event.text.strip())
                    attempt.evidence.append(Evidence("notes", locator_text(event.locator), short_quote(event.text)))
            else:
                out.decisions.append(Statement("decision", event.text.strip(), Evidence("decision", locator_text(event.locator), short_quote(event.text))))
        if len(new) == 1:
            for event in others:
                new[0].notes.append(event.text.strip())
                new[0].evidence.append(Evidence("notes", locator_text(event.locator), short_quote(event.text)))
        known_flags = {m.group(1) for e in body for m in _FLAG.finditer(e.text)}
        for attempt in new:
            attempt.date_basis = attempt.date_basis or (basis if attempt.date == date else None)
            attempt.facts = _facts_before(out.facts, len(events), attempt.date)
            if not attempt.flags and not attempt.env:
                attempt.flags, attempt.env = _cell_config(attempt.title, known_flags)
                if attempt.flags or attempt.env:
                    attempt.evidence.append(Evidence("config", attempt.anchor.locator, attempt.anchor.quote))


def _source_lines(session: Session) -> dict[int, str]:
    """Line number → source text of every table line (for row quotes)."""
    texts: dict[int, str] = {}
    for event in session.events:
        if event.kind == "table" and event.locator.line_start:
            for offset, line in enumerate(event.text.splitlines()):
                texts[event.locator.line_start + offset] = line
    return texts


def _heading_date(headings: list[Event], heading: Event | None) -> dt.date | None:
    if heading is None:
        return None
    if heading.timestamp is not None:
        return heading.timestamp.date()
    # a sub-heading takes the date of the dated heading above it
    for other in reversed(headings[: headings.index(heading)]):
        if other.timestamp is not None and (other.level or 0) < (heading.level or 0):
            return other.timestamp.date()
    return None


def _prose_attempt(event: Event, title: str, date: dt.date | None) -> ExtractedAttempt | None:
    """A dated paragraph that gives a figure: one attempt (titled by its section)."""
    figures, previous = prose_figures(event.text, locator_text(event.locator))
    if not figures:
        return None
    where = locator_text(event.locator)
    first = next(iter(figures.values()))
    attempt = ExtractedAttempt(anchor=Evidence("attempt", where, first.evidence.quote), title=title or _first_sentence(event.text),
                               approach=" ".join(_plain(_first_paragraph(event.text)).split()), date=date)
    attempt.key = " ".join(event.text.split())
    attempt.evidence.append(Evidence("approach", where, short_quote(event.text)))
    attempt.metrics, attempt.previous = figures, previous
    attempt.flags, attempt.env = row_config(event.text)
    if attempt.flags or attempt.env:
        attempt.evidence.append(Evidence("config", where, first.evidence.quote))
    return attempt


def _inside(event: Event, outer: Event) -> bool:
    a, b = event.locator, outer.locator
    return (b.line_start or 0) <= (a.line_start or 0) and (a.line_end or 0) <= (b.line_end or 0) and a != b


def _item_attempt(top: Event, group: list[Event], section: str, date: dt.date | None) -> ExtractedAttempt | None:
    """A run written as a list item with its sub-items (see the module docstring), or ``None``."""
    text = "\n".join(e.text for e in group)
    if len(text) > 100_000 or _NOT_DONE_ITEM.search(text):
        return None
    where = locator_text(top.locator)
    figures, previous = prose_figures(text, where)
    outcome, error = None, None
    note = _OUTCOME_NOTE.search(text)
    failed_line = next((line for line in text.split("\n") if re.match(r"^\s*(?:❌|failed\b|fail\b)", line, re.I)), None)
    if note:
        outcome, error, _ = outcome_cell(note.group(1).split("\n")[0])
        if outcome is None and _FAILURE_WORDS.search(note.group(1)):
            outcome = "failed"
        if outcome == "failed":
            error = _item_error(note.group(1).split("\n")[0])
    elif failed_line is not None or (_FAILURE_WORDS.search(text) and not figures):
        outcome, error = "failed", _item_error(failed_line or text)
    change = signed_percent(text) if outcome is None else None
    if outcome is None:
        for pattern, word in _ITEM_OUTCOME:
            if pattern.search(text) and figures:
                outcome = word
                break
    if not figures and outcome is None:
        return None
    own = plain(top.text.split("\n")[0])
    title = _first_sentence(own)[:MAX_TITLE] or section
    quote = short_quote(top.text.split("\n")[0])
    attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title,
                               approach=" ".join(plain(text).split()), date=date)
    attempt.key = " ".join(text.split())
    attempt.evidence.append(Evidence("approach", where, quote))
    attempt.metrics, attempt.previous, attempt.change = figures, previous, change
    if outcome is not None:
        attempt.outcome, attempt.explicit_outcome = outcome, True
        attempt.evidence.append(Evidence("outcome", where, short_quote(note.group(0) if note else text)))
    if outcome == "failed":
        attempt.error = error
        attempt.evidence.append(Evidence("error", where, short_quote(error or "")))
    attempt.flags, attempt.env = row_config(text)
    return attempt


def _item_error(text: str) -> str:
    """The error a failed list item states: an error line it quotes in a code span, else its
    words after ``failed –``, without Markdown."""
    for span in re.findall(r"`([^`\n]{4,400})`", text):
        if re.search(r"Error|ERROR|Exception|error:|out of memory|Unsupported", span):
            return error_headline(span)
    words = plain(text).strip().rstrip(".")
    words = re.sub(r"^(?:❌\s*)?(?:failed|fail|error)\s*[-–—:]\s*", "", words, flags=re.I)
    return words.split("\n")[0][:400] or "failed"


def _reference_words(events: list[Event]) -> frozenset[str]:
    """Words of the sentences that name the document's reference for its tables (``FlashInfer
    is the default backend on this card, so it is the reference in every table``)."""
    words: set[str] = set()
    for event in events:
        if event.kind != "text":
            continue
        for sentence in re.split(r"(?<=[.;!?])\s+", event.text):
            if re.search(r"\b(?:the )?(?:reference|baseline) (?:in|for|of) (?:every|each|all|the) tables?\b", sentence, re.I):
                words |= {w.lower() for w in re.findall(r"[A-Za-z][\w.+-]{2,}", sentence)}
    return frozenset(words)


def _preamble_date(events: list[Event], first_dated: int) -> tuple[dt.date | None, str | None]:
    """The date a ``Date:`` line of the document's preamble gives (any common spelling:
    ``2026-03-14``, ``November 4, 2025``, ``4 Nov 2025``) and the sentence saying so."""
    from dateutil import parser as dateparser

    for event in events:
        if event.index >= first_dated or event.kind == "heading" and (event.level or 1) > 1:
            break
        if event.kind not in ("text", "list_item"):
            continue
        leading = re.match(r"^\s*[_*]*(\d{4}-\d{2}-\d{2})[_*]*[.,:;]?(?:\s|$)", event.text)
        if leading:
            when = dt.date.fromisoformat(leading.group(1))
            return when, f"dated {when.isoformat()} from the date that opens the document"
        for match in _PREAMBLE_DATE.finditer(event.text):
            value = plain(match.group(1)).strip(" *_:")
            try:
                when = dateparser.parse(value, default=dt.datetime(1900, 1, 1)).date()
            except (ValueError, OverflowError):
                continue
            if when.year > 1900:
                return when, f"dated {when.isoformat()} from the document's \"Date: {value}\" line"
    return None, None


def _split_options(text: str) -> list[str]:
    text = text.strip().rstrip(".")
    parts = re.split(r",\s*(?:and\s+|or\s+)?|;\s*", text)
    return [" ".join(p.split()) for p in parts if p.strip()]
