"""Compare two attempts: what differs in configuration, stack, platform, metrics, outcome, blockers.

:func:`diff_attempts` is the one comparison: ``kb diff A B`` prints it and the site's compare
pages lay it out. :func:`compare_pairs` chooses which pairs the site publishes as pages (a
bounded set, never every pair of attempts). :func:`attempt_facts` flattens one attempt into the
same sections for the site's client-side picker, which compares any two attempts in the browser.

Orientation: ``a`` is the reference (usually the older run), ``b`` the one compared with it;
deltas are ``b − a`` and percentages are relative to ``a``.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.errors import QueryError
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Campaign, Decision, Platform
from kb.versions import parse_version

SECTIONS = ("flags", "env", "components", "platform")
"""The keyed sections of a comparison, in display order."""


@dataclass
class Change:
    """One key that differs between the two attempts: ``a`` / ``b`` are ``None`` where the key
    is absent on that side. ``direction`` (components only) is ``upgrade``, ``downgrade`` or
    ``""`` when the versions do not compare as PEP 440 versions."""

    key: str
    a: str | None
    b: str | None
    direction: str = ""


@dataclass
class MetricChange:
    """One metric of either attempt: values in ``unit``; ``delta`` = b − a and ``pct`` = delta / a
    × 100 when both sides have it in the same unit (``pct`` is ``None`` when a is 0).
    ``better`` is ``True``/``False`` for the campaign's headline metric (by its direction),
    ``None`` otherwise."""

    name: str
    unit: str
    a: float | None
    b: float | None
    delta: float | None = None
    pct: float | None = None
    headline: bool = False
    better: bool | None = None


@dataclass
class AttemptDiff:
    """What differs between attempts ``a`` and ``b``.

    ``sections`` maps each of :data:`SECTIONS` to its changed keys (unchanged keys are left out;
    ``same`` counts them per section). ``metrics`` lists every metric of either side, the
    headline first. ``outcome`` and ``stack`` are ``(a, b)`` pairs. ``blockers`` splits
    ``blocked_by`` into ``only_a``, ``only_b`` and ``both``.
    """

    a: str
    b: str
    title_a: str
    title_b: str
    date_a: str
    date_b: str
    outcome: tuple[str, str]
    stack: tuple[str | None, str | None]
    sections: dict[str, list[Change]] = field(default_factory=dict)
    same: dict[str, int] = field(default_factory=dict)
    metrics: list[MetricChange] = field(default_factory=list)
    blockers: dict[str, list[str]] = field(default_factory=dict)
    command: tuple[str | None, str | None] = (None, None)

    @property
    def headline(self) -> MetricChange | None:
        """The campaign's headline metric, when either side measured it."""
        return next((m for m in self.metrics if m.headline), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``kb diff --json``)."""
        return asdict(self)


def _flag_map(flags: list[str]) -> dict[str, str]:
    """``["--tp 8", "--enable-x"]`` → ``{"--tp": "8", "--enable-x": ""}`` (later flags win)."""
    out: dict[str, str] = {}
    for f in flags:
        name, _, value = f.strip().partition(" ")
        if "=" in name and name.startswith("-"):
            name, _, value = name.partition("=")
        out[name] = value.strip()
    return out


def attempt_facts(kg: KnowledgeGraph, a: Attempt) -> dict[str, dict[str, str]]:
    """The attempt's comparable facts, one flat ``{key: text}`` mapping per section of
    :data:`SECTIONS` (components resolved through the stack and its base chain, with versions)."""
    comps = kg.attempt_components(a)
    platform = kg.get(a.platform) if a.platform else None
    plat: dict[str, str] = {}
    if isinstance(platform, Platform):
        plat = {"platform": platform.id, "gpu": f"{platform.gpu_count}× {platform.gpu}",
                "compute capability": platform.compute_capability}
        if platform.interconnect:
            plat["interconnect"] = platform.interconnect
    elif a.platform:
        plat = {"platform": a.platform}
    return {
        "flags": _flag_map(a.config.flags),
        "env": dict(a.config.env),
        "components": {k: (v.version or v.source or "") for k, v in sorted(comps.items())},
        "platform": plat,
    }


def _direction(va: str | None, vb: str | None) -> str:
    if not va or not vb:
        return ""
    try:
        x, y = parse_version(va), parse_version(vb)
    except ValueError:
        return ""
    return "upgrade" if y > x else "downgrade" if y < x else ""


def _attempt(kg: KnowledgeGraph, rid: str) -> Attempt:
    r = kg.get(rid)
    if not isinstance(r, Attempt):
        known = difflib.get_close_matches(rid, [x.id for x in kg.of_kind(Attempt)], n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(known)}?" if known else "; 'kb roots' or the site's attempts page lists them"
        raise QueryError(f"no attempt with id '{rid}'{hint}")
    return r


def diff_attempts(kg: KnowledgeGraph, a_id: str, b_id: str) -> AttemptDiff:
    """Compare attempt ``a_id`` (the reference) with ``b_id``.

    Raises :class:`kb.errors.QueryError` naming an id that is not an attempt.
    """
    a, b = _attempt(kg, a_id), _attempt(kg, b_id)
    fa, fb = attempt_facts(kg, a), attempt_facts(kg, b)
    out = AttemptDiff(a=a.id, b=b.id, title_a=a.title, title_b=b.title, date_a=a.date.isoformat(),
                      date_b=b.date.isoformat(), outcome=(a.outcome.value, b.outcome.value),
                      stack=(a.stack, b.stack))
    for sec in SECTIONS:
        keys = list(dict.fromkeys([*fa[sec], *fb[sec]]))
        changes = []
        for k in keys:
            va, vb = fa[sec].get(k), fb[sec].get(k)
            if va != vb:
                changes.append(Change(k, va, vb, _direction(va, vb) if sec == "components" else ""))
        out.sections[sec] = changes
        out.same[sec] = len(keys) - len(changes)
    if a.config.command != b.config.command:
        out.command = (a.config.command, b.config.command)
    camp = kg.get(b.campaign)
    head = camp.metric.name if isinstance(camp, Campaign) else None
    higher = not isinstance(camp, Campaign) or camp.metric.direction.value == "higher"
    names = list(dict.fromkeys([*([head] if head else []), *a.metrics, *b.metrics]))
    for name in names:
        ma, mb = a.metrics.get(name), b.metrics.get(name)
        if ma is None and mb is None:
            continue
        unit = (mb or ma).unit  # type: ignore[union-attr]
        m = MetricChange(name, unit, ma.value if ma else None, mb.value if mb else None, headline=name == head)
        if ma and mb and ma.unit == mb.unit:
            m.delta = round(mb.value - ma.value, 6)
            m.pct = round(m.delta / ma.value * 100, 2) if ma.value else None
            if m.headline and m.delta:
                m.better = (m.delta > 0) == higher
        elif ma and mb:
            m.unit = f"{ma.unit} / {mb.unit}"
        out.metrics.append(m)
    sa, sb = set(a.blocked_by), set(b.blocked_by)
    out.blockers = {"only_a": [x for x in a.blocked_by if x not in sb],
                    "only_b": [x for x in b.blocked_by if x not in sa],
                    "both": [x for x in a.blocked_by if x in sb]}
    return out


def _similarity(fa: dict[str, dict[str, str]], fb: dict[str, dict[str, str]]) -> float:
    """Jaccard similarity of the (section, key, value) items of two attempts' facts."""
    return _jaccard(_items(fa), _items(fb))


