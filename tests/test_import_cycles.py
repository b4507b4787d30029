"""No import cycle in kb: every import statement of every module, those inside functions included
(an import put in a function to dodge a cycle still makes one), read from the syntax tree. Imports
under ``if TYPE_CHECKING:`` never run and are left out."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

KB = ROOT / "kb"


def _module(path: Path) -> str:
    parts = list((path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path(path.name)).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The kb modules ``path`` imports anywhere in its body (``from kb.x import y`` counts
    ``kb.x.y`` when that is a module, else ``kb.x``; relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
    return {m for m in found if m in modules and m != here}


def _graph() -> dict[str, set[str]]:
    paths = [p for p in KB.rglob("*.py") if "__pycache__" not in p.parts]
    modules = {_module(p) for p in paths}
    return {_module(p): imports_of(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph`` (module → the modules it imports), one path each."""
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_kb_has_no_import_cycle():
    assert cycles(_graph()) == []


def test_the_check_sees_a_cycle_hidden_in_a_function(tmp_path):
    graph = {"kb.a": {"kb.b"}, "kb.b": {"kb.c"}, "kb.c": {"kb.a"}, "kb.d": set()}
    assert cycles(graph) == [["kb.a", "kb.b", "kb.c", "kb.a"]]
    (tmp_path / "m.py").write_text("def f():\n    from kb.x import y\n", encoding="utf-8")
    assert imports_of(tmp_path / "m.py", {"kb.x", "kb.x.y"}) == {"kb.x.y"}
