"""Render the knowledge graph into Markdown pages: ``{src_uri: markdown}``.

:func:`render_site` is the one renderer: the MkDocs plugin adds its pages as generated files.
One module per page kind (``campaign``, ``attempt``, ``blocker``, ``decision``, ``indexes``);
:mod:`kb.site.pages.context` holds what they share.
"""

from __future__ import annotations

from pathlib import Path

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision, Platform, Stack
from kb.site.pages.attempt import render_attempt
from kb.site.pages.blocker import render_blocker, render_blockers_index
from kb.site.pages.campaign import render_campaign, render_home
from kb.site.pages.compare import compare_data, pair_page, render_compare, render_compare_index
from kb.site.pages.context import NAV, Ctx, page_of
from kb.site.pages.decision import render_decision, render_decisions_index
from kb.site.pages.indexes import (
    render_index,
    render_platform,
    render_stack,
    render_tags,
    render_upgrades,
)
from kb.site.pages.lists import render_lists
from kb.site.pages.timeline import render_timeline, render_timeline_index, timeline_page

__all__ = ["NAV", "SCRIPTS", "page_of", "render_assets", "render_site"]

_ASSETS = Path(__file__).resolve().parent.parent / "assets"
SCRIPTS = ["assets/kb/tablesort.min.js", "assets/kb/tablesort.number.min.js", "assets/kb/kb.js"]
"""Scripts every page loads (``extra_javascript``), in order: the vendored tablesort 5.7.1 (npm
package ``tablesort``, MIT, licence in ``assets/kb/tablesort.LICENSE.txt``) and kb's own."""


def render_assets(kg: KnowledgeGraph, *, directory_urls: bool = True) -> dict[str, bytes]:
    """Every generated file that is not a page: ``{path: bytes}`` (kb's scripts, tablesort and its
    licence, and ``compare/attempts.json``, the data of the compare picker)."""
    c = Ctx(kg, directory_urls)
    out = {f"assets/kb/{p.name}": p.read_bytes() for p in sorted(_ASSETS.iterdir()) if p.is_file()}
    out["compare/attempts.json"] = compare_data(c, c.pairs).encode("utf-8")
    return out


def render_site(kg: KnowledgeGraph, *, directory_urls: bool = True) -> dict[str, str]:
    """Every generated page: ``{src_uri: markdown}`` (index pages, one page per record, the
    upgrade paths and tags pages, and the paginated lists the others link to,
    :mod:`kb.site.pages.lists`)."""
    c = Ctx(kg, directory_urls)
    pages: dict[str, str] = {
        "index.md": render_home(c),
        "attempts/index.md": render_index(c, Attempt, "Attempts", "Everything tried, newest first."),
        "campaigns/index.md": render_index(c, Campaign, "Campaigns", "Each campaign's goal and headline metric."),
        "stacks/index.md": render_index(c, Stack, "Stacks", "Software stacks, with inherited components resolved."),
        "platforms/index.md": render_index(c, Platform, "Platforms", "Hardware the attempts ran on."),
        "blockers/index.md": render_blockers_index(c),
        "decisions/index.md": render_decisions_index(c),
        "upgrades.md": render_upgrades(c),
        "tags.md": render_tags(c),
        "compare/index.md": render_compare_index(c, c.pairs),
        "timeline/index.md": render_timeline_index(c),
    }
    for pair in c.pairs:
        if pair.page:
            pages[pair_page(pair.a, pair.b)] = render_compare(c, pair)
    for a in c.of_kind(Attempt):
        pages[page_of(a)] = render_attempt(c, a)
    for b in c.of_kind(Blocker):
        pages[page_of(b)] = render_blocker(c, b)
    for d in c.of_kind(Decision):
        pages[page_of(d)] = render_decision(c, d)
    for s in c.of_kind(Stack):
        pages[page_of(s)] = render_stack(c, s)
    for p in c.of_kind(Platform):
        pages[page_of(p)] = render_platform(c, p)
    for camp in c.of_kind(Campaign):
        pages[page_of(camp)] = render_campaign(c, camp)
        pages[timeline_page(camp)] = render_timeline(c, camp)
    pages.update(render_lists(c))
    return pages
