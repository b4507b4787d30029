"""The decision log and each ADR page, in MADR's sections.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kb.graph import RETIRING
from kb.models import Attempt, Campaign, Decision
from kb.queries import credit_sentence, decision_credit, findings_of
from kb.queries.compare import decision_effect
from kb.site.pages.compare import pair_page
from kb.site.pages.context import (
    Ctx,
    delta,
    headline,
    metric_name,
    outcome_cell,
    page_of,
    render,
    sources,
    with_titles,
)
from kb.site.text import inline


def decision_anchor(d: Decision) -> Markup:
    """The anchor of a decision's heading: ``adr-<id>``, from its id only (ids are slugs checked
    by :mod:`kb.models`, so the text is safe as it is). Titles, dates and other decisions never
    move it; see README, "Decision identities"."""
    return Markup(f"adr-{d.id}")


def render_decision(c: Ctx, d: Decision) -> str:
    """An ADR page in MADR's sections, with each option's evidence table and the stack change."""
    kg = c.kg
    src = page_of(d)
    options: list[dict[str, Any]] = []
    for o in d.considered_options:
        ev = []
        for aid in o.evidence:
            a = kg.get(aid)
            if isinstance(a, Attempt):
                m = headline(kg, a)
                ev.append({"link": c.link(src, a), "outcome": outcome_cell(a.outcome),
                           "metric": m.display() if m else "—", "date": a.date.isoformat()})
        options.append({"o": o, "chosen": o.title == d.outcome.chosen, "evidence": ev})
    change: list[dict[str, Any]] = []
    if d.stack_change:
        before = kg.stack_components(d.stack_change.from_) if d.stack_change.from_ else {}
        after = kg.stack_components(d.stack_change.to) if d.stack_change.to else dict(before)
        after = {**after, **d.stack_change.components}
        for k in sorted(set(before) | set(after)):
            v0 = before.get(k)
            v1 = after.get(k)
            if v0 != v1:
                change.append({"name": k, "from": (v0.version or v0.source) if v0 else "—",
                               "to": (v1.version or v1.source) if v1 else "—"})
    options_with_detail = [x for x in options if x["o"].description or x["o"].pros or x["o"].cons or x["evidence"]]
    disputed = _decision_disputes(c, src, d) if d.status == "accepted" else []
    return render(
        "decision.md.j2", d=d, anchor=decision_anchor(d), options=options, detailed=options_with_detail,
        summary=_summary(c, src, d, change), deciders=people(d.deciders),
        campaign=c.link(src, kg.get(d.campaign), d.campaign) if d.campaign else None,
        resolves=[c.link(src, kg.get(b), b) for b in d.resolves],
        supersedes=[c.link(src, kg.get(x), x) for x in d.supersedes],
        superseded_by=[c.link(src, x) if x.status in RETIRING else Markup(f"{c.link(src, x)} ({x.status}, not in force)")
                       for x in c.rev.superseded_by.get(d.id, [])],
        stack_from=c.link(src, kg.get(d.stack_change.from_), "") if d.stack_change and d.stack_change.from_ else None,
        stack_to=c.link(src, kg.get(d.stack_change.to), "") if d.stack_change and d.stack_change.to else None,
        change=change, sources=sources(d), tags=c.tag_links(src, d.tags),
        credit=decision_credit(kg, d), credit_sentence=credit_sentence,
        findings=[with_titles(c, src, f.message) for f in findings_of(kg, d)
                  if not (disputed and f.kind == "credit-disputed-by-catalog")],
        disputed=disputed,
    )


def _decision_disputes(c: Ctx, src: str, d: Decision) -> list[Markup]:
    """Where a catalog disagrees with what decision ``d`` resolves: for each blocker it resolves
    and each blocker caused by one of those, the disputes of
    :func:`kb.queries.counterparts.current_counterparts`, every record named by its title (its
    link), never by its id: "<own blocker> is resolved here, but <catalog blocker> (same error
    signature) still stands on <stack>: needs <requirement>"."""
    from kb.queries.counterparts import current_counterparts

    kg = c.kg
    out: list[Markup] = []
    seen: set[str] = set()
    for bid in d.resolves:
        todo = [bid]
        while todo:
            x = todo.pop()
            if x in seen:
                continue
            seen.add(x)
            todo.extend(sorted(kg.into(x, "caused_by")))
            for sid, dispute in current_counterparts(kg, x):
                state = "still stands" if dispute.state == "stands" else "is only disabled (the feature stays off)"
                where = c.link(src, kg.get(sid), sid) if sid else Markup("the current stack")
                need = (Markup(": needs ") + Markup(" and ").join(with_titles(c, src, m) for m in dispute.missing)
                        if dispute.missing else Markup(""))
                out.append(Markup(f"{c.link(src, kg.get(x), x)} is resolved here, but "
                                  f"{c.link(src, kg.get(dispute.catalog_id), dispute.catalog_id)} ({inline(dispute.why)}) "
                                  f"{state} on {where}{need}"))
    return out


