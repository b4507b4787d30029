"""What a blocker is under a stack: resolved, only disabled, not applicable, or standing.

Semantics (DESIGN.md, "What the model must be able to say"; issue 11):

* *not applicable* when its ``applies_when`` fails (compute capability, interconnect, a component
  version outside the range, a component named there that the stack lacks) or the component it
  lives in is absent from the stack;
* *resolved* when an ``enables`` fix that is not reverted holds entirely, or, with no version fix
  of its own, when every blocker it is caused by is resolved (or not applicable);
* *disabled* when only a ``disables`` fix holds (the crash is gone, the feature is still off),
  or, with no fix of its own, its causes are resolved or disabled and one is disabled;
* otherwise it *stands*, with what is missing (the smallest unmet ``enables`` requirement) and
  the advice its workarounds, build options and hardware gaps give (never "resolved by upgrade").

Only decisions with status ``accepted`` are taken as resolving anything elsewhere; versions decide here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Component, Fix, Platform
from kb.queries.fixes import fix_phrase, has_own_fix, requirement_text
from kb.versions import BUNDLED_IN, Verdict
from kb.versions import satisfies as _satisfies


@lru_cache(maxsize=1 << 16)
def satisfies(version: str | None, spec: str) -> Verdict:
    """:func:`kb.versions.satisfies`, remembered per ``(version, spec)`` (a pure function of
    two strings; each status asks it for every fix of every blocker)."""
    return _satisfies(version, spec)

STATES = ("resolved", "disabled", "stands", "not_applicable")


@dataclass
class BlockerStatus:
    """A blocker under a given stack. ``state``: one of :data:`STATES`.

    ``by``: how it is resolved or disabled (``"cuda>=13.0"``, ``"its causes are resolved"``, or
    ``"its causes do not apply here"`` when none of them applies under the stack and platform);
    ``missing``: for a standing (or only disabled) blocker, the smallest set of unmet requirements
    of an enabling fix (``["flashinfer>=0.6.17"]``) or the standing causes
    (``["cause sm120-... (needs cuda>=13.0)"]``); ``reason``: why it does not apply
    (``"the stack has no bitsandbytes"``); ``advice``: workarounds, build options and
    hardware-gap advice; ``notes``: pre-release and unknown-version remarks that decided an answer.
    """

    id: str
    state: str
    by: str = ""
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reason: str = ""
    advice: list[str] = field(default_factory=list)
    fix: int | None = None
    """Index in ``fixed_by`` of the fix that holds (resolved or disabled by a fix of its own)."""


def blocker_component(blocker: Blocker) -> str | None:
    """The component ``blocker`` lives in: its ``component``, else the one component that every
    version fix of its own names and nothing else (``{bitsandbytes: ">=0.45.3"}`` → bitsandbytes),
    for a root cause whose ``applies_when`` names no component; else ``None``."""
    if blocker.component:
        return blocker.component
    if blocker.caused_by or blocker.applies_when.components:
        return None
    names = {tuple(f.requires) for f in blocker.fixed_by if f.kind in ("enables", "disables")}
    if len(names) == 1:
        only = next(iter(names))
        if len(only) == 1:
            return only[0]
    return None


def concerned_components(blocker: Blocker) -> set[str]:
    """Every component ``blocker`` names: its own, its ``applies_when`` and its fixes' requirements."""
    out = set(blocker.applies_when.components)
    comp = blocker_component(blocker)
    if comp:
        out.add(comp)
    for f in blocker.fixed_by:
        out.update(f.requires)
    return out


