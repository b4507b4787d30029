"""The site a ``kb serve`` session last built in full, and writing an incremental rebuild into it.

:class:`BuiltSite` keeps what MkDocs' full build made (configuration, files, navigation, theme
environment, kb's plugin and the Markdown of kb's pages) and sends changed pages through MkDocs'
own page pipeline (``mkdocs.commands.build._populate_page``/``_build_page``, MkDocs 1.6: the
same Markdown, theme and plugin events as a full build) into the served folder, with the
record files, JSON twins, ``records.json`` and the compare picker's data beside them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt
from kb.site import incremental


class BuiltSite:
    """What a full build made. ``pages``: the Markdown of kb's pages by source path without
    kb's ``prefix`` folder (kept up to date by :meth:`write_pages` and :meth:`remove`; kept here
    because the kb plugin may drop a file's copy once MkDocs read it)."""

    def __init__(self, config: Any, files: Any, nav: Any, env: Any, plugin: Any, records: Path,
                 pages: dict[str, str]) -> None:
        """``pages``: the Markdown of kb's pages as the build had them, by source path (with the prefix)."""
        self.config, self.files, self.nav, self.env, self.plugin = config, files, nav, env, plugin
        self.records = records
        prefix = plugin.prefix + "/" if plugin.prefix else ""
        self.pages: dict[str, str] = {src[len(prefix):]: md for src, md in pages.items() if src.startswith(prefix)}

    def src(self, src: str) -> str:
        return f"{self.plugin.prefix}/{src}" if self.plugin.prefix else src

    def finish(self, kg: KnowledgeGraph, src: str, md: str) -> str:
        """A rendered page as :func:`kb.site.tree.site_tree` publishes it: record asset links,
        the Mermaid scripts, and a record page's footer (its file, JSON twin, date, edit link)."""
        from kb.site.text import MERMAID_CLASS
        from kb.site.tree import TreeOptions, _asset_links, _mermaid_scripts, _record_footer
        from kb.twins import twin_path

        du = self.config.use_directory_urls
        md = _asset_links(md, src, du)
        if f'class="{MERMAID_CLASS}"' in md:
            md = md.rstrip("\n") + "\n\n" + _mermaid_scripts(src, du) + "\n"
        head, _, name = src.partition("/")
        rec = kg.get(name[:-3]) if name.endswith(".md") else None
        origin = kg.records.origins.get(rec.id) if rec is not None and rec.folder == head else None
        if rec is None or origin is None or origin.file is None or not origin.file.is_file():
            return md
        old = self.pages.get(src, "")
        footer = next((line for line in reversed(old.splitlines()) if line.startswith('<p class="kb-record-source">')),
                      None)
        if footer is None:  # a new record: no commit date yet
            cfg = self.config
            options = TreeOptions(prefix=self.plugin.prefix, directory_urls=du,
                                  repo_url=self.plugin.config.repo_url or cfg.repo_url,
                                  repo_branch=self.plugin.config.repo_branch, repo_path=self.repo_path())
            footer = _record_footer(src, f"{rec.folder}/{rec.id}.yaml", twin_path(rec), options)
        return md.rstrip("\n") + "\n\n" + footer + "\n"

    def repo_path(self) -> str | None:
        base = Path(self.config.config_file_path).parent if self.config.config_file_path else Path.cwd()
        try:
            return self.records.relative_to(base.resolve()).as_posix()
        except ValueError:
            return None

    def write_pages(self, pages: dict[str, str]) -> bool:
        """Send ``pages`` (``{src: markdown}``) through MkDocs' page pipeline into the served site;
        returns whether a page new to the site was among them."""
        from mkdocs.commands.build import _build_page, _populate_page
        from mkdocs.structure.files import File, InclusionLevel
        from mkdocs.structure.pages import Page

        cfg, files = self.config, self.files
        todo = []
        added = False
        for src, md in sorted(pages.items()):  # every file first: a page links the pages added with it
            full = self.src(src)
            f = files.get_file_from_path(full)
            if f is None:
                f = File.generated(cfg, full, content=md, inclusion=InclusionLevel.NOT_IN_NAV)
                files.append(f)
                self.plugin.generated.add(full)
                added = True
            else:
                f.content_string = md
            if f.page is None:
                Page(None, f, cfg)
                self.plugin.place(f.page, self.nav)  # its place in the nav, as the full build gave it
            todo.append(f)
            self.pages[src] = md
        for f in todo:
            _populate_page(f.page, cfg, files)
        if not todo:
            return added
        doc_files = files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
        for f in todo:
            _build_page(f.page, cfg, doc_files, self.nav, self.env)
        return added

    def remove(self, src: str) -> None:
        """Take a page (and its record's YAML and JSON twin) out of the served site."""
        stem = src[:-3]
        for path in (src, stem + ".yaml", stem + ".json"):
            f = self.files.get_file_from_path(self.src(path))
            if f is None:
                continue
            try:
                os.unlink(f.abs_dest_path)
                os.rmdir(os.path.dirname(f.abs_dest_path))  # a page's own folder (directory URLs), once empty
            except OSError:
                pass
            self.files.remove(f)
        self.plugin.generated.discard(self.src(src))
        self.pages.pop(src, None)

    def update_search(self, kg: KnowledgeGraph, gone: set[str], edited: set[str]) -> int:
        """Keep the served search index true after an incremental rebuild: drop the entries of
        the pages in ``gone`` (source paths taken out of the site) and of the records ``edited``,
        then add kb's entries for those records as ``kg`` has them now (:mod:`kb.site.search`).
        Returns the number of entries dropped; nothing happens without an index."""
        import json

        from kb.site.pages.attempt import error_heading
        from kb.site.pages.context import page_of
        from kb.site.search import search_entries
        from kb.store import write_text_atomic

        index = Path(self.config.site_dir) / "search" / "search_index.json"
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0
        if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
            return 0
        urls = {self._url(src) for src in gone}
        mine = {r.id: self._url(page_of(r)) for rid in edited if (r := kg.get(rid)) is not None}
        drop = urls | set(mine.values())

        def located(doc: Any) -> str:
            return str(doc.get("location", "")).split("#", 1)[0] if isinstance(doc, dict) else ""

        kept = [d for d in data["docs"] if located(d) not in drop]
        dropped = len(data["docs"]) - len(kept)
        fresh = search_entries(kg, lambda r: mine.get(r.id), error_heading) if mine else []
        data["docs"] = kept + fresh
        write_text_atomic(index, json.dumps(data, ensure_ascii=False, separators=(",", ":")), overwrite=True)
        return dropped

    def _url(self, src: str) -> str:
        from kb.site.pages.context import url_of

        return url_of(self.src(src), self.config.use_directory_urls)

    def put(self, src: str, data: bytes) -> None:
        """Write a generated file that is not a page (when its bytes changed)."""
        from mkdocs.structure.files import File

        full = self.src(src)
        f = self.files.get_file_from_path(full)
        if f is None:
            f = File.generated(self.config, full, content=data)
            self.files.append(f)
        elif f.content_bytes == data:
            return
        f.content_bytes = data
        Path(f.abs_dest_path).parent.mkdir(parents=True, exist_ok=True)
        Path(f.abs_dest_path).write_bytes(data)

    def put_record_file(self, kg: KnowledgeGraph, rid: str) -> None:
        """Publish record ``rid``'s YAML file beside its page (as :func:`kb.site.tree.site_tree` does)."""
        rec, origin = kg.get(rid), kg.records.origins.get(rid)
        if rec is not None and origin is not None and origin.file is not None and origin.file.is_file():
            self.put(f"{rec.folder}/{rid}.yaml", origin.file.read_bytes())

    def write_data(self, old: KnowledgeGraph, new: KnowledgeGraph, edit: incremental.Edit, pairs: list[Any]) -> None:
        """The record files, JSON twins (of the changed records and those linked to them, whose
        ``links`` may have moved), ``records.json`` and the compare picker's data."""
        from kb.site.pages.compare import compare_data
        from kb.site.pages.context import Ctx
        from kb.twins import INDEX, _dumps, index, twin, twin_path

        near: set[str] = set(edit.ids)
        for kg in (old, new):
            for rid in edit.ids:
                if rid in kg.g:
                    near.update(v for _u, v in kg.g.out_edges(rid))
                    near.update(u for u, _v in kg.g.in_edges(rid))
        for rid in sorted(near):
            rec = new.get(rid)
            if rec is None:
                continue
            self.put(twin_path(rec), _dumps(twin(new, rec)).encode("utf-8"))
            if rid in edit.ids:
                self.put_record_file(new, rid)
        self.put(INDEX, _dumps(index(new)).encode("utf-8"))
        if any(isinstance(kg.get(rid), Attempt) for kg in (old, new) for rid in edit.ids):
            c = Ctx(new, self.config.use_directory_urls)
            c.__dict__["pairs"] = pairs  # known: Ctx.pairs would compute them again
            self.put("compare/attempts.json", compare_data(c, pairs).encode("utf-8"))
