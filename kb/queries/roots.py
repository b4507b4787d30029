"""Root causes ranked by what blocks each campaign's current stack, with the historical count beside it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign
from kb.queries.fixes import describe_fix, fix_json
from kb.queries.resolution import current_stack, platform_of, resolve_blockers


@dataclass
class RootCause:
    """A root cause and what it blocks.

    ``attempts``: reviewed attempt ids it blocked, directly or through caused blockers (sorted;
    the historical count); ``current``: those of them whose campaign's current stack (see
    :func:`kb.queries.resolution.current_stack`) still has this root cause standing (or only
    disabled) on the campaign's platform: what blocks the campaign now; ``now``: the root's state
    under each campaign's current stack (``{campaign: "stands"}``); ``drafts``: the historical
    count for attempts still in draft (imported, not reviewed), counted apart so unreviewed imports
    do not skew the ranking; ``blockers``: the blockers it causes, transitively (sorted);
    ``fix``: :func:`kb.queries.fixes.describe_fix` of it.
    """

    id: str
    title: str
    attempts: list[str]
    blockers: list[str]
    fixed_by: list[dict[str, Any]]
    workaround: str | None
    drafts: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    now: dict[str, str] = field(default_factory=dict)
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


def roots(kg: KnowledgeGraph, campaign: str | None = None, limit: int | None = None) -> list[RootCause]:
    """Root causes (blockers without ``caused_by``) ranked by the attempts they block on their
    campaign's current stack (``current``), then by every reviewed attempt they ever blocked
    (``attempts``), then by draft attempts, then by the number of blockers they cause, then by id.
    ``campaign`` restricts both counts to one campaign. Roots blocking nothing are included last,
    so every root cause appears; ``limit``: only the first ``limit`` of the ranking (the same as
    slicing the whole of it; only those are written out)."""
    blocked: dict[str, set[str]] = {}
    drafts: dict[str, set[str]] = {}
    current: dict[str, set[str]] = {}
    camps = [c for c in kg.of_kind(Campaign) if campaign is None or c.id == campaign]
    now_by_camp = {}
    for c in camps:
        sid = current_stack(kg, c)
        now_by_camp[c.id] = kg.memo(("roots.now", c.id), lambda c=c, sid=sid: resolve_blockers(  # type: ignore[misc]
            kg, kg.stack_components(sid) if sid else {}, platform_of(kg, c)))
    standing = {cid: {b for b, st in now.items() if st.state in ("stands", "disabled")}
                for cid, now in now_by_camp.items()}
    closures: dict[tuple[str, ...], set[str]] = {}  # once per distinct blocked_by, not per attempt
    for a in kg.of_kind(Attempt):
        if not a.blocked_by or (campaign is not None and a.campaign != campaign):
            continue
        key = tuple(a.blocked_by)
        closure = closures.get(key)
        if closure is None:
            closure = closures[key] = kg.causes_closure(a.blocked_by)
        draft = a.status == "draft"
        target = drafts if draft else blocked
        for b in closure:
            target.setdefault(b, set()).add(a.id)
        stand = None if draft else standing.get(a.campaign)
        if stand:
            for b in closure & stand:
                current.setdefault(b, set()).add(a.id)
    empty: set[str] = set()
    ranked = []  # ranked on the counts first: only the roots shown get their lists sorted and their fix phrased
    for b in kg.of_kind(Blocker):
        if b.is_root:
            caused = _caused_blockers(kg, b.id)
            ranked.append(((-len(current.get(b.id, empty)), -len(blocked.get(b.id, empty)),
                            -len(drafts.get(b.id, empty)), -len(caused), b.id), b, caused))
    ranked.sort(key=lambda x: x[0])
    return [RootCause(b.id, b.title, sorted(blocked.get(b.id, empty)), sorted(caused),
                      [fix_json(f) for f in b.fixed_by], b.workaround,
                      sorted(drafts.get(b.id, empty)), sorted(current.get(b.id, empty)),
                      {cid: st[b.id].state for cid, st in now_by_camp.items()}, describe_fix(b, kg))
            for _key, b, caused in ranked[:limit]]


def _caused_blockers(kg: KnowledgeGraph, root_id: str) -> set[str]:
    """Every blocker ``root_id`` causes, transitively (itself left out unless on a cycle)."""
    seen: set[str] = set()
    todo = [root_id]
    while todo:
        cur = todo.pop()
        for child in kg.into(cur, "caused_by"):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@dataclass
class CatalogRoot:
    """A root cause of a catalog and the catalog blockers it explains (transitively), sorted."""

    id: str
    title: str
    catalog: str
    explains: list[str]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return asdict(self)


def catalog_roots(kg: KnowledgeGraph, catalog: str | None = None) -> list[CatalogRoot]:
    """The root causes read from catalogs (``catalog``: only that one), ranked by the number of
    catalog blockers each explains, directly or through the blockers it causes, then by id."""
    of = kg.records.catalog_of
    out = []
    for b in kg.of_kind(Blocker):
        name = of.get(b.id)
        if not name or not b.is_root or (catalog is not None and name != catalog):
            continue
        explains = sorted(x for x in _caused_blockers(kg, b.id) if x in of)
        out.append(CatalogRoot(b.id, b.title, name, explains))
    out.sort(key=lambda r: (-len(r.explains), r.id))
    return out