def not_applicable_reason(blocker: Blocker, comps: dict[str, Component], platform: Platform | None) -> str:
    """Why ``blocker`` does not apply to components ``comps`` on ``platform`` (``""`` when it does).

    An empty ``comps`` (no stack known) is not judged on components."""
    aw = blocker.applies_when
    if aw.compute_capability and platform is not None and \
            not satisfies(platform.compute_capability, aw.compute_capability).ok:
        return (f"applies only on compute capability {aw.compute_capability}; "
                f"{platform.id} is {platform.compute_capability}")
    if aw.interconnect and platform is not None and aw.interconnect.lower() not in (platform.interconnect or "").lower():
        return f"applies only over {aw.interconnect}; {platform.id} has {platform.interconnect or 'no interconnect recorded'}"
    if platform is not None and aw.gpu_count and not satisfies(str(platform.gpu_count), aw.gpu_count).ok:
        return f"applies only with gpu_count {aw.gpu_count}; {platform.id} has {platform.gpu_count}"
    if platform is not None and aw.tensor_parallel_size and not _some_size_fits(aw.tensor_parallel_size, platform.gpu_count):
        return (f"applies only at tensor-parallel size {aw.tensor_parallel_size}; {platform.id} has "
                f"{platform.gpu_count} GPU{'s' if platform.gpu_count != 1 else ''}")
    comp = blocker_component(blocker)
    if comps and comp and comp not in comps and not _bundled(comp, comps):
        return f"the stack has no {comp}"
    for name, spec in aw.components.items():
        c = component_of(comps, name)
        if c is None:
            if comps and not _bundled(name, comps):
                return f"applies only with {name}{spec}; the stack has no {name}"
            continue
        if c.version is not None and not satisfies(c.version, spec).ok:
            return f"applies only when {name}{spec}; the stack has {name} {c.version}"
    return ""


_CU_LABEL = re.compile(r"(?:^|[.+])cu(\d{2,3})(?:$|[.])")


def component_of(comps: dict[str, Component], name: str) -> Component | None:
    """Component ``name`` of ``comps``; for ``torch-cuda`` (the CUDA a torch wheel was built
    with) not recorded, the one torch's local version label names: PyTorch's wheels are
    versioned ``2.10.0+cu128`` for CUDA 12.8 (pytorch.org, "Previous versions"), so
    ``torch-cuda`` is ``12.8`` there."""
    c = comps.get(name)
    if c is None and name == "torch-cuda":
        torch = comps.get("torch")
        m = _CU_LABEL.search(torch.version.split("+", 1)[1]) if torch and torch.version and "+" in torch.version else None
        if m:
            digits = m.group(1)
            return Component(version=f"{digits[:-1]}.{digits[-1]}", source="torch's local version label")
    return c


def _bundled(name: str, comps: dict[str, Component]) -> bool:
    """Whether a stack without ``name`` has it inside another component (:data:`kb.versions.BUNDLED_IN`)."""
    return BUNDLED_IN.get(name) in comps


@lru_cache(maxsize=256)
def _some_size_fits(spec: str, gpus: int) -> bool:
    """Whether some tensor-parallel size from 1 to ``gpus`` satisfies ``spec`` (a TP size never
    exceeds the GPUs of one platform)."""
    return any(satisfies(str(n), spec).ok for n in range(1, min(gpus, 4096) + 1))


_TP_FLAG = re.compile(r"^(?:--tensor-parallel-size|--tensor_parallel_size|--tp-size|--tp_size|--tp|-tp)(?:[ =](\d+))?$")


def tensor_parallel_size(attempt: Attempt) -> int | None:
    """The tensor-parallel size ``attempt`` ran at: the value of its ``--tensor-parallel-size``
    (vLLM), ``--tp-size``/``--tp`` (SGLang) or ``-tp`` flag, else its ``tensor_parallel_size``/
    ``tp_size``/``tp`` setting; ``None`` when it records none. A flag given twice counts as the
    command line does: the last one wins."""
    text = " ".join(" ".join(attempt.config.flags).split())
    found = None
    for item in _BEFORE_FLAG.split(text) if text else []:  # in the order given: the last one wins
        m = _TP_FLAG.match(item)
        if m and m.group(1):
            found = int(m.group(1))
    if found is not None:
        return found
    for key in ("tensor_parallel_size", "tp_size", "tp"):
        value = attempt.config.settings.get(key)
        if value and value.strip().isdigit():
            return int(value.strip())
    return None


def run_condition_reason(blocker: Blocker, attempt: Attempt) -> str:
    """Why ``blocker`` cannot be what ``attempt`` met because of how the run was made (``""``
    when nothing rules it out): a ``tensor_parallel_size`` condition its recorded TP size fails."""
    spec = blocker.applies_when.tensor_parallel_size
    if not spec:
        return ""
    tp = tensor_parallel_size(attempt)
    if tp is not None and not satisfies(str(tp), spec).ok:
        return f"applies only at tensor-parallel size {spec}; the run used {tp}"
    return ""


