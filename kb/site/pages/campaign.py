"""The home page and each campaign's dashboard: headline metric over time, outcomes, root causes, decisions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from markupsafe import Markup

from kb.models import Attempt, Blocker, Campaign, Decision, Outcome
from kb.site.charts import ChartPoint, metric_chart
from kb.site.pages.context import (
    Ctx,
    attempt_row,
    delta,
    metric_name,
    outcome_cell,
    page_of,
    render,
    shown,
    sources,
    with_drafts,
)
from kb.site.pages.drafts import drafts_line, is_draft, reviewed
from kb.site.pages.reverse import newest_first
from kb.site.pages.timeline import timeline_page
from kb.site.text import inline

MAX_CHART_POINTS = 300
"""Above this many marks a campaign's chart shows, per period (at most :data:`CHART_PERIODS`), the
best figure and one cross for the failures instead of one mark per attempt."""

CHART_PERIODS = 100
"""Periods of an aggregated chart: at most 2 × this many marks whatever the campaign's size."""

DASHBOARDS_ON_HOME = 3
"""With more campaigns than this, the home page lists them in one table instead of showing each
dashboard (each campaign's page keeps its dashboard), so the home page stays about one screen."""


def _chart_points(c: Ctx, src: str, camp: Campaign, attempts: list[Attempt]) -> tuple[list[ChartPoint], bool]:
    """The chart's marks, oldest first, and whether they were aggregated: one per attempt with a
    figure or failed, up to :data:`MAX_CHART_POINTS`; beyond, per period of equal days, the best
    figure (linked to its attempt) and one cross counting the period's failures (linked to the
    list of the campaign's failed attempts)."""
    name = camp.metric.name
    points = [(a, a.metrics.get(name)) for a in attempts if name in a.metrics or a.outcome == Outcome.failed]
    if len(points) <= MAX_CHART_POINTS:
        return [ChartPoint(a.date, a.title, m.value if m else None, a.outcome.value, c.href(src, page_of(a)))
                for a, m in points], False
    first, last = points[0][0].date, points[-1][0].date
    width = max(1, -(-((last - first).days + 1) // CHART_PERIODS))  # days per period
    higher = camp.metric.direction.value == "higher"
    periods: dict[int, list[tuple[Attempt, Any]]] = {}
    for a, m in points:
        periods.setdefault((a.date - first).days // width, []).append((a, m))
    failed_all = newest_first([a for a in attempts if a.outcome == Outcome.failed])
    failed_href = c.list_href(src, f"campaign-{camp.id}-failed", f"Failed attempts of {camp.title}", failed_all)
    out = []
    for _k, group in sorted(periods.items()):
        measured = [(a, m) for a, m in group if m is not None]
        failed = [a for a, m in group if m is None]
        if measured:
            a, m = (max if higher else min)(measured, key=lambda x: x[1].value)
            label = f"{a.title} (best of {len(measured)} measured)" if len(measured) > 1 else a.title
            out.append(ChartPoint(a.date, label, m.value, a.outcome.value, c.href(src, page_of(a))))
        if failed:
            if len(failed) > 1:
                label = f"{len(failed)} failed attempts, {failed[0].date.isoformat()} to {failed[-1].date.isoformat()}"
                out.append(ChartPoint(failed[0].date, label, None, "failed", failed_href))
            else:
                out.append(ChartPoint(failed[0].date, failed[0].title, None, "failed", c.href(src, page_of(failed[0]))))
    return out, True


def _campaign_dashboard(c: Ctx, src: str, camp: Campaign) -> dict[str, Any]:
    kg = c.kg
    every = c.rev.attempts_of.get(camp.id, [])  # oldest first
    attempts = reviewed(every)  # drafts are listed apart (kb.site.pages.drafts)
    points, aggregated = _chart_points(c, src, camp, attempts)
    base = camp.baseline.value if camp.baseline else None
    chart = metric_chart(points, metric=metric_name(camp.metric.name), unit=camp.metric.unit,
                         baseline=base, target=camp.target.value if camp.target else None,
                         higher_is_better=camp.metric.direction.value == "higher")
    counts = Counter(a.outcome.value for a in attempts)
    by_outcome = [{"outcome": outcome_cell(o.value), "count": counts.get(o.value, 0)}
                  for o in Outcome if counts.get(o.value)]
    ids = {a.id for a in every}  # root causes count the drafts apart ("3 (+1 draft)")
    top_roots = []
    for r in c.roots:
        n = len([x for x in r.attempts if x in ids])
        nd = len([x for x in r.drafts if x in ids])
        now = len([x for x in r.current if x in ids])
        if n or nd:
            disputed = "; ".join(f"{d['title']} ({d['source']}) {'says ' + d['claim'].replace('fixed_by', 'fixed by') if d['claim'].startswith('fixed_by') else 'still ' + d['claim']}"
                                 for d in r.disputes)
            top_roots.append({"link": c.link(src, kg.get(r.id)), "count": f"{with_drafts(n, nd)} in all; {now} now",
                              "disputed": inline(disputed) if disputed else ""})
    decisions = sorted(c.rev.decisions_of.get(camp.id, []) + c.rev.decisions_of.get(None, []),
                       key=lambda d: (d.date, d.id), reverse=True)[:5]
    higher = camp.metric.direction.value == "higher"
    measured = [(a, a.metrics[camp.metric.name]) for a in attempts if camp.metric.name in a.metrics]
    best = (max if higher else min)(measured, key=lambda x: x[1].value) if measured else None
    table = [{**attempt_row(c, src, a),
              "delta": delta(a.metrics[camp.metric.name].value, base, higher)
              if camp.metric.name in a.metrics and base is not None else ""} for a in shown(attempts, last=True)]
    all_link = (c.list_link(src, f"campaign-{camp.id}", f"Attempts of {camp.title}", newest_first(attempts),
                            f"All {len(attempts)} attempts, newest first")
                if len(table) < len(attempts) else None)
    return {
        "camp": camp,
        "chart": Markup(f'<div class="kb-chart-box" data-search-exclude>\n{chart}\n</div>'),
        "by_outcome": by_outcome,
        "top_roots": top_roots[:5],
        "next": _next_steps(c, src, camp),
        "decisions": [{"link": c.link(src, d), "status": d.status, "date": d.date.isoformat()}
                      for d in decisions],
        "best": {"link": c.link(src, best[0]), "value": best[1].display(),
                 "delta": delta(best[1].value, base, higher) if base is not None else ""} if best else None,
        "attempts": table,
        "all_attempts": all_link,
        "aggregated": aggregated,
        "platform": c.link(src, kg.get(camp.platform), camp.platform),
        "stack": c.link(src, kg.get(camp.stack), camp.stack) if camp.stack else None,
        "metric": metric_name(camp.metric.name),
        "n_attempts": len(attempts),
        "drafts": drafts_line(c, src, [a for a in every if is_draft(a)]),
        "timeline": c.link_to(src, timeline_page(camp), "Timeline"),
        "compare": c.link_to(src, "compare/index.md", "compare attempts"),
    }


def render_home(c: Ctx) -> str:
    """The home page: counts, then each campaign's dashboard (or, beyond
    :data:`DASHBOARDS_ON_HOME` campaigns, one summary row per campaign)."""
    src = "index.md"
    camps = c.of_kind(Campaign)
    counts = {k: len(c.of_kind(m)) for k, m in (("blockers", Blocker), ("decisions", Decision))}
    counts["attempts"] = len(reviewed(c.of_kind(Attempt)))
    if len(camps) <= DASHBOARDS_ON_HOME:
        dashboards = [_campaign_dashboard(c, src, camp) for camp in camps]
        return render("home.md.j2", dashboards=dashboards, summary=[], campaigns=camps, counts=counts)
    rows = []
    for camp in camps:
        atts = reviewed(c.rev.attempts_of.get(camp.id, []))
        higher = camp.metric.direction.value == "higher"
        measured = [a.metrics[camp.metric.name] for a in atts if camp.metric.name in a.metrics]
        best = (max if higher else min)(measured, key=lambda m: m.value) if measured else None
        rows.append({"link": c.link(src, camp), "attempts": len(atts),
                     "failed": sum(1 for a in atts if a.outcome == Outcome.failed),
                     "best": best.display() if best else "—",
                     "latest": atts[-1].date.isoformat() if atts else "—"})
    return render("home.md.j2", dashboards=[], summary=rows, campaigns=camps, counts=counts)


NEXT_SHOWN = 3
"""Steps of ``kb next`` a campaign's dashboard shows (the command lists them all)."""


def _next_steps(c: Ctx, src: str, camp: Campaign) -> list[dict[str, Any]]:
    """The first :data:`NEXT_SHOWN` steps of :func:`kb.queries.next_steps` for ``camp``: what to do,
    linked to its target record, and why."""
    from kb.queries import next_steps

    out = []
    for st in next_steps(c.kg, camp.id)[:NEXT_SHOWN]:
        target = c.kg.get(st.target)
        out.append({"title": inline(st.title), "link": c.link(src, target, st.target) if target is not None else None,
                    "reason": inline(st.reason), "unblocks": st.rank["unblocks"]})
    return out


def render_campaign(c: Ctx, camp: Campaign) -> str:
    """A campaign's page: its goal and dashboard (chart, outcomes, root causes, decisions, attempts)."""
    src = page_of(camp)
    return render("campaign.md.j2", d=_campaign_dashboard(c, src, camp), sources=sources(camp))
