"""The MkDocs plugin (``plugins: [kb]``): wiring only; the pages come from :mod:`kb.site.pages`.

Events: ``on_config`` loads and checks the records (an invalid record aborts the build with
``kb check``'s messages) and sets the navigation when the site has none; ``on_files`` adds every
generated page as a virtual file (MkDocs 1.6 ``File.generated``); ``on_page_content`` pins each
generated page's title (see :meth:`KbPlugin.on_page_content`); ``on_serve`` watches the records
folder so ``mkdocs serve`` rebuilds when a record changes.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel

from kb.errors import InvalidRecords, KbError
from kb.graph import KnowledgeGraph
from kb.pipeline import load_graph
from kb.site.config import CSS, KbPluginConfig
from kb.site.pages import NAV, SCRIPTS, render_assets, render_site

NAV_PAGES = {src for _title, src in NAV}

log = logging.getLogger("mkdocs.plugins.kb")




class KbPlugin(BasePlugin[KbPluginConfig]):
    """Adds kb's pages (dashboard, attempts, root causes, decision log, ...) to an MkDocs site."""

    def __init__(self) -> None:
        self.kg: KnowledgeGraph | None = None
        self.records_dir: Path | None = None
        self.generated: set[str] = set()

    def on_config(self, config: Any) -> Any:
        """Load and check the records (abort with every problem), set the nav and kb's CSS."""
        base_dir = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        override = os.environ.get("KB_SITE_RECORDS")  # set by kb serve (kb.site.build.RECORDS_ENV)
        self.records_dir = Path(override) if override else (base_dir / self.config.records).resolve()
        try:
            self.kg = load_graph(self.records_dir, list(self.config.catalogs))
        except InvalidRecords as exc:
            lines = [str(p) for p in exc.problems]
            raise PluginError("invalid records:\n" + "\n".join(lines) + f"\n{exc}; run 'kb check' for details") from None
        except KbError as exc:
            raise PluginError(str(exc)) from None
        if not config.nav:
            config.nav = [{title: src} for title, src in NAV]
        config.extra_css = [*config.extra_css, "assets/kb.css"]
        config.extra_javascript = [*config.extra_javascript, *SCRIPTS]
        if "attr_list" not in config.markdown_extensions:  # decision headings carry an id-based anchor
            config.markdown_extensions.append("attr_list")
        return config

    def on_files(self, files: Files, config: Any) -> Files:
        """Add every generated page (record pages marked not-in-nav) and kb's stylesheet."""
        assert self.kg is not None
        pages = render_site(self.kg, directory_urls=config.use_directory_urls)
        for src, content in pages.items():
            if files.get_file_from_path(src) is not None:
                log.warning("kb: %s exists in docs_dir; keeping it instead of kb's generated page", src)
                continue
            nav_page = src in NAV_PAGES
            # record pages are reached from the index pages, never from the navigation: say so,
            # or MkDocs lists every record as "not included in the nav" on each build
            files.append(File.generated(config, src, content=content,
                                        inclusion=InclusionLevel.UNDEFINED if nav_page else InclusionLevel.NOT_IN_NAV))
            self.generated.add(src)
        files.append(File.generated(config, "assets/kb.css", content=CSS))
        for path, data in render_assets(self.kg, directory_urls=config.use_directory_urls).items():
            if files.get_file_from_path(path) is None:
                files.append(File.generated(config, path, content=data))
        return files

    def on_page_content(self, html: str, page: Any, config: Any, files: Files) -> str:
        """Pin a generated page's title to its rendered heading, kept HTML-escaped.

        MkDocs takes a page's title from its first heading as escaped HTML text, and Material
        writes it into ``<title>`` through Jinja's ``striptags``, which *unescapes* it: a record
        titled ``</title><script>…`` would become live markup there. Material writes a
        ``title`` from the page's metadata into ``<title>`` and the header as it is, so the
        escaped heading text goes there instead. Returns ``html`` unchanged.
        """
        if page.file.src_uri in self.generated and "title" not in page.meta and not page.is_homepage:
            title = page.title
            if title:
                page.meta["title"] = title
        return html

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """Rebuild on changes under the records folder too."""
        if self.records_dir is not None:
            server.watch(str(self.records_dir))
        return server
