"""Variants of our own (written with the fix), kinds k55 and k56.

k55 two ``| Metric | Value |`` tables of two runs under their own headings (a first run, then a
retest with other settings) are two attempts, not one: a table with one value column is one run, no
arm of a comparison that later tables of the same name restate.
k56 in such a table, ``Tokens per second`` beside ``Output tokens per second`` is the total
throughput, and the output figure is the run's output throughput.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, headlines, outcomes, value


def test_k55_two_metric_value_tables_are_two_runs(tmp_path):
    f, recs = drafts(tmp_path, "k55-retest.md", dedent("""\
        # vLLM 0.11 on one L4 — Qwen3-8B, first run and retest

        ## First run (2026-03-02)

        | Metric | Value |
        |---|---|
        | Requests | 16 |
        | **Output tokens per second** | **21.4 tok/s** |
        | Average latency | 9.1 seconds |

        ## Retest with `--max-num-seqs 4` (2026-03-03)

        | Metric | Value |
        |---|---|
        | Requests | 16 |
        | **Output tokens per second** | **34.0 tok/s** |
        | Average latency | 6.2 seconds |
        """))
    assert len(recs) == 2
    assert headlines(recs) == [21.4, 34.0]
    assert outcomes(recs) == {21.4: "baseline", 34.0: "improved"}
    assert sorted(str(r.date) for r in recs) == ["2026-03-02", "2026-03-03"]


def test_k56_tokens_per_second_beside_output_tokens_is_total(tmp_path):
    f, recs = drafts(tmp_path, "k56-total.md", dedent("""\
        # SGLang 0.5 on two MI300X — Llama-3.1-70B, 2026-05-11

        | Metric | Value |
        |---|---|
        | Tokens per second | 1,912.5 tok/s |
        | Output tokens per second | 801.2 tok/s |
        | Requests per second | 3.1 req/s |
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == 801.2
    assert value(rec, "total_throughput") == 1912.5


def test_k56_counter_a_comparison_table_keeps_its_arms(tmp_path):
    f, recs = drafts(tmp_path, "k56-arms.md", dedent("""\
        # TensorRT-LLM vs vLLM on one H100 — Mistral-7B, 2026-05-12

        | Metric | TensorRT-LLM | vLLM |
        |---|---|---|
        | Output tokens per second | 3,410.0 tok/s | 2,980.5 tok/s |
        | Mean TTFT | 41 ms | 55 ms |
        """))
    assert len(recs) == 2
    assert headlines(recs) == [2980.5, 3410.0]