def _holds(fix: Fix, comps: dict[str, Component], notes: list[str]) -> list[str]:
    """The unmet requirements of ``fix`` under ``comps`` (``[]`` when it holds)."""
    unmet = []
    for name, spec in fix.requires.items():
        c = component_of(comps, name)
        verdict = satisfies(c.version if c else None, spec)
        if verdict.note and verdict.note != "version unknown":
            notes.append(f"{name}: {verdict.note}")
        if not verdict.ok:
            unmet.append(f"{name}{spec}")
    return unmet


def resolve_blockers(kg: KnowledgeGraph, comps: dict[str, Component],
                     platform: Platform | None = None) -> dict[str, BlockerStatus]:
    """The :class:`BlockerStatus` of every blocker under components ``comps`` on ``platform``.

    Independent of record order (a fixed point over the ``caused_by`` DAG, visited in sorted
    order). A ``caused_by`` cycle is refused earlier by ``kb check``.
    """
    visit, memo = _resolver(kg, comps, platform)
    for b in kg.of_kind(Blocker):
        visit(b.id, ())
    return memo


def _resolver(kg: KnowledgeGraph, comps: dict[str, Component], platform: Platform | None
              ) -> tuple[Any, dict[str, BlockerStatus]]:
    """``(visit, memo)``: ``visit(blocker id, ())`` is the status of that blocker under ``comps``
    on ``platform`` (its causes visited first), kept in ``memo``. A status depends only on the
    blocker and its causes, so visiting some blockers gives what visiting all would for them."""
    memo: dict[str, BlockerStatus] = {}

    def visit(bid: str, trail: tuple[str, ...]) -> BlockerStatus:
        if bid in memo:
            return memo[bid]
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        if bid in trail:  # defensive: cycles are rejected by check_references
            return BlockerStatus(bid, "stands", missing=["cycle in caused_by"])
        advice = list(kg.memo(("resolution.advice", bid),
                              lambda: tuple(fix_phrase(f, notes=False) for f in b.fixed_by if not f.is_version_fix)))
        reason = not_applicable_reason(b, comps, platform)
        notes: list[str] = []
        st: BlockerStatus | None = None
        if reason:
            st = BlockerStatus(bid, "not_applicable", reason=reason)
        elif has_own_fix(b):
            st = None
            live = [f for f in b.fixed_by if f.is_version_fix]
            best: list[str] | None = None
            for f in (x for x in live if x.kind == "enables"):
                unmet = _holds(f, comps, notes)
                if not unmet:
                    st = BlockerStatus(bid, "resolved", by=requirement_text(f.requires), notes=notes, advice=advice,
                                       fix=b.fixed_by.index(f))
                    break
                if best is None or len(unmet) < len(best):
                    best = unmet
            off: list[str] | None = None
            if st is None:
                for f in (x for x in live if x.kind == "disables"):
                    unmet = _holds(f, comps, notes)
                    if not unmet:
                        st = BlockerStatus(bid, "disabled", by=requirement_text(f.requires), missing=best or [],
                                           notes=notes, advice=advice, fix=b.fixed_by.index(f))
                        break
                    if off is None or len(unmet) < len(off):
                        off = unmet
            if st is None:
                missing = best or [f"{u} (only disables the feature)" for u in off or []]
                st = BlockerStatus(bid, "stands", missing=missing, notes=notes, advice=advice)
        elif b.caused_by:
            parents = [visit(p, trail + (bid,)) for p in sorted(b.caused_by)]
            standing = [p for p in parents if p.state == "stands"]
            notes = [n for p in parents for n in p.notes]
            if standing:
                miss = [f"cause {p.id}" + (f" (needs {', '.join(p.missing)})" if p.missing else " (no known fix)")
                        for p in standing]
                st = BlockerStatus(bid, "stands", missing=miss, notes=notes, advice=advice)
            elif any(p.state == "disabled" for p in parents):
                st = BlockerStatus(bid, "disabled", by="its causes are only disabled", notes=notes, advice=advice,
                                   missing=[f"cause {p.id} (needs {', '.join(p.missing)})" for p in parents
                                            if p.state == "disabled" and p.missing])
            else:
                apart = [p for p in parents if p.state == "not_applicable"]
                by = ("its causes are resolved" if not apart else "its causes do not apply here" if len(apart) == len(parents)
                      else "its causes are resolved or do not apply here")
                st = BlockerStatus(bid, "resolved", by=by, notes=notes, advice=advice)
        else:
            st = BlockerStatus(bid, "stands", missing=[], advice=advice)
        assert st is not None  # every branch above sets it
        memo[bid] = st
        return st

    return visit, memo