def _items(facts: dict[str, dict[str, str]]) -> frozenset[tuple[str, str, str]]:
    """The ``(section, key, value)`` items of an attempt's facts."""
    return frozenset((s, k, v) for s in SECTIONS for k, v in facts[s].items())


def _jaccard(ia: frozenset[tuple[str, str, str]], ib: frozenset[tuple[str, str, str]]) -> float:
    """``|ia ∩ ib| / |ia ∪ ib|`` (0.0 when both are empty)."""
    both = len(ia & ib)
    either = len(ia) + len(ib) - both
    return both / either if either else 0.0


@dataclass(frozen=True)
class Pair:
    """A suggested comparison: ``a`` is the reference, ``b`` the attempt compared with it;
    ``why`` says how the pair was chosen (``baseline``, ``campaign baseline``, ``closest earlier
    run``, ``decision <id>``); ``page`` whether the site gives it a page of its own (otherwise
    its attempts link the browser-side picker with both chosen)."""

    a: str
    b: str
    why: str
    page: bool = True


def compare_pairs(kg: KnowledgeGraph, *, per_decision: int = 12, lookback: int = 100) -> list[Pair]:
    """The attempt pairs the site publishes as compare pages, without repeats.

    Pages: for every attempt ``b``, its ``baseline`` attempt (else its campaign's
    ``baseline_attempt``); for every decision, before/after pairs of its evidence (below).
    Suggested without a page (``page=False``, compared by the site's picker): the closest earlier run of its campaign (the one sharing most flags, env, component versions
    and platform facts, :func:`_similarity`; the latest on a tie; only the ``lookback`` runs before
    it are scored, so the cost stays linear). For every decision: each
    measured attempt cited by the chosen option and dated on or before the decision, paired with
    each one dated after it (before/after the decision), at most ``per_decision`` pairs. So at
    most one page per attempt plus ``per_decision`` per decision: linear in the records, never
    every pair. Any other pair is compared in the browser (the site's compare picker).
    Computed once per graph and arguments (a new list each call).
    """
    return list(kg.memo(("compare_pairs", per_decision, lookback), lambda: _compare_pairs(kg, per_decision, lookback)))


