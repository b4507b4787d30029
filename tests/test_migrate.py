"""Schema versions and ``kb migrate`` (issue 24, item 6): old records keep loading, a dry run shows
what would change and writes nothing, ``--write`` rewrites through the write gate, keeps each
file's key order, and never writes a text that reads back as another record."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.errors import RecordError
from kb.models import SCHEMA_VERSION, Blocker
from kb.pipeline import load_graph
from kb.store import dump_record, parse_record
from kb.usecases.migrate import apply_migration, plan_migration

OLD_BLOCKER = """\
# a comment the rewrite loses
title: old shorthand fix
component: cuda
fixed_by:
  - {cuda: ">=13.0"}
  - kind: enables
    requires: {cuda: ">=12.9"}
    note: a full fix
status: fixed
"""
FILES = {
    "platforms/p.yaml": {"title": "p", "gpu": "g", "gpu_count": 1, "compute_capability": "12.0"},
    "blockers/old.yaml": OLD_BLOCKER,
    "blockers/new.yaml": {"schema_version": 2, "title": "already new"},
}


def test_the_current_version_is_two_and_kb_writes_it_first():
    text = dump_record(Blocker(id="b", title="t", fixed_by=[{"cuda": ">=13.0"}]))
    assert SCHEMA_VERSION == 2
    assert text.splitlines()[:5] == ["schema_version: 2", "title: t", "fixed_by:", "- kind: enables", "  requires:"]


def test_a_record_from_a_newer_kb_is_refused_with_what_to_do():
    rec, _, problems = parse_record("schema_version: 3\ntitle: t\n", "blockers/b.yaml", "blockers", "b")
    assert rec is None
    [p] = problems
    assert (p.line, p.field) == (1, "schema_version")
    assert "schema_version 3 is newer than this kb reads (up to 2): upgrade kb" in p.message


def test_old_records_load_as_they_are(write_tree):
    kg = load_graph(write_tree(FILES))
    old = kg.get("old")
    assert old.schema_version is None
    assert [dict(f.requires) for f in old.fixed_by] == [{"cuda": ">=13.0"}, {"cuda": ">=12.9"}]


def test_a_dry_run_lists_what_changes_and_writes_nothing(write_tree):
    root = write_tree(FILES)
    plan = plan_migration(root)
    assert [m.id for m in plan.todo] == ["old", "p"]
    assert plan.current == 1
    old = plan.todo[0]
    assert old.changes == ["fixed_by.0: shorthand written in full (kind: enables, requires)", "schema_version: 1 → 2"]
    assert old.drops_comments
    assert (root / "blockers" / "old.yaml").read_text() == OLD_BLOCKER
    result = CliRunner().invoke(cli, ["--records", str(root), "migrate"])
    assert result.exit_code == 0, result.output
    assert "records/blockers/old.yaml: fixed_by.0: shorthand written in full (kind: enables, requires); " \
           "schema_version: 1 → 2 (its comments will not be kept)" in result.output
    assert "2 records would be rewritten to schema version 2 (1 already are); nothing was written" in result.output
    assert (root / "blockers" / "old.yaml").read_text() == OLD_BLOCKER


def test_write_rewrites_in_the_files_key_order_and_a_second_run_has_nothing_to_do(write_tree):
    root = write_tree(FILES)
    before = load_graph(root)
    result = CliRunner().invoke(cli, ["--records", str(root), "migrate", "--write"])
    assert result.exit_code == 0, result.output
    assert "rewrote 2 records to schema version 2" in result.output
    text = (root / "blockers" / "old.yaml").read_text()
    keys = [line.split(":")[0] for line in text.splitlines() if line and line[0].isalpha()]
    assert keys == ["schema_version", "title", "component", "fixed_by", "status"]
    assert "- kind: enables\n  requires:\n    cuda: '>=13.0'\n" in text
    after = load_graph(root)
    assert after.get("old").fixed_by == before.get("old").fixed_by
    assert after.get("old").schema_version == 2
    again = CliRunner().invoke(cli, ["--records", str(root), "migrate"])
    assert "nothing to migrate: 3 records already in schema version 2" in again.output


def test_a_file_changed_after_planning_is_not_overwritten(write_tree):
    root = write_tree(FILES)
    plan = plan_migration(root)
    edited = OLD_BLOCKER.replace("old shorthand fix", "edited meanwhile")
    (root / "blockers" / "old.yaml").write_text(edited)
    with pytest.raises(RecordError, match="changed since the migration was planned"):
        apply_migration(root, plan)
    assert (root / "blockers" / "old.yaml").read_text() == edited
    assert "schema_version" not in (root / "platforms" / "p.yaml").read_text()  # nothing after it either


def test_a_file_that_does_not_load_is_named_and_left_alone(write_tree):
    root = write_tree({**FILES, "blockers/bad.yaml": "title: [unclosed\n"})
    plan = plan_migration(root)
    assert [m.id for m in plan.todo] == ["old", "p"]
    assert len(plan.unreadable) == 1 and plan.unreadable[0].startswith("records/blockers/bad.yaml:")
    result = CliRunner().invoke(cli, ["--records", str(root), "migrate", "--write"])
    assert "skipped (does not load): records/blockers/bad.yaml:" in result.output
    assert (root / "blockers" / "bad.yaml").read_text() == "title: [unclosed\n"


def test_a_catalog_is_never_migrated():
    from kb.errors import WriteError
    from kb.store.write import SHIPPED_CATALOGS

    with pytest.raises(WriteError, match="catalog"):
        plan_migration(SHIPPED_CATALOGS / "blackwell")
