"""The pipeline, written once: load → check → link.

::

    records/ ──store.load_records──▶ valid records + file problems
             ──graph.check_references──▶ + reference problems
             ──graph.build_graph──▶ KnowledgeGraph ──▶ queries │ site │ importers │ logbook

Every entry point (the CLI, the MkDocs plugin, ``kb build``/``kb serve``, the importers and the
logbook) calls :func:`load` (every problem, and the graph of the records that are valid) or
:func:`load_graph` (the graph, or :class:`kb.errors.InvalidRecords` with every problem).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kb.errors import InvalidRecords, Problem
from kb.graph import KnowledgeGraph, build_graph, check_references, loose_reference_problems
from kb.store import Prefetched, RecordSet, load_records


@dataclass
class Loaded:
    """What :func:`load` read: the valid ``records``, every ``problems`` (file and reference
    problems, sorted by path, line, field) and the ``graph`` of the valid records."""

    records: RecordSet
    problems: list[Problem]
    graph: KnowledgeGraph

    def raise_if_invalid(self) -> KnowledgeGraph:
        """The graph, or :class:`InvalidRecords` with every problem when there is any."""
        if self.problems:
            raise InvalidRecords(self.problems)
        return self.graph


def load(root: str | Path, catalogs: list[str] | tuple[str, ...] = (), prefetched: Prefetched | None = None) -> Loaded:
    """Load, check and link the records under ``root`` (a ``records/`` folder), with the
    catalogs its campaigns list and ``catalogs`` (the kb plugin's option; :func:`kb.catalog.merge_catalogs`).
    ``prefetched``: the record files' bytes read beforehand (:class:`kb.store.Prefetched`).

    Reference problems are looked for among the records that loaded; a record that failed to
    load is reported once, as its own problem, not again as an unknown id. Never raises for bad
    records; raises :class:`kb.errors.RecordError` only when ``root`` is not a folder.
    """
    from kb.catalog import merge_catalogs

    loaded = load_records(root, prefetched=prefetched)
    problems = loaded.problems + merge_catalogs(loaded.records, root, catalogs)
    problems += _reference_problems(loaded.records, root)
    problems.sort(key=lambda p: (p.path, p.line or 0, p.field, p.message))
    return Loaded(loaded.records, problems, build_graph(loaded.records))


def load_graph(root: str | Path, catalogs: list[str] | tuple[str, ...] = (),
               prefetched: Prefetched | None = None) -> KnowledgeGraph:
    """The graph of the records under ``root`` (and ``catalogs``, ``prefetched``: see
    :func:`load`); raises :class:`InvalidRecords` with every problem when any record or reference
    is invalid."""
    return load(root, catalogs, prefetched).raise_if_invalid()


def catalog_folders(records: RecordSet, root: str | Path, extra: list[str] | tuple[str, ...] = ()) -> list[Path]:
    """Every folder a catalog name listed by ``records``' campaigns (or in ``extra``, the kb
    plugin's ``catalogs`` option) could be read from
    (:func:`kb.catalog.catalog_places`: the shipped catalog of that name, a package's data
    folder, the folder of that path beside ``root``), found or not, sorted: what a result kept by content
    (:mod:`kb.store.memo`) depends on beyond ``root``, since a catalog folder created, removed or
    edited later must make the next run look again."""
    from kb.catalog import catalog_places
    from kb.models import Campaign

    names = [name for camp in records.of_kind(Campaign) for name in camp.catalogs] + list(extra)
    return sorted({place for name in names for place in catalog_places(name, root)})


REFERENCES_CLEAN = "references-clean"
"""Name of the memo (:func:`kb.store.memo.mark`) holding the content key of the last record set
whose reference check found nothing."""


def _reference_problems(records: RecordSet, root: str | Path) -> list[Problem]:
    """:func:`check_references` of ``records``, skipped when the very same content (every file
    read, its bytes' SHA-256, the catalogs' too, and kb's code: :func:`kb.store.memo.content_key`)
    was checked before and had no reference problem: the check is a function of exactly that.
    The key is taken from the bytes this load read (not from a second look at the folder), so an
    edit, whatever its size or mtime, gives another key and is checked. With the cache off (or a
    records folder inside kb), it is always checked."""
    from kb.store.memo import content_key, known, mark

    key = content_key(records.sources)
    if known(root, REFERENCES_CLEAN, key):
        return []
    problems = check_references(records) + loose_reference_problems(records)
    if not problems:
        mark(root, REFERENCES_CLEAN, key)
    return problems
