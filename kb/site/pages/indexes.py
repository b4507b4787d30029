"""Stack, platform and kind index pages, the upgrade paths page and the tags page.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from markupsafe import Markup

from kb.models import Attempt, Campaign, Platform, Record, Stack
from kb.queries import upgrade_paths
from kb.site.pages.context import (
    ROWS,
    Ctx,
    attempt_row,
    components_table,
    latest,
    metric_name,
    page_of,
    render,
    sources,
    with_titles,
)
from kb.site.pages.drafts import drafts_line, is_draft, reviewed
from kb.site.pages.reverse import newest_first
from kb.site.text import inline


def render_stack(c: Ctx, s: Stack) -> str:
    """A stack's page: components with the base chain applied, derived stacks, attempts on it (at
    most :data:`~kb.site.pages.lists.ROWS`, the newest; all of them in a paginated list)."""
    kg = c.kg
    src = page_of(s)
    comps = kg.stack_components(s.id)
    on_it = sorted(c.rev.attempts_of.get(s.id, []), key=lambda a: a.id)  # by id, as the page always was
    rows = latest(on_it)
    all_link = (c.list_link(src, f"stack-{s.id}", f"Attempts on {s.title}", newest_first(on_it),
                            f"All {len(on_it)} attempts on this stack, newest first")
                if len(rows) < len(on_it) else None)
    return render("stack.md.j2", s=s, base=c.link(src, kg.get(s.base), s.base) if s.base else None,
                   components=components_table(c, comps),
                   attempts=[attempt_row(c, src, a) for a in rows], n_attempts=len(on_it), all_link=all_link,
                   derived=[c.link(src, x) for x in c.rev.derived.get(s.id, [])],
                   sources=sources(s))


def render_platform(c: Ctx, p: Platform) -> str:
    """A platform's page: GPUs, compute capability, interconnect, the campaigns on it."""
    src = page_of(p)
    return render("platform.md.j2", p=p,
                   campaigns=[c.link(src, x) for x in c.of_kind(Campaign) if x.platform == p.id],
                   attempts=len(c.rev.attempts_of.get(p.id, [])),
                   sources=sources(p))


INDEX_ROWS = 100
"""Records listed on a kind's index page (campaigns, stacks, platforms); more are in its list."""


def render_index(c: Ctx, kind: type[Record], title: str, intro: str) -> str:
    """The index page of one record kind: reviewed attempts as a table of the newest
    :data:`~kb.site.pages.lists.ROWS` (with a count per month and a link to the paginated list
    of all when there are more; the drafts are counted and linked, listed on their own page:
    :mod:`kb.site.pages.drafts`), the others as a list (at most :data:`INDEX_ROWS`)."""
    src = f"{kind.folder}/index.md"
    records = c.of_kind(kind)
    if kind is Attempt:
        newest = newest_first(reviewed(records))
        line = drafts_line(c, src, [a for a in records if is_draft(a)])
        intro = Markup(f"{inline(intro)} {line}") if line else intro
        rows = [attempt_row(c, src, a) for a in newest[:ROWS]]
        more = (c.list_link(src, "attempts", "All attempts", newest, f"All {len(newest)} attempts, newest first")
                if len(newest) > ROWS else None)
        months: list[dict[str, Any]] = []
        if more:
            by_month: dict[str, Counter[str]] = {}
            for a in newest:
                by_month.setdefault(a.date.strftime("%Y-%m"), Counter())[a.outcome.value] += 1
            months = [{"month": k, "total": sum(v.values()), "failed": v.get("failed", 0)}
                      for k, v in sorted(by_month.items(), reverse=True)]
        return render("attempts_index.md.j2", rows=rows, title=title, intro=intro, more=more, months=months)
    rows = []
    for r in records[:INDEX_ROWS]:
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
    more = (c.list_link(src, kind.folder, title, records, f"All {len(records)}", columns="records")
            if len(records) > INDEX_ROWS else None)
    return render("simple_index.md.j2", rows=rows, title=title, intro=intro, more=more)


UPGRADE_LINKS = 5
"""Links in one cell of the upgrade paths table; a cell with more shows this many and "and N
more", linked to the list of them all (unless the site is small, :attr:`Ctx.small`)."""

