"""Blind tests, kinds k51..k54 (expected values decided from the inputs before running kb).

k51 a request log (a CSV, or a Markdown table, a load client wrote: one row per request, each with its own
date-time stamp, several consecutive rows per configuration named in the first column): one attempt per
configuration, whose headline is the mean of its rows' figure, dated by its rows. Counter-case: a results
CSV with a start time per row where every row is a different configuration stays one attempt per row.
k52 a worked figure line (``Tokens per Second = 4 * 256 * 1000 / 24750.0 = 41.37``): the label carries the
unit, the result after the last ``=`` is the figure. Counter-case: ``speedup = 41.2 / 30.1 = 1.37`` is a
ratio, no tok/s figure.
k53 the same configurations in two or three tables of one document, rows named alike by a long label: one
attempt per configuration with the figures of all the tables. Counter-case: tables whose rows are named by
short generic labels (``1``, ``2``, ``vLLM``) measuring different things under different headings stay apart
when their figures conflict.
k54 a list item or line ``Output tok/s: 4287.6`` / ``TTFT (ms): 45.2`` / ``**Decode tokens/s**: 88.1`` (unit in
the name, a bare number) gives that figure to the run it belongs to; ``- Requests: 1000`` is no figure.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, failed, has, headlines, one, outcomes, value


def holding(recs, number, unit):
    """The one draft that holds ``number`` in ``unit`` (under any metric name)."""
    found = [r for r in recs if has(r, number, unit)]
    assert len(found) == 1, [(r.title, {n: (m.value, m.unit) for n, m in r.metrics.items()}) for r in recs]
    return found[0]


def any_metric(recs, number):
    """Whether any draft holds a metric whose value is ``number`` (whatever its unit)."""
    return any(m.value == pytest.approx(number) for r in recs for m in r.metrics.values())


def dates(recs, name="output_throughput"):
    """{headline value: date} of the drafts that have the headline."""
    return {round(value(r, name), 4): str(r.date) for r in recs if value(r, name) is not None}


# =============================================================================================
# k51: a request log, one row per request: one attempt per configuration, the mean of its rows
# =============================================================================================


def test_k51_csv_request_log_two_models_mean_tokens_per_second(tmp_path):
    f, recs = drafts(tmp_path, "requests-l40s.csv", dedent("""\
        model,timestamp,request_id,prompt_tokens,completion_tokens,latency_s,tokens_per_second
        meta-llama/Llama-3.1-8B-Instruct,2025-10-06T04:27:59,0,512,256,2.530,101.2
        meta-llama/Llama-3.1-8B-Instruct,2025-10-06T04:28:02,1,512,256,2.596,98.6
        meta-llama/Llama-3.1-8B-Instruct,2025-10-06T04:28:05,2,512,256,2.550,100.4
        meta-llama/Llama-3.1-8B-Instruct,2025-10-06T04:28:08,3,512,256,2.565,99.8
        Qwen/Qwen2.5-7B-Instruct,2025-10-06T04:31:40,0,512,256,2.276,112.5
        Qwen/Qwen2.5-7B-Instruct,2025-10-06T04:31:43,1,512,256,2.224,115.1
        Qwen/Qwen2.5-7B-Instruct,2025-10-06T04:31:46,2,512,256,2.248,113.9
        Qwen/Qwen2.5-7B-Instruct,2025-10-06T04:31:49,3,512,256,2.236,114.5
        """))
    assert len(recs) == 2
    assert headlines(recs) == pytest.approx([100.0, 114.0])
    assert all(str(r.date) == "2025-10-06" for r in recs)
    assert not any(value(r) == pytest.approx(101.2) or value(r) == pytest.approx(112.5) for r in recs)


def test_k51_csv_engines_space_separated_stamps_three_rows_each(tmp_path):
    f, recs = drafts(tmp_path, "engines-70b.csv", dedent("""\
        engine,start,concurrency,ttft_ms,output_tokens,tokens_per_second
        vllm-0.10.1,2026-03-01 14:02:11,16,188.2,1024,1450.0
        vllm-0.10.1,2026-03-01 14:02:48,16,191.0,1024,1462.0
        vllm-0.10.1,2026-03-01 14:03:25,16,186.7,1024,1441.0
        sglang-0.5.0,2026-03-01 14:11:02,16,160.4,1024,1530.0
        sglang-0.5.0,2026-03-01 14:11:37,16,162.9,1024,1518.0
        sglang-0.5.0,2026-03-01 14:12:13,16,159.8,1024,1524.0
        trtllm-0.19,2026-03-01 14:25:50,16,141.3,1024,1605.0
        trtllm-0.19,2026-03-01 14:26:23,16,139.9,1024,1611.0
        trtllm-0.19,2026-03-01 14:26:57,16,144.0,1024,1593.0
        """))
    assert len(recs) == 3
    assert headlines(recs) == pytest.approx([1451.0, 1524.0, 1603.0])
    assert all(str(r.date) == "2026-03-01" for r in recs)
    assert {round(k, 2): v for k, v in outcomes(recs).items()} == {
        1451.0: "baseline", 1524.0: "improved", 1603.0: "improved"}


def test_k51_markdown_request_table_german_notes(tmp_path):
    f, recs = drafts(tmp_path, "k51-anfragen.md", dedent("""\
        # Mistral-7B-Instruct-v0.3 auf einer RTX 4090 — fp16 gegen AWQ

        Der Lastclient (`python load_client.py --sequential --n 3`) schreibt pro Anfrage eine Zeile;
        unten die Zeilen, wie er sie ausgegeben hat. vLLM 0.9.2, 256 Ausgabetokens pro Anfrage.

        | model | sent_at | prompt_len | output_len | e2e_s | tok/s |
        |---|---|---|---|---|---|
        | Mistral-7B-Instruct-v0.3 (fp16) | 2025-11-14T09:12:03 | 300 | 256 | 4.197 | 61.0 |
        | Mistral-7B-Instruct-v0.3 (fp16) | 2025-11-14T09:12:08 | 300 | 256 | 4.217 | 60.7 |
        | Mistral-7B-Instruct-v0.3 (fp16) | 2025-11-14T09:12:13 | 300 | 256 | 4.136 | 61.9 |
        | Mistral-7B-Instruct-v0.3-AWQ | 2025-11-14T09:20:41 | 300 | 256 | 2.700 | 94.8 |
        | Mistral-7B-Instruct-v0.3-AWQ | 2025-11-14T09:20:44 | 300 | 256 | 2.664 | 96.1 |
        | Mistral-7B-Instruct-v0.3-AWQ | 2025-11-14T09:20:47 | 300 | 256 | 2.686 | 95.3 |

        AWQ ist hier deutlich schneller, die Antworten sahen gleichwertig aus.
        """))
    assert len(recs) == 2
    assert headlines(recs) == pytest.approx([61.2, 95.4])
    assert all(str(r.date) == "2025-11-14" for r in recs)


def test_k51_csv_configs_on_two_days_dated_by_their_rows(tmp_path):
    f, recs = drafts(tmp_path, "tp-sweep-requests.csv", dedent("""\
        config,timestamp,ttft_ms,output_tokens,tokens_per_second
        tp2,2026-01-20T22:41:05,412.0,512,52.4
        tp2,2026-01-20T22:41:16,405.3,512,53.0
        tp2,2026-01-20T22:41:27,420.8,512,51.8
        tp2,2026-01-20T22:41:38,409.1,512,52.8
        tp4,2026-01-21T08:03:44,251.6,512,88.1
        tp4,2026-01-21T08:03:51,249.0,512,87.5
        tp4,2026-01-21T08:03:58,255.2,512,89.0
        tp4,2026-01-21T08:04:05,250.4,512,88.6
        """))
    assert len(recs) == 2
    assert headlines(recs) == pytest.approx([52.5, 88.3])
    assert dates(recs) == {52.5: "2026-01-20", 88.3: "2026-01-21"}


def test_k51_counter_start_time_per_row_each_row_a_concurrency(tmp_path):
    f, recs = drafts(tmp_path, "concurrency-70b.csv", dedent("""\
        model,start_time,max_concurrency,num_prompts,tokens_per_second,mean_ttft_ms
        Llama-3.3-70B-Instruct,2026-02-11 10:02:17,1,64,38.2,95.1
        Llama-3.3-70B-Instruct,2026-02-11 10:09:40,4,128,141.7,101.3
        Llama-3.3-70B-Instruct,2026-02-11 10:15:02,16,256,498.3,140.8
        Llama-3.3-70B-Instruct,2026-02-11 10:22:55,64,512,1240.6,388.0
        """))
    assert len(recs) == 4
    assert headlines(recs) == [38.2, 141.7, 498.3, 1240.6]


def test_k51_counter_distinct_case_key_per_row(tmp_path):
    f, recs = drafts(tmp_path, "cases.csv", dedent("""\
        case,started_at,input_len,output_len,batch,tokens_per_second
        c01,2026-04-02T13:00:12,128,128,1,142.6
        c02,2026-04-02T13:04:55,512,128,1,139.8
        c03,2026-04-02T13:09:31,2048,128,1,131.2
        c04,2026-04-02T13:14:02,128,128,8,1010.4
        """))
    assert len(recs) == 4
    assert headlines(recs) == [131.2, 139.8, 142.6, 1010.4]


def test_k51_counter_rows_each_dated_by_their_own_start_time(tmp_path):
    f, recs = drafts(tmp_path, "depth-cases.csv", dedent("""\
        case,started_at,context_len,tokens_per_second,ttft_ms
        ctx-4k,2026-04-06T21:58:40,4096,74.3,310.5
        ctx-16k,2026-04-06T23:40:02,16384,66.8,1290.4
        ctx-64k,2026-04-07T02:15:37,65536,49.2,5480.0
        """))
    assert len(recs) == 3
    assert headlines(recs) == [49.2, 66.8, 74.3]
    assert dates(recs) == {74.3: "2026-04-06", 66.8: "2026-04-06", 49.2: "2026-04-07"}


# =============================================================================================
# k52: a worked figure line: the label carries the unit, the figure follows the last `=`
# =============================================================================================


def test_k52_tokens_per_second_worked_line_in_notes(tmp_path):
    f, recs = drafts(tmp_path, "k52-notes.md", dedent("""\
        # Gemma-2-9B-it on one A10G, Hugging Face TGI 2.4 — 2026-02-03

        `docker run --gpus all ghcr.io/huggingface/text-generation-inference:2.4 --model-id google/gemma-2-9b-it`,
        then four requests at once, 256 new tokens each, timed from the first send to the last byte.

        Wall time for the batch was 24750 ms.

        Tokens per Second = 4 * 256 * 1000 / 24750.0 = 41.37

        About what the A10G's memory bandwidth allows for a 9B model in bf16.
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == pytest.approx(41.37)
    assert rec.metrics["output_throughput"].unit == "tok/s"


