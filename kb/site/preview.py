"""``kb serve``: a live preview that rebuilds only what a record edit changes and never stalls.

MkDocs' own server rebuilds the whole site on any change and, when a build fails, holds every
request until the files are fixed (kb case ``serve-stalls-on-broken-record``). :func:`serve_preview`
runs MkDocs' live-reload server with kb's rebuild instead (:class:`Preview`):

* **a change under the records folder** loads the records again (:func:`kb.pipeline.load`);
  - with problems, nothing is rebuilt: the last good site keeps being served and every HTML
    page it serves carries a banner with each problem as ``path:line: field: message``
    (:func:`banner_app`), the same lines ``kb check`` prints; fixing the records clears it;
  - otherwise only the pages the edit can change are rendered (:mod:`kb.site.incremental`), and
    those whose Markdown differs from the last build go through MkDocs' page pipeline (Markdown,
    theme, plugins) and are written over the served site (:mod:`kb.site.preview_site`), with the
    record's YAML file, the JSON twins of the records whose links moved, ``records.json`` and the
    compare picker's data; in two builds of the server's loop: the edited records' own pages
    first (the page being edited is served updated as early as possible), then the rest;
* **any other change** (``mkdocs.yml``, the docs folder, ``records/assets/``), an edit whose pages
  this module cannot place, and any failure of the incremental step run MkDocs' full build,
  into a second folder that is served only once it succeeded: a failed full build also leaves
  the last good site served, with its error in the banner.

The search index follows each incremental rebuild for kb's own entries: those of a deleted
record's page go, an edited record's are made again; the text of other pages (Material's own
section entries) is the last full build's until the next full build.
"""

from __future__ import annotations

import html
import logging
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from mkdocs.plugins import BasePlugin, event_priority

from kb.errors import InvalidRecords, Problem, UsageError
from kb.graph import KnowledgeGraph
from kb.pipeline import load
from kb.site import incremental
from kb.site.build import BuildError
from kb.site.pages.context import page_of
from kb.site.preview_site import BuiltSite

log = logging.getLogger("mkdocs.plugins.kb")

BANNER_CLASS = "kb-problems"
"""Class of the banner :func:`banner_app` puts at the top of each served page."""


def banner_html(problems: list[str]) -> bytes:
    """The banner (a Material ``failure`` admonition) listing ``problems``, HTML-escaped."""
    n = len(problems)
    title = (f"{n} problem{'s' if n != 1 else ''} in the records: this preview shows the last good site "
             "until they are fixed (run 'kb check' for the same list)")
    items = "\n".join(html.escape(p) for p in problems)
    return (f'<div class="admonition failure {BANNER_CLASS}" role="alert"><p class="admonition-title">'
            f"{html.escape(title)}</p><pre>{items}</pre></div>").encode("utf-8")


_ARTICLE = re.compile(rb"<article\b[^>]*>")
_BODY = re.compile(rb"<body\b[^>]*>")


def with_banner(page: bytes, problems: list[str]) -> bytes:
    """``page`` (HTML) with the banner inserted at the top of its article (Material), else of its body."""
    m = _ARTICLE.search(page) or _BODY.search(page)
    at = m.end() if m else 0
    return page[:at] + banner_html(problems) + page[at:]


