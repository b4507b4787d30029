"""The MkDocs plugin (``plugins: [kb]``): wiring only; the pages come from :mod:`kb.site.pages`.

Events: ``on_config`` loads and checks the records (an invalid record aborts the build with
``kb check``'s messages) and sets the navigation when the site has none; ``on_files`` adds every
generated page as a virtual file (MkDocs 1.6 ``File.generated``), before other plugins read the
list; ``on_nav`` gives every page its place in the site's navigation (:mod:`kb.site.navigation`:
the host's tab and kb's section stay marked on a record page); ``on_pre_page`` hands each
generated page to kb's own converter (:mod:`kb.site.tohtml`: HTML, table of contents, heading ids
and links as MkDocs' Markdown would give them, in a tenth of the time); ``on_page_content`` pins
each generated page's title (see :meth:`KbPlugin.on_page_content`) and marks the record pages
that are written from a shell, one Material render per folder (:mod:`kb.site.shell`, installed
by ``on_env``); ``on_post_build`` adds the compact search entries of record pages (attempts,
blockers, decisions, stacks, campaigns: :mod:`kb.site.search`); ``on_serve`` watches the records
folder so ``mkdocs serve`` rebuilds when a record changes.
"""

from __future__ import annotations

import functools
import logging
import os
import posixpath
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

from kb.attachments import asset_problems
from kb.errors import InvalidRecords, KbError
from kb.graph import KnowledgeGraph
from kb.models import Record
from kb.pipeline import load_graph
from kb.site.config import KbPluginConfig
from kb.site.navigation import activate, place_pages
from kb.site.pages import NAV, SCRIPTS, page_of
from kb.site.pages.attempt import error_heading
from kb.site.search import add_to_index, search_entries
from kb.site.shell import PLUGINS, Shells, plan, unsupported
from kb.site.tohtml import TocOptions, first_title, render_page
from kb.site.tree import CSS_PATH, TreeOptions, clean_prefix, join, nav, site_tree
from kb.store import last_changed, list_assets

log = logging.getLogger("mkdocs.plugins.kb")

_NO_TOC = get_toc([])




