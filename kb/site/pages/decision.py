"""The decision log and each ADR page, in MADR's sections.
"""

from __future__ import annotations

from kb.models import Attempt, Decision
from kb.queries import credit_sentence, decision_credit, findings_of
from kb.site.pages.context import (
    Ctx,
    headline,
    outcome_cell,
    page_of,
    render,
    sources,
)


def render_decision(c: Ctx, d: Decision) -> str:
    """An ADR page in MADR's sections, with each option's evidence table and the stack change."""
    kg = c.kg
    src = page_of(d)
    options = []
    for o in d.considered_options:
        ev = []
        for aid in o.evidence:
            a = kg.get(aid)
            if isinstance(a, Attempt):
                m = headline(kg, a)
                ev.append({"link": c.link(src, a), "outcome": outcome_cell(a.outcome),
                           "metric": m.display() if m else "—", "date": a.date.isoformat()})
        options.append({"o": o, "chosen": o.title == d.outcome.chosen, "evidence": ev})
    change = []
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
    return render(
        "decision.md.j2", d=d, number=f"ADR-{c.adr_numbers[d.id]:04d}", options=options,
        campaign=c.link(src, kg.get(d.campaign), d.campaign) if d.campaign else None,
        resolves=[c.link(src, kg.get(b), b) for b in d.resolves],
        supersedes=[c.link(src, kg.get(x), x) for x in d.supersedes],
        superseded_by=[c.link(src, x) for x in kg.of_kind(Decision) if d.id in x.supersedes],
        stack_from=c.link(src, kg.get(d.stack_change.from_), "") if d.stack_change and d.stack_change.from_ else None,
        stack_to=c.link(src, kg.get(d.stack_change.to), "") if d.stack_change and d.stack_change.to else None,
        change=change, sources=sources(d),
        credit=decision_credit(kg, d), credit_sentence=credit_sentence,
        findings=[f.message for f in findings_of(kg, d)],
    )


def render_decisions_index(c: Ctx) -> str:
    """The decision log: every ADR with its display number, status, date and chosen option."""
    src = "decisions/index.md"
    ds = sorted(c.kg.of_kind(Decision), key=lambda d: (d.date, d.id), reverse=True)
    rows = [{"number": f"ADR-{c.adr_numbers[d.id]:04d}", "link": c.link(src, d), "status": d.status,
             "date": d.date.isoformat(), "chosen": d.outcome.chosen} for d in ds]
    return render("decisions_index.md.j2", rows=rows)
