"""`kb import`: drafts through the store, idempotence, redaction, bad input, golden outputs.

Golden outputs: tests/fixtures/logs/golden/<fixture>.json holds what `kb import --dry-run
--json` prints for each fixture against the campaign's records. Regenerate them after a
deliberate change with ``KB_UPDATE_GOLDEN=1 pytest tests/test_import_cli.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kb.cli import cli
from kb.importers.drafts import import_logs

LOGS = Path(__file__).parent / "fixtures" / "logs"
GOLDEN = LOGS / "golden"
FIXTURES = sorted(p.name for p in LOGS.iterdir() if p.is_file())
SECRETS = ["hf_Qm7r", "10.20.30.40", "alex", "example.org"]


def run(records: Path, *args: str):
    return CliRunner().invoke(cli, ["--records", str(records), "import", *args])


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fixture_list_covers_every_format():
    from kb.importers import read_session

    assert {read_session(LOGS / name).format for name in FIXTURES} == {
        "claude", "codex", "opencode", "gemini", "aider", "specstory", "markdown"}


@pytest.mark.parametrize("name", FIXTURES)
def test_golden_output(campaign_copy, name, monkeypatch):
    import datetime as dt

    import kb.importers.drafts

    monkeypatch.setattr(kb.importers.drafts, "import_day", lambda: dt.date(2026, 12, 1))  # the goldens' day
    result = run(campaign_copy, str(LOGS / name), "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dry_run"] is True
    (item,) = data["files"]
    assert item["drafts"] or item["facts"] or item["decisions"], "every fixture yields something"
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("KB_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert data == json.loads(golden.read_text(encoding="utf-8"))


def test_dry_run_writes_nothing_and_prints_a_table(campaign_copy):
    before = tree(campaign_copy)
    result = run(campaign_copy, str(LOGS / "claude-campaign.jsonl"), "--dry-run")
    assert result.exit_code == 0, result.output
    assert tree(campaign_copy) == before
    assert "new    2026-02-26-try-torch-symmetric-memory-allreduce" in result.stdout
    assert "torch-symm-mem-no-capability-12" in result.stdout
    assert "decision (line 13): Decision: upgrade" in result.stdout
    assert "warning: claude-campaign.jsonl:20: not valid JSON" in result.stderr
    assert "redacted: email 1, host 6, token 3" in result.stderr  # the e-mail of line 19 too (EXPECTED.md)
    assert "nothing written" in result.stderr


def test_import_writes_valid_drafts_and_second_import_adds_nothing(campaign_copy):
    logs = [str(LOGS / n) for n in ("claude-campaign.jsonl", "notebook.md")]
    first = run(campaign_copy, *logs)
    assert first.exit_code == 0, first.output
    assert "12 draft(s) written" in first.stderr
    written = tree(campaign_copy)
    check = CliRunner().invoke(cli, ["--records", str(campaign_copy), "check"])
    assert check.exit_code == 0, check.output
    second = run(campaign_copy, *logs)
    assert second.exit_code == 0, second.output
    assert "0 draft(s) written" in second.stderr and "12 already imported" in second.stderr
    assert tree(campaign_copy) == written


def test_drafts_content(campaign_copy):
    assert run(campaign_copy, str(LOGS / "claude-campaign.jsonl")).exit_code == 0
    symm = yaml.safe_load((campaign_copy / "attempts" / "2026-02-26-try-torch-symmetric-memory-allreduce.yaml").read_text())
    assert symm["status"] == "draft" and symm["outcome"] == "failed"
    assert symm["campaign"] == "kimi-k25-eagle3-blackwell"
    assert (symm["stack"], symm["platform"]) == ("cuda-12.8", "rtx-pro-6000-blackwell-x8")
    assert symm["blocked_by"] == ["torch-symm-mem-no-capability-12"]
    assert symm["error"].endswith("KeyError: 12")
    assert "env" not in symm["config"]  # HF_TOKEN is a secret, not configuration
    anchor = symm["source"][0]
    assert anchor["field"] == "attempt" and anchor["locator"] == "line 8" and anchor["format"] == "claude"
    assert len(anchor["sha256"]) == 64
    eagle = yaml.safe_load((campaign_copy / "attempts" / "2026-02-27-eagle-3-throughput-on-cuda-13.yaml").read_text())
    assert eagle["stack"] == "cuda-13.0"
    assert eagle["metrics"] == {"output_throughput": "96.10 tok/s", "duration": "341.05 s", "median_ttft": "905.10 ms",
                                "median_tpot": "10.21 ms", "acceptance_length": "2.84 tokens"}
    # every figure cites the line it was read from
    cited = {s["field"]: (s["locator"], s["quote"]) for s in eagle["source"] if s["field"].startswith("metrics.")}
    assert cited["metrics.output_throughput"] == ("line 18", "Output token throughput (tok/s):         96.10")
    assert set(cited) == {"metrics.output_throughput", "metrics.median_ttft", "metrics.median_tpot",
                          "metrics.acceptance_length", "metrics.duration"}
    assert eagle["baseline"] == "2026-02-26-baseline-throughput-cuda-graph-max-bs-128"
    assert eagle["outcome"] == "improved"


def test_no_secret_reaches_records(campaign_copy):
    result = run(campaign_copy, *[str(LOGS / n) for n in FIXTURES])
    assert result.exit_code == 0, result.output
    for path, data in tree(campaign_copy).items():
        text = data.decode()
        for secret in SECRETS:
            assert secret not in text, f"{secret} in {path}"
    for secret in SECRETS:
        assert secret not in result.stdout


def test_reviewed_record_is_never_touched(campaign_copy):
    log = str(LOGS / "notebook.md")
    assert run(campaign_copy, log).exit_code == 0
    path = campaign_copy / "attempts" / "2026-02-21-eagle-3-speculation.yaml"
    reviewed = path.read_text().replace("status: draft", "status: reviewed").replace("approach: ", "approach: Reviewed. ")
    path.write_text(reviewed)
    before = path.read_bytes()
    result = run(campaign_copy, log)
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == before
    assert "exists  2026-02-21-eagle-3-speculation" in result.stdout


def test_same_id_taken_by_another_record_gets_a_suffix(campaign_copy):
    out = run(campaign_copy, str(LOGS / "notebook.md"), "--dry-run").stdout
    table = [line.split()[1] for line in out.splitlines() if line.startswith("  new ")]
    assert table.count("2026-02-23-flashinfer-allreduce-fusion-2") == 1


def test_drafts_repeating_recorded_attempts_are_flagged(campaign_copy):
    out = run(campaign_copy, str(LOGS / "notebook.md"), "--dry-run").stdout
    flagged = [line for line in out.splitlines() if line.startswith("  possible duplicate:")]
    assert len(flagged) == 9  # the campaign already holds every run of the notebook
    assert ("  possible duplicate: 2026-02-23-torch-symmetric-memory looks like 2026-02-23-torch-symm-mem "
            "(same date and error (KeyError: 12)); review before keeping both") in flagged


def test_campaign_choice(tmp_path, campaign_copy):
    empty = tmp_path / "empty-records"
    (empty / "platforms").mkdir(parents=True)
    result = run(empty, str(LOGS / "notebook.md"))
    assert result.exit_code == 2 and "records/ has none" in result.stderr
    result = run(campaign_copy, str(LOGS / "notebook.md"), "--campaign", "nope")
    assert result.exit_code == 2 and "no such campaign (campaigns: kimi-k25-eagle3-blackwell)" in result.stderr
    second = yaml.safe_load((campaign_copy / "campaigns" / "kimi-k25-eagle3-blackwell.yaml").read_text())
    (campaign_copy / "campaigns" / "other.yaml").write_text(yaml.safe_dump({**second, "baseline_attempt": None}))
    result = run(campaign_copy, str(LOGS / "notebook.md"), "--dry-run")
    assert result.exit_code == 2 and "several campaigns; choose one with --campaign" in result.stderr
    result = run(campaign_copy, str(LOGS / "notebook.md"), "--dry-run", "--campaign", "other")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty.jsonl: file is empty; nothing to import"),
        (b"   \n\n", "empty.jsonl: file is empty; nothing to import"),
        (b"\x00\x01\x02 binary", "cannot tell the format of this file"),
    ],
)
def test_unreadable_input_is_a_clear_error_and_writes_nothing(campaign_copy, tmp_path, content, message):
    bad = tmp_path / "empty.jsonl"
    bad.write_bytes(content)
    before = tree(campaign_copy)
    result = run(campaign_copy, str(bad))
    assert result.exit_code == 1
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert tree(campaign_copy) == before


def test_one_bad_file_does_not_cost_the_others(campaign_copy, tmp_path):
    bad = tmp_path / "empty.md"
    bad.write_bytes(b"")
    result = run(campaign_copy, str(bad), str(LOGS / "gemini-session.jsonl"))
    assert result.exit_code == 1
    assert "1 draft(s) written" in result.stderr


def test_non_utf8_and_malformed_lines_are_reported_and_skipped(campaign_copy, tmp_path):
    src = (LOGS / "claude-campaign.jsonl").read_bytes().split(b"\n")
    src[1] = src[1].replace(b"EAGLE-3 is still", b"EAGLE-3 \xff is still")
    src.insert(2, b"{not json")
    log = tmp_path / "broken.jsonl"
    log.write_bytes(b"\n".join(src))
    result = run(campaign_copy, str(log), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "warning: broken.jsonl:2: not valid UTF-8 at byte offset" in result.stderr
    assert "warning: broken.jsonl:3: not valid JSON" in result.stderr
    assert result.stdout.count("  new  ") == 3


def test_an_invalid_draft_is_left_out_and_the_others_are_written(campaign_copy, monkeypatch):
    import kb.importers.drafts as drafts

    real = drafts._record
    calls = []

    def flaky(x, a, *args, **kwargs):
        calls.append(a)
        if len(calls) == 3:  # the third draft turns out invalid
            a = type(a)(**{**a.__dict__, "outcome": "exploded"})
        return real(x, a, *args, **kwargs)

    monkeypatch.setattr(drafts, "_record", flaky)
    before = set(tree(campaign_copy))
    result = run(campaign_copy, str(LOGS / "claude-campaign.jsonl"), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["files"][0]
    bad = calls[2].anchor.locator
    assert any(w.startswith(f"{bad}: the run read there was not drafted") and "outcome" in w for w in report["warnings"])
    written = [d for d in report["drafts"] if d["state"] == "written"]
    assert len(written) == 2  # the log's three confident drafts, less the invalid one
    assert bad not in [d["anchor"] for d in report["drafts"]]
    added = set(tree(campaign_copy)) - before
    assert added == {f"attempts/{d['id']}.yaml" for d in written}


def test_unknown_format_option_is_usage_error(campaign_copy):
    result = run(campaign_copy, str(LOGS / "notebook.md"), "--format", "cursor")
    assert result.exit_code == 2


def test_forced_format(campaign_copy, tmp_path):
    copy = tmp_path / "history.txt"
    shutil.copy(LOGS / "notebook.md", copy)
    result = run(campaign_copy, str(copy), "--format", "markdown", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["files"][0]["drafts"]) == 9


def test_library_report_shape(campaign_copy):
    report = import_logs(campaign_copy, [LOGS / "notebook.md"], dry_run=True)
    assert report.campaign == "kimi-k25-eagle3-blackwell"
    assert [d.state for d in report.drafts] == ["new"] * 9
    data = report.to_dict()
    assert data["counts"] == {"new": 9}
    assert [o["text"] for o in data["files"][0]["options"]][:2] == ["installing DeepEP", "MSCCL++"]


def test_a_log_over_the_size_limit_of_its_format_is_refused_and_writes_nothing(campaign_copy, tmp_path):
    from kb.importers.formats._common import MAX_DOCUMENT_BYTES

    big = tmp_path / "notebook-2026.md"
    big.write_bytes((LOGS / "notebook.md").read_bytes() * 40)
    with big.open("r+b") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)  # sparse
    before = tree(campaign_copy)
    result = run(campaign_copy, str(big))
    assert result.exit_code == 1
    assert ("error: notebook-2026.md: file is 64.0 MiB (67108865 bytes), over the 64 MiB limit for markdown "
            "logs: a Markdown document is parsed whole") in result.stderr
    assert "nothing imported from it" in result.stderr and "Traceback" not in result.output
    assert "0 draft(s) written" in result.stderr
    assert tree(campaign_copy) == before


def test_a_streamed_log_is_imported_window_by_window_like_a_whole_one(campaign_copy, monkeypatch):
    from kb.importers import drafts
    from kb.importers import sessions as readers

    whole = run(campaign_copy, str(LOGS / "claude-campaign.jsonl"), "--dry-run", "--json")
    assert len(list(readers.iter_windows(LOGS / "claude-campaign.jsonl", window_events=2))) > 3
    real = readers.iter_windows
    monkeypatch.setattr(drafts, "iter_windows", lambda path, fmt: real(path, fmt, window_events=2))
    windowed = run(campaign_copy, str(LOGS / "claude-campaign.jsonl"), "--dry-run", "--json")
    assert windowed.exit_code == 0, windowed.output
    assert json.loads(windowed.stdout) == json.loads(whole.stdout)
    assert windowed.stderr == whole.stderr


def test_a_log_and_its_compressed_copy_are_imported_once(campaign_copy):
    from click.testing import CliRunner

    from kb.cli import cli

    res = CliRunner().invoke(cli, ["--records", str(campaign_copy), "import", str(LOGS / "codex-rollout.jsonl"),
                                   str(LOGS / "codex-rollout.jsonl.zst")])
    assert res.exit_code == 0, res.stderr
    written = sorted(p.name for p in (campaign_copy / "attempts").iterdir() if "status: draft" in p.read_text())
    assert len(written) == 2 and not any(name.endswith("-2.yaml") for name in written), written
    assert "2 already imported" in res.stderr


def test_possible_attempts_are_listed_and_written_only_with_all(campaign_copy, tmp_path):
    log = tmp_path / "notes.md"
    log.write_text("# Decode notes, 2026-03-09\n\n"
                   "## EAGLE-3\n\n"
                   "- steps 3: 95.8 tok/s\n\n"
                   "## Thoughts\n\n"
                   "We think it could reach roughly 120 tok/s with a tuned draft head.\n", encoding="utf-8")
    dry = run(campaign_copy, str(log), "--dry-run")
    assert dry.exit_code == 0, dry.output
    listed = [line for line in dry.output.splitlines() if line.startswith("  possible attempt:")]
    assert len(listed) == 1 and "confidence 0.20" in listed[0] and "estimates" in listed[0]
    assert "1 possible attempt(s) not drafted; kb import --all writes them too" in dry.output
    assert "dry run: 1 draft(s) would be written" in dry.output
    written = run(campaign_copy, str(log))
    assert written.exit_code == 0, written.output
    assert "1 draft(s) written" in written.output
    again = run(campaign_copy, str(log), "--all")
    assert again.exit_code == 0, again.output
    assert "1 draft(s) written" in again.output and "1 already imported" in again.output
    drafted = [yaml.safe_load(p.read_text()) for p in (campaign_copy / "attempts").glob("2026-03-09-*.yaml")]
    assert sorted(a["metrics"]["output_throughput"] for a in drafted) == ["120 tok/s", "95.8 tok/s"]


def test_a_log_about_something_else_says_so(campaign_copy, tmp_path):
    log = tmp_path / "groceries.md"
    log.write_text("# Weekend\n\n- buy bread\n- call the plumber about the sink\n", encoding="utf-8")
    result = run(campaign_copy, str(log), "--dry-run")
    assert result.exit_code == 0, result.output
    assert ("note: groceries.md shows no inference or benchmark work (no benchmark tool run, no throughput or "
            "latency figure, no GPU or stack named); nothing to draft from it") in result.output
