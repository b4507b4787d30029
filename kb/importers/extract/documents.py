"""Attempts from Markdown notebooks and plan documents: table rows, dated paragraphs, decisions,
rejected options and preamble facts."""

from __future__ import annotations

import datetime as dt
import re

from kb.importers.events import Event, Session
from kb.importers.extract.config import _FLAG, _cell_config, _text_flags
from kb.importers.extract.facts import _facts_before, _prose_facts
from kb.importers.extract.measurements import _TOK_S
from kb.importers.extract.model import (Evidence, ExtractedAttempt, Extraction, Figure, Statement, _first_paragraph,
    _first_sentence, _plain, _sentence_around, locator_text, short_quote)
from kb.importers.extract.outcomes import _DECISION

_CONCLUSION = re.compile(r"^\s*(?:\*\*)?(?:Conclusion|Result)(?:\*\*)?\s*:", re.I)


_REJECTED = re.compile(r"^\s*(?:\*\*)?(?:Rejected|Not tried|Ruled out|Dropped)\b[^:]*:\s*(.+)$", re.I | re.S)


_DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*(?:[—–:-]+\s*)?")


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
    for heading, body in sections:
        date = _heading_date(headings, heading)
        title = _DATE_PREFIX.sub("", heading.text).strip() if heading is not None else ""
        is_decision = heading is not None and re.search(r"\b(Decision|Decided)\b", heading.text, re.I)
        if is_decision:
            texts = [e.text for e in body if e.kind in ("text", "list_item")]
            if texts:
                out.decisions.append(Statement("decision", "\n\n".join(texts),
                                               Evidence("decision", locator_text(heading.locator), short_quote(texts[0]))))
        start = len(out.attempts)
        for event in body:
            if event.kind == "table" and event.table is not None:
                _table_attempts(event, date, lines, out)
        has_table_attempts = len(out.attempts) > start
        conclusions: list[Event] = []
        others: list[Event] = []
        for event in body:
            if event.kind not in ("text", "list_item"):
                continue
            rejected = _REJECTED.match(event.text)
            if rejected:
                for option in _split_options(rejected.group(1)):
                    out.options.append(Statement("option", option, Evidence("option", locator_text(event.locator), short_quote(event.text))))
                continue
            if heading is not None and re.search(r"\b(Rejected|Not tried|Ruled out)\b", heading.text, re.I) and event.kind == "list_item":
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
            if date is not None and not has_table_attempts and event.kind == "text" and _TOK_S.search(event.text):
                out.attempts.append(_prose_attempt(event, title, date))
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


_TITLE_COLUMNS = ("approach", "config", "configuration", "experiment", "run", "change", "setting", "variant", "what")


_OUTCOMES = {"failed": "failed", "fail": "failed", "error": "failed", "crashed": "failed", "improved": "improved",
             "regressed": "regressed", "regression": "regressed", "slower": "regressed", "neutral": "neutral",
             "no change": "neutral", "baseline": "baseline", "inconclusive": "inconclusive"}


_COLUMN_METRICS = [
    (re.compile(r"tok/s|throughput", re.I), "output_throughput", "tok/s"),
    (re.compile(r"\bTTFT\b", re.I), "ttft", "ms"),
    (re.compile(r"\bTPOT\b", re.I), "tpot", "ms"),
    (re.compile(r"\bITL\b", re.I), "itl", "ms"),
    (re.compile(r"accept", re.I), "acceptance_length", "tokens"),
]


_EMPTY_CELLS = {"", "—", "–", "-", "n/a", "na", "none", "?"}


