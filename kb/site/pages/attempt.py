"""An attempt's page: the one-screen summary, setup, measurements, error, evidence and sources.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kb.errortext import error_headline
from kb.models import Attempt, Blocker, Campaign, Metric, Outcome
from kb.queries import describe_fix, why
from kb.site.pages.compare import pair_page
from kb.site.pages.context import (
    Ctx,
    components_table,
    delta,
    headline,
    metric_name,
    outcome_cell,
    page_of,
    render,
    sources,
)
from kb.site.text import inline


def render_attempt(c: Ctx, a: Attempt) -> str:
    """An attempt's page: the one-screen summary, setup, measurements, error, evidence and sources."""
    kg = c.kg
    src = page_of(a)
    camp = kg.get(a.campaign)
    m = headline(kg, a)
    base = kg.get(a.baseline) if a.baseline else None
    base_m = headline(kg, base) if isinstance(base, Attempt) else None
    higher = not isinstance(camp, Campaign) or camp.metric.direction.value == "higher"
    w = why(kg, a.id)
    chains = [[{"link": c.link(src, kg.get(l.id)), "root": l.is_root,
                "fix": l.fix, "workaround": l.workaround} for l in chain] for chain in w.chains]
    fixes = []
    for bid in sorted(kg.causes_closure(a.blocked_by)):
        b = kg.get(bid)
        if isinstance(b, Blocker) and (b.fixed_by or b.workaround):
            fixes.append({"link": c.link(src, b), "fix": describe_fix(b, kg), "workaround": None})
    stack = kg.get(a.stack) if a.stack else None
    return render(
        "attempt.md.j2", a=a, src=src, summary=_attempt_summary(a, m),
        campaign=c.link(src, camp, a.campaign),
        platform=c.link(src, kg.get(a.platform), a.platform) if a.platform else None,
        stack=c.link(src, stack, a.stack or "") if a.stack else None,
        stack_summary=", ".join(f"{k} {v.version}" for k, v in sorted(kg.attempt_components(a).items())
                                if v.version and k in ("cuda", "torch", "flashinfer", "driver")),
        overrides=components_table(c, a.components),
        outcome=outcome_cell(a.outcome),
        metric=m.display() if m else None,
        metric_name=metric_name(camp.metric.name) if isinstance(camp, Campaign) else "",
        vs=({"link": c.link(src, base), "value": base_m.display(), "delta": delta(m.value, base_m.value, higher)}
            if m and base_m and isinstance(base, Attempt) else None),
        vs_campaign=(delta(m.value, camp.baseline.value, higher)
                     if m and isinstance(camp, Campaign) and camp.baseline and camp.baseline.unit == m.unit
                     and not (base_m and base_m.value == camp.baseline.value) else None),
        campaign_baseline=camp.baseline.display() if isinstance(camp, Campaign) and camp.baseline else None,
        baseline=c.link(src, base) if isinstance(base, Attempt) else None,
        metrics=[{"name": metric_name(k), "value": v.display(), "note": v.note} for k, v in a.metrics.items()],
        blocked_by=[c.link(src, kg.get(b), b) for b in a.blocked_by],
        chains=chains, fixes=fixes,
        matches=[c.link(src, kg.get(b), b) for b in w.matches],
        cited_by=[{"link": c.link(src, d), "status": d.status} for d in c.rev.citing.get(a.id, [])],
        compare=_compare_links(c, src, a), tags=c.tag_links(src, a.tags),
        command=_command_line(a), run_link=run_link(a.run_url),
        findings=w.findings, credit=w.credit, credit_text=w.credit_text,
        retries=[c.link(src, kg.get(x), x) for x in w.retries],
        sources=sources(a),
    )


def _compare_links(c: Ctx, src: str, a: Attempt) -> list[Markup]:
    """Links to the published compare pages this attempt is part of (baseline pair first), then
    to the picker with this attempt chosen."""
    kg = c.kg
    out = []
    mine = list(c.pairs_of.get(a.id, []))
    mine.sort(key=lambda p: (p.why != "baseline", p.why != "campaign baseline", p.a == a.id))
    for p in mine:
        other = kg.get(p.b if p.a == a.id else p.a)
        assert isinstance(other, Attempt)
        m = headline(kg, other)
        label = ("with baseline: " if p.b == a.id and p.why in ("baseline", "campaign baseline") else "with ") + \
            other.title + (f" ({m.display()})" if m else f" ({other.outcome.value})")
        if p.page:
            out.append(c.link_to(src, pair_page(p.a, p.b), label))
        else:
            picker = c.md_target(src, "compare/index.md") + f"?a={p.a}&amp;b={p.b}"
            out.append(Markup(f"[{inline(label + ', the closest earlier run')}]({picker})"))
    out.append(Markup(f"[any attempt…]({c.md_target(src, 'compare/index.md')}?a={a.id})"))
    return out


ADMONITIONS = {
    "baseline": "info",
    "improved": "success",
    "regressed": "warning",
    "neutral": "note",
    "failed": "failure",
    "inconclusive": "question",
}
"""The Material admonition type that frames an attempt's summary, by outcome."""


def error_heading(a: Attempt) -> str | None:
    """The text of the attempt page's Error heading (``KeyError: 12``, after ``Error: ``), or
    ``None`` when the page has no Error section; the site's search entry for the error uses it."""
    first = error_headline(a.error or "")
    if not first:
        return None
    return (first[:77] + "…") if len(first) > 80 else first


def _attempt_summary(a: Attempt, m: Metric | None) -> dict[str, Any]:
    """The one-screen answer at the top of an attempt page: admonition type and title, the
    first line of the error, and whether the full error needs its own section."""
    outcome = a.outcome.value
    title = outcome.capitalize() + (f": {m.display()}" if m else "")
    lines = (a.error or "").strip().splitlines()
    first = error_headline(a.error or "")
    return {
        "kind": ADMONITIONS.get(outcome, "note"),
        "title": title,
        "error": (first[:157] + "…") if len(first) > 160 else first,
        "error_in_full": len(lines) > 1 or len(first) > 160,
        # the error's first line is also the heading of the Error section, so that search ranks
        # this page first for it (Material's search weighs a section title 1000 times its text)
        "heading": error_heading(a) or "",
        "why_label": "Why it failed" if a.outcome == Outcome.failed else "Held back by",
    }


def run_link(url: str | None) -> Markup | None:
    """The link to an attempt's run in an experiment tracker (``run_url``, an http(s) URL the
    model checked), its address as the text; ``None`` without one.

    >>> str(run_link("http://127.0.0.1:5000/#/experiments/1/runs/ab12"))
    '<a class="kb-run" href="http://127.0.0.1:5000/#/experiments/1/runs/ab12" rel="nofollow noopener">127.0.0.1&#58;5000/&#35;/experiments/1/runs/ab12</a>'
    """
    if not url:
        return None
    return Markup('<a class="kb-run" href="{}" rel="nofollow noopener">{}</a>').format(url, inline(url.split("://", 1)[1]))


def _command_line(a: Attempt) -> str:
    """The attempt's configuration as shell text: env vars, then the command or flags; a line
    longer than 80 characters is continued with backslashes, one flag per line."""
    parts = [f"{k}={v}" for k, v in a.config.env.items()]
    if a.config.command:
        parts.append(a.config.command)
    elif a.config.flags:
        parts.append("… " + a.config.flags[0])
        parts.extend(a.config.flags[1:])
    line = " ".join(parts)
    if len(line) <= 80 or a.config.command:
        return line
    return " \\\n    ".join(parts)
