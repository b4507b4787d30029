"""Variants of our own (written with the fix), kinds k63 and k64.

k63 a table whose first column is headed as the measures (``Metric``, ``Measurement``, ``KPI``,
``Statistic``) is read column by column even when every row holds the same unit: each other column
is one configuration, each row one of its figures. A first column headed otherwise (``Model``,
``Run``) keeps its rows as the runs.
k64 a row or column that gives the spread of a figure (``σ``, ``variance``, ``jitter``) is not a
figure of the run: ``| TPS consistency (σ) | 0.5 tok/s |`` is not the arm's throughput.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, outcomes, value


def test_k63_metric_rows_in_one_unit_are_read_by_column(tmp_path):
    f, recs = drafts(tmp_path, "k63-metric.md", dedent("""\
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


def test_k63_metric_rows_all_in_gb_are_two_configurations(tmp_path):
    f, recs = drafts(tmp_path, "k63-gb.md", dedent("""\
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


def test_k63_kpi_rows_of_one_unit_with_bold_header(tmp_path):
    f, recs = drafts(tmp_path, "k63-kpi-gb.md", dedent("""\
        # Llama-3.2-3B container on a Jetson AGX Orin, 2026-10-05

        Served with vLLM 0.8.4 in both images, same model and flags.

        | **KPI** | stock image | slim image |
        |------|------|------|
        | Resident set | 3.1 GB | 2.7 GB |
        | Swap in use | 0.4 GB | 0.0 GB |
        """))
    assert [r.title for r in recs] == ["stock image", "slim image"]
    assert [len(r.metrics) for r in recs] == [2, 2]


def test_k63_measurement_value_table_is_one_run(tmp_path):
    f, recs = drafts(tmp_path, "k63-measurement.md", dedent("""\
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


def test_k63_kpi_header_with_three_configurations(tmp_path):
    f, recs = drafts(tmp_path, "k63-kpi.md", dedent("""\
        # Llama-3.1-8B on H100 — engine comparison, 2026-08-14

        | KPI | vLLM 0.9 | SGLang 0.4 | TensorRT-LLM 0.19 |
        |------|------|------|------|
        | Output throughput | 2310 tok/s | 2475 tok/s | 2690 tok/s |
        | Total throughput | 4620 tok/s | 4950 tok/s | 5380 tok/s |
        """))
    assert [r.title for r in recs] == ["vLLM 0.9", "SGLang 0.4", "TensorRT-LLM 0.19"]
    assert [value(r) for r in recs] == [2310.0, 2475.0, 2690.0]


def test_k63_counter_a_model_column_keeps_rows_as_runs(tmp_path):
    f, recs = drafts(tmp_path, "k63-rows.md", dedent("""\
        # Small models on a Jetson Orin, 2026-05-09

        | Model | Prompt | Generation |
        |---|---|---|
        | qwen2.5:1.5b | 410 tok/s | 31.2 tok/s |
        | llama3.2:3b | 265 tok/s | 18.4 tok/s |
        | phi3:mini | 220 tok/s | 15.9 tok/s |
        """))
    assert len(recs) == 3
    assert sorted(value(r) for r in recs) == [15.9, 18.4, 31.2]


def test_k64_a_spread_row_is_not_the_arms_figure(tmp_path):
    f, recs = drafts(tmp_path, "k64-sigma.md", dedent("""\
        # Transformer vs hybrid on one A10G, 2026-09-03

        | Metric | dense-8b | hybrid-9b |
        |---|---|---|
        | Decode rate (σ) | 0.6 tok/s | 0.2 tok/s |
        | Decode rate | 44 tok/s | 31 tok/s |
        | Decode jitter | 1.1 tok/s | 0.4 tok/s |
        """))
    assert [r.title for r in recs] == ["dense-8b", "hybrid-9b"]
    assert [value(r) for r in recs] == [44.0, 31.0]


# k65: a script's saved output that loops over arms, each pass opened by a banner naming it


def test_k65_banners_open_the_passes_and_name_them(tmp_path):
    f, recs = drafts(tmp_path, "k65-arms.txt", dedent("""\
        ##### tp2-graphs | cfg=graphs.yaml #####
          CUDA_VISIBLE_DEVICES   0,1
          max-num-seqs           64
        result tp2-graphs: done=16 failed=0 out_tok_s=611.4 dur=41.8s
        ##### tp2-eager | cfg=eager.yaml #####
          CUDA_VISIBLE_DEVICES   0,1
          max-num-seqs           64
        result tp2-eager: done=16 failed=0 out_tok_s=402.9 dur=63.5s
        ##### default | cfg=stock.yaml #####
          CUDA_VISIBLE_DEVICES   0,1
          max-num-seqs           32
        result default: done=16 failed=0 out_tok_s=540.0 dur=47.3s
        """))
    assert [r.title for r in recs] == ["tp2-graphs | cfg=graphs.yaml", "tp2-eager | cfg=eager.yaml",
                                       "default | cfg=stock.yaml"]
    assert [value(r) for r in recs] == [611.4, 402.9, 540.0]
    assert outcomes(recs) == {611.4: "improved", 402.9: "regressed", 540.0: "baseline"}  # the arm called default


def test_k65_a_pass_that_served_nothing_failed_and_a_closing_summary_is_no_run(tmp_path):
    f, recs = drafts(tmp_path, "k65-fail.log", dedent("""\
        --- warmup ---
        reqs_ok=4 tokens_s=88.0
        --- bf16 ---
        MODEL=Llama-3.1-8B-Instruct  KV=auto
        reqs_ok=32 reqs_failed=0 tokens_s=1204.5 req_s=2.35
        --- fp8-kv ---
        MODEL=Llama-3.1-8B-Instruct  KV=fp8
        reqs_ok=0 reqs_failed=32 tokens_s=0.00 req_s=0.00
        --- fp8-weights ---
        MODEL=Llama-3.1-8B-Instruct-FP8  KV=auto
        reqs_ok=32 reqs_failed=0 tokens_s=1519.0 req_s=2.97
        --- summary ---
        arm           tokens/s   req/s
        bf16          1204.5     2.35
        fp8-weights   1519.0     2.97
        """))
    assert [r.title for r in recs] == ["bf16", "fp8-kv", "fp8-weights"]  # no warm-up, no summary
    assert [r.outcome.value for r in recs] == ["baseline", "failed", "improved"]
    assert recs[1].error == "output_throughput 0.00 tok/s: nothing was served"


def test_k65_a_run_line_of_zero_rates_fails_with_kb_words_when_nothing_names_the_failure(tmp_path):
    f, recs = drafts(tmp_path, "k65-zero.txt", dedent("""\
        === A: eager ===
        model=Qwen3-8B tp=1
        RESULT A: done=8 tok_s=141.20 dur=29.0s
        === B: graphs ===
        model=Qwen3-8B tp=1
        RESULT B: done=0 tok_s=0.00 dur=0.01s
        === C: graphs+spec ===
        model=Qwen3-8B tp=1
        RESULT C: done=8 tok_s=188.70 dur=21.7s
        """))
    assert [r.outcome.value for r in recs] == ["baseline", "failed", "improved"]
    assert recs[1].error == "output_throughput 0.00 tok/s: nothing was served"


def test_k65_passes_of_one_pattern_keep_their_own_banner(tmp_path):
    f, recs = drafts(tmp_path, "k65-batch.txt", dedent("""\
        === batch 4 ===
        engine: sglang 0.4.6  model: Qwen2.5-14B
        gen_tok_s=210.7 ttft_ms=88
        === batch 16 ===
        engine: sglang 0.4.6  model: Qwen2.5-14B
        gen_tok_s=655.2 ttft_ms=140
        === batch 64 ===
        engine: sglang 0.4.6  model: Qwen2.5-14B
        gen_tok_s=1490.3 ttft_ms=365
        """))
    assert [value(r) for r in recs] == [210.7, 655.2, 1490.3]
    assert [r.title for r in recs] == ["batch 4", "batch 16", "batch 64"]


def test_k64_a_sigma_row_is_the_noise_of_the_figure_above_it(tmp_path):
    f, recs = drafts(tmp_path, "k64-sigma-noise.md", dedent("""\
        # Qwen2.5-72B-AWQ on two L40S with vLLM, 2026-07-02

        Three runs of 200 prompts each; the σ row is the spread over five repeats.

        | Metric | baseline | prefix caching | chunked prefill |
        |---|---|---|---|
        | Output tok/s | 910 | 1040 | 935 |
        | Output tok/s σ | 30 | 26 | 31 |
        | Median TTFT (ms) | 412 | 380 | 405 |
        """))
    assert [value(r) for r in recs] == [910.0, 1040.0, 935.0]
    # +2.7 % for chunked prefill is more than 2 % but less than its σ of 31 tok/s: within the noise
    assert outcomes(recs) == {910.0: "baseline", 1040.0: "improved", 935.0: "neutral"}


def test_k65_the_exception_line_is_the_error_over_a_logger_line_of_the_same_cause():
    from kb.importers.read import errors

    output = dedent("""\
        INFO 11-08 02:21:30 model_runner.py:1115] Loading model weights took 17.2 GB
        ERROR 11-08 02:21:36 engine.py:389] CUDA out of memory while capturing graphs
        Traceback (most recent call last):
          File "/srv/vllm/worker.py", line 88, in capture
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.12 GiB.
        """)
    assert errors.error_headline(output) == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.12 GiB."
    alone = "(EngineCore pid=12) ERROR 11-08 02:21:36 [core.py:70] CUDA out of memory\n"
    assert errors.error_headline(alone) == "CUDA out of memory"  # no exception line: the logger's, its prefix dropped