class KbPlugin(BasePlugin[KbPluginConfig]):
    """Adds kb's pages (dashboard, attempts, root causes, decision log, ...) to an MkDocs site."""

    shell_pages = True
    """Whether record pages may be written from a shell (:mod:`kb.site.shell`); tests turn it off
    to compare with Material's own render."""

    def __init__(self) -> None:
        self.kg: KnowledgeGraph | None = None
        self.records_dir: Path | None = None
        self.generated: set[str] = set()
        self.prefix = ""
        self.preloaded: tuple[Path, KnowledgeGraph] | None = None
        """``(records folder, graph)`` handed over by :func:`kb.site.build.build_site`."""
        self.toc: TocOptions | None = None
        """The site's ``toc`` settings, or ``None`` when it has no ``toc`` extension."""
        self.material_search = False
        """Whether Material's search plugin builds the index (it honours ``search: exclude``)."""
        self.search_docs: list[dict[str, Any]] = []
        self.excluded: set[str] = set()
        """Generated pages left out of the search plugin's parsing (their entries are kb's)."""
        self.late: set[str] = set()
        """Pages of :attr:`excluded` converted after the search plugin's ``on_page_context``
        (:meth:`_convert_late`): all of them when the site's plugins are kb's and search alone
        (:data:`kb.site.shell.PLUGINS`), none otherwise (another plugin may read their HTML)."""
        self.pending: dict[str, bytes] = {}
        """Generated pages read but not converted yet, with their Markdown as UTF-8 (see
        :meth:`_render`)."""
        self.files: Files | None = None
        self.links = _Links(Files([]))
        self.shell_dirs: set[str] = set()
        """Folders whose generated pages are written from shells (empty: none are)."""
        self.shell_groups: set[str] = set()
        """Folders whose subfolders share shells (:func:`kb.site.shell.plan`)."""
        self.shells: Shells | None = None
        self.places: dict[str, Page] = {}
        """Generated page out of the nav → the nav entry marked active while it is written."""
        self.in_nav: set[str] = set()
        """Source paths of the pages in the site's navigation."""
        self.plugin_names: list[str] = []
        """The site's plugins, by the names MkDocs gives them (``material/search``, ``kb``)."""
        self.release_graph = False
        """Set by ``kb build`` (:func:`kb.site.build.build_site`), which keeps no graph: what the
        pages computed on it is dropped as soon as they are rendered (see :func:`site_tree`)."""
        self.atomic = False
        """Set by ``kb build``: write the site beside the old one and swap it in whole
        (:mod:`kb.publish`); ``mkdocs build`` and ``gh-deploy`` do the same (:meth:`_stage`)."""
        self.command: str | None = None
        self.publish_to: Path | None = None
        """The site folder the build will replace, while it writes into :attr:`staging`."""
        self.staging: Path | None = None
        self.failed = False

    def _stage(self, config: Any) -> None:
        """Point MkDocs at a staging folder beside the site folder (:func:`kb.publish.staging_for`)
        when this build publishes atomically: not under ``mkdocs serve``/``kb serve`` (their site
        is a temporary folder the server rebuilds into)."""
        import click

        from kb.publish import staging_for

        # the command running: "build" or "gh-deploy" under MkDocs' own click CLI (no on_startup
        # here: defining it would make MkDocs keep this plugin's state across serve rebuilds)
        ctx = click.get_current_context(silent=True)
        self.command = ctx.info_name if ctx is not None else None
        serving = bool(os.environ.get("KB_SITE_RECORDS")) or self.command == "serve"
        if self.staging is not None or serving or not (self.atomic or self.command in ("build", "gh-deploy")):
            return
        self.publish_to = Path(config.site_dir)
        try:
            self.staging = staging_for(self.publish_to)
        except KbError as exc:
            raise PluginError(str(exc)) from None
        config.site_dir = str(self.staging)
        self.failed = False

    def finish(self, config: Any, ok: bool) -> Path | None:
        """Swap the staged site in when the build succeeded (:func:`kb.publish.swap_in`), else
        remove it, the old site untouched; return the site folder (``None``: nothing staged).
        Raises :class:`kb.errors.WriteError` when the swap is refused."""
        from kb.publish import discard, swap_in

        staging, target = self.staging, self.publish_to
        self.staging = self.publish_to = None
        if staging is None or target is None:
            return None
        config.site_dir = str(target)
        if ok:
            swap_in(staging, target)
        else:
            discard(staging)
        return target

    def on_build_error(self, *, error: Exception) -> None:
        """A failed build (a strict warning, a full disk, a plugin's error) leaves the old site
        as it was: the staging folder is removed."""
        self.failed = True
        from kb.publish import discard

        if self.staging is not None:
            discard(self.staging)

    def on_config(self, config: Any) -> Any:
        """Load and check the records (abort with every problem), set the nav and kb's CSS; for
        a build that publishes atomically, write into a staging folder (:meth:`_stage`)."""
        base_dir = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        override = os.environ.get("KB_SITE_RECORDS")  # set by kb serve (kb.site.build.RECORDS_ENV)
        self.records_dir = Path(override) if override else (base_dir / self.config.records).resolve()
        preloaded, self.preloaded = self.preloaded, None
        try:
            if preloaded is not None and preloaded[0] == self.records_dir.resolve():
                self.kg = preloaded[1]  # kb build loaded and checked them already: once per build
            else:
                self.kg = load_graph(self.records_dir, list(self.config.catalogs))
        except InvalidRecords as exc:
            lines = [str(p) for p in exc.problems]
            raise PluginError("invalid records:\n" + "\n".join(lines) + f"\n{exc}; run 'kb check' for details") from None
        except KbError as exc:
            raise PluginError(str(exc)) from None
        try:
            self.prefix = clean_prefix(self.config.prefix)
        except ValueError as exc:
            raise PluginError(f"kb plugin option prefix: {exc}") from None
        if not config.nav and not self.prefix:
            config.nav = nav()  # a site of kb alone; a host site keeps its own nav (or MkDocs')
        config.extra_css = [*config.extra_css, join(self.prefix, CSS_PATH)]
        config.extra_javascript = [*config.extra_javascript, *(join(self.prefix, js) for js in SCRIPTS)]
        if "attr_list" not in config.markdown_extensions:  # decision headings carry an id-based anchor
            config.markdown_extensions.append("attr_list")
        toc_names = {"toc", "markdown.extensions.toc"}
        toc_name = next((e for e in config.markdown_extensions if e in toc_names), None)
        self.toc = None if toc_name is None else TocOptions.from_mdx(config.mdx_configs.get(toc_name))
        self.material_search = "material/search" in config.plugins
        self.plugin_names = list(config.plugins)
        self._stage(config)
        return config

    @event_priority(50)  # before the plugins that read the site's files, wherever kb stands in plugins:
    def on_files(self, files: Files, config: Any) -> Files:
        """Add kb's tree (:func:`kb.site.tree.site_tree`): pages (record pages marked
        not-in-nav), JSON twins, record files and assets, Mermaid, the stylesheet. A file of the
        host site's own at the same path wins; a missing record asset is a warning (fails
        ``--strict``).

        It runs early (priority 50), so that a plugin reading the list of files in its own
        ``on_files`` sees kb's pages whatever the order of ``plugins:`` (mkdocs-redirects keeps the
        pages it finds there as the only valid targets: listed before kb, a redirect to a kb page
        failed with "Redirect target ... does not exist!"). A plugin that adds files of its own
        at the default priority adds them after kb's."""
        assert self.kg is not None and self.records_dir is not None
        records_dir = self.records_dir
        for problem in asset_problems(self.kg.records, list_assets(records_dir)):
            log.warning("kb: %s", problem)
        record_files = {rid: origin.file or records_dir.parent / origin.path
                        for rid, origin in self.kg.records.origins.items()}
        base_dir = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        try:
            repo_path = records_dir.resolve().relative_to(base_dir.resolve()).as_posix()
        except ValueError:
            repo_path = None
        options = TreeOptions(prefix=self.prefix, directory_urls=config.use_directory_urls,
                              repo_url=self.config.repo_url or config.repo_url, repo_branch=self.config.repo_branch,
                              repo_path=repo_path, last_updated=last_changed(records_dir))
        # kb alone: its index pages are the nav; a guest (prefix): only kb's home may be in the
        # host's nav (MkDocs' or awesome-nav's nav of a folder would list the index pages loose),
        # and on_nav puts the index pages in a section with it (kb.site.navigation)
        nav_pages = {join(self.prefix, src) for _title, src in NAV} if not self.prefix else {join(self.prefix, "index.md")}
        tree = site_tree(self.kg, list_assets(records_dir), record_files, options, forget=self.release_graph)
        for src, content in tree.items():
            if files.get_file_from_path(src) is not None:
                # the host's own home page is expected: kb's dashboard is reached from the nav
                (log.info if src == "index.md" else log.warning)(
                    "kb: %s exists in docs_dir; keeping it instead of kb's generated file "
                    "(set the kb plugin's prefix option to put kb's pages in a folder of their own)", src)
                continue
            if not src.endswith(".md"):
                files.append(File.generated(config, src, content=content))
                continue
            # record pages are reached from the index pages, never from the navigation: say so,
            # or MkDocs lists every record as "not included in the nav" on each build
            files.append(File.generated(config, src, content=content,
                                        inclusion=InclusionLevel.UNDEFINED if src in nav_pages else InclusionLevel.NOT_IN_NAV))
            self.generated.add(src)
        self._search_entries(files)
        self.files = files
        # every page is rendered and the search entries made: the records and the caches that
        # queries keep on the graph (~100 MB at 10,000 attempts) are free for writing the pages
        self.kg = None
        self.links = _Links(files)
        self._start_progress(len(files.documentation_pages()))
        return files

    @event_priority(-50)  # after plugins that change the navigation (awesome-nav's runs at 100)
    def on_nav(self, nav: Any, config: Any, files: Files) -> Any:
        """Give kb's pages their place in the navigation (:func:`kb.site.navigation.place_pages`);
        choose the pages written from shells (:func:`kb.site.shell.plan`), when the site allows
        shells at all (:func:`kb.site.shell.unsupported`). Returns ``nav``."""
        pages = {f.src_uri: f.page for f in files.documentation_pages() if isinstance(f.page, Page)}
        self.places = place_pages(nav, self.prefix, self.generated, pages)
        self.in_nav = {p.file.src_uri for p in nav.pages}
        if self.prefix and join(self.prefix, "index.md") not in self.in_nav:
            log.info("kb: the site's nav has no entry for %s, so kb's pages show no tab or section: add one "
                     "such as '- Knowledge base: %s'", join(self.prefix, "index.md"), join(self.prefix, "index.md"))
        self.shell_dirs, self.shell_groups = set(), set()
        reason = None if self.shell_pages else "turned off"
        reason = reason or unsupported(config)
        if reason is not None:
            log.debug("kb: every page takes Material's render: %s", reason)
            return nav
        out_of_nav = [f.src_uri for f in files if f.src_uri in self.generated and f.inclusion.is_not_in_nav()
                      and f.src_uri not in self.in_nav]
        chosen = set(out_of_nav)
        others = [f.src_uri for f in files if f.src_uri not in chosen]
        urls: list[str] = []
        todo = list(nav.items)
        while todo:
            item = todo.pop()
            url = getattr(item, "url", None)
            if isinstance(url, str) and "://" not in url:
                urls.append(url)
            todo.extend(getattr(item, "children", None) or [])
        self.shell_dirs, self.shell_groups = plan(out_of_nav, others, urls)
        return nav

    def place(self, page: Page, nav: Any) -> None:
        """Give a page added after the build (``kb serve``'s incremental rebuild,
        :meth:`kb.site.preview_site.BuiltSite.write_pages`) its place in ``nav``, as
        :meth:`on_nav` gave the others (:func:`kb.site.navigation.place_pages`)."""
        self.places.update(place_pages(nav, self.prefix, self.generated, {page.file.src_uri: page}))

    def on_env(self, env: Any, config: Any, files: Files) -> Any:
        """Add the shell template to the theme's environment (:meth:`kb.site.shell.Shells.install`)
        when some pages take shells. Returns ``env``."""
        self.shells = Shells.install(config, env, self.shell_groups) if self.shell_dirs else None
        return env

    def _search_entries(self, files: Files) -> None:
        """With Material's search: leave record pages (attempts, blockers, decisions, stacks,
        campaigns) out of its parsing, keep kb's entries (:mod:`kb.site.search`)."""
        assert self.kg is not None
        self.search_docs, self.excluded, self.late = [], set(), set()
        if not self.material_search:
            return

        def url_of(r: Record) -> str | None:
            src = join(self.prefix, page_of(r))
            f = files.get_file_from_path(src)
            if src not in self.generated or f is None:
                return None
            self.excluded.add(src)
            return f.url

        self.search_docs = search_entries(self.kg, url_of, error_heading)
        self.late = set(self.excluded) if set(self.plugin_names) <= PLUGINS else set()

    def on_pre_page(self, page: Page, config: Any, files: Files) -> Page:
        """A generated page is converted by kb (:func:`kb.site.tohtml.render_page`), not by
        Python-Markdown, when it is written (:meth:`_convert`); returns ``page``."""
        if page.file.src_uri in self.generated:
            page.render = functools.partial(self._render, page)  # type: ignore[method-assign]
        return page

    def _render(self, page: Page, config: Any, files: Files) -> None:
        """:meth:`mkdocs.structure.pages.Page.render` for a generated page, while MkDocs reads
        every page: only the title (from the first ``<h1>``, as Page.render takes it); the HTML
        comes just before the page is written, so that the HTML of every page is never in memory
        at once. The Markdown waits as UTF-8 in :attr:`pending` (``page.markdown`` is emptied and
        the file's copy dropped): text with one non-ASCII character takes two bytes a character,
        ~60 MB more at 10,000 attempts."""
        assert page.markdown is not None
        if page.file.src_uri in self.excluded:
            page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
        page.file.content_string = ""
        page.content = ""
        page.toc = get_toc([])
        page._title_from_render = first_title(page.markdown)
        page.present_anchor_ids = set()
        self.pending[page.file.src_uri] = page.markdown.encode("utf-8")
        page.markdown = ""

    @event_priority(50)  # before the search plugin reads the page's HTML
    def _convert_early(self, context: Any, page: Page, config: Any, nav: Any) -> Any:
        """Convert a generated page the search plugin reads (see :meth:`_convert`); returns
        ``context``."""
        if page.file.src_uri in self.late:
            return context
        return self._convert(context, page, config, nav)

    @event_priority(-100)  # after the search plugin
    def _convert_late(self, context: Any, page: Page, config: Any, nav: Any) -> Any:
        """Convert a page left out of Material's search (a record page, :attr:`late`) after the
        search plugin's ``on_page_context``: it reads nothing of such a page, yet scans its HTML
        for ``data-search-*`` attributes (which kb's pages never hold), ~0.15 s of a
        1,000-attempt build while the HTML is still empty. Returns ``context``."""
        if page.file.src_uri not in self.late:
            return context
        return self._convert(context, page, config, nav)

    @event_priority(100)  # before any other plugin reads the navigation's marks
    def _activate(self, context: Any, page: Page, config: Any, nav: Any) -> Any:
        """Mark the navigation entry of a page out of the nav active while it is written (undone
        in :meth:`on_post_page`; :func:`kb.site.navigation.activate`). Returns ``context``."""
        activate(self.places.get(page.file.src_uri), True)
        return context

    on_page_context = CombinedEvent(_activate, _convert_early, _convert_late)

    def _convert(self, context: Any, page: Page, config: Any, nav: Any) -> Any:
        """Convert a generated page (:func:`kb.site.tohtml.render_page`), setting what Page.render
        would: content, toc, title, anchor ids, links to anchors. A page the converter does not
        take goes to MkDocs' own Markdown. Returns ``context``."""
        src = page.file.src_uri
        if src not in self.pending:
            return context
        page.markdown = self.pending.pop(src).decode("utf-8")
        assert self.files is not None
        links: dict[File, dict[str, str]] = {}
        rendered = render_page(page.markdown, toc=self.toc, link=functools.partial(self.links.resolve, page, links))
        if rendered is None:
            log.debug("kb: %s is converted by MkDocs' Markdown", src)
            Page.render(page, config, self.files)
        else:
            page.content = rendered.html
            page.toc = get_toc(rendered.toc)  # type: ignore[arg-type]
            page._title_from_render = rendered.title
            page.present_anchor_ids = rendered.ids
            page.links_to_anchors = links
        page.markdown = ""
        return context

    def _start_progress(self, total: int) -> None:
        """A bar of pages written, on stderr when it is a terminal (never in logs or tests)."""
        import sys

        import click

        self._bar = None
        isatty = getattr(sys.stderr, "isatty", None)
        if total and isatty is not None and isatty():

            self._bar = click.progressbar(length=total, label="kb: writing pages", file=sys.stderr, show_pos=True)
            self._bar.__enter__()

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        """Drop a generated page's HTML once written; advance the progress bar (when there is
        one). Returns ``output`` unchanged."""
        activate(self.places.get(page.file.src_uri), False)
        if page.file.src_uri in self.generated:
            page.content = ""
            page.toc = _NO_TOC  # read by the theme and the search plugin only, both done with it
        bar = getattr(self, "_bar", None)
        if bar is not None:
            bar.update(1)
        return output

    @event_priority(-100)  # after the search plugin wrote its index
    def on_post_build(self, config: Any) -> None:
        """Add kb's search entries to the index; close the progress bar; put a staged site in
        place (:meth:`finish`), unless a strict build is about to abort on a warning."""
        bar = getattr(self, "_bar", None)
        if bar is not None:
            bar.__exit__(None, None, None)
            self._bar = None
        if self.search_docs:
            index = Path(config.site_dir) / "search" / "search_index.json"
            try:
                added = add_to_index(index, self.search_docs)
            except ValueError as exc:
                raise PluginError(f"kb: {exc}") from None
            if not added:
                log.warning("kb: no search index at %s: record pages are not searchable", index)
            self.search_docs = []
        if self.staging is not None and not (config.strict and _warnings_counted()):
            try:
                self.finish(config, ok=True)  # the last step of the build: the new site goes in whole
            except KbError as exc:
                raise PluginError(str(exc)) from None

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
        src = page.file.src_uri
        if src in self.generated and src not in self.in_nav and posixpath.dirname(src) in self.shell_dirs:
            Shells.mark(page, index=posixpath.dirname(posixpath.dirname(src)) in self.shell_groups)
        return html

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """Rebuild on changes under the records folder too."""
        if self.records_dir is not None:
            server.watch(str(self.records_dir))
        return server


