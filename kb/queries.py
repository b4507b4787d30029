"""Queries over the knowledge graph: pure functions, results as dataclasses (``to_dict`` for JSON).

* :func:`roots` — root causes ranked by the attempts they block, directly or through the
  blockers they cause.
* :func:`why` — the chain from an attempt to its root causes, with fixes and workarounds.
* :func:`unblocks` — what a stack change resolves, what becomes worth retrying, what stays.
* :func:`match_signatures` — known blockers whose error signatures occur in an error text.

Semantics (DESIGN.md, "The graph"): a blocker is *resolved* under a stack when one of its
``fixed_by`` alternatives holds entirely, or when it has no fix of its own, is caused by at
least one blocker, and every blocker it is caused by is resolved. A root cause with no fix is
never resolved by a version change. A blocker whose ``applies_when`` does not hold does not
stand at all.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from packaging.version import InvalidVersion, Version

from kb.errors import QueryError, UsageError
from kb.errortext import error_headline
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Component, Platform, Stack
from kb.versions import canonical_component, parse_version, satisfies

# --------------------------------------------------------------------------- roots


@dataclass
class RootCause:
    """A root cause and what it blocks. ``attempts``: reviewed attempt ids blocked directly or
    through caused blockers (sorted); ``drafts``: the same for attempts still in draft (imported,
    not reviewed), counted apart so unreviewed imports do not skew the ranking;
    ``blockers``: the blockers it causes, transitively (sorted)."""

    id: str
    title: str
    attempts: list[str]
    blockers: list[str]
    fixed_by: list[dict[str, str]]
    workaround: str | None
    drafts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


def roots(kg: KnowledgeGraph) -> list[RootCause]:
    """Root causes (blockers without ``caused_by``) ranked by the number of reviewed attempts
    they block, then by draft attempts, then by the number of blockers they cause, then by id.
    Roots blocking nothing are included last, so every root cause appears."""
    blocked: dict[str, set[str]] = {}
    drafts: dict[str, set[str]] = {}
    for a in kg.of_kind(Attempt):
        target = drafts if a.status == "draft" else blocked
        for b in kg.causes_closure(a.blocked_by):
            target.setdefault(b, set()).add(a.id)
    out = []
    for b in kg.of_kind(Blocker):
        if not b.is_root:
            continue
        caused = _caused_blockers(kg, b.id)
        out.append(RootCause(b.id, b.title, sorted(blocked.get(b.id, set())), sorted(caused),
                             [dict(alt) for alt in b.fixed_by], b.workaround, sorted(drafts.get(b.id, set()))))
    out.sort(key=lambda r: (-len(r.attempts), -len(r.drafts), -len(r.blockers), r.id))
    return out


def _caused_blockers(kg: KnowledgeGraph, root_id: str) -> set[str]:
    seen: set[str] = set()
    todo = [root_id]
    while todo:
        cur = todo.pop()
        for child in kg.into(cur, "caused_by"):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


# --------------------------------------------------------------------------- resolution


@dataclass
class BlockerStatus:
    """A blocker under a given stack. ``state``: ``resolved`` / ``stands`` / ``not_applicable``.

    ``by``: how it is resolved (``"cuda>=13.0"`` or ``"its causes are resolved"``); ``missing``:
    for a standing blocker, the smallest set of unmet requirements (``["flashinfer>=0.6.17"]``),
    or the standing causes (``["cause sm120-... (needs cuda>=13.0)"]``); ``notes``: pre-release
    and unknown-version remarks that decided an answer.
    """

    id: str
    state: str
    by: str = ""
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _component_version(comps: dict[str, Component], name: str) -> str | None:
    c = comps.get(name)
    return c.version if c else None


def _applies(blocker: Blocker, comps: dict[str, Component], platform: Platform | None) -> bool:
    aw = blocker.applies_when
    if aw.compute_capability and platform is not None:
        if not satisfies(platform.compute_capability, aw.compute_capability).ok:
            return False
    if aw.interconnect and platform is not None:
        if aw.interconnect.lower() not in (platform.interconnect or "").lower():
            return False
    for name, spec in aw.components.items():
        v = _component_version(comps, name)
        if v is not None and not satisfies(v, spec).ok:
            return False
    return True


def resolve_blockers(kg: KnowledgeGraph, comps: dict[str, Component],
                     platform: Platform | None = None) -> dict[str, BlockerStatus]:
    """The :class:`BlockerStatus` of every blocker under components ``comps`` on ``platform``.

    Independent of record order (a fixed point over the ``caused_by`` DAG, visited in sorted
    order). A ``caused_by`` cycle is refused earlier by ``kb check``.
    """
    memo: dict[str, BlockerStatus] = {}

    def visit(bid: str, trail: tuple[str, ...]) -> BlockerStatus:
        if bid in memo:
            return memo[bid]
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        if bid in trail:  # defensive: cycles are rejected by check_references
            return BlockerStatus(bid, "stands", missing=["cycle in caused_by"])
        if not _applies(b, comps, platform):
            st = BlockerStatus(bid, "not_applicable")
        elif b.fixed_by:
            best: list[str] | None = None
            notes: list[str] = []
            st = None
            for alt in b.fixed_by:
                unmet = []
                for name, spec in alt.items():
                    verdict = satisfies(_component_version(comps, name), spec)
                    if verdict.note and verdict.note != "version unknown":
                        notes.append(f"{name}: {verdict.note}")
                    if not verdict.ok:
                        unmet.append(f"{name}{spec}")
                if not unmet:
                    st = BlockerStatus(bid, "resolved", by=", ".join(f"{n}{s}" for n, s in alt.items()), notes=notes)
                    break
                if best is None or len(unmet) < len(best):
                    best = unmet
            if st is None:
                st = BlockerStatus(bid, "stands", missing=best or [], notes=notes)
        elif b.caused_by:
            parents = [visit(p, trail + (bid,)) for p in sorted(b.caused_by)]
            standing = [p for p in parents if p.state == "stands"]
            notes = [n for p in parents for n in p.notes]
            if standing:
                miss = [f"cause {p.id}" + (f" (needs {', '.join(p.missing)})" if p.missing else " (no known fix)")
                        for p in standing]
                st = BlockerStatus(bid, "stands", missing=miss, notes=notes)
            else:
                st = BlockerStatus(bid, "resolved", by="its causes are resolved", notes=notes)
        else:
            st = BlockerStatus(bid, "stands", missing=[])
        memo[bid] = st
        return st

    for b in kg.of_kind(Blocker):
        visit(b.id, ())
    return memo


# --------------------------------------------------------------------------- unblocks


@dataclass
class RetryCandidate:
    """An attempt worth retrying: every blocker it names is resolved under the new stack."""

    id: str
    title: str
    outcome: str
    last_metric: str | None
    resolved_blockers: list[str]


@dataclass
class StillBlocked:
    """A blocker that stands after the change, with what is still missing, or no known fix."""

    id: str
    title: str
    missing: list[str]
    workaround: str | None
    attempts: list[str]


@dataclass
class UnblocksResult:
    """Answer of :func:`unblocks`. Versions in ``from_components``/``to_components`` are the
    full stacks compared; ``change`` is what differs."""

    change: dict[str, str]
    from_stack: str | None
    from_components: dict[str, str]
    to_components: dict[str, str]
    resolved: list[dict[str, Any]]
    retry: list[RetryCandidate]
    still_blocked: list[StillBlocked]
    notes: list[str]

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


def parse_change(items: list[str]) -> dict[str, str]:
    """Parse ``["cuda=13.0", "flashinfer=0.6.17"]`` into ``{component: version}``.

    Raises :class:`kb.errors.UsageError` for an item without ``=``, a version that is not PEP 440,
    or a component given twice.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, version = item.partition("=")
        if not sep or not name.strip() or not version.strip():
            raise UsageError(f"'{item}' is not a change; write component=version, e.g. cuda=13.0")
        try:
            parse_version(version.strip())
        except ValueError as exc:
            raise UsageError(f"'{item}': {exc}") from None
        comp = canonical_component(name)
        if comp in out:
            raise UsageError(f"'{item}': {comp} is given twice ({comp}={out[comp]} too); give each component once")
        out[comp] = version.strip()
    return out


