"""kb.sqlite_export: foreign keys Datasette links, components and metrics as tables, Datasette's
metadata beside the database, paths that exist; and a real Datasette serving the export."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kb.cli import cli
from kb.graph import references
from kb.models import KINDS
from kb.pipeline import load_graph
from kb.sqlite_export import FOREIGN_KEYS, metadata_path

BIN = Path(sys.executable).parent
BASELINE = "2026-02-19-baseline-tp8"
CUDA13 = "2026-02-27-eagle3-cuda13"


@pytest.fixture
def exported(campaign_copy: Path, tmp_path: Path) -> Path:
    """The campaign with the shipped Blackwell catalog and one attempt overriding a component,
    exported to ``tmp_path/out/kb.db``."""
    camp = campaign_copy / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    data = yaml.safe_load(camp.read_text(encoding="utf-8"))
    camp.write_text(yaml.safe_dump({**data, "catalogs": ["blackwell"]}, sort_keys=False, allow_unicode=True), encoding="utf-8")
    att = campaign_copy / "attempts" / f"{CUDA13}.yaml"
    data = yaml.safe_load(att.read_text(encoding="utf-8"))
    att.write_text(yaml.safe_dump({**data, "components": {"flashinfer": {"version": "0.6.17", "source": "PyPI"}}},
                                  sort_keys=False, allow_unicode=True), encoding="utf-8")
    db = tmp_path / "out" / "kb.db"
    res = CliRunner().invoke(cli, ["--records", str(campaign_copy), "export", "--sqlite", str(db)])
    assert res.exit_code == 0, res.output
    assert "datasette" in res.stderr and "kb.metadata.json" in res.stderr
    return db


def _fks(con: sqlite3.Connection, table: str) -> dict[str, str]:
    return {row[3]: row[2] for row in con.execute(f'PRAGMA foreign_key_list("{table}")')}


def test_single_references_are_foreign_keys_to_tables_with_primary_keys(exported):
    con = sqlite3.connect(exported)
    assert _fks(con, "attempts") == {"id": "records", "campaign": "campaigns", "platform": "platforms",
                                     "stack": "stacks", "baseline": "attempts"}
    assert _fks(con, "campaigns") == {"id": "records", "platform": "platforms", "stack": "stacks",
                                      "baseline_attempt": "attempts"}
    assert _fks(con, "stacks") == {"id": "records", "base": "stacks"}
    assert _fks(con, "decisions") == {"id": "records", "campaign": "campaigns"}
    for table in ("records", *KINDS):
        pk = [row[1] for row in con.execute(f'PRAGMA table_info("{table}")') if row[5]]
        assert pk == ["id"], table
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    assert con.execute("SELECT stack, platform, campaign FROM attempts WHERE id = ?", (CUDA13,)).fetchone() == (
        "cuda-13.0", "rtx-pro-6000-blackwell-x8", "kimi-k25-eagle3-blackwell")
    con.execute("PRAGMA foreign_keys = ON")
    with pytest.raises(sqlite3.IntegrityError):  # the keys are real: SQLite refuses a dangling stack
        con.execute("UPDATE attempts SET stack = 'no-such-stack' WHERE id = ?", (CUDA13,))
    con.close()


def test_foreign_keys_are_every_single_reference_the_graph_knows(exported):
    kg = load_graph(exported.parent.parent / "records")
    folder_of = {model: folder for folder, model in KINDS.items()}
    seen: set[tuple[str, str, str]] = set()
    for rec in kg.records.records.values():
        for path, _target, kind, _edge in references(rec):
            if len(path) == 1:
                seen.add((rec.folder, path[0], folder_of[kind]))
    declared = {(table, col, target) for table, cols in FOREIGN_KEYS.items() for col, target in cols.items()}
    assert seen <= declared
    assert ("attempts", "stack", "stacks") in seen and ("stacks", "base", "stacks") in seen


def test_components_and_metrics_are_tables_not_json(exported):
    con = sqlite3.connect(exported)
    attempt_columns = [row[1] for row in con.execute("PRAGMA table_info(attempts)")]
    assert "components" not in attempt_columns and "metrics" not in attempt_columns
    assert "components" not in [row[1] for row in con.execute("PRAGMA table_info(stacks)")]
    assert _fks(con, "metrics") == {"attempt": "attempts"}
    assert _fks(con, "attempt_components") == {"attempt": "attempts", "stack": "stacks"}
    assert _fks(con, "stack_components") == {"stack": "stacks", "defined_in": "stacks"}
    assert con.execute("SELECT value, unit, text FROM metrics WHERE attempt = ? AND name = 'output_throughput'",
                       (BASELINE,)).fetchone() == (82.0, "tok/s", "82.0")
    assert con.execute("SELECT name, value, unit FROM metrics WHERE attempt = ? ORDER BY name", (CUDA13,)).fetchall() == [
        ("gain_vs_eagle3_cuda128", 77.6, "%"), ("output_throughput", 96.1, "tok/s")]
    # the attempt's stack (base chain applied) and its own override, each saying where it came from
    rows = dict((c, (v, s, st)) for c, v, s, st in con.execute(
        "SELECT component, version, source, stack FROM attempt_components WHERE attempt = ?", (CUDA13,)))
    assert rows["cuda"] == ("13.0.1", None, "cuda-13.0")
    assert rows["driver"] == ("590.48.01", None, "cuda-12.8")  # inherited from the base stack
    assert rows["flashinfer"] == ("0.6.17", "PyPI", None)  # the attempt's override
    assert con.execute("SELECT version, defined_in FROM stack_components WHERE stack = 'cuda-13.0' AND component = 'driver'"
                       ).fetchone() == ("590.48.01", "cuda-12.8")
    assert con.execute("SELECT version, defined_in FROM stack_components WHERE stack = 'cuda-13.0' AND component = 'cuda'"
                       ).fetchone() == ("13.0.1", "cuda-13.0")
    kg = load_graph(exported.parent.parent / "records")
    n = sum(len(kg.attempt_components(a)) for a in kg.of_kind(KINDS["attempts"]))
    assert con.execute("SELECT COUNT(*) FROM attempt_components").fetchone()[0] == n
    con.close()


def test_every_path_names_a_file_that_exists_catalog_records_too(exported):
    con = sqlite3.connect(exported)
    rows = con.execute("SELECT id, kind, catalog, path FROM records").fetchall()
    assert rows and all(path is not None and (exported.parent / path).is_file() for _id, _k, _c, path in rows)
    catalog = [r for r in rows if r[2] == "blackwell"]
    assert len(catalog) == len(list((Path(__file__).parent.parent / "kb" / "catalogs" / "blackwell" / "blockers").glob("*.yaml")))
    assert all(r[3].endswith(f"kb/catalogs/blackwell/blockers/{r[0]}.yaml") for r in catalog)
    own = dict((r[0], r[3]) for r in rows if r[2] is None)
    assert own[BASELINE] == f"../records/attempts/{BASELINE}.yaml"  # relative to the database's folder
    con.close()


def test_metadata_beside_the_database_names_titles_and_facets(exported):
    meta = json.loads(metadata_path(exported).read_text(encoding="utf-8"))
    assert metadata_path(exported).name == "kb.metadata.json"
    assert meta["title"] == "kb: Kimi-K2.5 INT4 with EAGLE-3 on 8× RTX PRO 6000 Blackwell"
    tables = meta["databases"]["kb"]["tables"]
    assert tables["attempts"]["facets"][:3] == ["outcome", "campaign", "stack"]
    assert tables["attempts"]["label_column"] == "title" and tables["attempts"]["sort_desc"] == "date"
    con = sqlite3.connect(exported)
    for table, entry in tables.items():
        columns = {row[1] for row in con.execute(f'PRAGMA table_info("{table}")')}
        assert columns, table  # every table named exists
        for facet in entry["facets"]:
            assert (facet["array"] if isinstance(facet, dict) else facet) in columns, (table, facet)
    con.close()


def test_an_existing_metadata_file_is_kept_without_force(campaign_copy, tmp_path):
    db = tmp_path / "kb.db"
    metadata_path(db).write_text("{}", encoding="utf-8")
    res = CliRunner().invoke(cli, ["--records", str(campaign_copy), "export", "--sqlite", str(db)])
    assert res.exit_code == 1 and "kb.metadata.json: already exists; pass --force" in res.stderr
    assert not db.exists() and metadata_path(db).read_text(encoding="utf-8") == "{}"
    res = CliRunner().invoke(cli, ["--records", str(campaign_copy), "export", "--sqlite", str(db), "--force"])
    assert res.exit_code == 0 and json.loads(metadata_path(db).read_text(encoding="utf-8"))["databases"]["kb"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as resp:  # noqa: S310 - a local http URL the test made
        return resp.read()


@contextlib.contextmanager
def _datasette(db: Path):
    port = _free_port()
    proc = subprocess.Popen([str(BIN / "datasette"), "serve", str(db), "-m", str(metadata_path(db)),
                             "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(base + "/-/versions.json")
                break
            except (urllib.error.URLError, OSError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    out = proc.communicate(timeout=10)[0]
                    pytest.fail(f"datasette did not start: {out.decode(errors='replace')[-2000:]}")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_datasette_serves_the_export_with_facets_and_foreign_key_labels(exported):
    with _datasette(exported) as base:
        page = json.loads(_get(base + "/kb/attempts.json?_facet=outcome"))
        outcome = {r["value"]: r["count"] for r in page["facet_results"]["outcome"]["results"]}
        assert outcome == {"failed": 4, "improved": 2, "regressed": 2, "baseline": 1}
        # facets from the metadata file, without asking: campaign and stack, by their titles
        stacks = {r["value"]: (r["label"], r["count"]) for r in page["facet_results"]["stack"]["results"]}
        assert stacks == {"cuda-12.8": ("CUDA 12.8 stack (toolkit 12.8.1, torch 2.10 cu128)", 8),
                          "cuda-13.0": ("CUDA 13 stack (toolkit 13.0.1, torch 2.11 nightly cu130)", 1)}
        campaign = page["facet_results"]["campaign"]["results"]
        assert [(r["value"], r["count"]) for r in campaign] == [("kimi-k25-eagle3-blackwell", 9)]
        row = json.loads(_get(base + f"/kb/attempts.json?id={CUDA13}&_labels=on&_shape=array"))
        assert row[0]["stack"] == {"value": "cuda-13.0", "label": "CUDA 13 stack (toolkit 13.0.1, torch 2.11 nightly cu130)"}
        assert row[0]["platform"] == {"value": "rtx-pro-6000-blackwell-x8", "label": "8× RTX PRO 6000 Blackwell over PCIe Gen5"}
        assert row[0]["baseline"]["label"] == "Lower --cuda-graph-max-bs from 512 to 128"
        html = _get(base + "/kb/attempts").decode("utf-8")  # the table links each stack by its title
        assert '<a href="/kb/stacks/cuda-13~2E0">CUDA 13 stack (toolkit 13.0.1, torch 2.11 nightly cu130)</a>' in html
        assert "<h1>Attempts</h1>" in html and "metrics and components are in tables of their own" in html
        # a stack's row page counts the rows that link to it, table by table
        stack = json.loads(_get(base + "/kb/stacks/cuda-12~2E8.json?_extras=foreign_key_tables"))
        links = {(t["other_table"], t["other_column"]): t["count"] for t in stack["foreign_key_tables"]}
        assert links[("attempts", "stack")] == 8 and links[("stacks", "base")] == 1
        assert links[("attempt_components", "stack")] > 0 and links[("campaigns", "stack")] == 1
        assert "Links from other tables" in _get(base + "/kb/stacks/cuda-12~2E8").decode("utf-8")
        metrics = json.loads(_get(base + f"/kb/metrics.json?attempt={BASELINE}&_shape=array&_labels=on"))
        assert [(m["name"], m["value"], m["unit"]) for m in metrics] == [("output_throughput", 82.0, "tok/s")]
        assert metrics[0]["attempt"]["label"] == "Baseline, tensor parallel 8, cuda-graph-max-bs 512"
        comps = json.loads(_get(base + "/kb/attempt_components.json?component=flashinfer&_shape=array"))
        assert sorted((c["attempt"], c["version"]) for c in comps)[-1] == (CUDA13, "0.6.17")
