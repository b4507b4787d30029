"""Render the knowledge graph into Markdown pages: ``{src_uri: markdown}``.

:func:`render_site` is the one renderer: the MkDocs plugin adds its pages as generated files.
One module per page kind (``campaign``, ``attempt``, ``blocker``, ``decision``, ``indexes``);
:mod:`kb.site.pages.context` holds what they share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision, Platform, Stack
from kb.site.pages.attempt import render_attempt
from kb.site.pages.blocker import render_blocker, render_blockers_index
from kb.site.pages.campaign import render_campaign, render_home
from kb.site.pages.compare import compare_data, pair_page, render_compare, render_compare_index
from kb.site.pages.context import NAV, Ctx, page_of
from kb.site.pages.decision import render_decision, render_decisions_index
from kb.site.pages.drafts import DRAFTS_PAGE, render_drafts
from kb.site.pages.indexes import (
    render_catalogs,
    render_index,
    render_platform,
    render_stack,
    render_tags,
    render_upgrades,
)
from kb.site.pages.lists import render_lists
from kb.site.pages.timeline import render_timeline, render_timeline_index, timeline_page

__all__ = ["NAV", "SCRIPTS", "iter_site", "page_of", "render_assets", "render_site"]

_ASSETS = Path(__file__).resolve().parent.parent / "assets"
SCRIPTS = ["assets/kb/tablesort.min.js", "assets/kb/tablesort.number.min.js", "assets/kb/kb.js"]
"""Scripts every page loads (``extra_javascript``), in order: the vendored tablesort 5.7.1 (npm
package ``tablesort``, MIT, licence in ``assets/kb/tablesort.LICENSE.txt``) and kb's own."""


def render_assets(kg: KnowledgeGraph, *, directory_urls: bool = True, index_pages: bool = False) -> dict[str, bytes]:
    """Every generated file that is not a page: ``{path: bytes}`` (kb's scripts, tablesort and its
    licence, and ``compare/attempts.json``, the data of the compare picker, whose URLs follow
    ``directory_urls`` and ``index_pages``, as for :func:`iter_site`)."""
    c = Ctx(kg, directory_urls, index_pages=index_pages)
    out = {f"assets/kb/{p.name}": p.read_bytes() for p in sorted(_ASSETS.iterdir()) if p.is_file()}
    out["compare/attempts.json"] = compare_data(c, c.pairs).encode("utf-8")
    return out


def render_site(kg: KnowledgeGraph, *, directory_urls: bool = True, index_pages: bool = False) -> dict[str, str]:
    """Every generated page: ``{src_uri: markdown}`` (index pages, one page per record, the
    upgrade paths and tags pages, and the paginated lists the others link to,
    :mod:`kb.site.pages.lists`)."""
    return dict(iter_site(kg, directory_urls=directory_urls, index_pages=index_pages))


def iter_site(kg: KnowledgeGraph, *, directory_urls: bool = True, index_pages: bool = False) -> Iterator[tuple[str, str]]:
    """The pages of :func:`render_site` as ``(src_uri, markdown)``, in its order, one at a time
    (a caller that keeps them in another form, as :func:`kb.site.tree.site_tree` does, never holds
    every page's text at once); the paginated lists come last (the other pages register them).

    With ``index_pages`` every page is the ``index.md`` of a folder of its own
    (:func:`kb.site.pages.context.index_source`: ``attempts/<id>/index.md``), and every link
    between pages follows: relative links in the pages' raw HTML (diagrams, charts, lists, the
    record footer) then mean the same file to MkDocs and to Zensical."""
    c = Ctx(kg, directory_urls, index_pages=index_pages)
    for src, md in _pages(c):
        yield c.source(src), md


def _pages(c: Ctx) -> Iterator[tuple[str, str]]:
    yield "index.md", render_home(c)
    yield "attempts/index.md", render_index(c, Attempt, "Attempts", "Everything tried, newest first.")
    yield DRAFTS_PAGE, render_drafts(c)
    yield "campaigns/index.md", render_index(c, Campaign, "Campaigns", "Each campaign's goal and headline metric.")
    yield "stacks/index.md", render_index(c, Stack, "Stacks", "Software stacks, with inherited components resolved.")
    yield "platforms/index.md", render_index(c, Platform, "Platforms", "Hardware the attempts ran on.")
    yield "blockers/index.md", render_blockers_index(c)
    yield "decisions/index.md", render_decisions_index(c)
    yield "upgrades.md", render_upgrades(c)
    yield "tags.md", render_tags(c)
    yield "catalogs.md", render_catalogs(c)
    yield "compare/index.md", render_compare_index(c, c.pairs)
    yield "timeline/index.md", render_timeline_index(c)
    for pair in c.pairs:
        if pair.page:
            yield pair_page(pair.a, pair.b), render_compare(c, pair)
    renderers: list[tuple[type[Any], Callable[[Any, Any], str]]] = [
        (Attempt, render_attempt), (Blocker, render_blocker), (Decision, render_decision),
        (Stack, render_stack), (Platform, render_platform)]
    for kind, render in renderers:
        for r in c.of_kind(kind):
            yield page_of(r), render(c, r)
    for camp in c.of_kind(Campaign):
        yield page_of(camp), render_campaign(c, camp)
        yield timeline_page(camp), render_timeline(c, camp)
    yield from render_lists(c).items()
