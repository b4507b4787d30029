"""JSON Schemas per record kind (kb.schema, kb schema) and the modeline written records carry."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from kb.cli import cli
from kb.models import KINDS, Blocker, Decision
from kb.schema import all_schemas, record_schema
from kb.store import load_records, write_record

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"


def _plain(value):
    """YAML data as a JSON document holds it (dates as ISO text), the way yaml-language-server
    validates a YAML file."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value.isoformat() if isinstance(value, dt.date) else value


def test_committed_schemas_are_in_sync_with_the_models():
    files = all_schemas()
    assert sorted(files) == sorted(f"{m.kind}.schema.json" for m in KINDS.values())
    for name, text in files.items():
        committed = ROOT / "schemas" / name
        assert committed.is_file(), f"schemas/{name} missing: run 'kb schema --out schemas'"
        assert committed.read_text(encoding="utf-8") == text, f"schemas/{name} is stale: run 'kb schema --out schemas'"


@pytest.mark.parametrize("folder", sorted(KINDS))
def test_every_campaign_record_validates_against_its_schema(folder):
    schema = record_schema(KINDS[folder].kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted((CAMPAIGN / folder).glob("*.yaml"))
    assert files
    for path in files:
        errors = [e.message for e in validator.iter_errors(_plain(yaml.safe_load(path.read_text(encoding="utf-8"))))]
        assert errors == [], path


def test_schema_flags_what_kb_check_flags_while_typing():
    validator = jsonschema.Draft202012Validator(record_schema("attempt"))
    good = _plain(yaml.safe_load((CAMPAIGN / "attempts").glob("*.yaml").__next__().read_text(encoding="utf-8")))
    assert list(validator.iter_errors(good)) == []
    misspelt = {**good, "outcom": "failed"}
    assert [e.message for e in validator.iter_errors(misspelt)] == [
        "Additional properties are not allowed ('outcom' was unexpected)"]
    bad_outcome = {**good, "outcome": "worked"}
    assert "'worked' is not one of" in next(validator.iter_errors(bad_outcome)).message
    short_metric = {**good, "metrics": {"output_throughput": "54.1 tok/s"}}
    assert list(validator.iter_errors(short_metric)) == []
    no_unit = {**good, "metrics": {"output_throughput": "54.1"}}
    assert list(validator.iter_errors(no_unit))
    blocker = jsonschema.Draft202012Validator(record_schema("blocker"))
    assert list(blocker.iter_errors({"title": "x", "applies_when": {"compute_capability": ">=12.0", "cuda": "<13"}})) == []


def test_kb_schema_prints_and_writes(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["schema", "--kind", "decision"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["title"] == "kb decision record"
    assert "status" in json.loads(res.stdout)["required"] and "id" not in json.loads(res.stdout)["required"]
    res = runner.invoke(cli, ["schema", "--out", str(tmp_path / "schemas")])
    assert res.exit_code == 0
    assert sorted(p.name for p in (tmp_path / "schemas").iterdir()) == sorted(all_schemas())
    res = runner.invoke(cli, ["schema", "--out", str(tmp_path / "schemas")])
    assert res.stdout == "" and res.stderr.count("unchanged") == 6


def test_written_records_start_with_a_modeline(tmp_path, monkeypatch):
    monkeypatch.delenv("KB_SCHEMA_URL", raising=False)
    path = write_record(tmp_path / "records", Blocker(id="x", title="A blocker"))
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../../schemas/blocker.schema.json"
    assert (path.parent / "../../schemas/blocker.schema.json").resolve() == (tmp_path / "schemas" / "blocker.schema.json")
    assert load_records(tmp_path / "records").problems == []
    monkeypatch.setenv("KB_SCHEMA_URL", "https://example.org/kb/schemas/")
    d = load_records(CAMPAIGN).records.of_kind(Decision)[0]
    path = write_record(tmp_path / "records", d)
    assert path.read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=https://example.org/kb/schemas/decision.schema.json\n")


def test_kb_new_writes_the_modeline(tmp_path, monkeypatch):
    import shutil

    monkeypatch.delenv("KB_SCHEMA_URL", raising=False)
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    res = CliRunner().invoke(cli, ["--records", str(tmp_path / "records"), "new", "blocker", "Some new failure"])
    assert res.exit_code == 0, res.output
    path = Path(res.stdout.strip())
    assert path.read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../../schemas/blocker.schema.json\n")


MODELINE = re.compile(r"# yaml-language-server: \$schema=(\S+)")
SHIPPED = [ROOT / "records", ROOT / "kb" / "catalogs"]


def _shipped_records() -> list[Path]:
    return sorted(p for top in SHIPPED for p in top.rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def test_every_record_kb_ships_starts_with_a_modeline_to_its_kind_s_schema():
    files = _shipped_records()
    assert len(files) >= 100 and {f.parent.name for f in files} == set(KINDS)  # the campaign's kinds and the catalog's
    for path in files:
        rel = path.relative_to(ROOT)
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        m = MODELINE.fullmatch(first)
        kind = KINDS[path.parent.name].kind
        expected = os.path.relpath(ROOT / "schemas" / f"{kind}.schema.json", path.parent)
        assert m, f"{rel}:1: add '# yaml-language-server: $schema={expected}' as the first line"
        schema = (path.parent / m.group(1)).resolve()
        assert schema.is_file(), f"{rel}:1: {m.group(1)} names no file"
        assert json.loads(schema.read_text(encoding="utf-8"))["title"] == f"kb {kind} record", rel
    # and they still load and check clean: the modeline is a YAML comment
    assert load_records(ROOT / "records").problems == []
    assert load_records(ROOT / "kb" / "catalogs" / "blackwell").problems == []
    res = CliRunner().invoke(cli, ["--records", str(ROOT / "records"), "check"])
    assert res.exit_code == 0, res.output


def test_kb_log_writes_the_modeline(tmp_path, monkeypatch):
    import shutil

    monkeypatch.delenv("KB_SCHEMA_URL", raising=False)
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    res = CliRunner().invoke(cli, ["--records", str(tmp_path / "records"), "log", "-t", "Retry fusion", "-a",
                                   "fuse allreduce and RMSNorm", "--date", "2026-03-01", "--outcome", "failed", "--error", "KeyError: 12",
                                   "--no-interactive"])
    assert res.exit_code == 0, res.output
    path = tmp_path / "records" / "attempts" / "2026-03-01-retry-fusion.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# yaml-language-server: $schema=../../schemas/attempt.schema.json"
    assert sum("yaml-language-server" in line for line in lines) == 1


V1_BLOCKER = "title: old shorthand fix\nfixed_by:\n  - {cuda: \">=13.0\"}\n"


@pytest.mark.parametrize("first_line, kept", [
    ("", "../../schemas/blocker.schema.json"),  # none yet: the gate's own
    ("# yaml-language-server: $schema=../../schemas/blocker.schema.json\n", "../../schemas/blocker.schema.json"),
    ("# yaml-language-server: $schema=https://example.org/kb/blocker.schema.json\n",
     "https://example.org/kb/blocker.schema.json"),  # set by hand: kept
    ("#yaml-language-server:   $schema=../schemas/b.json  \n", "../schemas/b.json"),  # spaced otherwise
])
def test_kb_migrate_keeps_one_modeline(tmp_path, monkeypatch, first_line, kept):
    monkeypatch.delenv("KB_SCHEMA_URL", raising=False)
    path = tmp_path / "records" / "blockers" / "old.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(first_line + V1_BLOCKER, encoding="utf-8")
    for _ in range(2):  # the second run finds nothing to do and changes nothing
        res = CliRunner().invoke(cli, ["--records", str(tmp_path / "records"), "migrate", "--write"])
        assert res.exit_code == 0, res.output
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"# yaml-language-server: $schema={kept}"
    assert sum("yaml-language-server" in line for line in lines) == 1
    assert lines[1] == "schema_version: 2"
    assert load_records(tmp_path / "records").problems == []


def test_a_rewrite_through_the_gate_keeps_the_file_s_modeline(tmp_path, monkeypatch):
    monkeypatch.delenv("KB_SCHEMA_URL", raising=False)
    root = tmp_path / "records"
    path = write_record(root, Blocker(id="x", title="A blocker"))
    path.write_text(path.read_text(encoding="utf-8").replace("../../schemas/", "../../../shared/schemas/"), encoding="utf-8")
    monkeypatch.setenv("KB_SCHEMA_URL", "https://example.org/kb")  # for new files only
    write_record(root, Blocker(id="x", title="A blocker, renamed"), overwrite=True)
    assert path.read_text(encoding="utf-8").splitlines()[:2] == [
        "# yaml-language-server: $schema=../../../shared/schemas/blocker.schema.json", "schema_version: 2"]
    new = write_record(root, Blocker(id="y", title="Another"))
    assert new.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=https://example.org/kb/blocker.schema.json\n")
