"""``kb export --markdown DIR``: kb's pages as files, for engines that run no MkDocs plugins.

Zensical reads ``mkdocs.yml`` but runs no MkDocs plugins, so a site that relies on kb's plugin
loses every kb page there. The exported tree (:func:`kb.site.tree.site_tree`) is plain Markdown,
HTML blocks and static files: point ``docs_dir`` at it (or export into a folder of your docs,
with ``--prefix``), list :func:`kb.site.tree.nav` in ``nav``, add ``assets/kb.css`` to
``extra_css``, and MkDocs (without the kb plugin) or Zensical builds the same pages.
"""

from __future__ import annotations

from pathlib import Path

from kb.atomic import write_bytes_atomic
from kb.errors import WriteError
from kb.graph import KnowledgeGraph
from kb.publish import discard, staging_for, swap_in
from kb.site.tree import TreeOptions, site_tree
from kb.store import last_changed, list_assets


def export_markdown(kg: KnowledgeGraph, records: str | Path, out_dir: str | Path, *, overwrite: bool = False,
                    prefix: str = "", directory_urls: bool = True, repo_url: str | None = None,
                    repo_branch: str = "main") -> list[Path]:
    """Write kb's tree under ``out_dir``; return the files written, sorted.

    Raises :class:`kb.errors.WriteError` when ``out_dir`` holds files and ``overwrite`` is false
    (a stale page from an earlier export would be kept alongside), or when a file cannot be written.
    The tree is written beside ``out`` (a hard-linked copy of it: files kb does not write stay)
    and swapped in whole (:mod:`kb.publish`): a kill or a full disk leaves ``out`` as it was.
    """
    out = Path(out_dir)
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise WriteError(f"{out}: not empty; pass --force to write kb's pages into it (files of the same name are replaced)")
    records = Path(records)
    record_files = {rid: origin.file or records.parent / origin.path for rid, origin in kg.records.origins.items()}
    options = TreeOptions(prefix=prefix, directory_urls=directory_urls, repo_url=repo_url, repo_branch=repo_branch,
                          repo_path=None, last_updated=last_changed(records))
    tree = site_tree(kg, list_assets(records), record_files, options)
    staging = staging_for(out, seed=True)  # the folder's other files kept; swapped in whole at the end
    written = []
    try:
        for rel, content in sorted(tree.items()):
            target = staging / rel
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            write_bytes_atomic(target, data, overwrite=True, durable=False)  # the swap is the commit
            written.append(out / rel)
        swap_in(staging, out)
    except BaseException:
        discard(staging)
        raise
    return written
