"""Which catalog records bear on the campaigns: the part of a shared catalog the site publishes.

A catalog (:mod:`kb.catalog`) holds blockers of a whole platform (the Blackwell catalog has
dozens); a campaign's site shows only those that bear on it, marked as from the catalog. The
rest stay reachable through the queries (``kb unblocks``, ``kb roots --catalog``), and a page
that names one of them links to its upstream thread instead of a page of its own.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph, references
from kb.models import Attempt, Blocker, Campaign, Platform, Record
from kb.queries.resolution import current_stack, resolve_blockers
from kb.queries.signatures import _signature_matches


def bearing_records(kg: KnowledgeGraph) -> set[str]:
    """Ids of the catalog records that bear on the campaign records (a subset of
    ``kg.records.catalog_of``; empty when no catalog is loaded).

    A catalog record bears on the campaigns when

    * a campaign record refers to it (an attempt ``blocked_by`` it, a decision ``resolves`` it,
      a blocker ``caused_by`` it, a stack ``base`` or a platform), directly or through other
      catalog records;
    * it is a blocker that applies to a stack one of the campaign's attempts (or the campaign
      itself) stands on, on that attempt's platform: resolved, disabled or standing there, not
      "not applicable" (:func:`kb.queries.resolution.resolve_blockers`);
    * it is a blocker whose error signature appears in the error of one of the campaign's
      attempts;

    and, with any of those blockers, every blocker it is caused by (its root causes).
    """
    catalog = kg.records.catalog_of
    if not catalog:
        return set()
    own = [r for rid, r in kg.records.records.items() if rid not in catalog]
    found: set[str] = set()
    todo = [target for r in own for _path, target, _kind, _edge in references(r) if target in catalog]

    blockers = [b for b in kg.of_kind(Blocker) if b.id in catalog]
    # stacks and platforms the campaigns stand on: each (stack, platform) once
    pairs: set[tuple[str | None, str | None]] = set()
    errors: set[str] = set()
    for r in own:
        if isinstance(r, Attempt):
            pairs.add((r.stack, r.platform))
            if r.error:
                errors.add(r.error)
        elif isinstance(r, Campaign):
            pairs.add((current_stack(kg, r), r.platform))
    for stack, platform in sorted(pairs, key=lambda p: (p[0] or "", p[1] or "")):
        if stack is None:
            continue
        plat = kg.get(platform) if platform else None
        status = resolve_blockers(kg, kg.stack_components(stack), plat if isinstance(plat, Platform) else None)
        todo.extend(b.id for b in blockers if status[b.id].state != "not_applicable")
    for b in blockers:
        if any(_signature_matches(s, e) for s in b.signatures for e in errors):
            todo.append(b.id)

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
    blockers a campaign's search shows (the others keep their pages, reached by links). Worked out
    once per graph."""
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
