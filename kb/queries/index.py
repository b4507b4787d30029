"""Per-graph indexes: what the queries would otherwise rescan every record for, computed once.

A :class:`kb.graph.KnowledgeGraph` does not change after linking, so :func:`index` builds one
:class:`QueryIndex` per graph, lazily, and keeps it in the graph's memo. Each table is built the
first time a query needs it, in time linear in the records (the retry relation: in the size of
the flag posting lists it intersects), so a query asked once per attempt (the site asks
:func:`kb.queries.why` for every attempt page) costs what that attempt touches, not the campaign:

* :meth:`QueryIndex.flags`: :func:`kb.queries.resolution.attempt_flags` per attempt;
* :meth:`QueryIndex.statuses`: the blocker statuses under an attempt's own components;
* :attr:`QueryIndex.retries` / :attr:`QueryIndex.retried`: the whole relation of
  :func:`kb.queries.credit.is_retry`, found without testing every pair (below);
* :attr:`QueryIndex.citing`: the decisions citing each attempt as evidence;
* :attr:`QueryIndex.groups`: the attempts grouped by their components (stack, base chain and
  overrides), so "which attempts changed only X" is asked once per distinct stack, not per attempt;
* :attr:`QueryIndex.signatures`: every blocker signature, normalised once.

The retry relation: ``later`` re-runs ``earlier`` when it names it in ``retry_of``, or, in the
same campaign and later, it names it as ``baseline`` or carries every flag of it, and it ran
where the blockers that stood on ``earlier``'s stack no longer stand. The candidates carrying
every flag are the intersection of the flag posting lists of ``earlier``'s flags (rarest first),
so the relation costs what those lists hold rather than every pair of attempts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Component, Decision
from kb.queries.resolution import BlockerStatus, StatusCache, attempt_flags, attempt_platform
from kb.store.read import gc_paused

CompsKey = tuple[tuple[str, "str | None", "str | None"], ...]

LAZY_QUESTIONS = 32
"""Questions "which earlier attempts does this one re-run" answered one attempt at a time (a
scan of its campaign; ``kb why`` asks one or two) before the whole relation is built instead
(the site asks about every attempt). "Which attempts re-run this one" is always answered from
the attempt's own candidates (its flags' posting lists), which costs no more than the relation."""

_STANDING = ("stands", "disabled")
_GONE = ("resolved", "not_applicable")


def _by_date(attempts: Any) -> list[Attempt]:
    return sorted(attempts, key=lambda x: (x.date, x.id))


def index(kg: KnowledgeGraph) -> QueryIndex:
    """The :class:`QueryIndex` of ``kg`` (built on first use, then kept on the graph)."""
    return kg.memo("queries.index", lambda: QueryIndex(kg))


def citing_decisions(kg: KnowledgeGraph, attempt_id: str) -> list[Decision]:
    """The decisions citing attempt ``attempt_id`` as evidence in any option, sorted by id (a
    lookup, for a page per attempt: the same as filtering every decision on ``d.evidence``)."""
    return list(index(kg).citing.get(attempt_id, ()))


def resolving_decisions(kg: KnowledgeGraph, blocker_id: str) -> list[Decision]:
    """The decisions naming blocker ``blocker_id`` in ``resolves`` (any status; filter on
    ``status == "accepted"`` for those that resolve it), sorted by id (a lookup, for a page per blocker)."""
    return list(index(kg).resolving.get(blocker_id, ()))


def is_indexed(kg: KnowledgeGraph, a: Attempt) -> bool:
    """Whether ``a`` is the attempt record of ``kg`` itself (an attempt built elsewhere, e.g. an
    import draft not yet written, is answered by the plain definitions, not the indexes)."""
    return kg.get(a.id) is a


class QueryIndex:
    """Tables derived from every record of one graph (see the module docstring); build through
    :func:`index`. Every table is computed on first access; nothing here changes the graph."""

    def __init__(self, kg: KnowledgeGraph):
        self.kg = kg
        self.cache = StatusCache(kg)
        self._flags: dict[str, frozenset[str]] = {}
        self._keys: dict[str, CompsKey] = {}
        self._statuses: dict[tuple[str, str | None], Mapping[str, BlockerStatus]] = {}
        self._lazy_left = LAZY_QUESTIONS

    # ------------------------------------------------------------------ per attempt

    def flags(self, a: Attempt) -> frozenset[str]:
        """:func:`attempt_flags` of ``a``, computed once per attempt of the graph."""
        if not is_indexed(self.kg, a):
            return attempt_flags(a)
        got = self._flags.get(a.id)
        if got is None:
            got = self._flags[a.id] = attempt_flags(a)
        return got

    def comps_key(self, a: Attempt) -> CompsKey:
        """:meth:`StatusCache.key` of ``a``'s components (stack, base chain, overrides)."""
        if not is_indexed(self.kg, a):
            return StatusCache.key(self.kg.attempt_components(a))
        got = self._keys.get(a.id)
        if got is None:
            got = self._keys[a.id] = StatusCache.key(self.kg.attempt_components(a))
        return got

    def statuses(self, a: Attempt, campaign: str | None) -> Mapping[str, BlockerStatus]:
        """Blocker statuses under ``a``'s components on the platform it ran on (the one it names,
        else that of ``campaign``: :func:`~kb.queries.resolution.attempt_platform`; shared: read
        only), each computed when first read (:meth:`StatusCache.lazy_on`)."""
        key = (a.id, campaign)
        got = self._statuses.get(key) if is_indexed(self.kg, a) else None
        if got is None:
            got = self.cache.lazy_on(self.comps_key(a), self.kg.attempt_components(a),
                                     attempt_platform(self.kg, a, campaign))
            if is_indexed(self.kg, a):
                self._statuses[key] = got
        return got

    # ------------------------------------------------------------------ retries

    def _platform_campaign(self, a: Attempt) -> str | None:
        return a.campaign if isinstance(self.kg.get(a.campaign), Campaign) else None

    def stood(self, earlier: Attempt) -> list[str]:
        """``earlier``'s blockers that stand (or are only disabled) on its own stack."""
        own = self.statuses(earlier, self._platform_campaign(earlier))
        return [b for b in earlier.blocked_by if b in own and own[b].state in _STANDING]

    def is_retry(self, later: Attempt, earlier: Attempt) -> bool:
        """The definition of :func:`kb.queries.credit.is_retry`, on this index's flags and statuses."""
        if later.id == earlier.id:
            return False
        if later.retry_of == earlier.id:
            return True
        if (later.campaign != earlier.campaign or (later.date, later.id) <= (earlier.date, earlier.id)
                or not earlier.blocked_by):
            return False
        flags = self.flags(earlier)
        if not (later.baseline == earlier.id or (flags and flags <= self.flags(later))):
            return False
        stood = self.stood(earlier)
        if not stood:
            return False
        there = self.statuses(later, self._platform_campaign(earlier))
        return all(there[b].state in _GONE for b in stood)

    @cached_property
    def _naming(self) -> tuple[dict[str, list[Attempt]], dict[str, list[Attempt]]]:
        """``(by retry_of, by baseline)``: attempt id → the attempts naming it there (sorted by id)."""
        by_retry_of: dict[str, list[Attempt]] = {}
        by_baseline: dict[str, list[Attempt]] = {}
        for a in self.kg.of_kind(Attempt):
            if a.retry_of:
                by_retry_of.setdefault(a.retry_of, []).append(a)
            if a.baseline:
                by_baseline.setdefault(a.baseline, []).append(a)
        return by_retry_of, by_baseline

    def _postings(self, campaign: str) -> dict[str, set[str]]:
        """Flag item → ids of ``campaign``'s attempts running with it (once per campaign)."""
        def build() -> dict[str, set[str]]:
            out: defaultdict[str, set[str]] = defaultdict(set)
            known = self._flags
            for a in self.kg.attempts_of(campaign):  # the graph's own attempts: no is_indexed test
                aid = a.id
                flags = known.get(aid)
                if flags is None:
                    flags = known[aid] = attempt_flags(a)
                for item in flags:
                    out[item].add(aid)
            return dict(out)
        return self.memo(("postings", campaign), build)

    def _candidates(self, e: Attempt) -> dict[str, Attempt]:
        """Every attempt that may re-run ``e`` (a superset of the answer, by id): those naming it
        in ``retry_of`` or ``baseline``, and those of its campaign carrying every flag of it."""
        by_retry_of, by_baseline = self._naming
        out = {x.id: x for x in by_retry_of.get(e.id, ())}
        if not e.blocked_by:
            return out
        out.update((x.id, x) for x in by_baseline.get(e.id, ()))
        flags = self.flags(e)
        if flags:
            postings = self._postings(e.campaign)
            lists = sorted((postings.get(f, set()) for f in flags), key=len)
            common = set(lists[0])
            for other in lists[1:]:
                if not common:
                    break
                common &= other
            out.update((x, self.kg.get(x)) for x in common)  # type: ignore[misc]
        return out

    def retries_of(self, earlier: Attempt) -> list[Attempt]:
        """The attempts that re-run ``earlier`` (an attempt of the graph), by date then id (a new
        list): tested among its candidates only, once per attempt."""
        return list(self._retries_one(earlier))

    def _retries_one(self, e: Attempt) -> list[Attempt]:
        return self.memo(("retries_of", e.id), lambda: _by_date(
            x for x in self._candidates(e).values() if self.is_retry(x, e)))

    def retried_by(self, later: Attempt) -> list[Attempt]:
        """The earlier attempts ``later`` (an attempt of the graph) re-runs, by date then id (a new list)."""
        if self._lazy_left <= 0 or "retries" in self.__dict__:
            return list(self.retried.get(later.id, ()))
        self._lazy_left -= 1

        def scan() -> list[Attempt]:
            cands = {x.id: x for x in (self.kg.get(later.retry_of or ""), self.kg.get(later.baseline or ""))
                     if isinstance(x, Attempt)}
            mine, flags = (later.date, later.id), self.flags(later)
            cands.update((e.id, e) for e in self.kg.attempts_of(later.campaign)
                         if e.blocked_by and (e.date, e.id) < mine and self.flags(e) <= flags)
            return _by_date(e for e in cands.values() if self.is_retry(later, e))
        return list(self.memo(("retried_by", later.id), scan))

    @cached_property
    def retries(self) -> dict[str, list[Attempt]]:
        """Attempt id → the attempts that re-run it (:func:`kb.queries.credit.is_retry`), by
        date then id; attempts nothing re-runs are left out. The whole relation: built (for
        :meth:`retried_by`) once a caller has asked about more than :data:`LAZY_QUESTIONS`
        attempts one by one."""
        out: dict[str, list[Attempt]] = {}
        with gc_paused():
            for e in self.kg.of_kind(Attempt):
                found = self._retries_one(e)
                if found:
                    out[e.id] = found
        return out

    @cached_property
    def retried(self) -> dict[str, list[Attempt]]:
        """Attempt id → the earlier attempts it re-runs, by date then id (the inverse of :attr:`retries`)."""
        out: dict[str, list[Attempt]] = {}
        for eid, laters in self.retries.items():
            e = self.kg.get(eid)
            for later in laters:
                out.setdefault(later.id, []).append(e)  # type: ignore[arg-type]
        for lst in out.values():
            lst.sort(key=lambda x: (x.date, x.id))
        return out

    # ------------------------------------------------------------------ other tables

    @cached_property
    def citing(self) -> dict[str, list[Decision]]:
        """Attempt id → the decisions citing it as evidence in any option (sorted by decision id)."""
        out: dict[str, list[Decision]] = {}
        for d in self.kg.of_kind(Decision):
            for aid in d.evidence:
                out.setdefault(aid, []).append(d)
        return out

    @cached_property
    def resolving(self) -> dict[str, list[Decision]]:
        """Blocker id → the decisions naming it in ``resolves``, any status (sorted by decision id)."""
        out: dict[str, list[Decision]] = {}
        for d in self.kg.of_kind(Decision):
            for bid in dict.fromkeys(d.resolves):
                out.setdefault(bid, []).append(d)
        return out

    @cached_property
    def groups(self) -> list[tuple[dict[str, Component], list[Attempt]]]:
        """The attempts grouped by equal components: ``[(components, attempts sorted by id)]``."""
        by: dict[CompsKey, tuple[dict[str, Component], list[Attempt]]] = {}
        for a in self.kg.of_kind(Attempt):
            key = self.comps_key(a)
            if key not in by:
                by[key] = (self.kg.attempt_components(a), [])
            by[key][1].append(a)
        return list(by.values())

    @cached_property
    def signatures(self) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """Every blocker signature once: ``(literals, patterns)``, each ``[(signature, blocker id)]``;
        literals with runs of whitespace collapsed, patterns as written (``/.../``)."""
        literals: list[tuple[str, str]] = []
        patterns: list[tuple[str, str]] = []
        for b in self.kg.of_kind(Blocker):
            for s in b.signatures:
                if len(s) > 2 and s.startswith("/") and s.endswith("/"):
                    patterns.append((s, b.id))
                else:
                    literals.append((" ".join(s.split()), b.id))
        return literals, patterns

    def memo(self, key: Any, compute: Any) -> Any:
        """``compute()`` once per graph under ``key`` (results of queries asked again and again),
        kept by :meth:`kb.graph.KnowledgeGraph.memo` under ``("index", key)``."""
        return self.kg.memo(("index", key), compute)
