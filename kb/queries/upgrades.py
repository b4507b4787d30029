"""Upgrade paths: which single-component versions the fixes name, and what moving to each does.

Candidates come from each fix's specifier set through :mod:`packaging` (``Specifier.operator``
and ``.version``), never by cutting text: ``>=0.6.17`` and ``==0.6.17`` give 0.6.17, ``~=2.10``
gives 2.10, ``==13.*`` gives 13.0, ``>0.6.16`` gives 0.6.17 (the next release after it); ``<``,
``<=`` and ``!=`` name no version to move to. A candidate is kept only when it satisfies the whole
set (``>=12.9,!=13.0`` drops 13.0).

>>> candidate_versions(">=0.6.17")
['0.6.17']
>>> candidate_versions("==13.*"), candidate_versions("~=2.10"), candidate_versions(">0.6.16")
(['13.0'], ['2.10'], ['0.6.17'])
>>> candidate_versions(">=12.9,!=12.9"), candidate_versions("!=1.0")
([], [])
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from packaging.specifiers import Specifier
from packaging.version import InvalidVersion, Version

from kb.errors import KbError
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Stack
from kb.queries.index import index
from kb.queries.resolution import StatusCache, platform_of
from kb.queries.unblocks import unblocks
from kb.versions import parse_specifier, satisfies


def _from_specifier(spec: Specifier) -> str | None:
    op, text = spec.operator, spec.version
    if op in ("<", "<=", "!="):
        return None
    if op == "===":
        return text
    if text.endswith(".*"):
        release = Version(text[:-2]).release
        return ".".join(map(str, release + (0,) * (2 - len(release)))) if len(release) < 2 else text[:-2]
    v = Version(text)
    if op == ">":
        release = v.release + (0,) * (3 - len(v.release))
        return ".".join(map(str, release[:-1] + (release[-1] + 1,)))
    return str(v) if op != "~=" else text


def candidate_versions(specifier: str) -> list[str]:
    """Versions a fix's ``specifier`` names to move to, each satisfying the whole set (sorted)."""
    return list(_candidate_versions(specifier))


@lru_cache(maxsize=4096)
def _candidate_versions(specifier: str) -> tuple[str, ...]:
    out = set()
    for spec in parse_specifier(specifier):
        try:
            cand = _from_specifier(spec)
        except InvalidVersion:
            continue
        if cand is not None and satisfies(cand, specifier).ok:
            out.add(cand)
    return tuple(sorted(out, key=Version))


def upgrade_candidates(kg: KnowledgeGraph, stack_id: str, campaign: Campaign | None = None) -> list[tuple[str, str]]:
    """``[(component, version)]`` worth asking about for stack ``stack_id``: the versions named
    by the version fixes of blockers standing on it (on the campaign's platform), for components
    the stack has, newer than what it has. Sorted by component, then version."""
    comps = kg.stack_components(stack_id)
    st = StatusCache(kg).under(comps, platform_of(kg, campaign))
    out: set[tuple[str, str]] = set()
    for b in kg.of_kind(Blocker):
        if st[b.id].state not in ("stands", "disabled"):
            continue
        for fix in b.fixed_by:
            if not fix.is_version_fix:
                continue
            for name, spec in fix.requires.items():
                cur = comps.get(name)
                if cur is None:
                    continue
                for version in candidate_versions(spec):
                    if cur.version and satisfies(cur.version, spec).ok:
                        continue
                    if cur.version and not _newer(version, cur.version):
                        continue
                    out.add((name, version))
    return sorted(out, key=lambda x: (x[0], Version(x[1])))


def _newer(candidate: str, current: str) -> bool:
    try:
        return Version(candidate) > Version(Version(current).public)
    except InvalidVersion:
        return True


@dataclass
class UpgradeRow:
    """One candidate change from a stack and what it does (blocker and attempt ids, and the
    disputes of what it resolves)."""

    change: str
    current: str | None
    resolved: list[str]
    disabled: list[str]
    introduced: list[str]
    retry: list[str]
    still: int
    disputed: list[dict[str, Any]] = field(default_factory=list)
    """Resolved blockers whose catalog record of the same failure still stands after the change
    (:class:`kb.queries.counterparts.Dispute` as dicts): the claim and its dispute travel together."""


@dataclass
class UpgradePaths:
    """The upgrade paths from one stack: how many blockers stand on it, the campaign reasoned for
    (its platform), and a row per candidate."""

    stack: str
    campaign: str | None
    standing: int
    rows: list[UpgradeRow] = field(default_factory=list)
    note: str = ""
    standing_ids: list[str] = field(default_factory=list)
    """The ids of the blockers that stand on the stack (``standing`` counts them)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return asdict(self)


def _campaign_for(kg: KnowledgeGraph, stack_id: str) -> Campaign | None:
    """The first campaign (by id) whose own stack or one of whose attempts' is ``stack_id``, else
    the first campaign, else ``None``."""
    def build() -> dict[str, set[str]]:
        users: dict[str, set[str]] = {}
        for a in kg.of_kind(Attempt):
            if a.stack:
                users.setdefault(a.stack, set()).add(a.campaign)
        return users
    attempt_users = index(kg).memo("upgrades.stack_users", build).get(stack_id, set())
    camps = kg.of_kind(Campaign)
    users = [c for c in camps if c.stack == stack_id or c.id in attempt_users]
    pick = users or camps
    return pick[0] if pick else None


def upgrade_paths(kg: KnowledgeGraph, stacks: list[str] | None = None) -> list[UpgradePaths]:
    """For each stack (by id; only those named in ``stacks`` when given) and each of its
    :func:`upgrade_candidates`: what moving to it resolves, only disables, introduces, makes worth
    retrying, and how many blockers still stand. Each stack is reasoned for the first campaign
    that uses it (else the first campaign).

    Each stack's paths are computed once per graph (a deep copy each call). One stack costs a
    :func:`kb.queries.unblocks` per candidate, each linear in the attempts its resolved blockers
    blocked, so a page showing a bounded set of stacks should pass ``stacks``: every stack of a
    campaign that moved through hundreds costs that many times as much."""
    wanted = None if stacks is None else set(stacks)
    ix = index(kg)
    return [copy.deepcopy(ix.memo(("upgrade_paths", s.id), lambda s=s: _paths_of(kg, s)))
            for s in kg.of_kind(Stack) if wanted is None or s.id in wanted]


def _paths_of(kg: KnowledgeGraph, s: Stack) -> UpgradePaths:
    """The :class:`UpgradePaths` of stack ``s``."""
    camp = _campaign_for(kg, s.id)
    comps = kg.stack_components(s.id)
    st = StatusCache(kg).under(comps, platform_of(kg, camp))
    standing = sorted(x.id for x in st.values() if x.state == "stands")
    paths = UpgradePaths(s.id, camp.id if camp else None, len(standing), standing_ids=standing)
    for name, version in upgrade_candidates(kg, s.id, camp):
        try:
            res = unblocks(kg, {name: version}, from_stack=s.id, campaign=camp.id if camp else None)
        except KbError as exc:
            paths.note = str(exc)
            break
        cur = comps.get(name)
        paths.rows.append(UpgradeRow(f"{name}={version}", cur.version if cur else None,
                                     [r["id"] for r in res.resolved], [r["id"] for r in res.disabled],
                                     [r["id"] for r in res.introduced], [r.id for r in res.retry],
                                     len(res.still_blocked) + len(res.other_still_blocked), list(res.disputed)))
    return paths
