"""The timeline of each campaign: attempts and decisions in date order, with the stack changes
between consecutive attempts and the best headline figure so far.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kb.models import Attempt, Campaign, Decision
from kb.site.pages.context import ROWS, Ctx, headline, metric_name, outcome_cell, render
from kb.site.pages.lists import SEARCH_EXCLUDE, pager


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


TIMELINE_PAGE = 100
"""Attempts on each older page of a long timeline (the first page holds the newest
:data:`~kb.site.pages.lists.ROWS`)."""


def _events(c: Ctx, camp: Campaign) -> list[dict[str, Any]]:
    """The campaign's days, oldest first: ``{"date", "entries"}`` with one entry per attempt
    (outcome, figure, stack change since the previous attempt, new best) and per decision."""
    kg = c.kg
    higher = camp.metric.direction.value == "higher"
    events: list[tuple[Any, int, str, Any]] = [(a.date, 1, a.id, a) for a in c.rev.attempts_of.get(camp.id, [])]
    events += [(d.date, 0, d.id, d) for d in c.rev.decisions_of.get(camp.id, []) + c.rev.decisions_of.get(None, [])]
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    days: list[dict[str, Any]] = []
    prev_comps: dict[str, Any] | None = None
    best: float | None = None
    for day, _kind, _id, r in events:
        if not days or days[-1]["date"] != day.isoformat():
            days.append({"date": day.isoformat(), "entries": []})
        if isinstance(r, Decision):
            days[-1]["entries"].append({"decision": True, "record": r, "status": r.status})
            continue
        assert isinstance(r, Attempt)
        comps = kg.attempt_components(r)
        change = _stack_change(prev_comps, comps) if prev_comps is not None else ""
        prev_comps = comps
        m = headline(kg, r)
        new_best = False
        if m is not None and (best is None or (m.value > best if higher else m.value < best)):
            new_best = best is not None
            best = m.value
        days[-1]["entries"].append({"decision": False, "record": r, "outcome": outcome_cell(r.outcome),
                                    "metric": m.display() if m else None, "new_best": new_best, "change": change,
                                    "draft": r.status == "draft"})
    return days


def _paginate(days: list[dict[str, Any]], first: int, rest: int) -> list[list[dict[str, Any]]]:
    """Days cut into pages, newest page first, each page's days oldest first: the first page
    holds at most ``first`` attempts, the others at most ``rest``; whole days stay on one page
    unless a day alone has more (then it is cut, its date heading repeated)."""
    pages: list[list[dict[str, Any]]] = []
    cur: list[dict[str, Any]] = []
    count = 0

    def cap() -> int:
        return first if not pages else rest

    for day in reversed(days):
        n = sum(1 for e in day["entries"] if not e["decision"])
        if cur and count + n > cap():
            pages.append(cur[::-1])
            cur, count = [], 0
        if n <= cap():
            cur.append(day)
            count += n
            continue
        pieces: list[list[dict[str, Any]]] = [[]]  # the day's entries from the newest, cut by cap
        left = cap()
        for e in reversed(day["entries"]):
            if not e["decision"] and left == 0:
                pieces.append([])
                left = rest
            pieces[-1].append(e)
            left -= 0 if e["decision"] else 1
        for i, piece in enumerate(pieces):
            part = {"date": day["date"], "entries": piece[::-1]}
            if i < len(pieces) - 1:
                pages.append([part])
            else:
                cur, count = [part], sum(1 for e in piece if not e["decision"])
    if cur or not pages:
        pages.append(cur[::-1])
    return pages


def render_timeline(c: Ctx, camp: Campaign) -> str:
    """One campaign's timeline, grouped by day: each attempt (outcome, headline figure, the stack
    change since the previous attempt, whether it set a new best) and each decision.

    A campaign of more than :data:`~kb.site.pages.lists.ROWS` attempts gets its newest ``ROWS``
    here, with a count per month, and older pages of :data:`TIMELINE_PAGE` attempts under
    ``lists/timeline-<campaign id>/`` (out of the search index), linked by a pager; those pages are
    registered in ``c.lists.pages`` and published with the lists."""
    days = _events(c, camp)
    pages = _paginate(days, ROWS, TIMELINE_PAGE)
    srcs = [timeline_page(camp)] + [f"lists/timeline-{camp.id}/{k}.md" for k in range(2, len(pages) + 1)]
    months: list[dict[str, Any]] = []
    if len(pages) > 1:
        where: dict[str, dict[str, Any]] = {}
        for k, page in enumerate(pages):
            for day in page:
                m = where.setdefault(day["date"][:7], {"month": day["date"][:7], "n": 0, "page": k})
                m["n"] += sum(1 for e in day["entries"] if not e["decision"])
        months = sorted(where.values(), key=lambda m: m["month"], reverse=True)
    out = ""
    for k in range(len(pages) - 1, -1, -1):  # older pages first: all are rendered in this call
        src = srcs[k]
        page_days = [{"date": day["date"], "entries": [_entry(c, src, e) for e in day["entries"]]}
                     for day in pages[k]]
        month_rows = [{"month": m["month"], "n": m["n"],
                       "link": c.link_to(src, srcs[m["page"]], f"page {m['page'] + 1}")} for m in months]
        md = render("timeline.md.j2", camp=camp, days=page_days, metric=metric_name(camp.metric.name),
                    campaign=c.link(src, camp), page=k + 1, pages=len(pages),
                    pager=Markup(pager(c, src, srcs, k + 1, ("« newest", "‹ newer", "older ›", "oldest »"))),
                    months=month_rows if k == 0 else [],
                    total=sum(1 for d in days for e in d["entries"] if not e["decision"]))
        if k:
            c.lists.pages[src] = SEARCH_EXCLUDE + md
        else:
            out = md
    return out


def _entry(c: Ctx, src: str, e: dict[str, Any]) -> dict[str, Any]:
    if e["decision"]:
        return {"decision": True, "link": c.link(src, e["record"]), "status": e["status"]}
    return {"decision": False, "link": c.link(src, e["record"]), "outcome": e["outcome"], "metric": e["metric"],
            "record": e["new_best"], "change": e["change"], "draft": e["draft"]}


def render_timeline_index(c: Ctx) -> str:
    """The timelines page: one link per campaign."""
    src = "timeline/index.md"
    rows = [{"link": c.link_to(src, timeline_page(x), x.title), "n": len(c.rev.attempts_of.get(x.id, []))}
            for x in c.of_kind(Campaign)]
    return render("timeline_index.md.j2", rows=rows)


__all__ = ["render_timeline", "render_timeline_index", "timeline_page"]
