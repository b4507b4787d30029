"""What a record edit changes in the site, and rendering only those pages (``kb serve``).

Three steps, each a function:

1. :func:`changed_records`: the ids added, removed or edited between two loads;
2. :func:`affected_pages`: the source paths of the pages that can show anything of them;
3. :func:`render_pages`: those pages' Markdown, from the same page builders as
   :func:`kb.site.pages.render_site` (a page this module cannot place raises
   :class:`UnknownPage`: the caller then rebuilds everything).

Which pages an edit reaches (``old``: the site as last built, ``new``: the records now):

* an attempt whose changed fields are all *text* (:data:`TEXT_FIELDS`: title, approach,
  hypothesis, notes, source) changes its own page and the pages that show its title or text,
  which are exactly the pages that link it: every page shows a record through a link (or an SVG
  ``href``, or a compare page's path) holding its id, so those are the pages of the last build
  whose Markdown holds the id;
* any other attempt edit (outcome, metrics, stack, blockers, date, an added or deleted attempt)
  changes, besides those, the pages that aggregate it: the home page, the attempts, root-cause,
  compare and timeline indexes, the upgrade paths, its campaign's page and timeline, its stack
  and platform pages, every blocker up its cause chains (a root cause lists and counts the
  attempts under it), the records it refers to or that refer to it, the attempts whose compare
  pairs moved, the attempts it re-runs or that re-run it (:func:`kb.queries.retries_of`,
  :func:`kb.queries.retried`) and the decisions of its campaign (their credit names the
  attempts that isolate a fix), all in both the old and the new graph;
* an edit of any other kind (a blocker, decision, stack, platform, campaign) can move counts,
  statuses and diagrams across the site: every page is rendered again (:data:`EVERYTHING`), and
  the caller still rebuilds only those whose Markdown changed.

A paginated list (``lists/<key>/…``) is rendered by the page that registers it, so a wanted list
page brings that page (the one linking ``lists/<key>/``) and every page of each list it links
(:func:`with_lists`). The caller compares each rendered page with the last build's Markdown and
sends only the changed ones through MkDocs; a wider set costs render time, never a wrong page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision, Platform, Record, Stack
from kb.queries import retried, retries_of
from kb.queries.compare import Pair
from kb.site.pages.attempt import render_attempt
from kb.site.pages.blocker import render_blocker, render_blockers_index
from kb.site.pages.campaign import render_campaign, render_home
from kb.site.pages.compare import pair_page, render_compare, render_compare_index
from kb.site.pages.context import Ctx, page_of
from kb.site.pages.decision import render_decision, render_decisions_index
from kb.site.pages.indexes import (
    render_catalogs,
    render_index,
    render_platform,
    render_stack,
    render_tags,
    render_upgrades,
)
from kb.site.pages.timeline import render_timeline, render_timeline_index, timeline_page

TEXT_FIELDS = frozenset({"title", "approach", "hypothesis", "notes", "source"})
"""Attempt fields that only show as text: no query, count, chart position or page choice uses
them, so an edit of these alone reaches only the pages that link the attempt."""

EVERYTHING = "*"
"""In :func:`affected_pages`' answer: every page of the site may have changed."""

ATTEMPT_AGGREGATES = ("index.md", "attempts/index.md", "blockers/index.md", "compare/index.md",
                      "timeline/index.md", "upgrades.md", "catalogs.md")
"""Pages that summarise every attempt: rendered again after any structural attempt edit."""

INDEX_PAGES: dict[str, Callable[[Ctx], str]] = {
    "index.md": render_home,
    "attempts/index.md": lambda c: render_index(c, Attempt, "Attempts", "Everything tried, newest first."),
    "campaigns/index.md": lambda c: render_index(c, Campaign, "Campaigns", "Each campaign's goal and headline metric."),
    "stacks/index.md": lambda c: render_index(c, Stack, "Stacks", "Software stacks, with inherited components resolved."),
    "platforms/index.md": lambda c: render_index(c, Platform, "Platforms", "Hardware the attempts ran on."),
    "blockers/index.md": render_blockers_index,
    "decisions/index.md": render_decisions_index,
    "upgrades.md": render_upgrades,
    "tags.md": render_tags,
    "catalogs.md": render_catalogs,
    "compare/index.md": lambda c: render_compare_index(c, c.pairs),
    "timeline/index.md": render_timeline_index,
}
"""The site's fixed pages and their builders, as :func:`kb.site.pages.render_site` makes them."""

