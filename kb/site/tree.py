"""kb's part of a site as a tree of files: ``{path: text or bytes}``, for any engine.

The one renderer (:func:`kb.site.pages.render_site`) gives the Markdown pages; this module adds
what makes them a complete, engine-independent tree, and places it under an optional ``prefix``
folder:

* each page's links to record assets (``kb-asset:plot.png``, see :mod:`kb.site.text`) become
  paths relative to the page, and the files of ``records/assets/`` are published under
  ``assets/records/``;
* a page with a Mermaid diagram loads kb's bundled Mermaid (``assets/mermaid.min.js``, from the
  ``mermaid`` npm package, MIT, with its license beside it) and a small script that draws the
  ``pre.kb-mermaid`` blocks; nothing is fetched from a CDN;
* each record page ends with where its record lives: the YAML file (also shipped beside the page),
  its JSON twin, and, when the records are in git, the last-updated date and an edit link;
* the JSON twins and ``records.json`` (:mod:`kb.twins`), and kb's stylesheet.

The MkDocs plugin adds this tree as generated files; ``kb export --markdown`` writes it to disk so
that Zensical (which runs no MkDocs plugins) or MkDocs without kb builds the same pages.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from kb.graph import KnowledgeGraph
from kb.queries.bearing import published_ids
from kb.site.config import CSS
from kb.site.pages import NAV, iter_site, page_of, render_assets
from kb.site.pages.context import index_source, url_of
from kb.site.text import ASSET_SCHEME, MERMAID_CLASS, inline
from kb.twins import iter_twins, twin_path

MERMAID_JS = "assets/mermaid.min.js"
MERMAID_INIT = "assets/kb-mermaid.js"
RECORD_ASSETS = "assets/records"
CSS_PATH = "assets/kb.css"

_MERMAID_INIT_JS = """// Draw kb's Mermaid diagrams with the bundled Mermaid (no CDN). Record text is untrusted:
// securityLevel "strict" keeps scripts and click handlers out of diagrams.
(function () {
  function draw() {
    if (!window.mermaid) { return; }
    var dark = document.body && document.body.getAttribute("data-md-color-scheme") === "slate";
    window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
    window.mermaid.run({ querySelector: "pre.%s:not([data-processed])" });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); } else { draw(); }
})();
""" % MERMAID_CLASS


@dataclass
class TreeOptions:
    """How the tree is laid out: ``prefix`` (a folder inside the host site, ``""`` for the site
    root), ``directory_urls`` (MkDocs' setting), ``repo_url``/``repo_branch`` for edit links,
    ``repo_path`` (the records folder's path inside the repository, e.g. ``records``) and
    ``last_updated`` (record path → date of its last commit), and ``index_pages``: every page
    written as the ``index.md`` of a folder of its own (:func:`kb.site.pages.context.index_source`),
    for engines that resolve relative links in raw HTML against the source file (Zensical)."""

    prefix: str = ""
    directory_urls: bool = True
    index_pages: bool = False
    repo_url: str | None = None
    repo_branch: str = "main"
    repo_path: str | None = None
    last_updated: dict[str, dt.date] = field(default_factory=dict)


def clean_prefix(prefix: str | None) -> str:
    """``"/kb/"`` → ``"kb"``; refuses ``..`` (raises :class:`ValueError`).

    >>> clean_prefix("/kb/"), clean_prefix(""), clean_prefix("docs/kb")
    ('kb', '', 'docs/kb')
    """
    p = (prefix or "").strip().strip("/")
    if ".." in p.split("/"):
        raise ValueError(f"prefix '{prefix}' must stay inside the site: use a folder name such as 'kb'")
    return p


def join(prefix: str, path: str) -> str:
    """``path`` under ``prefix`` (``kb/attempts/x.md``)."""
    return f"{prefix}/{path}" if prefix else path


def site_tree(kg: KnowledgeGraph, assets: dict[str, Path], record_files: dict[str, Path],
              options: TreeOptions | None = None, *, forget: bool = False) -> dict[str, str | bytes]:
    """Every file of kb's part of the site, by path under the site's docs folder.

    ``assets``: ``records/assets/`` files by relative path (:func:`kb.store.list_assets`);
    ``record_files``: record id → its YAML file (shipped beside the page). Pages, twins and
    record files are UTF-8 bytes; kb's scripts and stylesheet text. ``forget``: drop what the
    pages computed on the graph (:meth:`kb.graph.KnowledgeGraph.forget`) once they are rendered,
    before the JSON twins (for a caller done with the graph: ~50 MB less at the peak of a
    10,000-attempt build).
    """
    o = options or TreeOptions()
    published = published_ids(kg)
    footers: dict[str, str] = {}
    tree: dict[str, str | bytes] = {}
    for rid, path in record_files.items():
        rec = kg.get(rid)
        if rec is None or rid not in published or not path.is_file():  # a record read from elsewhere (a catalog) ships no file
            continue
        yaml_name = f"{rec.folder}/{rid}.yaml"
        tree[yaml_name] = path.read_bytes()
        src = index_source(page_of(rec)) if o.index_pages else page_of(rec)
        footers[src] = _record_footer(src, yaml_name, twin_path(rec), o)
    mermaid = False
    # each page is kept as UTF-8 as soon as it is rendered: half the memory of text holding one
    # non-ASCII character, and never every page's text at once (~120 MB at 10,000 attempts)
    for src, md in iter_site(kg, directory_urls=o.directory_urls, index_pages=o.index_pages):
        md = _asset_links(md, src, o.directory_urls)
        if f'class="{MERMAID_CLASS}"' in md:
            mermaid = True
            md = md.rstrip("\n") + "\n\n" + _mermaid_scripts(src, o.directory_urls) + "\n"
        footer = footers.get(src)
        if footer is not None:
            md = md.rstrip("\n") + "\n\n" + footer + "\n"
        tree[src] = md.encode("utf-8")
    tree.update(render_assets(kg, directory_urls=o.directory_urls, index_pages=o.index_pages))  # kb's scripts, compare data
    if forget:
        kg.forget()
    for twin_name, text in iter_twins(kg, published):
        tree[twin_name] = text.encode("utf-8")
    if mermaid:
        vendor = resources.files("kb.site") / "vendor"
        tree[MERMAID_JS] = (vendor / "mermaid.min.js").read_bytes()
        tree["assets/mermaid.LICENSE.txt"] = (vendor / "mermaid.LICENSE").read_bytes()
        tree[MERMAID_INIT] = _MERMAID_INIT_JS
    for rel, path in assets.items():
        tree[f"{RECORD_ASSETS}/{rel}"] = path.read_bytes()
    tree[CSS_PATH] = CSS
    return {join(o.prefix, k): v for k, v in tree.items()}


def nav(prefix: str = "", *, index_pages: bool = False) -> list[dict[str, str]]:
    """kb's navigation entries (sections and index pages), under ``prefix``, in the layout of
    :attr:`TreeOptions.index_pages`."""
    return [{title: join(prefix, index_source(src) if index_pages else src)} for title, src in NAV]


def _rel_url(src: str, target: str, directory_urls: bool) -> str:
    """URL of the file ``target`` (not a page) relative to the page built from ``src``."""
    page_url = url_of(src, directory_urls)
    base = page_url if page_url.endswith("/") or page_url == "" else posixpath.dirname(page_url)
    return posixpath.relpath(target, base.rstrip("/") or ".")


_ASSET_REF = re.compile(re.escape(ASSET_SCHEME) + r'([^"\s<>]+)')


def _asset_links(md: str, src: str, directory_urls: bool) -> str:
    if ASSET_SCHEME not in md:
        return md
    return _ASSET_REF.sub(lambda m: _rel_url(src, f"{RECORD_ASSETS}/{m.group(1)}", directory_urls), md)


def _mermaid_scripts(src: str, directory_urls: bool) -> str:
    js = _rel_url(src, MERMAID_JS, directory_urls)
    init = _rel_url(src, MERMAID_INIT, directory_urls)
    return f'<script src="{js}"></script>\n<script src="{init}"></script>'


def _record_footer(src: str, yaml_name: str, json_name: str, o: TreeOptions) -> str:
    """The line under a record page: its YAML file and JSON twin, last update, edit link."""
    yaml_url = _rel_url(src, yaml_name, o.directory_urls)
    json_url = _rel_url(src, json_name, o.directory_urls)
    name = posixpath.basename(yaml_name)
    parts = [f'Record file: <a class="kb-record-file" href="{yaml_url}">{inline(name)}</a>',
             f'<a class="kb-record-json" href="{json_url}">JSON</a>']
    updated = o.last_updated.get(yaml_name)
    if updated is not None:
        parts.append(f'last updated <time class="kb-updated" datetime="{updated.isoformat()}">{updated.isoformat()}</time>')
    if o.repo_url:
        repo_file = posixpath.join(o.repo_path or "records", yaml_name)
        base = o.repo_url.rstrip("/")
        parts.append(f'<a class="kb-edit" href="{base}/edit/{o.repo_branch}/{repo_file}" rel="nofollow">edit it</a>')
    return '<p class="kb-record-source">' + " · ".join(parts) + "</p>"