TRANSCRIPT_ROLES = frozenset({"user", "assistant", "system", "human", "ai", "model", "tool", "agent",
                              "developer", "bot"})
"""Speaker roles of session transcripts (Claude Code, Codex, opencode, Gemini CLI): an importer
may copy them into ``deciders``, but they name no person, so the site never shows them."""


def people(deciders: list[str]) -> list[str]:
    """``deciders`` without transcript roles (``user``, ``assistant``, ...), in order."""
    return [x for x in deciders if x.strip().lower() not in TRANSCRIPT_ROLES]


STATUS_ADMONITION = {"accepted": "success", "proposed": "info", "rejected": "failure",
                     "deprecated": "warning", "superseded": "warning"}


def _summary(c: Ctx, src: str, d: Decision, change: list[dict[str, Any]]) -> dict[str, object]:
    """The box at the top of an ADR page: status, the decision in one line, the stack change in
    one line, and the effect on the campaign's headline metric linked to its evidence."""
    kg = c.kg
    chosen = next((o for o in d.considered_options if o.title == d.outcome.chosen), None)
    line = d.outcome.chosen
    if chosen and chosen.description:
        line = f"{line}: {chosen.description}"
    effect = None
    pair = decision_effect(kg, d)
    if pair:
        a, b = pair
        camp = kg.get(b.campaign)
        assert isinstance(camp, Campaign)
        ma, mb = a.metrics[camp.metric.name], b.metrics[camp.metric.name]
        effect = {"name": metric_name(camp.metric.name), "a": ma.display(), "b": mb.display(),
                  "delta": delta(mb.value, ma.value, camp.metric.direction.value == "higher"),
                  "link_a": c.link(src, a), "link_b": c.link(src, b),
                  "compare": c.link_to(src, pair_page(a.id, b.id), "compare the two runs")}
    versioned = sorted(change, key=lambda x: not (x["from"][:1].isdigit() and x["to"][:1].isdigit()))
    shown = [f"{x['name']} {x['from']} → {x['to']}" for x in versioned[:3]]
    return {
        "kind": STATUS_ADMONITION.get(d.status, "note"),
        "title": f"{d.status.capitalize()} on {d.date.isoformat()}",
        "decision": line,
        "stack": ", ".join(shown) + (f" and {len(change) - 3} more (below)" if len(change) > 3 else ""),
        "effect": effect,
        "resolves": [c.link(src, kg.get(b), b) for b in d.resolves],
    }


DECISIONS_SHOWN = 100
"""Rows of the decision log page (the newest); every decision is in its paginated list."""


def render_decisions_index(c: Ctx) -> str:
    """The decision log: ADRs with their status, date and chosen option, newest first (at most
    :data:`DECISIONS_SHOWN`, then a link to the paginated list of them all)."""
    src = "decisions/index.md"
    ds = sorted(c.of_kind(Decision), key=lambda d: (d.date, d.id), reverse=True)
    rows = [{"link": c.link(src, d), "status": d.status,
             "date": d.date.isoformat(), "chosen": d.outcome.chosen} for d in ds[:DECISIONS_SHOWN]]
    more = (c.list_link(src, "decisions", "Decision log", ds, f"All {len(ds)} decisions, newest first",
                        columns="decisions") if len(ds) > DECISIONS_SHOWN else None)
    return render("decisions_index.md.j2", rows=rows, more=more)