def banner_app(app: Callable[..., Iterable[bytes]], problems: Callable[[], list[str]]) -> Callable[..., Iterable[bytes]]:
    """WSGI middleware: while ``problems()`` is not empty, every ``text/html`` answer of ``app``
    gets :func:`with_banner` (its ``Content-Length`` recomputed); everything else passes as it is."""

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        shown = problems()
        if not shown:
            return app(environ, start_response)
        answer: dict[str, Any] = {}

        def hold(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
            answer["status"], answer["headers"] = status, headers
            return lambda _data: None

        body = app(environ, hold)
        headers = answer.get("headers", [])
        if not any(k.lower() == "content-type" and v.startswith("text/html") for k, v in headers):
            start_response(answer["status"], headers)
            return body
        try:
            data = with_banner(b"".join(body), shown)
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
        start_response(answer["status"], [(k, v) for k, v in headers if k.lower() != "content-length"]
                       + [("Content-Length", str(len(data)))])
        return [data]

    return wrapped


class _Capture(BasePlugin):
    """Keeps what a full build made (files, navigation, theme environment) for the incremental
    rebuilds; added to each configuration :class:`Preview` builds, after every other plugin."""

    def __init__(self) -> None:
        self.files: Any = None
        self.nav: Any = None
        self.env: Any = None
        self.pages: dict[str, str] = {}

    @event_priority(-100)
    def on_files(self, files: Any, config: Any) -> Any:
        """Keep the files, and the Markdown of kb's pages: the kb plugin may drop a page's copy
        once MkDocs read it, and the incremental rebuild compares its pages with it."""
        self.files = files
        for src in config.plugins["kb"].generated:
            f = files.get_file_from_path(src)
            if f is not None:
                self.pages[src] = f.content_string
        return files

    @event_priority(-100)
    def on_nav(self, nav: Any, config: Any, files: Any) -> Any:
        self.nav = nav
        return nav

    @event_priority(-100)
    def on_env(self, env: Any, config: Any, files: Any) -> Any:
        self.env = env
        return env


class Preview:
    """The state of one ``kb serve`` session: what the last good build made and how to redo it.

    ``records``: the records folder; ``config_file``: the MkDocs configuration (``None``: the
    current folder's ``mkdocs.yml``, else kb's built-in one, written under ``tmp``);
    ``tmp``: a private folder holding the two site folders served in turn.
    """

    def __init__(self, records: Path, config_file: str | None, dev_addr: str, tmp: Path) -> None:
        self.records = records.resolve()
        self.config_file = config_file
        self.dev_addr = dev_addr
        self.tmp = tmp.resolve()
        self.dirs = (tmp / "site-a", tmp / "site-b")
        self.site_dir = self.dirs[0]
        self.server: Any = None
        self.serve_url: str | None = None
        self.problems: list[str] = []
        """The problems the banner shows (``path:line: field: message``); empty when all is well."""
        self.site: BuiltSite | None = None
        """What the last good full build made, and where incremental rebuilds write."""
        self.kg: KnowledgeGraph | None = None
        self.pairs: list[Any] | None = None
        self.outside: dict[str, tuple[int, int]] = {}
        self.full_pending = False
        self.rebuilt: list[str] = []
        """Source paths of the pages the last incremental rebuild sent through MkDocs."""
        self.seen: dict[str, tuple[int, int]] = {}
        """The records folder's files (``path → (mtime_ns, size)``) as last loaded."""
        self.pending: _Pending | None = None
        """A record edit whose own pages are served and whose other pages come next."""

    # ------------------------------------------------------------------ full builds

    def _load_config(self, site_dir: Path) -> Any:
        from kb.site.build import _load_config

        cfg = _load_config(self.records, self.config_file, str(site_dir), False, self.tmp, dev_addr=self.dev_addr)
        self.config_file = cfg.config_file_path  # kb's built-in configuration is written once
        if self.serve_url is None:
            from urllib.parse import urlsplit

            from mkdocs.livereload import _serve_url

            host, port = cfg.dev_addr
            self.serve_url = _serve_url(host, port, urlsplit(cfg.site_url or "/").path)
        cfg.site_url = self.serve_url
        return cfg

    def full_build(self, *, first: bool = False) -> bool:
        """MkDocs' full build into the folder not being served, which is served once it succeeds.

        Returns whether it did. With invalid records (or a failed build) the last good site stays
        served and the problems go to the banner; on the ``first`` build they raise
        :class:`~kb.errors.InvalidRecords` or :class:`~kb.site.build.BuildError` instead.
        """
        from mkdocs.commands.build import build

        from kb.queries.compare import compare_pairs

        t0 = time.perf_counter()
        target = self.dirs[0] if first or self.site_dir == self.dirs[1] else self.dirs[1]
        try:
            cfg = self._load_config(target)
        except BuildError as exc:  # mkdocs.yml unreadable, or without the kb plugin
            if first:
                raise
            return self._failed(f"the site could not be rebuilt: {exc}")
        plugin = cfg.plugins["kb"]
        seen = self._records_snapshot()
        loaded = load(self.records, list(plugin.config.catalogs))
        if loaded.problems:
            if first:
                raise InvalidRecords(loaded.problems)
            self.full_pending = True
            self._show(loaded.problems)
            return False
        plugin.preloaded = (self.records, loaded.graph)  # the plugin reuses the graph: loaded once
        capture = _Capture()
        cfg.plugins["kb-preview"] = capture
        if first:
            cfg.plugins.on_startup(command="serve", dirty=False)
        try:
            build(cfg, serve_url=self.serve_url)
        except Exception as exc:  # noqa: BLE001 - a live preview reports any build error and keeps serving
            message = f"the site could not be rebuilt: {getattr(exc, 'message', None) or exc}"
            if first:
                raise BuildError(message) from None
            return self._failed(message)
        self.site = BuiltSite(cfg, capture.files, capture.nav, capture.env, plugin, self.records, capture.pages)
        self.kg, self.seen = loaded.graph, seen
        self.pairs = compare_pairs(loaded.graph)  # what text edits render with, and what later edits move
        self.outside = self._outside_snapshot(cfg)
        self.full_pending = False
        self.pending = None
        self.problems = []
        old, self.site_dir = self.site_dir, target
        if self.server is not None:
            self.server.root = str(target)
        if old != target:
            shutil.rmtree(old, ignore_errors=True)
        unknown = incremental.page_kinds(self.site.pages)
        if unknown:
            log.warning("kb: %d page(s) of a shape the incremental preview does not know (%s): "
                        "every record edit rebuilds the whole site", len(unknown), ", ".join(sorted(unknown)[:3]))
        log.info("kb: site built in %.1f s, serving %s", time.perf_counter() - t0, target)
        return True

    def _failed(self, message: str) -> bool:
        """A full build that could not be made: the last good site stays served, ``message`` in
        its banner, and the next change runs a full build again. Returns ``False``."""
        log.error("kb: %s; still serving the last good site", message)
        self.full_pending = True
        self.problems = [message]
        return False

    def _outside_snapshot(self, cfg: Any) -> dict[str, tuple[int, int]]:
        """``path → (mtime_ns, size)`` of what only a full build takes in: the configuration file,
        the docs folder, extra watched paths and ``records/assets/``."""
        paths: list[str] = [cfg.config_file_path] if cfg.config_file_path else []
        for top in [cfg.docs_dir, *cfg.watch, str(self.records / "assets")]:
            if os.path.isfile(top):
                paths.append(top)
            paths.extend(_files_under(top))
        return _stats(paths)

    # ------------------------------------------------------------------ rebuilds

    def rebuild(self) -> None:
        """The server's builder: incremental for record changes, else full; never raises, so the
        server never stalls."""
        try:
            if self.site is None or self.full_pending or self._outside_snapshot(self.site.config) != self.outside:
                self.full_build()
            else:
                self.rebuild_records()
        except Exception as exc:  # noqa: BLE001 - any surprise: the full build is always right
            log.warning("kb: incremental rebuild failed (%s: %s); rebuilding everything", type(exc).__name__, exc)
            try:
                self.full_build()
            except Exception as exc2:  # noqa: BLE001 - still serving the last good site is the point
                log.error("kb: the site could not be rebuilt (%s); still serving the last good site", exc2)
                self.problems = [f"the site could not be rebuilt: {exc2}"]

    def _show(self, problems: list[Problem]) -> None:
        self.problems = [str(p) for p in problems]
        log.error("kb: %d problem%s in the records; still serving the last good site:\n%s", len(problems),
                  "" if len(problems) == 1 else "s", "\n".join(self.problems))

    def rebuild_records(self) -> list[str]:
        """Load the records again and rebuild what their change changes, in two steps: the
        changed records' own pages first (served as soon as they are written: the page being
        edited updates first), then the pages that list them and the data files, in a second
        build the server runs right after (at once when there is no server). Returns the source
        paths of the pages rebuilt. With problems, shows them and rebuilds nothing."""
        from kb.queries.compare import compare_pairs

        if self.pending is not None:
            return self._rebuild_rest()
        t0 = time.perf_counter()
        assert self.kg is not None and self.site is not None
        site = self.site
        seen = self._records_snapshot()
        loaded = load(self.records, list(site.plugin.config.catalogs))
        times = {"load": time.perf_counter() - t0}
        if loaded.problems:
            self._show(loaded.problems)
            self.rebuilt = []
            return []
        self.problems = []
        old, new = self.kg, loaded.graph
        edit = incremental.changed_records(old, new)
        touched = {path for path, st in seen.items() if self.seen.get(path) != st}
        self.seen = seen
        for path in touched:  # a comment edited: no record changed, the published file did
            rid = Path(path).stem
            if rid not in edit.ids and new.get(rid) is not None and str(new.records.origins[rid].file) == path:
                site.put_record_file(new, rid)
        if not edit.ids:
            self.rebuilt = []
            log.info("kb: no record changed")
            return []
        if self.pairs is None:
            self.pairs = compare_pairs(old)
        new_pairs = self.pairs if incremental.is_text_edit(old, new, edit) else compare_pairs(new)
        wanted = incremental.affected_pages(old, new, edit, site.pages, incremental.pair_keys(self.pairs),
                                            incremental.pair_keys(new_pairs))
        own = {page_of(r) for rid in edit.ids if (r := new.get(rid)) is not None}
        first = own if self.server is not None else set()
        times["plan"] = time.perf_counter() - t0 - sum(times.values())
        self.pending = _Pending(old, new, edit, wanted, new_pairs, set(first), seen, t0, times)
        if not first:
            return self._rebuild_rest()
        rendered = incremental.render_pages(new, first, directory_urls=site.config.use_directory_urls, pairs=new_pairs)
        changed = {src: md for src, md in ((s, site.finish(new, s, m)) for s, m in rendered.items())
                   if site.pages.get(src) != md}
        site.write_pages(changed)
        for rid in edit.ids:
            site.put_record_file(new, rid)
        self.rebuilt = sorted(changed)
        log.info("kb: %d record%s changed (%s): %s rebuilt in %.2f s; the pages listing it follow",
                 len(edit.ids), "" if len(edit.ids) == 1 else "s", ", ".join(sorted(edit.ids)[:3]),
                 ", ".join(self.rebuilt) or "no page", time.perf_counter() - t0)
        if not self._request_rebuild():
            return self.rebuilt + self._rebuild_rest()
        return self.rebuilt

    def _request_rebuild(self) -> bool:
        """Ask the server's build loop for another build right away (MkDocs 1.6's
        ``LiveReloadServer``: the flag its file watcher sets). Returns whether it could."""
        server = self.server
        cond = getattr(server, "_rebuild_cond", None)
        if cond is None or not hasattr(server, "_want_rebuild"):
            return False
        with cond:
            server._want_rebuild = True
            cond.notify_all()
        return True

    def _records_snapshot(self) -> dict[str, tuple[int, int]]:
        """``path → (mtime_ns, size)`` of every file under the records folder (resolved: the
        same text as a record's origin file)."""
        return _stats(_files_under(str(self.records)))

    def _rebuild_rest(self) -> list[str]:
        """The second step of :meth:`rebuild_records`: every other page the edit can change,
        the pages of deleted records taken out, the data files."""
        from kb.site.pages import render_site

        job, self.pending = self.pending, None
        assert job is not None and self.site is not None
        site = self.site
        t1 = time.perf_counter()
        du = site.config.use_directory_urls
        if incremental.EVERYTHING in job.wanted:
            rendered = render_site(job.new, directory_urls=du)
            gone = set(site.pages) - set(rendered)
        else:
            rendered = incremental.render_pages(job.new, job.wanted - job.done, directory_urls=du, pairs=job.pairs)
            gone = {src for src in job.wanted if src in site.pages and src not in rendered and src not in job.done}
        finished = {src: site.finish(job.new, src, md) for src, md in rendered.items()}
        changed = {src: md for src, md in finished.items() if site.pages.get(src) != md}
        times = job.times
        times["render"] = time.perf_counter() - t1
        added = site.write_pages(changed)
        for src in gone:
            site.remove(src)
        if (added or gone) and job.done:  # the first step's pages link pages that came or went since
            redo = {src: site.pages[src] for src in job.done if src in site.pages and src not in changed}
            site.write_pages(redo)
            changed.update(redo)
        times["mkdocs"] = time.perf_counter() - t1 - times["render"]
        site.write_data(job.old, job.new, job.edit, job.pairs)
        site.update_search(job.new, gone, job.edit.ids)  # a deleted record's page is no longer found
        times["data"] = time.perf_counter() - t1 - times["render"] - times["mkdocs"]
        self.kg, self.pairs = job.new, job.pairs
        self.rebuilt = sorted(changed)
        n = len(job.edit.ids)
        log.info("kb: %d record%s changed (%s); %d page%s rendered, %d rebuilt, %d removed in %.2f s (%s): %s", n,
                 "" if n == 1 else "s", ", ".join(sorted(job.edit.ids)[:3]) + (" …" if n > 3 else ""), len(rendered),
                 "" if len(rendered) == 1 else "s", len(changed), len(gone), time.perf_counter() - job.t0,
                 ", ".join(f"{k} {v:.2f}" for k, v in times.items()),
                 ", ".join(self.rebuilt[:12]) + (" …" if len(self.rebuilt) > 12 else ""))
        if self.server is not None and self._records_snapshot() != job.seen:
            self._request_rebuild()  # a record changed again while this ran: its build may have been this one
        return self.rebuilt

@dataclass
class _Pending:
    """A record edit whose own pages are rebuilt and whose other pages wait for the next build."""

    old: KnowledgeGraph
    new: KnowledgeGraph
    edit: incremental.Edit
    wanted: set[str]
    pairs: list[Any]
    done: set[str]
    seen: dict[str, tuple[int, int]]
    """The records folder's snapshot taken before loading ``new``."""
    t0: float
    times: dict[str, float]


def serve_preview(records: str | Path, *, config_file: str | None = None, dev_addr: str = "127.0.0.1:8000") -> None:
    """Build the site, then serve it with live reload until interrupted (see the module docstring).

    ``config_file``: an ``mkdocs.yml`` (used as it is; default ``./mkdocs.yml``, else kb's
    built-in configuration). Raises :class:`kb.errors.InvalidRecords` before serving when a record
    is invalid, :class:`~kb.site.build.BuildError` when the first build fails, and
    :class:`kb.errors.UsageError` when ``dev_addr`` cannot be bound (taken, or not this host's).
    """
    import tempfile
    from urllib.parse import urlsplit

    from mkdocs.livereload import LiveReloadServer

    with tempfile.TemporaryDirectory(prefix="kb-serve-") as tmp:
        preview = Preview(Path(records), config_file, dev_addr, Path(tmp))
        preview.full_build(first=True)
        assert preview.site is not None
        cfg = preview.site.config
        host, port = cfg.dev_addr

        server = LiveReloadServer(builder=preview.rebuild, host=host, port=port, root=str(preview.site_dir),
                                  mount_path=urlsplit(cfg.site_url or "/").path)
        preview.server = server

        def error_page(code: int) -> bytes | None:
            page = preview.site_dir / f"{code}.html"
            return page.read_bytes() if code in (404, 500) and page.is_file() else None

        server.error_handler = error_page
        server.set_app(banner_app(server.serve_request, lambda: preview.problems))
        try:
            server.watch(cfg.docs_dir)
            if cfg.config_file_path:
                server.watch(cfg.config_file_path)
            server.watch(str(preview.records))
            for item in cfg.watch:
                server.watch(item)
            try:
                server.serve()
            except KeyboardInterrupt:
                log.info("Shutting down...")
            except OSError as exc:
                if server.serve_thread.is_alive():
                    raise
                # serve() binds the address first: taken, or not one of this host's
                raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; stop what "
                                 f"uses it or pick another address, e.g. -a {host}:{int(port) + 1}") from exc
            finally:
                server.shutdown()
        finally:
            cfg.plugins.on_shutdown()


def _files_under(top: str) -> list[str]:
    """Every file below the folder ``top`` (none when it is missing)."""
    return [os.path.join(root, n) for root, _dirs, names in os.walk(top) for n in names]


def _stats(paths: list[str]) -> dict[str, tuple[int, int]]:
    """``path → (mtime_ns, size)`` of each of ``paths`` that can be read (a file removed
    meanwhile is left out)."""
    out = {}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        out[p] = (st.st_mtime_ns, st.st_size)
    return out
