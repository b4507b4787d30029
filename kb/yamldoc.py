"""Parse one YAML document into plain Python data plus the line of every node.

PyYAML's constructors lose line numbers and silently keep the last of two duplicate keys, so kb
composes the node tree (libyaml's C composer when available) and builds the data itself:

* every value's 1-based line is kept under its path (``("metrics", "output_throughput")``);
* a duplicate key in a mapping is an error naming both lines;
* anchors and aliases are refused (records never need them, and they make "billion laughs"
  expansion possible);
* nesting deeper than :data:`MAX_DEPTH` is refused;
* scalars YAML resolved to something other than a string (``2.10`` → float 2.1, ``no`` → False)
  keep their source text, so a later "expected a string" can say what YAML did and how to quote it.

Errors are :class:`kb.errors.RecordError` with the file and line.
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, ClassVar

import yaml

from kb.errors import Problem, RecordError

try:  # libyaml is much faster; fall back to the pure-Python composer when it is missing
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


def _plain_reason(exc: Exception) -> str:
    """Why a date, time or number YAML recognised is not a valid one, in plain words (never
    Python's ``datetime.timedelta(...)`` or exception text)."""
    text = str(exc)
    if "offset must be a timedelta" in text:
        return "its time-zone offset is out of range: offsets run from -23:59 to +23:59"
    if "day is out of range" in text:
        return "that month has no such day"
    if "month must be in" in text:
        return "the month must be 1 to 12"
    if "hour must be in" in text or "minute must be in" in text or "second must be in" in text:
        return "the time of day is out of range"
    if "year" in text and "out of range" in text:
        return "the year is out of range"
    return "it cannot be read as one"


class _Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The safe loader with a memo on tag resolution: the composer asks, for every scalar, which
    tag its text resolves to, and PyYAML answers in Python by trying regular expressions. For a
    plain scalar the answer depends only on the text (no path resolvers are registered on the
    safe loader): a text whose first character starts no resolver (most prose) is a string at
    once, and any other distinct text is resolved once per process; a quoted scalar is a string,
    a mapping a map and a sequence a seq (PyYAML's defaults, when no path resolver is registered).

    The composer also calls ``descend_resolver``/``ascend_resolver`` around every node, for path
    resolvers only: with none registered they do nothing, so they are C built-ins here that take
    the same arguments and do nothing (two Python calls fewer per node; with a path resolver
    registered, PyYAML's own are kept)."""

    _memo: ClassVar[dict[str, str]] = {}
    _MEMO_MAX = 200_000

    if not _BaseLoader.yaml_path_resolvers:
        descend_resolver = operator.is_  # (parent, index) -> ignored bool
        ascend_resolver = tuple  # () -> ignored ()

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if self.yaml_path_resolvers:  # pragma: no cover - none registered on the safe loader
            return super().resolve(kind, value, implicit)
        if kind is _SCALAR:
            if not implicit[0] or (value and _FIRST_KNOWN and value[0] not in _FIRST_CHARS):
                return _STR  # quoted, or no resolver starts with this character (most prose)
            memo = _Loader._memo
            tag = memo.get(value)
            if tag is None:
                if _DIGITS_KNOWN:  # figures are mostly distinct: told apart here, not remembered
                    if _DECIMAL(value):
                        return _FLOAT
                    if _INTEGER(value):
                        return _INT
                if len(memo) >= _Loader._MEMO_MAX:
                    memo.clear()
                tag = memo[value] = super().resolve(kind, value, implicit)
            return tag
        return _MAP if kind is _MAPPING else _SEQ if kind is _SEQUENCE else super().resolve(kind, value, implicit)


_SCALAR = yaml.ScalarNode
_MAPPING = yaml.MappingNode
_SEQUENCE = yaml.SequenceNode
_MAP = _BaseLoader.DEFAULT_MAPPING_TAG
_SEQ = _BaseLoader.DEFAULT_SEQUENCE_TAG
_FIRST_CHARS = frozenset(_BaseLoader.yaml_implicit_resolvers)
"""First characters that start an implicit resolver of the safe loader (digits, signs, ``t``,
``n``, ``~``...); a plain scalar starting with any other is a string."""
_FIRST_KNOWN = None not in _BaseLoader.yaml_implicit_resolvers
"""Whether every implicit resolver is filed under its first characters (else every plain text is
asked of PyYAML)."""
_FLOAT = "tag:yaml.org,2002:float"
_INT = "tag:yaml.org,2002:int"
_DIGITS_KNOWN = _FIRST_KNOWN and all(
    [tag for tag, _ in _BaseLoader.yaml_implicit_resolvers.get(d, ())] == [_FLOAT, _INT, "tag:yaml.org,2002:timestamp"]
    for d in "0123456789")
"""Whether a text starting with a digit is tried as PyYAML 6 does: float, then int, then timestamp."""
_DECIMAL = re.compile(r"[0-9]+\.[0-9]*").fullmatch
"""``123.45``: always YAML 1.1's float (PyYAML's float pattern, without sign, ``_`` or exponent)."""
_INTEGER = re.compile(r"[1-9][0-9]*|0").fullmatch
"""``1234``: no float pattern takes it (no ``.``, ``:``, inf or nan); YAML 1.1's decimal int."""


def _libyaml_limits_nesting() -> bool:
    """True when libyaml is in use and its parser stops deep nesting by itself.

    Asked of libyaml's behaviour, not of its version string: libyaml 0.2.5 (the one bundled with
    PyYAML 6.0.3 wheels) has no limit, and composing 100,000 nested ``[`` recurses in C until the
    interpreter crashes with a segmentation fault; later builds stop at 1,000 levels with "exceeded
    maximum nesting depth". The probe composes 1,100 levels once per process (well within the C
    stack either way) and looks for that error.
    """
    if _BaseLoader.__name__ != "CSafeLoader":  # pragma: no cover - depends on how PyYAML was built
        return False
    depth = 1_100
    try:
        yaml.compose("[" * depth + "]" * depth, Loader=_BaseLoader)
    except yaml.YAMLError as exc:
        return "maximum nesting depth" in str(exc)
    return False


MAX_DEPTH = 32
"""Deepest nesting accepted in a record (records need about 5 levels)."""

Path_ = tuple[Any, ...]

_FAST = _libyaml_limits_nesting()
"""Whether a file is composed at once (one C parse) before any pre-scan: see :func:`parse_document`."""

_TAG_WORDS = {
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:null": "null (empty)",
    "tag:yaml.org,2002:timestamp": "a date",
}


_PLAIN_TAGS = {"tag:yaml.org,2002:str"}
_STR = "tag:yaml.org,2002:str"
_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:omap"})


@dataclass
class Document:
    """Data read from one YAML file with the location of each value.

    ``data``: the top-level value (dict for a record). ``lines``: path tuple → 1-based line.
    ``raw``: path tuple → (source text, what YAML read it as) for non-string scalars.
    """

    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)
    raw: dict[Path_, tuple[str, str]] = field(default_factory=dict)

    def line_of(self, path: Path_) -> int:
        """Line of ``path``, or of its nearest located ancestor, or 1."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)


def _describe_yaml_error(exc: yaml.YAMLError, text: str = "") -> tuple[int | None, str]:
    if isinstance(exc, yaml.reader.ReaderError):
        # a character YAML refuses anywhere (a control character, a lone surrogate): the reader
        # reports an offset into the text, not a line
        pos = exc.position if isinstance(exc.position, int) else 0
        line: int | None = text[:pos].count("\n") + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        code = ord(char)
        what = "control character" if unicodedata.category(char) == "Cc" else "character"
        escape = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        return line, (f"invalid YAML: {what} U+{code:04X} at column {column} is not allowed in YAML text; "
                      f"remove it, or write it as the escape \"{escape}\" inside a double-quoted string")
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    if line is not None:  # the end of a file without a final newline is still its last line
        line = max(1, min(line, len(text.splitlines()) or 1))
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    msg = f"{context}, {problem}" if context else str(problem)
    if "maximum nesting depth" in msg:  # libyaml >= 0.2.5's own limit, reached before ours
        return line, f"nesting deeper than {MAX_DEPTH} levels; records are shallow"
    lines = text.splitlines()
    bad_line = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
    if "\\t" in msg or "\t" in bad_line[: (mark.column + 1) if mark is not None else None]:
        msg += "; YAML does not allow tabs for indentation: indent with spaces"
    elif "single document" in msg:
        msg += "; a record file holds one YAML document: remove the extra '---'"
    else:
        msg += "; fix the YAML syntax at this line"
    return line, "invalid YAML: " + msg


def parse_document(text: str, path: str) -> Document:
    """Parse ``text`` (the content of ``path``) into a :class:`Document`.

    Raises :class:`RecordError` for invalid YAML, duplicate keys, aliases, too deep nesting and
    scalars YAML cannot construct (an impossible date such as ``2026-02-30``).

    One C parse for a good file: libyaml composes the node tree and one walk builds the values
    and the line map, refusing aliases and deep nesting as it goes. Only when that fails (a bad
    file) is the text parsed again through the guarded path (event pre-scan, then compose), so
    that the error reported is the first one in the file, worded as always. Where libyaml is
    missing or older than 0.2.5 (no nesting limit of its own, so composing 100,000 nested ``[``
    could crash), every file takes the guarded path.
    """
    _refuse_conflict_markers(text, path)
    if _FAST:
        try:
            node = yaml.compose(text, Loader=_Loader)
            doc = Document(data=None)
            if node is not None:
                doc.data = _Builder(path, doc, "&" in text).build(node, (), 0)
            return doc
        except (yaml.YAMLError, RecordError, RecursionError):
            pass  # report it exactly as the guarded path does
    return _parse_guarded(text, path)


def _parse_guarded(text: str, path: str) -> Document:
    """:func:`parse_document` with the event pre-scan ahead of composing (see there)."""
    try:
        _prescan(text, path)
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        line, msg = _describe_yaml_error(exc, text)
        raise RecordError(Problem(path, line, "", msg)) from None
    except RecursionError:
        raise RecordError(
            Problem(path, None, "", f"nesting too deep for a record (more than {MAX_DEPTH} levels)")
        ) from None
    doc = Document(data=None)
    if node is None:
        return doc
    doc.data = _Builder(path, doc).build(node, (), 0)
    return doc


_CONFLICT_START = re.compile(r"^<{7}(?: |$)")
_CONFLICT_END = re.compile(r"^>{7}(?: |$)")


def conflict_regions(text: str) -> list[tuple[int, int | None]]:
    r"""Unresolved git merge conflicts in ``text``: ``(first line, last line)`` of each, 1-based,
    from a ``<<<<<<<`` line to its ``>>>>>>>`` line (``None`` when the end marker is missing).

    Markers count only at the start of a line, where YAML content of a record never puts them
    (block text is indented), the same rule as git and pre-commit's check-merge-conflict.

    >>> conflict_regions("a: 1\n<<<<<<< HEAD\na: 2\n=======\na: 3\n>>>>>>> other\n")
    [(2, 6)]
    """
    regions: list[tuple[int, int | None]] = []
    start: int | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if _CONFLICT_START.match(line) and start is None:
            start = n
        elif _CONFLICT_END.match(line) and start is not None:
            regions.append((start, n))
            start = None
    if start is not None:
        regions.append((start, None))
    return regions


def _refuse_conflict_markers(text: str, path: str) -> None:
    """Raise :class:`RecordError` at the first ``<<<<<<<`` line when ``text`` holds an unresolved
    merge conflict: YAML would report a confusing syntax error on another line, or, inside a
    flow list, read the marker as an item."""
    if "<<<<<<<" not in text:
        return
    regions = conflict_regions(text)
    if not regions:
        return
    first, last = regions[0]
    span = f"lines {first}-{last}" if last is not None else f"from line {first}, with no >>>>>>> line"
    more = f"; {len(regions) - 1} more conflict(s) below" if len(regions) > 1 else ""
    raise RecordError(Problem(path, first, "", f"unresolved git merge conflict (<<<<<<< … >>>>>>>, {span}){more}: "
                                               "resolve it and remove the markers"))


def _prescan(text: str, path: str) -> None:
    """Refuse too deep nesting and aliases from the event stream, before composing.

    libyaml's parser keeps its own stack, but composing a node tree recurses once per level:
    100,000 nested ``[`` crash the interpreter. Events are flat, so this scan is safe.
    """
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise RecordError(Problem(path, event.start_mark.line + 1, "",
                                          f"nesting deeper than {MAX_DEPTH} levels; records are shallow"))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            raise RecordError(Problem(path, event.start_mark.line + 1, "",
                                      f"YAML aliases (*{event.anchor}) are not allowed in records; write the value out"))


_VALUES: dict[tuple[str, str], Any] = {}
"""(tag, text) → the value PyYAML constructs for a scalar that is not a string (a number, a
boolean, null, a date: all immutable), once per process: a campaign repeats the same dates and
figures in thousands of files, and PyYAML constructs each through regular expressions."""
_VALUES_MAX = 100_000


class _Builder:
    """Builds the values and the line map of a composed node tree (see :func:`parse_document`).

    ``anchors``: whether the text may hold an anchor (an ``&`` anywhere). Only then can a node
    appear twice in the tree (an alias hands back its anchored node; an alias without an anchor
    is an error of the composer itself), so only then is every node's identity remembered to
    refuse aliases: most records hold no ``&``, and the walk is a quarter shorter without it."""

    def __init__(self, path: str, doc: Document, anchors: bool = True):
        self.path = path
        self.doc = doc
        self.seen: set[int] | None = set() if anchors else None

    def fail(self, node: yaml.Node, path: Path_, message: str) -> RecordError:
        field_ = ".".join(str(p) for p in path)
        return RecordError(Problem(self.path, node.start_mark.line + 1, field_, message))

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        """The value of ``node`` (at ``path``, ``depth`` collections deep), its line recorded.

        Refuses a node met twice (an alias: the composer hands back the anchored node again),
        a collection deeper than :data:`MAX_DEPTH` and tags records never use."""
        seen = self.seen
        if seen is not None:
            if id(node) in seen:
                raise self.fail(
                    node, path, "YAML aliases (*name) are not allowed in records; write the value out"
                )
            seen.add(id(node))
        self.doc.lines.setdefault(path, node.start_mark.line + 1)
        cls = node.__class__
        if cls is _SCALAR:
            return node.value if node.tag == _STR else self._scalar(node, path)
        if depth >= MAX_DEPTH:
            raise self.fail(node, path, f"nesting deeper than {MAX_DEPTH} levels; records are shallow")
        if node.tag not in _COLLECTION_TAGS:
            raise self.fail(node, path, f"the YAML tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed; "
                                        "records hold plain strings, numbers, lists and mappings: remove the tag")
        if cls is _MAPPING:
            return self._mapping(node, path, depth)
        return self._sequence(node, path, depth)

    def _sequence(self, node: yaml.SequenceNode, path: Path_, depth: int) -> list[Any]:
        if self.seen is not None:
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        out = []
        lines = self.doc.lines
        for i, item in enumerate(node.value):
            sub = path + (i,)
            if item.__class__ is _SCALAR and item.tag == _STR:  # what build() gives for a string
                lines.setdefault(sub, item.start_mark.line + 1)
                out.append(item.value)
            else:
                out.append(self.build(item, sub, depth + 1))
        return out

    def _mapping(self, node: yaml.MappingNode, path: Path_, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        lines = self.doc.lines
        seen = self.seen
        build = self.build
        for key_node, value_node in node.value:
            if key_node.__class__ is not _SCALAR:
                raise self.fail(key_node, path, "a mapping key must be a plain name, not a list or mapping")
            if seen is not None:
                if id(key_node) in seen:  # an alias used as a key, or a key's anchor aliased elsewhere
                    raise self.fail(key_node, path, "YAML aliases (*name) are not allowed in records; write the value out")
                seen.add(id(key_node))
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise self.fail(key_node, path, "YAML merge keys (<<) are not allowed in records; write the keys out")
            key = key_node.value  # the text as written: `on:` stays "on", `12:` stays "12"
            sub = path + (key,)
            # only this mapping files lines under its own keys' paths: a path already there is
            # a key met before in it
            first = lines.get(sub)
            if first is not None:
                raise self.fail(
                    key_node,
                    sub,
                    f"duplicate key '{key}' (first on line {first}); "
                    "YAML would silently keep only the last one: remove or rename one of them",
                )
            lines[sub] = key_node.start_mark.line + 1
            if seen is None and value_node.__class__ is _SCALAR and value_node.tag == _STR:
                out[key] = value_node.value  # what build() gives for a string (its line is the key's)
            else:
                out[key] = build(value_node, sub, depth + 1)
        return out

    def _scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        if node.tag == "tag:yaml.org,2002:str":
            return node.value
        if node.tag not in _TAG_WORDS and node.tag not in _PLAIN_TAGS:
            raise self.fail(node, path, f"the YAML tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed; "
                                        "records hold plain strings, numbers, lists and mappings: remove the tag")
        key = (node.tag, node.value)
        value = _VALUES.get(key, _VALUES)
        if value is _VALUES:
            try:
                value = yaml.constructor.SafeConstructor().construct_object(node, deep=True)
            except (yaml.YAMLError, ValueError, OverflowError) as exc:
                what = _TAG_WORDS.get(node.tag, node.tag)
                raise self.fail(
                    node, path, f"'{node.value}' looks like {what} but is not a valid one ({_plain_reason(exc)}); "
                                f"quote it if it is text (\"{node.value}\"), or fix it"
                ) from None
            if len(_VALUES) >= _VALUES_MAX:
                _VALUES.clear()
            _VALUES[key] = value
        if node.tag in _TAG_WORDS:
            self.doc.raw[path] = (node.value, _TAG_WORDS[node.tag])
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            self.doc.raw[path] = (node.value, "a non-finite number")
        return value
