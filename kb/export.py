"""The knowledge graph as text: Mermaid, Graphviz DOT, or a JSON node-link document."""

from __future__ import annotations

import json
import re
from typing import Any

from kb.graph import KnowledgeGraph

_SHAPES = {"attempt": ("[", "]"), "blocker": ("([", "])"), "decision": ("{{", "}}"), "stack": ("[(", ")]"),
           "platform": ("[/", "/]"), "campaign": ("[[", "]]")}


def _mermaid_id(rid: str) -> str:
    return "n_" + re.sub(r"[^A-Za-z0-9_]", "_", rid)


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
