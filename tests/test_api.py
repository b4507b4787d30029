"""kb as a library (kb.api, re-exported by kb) and `kb ask --stdin`: the records loaded once, the
same answers as the commands' --json, a reload when a record changed, errors that answer a line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CAMPAIGN_RECORDS, ROOT

import kb
from kb.errors import InvalidRecords, QueryError, UsageError

FAILED = "2026-02-23-nccl-tree"


def cli_json(records: Path, *args: str) -> object:
    out = subprocess.run([sys.executable, "-m", "kb", "--records", str(records), *args, "--json"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def plain(data: object) -> object:
    """``data`` as JSON reads it back (tuples are lists)."""
    return json.loads(json.dumps(data, default=str))


def test_the_package_exports_the_api():
    from kb import Knowledge, check, diff, load, roots, unblocks, why

    assert {"load", "check", "roots", "why", "unblocks", "diff", "Knowledge"} <= set(kb.__all__)
    assert load is kb.api.load and Knowledge is kb.api.Knowledge
    assert callable(check) and callable(roots) and callable(why) and callable(unblocks) and callable(diff)


def test_answers_are_the_commands_json():
    knowledge = kb.load(CAMPAIGN_RECORDS)
    assert knowledge.problems == []
    assert plain(knowledge.roots_report(limit=2).to_dict()) == cli_json(CAMPAIGN_RECORDS, "roots", "-n", "2")
    assert [r.id for r in knowledge.roots(limit=2)] == [r["id"] for r in cli_json(CAMPAIGN_RECORDS, "roots", "-n", "2")["roots"]]
    assert plain(knowledge.why(FAILED).to_dict()) == cli_json(CAMPAIGN_RECORDS, "why", FAILED)
    assert plain(knowledge.unblocks("cuda=13.0").to_dict()) == cli_json(CAMPAIGN_RECORDS, "unblocks", "cuda=13.0")
    assert knowledge.unblocks({"cuda": "13.0"}).to_dict() == knowledge.unblocks(["cuda=13.0"]).to_dict()
    assert plain(kb.diff(knowledge, FAILED, "2026-02-19-baseline-tp8").to_dict()) == \
        cli_json(CAMPAIGN_RECORDS, "diff", FAILED, "2026-02-19-baseline-tp8")
    assert kb.roots(CAMPAIGN_RECORDS, limit=1)[0].id == knowledge.roots(limit=1)[0].id


def test_bad_questions_raise_kb_errors():
    knowledge = kb.load(CAMPAIGN_RECORDS)
    with pytest.raises(QueryError, match="unknown attempt 'nope'"):
        knowledge.why("nope")
    with pytest.raises(UsageError, match="write cuda=13.0"):
        knowledge.unblocks("cuda>=13.0")


def test_invalid_records_are_problems_and_queries_refuse(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    path = root / "attempts" / f"{FAILED}.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("outcome: failed", "outcome: exploded"), encoding="utf-8")
    problems = kb.check(root)
    assert [p.field for p in problems] == ["outcome"] and problems[0].path.endswith(f"{FAILED}.yaml")
    with pytest.raises(InvalidRecords):
        kb.load(root).roots()


def test_refresh_loads_again_only_after_a_change(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    knowledge = kb.load(root)
    assert knowledge.refresh() is False
    path = root / "attempts" / f"{FAILED}.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("title: NCCL Tree algorithm", "title: NCCL Tree, retitled"), encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))  # a later mtime whatever the clock's grain
    assert knowledge.refresh() is True
    assert knowledge.why(FAILED).title == "NCCL Tree, retitled"


def ask(records: Path, *questions: object, raw: list[str] = ()) -> list[dict]:
    lines = [json.dumps(q) for q in questions] + list(raw)
    out = subprocess.run([sys.executable, "-m", "kb", "--records", str(records), "ask", "--stdin"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True, cwd=ROOT)
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_ask_answers_a_line_each_and_an_error_does_not_end_the_stream():
    answers = ask(CAMPAIGN_RECORDS, ["roots", "-n", "2"], ["why", "nope"], ["build"], ["why", FAILED], ["check"],
                  raw=["not json"])
    assert [a["exit"] for a in answers] == [0, 1, 2, 0, 0, 2]
    assert answers[0]["result"] == cli_json(CAMPAIGN_RECORDS, "roots", "-n", "2")
    assert answers[1]["problems"] == ["unknown attempt 'nope' (the attempts are records/attempts/<id>.yaml)"]
    assert "not a question kb ask answers" in answers[2]["problems"][0]
    assert answers[3]["result"]["attempt"] == FAILED and answers[3]["problems"] == []
    assert answers[4]["result"] == {"problems": [], "ok": True}
    assert answers[5]["problems"][0].startswith("line 6: not JSON")


def test_ask_reloads_records_changed_between_questions(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--records", str(root), "ask", "--stdin"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(["why", FAILED]) + "\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        path = root / "attempts" / f"{FAILED}.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace("outcome: failed", "outcome: exploded"),
                        encoding="utf-8")
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
        proc.stdin.write(json.dumps(["why", FAILED]) + "\n")
        proc.stdin.flush()
        second = json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert first["exit"] == 0 and first["result"]["outcome"] == "failed"
    assert second["exit"] == 1 and second["result"] is None
    assert len(second["problems"]) == 1 and f"{FAILED}.yaml:" in second["problems"][0] \
        and ": outcome: " in second["problems"][0]
    assert proc.returncode == 0


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    return root


def test_log_attempt_writes_through_the_gate(tmp_path):
    import yaml

    root = _copy(tmp_path)
    result = kb.log_attempt(root, title="EAGLE-3, five draft steps", outcome="improved", approach="eagle3 steps 5",
                            metrics={"output_throughput": 96.1}, flags=["--speculative-num-steps 5"],
                            env={"NCCL_ALGO": "Ring", "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz012345"},
                            date="2026-03-01")
    data = yaml.safe_load(result.path.read_text(encoding="utf-8"))
    assert result.path == root / "attempts" / f"{result.attempt.id}.yaml"
    assert data["outcome"] == "improved" and data["approach"] == "eagle3 steps 5"
    assert (result.attempt.metrics["output_throughput"].value, result.attempt.metrics["output_throughput"].unit) == \
        (96.1, "tok/s")  # a number alone takes the campaign's headline unit
    assert "hf_abcdefghijklmnopqrstuvwxyz012345" not in result.path.read_text(encoding="utf-8")
    assert kb.check(root) == []


def test_log_attempt_refuses_bad_input_and_writes_nothing(tmp_path):
    from kb.errors import InvalidOptions

    root = _copy(tmp_path)
    before = sorted(p.name for p in (root / "attempts").iterdir())
    with pytest.raises(InvalidOptions) as caught:
        kb.log_attempt(root, title="x", outcome="exploded", metrics=["speed=fast"])
    assert {p.field for p in caught.value.problems} == {"--outcome", "--metric"}
    assert sorted(p.name for p in (root / "attempts").iterdir()) == before


def test_record_run_writes_the_block_as_an_attempt(tmp_path):
    root = _copy(tmp_path)
    with kb.record_run(root, title="TP8 with CUDA graphs to 256", command="python bench.py --cuda-graph-max-bs 256",
                       date="2026-03-02") as run:
        run.metric("output_throughput", 88.4, "tok/s")
        run.flags.append("--cuda-graph-max-bs 256")
        run.outcome = "improved"
    attempt = run.result.attempt
    assert (attempt.outcome.value, attempt.metrics["output_throughput"].value) == ("improved", 88.4)
    assert attempt.config.command == "python bench.py --cuda-graph-max-bs 256"
    assert "Recorded from Python by kb.record_run" in (attempt.notes or "")
    assert kb.load(root).why(attempt.id).outcome == "improved"


def test_record_run_records_a_failure_and_lets_the_exception_go_on(tmp_path):
    root = _copy(tmp_path)
    with pytest.raises(KeyError), kb.record_run(root, title="symmetric memory all-reduce", date="2026-03-03") as run:
        raise KeyError(12)
    attempt = run.result.attempt
    assert attempt.outcome.value == "failed" and attempt.error == "KeyError: 12"
    assert kb.record_run.__doc__ and kb.Run.__doc__


def test_ask_answers_next_and_match_as_their_json():
    answers = ask(CAMPAIGN_RECORDS, ["next"], ["match", "KeyError: 12"], ["match", "--file", "nowhere.log"])
    assert [a["exit"] for a in answers] == [0, 0, 2]
    assert answers[0]["result"] == cli_json(CAMPAIGN_RECORDS, "next")
    assert answers[1]["result"] == cli_json(CAMPAIGN_RECORDS, "match", "KeyError: 12")
