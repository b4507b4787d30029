"""The labelled import corpus (tests/corpus/: dev and sealed) and its scorer
(bench/score_import.py): every truth file is sound, the halves are split by origin repository,
the corpus covers the shapes of issues 10 and 22, the scorer matches drafts as documented, and the
import quality on the sealed half does not fall below the floors set under its one scoring."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("score_import", ROOT / "bench" / "score_import.py")
score_import = importlib.util.module_from_spec(_spec)
sys.modules["score_import"] = score_import
_spec.loader.exec_module(score_import)

SEALED_FLOORS = {
    "sealed": {"precision": 0.36, "recall": 0.64, "metric": 0.72, "outcome": 0.45, "error_line": 0.09, "date": 0.88},
}
"""Floors of the sealed half, below the figures of its one scoring (bench/README.md, row 46: the
eleventh sealed half at a1b8c0b, 22 logs from 22 repositories: P 0.41, R 0.70, metric 0.79, outcome
0.51, error line 0.12 (5 of 40), date 0.94 (88 of 94)), rounded down with room for a log's worth of
run-to-run change; the error line's floor lets one more of its five right headlines go wrong. They
guard against a fall and are never raised to a figure measured later. The dev half has no floor: it
is what the importer is tuned on."""

TRUTHS = {half: score_import.load_truths(score_import.CORPORA / half) for half in score_import.HALVES}
ALL = [truth for half in score_import.HALVES for truth in TRUTHS[half]]
DEV = TRUTHS["dev"]


@pytest.mark.parametrize("truth", ALL, ids=[f"{t.path.parent.name}/{t.log}" for t in ALL])
def test_truth_file_is_sound(truth):
    assert score_import.validate_truth(truth) == []


@pytest.mark.parametrize("half", score_import.HALVES)
def test_every_log_has_exactly_one_truth_file(half):
    corpus = score_import.CORPORA / half
    logs = {p.name for p in corpus.iterdir() if p.is_file() and not p.name.endswith(".truth.yaml")} - {"README.md"}
    assert sorted(t.log for t in TRUTHS[half]) == sorted(logs)


def test_halves_are_split_by_origin_repository():
    repos = {half: {t.meta["origin_repo"] for t in TRUTHS[half] if t.meta.get("origin_repo")} for half in TRUTHS}
    for a in repos:
        for b in repos:
            assert a == b or not repos[a] & repos[b], (a, b, repos[a] & repos[b])
    assert all(t.meta.get("origin_repo") for t in TRUTHS["sealed"])


def test_corpus_holds_enough_whole_documents_from_enough_repositories():
    public = [t for t in ALL if t.meta.get("origin_repo")]
    assert len(public) >= 40
    assert len({t.meta["origin_repo"] for t in public}) >= 25
    assert len(TRUTHS["sealed"]) >= 15


def test_corpus_covers_the_shapes_of_issue_10():
    formats = Counter(t.format for t in DEV)
    assert len(DEV) >= 20
    assert formats["markdown"] >= 6
    assert formats["claude"] >= 3
    assert {"codex", "opencode", "gemini"} <= set(formats)
    assert formats["aider"] + formats["specstory"] >= 1
    agents = sum(formats[f] for f in ("claude", "codex", "opencode", "gemini", "aider", "specstory"))
    assert agents >= 7
    assert {"vllm-bench", "sglang-bench", "llama-bench"} <= set(formats)
    llama = [t.log_path.read_text(encoding="utf-8") for t in DEV if t.format == "llama-bench"]
    assert any(text.lstrip().startswith("[") for text in llama) and any(text.startswith("| model") for text in llama)
    claude_logs = [t.log_path.read_text(encoding="utf-8") for t in DEV if t.format == "claude"]
    assert any(json.loads(text.splitlines()[0])["type"] == "file-history-snapshot" for text in claude_logs)
    assert any("python3 sweep.py" in text and "serve_bench.py" in text for text in claude_logs)
    outcomes = Counter(a["outcome"] for t in DEV for a in t.attempts)
    assert outcomes["failed"] >= 10 and outcomes["baseline"] >= 10 and outcomes["improved"] >= 10
    units = {a["metric"]["unit"] for t in DEV for a in t.attempts if a.get("metric")}
    assert {"tok/s", "GB/s", "TFLOPS", "it/s", "us", "ms"} <= units


def test_validate_truth_names_the_file_and_the_fault(tmp_path):
    (tmp_path / "x.md").write_text("# 2026-01-01\n\n- ran it: 5 tok/s\n", encoding="utf-8")
    truth = score_import.Truth(tmp_path / "x.truth.yaml", "x.md", "markdown", "o", {},
                               [{"where": {"lines": [3, 9]}, "approach": ["Ran"], "outcome": "better",
                                 "metric": {"name": "output_throughput", "value": 5, "unit": "tokens/s"}}])
    problems = score_import.validate_truth(truth)
    assert "x.truth.yaml: attempt 1: where.lines [3, 9] must be [first, last] within 1..3" in problems
    assert any("approach must be 1-3 lowercase keywords" in p for p in problems)
    assert any("outcome 'better' is not one of" in p for p in problems)
    assert any("metric needs name, a numeric value and a unit" in p for p in problems)
    assert any("campaign lacks 'model'" in p for p in problems)


@pytest.mark.parametrize("anchor, lines", [
    ("claude-campaign.jsonl:9", (9, 9)), ("notebook.md:27-33", (27, 33)), ("line 5", (5, 5)),
    ("lines 21-23", (21, 23)), ("rollout-2026-02-24.jsonl:12", (12, 12)), ("export.json#msg_01/prt_02", None),
])
def test_anchor_lines(anchor, lines):
    assert score_import.anchor_lines(anchor) == lines


def _draft(anchor, **record):
    return {"anchor": anchor, "record": record}


def test_score_log_matches_arms_by_value_and_counts_extras():
    truth = score_import.Truth(Path("t.truth.yaml"), "t.md", "markdown", "o", {}, [
        {"where": {"lines": [7, 7]}, "approach": ["auto"], "outcome": "baseline", "date": "2026-09-11",
         "metric": {"name": "output_throughput", "value": 54.31, "unit": "tok/s"}},
        {"where": {"lines": [7, 7]}, "approach": ["simple"], "outcome": "improved", "date": "2026-09-11",
         "metric": {"name": "output_throughput", "value": 71.27, "unit": "tok/s"}},
        {"where": {"lines": [9, 12]}, "approach": ["tree"], "outcome": "failed", "error": "KeyError: 12"},
    ])
    report = {"files": [{"drafts": [
        _draft("line 7", outcome="improved", date="2026-09-11", title="NCCL_PROTO=Simple, 2 channels",
               metrics={"output_throughput": "71.27 tokens/s"}),
        _draft("line 7", outcome="inconclusive", date="2026-09-12", metrics={"output_throughput": "54.3 tok/s"}),
        _draft("line 7", outcome="baseline", metrics={}),
        _draft("lines 10-11", outcome="failed", error="Traceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 12\n"),
        _draft("line 30", outcome="baseline"),
    ]}]}
    s = score_import.score_log(truth, report)
    assert (s.drafts, s.truth, s.matched) == (5, 3, 3)
    assert [d["anchor"] for d in s.extra] == ["line 7", "line 30"]
    assert s.metric == [True, True]  # 54.3 is within 0.5 % of 54.31; tokens/s is tok/s
    assert s.outcome == [False, True, True]
    assert s.error_line == [True]
    assert s.date == [False, True]
    assert s.approach == [False, True, False]
    row = s.row()
    assert row["precision"] == pytest.approx(0.6) and row["recall"] == 1.0


def test_score_log_of_a_crash_counts_no_drafts():
    truth = DEV[0]
    s = score_import.score_log(truth, None, "kb exited 1: boom")
    assert (s.drafts, s.matched, s.row()["recall"], s.row()["precision"]) == (0, 0, 0.0, None)
    assert s.missed == list(range(len(truth.attempts)))


def test_error_right_takes_the_headline_or_the_last_exception_line():
    got = "Traceback (most recent call last):\n  File \"a.py\", line 1\nRuntimeError: NCCL error:   unhandled cuda error\n"
    assert score_import.error_right({"error": got}, "RuntimeError: NCCL error: unhandled cuda error")
    assert not score_import.error_right({"error": got}, "KeyError: 12")
    assert not score_import.error_right({}, "KeyError: 12")


def test_metric_right_takes_a_series_point_of_the_same_name():
    record = {"metrics": {"median_us[size=4096]": "4.0 µs", "median_us[size=8192]": "5.0 us", "tflops": "1 TFLOPS"}}
    assert score_import.metric_right(record, {"name": "median_us", "value": 4.0, "unit": "us"})
    assert not score_import.metric_right(record, {"name": "median_us", "value": 7.2, "unit": "us"})
    assert not score_import.metric_right(record, {"name": "median", "value": 4.0, "unit": "us"})


def test_error_right_sees_through_redaction_placeholders():
    truth = ("Failed to fetch model from http://127.0.0.1:30000/v1/models. Error: "
             "HTTPConnectionPool(host='127.0.0.1', port=30000): Max retries exceeded with url: /v1/models")
    got = ("Failed to fetch model from http://<host>:30000/v1/models. Error: HTTPConnectionPool(host='<host>', "
           "port=30000): Max retries exceeded with url: /v1/models\nPlease specify the correct host and port.")
    assert score_import.error_right({"error": got}, truth)
    assert score_import.error_right({"error": "<host>: Test NCCL failure common.cu:1279 'x'"},
                                    "gpu-node-a3: Test NCCL failure common.cu:1279 'x'")
    assert not score_import.error_right({"error": got.replace("30000", "8000")}, truth)
    assert not score_import.holds("a b", "a b c")


@pytest.mark.parametrize("half", sorted(SEALED_FLOORS))
def test_sealed_quality_does_not_fall_below_its_floors(half):
    scores = score_import.score_corpus(score_import.CORPORA / half, in_process=True)
    overall = score_import.summary(scores)
    assert overall["logs"] == len(TRUTHS[half]) and overall["truth"] == sum(len(t.attempts) for t in TRUTHS[half])
    assert overall["kb_errors"] == []
    for key, floor in SEALED_FLOORS[half].items():
        assert overall[key] is not None and overall[key] >= floor, (half, key, floor)