class LazyStatuses(Mapping[str, BlockerStatus]):
    """The statuses of :func:`resolve_blockers` under one stack, each computed when first read
    (with its causes): a question about an attempt reads the statuses of its own blockers only,
    and 500 blockers resolved under each of the few hundred stacks the attempts ran on cost more
    than the question. Reads as the full dict would; iterating it resolves every blocker."""

    def __init__(self, kg: KnowledgeGraph, comps: dict[str, Component], platform: Platform | None):
        self._kg = kg
        self._visit, self._memo = _resolver(kg, comps, platform)
        self._all = False

    def __getitem__(self, bid: str) -> BlockerStatus:
        got = self._memo.get(bid)
        if got is not None:
            return got
        if not isinstance(self._kg.get(bid), Blocker):
            raise KeyError(bid)
        return self._visit(bid, ())  # type: ignore[no-any-return]

    def __contains__(self, bid: object) -> bool:
        return bid in self._memo or (isinstance(bid, str) and isinstance(self._kg.get(bid), Blocker))

    def _full(self) -> dict[str, BlockerStatus]:
        if not self._all:
            for b in self._kg.of_kind(Blocker):
                self._visit(b.id, ())
            self._all = True
        return {b.id: self._memo[b.id] for b in self._kg.of_kind(Blocker)}

    def __iter__(self) -> Iterator[str]:
        return iter(self._full())

    def __len__(self) -> int:
        return len(self._full())


class StatusCache:
    """:func:`resolve_blockers` memoised by (components, campaign platform), once per graph: every
    cache made for one graph shares what any of them computed (a graph does not change after
    linking). The statuses returned are shared: read them, do not change them."""

    def __init__(self, kg: KnowledgeGraph):
        self.kg = kg
        self._memo: dict[Any, dict[str, BlockerStatus]] = kg.memo("resolution.StatusCache", dict)
        self._lazy: dict[Any, LazyStatuses] = kg.memo("resolution.LazyStatuses", dict)

    @staticmethod
    def key(comps: dict[str, Component]) -> tuple[tuple[str, str | None, str | None], ...]:
        """The components as a hashable key: ``((name, version, source), ...)`` sorted by name."""
        return tuple(sorted((k, c.version, c.source) for k, c in comps.items()))

    def of(self, comps: dict[str, Component], campaign_id: str | None) -> dict[str, BlockerStatus]:
        """Blocker statuses under ``comps`` on the platform of campaign ``campaign_id``."""
        return self.of_key(self.key(comps), comps, campaign_id)

    def lazy_key(self, key: tuple[tuple[str, str | None, str | None], ...], comps: dict[str, Component],
                 campaign_id: str | None) -> Mapping[str, BlockerStatus]:
        """:meth:`of_key`, each status computed when first read (:class:`LazyStatuses`; the full
        dict when :meth:`of_key` already made it). Kept per graph like :meth:`of_key`'s."""
        camp = self.kg.get(campaign_id) if campaign_id else None
        return self.lazy_on(key, comps, platform_of(self.kg, camp if isinstance(camp, Campaign) else None))

    def lazy_on(self, key: tuple[tuple[str, str | None, str | None], ...], comps: dict[str, Component],
                platform: Platform | None) -> Mapping[str, BlockerStatus]:
        """:meth:`lazy_key` on a given ``platform`` (an attempt's own, :func:`attempt_platform`)."""
        memo_key = (key, platform.id if platform is not None else None)
        found = self._memo.get(memo_key)
        if found is not None:
            return found
        lazy = self._lazy.get(memo_key)
        if lazy is None:
            lazy = self._lazy[memo_key] = LazyStatuses(self.kg, comps, platform)
        return lazy

    def of_key(self, key: tuple[tuple[str, str | None, str | None], ...], comps: dict[str, Component],
               campaign_id: str | None) -> dict[str, BlockerStatus]:
        """:meth:`of` with ``key`` (:meth:`key` of ``comps``) already computed."""
        camp = self.kg.get(campaign_id) if campaign_id else None
        return self.under_key(key, comps, platform_of(self.kg, camp if isinstance(camp, Campaign) else None))

    def under(self, comps: dict[str, Component], platform: Platform | None) -> dict[str, BlockerStatus]:
        """Blocker statuses under ``comps`` on ``platform`` (``None``: judged without one)."""
        return self.under_key(self.key(comps), comps, platform)

    def under_key(self, key: tuple[tuple[str, str | None, str | None], ...], comps: dict[str, Component],
                  platform: Platform | None) -> dict[str, BlockerStatus]:
        """:meth:`under` with ``key`` already computed."""
        memo_key = (key, platform.id if platform is not None else None)
        found = self._memo.get(memo_key)
        if found is None:
            found = self._memo[memo_key] = resolve_blockers(self.kg, comps, platform)
        return found


