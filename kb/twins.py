"""Machine-readable twins of the records: one JSON document per record and an index of all of
them, shipped beside the site's pages for scripts and agents (``records.json``,
``<folder>/<id>.json``).

The same data feeds :mod:`kb.sqlite_export`. Shapes:

* a record twin: ``{"id", "kind", "title", "page", "record": {every field, JSON-typed},
  "links": {"out": {edge: [ids]}, "in": {edge: [ids]}}}``;
* the index: ``{"version": 1, "records": [{"id", "kind", "title", "status", "date", "page",
  "json", "supersedes", "superseded_by"}], "edges": [{"source", "target", "type"}]}``, sorted by id.

``page`` is the page's source path (``decisions/<id>.md``) and ``json`` the twin's path, both
relative to the site root (or to a ``prefix`` folder when kb is a guest in another site).
"""

from __future__ import annotations

import json
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Record

INDEX = "records.json"
"""The index of every record, at the root of kb's part of the site."""


def record_json(record: Record) -> dict[str, Any]:
    """Every field of ``record`` as JSON-typed data (dates as ``YYYY-MM-DD``, aliases as written
    in YAML, ``None`` left out)."""
    return record.model_dump(mode="json", by_alias=True, exclude_none=True)


def twin_path(record: Record) -> str:
    """``decisions/<id>.json``: where a record's twin lies, beside its page ``decisions/<id>.md``."""
    return f"{record.folder}/{record.id}.json"


def twin(kg: KnowledgeGraph, record: Record) -> dict[str, Any]:
    """The twin of one record (see the module docstring)."""
    out: dict[str, list[str]] = {}
    into: dict[str, list[str]] = {}
    for _u, v, k in sorted(kg.g.out_edges(record.id, keys=True)):
        out.setdefault(k, []).append(v)
    for u, _v, k in sorted(kg.g.in_edges(record.id, keys=True)):
        into.setdefault(k, []).append(u)
    return {"id": record.id, "kind": record.kind, "title": record.title,
            "page": f"{record.folder}/{record.id}.md", "record": record_json(record),
            "links": {"out": out, "in": into}}


def index(kg: KnowledgeGraph, only: set[str] | None = None) -> dict[str, Any]:
    """The index of every record, or of the records in ``only`` and the edges between them
    (see the module docstring)."""
    rows = []
    for rid in sorted(kg.records.records if only is None else only & set(kg.records.records)):
        rec = kg.records.records[rid]
        date = getattr(rec, "date", None)
        rows.append({"id": rid, "kind": rec.kind, "title": rec.title, "status": getattr(rec, "status", None),
                     "date": date.isoformat() if date is not None else None,
                     "page": f"{rec.folder}/{rid}.md", "json": twin_path(rec),
                     "supersedes": kg.out(rid, "supersedes"), "superseded_by": kg.into(rid, "supersedes")})
    edges = [{"source": u, "target": v, "type": k} for u, v, k in sorted(kg.g.edges(keys=True))
             if only is None or (u in only and v in only)]
    return {"version": 1, "records": rows, "edges": edges}


def render_twins(kg: KnowledgeGraph, only: set[str] | None = None) -> dict[str, str]:
    """``{path: JSON text}``: the twin of every record (or of those in ``only``: the records the
    site publishes) and the index, ready to publish."""
    files = {twin_path(r): _dumps(twin(kg, r)) for r in kg.records.records.values() if only is None or r.id in only}
    files[INDEX] = _dumps(index(kg, only))
    return files


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
