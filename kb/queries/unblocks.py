"""What a stack change does: resolves, only disables, introduces; which retries it makes worth
making, which were made already; what still stands (DESIGN.md, "What the model must be able to say")."""

from __future__ import annotations

import difflib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from packaging.version import InvalidVersion, Version

from kb.errors import UsageError
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Component, Decision, Platform, Stack
from kb.queries.index import index
from kb.queries.resolution import (
    BlockerStatus,
    StatusCache,
    blocker_component,
    concerned_components,
    current_stack,
    flag_names,
    run_condition_reason,
)
from kb.versions import KNOWN_COMPONENTS, canonical_component, parse_version

_OPERATOR = re.compile(r"[<>=!~]")


def parse_change(items: list[str]) -> dict[str, str]:
    """Parse ``["cuda=13.0", "flashinfer=0.6.17"]`` into ``{component: version}``.

    A change names the version to move to, not a range: ``cuda>=13.0`` or ``cuda==13.0`` is
    refused with "write cuda=13.0". Raises :class:`kb.errors.UsageError` for an item without
    ``=``, a specifier in place of a version, a version that is not PEP 440, or a component given twice.
    """
    out: dict[str, str] = {}
    for item in items:
        m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*([<>=!~]+)\s*(.*?)\s*$", item)
        if m and m.group(2) != "=":
            version = m.group(3).lstrip("=<>!~ ")
            raise UsageError(f"'{item}' is a specifier; a change names the version to move to: "
                             f"write {m.group(1)}={version or '13.0'}")
        name, sep, version = item.partition("=")
        if not sep or not name.strip() or not version.strip():
            raise UsageError(f"'{item}' is not a change; write component=version, e.g. cuda=13.0")
        if _OPERATOR.search(name):
            raise UsageError(f"'{item}' is a specifier; write {_OPERATOR.split(name)[0].strip()}={version.strip()}")
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
    """The stack to start from: the current stack of ``campaign`` (or of the only campaign, see
    :func:`kb.queries.resolution.current_stack`), else the stack of the latest attempt naming one."""
    camps = kg.of_kind(Campaign)
    camp = kg.get(campaign) if campaign else (camps[0] if len(camps) == 1 else None)
    if isinstance(camp, Campaign):
        return current_stack(kg, camp)
    attempts = [a for a in kg.of_kind(Attempt) if a.stack]
    return max(attempts, key=lambda a: (a.date, a.id)).stack if attempts else None


def scope(kg: KnowledgeGraph, campaign: str | None) -> tuple[Campaign | None, Platform | None]:
    """The campaign and platform a query reasons from: the one given, else the only campaign;
    with several campaigns on one platform, that platform and no campaign.

    Raises :class:`UsageError` for an unknown campaign, or when campaigns on different platforms
    leave the platform open (blockers depend on it): pass ``--campaign``."""
    camps = kg.of_kind(Campaign)
    if campaign:
        c = kg.get(campaign)
        if not isinstance(c, Campaign):
            hint = difflib.get_close_matches(campaign, [x.id for x in camps], n=1)
            raise UsageError(f"unknown campaign '{campaign}'" + (f"; did you mean '{hint[0]}'?" if hint else ""))
        camps = [c]
    if not camps:
        return None, None
    platforms = {c.platform for c in camps}
    if len(platforms) > 1:
        listed = ", ".join(f"{c.id} (platform {c.platform})" for c in camps)
        raise UsageError(f"the campaigns run on different platforms: {listed}; blockers depend on the platform, "
                         f"so pass --campaign {camps[0].id} (or another)")
    p = kg.get(next(iter(platforms)))
    return (camps[0] if len(camps) == 1 else None), (p if isinstance(p, Platform) else None)


