"""Blind tests, kinds k35..k40 (expected values decided from the inputs before running kb).

k35 a program's summary pasted into a Markdown notebook without a code fence: a paragraph of ``name: value``
lines under each heading is one run; with min/max lines beside the mean, the mean is the headline.
k36 a results table whose columns are the points of one swept setting (``c=1 | c=4 | c=16``): one attempt per
row, headline the value at the largest swept point; rows of different models are each their own baseline
unless one row is called the reference.
k37 a table whose number columns are devices: each cell is a run; the rows of each column are compared with
that column's first row (or its reference row), cells of different devices are not compared.
k38 console captures of a tool that takes the model as a positional argument (``ollama run MODEL``,
``vllm serve MODEL``, ``llama-cli -m FILE``): runs of different models are each a baseline; two runs of the
same model with one flag changed are compared.
k39 a script looping over models, a header per pass (``model_name = X``, ``Model: X``), per-prompt rates and an
average: one attempt per model, headline the pass's average, each model its own baseline.
k40 code blocks that are configuration or source (yaml, toml, python, dockerfile) holding numbers with units
give no attempt; a real output block in the same document still is one.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, has, headlines, one, outcomes, value

# =============================================================================================
# k35: a `name: value` summary pasted without a code fence, one run per heading
# =============================================================================================


def test_k35_plain_summary_paragraphs_per_heading(tmp_path):
    f, recs = drafts(tmp_path, "k35-scheduler-notes.md", dedent("""\
        # Qwen2.5-7B decode, L40S — scheduler steps, 2026-03-10

        Each run: `python bench_client.py --model Qwen/Qwen2.5-7B-Instruct --requests 100 --max-tokens 256`
        against a fresh `vllm serve`; the client prints its summary, pasted as-is below.

        ## Default scheduler (baseline)

        Requests: 100
        Failed: 0
        Mean TTFT: 0.42 s
        Output tokens per second: 88.1

        ## --num-scheduler-steps 8

        Requests: 100
        Failed: 0
        Mean TTFT: 0.47 s
        Output tokens per second: 97.6

        ## --num-scheduler-steps 16

        Requests: 100
        Failed: 0
        Mean TTFT: 0.55 s
        Output tokens per second: 89.0
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {88.1: "baseline", 97.6: "improved", 89.0: "neutral"}
    assert has(one(recs, 88.1), 0.42, "s")
    assert has(one(recs, 97.6), 0.47, "s")


