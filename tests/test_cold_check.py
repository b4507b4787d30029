"""The cold ``kb check``'s shortcuts give what the plain definitions give.

Findings read the attempts each blocker blocked from the attempts' own ``blocked_by`` (not from
the graph's inward adjacency, which a check would build only for that): the same lists as
``kg.into``, on a seeded campaign (bench/gen_campaign.py) and on records that name a blocker
twice, or one that does not exist.
"""

from __future__ import annotations

import sys
from pathlib import Path

from kb.models import Attempt, Blocker
from kb.pipeline import load
from kb.queries.findings import _blocked_by

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from gen_campaign import generate  # noqa: E402


def _into_all(kg):
    return {b.id: kg.into(b.id, "blocked_by") for b in kg.of_kind(Blocker) if kg.into(b.id, "blocked_by")}


def test_blocked_attempts_are_the_graphs_inward_blocked_by_edges(tmp_path: Path) -> None:
    root = tmp_path / "records"
    generate(root, 300, seed=13)
    kg = load(root).graph
    got = _blocked_by(kg)
    assert got == _into_all(kg)
    assert len(got) >= 10 and sum(map(len, got.values())) >= 100  # the generator blocks attempts
    assert all(ids == sorted(ids) for ids in got.values())


def test_a_blocker_named_twice_or_missing_gives_the_same_lists_as_the_graph(tmp_path: Path) -> None:
    root = tmp_path / "records"
    generate(root, 40, seed=5)
    kg0 = load(root).graph
    blockers = [b.id for b in kg0.of_kind(Blocker)]
    attempt = next(a for a in kg0.of_kind(Attempt) if not a.blocked_by)
    path = root / "attempts" / f"{attempt.id}.yaml"
    path.write_text(path.read_text(encoding="utf-8")
                    + f"blocked_by: [{blockers[0]}, {blockers[1]}, {blockers[0]}, no-such-blocker]\n", encoding="utf-8")
    loaded = load(root)
    assert [p.field for p in loaded.problems] == ["blocked_by.3"]  # the unknown id is a reference problem
    kg = loaded.graph
    got = _blocked_by(kg)
    assert got == _into_all(kg)
    assert got[blockers[0]].count(attempt.id) == 1 and attempt.id in got[blockers[1]]
    assert "no-such-blocker" not in got


def _write(root: Path, kind: str, rid: str, text: str) -> None:
    (root / kind).mkdir(parents=True, exist_ok=True)
    (root / kind / f"{rid}.yaml").write_text(text, encoding="utf-8")


def test_quiet_records_are_those_whose_file_can_hold_no_link_or_placeholder(tmp_path: Path) -> None:
    """RecordSet.may_hold answers False without the JSON text only for files with no ``](``,
    no ``TODO`` and no backslash; a link or placeholder spelled through a YAML escape is still
    found, and kb check's findings on them are those of the JSON text."""
    root = tmp_path / "records"
    _write(root, "blockers", "plain", "title: Plain blocker with [brackets] and (parens)\n")
    _write(root, "blockers", "linked", "title: Linked\ndescription: see [the plot](plot.png)\n")
    _write(root, "blockers", "escaped", 'title: Escaped\ndescription: "see [the plot]\\x28plot.png) \\x54ODO"\n')
    _write(root, "blockers", "todo", "title: TODO\n")
    _write(root, "blockers", "folded", "title: Folded\ndescription: see [the plot]\n  (plot.png)\n")
    records = load(root).records
    assert sorted(records.quiet) == ["folded", "plain"]
    for rid in ("plain", "linked", "escaped", "todo", "folded"):
        for word in ("](", "TODO"):
            assert records.may_hold(rid, word) == (word in records.json_of(rid)), (rid, word)
    assert records.may_hold("escaped", "](") and records.may_hold("escaped", "TODO")
    # a record replaced under its id is asked through its JSON text again
    records.records["plain"] = records.records["linked"]
    assert records.may_hold("plain", "](")


def test_check_reports_a_link_and_a_placeholder_written_through_escapes(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kb.cli import cli

    root = tmp_path / "a" / "records"
    _write(root, "blockers", "escaped", 'title: Escaped\ndescription: "see [the plot]\\x28plot.png)"\n')
    r = CliRunner().invoke(cli, ["--records", str(root), "check"], env={"KB_CACHE": "off"})
    assert r.exit_code == 1
    assert "records/blockers/escaped.yaml:2: description: linked file 'plot.png' not found in records/assets/" in r.output
    root = tmp_path / "b" / "records"  # (warnings are given only for records without problems)
    _write(root, "blockers", "todo", 'title: Half done\ndescription: "\\x54ODO"\n')
    r = CliRunner().invoke(cli, ["--records", str(root), "check"], env={"KB_CACHE": "off"})
    assert r.exit_code == 0
    assert "records/blockers/todo.yaml:2: description: warning: still holds kb's 'TODO' placeholder" in r.output
