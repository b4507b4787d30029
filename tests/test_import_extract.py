"""Step 2 of import: attempts, facts and decisions extracted from the two shared samples.

The expected values are those of shared/samples/EXPECTED.md (the fixtures under
tests/fixtures/logs/ are byte-identical copies of the samples).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from kb.importers import read_session
from kb.importers.model import Headline
from kb.importers.score import score_session as extract

LOGS = Path(__file__).parent / "fixtures" / "logs"
SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "samples"
HEADLINE = Headline("output_throughput", "higher", 82.0)  # the campaign's baseline


@pytest.mark.parametrize("name", ["claude-campaign.jsonl", "notebook.md"])
def test_fixtures_are_the_shared_samples(name):
    if not (SAMPLES / name).exists():
        pytest.skip("shared samples not present")
    assert (LOGS / name).read_bytes() == (SAMPLES / name).read_bytes()


def figures(attempt):
    return {name: (f.text, f.unit) for name, f in attempt.metrics.items()}


def evidence(attempt, field):
    return [(e.locator, e.quote) for e in attempt.evidence if e.field == field]


# --- Claude Code transcript ---------------------------------------------------------------


@pytest.fixture(scope="module")
def claude():
    return extract(read_session(LOGS / "claude-campaign.jsonl"), HEADLINE)


def test_claude_stack_facts_with_locators(claude):
    facts = [(f.scope, f.name, f.value, f.evidence.locator) for f in claude.facts]
    assert facts == [
        ("stack", "driver", "590.48.01", "line 5"),
        ("stack", "cuda-driver", "13.1", "line 5"),
        ("stack", "cuda", "12.8", "line 5"),
        ("stack", "torch", "2.10.0+cu128", "line 7"),
        ("stack", "torch-cuda", "12.8", "line 7"),
        ("platform", "compute_capability", "12.0", "line 7"),
        ("platform", "gpu_count", "8", "line 7"),
        ("stack", "cuda", "13.0", "line 16"),
        ("stack", "torch", "2.11.0.dev20260220+cu130", "line 16"),
        ("stack", "torch-cuda", "13.0", "line 16"),
        ("stack", "flashinfer", "0.6.9", "line 16"),
    ]
    assert claude.facts[2].evidence.quote == "Build cuda_12.8.r12.8/compiler.35583870_0"


def test_claude_three_attempts_nothing_from_summary_or_prose(claude):
    assert [a.anchor.locator for a in claude.attempts] == ["line 8", "line 10", "line 17"]
    assert [a.outcome for a in claude.attempts] == ["failed", "baseline", "improved"]
    assert [a.date for a in claude.attempts] == [dt.date(2026, 2, 26), dt.date(2026, 2, 26), dt.date(2026, 2, 27)]


def test_claude_symm_mem_attempt(claude):
    symm = claude.attempts[0]
    assert symm.title == "Try torch symmetric memory allreduce"
    assert symm.approach.startswith("Driver is ahead of the toolkit.")
    assert symm.error == "KeyError: 12"  # the headline; the traceback is kept as its detail
    assert symm.error_detail.startswith("Traceback (most recent call last):")
    assert symm.error_detail.endswith("KeyError: 12")
    assert {"--tp 8", "--enable-torch-symm-mem", "--cuda-graph-max-bs 128"} <= set(symm.flags)
    assert (symm.anchor.field, symm.anchor.locator, symm.anchor.quote) == ("attempt", "line 8", "Try torch symmetric memory allreduce")
    assert evidence(symm, "error") == [("line 9", "KeyError: 12")]
    assert evidence(symm, "outcome") == [("line 9", "exit code 1")]
    assert symm.metrics == {}
    stack = {f.name: f.value for f in symm.facts if f.scope == "stack"}
    assert stack == {"driver": "590.48.01", "cuda-driver": "13.1", "cuda": "12.8",
                     "torch": "2.10.0+cu128", "torch-cuda": "12.8"}


def test_claude_baseline_figures_as_written(claude):
    base = claude.attempts[1]
    assert figures(base).pop("duration") == ("366.12", "s")  # "Benchmark duration (s)", as bench_serving prints it
    assert {k: v for k, v in figures(base).items() if k != "duration"} == {"output_throughput": ("89.52", "tok/s"), "median_ttft": ("812.40", "ms"),
                             "median_tpot": ("10.97", "ms")}
    assert {e.locator for e in base.metrics.values() for e in [e.evidence]} == {"line 11"}
    assert base.metrics["output_throughput"].evidence.quote == "Output token throughput (tok/s):         89.52"
    assert base.error is None and base.reference is None


def test_claude_eagle3_on_cuda13(claude):
    eagle = claude.attempts[2]
    assert {k: v for k, v in figures(eagle).items() if k != "duration"} == {"output_throughput": ("96.10", "tok/s"), "median_ttft": ("905.10", "ms"),
                              "median_tpot": ("10.21", "ms"), "acceptance_length": ("2.84", "tokens")}
    assert {f.evidence.locator for f in eagle.metrics.values()} == {"line 18"}
    assert eagle.reference == 1  # compared with the re-measured baseline, 89.52
    stack = {f.name: (f.value, f.evidence.locator) for f in eagle.facts if f.scope == "stack"}
    assert stack["cuda"] == ("13.0", "line 16")
    assert stack["torch"] == ("2.11.0.dev20260220+cu130", "line 16")
    assert stack["torch-cuda"] == ("13.0", "line 16")
    assert stack["flashinfer"] == ("0.6.9", "line 16")


def test_claude_decision_statement(claude):
    assert [(d.evidence.locator, d.text[:60]) for d in claude.decisions] == [
        ("line 13", "Decision: upgrade the software stack to CUDA 13 (toolkit 13.")]
    assert claude.options == []


# --- lab notebook -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def notebook():
    return extract(read_session(LOGS / "notebook.md"), HEADLINE)


def test_notebook_nine_attempts_with_lines(notebook):
    got = [(a.anchor.locator, a.title, a.outcome, figures(a).get("output_throughput", (None,))[0])
           for a in notebook.attempts]
    assert got == [
        ("line 14", "tp8, cuda-graph-max-bs 512", "baseline", "82.0"),
        ("line 15", "tp8, cuda-graph-max-bs 128", "improved", "89.5"),
        ("line 21", "EAGLE-3 speculation", "regressed", "54.1"),  # the line of its figure (k89)
        ("line 29", "FlashInfer allreduce fusion", "failed", None),
        ("line 30", "Custom allreduce forced over PCIe", "regressed", "38"),
        ("line 31", "Torch symmetric memory", "failed", None),
        ("line 32", "Expert parallel, flashinfer A2A backend", "failed", None),
        ("line 33", "NCCL_ALGO=Tree", "failed", None),
        ("line 48", "EAGLE-3, CUDA 13 stack", "improved", "96.1"),
    ]


def test_notebook_comparisons(notebook):
    a = notebook.attempts
    assert a[1].change == 9.1 and "gain_vs_baseline" not in figures(a[1])  # a gain compares; it is no figure
    assert a[1].reference == 0  # +9.1 % against the 82.0 baseline
    assert a[2].reference == 0  # regressed against the 82.0 baseline
    assert a[8].reference == 0  # 96.1 improves on the baseline
    assert a[0].flags == ["--tp 8", "--cuda-graph-max-bs 512"]
    assert a[1].flags == ["--tp 8", "--cuda-graph-max-bs 128"]
    assert a[2].flags == ["--speculative-algorithm EAGLE3"]


def test_notebook_errors(notebook):
    errors = {a.title: a.error for a in notebook.attempts if a.error}
    assert errors == {
        "FlashInfer allreduce fusion": "RuntimeError: No supported CUDA architectures found for major versions [9, 10]",
        "Torch symmetric memory": "KeyError: 12",
        "Expert parallel, flashinfer A2A backend": "assertion error, then CUDA out of memory",
        "NCCL_ALGO=Tree": "incompatible with CUDA graphs",
    }
    tree = notebook.attempts[7]
    assert tree.env == {"NCCL_ALGO": "Tree"}
    assert notebook.attempts[4].cause == "PCIe contention from all-to-all traffic"


def test_notebook_stack_and_platform(notebook):
    facts = {(f.scope, f.name): (f.value, f.evidence.locator) for f in notebook.facts}
    assert facts == {
        ("platform", "gpu_count"): ("8", "lines 3-5"),
        ("platform", "gpu"): ("RTX PRO 6000", "lines 3-5"),
        ("platform", "compute_capability"): ("12.0", "lines 3-5"),
        ("platform", "interconnect"): ("PCIe Gen5", "lines 3-5"),
        ("platform", "nvlink"): ("false", "lines 3-5"),
        ("stack", "cuda"): ("12.8.1", "lines 3-5"),
        ("stack", "driver"): ("590.48.01", "lines 3-5"),
        ("stack", "torch"): ("2.10.0+cu128", "lines 3-5"),
        ("stack", "flashinfer"): ("0.6.4", "lines 3-5"),
    }
    # the stack holds "until 2026-02-26": not for the attempt after the upgrade
    assert {f.name for f in notebook.attempts[0].facts if f.scope == "stack"} == {"cuda", "driver", "torch", "flashinfer"}
    assert {f.name for f in notebook.attempts[8].facts if f.scope == "stack"} == set()


def test_notebook_rejected_options_are_not_attempts(notebook):
    assert [o.text for o in notebook.options] == [
        "installing DeepEP", "MSCCL++", "fewer NCCL channels", "allreduce coalescing", "more drafter training data"]
    assert {o.evidence.locator for o in notebook.options} == {"lines 35-36"}


def test_notebook_decision_is_the_dated_section(notebook):
    assert [(d.evidence.locator, d.text[:38]) for d in notebook.decisions] == [
        ("lines 38-42", "Upgrade the software stack to CUDA 13:")]
    # the conclusion of the first section is a note of its attempts, not a decision
    assert notebook.attempts[0].notes == ["Conclusion: keep `--cuda-graph-max-bs 128`."]


# --- rules on small inputs ----------------------------------------------------------------


def test_probe_only_session_gives_facts_not_attempts():
    opencode = extract(read_session(LOGS / "opencode-export.json"))
    assert opencode.attempts == []
    assert [(f.name, f.value, f.evidence.locator) for f in opencode.facts] == [
        ("cuda", "13.0", "msg_a1/prt_a1b"), ("torch", "2.11.0.dev20260220+cu130", "msg_a1/prt_a1b"),
        ("torch-cuda", "13.0", "msg_a1/prt_a1b"), ("flashinfer", "0.6.9", "msg_a1/prt_a1b")]


def test_pip_freeze_keeps_known_components_only(tmp_path):
    import json

    log = tmp_path / "s.jsonl"
    lines = [
        {"type": "assistant", "uuid": "a", "sessionId": "s", "timestamp": "2026-03-01T10:00:00Z",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pip freeze"}}]}},
        {"type": "user", "uuid": "b", "sessionId": "s", "timestamp": "2026-03-01T10:00:01Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                  "content": "numpy==2.1.0\nflashinfer-python==0.6.4\ntorch==2.10.0+cu128\n"}]}},
    ]
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    found = extract(read_session(log))
    assert [(f.name, f.value, f.evidence.locator) for f in found.facts] == [
        ("flashinfer", "0.6.4", "line 2"), ("torch", "2.10.0+cu128", "line 2")]
    assert found.attempts == []


# --- windows: a long log is extracted a window at a time ------------------------------------


@pytest.mark.parametrize("name", ["claude-campaign.jsonl", "notebook.md", "codex-rollout.jsonl"])
@pytest.mark.parametrize("size", [1, 3, 7])
def test_window_edges_do_not_change_what_a_log_yields(name, size):
    from kb.importers.model import as_dict
    from kb.importers.score import score as extract_windows
    from kb.importers.sessions import iter_windows

    whole = extract(read_session(LOGS / name), HEADLINE)
    windows = list(iter_windows(LOGS / name, window_events=size))
    if name != "notebook.md":  # streamed formats are cut; a Markdown document stays whole
        assert len(windows) > 1
        assert sum(len(w.events) for w in windows) == len(read_session(LOGS / name).events)
        assert [w.first_index for w in windows] == [
            sum(len(v.events) for v in windows[:i]) for i in range(len(windows))]
    else:
        assert len(windows) == 1
    windowed = extract_windows(iter(windows), HEADLINE)
    assert as_dict(windowed) == as_dict(whole)
    assert whole.attempts, "the sample yields attempts"


def test_a_window_never_separates_a_call_from_its_result():
    from kb.importers.sessions import iter_windows

    for window in iter_windows(LOGS / "claude-campaign.jsonl", window_events=1):
        for call, result in window.tool_pairs():
            assert result is not None and result.result_of == call.index
        turns = [e.turn for e in window.events]
        assert turns == sorted(turns)  # split replies (one turn) stay in one window
