"""What every page module names, with nothing of the pages above it: the icon of each outcome,
where a record's page is, the address of an upstream reference, an attempt's headline figure, and
where the compare page of two attempts is. A leaf: :mod:`.context`, :mod:`.lists` and
:mod:`.compare` import it, it imports none of them."""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Campaign, Metric, Record

OUTCOME_ICONS = {
    "baseline": "◆",
    "improved": "▲",
    "regressed": "▼",
    "neutral": "●",
    "failed": "✖",
    "inconclusive": "?",
}


def page_of(record: Record) -> str:
    """Source path of a record's page: ``attempts/<id>.md`` etc."""
    return f"{record.folder}/{record.id}.md"


def upstream_url(ref: str) -> str:
    """The address of an upstream reference: a URL as it is, ``owner/repo#123`` as its GitHub
    issue (GitHub redirects an issue number to the pull request of that number)."""
    if ref.startswith("http"):
        return ref
    repo, _, number = ref.partition("#")
    return f"https://github.com/{repo}/issues/{number}"


def headline(kg: KnowledgeGraph, a: Attempt) -> Metric | None:
    """The attempt's figure for its campaign's headline metric, if it has one."""
    camp = kg.get(a.campaign)
    if isinstance(camp, Campaign):
        return a.metrics.get(camp.metric.name)
    return None


def pair_page(a: str, b: str) -> str:
    """Source path of the compare page of attempts ``a`` (reference) and ``b``: ids only."""
    return f"compare/{a}--{b}.md"