@dataclass
class RetryCandidate:
    """An attempt whose blockers the change resolves. ``would_hit``: blockers the change
    introduces that concern the same components or flags and whose conditions kb can confirm on
    the changed stack (the retry would likely meet them); ``may_hit``: such blockers whose
    conditions kb cannot confirm, or that a success contradicts, each with why it is only "may"
    (:func:`_may_hit`); ``disputed``: catalog blockers of the same failure as a blocker the change
    resolves that still stand (:mod:`kb.queries.counterparts`)."""

    id: str
    title: str
    outcome: str
    last_metric: str | None
    resolved_blockers: list[str]
    would_hit: list[str] = field(default_factory=list)
    may_hit: dict[str, str] = field(default_factory=dict)
    disputed: list[str] = field(default_factory=list)


@dataclass
class DoneRetry:
    """A retry already made: ``of`` was re-run as ``id`` on ``stack``, with its outcome and figure."""

    of: str
    id: str
    date: str
    stack: str | None
    outcome: str
    last_metric: str | None


@dataclass
class StillBlocked:
    """A blocker that stands after the change, with what is still missing (``[]``: no known fix),
    its workaround and other advice, and the attempts it blocks."""

    id: str
    title: str
    missing: list[str]
    workaround: str | None
    attempts: list[str]
    advice: list[str] = field(default_factory=list)


@dataclass
class UnblocksResult:
    """Answer of :func:`unblocks`.

    ``platform``/``campaign``: what the answer reasoned from; ``from_components``/``to_components``:
    the full stacks compared; ``change``: what differs. ``resolved``: blockers an enabling fix
    resolves (``[{id, title, by, was_missing}]``); ``disabled``: blockers whose crash the change
    turns into a clean refusal, the feature still off (``[{id, title, by, missing}]``);
    ``introduced``: blockers that did not stand before and stand after (``[{id, title, reason,
    missing, advice, doubt}]``; ``doubt``: why kb cannot confirm it would be met, :func:`_may_hit`, or ``""``); ``retry``: attempts worth retrying; ``retry_would_hit``: retries that
    would meet an introduced blocker; ``retried``: retries already made; ``still_blocked``: standing
    blockers that bear on the campaign's attempts (``missing``: ``["no known fix"]`` when none
    is known); ``other_still_blocked``: the standing blockers no attempt of the campaign met.
    ``disputed``: resolved blockers of the campaign's own whose catalog counterpart still stands
    after the change (:class:`kb.queries.counterparts.Dispute` as dicts); the standing
    counterparts of blockers the campaign met count as bearing on it (``still_blocked``).
    ``rebuild``: standing blockers that a build option fixes and that the change makes possible
    (``[{id, title, flag, note, requires, release, pr}]``: ``TORCH_CUDA_ARCH_LIST=12.0`` once
    ``cuda>=12.8`` is there); they stay in ``still_blocked`` until someone rebuilds.
    """

    change: dict[str, str]
    from_stack: str | None
    from_components: dict[str, str]
    to_components: dict[str, str]
    resolved: list[dict[str, Any]]
    retry: list[RetryCandidate]
    still_blocked: list[StillBlocked]
    notes: list[str]
    to_stack: str | None = None
    campaign: str | None = None
    platform: str | None = None
    platform_title: str | None = None
    disabled: list[dict[str, Any]] = field(default_factory=list)
    introduced: list[dict[str, Any]] = field(default_factory=list)
    retry_would_hit: list[RetryCandidate] = field(default_factory=list)
    retried: list[DoneRetry] = field(default_factory=list)
    other_still_blocked: list[StillBlocked] = field(default_factory=list)
    disputed: list[dict[str, Any]] = field(default_factory=list)
    rebuild: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


def mentioned_components(kg: KnowledgeGraph) -> set[str]:
    """Components any stack, attempt, decision or blocker names, plus :data:`KNOWN_COMPONENTS`
    (collected once per graph; a new set each call)."""
    return set(index(kg).memo("mentioned_components", lambda: frozenset(_mentioned(kg))))


def _mentioned(kg: KnowledgeGraph) -> set[str]:
    out = set(KNOWN_COMPONENTS)
    for rec in kg.records.records.values():
        if isinstance(rec, (Stack, Attempt)):
            out.update(rec.components)
        elif isinstance(rec, Blocker):
            out.update(concerned_components(rec))
        elif isinstance(rec, Decision) and rec.stack_change:
            out.update(rec.stack_change.components)
    return out


