"""The timeline of each campaign: attempts and decisions in date order, with the stack changes
between consecutive attempts and the best headline figure so far.
"""

from __future__ import annotations

from typing import Any

from kb.models import Attempt, Campaign, Decision
from kb.site.pages.context import Ctx, headline, metric_name, outcome_cell, render


def timeline_page(camp: Campaign) -> str:
    """Source path of a campaign's timeline: ``timeline/<campaign id>.md``."""
    return f"timeline/{camp.id}.md"


def _stack_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    out = []
    for k in sorted(set(before) | set(after)):
        v0, v1 = before.get(k), after.get(k)
        t0 = (v0.version or v0.source) if v0 else None
        t1 = (v1.version or v1.source) if v1 else None
        if t0 != t1:
            out.append(f"{k} {t0 or '—'} → {t1 or '—'}")
    return ", ".join(out)


def render_timeline(c: Ctx, camp: Campaign) -> str:
    """One campaign's timeline, grouped by day: each attempt (outcome, headline figure, the stack
    change since the previous attempt, whether it set a new best) and each decision."""
    kg = c.kg
    src = timeline_page(camp)
    higher = camp.metric.direction.value == "higher"
    events: list[tuple[Any, int, str, Any]] = [(a.date, 1, a.id, a) for a in kg.attempts_of(camp.id)]
    events += [(d.date, 0, d.id, d) for d in kg.of_kind(Decision) if d.campaign in (camp.id, None)]
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    days: list[dict[str, Any]] = []
    prev_comps: dict[str, Any] | None = None
    best: float | None = None
    for day, _kind, _id, r in events:
        if not days or days[-1]["date"] != day.isoformat():
            days.append({"date": day.isoformat(), "entries": []})
        if isinstance(r, Decision):
            days[-1]["entries"].append({"decision": True, "link": c.link(src, r), "status": r.status})
            continue
        assert isinstance(r, Attempt)
        comps = kg.attempt_components(r)
        change = _stack_change(prev_comps, comps) if prev_comps is not None else ""
        prev_comps = comps
        m = headline(kg, r)
        record = False
        if m is not None and (best is None or (m.value > best if higher else m.value < best)):
            record = best is not None
            best = m.value
        days[-1]["entries"].append({"decision": False, "link": c.link(src, r), "outcome": outcome_cell(r.outcome),
                                  "metric": m.display() if m else None, "record": record, "change": change,
                                  "draft": r.status == "draft"})
    return render("timeline.md.j2", camp=camp, days=days, metric=metric_name(camp.metric.name),
                  campaign=c.link(src, camp))


def render_timeline_index(c: Ctx) -> str:
    """The timelines page: one link per campaign."""
    src = "timeline/index.md"
    rows = [{"link": c.link_to(src, timeline_page(x), x.title), "n": len(c.kg.attempts_of(x.id))}
            for x in c.kg.of_kind(Campaign)]
    return render("timeline_index.md.j2", rows=rows)


__all__ = ["render_timeline", "render_timeline_index", "timeline_page"]