RECORD_PAGES: dict[type[Record], Callable[[Ctx, Record], str]] = {
    Attempt: render_attempt,  # type: ignore[dict-item]
    Blocker: render_blocker,  # type: ignore[dict-item]
    Decision: render_decision,  # type: ignore[dict-item]
    Stack: render_stack,  # type: ignore[dict-item]
    Platform: render_platform,  # type: ignore[dict-item]
    Campaign: render_campaign,  # type: ignore[dict-item]
}
"""One page per record of these kinds, at :func:`kb.site.pages.context.page_of`."""


class UnknownPage(Exception):
    """A page source path this module cannot render alone (the site's shape changed): rebuild
    everything instead."""


@dataclass
class Edit:
    """What changed between two loads: ``ids`` added, removed or edited, and, for attempts
    present in both, the names of the fields that differ (``fields[id]``)."""

    ids: set[str] = field(default_factory=set)
    fields: dict[str, set[str]] = field(default_factory=dict)


def changed_records(old: KnowledgeGraph, new: KnowledgeGraph) -> Edit:
    """The records added, removed or edited from ``old`` to ``new`` (compared by value)."""
    a, b = old.records.records, new.records.records
    edit = Edit(set(a) ^ set(b))
    for rid in a.keys() & b.keys():
        x, y = a[rid], b[rid]
        if x is y or x == y:
            continue
        edit.ids.add(rid)
        if type(x) is type(y):
            edit.fields[rid] = {f for f in type(x).model_fields if getattr(x, f) != getattr(y, f)}
    return edit


def is_text_edit(old: KnowledgeGraph, new: KnowledgeGraph, edit: Edit) -> bool:
    """Whether every changed record is an attempt, in both loads, with only :data:`TEXT_FIELDS` changed."""
    return all(isinstance(old.get(rid), Attempt) and isinstance(new.get(rid), Attempt)
               and edit.fields.get(rid, {"?"}) <= TEXT_FIELDS for rid in edit.ids)


def pages_mentioning(pages: Mapping[str, str], ids: Iterable[str]) -> set[str]:
    """Source paths of the ``pages`` (``{src: markdown}``) whose text holds one of ``ids``: every
    link, SVG ``href``, compare-page path and JSON key to a record does. (A plain substring
    test: it may also find an id inside a longer one, which costs a render, never a stale page.)"""
    wanted = set(ids)
    return {src for src, md in pages.items() if any(i in md for i in wanted)}


def affected_pages(old: KnowledgeGraph, new: KnowledgeGraph, edit: Edit, pages: Mapping[str, str],
                   old_pairs: Iterable[tuple[str, str, bool]] = (),
                   new_pairs: Iterable[tuple[str, str, bool]] = ()) -> set[str]:
    """Source paths of the pages ``edit`` can change (see the module docstring), or
    ``{EVERYTHING}``. ``pages``: the last build's Markdown by source path; ``old_pairs`` and
    ``new_pairs``: the compare pairs ``(a, b, has a page)`` before and after (only needed for a
    structural attempt edit)."""
    if not edit.ids:
        return set()
    if not all(isinstance(kg.get(rid), Attempt) for rid in edit.ids for kg in (old, new) if kg.get(rid) is not None):
        return {EVERYTHING}
    out = pages_mentioning(pages, edit.ids)
    for kg in (old, new):
        out.update(page_of(r) for rid in edit.ids if (r := kg.get(rid)) is not None)
    if is_text_edit(old, new, edit):
        return with_lists(pages, out)
    out.update(ATTEMPT_AGGREGATES)
    moved = set(old_pairs) ^ set(new_pairs)
    for x, y, has_page in moved:
        out.update(f"attempts/{i}.md" for i in (x, y))
        if has_page:
            out.add(pair_page(x, y))
    for kg in (old, new):
        for rid in edit.ids:
            a = kg.get(rid)
            if not isinstance(a, Attempt):
                continue
            if a.tags:
                out.add("tags.md")
            related: set[str] = set(kg.causes_closure(a.blocked_by))
            related.update(x for x in (a.campaign, a.stack, a.platform) if x)
            if rid in kg.g:
                related.update(v for _u, v in kg.g.out_edges(rid))
                related.update(u for u, _v in kg.g.in_edges(rid))
            # the attempts it re-runs and that re-run it, as their pages list them (kb.queries.credit)
            related.update(x.id for x in retries_of(kg, a))
            related.update(x.id for x in retried(kg, a))
            # a decision's credit names the attempts that isolate its fix, which any run of the
            # campaign may start or stop doing
            related.update(d.id for d in kg.of_kind(Decision) if d.campaign in (a.campaign, None))
            for x in related:
                r = kg.get(x)
                if r is not None and type(r) in RECORD_PAGES:
                    out.add(page_of(r))
            camp = kg.get(a.campaign)
            if isinstance(camp, Campaign):
                out.add(timeline_page(camp))
    return with_lists(pages, out)


