"""The tool readers (kb.importers.read), each against a table of real outputs.

tests/fixtures/readers/<tool>/cases.yaml lists outputs published in public issues, documentation
and repositories (each case names its source), and what a reader must get from each: the runs it
holds, their figures ``[value, unit]`` and settings as printed (``error`` is the run's own failure
line), and whether a part was recognised
only in half (then the reader must warn; a clean output gives no warning). The expected values were
written by reading the outputs, not by running kb.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

FIXTURES = Path(__file__).parent / "fixtures" / "readers"
MODULES = {"vllm-bench": "vllm_bench", "sglang-bench": "sglang_bench", "llama-bench": "llama_bench",
           "nccl-tests": "nccl_tests", "trtllm-bench": "trtllm_bench", "aiperf": "aiperf", "go-bench": "go_bench",
           "torch-profiler": "torch_profiler", "perf-analyzer": "perf_analyzer"}
TOLERANCE = 0.005


def _cases() -> list[tuple[str, dict]]:
    found = []
    for tool in sorted(MODULES):
        path = FIXTURES / tool / "cases.yaml"
        for case in yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or []:
            found.append((tool, case))
    return found


CASES = _cases()


def _reader(tool: str):
    return importlib.import_module(f"kb.importers.read.{MODULES[tool]}")


@pytest.mark.parametrize("tool, case", CASES, ids=[f"{t}/{c['file']}" for t, c in CASES])
def test_reader_reads_the_published_output(tool, case):
    text = (FIXTURES / tool / case["file"]).read_text(encoding="utf-8")
    out = _reader(tool).read(text)
    want = case.get("runs") or []
    assert len(out.runs) == len(want), (case["source"], [r.metrics for r in out.runs])
    for got, expected in zip(out.runs, want):
        for name, (value, unit) in (expected.get("metrics") or {}).items():
            assert name in got.metrics, (name, sorted(got.metrics))
            assert got.metrics[name].unit == unit, (name, got.metrics[name])
            assert abs(got.metrics[name].value - float(value)) <= TOLERANCE * max(abs(float(value)), 1e-9), (name, got.metrics[name])
        for name, value in (expected.get("settings") or {}).items():
            printed = got.error if name == "error" else got.settings.get(name, "")
            assert " ".join(str(printed or "").split()) == " ".join(str(value).split()), (name, got.settings)
        for name, spread in (expected.get("spread") or {}).items():
            value = spread[0] if isinstance(spread, list) else spread
            assert got.metrics[name].spread is not None and float(got.metrics[name].spread) == pytest.approx(float(value))
    assert bool(out.warnings) == bool(case.get("warnings")), out.warnings


@pytest.mark.parametrize("tool", sorted(MODULES))
def test_every_form_has_five_real_variants_from_their_sources(tool):
    cases = [c for t, c in CASES if t == tool]
    forms: dict[str, list[dict]] = {}
    for case in cases:
        forms.setdefault(case["form"], []).append(case)
        assert case.get("source"), case["file"]
    assert forms, tool
    for form, found in forms.items():
        assert len(found) >= 5, (tool, form, len(found))


@pytest.mark.parametrize("tool", sorted(MODULES))
def test_every_reader_cites_the_documentation_of_what_it_reads(tool):
    module = _reader(tool)
    assert module.TOOL and module.SOURCES and all(isinstance(k, str) and k for k in module.SOURCES)
