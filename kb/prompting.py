"""The questions ``kb log`` asks on a terminal, apart from any terminal library.

:func:`fill_attempt_draft` walks an :class:`kb.usecases.log.AttemptDraft` and asks, through an
:class:`Asker`, for what is missing or wrong (an unknown id, a malformed ``--metric``), checking
each answer at once with the same parsers the flags go through; :func:`confirm_matches` offers
to link the known blockers whose signatures match the error text. The CLI passes an asker built
on click (:class:`kb.cli.log.ClickAsker`); tests pass a scripted one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from kb.errors import KbError
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Outcome, Platform, Stack
from kb.queries import default_from_stack
from kb.usecases import log as logbook


class Asker(Protocol):
    """How questions reach a person.

    ``text`` asks for a line (``parse`` raises ``ValueError``/:class:`kb.errors.KbError` to refuse
    an answer, which is then asked again; ``optional`` allows an empty answer, returned as
    ``None``); ``choice`` asks for one of ``ids`` (``None`` for "none" when ``optional``);
    ``confirm`` asks yes or no; ``say`` tells something without asking.
    """

    def text(self, label: str, *, parse: Callable[[str], Any] | None = None, optional: bool = False,
             default: str | None = None) -> str | None: ...

    def choice(self, label: str, ids: list[str], *, optional: bool = False, default: str | None = None,
               show_choices: bool = True) -> str | None: ...

    def confirm(self, question: str, default: bool = True) -> bool: ...

    def say(self, line: str) -> None: ...


def _non_empty(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text.strip()


def _reask_items(ask: Asker, items: list[str], flag: str, label: str, parse: Callable[[str], Any]) -> list[str]:
    """Keep the items that parse; for each that does not, say why and ask for it again (empty drops it)."""
    out = []
    for item in items:
        try:
            parse(item)
            out.append(item)
            continue
        except (ValueError, KbError) as exc:
            ask.say(f"kb log: {flag}: {exc}")
        again = ask.text(f"{label}, empty to drop it", parse=parse, optional=True)
        if again:
            out.append(again)
    return out


def fill_attempt_draft(kg: KnowledgeGraph, draft: logbook.AttemptDraft, ask: Asker) -> None:
    """Ask for what ``draft`` lacks or holds wrong, in place: references that name no record,
    an unreadable date, the title, campaign (not asked when there is only one: said instead),
    approach, outcome, stack and platform, the run's flags (when neither flags nor a command were
    given), malformed components, env and metrics, unknown blockers, the headline metric, and the
    error text of a failed attempt."""

    def report(flag: str, exc: Exception) -> None:
        ask.say(f"kb log: {flag}: {exc}")

    for key in ("campaign", "platform", "stack", "baseline", "retry_of"):
        value = getattr(draft, key)
        if value:
            try:
                logbook.check_reference(kg, key, value)
            except KbError as exc:
                report(logbook.REFERENCE_FIELDS[key][1], exc)
                setattr(draft, key, None)
                if key != "campaign":
                    cls = logbook.REFERENCE_FIELDS[key][0]
                    setattr(draft, key, ask.choice(key, [r.id for r in kg.of_kind(cls)], optional=True,
                                                   show_choices=cls is not Attempt))
    if draft.date:
        try:
            logbook.parse_date(draft.date)
        except ValueError as exc:
            report("--date", exc)
            draft.date = ask.text("date", parse=logbook.parse_date, default="today")
    if not (draft.title or "").strip():
        draft.title = ask.text("title", parse=_non_empty)
    if not draft.campaign:
        ids = [c.id for c in kg.of_kind(Campaign)]
        if len(ids) == 1:  # nothing to choose: say which, do not ask
            draft.campaign = ids[0]
            ask.say(f"campaign: {ids[0]}")
        elif ids:
            draft.campaign = ask.choice("campaign", ids, default=logbook.default_campaign(kg))
    if not (draft.approach or "").strip():
        draft.approach = ask.text("approach (what was tried)", parse=_non_empty)
    outcomes = [o.value for o in Outcome]
    if draft.outcome not in outcomes:
        if draft.outcome:
            report("--outcome", ValueError(f"'{draft.outcome}' is not an outcome"))
        draft.outcome = ask.choice("outcome", outcomes)
    if not (draft.stack or draft.components or draft.captured):
        stacks = [s.id for s in kg.of_kind(Stack)]
        if stacks:
            draft.stack = ask.choice("stack", stacks, optional=True, default=default_from_stack(kg, draft.campaign))
    if draft.platform is None and not kg.get(draft.campaign or ""):
        plats = [p.id for p in kg.of_kind(Platform)]
        if plats:
            draft.platform = ask.choice("platform", plats, optional=True)
    if not draft.flags and not draft.command:
        answer = ask.text("flags of the run (e.g. --tp 8 --enable-x; empty if none)", optional=True)
        if answer:
            draft.flags = [answer]
    units = logbook.headline_units(kg, draft.campaign)
    draft.components = _reask_items(ask, draft.components, "--component", "component (NAME=VERSION)",
                                    logbook.parse_component)
    draft.env = _reask_items(ask, draft.env, "--env", "environment variable (KEY=VALUE)", logbook.parse_env)
    draft.metrics = _reask_items(ask, draft.metrics, "--metric", "metric (NAME=VALUE UNIT)",
                                 lambda t: logbook.parse_metric(t, units))
    blockers = [b.id for b in kg.of_kind(Blocker)]
    kept = []
    for b in draft.blocked_by:
        if isinstance(kg.get(b), Blocker):
            kept.append(b)
        else:
            report("--blocked-by", ValueError(f"unknown blocker '{b}'"))
            again = ask.choice("blocked by", blockers, optional=True) if blockers else None
            if again:
                kept.append(again)
    draft.blocked_by = kept
    (name, unit), = units.items() if units else ((None, None),)
    if name and draft.outcome != "failed" and not any(m.partition("=")[0].strip() == name for m in draft.metrics):
        answer = ask.text(f"{name} in {unit} (empty to skip)", optional=True,
                          parse=lambda t: logbook.parse_metric(f"{name}={t}", units))
        if answer:
            draft.metrics.append(f"{name}={answer}")
    if draft.outcome == "failed" and not (draft.error or draft.error_file or draft.blocked_by):
        draft.error = ask.text("error text (empty if there is none)", optional=True)
        if not draft.error and blockers:
            ask.say(f"kb log: a failed attempt needs its error text or the blocker that stopped it: give a "
                    f"blocker id ({len(blockers)} known; a wrong one lists them), or nothing to stop here "
                    "('kb new blocker TITLE' writes a new one)")
            chosen = ask.choice("blocked by", blockers, optional=True)
            draft.blocked_by = [chosen] if chosen else []


def confirm_matches(kg: KnowledgeGraph, draft: logbook.AttemptDraft, ask: Asker) -> None:
    """Offer to link, one by one, the known blockers whose signatures match the draft's error
    text (``--error`` or ``--error-file``) and that ``blocked_by`` does not name yet (the default
    answer is no for one the draft's own stack resolves or that cannot apply to it:
    :attr:`kb.usecases.log.BlockerMatch.where_fixed`); then ask which earlier attempt it re-runs
    (:func:`offer_retry_of`)."""
    error_text = draft.error if draft.error is not None else (
        logbook.read_error_file(draft.error_file) if draft.error_file else None)
    try:
        attempt: Attempt | None = logbook.build_attempt(kg, draft)
    except KbError:
        attempt = None  # judged without the stack: nothing rules a match out
    matched = []
    for m in logbook.match_blockers(kg, error_text, draft.blocked_by, attempt):
        matched.append(m.id)
        question = f"{m.describe()}. Link it into blocked_by{' anyway' if m.where_fixed else ''}?"
        if not m.linked and ask.confirm(question, default=not m.where_fixed):
            draft.blocked_by.append(m.id)
    offer_retry_of(kg, draft, ask, set(draft.blocked_by) | set(matched))


def offer_retry_of(kg: KnowledgeGraph, draft: logbook.AttemptDraft, ask: Asker, blockers: set[str]) -> None:
    """When ``draft`` names no ``retry_of`` and earlier attempts of its campaign that did not
    succeed met one of ``blockers`` (its own and those its error matches), ask which of them it
    re-runs (newest first, the newest the default; ``-`` for none): a retry says so, and queries
    credit the stack change with it (:func:`kb.queries.credit.is_retry`)."""
    if draft.retry_of or not blockers:
        return
    campaign = draft.campaign or logbook.default_campaign(kg)
    earlier = sorted((a for a in kg.of_kind(Attempt)
                      if (campaign is None or a.campaign == campaign) and a.outcome.value not in ("improved", "baseline")
                      and set(a.blocked_by) & blockers), key=lambda a: (a.date, a.id), reverse=True)
    if not earlier:
        return
    ask.say(f"kb log: earlier attempts met {', '.join(sorted(blockers))}: " + ", ".join(a.id for a in earlier[:5]))
    draft.retry_of = ask.choice("retry of (the earlier attempt this re-runs; - for none)", [a.id for a in earlier],
                                optional=True, default=earlier[0].id)
