"""The one converter from validation errors to located problems.

pydantic reports ``{loc, type, msg, input}``; kb reports ``path:line: field: message`` with what
was expected and how to fix it (STYLE.md, habit 5). :func:`located_problems` does it for a
record file (lines from :mod:`kb.yamldoc`), :func:`option_problems` for the options of a command
that builds a record (``kb log: --metric: ...``), :func:`first_message` for one value.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from kb.errors import Problem
from kb.models import Record
from kb.yamldoc import Document

_AT = re.compile(r"^(?:Value error, )?@([\w.-]+): (.*)$", re.S)
"""A model check's message that names the field it concerns (``@components.nccl.bundled_in: ...``)."""


def located_problems(exc: ValidationError, model: type[Record], rel: str, doc: Document | None = None) -> list[Problem]:
    """Every error of ``exc`` (validating ``model`` from the file ``rel``) as a :class:`Problem`
    at its line in ``doc`` (when the file's :class:`~kb.yamldoc.Document` is known), its dotted
    field path, and a message saying what was expected and how to fix it."""
    out = []
    for raw_err in exc.errors():
        err: dict[str, Any] = dict(raw_err)
        m = _AT.match(str(err.get("msg", "")))
        if m:  # a record-level check that names the field it is about: "@components.nccl.bundled_in: ..."
            err["loc"] = (*err["loc"], *(int(x) if x.isdigit() else x for x in m.group(1).split(".")))
            err["msg"] = m.group(2)
        loc = shorthand_loc(tuple(err["loc"]), doc)
        line = doc.line_of(loc) if doc else None
        field_ = ".".join(str(p) for p in loc)
        out.append(Problem(rel, line, field_, describe({**err, "loc": loc}, doc, model)))
    return out


def shorthand_loc(loc: tuple[Any, ...], doc: Document | None) -> tuple[Any, ...]:
    """A ``fixed_by`` item written in shorthand (``{cuda: ">=13.0"}``) is read as
    ``{kind: enables, requires: {...}}`` (:class:`kb.models.Fix`): drop the ``requires`` step the
    file does not have, so the problem is located at ``fixed_by.0.cuda``, on its own line."""
    if (doc is not None and len(loc) >= 3 and loc[0] == "fixed_by" and loc[2] == "requires"
            and (loc[0], loc[1], "requires") not in doc.lines):
        return loc[:2] + loc[3:]
    return loc


def _fields_at(model: type, loc: tuple[Any, ...]) -> list[str]:
    """Field names valid at the mapping that contains ``loc[-1]``."""
    from pydantic import BaseModel

    cur: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if isinstance(cur, type) and issubclass(cur, BaseModel) and part in cur.model_fields:
            ann = cur.model_fields[part].annotation
            cur = _inner_model(ann)
        else:
            return []
    if isinstance(cur, type) and issubclass(cur, BaseModel):
        return [f.alias or n for n, f in cur.model_fields.items()]
    return []


def _inner_model(ann: Any) -> Any:
    from typing import get_args

    from pydantic import BaseModel

    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for a in get_args(ann):
        m = _inner_model(a)
        if m is not None:
            return m
    return None


def _raw_for(doc: Document | None, loc: tuple[Any, ...]) -> tuple[str, str] | None:
    if doc is None:
        return None
    if len(loc) > 2 and loc[0] == "applies_when" and loc[1] == "components":
        loc = (loc[0], *loc[2:])  # written flat in the file: applies_when: {cuda: ...}
    path = loc
    while path:
        if path in doc.raw:
            return doc.raw[path]
        path = path[:-1]
    return None


def _plain_value(value: Any) -> str:
    """A value as a person wrote it: dates as ``YYYY-MM-DD``, lists as ``[a, b]``, never Python's
    ``datetime.date(2026, 1, 1)``."""
    import datetime as dt

    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_plain_value(v) for v in value) + "]"
    return str(value)


