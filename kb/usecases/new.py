"""New platforms, stacks and campaigns (to start a campaign), and decision and blocker
skeletons to fill in (``kb new``).

Each builder parses what the options gave, validates it through the model and raises
:class:`kb.errors.InvalidOptions` naming the option of every bad value (``--count``,
``--compute-capability``, …); nothing is written until :func:`write_new` passes the record
through the store's write gate.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kb.errors import InvalidOptions, Problem, QueryError, UsageError
from kb.graph import KnowledgeGraph
from kb.ids import dated_id, slugify
from kb.models import UNITS, Attempt, Blocker, Campaign, Component, Decision, Metric, Platform, Record, Stack
from kb.queries import last_metric, unblocks
from kb.store import Saved, save_record
from kb.usecases.log import check_reference, parse_component, parse_date
from kb.validation import first_message, option_problems
from kb.versions import arch_of

TODO = "TODO"


def new_blocker(title: str) -> Blocker:
    """A blocker skeleton titled ``title`` with id ``<slug of title>``: status open, and
    placeholder description and workaround to fill in. Raises :class:`InvalidOptions` for an
    empty title."""
    data = {"id": slugify(title), "title": title.strip(), "status": "open",
            "description": f"{TODO}: what fails, where, and the error text (add its stable part to signatures).",
            "workaround": f"{TODO}: what to do meanwhile (or remove this line)."}
    return _validated(Blocker, data)


def new_decision(title: str, *, date: dt.date | None = None, campaign: str | None = None,
                 context: str | None = None, resolves: list[str] | None = None,
                 evidence: list[str] | None = None, stack_change: dict[str, Any] | None = None) -> Decision:
    """A decision (ADR) skeleton in MADR's sections, status ``proposed``, dated ``date`` (today).

    The one considered option is titled ``title`` and is the chosen one, so the record validates;
    ``evidence`` (attempt ids) is cited by it. Placeholders start with ``TODO``. Raises
    :class:`InvalidOptions` for an empty title.
    """
    date = date or dt.date.today()
    data: dict[str, Any] = {
        "id": dated_id(date, title, fallback="decision"),
        "title": title.strip(),
        "status": "proposed",
        "date": date,
        "context": context or f"{TODO}: the problem, the forces at play, and the attempts that show them.",
        "decision_drivers": [f"{TODO}: what matters most in choosing"],
        "considered_options": [{"title": title.strip(), "description": f"{TODO}: what this option changes",
                                "pros": [f"{TODO}"], "cons": [f"{TODO}"], "evidence": list(evidence or [])}],
        "outcome": {"chosen": title.strip(), "rationale": f"{TODO}: why this option, against the drivers."},
        "consequences": {"good": [f"{TODO}"], "bad": [f"{TODO}"]},
        "resolves": list(resolves or []),
    }
    if campaign:
        data["campaign"] = campaign
    if stack_change:
        data["stack_change"] = stack_change
    return _validated(Decision, data)


_METRIC_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")

PLATFORM_FLAGS = {"id": "TITLE", "title": "TITLE", "gpu": "--gpu", "gpu_count": "--count",
                  "compute_capability": "--compute-capability", "arch": "--compute-capability",
                  "interconnect": "--interconnect", "nvlink": "--nvlink", "memory_gib": "--memory-gib"}
STACK_FLAGS = {"id": "TITLE", "title": "TITLE", "base": "--base", "components": "--component"}
CAMPAIGN_FLAGS = {"id": "TITLE", "title": "TITLE", "model": "--model", "platform": "--platform",
                  "stack": "--stack", "metric": "--metric", "metric.name": "--metric", "metric.unit": "--unit",
                  "metric.direction": "--direction", "baseline": "--baseline", "target": "--target",
                  "started": "--started", "goal": "--goal", "status": "--status"}
"""Field → ``kb new platform|stack|campaign`` option, to name the option a bad value came from."""


def new_platform(title: str, *, gpu: str, gpu_count: int, compute_capability: str,
                 interconnect: str | None = None, nvlink: bool | None = None,
                 memory_gib: float | None = None) -> Platform:
    """A platform record titled ``title`` with id ``<slug of title>``, for when ``kb capture
    --platform`` cannot run (no GPU here): ``gpu_count`` × ``gpu`` of ``compute_capability``
    (``"12.0"``), its arch derived (``sm_120``), and the optional interconnect, NVLink and
    memory per GPU in GiB.

    Raises :class:`InvalidOptions` naming the option of each bad value (``--count``,
    ``--compute-capability``, ...); nothing is written.
    """
    problems: list[Problem] = []
    data: dict[str, Any] = {"id": slugify(title, fallback="platform"), "title": title.strip(), "gpu": gpu.strip(),
                            "gpu_count": gpu_count, "compute_capability": compute_capability.strip()}
    try:
        data["arch"] = arch_of(compute_capability)
    except ValueError as exc:
        problems.append(Problem("kb new platform", None, "--compute-capability", str(exc)))
    if not data["gpu"]:
        problems.append(Problem("kb new platform", None, "--gpu", "must not be empty; name the GPU, e.g. 'NVIDIA H200'"))
    if interconnect is not None and interconnect.strip():
        data["interconnect"] = interconnect.strip()
    if nvlink is not None:
        data["nvlink"] = nvlink
    if memory_gib is not None:
        data["memory_gib"] = memory_gib
    return _validated(Platform, data, PLATFORM_FLAGS, problems)


def new_stack(kg: KnowledgeGraph, title: str, *, base: str | None = None,
              components: list[str] | tuple[str, ...] = ()) -> Stack:
    """A stack record titled ``title`` with id ``<slug of title>``: ``components`` given as
    ``NAME=VERSION`` (``cuda=13.0``; a value that is not a PEP 440 version, ``sglang=built from
    source``, is kept as the component's ``source``), over the stack ``base`` if given.

    Raises :class:`InvalidOptions` for an unknown ``base`` (with the closest id), a malformed or
    repeated component, or neither components nor a base; nothing is written.
    """
    where = "kb new stack"
    problems: list[Problem] = []
    data: dict[str, Any] = {"id": slugify(title, fallback="stack"), "title": title.strip()}
    if base:
        try:
            data["base"] = check_reference(kg, "stack", base)
        except UsageError as exc:
            problems.append(Problem(where, None, "--base", str(exc)))
    comps: dict[str, Component] = {}
    for item in components:
        try:
            name, comp = parse_component(item, source_fallback=True)
        except ValueError as exc:
            problems.append(Problem(where, None, "--component", str(exc)))
            continue
        if name in comps:
            problems.append(Problem(where, None, "--component", f"'{name}' given twice; give each component once"))
        comps[name] = comp
    if not components and not base:
        problems.append(Problem(where, None, "--component",
                                "a stack needs at least one component (--component cuda=13.0) or a --base stack"))
    data["components"] = comps
    return _validated(Stack, data, STACK_FLAGS, problems)


def _campaign_metric(text: str, unit: str) -> Metric:
    """``"82 tok/s"`` (or ``"82"``, in ``unit``) as a :class:`Metric` in the headline ``unit``;
    raises ``ValueError`` otherwise."""
    text = text.strip()
    try:
        metric = Metric.model_validate(text if not re.fullmatch(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)
                                       else f"{text} {unit}")
    except ValidationError as exc:
        raise ValueError(first_message(exc)) from None
    if metric.unit != unit:
        raise ValueError(f"'{text}' is in {metric.unit}, but the headline metric is in {unit} (--unit); "
                         f"give it in {unit}, e.g. '{metric.text or format(metric.value, 'g')} {unit}'")
    return metric


def new_campaign(kg: KnowledgeGraph, title: str, *, model: str, platform: str, stack: str | None = None,
                 metric: str = "output_throughput", unit: str = "tok/s", direction: str = "higher",
                 baseline: str | None = None, target: str | None = None, goal: str | None = None,
                 started: str | dt.date | None = None, today: dt.date | None = None) -> Campaign:
    """A campaign record titled ``title`` with id ``<slug of title>``: ``model`` served on
    ``platform`` (a platform id) starting from ``stack`` (a stack id), judged by the headline
    ``metric`` in ``unit`` (``direction``: ``higher`` or ``lower`` is better), started
    ``started`` (default today), status ``active``.

    ``baseline`` and ``target`` are figures (``"82 tok/s"``, or ``"82"`` in ``unit``); without a
    baseline the campaign has none until one is measured. Raises :class:`InvalidOptions` naming
    the option of every bad value (unknown ``--platform``/``--stack`` with the closest id, a
    figure in another unit, ...); nothing is written.
    """
    where = "kb new campaign"
    problems: list[Problem] = []
    data: dict[str, Any] = {"id": slugify(title, fallback="campaign"), "title": title.strip(),
                            "model": model.strip()}
    if not data["model"]:
        problems.append(Problem(where, None, "--model", "must not be empty; name the model, e.g. 'Llama-3.1-70B FP8'"))
    for key, value in (("platform", platform), ("stack", stack)):
        if value is None:
            continue
        try:
            data[key] = check_reference(kg, key, value)
        except UsageError as exc:
            problems.append(Problem(where, None, f"--{key}", str(exc)))
    metric = metric.strip()
    if not _METRIC_NAME.match(metric):
        problems.append(Problem(where, None, "--metric", f"'{metric}' is not a metric name; use letters, digits "
                                "and '_' starting with a letter, e.g. output_throughput or median_ttft"))
    data["metric"] = {"name": metric, "unit": unit.strip(), "direction": direction}
    unit_ok = unit.strip() in UNITS
    for key, value in (("baseline", baseline), ("target", target)):
        if value is None or not unit_ok:
            continue
        try:
            data[key] = _campaign_metric(value, unit.strip())
        except ValueError as exc:
            problems.append(Problem(where, None, f"--{key}", str(exc)))
    try:
        data["started"] = parse_date(started) if started else (today or dt.date.today())
    except ValueError as exc:
        problems.append(Problem(where, None, "--started", str(exc)))
    if goal and goal.strip():
        data["goal"] = goal.strip()
    return _validated(Campaign, data, CAMPAIGN_FLAGS, problems)


def _validated(model: type[Record], data: dict[str, Any], flags: dict[str, str] | None = None,
               problems: list[Problem] | None = None) -> Any:
    """``model`` validated from ``data``; raises :class:`InvalidOptions` with ``problems`` (found
    before) and the model's own, each named by its option in ``flags`` (field → ``--option``)."""
    where = f"kb new {model.kind}"
    found = list(problems or [])
    title = str(data.get("title") or "")
    if title.strip() and not slugify(title, fallback=""):
        found.append(Problem(where, None, "TITLE", f"'{title.strip()}' has no letter or digit in any script to make "
                                                   f"the {model.kind}'s id from; give a title with words"))
    named = {p.field for p in found}  # an option already reported is not reported again
    try:
        record = model.model_validate(data)
    except ValidationError as exc:
        found += [p for p in option_problems(exc, where, flags) if p.field not in named and p not in found]
    else:
        if not found:
            return record
    raise InvalidOptions(found)


def decision_from_upgrade(kg: KnowledgeGraph, title: str, change: dict[str, str], *,
                          from_stack: str | None = None, to_stack: str | None = None,
                          campaign: str | None = None, date: dt.date | None = None) -> Decision:
    """A proposed decision drafted from :func:`kb.queries.unblocks`: what moving to ``change``
    (component → version, on top of ``from_stack``, or ``to_stack``) would resolve.

    The context lists the blockers resolved and the attempts they block with their last
    figures, and what stays blocked; ``resolves`` the resolved blockers; the option's evidence
    those attempts; ``stack_change`` the ``from``/``to`` stacks and the component versions.

    Raises :class:`QueryError` when the change resolves nothing (naming the ``--from`` stack
    used), or for the errors of :func:`kb.queries.unblocks`.
    """
    res = unblocks(kg, change, to_stack=to_stack, from_stack=from_stack, campaign=campaign)
    what = " ".join(f"{k}={v}" for k, v in res.change.items()) or (to_stack or "")
    if not res.resolved:
        raise QueryError(f"{what} resolves no standing blocker from stack {res.from_stack or '(none)'}; "
                         "nothing to draft a decision from (try another --from STACK)")
    resolved_ids = [r["id"] for r in res.resolved]
    attempts: list[str] = []
    for rid in resolved_ids:
        for a in kg.into(rid, "blocked_by"):
            if a not in attempts:
                attempts.append(a)
    attempts.sort(key=lambda a: (kg.get(a).date, a))  # type: ignore[union-attr]
    retry = {r.id for r in res.retry}
    lines = [f"Moving {'from stack ' + res.from_stack + ' ' if res.from_stack else ''}to {what} "
             f"would resolve {len(res.resolved)} blocker{'s' if len(res.resolved) != 1 else ''}:", ""]
    for r in res.resolved:
        lines.append(f"- {r['id']}: {r['title']} ({r['by']})")
    if attempts:
        lines += ["", "They block these attempts (last figures):", ""]
        for aid in attempts:
            rec = kg.get(aid)
            assert isinstance(rec, Attempt)
            fig = last_metric(kg, rec)
            state = "worth retrying" if aid in retry else "still blocked by another blocker"
            lines.append(f"- {aid}: {rec.title} ({rec.outcome.value}{', ' + fig if fig else ''}; {state})")
    if res.still_blocked:
        lines += ["", "Still blocked after the change:", ""]
        for s in res.still_blocked:
            need = "; ".join(s.missing)
            lines.append(f"- {s.id}: " + (f"needs {need}" if need != "no known fix" else "no known fix"
                                          + (f" (workaround: {s.workaround})" if s.workaround else "")))
    for n in res.notes:
        lines += ["", f"Note: {n}"]
    camps = {kg.get(a).campaign for a in attempts}  # type: ignore[union-attr]
    campaign = campaign or (camps.pop() if len(camps) == 1 else None)
    sc: dict[str, Any] = {"components": dict(change)}
    if res.from_stack:
        sc["from"] = res.from_stack
    if to_stack:
        sc["to"] = to_stack
    return new_decision(title, date=date, campaign=campaign, context="\n".join(lines) + "\n",
                        resolves=resolved_ids, evidence=attempts, stack_change=sc)


def write_new(root: str | Path, record: Record, kg: KnowledgeGraph | None = None) -> Saved:
    """Write a new record (``kb new``) through the store's write gate under a free id
    (:func:`kb.store.save_record`: redacted, never overwriting)."""
    taken = kg.records.records if kg is not None else ()
    return save_record(root, record, taken=taken)
