"""Blind tests, kinds k29..k31 (expected values decided from the inputs before running kb).

k29 a list item that names one run, with nested `Name: value unit` sub-items of different measures, is one
attempt (the sub-items are its metrics); a sweep listed as sub-items of one command is one attempt too.
k30 repetitions of one configuration (run1/run2, trial 1/2/3, rep N) are one attempt per configuration,
headline the mean (the printed one when the log prints it); a summary table of means ahead of the
repetitions restates them. k31 a table of variants of one model against its reference row: one attempt
per row, the reference is baseline; a table of different model sizes has no common baseline.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, failed, has, one, outcomes, value


def near(recs, number, name="output_throughput"):
    """The one draft whose ``name`` metric is ``number`` within 0.1 %."""
    found = [r for r in recs if value(r, name) is not None and value(r, name) == pytest.approx(number, rel=1e-3)]
    assert len(found) == 1, [(r.title, value(r, name)) for r in recs]
    return found[0]


# =============================================================================================
# k29: one list item naming a run, its nested sub-items the run's metrics: one attempt
# =============================================================================================


def test_k29_two_runs_under_headings_with_metric_sub_items(tmp_path):
    f, recs = drafts(tmp_path, "k29-prefix-cache-2026-03-16.md", dedent("""\
        # Qwen3-32B-FP8 on 1x H100, vLLM 0.11 — 2026-03-16

        Workload: `vllm bench serve --dataset-name random --random-input-len 2048 --random-output-len 256
        --num-prompts 400 --max-concurrency 16`, shared 1500-token system prompt.

        ## Baseline

        - `vllm serve Qwen/Qwen3-32B-FP8` (default flags)
          - Mean TTFT: 212 ms
          - Mean TPOT: 18.4 ms
          - Output throughput: 812.5 tok/s
          - Total throughput: 2410.3 tok/s

        ## Prefix caching

        - `vllm serve Qwen/Qwen3-32B-FP8 --enable-prefix-caching`
          - Mean TTFT: 140 ms
          - Mean TPOT: 18.1 ms
          - Output throughput: 851.0 tok/s
          - Total throughput: 2523.9 tok/s
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {812.5: "baseline", 851.0: "improved"}
    assert has(one(recs, 812.5), 212, "ms")
    assert has(one(recs, 851.0), 140, "ms")
    assert failed(recs) == []


