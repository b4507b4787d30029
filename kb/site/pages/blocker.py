"""Blocker and root-cause pages, with the cause diagram around each.

Both stay bounded whatever the campaign's size: a diagram taller than :data:`DIAGRAM_ROWS` rows
is drawn aggregated (counts linked to paginated lists), and each attempts table shows at most
:data:`~kb.site.pages.lists.ROWS` rows, linking to the list of them all.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kb.models import Attempt, Blocker
from kb.queries import describe_fix, findings_of, fix_phrase
from kb.site.charts import DiagramNode, cause_diagram, diagram_legend, diagram_rows
from kb.site.pages.context import (
    ROWS,
    Ctx,
    attempt_row,
    latest,
    page_of,
    plural,
    render,
    sources,
    upstream_url,
    with_drafts,
    with_titles,
)
from kb.site.pages.reverse import newest_first
from kb.site.text import inline

DIAGRAM_ROWS = 24
"""Boxes in the tallest column of a cause diagram (each row is :data:`~kb.site.charts.DIAGRAM_ROW_PX`
px, so 24 rows are about 1,700 px: two screens). A diagram that would be taller is drawn
aggregated: counts linked to lists instead of one box per attempt."""

DIAGRAM_ATTEMPTS = 8
"""Attempts a blocker's aggregated diagram draws one by one (the newest it blocks directly); the
others become one "and N more attempts" box linked to their list."""

DIAGRAM_CHILDREN = 10
"""Blockers it causes that a blocker's aggregated diagram draws (those blocking most attempts),
each with one box counting its attempts; the others become one "and N more blockers" box."""

ROOTS_IN_DIAGRAM = 20
"""Root causes drawn in the aggregated diagram of the root-causes page (the most blocking first)."""


def _svg(nodes: list[DiagramNode], edges: list[tuple[str, str]], focus: str | None, title: str) -> Markup:
    svg = cause_diagram(nodes, edges, focus=focus, title=title)
    return Markup(f'<div class="kb-diagram-box" data-search-exclude>\n{svg}\n</div>\n{diagram_legend(nodes, focus)}')


def _full_diagram(c: Ctx, src: str, blocker_ids: set[str], attempt_ids: set[str]
                  ) -> tuple[list[DiagramNode], list[tuple[str, str]]]:
    """One box per attempt and per blocker (the diagram of a small campaign)."""
    kg = c.kg
    nodes: list[DiagramNode] = []
    edges: list[tuple[str, str]] = []
    for aid in sorted(attempt_ids):
        a = kg.get(aid)
        assert isinstance(a, Attempt)
        nodes.append(DiagramNode(aid, a.title, "attempt", c.href(src, page_of(a))))
        edges.extend((aid, b) for b in a.blocked_by if b in blocker_ids)
    for bid in sorted(blocker_ids):
        nodes.append(_blocker_node(c, src, bid))
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        edges.extend((bid, p) for p in b.caused_by if p in blocker_ids)
    return nodes, edges


def _blocker_node(c: Ctx, src: str, bid: str) -> DiagramNode:
    b = c.kg.get(bid)
    assert isinstance(b, Blocker)
    return DiagramNode(bid, b.title, "root" if b.is_root else "blocker", c.href(src, page_of(b)),
                       status=blocker_status(c, b))


def _fits(nodes: list[DiagramNode], edges: list[tuple[str, str]]) -> bool:
    return diagram_rows([n.id for n in nodes], edges) <= DIAGRAM_ROWS


def all_attempts_key(b: Blocker) -> str:
    """Key of the list of every attempt ``b`` blocks, directly or through the blockers it causes."""
    return f"blocker-{b.id}"


def all_attempts_href(c: Ctx, src: str, b: Blocker) -> str:
    """URL from ``src`` of the list of every attempt ``b`` blocks (newest first), registered here."""
    return c.list_href(src, all_attempts_key(b), f"Attempts blocked by {b.title}",
                       newest_first(c.rev.blocked_all.get(b.id, [])))


def _blocker_diagram(c: Ctx, src: str, b: Blocker) -> Markup:
    """The diagram around ``b``: its causes up to the root causes, the blockers it causes and
    the attempts they block. When that would be taller than :data:`DIAGRAM_ROWS` rows, the
    blockers it causes are drawn only one level down (at most :data:`DIAGRAM_CHILDREN`, the
    most blocking), each with one box counting its attempts and linked to their list; of its
    own attempts the newest :data:`DIAGRAM_ATTEMPTS` are drawn and an "and N more attempts" box
    links to the list of them all."""
    kg, rev = c.kg, c.rev
    title = f"Causes around {b.title}"
    up = kg.causes_closure([b.id])
    down = (rev.descendants(b.id) - up) & c.published  # a catalog's other blockers have no page
    attempts = {a.id for x in down | {b.id} for a in rev.blocked_direct.get(x, [])}
    if len(attempts) <= DIAGRAM_ROWS:  # attempts all sit in the first column: more cannot fit
        nodes, edges = _full_diagram(c, src, up | down, attempts)
        if _fits(nodes, edges):
            return _svg(nodes, edges, b.id, title)
    nodes, edges = [], []
    shown_up = [b.id] + sorted(up - {b.id})[: DIAGRAM_ROWS - 1]
    for bid in shown_up:
        nodes.append(_blocker_node(c, src, bid))
        x = kg.get(bid)
        assert isinstance(x, Blocker)
        edges.extend((bid, p) for p in x.caused_by if p in shown_up)
    drawn: set[str] = set()

    def attempt_node(a: Attempt) -> None:
        if a.id not in drawn:
            drawn.add(a.id)
            nodes.append(DiagramNode(a.id, a.title, "attempt", c.href(src, page_of(a))))

    children = [k for k in rev.children.get(b.id, []) if k not in up and k in c.published]
    children.sort(key=lambda k: (-len(rev.blocked_all.get(k, [])), k))
    for k in children[:DIAGRAM_CHILDREN]:
        x = kg.get(k)
        assert isinstance(x, Blocker)
        nodes.append(_blocker_node(c, src, k))
        edges.append((k, b.id))
        blocked = rev.blocked_all.get(k, [])
        if len(blocked) == 1:
            attempt_node(blocked[0])
            edges.append((blocked[0].id, k))
        elif blocked:
            nodes.append(DiagramNode(f"{k} (attempts)", plural(len(blocked), "attempt"), "more",
                                     all_attempts_href(c, src, x)))
            edges.append((f"{k} (attempts)", k))
    if len(children) > DIAGRAM_CHILDREN:
        rest = len(children) - DIAGRAM_CHILDREN
        href = c.list_href(src, f"blocker-{b.id}-causes", f"Blockers caused by {b.title}",
                           [kg.get(k) for k in children], columns="blockers")
        nodes.append(DiagramNode("(more blockers)", f"and {plural(rest, 'more blocker')} it causes", "more", href))
        edges.append(("(more blockers)", b.id))
    direct = newest_first(rev.blocked_direct.get(b.id, []))
    for a in direct[:DIAGRAM_ATTEMPTS]:
        attempt_node(a)
        edges.append((a.id, b.id))
    if len(direct) > DIAGRAM_ATTEMPTS:
        href = c.list_href(src, f"blocker-{b.id}-direct", f"Attempts blocked directly by {b.title}", direct)
        rest = len(direct) - DIAGRAM_ATTEMPTS
        nodes.append(DiagramNode("(more attempts)", f"and {plural(rest, 'more attempt')}", "more", href))
        edges.append(("(more attempts)", b.id))
    return _svg(nodes, edges, b.id, title)


def blocker_status(c: Ctx, b: Blocker) -> str:
    """``fixed`` (an accepted decision resolves it, or its status says fixed and a fix does more
    than disable the feature), ``disabled`` (its status says fixed upstream, but every fix only
    turns the feature off cleanly: kind ``disables``), ``introduced`` (it applies only from some
    component version on: a lower bound in ``applies_when``) or ``open``."""
    if any(d.status == "accepted" for d in c.rev.resolved_by.get(b.id, [])):
        return "fixed"
    if b.status == "fixed":
        return "disabled" if b.fixed_by and all(f.kind == "disables" for f in b.fixed_by) else "fixed"
    if any(">" in str(spec) for spec in b.applies_when.components.values()):
        return "introduced"
    return "open"


def render_blocker(c: Ctx, b: Blocker) -> str:
    """A blocker's page: cause or root-cause status, the diagram around it, fix, applicability,
    signatures and the attempts it blocks (each table at most :data:`~kb.site.pages.lists.ROWS`
    rows, the newest; every attempt it blocks in one paginated list)."""
    kg, rev = c.kg, c.rev
    src = page_of(b)
    direct = rev.blocked_direct.get(b.id, [])
    direct_ids = {a.id for a in direct}
    via = [a for a in rev.blocked_all.get(b.id, []) if a.id not in direct_ids]
    shown_direct, shown_via = latest(direct), latest(via)
    everything = len(direct) + len(via)
    all_link = (c.link_to(src, c.lists.add(all_attempts_key(b), f"Attempts blocked by {b.title}",
                                           newest_first(rev.blocked_all.get(b.id, []))),
                          f"All {everything} attempts it blocks, newest first")
                if len(shown_direct) < len(direct) or len(shown_via) < len(via) else None)
    children = rev.children.get(b.id, [])
    causes = [c.link(src, kg.get(x), x) for x in children[:ROWS]]
    causes_link = (c.list_link(src, f"blocker-{b.id}-causes", f"Blockers caused by {b.title}",
                               [kg.get(k) for k in children], f"all {len(children)} blockers it causes",
                               columns="blockers") if len(children) > ROWS else None)
    decisions = rev.resolved_by.get(b.id, [])
    return render(
        "blocker.md.j2", b=b,
        diagram=_blocker_diagram(c, src, b),
        caused_by=[c.link(src, kg.get(p), p) for p in b.caused_by],
        causes=causes, causes_link=causes_link,
        fixed_by=[fix_phrase(f) for f in b.fixed_by]
        if len(b.fixed_by) > 1 or any(f.note or f.release or f.pr or f.reverted for f in b.fixed_by) else [],
        fix_text=describe_fix(b, kg),
        catalog=kg.records.catalog_of.get(b.id),
        findings=[f.message for f in findings_of(kg, b)],
        disputed=_page_disputes(c, b),
        applies=b.applies_when,
        direct=[attempt_row(c, src, a) for a in shown_direct], n_direct=len(direct),
        via=[attempt_row(c, src, a) for a in shown_via], n_via=len(via),
        all_link=all_link,
        resolved_by=[c.link(src, d) for d in decisions if d.status == "accepted"],
        claimed_by=[{"link": c.link(src, d), "status": d.status} for d in decisions if d.status != "accepted"],
        upstream=[{"text": u, "url": upstream_url(u)} for u in b.upstream],
        sources=sources(b), tags=c.tag_links(src, b.tags),
    )


def _page_disputes(c: Ctx, b: Blocker) -> list[str]:
    """What the catalogs say against this blocker's resolution on the current stack: for a root
    cause, its row's disputes (:attr:`kb.queries.RootCause.disputes`); for any blocker of the
    campaign's own, the catalog blockers of the same failure that still stand where the records
    resolve it (:func:`kb.queries.counterparts.current_disputes`)."""
    from kb.queries.counterparts import current_disputes

    out = current_disputes(c.kg, b.id)
    row = next((r for r in c.roots if r.id == b.id), None)
    for d in row.disputes if row is not None else []:
        says = (f"says {d['claim'].replace('fixed_by', 'fixed by')}" if d["claim"].startswith("fixed_by")
                else f"still {d['claim']}")
        out.append(f"{d['source']}'s \"{d['title']}\" ({d['record']}), which its attempts also reached, {says}")
    return out


def _index_diagram(c: Ctx, src: str) -> Markup:
    """The whole cause diagram when it fits in :data:`DIAGRAM_ROWS` rows; else the
    :data:`ROOTS_IN_DIAGRAM` most blocking root causes, each with one box counting the attempts
    it blocks (linked to their list), and one box for the other root causes."""
    rev = c.rev
    title = "Attempts, blockers and root causes"
    blocked = {a.id for a in c.of_kind(Attempt) if a.blocked_by}
    if len(blocked) <= DIAGRAM_ROWS:  # attempts all sit in the first column: more cannot fit
        nodes, edges = _full_diagram(c, src, {b.id for b in c.of_kind(Blocker)}, blocked)
        if _fits(nodes, edges):
            return _svg(nodes, edges, None, title)
    ranked = sorted((b for b in c.of_kind(Blocker) if b.is_root),
                    key=lambda b: (-len(rev.blocked_all.get(b.id, [])), b.id))
    nodes, edges = [], []
    for b in ranked[:ROOTS_IN_DIAGRAM]:
        nodes.append(_blocker_node(c, src, b.id))
        n = len(rev.blocked_all.get(b.id, []))
        if n:
            nodes.append(DiagramNode(f"{b.id} (attempts)", plural(n, "attempt"), "more", all_attempts_href(c, src, b)))
            edges.append((f"{b.id} (attempts)", b.id))
    if len(ranked) > ROOTS_IN_DIAGRAM:
        rest = ranked[ROOTS_IN_DIAGRAM:]
        href = c.list_href(src, "roots", "Root causes", ranked, columns="blockers")
        nodes.append(DiagramNode("(more roots)", f"and {plural(len(rest), 'more root cause')}", "more", href))
    return _svg(nodes, edges, None, title)


OTHERS_SHOWN = 100
"""Rows of the "other blockers" table of the root-causes page (the most blocking first, when there
are more); every blocker is in its paginated list."""


def _disputed(c: Ctx, src: str, r: Any) -> Markup:
    """The disputes of root-cause row ``r`` (:class:`kb.queries.RootCause`) in words, each record by
    its title: ``"<catalog root> still stands on cuda-13.0"``, ``"<campaign root> says fixed_by ..."``."""
    parts = []
    for d in r.disputes:
        says = f"says {d['claim'].replace('fixed_by', 'fixed by')}" if d["claim"].startswith("fixed_by") else f"still {d['claim']}"
        parts.append(Markup(f"{c.link(src, c.kg.get(d['record']), d['record'])} {inline(says)}"))
    return Markup("; ").join(parts)


def render_blockers_index(c: Ctx) -> str:
    """The root-causes page: roots ranked by attempts blocked (each root's fix and disputes under
    its title, in the same cell: as columns of their own they squeezed the titles to a word a
    line on a laptop's screen), the cause diagram (aggregated when large,
    :func:`_index_diagram`), the other blockers (at most :data:`OTHERS_SHOWN`)."""
    kg, rev = c.kg, c.rev
    src = "blockers/index.md"
    ranked = [{"rank": i + 1, "link": c.link(src, kg.get(r.id)), "attempts": with_drafts(len(r.attempts), len(r.drafts)),
               "blockers": len(r.blockers),
               "now": len(r.current), "fix": with_titles(c, src, r.fix), "disputed": _disputed(c, src, r)}
              for i, r in enumerate(c.roots[:OTHERS_SHOWN])]
    ranked_more = (c.list_link(src, "roots", "Root causes",
                               sorted((b for b in c.of_kind(Blocker) if b.is_root),
                                      key=lambda b: (-len(rev.blocked_all.get(b.id, [])), b.id)),
                               f"All {len(c.roots)} root causes", columns="blockers")
                   if len(c.roots) > OTHERS_SHOWN else None)
    others = [b for b in c.of_kind(Blocker) if not b.is_root]
    others_more = None
    if len(others) > OTHERS_SHOWN:
        others.sort(key=lambda b: (-len(rev.blocked_direct.get(b.id, [])), b.id))
        others_more = c.list_link(src, "blockers-other", "Blockers that are not root causes", others,
                                  f"All {len(others)} other blockers, the most blocking first", columns="blockers")
        others = others[:OTHERS_SHOWN]
    rows = [{"link": c.link(src, b), "causes": Markup(", ".join(c.link(src, kg.get(p), p) for p in b.caused_by)),
             "n": len(rev.blocked_direct.get(b.id, []))} for b in others]
    return render("blockers_index.md.j2", ranked=ranked, ranked_more=ranked_more, others=rows,
                  others_more=others_more, diagram=_index_diagram(c, src), not_met=len(c.roots_report.not_met),
                  any_dispute=any(r["disputed"] for r in ranked))
