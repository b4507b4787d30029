"""Blocker and root-cause pages, with the cause diagram around each.
"""

from __future__ import annotations

from markupsafe import Markup

from kb.models import Attempt, Blocker, Decision
from kb.queries import describe_fix, findings_of, fix_phrase
from kb.site.charts import DiagramNode, cause_diagram, diagram_legend
from kb.site.pages.context import (
    Ctx,
    attempt_row,
    page_of,
    render,
    sources,
    upstream_url,
    with_drafts,
)


def _diagram_for(c: Ctx, src: str, blocker_ids: set[str], attempt_ids: set[str], focus: str | None,
                 title: str) -> Markup:
    kg = c.kg
    nodes: list[DiagramNode] = []
    edges: list[tuple[str, str]] = []
    for aid in sorted(attempt_ids):
        a = kg.get(aid)
        assert isinstance(a, Attempt)
        nodes.append(DiagramNode(aid, a.title, "attempt", c.href(src, page_of(a))))
        edges.extend((aid, b) for b in a.blocked_by if b in blocker_ids)
    for bid in sorted(blocker_ids):
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        nodes.append(DiagramNode(bid, b.title, "root" if b.is_root else "blocker", c.href(src, page_of(b)),
                                 status=blocker_status(c, b)))
        edges.extend((bid, p) for p in b.caused_by if p in blocker_ids)
    svg = cause_diagram(nodes, edges, focus=focus, title=title)
    return Markup(f'<div class="kb-diagram-box">\n{svg}\n</div>\n{diagram_legend(nodes, focus)}')


def blocker_status(c: Ctx, b: Blocker) -> str:
    """``fixed`` (its status says so, or an accepted decision resolves it), ``introduced`` (it
    applies only from some component version on: a lower bound in ``applies_when``) or ``open``."""
    if b.status == "fixed" or any(b.id in d.resolves and d.status == "accepted" for d in c.kg.of_kind(Decision)):
        return "fixed"
    if any(">" in str(spec) for spec in b.applies_when.components.values()):
        return "introduced"
    return "open"


def render_blocker(c: Ctx, b: Blocker) -> str:
    """A blocker's page: cause or root-cause status, the diagram around it, fix, applicability, signatures and the attempts it blocks."""
    kg = c.kg
    src = page_of(b)
    up = kg.causes_closure([b.id])
    down: set[str] = set()
    todo = [b.id]
    while todo:
        cur = todo.pop()
        for child in kg.into(cur, "caused_by"):
            if child not in down:
                down.add(child)
                todo.append(child)
    blockers = (up | down) & c.published
    attempts = {a for x in blockers & (down | {b.id}) for a in kg.into(x, "blocked_by")}
    direct = kg.into(b.id, "blocked_by")
    via = sorted(attempts - set(direct))
    return render(
        "blocker.md.j2", b=b,
        diagram=_diagram_for(c, src, blockers, attempts, b.id, f"Causes around {b.title}"),
        caused_by=[c.link(src, kg.get(p), p) for p in b.caused_by],
        causes=[c.link(src, kg.get(x), x) for x in kg.into(b.id, "caused_by")],
        fixed_by=[fix_phrase(f) for f in b.fixed_by]
        if len(b.fixed_by) > 1 or any(f.note or f.release or f.pr or f.reverted for f in b.fixed_by) else [],
        fix_text=describe_fix(b, kg),
        catalog=kg.records.catalog_of.get(b.id),
        findings=[f.message for f in findings_of(kg, b)],
        applies=b.applies_when,
        direct=[attempt_row(c, src, a) for x in direct if isinstance(a := kg.get(x), Attempt)],
        via=[attempt_row(c, src, a) for x in via if isinstance(a := kg.get(x), Attempt)],
        resolved_by=[c.link(src, d) for d in kg.of_kind(Decision) if b.id in d.resolves and d.status == "accepted"],
        claimed_by=[{"link": c.link(src, d), "status": d.status} for d in kg.of_kind(Decision)
                    if b.id in d.resolves and d.status != "accepted"],
        upstream=[{"text": u, "url": upstream_url(u)} for u in b.upstream],
        sources=sources(b), tags=c.tag_links(src, b.tags),
    )


def render_blockers_index(c: Ctx) -> str:
    """The root-causes page: roots ranked by attempts blocked, the whole cause diagram, the other blockers."""
    kg = c.kg
    src = "blockers/index.md"
    all_blockers = {b.id for b in kg.of_kind(Blocker) if b.id in c.published}
    attempts = {a.id for a in kg.of_kind(Attempt) if a.blocked_by}
    ranked = [{"rank": i + 1, "link": c.link(src, kg.get(r.id)), "attempts": with_drafts(len(r.attempts), len(r.drafts)),
               "blockers": len(r.blockers),
               "now": len(r.current), "fix": r.fix}
              for i, r in enumerate(c.roots) if r.id in c.published]
    others = [{"link": c.link(src, b), "causes": Markup(", ".join(c.link(src, kg.get(p), p) for p in b.caused_by)),
               "n": len(kg.into(b.id, "blocked_by"))} for b in kg.of_kind(Blocker)
              if not b.is_root and b.id in c.published]
    return render("blockers_index.md.j2", ranked=ranked, others=others,
                   diagram=_diagram_for(c, src, all_blockers, attempts, None, "Attempts, blockers and root causes"))
