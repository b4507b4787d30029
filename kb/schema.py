"""JSON Schemas of the record files, one per kind, generated from the pydantic models.

Editors that read yaml-language-server schemas (VS Code's YAML extension, Neovim and Helix with
yaml-language-server, JetBrains IDEs) complete keys and flag mistakes as a record is typed, when
the file starts with a modeline (:func:`modeline`, which the store writes into every record).

A schema describes the *file*, which is a little looser than the model in a few documented ways,
each applied here after pydantic's own generation:

* ``id`` is optional (it defaults to the file name);
* a metric may be written ``"54.1 tok/s"`` as well as ``{value: 54.1, unit: tok/s}``;
* a component may be written as its version string (``cuda: "13.0"``);
* ``applies_when`` is written flat (``{compute_capability: ">=12.0", cuda: "<13"}``);
* ``source`` may be one mapping instead of a list;
* a fix may be written as the shorthand ``{cuda: ">=13.0"}``.

``kb check`` remains the authority (references between records, version specifiers, units);
the schema catches what an editor can catch while typing.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from kb.models import KIND_BY_NAME, UNITS, Record

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""Pydantic 2 generates JSON Schema draft 2020-12."""


def schema_file_name(kind: str) -> str:
    """``decision`` → ``decision.schema.json``."""
    return f"{kind}.schema.json"


def record_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (a dict) of a record file of ``kind`` (``attempt``, ``decision``, ...).

    Raises :class:`KeyError` for an unknown kind.
    """
    model: type[Record] = KIND_BY_NAME[kind]
    schema = copy.deepcopy(model.model_json_schema(by_alias=True, mode="validation"))
    defs = schema.get("$defs", {})
    if "id" in schema.get("required", []):
        schema["required"].remove("id")
    if "id" in schema.get("properties", {}):
        schema["properties"]["id"]["description"] = "Optional: defaults to the file name without .yaml, and must equal it."
    if "source" in schema.get("properties", {}):
        schema["properties"]["source"] = {"anyOf": [{"$ref": "#/$defs/Source"}, schema["properties"]["source"]],
                                          "title": "Source"}
    _loosen(schema, defs)
    out = {"$schema": SCHEMA_DIALECT, "$id": schema_file_name(kind),
           "title": f"kb {kind} record", **{k: v for k, v in schema.items() if k != "title"}}
    return out


_METRIC_TEXT = {"type": "string",
                "pattern": r"^\s*[-+]?\d+(\.\d+)?([eE][-+]?\d+)?\s*(" + "|".join(re.escape(u) for u in UNITS) + r")\s*$",
                "description": "A number and its unit, e.g. \"54.1 tok/s\"; units: " + ", ".join(UNITS)}
_VERSION_TEXT = {"type": "string", "description": "The component's version, e.g. \"13.0\" (quote it)."}


def _loosen(node: Any, defs: dict[str, Any]) -> None:
    """Replace references to models that accept a shorter written form by ``anyOf`` both forms."""
    if "Metric" in defs:
        defs["Metric"]["properties"]["unit"]["enum"] = list(UNITS)
    if "Applicability" in defs:
        props = {k: v for k, v in defs["Applicability"]["properties"].items() if k != "components"}
        defs["Applicability"] = {
            "type": "object", "title": "Applicability", "description": defs["Applicability"].get("description", ""),
            "properties": props,
            "additionalProperties": {"type": "string", "description": "component: PEP 440 specifier, e.g. \">=13.0\""},
        }
    short: dict[str, Any] = {"#/$defs/Metric": _METRIC_TEXT, "#/$defs/Component": _VERSION_TEXT}
    if "Fix" in defs:  # the shorthand {cuda: ">=13.0"} is an 'enables' fix (kb.models.Fix)
        short["#/$defs/Fix"] = {
            "type": "object", "minProperties": 1,
            "propertyNames": {"not": {"enum": list(defs["Fix"]["properties"])}},
            "additionalProperties": {"type": "string"},
            "description": "Shorthand of an 'enables' fix: component → PEP 440 specifier, all holding together.",
        }

    def walk(n: Any) -> Any:
        if isinstance(n, dict):
            ref = n.get("$ref")
            if ref in short and len(n) == 1:
                return {"anyOf": [dict(n), short[ref]]}
            return {k: walk(v) for k, v in n.items()}
        if isinstance(n, list):
            return [walk(v) for v in n]
        return n

    new = walk({k: v for k, v in node.items()})
    node.clear()
    node.update(new)


def all_schemas() -> dict[str, str]:
    """``{file name: JSON text}`` for every record kind, as ``kb schema --out`` writes them
    (2-space indent, keys in generation order, newline at the end)."""
    return {schema_file_name(kind): dump_schema(record_schema(kind)) for kind in KIND_BY_NAME}


def dump_schema(schema: dict[str, Any]) -> str:
    """A schema as stable JSON text."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def modeline(schema_ref: str) -> str:
    """The first line of a record file pointing yaml-language-server at its schema.

    >>> modeline("../../schemas/decision.schema.json")
    '# yaml-language-server: $schema=../../schemas/decision.schema.json'
    """
    return f"# yaml-language-server: $schema={schema_ref}"
