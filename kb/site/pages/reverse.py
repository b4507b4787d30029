"""Reverse links, computed once per render: who cites, lists or groups each record.

Page builders ask this index instead of scanning every record for every page (such scans made a
10,000-attempt build quadratic: each attempt page looked through all decisions for the ones
citing it, each stack page through all attempts). Building it is one pass over the records plus
one cause closure per distinct ``blocked_by`` entry: O(records + attempts × cause depth).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision, Platform, Record, Stack


def by_date(attempts: list[Attempt]) -> list[Attempt]:
    """Oldest first: by date, then id (the order of :meth:`KnowledgeGraph.attempts_of`)."""
    return sorted(attempts, key=lambda a: (a.date, a.id))


def newest_first(attempts: list[Attempt]) -> list[Attempt]:
    """Newest first: by date, then id, both descending (the order of every paginated list)."""
    return sorted(attempts, key=lambda a: (a.date, a.id), reverse=True)


@dataclass
class ReverseLinks:
    """Lists keyed by record id, each in a stated order.

    ``kinds``: model class → its records sorted by id. ``attempts_of``: campaign, stack or
    platform id → the attempts naming it, oldest first (:func:`by_date`). ``blocked_direct``:
    blocker id → attempts naming it in ``blocked_by``, sorted by id; ``blocked_all``: blocker id →
    attempts blocked by it or by any blocker it causes (transitively), sorted by id.
    ``decisions_of``: campaign id (``None``: decisions of no campaign) → its decisions;
    ``citing``: attempt id → decisions citing it as evidence; ``resolved_by``: blocker id →
    decisions resolving it (any status); ``superseded_by``: decision id → decisions superseding it;
    ``derived``: stack id → stacks based on it; ``children``: blocker id → ids of the blockers it
    causes (sorted); ``tagged``: tag → records carrying it, sorted by kind, then id. Decision and
    stack lists are sorted by id. A record nothing points at has no key: use ``.get(id, [])``.
    """

    kinds: dict[type, list] = field(default_factory=dict)
    attempts_of: dict[str, list[Attempt]] = field(default_factory=dict)
    blocked_direct: dict[str, list[Attempt]] = field(default_factory=dict)
    blocked_all: dict[str, list[Attempt]] = field(default_factory=dict)
    decisions_of: dict[str | None, list[Decision]] = field(default_factory=dict)
    citing: dict[str, list[Decision]] = field(default_factory=dict)
    resolved_by: dict[str, list[Decision]] = field(default_factory=dict)
    superseded_by: dict[str, list[Decision]] = field(default_factory=dict)
    derived: dict[str, list[Stack]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    tagged: dict[str, list[Record]] = field(default_factory=dict)

    def of_kind(self, cls: type) -> list:
        """Records of one model class, sorted by id (computed once)."""
        return self.kinds.get(cls, [])

    def descendants(self, blocker_id: str) -> set[str]:
        """Every blocker ``blocker_id`` causes, directly or through others (not itself)."""
        out: set[str] = set()
        todo = [blocker_id]
        while todo:
            for child in self.children.get(todo.pop(), []):
                if child not in out:
                    out.add(child)
                    todo.append(child)
        out.discard(blocker_id)
        return out


def reverse_links(kg: KnowledgeGraph) -> ReverseLinks:
    """Build the :class:`ReverseLinks` of ``kg`` in one pass over its records."""
    rl = ReverseLinks()
    for cls in (Attempt, Blocker, Campaign, Decision, Platform, Stack):
        rl.kinds[cls] = []
    for rid in sorted(kg.records.records):
        r = kg.records.records[rid]
        rl.kinds.setdefault(type(r), []).append(r)
        for t in r.tags:
            rl.tagged.setdefault(t, []).append(r)
    for items in rl.tagged.values():
        items.sort(key=lambda r: (r.kind, r.id))
    closure: dict[str, frozenset[str]] = {}
    for a in rl.of_kind(Attempt):  # by id, so every list below is by id too
        for key in {a.campaign, a.stack, a.platform}:
            if key:
                rl.attempts_of.setdefault(key, []).append(a)
        seen: set[str] = set()
        for b in a.blocked_by:
            rl.blocked_direct.setdefault(b, []).append(a)
            if b not in closure:
                closure[b] = frozenset(kg.causes_closure([b]))
            seen |= closure[b]
        for b in sorted(seen):
            rl.blocked_all.setdefault(b, []).append(a)
    for key, lst in rl.attempts_of.items():
        rl.attempts_of[key] = by_date(lst)
    for d in rl.of_kind(Decision):
        rl.decisions_of.setdefault(d.campaign, []).append(d)
        for aid in dict.fromkeys(d.evidence):
            rl.citing.setdefault(aid, []).append(d)
        for b in d.resolves:
            rl.resolved_by.setdefault(b, []).append(d)
        for x in d.supersedes:
            rl.superseded_by.setdefault(x, []).append(d)
    for s in rl.of_kind(Stack):
        if s.base:
            rl.derived.setdefault(s.base, []).append(s)
    for b in rl.of_kind(Blocker):
        for p in dict.fromkeys(b.caused_by):
            rl.children.setdefault(p, []).append(b.id)
    return rl
