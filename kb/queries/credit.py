"""Retries and credit: which attempt re-runs which, and what a stack change is credited with.

When a stack change moved several components at once (the campaign's CUDA 13 move changed the
toolkit, torch, FlashInfer, sgl-kernel and SGLang together), "what fixed it" is a hypothesis:
:func:`attempt_credit` and :func:`decision_credit` name every changed component, say which one the
recorded fix credits, and call the credit unverified unless an attempt changed that component alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Component, Decision
from kb.queries.index import index, is_indexed
from kb.queries.resolution import StatusCache
from kb.versions import BUNDLED_IN

__all__ = ["Credit", "StatusCache", "attempt_credit", "credit_sentence", "decision_credit", "is_retry", "retried",
           "retries_of", "stack_diff"]


def _platform_campaign(kg: KnowledgeGraph, a: Attempt) -> str | None:
    return a.campaign if isinstance(kg.get(a.campaign), Campaign) else None


def is_retry(kg: KnowledgeGraph, later: Attempt, earlier: Attempt, cache: StatusCache | None = None) -> bool:
    """Whether ``later`` re-runs ``earlier``: it says so (``retry_of``), or, in the same campaign
    and later, it ran on a stack where none of ``earlier``'s blockers stand while one stood on
    ``earlier``'s own stack, and it either compares itself to ``earlier`` (``baseline``) or runs
    with every flag ``earlier`` ran with (so one run with several features on re-runs each of the
    attempts that tried one of them, whatever its ``retry_of`` names).

    Worked out by :meth:`kb.queries.index.QueryIndex.is_retry` (``cache`` is accepted for the
    callers that pass one: statuses come from the graph's shared :class:`StatusCache` either way);
    :func:`retries_of` and :func:`retried` answer it without testing every pair."""
    return index(kg).is_retry(later, earlier)


def retries_of(kg: KnowledgeGraph, earlier: Attempt, cache: StatusCache | None = None) -> list[Attempt]:
    """The attempts that re-run ``earlier`` (see :func:`is_retry`), by date then id (a new list).
    Looked up in the graph's index for an attempt of ``kg``; scanned for one from elsewhere."""
    if is_indexed(kg, earlier):
        return index(kg).retries_of(earlier)
    cache = cache or StatusCache(kg)
    return sorted((a for a in kg.of_kind(Attempt) if is_retry(kg, a, earlier, cache)), key=lambda a: (a.date, a.id))


def retried(kg: KnowledgeGraph, later: Attempt, cache: StatusCache | None = None) -> list[Attempt]:
    """The earlier attempts ``later`` re-runs, by date then id (a new list; see :func:`retries_of`)."""
    if is_indexed(kg, later):
        return index(kg).retried_by(later)
    cache = cache or StatusCache(kg)
    return sorted((a for a in kg.of_kind(Attempt) if is_retry(kg, later, a, cache)), key=lambda a: (a.date, a.id))


@dataclass
class Credit:
    """What a stack change is credited with, and how sure that is.

    ``before``/``after``: what is compared (``"attempt 2026-02-21-x (stack cuda-12.8)"``,
    ``"stack cuda-13.0"``); ``changed``: every component that differs, ``[{component, before,
    after}]`` (versions, or the source when there is no version); ``credited``: the fixes recorded
    as doing the work, ``[{blocker, fix, components}]``; ``co_changed``: changed components no
    credited fix names (the other possible causes); ``isolated_by``: attempts that changed only a
    credited component; ``verified``: the credit rests on an isolating attempt or on a change of a
    single component; ``unchanged_credit``: credited components that did not change at all;
    ``retested``: each blocker the change resolves (by its own fix or through its causes) that an
    attempt it blocked was re-run for where it no longer stands, ``{blocker: [re-run attempt
    ids]}``; ``untested``: the resolved blockers no attempt re-ran: expected, not seen.
    """

    before: str
    after: str
    changed: list[dict[str, str]]
    credited: list[dict[str, Any]]
    co_changed: list[str]
    isolated_by: list[str] = field(default_factory=list)
    verified: bool = False
    unchanged_credit: list[str] = field(default_factory=list)
    retested: dict[str, list[str]] = field(default_factory=dict)
    untested: list[str] = field(default_factory=list)

    @property
    def confounded(self) -> bool:
        """Several components changed, so the credit is one hypothesis among several."""
        return len(self.changed) > 1

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {**asdict(self), "confounded": self.confounded}


def _show(c: Component | None) -> str:
    if c is None:
        return "absent"
    return c.version or c.source or "?"


def stack_diff(before: dict[str, Component], after: dict[str, Component]) -> list[dict[str, str]]:
    """Components that differ (in version or source), sorted by name, as ``{component, before, after}``.

    A component that ships inside another (``bundled_in: torch``, or one of
    :data:`kb.versions.BUNDLED_IN` that neither stack records) changes when its bundler does:
    ``{"component": "nccl", "before": "bundled in torch 2.10.0", "after": "bundled in torch 2.11.0"}``
    unless its own entry already differs."""
    out = {k: {"component": k, "before": _show(before.get(k)), "after": _show(after.get(k))}
           for k in set(before) | set(after) if before.get(k) != after.get(k)}
    for name in sorted(set(before) | set(after) | set(BUNDLED_IN)):
        if name in out:
            continue
        b, a = before.get(name), after.get(name)
        host = (b.bundled_in if b else None) or (a.bundled_in if a else None) \
            or (BUNDLED_IN.get(name) if b is None and a is None else None)
        if host and host in out and host in before and host in after:
            out[name] = {"component": name, "before": f"bundled in {host} {_show(before[host])}",
                         "after": f"bundled in {host} {_show(after[host])}"}
    return [out[k] for k in sorted(out)]


def _credit(kg: KnowledgeGraph, before: dict[str, Component], after: dict[str, Component], blockers: list[str],
            campaign: str | None, labels: tuple[str, str], cache: StatusCache) -> Credit | None:
    changed = stack_diff(before, after)
    if not changed:
        return None
    st0, st1 = cache.of(before, campaign), cache.of(after, campaign)
    credited: list[dict[str, Any]] = []
    names: set[str] = set()
    for bid in sorted(kg.causes_closure(blockers)):
        b = kg.get(bid)
        if not isinstance(b, Blocker) or bid not in st1:
            continue
        if st0[bid].state in ("stands", "disabled") and st1[bid].state in ("resolved", "disabled"):
            which = st1[bid].fix
            fix = b.fixed_by[which] if which is not None else None
            if fix is not None:
                credited.append({"blocker": bid, "fix": st1[bid].by, "kind": fix.kind, "components": sorted(fix.requires)})
                names.update(fix.requires)
    changed_names = {c["component"] for c in changed}
    unchanged = sorted(n for n in names if n not in changed_names)
    ix = index(kg)
    isolated: list[str] = []
    if names:
        isolated = ix.memo(("isolated", StatusCache.key(before), frozenset(names), frozenset(changed_names), campaign),
                           lambda: _isolated(kg, before, names, changed_names, campaign))
    retested: dict[str, list[str]] = {}
    untested = []
    for bid in sorted(kg.causes_closure(blockers) | _caused_by(kg, blockers)):
        if bid not in st1 or not (st0[bid].state in ("stands", "disabled") and st1[bid].state == "resolved"):
            continue
        reruns = ix.memo(("reruns", bid, campaign), lambda bid=bid: _reruns(kg, bid, campaign))
        if reruns:
            retested[bid] = list(reruns)
        elif kg.into(bid, "blocked_by"):
            untested.append(bid)
    return Credit(labels[0], labels[1], changed, credited, sorted(changed_names - names), sorted(isolated),
                  verified=bool(credited) and (len(changed) == 1 or bool(isolated)), unchanged_credit=unchanged,
                  retested=retested, untested=untested)


def _isolated(kg: KnowledgeGraph, before: dict[str, Component], names: set[str], changed_names: set[str],
              campaign: str | None) -> list[str]:
    """Attempts (of ``campaign`` when given) whose components differ from ``before`` in some of
    ``changed_names`` and in nothing outside ``names`` (sorted ids); one test per distinct stack."""
    out: list[str] = []
    for comps, attempts in index(kg).groups:
        diff = {c["component"] for c in stack_diff(before, comps)}
        if diff and diff <= names and diff & changed_names:
            out.extend(a.id for a in attempts if campaign is None or a.campaign == campaign)
    return sorted(out)


def _reruns(kg: KnowledgeGraph, bid: str, campaign: str | None) -> list[str]:
    """The retries of the attempts ``bid`` blocked, run where ``bid`` no longer stands (on the
    platform of ``campaign``), sorted ids."""
    ix = index(kg)
    out: set[str] = set()
    for x in kg.into(bid, "blocked_by"):
        rec = kg.get(x)
        if isinstance(rec, Attempt):
            out.update(r.id for r in ix.retries_of(rec) if ix.statuses(r, campaign)[bid].state != "stands")
    return sorted(out)


def _caused_by(kg: KnowledgeGraph, roots: list[str]) -> set[str]:
    """Every blocker caused, transitively, by one of ``roots``."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        for child in kg.into(todo.pop(), "caused_by"):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def attempt_credit(kg: KnowledgeGraph, a: Attempt, cache: StatusCache | None = None) -> Credit | None:
    """The credit of the stack change between ``a`` and what it re-runs (its ``retry_of``, else the
    latest of :func:`retried`, else its ``baseline``), or ``None`` when nothing in the stack
    changed or there is nothing to compare."""
    cache = cache or StatusCache(kg)
    refs = retried(kg, a, cache)
    if not refs:
        base = kg.get(a.baseline) if a.baseline else None
        refs = [base] if isinstance(base, Attempt) else []
    if not refs:
        return None
    ref = next((r for r in refs if r.id == a.retry_of), refs[-1])
    before, after = kg.attempt_components(ref), kg.attempt_components(a)
    blockers = sorted({b for r in refs for b in r.blocked_by})
    label = lambda x: f"attempt {x.id}" + (f" (stack {x.stack})" if x.stack else "")  # noqa: E731
    return _credit(kg, before, after, blockers, _platform_campaign(kg, a), (label(ref), label(a)), cache)


def decision_credit(kg: KnowledgeGraph, d: Decision, cache: StatusCache | None = None) -> Credit | None:
    """The credit of a decision's ``stack_change`` for the blockers it ``resolves``, or ``None``
    when it names no stack change."""
    sc = d.stack_change
    if sc is None or not (sc.from_ or sc.to or sc.components):
        return None
    cache = cache or StatusCache(kg)
    before = kg.stack_components(sc.from_) if sc.from_ else {}
    after = {**(kg.stack_components(sc.to) if sc.to else before), **sc.components}
    camp = d.campaign if isinstance(kg.get(d.campaign or ""), Campaign) else None
    return _credit(kg, before, after, list(d.resolves), camp,
                   (f"stack {sc.from_}" if sc.from_ else "the stack", f"stack {sc.to}" if sc.to else "the changed stack"),
                   cache)


def credit_sentence(c: Credit) -> str:
    """The credit in one sentence (for ``kb why``, attempt and decision pages)::

        changed together: cuda 12.8.1 → 13.0.1, torch ...; the recorded fix credits cuda
        (sm120-...: cuda>=13.0); also changed, possible co-causes: torch, ...; unverified: no
        attempt changed cuda alone
    """
    changes = ", ".join(f"{c_['component']} {c_['before']} → {c_['after']}" for c_ in c.changed)
    parts = [f"{'changed together' if c.confounded else 'changed'}: {changes}"]
    if c.credited:
        names = sorted({n for x in c.credited for n in x["components"]})
        which = "; ".join(f"{x['blocker']}: {x['fix']}" for x in c.credited)
        parts.append(f"the recorded fix credits {', '.join(names)} ({which})")
    else:
        parts.append("no recorded fix names a changed component")
    if c.co_changed and c.credited:
        parts.append(f"also changed, possible co-causes: {', '.join(c.co_changed)}")
    if c.unchanged_credit:
        parts.append(f"credited but unchanged: {', '.join(c.unchanged_credit)}")
    if c.credited and c.confounded:
        only = ", ".join(sorted({n for x in c.credited for n in x["components"]}))
        parts.append(f"verified by {', '.join(c.isolated_by)}, which changed only {only}" if c.verified
                     else f"unverified: no attempt changed {only} alone")
    if c.untested:
        parts.append(f"not re-run since, so expected rather than seen: {', '.join(c.untested)}")
    return "; ".join(parts)
