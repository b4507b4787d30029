"""Every failing import case of shared/cases/import/, as a test of what its README says kb should do.

The inputs are copies under tests/fixtures/cases/import/<case>/ (tests do not need /work/shared);
records are a scratch copy of tests/fixtures/campaign (the frozen seed campaign), or the case's own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.importers import LogFormatError, read_session
from kb.importers.drafts import import_logs
from kb.importers.sessions import detect_format

CASES = Path(__file__).parent / "fixtures" / "cases" / "import"
CAMPAIGN = Path(__file__).parent / "fixtures" / "campaign"


@pytest.fixture
def records(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN, root)
    return root


def drafts_of(records, path, **options):
    report = import_logs(records, [path], dry_run=options.pop("dry_run", True), **options)
    assert not report.failed, report.files[0].error
    return report, [d.record for d in report.drafts if d.record is not None]


def metric(record, name):
    m = record.metrics.get(name)
    return (m.text, m.unit) if m else None


# --- claude-detect-first-line ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["fhs-first.jsonl", "queue-first.jsonl"])
def test_claude_detected_past_snapshot_and_queue_lines(records, name):
    path = CASES / "claude-detect-first-line" / name
    assert detect_format(path, path.read_bytes()) == "claude"
    report, found = drafts_of(records, path)
    assert report.files[0].format == "claude"
    assert [metric(r, "output_throughput") for r in found] == [("54.10", "tok/s")]


def test_undetectable_format_hint_names_the_option(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"\x00\x01 nothing known")
    with pytest.raises(LogFormatError, match="--format claude"):
        read_session(path)


# --- claude-export-txt ----------------------------------------------------------------------


def test_claude_export_text_is_read(records):
    report, found = drafts_of(records, CASES / "claude-export-txt" / "2026-01-09-run-the-baseline.txt")
    assert report.files[0].format == "claude-export"
    assert [r.outcome.value for r in found] == ["failed", "baseline"]
    assert found[0].error == "ModuleNotFoundError: No module named 'numpy.lib.function_base'"
    assert metric(found[1], "output_throughput") == ("3098.00", "tok/s")
    assert found[1].config.flags == ["--commit def456"]


# --- md-bullet-log --------------------------------------------------------------------------


def test_dated_bullet_runs(records):
    _, found = drafts_of(records, CASES / "md-bullet-log" / "log.md")
    assert len(found) == 2
    assert metric(found[0], "output_throughput") == ("7.7", "tok/s")
    assert str(found[0].date) == "2026-06-07"
    assert found[1].outcome.value == "failed"
    assert found[1].error == "build failed while compiling kernel-cpu; target-specific option mismatch"


# --- md-date-env-stack ----------------------------------------------------------------------


def test_preamble_date_stack_that_ran_and_table_rows(records):
    _, found = drafts_of(records, CASES / "md-date-env-stack" / "notes.md")
    assert [r.title for r in found] == ["TP=4 with memory tuning", "Vllm TP=1"]
    assert {str(r.date) for r in found} == {"2025-11-04"}
    assert [r.outcome.value for r in found] == ["failed", "improved"]
    assert found[0].error == "same error"
    for record in found:
        assert record.config.env == {}
        assert "sglang" not in record.components and "vllm" not in record.components
        assert record.components["torch"].version == "2.8.0+cu128"
    assert found[0].config.flags == ["--tp 4"] and found[1].config.flags == ["--tp 1"]


# --- md-outcome-and-baseline ----------------------------------------------------------------


def test_explicit_baseline_cells_outcome_cells_and_no_silent_campaign(records):
    report, found = drafts_of(records, CASES / "md-outcome-and-baseline" / "notes.md")
    by_title = {r.title: r for r in found}
    moe, qkv = by_title["MoE-only"], by_title["MoE + QKV/O"]
    assert moe.outcome.value == "baseline" and qkv.outcome.value == "improved"
    assert qkv.baseline == moe.id
    tp4, h200 = by_title["TP=4 with memory tuning"], by_title["8x H200"]
    assert (tp4.outcome.value, tp4.error) == ("failed", "collective mismatch during CUDA graph")
    assert (h200.outcome.value, h200.error) == ("failed", "Unstable")
    assert tp4.config.flags == ["--tp 4"] and tp4.config.env == {}
    assert report.files[0].matches_campaign is False
    assert all(r.baseline != "2026-02-19-baseline-tp8" for r in found)
    assert all("names neither the model" in r.notes for r in found)
    result = CliRunner().invoke(cli, ["--records", str(records), "import", "--dry-run",
                                      str(CASES / "md-outcome-and-baseline" / "notes.md")])
    assert "pass --campaign ID" in result.output


# --- md-table-multi-tok-s -------------------------------------------------------------------


def test_decode_and_prefill_columns_are_distinct_metrics(records):
    _, found = drafts_of(records, CASES / "md-table-multi-tok-s" / "notes.md")
    base, eagle = found
    assert metric(base, "output_throughput") == ("31.6", "tok/s")
    assert metric(base, "input_throughput") == ("4341", "tok/s")
    assert metric(eagle, "output_throughput") == ("13.97", "tok/s")
    assert metric(eagle, "input_throughput") == ("5153", "tok/s")
    assert (base.outcome.value, eagle.outcome.value) == ("baseline", "regressed")
    assert eagle.baseline == base.id


# --- md-table-units -------------------------------------------------------------------------


def test_units_in_headers_and_in_the_sentence_above(records):
    _, found = drafts_of(records, CASES / "md-table-units" / "notes.md")
    assert [(r.title, metric(r, "output_throughput")) for r in found] == [
        ("TP=2 RDMA", ("72.71", "tok/s")), ("TP=1", ("60.02", "tok/s")),
        ("Auto NCCL (C4)", ("54.31", "tok/s")), ("Simple + 2 channels (C4)", ("71.27", "tok/s"))]
    assert metric(found[0], "input_throughput") == ("6329", "tok/s")
    assert [r.outcome.value for r in found[2:]] == ["baseline", "improved"]
    assert all(m.unit not in ("%", "x") for r in found for m in r.metrics.values())  # a gain compares; it measures nothing


# --- redact-repo-at-commit ------------------------------------------------------------------


def test_repository_at_commit_kept_hosts_redacted(records):
    result = CliRunner().invoke(cli, ["--records", str(records), "import", "--dry-run", "--json",
                                      str(CASES / "redact-repo-at-commit" / "notes.md")])
    data = json.loads(result.stdout)
    title = data["files"][0]["drafts"][0]["record"]["title"]
    assert "/vllm@6804e1b" in title
    assert "gpu-box-00b4" not in result.output and "example.org" not in result.output
    assert title.endswith("on host <host>")


# --- reimport-grown-log ---------------------------------------------------------------------


def test_a_grown_transcript_adds_nothing_already_imported(records, tmp_path):
    log = tmp_path / "session.jsonl"
    shutil.copy(CASES / "reimport-grown-log" / "session.jsonl", log)
    first = import_logs(records, [log])
    assert first.drafts and all(d.state == "written" for d in first.drafts)
    line = json.loads(log.read_text().splitlines()[-1])
    line.update(uuid="u-next", type="user", message={"role": "user", "content": "Thanks, keep going."})
    with log.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    again = import_logs(records, [log], dry_run=True)
    assert [d.state for d in again.drafts] == ["exists"] * len(first.drafts)
    assert [d.id for d in again.drafts] == [d.id for d in first.drafts]


def test_grown_transcript_with_the_case_records_adds_only_the_new_attempt(tmp_path):
    case = CASES / "reimport-grown-log-duplicates"
    root = tmp_path / "records"
    shutil.copytree(case / "records", root)
    log = tmp_path / "s.jsonl"
    shutil.copy(case / "logs" / "session-day1.jsonl", log)
    first = import_logs(root, [log])
    shutil.copy(case / "logs" / "session-full.jsonl", log)
    second = import_logs(root, [log])
    states = [d.state for d in second.drafts]
    assert states.count("exists") == len(first.drafts) and states.count("written") == 1
    assert not [p for p in (root / "attempts").iterdir() if p.stem.endswith("-2")]


def test_a_notebook_saved_with_crlf_or_grown_adds_only_new_attempts(records, tmp_path):
    notebook = tmp_path / "nb.md"
    text = (CASES / "md-table-units" / "notes.md").read_text()
    notebook.write_text(text)
    first = import_logs(records, [notebook])
    notebook.write_bytes(text.replace("\n", "\r\n").encode())
    assert [d.state for d in import_logs(records, [notebook], dry_run=True).drafts] == ["exists"] * len(first.drafts)
    notebook.write_text("Some words on top.\n\n" + text + "\n## 2026-09-12\n\n- Ran it again at 75.5 tok/s.\n")
    states = [d.state for d in import_logs(records, [notebook], dry_run=True).drafts]
    assert states == ["exists"] * len(first.drafts) + ["new"]


# --- robust-large-and-truncated -------------------------------------------------------------


def test_truncated_json_export_says_it_ends_early(records):
    report = import_logs(records, [CASES / "robust-large-and-truncated" / "truncated-export.json"], dry_run=True)
    assert "ends before the JSON document is complete (truncated?)" in report.files[0].error


def test_an_oversized_markdown_paragraph_is_skipped_with_a_warning(records, tmp_path, monkeypatch):
    from kb.importers.formats import markdown

    monkeypatch.setattr(markdown, "MAX_PARAGRAPH_CHARS", 100_000)
    huge = tmp_path / "huge-line.md"
    huge.write_text("# 2026-03-01\n\n" + "y" * 200_000 + " 54 tok/s\n\n- Measured 61 tok/s.\n")
    report, found = drafts_of(records, huge)
    assert any("over the" in w and "skipped" in w for w in report.files[0].warnings)
    assert [metric(r, "output_throughput") for r in found] == [("61", "tok/s")]
    assert not any(r.title.startswith("yyyy") for r in found)


# --- shapes of the corpus that the cases do not cover -----------------------------------------


def test_arms_over_a_sweep_are_one_attempt_each_with_a_series(records, tmp_path):
    notes = tmp_path / "fa.md"
    notes.write_text("## 2026-06-02\n\nPrefill rates in the table are t/s, master vs the branch.\n\n"
                     "| Test | master (t/s) | branch (t/s) | Speedup |\n|---|---:|---:|---:|\n"
                     "| pp1024@d4096 | 2009.40 | 2019.50 | 1.01 |\n| pp1024@d32768 | 674.64 | 783.05 | 1.16 |\n")
    _, found = drafts_of(records, notes)
    assert [(r.title, r.outcome.value, metric(r, "input_throughput")) for r in found] == [
        ("master", "baseline", ("674.64", "tok/s")), ("branch", "improved", ("783.05", "tok/s"))]
    assert metric(found[1], "input_throughput[Test=pp1024@d4096]") == ("2019.50", "tok/s")


def test_time_unit_stated_above_a_sweep_of_arms_and_a_leading_date(records, tmp_path):
    notes = tmp_path / "gemm.md"
    notes.write_text("# Backends\n\n_2026-08-03_ · shape N=24576\n\nTimes are kernel latency in µs (median).\n\n"
                     "| M | torch | triton | cutlass |\n|---:|---:|---:|---:|\n| 16 | 203.91 | 119.05 | 201.94 |\n"
                     "| 1024 | **1306.04** | 1436.58 | 1318.46 |\n")
    _, found = drafts_of(records, notes)
    assert [(r.title, r.outcome.value) for r in found] == [("torch", "baseline"), ("triton", "improved"), ("cutlass", "neutral")]
    assert metric(found[1], "latency[M=16]") == ("119.05", "us")
    assert {str(r.date) for r in found} == {"2026-08-03"}


def test_the_reference_a_notebook_names_is_each_tables_baseline(records, tmp_path):
    notes = tmp_path / "fa3.md"
    notes.write_text("# FA3 on Ampere\n\nFlashInfer is the default here, so it is the reference in every table.\n\n"
                     "## 2025-05-01\n\nBackend | Input TPS | Output TPS\n---|---|---\nFA3 | 4007.36 | 801.47\n"
                     "flashinfer | 4906.56 | 981.31\n")
    _, found = drafts_of(records, notes)
    assert [(r.title, r.outcome.value, metric(r, "output_throughput")) for r in found] == [
        ("FA3", "regressed", ("801.47", "tok/s")), ("flashinfer", "baseline", ("981.31", "tok/s"))]
    assert found[0].baseline == found[1].id


def test_a_table_whose_rows_are_metrics_and_columns_the_arms(records, tmp_path):
    notes = tmp_path / "trt.md"
    notes.write_text("# EP x TP notes\n\n2025-12-15. `trtllm-bench` throughput run, same node for both builds.\n\n"
                     "| metric | main | ep+tp branch |\n|-- | -- | --|\nRequest Throughput (req/sec): |  0.9765 | 0.9812\n"
                     "Total Output   Throughput (tokens/sec): | 15999.06 | 16075.82\n"
                     "Total Token   Throughput (tokens/sec): | 23998.59 | 24113.73\n")
    _, found = drafts_of(records, notes)
    assert [(r.title, r.outcome.value, metric(r, "output_throughput")) for r in found] == [
        ("main", "baseline", ("15999.06", "tok/s")), ("ep+tp branch", "neutral", ("16075.82", "tok/s"))]
    assert metric(found[0], "total_throughput") == ("23998.59", "tok/s")
    assert metric(found[0], "request_throughput") == ("0.9765", "req/s")
    assert {str(r.date) for r in found} == {"2025-12-15"}
