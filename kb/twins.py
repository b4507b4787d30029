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
from typing import Any, Iterator

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
    # the graph's plain edge tables, in networkx's edge order sorted: building the networkx
    # graph for this alone cost ~70 MB and an import at 10,000 attempts
    for v, k in sorted(_pairs(kg._adjacency(False), record.id)):
        out.setdefault(k, []).append(v)
    for u, k in sorted(_pairs(kg._adjacency(True), record.id)):
        into.setdefault(k, []).append(u)
    return {"id": record.id, "kind": record.kind, "title": record.title,
            "page": f"{record.folder}/{record.id}.md", "record": record_json(record),
            "links": {"out": out, "in": into}}


def _pairs(adjacency: Any, node: str) -> list[tuple[str, str]]:
    """``(neighbour, edge type)`` of ``node`` in an adjacency table (node → neighbour → types)."""
    return [(other, k) for other, keys in (adjacency.get(node) or {}).items() for k in keys]


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
    edges = [{"source": u, "target": v, "type": k}
             for u, v, k in sorted((u, v, k) for u, targets in kg._adjacency(False).items()
                                   for v, keys in targets.items() for k in keys)
             if only is None or (u in only and v in only)]
    return {"version": 1, "records": rows, "edges": edges}


def render_twins(kg: KnowledgeGraph, only: set[str] | None = None) -> dict[str, str]:
    """``{path: JSON text}``: the twin of every record (or of those in ``only``: the records the
    site publishes) and the index, ready to publish."""
    return dict(iter_twins(kg, only))


def iter_twins(kg: KnowledgeGraph, only: set[str] | None = None) -> Iterator[tuple[str, str]]:
    """``(path, JSON text)`` of each twin, then of the index, as :func:`render_twins` gives them,
    one at a time (a caller keeping them in another form never holds every text at once)."""
    for r in kg.records.records.values():
        if only is None or r.id in only:
            yield twin_path(r), _dumps(twin(kg, r))
    yield INDEX, _dumps(index(kg, only))


def _dumps(data: Any) -> str:
    """``json.dumps(data, indent=1, ensure_ascii=False)`` and a newline, the same text.

    With ``indent`` the json module takes its pure-Python encoder (its C encoder writes compact
    JSON only), ~0.1 ms a twin; :func:`_indented` writes the same layout with the C string
    escaper. Data it does not know (a key that is not a string, another type) goes to
    :func:`json.dumps`."""
    out: list[str] = []
    try:
        _indented(data, "\n", out)
    except _Other:
        return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    out.append("\n")
    return "".join(out)


class _Other(Exception):
    """A value :func:`_indented` leaves to :func:`json.dumps`."""


_STRING = json.encoder.encode_basestring  # the C escaper where there is one, as json.dumps uses


def _indented(value: Any, newline: str, out: list[str]) -> None:
    """Append ``value`` as JSON with one space of indent per level; ``newline`` is a newline and
    the current level's indent."""
    if isinstance(value, str):
        out.append(_STRING(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif type(value) is int:
        out.append(int.__repr__(value))
    elif type(value) is float:
        if value != value or value - value != 0:  # NaN, infinities: json.dumps words them
            raise _Other
        out.append(float.__repr__(value))
    elif type(value) is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + " "
        sep = "{" + inner
        for k, v in value.items():
            if type(k) is not str:
                raise _Other
            out.append(sep)
            out.append(_STRING(k))
            out.append(": ")
            _indented(v, inner, out)
            sep = "," + inner
        out.append(newline + "}")
    elif type(value) is list:
        if not value:
            out.append("[]")
            return
        inner = newline + " "
        sep = "[" + inner
        for v in value:
            out.append(sep)
            _indented(v, inner, out)
            sep = "," + inner
        out.append(newline + "]")
    else:
        raise _Other
