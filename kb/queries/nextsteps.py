"""What to try next (``kb next``): the actions the records point to, each with its reason, ranked
first by the attempts it would unblock (or whose reading it would settle), then by the headroom
left to the campaign's target (issue 24: "what should we try next?" took three pages).

Kinds of step, per campaign:

* ``retry`` — an attempt blocked on an earlier stack whose blockers the current stack resolves
  (:func:`kb.queries.unblocks.unblocks` from its stack to the current one), not retried yet, with
  what the catalogs predict for it (a catalog blocker of the same failure that still stands) and
  what the change introduces that it may hit;
* ``verify-credit`` — an accepted decision credits a stack change with fixing blockers while other
  components changed with the credited one (:attr:`kb.queries.credit.Credit.confounded`, not
  verified by an attempt that changed only the credited component): re-run the one change alone;
* ``measure-baseline`` — no baseline attempt on the current stack, while attempts there are
  compared with a baseline measured on another;
* ``start-plan`` — an accepted decision with plan steps and no attempt of its campaign since.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kb.errors import UsageError
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Campaign, Decision
from kb.queries.credit import decision_credit
from kb.queries.resolution import current_stack

KIND_ORDER = ("retry", "verify-credit", "measure-baseline", "start-plan")
"""Order of the kinds of step among steps that unblock as many attempts."""


@dataclass
class NextStep:
    """One thing to try: its ``kind`` (see the module docstring), the ``campaign``, the ``target``
    record (the attempt to retry, the decision whose credit to verify, the campaign), a
    ``title``, the ``reason`` in words, and ``rank``: what it was ranked on (``unblocks``: attempts
    it would unblock or settle; ``headroom``: the campaign target minus its best figure, in the
    metric's unit, ``None`` without a target or a figure; ``predicted``: ``"fails"`` when a catalog
    predicts the retry still fails, else ``""``)."""

    kind: str
    campaign: str
    target: str
    title: str
    reason: str
    rank: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return asdict(self)


def next_steps(kg: KnowledgeGraph, campaign: str | None = None) -> list[NextStep]:
    """Every :class:`NextStep` of ``campaign`` (default: every campaign), ranked: most attempts
    unblocked first; a retry the catalog predicts to fail after those it does not; then by kind
    (:data:`KIND_ORDER`), the campaign's headroom (most first) and the target's id. Raises
    :class:`kb.errors.UsageError` for an unknown campaign."""
    camps = kg.of_kind(Campaign)
    if campaign is not None:
        camp = kg.get(campaign)
        if not isinstance(camp, Campaign):
            raise UsageError(f"unknown campaign '{campaign}'; the campaigns are {', '.join(c.id for c in camps) or 'none'}")
        camps = [camp]
    steps: list[NextStep] = []
    for camp in camps:
        head = _headroom(kg, camp)
        found = _retries(kg, camp) + _credits(kg, camp) + _baseline(kg, camp) + _plans(kg, camp)
        for s in found:
            s.rank.setdefault("predicted", "")
            s.rank["headroom"] = head
        steps += found
    steps.sort(key=lambda s: (-s.rank["unblocks"], s.rank["predicted"] == "fails", KIND_ORDER.index(s.kind),
                              -(s.rank["headroom"] or 0.0), s.campaign, s.target))
    return steps


def _attempts(kg: KnowledgeGraph, camp: Campaign) -> list[Attempt]:
    return [a for a in kg.attempts_of(camp.id) if a.status == "reviewed"]


def _headroom(kg: KnowledgeGraph, camp: Campaign) -> float | None:
    """Target minus the best figure of the campaign's metric so far (lower is better: the other way)."""
    if camp.target is None:
        return None
    figures = [a.metrics[camp.metric.name].value for a in _attempts(kg, camp) if camp.metric.name in a.metrics]
    if not figures:
        return None
    higher = camp.metric.direction.value == "higher"
    best = max(figures) if higher else min(figures)
    return round((camp.target.value - best) if higher else (best - camp.target.value), 3)


def _blocked_by_any(kg: KnowledgeGraph, camp: Campaign, blockers: set[str]) -> list[str]:
    """The campaign's attempts that did not succeed and name one of ``blockers`` (or a blocker they cause)."""
    out = []
    for a in _attempts(kg, camp):
        if a.outcome.value in ("improved", "baseline") or not a.blocked_by:
            continue
        if kg.causes_closure(a.blocked_by) & blockers:
            out.append(a.id)
    return out


