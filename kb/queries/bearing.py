"""Which catalog records bear on the campaigns: the part of a shared catalog the site publishes.

A catalog (:mod:`kb.catalog`) holds blockers of a whole platform (the Blackwell catalog has
dozens); a campaign's site gives pages only to those an attempt met or that dispute a record,
marked as from the catalog. Every record of the catalog is listed on the catalog's own page
(``catalogs.md``, with its audit), and stays reachable through the queries (``kb unblocks
--all``, ``kb roots --catalog``); a page that names one without a page links to its upstream thread.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph, references
from kb.models import Attempt, Record


def bearing_records(kg: KnowledgeGraph) -> set[str]:
    """Ids of the catalog records that bear on the campaign records (a subset of
    ``kg.records.catalog_of``; empty when no catalog is loaded): those a campaign record refers
    to (an attempt ``blocked_by`` it, a decision ``resolves`` it, a blocker ``caused_by`` it, a
    stack ``base`` or a platform), directly or through other catalog records, and the blockers an
    attempt met or that dispute a campaign record (:func:`met_catalog_blockers`), with every
    blocker each is caused by.

    A catalog blocker that merely *could* apply to a campaign's stack is not among them: the
    Blackwell catalog has dozens, and listing them filled a campaign's counts, diagram and search
    with failures nobody met (issue 24). They are on the catalog's own page and answer
    ``kb unblocks --all`` and ``kb roots --catalog``.
    """
    catalog = kg.records.catalog_of
    if not catalog:
        return set()
    own = [r for rid, r in kg.records.records.items() if rid not in catalog]
    found: set[str] = set()
    todo = [target for r in own for _path, target, _kind, _edge in references(r) if target in catalog]
    todo.extend(met_catalog_blockers(kg))
    while todo:
        rid = todo.pop()
        if rid in found or rid not in catalog:
            continue
        found.add(rid)
        rec = kg.get(rid)
        if isinstance(rec, Record):
            todo.extend(t for _p, t, _k, _e in references(rec) if t in catalog)
    return found


def published_ids(kg: KnowledgeGraph) -> set[str]:
    """Ids of every record that gets a page: the campaign's own records and the catalog records
    that bear on them (:func:`bearing_records`), worked out once per graph (the site's pages,
    its tree and its JSON twins all ask)."""

    def compute() -> frozenset[str]:
        catalog = kg.records.catalog_of
        return frozenset({rid for rid in kg.records.records if rid not in catalog} | bearing_records(kg))

    return set(kg.memo("published_ids", compute))


def met_catalog_blockers(kg: KnowledgeGraph) -> set[str]:
    """Ids of the catalog blockers that a campaign's attempts met or that dispute a campaign record:
    those an attempt names in ``blocked_by``, those whose signatures an error of an attempt that did
    not succeed matches (:func:`kb.queries.signatures.catalog_matches`), those describing the same
    failure as a blocker of the campaign's own (:func:`kb.queries.counterparts.counterparts`), and
    every blocker each of them is caused by. A subset of :func:`bearing_records`: the catalog
    blockers a campaign's pages list. Worked out once per graph."""
    def compute() -> frozenset[str]:
        from kb.queries.counterparts import counterparts
        from kb.queries.signatures import catalog_matches

        catalog = kg.records.catalog_of
        if not catalog:
            return frozenset()
        start: set[str] = set()
        for a in kg.of_kind(Attempt):
            if a.id in catalog:
                continue
            start.update(a.blocked_by)
            if a.error and a.outcome.value not in ("improved", "baseline"):
                start.update(catalog_matches(kg, a.error))
        for theirs in counterparts(kg).values():
            start.update(theirs)
        return frozenset(b for b in kg.causes_closure(sorted(start)) if b in catalog)

    return set(kg.memo("met_catalog_blockers", compute))
