"""Decision statements and outcomes decided by comparison with a reference."""

from __future__ import annotations

import re

from kb.importers.events import Event
from kb.importers.extract.model import Evidence, Extraction, Headline, Statement, locator_text, short_quote

_DECISION = re.compile(r"^\s*(?:\*\*)?Decision(?:\*\*)?\s*:|\bwe(?:'ll| will| decided| have decided)\b|\bdecided to\b", re.I)


def _decision_in(event: Event, out: Extraction) -> None:
    for paragraph in re.split(r"\n\s*\n", event.text):
        if _DECISION.search(paragraph):
            out.decisions.append(Statement("decision", paragraph.strip(),
                                           Evidence("decision", locator_text(event.locator), short_quote(paragraph))))
            return


def _decide_outcomes(out: Extraction, headline: Headline) -> None:
    """Outcomes by comparison with the reference (see the module docstring)."""
    reference: tuple[float, int] | None = (headline.value, -1) if headline.value is not None else None
    for position, attempt in enumerate(out.attempts):
        figure = attempt.metrics.get(headline.name)
        value = float(figure.text) if figure else None
        if not attempt.explicit_outcome and value is not None and reference is not None:
            better = value > reference[0] if headline.direction == "higher" else value < reference[0]
            worse = value < reference[0] if headline.direction == "higher" else value > reference[0]
            attempt.outcome = "improved" if better else "regressed" if worse else "neutral"
            attempt.reference = reference[1]
        elif attempt.outcome in ("regressed", "improved", "neutral") and reference is not None:
            attempt.reference = reference[1]
        if value is not None and attempt.outcome in ("baseline", "improved"):
            reference = (value, position)
