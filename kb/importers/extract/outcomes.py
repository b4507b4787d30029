"""Decision statements, and outcomes decided against the right reference (:func:`_decide_outcomes`)."""

from __future__ import annotations

import re

from kb.importers.events import Event
from kb.importers.extract.measurements import direction_of, in_units
from kb.importers.extract.model import Evidence, ExtractedAttempt, Extraction, Headline, Statement, locator_text, short_quote

_DECISION = re.compile(r"^\s*(?:\*\*)?Decision(?:\*\*)?\s*:|\bwe(?:'ll| will| decided| have decided)\b|\bdecided to\b", re.I)


def _decision_in(event: Event, out: Extraction) -> None:
    for paragraph in re.split(r"\n\s*\n", event.text):
        if _DECISION.search(paragraph):
            out.decisions.append(Statement("decision", paragraph.strip(),
                                           Evidence("decision", locator_text(event.locator), short_quote(paragraph))))
            return


def _comparable(attempt: ExtractedAttempt, reference: ExtractedAttempt, headline: Headline) -> tuple[str, float, float] | None:
    """The metric ``attempt`` and ``reference`` can be compared on (the headline metric, else
    the first plain metric both have in convertible units) and both values in one unit."""
    names = [headline.name] + [n for n in attempt.metrics if "[" not in n and n != headline.name]
    for name in names:
        mine, theirs = attempt.metrics.get(name), reference.metrics.get(name)
        if mine is None or theirs is None:
            continue
        other = in_units(theirs, mine.unit)
        if other is not None:
            return name, float(mine.text), other
    return None


def _verdict(value: float, reference: float, direction: str) -> str:
    if reference == 0 or abs(value - reference) <= 0.005 * abs(reference):
        return "neutral"
    better = value > reference if direction == "higher" else value < reference
    return "improved" if better else "regressed"


def _direction(name: str, unit: str, headline: Headline) -> str:
    return headline.direction if name == headline.name else direction_of(unit)


def _decide_outcomes(out: Extraction, headline: Headline) -> None:
    """Outcomes against the right reference.

    - An outcome the log states (a table's ``Outcome`` or Δ cell, ``baseline`` words, a failure)
      is kept; a stated change (``+31.6 %``) or a figure written ``from X to Y`` decides by its
      sign, before any arithmetic.
    - Otherwise the attempt is compared with its *family*'s baseline (the latest ``baseline``
      attempt of the same family: the same program and model in a transcript, the document in a
      notebook, one A/B row; a variant is judged against the reference run, not against the
      previous variant), on the same metric in the same unit (the headline
      metric first), in that metric's direction (latencies lower, throughputs higher):
      ``improved``, ``regressed``, or ``neutral`` within 0.5 %.
    - The first measured attempt of a family is its ``baseline``, unless the log is the
      campaign's (:attr:`Extraction.matches_campaign`) and the campaign has a baseline value in
      the headline's unit: then it is compared with that (``reference`` ``-1``).
    - No comparable figure: ``inconclusive``.
    """
    refs: dict[str | None, int] = {}
    for position, attempt in enumerate(out.attempts):  # a family whose baseline comes after some of its runs
        if attempt.family is not None and attempt.outcome == "baseline" and attempt.metrics:
            refs.setdefault(attempt.family, position)
    campaign_value = headline.value if out.matches_campaign else None
    for position, attempt in enumerate(out.attempts):
        family = attempt.family
        ref_position = refs.get(family)
        ref = out.attempts[ref_position] if ref_position is not None else None
        if attempt.outcome == "failed":
            continue
        primary = next((n for n in attempt.metrics if "[" not in n), None)
        if not attempt.explicit_outcome and primary is not None:
            name = headline.name if headline.name in attempt.metrics else primary
            figure = attempt.metrics[name]
            direction = _direction(name, figure.unit, headline)
            if attempt.change is not None:
                gain = attempt.change if direction == "higher" else -attempt.change
                attempt.outcome = "improved" if gain > 0 else "regressed" if gain < 0 else "neutral"
                attempt.explicit_outcome = True
            elif name in attempt.previous and in_units(attempt.previous[name], figure.unit) is not None:
                attempt.outcome = _verdict(float(figure.text), in_units(attempt.previous[name], figure.unit) or 0.0, direction)
                attempt.explicit_outcome = True
        if attempt.explicit_outcome:
            if attempt.outcome in ("improved", "regressed", "neutral") and ref is not None:
                attempt.reference = ref_position
        elif primary is not None:
            compared = _comparable(attempt, ref, headline) if ref is not None else None
            if compared is not None:
                name, value, other = compared
                attempt.outcome = _verdict(value, other, _direction(name, attempt.metrics[name].unit, headline))
                attempt.reference = ref_position
            elif ref is None and campaign_value is not None and headline.name in attempt.metrics and (
                    headline.unit is None or attempt.metrics[headline.name].unit == headline.unit):
                attempt.outcome = _verdict(float(attempt.metrics[headline.name].text), campaign_value, headline.direction)
                attempt.reference = -1
            elif ref is None:
                attempt.outcome = "baseline"
        if attempt.metrics and attempt.outcome == "baseline" and (family not in refs or refs[family] < position):
            refs[family] = position
