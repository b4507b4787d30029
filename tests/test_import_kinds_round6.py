"""Kinds fixed after the fourth sealed half was opened (issue 22): outcomes across the tables of one
document, each with variants of its own.

- a section whose heading says it holds the reference runs (``... (Baseline)``) gives one baseline per
  model; a later table of a model (named by its rows or by its section's heading) is compared with
  that model's reference row, not with its own first row;
- tables measured under the same stated workloads (request rates, llama-bench depth) compare their
  rows pairwise, the first table's rows the baselines;
- a ``Model Size`` column names the model of each row; a ``depth`` column states a workload.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, outcomes

from kb.importers.read import labels, statements


@pytest.mark.parametrize(("header", "key"), [
    ("Model Size", "model"), ("model name", "model"), ("n_depth", "context_depth"), ("Depth", "context_depth"),
    ("context", None), ("Batch Size", None), ("Test Size", None),
])
def test_workload_columns(header, key):
    assert labels.workload_key(header) == key


@pytest.mark.parametrize(("heading", "model"), [
    ("0.5B Model", "0.5B"), ("#### 14B", "14B"), ("Qwen2.5-7B-Instruct on two GPUs", "Qwen2.5-7B-Instruct"),
    ("Runs of meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B"), ("Batch 8 results", ""), ("H100 80GB", ""),
])
def test_a_heading_names_a_model_by_its_parameter_count_or_hub_id(heading, model):
    assert labels.heading_model(heading) == model


@pytest.mark.parametrize(("heading", "holds"), [
    ("Direct library calls (Baseline)", True), ("Baseline: stock settings", True), ("基准测试", True),
    ("Speed-up over the baseline", False), ("Compared to baseline", False), ("Results", False),
])
def test_a_heading_that_holds_the_reference_runs(heading, holds):
    assert statements.reference_heading(heading) is holds


def _reference_then_per_model(unit_header: str, a: tuple, b: tuple, per_model: dict) -> str:
    tables = "".join(
        f"\n#### {model} model\n\n| Client | {unit_header} |\n|---|---|\n" +
        "".join(f"| {prompt} | {v} |\n" for prompt, v in rows) for model, rows in per_model.items())
    return dedent(f"""\
        # Server overhead on the M2 Ultra

        ## Plain library calls (baseline)

        | Model Size | {unit_header} |
        |---|---|
        | 1B-4bit | {a[1]} |
        | 8B-4bit | {b[1]} |

        ## Through the HTTP server
        """) + tables


def test_rows_of_a_model_are_compared_with_its_reference_row_in_a_baseline_section(tmp_path):
    text = _reference_then_per_model("tok/s", ("1B", 300.0), ("8B", 90.0), {
        "1B": [("curl", 210.0), ("openai-sdk", 303.0)], "8B": [("curl", 60.0), ("openai-sdk", 97.5)]})
    f, recs = drafts(tmp_path, "overhead.md", text)
    assert outcomes(recs) == {300.0: "baseline", 90.0: "baseline", 210.0: "regressed", 303.0: "neutral",
                              60.0: "regressed", 97.5: "improved"}


def test_a_table_comparing_with_a_heading_that_names_the_baseline_keeps_its_own_first_row(tmp_path):
    f, recs = drafts(tmp_path, "overhead.md", dedent("""\
        # Kernel timings on the A10

        ## Speed-up over the baseline

        | Kernel | tok/s |
        |---|---|
        | triton | 100.0 |
        | cutlass | 120.0 |
        | plain loop | 80.0 |
        """))
    assert outcomes(recs) == {100.0: "baseline", 120.0: "improved", 80.0: "regressed"}


def test_tables_of_the_same_request_rates_compare_row_by_row(tmp_path):
    def table(rows):
        return "| request-rate | Output token throughput (tok/s) |\n|---|---|\n" + "".join(f"| {r} | {v} |\n" for r, v in rows)
    f, recs = drafts(tmp_path, "engines.md", "# Llama-3-8B on one RTX 3090, ShareGPT\n\n## vLLM\n\n" +
                     table([(1, 196.0), (4, 700.0)]) + "\n## LMDeploy\n\n" + table([(1, 205.0), (4, 690.0)]) +
                     "\n## TGI\n\n" + table([(1, 180.0), (4, 760.0)]))
    assert outcomes(recs) == {196.0: "baseline", 700.0: "baseline", 205.0: "improved", 690.0: "neutral",
                              180.0: "regressed", 760.0: "improved"}


def test_llama_bench_depth_rows_of_a_second_setting_compare_with_the_same_depth(tmp_path):
    f, recs = drafts(tmp_path, "kv.md", dedent("""\
        # KV cache type on the P40 (Qwen3-14B Q4_K_M)

        ## f16 cache

        | depth | tg t/s |
        |---:|---:|
        | 0 | 13.0 |
        | 8192 | 11.0 |

        ## q8_0 cache

        | depth | tg t/s |
        |---:|---:|
        | 0 | 13.1 |
        | 8192 | 9.9 |
        """))
    assert outcomes(recs) == {13.0: "baseline", 11.0: "baseline", 13.1: "neutral", 9.9: "regressed"}