def test_k52_fenced_output_blocks_after_each_command(tmp_path):
    f, recs = drafts(tmp_path, "k52-phi3.md", dedent("""\
        # Phi-3-mini decode, eager vs CUDA graphs — one T4, vLLM 0.6.3, 2026-01-12

        ## Baseline (eager)

        ```bash
        python decode_bench.py --model microsoft/Phi-3-mini-4k-instruct --batch-size 16 --max-new-tokens 256 --enforce-eager
        ```

        ```text
        prompts: 16, new tokens per prompt: 256
        elapsed: 25.6 s
        throughput (tok/s) = 4096 / 25.6 = 160.0
        ```

        ## CUDA graphs

        ```bash
        python decode_bench.py --model microsoft/Phi-3-mini-4k-instruct --batch-size 16 --max-new-tokens 256
        ```

        ```text
        prompts: 16, new tokens per prompt: 256
        elapsed: 19.5 s
        throughput (tok/s) = 4096 / 19.5 = 210.05
        ```
        """))
    assert len(recs) == 2
    assert headlines(recs) == [160.0, 210.05]
    assert outcomes(recs) == {160.0: "baseline", 210.05: "improved"}


def test_k52_spanish_output_tok_s_worked_line(tmp_path):
    f, recs = drafts(tmp_path, "k52-sesion.md", dedent("""\
        ## Sesión del 2026-02-20 — Llama-3.2-3B-Instruct en una RTX 3060 12GB, llama-server b6000

        Lanzo 64 peticiones a la vez con `python cliente.py --n 64 --max-tokens 128`; la última respuesta
        llega a los 9.85 s.

        Output tok/s = 128 * 64 / 9.85 = 831.68

        Nada falló; la GPU estuvo al 97 % todo el rato.
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == pytest.approx(831.68)
    assert has(rec, 831.68, "tok/s")
    assert str(rec.date) == "2026-02-20"


def test_k52_console_capture_decode_and_tpot_worked_lines(tmp_path):
    f, recs = drafts(tmp_path, "decode-b8.txt", dedent("""\
        $ python bench_decode.py --model Qwen/Qwen2.5-14B-Instruct --batch-size 8 --max-new-tokens 512
        loading weights... done (28.1 GB)
        warmup: 2 iterations
        total tokens: 8 x 512 = 4096
        elapsed: 6.42 s
        decode tok/s = 4096 / 6.42 = 638.01
        TPOT (ms) = 6420 / 512 = 12.54
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == pytest.approx(638.01)
    assert has(rec, 12.54, "ms")
    assert not any_metric(recs, 4096)


def test_k52_counter_speedup_ratio_after_a_table_is_no_tok_s(tmp_path):
    f, recs = drafts(tmp_path, "k52-speedup.md", dedent("""\
        # Llama-3.1-70B-Instruct AWQ on 2x RTX 3090 (TP=2), vLLM 0.8.5 — 2026-02-25

        `vllm bench throughput --input-len 512 --output-len 256 --num-prompts 100`, one run per setup.

        | setup | Output tok/s |
        |---|---|
        | no custom all-reduce | 30.1 |
        | custom all-reduce + P2P | 41.2 |

        speedup = 41.2 / 30.1 = 1.37
        """))
    assert len(recs) == 2
    assert headlines(recs) == [30.1, 41.2]
    assert not any(has(r, 1.37, "tok/s") for r in recs)


def test_k52_counter_speedup_line_in_a_run_section_keeps_its_headline(tmp_path):
    f, recs = drafts(tmp_path, "k52-eagle.md", dedent("""\
        # EAGLE-3 auf Llama-3.1-8B-Instruct, eine H100, SGLang 0.5.1 — 2026-03-03

        ## Ohne Spekulation

        ```text
        output_throughput: 61.0 tok/s
        mean_tpot: 16.2 ms
        ```

        ## EAGLE-3, 4 Schritte

        ```text
        output_throughput: 95.2 tok/s
        mean_tpot: 10.4 ms
        ```

        Beschleunigung: speedup = 95.2 / 61.0 = 1.56
        """))
    assert len(recs) == 2
    assert headlines(recs) == [61.0, 95.2]
    assert not any(has(r, 1.56, "tok/s") for r in recs)
    assert outcomes(recs) == {61.0: "baseline", 95.2: "improved"}


# =============================================================================================
# k53: the same long-labelled configurations in several tables are one attempt each
# =============================================================================================


def test_k53_nccl_latency_then_bandwidth_tables(tmp_path):
    f, recs = drafts(tmp_path, "k53-nccl.md", dedent("""\
        # all_reduce_perf on 8x H100 SXM (NVLink 4) — small vs large messages, 2026-02-14

        `./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8 -n 50`, three builds of NCCL, one run each.

        ## Latency at 8 KB (lower is better)

        | Configuration | 8 KB latency (us) |
        |---|---|
        | NCCL 2.29.2 CUDA Graph + symmetric | 9.8 |
        | NCCL 2.29.2 CUDA Graph | 13.4 |
        | NCCL 2.27.7 eager launch | 21.6 |

        ## Bus bandwidth at 4 GB

        | Configuration | busbw (GB/s) |
        |---|---|
        | NCCL 2.29.2 CUDA Graph + symmetric | 478.2 |
        | NCCL 2.29.2 CUDA Graph | 471.9 |
        | NCCL 2.27.7 eager launch | 452.3 |

        Symmetric memory mostly helps the small messages; at 4 GB the three are within 6 %.
        """))
    assert len(recs) == 3
    assert has(holding(recs, 9.8, "us"), 478.2, "GB/s")
    assert has(holding(recs, 13.4, "us"), 471.9, "GB/s")
    assert has(holding(recs, 21.6, "us"), 452.3, "GB/s")


def test_k53_serving_throughput_then_latency_tables(tmp_path):
    f, recs = drafts(tmp_path, "k53-fp8.md", dedent("""\
        # Llama-3.1-8B-Instruct precision study — one L40S, 2026-03-07

        Every setup: `vllm bench serve --dataset-name sharegpt --num-prompts 800 --max-concurrency 64`.

        ## Throughput

        | Setup | Output tok/s |
        |---|---:|
        | vLLM 0.10.1, FP8 weights + FP8 KV cache | 3905.2 |
        | vLLM 0.10.1, FP8 weights + BF16 KV cache | 3610.4 |
        | vLLM 0.10.1, BF16 weights + BF16 KV cache | 2988.7 |

        ## Latency

        | Setup | Median TTFT (ms) | Median TPOT (ms) |
        |---|---:|---:|
        | vLLM 0.10.1, FP8 weights + FP8 KV cache | 142.8 | 15.1 |
        | vLLM 0.10.1, FP8 weights + BF16 KV cache | 150.3 | 16.4 |
        | vLLM 0.10.1, BF16 weights + BF16 KV cache | 171.9 | 19.8 |
        """))
    assert len(recs) == 3
    assert headlines(recs) == [2988.7, 3610.4, 3905.2]
    fp8 = one(recs, 3905.2)
    assert has(fp8, 142.8, "ms") and has(fp8, 15.1, "ms")
    mixed = one(recs, 3610.4)
    assert has(mixed, 150.3, "ms") and has(mixed, 16.4, "ms")
    bf16 = one(recs, 2988.7)
    assert has(bf16, 171.9, "ms") and has(bf16, 19.8, "ms")


def test_k53_japanese_three_tables_prefill_decode_ttft(tmp_path):
    f, recs = drafts(tmp_path, "k53-trtllm-ja.md", dedent("""\
        # TensorRT-LLM 0.19 エンジン比較（Qwen2.5-32B-Instruct、H100 80GB 1 枚、2026-03-11）

        どちらも `trtllm-bench --model Qwen/Qwen2.5-32B-Instruct throughput --dataset synthetic_2048_256.jsonl`
        で 1 回ずつ測定した。

        ## プリフィル

        | エンジン | Prefill tok/s |
        |---|---|
        | TensorRT-LLM 0.19 FP8 engine (max_batch_size=128) | 18240 |
        | TensorRT-LLM 0.19 INT4-AWQ engine (max_batch_size=128) | 12110 |

        ## デコード

        | エンジン | Decode tok/s |
        |---|---|
        | TensorRT-LLM 0.19 FP8 engine (max_batch_size=128) | 2950.6 |
        | TensorRT-LLM 0.19 INT4-AWQ engine (max_batch_size=128) | 3388.2 |

        ## 最初のトークンまでの時間

        | エンジン | TTFT (ms) |
        |---|---|
        | TensorRT-LLM 0.19 FP8 engine (max_batch_size=128) | 210.4 |
        | TensorRT-LLM 0.19 INT4-AWQ engine (max_batch_size=128) | 305.7 |
        """))
    assert len(recs) == 2
    assert headlines(recs) == [2950.6, 3388.2]
    fp8 = one(recs, 2950.6)
    assert has(fp8, 18240, "tok/s") and has(fp8, 210.4, "ms")
    awq = one(recs, 3388.2)
    assert has(awq, 12110, "tok/s") and has(awq, 305.7, "ms")


def test_k53_french_two_tables_rows_in_another_order(tmp_path):
    f, recs = drafts(tmp_path, "k53-llamacpp-fr.md", dedent("""\
        # Llama-3.1-8B Q4_K_M sur une RTX 4080 SUPER — cache KV et flash attention

        Chaque configuration : une exécution de `./llama-bench -m llama-3.1-8b-q4_k_m.gguf -ngl 99 -p 512 -n 128`
        avec les options indiquées, le 2026-03-14.

        ## Traitement du prompt

        | Configuration | pp512 (t/s) |
        |---|---|
        | llama.cpp b6100, CUDA, -fa 1, -ctk q8_0 -ctv q8_0 | 5120.4 |
        | llama.cpp b6100, CUDA, -fa 1, f16 KV cache | 5230.8 |
        | llama.cpp b6100, CUDA, -fa 0, f16 KV cache | 4610.2 |

        ## Génération

        Même ordre inversé, pour changer : on a relancé en commençant par -fa 0.

        | Configuration | tg128 (t/s) |
        |---|---|
        | llama.cpp b6100, CUDA, -fa 0, f16 KV cache | 141.2 |
        | llama.cpp b6100, CUDA, -fa 1, f16 KV cache | 146.9 |
        | llama.cpp b6100, CUDA, -fa 1, -ctk q8_0 -ctv q8_0 | 139.5 |
        """))
    assert len(recs) == 3
    assert headlines(recs) == [139.5, 141.2, 146.9]
    assert has(one(recs, 139.5), 5120.4, "tok/s")
    assert has(one(recs, 146.9), 5230.8, "tok/s")
    assert has(one(recs, 141.2), 4610.2, "tok/s")


def test_k53_counter_numeric_row_labels_two_different_sweeps(tmp_path):
    f, recs = drafts(tmp_path, "k53-sweeps.md", dedent("""\
        # Qwen2.5-1.5B-Instruct on a Jetson Orin NX 16GB, vLLM 0.8.4 (JetPack 6.2) — 2026-03-16

        ## Offline: batch size sweep

        `python benchmarks/benchmark_throughput.py --input-len 256 --output-len 256 --max-num-seqs B`

        | B | Output tok/s |
        |---|---|
        | 1 | 62.4 |
        | 2 | 121.0 |
        | 4 | 236.8 |

        ## Online: concurrency sweep

        `vllm bench serve --dataset-name random --random-input-len 256 --random-output-len 256 --max-concurrency C`

        | C | Output tok/s |
        |---|---|
        | 1 | 58.9 |
        | 2 | 110.3 |
        | 4 | 204.5 |
        """))
    assert len(recs) == 6
    assert headlines(recs) == [58.9, 62.4, 110.3, 121.0, 204.5, 236.8]


def test_k53_counter_engine_name_rows_offline_vs_online(tmp_path):
    f, recs = drafts(tmp_path, "k53-engines.md", dedent("""\
        # vLLM vs SGLang, Llama-3.1-8B-Instruct on one H100 — 2026-03-17

        ## Offline throughput (1,000 prompts submitted at once)

        | Engine | Output tok/s |
        |---|---|
        | vLLM | 5210.4 |
        | SGLang | 5402.9 |

        ## Online serving, 8 req/s Poisson arrivals

        | Engine | Output tok/s | Median TTFT (ms) |
        |---|---|---|
        | vLLM | 1921.3 | 88.0 |
        | SGLang | 1930.8 | 74.2 |
        """))
    assert len(recs) == 4
    assert headlines(recs) == [1921.3, 1930.8, 5210.4, 5402.9]
    assert has(one(recs, 1930.8), 74.2, "ms")
    assert not any_metric([one(recs, 5402.9)], 74.2)


# =============================================================================================
# k54: `Output tok/s: 4287.6`-style list items and lines give figures to their run
# =============================================================================================


def test_k54_list_items_under_each_run_section(tmp_path):
    f, recs = drafts(tmp_path, "k54-sglang.md", dedent("""\
        # SGLang 0.5.2 — Qwen3-32B on 2x H100 (TP=2), 2026-04-08

        ## Run A: default scheduler

        `python -m sglang.bench_serving --backend sglang --dataset-name random --random-input-len 1024
        --random-output-len 512 --num-prompts 1000 --max-concurrency 128`

        - Requests: 1000
        - Output tok/s: 4287.6
        - TTFT (ms): 45.2
        - TPOT (ms): 27.9

        ## Run B: `--schedule-policy lpm`

        Same client command.

        - Requests: 1000
        - Output tok/s: 4690.3
        - TTFT (ms): 41.8
        - TPOT (ms): 26.6
        """))
    assert len(recs) == 2
    assert headlines(recs) == [4287.6, 4690.3]
    a = one(recs, 4287.6)
    assert has(a, 45.2, "ms") and has(a, 27.9, "ms")
    b = one(recs, 4690.3)
    assert has(b, 41.8, "ms") and has(b, 26.6, "ms") and not has(b, 45.2, "ms")
    assert not any_metric(recs, 1000)
    assert outcomes(recs) == {4287.6: "baseline", 4690.3: "improved"}


def test_k54_bold_labels_spanish_llama_server(tmp_path):
    f, recs = drafts(tmp_path, "k54-cuantizacion.md", dedent("""\
        # llama-server b6150 con Qwen2.5-14B-Instruct en una RTX 4070 Ti SUPER 16GB — 2026-04-12

        Misma petición de 1.500 tokens de entrada y 400 de salida; cifras del campo `timings` de la respuesta.

        ### Prueba 1 — Q4_K_M

        `llama-server -m qwen2.5-14b-instruct-q4_k_m.gguf -ngl 99 -c 16384`

        - **Prefill tokens/s**: 2450.3
        - **Decode tokens/s**: 88.1
        - **TTFT (ms)**: 312.0

        ### Prueba 2 — Q6_K

        `llama-server -m qwen2.5-14b-instruct-q6_k.gguf -ngl 99 -c 16384`

        - **Prefill tokens/s**: 2198.6
        - **Decode tokens/s**: 71.4
        - **TTFT (ms)**: 348.5
        """))
    assert len(recs) == 2
    assert headlines(recs) == [71.4, 88.1]
    q4 = one(recs, 88.1)
    assert has(q4, 2450.3, "tok/s") and has(q4, 312.0, "ms")
    q6 = one(recs, 71.4)
    assert has(q6, 2198.6, "tok/s") and has(q6, 348.5, "ms")
    assert outcomes(recs) == {88.1: "baseline", 71.4: "regressed"}


def test_k54_console_lines_after_each_client_command(tmp_path):
    f, recs = drafts(tmp_path, "client-runs.txt", dedent("""\
        $ python client.py --url http://localhost:8000 --concurrency 32 --num-requests 640
        Requests: 640
        Failed: 0
        Output tok/s: 2875.4
        TTFT (ms): 118.9
        TPOT (ms): 10.7

        $ python client.py --url http://localhost:8000 --concurrency 64 --num-requests 640
        Requests: 640
        Failed: 0
        Output tok/s: 4102.6
        TTFT (ms): 201.3
        TPOT (ms): 14.9
        """))
    assert len(recs) == 2
    assert failed(recs) == []
    assert headlines(recs) == [2875.4, 4102.6]
    assert has(one(recs, 2875.4), 118.9, "ms") and has(one(recs, 2875.4), 10.7, "ms")
    assert has(one(recs, 4102.6), 201.3, "ms") and has(one(recs, 4102.6), 14.9, "ms")
    assert not any_metric(recs, 640)


def test_k54_chinese_numbered_items(tmp_path):
    f, recs = drafts(tmp_path, "k54-量化.md", dedent("""\
        # DeepSeek-R1-Distill-Qwen-14B 解码速度（单卡 RTX 4090，vLLM 0.9.2，2026-05-21）

        ## 配置一：BF16

        命令：`vllm bench throughput --model deepseek-ai/DeepSeek-R1-Distill-Qwen-14B --input-len 512 --output-len 512 --num-prompts 200`

        1. Output tok/s: 1532.8
        2. Mean TTFT (ms): 96.4

        ## 配置二：AWQ INT4

        命令同上，只是换成 AWQ 权重并加 `--quantization awq_marlin`。

        1. Output tok/s: 2210.5
        2. Mean TTFT (ms): 71.0
        """))
    assert len(recs) == 2
    assert headlines(recs) == [1532.8, 2210.5]
    assert has(one(recs, 1532.8), 96.4, "ms")
    assert has(one(recs, 2210.5), 71.0, "ms")
    assert all(str(r.date) == "2026-05-21" for r in recs)


def test_k54_counter_setup_list_without_figures_is_no_attempt(tmp_path):
    f, recs = drafts(tmp_path, "k54-plan.md", dedent("""\
        # Plan: Mixtral-8x7B-Instruct load test on 4x A100 40GB (next week)

        Nothing has been run yet; this is the setup we agreed on.

        - Requests: 1000
        - Concurrency: 64
        - Input length: 1024
        - GPUs: 4
        """))
    assert recs == []


def test_k54_counter_count_items_beside_a_figure_are_not_figures(tmp_path):
    f, recs = drafts(tmp_path, "k54-one-run.md", dedent("""\
        ## Mixtral-8x7B-Instruct on 4x A100 40GB (TP=4), vLLM 0.10.0 — 2026-05-30

        `vllm bench serve --dataset-name sharegpt --num-prompts 1000 --max-concurrency 64`

        - Requests: 1000
        - Concurrency: 64
        - Output tok/s: 3321.5
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == pytest.approx(3321.5)
    assert not any_metric(recs, 1000) and not any_metric(recs, 64)
