"""The site's configuration: the kb plugin's options, the MkDocs configuration used when there is
no ``mkdocs.yml``, and kb's stylesheet."""

from __future__ import annotations

from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c

PALETTE: list[dict[str, Any]] = [
    {"media": "(prefers-color-scheme: light)", "scheme": "default",
     "toggle": {"icon": "material/brightness-7", "name": "Switch to dark mode"}},
    {"media": "(prefers-color-scheme: dark)", "scheme": "slate",
     "toggle": {"icon": "material/brightness-4", "name": "Switch to light mode"}},
]
"""Material's light/dark palette toggle (its documented ``theme.palette`` list): the system
setting first, then the reader's choice, kept by Material in local storage."""

SEARCH_SEPARATOR = r"""[\s\-:,;()\[\]{}"'=/]+"""
"""Where Material's search splits words: blanks, '-', ':', ',', ';', brackets, quotes, '=' and
'/', but not '.' or '_', so versions (``12.8.1``, ``2.10.0+cu128``) and variables (``NCCL_ALGO``)
stay whole words and ``KeyError: 12`` is the words ``keyerror`` and ``12``."""

DEFAULT_CONFIG: dict[str, Any] = {
    "site_name": "kb",
    "theme": {"name": "material", "font": False, "features": ["search.highlight", "navigation.top"],
              "palette": PALETTE},
    "plugins": [{"search": {"separator": SEARCH_SEPARATOR}}, {"kb": {"records": "records"}}],
    "markdown_extensions": ["admonition", "tables", {"toc": {"permalink": True}}],
}
"""The site configuration used when there is no mkdocs.yml."""

CSS = """
.kb-chart-box, .kb-diagram-box { overflow-x: auto; margin: 1em 0; }
.kb-chart text, .kb-diagram text { font-family: var(--md-text-font-family, sans-serif); }
.kb-chart a:hover circle, .kb-diagram a:hover rect { stroke-width: 3; }
.kb-md { margin: 0.5em 0; }
/* below a desktop's content width, charts and diagrams keep the width at which their text is at
   least 11 px and scroll sideways in their box instead of shrinking (--kb-min-width, set per SVG) */
@media (max-width: 76.1875em) { svg.kb-chart, svg.kb-diagram { min-width: var(--kb-min-width); } }
.md-typeset ul.kb-legend { list-style: none; margin: 0 0 1em 0 !important; padding: 0; display: flex; flex-wrap: wrap;
             gap: 0.3em 1.2em; font-size: 0.75rem; }
.md-typeset ul.kb-legend li { margin: 0 !important; display: flex; align-items: center; gap: 0.4em; }
.kb-filter { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; margin: 0.5em 0; font-size: 0.75rem; }
.kb-filter input { padding: 0.3em 0.5em; border: 1px solid var(--md-default-fg-color--lighter);
                   border-radius: 4px; background: var(--md-default-bg-color); color: inherit; min-width: 14em; }
.kb-picker label { display: inline-flex; flex-direction: column; margin: 0 1em 0.8em 0; font-size: 0.8rem;
                   max-width: 100%; }
.kb-picker select { width: 100%; max-width: 100%; padding: 0.3em; color: inherit;
                    background: var(--md-default-bg-color); }
/* links inside text are underlined, not told apart by colour alone (WCAG 1.4.1) */
.md-content .md-typeset a:not(.headerlink):not(.md-button) { text-decoration: underline;
  text-decoration-thickness: 1px; text-underline-offset: 2px; }
.md-content .md-typeset svg a { text-decoration: none; }
/* the theme's footer line is too faint to read (contrast below 4.5:1) */
.md-copyright, .md-copyright__highlight { color: var(--md-footer-fg-color); }
/* the first column (the record) stays in view while a wide table scrolls sideways: the table
   must not be a scroll container of its own (the theme clips it), or the cell would stick to it */
.md-typeset__table table:not([class]) { overflow: visible; }
.md-typeset table:not([class]) th:first-child, .md-typeset table:not([class]) td:first-child {
  position: sticky; left: 0; z-index: 1; background: var(--md-default-bg-color); }
@media (max-width: 600px) {
  .md-typeset table:not([class]) th:first-child, .md-typeset table:not([class]) td:first-child {
    max-width: 11rem; min-width: 7rem; }
}
/* on a record page, the sidebar entry of its kind's index (Attempts, Root causes) is marked active
   (kb.site.navigation): show it as Material shows the current page's */
.md-nav--primary .md-nav__item--active:not(.md-nav__item--nested) > a.md-nav__link { color: var(--md-typeset-a-color); }
/* a rank first (a right-aligned first column, "#") is as narrow as its figures and scrolls away;
   the record column after it is the one that stays in view */
.md-typeset table:not([class]) th:first-child:is([style*="right"], [align="right"]),
.md-typeset table:not([class]) td:first-child:is([style*="right"], [align="right"]) {
  position: static; min-width: 0; max-width: none; width: 1%; padding-left: 0.6em; padding-right: 0.6em; }
.md-typeset table:not([class]) th:first-child:is([style*="right"], [align="right"]) + th,
.md-typeset table:not([class]) td:first-child:is([style*="right"], [align="right"]) + td {
  position: sticky; left: 0; z-index: 1; background: var(--md-default-bg-color); }
@media (max-width: 600px) {
  .md-typeset table:not([class]) th:first-child:is([style*="right"], [align="right"]) + th,
  .md-typeset table:not([class]) td:first-child:is([style*="right"], [align="right"]) + td {
    max-width: 11rem; min-width: 7rem; }
}
/* a column of figures is as wide as its figures and its header's longest word (the theme gives
   every column 5rem, which squeezed the titles beside seven of them) */
.md-typeset table:not([class]) th:is([style*="right"], [align="right"]) { min-width: 0; }
.md-typeset table:not([class]) :is(th, td):is([style*="right"], [align="right"]) { padding-left: 0.8em; padding-right: 0.8em; }
/* what a cell says beside a record's title (a root cause's fix, its disputes) */
.md-typeset .kb-note { display: inline-block; margin-top: 0.3em; font-size: 0.9em; color: var(--md-default-fg-color--light); }
/* a change or a flag in a table cell breaks only where it would overflow, not at every letter */
.md-typeset table:not([class]) td code { word-break: normal; overflow-wrap: break-word; }
"""
"""kb's stylesheet, served as ``assets/kb.css``."""


class KbPluginConfig(base.Config):
    """The kb plugin's options (under ``plugins: - kb:`` in mkdocs.yml).

    ``records``: the records folder, relative to mkdocs.yml (default ``records``).
    ``prefix``: a folder of the site for kb's pages (``kb`` puts them under ``kb/``; default ``""``
    keeps them at the site root, as a site of kb alone). With a prefix, the host's nav entry for
    ``kb/index.md`` becomes kb's section (its index pages), unless the host lists kb's pages itself
    (:mod:`kb.site.navigation`); list ``kb/index.md`` in the nav where kb's tab or section belongs.
    ``repo_url``: the repository's web address for edit links on record pages (default: the
    site's own ``repo_url``); ``repo_branch``: the branch edits go to (default ``main``).
    ``catalogs``: catalogs of shared blockers to add to the ones the campaigns list (a name shipped
    with kb, e.g. ``blackwell``, or a folder relative to the records folder).
    """

    records = c.Type(str, default="records")
    prefix = c.Type(str, default="")
    repo_url = c.Optional(c.Type(str))
    repo_branch = c.Type(str, default="main")
    catalogs = c.ListOfItems(c.Type(str), default=[])
