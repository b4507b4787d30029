"""kb's pages in the site's navigation: every page keeps its place in the host's tabs and sidebar.

MkDocs marks a page's ancestors in the navigation active while the page is written (setting
``Page.active`` sets its ``parent``'s), and Material draws the active tab
(``md-tabs__item--active``) and the sidebar's open section from those marks. kb's record pages
stay out of the navigation (a nav listing every record makes each page carry it all and the build
quadratic, see :data:`kb.site.pages.context.NAV`), so on their own they have no parent: no tab is
active and the sidebar opens no section. :func:`place_pages` gives them one, in two steps:

1. *kb's section*, for a guest under a prefix: where the host's nav holds kb's home page and none
   of kb's other index pages, kb's index pages (Attempts, Root causes, Decisions, ...) join the
   home in a section. A section that holds kb's pages only (MkDocs' own nav for a ``kb/`` folder,
   awesome-nav's, or one the host wrote for kb) is filled; a bare home entry becomes a section of
   the host's title for it, in the same place. A host that lists kb's index pages itself keeps
   its own choice.
2. *a place for each page out of the nav*: the index page of its folder (``attempts/x.md`` →
   ``attempts/index.md``, ``compare/a--b.md`` → ``compare/index.md``), or kb's home for the
   others (paginated lists, pages the host left out), when that page is in the navigation. The
   page takes that entry's parent, and the entry is marked active while the page is written
   (:func:`activate`), so that the tab, the section and the entry itself are highlighted.
"""

from __future__ import annotations

import posixpath
from typing import Any

from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from kb.site.pages.context import NAV
from kb.site.tree import join

_INDEXES = {posixpath.dirname(src): src for _title, src in NAV if posixpath.dirname(src)}
"""A folder of kb's pages → its index page (``attempts`` → ``attempts/index.md``)."""


def place_pages(nav: Navigation, prefix: str, generated: set[str], pages: dict[str, Page]) -> dict[str, Page]:
    """Put kb's index pages in the navigation (step 1 above, when ``prefix`` is set) and give each
    generated page out of it a parent (step 2); returns page source path → the navigation entry
    (a :class:`~mkdocs.structure.pages.Page`) to mark active while that page is written.

    ``nav``: the site's navigation (changed in place: its items, ``pages``, and the pages'
    ``parent``, ``previous_page``, ``next_page``); ``prefix``: kb's folder in the site (``""``
    for a site of kb alone); ``generated``: the source paths of kb's pages (a host's own file at
    one of them is not kb's); ``pages``: every documentation page by source path.
    """
    if prefix:
        _add_section(nav, prefix, generated, pages)
    in_nav = {p.file.src_uri: p for p in nav.pages}
    home_src = join(prefix, "index.md")
    home = in_nav.get(home_src) if home_src in generated else None
    places: dict[str, Page] = {}
    for src in sorted(generated):
        page = pages.get(src)
        if page is None or src in in_nav:
            continue
        rel = src[len(prefix) + 1:] if prefix else src
        index_src = _INDEXES.get(rel.split("/", 1)[0]) if "/" in rel else None
        index = in_nav.get(join(prefix, index_src)) if index_src and join(prefix, index_src) in generated else None
        index = index or home
        if index is None:
            continue
        page.parent = index.parent
        places[src] = index
    return places


def activate(entry: Page | None, on: bool) -> None:
    """Mark a navigation entry (and through it its sections) active, or no longer active."""
    if entry is not None:
        entry.active = on


def _is_kb(item: Any, prefix: str) -> bool:
    """Whether a navigation item is one of kb's pages, or a section of kb's pages only."""
    if isinstance(item, Page):
        return item.file.src_uri.startswith(prefix + "/")
    if isinstance(item, Section):
        return all(_is_kb(c, prefix) for c in item.children)
    return False


def _add_section(nav: Navigation, prefix: str, generated: set[str], pages: dict[str, Page]) -> None:
    """Step 1 of the module's description: kb's index pages join kb's home in the navigation."""
    in_nav = {p.file.src_uri for p in nav.pages}
    home_src = join(prefix, "index.md")
    home = pages.get(home_src)
    if home is None or home_src not in in_nav or home_src not in generated:
        return
    if any(join(prefix, src) in in_nav for _title, src in NAV[1:]):
        return  # the host lists kb's pages itself
    extra = []
    for title, src in NAV[1:]:
        page = pages.get(join(prefix, src))
        if page is not None and page.file.src_uri in generated:
            page.title = title
            extra.append(page)
    holder = home.parent
    siblings = holder.children if holder is not None else nav.items
    at = next(i for i, item in enumerate(siblings) if item is home)
    if holder is not None and _is_kb(holder, prefix):
        section = holder
        siblings[at + 1:at + 1] = extra
    else:
        section = Section(home.title or _folder_title(prefix), [home, *extra])
        section.parent = holder
        siblings[at] = section
        home.parent = section
    for page in extra:
        page.parent = section
    nav.pages = _pages(nav.items)
    for before, page, after in zip([None, *nav.pages[:-1]], nav.pages, [*nav.pages[1:], None]):
        page.previous_page, page.next_page = before, after


def _folder_title(prefix: str) -> str:
    """A section title from kb's folder, as MkDocs titles a folder's section (``kb`` → ``Kb``,
    ``team-kb`` → ``Team kb``).

    >>> _folder_title("docs/team-kb"), _folder_title("KB")
    ('Team kb', 'KB')
    """
    title = posixpath.basename(prefix).replace("-", " ").replace("_", " ")
    return title.capitalize() if title.lower() == title else title


def _pages(items: list[Any]) -> list[Page]:
    """The pages of a navigation, in order (as MkDocs lists them in ``Navigation.pages``)."""
    out: list[Page] = []
    for item in items:
        if isinstance(item, Page):
            out.append(item)
        out.extend(_pages(getattr(item, "children", None) or []))
    return out
