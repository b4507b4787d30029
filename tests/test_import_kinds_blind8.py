"""Blind tests, kinds k41..k43 (expected values decided from the inputs before running kb).

k41 a section whose heading says it holds the reference runs (``Direct library calls (baseline)``,
``Baseline: stock settings``, ``基准``) with one row per model, then one section per model (a heading naming
the model) with runs of another setup: every reference row is a baseline, every later row is compared with
the reference row of the same model, not with the first row of its own table.
k42 two or more tables, each the same sweep of workloads (request rate, llama-bench depth, input length) for
a different engine or setting: the first table's rows are each a baseline, each later row is compared with
the first table's row of the same workload.
k43 counter-cases not linked across tables: a ``Speed-up over baseline`` / ``Compared to the baseline``
heading does not make its rows baselines; a later table whose workload values appear in no earlier table
compares within itself; tables of different models are not compared; one batch-size sweep without a
reference row takes its first row as baseline.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, has, headlines, one, outcomes

# =============================================================================================
# k41: a reference section with one row per model, then one section per model
# =============================================================================================


def test_k41_direct_library_calls_then_ray_serve_per_model(tmp_path):
    f, recs = drafts(tmp_path, "k41-ray-serve.md", dedent("""\
        # vLLM behind Ray Serve vs direct calls — one node, 8x H100 80GB, 2026-03-18

        Workload for every run: 500 prompts, 512 input / 256 output tokens, `temperature=0`.
        The 70B runs use TP=4 per replica, the others TP=1.

        ## Direct library calls (baseline)

        `python offline.py --model M` calling `LLM.generate()` in-process, no HTTP.

        | Model Size | Output tok/s |
        |---|---:|
        | 1B | 4120.0 |
        | 8B | 2210.0 |
        | 70B | 410.0 |

        ## Through Ray Serve

        Same prompts sent by `python client.py --concurrency 64` to a Ray Serve deployment wrapping
        `AsyncLLMEngine`; one table per model, the number of replicas varied.

        #### 1B model

        | Replicas | Output tok/s |
        |---|---:|
        | 1 | 3650.0 |
        | 2 | 4190.0 |

        With one replica the 1B model is bound by the HTTP layer, not the GPU.

        #### 8B model

        | Replicas | Output tok/s |
        |---|---:|
        | 1 | 2180.0 |
        | 2 | 2455.0 |

        #### 70B model

        | Replicas | Output tok/s |
        |---|---:|
        | 1 | 395.0 |
        | 2 | 404.0 |
        """))
    assert len(recs) == 9
    assert outcomes(recs) == {
        4120.0: "baseline", 2210.0: "baseline", 410.0: "baseline",
        3650.0: "regressed", 4190.0: "neutral",
        2180.0: "neutral", 2455.0: "improved",
        395.0: "regressed", 404.0: "neutral",
    }


def test_k41_chinese_baseline_heading_latency_ms(tmp_path):
    f, recs = drafts(tmp_path, "k41-延迟.md", dedent("""\
        # Qwen2.5 系列端到端延迟（单卡 A100 80GB，vLLM 0.8.5）

        每次都是 `python latency.py --model Qwen/Qwen2.5-XB-Instruct --input-len 512 --output-len 64 --batch-size 1`，
        下表是 10 次迭代的平均延迟，越低越好。

        ## 基准（默认参数）

        | Model | Latency (ms) |
        | :-- | --: |
        | 1.5B | 210.0 |
        | 7B | 480.0 |
        | 14B | 905.0 |

        ## 调整 --max-num-seqs

        其余参数不变，只改 `--max-num-seqs`。

        ### 1.5B 模型

        | --max-num-seqs | Latency (ms) |
        | :-- | --: |
        | 64 | 198.0 |
        | 256 | 213.0 |

        ### 7B 模型

        | --max-num-seqs | Latency (ms) |
        | :-- | --: |
        | 64 | 452.0 |
        | 256 | 515.0 |

        ### 14B 模型

        | --max-num-seqs | Latency (ms) |
        | :-- | --: |
        | 64 | 910.0 |
        | 256 | 980.0 |
        """))
    assert len(recs) == 9
    assert headlines(recs, "latency") == [198.0, 210.0, 213.0, 452.0, 480.0, 515.0, 905.0, 910.0, 980.0]
    assert outcomes(recs, "latency") == {
        210.0: "baseline", 480.0: "baseline", 905.0: "baseline",
        198.0: "improved", 213.0: "neutral",
        452.0: "improved", 515.0: "regressed",
        910.0: "neutral", 980.0: "regressed",
    }


def test_k41_llama_bench_stock_settings_then_flash_attention_per_model(tmp_path):
    f, recs = drafts(tmp_path, "k41-llamacpp-fa.md", dedent("""\
        # llama.cpp b5120 on an RTX 6000 Ada 48GB — flash attention and ubatch

        All models are Q4_K_M GGUFs, fully offloaded (`-ngl 99`). Each figure is
        `./llama-bench -m MODEL.gguf -p 0 -n 128 -r 5`, generation speed in t/s.

        ## Baseline: stock settings

        No `-fa`, default `-ub 512`.

        | Model | tg128 (t/s) |
        | --- | --- |
        | 8B | 118.40 |
        | 32B | 36.10 |
        | 70B | 17.25 |

        Next, `-fa 1` with two ubatch sizes for each model.

        ### 8B

        | -ub | tg128 (t/s) |
        | --- | --- |
        | 256 | 121.90 |
        | 1024 | 117.10 |

        ### 32B

        | -ub | tg128 (t/s) |
        | --- | --- |
        | 256 | 36.60 |
        | 1024 | 38.90 |

        The 70B barely fits with `-fa 1 -ub 1024`; 46.8 GB used.

        ### 70B

        | -ub | tg128 (t/s) |
        | --- | --- |
        | 256 | 16.40 |
        | 1024 | 17.30 |
        """))
    assert len(recs) == 9
    assert outcomes(recs) == {
        118.40: "baseline", 36.10: "baseline", 17.25: "baseline",
        121.90: "improved", 117.10: "neutral",
        36.60: "neutral", 38.90: "improved",
        16.40: "regressed", 17.30: "neutral",
    }


def test_k41_model_sections_in_another_order_than_the_baseline_rows(tmp_path):
    f, recs = drafts(tmp_path, "k41-openai-server.md", dedent("""\
        # Llama 3.x through the OpenAI-compatible server — 4x A100 80GB (one model per GPU)

        2026-03-19. 1,000 prompts from ShareGPT, output capped at 200 tokens.

        ### Direct library calls (baseline)

        `python -c "from vllm import LLM; ..."` with the whole prompt list in one `generate()` call.

        | Model Size | Throughput (tok/s) |
        |------------|--------------------|
        | 1B         | 9850               |
        | 3B         | 6120               |
        | 8B         | 3340               |

        ### Through `vllm serve`

        Same prompts posted by `python bench_client.py --max-concurrency 256`, with and without
        `"stream": true`.

        #### 8B model

        | stream | Throughput (tok/s) |
        |--------|--------------------|
        | off    | 3295               |
        | on     | 3010               |

        #### 1B model

        | stream | Throughput (tok/s) |
        |--------|--------------------|
        | off    | 9700               |
        | on     | 8420               |

        #### 3B model

        Only the non-streaming run; the GPU was needed for another job before the streaming one.

        | stream | Throughput (tok/s) |
        |--------|--------------------|
        | off    | 6080               |
        """))
    assert len(recs) == 8
    assert outcomes(recs) == {
        9850: "baseline", 6120: "baseline", 3340: "baseline",
        3295: "neutral", 3010: "regressed",
        9700: "neutral", 8420: "regressed",
        6080: "neutral",
    }


def test_k41_german_reference_section_mean_ttft(tmp_path):
    f, recs = drafts(tmp_path, "k41-ttft.md", dedent("""\
        # TTFT mit Chunked Prefill — SGLang 0.4.9, eine H200

        Messung: `python -m sglang.bench_serving --backend sglang --num-prompts 300 --random-input-len 2048
        --random-output-len 128 --request-rate 4`; angegeben ist die mittlere TTFT, kleiner ist besser.

        ## Referenzläufe (Baseline)

        Server ohne weitere Flags gestartet.

        | Model | Mean TTFT (ms) |
        |:------|---------------:|
        | 8B    | 86.4           |
        | 32B   | 231.0          |
        | 70B   | 412.5          |

        ## Mit `--chunked-prefill-size`

        ### 8B-Modell

        | chunked prefill size | Mean TTFT (ms) |
        |:------|---------------:|
        | 512   | 91.8           |
        | 2048  | 85.1           |

        ### 32B-Modell

        | chunked prefill size | Mean TTFT (ms) |
        |:------|---------------:|
        | 512   | 240.2          |
        | 2048  | 219.6          |

        Beim 70B-Modell lief TP=4 (vier H200), wie schon in der Referenz.

        ### 70B-Modell

        | chunked prefill size | Mean TTFT (ms) |
        |:------|---------------:|
        | 512   | 415.9          |
        | 2048  | 388.0          |
        """))
    assert len(recs) == 9
    assert outcomes(recs, "mean_ttft") == {
        86.4: "baseline", 231.0: "baseline", 412.5: "baseline",
        91.8: "regressed", 85.1: "neutral",
        240.2: "regressed", 219.6: "improved",
        415.9: "neutral", 388.0: "improved",
    }


def test_k41_stock_loader_then_fastsafetensors_threads_gbps(tmp_path):
    f, recs = drafts(tmp_path, "k41-weight-loading.md", dedent("""\
        # Weight-loading bandwidth — safetensors vs fastsafetensors, H100 SXM, local NVMe RAID0

        Each run: `python load_bench.py --model M --loader L` on a cold page cache
        (`echo 3 > /proc/sys/vm/drop_caches` before each), reporting bytes loaded / wall time.

        ## Baseline: stock `safetensors` loader

        | Model | Load bandwidth (GB/s) |
        |---|---|
        | Llama-3.1-8B | 2.41 |
        | Llama-3.1-70B | 2.95 |

        ## fastsafetensors (GDS enabled)

        Thread count varied, everything else as above.

        #### Llama-3.1-8B

        | threads | Load bandwidth (GB/s) |
        |---|---|
        | 1 | 2.44 |
        | 4 | 4.10 |
        | 16 | 7.10 |

        #### Llama-3.1-70B

        | threads | Load bandwidth (GB/s) |
        |---|---|
        | 1 | 2.71 |
        | 4 | 2.99 |
        | 16 | 5.60 |

        The 70B shards are 5 GB each, so four threads mostly wait on one file at a time.
        """))
    assert len(recs) == 8
    assert headlines(recs, "bandwidth") == [2.41, 2.44, 2.71, 2.95, 2.99, 4.10, 5.60, 7.10]
    assert has(one(recs, 7.10, "bandwidth"), 7.10, "GB/s")
    assert outcomes(recs, "bandwidth") == {
        2.41: "baseline", 2.95: "baseline",
        2.44: "neutral", 4.10: "improved", 7.10: "improved",
        2.71: "regressed", 2.99: "neutral", 5.60: "improved",
    }


# =============================================================================================
# k42: the same workload sweep per engine/setting; later tables compared row by row with the first
# =============================================================================================


def test_k42_request_rate_sweep_vllm_then_sglang(tmp_path):
    f, recs = drafts(tmp_path, "k42-engines.md", dedent("""\
        # Llama-3.1-8B-Instruct, one H100 80GB: vLLM vs SGLang by request rate

        Both servers benchmarked with the same client, `vllm bench serve --dataset-name random
        --random-input-len 1024 --random-output-len 256 --num-prompts 500 --request-rate R`.

        ## vLLM 0.9.1

        | Request rate | Output tok/s | Mean TTFT (ms) |
        |---:|---:|---:|
        | 1 | 245.1 | 61.2 |
        | 2 | 488.7 | 64.0 |
        | 4 | 962.3 | 70.5 |
        | 8 | 1840.6 | 95.3 |

        ## SGLang 0.4.8

        | Request rate | Output tok/s | Mean TTFT (ms) |
        |---:|---:|---:|
        | 1 | 246.0 | 48.7 |
        | 2 | 490.2 | 50.1 |
        | 4 | 975.5 | 55.8 |
        | 8 | 2012.4 | 71.9 |

        Up to 4 req/s both engines just keep up with the arrivals; the difference shows at 8.
        """))
    assert len(recs) == 8
    assert has(one(recs, 2012.4), 71.9, "ms")
    assert outcomes(recs) == {
        245.1: "baseline", 488.7: "baseline", 962.3: "baseline", 1840.6: "baseline",
        246.0: "neutral", 490.2: "neutral", 975.5: "neutral", 2012.4: "improved",
    }


def test_k42_llama_bench_depths_vulkan_then_rocm(tmp_path):
    f, recs = drafts(tmp_path, "k42-backends.md", dedent("""\
        # Qwen3-8B Q4_K_M on a Radeon RX 7900 XTX — Vulkan vs ROCm

        llama.cpp b5200, one `llama-bench -m qwen3-8b-q4_k_m.gguf -ngl 99 -fa 1 -p 512 -n 128 -d D` invocation
        per depth (D = 0, 4096, 16384), so each row below is its own run.

        ## Vulkan backend

        | depth | pp512 (t/s) | tg128 (t/s) |
        |-------|-------------|-------------|
        | d0 | 1502.3 | 88.40 |
        | d4096 | 1210.7 | 79.15 |
        | d16384 | 760.2 | 61.30 |

        ## ROCm (HIP) backend

        Built with `-DGGML_HIP=ON -DAMDGPU_TARGETS=gfx1100`, ROCm 6.3.

        | depth | pp512 (t/s) | tg128 (t/s) |
        |-------|-------------|-------------|
        | d0 | 2210.5 | 84.10 |
        | d4096 | 1822.0 | 78.60 |
        | d16384 | 1190.4 | 66.95 |
        """))
    assert len(recs) == 6
    assert headlines(recs) == [61.30, 66.95, 78.60, 79.15, 84.10, 88.40]
    assert outcomes(recs) == {
        88.40: "baseline", 79.15: "baseline", 61.30: "baseline",
        84.10: "regressed", 78.60: "neutral", 66.95: "improved",
    }


def test_k42_input_length_three_engines_tpot_ms(tmp_path):
    f, recs = drafts(tmp_path, "k42-tpot.md", dedent("""\
        # Decode latency by input length — Llama-3.1-8B-Instruct FP8, one H200

        Batch of 32 concurrent requests, output length 128, mean TPOT (lower is better), 3 runs averaged.

        ## TensorRT-LLM 0.17

        `trtllm-bench --model meta-llama/Llama-3.1-8B-Instruct latency --dataset synthetic_ISL.json`

        | Input length | Output length | Mean TPOT (ms) |
        |---|---|---|
        | 128 | 128 | 7.42 |
        | 1024 | 128 | 7.95 |
        | 4096 | 128 | 9.80 |

        ## vLLM 0.8.5

        `vllm bench serve --max-concurrency 32 --random-input-len ISL --random-output-len 128`

        | Input length | Output length | Mean TPOT (ms) |
        |---|---|---|
        | 128 | 128 | 7.55 |
        | 1024 | 128 | 8.61 |
        | 4096 | 128 | 10.12 |

        ## SGLang 0.4.6

        `python -m sglang.bench_serving --max-concurrency 32 --random-input-len ISL --random-output-len 128`

        | Input length | Output length | Mean TPOT (ms) |
        |---|---|---|
        | 128 | 128 | 7.31 |
        | 1024 | 128 | 8.20 |
        | 4096 | 128 | 9.62 |
        """))
    assert len(recs) == 9
    assert outcomes(recs, "mean_tpot") == {
        7.42: "baseline", 7.95: "baseline", 9.80: "baseline",
        7.55: "neutral", 8.61: "regressed", 10.12: "regressed",
        7.31: "neutral", 8.20: "regressed", 9.62: "neutral",
    }


def test_k42_french_kv_cache_dtype_request_rates(tmp_path):
    f, recs = drafts(tmp_path, "k42-cache-kv.md", dedent("""\
        # Mistral-Small-24B sur une L40S — cache KV BF16 ou FP8

        Serveur : `vllm serve mistralai/Mistral-Small-24B-Instruct-2501 --max-model-len 8192`.
        Client : `vllm bench serve --dataset-name sharegpt --num-prompts 400 --request-rate R`.

        ## Cache KV en BF16 (par défaut)

        | Request rate | Output tok/s | P99 TTFT (ms) |
        |:-:|:-:|:-:|
        | 2 | 478.2 | 120.4 |
        | 4 | 951.0 | 133.9 |
        | 8 | 1702.5 | 310.7 |
        | 16 | 2105.8 | 1450.2 |

        Au-delà de 8 req/s la file d'attente s'allonge : le cache KV est plein.

        ## Cache KV en FP8 (`--kv-cache-dtype fp8`)

        | Request rate | Output tok/s | P99 TTFT (ms) |
        |:-:|:-:|:-:|
        | 2 | 479.0 | 118.9 |
        | 4 | 949.3 | 135.2 |
        | 8 | 1850.1 | 240.3 |
        | 16 | 2540.7 | 890.6 |
        """))
    assert len(recs) == 8
    assert outcomes(recs) == {
        478.2: "baseline", 951.0: "baseline", 1702.5: "baseline", 2105.8: "baseline",
        479.0: "neutral", 949.3: "neutral", 1850.1: "improved", 2540.7: "improved",
    }


def test_k42_japanese_attention_backends_rows_in_reverse_order(tmp_path):
    f, recs = drafts(tmp_path, "k42-バックエンド.md", dedent("""\
        # アテンションバックエンド比較（Llama-3.1-8B-Instruct、RTX 4090、vLLM 0.8.4）

        `python benchmarks/benchmark_throughput.py --input-len ISL --output-len 256 --num-prompts 200`
        の出力スループット（tok/s）。

        ## FlashAttention バックエンド

        | Input length | Output tok/s |
        |---|---|
        | 128 | 3120.4 |
        | 1024 | 2874.9 |
        | 4096 | 2210.3 |

        ## FlashInfer バックエンド

        `VLLM_ATTENTION_BACKEND=FLASHINFER` を付けて、長い入力から順に測った。

        | Input length | Output tok/s |
        |---|---|
        | 4096 | 2480.0 |
        | 1024 | 2890.1 |
        | 128 | 3011.7 |
        """))
    assert len(recs) == 6
    assert outcomes(recs) == {
        3120.4: "baseline", 2874.9: "baseline", 2210.3: "baseline",
        2480.0: "improved", 2890.1: "neutral", 3011.7: "regressed",
    }


def test_k42_speculative_methods_median_itl_third_table_vs_first(tmp_path):
    f, recs = drafts(tmp_path, "k42-spec-decode.md", dedent("""\
        # Speculative decoding on Llama-3.3-70B-Instruct, 4x H100 (TP=4), vLLM 0.9.0

        `vllm bench serve --dataset-name sharegpt --num-prompts 300 --request-rate R`, median ITL
        (lower is better). One server restart per method.

        ## No speculation

        | Request rate | Median ITL (ms) |
        | --- | --- |
        | 1 | 11.8 |
        | 2 | 12.1 |
        | 4 | 13.0 |
        | 8 | 15.6 |

        ## EAGLE-3 (k=3)

        `--speculative-config '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B", "num_speculative_tokens": 3}'`

        | Request rate | Median ITL (ms) |
        | --- | --- |
        | 1 | 6.4 |
        | 2 | 7.0 |
        | 4 | 9.1 |
        | 8 | 15.4 |

        ## n-gram (k=4)

        `--speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'`

        | Request rate | Median ITL (ms) |
        | --- | --- |
        | 1 | 9.9 |
        | 2 | 12.3 |
        | 4 | 14.2 |
        | 8 | 18.9 |

        At 8 req/s the batch is large enough that speculation stops paying for itself.
        """))
    assert len(recs) == 12
    assert outcomes(recs, "median_itl") == {
        11.8: "baseline", 12.1: "baseline", 13.0: "baseline", 15.6: "baseline",
        6.4: "improved", 7.0: "improved", 9.1: "improved", 15.4: "neutral",
        9.9: "improved", 12.3: "neutral", 14.2: "regressed", 18.9: "regressed",
    }


# =============================================================================================
# k43: counter-cases that must not be linked across tables
# =============================================================================================


def test_k43_speed_up_over_baseline_heading_rows_are_not_all_baselines(tmp_path):
    f, recs = drafts(tmp_path, "k43-speedup.md", dedent("""\
        # Decode optimisations, Llama-3.1-8B-Instruct, one H100 — 2026-03-20

        `python bench_decode.py --batch-size 64 --output-len 512`, output tok/s, each row one run.

        ## Speed-up over baseline

        | Config | Output tok/s | Speed-up |
        |---|---:|---:|
        | eager | 1520.0 | 1.00x |
        | CUDA graphs | 1785.3 | 1.17x |
        | CUDA graphs + torch.compile | 1990.6 | 1.31x |
        | eager + FlashInfer sampler | 1531.0 | 1.01x |

        The sampler change does nothing at this batch size.
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {1520.0: "baseline", 1785.3: "improved", 1990.6: "improved", 1531.0: "neutral"}


