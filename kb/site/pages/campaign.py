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
    sources,
    with_drafts,
)
from kb.site.pages.timeline import timeline_page


def _campaign_dashboard(c: Ctx, src: str, camp: Campaign) -> dict[str, Any]:
    kg = c.kg
    attempts = kg.attempts_of(camp.id)
    points = []
    for a in attempts:
        m = a.metrics.get(camp.metric.name)
        if m is None and a.outcome != Outcome.failed:
            continue
        points.append(ChartPoint(a.date, a.title, m.value if m else None, a.outcome.value,
                                 c.href(src, page_of(a))))
    base = camp.baseline.value if camp.baseline else None
    chart = metric_chart(points, metric=metric_name(camp.metric.name), unit=camp.metric.unit,
                         baseline=base, target=camp.target.value if camp.target else None,
                         higher_is_better=camp.metric.direction.value == "higher")
    counts = Counter(a.outcome.value for a in attempts)
    by_outcome = [{"outcome": outcome_cell(o.value), "count": counts.get(o.value, 0)}
                  for o in Outcome if counts.get(o.value)]
    ids = {a.id for a in attempts}
    top_roots = []
    for r in c.roots:
        n = len([x for x in r.attempts if x in ids])
        nd = len([x for x in r.drafts if x in ids])
        now = len([x for x in r.current if x in ids])
        if n or nd:
            top_roots.append({"link": c.link(src, kg.get(r.id)), "count": f"{now} now; {with_drafts(n, nd)} in all"})
    decisions = sorted((d for d in kg.of_kind(Decision) if d.campaign in (camp.id, None)),
                       key=lambda d: (d.date, d.id), reverse=True)[:5]
    higher = camp.metric.direction.value == "higher"
    measured = [(a, a.metrics[camp.metric.name]) for a in attempts if camp.metric.name in a.metrics]
    best = (max if higher else min)(measured, key=lambda x: x[1].value) if measured else None
    table = [{**attempt_row(c, src, a),
              "delta": delta(a.metrics[camp.metric.name].value, base, higher)
              if camp.metric.name in a.metrics and base is not None else ""} for a in attempts]
    return {
        "camp": camp,
        "chart": Markup(f'<div class="kb-chart-box">\n{chart}\n</div>'),
        "by_outcome": by_outcome,
        "top_roots": top_roots[:5],
        "decisions": [{"link": c.link(src, d), "status": d.status, "date": d.date.isoformat()}
                      for d in decisions],
        "best": {"link": c.link(src, best[0]), "value": best[1].display(),
                 "delta": delta(best[1].value, base, higher) if base is not None else ""} if best else None,
        "attempts": table,
        "platform": c.link(src, kg.get(camp.platform), camp.platform),
        "stack": c.link(src, kg.get(camp.stack), camp.stack) if camp.stack else None,
        "metric": metric_name(camp.metric.name),
        "n_attempts": len(attempts),
        "timeline": c.link_to(src, timeline_page(camp), "Timeline"),
        "compare": c.link_to(src, "compare/index.md", "compare attempts"),
    }


def render_home(c: Ctx) -> str:
    """The home page: counts, then each campaign's dashboard."""
    src = "index.md"
    camps = c.kg.of_kind(Campaign)
    dashboards = [_campaign_dashboard(c, src, camp) for camp in camps]
    return render("home.md.j2", dashboards=dashboards, campaigns=camps,
                   counts={k: len(c.kg.of_kind(m)) for k, m in
                           (("attempts", Attempt), ("blockers", Blocker), ("decisions", Decision))})


def render_campaign(c: Ctx, camp: Campaign) -> str:
    """A campaign's page: its goal and dashboard (chart, outcomes, root causes, decisions, attempts)."""
    src = page_of(camp)
    return render("campaign.md.j2", d=_campaign_dashboard(c, src, camp), sources=sources(camp))