def default_from_stack(kg: KnowledgeGraph, campaign: str | None = None) -> str | None:
    """The stack of the latest attempt (of ``campaign`` if given) that names one."""
    attempts = [a for a in kg.of_kind(Attempt) if a.stack and (campaign is None or a.campaign == campaign)]
    if not attempts:
        return None
    return max(attempts, key=lambda a: (a.date, a.id)).stack


def _platform_for(kg: KnowledgeGraph, campaign: str | None) -> Platform | None:
    """The platform whose ``applies_when`` facts count: the campaign's; without a campaign, the
    only platform campaigns name, else the platform of the latest attempt (the same attempt
    :func:`default_from_stack` takes its stack from), else ``None`` (platform rules not checked)."""
    camps = kg.of_kind(Campaign)
    if campaign:
        c = kg.get(campaign)
        if not isinstance(c, Campaign):
            import difflib

            hint = difflib.get_close_matches(campaign, [x.id for x in camps], n=1)
            raise UsageError(f"unknown campaign '{campaign}'" + (f"; did you mean '{hint[0]}'?" if hint else ""))
        camps = [c]
    platforms = {c.platform for c in camps}
    if len(platforms) == 1:
        p = kg.get(platforms.pop())
        return p if isinstance(p, Platform) else None
    attempts = [a for a in kg.of_kind(Attempt) if a.stack]
    if campaign is None and attempts:
        latest = max(attempts, key=lambda a: (a.date, a.id))
        camp = kg.get(latest.campaign)
        pid = latest.platform or (camp.platform if isinstance(camp, Campaign) else None)
        p = kg.get(pid) if pid else None
        return p if isinstance(p, Platform) else None
    return None


