"""kb log: kb.usecases.log (parsing, checking, matching, merge-safe ids) and the command, flags and prompts."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from unblock_cases import CASES, GATE, SYMM

from kb.capture import Capture
from kb.cli import cli
from kb.errors import InvalidRecords
from kb.ids import slugify
from kb.models import Blocker
from kb.pipeline import load_graph
from kb.store import create_record, load_records
from kb.usecases.log import (
    AttemptDraft,
    build_attempt,
    log_attempt,
    parse_component,
    parse_metric,
)

BASE = ["log", "-t", "Retry fusion", "-a", "fuse allreduce and RMSNorm", "--date", "2026-03-01", "--no-interactive"]


@pytest.fixture
def root(write_tree) -> Path:
    return write_tree(CASES)


def invoke(root: Path, *args: str, input: str | None = None):
    return CliRunner().invoke(cli, ["--records", str(root), *args], input=input)


def attempts(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "attempts").iterdir())


def read(path: str | Path) -> dict:
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("title, slug", [
    ("FlashInfer allreduce fusion", "flashinfer-allreduce-fusion"),
    ("Upgrade to CUDA 13.0 (again!)", "upgrade-to-cuda-13.0-again"),
    ("Crème brûlée  --tp 8", "creme-brulee-tp-8"),
    ("version 2.10.0+cu128.", "version-2.10.0-cu128"),
    ("日本語", "ribenyu"),  # transliterated (anyascii), not lost
    ("a " * 50, "-".join(["a"] * 30)),
])
def test_slugify(title, slug):
    assert slugify(title) == slug


@pytest.mark.parametrize("text, name, display", [
    ("output_throughput=54.1tok/s", "output_throughput", "54.1 tok/s"),
    ("verify_time=30ms", "verify_time", "30 ms"),
    ("ttft = 1.50 s", "ttft", "1.50 s"),
    ("gain=9.1%", "gain", "9.1 %"),
])
def test_parse_metric(text, name, display):
    got_name, metric = parse_metric(text)
    assert (got_name, metric.display()) == (name, display)


def test_parse_metric_takes_the_headline_unit_only_for_the_headline_metric():
    assert parse_metric("output_throughput=96.1", {"output_throughput": "tok/s"})[1].display() == "96.1 tok/s"
    with pytest.raises(ValueError, match="'verify_time=30' has no unit; write it with one"):
        parse_metric("verify_time=30", {"output_throughput": "tok/s"})
    with pytest.raises(ValueError, match="unknown unit 'toks'"):
        parse_metric("output_throughput=54toks")
    with pytest.raises(ValueError, match="is not NAME=VALUE UNIT"):
        parse_metric("54.1 tok/s")


def test_parse_component_canonicalises_and_checks_pep_440():
    name, comp = parse_component("flashinfer_python=0.6.17")
    assert (name, comp.version) == ("flashinfer", "0.6.17")
    assert parse_component("torch=2.10.0+cu128")[1].version == "2.10.0+cu128"
    with pytest.raises(ValueError, match="'thirteen' is not a PEP 440 version"):
        parse_component("cuda=thirteen")


def test_build_attempt_collects_every_problem_at_its_flag(root):
    kg = load_graph(root)
    draft = AttemptDraft(title="x", outcome="nope", campaign="nop", stack="cu999", blocked_by=["gate"],
                         metrics=["a=1"], components=["cuda"], env=["1=2"], date="2026-13-01")
    with pytest.raises(InvalidRecords) as exc:
        build_attempt(kg, draft)
    got = {(p.field, p.message.split(";")[0].split(" (")[0]) for p in exc.value.problems}
    assert got == {
        ("--approach", "missing"),
        ("--outcome", "'nope' is not an outcome"),
        ("--campaign", "unknown campaign 'nop'"),
        ("--stack", "unknown stack 'cu999'"),
        ("--blocked-by", "unknown blocker 'gate'"),
        ("--metric", "'a=1' has no unit"),
        ("--component", "'cuda' is not NAME=VERSION, e.g. cuda=13.0 or flashinfer=0.6.17"),
        ("--env", "'1=2' is not KEY=VALUE with KEY a variable name, e.g. NCCL_ALGO=Tree"),
        ("--date", "'2026-13-01' is not a date"),
    }
    assert all(p.path == "kb log" for p in exc.value.problems)


def test_build_attempt_refuses_a_reference_to_the_wrong_kind(root):
    with pytest.raises(InvalidRecords) as exc:
        build_attempt(load_graph(root), AttemptDraft(title="t", approach="a", outcome="neutral", baseline=GATE))
    assert [str(p) for p in exc.value.problems] == [
        f"kb log: --baseline: '{GATE}' is a blocker, not an attempt; give the id of an attempt (known: "
        "2026-01-10-old-torch, 2026-02-19-baseline, 2026-02-21-eagle3, 2026-02-23-fusion, 2026-02-23-symm-mem, "
        "2026-02-24-both-allreduces)"]


def test_a_failed_attempt_needs_a_cause(root):
    with pytest.raises(InvalidRecords) as exc:
        build_attempt(load_graph(root), AttemptDraft(title="t", approach="a", outcome="failed"))
    (p,) = exc.value.problems
    assert p.field == "--error/--blocked-by"
    assert "give --error TEXT, --error-file PATH or --blocked-by ID" in p.message


def test_build_attempt_defaults_date_campaign_and_platform(root):
    a = build_attempt(load_graph(root), AttemptDraft(title="Quick check", approach="a", outcome="neutral"),
                      today=dt.date(2026, 3, 2))
    assert (a.id, a.date, a.campaign, a.platform) == ("2026-03-02-quick-check", dt.date(2026, 3, 2), "blackwell", "rtx-pro-6000-x8")


# --------------------------------------------------------------------------- the command


def test_log_writes_the_attempt_and_prints_its_path(root):
    r = invoke(root, *BASE, "-o", "regressed", "-s", "cu128", "--component", "cuda=13.0", "--flag", "--tp 8",
               "--flag", "--enable-flashinfer-allreduce-fusion", "--env", "NCCL_ALGO=Tree",
               "-m", "output_throughput=54.1tok/s", "-m", "verify_time=30ms", "--baseline", "2026-02-19-baseline",
               "--hypothesis", "fusion saves the verify cost", "--notes", "line 1\nline 2", "--tag", "allreduce")
    assert r.exit_code == 0, r.output
    path = root / "attempts" / "2026-03-01-retry-fusion.yaml"
    assert r.stdout == f"{path}\n"
    assert "logged attempt 2026-03-01-retry-fusion" in r.stderr
    assert read(path) == {
        "schema_version": 2, "title": "Retry fusion", "notes": "line 1\nline 2", "tags": ["allreduce"], "date": dt.date(2026, 3, 1),
        "campaign": "blackwell", "approach": "fuse allreduce and RMSNorm", "hypothesis": "fusion saves the verify cost",
        "platform": "rtx-pro-6000-x8", "stack": "cu128", "components": {"cuda": "13.0"},
        "config": {"flags": ["--tp 8", "--enable-flashinfer-allreduce-fusion"], "env": {"NCCL_ALGO": "Tree"}},
        "outcome": "regressed", "metrics": {"output_throughput": "54.1 tok/s", "verify_time": "30 ms"},
        "baseline": "2026-02-19-baseline",
    }
    assert load_records(root).problems == []


def test_a_taken_id_is_suffixed_never_overwritten(root):
    paths = [invoke(root, *BASE, "-o", "neutral").stdout.strip() for _ in range(3)]
    assert [Path(p).name for p in paths] == ["2026-03-01-retry-fusion.yaml", "2026-03-01-retry-fusion-2.yaml",
                                             "2026-03-01-retry-fusion-3.yaml"]


def test_create_record_skips_ids_other_kinds_hold(root):
    rec, path = create_record(root, Blocker(id="fixed-already", title="another"), taken={"fixed-already"})
    assert (rec.id, path.name) == ("fixed-already-2", "fixed-already-2.yaml")


def test_bad_input_exits_2_naming_each_problem_and_writes_nothing(root):
    before = attempts(root)
    r = invoke(root, *BASE, "-o", "sucess", "-c", "blackwel", "--blocked-by", "nope", "-m", "x=1zz")
    assert r.exit_code == 2
    assert "kb log: --campaign: unknown campaign 'blackwel'; did you mean 'blackwell'? (known: blackwell)" in r.output
    assert "kb log: --blocked-by: unknown blocker 'nope'" in r.output
    assert "kb log: --metric: 'x=1zz': unknown unit 'zz'" in r.output
    assert "kb log: --outcome: 'sucess' is not an outcome" in r.output
    assert r.output.rstrip().endswith("kb: 4 problems in the attempt; nothing written")
    assert attempts(root) == before


def test_error_and_error_file_together_is_bad_usage(root, tmp_path):
    f = tmp_path / "err.log"
    f.write_text("boom")
    r = invoke(root, *BASE, "-o", "failed", "--error", "x", "--error-file", str(f))
    assert r.exit_code == 2


def test_json_prints_id_path_and_matches(root):
    r = invoke(root, *BASE, "-o", "failed", "--error", "torch says KeyError: 12 at startup", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data == {"id": "2026-03-01-retry-fusion", "path": str(root / "attempts" / "2026-03-01-retry-fusion.yaml"),
                    "matches": [{"id": SYMM, "title": CASES[f"blockers/{SYMM}.yaml"]["title"],
                                 "fix": "no known fix (workaround: Leave --enable-torch-symm-mem off.)", "linked": False}],
                    "redacted": {}}
    assert read(data["path"]).get("blocked_by") is None


def test_known_blockers_are_reported_with_their_fix_and_linked_on_request(root, tmp_path):
    log = tmp_path / "server.log"
    log.write_text("loading...\nRuntimeError: No supported CUDA architectures\n  found for major versions [9, 10]\n")
    r = invoke(root, *BASE, "-o", "failed", "--error-file", str(log), "--link-matches")
    assert r.exit_code == 0, r.output
    assert f"kb log: error text matches {GATE}; fixed by flashinfer>=0.6.17, cuda>=12.9 (linked)" in r.stderr
    rec = read(r.stdout.strip())
    assert rec["blocked_by"] == [GATE]
    assert rec["error"] == log.read_text().strip("\n")


def test_matches_are_not_linked_without_the_flag(root):
    r = invoke(root, *BASE, "-o", "failed", "--error", "No supported CUDA architectures found for major versions [9, 10]")
    assert f"matches {GATE}; fixed by flashinfer>=0.6.17, cuda>=12.9 (not linked; --link-matches links it)" in r.stderr


def test_capture_fills_components_as_overrides_of_the_stack(root, monkeypatch):
    fake = Capture(components={"cuda": "13.0.88", "torch": "2.10.0+cu128", "flashinfer-python": "0.6.4",
                               "driver": "590.48.01", "sglang": "0.5.0-custom"},
                   notes=["nvidia-smi topo -m timed out after 10 s"], captured_at="2026-03-01T10:00:00Z")
    monkeypatch.setattr("kb.capture.capture_machine", lambda *a, **k: fake)
    r = invoke(root, *BASE, "-o", "neutral", "-s", "cu128", "--capture", "--component", "driver=595.0")
    assert r.exit_code == 0, r.output
    assert "kb log: note: nvidia-smi topo -m timed out after 10 s" in r.stderr
    assert read(r.stdout.strip())["components"] == {
        "cuda": "13.0.88", "driver": "595.0", "sglang": {"source": "reported as 0.5.0-custom (not a PEP 440 version)"}}


def test_dry_run_prints_the_record_and_writes_nothing(root):
    before = attempts(root)
    r = invoke(root, *BASE, "-o", "neutral", "--dry-run")
    assert r.exit_code == 0
    assert r.stdout.startswith("# records/attempts/2026-03-01-retry-fusion.yaml (dry run: not written)\n"
                               "schema_version: 2\ntitle: Retry fusion\n")
    assert attempts(root) == before


def test_dry_run_names_the_suffixed_id_a_real_run_takes(root):
    assert invoke(root, *BASE, "-o", "neutral").exit_code == 0
    r = invoke(root, *BASE, "-o", "neutral", "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("# records/attempts/2026-03-01-retry-fusion-2.yaml (dry run: not written)\n")
    w = invoke(root, *BASE, "-o", "neutral")
    assert w.stdout.strip().endswith("attempts/2026-03-01-retry-fusion-2.yaml")


@pytest.mark.parametrize(("args", "only"), [
    (["-b", "nope"], "kb log: --blocked-by: unknown blocker 'nope'"),
    (["--error-file", "no-such.log"], "kb log: --error-file: cannot read 'no-such.log'"),
])
def test_a_refused_cause_is_the_one_problem_of_a_failed_attempt(root, args, only):
    r = invoke(root, *BASE, "-o", "failed", *args)
    assert r.exit_code == 2, r.output
    assert only in r.stderr
    assert "a failed attempt needs 'error'" not in r.stderr  # it was given, and refused
    assert "kb: 1 problem in the attempt; nothing written" in r.stderr


def test_a_broken_record_elsewhere_does_not_stop_logging(root):
    (root / "attempts" / "2026-01-01-broken.yaml").write_text("title: [unclosed\n")
    r = invoke(root, *BASE, "-o", "neutral")
    assert r.exit_code == 0
    assert "kb log: warning: 1 problem(s)" in r.stderr


# --------------------------------------------------------------------------- prompts


def test_prompts_for_what_is_missing_asks_again_on_bad_answers_and_confirms_matches(root):
    answers = "\n".join([
        "Retry fusion on 13",  # title
        "",                    # campaign: the default (the only one)
        "fuse again",          # approach
        "nope",                # outcome: not a choice, asked again
        "failed",
        "cu999",               # stack: not a choice, asked again
        "cu130",
        "--enable-flashinfer-allreduce-fusion",  # the run's flags
        "RuntimeError: No supported CUDA architectures found for major versions [9, 10]",  # error text
        "y",                   # link the match anyway (cu130 resolves it, so the default is no)
        "-",                   # retry of: an earlier attempt met the gate; '-' says none
    ]) + "\n"
    r = invoke(root, "log", "--interactive", "--date", "2026-03-01", input=answers)
    assert r.exit_code == 0, r.output
    assert "Error: 'nope' is not one of" in r.output
    assert "Error: 'cu999' is not one of" in r.output
    assert (f"matches {GATE}; fixed by flashinfer>=0.6.17, cuda>=12.9, but stack cu130 resolves it "
            "(flashinfer>=0.6.17, cuda>=12.9). Link it into blocked_by anyway? [y/N]") in r.output
    rec = read(r.stdout.strip())
    assert (rec["title"], rec["campaign"], rec["approach"], rec["outcome"], rec["stack"], rec["blocked_by"]) == (
        "Retry fusion on 13", "blackwell", "fuse again", "failed", "cu130", [GATE])
    assert rec["config"]["flags"] == ["--enable-flashinfer-allreduce-fusion"]
    assert "retry of (the earlier attempt this re-runs; - for none)" in r.output and "retry_of" not in rec


def test_a_failed_attempt_without_error_says_why_a_blocker_is_asked_and_empty_stops(root):
    before = attempts(root)
    answers = "\n".join(["cu128", "", "", ""]) + "\n"  # stack; no flags; no error text; no blocker
    r = invoke(root, *BASE, "--interactive", "-c", "blackwell", "-o", "failed", input=answers)
    assert r.exit_code == 2, r.output  # before, an empty answer was asked again, forever
    assert "kb log: a failed attempt needs its error text or the blocker that stopped it: give a blocker id (" in r.output
    assert "a failed attempt needs 'error' (the error text) or 'blocked_by' (blocker ids)" in r.output
    assert attempts(root) == before


def test_prompts_replace_bad_flag_values_and_ask_for_the_headline_metric(root):
    answers = "\n".join([
        "",          # campaign 'nop' was wrong: take the default
        "cu128",     # stack
        "verify_time=30",  # replacement for the bad --metric: no unit, asked again
        "verify_time=30ms",
        "abc",       # headline metric: not a number, asked again
        "96.1",
    ]) + "\n"
    r = invoke(root, *BASE, "--interactive", "-c", "nop", "-o", "improved", "-m", "verify_time=30zz", input=answers)
    assert r.exit_code == 0, r.output
    assert "kb log: --campaign: unknown campaign 'nop'" in r.output
    assert "kb log: --metric: 'verify_time=30zz': unknown unit 'zz'" in r.output
    assert "Error: 'verify_time=30' has no unit" in r.output
    rec = read(r.stdout.strip())
    assert rec["metrics"] == {"verify_time": "30 ms", "output_throughput": "96.1 tok/s"}
    assert rec["campaign"] == "blackwell"


# --------------------------------------------------------------------------- concurrency


def test_eight_concurrent_logs_all_land_with_distinct_ids(root):
    cmd = [sys.executable, "-m", "kb", "--records", str(root), *BASE, "-o", "neutral"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(8)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [e for _o, e in outs]
    paths = sorted(Path(o.strip()).name for o, _e in outs)
    expected = sorted(["2026-03-01-retry-fusion.yaml"] + [f"2026-03-01-retry-fusion-{n}.yaml" for n in range(2, 9)])
    assert paths == expected
    assert [n for n in attempts(root) if n.startswith("2026-03-01")] == expected
    assert not [p for p in (root / "attempts").iterdir() if p.name.startswith(".")]  # no temporary file left
    loaded = load_records(root)
    assert loaded.problems == []
    assert {loaded.records.records[n[:-5]].title for n in expected} == {"Retry fusion"}


def test_log_attempt_library_call(root):
    res = log_attempt(root, AttemptDraft(title="Lib", approach="a", outcome="failed", error="KeyError: 12"),
                      link_matches=True, today=dt.date(2026, 3, 3))
    assert res.to_dict() == {"id": "2026-03-03-lib", "path": str(root / "attempts" / "2026-03-03-lib.yaml"),
                             "matches": [{"id": SYMM, "title": CASES[f"blockers/{SYMM}.yaml"]["title"],
                                          "fix": "no known fix (workaround: Leave --enable-torch-symm-mem off.)",
                                          "linked": True}],
                             "redacted": {}}
    assert res.attempt.blocked_by == [SYMM]