def test_k43_compared_to_the_baseline_heading_mean_ttft(tmp_path):
    f, recs = drafts(tmp_path, "k43-compared.md", dedent("""\
        # Qwen2.5-32B-Instruct on 2x L40S (TP=2) — server flags

        ## Compared to the baseline

        Each row is one `vllm bench serve --request-rate 4 --num-prompts 200` run after restarting the
        server with the flag in the first column; "vs. baseline" is the change in mean TTFT against the
        first row (lower is better).

        | Server flags | Mean TTFT (ms) | vs. baseline |
        |---|---|---|
        | (none) | 412.6 | — |
        | `--enable-chunked-prefill` | 366.0 | -11.3 % |
        | `--max-num-batched-tokens 8192` | 405.2 | -1.8 % |
        | `--enable-prefix-caching` | 431.9 | +4.7 % |
        """))
    assert len(recs) == 4
    assert outcomes(recs, "mean_ttft") == {412.6: "baseline", 366.0: "improved", 405.2: "neutral", 431.9: "regressed"}


def test_k43_later_table_with_new_input_length_compares_within_itself(tmp_path):
    f, recs = drafts(tmp_path, "k43-prefill.md", dedent("""\
        # Qwen3-8B prefill throughput on H100 — FlashAttention-3 vs FlashInfer (SGLang 0.4.9)

        `python -m sglang.bench_offline_throughput --num-prompts 64 --random-input-len ISL --random-output-len 1`,
        prefill tok/s.

        ## FlashAttention-3

        | Input length | Prefill tok/s |
        |---|---|
        | 1024 | 41250 |
        | 4096 | 38900 |

        ## FlashInfer

        | Input length | Prefill tok/s |
        |---|---|
        | 1024 | 42010 |
        | 4096 | 40880 |

        ## Long context: chunked prefill size (FlashInfer, 32k input)

        Only FlashInfer was tried here; `--chunked-prefill-size` varied.

        | Input length | Chunk size | Prefill tok/s |
        |---|---|---|
        | 32768 | 2048 | 30120 |
        | 32768 | 8192 | 33460 |
        | 32768 | 16384 | 30410 |
        """))
    assert len(recs) == 7
    assert outcomes(recs, "input_throughput") == {
        41250: "baseline", 38900: "baseline",
        42010: "neutral", 40880: "improved",
        30120: "baseline", 33460: "improved", 30410: "neutral",
    }


