"""Variants of our own (written with the fix), kinds k59 and k60.

k59 a table whose first column is headed as the measures (``Metric``, ``Measurement``, ``KPI``,
``Statistic``) is read column by column even when every row holds the same unit: each other column
is one configuration, each row one of its figures. A first column headed otherwise (``Model``,
``Run``) keeps its rows as the runs.
k60 a row or column that gives the spread of a figure (``σ``, ``variance``, ``jitter``) is not a
figure of the run: ``| TPS consistency (σ) | 0.5 tok/s |`` is not the arm's throughput.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, value


def test_k59_metric_rows_in_one_unit_are_read_by_column(tmp_path):
    f, recs = drafts(tmp_path, "k59-metric.md", dedent("""\
        # Mistral-7B decode on one L40S, 2026-06-11

        Turned on chunked prefill and re-ran the same sweep.

        | Metric | Before | After |
        |---|---|---|
        | Single-stream decode | 61.0 tok/s | 64.5 tok/s |
        | 8-stream aggregate | 402 tok/s | 455 tok/s |
        """))
    assert [r.title for r in recs] == ["Before", "After"]
    assert [value(r) for r in recs] == [61.0, 64.5]
    assert [r.metrics["total_throughput"].value for r in recs] == [402.0, 455.0]


def test_k59_metric_rows_all_in_gb_are_two_configurations(tmp_path):
    f, recs = drafts(tmp_path, "k59-gb.md", dedent("""\
        # Qwen2.5-32B on one RTX 6000 Ada, 2026-06-20

        Moved the KV cache to FP8 and loaded the model again.

        | Metric | Before | After |
        |---|---|---|
        | Weights | 18.2 GB | 18.2 GB |
        | KV cache | 22.0 GB | 11.0 GB |
        | Peak resident | 42.5 GB | 31.6 GB |
        """))
    assert [r.title for r in recs] == ["Before", "After"]
    assert [r.metrics["kv_cache"].value for r in recs] == [22.0, 11.0]
    assert [r.metrics["peak_resident"].value for r in recs] == [42.5, 31.6]


def test_k59_kpi_rows_of_one_unit_with_bold_header(tmp_path):
    f, recs = drafts(tmp_path, "k59-kpi-gb.md", dedent("""\
        # Llama-3.2-3B container on a Jetson AGX Orin, 2026-10-05

        Served with vLLM 0.8.4 in both images, same model and flags.

        | **KPI** | stock image | slim image |
        |------|------|------|
        | Resident set | 3.1 GB | 2.7 GB |
        | Swap in use | 0.4 GB | 0.0 GB |
        """))
    assert [r.title for r in recs] == ["stock image", "slim image"]
    assert [len(r.metrics) for r in recs] == [2, 2]


def test_k59_measurement_value_table_is_one_run(tmp_path):
    f, recs = drafts(tmp_path, "k59-measurement.md", dedent("""\
        # gemma-2-9b on RX 7900 XTX, ROCm 6.3, 2026-07-02

        ## Run with flash attention on

        | Measurement | Value |
        |---|---|
        | Prompt processing | 1210 tok/s |
        | Token generation | 48.3 tok/s |
        | Peak VRAM | 19.8 GB |
        """))
    assert len(recs) == 1
    assert recs[0].metrics["input_throughput"].value == 1210.0
    assert value(recs[0]) == 48.3


def test_k59_kpi_header_with_three_configurations(tmp_path):
    f, recs = drafts(tmp_path, "k59-kpi.md", dedent("""\
        # Llama-3.1-8B on H100 — engine comparison, 2026-08-14

        | KPI | vLLM 0.9 | SGLang 0.4 | TensorRT-LLM 0.19 |
        |------|------|------|------|
        | Output throughput | 2310 tok/s | 2475 tok/s | 2690 tok/s |
        | Total throughput | 4620 tok/s | 4950 tok/s | 5380 tok/s |
        """))
    assert [r.title for r in recs] == ["vLLM 0.9", "SGLang 0.4", "TensorRT-LLM 0.19"]
    assert [value(r) for r in recs] == [2310.0, 2475.0, 2690.0]


def test_k59_counter_a_model_column_keeps_rows_as_runs(tmp_path):
    f, recs = drafts(tmp_path, "k59-rows.md", dedent("""\
        # Small models on a Jetson Orin, 2026-05-09

        | Model | Prompt | Generation |
        |---|---|---|
        | qwen2.5:1.5b | 410 tok/s | 31.2 tok/s |
        | llama3.2:3b | 265 tok/s | 18.4 tok/s |
        | phi3:mini | 220 tok/s | 15.9 tok/s |
        """))
    assert len(recs) == 3
    assert sorted(value(r) for r in recs) == [15.9, 18.4, 31.2]


def test_k60_a_spread_row_is_not_the_arms_figure(tmp_path):
    f, recs = drafts(tmp_path, "k60-sigma.md", dedent("""\
        # Transformer vs hybrid on one A10G, 2026-09-03

        | Metric | dense-8b | hybrid-9b |
        |---|---|---|
        | Decode rate (σ) | 0.6 tok/s | 0.2 tok/s |
        | Decode rate | 44 tok/s | 31 tok/s |
        | Decode jitter | 1.1 tok/s | 0.4 tok/s |
        """))
    assert [r.title for r in recs] == ["dense-8b", "hybrid-9b"]
    assert [value(r) for r in recs] == [44.0, 31.0]