def _compare_pairs(kg: KnowledgeGraph, per_decision: int, lookback: int) -> list[Pair]:
    pairs: dict[tuple[str, str], Pair] = {}

    def add(a: str | None, b: str, why: str, page: bool = True) -> None:
        if a and a != b and isinstance(kg.get(a), Attempt) and (a, b) not in pairs and (b, a) not in pairs:
            pairs[(a, b)] = Pair(a, b, why, page)

    closest: list[tuple[str, str]] = []
    for camp in kg.of_kind(Campaign):
        attempts = kg.attempts_of(camp.id)
        items = [_items(attempt_facts(kg, x)) for x in attempts]
        for i, b in enumerate(attempts):
            add(b.baseline, b.id, "baseline")
            if not b.baseline:
                add(camp.baseline_attempt, b.id, "campaign baseline")
            if i:
                mine = items[i]
                # the latest of the most similar among the lookback runs before it
                best, score = -1, -1.0
                for j in range(i - 1, max(0, i - lookback) - 1, -1):
                    sim = _jaccard(items[j], mine)
                    if sim > score:
                        best, score = j, sim
                if score > 0:
                    closest.append((attempts[best].id, b.id))
    for d in kg.of_kind(Decision):
        before, after = decision_evidence(kg, d)
        effect = decision_effect(kg, d)
        if effect:
            add(effect[0].id, effect[1].id, f"decision {d.id}")
        n = 0
        for x in before:
            for y in after:
                if n < per_decision:
                    add(x.id, y.id, f"decision {d.id}")
                    n += 1
    for older, newer in closest:  # suggested, compared by the picker: no page of their own
        add(older, newer, "closest earlier run", page=False)
    return list(pairs.values())


def decision_evidence(kg: KnowledgeGraph, d: Decision) -> tuple[list[Attempt], list[Attempt]]:
    """The measured attempts cited by the chosen option of ``d``, split into those dated on or
    before the decision and those dated after it (each in citation order)."""
    chosen = next((o for o in d.considered_options if o.title == d.outcome.chosen), None)
    cited = [kg.get(x) for x in (chosen.evidence if chosen else [])]
    measured = [x for x in cited if isinstance(x, Attempt) and x.metrics]
    return [x for x in measured if x.date <= d.date], [x for x in measured if x.date > d.date]


def decision_effect(kg: KnowledgeGraph, d: Decision) -> tuple[Attempt, Attempt] | None:
    """The decision's effect on its campaign's headline metric: the best cited measurement before
    the decision and the best after it (best by the metric's direction), or ``None`` when the
    chosen option's evidence lacks a headline figure on either side."""
    camp = kg.get(d.campaign) if d.campaign else None
    if not isinstance(camp, Campaign):
        before, after = decision_evidence(kg, d)
        camps = {x.campaign for x in before + after}
        camp = kg.get(camps.pop()) if len(camps) == 1 else None
    if not isinstance(camp, Campaign):
        return None
    name = camp.metric.name
    pick = max if camp.metric.direction.value == "higher" else min
    before, after = ([x for x in side if name in x.metrics] for side in decision_evidence(kg, d))
    if not before or not after:
        return None
    return pick(before, key=lambda x: x.metrics[name].value), pick(after, key=lambda x: x.metrics[name].value)