def unblocks(kg: KnowledgeGraph, change: dict[str, str] | None = None, *, to_stack: str | None = None,
             from_stack: str | None = None, campaign: str | None = None) -> UnblocksResult:
    """What moving from ``from_stack`` to the changed stack would unblock.

    ``change`` maps component → version applied on top of ``from_stack``; ``to_stack`` names a
    whole target stack instead (``change`` then overrides it further). ``from_stack`` defaults to
    the stack of the latest attempt (of ``campaign``). A blocker counts as unblocked only if it
    stands under the ``from`` stack and is resolved (or stops applying) under the new one.

    Raises :class:`QueryError` for unknown stacks or campaign, or an empty change.
    """
    change = dict(change or {})
    if not change and not to_stack:
        raise UsageError("nothing to change: give component=version (e.g. cuda=13.0) or --to STACK")
    from_stack = from_stack or default_from_stack(kg, campaign)
    for sid in (from_stack, to_stack):
        if sid is not None and not isinstance(kg.get(sid), Stack):
            known = ", ".join(s.id for s in kg.of_kind(Stack)) or "none"
            raise UsageError(f"unknown stack '{sid}' (known stacks: {known})")
    platform = _platform_for(kg, campaign)
    before = kg.stack_components(from_stack) if from_stack else {}
    after = dict(kg.stack_components(to_stack)) if to_stack else dict(before)
    notes = []
    for name, version in change.items():
        old = before.get(name)
        if old is not None and old.version and not _newer(version, old.version):
            where = f"stack {from_stack}" if from_stack else "the stack"
            notes.append(f"{where} already has {name} {old.version}; {name}={version} is not an upgrade "
                         "(pick the starting stack with --from)")
        after[name] = Component(version=version)
    st_before = resolve_blockers(kg, before, platform)
    st_after = resolve_blockers(kg, after, platform)
    resolved, still = [], []
    for b in kg.of_kind(Blocker):
        s0, s1 = st_before[b.id], st_after[b.id]
        if s0.state != "stands":
            continue
        notes.extend(f"{b.id}: {n}" for n in s1.notes)
        if s1.state in ("resolved", "not_applicable"):
            resolved.append({"id": b.id, "title": b.title,
                             "by": s1.by or "no longer applies to this stack",
                             "was_missing": s0.missing})
        else:
            still.append(StillBlocked(b.id, b.title, s1.missing or ["no known fix"], b.workaround,
                                      kg.into(b.id, "blocked_by")))
    retry = []
    resolved_ids = {r["id"] for r in resolved}
    own_status: dict[tuple[tuple[str, str | None], ...], dict[str, BlockerStatus]] = {}
    for a in kg.of_kind(Attempt):
        if not a.blocked_by or not set(a.blocked_by) & resolved_ids:
            continue
        own = kg.attempt_components(a)
        if own:  # an attempt that ran on a stack where its blockers no longer stood is no retry
            key = tuple(sorted((k, c.version) for k, c in own.items()))
            if key not in own_status:
                own_status[key] = resolve_blockers(kg, own, platform)
            if not any(own_status[key][b].state == "stands" for b in a.blocked_by):
                continue
        if all(st_after[b].state != "stands" for b in a.blocked_by):
            retry.append(RetryCandidate(a.id, a.title, a.outcome.value, last_metric(kg, a),
                                        sorted(set(a.blocked_by) & resolved_ids)))
    retry.sort(key=lambda r: r.id)
    return UnblocksResult(
        change=change if not to_stack else {k: c.version or c.source or "" for k, c in after.items()
                                            if before.get(k) != c},
        from_stack=from_stack,
        from_components={k: c.version or "?" for k, c in sorted(before.items())},
        to_components={k: c.version or "?" for k, c in sorted(after.items())},
        resolved=resolved, retry=retry, still_blocked=still, notes=sorted(set(notes)))