def test_k35_chinese_summary_lines(tmp_path):
    f, recs = drafts(tmp_path, "k35-推理记录.md", dedent("""\
        # Qwen2.5-14B-AWQ 推理测试记录（RTX 4090）

        每次都用 `python bench.py --model Qwen/Qwen2.5-14B-Instruct-AWQ --num-requests 50`，下面是脚本打印的汇总。

        ## 基线：默认参数

        请求数: 50
        首字延迟: 0.38秒
        平均每秒输出token数: 61.2

        ## 开启 CUDA Graph（去掉 --enforce-eager）

        请求数: 50
        首字延迟: 0.36秒
        平均每秒输出token数: 70.4

        ## 再加上 --enable-prefix-caching

        请求数: 50
        首字延迟: 0.37秒
        平均每秒输出token数: 60.1
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {61.2: "baseline", 70.4: "improved", 60.1: "neutral"}


@pytest.mark.xfail(strict=True, reason='kb gives no drafts at all for **bold-label** `Min/Mean/Max tokens/s:` paragraphs under headings: got 0')
def test_k35_min_mean_max_lines_mean_is_headline(tmp_path):
    f, recs = drafts(tmp_path, "k35-quant.md", dedent("""\
        # Llama-3.1-8B weight formats on an A10G — 2026-03-11

        `python gen_bench.py --prompts prompts.jsonl --max-new-tokens 200`, 20 prompts, one at a time.

        ### fp16 (reference)

        **Prompts:** 20
        **Min tokens/s:** 41.0
        **Mean tokens/s:** 52.3
        **Max tokens/s:** 60.8

        ### int8 (bitsandbytes)

        **Prompts:** 20
        **Min tokens/s:** 50.2
        **Mean tokens/s:** 58.9
        **Max tokens/s:** 63.0

        ### int4 (bitsandbytes nf4)

        **Prompts:** 20
        **Min tokens/s:** 44.7
        **Mean tokens/s:** 51.5
        **Max tokens/s:** 57.1
        """))
    assert len(recs) == 3
    assert headlines(recs) == [51.5, 52.3, 58.9]
    assert outcomes(recs) == {52.3: "baseline", 58.9: "improved", 51.5: "neutral"}


@pytest.mark.xfail(strict=True, reason='kb misses `出力トークン/秒: 45.2 ± 1.5` (keeps only ttft 0.51/0.33/0.30 s), so no output_throughput headline; outcomes by ttft: baseline, improved, improved')
def test_k35_japanese_summary_with_spread(tmp_path):
    f, recs = drafts(tmp_path, "k35-量子化比較.md", dedent("""\
        # Llama-3.1-8B 量子化比較（RTX 3090）

        ベンチマークスクリプト `bench.py` の最後に出る集計をそのまま貼る（5回の平均 ± 標準偏差）。

        ## ベースライン（FP16）

        リクエスト数: 64
        平均 TTFT: 0.51 秒
        出力トークン/秒: 45.2 ± 1.5

        ## AWQ 4bit

        リクエスト数: 64
        平均 TTFT: 0.33 秒
        出力トークン/秒: 46.4 ± 1.4

        ## GPTQ 4bit + Marlin カーネル

        リクエスト数: 64
        平均 TTFT: 0.30 秒
        出力トークン/秒: 63.8 ± 2.1
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {45.2: "baseline", 46.4: "neutral", 63.8: "improved"}


# =============================================================================================
# k36: columns are the points of one swept setting; one attempt per row, headline at the largest point
# =============================================================================================


def test_k36_concurrency_columns_rows_are_models(tmp_path):
    f, recs = drafts(tmp_path, "k36-models.md", dedent("""\
        # Concurrency sweep, vLLM 0.8.4, one H100 80GB

        Output throughput (tok/s) from `vllm bench serve --max-concurrency c --random-input-len 1024
        --random-output-len 256`, one sweep per model.

        | model | c=1 | c=4 | c=16 |
        |---|---:|---:|---:|
        | Llama-3.1-8B-Instruct | 142.1 | 520.4 | 1710.3 |
        | Qwen2.5-7B-Instruct | 150.8 | 548.9 | 1822.6 |
        | Mistral-7B-Instruct-v0.3 | 139.5 | 501.2 | 1650.0 |
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1710.3: "baseline", 1822.6: "baseline", 1650.0: "baseline"}


@pytest.mark.xfail(strict=True, reason='kb marks `+ fp8 kv cache` regressed though its bs=32 headline 1090.1 is -1.1 % of the reference 1102.4 (within 2 %): got {1102.4: baseline, 1180.9: improved, 1090.1: regressed}')
def test_k36_batch_columns_rows_are_builds_first_is_reference(tmp_path):
    f, recs = drafts(tmp_path, "k36-builds.md", dedent("""\
        ## Qwen2.5-7B offline decode, A100 40GB — batch sweep per build

        `python benchmarks/benchmark_throughput.py --model Qwen/Qwen2.5-7B-Instruct --batch-size N`,
        output tok/s.

        | build | bs=1 | bs=8 | bs=32 |
        |---|---|---|---|
        | main @ 3f2a1c (reference) | 48.2 | 351.0 | 1102.4 |
        | + fused rmsnorm | 49.0 | 360.7 | 1180.9 |
        | + fp8 kv cache | 47.5 | 340.2 | 1090.1 |
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1102.4: "baseline", 1180.9: "improved", 1090.1: "neutral"}


@pytest.mark.xfail(strict=True, reason='kb ignores the `(Referenz)` row and takes the first row as baseline, and marks 1150.2 improved: got {1290.0: baseline, 1150.2: improved, 1201.7: regressed}')
def test_k36_german_reference_row_last(tmp_path):
    f, recs = drafts(tmp_path, "k36-batchgroesse.md", dedent("""\
        # Durchsatz nach Batchgröße — Llama-3.1-8B, RTX 4090

        Ausgabe-Durchsatz in tok/s, je Variante ein Lauf von `python bench_offline.py --batch-size N`.

        | Variante | bs=1 | bs=8 | bs=32 |
        | :-- | --: | --: | --: |
        | torch.compile | 61.0 | 402.5 | 1290.0 |
        | CUDA Graphs | 63.2 | 415.8 | 1150.2 |
        | Eager (Referenz) | 55.4 | 371.0 | 1201.7 |
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1201.7: "baseline", 1290.0: "improved", 1150.2: "regressed"}


def test_k36_model_and_build_columns_mixed_rows(tmp_path):
    f, recs = drafts(tmp_path, "k36-patch.md", dedent("""\
        # Scheduler patch, SGLang, H200 — 2026-03-12

        `python -m sglang.bench_serving --max-concurrency c --num-prompts 400`, output tok/s.

        | model | build | c=1 | c=8 | c=32 |
        |---|---|---:|---:|---:|
        | Llama-3.1-8B-Instruct | stock | 160.2 | 1010.5 | 2100.0 |
        | Llama-3.1-8B-Instruct | patched | 161.0 | 1055.3 | 2290.4 |
        | Qwen2.5-7B-Instruct | stock | 171.4 | 1040.8 | 1980.6 |
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {2100.0: "baseline", 2290.4: "improved", 1980.6: "baseline"}


# =============================================================================================
# k37: number columns are devices; each column compared with its own first (or reference) row
# =============================================================================================


def test_k37_kernel_rows_device_columns(tmp_path):
    f, recs = drafts(tmp_path, "k37-kernels.md", dedent("""\
        # Decode attention kernels across GPUs — Llama-3.1-8B, bs=16, ctx 4096

        Output tok/s from `python bench_decode.py --kernel K`, run once on each machine.

        | kernel | RTX 4090 | H100 | MI300X |
        |---|---:|---:|---:|
        | naive (baseline) | 95.0 | 180.0 | 150.0 |
        | flash-decoding | 110.4 | 182.1 | 171.9 |
        | split-k | 93.5 | 210.6 | 140.3 |
        """))
    assert len(recs) == 9
    assert outcomes(recs) == {
        95.0: "baseline", 110.4: "improved", 93.5: "neutral",
        180.0: "baseline", 182.1: "neutral", 210.6: "improved",
        150.0: "baseline", 171.9: "improved", 140.3: "regressed",
    }


def test_k37_chinese_reference_row_in_middle(tmp_path):
    f, recs = drafts(tmp_path, "k37-算子.md", dedent("""\
        # MoE GEMM 算子对比（Qwen3-30B-A3B，解码，batch 64）

        每个单元格是在对应显卡上跑一次 `python bench_moe.py --impl X` 得到的输出吞吐。

        | 算子 | A100 | L40S |
        |---|---:|---:|
        | Triton 实现 | 1450 tok/s | 980 tok/s |
        | CUTLASS（参考） | 1400 tok/s | 1010 tok/s |
        | 手写 CUDA | 1520 tok/s | 995 tok/s |
        """))
    assert len(recs) == 6
    assert outcomes(recs) == {
        1400: "baseline", 1450: "improved", 1520: "improved",
        1010: "baseline", 980: "regressed", 995: "neutral",
    }


def test_k37_llamacpp_quant_rows_gpu_columns(tmp_path):
    f, recs = drafts(tmp_path, "k37-quants.md", dedent("""\
        # llama.cpp tg128 by quant and GPU (Llama-3.1-8B-Instruct)

        `./llama-bench -m llama-3.1-8b-instruct-QUANT.gguf -ngl 99 -p 0 -n 128` on each box; t/s.

        | quant | RTX 3090 | RTX 4090 | RTX A6000 |
        | --- | --- | --- | --- |
        | F16 | 52.1 | 68.4 | 47.0 |
        | Q8_0 | 88.6 | 112.3 | 79.9 |
        | Q4_K_M | 125.0 | 158.7 | 47.5 |
        """))
    assert len(recs) == 9
    assert outcomes(recs) == {
        52.1: "baseline", 88.6: "improved", 125.0: "improved",
        68.4: "baseline", 112.3: "improved", 158.7: "improved",
        47.0: "baseline", 79.9: "improved", 47.5: "neutral",
    }


# =============================================================================================
# k38: a tool taking the model as a positional argument; different models are each a baseline
# =============================================================================================


def test_k38_ollama_run_verbose_three_models(tmp_path):
    f, recs = drafts(tmp_path, "ollama-console.txt", dedent("""\
        $ ollama run llama3.1:8b --verbose "Explain KV caching in one paragraph."
        KV caching stores the key and value tensors computed for earlier tokens so that each new
        token only needs attention over cached entries instead of recomputing the whole prefix.

        total duration:       6.912187s
        load duration:        21.302ms
        prompt eval count:    18 token(s)
        prompt eval duration: 41ms
        prompt eval rate:     439.02 tokens/s
        eval count:           402 token(s)
        eval duration:        6.81s
        eval rate:            59.03 tokens/s
        $ ollama run qwen2.5:7b --verbose "Explain KV caching in one paragraph."
        In transformer inference, a KV cache keeps the attention keys and values of past tokens.

        total duration:       5.400912s
        load duration:        2.118s
        prompt eval count:    20 token(s)
        prompt eval duration: 48ms
        prompt eval rate:     416.67 tokens/s
        eval count:           200 token(s)
        eval duration:        3.2s
        eval rate:            62.50 tokens/s
        $ ollama run mistral:7b --verbose "Explain KV caching in one paragraph."
        The KV cache avoids recomputation of attention keys and values for the prompt.

        total duration:       4.873301s
        load duration:        1.902s
        prompt eval count:    16 token(s)
        prompt eval duration: 39ms
        prompt eval rate:     410.26 tokens/s
        eval count:           188 token(s)
        eval duration:        2.932s
        eval rate:            64.11 tokens/s
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {59.03: "baseline", 62.50: "baseline", 64.11: "baseline"}
    assert has(one(recs, 59.03), 439.02, "tok/s", "input_throughput")


@pytest.mark.xfail(strict=True, reason='kb takes llama_perf `load time` (1820.55/1795.02/1650.77 ms latency) as the headline and misses `eval time ... 124.34 tokens per second`: no output_throughput in any draft')
def test_k38_llama_cli_same_model_flag_changed(tmp_path):
    f, recs = drafts(tmp_path, "llama-cli.log", dedent("""\
        $ ./llama-cli -m models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -p "Write a haiku about GPUs" -n 128 -ngl 99 -no-cnv
        Silicon rivers / a thousand cores hum at once / warm fans exhale light

        llama_perf_sampler_print:    sampling time =      12.10 ms /   139 runs   (    0.09 ms per token, 11487.60 tokens per second)
        llama_perf_context_print:        load time =    1820.55 ms
        llama_perf_context_print: prompt eval time =      35.20 ms /    11 tokens (    3.20 ms per token,   312.50 tokens per second)
        llama_perf_context_print:        eval time =    1021.40 ms /   127 runs   (    8.04 ms per token,   124.34 tokens per second)
        llama_perf_context_print:       total time =    1090.88 ms /   138 tokens
        $ ./llama-cli -m models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -p "Write a haiku about GPUs" -n 128 -ngl 99 -no-cnv -fa
        Parallel lanes glow / matrices fold into words / the cache remembers

        llama_perf_sampler_print:    sampling time =      11.85 ms /   139 runs   (    0.09 ms per token, 11729.96 tokens per second)
        llama_perf_context_print:        load time =    1795.02 ms
        llama_perf_context_print: prompt eval time =      33.90 ms /    11 tokens (    3.08 ms per token,   324.48 tokens per second)
        llama_perf_context_print:        eval time =     962.85 ms /   127 runs   (    7.58 ms per token,   131.90 tokens per second)
        llama_perf_context_print:       total time =    1030.40 ms /   138 tokens
        $ ./llama-cli -m models/Qwen2.5-7B-Instruct-Q4_K_M.gguf -p "Write a haiku about GPUs" -n 128 -ngl 99 -no-cnv
        Tensors in the dark / each warp a small lantern lit / answers rise like steam

        llama_perf_sampler_print:    sampling time =      13.02 ms /   140 runs   (    0.09 ms per token, 10752.69 tokens per second)
        llama_perf_context_print:        load time =    1650.77 ms
        llama_perf_context_print: prompt eval time =      36.10 ms /    12 tokens (    3.01 ms per token,   332.41 tokens per second)
        llama_perf_context_print:        eval time =    1074.45 ms /   127 runs   (    8.46 ms per token,   118.20 tokens per second)
        llama_perf_context_print:       total time =    1140.33 ms /   139 tokens
        """))
    assert len(recs) == 3
    assert headlines(recs) == [118.20, 124.34, 131.90]
    assert outcomes(recs) == {124.34: "baseline", 131.90: "improved", 118.20: "baseline"}


def test_k38_vllm_serve_positional_then_bench_without_model(tmp_path):
    f, recs = drafts(tmp_path, "k38-serve.md", dedent("""\
        # Chunked prefill on/off, then Qwen for comparison — one H100, 2026-03-13

        The bench client asks the server for its model, so the model is only on the `vllm serve` line.

        ## Llama-3.1-8B, defaults

        ```console
        $ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 &
        $ vllm bench serve --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 200 --max-concurrency 16
        ============ Serving Benchmark Result ============
        Successful requests:                     200
        Benchmark duration (s):                  28.12
        Output token throughput (tok/s):         1820.4
        Mean TTFT (ms):                          61.30
        ==================================================
        ```

        ## Llama-3.1-8B, chunked prefill off

        ```console
        $ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --no-enable-chunked-prefill &
        $ vllm bench serve --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 200 --max-concurrency 16
        ============ Serving Benchmark Result ============
        Successful requests:                     200
        Benchmark duration (s):                  29.17
        Output token throughput (tok/s):         1755.0
        Mean TTFT (ms):                          55.80
        ==================================================
        ```

        ## Qwen2.5-7B, defaults

        ```console
        $ vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 &
        $ vllm bench serve --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 200 --max-concurrency 16
        ============ Serving Benchmark Result ============
        Successful requests:                     200
        Benchmark duration (s):                  26.92
        Output token throughput (tok/s):         1901.7
        Mean TTFT (ms):                          58.90
        ==================================================
        ```
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1820.4: "baseline", 1755.0: "regressed", 1901.7: "baseline"}


# =============================================================================================
# k39: a script looping over models, header per pass; one attempt per model, headline its average
# =============================================================================================


def test_k39_model_name_equals_header_per_pass(tmp_path):
    f, recs = drafts(tmp_path, "bench_models.out", dedent("""\
        $ python bench_models.py --max-new-tokens 256
        model_name = meta-llama/Llama-3.2-1B-Instruct
        prompt 1: 212.4 tok/s
        prompt 2: 208.9 tok/s
        prompt 3: 216.2 tok/s
        average: 212.5 tok/s
        model_name = Qwen/Qwen2.5-1.5B-Instruct
        prompt 1: 181.0 tok/s
        prompt 2: 176.5 tok/s
        prompt 3: 183.9 tok/s
        average: 180.5 tok/s
        model_name = google/gemma-2-2b-it
        prompt 1: 140.2 tok/s
        prompt 2: 137.8 tok/s
        prompt 3: 143.3 tok/s
        average: 140.4 tok/s
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {212.5: "baseline", 180.5: "baseline", 140.4: "baseline"}


def test_k39_model_colon_header_in_notebook_fence(tmp_path):
    f, recs = drafts(tmp_path, "k39-sweep.md", dedent("""\
        # Small-model decode speed on a Jetson AGX Orin — 2026-03-14

        `python run_all.py` loops over the models in `models.txt`, four prompts each:

        ```text
        ==============================
        Model: TinyLlama/TinyLlama-1.1B-Chat-v1.0
        ==============================
        [1/4] "Summarise this paragraph"   -> 45.3 tokens/s
        [2/4] "Translate to French"        -> 44.1 tokens/s
        [3/4] "Write a limerick"           -> 46.0 tokens/s
        [4/4] "List five prime numbers"    -> 43.8 tokens/s
        Average: 44.8 tokens/s
        ==============================
        Model: microsoft/Phi-3-mini-4k-instruct
        ==============================
        [1/4] "Summarise this paragraph"   -> 21.7 tokens/s
        [2/4] "Translate to French"        -> 20.9 tokens/s
        [3/4] "Write a limerick"           -> 22.4 tokens/s
        [4/4] "List five prime numbers"    -> 21.0 tokens/s
        Average: 21.5 tokens/s
        ```

        Phi-3 is about half as fast, as expected for 3.8B vs 1.1B parameters.
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {44.8: "baseline", 21.5: "baseline"}


def test_k39_spanish_output_modelo_media(tmp_path):
    f, recs = drafts(tmp_path, "salida.txt", dedent("""\
        $ python medir.py --modelos modelos.txt --gpu 0
        Cargando modelos en cuda:0 (NVIDIA RTX 4070)
        Modelo: Qwen/Qwen2.5-3B-Instruct
          prompt 1 -> 74.2 tok/s
          prompt 2 -> 71.6 tok/s
          prompt 3 -> 73.3 tok/s
          prompt 4 -> 72.5 tok/s
          media: 72.9 tok/s
        Modelo: meta-llama/Llama-3.2-3B-Instruct
          prompt 1 -> 69.8 tok/s
          prompt 2 -> 67.1 tok/s
          prompt 3 -> 70.4 tok/s
          prompt 4 -> 68.3 tok/s
          media: 68.9 tok/s
        Modelo: HuggingFaceTB/SmolLM2-1.7B-Instruct
          prompt 1 -> 118.5 tok/s
          prompt 2 -> 115.2 tok/s
          prompt 3 -> 120.1 tok/s
          prompt 4 -> 116.6 tok/s
          media: 117.6 tok/s
        Listo.
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {72.9: "baseline", 68.9: "baseline", 117.6: "baseline"}


# =============================================================================================
# k40: configuration / source code blocks give no attempt; a real output block still does
# =============================================================================================


def test_k40_yaml_config_then_bench_output(tmp_path):
    f, recs = drafts(tmp_path, "k40-config.md", dedent("""\
        # Serving config for Llama-3.1-70B on 4x H100 — 2026-03-15

        The server reads this file (`vllm serve --config serve.yaml`):

        ```yaml
        model: meta-llama/Llama-3.1-70B-Instruct
        tensor-parallel-size: 4
        gpu-memory-utilization: 0.92
        max-num-seqs: 256
        max-num-batched-tokens: 8192
        # SLO we are aiming for: 2500 tok/s output at 64 concurrent, TTFT p99 < 800 ms
        ```

        Then the benchmark:

        ```
        $ vllm bench serve --model meta-llama/Llama-3.1-70B-Instruct --max-concurrency 64 --num-prompts 640
        ============ Serving Benchmark Result ============
        Successful requests:                     640
        Benchmark duration (s):                  70.62
        Output token throughput (tok/s):         2318.6
        Mean TTFT (ms):                          402.70
        P99 TTFT (ms):                           951.20
        ==================================================
        ```
        """))
    assert len(recs) == 1
    assert value(recs[0]) == 2318.6
    assert not [r for r in recs if value(r) == 2500]


def test_k40_toml_and_python_only_no_drafts(tmp_path):
    f, recs = drafts(tmp_path, "k40-harness.md", dedent("""\
        # Load-test harness design

        Targets live in `slo.toml`:

        ```toml
        [slo]
        min_output_tps = 1500.0   # tok/s, aggregate
        ttft_p99_ms = 300
        max_gpu_mem = "70 GiB"

        [workload]
        input_len = 1024
        output_len = 256
        concurrency = 32
        ```

        And the check the harness will run after each benchmark:

        ```python
        TARGET_TPS = 1200.0  # tok/s per replica
        WARN_TTFT = 0.25     # s

        def check(result):
            tps = result["output_throughput"]
            print(f"output throughput: {tps:.1f} tok/s (target {TARGET_TPS} tok/s)")
            return tps >= TARGET_TPS
        ```

        Nothing has been run yet; first runs next week once the H100 nodes are free.
        """))
    assert len(recs) == 0


@pytest.mark.xfail(strict=True, reason='kb keeps only request_throughput 5.59 req/s from `Throughput: 5.59 requests/s, 4293.12 total tokens/s, 1431.04 output tokens/s` (no output_throughput)')
def test_k40_dockerfile_then_offline_throughput_output(tmp_path):
    f, recs = drafts(tmp_path, "k40-docker.md", dedent("""\
        ## Containerised offline benchmark (Mistral-7B, one L4)

        ```dockerfile
        FROM vllm/vllm-openai:v0.8.4
        ENV VLLM_GPU_MEMORY_UTILIZATION=0.90
        ENV EXPECTED_TPS="900 tok/s"
        COPY benchmark_throughput.py /app/
        CMD ["python", "/app/benchmark_throughput.py", "--model", "mistralai/Mistral-7B-Instruct-v0.3", "--input-len", "512", "--output-len", "256", "--num-prompts", "500"]
        ```

        ```console
        $ docker build -t mistral-bench . && docker run --gpus all mistral-bench
        INFO 03-16 08:41:10 [llm_engine.py:432] init engine took 41.2 seconds
        Processed prompts: 100%|██████████| 500/500 [01:29<00:00,  5.59it/s]
        Throughput: 5.59 requests/s, 4293.12 total tokens/s, 1431.04 output tokens/s
        ```
        """))
    assert len(recs) == 1
    assert value(recs[0]) == 1431.04


def test_k40_chinese_python_source_then_output(tmp_path):
    f, recs = drafts(tmp_path, "k40-脚本.md", dedent("""\
        # 解码速度测试脚本（Qwen2.5-7B，RTX 4090）

        脚本核心部分：

        ```python
        import time
        from vllm import LLM, SamplingParams

        EXPECTED = 90.0  # tok/s，上次测到的大概水平
        llm = LLM("Qwen/Qwen2.5-7B-Instruct", gpu_memory_utilization=0.85, max_model_len=4096)
        t0 = time.perf_counter()
        out = llm.generate(["你好"] * 8, SamplingParams(max_tokens=512))
        tps = sum(len(o.outputs[0].token_ids) for o in out) / (time.perf_counter() - t0)
        print(f"输出吞吐: {tps:.1f} tok/s")
        ```

        运行结果：

        ```
        $ python speed.py
        输出吞吐: 84.7 tok/s
        ```
        """))
    assert len(recs) == 1
    assert value(recs[0]) == 84.7
    assert not [r for r in recs if value(r) == 90.0]