def _check_names(kg: KnowledgeGraph, change: dict[str, str], notes: list[str]) -> None:
    if all(name in KNOWN_COMPONENTS for name in change):
        return  # every known component is mentioned: no need to collect the others from every record
    mentioned = mentioned_components(kg)
    for name in change:
        if name in mentioned:
            continue
        near = difflib.get_close_matches(name, sorted(mentioned), n=1, cutoff=0.75)
        if near:
            raise UsageError(f"{name} is in no stack or fix; did you mean {near[0]}? (write {near[0]}={change[name]})")
        notes.append(f"{name} is in no stack or fix: the change to it decides nothing here")


def _introduced_reason(b: Blocker, s0: BlockerStatus, before: dict[str, Component], after: dict[str, Component]) -> str:
    if s0.state == "resolved":
        return f"its fix no longer holds ({s0.by} held before)"
    for name, spec in b.applies_when.components.items():
        if name not in before and name in after:
            return f"the change adds {name}, and it applies with {name}{spec}"
        if name in before and before[name] != after.get(name):
            return f"it applies when {name}{spec}, which now holds"
    return "it starts to apply: " + (s0.reason or "its conditions now hold")


def unblocks(kg: KnowledgeGraph, change: dict[str, str] | None = None, *, to_stack: str | None = None,
             from_stack: str | None = None, campaign: str | None = None) -> UnblocksResult:
    """What moving from ``from_stack`` to the changed stack does, under the semantics of
    :mod:`kb.queries.resolution`.

    ``change`` maps component → version applied on top of ``from_stack``; ``to_stack`` names a
    whole target stack instead (``change`` then overrides it further). ``from_stack`` defaults to
    the campaign's current stack. A blocker is *resolved* if it stood (or was only disabled) before
    and is resolved or no longer applies after, *disabled* if it stood and only a disabling fix
    holds after, *introduced* if it did not stand before and stands after; so no blocker is both
    resolved and introduced.

    Raises :class:`UsageError` for unknown stacks or campaign, an empty change, a misspelt
    component, or when the platform is ambiguous.
    """
    change = dict(change or {})
    if not change and not to_stack:
        raise UsageError("nothing to change: give component=version (e.g. cuda=13.0) or --to STACK")
    camp, platform = scope(kg, campaign)
    notes: list[str] = []
    _check_names(kg, change, notes)
    from_stack = from_stack or default_from_stack(kg, camp.id if camp else None)
    for sid in (from_stack, to_stack):
        if sid is not None and not isinstance(kg.get(sid), Stack):
            known = ", ".join(s.id for s in kg.of_kind(Stack)) or "none"
            raise UsageError(f"unknown stack '{sid}' (known stacks: {known})")
    before = kg.stack_components(from_stack) if from_stack else {}
    after = dict(kg.stack_components(to_stack)) if to_stack else dict(before)
    for name, version in change.items():
        old = before.get(name)
        if old is not None and old.version and not _newer(version, old.version):
            where = f"stack {from_stack}" if from_stack else "the stack"
            notes.append(f"{where} already has {name} {old.version}; {name}={version} is not an upgrade "
                         "(pick the starting stack with --from)")
        after[name] = _component(version)
    cache = StatusCache(kg)
    st0 = cache.under(before, platform)
    st1 = cache.under(after, platform)
    in_ids, bearing = _scope_tables(kg, camp.id if camp else None)
    resolved: list[dict[str, Any]] = []
    disabled: list[dict[str, Any]] = []
    introduced: list[dict[str, Any]] = []
    still: list[StillBlocked] = []
    other: list[StillBlocked] = []
    rebuild: list[dict[str, Any]] = []
    for b in kg.of_kind(Blocker):
        s0, s1 = st0[b.id], st1[b.id]
        if s0.state in ("stands", "disabled"):
            notes.extend(f"{b.id}: {n}" for n in s1.notes)
        if s0.state in ("stands", "disabled") and s1.state in ("resolved", "not_applicable"):
            resolved.append({"id": b.id, "title": b.title, "by": s1.by or f"no longer applies ({s1.reason})",
                             "was_missing": list(s0.missing)})
        elif s0.state == "stands" and s1.state == "disabled":
            disabled.append({"id": b.id, "title": b.title, "by": s1.by, "missing": list(s1.missing)})
        elif s0.state != "stands" and s1.state == "stands" and s0.state != "disabled":
            introduced.append({"id": b.id, "title": b.title, "reason": _introduced_reason(b, s0, before, after),
                               "missing": list(s1.missing), "doubt": _may_hit(kg, b.id, set(), after),
                               "advice": list(s1.advice) or ([b.workaround] if b.workaround else [])})
        elif s1.state in ("stands", "disabled") and s0.state in ("stands", "disabled"):
            for f in b.fixed_by:
                if f.kind == "build_option" and f.requires and not f.reverted \
                        and _unmet(f.requires, before) and not _unmet(f.requires, after):
                    rebuild.append({"id": b.id, "title": b.title, "flag": f.flag, "note": f.note,
                                    "requires": dict(f.requires), "release": f.release, "pr": f.pr})
                    break
            now = next((f"a rebuild ({r['flag'] or r['note']}), possible after the change" for r in rebuild
                        if r["id"] == b.id), None)
            entry = StillBlocked(b.id, b.title, list(s1.missing) or ([now] if now else ["no known fix"]), b.workaround,
                                 [a for a in kg.into(b.id, "blocked_by") if a in in_ids], list(s1.advice))
            (still if b.id in bearing else other).append(entry)
    from kb.queries.counterparts import disputes

    disputed = disputes(kg, {r["id"]: r["by"] for r in resolved if r["id"] not in kg.records.catalog_of}, st1)
    retry, would_hit, done = _retries(kg, in_ids, resolved, introduced, st1, after)
    for cand in retry + would_hit:
        cand.disputed = sorted({d.catalog_id for d in disputed if d.own in cand.resolved_blockers})
    return UnblocksResult(
        change=change if not to_stack else {k: c.version or c.source or "" for k, c in after.items()
                                            if before.get(k) != c},
        from_stack=from_stack,
        from_components={k: c.version or "?" for k, c in sorted(before.items())},
        to_components={k: c.version or "?" for k, c in sorted(after.items())},
        resolved=resolved, retry=retry, still_blocked=still, notes=sorted(set(notes)), to_stack=to_stack,
        campaign=camp.id if camp else None, platform=platform.id if platform else None,
        platform_title=platform.title if platform else None, disabled=disabled, introduced=introduced,
        retry_would_hit=would_hit, retried=done, other_still_blocked=other,
        disputed=[d.to_dict() for d in disputed], rebuild=rebuild)