def _newer(candidate: str, current: str) -> bool:
    """Whether version ``candidate`` is newer than ``current`` (local tags ignored; an
    unparseable version counts as newer, so no note is raised for it)."""
    try:
        return Version(candidate) > Version(Version(current).public)
    except InvalidVersion:
        return True


def last_metric(kg: KnowledgeGraph, a: Attempt) -> str | None:
    """The figure an attempt is remembered by: its campaign's headline metric
    (``"output_throughput 54.1 tok/s"``), else its first metric, else ``None``."""
    camp = kg.get(a.campaign)
    name = camp.metric.name if isinstance(camp, Campaign) else None
    if name and name in a.metrics:
        return f"{name} {a.metrics[name].display()}"
    if a.metrics:
        k, m = next(iter(a.metrics.items()))
        return f"{k} {m.display()}"
    return None


# --------------------------------------------------------------------------- why


@dataclass
class ChainLink:
    """One blocker on a chain from an attempt to a root cause."""

    id: str
    title: str
    fixed_by: list[dict[str, str]]
    workaround: str | None
    is_root: bool


@dataclass
class WhyResult:
    """Answer of :func:`why`: the attempt, its outcome and error, and every chain
    ``attempt → blocker → … → root cause`` (each a list of :class:`ChainLink`)."""

    attempt: str
    title: str
    outcome: str
    error: str | None
    chains: list[list[ChainLink]]
    matches: list[str]

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


def why(kg: KnowledgeGraph, attempt_id: str) -> WhyResult:
    """Every chain from attempt ``attempt_id`` through ``blocked_by`` and ``caused_by`` to root
    causes, with each blocker's fixes and workaround. ``matches`` lists blockers whose
    signatures occur in the error text but that the attempt does not name yet.

    Raises :class:`QueryError` for an unknown attempt id.
    """
    a = kg.get(attempt_id)
    if not isinstance(a, Attempt):
        import difflib

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
    return WhyResult(a.id, a.title, a.outcome.value, a.error, chains, matches)


def _link(kg: KnowledgeGraph, bid: str) -> ChainLink:
    b = kg.get(bid)
    assert isinstance(b, Blocker)
    return ChainLink(b.id, b.title, [dict(alt) for alt in b.fixed_by], b.workaround, b.is_root)


# --------------------------------------------------------------------------- signatures

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
        try:
            return re.search(signature[1:-1], text) is not None
        except re.error:
            return False
    norm = " ".join(signature.split())
    return norm in " ".join(text.split())


def match_signatures(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """Ids of blockers with a signature found in ``error_text`` (sorted).

    A signature is a literal substring, compared with runs of whitespace collapsed; one written
    ``/.../`` is a Python regular expression.
    """
    if not error_text:
        return []
    return sorted(b.id for b in kg.of_kind(Blocker) if any(_signature_matches(s, error_text) for s in b.signatures))
