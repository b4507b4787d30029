"""The outputs kb run gave on a real GPU (tests/fixtures/gpu/README.md says what ran where): the
records it wrote check clean, and kb reads the recorded outputs to the same figures, outcomes
and blocker today."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kb.pipeline import load
from kb.usecases.log import match_blockers
from kb.usecases.run import OutputCapture, RunResult, judge_run

GPU = Path(__file__).resolve().parent / "fixtures" / "gpu" / "h200"
RUNS = {"baseline": "2026-12-02-bench-decode-py-batch-8", "faster": "2026-12-02-batch-64",
        "oom": "2026-12-02-alloc-past-memory-py"}


def _recorded(tag: str) -> tuple[str, str, int]:
    out = (GPU / f"run-{tag}.stdout.txt").read_text(encoding="utf-8")
    err = (GPU / f"run-{tag}.stderr.txt").read_text(encoding="utf-8")
    return out, err, int((GPU / f"run-{tag}.exit.txt").read_text())


def _record(tag: str) -> dict:
    return yaml.safe_load((GPU / "records" / "attempts" / f"{RUNS[tag]}.yaml").read_text(encoding="utf-8"))


def _replay(tag: str) -> RunResult:
    """The run as kb saw it: the command's own output (kb's lines left out) through a capture."""
    out, err, code = _recorded(tag)
    command_out = out.splitlines(keepends=True)  # stdout is the command's own
    command_err = [ln for ln in err.splitlines(keepends=True) if not ln.startswith("kb run: ")]
    cap = OutputCapture()
    cap.feed("".join(command_out + command_err).encode())
    cap.close()
    return RunResult(["python3", "x.py"], "/tmp", dt.datetime(2026, 12, 2, tzinfo=dt.timezone.utc), 4.0, code, cap)


def test_the_records_kb_run_wrote_on_the_gpu_check_clean(tmp_path):
    shutil.copytree(GPU / "records", tmp_path / "records")
    res = subprocess.run([sys.executable, "-m", "kb", "check"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stderr.strip().startswith("7 records OK in records")


def test_each_run_exited_and_said_as_recorded():
    assert [_recorded(t)[2] for t in RUNS] == [0, 0, 1]
    for tag, rid in RUNS.items():
        out, err, code = _recorded(tag)
        assert not any(line.startswith(("kb run:", "records/")) for line in out.splitlines())  # the command's own
        assert (f"kb run: recorded draft attempt {rid} ({_record(tag)['outcome']}) in records/attempts/{rid}.yaml; "
                f"exit status {code}") in err
    assert _record("baseline")["outcome"] == "baseline" and _record("faster")["outcome"] == "improved"
    assert _record("faster")["metrics"]["output_throughput"] == "101925.7 tok/s"
    assert _record("baseline")["metrics"]["output_throughput"] == "13471.6 tok/s"
    assert ("against 13471.6 tok/s (the latest baseline run, 2026-12-02-bench-decode-py-batch-8): +656.6 %"
            in _recorded("faster")[1])


@pytest.mark.parametrize("tag", ["baseline", "faster", "oom"])
def test_kb_reads_the_recorded_outputs_to_the_same_figures_and_outcomes(tag):
    kg = load(GPU / "records").graph
    verdict = judge_run(kg, _replay(tag), "toy-decode-on-one-h200", baseline=tag == "baseline")
    rec = _record(tag)
    assert verdict.outcome == rec["outcome"]
    assert dict(m.split("=", 1) for m in verdict.metrics) == rec.get("metrics", {})


def test_the_out_of_memory_run_keeps_its_headline_and_matches_the_blocker():
    rec = _record("oom")
    headline = [ln for ln in rec["error"].splitlines() if ln.startswith("torch.OutOfMemoryError")]
    assert headline and headline[0].startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 279.60 GiB.")
    assert rec["blocked_by"] == ["alloc-past-gpu-memory"]
    kg = load(GPU / "records").graph
    assert [m.id for m in match_blockers(kg, rec["error"])] == ["alloc-past-gpu-memory"]


def test_the_stack_capture_names_the_machines_driver_and_toolkit():
    stack = yaml.safe_load((GPU / "capture.txt").read_text(encoding="utf-8"))
    assert stack["components"] == {"cuda": "13.0.88", "cuda-driver": "13.0", "driver": "580.159.04"}
    assert stack["captured"]["host_facts"] == "1× NVIDIA H200, driver 580.159.04, Python 3.12.3, Linux x86_64"
    faster = _record("faster")
    assert faster["components"]["torch"] == "2.11.0+cu130"  # read from the interpreter the benchmark ran under
    assert faster["config"]["env"]["TORCH_CUDA_ARCH_LIST"] == "9.0a"