def _table_attempts(event: Event, date: dt.date | None, lines: dict[int, str], out: Extraction) -> None:
    table = event.table
    assert table is not None
    headers = table.headers
    lowered = {h: h.lower() for h in headers}
    metric_cols = []
    for header in headers:
        for pattern, name, unit in _COLUMN_METRICS:
            if pattern.search(header):
                unit_match = re.search(r"\((ms|s|tok/s|tokens|%)\)", header)
                metric_cols.append((header, name, unit_match.group(1) if unit_match else unit))
                break
    outcome_col = next((h for h in headers if lowered[h].strip() in ("outcome", "result", "status")), None)
    gain_col = next((h for h in headers if re.search(r"vs\.? baseline|gain|Δ|delta|change vs", h, re.I)), None)
    if not (any(n == "output_throughput" for _, n, _ in metric_cols) or outcome_col):
        return
    title_col = next((h for h in headers if lowered[h].strip() in _TITLE_COLUMNS), headers[0])
    error_col = next((h for h in headers if re.search(r"error|cause|reason|why", h, re.I)), None)
    for row in table.rows:
        title = _plain(row.cells.get(title_col, ""))
        if not title:
            continue
        quote = short_quote(lines.get(row.line, " | ".join(row.cells.values())))
        where = f"line {row.line}"
        attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=date)
        attempt.evidence.append(Evidence("approach", where, quote))
        for header, name, unit in metric_cols:
            value = re.match(r"^\**\s*(\d+(?:\.\d+)?)", row.cells.get(header, "").strip())
            if value:
                attempt.metrics[name] = Figure(name, value.group(1), unit, Evidence(f"metrics.{name}", where, quote))
        cell = _plain(row.cells.get(outcome_col, "")).lower() if outcome_col else ""
        if cell in _OUTCOMES:
            attempt.outcome, attempt.explicit_outcome = _OUTCOMES[cell], True
            attempt.evidence.append(Evidence("outcome", where, quote))
        if gain_col:
            gain = row.cells.get(gain_col, "").strip()
            gain_value = re.match(r"^\+?\s*(\d+(?:\.\d+)?)\s*%$", gain)
            if gain_value:
                attempt.metrics["gain_vs_baseline"] = Figure("gain_vs_baseline", gain_value.group(1), "%",
                                                             Evidence("metrics.gain_vs_baseline", where, quote))
            elif gain.lower() in _EMPTY_CELLS and not attempt.explicit_outcome:
                attempt.outcome, attempt.explicit_outcome = "baseline", True
                attempt.evidence.append(Evidence("outcome", where, quote))
            elif gain:
                attempt.notes.append(f"{gain_col}: {gain}")
        if error_col:
            text = _plain(row.cells.get(error_col, ""))
            if text.lower() not in _EMPTY_CELLS:
                if attempt.outcome == "failed":
                    attempt.error = text
                    attempt.evidence.append(Evidence("error", where, quote))
                else:
                    attempt.cause = text
                    attempt.notes.append(f"{error_col}: {text}")
        if attempt.outcome == "failed" and not attempt.error:
            attempt.error = f"{title}: failed"
        flags = _text_flags(row.cells.get(title_col, ""))
        env = dict(m.groups() for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)=([^\s,`]+)", row.cells.get(title_col, "")))
        attempt.flags, attempt.env = flags, env
        out.attempts.append(attempt)


def _prose_attempt(event: Event, title: str, date: dt.date | None) -> ExtractedAttempt:
    match = _TOK_S.search(event.text)
    assert match is not None
    where = locator_text(event.locator)
    quote = short_quote(_sentence_around(event.text, match.start()))
    attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title or _first_sentence(event.text),
                               approach=" ".join(_plain(_first_paragraph(event.text)).split()), date=date)
    attempt.evidence.append(Evidence("approach", where, short_quote(event.text)))
    attempt.metrics["output_throughput"] = Figure("output_throughput", match.group(1), "tok/s",
                                                  Evidence("metrics.output_throughput", where, quote))
    attempt.flags = _text_flags(event.text)
    attempt.env = dict(m.groups() for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)=([^\s,`]+)", event.text))
    if attempt.flags or attempt.env:
        attempt.evidence.append(Evidence("config", where, quote))
    return attempt


def _split_options(text: str) -> list[str]:
    text = text.strip().rstrip(".")
    parts = re.split(r",\s*(?:and\s+|or\s+)?|;\s*", text)
    return [" ".join(p.split()) for p in parts if p.strip()]
