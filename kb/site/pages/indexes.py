"""Stack, platform and kind index pages, the upgrade paths page and the tags page.
"""

from __future__ import annotations

from markupsafe import Markup

from kb.models import Attempt, Campaign, Platform, Record, Stack
from kb.queries import upgrade_paths
from kb.site.pages.context import (
    Ctx,
    attempt_row,
    components_table,
    metric_name,
    page_of,
    render,
    sources,
)
from kb.site.text import inline


def render_stack(c: Ctx, s: Stack) -> str:
    """A stack's page: components with the base chain applied, derived stacks, attempts on it."""
    kg = c.kg
    src = page_of(s)
    comps = kg.stack_components(s.id)
    return render("stack.md.j2", s=s, base=c.link(src, kg.get(s.base), s.base) if s.base else None,
                   components=components_table(c, comps),
                   attempts=[attempt_row(c, src, a) for a in kg.of_kind(Attempt) if a.stack == s.id],
                   derived=[c.link(src, x) for x in kg.of_kind(Stack) if x.base == s.id],
                   sources=sources(s))


def render_platform(c: Ctx, p: Platform) -> str:
    """A platform's page: GPUs, compute capability, interconnect, the campaigns on it."""
    src = page_of(p)
    return render("platform.md.j2", p=p,
                   campaigns=[c.link(src, x) for x in c.kg.of_kind(Campaign) if x.platform == p.id],
                   attempts=len([a for a in c.kg.of_kind(Attempt) if a.platform == p.id]),
                   sources=sources(p))


def render_index(c: Ctx, kind: type[Record], title: str, intro: str) -> str:
    """The index page of one record kind (attempts as a table, the others as a list)."""
    src = f"{kind.folder}/index.md"
    records = c.kg.of_kind(kind)
    if kind is Attempt:
        rows = [attempt_row(c, src, a) for a in sorted(records, key=lambda a: (a.date, a.id), reverse=True)]
        return render("attempts_index.md.j2", rows=rows, title=title, intro=intro)
    rows = []
    for r in records:
        extra = ""
        if isinstance(r, Stack):
            comps = c.kg.stack_components(r.id)
            extra = ", ".join(f"{k} {v.version}" for k, v in sorted(comps.items())
                              if v.version and k in ("cuda", "torch", "flashinfer"))
        elif isinstance(r, Platform):
            extra = f"{r.gpu_count}× {r.gpu}, compute capability {r.compute_capability}, {r.interconnect or ''}"
        elif isinstance(r, Campaign):
            extra = f"{metric_name(r.metric.name)}: " + (
                f"baseline {r.baseline.display()}" if r.baseline else "no baseline yet") + (
                f", result {r.result.display()}" if r.result else "")
        rows.append({"link": c.link(src, r), "extra": extra})
    return render("simple_index.md.j2", rows=rows, title=title, intro=intro)


def render_upgrades(c: Ctx) -> str:
    """For each stack, each candidate version the fixes name (:func:`kb.queries.upgrade_paths`):
    what moving to it resolves, only disables, introduces, makes worth retrying, and what still stands."""
    kg = c.kg
    src = "upgrades.md"

    def links(ids: list[str]) -> Markup:
        return Markup(", ".join(c.link(src, kg.get(x), x) for x in ids)) or Markup("—")

    sections = []
    for p in upgrade_paths(kg):
        rows = [{"change": r.change, "current": r.current or "—", "resolved": links(r.resolved),
                 "disabled": links(r.disabled), "introduced": links(r.introduced), "retry": links(r.retry),
                 "still": r.still} for r in p.rows]
        sections.append({"stack": c.link(src, kg.get(p.stack)), "standing": p.standing, "rows": rows,
                         "campaign": p.campaign, "note": p.note})
    return render("upgrades.md.j2", sections=sections)


def render_tags(c: Ctx) -> str:
    """The tags page: every tag with the records carrying it."""
    src = "tags.md"
    tags: dict[str, list[Markup]] = {}
    for r in sorted(c.kg.records.records.values(), key=lambda r: (r.kind, r.id)):
        for t in r.tags:
            tags.setdefault(t, []).append(Markup(f"{c.link(src, r)} ({inline(r.kind)})"))
    return render("tags.md.j2", tags=[(t, Markup(c.tag_anchors[t]), items) for t, items in sorted(tags.items())])
