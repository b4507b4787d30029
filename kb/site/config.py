"""The site's configuration: the kb plugin's options, the MkDocs configuration used when there is
no ``mkdocs.yml``, and kb's stylesheet."""

from __future__ import annotations

from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c

DEFAULT_CONFIG: dict[str, Any] = {
    "site_name": "kb",
    "theme": {"name": "material", "font": False, "features": ["search.highlight", "navigation.top"]},
    "plugins": ["search", {"kb": {"records": "records"}}],
    "markdown_extensions": ["admonition", "tables", {"toc": {"permalink": True}}],
}
"""The site configuration used when there is no mkdocs.yml."""

CSS = """
.kb-chart-box, .kb-diagram-box { overflow-x: auto; margin: 1em 0; }
.kb-chart text, .kb-diagram text { font-family: var(--md-text-font-family, sans-serif); }
.kb-chart a:hover circle, .kb-diagram a:hover rect { stroke-width: 3; }
.kb-md { margin: 0.5em 0; }
"""
"""kb's stylesheet, served as ``assets/kb.css``."""


class KbPluginConfig(base.Config):
    """``records``: the records folder, relative to mkdocs.yml (default ``records``);
    ``catalogs``: catalogs of shared blockers to add to the ones the campaigns list (a name shipped
    with kb, e.g. ``blackwell``, or a folder relative to the records folder)."""

    records = c.Type(str, default="records")
    catalogs = c.ListOfItems(c.Type(str), default=[])