def test_k43_two_models_same_request_rates_not_compared(tmp_path):
    f, recs = drafts(tmp_path, "k43-two-models.md", dedent("""\
        # SGLang 0.4.9 request-rate sweeps on one H200

        `python -m sglang.bench_serving --dataset-name random --random-input-len 1024 --random-output-len 256
        --num-prompts 600 --request-rate R`, default server flags for both models.

        ## Llama-3.1-8B-Instruct

        | Request rate | Output tok/s |
        |---|---|
        | 1 | 251.3 |
        | 4 | 1003.8 |
        | 16 | 3720.4 |

        ## Qwen2.5-14B-Instruct

        | Request rate | Output tok/s |
        |---|---|
        | 1 | 249.0 |
        | 4 | 980.2 |
        | 16 | 2410.7 |
        """))
    assert len(recs) == 6
    assert outcomes(recs) == {
        251.3: "baseline", 1003.8: "baseline", 3720.4: "baseline",
        249.0: "baseline", 980.2: "baseline", 2410.7: "baseline",
    }


def test_k43_chinese_two_models_each_with_flash_attention_table(tmp_path):
    f, recs = drafts(tmp_path, "k43-两个模型.md", dedent("""\
        # llama.cpp 上下文深度测试（RTX 3090，Q4_K_M）

        每个深度单独跑一次 `./llama-bench -m MODEL.gguf -ngl 99 -p 0 -n 128 -d D`，表里是 tg128 的 t/s。

        ## Llama-3.1-8B，默认

        | depth | tg128 (t/s) |
        |---|---|
        | d0 | 96.2 |
        | d8192 | 71.5 |

        ## Llama-3.1-8B，开启 -fa

        | depth | tg128 (t/s) |
        |---|---|
        | d0 | 97.0 |
        | d8192 | 84.3 |

        ## Qwen2.5-14B，默认

        | depth | tg128 (t/s) |
        |---|---|
        | d0 | 55.8 |
        | d8192 | 39.9 |

        ## Qwen2.5-14B，开启 -fa

        | depth | tg128 (t/s) |
        |---|---|
        | d0 | 54.1 |
        | d8192 | 48.6 |

        结论：长上下文时 -fa 对两个模型都有明显帮助。
        """))
    assert len(recs) == 8
    assert outcomes(recs) == {
        96.2: "baseline", 71.5: "baseline", 97.0: "neutral", 84.3: "improved",
        55.8: "baseline", 39.9: "baseline", 54.1: "regressed", 48.6: "improved",
    }


def test_k43_single_batch_size_sweep_first_row_is_baseline(tmp_path):
    f, recs = drafts(tmp_path, "k43-batch.md", dedent("""\
        # Offline throughput vs batch size — Mistral-7B-Instruct-v0.3 on one L4 24GB

        `python benchmarks/benchmark_throughput.py --model mistralai/Mistral-7B-Instruct-v0.3
        --input-len 256 --output-len 256 --max-num-seqs N`, vLLM 0.8.4, 2026-03-21.

        | Batch size | Output tok/s | TPOT (ms) |
        |--:|--:|--:|
        | 1 | 31.4 | 31.8 |
        | 8 | 228.9 | 34.9 |
        | 32 | 701.5 | 45.6 |
        """))
    assert len(recs) == 3
    assert headlines(recs) == [31.4, 228.9, 701.5]
    assert outcomes(recs) == {31.4: "baseline", 228.9: "improved", 701.5: "improved"}