def describe(err: Any, doc: Document | None, model: type[Record]) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) in words: what was expected
    and how to fix it, using the raw YAML text in ``doc`` (``2.10`` read as a number) when known."""
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        valid = [f for f in _fields_at(model, loc) if f != "id"]
        hint = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
        msg = f"unknown key '{key}'"
        msg += f"; did you mean '{hint[0]}'?" if hint else ""
        return msg + (f" (valid keys: {', '.join(valid)})" if valid else "")
    if kind == "missing":
        return f"required field '{loc[-1]}' is missing; add it"
    raw = _raw_for(doc, loc)
    key = next((str(p) for p in reversed(loc) if isinstance(p, str) and p != "version"), "field")
    if raw and raw[1] == "null (empty)" and kind in ("string_type", "model_type", "dict_type", "list_type", "float_type"):
        where = f"{key} item {loc[-1]}" if loc and isinstance(loc[-1], int) else key
        return (f"{where} has no value (YAML reads an empty value or '{raw[0] or '~'}' as null); "
                f"write a value, or remove the line if the field is optional")
    if raw and kind in ("enum", "literal_error") and raw[1] in ("a boolean", "a number", "an integer"):
        msg = err["msg"]
        return (f"'{raw[0]}' was read by YAML as {raw[1]} ({err.get('input')!r}), not a word; "
                f"{msg[0].lower() + msg[1:]}: quote it if you meant the word, e.g. {key}: \"{raw[0]}\"")
    if raw and kind == "string_type" and raw[1] == "a date":
        where = f"{key} item {loc[-1]}" if loc and isinstance(loc[-1], int) else key
        when = "a date and time" if re.search(r"\d[Tt ]\d", raw[0]) else "a date"
        return (f"'{raw[0]}' was read by YAML as {when}, but {where} is text: quote it, e.g. "
                f"{key}: \"{raw[0]}\"" if not (loc and isinstance(loc[-1], int)) else
                f"'{raw[0]}' was read by YAML as {when}, but {where} is text: quote it, e.g. [\"{raw[0]}\"]")
    if raw and kind in ("string_type", "model_type", "dict_type") and raw[1] not in ("a date", "a non-finite number"):
        text, what = raw
        if what in ("a number", "an integer") and loc and loc[0] in ("fixed_by", "applies_when") \
                and key != "compute_capability":
            return (f"'{text}' was read by YAML as a number ({err.get('input')!r}); a constraint is a quoted PEP 440 "
                    f"specifier: write {key}: \">={text}\" (or \"=={text}\" for exactly {text})"
                    if key in ("gpu_count", "tensor_parallel_size") else
                    f"'{text}' was read by YAML as a number ({err.get('input')!r}); a constraint is a quoted PEP 440 "
                    f"specifier: write {key}: \">={text}\" (or \"=={text}.*\" for exactly that release)")
        if what == "a number":
            return (f"'{text}' was read by YAML as a number ({err.get('input')!r}); versions and names are strings: "
                    f"quote it, e.g. {key}: \"{text}\"")
        if what == "a boolean":
            return (f"'{text}' was read by YAML as the boolean {err.get('input')!r}; quote it: {key}: \"{text}\"")
        return f"'{text}' was read by YAML as {what}; expected a string: quote it, e.g. {key}: \"{text}\""
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if kind in ("literal_error", "enum"):  # "Input should be 'a', 'b' or 'c'": the closest one too
        choices = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
        # a stricter cutoff than for keys: 'approved' is nearer 'proposed' than 'accepted' by letters
        hint = difflib.get_close_matches(str(err.get("input")), choices, n=1, cutoff=0.7)
        return f"{msg} (got {err.get('input')!r})" + (f"; did you mean '{hint[0]}'?" if hint else "")
    if kind in ("date_from_datetime_parsing", "date_parsing", "date_type", "date_from_datetime_inexact"):
        shown = raw[0] if raw else _plain_value(err.get("input"))
        return f"'{shown}' is not a date; write it as YYYY-MM-DD, e.g. 2026-02-21"
    if kind == "string_pattern_mismatch":
        return f"{msg} (got {err.get('input')!r})"
    value = err.get("input")
    if kind == "float_type" and isinstance(value, int) and not isinstance(value, bool):
        return f"a number of {len(str(abs(value)))} digits is too large to be a measurement; check the value"
    if kind == "list_type":
        return f"expected a list, e.g. {key}: [a, b] (got {_short(value)})"
    if kind in ("dict_type", "model_type"):
        return f"expected a mapping of name: value (got {_short(value)})"
    if kind != "value_error" and isinstance(value, (int, float, str)) and not isinstance(value, bool) and "(got" not in msg:
        return f"{msg} (got {_short(value)})"
    return msg


def _short(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters (a 300-digit integer stays readable)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_message(exc: ValidationError) -> str:
    """The message of the first error of ``exc``, without pydantic's ``Value error,`` prefix."""
    return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")


def option_problems(exc: ValidationError, where: str, options: Mapping[str, str] | None = None, *,
                    skip_missing: bool = False, keyed: tuple[str, ...] = ()) -> list[Problem]:
    """Every error of ``exc`` as a :class:`Problem` of the command ``where`` (``kb log``), its
    field named by the option that set it: ``options`` maps a dotted field path or its first
    part to the option (``{"metrics": "--metric"}``); unmapped fields keep their dotted path.

    ``skip_missing`` leaves out missing fields (already reported by the caller); for a field in
    ``keyed`` (``metrics``, ``components``) the key is put before the message
    (``--metric: output_throughput: ...``). A model-level error (no field) is named by
    ``options[""]`` when given.
    """
    options = options or {}
    out: list[Problem] = []
    for err in exc.errors():
        if skip_missing and err["type"] == "missing":
            continue
        loc = tuple(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        if loc:
            name = options.get(".".join(loc), options.get(loc[0], ".".join(loc)))
            if loc[0] in keyed and len(loc) > 1:
                msg = f"{loc[1]}: {msg}"
        else:
            name = options.get("", "")
        problem = Problem(where, None, name, msg)
        if problem not in out:
            out.append(problem)
    return out