def _retries(kg: KnowledgeGraph, camp: Campaign) -> list[NextStep]:
    from kb.queries.unblocks import unblocks

    now = current_stack(kg, camp)
    if now is None:
        return []
    stacks = sorted({a.stack for a in _attempts(kg, camp) if a.stack and a.stack != now and a.blocked_by
                     and a.outcome.value not in ("improved", "baseline")})
    out = []
    for sid in stacks:
        res = unblocks(kg, from_stack=sid, to_stack=now, campaign=camp.id)
        for c in res.retry:
            a = kg.get(c.id)
            if not isinstance(a, Attempt) or a.campaign != camp.id or a.stack != sid:
                continue
            reason = f"its blocker{'s' if len(c.resolved_blockers) != 1 else ''} {', '.join(c.resolved_blockers)} " \
                     f"{'are' if len(c.resolved_blockers) != 1 else 'is'} resolved on {now}"
            predicted = ""
            if c.disputed:
                predicted = "fails"
                reason += f"; the catalog predicts it still fails: {', '.join(c.disputed)} still stand{'s' if len(c.disputed) == 1 else ''}"
            if c.would_hit:
                reason += f"; it would likely hit {', '.join(c.would_hit)}, which {now} introduces"
            if c.may_hit:
                reason += f"; it may hit {', '.join(sorted(c.may_hit))}"
            if c.last_metric:
                reason += f"; last run: {c.outcome}, {c.last_metric}"
            unblocked = _blocked_by_any(kg, camp, set(c.resolved_blockers))
            out.append(NextStep("retry", camp.id, c.id, f"Retry {c.id} on {now}", reason,
                                {"unblocks": len(unblocked), "predicted": predicted}))
    return out


def _credits(kg: KnowledgeGraph, camp: Campaign) -> list[NextStep]:
    out = []
    for d in kg.of_kind(Decision):
        if d.status != "accepted" or d.campaign not in (camp.id, None):
            continue
        credit = decision_credit(kg, d)
        if credit is None or not credit.confounded or credit.verified:
            continue
        if not credit.credited:  # resolved because a bound of applies_when no longer holds, not by a fix
            if not d.resolves:
                continue
            changed = ", ".join(c["component"] for c in credit.changed)
            reason = (f"it resolves {', '.join(d.resolves)}, which {'no longer apply' if len(d.resolves) > 1 else 'no longer applies'} "
                      f"after the change ({credit.before} → {credit.after}), while {changed} all changed: re-run one "
                      "blocked attempt with one of them changed at a time to tell which did the work")
            out.append(NextStep("verify-credit", camp.id, d.id, f"Verify the credit of {d.id}", reason,
                                {"unblocks": len(_blocked_by_any(kg, camp, set(d.resolves)))}))
            continue
        parts = sorted({comp for c in credit.credited for comp in c["components"]})
        fixes = ", ".join(sorted({f"{c['blocker']} ({c['fix']})" for c in credit.credited}))
        reason = (f"it credits {' and '.join(parts)} with fixing {fixes}, but {', '.join(credit.co_changed)} changed "
                  f"with it ({credit.before} → {credit.after}): re-run one blocked attempt with only "
                  f"{' and '.join(parts)} changed to tell which change did the work")
        blocked = {c["blocker"] for c in credit.credited}
        out.append(NextStep("verify-credit", camp.id, d.id, f"Verify the credit of {d.id}", reason,
                            {"unblocks": len(_blocked_by_any(kg, camp, blocked))}))
    return out


def _baseline(kg: KnowledgeGraph, camp: Campaign) -> list[NextStep]:
    now = current_stack(kg, camp)
    attempts = _attempts(kg, camp)
    metric = camp.metric.name
    if now is None or any(a.outcome.value == "baseline" and a.stack == now for a in attempts):
        return []
    on_now = [a for a in attempts if a.stack == now and metric in a.metrics]
    old = [a for a in attempts if a.outcome.value == "baseline" and metric in a.metrics]
    if not on_now:
        return []
    if old:
        last = max(old, key=lambda a: (a.date, a.id))
        was = f"the last baseline, {last.id} ({last.metrics[metric].display()}), ran on {last.stack or 'an unnamed stack'}"
    elif camp.baseline is not None:
        was = f"the campaign's baseline ({camp.baseline.value:g} {camp.baseline.unit}) was measured on no stack recorded here"
    else:
        was = None
    many = len(on_now) != 1
    shown = f"{', '.join(a.id for a in on_now[:3])}{', …' if len(on_now) > 3 else ''}"
    if was is None:
        reason = (f"no baseline measured yet: the {len(on_now)} attempt{'s' if many else ''} measured on {now} "
                  f"({shown}) {'have' if many else 'has'} nothing to compare with; measure the baseline configuration on it")
    else:
        reason = (f"no baseline on {now}: {was}, so the {len(on_now)} attempt{'s' if many else ''} measured "
                  f"on {now} ({shown}) {'are' if many else 'is'} compared across stacks; measure the baseline "
                  "configuration on it")
    return [NextStep("measure-baseline", camp.id, camp.id, f"Measure a baseline on {now}", reason,
                     {"unblocks": len(on_now)})]


def _plans(kg: KnowledgeGraph, camp: Campaign) -> list[NextStep]:
    out = []
    attempts = _attempts(kg, camp)
    for d in kg.of_kind(Decision):
        if d.status != "accepted" or d.campaign != camp.id or not d.plan:
            continue
        if any(a.date >= d.date for a in attempts):
            continue
        out.append(NextStep("start-plan", camp.id, d.id, f"Start the plan of {d.id}",
                            f"accepted on {d.date.isoformat()} with {len(d.plan)} plan step"
                            f"{'s' if len(d.plan) != 1 else ''} and no attempt since; first: {d.plan[0]}",
                            {"unblocks": 0}))
    return out
