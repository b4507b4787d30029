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
    """The kb plugin's options (under ``plugins: - kb:`` in mkdocs.yml).

    ``records``: the records folder, relative to mkdocs.yml (default ``records``).
    ``prefix``: a folder of the site for kb's pages (``kb`` puts them under ``kb/``; default ``""``
    keeps them at the site root, as a site of kb alone). With a prefix kb leaves the host's
    ``nav`` as it is; list ``kb/index.md`` (or kb's sections) in it where you want them.
    ``repo_url``: the repository's web address for edit links on record pages (default: the
    site's own ``repo_url``); ``repo_branch``: the branch edits go to (default ``main``).
    """

    records = c.Type(str, default="records")
    prefix = c.Type(str, default="")
    repo_url = c.Optional(c.Type(str))
    repo_branch = c.Type(str, default="main")
