"""The importer keeps its vocabulary in its readers (issue 22).

What a log's words mean (a tool's labels, the words that mark a baseline, a failure, a reference)
lives in ``kb/importers/read/`` and ``kb/importers/formats/``, each reader citing the documentation
it follows. The other stages (segment, score, drafts) work on what those readers return, so:

- they do not import ``re``: a pattern over a log's text is a reader's job;
- no string literal of two words or more takes part in a decision there: a comparison, a string
  method's argument (``startswith``, ``split``, ...), or a module-level collection. Messages,
  notes and docstrings are prose for people and are not decisions.

Exempt, each for a stated reason: ``sessions.py`` (it tells the session-log formats apart, the
format readers' entry point), ``adr.py`` and ``adrfile.py`` (they read MADR and adr-tools files,
formats of their own), ``mlflow_runs.py`` (it reads MLflow tracking stores, a format of its own).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

IMPORTERS = Path(__file__).parent.parent / "kb" / "importers"
READERS = ("read", "formats")
EXEMPT = {"sessions.py": "tells the session-log formats apart (the format readers' entry point)",
          "adr.py": "reads MADR decision records, a format of its own",
          "adrfile.py": "reads adr-tools and MADR files, a format of its own",
          "mlflow_runs.py": "reads MLflow tracking stores (runs, params, metrics, tags), a format of its own"}
STRING_METHODS = frozenset({"startswith", "endswith", "find", "rfind", "index", "rindex", "count", "replace", "split",
                            "rsplit", "partition", "rpartition", "strip", "lstrip", "rstrip", "removeprefix",
                            "removesuffix"})


def _stage_modules() -> list[Path]:
    return sorted(p for p in IMPORTERS.rglob("*.py")
                  if p.relative_to(IMPORTERS).parts[0] not in READERS and p.name not in EXEMPT)


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the constants that document a module, class, function or attribute."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            found.add(id(body[0].value))
        for first, then in zip(body, body[1:]):
            if isinstance(first, ast.Assign | ast.AnnAssign) and isinstance(then, ast.Expr) and \
                    isinstance(then.value, ast.Constant):
                found.add(id(then.value))
    return found


def _literals(node: ast.AST, skip: set[int]):
    """The string constants ``node`` is made of (through collection literals and set() calls)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
        yield node
    elif isinstance(node, ast.Set | ast.List | ast.Tuple):
        for element in node.elts:
            yield from _literals(element, skip)
    elif isinstance(node, ast.Dict):
        for key in node.keys:
            if key is not None:
                yield from _literals(key, skip)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("frozenset", "set", "tuple", "list"):
        for arg in node.args:
            yield from _literals(arg, skip)


def decision_phrases(source: str) -> list[tuple[int, str, str]]:
    """``(line, where, text)`` of each literal of two words or more that a decision uses in
    ``source`` (see the module docstring)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                found += [(lit.lineno, "comparison", lit.value) for lit in _literals(side, skip)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STRING_METHODS:
            for arg in node.args:
                found += [(lit.lineno, f".{node.func.attr}()", lit.value) for lit in _literals(arg, skip)]
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None and \
                not isinstance(node.value, ast.Constant):
            found += [(lit.lineno, "module constant", lit.value) for lit in _literals(node.value, skip)]
    return [(line, where, text) for line, where, text in found
            if sum(1 for word in text.split() if any(c.isalnum() for c in word)) >= 2]


def imports_re(source: str) -> bool:
    return any(isinstance(node, ast.Import | ast.ImportFrom) and
               any(alias.name == "re" for alias in node.names) or
               (isinstance(node, ast.ImportFrom) and node.module == "re")
               for node in ast.walk(ast.parse(source)))


@pytest.mark.parametrize("path", _stage_modules(), ids=lambda p: str(p.relative_to(IMPORTERS)))
def test_stages_outside_the_readers_hold_no_vocabulary(path):
    source = path.read_text(encoding="utf-8")
    assert not imports_re(source), f"{path.name} matches text with re: move the pattern into a reader"
    assert decision_phrases(source) == [], f"{path.name}: phrases deciding outside the readers"


def test_the_check_finds_what_it_forbids():
    source = ('import re\n'
              'WORDS = frozenset({"for reference only", "baseline"})\n'
              'def f(text):\n'
              '    """A docstring of several words."""\n'
              '    if text.startswith("same error"):\n'
              '        return "a message of several words is fine"\n'
              '    return text == "see above"\n')
    assert imports_re(source)
    assert decision_phrases(source) == [(5, ".startswith()", "same error"), (7, "comparison", "see above"),
                                        (2, "module constant", "for reference only")]


def test_the_stages_are_checked():
    names = {str(p.relative_to(IMPORTERS)) for p in _stage_modules()}
    assert {"segment.py", "drafts.py", "score/__init__.py", "score/outcomes.py", "score/tables.py"} <= names
    assert not any(name.startswith(READERS) for name in names)


# --- no phrase of a test input in a rule ---------------------------------------------------------

CORPUS = Path(__file__).parent / "corpus"
_WORD = __import__("re").compile(r"[a-z0-9]+")
GRAM = 5
_ESCAPES = __import__("re").compile(r"\\[A-Za-z]|\{\d*,?\d*\}")


def _grams(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + GRAM]) for i in range(len(words) - GRAM + 1)}


def _importer_literals() -> tuple[list[tuple[str, int, set]], set]:
    """Every string literal of ``kb/importers`` but docstrings, with its 5-word runs (each
    alternative of a pattern on its own: ``a|b`` is two phrases); and the 5-word runs of the
    ``SOURCES`` tables, the documented strings a reader may repeat."""
    literals, documented = [], set()
    for path in sorted(IMPORTERS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        sources: set[int] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SOURCES" for t in node.targets):
                for inner in ast.walk(node.value):
                    if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                        sources.add(id(inner))
                        documented |= _grams(inner.value)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip | sources:
                text = _ESCAPES.sub(" ", node.value)  # a pattern's \\s, \\d, {3,} are no words
                grams = set().union(*(_grams(part) for part in text.split("|")))  # nor is a|b one phrase
                if grams:
                    literals.append((f"{path.relative_to(IMPORTERS)}:{node.lineno}", node.lineno, grams))
    return literals, documented


def test_no_importer_literal_repeats_five_words_of_a_corpus_log():
    """Issue 22: a rule never carries a phrase of a test input. Five consecutive words shared
    between a literal of the importer and a log of any corpus half are allowed only when they are
    a documented string the reader cites (its SOURCES). The message names the literal and the log,
    not the words, so that the sealed half stays unread."""
    literals, documented = _importer_literals()
    logs = [p for half in ("dev", "sealed") for p in sorted((CORPUS / half).iterdir())
            if p.is_file() and not p.name.endswith(".truth.yaml") and p.name != "README.md"]
    assert len(logs) >= 40
    shared = []
    for log in logs:
        grams = _grams(log.read_text(encoding="utf-8", errors="replace"))
        for where, _, theirs in literals:
            if (theirs & grams) - documented:
                shared.append(f"{where} shares {len((theirs & grams) - documented)} five-word run(s) with "
                              f"{log.parent.name}/{log.name}")
    assert shared == []


def test_the_overlap_check_sees_a_copied_phrase():
    literals = [("x.py:1", 1, _grams("we kept the fp8 kv cache on for every run"))]
    log = _grams("Notes: we kept the FP8 KV cache on for every run today.")
    assert any(theirs & log for _, _, theirs in literals)
    assert not _grams("four words only here") and len(_grams("one two three four five")) == 1