def test_k29_three_runs_star_bullets_bold_labels_decode_throughput(tmp_path):
    f, recs = drafts(tmp_path, "k29-parallelism.md", dedent("""\
        # Llama-3.1-70B-Instruct, SGLang 0.4, 4x H200 (2026-03-17)

        Same client every time: `python -m sglang.bench_serving --num-prompts 500 --request-rate 8`.

        ### TP4 (reference config)

        * **`tp4-default`**
            * **Decode throughput:** 1,204.6 tok/s
            * **Prefill throughput:** 18,400 tok/s
            * **Median TTFT:** 388 ms
            * **P99 TTFT:** N/A

        ### TP2 x DP2

        * **`tp2-dp2`** (`--tp 2 --dp 2`)
            * **Decode throughput:** 1,391.2 tok/s
            * **Prefill throughput:** 15,950 tok/s
            * **Median TTFT:** 455 ms
            * **P99 TTFT:** N/A

        ### TP4 + torch.compile

        * **`tp4-compile`** (`--tp 4 --enable-torch-compile`)
            * **Decode throughput:** 1,219.0 tok/s
            * **Prefill throughput:** 18,310 tok/s
            * **Median TTFT:** 391 ms
            * **P99 TTFT:** N/A
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1204.6: "baseline", 1391.2: "improved", 1219.0: "neutral"}
    assert has(one(recs, 1391.2), 455, "ms")


def test_k29_german_numbered_items_gen_speed_t_s(tmp_path):
    f, recs = drafts(tmp_path, "k29-llamacpp-fa.md", dedent("""\
        ## Ergebnisse: llama.cpp b4520, Qwen2.5-14B-Instruct Q4_K_M, RTX 4090 (2026-03-18)

        Jeweils ein Lauf von `llama-cli -m qwen2.5-14b-q4_k_m.gguf -n 512 -p "$PROMPT"` pro Einstellung.

        1. Standardeinstellung (default, `-fa off`)
           - Prompt-Verarbeitung: 2850 t/s
           - Gen speed: 71.3 t/s
           - VRAM: 10.2 GB
        2. `-fa on`
           - Prompt-Verarbeitung: 3120 t/s
           - Gen speed: 74.0 t/s
           - VRAM: 9.8 GB
        3. `-fa on -ctk q8_0 -ctv q8_0`
           - Prompt-Verarbeitung: 3090 t/s
           - Gen speed: 69.1 t/s
           - VRAM: 8.9 GB
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {71.3: "baseline", 74.0: "improved", 69.1: "regressed"}
    assert all(r.metrics["output_throughput"].unit == "tok/s" for r in recs)


def test_k29_dash_items_with_spread_and_na_lines(tmp_path):
    f, recs = drafts(tmp_path, "k29-trtllm.md", dedent("""\
        # Mistral-7B-Instruct-v0.3, TensorRT-LLM 0.15, 1x L40S — 2026-03-19

        Each engine benchmarked with `python benchmarks/cpp/prepare_dataset.py ... | gptManagerBenchmark`,
        5 passes; the ± is the stddev over the passes as printed by our wrapper.

        - baseline engine (FP16, `trtllm-build --gemm_plugin auto`)
          - Latency (p50): 14.2 ms/token
          - Output throughput: 490.0 ± 4.0 tok/s
          - Total throughput: N/A
          - TTFT: 61 ms
        - FP8 engine (`--use_fp8_context_fmha enable`, FP8 weights)
          - Latency (p50): 13.8 ms/token
          - Output throughput: 503.0 ± 15.0 tok/s
          - Total throughput: N/A
          - TTFT: 55 ms
        - FP8 + paged KV (`--paged_kv_cache enable --tokens_per_block 64`)
          - Latency (p50): 11.6 ms/token
          - Output throughput: 571.2 ± 6.1 tok/s
          - Total throughput: N/A
          - TTFT: N/A
        """))
    assert len(recs) == 3
    # 503.0 is 2.7 % above 490.0 but inside its own ± 15.0: neutral
    assert outcomes(recs) == {490.0: "baseline", 503.0: "neutral", 571.2: "improved"}
    assert has(one(recs, 490.0), 61, "ms")


def test_k29_sub_items_are_a_batch_size_sweep_of_one_command(tmp_path):
    # One command loops over the batch sizes inside one process: a sweep, so one attempt per command.
    # Its headline is the figure the narration quotes (bs=32).
    f, recs = drafts(tmp_path, "k29-bs-sweep.md", dedent("""\
        # Decode sweep, Qwen2.5-7B-Instruct, 1x A10G, HF transformers 4.47 (2026-03-20)

        One `bench_decode.py --batch-sizes 1,8,32 --gen-len 256` invocation per build; the script loops
        over the batch sizes inside one process.

        - **eager (default)**: `python bench_decode.py --batch-sizes 1,8,32 --gen-len 256`
          - bs=1: 40 tok/s
          - bs=8: 210 tok/s
          - bs=32: 655 tok/s
        - **torch.compile + static cache**: `python bench_decode.py --batch-sizes 1,8,32 --gen-len 256 --compile --cache static`
          - bs=1: 61 tok/s
          - bs=8: 298 tok/s
          - bs=32: 790 tok/s

        At bs=32, the point we serve at, the compiled build gives 790 vs 655 tok/s (+21 %).
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {655: "baseline", 790: "improved"}
    eager, compiled = one(recs, 655), one(recs, 790)
    assert all(has(eager, v, "tok/s") for v in (40, 210, 655))
    assert all(has(compiled, v, "tok/s") for v in (61, 298, 790))


# =============================================================================================
# k30: repetitions of one configuration are one attempt; headline the mean
# =============================================================================================


def test_k30_cfg_run_labels_no_printed_mean_two_configs(tmp_path):
    f, recs = drafts(tmp_path, "k30-chunked-prefill.md", dedent("""\
        # Chunked prefill, Llama-3.1-8B-Instruct, 1x A100-80GB (2026-03-21)

        `vllm bench serve --num-prompts 300 --max-concurrency 32`, three repetitions per server config.
        cfgA = default server, cfgB = `--enable-chunked-prefill --max-num-batched-tokens 4096`.

        - `cfgA_run1`: output throughput 1012.4 tok/s
        - `cfgA_run2`: output throughput 998.7 tok/s
        - `cfgA_run3`: output throughput 1005.1 tok/s
        - `cfgB_run1`: output throughput 1088.0 tok/s
        - `cfgB_run2`: output throughput 1079.3 tok/s
        - `cfgB_run3`: output throughput 1092.5 tok/s
        """))
    assert len(recs) == 2
    assert near(recs, 1005.4).outcome.value == "baseline"   # (1012.4 + 998.7 + 1005.1) / 3
    assert near(recs, 1086.6).outcome.value == "improved"   # (1088.0 + 1079.3 + 1092.5) / 3


def test_k30_trial_rows_with_printed_mean_rows(tmp_path):
    f, recs = drafts(tmp_path, "k30-compile.md", dedent("""\
        # torch.compile on SGLang, Qwen3-30B-A3B, 1x H200 — 2026-03-22

        `python -m sglang.bench_one_batch_server --batch-size 16 --input-len 1024 --output-len 256`

        | config | trial | output tok/s |
        |---|---|---:|
        | baseline | 1 | 181.2 |
        | baseline | 2 | 183.0 |
        | baseline | 3 | 180.9 |
        | baseline | mean | 181.7 |
        | `--enable-torch-compile` | 1 | 184.1 |
        | `--enable-torch-compile` | 2 | 183.2 |
        | `--enable-torch-compile` | 3 | 185.0 |
        | `--enable-torch-compile` | mean | 184.1 |
        """))
    assert len(recs) == 2
    assert near(recs, 181.7).outcome.value == "baseline"
    assert near(recs, 184.1).outcome.value == "neutral"     # +1.3 %


def test_k30_numbered_run_items_with_mean_and_stddev(tmp_path):
    f, recs = drafts(tmp_path, "k30-kv-fp8.md", dedent("""\
        # FP8 KV cache, Llama-3.1-70B-Instruct TP4, 4x H100 (2026-03-23)

        Four runs of the same `vllm bench serve --max-concurrency 64 --num-prompts 640` per config.

        ## Config A — `--kv-cache-dtype auto` (default)

        1. Run 1: 2,412.0 tok/s
        2. Run 2: 2,388.5 tok/s
        3. Run 3: 2,430.1 tok/s
        4. Run 4: 2,401.8 tok/s

        **Mean: 2,408.1 ± 17.5 tok/s**

        ## Config B — `--kv-cache-dtype fp8`

        1. Run 1: 2,395.0 tok/s
        2. Run 2: 2,560.3 tok/s
        3. Run 3: 2,420.8 tok/s
        4. Run 4: 2,504.3 tok/s

        **Mean: 2,470.1 ± 76.1 tok/s**
        """))
    assert len(recs) == 2
    assert near(recs, 2408.1).outcome.value == "baseline"
    # +2.6 %, but within config B's own ± 76.1
    assert near(recs, 2470.1).outcome.value == "neutral"


def test_k30_french_rep_lines_in_loop_output(tmp_path):
    f, recs = drafts(tmp_path, "k30-attention.md", dedent("""\
        # Backend d'attention, Qwen2.5-7B-Instruct, RTX 4090 (2026-03-24)

        Trois répétitions par backend, même commande ; pas de moyenne imprimée par le script.

        ```
        $ for i in 1 2 3; do python bench_decode.py --attn flashinfer --tag rep$i; done
        rep 1: decode 96.2 tok/s
        rep 2: decode 95.8 tok/s
        rep 3: decode 96.7 tok/s
        $ for i in 1 2 3; do python bench_decode.py --attn triton --tag rep$i; done
        rep 1: decode 91.0 tok/s
        rep 2: decode 90.4 tok/s
        rep 3: decode 91.3 tok/s
        ```

        flashinfer (le backend par défaut) reste devant.
        """))
    assert len(recs) == 2
    assert near(recs, 96.2333).outcome.value == "baseline"   # (96.2 + 95.8 + 96.7) / 3
    assert near(recs, 90.9).outcome.value == "regressed"     # (91.0 + 90.4 + 91.3) / 3


def test_k30_summary_of_means_ahead_of_detailed_repetitions(tmp_path):
    f, recs = drafts(tmp_path, "k30-eagle.md", dedent("""\
        # Speculative decoding, Llama-3.1-8B-Instruct, 1x H100 — 2026-03-25

        ## Summary (mean of 3 runs each)

        | config | mean output tok/s |
        |---|---:|
        | no speculation (baseline) | 148.2 |
        | EAGLE-3, 3 steps | 231.6 |

        ## Detailed runs

        `python -m sglang.bench_one_batch_server --batch-size 1 --input-len 512 --output-len 512`

        ### no speculation

        - `cfgA_run1`: 147.9 tok/s
        - `cfgA_run2`: 148.8 tok/s
        - `cfgA_run3`: 147.9 tok/s

        ### EAGLE-3, 3 steps (`--speculative-algorithm EAGLE3 --speculative-num-steps 3`)

        - `cfgB_run1`: 229.4 tok/s
        - `cfgB_run2`: 233.0 tok/s
        - `cfgB_run3`: 232.4 tok/s
        """))
    assert len(recs) == 2
    assert near(recs, 148.2).outcome.value == "baseline"
    assert near(recs, 231.6).outcome.value == "improved"


# =============================================================================================
# k31: variants of one model against its reference row; a table of sizes has no common baseline
# =============================================================================================


def test_k31_quantized_checkpoints_vs_bf16_reference(tmp_path):
    f, recs = drafts(tmp_path, "k31-quants.md", dedent("""\
        # Llama-3.1-8B-Instruct checkpoints, vLLM 0.11, 1x L40S (2026-03-26)

        `vllm bench throughput --input-len 512 --output-len 256 --num-prompts 500` per checkpoint.

        | model | weights | output tok/s | MMLU |
        |---|---:|---:|---:|
        | meta-llama/Llama-3.1-8B-Instruct (BF16 reference) | 16.1 GB | 2,905.4 | 68.2 |
        | Llama-3.1-8B-Instruct-FP8 | 8.5 GB | 4,310.7 | 68.0 |
        | Llama-3.1-8B-Instruct-AWQ-INT4 | 5.7 GB | 3,512.0 | 66.9 |
        | Llama-3.1-8B-Instruct-GPTQ-INT8 | 9.0 GB | 2,930.1 | 68.1 |
        | Llama-3.1-8B-Instruct-Q4_K_M.gguf | 4.9 GB | 1,620.3 | N/A |
        """))
    assert len(recs) == 5
    assert outcomes(recs) == {2905.4: "baseline", 4310.7: "improved", 3512.0: "improved",
                              2930.1: "neutral", 1620.3: "regressed"}


def test_k31_pruned_variants_original_row_not_first(tmp_path):
    f, recs = drafts(tmp_path, "k31-sparse.md", dedent("""\
        ## Sparse Llama-2-7B variants, decode speed, 1x A100 (2026-03-27)

        Batch 1, 128-token prompt, 256 new tokens, vLLM with the 2:4 sparse kernels (cuSPARSELt).

        | variant | decode tok/s | ppl (wikitext2) | notes |
        |---|---:|---:|---|
        | Llama-2-7B-2:4 (SparseGPT) | 98.4 | 7.31 | N/A |
        | Llama-2-7B-50%-unstructured (SparseGPT) | 71.2 | 6.98 | no kernel speedup expected |
        | Llama-2-7B (original, dense) | 72.5 | 5.47 | N/A |
        | Llama-2-7B-2:4 (Wanda) | 97.9 | 7.26 | N/A |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {72.5: "baseline", 98.4: "improved", 71.2: "neutral", 97.9: "improved"}


def test_k31_gguf_variants_code_span_names_fp16_reference_with_spread(tmp_path):
    f, recs = drafts(tmp_path, "k31-gguf.md", dedent("""\
        # Mistral-7B-Instruct-v0.3 GGUF quants, llama.cpp b4600, RTX 3090 — 2026-03-28

        `llama-bench -m <file> -p 512 -n 128 -ngl 99 -r 5`, figures copied per file (mean ± stddev).

        | file | size | pp512 t/s | tg128 t/s |
        |---|---:|---:|---:|
        | `mistral-7b-v0.3-f16.gguf` (FP16 (reference)) | 13.5 GiB | 5210 ± 21 | 52.30 ± 0.11 |
        | `mistral-7b-v0.3-q8_0.gguf` | 7.2 GiB | 5050 ± 18 | 88.90 ± 0.25 |
        | `mistral-7b-v0.3-q5_k_m.gguf` | 4.8 GiB | 4790 ± 30 | 54.10 ± 2.30 |
        | `mistral-7b-v0.3-q4_k_m.gguf` | 4.1 GiB | 4620 ± 25 | 131.60 ± 0.40 |
        | `mistral-7b-v0.3-iq2_xs.gguf` | 2.0 GiB | 3980 ± 40 | 51.80 ± 0.90 |
        """))
    assert len(recs) == 5
    # q5_k_m: +3.4 % but inside its own ± 2.30; iq2_xs: -1.0 %, inside ± 0.90 and 2 %
    assert outcomes(recs) == {52.3: "baseline", 88.9: "improved", 54.1: "neutral", 131.6: "improved",
                              51.8: "neutral"}


def test_k31_spanish_fine_tunes_reference_first(tmp_path):
    f, recs = drafts(tmp_path, "k31-finetunes.md", dedent("""\
        # Comparación de variantes de Qwen2.5-7B en SGLang, RTX 4090 (2026-03-29)

        Misma carga para todas: 64 solicitudes, 512 tokens de entrada / 256 de salida, concurrencia 8.

        | modelo | velocidad de generación (tok/s) | TTFT medio (ms) |
        |---|---:|---:|
        | Qwen2.5-7B-Instruct (referencia) | 612.4 | 84 |
        | Qwen2.5-7B-Instruct-abliterated | 609.9 | 85 |
        | Qwen2.5-7B-Instruct-coder-lora-merged | 598.0 | 88 |
        | Qwen2.5-7B-Instruct-W8A8 (SmoothQuant) | 803.5 | 61 |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {612.4: "baseline", 609.9: "neutral", 598.0: "regressed", 803.5: "improved"}


def test_k31_model_sizes_without_reference_are_each_baseline(tmp_path):
    f, recs = drafts(tmp_path, "k31-sizes.md", dedent("""\
        # Llama-2 chat sizes on H100, vLLM 0.10 (2026-03-30)

        `vllm bench serve --num-prompts 500 --max-concurrency 32`, 512 in / 256 out.

        | model | GPUs | output tok/s | TTFT p50 (ms) |
        |---|---|---:|---:|
        | Llama-2-7B-chat | 1x H100 | 3,120.5 | 45 |
        | Llama-2-13B-chat | 1x H100 | 1,980.2 | 71 |
        | Llama-2-70B-chat | 4x H100 (TP4) | 1,105.8 | 190 |
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {3120.5: "baseline", 1980.2: "baseline", 1105.8: "baseline"}


def test_k31_sizes_each_with_an_awq_variant_group_per_size(tmp_path):
    f, recs = drafts(tmp_path, "k31-sizes-awq.md", dedent("""\
        # FP16 vs AWQ per size, Llama-2 chat, vLLM 0.10, 1x A100-80GB (2026-03-31)

        Batch 8, 256 in / 256 out, `vllm bench throughput` per checkpoint.

        | model | output tok/s | peak mem (GB) |
        |---|---:|---:|
        | Llama-2-7B-chat (FP16) | 1,410.0 | 15.1 |
        | Llama-2-7B-chat-AWQ | 1,702.4 | 5.2 |
        | Llama-2-13B-chat (FP16) | 820.6 | 27.9 |
        | Llama-2-13B-chat-AWQ | 1,044.8 | 8.6 |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {1410.0: "baseline", 1702.4: "improved", 820.6: "baseline", 1044.8: "improved"}
