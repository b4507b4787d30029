"""Why an attempt came out as it did: its chains of blockers down to root causes, each fix in
words, the confounds of the stack change it ran after, and the findings about it."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.errors import QueryError
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker
from kb.queries.credit import attempt_credit, credit_sentence, retried
from kb.queries.fixes import fix_json
from kb.queries.fixtext import describe_fix
from kb.queries.signatures import match_signatures


@dataclass
class ChainLink:
    """One blocker on a chain from an attempt to a root cause; ``fix`` is
    :func:`kb.queries.fixtext.describe_fix` of it, ``fixed_by`` its fixes as written."""

    id: str
    title: str
    fixed_by: list[dict[str, Any]]
    workaround: str | None
    is_root: bool
    fix: str = ""


@dataclass
class WhyResult:
    """Answer of :func:`why`: the attempt, its outcome and error, and every chain
    ``attempt → blocker → … → root cause`` (each a list of :class:`ChainLink`).

    ``matches``: blockers whose signatures occur in the error text but that the attempt does not
    name; ``retries``: the earlier attempts it re-runs; ``credit``: the stack change since what it
    re-runs (or its baseline) as :meth:`kb.queries.credit.Credit.to_dict`, and ``credit_text`` in
    words (``None`` when the stack did not change); ``findings``: ``kb check``'s warnings about it.
    """

    attempt: str
    title: str
    outcome: str
    error: str | None
    chains: list[list[ChainLink]]
    matches: list[str]
    retries: list[str] = field(default_factory=list)
    credit: dict[str, Any] | None = None
    credit_text: str | None = None
    findings: list[str] = field(default_factory=list)
    disputes: list[dict[str, str]] = field(default_factory=list)
    """Where the records disagree on this attempt's root causes under its campaign's current stack:
    ``{"root", "record", "title", "source", "claim"}``: ``root``, one of its chains' roots or a
    catalog root its error matches, no longer stands there, while ``record``, another such root,
    still does (``claim``: ``"stands on cuda-13.0"``)."""

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


def why(kg: KnowledgeGraph, attempt_id: str) -> WhyResult:
    """Every chain from attempt ``attempt_id`` through ``blocked_by`` and ``caused_by`` to root
    causes, with each blocker's fixes and workaround, the credit of the stack change it ran after
    (confounded when several components changed), and the findings about it.

    Raises :class:`QueryError` for an unknown attempt id.
    """
    from kb.queries.findings import findings_of

    a = kg.get(attempt_id)
    if not isinstance(a, Attempt):
        if a is not None:
            raise QueryError(f"'{attempt_id}' is {'an' if a.kind[0] in 'aeiou' else 'a'} {a.kind}, not an attempt; "
                             "kb why explains an attempt (see 'kb roots' for what blockers block)")
        hint = difflib.get_close_matches(attempt_id, [x.id for x in kg.of_kind(Attempt)], n=1)
        raise QueryError(f"unknown attempt '{attempt_id}'" + (f"; did you mean '{hint[0]}'?" if hint else "")
                         + " (the attempts are records/attempts/<id>.yaml)")
    chains: list[list[ChainLink]] = []

    def walk(bid: str, path: list[str]) -> None:
        if bid in path:
            return
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        path = path + [bid]
        parents = sorted(b.caused_by)
        if not parents:
            chains.append([_link(kg, x) for x in path])
        for p in parents:
            walk(p, path)

    for b in a.blocked_by:
        walk(b, [])
    matches = [b for b in match_signatures(kg, a.error or "") if b not in a.blocked_by]
    credit = attempt_credit(kg, a)
    found = [f.message for f in findings_of(kg, a.id)]
    return WhyResult(a.id, a.title, a.outcome.value, a.error, chains, matches,
                     [r.id for r in retried(kg, a)], credit.to_dict() if credit else None,
                     credit_sentence(credit) if credit else None, found, _disputes(kg, a, chains))


def _disputes(kg: KnowledgeGraph, a: Attempt, chains: list[list[ChainLink]]) -> list[dict[str, str]]:
    """:attr:`WhyResult.disputes` of attempt ``a``: the roots of its chains and those of the catalog
    blockers its error matches (:func:`kb.queries.signatures.catalog_matches`; only for an attempt
    that did not succeed, as ``kb roots`` links them), compared under its campaign's current stack,
    a campaign's root against a catalog's (two campaign roots, one fixed and one not, are no
    dispute: the attempt needs both)."""
    from kb.models import Campaign
    from kb.queries.resolution import current_stack, now_statuses
    from kb.queries.roots import STANDING, SUCCESS, applies_to, dispute_side, root_claim
    from kb.queries.signatures import catalog_matches

    camp = kg.get(a.campaign)
    catalog = kg.records.catalog_of
    if not isinstance(camp, Campaign) or not catalog:
        return []
    roots = {chain[-1].id for chain in chains if chain}
    if a.error and a.outcome.value not in SUCCESS:
        for cid in catalog_matches(kg, a.error):
            if applies_to(kg, a, cid):
                roots |= {x for x in kg.causes_closure([cid]) if isinstance(b := kg.get(x), Blocker) and b.is_root}
    if len(roots) < 2:
        return []
    sid = current_stack(kg, camp)
    now = now_statuses(kg, camp)
    out = []
    for r in sorted(roots):
        for other in sorted(roots - {r}):
            if ((r in catalog) != (other in catalog) and r in now and other in now
                    and now[r].state not in STANDING and now[other].state in STANDING):
                out.append({"root": r, **dispute_side(kg, other, root_claim(kg, other, now[other].state, sid))})
    return out


def _link(kg: KnowledgeGraph, bid: str) -> ChainLink:
    b = kg.get(bid)
    assert isinstance(b, Blocker)
    return ChainLink(b.id, b.title, [fix_json(f) for f in b.fixed_by], b.workaround, b.is_root,
                     describe_fix(b, kg))
