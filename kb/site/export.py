"""``kb export --markdown DIR``: kb's pages as a project any engine that reads ``mkdocs.yml`` builds.

Zensical reads ``mkdocs.yml`` but runs no MkDocs plugins, so a site that relies on kb's plugin
loses every kb page there. The export writes a folder that builds as it is::

    DIR/mkdocs.yml   the configuration (:func:`engine_config`): theme, search, nav, kb's
                     stylesheet and scripts, the Markdown extensions kb's pages use; no plugin
    DIR/docs/        the tree of :func:`kb.site.tree.site_tree`: plain Markdown, HTML blocks
                     and static files

so that ``cd DIR && zensical build`` and ``cd DIR && mkdocs build`` are the whole recipe (both
write ``DIR/site/``). The pages are in the index-page layout (:attr:`TreeOptions.index_pages`):
``attempts/<id>/index.md``, at the same URLs as kb's plugin gives them, because Zensical and
MkDocs resolve a relative link written in raw HTML (a diagram, a chart, a list, the record
footer) differently except on an index page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kb.atomic import write_bytes_atomic
from kb.errors import WriteError
from kb.graph import KnowledgeGraph
from kb.publish import discard, staging_for, swap_in
from kb.site.config import DEFAULT_CONFIG, SEARCH_SEPARATOR
from kb.site.pages import SCRIPTS
from kb.site.tree import CSS_PATH, TreeOptions, join, nav, site_tree
from kb.store import last_changed, list_assets

CONFIG_FILE = "mkdocs.yml"
"""The configuration the export writes: MkDocs reads it, and Zensical reads it when the folder
holds no ``zensical.toml``."""

DOCS_DIR = "docs"
"""The folder under the export that holds kb's pages (``docs_dir``)."""

SHADOWING = ("zensical.toml",)
"""Configuration files an engine reads before ``mkdocs.yml`` (Zensical looks for
``zensical.toml``, then ``mkdocs.yml``, then ``mkdocs.yaml``): with one of them in the folder,
``zensical build`` would not use kb's configuration."""

MARKDOWN_EXTENSIONS: list[Any] = ["admonition", "tables", "attr_list", "fenced_code", {"toc": {"permalink": True}}]
"""What kb's pages use: admonitions (``!!! failure``), pipe tables, attribute lists (the
``{ #error }`` ids of headings), fenced code (commands, error text) and permalinks on headings.
Zensical builds only the extensions a configuration lists, so each one is named here."""

_HEADER = """\
# Written by `kb export --markdown`: the configuration that builds kb's pages (docs/) with
# `zensical build` or `mkdocs build`, without kb's MkDocs plugin. Re-export with --force to
# bring the pages and this file up to date (edits here are then replaced).
"""


def engine_config(prefix: str = "", site_name: str = "kb") -> dict[str, Any]:
    """The ``mkdocs.yml`` of an export, as a mapping: kb's built-in site configuration
    (:data:`kb.site.config.DEFAULT_CONFIG`: Material theme, offline fonts, light/dark palette,
    search with kb's word separator) without the kb plugin, plus what the plugin would add: kb's
    navigation (index-page layout), stylesheet, scripts and Markdown extensions, all under
    ``prefix`` (the folder of ``docs/`` the pages are in, ``""`` for its root).

    >>> cfg = engine_config()
    >>> cfg["docs_dir"], cfg["nav"][0], cfg["nav"][-1], cfg["extra_css"]
    ('docs', {'Home': 'index.md'}, {'Catalogs': 'catalogs/index.md'}, ['assets/kb.css'])
    """
    theme = dict(DEFAULT_CONFIG["theme"])
    return {
        "site_name": site_name,
        "docs_dir": DOCS_DIR,
        "site_dir": "site",
        "theme": theme,
        "plugins": [{"search": {"separator": SEARCH_SEPARATOR}}],
        "markdown_extensions": list(MARKDOWN_EXTENSIONS),
        "extra_css": [join(prefix, CSS_PATH)],
        "extra_javascript": [join(prefix, s) for s in SCRIPTS],
        "nav": nav(prefix, index_pages=True),
    }


def export_markdown(kg: KnowledgeGraph, records: str | Path, out_dir: str | Path, *, overwrite: bool = False,
                    prefix: str = "", directory_urls: bool = True, repo_url: str | None = None,
                    repo_branch: str = "main") -> list[Path]:
    """Write ``out_dir/mkdocs.yml`` and kb's pages under ``out_dir/docs/``; return the files
    written, sorted (the configuration last).

    Raises :class:`kb.errors.WriteError`, before anything is written, when ``out_dir`` holds
    files and ``overwrite`` is false (naming ``mkdocs.yml`` when there is one: it is replaced only
    when asked; files kb does not write are kept either way, so a stale page of an earlier export
    would stay alongside), when it holds a configuration Zensical would read instead
    (:data:`SHADOWING`), or when a file cannot be written. The pages are written beside
    ``docs/`` (a hard-linked copy of it: files kb does not write stay) and swapped in whole
    (:mod:`kb.publish`): a kill or a full disk leaves ``docs/`` as it was.
    """
    out = Path(out_dir)
    _check_target(out, overwrite)
    records = Path(records)
    record_files = {rid: origin.file or records.parent / origin.path for rid, origin in kg.records.origins.items()}
    options = TreeOptions(prefix=prefix, directory_urls=directory_urls, repo_url=repo_url, repo_branch=repo_branch,
                          repo_path=None, last_updated=last_changed(records), index_pages=True)
    tree = site_tree(kg, list_assets(records), record_files, options)
    docs = out / DOCS_DIR
    staging = staging_for(docs, seed=True)  # the folder's other files kept; swapped in whole at the end
    written = []
    try:
        for rel, content in sorted(tree.items()):
            target = staging / rel
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            write_bytes_atomic(target, data, overwrite=True, durable=False)  # the swap is the commit
            written.append(docs / rel)
        swap_in(staging, docs)
    except BaseException:
        discard(staging)
        raise
    config = engine_config(prefix)
    if not directory_urls:
        config["use_directory_urls"] = False
    text = _HEADER + yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    write_bytes_atomic(out / CONFIG_FILE, text.encode("utf-8"), overwrite=True)
    written.append(out / CONFIG_FILE)
    return written


def _check_target(out: Path, overwrite: bool) -> None:
    """Refuse a folder the export must not write into (see :func:`export_markdown`)."""
    if not out.is_dir():
        if out.exists():
            raise WriteError(f"{out}: not a folder; name a folder to export into (it is created if missing)")
        return
    for name in SHADOWING:
        if (out / name).exists():
            raise WriteError(f"{out / name}: Zensical reads it before {CONFIG_FILE}, so `zensical build` would not use "
                             f"kb's configuration; rename or remove it, or export into another folder")
    if overwrite or not any(out.iterdir()):
        return
    if (out / CONFIG_FILE).exists():
        raise WriteError(f"{out / CONFIG_FILE}: already exists; pass --force to replace it with kb's configuration "
                         f"and write kb's pages into {out / DOCS_DIR} (other files are kept)")
    raise WriteError(f"{out}: not empty; pass --force to write kb's configuration ({CONFIG_FILE}) and pages "
                     f"({DOCS_DIR}/) into it (files of the same name are replaced, others are kept)")