def _warnings_counted() -> bool:
    """Whether MkDocs counted a warning during this build (its strict mode then aborts right
    after the ``post_build`` event: the staged site must not be swapped in)."""
    for handler in logging.getLogger("mkdocs").handlers:
        counts = getattr(handler, "get_counts", None)
        if callable(counts) and counts():
            return True
    return False


def _own(page: Page, target: File) -> bool:
    """Whether ``target`` is ``page`` or lies under its URL (a link then depends on the page
    itself, not only on its folder)."""
    return target is page.file or target.url.startswith(page.file.url)


class _Links:
    """Markdown link targets → URLs, as MkDocs' link processor gives them (see :meth:`resolve`),
    remembered per source folder: a 10,000-attempt site writes a few hundred thousand links, most
    of them the same few thousand from every page of a folder."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.cache: dict[tuple[str, bool, str], tuple[File, str]] = {}
        self.written: dict[tuple[str, bool, str], tuple[File, str, str]] = {}
        """``(folder, index page, url as written)`` → ``(target, anchor, URL to write)``: the
        whole answer of :meth:`resolve` for a link it answered before from that folder (most
        links are the same few thousand from every page of a folder)."""

    def resolve(self, page: Page, links: dict[File, dict[str, str]], url: str) -> str:
        """The URL to write for the link ``url`` on ``page``: a relative link to a source file
        becomes that file's URL relative to the page (a link to a missing file stays as written,
        with MkDocs' warning, which fails ``--strict``; a folder URL, such as the compare
        picker's, stays as written as in MkDocs); a link with an anchor is noted in ``links`` for
        MkDocs' anchor validation."""
        index = page.file.name == "index"
        folder = posixpath.dirname(page.file.src_uri)
        done = self.written.get((folder, index, url))
        if done is not None:
            target, anchor, out = done
            if index or not _own(page, target):
                if anchor:
                    links.setdefault(target, {}).setdefault(anchor, url)
                return out
        scheme, netloc, path, query, anchor = urlsplit(url)
        if scheme or netloc or url.startswith(("/", "\\")):
            return url
        if not path:
            if anchor:
                links.setdefault(page.file, {}).setdefault(anchor, url)
            return url
        key = (folder, index, path)
        hit = self.cache.get(key)
        if hit is None:
            target_uri = posixpath.normpath(posixpath.join(key[0], unquote(path)).lstrip("/"))
            found = self.files.get_file_from_path(target_uri)
            if found is None:
                if posixpath.splitext(path)[-1]:
                    log.warning("Doc file '%s' contains a link '%s', but the target '%s' is not found among "
                                "documentation files.", page.file.src_uri, url, target_uri)
                return url
            hit = (found, get_relative_url(found.url, page.file.url))
            if index or not _own(page, found):
                self.cache[key] = hit
        target, rel = hit
        own = not index and _own(page, target)
        if own:
            rel = get_relative_url(target.url, page.file.url)  # relative to this page itself
        if anchor:
            links.setdefault(target, {}).setdefault(anchor, url)
        out = urlunsplit(("", "", rel, query, anchor))
        if not own:
            self.written[(folder, index, url)] = (target, anchor, out)
        return out