UPGRADE_STACKS = 8
"""Stacks the upgrade paths page shows; with more, the stacks in use now (:func:`_current_stacks`)."""


def _current_stacks(c: Ctx, stack_ids: list[str]) -> list[str]:
    """``stack_ids`` when there are at most :data:`UPGRADE_STACKS`; else those in use now: each
    campaign's starting stack and the stack of its latest attempt, in ``stack_ids`` order."""
    if len(stack_ids) <= UPGRADE_STACKS:
        return stack_ids
    used: set[str] = set()
    for camp in c.of_kind(Campaign):
        if camp.stack:
            used.add(camp.stack)
        latest_stack = next((a.stack for a in reversed(c.rev.attempts_of.get(camp.id, [])) if a.stack), None)
        if latest_stack:
            used.add(latest_stack)
    return [s for s in stack_ids if s in used]


def render_upgrades(c: Ctx) -> str:
    """For each stack (in use now, beyond :data:`UPGRADE_STACKS`), each candidate version the fixes
    name (:func:`kb.queries.upgrade_paths`): a table of how many blockers moving to it resolves,
    only disables, introduces, how many attempts become worth retrying and how many blockers still
    stand; then, under a heading of its own that the table links, each change's blockers and
    attempts by title (each list at most :data:`UPGRADE_LINKS` links, then a link to the list of
    them all) and the catalogs' disputes of what it resolves. Titles never sit in the table: seven
    columns of them wrapped one word a line on a laptop's screen."""
    kg = c.kg
    src = "upgrades.md"

    def links(ids: list[str], key: str, title: str, columns: str) -> list[Markup]:
        shown_ids = ids if len(ids) <= UPGRADE_LINKS or c.small else ids[:UPGRADE_LINKS]
        out = [c.link(src, kg.get(x), x) for x in shown_ids]
        if len(ids) > len(shown_ids):
            records = [r for x in ids if (r := kg.get(x)) is not None]
            out.append(c.list_link(src, key, title, records, f"{len(ids) - len(shown_ids)} more", columns=columns))
        return out

    every = [x.id for x in kg.of_kind(Stack)]  # the stacks upgrade_paths reasons about
    paths = upgrade_paths(kg, stacks=_current_stacks(c, every))  # only those shown are computed
    sections = []
    for p in paths:
        rows = []
        for i, r in enumerate(p.rows, 1):
            key = f"upgrades-{p.stack}-{i}"
            what = f"{r.change} from {p.stack}"
            lists = [(label, links(ids, f"{key}-{part}", f"{title} {what}", columns))
                     for label, ids, part, title, columns in (
                         ("Resolves", r.resolved, "resolved", "Blockers", "blockers"),
                         ("Only disables (the feature stays off)", r.disabled, "disabled", "Blockers", "blockers"),
                         ("Introduces", r.introduced, "introduced", "Blockers", "blockers"),
                         ("Worth retrying", r.retry, "retry", "Attempts worth retrying after", "attempts"))
                     if ids]
            rows.append({"change": r.change, "current": r.current or "—", "anchor": Markup(key) if lists else None,
                         "resolved": _count(len(r.resolved)), "disputed": len(r.disputed),
                         "disabled": _count(len(r.disabled)), "introduced": _count(len(r.introduced)),
                         "retry": _count(len(r.retry)), "still": r.still, "lists": lists,
                         "disputes": [_dispute_line(c, src, d) for d in r.disputed]})
        shown = sum(1 for x in p.standing_ids if x in c.published)
        sections.append({"stack": c.link(src, kg.get(p.stack)), "standing": shown, "unmet": p.standing - shown, "rows": rows,
                         "campaign": p.campaign, "note": p.note})
    return render("upgrades.md.j2", sections=sections, left_out=len(every) - len(sections),
                  catalogs=c.md_target(src, "catalogs.md"))


def _count(n: int) -> str:
    """A count in the upgrade paths table: ``—`` for none."""
    return str(n) if n else "—"


