"""Paginated lists: a long list of records gets pages of :data:`PER_PAGE` rows of its own.

A page that would grow with the campaign (a dashboard's attempts table, a root cause blocking
thousands of attempts, a stack, a tag, the decision log) shows at most :data:`ROWS` rows and
links here; so does a diagram's "and 412 more attempts" box. A list is registered by the page
that links to it (:meth:`ListRegistry.add`) and rendered once at the end of the render
(:func:`render_lists`), so only lists some page links to exist, and a page and its list come
from the same render.

List pages are plain HTML tables inside Markdown (Python-Markdown passes a raw HTML block through
without parsing it cell by cell, so 100 rows cost little) and carry ``search: exclude: true``
front matter, which keeps them out of Material's search index: people search for an attempt's
title or error, which its own page holds, not for lists of them.

Sources: ``lists/<key>/index.md`` for the first page, ``lists/<key>/<k>.md`` for page ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any, Callable

from kb.models import Attempt, Blocker, Decision, Record
from kb.site.pages.shared import OUTCOME_ICONS, headline, page_of, pair_page, upstream_url

if TYPE_CHECKING:  # pragma: no cover
    from kb.site.pages.context import Ctx

PER_PAGE = 100
"""Rows per list page."""

ROWS = 40
"""Rows of a table shown on an ordinary page; a longer table shows this many and links to its
list. A campaign of up to this many attempts looks as it did before lists existed."""

SEARCH_EXCLUDE = "---\nsearch:\n  exclude: true\n---\n\n"
"""Front matter that keeps a page out of Material's search index (its ``search.exclude`` meta)."""

COLUMNS = ("attempts", "decisions", "blockers", "records", "pairs")
"""The row shapes a list can have; see :func:`render_lists`."""


def list_src(key: str, page: int = 1) -> str:
    """Source path of page ``page`` (from 1) of list ``key``.

    >>> list_src("stack-s1"), list_src("stack-s1", 3)
    ('lists/stack-s1/index.md', 'lists/stack-s1/3.md')
    """
    return f"lists/{key}/index.md" if page == 1 else f"lists/{key}/{page}.md"


@dataclass
class KbList:
    """One registered list: its page title, an optional intro line (Markdown-free text), its
    items in display order and their row shape (one of :data:`COLUMNS`)."""

    title: str
    intro: str
    items: list[Any]
    columns: str


@dataclass
class ListRegistry:
    """The lists linked from pages, by key, and pages rendered whole by their builder (such as
    the older pages of a long timeline), by source path."""

    lists: dict[str, KbList] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)

    def add(self, key: str, title: str, items: list[Any], columns: str = "attempts", intro: str = "") -> str:
        """Register list ``key`` (a URL path segment: record ids and slugs are) and return the
        source of its first page. The same key registered again keeps the first registration;
        raises :class:`ValueError` for an unknown ``columns``."""
        if columns not in COLUMNS:
            raise ValueError(f"list {key}: columns must be one of {', '.join(COLUMNS)}, not {columns!r}")
        self.lists.setdefault(key, KbList(title, intro, list(items), columns))
        return list_src(key)


