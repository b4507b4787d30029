"""The Blackwell catalog's audit (issue 24, item 7): every record re-checked against its sources,
what that verified, when, and which signatures were read off code; the audit table in
``CATALOG.md`` is the records' own (``python tests/test_catalog_audit.py --write`` rewrites it
after a record changes); at least 80 sourced blockers; staleness after 90 days, with an
injectable date."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.pipeline import load_graph
from kb.queries.audit import AUDIT_END, AUDIT_START, STALE_AFTER_DAYS, audit_table, catalog_audit, stale_records

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "kb" / "catalogs" / "blackwell"
DOC = CATALOG / "CATALOG.md"
DAY = dt.date(2026, 12, 2)


def _rows():
    kg = load_graph(ROOT / "records", ["blackwell"])
    return catalog_audit(kg, DAY)


def _expected_doc() -> str:
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(AUDIT_START, 1)
    _, tail = rest.split(AUDIT_END, 1)
    return head + audit_table(_rows()) + tail


def test_the_catalog_document_holds_the_audit_table_of_the_records_as_they_are():
    assert DOC.read_text(encoding="utf-8") == _expected_doc(), \
        "CATALOG.md's audit table is out of date: run python tests/test_catalog_audit.py --write"


def test_at_least_80_sourced_blockers_each_with_a_source_and_a_check():
    rows = _rows()
    assert len(rows) >= 80
    assert all(r.source and r.source.startswith("https://") for r in rows if not r.root)
    assert all(r.checked is not None for r in rows)
    rechecked = [r for r in rows if r.checked == DAY]
    assert len(rechecked) == len(rows), sorted(r.id for r in rows if r.checked != DAY)
    assert all(r.verified for r in rechecked)


def test_no_fix_names_a_nightly_or_dev_build_as_its_release():
    from packaging.version import Version

    kg = load_graph(ROOT / "records", ["blackwell"])
    for r in _rows():
        b = kg.get(r.id)
        for f in b.fixed_by:
            for name, spec in f.requires.items():
                for s in spec.split(","):
                    v = s.lstrip("<>=!~ ")
                    assert not Version(v).is_devrelease, (r.id, name, spec)


def test_staleness_is_judged_on_the_given_day():
    kg = load_graph(ROOT / "records", ["blackwell"])
    assert stale_records(kg, DAY) == []
    later = DAY + dt.timedelta(days=STALE_AFTER_DAYS + 1)
    assert {r.id for r in stale_records(kg, later)} == {r.id for r in _rows()}
    edge = DAY + dt.timedelta(days=STALE_AFTER_DAYS)
    assert stale_records(kg, edge) == []


def test_check_lists_stale_records_only_with_v_and_reads_kb_today(monkeypatch, tmp_path):
    import shutil

    from kb.cli import cli

    shutil.copytree(ROOT / "records", tmp_path / "records")
    args = ["--records", str(tmp_path / "records"), "check"]
    monkeypatch.setenv("KB_TODAY", "2027-06-01")
    quiet = CliRunner().invoke(cli, args)
    n = len(_rows())
    assert f"kb: {n} catalog records were last checked more than 90 days ago; 'kb check -v' lists them" in quiet.output
    assert quiet.exit_code == 0
    loud = CliRunner().invoke(cli, [*args, "-v"])
    stale = [line for line in loud.output.splitlines() if line.startswith("stale: catalog blackwell: ")]
    assert len(stale) == n
    assert "stale: catalog blackwell: arch-allowlist-omits-sm12x: checked 2026-12-02, 181 days ago;" in loud.output
    monkeypatch.setenv("KB_TODAY", "2026-12-20")
    assert "stale:" not in CliRunner().invoke(cli, [*args, "-v"]).output
    monkeypatch.setenv("KB_TODAY", "next tuesday")
    bad = CliRunner().invoke(cli, args)
    assert bad.exit_code == 2 and "KB_TODAY='next tuesday' is not a date; write YYYY-MM-DD" in bad.output


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(_expected_doc(), encoding="utf-8")
        print(f"wrote the audit table of {len(_rows())} records into {DOC}")
    else:
        sys.exit(pytest.main([__file__, "-q"]))
