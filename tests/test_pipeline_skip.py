"""kb.pipeline skips the reference check when the very same content passed it before
(kb.store.memo's ``references-clean`` key), and never when anything read differs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import kb.pipeline as pipeline
from kb.cli import cli
from kb.store import memo

CAMPAIGN = Path(__file__).parent / "fixtures" / "campaign"
ATTEMPT = "attempts/2026-02-21-eagle3-speculation.yaml"
BLOCKER = "eagle3-verify-allreduce-latency"


def _count_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every reference check append the number of records it checked to the returned list."""
    ran: list[int] = []
    real = pipeline.check_references

    def spy(records):
        ran.append(len(records))
        return real(records)

    monkeypatch.setattr(pipeline, "check_references", spy)
    return ran


def test_the_same_records_are_not_checked_twice(records, monkeypatch):
    ran = _count_checks(monkeypatch)
    first = pipeline.load(records)
    second = pipeline.load(records)
    assert first.problems == [] and second.problems == []
    assert ran == [len(first.records)]  # the second load was answered by the memo
    assert sorted(second.graph.g.edges(keys=True)) == sorted(first.graph.g.edges(keys=True))
    path = memo.memo_path(records, pipeline.REFERENCES_CLEAN)
    assert path is not None and path.parent == records.parent / ".kb-cache" and path.is_file()


def test_an_edit_with_the_same_size_and_mtime_is_checked_and_reported(records, monkeypatch):
    assert CliRunner().invoke(cli, ["--records", str(records), "roots"]).exit_code == 0
    file = records / ATTEMPT
    st = file.stat()
    text = file.read_text(encoding="utf-8")
    wrong = BLOCKER[:-1] + "x"  # same length: same size
    file.write_text(text.replace(f"- {BLOCKER}", f"- {wrong}"), encoding="utf-8")
    os.utime(file, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert file.stat().st_size == st.st_size and file.stat().st_mtime_ns == st.st_mtime_ns
    ran = _count_checks(monkeypatch)
    result = CliRunner().invoke(cli, ["--records", str(records), "roots"])
    assert ran != []
    assert result.exit_code == 1
    assert f"records/{ATTEMPT}:" in result.output and f"unknown blocker '{wrong}'" in result.output


def test_a_record_set_with_reference_problems_is_never_marked_clean(records, monkeypatch):
    file = records / ATTEMPT
    good = file.read_text(encoding="utf-8")
    file.write_text(good.replace(f"- {BLOCKER}", "- no-such-blocker"), encoding="utf-8")
    ran = _count_checks(monkeypatch)
    for _ in range(2):
        problems = pipeline.load(records).problems
        assert [(p.path, p.field) for p in problems] == [(f"records/{ATTEMPT}", "blocked_by.0")]
        assert "unknown blocker 'no-such-blocker'" in problems[0].message
    assert len(ran) == 2  # checked both times
    file.write_text(good, encoding="utf-8")
    assert pipeline.load(records).problems == [] and len(ran) == 3
    assert pipeline.load(records).problems == [] and len(ran) == 3  # now clean and known


def test_a_new_file_is_checked(records, monkeypatch):
    pipeline.load(records)
    ran = _count_checks(monkeypatch)
    extra = (records / ATTEMPT).read_text(encoding="utf-8").replace(f"- {BLOCKER}", "- missing-one")
    (records / "attempts" / "2026-02-22-copy.yaml").write_text(extra, encoding="utf-8")
    problems = pipeline.load(records).problems
    assert len(ran) == 1
    assert [(p.path, p.message.split(";")[0]) for p in problems] == [
        ("records/attempts/2026-02-22-copy.yaml", "unknown blocker 'missing-one'")]


def test_with_the_cache_off_every_load_checks(records, monkeypatch):
    monkeypatch.setenv("KB_CACHE", "off")
    ran = _count_checks(monkeypatch)
    pipeline.load(records)
    pipeline.load(records)
    assert len(ran) == 2
    assert not (records.parent / ".kb-cache").exists()


def test_a_damaged_or_foreign_memo_is_not_believed(records, monkeypatch):
    pipeline.load(records)
    path = memo.memo_path(records, pipeline.REFERENCES_CLEAN)
    assert path is not None
    ran = _count_checks(monkeypatch)
    for text in ("{not json", '{"format": "other", "key": "x"}', '["a"]'):
        path.write_text(text, encoding="utf-8")
        pipeline.load(records)
    assert len(ran) == 3


def test_content_key_depends_on_every_path_and_digest():
    base = memo.content_key({"records/attempts/a.yaml": b"1", "records/blockers/b.yaml": b"2"})
    assert base == memo.content_key({"records/blockers/b.yaml": b"2", "records/attempts/a.yaml": b"1"})
    assert base != memo.content_key({"records/attempts/a.yaml": b"1", "records/blockers/b.yaml": b"3"})
    assert base != memo.content_key({"records/attempts/a.yaml": b"1", "records/blockers/c.yaml": b"2"})
    assert base != memo.content_key({"records/attempts/a.yaml": b"1"})
    assert len(base) == 64


def test_plain_edge_tables_match_the_networkx_graph(records):
    kg = pipeline.load_graph(records)
    assert kg._g is None  # not built until asked for
    for rid in kg.records.records:
        for edge in ("blocked_by", "caused_by", "resolves", "supersedes", "evidence", "uses_stack", "based_on",
                     "runs_on", "baseline", "part_of"):
            out, into = kg.out(rid, edge), kg.into(rid, edge)
            assert out == [v for _u, v, k in kg.g.out_edges(rid, keys=True) if k == edge]
            assert into == sorted(u for u, _v, k in kg.g.in_edges(rid, keys=True) if k == edge)
    assert kg.out("2026-02-21-eagle3-speculation", "blocked_by") == [BLOCKER]
    assert kg.g.nodes[BLOCKER]["kind"] == "blocker" and kg.g.number_of_nodes() == len(kg.records)


def test_a_query_on_known_clean_records_never_imports_networkx(records):
    import subprocess
    import sys

    code = ("import sys; from kb.pipeline import load_graph; from kb.queries import roots; "
            f"kg = load_graph({str(records)!r}); print(len(roots(kg)), 'networkx' in sys.modules)")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    # the first load checked the references, and the records have no cycle: networkx is imported
    # only to name a cycle (kb.graph._has_cycle finds none without it)
    assert first[1] == "False"
    assert second == [first[0], "False"]