def render_lists(c: Ctx) -> dict[str, str]:
    """Every page of every list registered in ``c.lists``, and its whole pages: ``{src: markdown}``.

    Row shapes: ``attempts`` (date, attempt, outcome, headline figure, blockers), ``decisions``
    (date, decision, status, chosen option), ``blockers`` (blocker, caused by, attempts blocked
    directly and in all), ``records`` (record, kind), ``pairs`` (compare pairs: A, B, the link, why).
    """
    out: dict[str, str] = dict(c.lists.pages)
    for key, lst in c.lists.lists.items():
        pages = max(1, -(-len(lst.items) // PER_PAGE))
        for k in range(1, pages + 1):
            src = list_src(key, k)
            chunk = lst.items[(k - 1) * PER_PAGE: k * PER_PAGE]
            first = (k - 1) * PER_PAGE + 1
            head = f"# {escape(lst.title, quote=False)}" + (f" (page {k} of {pages})" if pages > 1 else "")
            parts = [SEARCH_EXCLUDE + head, ""]
            if lst.intro:
                parts += [escape(lst.intro, quote=False), ""]
            parts += [f"{len(lst.items)} in all; {first} to {first + len(chunk) - 1} here." if lst.items else "None.", ""]
            nav = pager(c, src, [list_src(key, i) for i in range(1, pages + 1)], k)
            if nav:
                parts += [nav, ""]
            if chunk:
                parts += [_TABLES[lst.columns](c, src, chunk), ""]
            if nav:
                parts += [nav, ""]
            out[src] = "\n".join(parts)
    return out


def pager(c: Ctx, src: str, sources: list[str], k: int, labels: tuple[str, str, str, str] = (
        "« first", "‹ previous", "next ›", "last »")) -> str:
    """HTML links from page ``k`` (from 1) of ``sources`` to the first, previous, next and last
    pages; ``""`` for a single page."""
    n = len(sources)
    if n <= 1:
        return ""
    links = []
    for label, target in zip(labels, (1, k - 1, k + 1, n)):
        if 1 <= target <= n and target != k:
            text = f"{label} ({target})" if label in (labels[0], labels[3]) else label
            links.append(f'<a href="{escape(c.href(src, sources[target - 1]))}">{escape(text, quote=False)}</a>')
    return '<p class="kb-pager">' + " · ".join(links) + f" · page {k} of {n}</p>"


def _a(c: Ctx, src: str, r: Record | None, rid: str = "") -> str:
    """A link to ``r``'s page; a catalog record without a page (:attr:`Ctx.published`) is its
    title marked as from the catalog, linked to its first upstream thread when it has one."""

    if r is None:
        return escape(rid, quote=False)
    if r.id not in c.published:
        text = f"{escape(r.title, quote=False)} (catalog {escape(c.kg.records.catalog_of.get(r.id, ''), quote=False)})"
        upstream = getattr(r, "upstream", None) or []
        return f'<a href="{escape(upstream_url(upstream[0]))}">{text}</a>' if upstream else text
    return f'<a href="{escape(c.href(src, page_of(r)))}">{escape(r.title, quote=False)}</a>'


def _table(head: list[str], rows: list[list[str]]) -> str:
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    out += ["<tr>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>" for row in rows]
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def _attempts(c: Ctx, src: str, items: list[Attempt]) -> str:

    rows = []
    for a in items:
        m = headline(c.kg, a)
        rows.append([a.date.isoformat(), _a(c, src, a) + (" <em>(draft)</em>" if a.status == "draft" else ""),
                     f"{OUTCOME_ICONS.get(a.outcome.value, '')} {escape(a.outcome.value)}",
                     escape(m.display()) if m else "—",
                     ", ".join(_a(c, src, c.kg.get(b), b) for b in a.blocked_by) or "—"])
    return _table(["Date", "Attempt", "Outcome", "Output", "Blocked by"], rows)


def _decisions(c: Ctx, src: str, items: list[Decision]) -> str:
    rows = [[d.date.isoformat(), _a(c, src, d), f"<strong>{escape(d.status)}</strong>", escape(d.outcome.chosen)]
            for d in items]
    return _table(["Date", "Decision", "Status", "Chosen option"], rows)


def _blockers(c: Ctx, src: str, items: list[Blocker]) -> str:
    rev = c.rev
    rows = [[_a(c, src, b) + (" (root cause)" if b.is_root else ""),
             ", ".join(_a(c, src, c.kg.get(p), p) for p in b.caused_by) or "—",
             str(len(rev.blocked_direct.get(b.id, []))), str(len(rev.blocked_all.get(b.id, [])))] for b in items]
    return _table(["Blocker", "Caused by", "Attempts blocked directly", "In all"], rows)


def _records(c: Ctx, src: str, items: list[Record]) -> str:
    return _table(["Record", "Kind"], [[_a(c, src, r), escape(r.kind)] for r in items])


def _pairs(c: Ctx, src: str, items: list[Any]) -> str:

    rows = []
    for p in items:
        if p.page:
            target = escape(c.href(src, pair_page(p.a, p.b)))
        else:
            target = escape(c.href(src, "compare/index.md")) + f"?a={escape(p.a)}&amp;b={escape(p.b)}"
        rows.append([_a(c, src, c.kg.get(p.a), p.a), _a(c, src, c.kg.get(p.b), p.b),
                     f'<a href="{target}">compare</a>', escape(p.why)])
    return _table(["A (reference)", "B", "Compare", "Why this pair"], rows)


_TABLES: dict[str, Callable[[Ctx, str, list[Any]], str]] = {
    "attempts": _attempts, "decisions": _decisions, "blockers": _blockers, "records": _records, "pairs": _pairs}
