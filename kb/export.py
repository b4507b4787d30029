"""The knowledge graph as text: Mermaid, Graphviz DOT, or a JSON node-link document."""

from __future__ import annotations

import json
from typing import Any

from kb.graph import KnowledgeGraph

_SHAPES = {"attempt": ("[", "]"), "blocker": ("([", "])"), "decision": ("{{", "}}"), "stack": ("[(", ")]"),
           "platform": ("[/", "/]"), "campaign": ("[[", "]]")}


_MERMAID_ESCAPES = {"-": "_", "_": "_U", ".": "_D"}


def _mermaid_id(rid: str) -> str:
    """A Mermaid node id for record id ``rid``, distinct for distinct ids.

    Record ids are lowercase (:data:`kb.models.ID_RE`), so uppercase escapes after ``_`` cannot be
    confused with a ``-`` followed by a letter: ``a-b`` → ``n_a_b``, ``a_b`` → ``n_a_Ub``,
    ``a.b`` → ``n_a_Db``; any other character becomes ``_X<hex>_``.

    >>> _mermaid_id("2026-02-19-cuda-12.8"), _mermaid_id("a_b") != _mermaid_id("a-b")
    ('n_2026_02_19_cuda_12_D8', True)
    """
    return "n_" + "".join(
        c if c.isascii() and (c.isdigit() or c.islower()) else _MERMAID_ESCAPES.get(c, f"_X{ord(c):x}_")
        for c in rid
    )


def _mermaid_label(text: str) -> str:
    return "#quot;" if text == '"' else text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def to_mermaid(kg: KnowledgeGraph) -> str:
    """A Mermaid ``flowchart LR``: one node per record (shape by kind), one labelled edge per reference."""
    lines = ["flowchart LR"]
    for rid in sorted(kg.g.nodes):
        rec = kg.get(rid)
        kind = kg.g.nodes[rid]["kind"]
        a, b = _SHAPES.get(kind, ("[", "]"))
        label = _mermaid_label(f"{kind}: {rec.title if rec else rid}")
        lines.append(f'    {_mermaid_id(rid)}{a}"{label}"{b}')
    for u, v, k in sorted(kg.g.edges(keys=True)):
        lines.append(f"    {_mermaid_id(u)} -->|{k}| {_mermaid_id(v)}")
    return "\n".join(lines)


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def to_dot(kg: KnowledgeGraph) -> str:
    """A Graphviz ``digraph`` with the record kind as node shape and the edge type as label."""
    shapes = {"attempt": "box", "blocker": "ellipse", "decision": "diamond", "stack": "cylinder",
              "platform": "parallelogram", "campaign": "folder"}
    lines = ["digraph kb {", "  rankdir=LR;"]
    for rid in sorted(kg.g.nodes):
        rec = kg.get(rid)
        kind = kg.g.nodes[rid]["kind"]
        lines.append(f"  {_dot_quote(rid)} [label={_dot_quote(rec.title if rec else rid)}, shape={shapes.get(kind, 'box')}];")
    for u, v, k in sorted(kg.g.edges(keys=True)):
        lines.append(f"  {_dot_quote(u)} -> {_dot_quote(v)} [label={_dot_quote(k)}];")
    lines.append("}")
    return "\n".join(lines)


def to_json(kg: KnowledgeGraph) -> dict[str, Any]:
    """``{"nodes": [{id, kind, title}], "edges": [{source, target, type}]}``, sorted."""
    nodes = [{"id": rid, "kind": kg.g.nodes[rid]["kind"], "title": getattr(kg.get(rid), "title", rid)}
             for rid in sorted(kg.g.nodes)]
    edges = [{"source": u, "target": v, "type": k} for u, v, k in sorted(kg.g.edges(keys=True))]
    return {"nodes": nodes, "edges": edges}


def dumps(kg: KnowledgeGraph) -> str:
    """:func:`to_json` as indented text."""
    return json.dumps(to_json(kg), indent=2)
