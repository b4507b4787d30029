"""Error signatures: blockers whose signatures occur in an error text, and attempts a new one may
repeat (the headline of an error text is :func:`kb.errortext.error_headline`)."""

from __future__ import annotations

import re

from kb.errortext import error_headline
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign


def possible_duplicates(kg: KnowledgeGraph, attempt: Attempt) -> list[tuple[str, str]]:
    """Existing attempts that ``attempt`` (not yet in ``kg``) may repeat: same campaign and date,
    and the same figure for the campaign's headline metric, the same error headline, or a
    close title with the same outcome. Returns ``[(attempt id, reason)]`` sorted by id; used to
    flag an imported draft of a run someone already recorded by hand.
    """
    import difflib

    camp = kg.get(attempt.campaign)
    metric = camp.metric.name if isinstance(camp, Campaign) else None
    mine = attempt.metrics.get(metric) if metric else None
    my_error = error_headline(attempt.error or "")
    out = []
    for other in kg.of_kind(Attempt):
        if other.id == attempt.id or other.campaign != attempt.campaign or other.date != attempt.date:
            continue
        theirs = other.metrics.get(metric) if metric else None
        if mine is not None and theirs is not None and mine.value == theirs.value:
            out.append((other.id, f"same date and {metric} {theirs.display()}"))
        elif my_error and my_error == error_headline(other.error or ""):
            out.append((other.id, f"same date and error ({my_error[:60]})"))
        elif other.outcome == attempt.outcome and difflib.SequenceMatcher(
                None, attempt.title.lower(), other.title.lower()).ratio() >= 0.6:
            out.append((other.id, "same date, outcome and a similar title"))
    return sorted(out)


def _signature_matches(signature: str, text: str) -> bool:
    if len(signature) > 2 and signature.startswith("/") and signature.endswith("/"):
        try:
            return re.search(signature[1:-1], text) is not None
        except re.error:
            return False
    norm = " ".join(signature.split())
    return norm in " ".join(text.split())


def match_signatures(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """Ids of blockers with a signature found in ``error_text`` (sorted).

    A signature is a literal substring, compared with runs of whitespace collapsed; one written
    ``/.../`` is a Python regular expression.
    """
    if not error_text:
        return []
    return sorted(b.id for b in kg.of_kind(Blocker) if any(_signature_matches(s, error_text) for s in b.signatures))
