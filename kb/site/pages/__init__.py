"""Render the knowledge graph into Markdown pages: ``{src_uri: markdown}``.

:func:`render_site` is the one renderer: the MkDocs plugin adds its pages as generated files.
One module per page kind (``campaign``, ``attempt``, ``blocker``, ``decision``, ``indexes``);
:mod:`kb.site.pages.context` holds what they share.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision, Platform, Stack
from kb.site.pages.attempt import render_attempt
from kb.site.pages.blocker import render_blocker, render_blockers_index
from kb.site.pages.campaign import render_campaign, render_home
from kb.site.pages.context import NAV, Ctx, page_of
from kb.site.pages.decision import render_decision, render_decisions_index
from kb.site.pages.indexes import (
    render_index,
    render_platform,
    render_stack,
    render_tags,
    render_upgrades,
)

__all__ = ["NAV", "page_of", "render_site"]


def render_site(kg: KnowledgeGraph, *, directory_urls: bool = True) -> dict[str, str]:
    """Every generated page: ``{src_uri: markdown}`` (index pages, one page per record,
    the upgrade paths and tags pages)."""
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
    }
    for a in kg.of_kind(Attempt):
        pages[page_of(a)] = render_attempt(c, a)
    for b in kg.of_kind(Blocker):
        pages[page_of(b)] = render_blocker(c, b)
    for d in kg.of_kind(Decision):
        pages[page_of(d)] = render_decision(c, d)
    for s in kg.of_kind(Stack):
        pages[page_of(s)] = render_stack(c, s)
    for p in kg.of_kind(Platform):
        pages[page_of(p)] = render_platform(c, p)
    for camp in kg.of_kind(Campaign):
        pages[page_of(camp)] = render_campaign(c, camp)
    return pages
