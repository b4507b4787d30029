"""kb.yamldoc's one-parse path gives exactly what the guarded path (event pre-scan, then compose)
gives: the same data, line map and raw scalars for a good file, the same located error for a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kb import yamldoc
from kb.errors import RecordError
from kb.yamldoc import MAX_DEPTH, parse_document

HERE = Path(__file__).parent
FILES = sorted([*(HERE / "fixtures" / "campaign").rglob("*.yaml"), *(HERE / "adversarial" / "inputs").rglob("*.yaml"),
                *(HERE / "adversarial" / "base").rglob("*.yaml")])


def _nest(n: int, flow: bool) -> str:
    if flow:
        return "title: t\nx: " + "[" * n + "1" + "]" * n + "\n"
    return "title: t\n" + "".join("  " * i + f"k{i}:\n" for i in range(n)) + "  " * n + "v\n"


TEXTS = {
    "alias value": "title: &a t\nnotes: *a\n",
    "alias as key": "&k title: t\n*k : u\n",
    "anchored key aliased as value": "&k title: *k\n",
    "undefined alias": "title: *nowhere\n",
    "alias bomb": "a: &l0 [x, x]\nb: &l1 [*l0, *l0]\nc: [*l1, *l1]\n",
    "merge key": "base: &b {x: 1}\nother:\n  <<: *b\n",
    "duplicate key": "title: a\nnotes: b\ntitle: c\n",
    "python tag": "title: !!python/object:os.system x\n",
    "custom tag on a mapping": "title: t\nx: !!set {a, b}\n",
    "bad date": "title: t\ndate: 2026-02-30\n",
    "nan": "title: t\nvalue: .nan\n",
    "floats and bools": "title: t\nversion: 2.10\nenabled: no\nwhen: 2026-02-01\ncount: 12\n",
    "tab indentation": "title: t\nx:\n\t- a\n",
    "two documents": "title: a\n---\ntitle: b\n",
    "syntax error after deep nesting": _nest(MAX_DEPTH + 2, True) + "bad: [\n",
    "list at top": "- a\n- b\n",
    "empty": "",
    "comment only": "# nothing\n",
    **{f"flow depth {n}": _nest(n, True) for n in (MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 600, 5000)},
    **{f"block depth {n}": _nest(n, False) for n in (MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 200)},
    "key that is a list": "[a, b]: c\n",
    "conflict markers": "title: a\n<<<<<<< HEAD\nx: 1\n=======\nx: 2\n>>>>>>> other\n",
}


def _guarded(text: str, path: str):
    """The guarded path as parse_document took it for every file before the one-parse path."""
    yamldoc._refuse_conflict_markers(text, path)
    return yamldoc._parse_guarded(text, path)


def _outcome(fn, text: str):
    try:
        doc = fn(text, "records/attempts/x.yaml")
    except RecordError as exc:
        return ("error", str(exc))
    return ("doc", doc.data, doc.lines, doc.raw)


@pytest.mark.skipif(not yamldoc._FAST, reason="libyaml without its own nesting limit (PyYAML < 6.0.4) or missing: every file takes the guarded path")
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_one_parse_gives_what_the_guarded_parse_gives(name):
    text = TEXTS[name]
    assert _outcome(parse_document, text) == _outcome(_guarded, text)


@pytest.mark.skipif(not yamldoc._FAST, reason="libyaml without its own nesting limit (PyYAML < 6.0.4) or missing")
def test_every_fixture_file_parses_the_same_both_ways():
    assert len(FILES) > 50
    for path in FILES:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        assert _outcome(parse_document, text) == _outcome(_guarded, text), path


def test_the_refusals_stay_located():
    def err(text: str) -> str:
        with pytest.raises(RecordError) as info:
            parse_document(text, "r/x.yaml")
        return str(info.value)

    assert err(TEXTS["alias value"]) == "r/x.yaml:2: YAML aliases (*a) are not allowed in records; write the value out"
    assert err(TEXTS["anchored key aliased as value"]).startswith("r/x.yaml:1: YAML aliases (*k)")
    assert err(TEXTS["duplicate key"]) == ("r/x.yaml:3: title: duplicate key 'title' (first on line 1); YAML would "
                                          "silently keep only the last one: remove or rename one of them")
    assert err(_nest(MAX_DEPTH + 1, True)) == f"r/x.yaml:2: nesting deeper than {MAX_DEPTH} levels; records are shallow"
    assert parse_document(_nest(MAX_DEPTH - 1, True), "r/x.yaml").data["title"] == "t"


@pytest.mark.skipif(not yamldoc._FAST, reason="libyaml without its own nesting limit (PyYAML < 6.0.4) or missing")
def test_a_good_file_is_parsed_once(monkeypatch):
    """No event pre-scan for a file that composes and builds cleanly: one C parse."""
    def no_scan(*a, **k):
        raise AssertionError("the event stream was scanned")

    monkeypatch.setattr(yaml, "parse", no_scan)
    text = (HERE / "fixtures" / "campaign" / "stacks" / "cuda-13.0.yaml").read_text(encoding="utf-8")
    doc = parse_document(text, "records/stacks/cuda-13.0.yaml")
    assert doc.data["components"]["cuda"] and doc.lines[("components", "cuda")] == 4


SCALARS = ["", "~", "null", "Null", "true", "yes", "No", "off", "On", "12", "-3", "+4", "0x1f", "0o17", "1_000",
           "2.10", ".5", "-.inf", ".NaN", "1e3", "2026-02-21", "2026-02-21 10:00:00", "<<", "=", "word", "Yes please",
           "tok/s", "NCCL_ALGO=Tree", "--tp 8", "12:30", "1:20:30", "é", "8×",
           # figures, told apart without PyYAML's resolver
           "0", "7", "1234", "007", "0.", "1.", "123.45", "00.5", "10.5e3", "1.5e+3", "1_000.5", "12.3.4",
           "123456789012345678901234567890", "1234x", "12 ms", "3.5 GB"]


@pytest.mark.parametrize("text", SCALARS + [f"{n}{sep}{m}" for n in ("0", "1", "09", "42") for sep in (".", "", "_", ":")
                                             for m in ("", "0", "5", "50", "e3")])
def test_the_tag_of_a_plain_scalar_is_what_the_safe_loader_says(text):
    ours = yamldoc._Loader("").resolve(yaml.ScalarNode, text, (True, False))
    theirs = yamldoc._BaseLoader("").resolve(yaml.ScalarNode, text, (True, False))
    assert ours == theirs
    assert yamldoc._Loader("").resolve(yaml.ScalarNode, text, (True, False)) == theirs  # memoised: the same again
    assert yamldoc._Loader("").resolve(yaml.ScalarNode, text, (False, True)) == "tag:yaml.org,2002:str"  # quoted


def test_the_one_parse_path_is_taken_only_where_libyaml_stops_deep_nesting_itself():
    """libyaml 0.2.5 (PyYAML 6.0.3's wheels) composes any depth and crashes the interpreter on
    100,000 nested ``[``; 0.2.6 stops at 1,000 levels. kb asks libyaml's behaviour, not its
    version, and must agree with the release history."""
    from yaml import _yaml

    from kb.versions import parse_version

    assert yamldoc._FAST is (parse_version(_yaml.get_version_string()) >= parse_version("0.2.6"))


@pytest.mark.parametrize("name", ["flow depth 5000", "block depth 200", "alias value", "floats and bools"])
def test_without_the_one_parse_path_every_file_gets_the_same_answer(monkeypatch, name):
    """Where libyaml has no nesting limit, every file takes the guarded path: deep nesting is a
    located error (no crash), and a good file reads the same."""
    monkeypatch.setattr(yamldoc, "_FAST", False)
    text = TEXTS[name]
    assert _outcome(parse_document, text) == _outcome(_guarded, text)
    if name == "flow depth 5000":
        assert _outcome(parse_document, text) == (
            "error", f"records/attempts/x.yaml:2: nesting deeper than {MAX_DEPTH} levels; records are shallow")


def _tree(node):
    """A composed node tree as plain data: class, tag, value and start line of every node."""
    if node is None:
        return None
    value = node.value
    if isinstance(node, yaml.MappingNode):
        value = [(_tree(k), _tree(v)) for k, v in value]
    elif isinstance(node, yaml.SequenceNode):
        value = [_tree(v) for v in value]
    return (type(node).__name__, node.tag, value, node.start_mark.line, node.end_mark.line)


GOOD_TEXTS = [name for name in sorted(TEXTS) if _outcome(parse_document, TEXTS[name])[0] == "doc"] + [
    "a: 'quoted 12'\nb: \"yes\"\nc: ! 12\nd: !!str 3\ne: [1, '2', x, ~, {f: 2.5}]\ng: |\n  block 12\n",
]


@pytest.mark.parametrize("text", GOOD_TEXTS)
def test_the_composed_tree_is_the_pure_python_safe_loaders(text):
    """The loader's shortcuts (quoted scalars, mappings and sequences take the default tags; the
    path-resolver hooks do nothing) compose exactly the tree PyYAML's own safe loader composes."""
    assert _tree(yaml.compose(text, Loader=yamldoc._Loader)) == _tree(yaml.compose(text, Loader=yaml.SafeLoader))


def test_every_good_fixture_file_composes_as_the_pure_python_safe_loader_does():
    seen = 0
    for path in FILES:
        try:
            text = path.read_text(encoding="utf-8")
            parse_document(text, "r/x.yaml")  # the bad ones (deep nesting) would take the pure-Python composer long
        except (UnicodeDecodeError, RecordError):
            continue
        assert _tree(yaml.compose(text, Loader=yamldoc._Loader)) == _tree(yaml.compose(text, Loader=yaml.SafeLoader)), path
        seen += 1
    assert seen > 40


def _reference(node, path, lines, line=None):
    """The values and line map as the walk defines them, written plainly: a mapping's value is
    at its key's line, any other node at its own first line."""
    lines.setdefault(path, line if line is not None else node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        return {k.value: _reference(v, path + (k.value,), lines, k.start_mark.line + 1) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_reference(v, path + (i,), lines) for i, v in enumerate(node.value)]
    return node.value if node.tag == "tag:yaml.org,2002:str" else yaml.constructor.SafeConstructor().construct_object(node)


def test_the_walk_gives_every_value_and_line_of_the_fixture_files():
    """The walk's string shortcuts (a string under a key or in a list taken at once) give the values
    and lines a plain recursive walk gives, for every good fixture file."""
    seen = 0
    for path in FILES:
        try:
            text = path.read_text(encoding="utf-8")
            doc = parse_document(text, "r/x.yaml")
        except (UnicodeDecodeError, RecordError):
            continue
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is None or "&" in text:
            continue
        lines: dict = {}
        assert doc.data == _reference(node, (), lines), path
        assert doc.lines == lines, path
        seen += 1
    assert seen > 40


def test_a_duplicate_key_is_found_in_nested_mappings_and_list_items():
    def err(text: str) -> str:
        with pytest.raises(RecordError) as info:
            parse_document(text, "r/x.yaml")
        return str(info.value)

    assert err("title: t\nstack:\n  cuda: '13.0'\n  torch: '2.9'\n  cuda: '12.8'\n") == (
        "r/x.yaml:5: stack.cuda: duplicate key 'cuda' (first on line 3); YAML would silently keep only the last one: "
        "remove or rename one of them")
    assert err("title: t\nsource:\n  - url: a\n  - url: b\n    url: c\n") == (
        "r/x.yaml:5: source.1.url: duplicate key 'url' (first on line 4); YAML would silently keep only the last one: "
        "remove or rename one of them")
    # the same key in two list items, or at two levels, is no duplicate
    doc = parse_document("title: t\nsource:\n  - url: a\n  - url: b\nurl: c\n", "r/x.yaml")
    assert doc.data["source"] == [{"url": "a"}, {"url": "b"}] and doc.lines[("source", 1, "url")] == 4
    assert doc.lines[("url",)] == 5


def test_scalars_read_once_per_process_give_the_same_values_and_raw_text_every_time():
    import datetime as dt

    text = "title: t\ndate: 2026-02-21\nvalue: 2.10\ncount: 12\nenabled: no\nnothing: ~\nbig: .inf\n"
    for _ in range(2):  # the second time from the per-process memo of constructed values
        doc = parse_document(text, "r/x.yaml")
        assert doc.data == {"title": "t", "date": dt.date(2026, 2, 21), "value": 2.1, "count": 12, "enabled": False,
                            "nothing": None, "big": float("inf")}
        assert type(doc.data["count"]) is int and type(doc.data["enabled"]) is bool
        assert doc.raw == {("date",): ("2026-02-21", "a date"), ("value",): ("2.10", "a number"),
                           ("count",): ("12", "an integer"), ("enabled",): ("no", "a boolean"),
                           ("nothing",): ("~", "null (empty)"), ("big",): (".inf", "a non-finite number")}
    for _ in range(2):  # an impossible date is refused every time, never remembered
        with pytest.raises(RecordError, match=r"r/x.yaml:2: date: '2026-02-30' looks like a date but is not a valid one"):
            parse_document("title: t\ndate: 2026-02-30\n", "r/x.yaml")