def page_kinds(srcs: Iterable[str]) -> list[str]:
    """The source paths in ``srcs`` that :func:`render_pages` cannot place (empty when it can
    render every page of the site alone)."""
    folders = {cls.folder for cls in RECORD_PAGES}
    out = []
    for src in srcs:
        if src in INDEX_PAGES:
            continue
        head, _, name = src.partition("/")
        if name.endswith(".md") and "/" not in name and (head in folders or head == "timeline"
                                                          or (head == "compare" and "--" in name)):
            continue
        if head == LISTS and name.endswith(".md") and name.count("/") == 1:
            continue
        out.append(src)
    return out


LISTS = "lists"
"""Folder of the paginated lists (``lists/<key>/index.md``, ``lists/<key>/<k>.md``) that a page
registers while it renders and links to; they are rendered with the pages that register them."""

_LIST_LINK = re.compile(LISTS + r"/([^/\s)\"'#?]+)/")


def with_lists(pages: Mapping[str, str], wanted: set[str]) -> set[str]:
    """``wanted`` plus what its list pages need: the pages that register (link) each wanted
    list, and every page of each list those pages link (a list that shrinks loses its last
    pages, a row moving shifts the pages after it)."""
    lists = {src.split("/")[1] for src in wanted if src.startswith(LISTS + "/")}
    out = set(wanted)
    if lists:
        marks = tuple(f"{LISTS}/{k}/" for k in lists)
        out.update(src for src, md in pages.items() if not src.startswith(LISTS + "/") and any(m in md for m in marks))
    keys = {k for src in out if not src.startswith(LISTS + "/") for k in _LIST_LINK.findall(pages.get(src, ""))}
    out.update(src for src in pages if src.startswith(LISTS + "/") and src.split("/")[1] in keys)
    return out


def render_pages(kg: KnowledgeGraph, sources: Iterable[str], *, directory_urls: bool = True,
                 pairs: list[Pair] | None = None) -> dict[str, str]:
    """The Markdown of each page of ``sources`` that exists in ``kg``'s site (a page whose record
    or pair is gone is left out): ``{src: markdown}``, as :func:`kb.site.pages.render_site` would
    give it. ``pairs``: ``kg``'s compare pairs when the caller has them (else computed once).
    Raises :class:`UnknownPage` for a path of no known shape."""
    c = Ctx(kg, directory_urls)
    if pairs is not None:
        c.__dict__["pairs"] = pairs  # Ctx.pairs is a cached property: hand it the known answer
    out: dict[str, str] = {}
    for src in sorted(sources):
        if src in INDEX_PAGES:
            out[src] = INDEX_PAGES[src](c)
            continue
        if page_kinds([src]):
            raise UnknownPage(src)
        head, _, name = src.partition("/")
        stem = name[:-3]
        if head == LISTS:
            continue  # rendered below, with the pages that register them
        if head == "compare":
            a, _, b = stem.partition("--")
            pair = next((p for p in c.pairs if p.a == a and p.b == b and p.page), None)
            if pair is not None:
                out[src] = render_compare(c, pair)
        elif head == "timeline":
            camp = kg.get(stem)
            if isinstance(camp, Campaign):
                out[src] = render_timeline(c, camp)
        else:
            r = kg.get(stem)
            if r is not None and r.folder == head and type(r) in RECORD_PAGES:
                out[src] = RECORD_PAGES[type(r)](c, r)
    if getattr(c, "lists", None) is not None:  # the lists the rendered pages registered
        from kb.site.pages.lists import render_lists

        out.update(render_lists(c))
    return out


def pair_keys(pairs: Iterable[Pair]) -> set[tuple[str, str, bool]]:
    """Compare pairs (:func:`kb.queries.compare.compare_pairs`) as ``(a, b, has a page)``."""
    return {(p.a, p.b, p.page) for p in pairs}
