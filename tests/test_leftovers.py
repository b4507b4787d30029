"""Records folders as people keep them: editor/OS leftovers are skipped with one notice, near-misses
stay problems, git conflict markers are named with their lines (kb.leftovers, kb.yamldoc)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.errors import RecordError
from kb.store import load_records
from kb.yamldoc import conflict_regions, parse_document

CASES = Path(__file__).parent / "fixtures" / "cases" / "records-and-site"

DECISION = """title: Adopt NCCL 2.28
status: proposed
date: 2026-03-02
context: x
considered_options:
  - title: Adopt NCCL 2.28
outcome:
  chosen: Adopt NCCL 2.28
"""


def _case(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(CASES / name, dest)
    return dest


def test_editor_backup_case_checks_builds_and_answers(tmp_path, monkeypatch):
    case = _case(tmp_path, "editor-backup-files-fail-build")
    monkeypatch.chdir(case)
    runner = CliRunner()
    res = runner.invoke(cli, ["--records", "records", "check"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        "kb: skipped 3 editor/OS leftover files (backups, swap files, Thumbs.db); 'kb check -v' lists them",
        "1 records OK in records",
    ]
    res = runner.invoke(cli, ["--records", "records", "check", "-v"])
    assert res.exit_code == 0
    assert res.stderr.splitlines()[:3] == [
        "ignored: records/decisions/#2026-03-02-adopt-nccl.yaml# (editor autosave)",
        "ignored: records/decisions/2026-03-02-adopt-nccl.yaml~ (editor backup)",
        "ignored: records/decisions/Thumbs.db (operating-system file)",
    ]
    assert runner.invoke(cli, ["--records", "records", "roots"]).exit_code == 0
    res = runner.invoke(cli, ["--records", "records", "build", "-d", str(tmp_path / "site")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "site" / "decisions" / "2026-03-02-adopt-nccl" / "index.html").is_file()


@pytest.mark.parametrize("name", ["x.yaml~", "#x.yaml#", ".#x.yaml", "x.yaml.orig", "x.yaml.rej", "x.yaml.swp",
                                  ".x.yaml.swp", ".DS_Store", "Thumbs.db", "desktop.ini", "DESKTOP.INI"])
def test_leftovers_are_ignored_and_listed(write_tree, name):
    root = write_tree({"decisions/x.yaml": DECISION, f"decisions/{name}": "junk: ["})
    res = load_records(root)
    assert res.problems == []
    assert [p for p, _ in res.records.ignored] == [f"records/decisions/{name}"]


@pytest.mark.parametrize("name,hint", [("x.YAML", "rename it to x.yaml"), ("x.yaml.txt", "rename it or move it out")])
def test_near_misses_stay_problems(write_tree, name, hint):
    root = write_tree({f"decisions/{name}": DECISION})
    [p] = load_records(root).problems
    assert p.path == f"records/decisions/{name}" and hint in p.message
    assert load_records(root).records.ignored == []


def test_conflict_case_names_the_conflict_and_its_lines(tmp_path, monkeypatch):
    case = _case(tmp_path, "git-conflict-markers-message")
    monkeypatch.chdir(case)
    res = CliRunner().invoke(cli, ["--records", "records", "check"])
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        "records/decisions/2026-03-02-adopt-nccl.yaml:4: unresolved git merge conflict "
        "(<<<<<<< … >>>>>>>, lines 4-8): resolve it and remove the markers"]


def test_conflict_inside_a_flow_list(tmp_path):
    case = _case(tmp_path, "git-conflict-markers-message")
    text = (case / "flow-list-variant.yaml").read_text(encoding="utf-8")
    with pytest.raises(RecordError) as exc:
        parse_document(text, "records/decisions/x.yaml")
    assert str(exc.value) == ("records/decisions/x.yaml:10: unresolved git merge conflict "
                              "(<<<<<<< … >>>>>>>, lines 10-14): resolve it and remove the markers")


def test_conflict_without_end_and_several_conflicts():
    assert conflict_regions("a: 1\n<<<<<<< HEAD\nb: 2\n") == [(2, None)]
    text = "<<<<<<< a\nx: 1\n=======\nx: 2\n>>>>>>> b\ny: 1\n<<<<<<< a\ny: 2\n>>>>>>> b\n"
    assert conflict_regions(text) == [(1, 5), (7, 9)]
    with pytest.raises(RecordError) as exc:
        parse_document(text, "f.yaml")
    assert "lines 1-5); 1 more conflict(s) below: resolve it" in str(exc.value)
    # indented markers are text inside a block scalar, not a conflict
    assert conflict_regions("notes: |\n  <<<<<<< HEAD\n") == []