# --------------------------------------------------------------------------- attempts and campaigns


def attempt_flags(attempt: Attempt) -> frozenset[str]:
    """The attempt's flags and env settings as a set of items: ``["--tp 8"]`` and
    ``["--tp", "8"]`` both give ``{"--tp 8"}``; env ``NCCL_ALGO: Tree`` gives ``"NCCL_ALGO=Tree"``,
    and so does ``NCCL_ALGO=Tree`` among the flags, wherever it stands (``["--tp 8",
    "NCCL_ALGO=Tree"]``: an environment setting, never the value of the flag before it; a name of
    upper-case letters, digits and ``_`` is an environment variable's, POSIX.1-2017 Base
    Definitions 8.1)."""
    config = attempt.config
    # tokens joined by single spaces, cut before each token that starts with "-" or is an
    # environment setting: a value joins the flag before it, and tokens before the first flag make
    # one item (as a loop over the tokens would; this way the work is done by str and re in C:
    # 10,000 attempts per query)
    text = " ".join(" ".join(config.flags).split())
    items = _BEFORE_FLAG.split(text) if text else []
    if config.env:
        items.extend(f"{k}={v}" for k, v in config.env.items())
    return frozenset(items)


_BEFORE_FLAG = re.compile(" (?=-|[A-Z_][A-Z0-9_]*=)")


def flag_names(items: frozenset[str] | list[str]) -> set[str]:
    """The names of flags and env settings (``"--tp 8"`` → ``"--tp"``, ``"A=B"`` → ``"A"``)."""
    return {i.split()[0].split("=")[0] for i in items if i.strip()}


def current_stack(kg: KnowledgeGraph, campaign: Campaign) -> str | None:
    """The stack a campaign stands on now: that of its latest reviewed attempt naming one (by
    date, then id), else of its latest draft, else the campaign's own ``stack``, else ``None``
    (once per graph and campaign)."""
    def pick() -> str | None:
        attempts = [a for a in kg.attempts_of(campaign.id) if a.stack]
        reviewed = [a for a in attempts if a.status == "reviewed"]
        latest = reviewed or attempts
        return latest[-1].stack if latest else campaign.stack
    return kg.memo(("current_stack", campaign.id), pick)  # type: ignore[no-any-return]


def now_statuses(kg: KnowledgeGraph, campaign: Campaign) -> dict[str, BlockerStatus]:
    """Every blocker's status under ``campaign``'s current stack (:func:`current_stack`) on its
    platform (:func:`resolve_blockers`; no stack: no components), once per graph and campaign."""
    def compute() -> dict[str, BlockerStatus]:
        sid = current_stack(kg, campaign)
        return resolve_blockers(kg, kg.stack_components(sid) if sid else {}, platform_of(kg, campaign))
    return kg.memo(("now_statuses", campaign.id), compute)  # type: ignore[no-any-return]


def platform_of(kg: KnowledgeGraph, campaign: Campaign | None) -> Platform | None:
    """The campaign's platform record, or ``None``."""
    p = kg.get(campaign.platform) if campaign else None
    return p if isinstance(p, Platform) else None


def attempt_platform(kg: KnowledgeGraph, attempt: Attempt, campaign_id: str | None = None) -> Platform | None:
    """The platform ``attempt`` ran on: the one it names (``platform:``), else that of campaign
    ``campaign_id`` (its own campaign by default), else ``None``."""
    own = kg.get(attempt.platform) if attempt.platform else None
    if isinstance(own, Platform):
        return own
    camp = kg.get(campaign_id if campaign_id is not None else attempt.campaign)
    return platform_of(kg, camp if isinstance(camp, Campaign) else None)
