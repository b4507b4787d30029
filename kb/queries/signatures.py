"""Error signatures: blockers whose signatures occur in an error text, and attempts a new one may
repeat (the headline of an error text is :func:`kb.errortext.error_headline`)."""

from __future__ import annotations

import re

from kb.errortext import error_headline
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign
from kb.queries.index import index


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
        return _regex_matches(signature, text)
    norm = " ".join(signature.split())
    return norm in " ".join(text.split())


def _regex_matches(signature: str, text: str) -> bool:
    try:
        return re.search(signature[1:-1], text) is not None
    except re.error:
        return False


def match_signatures(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """Ids of blockers with a signature found in ``error_text`` (sorted).

    A signature is a literal substring, compared with runs of whitespace collapsed; one written
    ``/.../`` is a Python regular expression.
    """
    if not error_text:
        return []
    literals, patterns = index(kg).signatures
    norm = " ".join(error_text.split())  # once per text, not once per signature
    hits = {bid for sig, bid in literals if sig in norm}
    hits.update(bid for sig, bid in patterns if bid not in hits and _regex_matches(sig, error_text))
    return sorted(hits)


SPECIFIC_LENGTH = 16
"""A literal signature this long (characters, whitespace collapsed) names one failure; a shorter
one (``KeyError: 12``) may name several and is specific only when nothing else matches."""


def _matching(b: Blocker, text: str) -> list[str]:
    return [s for s in b.signatures if _signature_matches(s, text)]


def specific_matches(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """The matches of :func:`match_signatures` specific enough to link without asking: the only
    match; else those matched by a regex or by a literal signature of at least
    :data:`SPECIFIC_LENGTH` characters that no other match's signature contains and lengthens.
    Where a campaign's own blocker and a catalog blocker match by the same signature, only the
    campaign's own is linked (the catalog's is still reported)."""
    found = match_signatures(kg, error_text)
    if len(found) <= 1:
        return found
    sigs = {bid: _matching(b, error_text) for bid in found if isinstance(b := kg.get(bid), Blocker)}
    norm = {bid: [" ".join(s.split()) for s in ss] for bid, ss in sigs.items()}
    out = []
    for bid in found:
        mine = norm[bid]
        if not any(s.startswith("/") and s.endswith("/") or len(s) >= SPECIFIC_LENGTH for s in mine):
            continue
        others = [s for o, ss in norm.items() if o != bid for s in ss]
        if all(any(s in o and s != o for o in others) for s in mine):
            continue  # every signature of it is part of a longer one that matched too
        out.append(bid)
    catalog = kg.records.catalog_of
    own = {s for bid in out if bid not in catalog for s in norm[bid]}
    return [bid for bid in out if bid not in catalog or not set(norm[bid]) & own]