def _unmet(requires: dict[str, str], comps: dict[str, Component]) -> list[str]:
    """The requirements of ``requires`` that components ``comps`` do not meet (a component
    without a version meets none)."""
    from kb.queries.resolution import component_of, satisfies

    out = []
    for name, spec in requires.items():
        c = component_of(comps, name)
        if c is None or not satisfies(c.version, spec).ok:
            out.append(f"{name}{spec}")
    return out


def _scope_tables(kg: KnowledgeGraph, campaign: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """``(attempt ids, bearing blockers)`` of ``campaign`` (every campaign for ``None``): its
    attempts, and the blockers they met, the catalog blockers of the same failures
    (:func:`kb.queries.counterparts.counterparts`), with every cause of those (once per graph and campaign)."""
    from kb.queries.counterparts import counterparts

    def build() -> tuple[frozenset[str], frozenset[str]]:
        scoped = [a for a in kg.of_kind(Attempt) if campaign is None or a.campaign == campaign]
        met = {b for a in scoped for b in a.blocked_by}
        pairs = counterparts(kg)
        met |= {c for b in sorted(met) for c in pairs.get(b, {})}
        return (frozenset(a.id for a in scoped), frozenset(kg.causes_closure(sorted(met))))
    return index(kg).memo(("unblocks.scope", campaign), build)


def _retries(kg: KnowledgeGraph, in_ids: frozenset[str], resolved: list[dict[str, Any]],
             introduced: list[dict[str, Any]], st_after: dict[str, BlockerStatus],
             after: dict[str, Component]) -> tuple[list[RetryCandidate], list[RetryCandidate], list[DoneRetry]]:
    """Retries worth making and made, among the attempts ``in_ids`` that a resolved blocker
    blocked (only those are looked at: found through the ``blocked_by`` edges, not by a scan)."""
    ix = index(kg)
    resolved_ids = {r["id"] for r in resolved}
    new = [(n.id, concerned_components(n), flag_names(n.flags))
           for i in introduced if isinstance(n := kg.get(i["id"]), Blocker)]
    retry: list[RetryCandidate] = []
    would_hit: list[Any] = []
    done: list[DoneRetry] = []
    met = sorted({x for bid in resolved_ids for x in kg.into(bid, "blocked_by") if x in in_ids})
    for aid in met:
        a = kg.get(aid)
        if not isinstance(a, Attempt) or not a.blocked_by or not set(a.blocked_by) & resolved_ids:
            continue
        if kg.attempt_components(a):  # an attempt that ran on a stack where its blockers no longer stood is no retry
            mine = ix.statuses(a, a.campaign)
            if not any(mine[b].state in ("stands", "disabled") for b in a.blocked_by):
                continue
        if not all(st_after[b].state in ("resolved", "not_applicable") for b in a.blocked_by):
            continue
        # a retry counts for this change only where it ran with the blockers gone: one made on a
        # stack where they still stood (the same stack with another flag) is no evidence for it
        made = [r for r in ix.retries_of(a) if not kg.attempt_components(r)
                or all(ix.statuses(r, r.campaign)[b].state in ("resolved", "not_applicable")
                       for b in a.blocked_by if b in resolved_ids)]
        if made:
            done.extend(DoneRetry(a.id, r.id, r.date.isoformat(), r.stack, r.outcome.value, last_metric(kg, r))
                        for r in made)
            continue
        hits = []
        flags = flag_names(ix.flags(a))
        if new:
            touched = ix.memo(("unblocks.touched", tuple(a.blocked_by)), lambda a=a: _touched(kg, a.blocked_by))
            hits = sorted(nid for nid, comps, names in new if comps & touched or names & flags)
        maybe = {nid: why for nid in hits if (why := _may_hit(kg, nid, flags, after))}
        cand = RetryCandidate(a.id, a.title, a.outcome.value, last_metric(kg, a),
                              sorted(set(a.blocked_by) & resolved_ids), [h for h in hits if h not in maybe], maybe)
        (would_hit if cand.would_hit else retry).append(cand)
    return (sorted(retry, key=lambda r: r.id), sorted(would_hit, key=lambda r: r.id),
            sorted(done, key=lambda d: (d.of, d.date, d.id)))


def _may_hit(kg: KnowledgeGraph, bid: str, flags: set[str], after: dict[str, Component]) -> str:
    """Why a retry with flag names ``flags`` on components ``after`` only *may* meet the introduced
    blocker ``bid`` (``""``: kb can confirm it would). In order: a success contradicts it (an
    attempt that improved or set the baseline on a stack where it stands, with one of its flags
    when it has any); it needs a flag the retry does not set; the component it lives in has no
    version on the stack; or its enabling fix is in no known release, so the component may carry it."""
    b = kg.get(bid)
    if not isinstance(b, Blocker):
        return ""
    ix = index(kg)
    own_flags = flag_names(b.flags)
    contradicted = ix.memo(("unblocks.contradicted", bid), lambda: _contradicting_success(kg, bid, own_flags))
    if contradicted:
        return contradicted
    if own_flags and not own_flags & flags:
        return f"only where a run sets {' or '.join(sorted(own_flags))}"
    comp = blocker_component(b)
    if comp and comp in after and not after[comp].version:
        return f"the stack's {comp} has no version ({after[comp].source or 'unknown'}): kb cannot tell whether it applies"
    unknown = [f for f in b.fixed_by if f.kind == "enables" and not f.requires and not f.reverted]
    if unknown:
        return f"its fix ({unknown[0].pr or unknown[0].release or 'upstream'}) is in no known release: {comp or 'the stack'} may carry it"
    return ""


LOADED_BY_EVERY_RUN = frozenset({"cuda", "torch", "torch-cuda", "nvidia-driver", "sglang", "vllm", "tensorrt-llm"})
"""Components every run on a stack that has them loads: the CUDA toolkit and driver, torch, and
the serving engine itself (a stack names one engine)."""

LOADED_WITH = {"sgl-kernel": "sglang"}
"""Components another one loads whenever it runs: SGLang's runtime imports its kernel package
``sgl_kernel`` at start (``sgl-kernel`` is a pinned dependency of the ``sglang`` distribution)."""


def exercised(blocker: Blocker, attempt: Attempt, flags: frozenset[str], comps: dict[str, Component]) -> bool:
    """Whether ``attempt`` (with flag items ``flags``, on components ``comps``) ran what
    ``blocker`` is about, so that its success tells anything of it: one of the blocker's flags
    when it names any; else its component, when every run loads it (:data:`LOADED_BY_EVERY_RUN`,
    :data:`LOADED_WITH`) or the run's flags, env, command, title or approach name it
    (``--attention-backend flashinfer`` exercises a FlashInfer blocker). A blocker with neither
    flags nor component is exercised by no run in particular."""
    own = flag_names(blocker.flags)
    if own:
        return bool(own & flag_names(list(flags)))
    comp = blocker_component(blocker)
    if not comp:
        return False
    if comp in comps and (comp in LOADED_BY_EVERY_RUN or LOADED_WITH.get(comp) in comps):
        return True
    spellings = {comp, comp.replace("-", "_"), comp.replace("-", "")}
    text = " ".join([*flags, attempt.config.command or "", attempt.title, attempt.approach or ""]).lower()
    return any(re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", text) for w in spellings)


def _contradicting_success(kg: KnowledgeGraph, bid: str, own_flags: set[str]) -> str:
    """The latest attempt that improved or set the baseline on a stack where blocker ``bid``
    stands and that exercised it (:func:`exercised`: ran one of its flags, or named its
    component), as a phrase; ``""`` when none. The attempts sharing a stack and its overrides
    are judged once."""
    ix = index(kg)
    b = kg.get(bid)
    if not isinstance(b, Blocker):
        return ""
    seen: set[Any] = set()
    for x in sorted((y for y in kg.of_kind(Attempt) if y.outcome.value in ("improved", "baseline") and y.stack),
                    key=lambda y: (y.date, y.id), reverse=True):
        if not exercised(b, x, ix.flags(x), kg.attempt_components(x)) or run_condition_reason(b, x):
            continue
        key = (ix.comps_key(x), x.campaign)
        if key in seen:
            continue
        seen.add(key)
        if ix.statuses(x, x.campaign)[bid].state == "stands":
            return f"{x.id} came out {x.outcome.value} on stack {x.stack}, where it applies"
    return ""


def _touched(kg: KnowledgeGraph, blocked_by: list[str]) -> frozenset[str]:
    """Every component the blockers ``blocked_by`` and their causes name (:func:`concerned_components`)."""
    return frozenset(set().union(*(concerned_components(b) for bid in kg.causes_closure(blocked_by)
                                   if isinstance(b := kg.get(bid), Blocker))))


def _component(version: str) -> Component:
    """``Component(version=version)``; built without pydantic's validator when ``version`` is a
    PEP 440 version (what the validator checks), since a validator is built on first use (20 ms)."""
    if isinstance(version, str):
        try:
            parse_version(version)
        except ValueError:
            pass
        else:
            return Component.model_construct(version=version)
    return Component(version=version)


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