def _dispute_line(c: Ctx, src: str, d: dict[str, Any]) -> Markup:
    """One dispute of an upgrade row in titles: "X: resolved here (how), but the catalog's Y still
    stands: needs Z" (``kb why`` on X's attempts explains it)."""
    own, theirs = c.kg.get(d["own"]), c.kg.get(d["catalog_id"])
    state = "still stands" if d["state"] == "stands" else "is only disabled"
    need = Markup(": needs ") + Markup(" and ").join(with_titles(c, src, x) for x in d["missing"]) if d.get("missing") else ""
    return Markup(f"{c.link(src, own, d['own'])} is resolved here ({inline(d['by'])}), but catalog "
                  f"{inline(d['catalog'])}'s {c.link(src, theirs, d['catalog_id'])} ({inline(d['why'])}) "
                  f"{state}{need}")


TAG_SHOWN = 5
"""Records listed under one tag on the tags page; a tag with more lists this many and links to
the paginated list of them all (unless the site is small, :attr:`Ctx.small`)."""


def render_tags(c: Ctx) -> str:
    """The tags page: every tag with the records carrying it (sorted by kind, then id; beyond
    :data:`TAG_SHOWN`, the first ones and a link to the list of them all)."""
    src = "tags.md"
    tags = []
    for t, records in sorted(c.rev.tagged.items()):
        cut = len(records) > TAG_SHOWN and not c.small
        items = [Markup(f"{c.link(src, r)} ({inline(r.kind)})") for r in (records[:TAG_SHOWN] if cut else records)]
        more = (c.list_link(src, c.tag_anchors[t], f"Tagged {t}", records, f"all {len(records)} tagged {t}",
                            columns="records") if cut else None)
        tags.append((t, Markup(c.tag_anchors[t]), items, more))
    return render("tags.md.j2", tags=tags)


def render_catalogs(c: Ctx) -> str:
    """The catalogs page: every record of each loaded catalog, whether an attempt here met it,
    and its audit (:func:`kb.queries.audit.catalog_audit`: when it was last checked against its
    sources, what that verified, which signatures were read off code; stale beyond
    :data:`kb.queries.audit.STALE_AFTER_DAYS` days, judged on :func:`kb.queries.audit.today`)."""
    from kb.queries.audit import STALE_AFTER_DAYS, catalog_audit, today

    src = "catalogs.md"
    on = today()
    rows = catalog_audit(c.kg, on)
    out = ["# Catalogs", ""]
    if not rows:
        out += ["No catalog is loaded. A campaign lists the catalogs it uses under `catalogs:` "
                "(the Blackwell catalog ships with kb: `catalogs: [blackwell]`)."]
        return "\n".join(out) + "\n"
    out += [f"Shared, read-only blocker records, judged on {on.isoformat()}. A record is *stale* when its last "
            f"check against its sources is more than {STALE_AFTER_DAYS} days old (`kb check -v` lists them). "
            "Only the records an attempt met, or that dispute a record of the campaign, appear on the "
            "campaign's pages; the others link to their upstream thread.", ""]
    for name in sorted({r.catalog for r in rows}):
        mine = [r for r in rows if r.catalog == name]
        stale = sum(r.stale for r in mine)
        met = sum(r.id in c.published for r in mine)
        inferred = sum(bool(r.inferred_signatures) for r in mine)
        out += [f"## {inline(name)}", "",
                f"{len(mine)} records ({sum(r.root for r in mine)} root causes); {met} met here; "
                f"{stale} stale; {inferred} with a signature inferred from code rather than seen in a report.", "",
                "| Record | Kind | Upstream status | Checked | Verified | Met here |", "|---|---|---|---|---|---|"]
        for r in mine:
            rec = c.kg.get(r.id)
            checked = r.checked.isoformat() if r.checked else "never"
            if r.stale:
                checked += f" (stale: {r.age_days} days)" if r.age_days is not None else " (stale)"
            verified = str(inline("; ".join(r.verified) or "—"))
            if r.inferred_signatures:
                verified += "; inferred from code, not seen in a report: " + ", ".join(
                    f"<code>{inline(s)}</code>" for s in r.inferred_signatures)
            out.append("| " + " | ".join([
                str(c.link(src, rec, r.id)), "root cause" if r.root else "blocker", str(inline(r.status)),
                str(inline(checked)), verified, "yes" if r.id in c.published else "—"]) + " |")
        out.append("")
    return "\n".join(out)
