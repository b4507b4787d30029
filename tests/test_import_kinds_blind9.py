"""Blind tests, kinds k44..k50 (expected values decided from the inputs before running kb).

k44 a results-table cell holding a figure with words naming its kind beside the unit (``69.3 output tok/s``,
``212 ms TTFT``, ``1,840 prefill tok/s``, ``41.5 tok/s decode``) under a header naming no unit (``primary
metric``, ``result``): each row is an attempt with that figure; ``8 GPUs`` / ``4 nodes used`` are not figures.
k45 a results table with a date column (``date``, ``Date``, ``run on``): each row's draft takes its own date.
k46 two or more configurations each measured at the same load levels: a row is compared with the reference
configuration's row at the same level; the reference rows are each a baseline. Counter-cases: knob tables
(flags on/off, quantization names) and a single sweep compare with the first row.
k47 a list of per-request / per-sample figures under a small summary table is not a set of attempts (the
summary's run is one attempt); without a summary the list is one attempt whose figure is the mean of the
items. Counter-case: a list of named configurations stays one attempt per item.
k48 a sentence or bullet denying a failure (``nothing errored``, ``no OOM and no crash``, ``zero failed
requests``) is not a failed attempt; a bullet saying a try crashed still is one.
k49 llama-benchy output: one invocation's table (one model) is one attempt with pp figures as
input_throughput and tg figures as output_throughput; two tables for two models are two attempts; a plain
llama-bench table over several depths is one attempt.
k50 a guidance table (``| Model size | VRAM | Offload needed? | Recommended |``, ✅/❌ answers) measures
nothing and gives no attempt; a results table with a ``Status`` ✅/❌ column and figures gives one attempt per
row, the ❌ rows failed.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, failed, has, headlines, one, outcomes, value


def in_unit(rec, unit):
    """The values of the draft's metrics that are in ``unit``."""
    return sorted(m.value for m in rec.metrics.values() if m.unit == unit)


def by_unit(recs, unit):
    """{the draft's one figure in ``unit``: outcome} (drafts with exactly one such figure)."""
    out = {}
    for r in recs:
        vals = in_unit(r, unit)
        if len(vals) == 1:
            out[vals[0]] = r.outcome.value
    return out


def seconds(rec):
    """The draft's time figures, in seconds (ms converted)."""
    vals = []
    for m in rec.metrics.values():
        if m.unit == "s":
            vals.append(m.value)
        elif m.unit == "ms":
            vals.append(m.value / 1000.0)
    return vals


def has_time(rec, secs, rel=1e-3):
    return any(v == pytest.approx(secs, rel=rel) for v in seconds(rec))


def no_metric_valued(recs, number):
    return all(m.value != pytest.approx(number) for r in recs for m in r.metrics.values())


# =============================================================================================
# k44: a figure whose kind is named by words beside the unit, under a header naming no unit
# =============================================================================================


def test_k44_primary_metric_output_tok_s_with_gpu_count_column(tmp_path):
    f, recs = drafts(tmp_path, "k44-kimi-decode.md", dedent("""\
        # Kimi-K2 decode tuning on 8x H200 — SGLang 0.5.1, 2026-07-14

        Each row is one `python -m sglang.bench_one_batch_server --model-path moonshotai/Kimi-K2-Instruct --tp 8
        --batch-size 1 --input-len 1024 --output-len 512` after restarting the server with the listed flags.

        | attempt | GPUs | primary metric | notes |
        |---|---|---|---|
        | default flags | 8 GPUs | 69.3 output tok/s | reference |
        | `--enable-torch-compile` | 8 GPUs | 74.8 output tok/s | compile took 6 min |
        | `--cuda-graph-max-bs 16` | 8 GPUs | 69.9 output tok/s | |
        | EAGLE-3, 3 draft steps | 8 GPUs | 97.2 output tok/s | best so far |
        """))
    assert len(recs) == 4
    assert headlines(recs) == [69.3, 69.9, 74.8, 97.2]
    assert all(r.metrics["output_throughput"].unit == "tok/s" for r in recs)
    assert outcomes(recs) == {69.3: "baseline", 74.8: "improved", 69.9: "neutral", 97.2: "improved"}
    assert no_metric_valued(recs, 8)


def test_k44_result_column_ms_ttft_lower_is_better(tmp_path):
    f, recs = drafts(tmp_path, "k44-ttft-chunk.md", dedent("""\
        # TTFT vs batched-token budget — Llama-3.3-70B-Instruct FP8, 2x H100 (TP=2), vLLM 0.10.1

        Client for every row: `vllm bench serve --dataset-name random --random-input-len 8192
        --random-output-len 64 --request-rate 2 --num-prompts 200`; the figure is the mean TTFT.

        | server flags | nodes | result |
        |:--|:--|:--|
        | default (`--max-num-batched-tokens 2048`) | 1 node used | 212 ms TTFT |
        | `--max-num-batched-tokens 8192` | 1 node used | 171 ms TTFT |
        | `--max-num-batched-tokens 16384` | 1 node used | 209 ms TTFT |
        | `--max-num-batched-tokens 512` | 1 node used | 388 ms TTFT |
        """))
    assert len(recs) == 4
    assert sorted(v for r in recs for v in in_unit(r, "ms")) == [171, 209, 212, 388]
    assert all(any("ttft" in name.lower() for name in r.metrics) for r in recs)
    assert by_unit(recs, "ms") == {212: "baseline", 171: "improved", 209: "neutral", 388: "regressed"}
    assert no_metric_valued(recs, 1)


def test_k44_prefill_tok_s_with_thousands_separator(tmp_path):
    f, recs = drafts(tmp_path, "k44-trtllm-prefill.md", dedent("""\
        # Prefill throughput, Qwen3-32B on one B200 — TensorRT-LLM 1.0

        `trtllm-bench --model Qwen/Qwen3-32B throughput --dataset isl16k_osl1.jsonl --num_requests 64`,
        a new engine per row.

        | engine build | result |
        |---|---|
        | BF16 weights, FP16 KV cache | 1,840 prefill tok/s |
        | BF16 weights, FP8 KV cache | 1,912 prefill tok/s |
        | FP8 weights, FP8 KV cache | 2,305 prefill tok/s |
        """))
    assert len(recs) == 3
    assert headlines(recs, "input_throughput") == [1840, 1912, 2305]
    assert all(has(r, value(r, "input_throughput"), "tok/s", "input_throughput") for r in recs)
    assert outcomes(recs, "input_throughput") == {1840: "baseline", 1912: "improved", 2305: "improved"}


def test_k44_french_tok_s_decode_word_after_the_unit(tmp_path):
    f, recs = drafts(tmp_path, "k44-llamacpp-fr.md", dedent("""\
        # Essais llama.cpp b6100 — Llama-3.1-8B sur RTX 4090

        Chaque ligne : `./llama-cli -m MODELE.gguf -n 256 -p "..."`, vitesse de génération lue sur la ligne
        `eval time`. Le premier essai sert de référence.

        | essai | -ngl | Result |
        |---|---|---|
        | Q4_K_M, -fa off | 99 | 41.5 tok/s decode |
        | Q4_K_M, -fa on | 99 | 44.2 tok/s decode |
        | Q5_K_M, -fa on | 99 | 38.0 tok/s decode |
        | Q4_K_M, -fa on, moitié des couches sur CPU | 16 | 17.9 tok/s decode |
        """))
    assert len(recs) == 4
    assert headlines(recs) == [17.9, 38.0, 41.5, 44.2]
    assert outcomes(recs) == {41.5: "baseline", 44.2: "improved", 38.0: "regressed", 17.9: "regressed"}


def test_k44_counter_allocation_table_has_no_figures(tmp_path):
    f, recs = drafts(tmp_path, "k44-allocation.md", dedent("""\
        # GPU allocation for the July serving benchmarks

        Who gets what on the shared H100 cluster while the benchmark campaign runs.

        | team | allocation | result |
        |---|---|---|
        | inference | 8 GPUs | granted |
        | training | 4 nodes used | pending |
        | eval | 2 GPUs | granted |

        Benchmarks start once the inference allocation is live.
        """))
    assert recs == []


# =============================================================================================
# k45: a date column dates each row's draft
# =============================================================================================


def test_k45_date_column_overrides_the_heading_date(tmp_path):
    f, recs = drafts(tmp_path, "k45-nightly.md", dedent("""\
        # Nightly decode check — Qwen3-30B-A3B on 1x H100, vLLM main (log started 2026-07-20)

        Same command every night: `vllm bench serve --dataset-name random --random-input-len 1024
        --random-output-len 256 --max-concurrency 32 --num-prompts 320`.

        | date | vLLM commit | Output tok/s | Mean TTFT (ms) |
        |---|---|---:|---:|
        | 2026-07-26 | 3f9a1c2 | 3120.5 | 88.1 |
        | 2026-07-27 | 7b21e04 | 3135.2 | 87.4 |
        | 2026-07-29 | c0d4e9a | 2790.8 | 102.6 |

        The drop on the 29th came with the new scheduler; bisecting.
        """))
    assert len(recs) == 3
    assert {value(r): str(r.date) for r in recs} == {
        3120.5: "2026-07-26", 3135.2: "2026-07-27", 2790.8: "2026-07-29"}
    assert outcomes(recs) == {3120.5: "baseline", 3135.2: "neutral", 2790.8: "regressed"}


def test_k45_capital_date_slashes_no_other_date(tmp_path):
    f, recs = drafts(tmp_path, "k45-jetson.md", dedent("""\
        ## llama.cpp on a Jetson AGX Orin 64GB — tg128 by build

        `./llama-bench -m Llama-3.2-3B-Instruct-Q4_K_M.gguf -ngl 99 -p 0 -n 128`, rebuilt from master each week.

        | Date | build | model | tg128 (t/s) |
        |------|-------|-------|-------------|
        | 2025/03/04 | b4820 | Llama-3.2-3B Q4_K_M | 27.4 |
        | 2025/03/11 | b4880 | Llama-3.2-3B Q4_K_M | 27.6 |
        | 2025/03/18 | b4932 | Llama-3.2-3B Q4_K_M | 29.9 |
        """))
    assert len(recs) == 3
    assert {value(r): str(r.date) for r in recs} == {27.4: "2025-03-04", 27.6: "2025-03-11", 29.9: "2025-03-18"}
    assert outcomes(recs) == {27.4: "baseline", 27.6: "neutral", 29.9: "improved"}


def test_k45_japanese_run_on_column_last(tmp_path):
    f, recs = drafts(tmp_path, "k45-trtllm-ja.md", dedent("""\
        # TensorRT-LLM 検証ログ（2026-05-02 作成）

        Llama-3.1-8B-Instruct FP8、H100 1 枚。毎回 `trtllm-bench --model meta-llama/Llama-3.1-8B-Instruct
        throughput --dataset synthetic_1024_128.jsonl` を実行し、エンジンはその日にビルドし直した。

        | engine build | Output tok/s | run on |
        |:--|--:|:--|
        | max_batch_size=64 | 10240 | 2026-05-04 |
        | max_batch_size=256 | 13810 | 2026-05-06 |
        | max_batch_size=256, paged KV FP8 | 15120 | 2026-05-07 |
        """))
    assert len(recs) == 3
    assert {value(r): str(r.date) for r in recs} == {10240: "2026-05-04", 13810: "2026-05-06", 15120: "2026-05-07"}
    assert outcomes(recs) == {10240: "baseline", 13810: "improved", 15120: "improved"}


def test_k45_date_column_weekly_versions_with_a_written_up_date(tmp_path):
    f, recs = drafts(tmp_path, "k45-sglang-weekly.md", dedent("""\
        # SGLang weekly regression run, DeepSeek-R1-Distill-Llama-70B on 4x A100 80GB (TP=4)

        Written up on 2026-02-27. `python -m sglang.bench_serving --dataset-name sharegpt --num-prompts 500
        --max-concurrency 64`.

        | Date | SGLang | Output tok/s |
        |---|---|---|
        | 2026-02-03 | 0.4.2 | 1480.2 |
        | 2026-02-10 | 0.4.3 | 1495.7 |
        | 2026-02-17 | 0.4.3.post2 | 1622.9 |
        | 2026-02-24 | 0.4.4 | 1398.0 |
        """))
    assert len(recs) == 4
    assert [str(r.date) for r in sorted(recs, key=lambda r: str(r.date))] == [
        "2026-02-03", "2026-02-10", "2026-02-17", "2026-02-24"]
    assert {value(r): str(r.date) for r in recs} == {
        1480.2: "2026-02-03", 1495.7: "2026-02-10", 1622.9: "2026-02-17", 1398.0: "2026-02-24"}


def test_k45_counter_no_date_column_rows_take_the_heading_date(tmp_path):
    f, recs = drafts(tmp_path, "k45-no-date-col.md", dedent("""\
        # vLLM 0.10.1 vs 0.10.2 on one A100 80GB — 2026-08-03

        `vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --dataset-name sharegpt --num-prompts 400
        --request-rate 8`, same server flags for both versions.

        | vLLM | Output tok/s |
        |---|---|
        | 0.10.1 | 2204.7 |
        | 0.10.2 | 2281.9 |
        """))
    assert len(recs) == 2
    assert all(str(r.date) == "2026-08-03" for r in recs)
    assert outcomes(recs) == {2204.7: "baseline", 2281.9: "improved"}


# =============================================================================================
# k46: several configurations at the same load levels, compared level by level
# =============================================================================================


def test_k46_tp4_vs_tp2_at_the_same_concurrencies(tmp_path):
    f, recs = drafts(tmp_path, "k46-tp.md", dedent("""\
        # Llama-3.3-70B-Instruct FP8 on 4x H100 — TP=4 vs two TP=2 replicas

        vLLM 0.10.0, `vllm bench serve --dataset-name random --random-input-len 2048 --random-output-len 256
        --max-concurrency C --num-prompts 10*C`. TP=4 is the current production setup.

        | parallelism | concurrency | Output tok/s | Mean TTFT (ms) |
        |---|---:|---:|---:|
        | TP=4 | 1 | 58.2 | 95.0 |
        | TP=4 | 4 | 214.6 | 110.3 |
        | TP=4 | 16 | 702.1 | 180.5 |
        | TP=4 | 64 | 1610.4 | 655.2 |
        | TP=2 x2 | 1 | 41.0 | 130.2 |
        | TP=2 x2 | 4 | 160.3 | 150.7 |
        | TP=2 x2 | 16 | 690.5 | 240.1 |
        | TP=2 x2 | 64 | 1905.8 | 610.4 |

        Two replicas only pay off once the batch is large.
        """))
    assert len(recs) == 8
    assert outcomes(recs) == {
        58.2: "baseline", 214.6: "baseline", 702.1: "baseline", 1610.4: "baseline",
        41.0: "regressed", 160.3: "regressed", 690.5: "neutral", 1905.8: "improved",
    }


def test_k46_engines_interleaved_by_batch_size(tmp_path):
    f, recs = drafts(tmp_path, "k46-engines-bs.md", dedent("""\
        # Offline decode, Mistral-7B-Instruct-v0.3 on one L40S — TensorRT-LLM 0.20 vs SGLang 0.4.9

        128 output tokens per request, input 512; each row is one run of the engine's offline benchmark at
        that batch size. TensorRT-LLM is the reference.

        | batch size | engine | TPOT (ms) | Output tok/s |
        |--:|:--|--:|--:|
        | 1 | TensorRT-LLM | 6.10 | 163.9 |
        | 1 | SGLang | 6.55 | 152.7 |
        | 8 | TensorRT-LLM | 7.02 | 1139.6 |
        | 8 | SGLang | 6.98 | 1146.1 |
        | 32 | TensorRT-LLM | 9.85 | 3248.7 |
        | 32 | SGLang | 8.90 | 3595.5 |
        """))
    assert len(recs) == 6
    assert outcomes(recs) == {
        163.9: "baseline", 1139.6: "baseline", 3248.7: "baseline",
        152.7: "regressed", 1146.1: "neutral", 3595.5: "improved",
    }


def test_k46_german_three_attention_backends_by_request_rate(tmp_path):
    f, recs = drafts(tmp_path, "k46-backends-de.md", dedent("""\
        # Attention-Backends in SGLang 0.5.0 — Qwen2.5-14B-Instruct auf einer H100

        Jeder Lauf: `python -m sglang.bench_serving --dataset-name random --random-input-len 2048
        --random-output-len 128 --num-prompts 400 --request-rate R`, Server jeweils mit
        `--attention-backend B` neu gestartet. Angegeben ist die mediane TTFT (kleiner ist besser);
        flashinfer ist der Standard und dient als Referenz.

        | Attention-Backend | Request rate | Median TTFT (ms) |
        |---|---|---|
        | flashinfer | 2 | 61.4 |
        | flashinfer | 8 | 83.9 |
        | flashinfer | 32 | 412.7 |
        | fa3 | 2 | 55.0 |
        | fa3 | 8 | 82.6 |
        | fa3 | 32 | 335.1 |
        | triton | 2 | 70.8 |
        | triton | 8 | 101.5 |
        | triton | 32 | 520.3 |
        """))
    assert len(recs) == 9
    assert outcomes(recs, "median_ttft") == {
        61.4: "baseline", 83.9: "baseline", 412.7: "baseline",
        55.0: "improved", 82.6: "neutral", 335.1: "improved",
        70.8: "regressed", 101.5: "regressed", 520.3: "regressed",
    }


def test_k46_chinese_two_gpus_same_concurrencies(tmp_path):
    f, recs = drafts(tmp_path, "k46-gpus-zh.md", dedent("""\
        # H100 与 H200 对比（Qwen3-32B BF16，vLLM 0.10.1，单卡）

        命令：`vllm bench serve --dataset-name random --random-input-len 1024 --random-output-len 512
        --max-concurrency C --num-prompts 8*C`。以 H100 为基准。

        | GPU | 并发 (concurrency) | Output tok/s |
        |---|---|---|
        | H100 80GB | 1 | 38.6 |
        | H100 80GB | 8 | 291.4 |
        | H100 80GB | 32 | 905.2 |
        | H200 141GB | 1 | 44.9 |
        | H200 141GB | 8 | 296.0 |
        | H200 141GB | 32 | 1288.7 |
        """))
    assert len(recs) == 6
    assert outcomes(recs) == {
        38.6: "baseline", 291.4: "baseline", 905.2: "baseline",
        44.9: "improved", 296.0: "neutral", 1288.7: "improved",
    }


def test_k46_counter_flags_on_off_compare_with_the_first_row(tmp_path):
    f, recs = drafts(tmp_path, "k46-flags.md", dedent("""\
        # Prefix caching x chunked prefill — Llama-3.1-8B-Instruct, one A100 80GB, vLLM 0.9.2

        `vllm bench serve --dataset-name sharegpt --num-prompts 1000 --request-rate 16`, one server restart
        per row.

        | prefix caching | chunked prefill | Output tok/s |
        |---|---|---|
        | off | off | 1502.0 |
        | on | off | 1580.3 |
        | off | on | 1555.0 |
        | on | on | 1610.7 |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {1502.0: "baseline", 1580.3: "improved", 1555.0: "improved", 1610.7: "improved"}


def test_k46_counter_quantization_bits_and_names_compare_with_the_first_row(tmp_path):
    f, recs = drafts(tmp_path, "k46-quants.md", dedent("""\
        # Qwen2.5-14B-Instruct GGUF quants on an RTX 4090 — llama.cpp b5400

        `./llama-bench -m qwen2.5-14b-instruct-QUANT.gguf -ngl 99 -fa 1 -p 0 -n 128`, one run per file.

        | bits | quant | tg128 (t/s) |
        |---|---|---|
        | 8 | Q8_0 | 61.8 |
        | 4 | Q4_K_M | 92.4 |
        | 4 | Q4_0 | 97.7 |
        | 4 | IQ4_XS | 94.0 |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {61.8: "baseline", 92.4: "improved", 97.7: "improved", 94.0: "improved"}


def test_k46_counter_single_concurrency_sweep_first_row_baseline(tmp_path):
    f, recs = drafts(tmp_path, "k46-one-sweep.md", dedent("""\
        # gpt-oss-20b on one RTX PRO 6000 — vLLM 0.10.2 concurrency sweep

        `vllm bench serve --model openai/gpt-oss-20b --dataset-name random --random-input-len 1024
        --random-output-len 1024 --max-concurrency C --num-prompts 8*C`.

        | concurrency | Output tok/s | Median TPOT (ms) |
        |---:|---:|---:|
        | 1 | 214.3 | 4.61 |
        | 4 | 735.0 | 5.32 |
        | 16 | 2190.8 | 7.10 |
        | 64 | 4820.5 | 12.88 |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {214.3: "baseline", 735.0: "improved", 2190.8: "improved", 4820.5: "improved"}


# =============================================================================================
# k47: per-request figures listed under a summary, or alone
# =============================================================================================


@pytest.mark.xfail(strict=True, reason="kb keeps the per-request list out (1 draft, right) but reads the two-column summary table's first row (`First request` 0.612 s) as the run's figure and drops the 0.229 s average")
def test_k47_numbered_requests_under_a_prefix_cache_summary(tmp_path):
    f, recs = drafts(tmp_path, "k47-prefix-cache.md", dedent("""\
        # Prefix caching check — Qwen2.5-7B-Instruct on one L4, vLLM 0.9.2, 2026-06-03

        Server: `vllm serve Qwen/Qwen2.5-7B-Instruct --enable-prefix-caching`. The client sends the same
        3,000-token system prompt with six different questions, one at a time, `max_tokens=1`, and times
        each request.

        | | latency |
        |---|---|
        | First request | 0.612 s |
        | Average (requests 2–6) | 0.229 s |
        | Speedup | 2.67x |

        1. Request 1: 0.612s (miss)
        2. Request 2: 0.235s (hit)
        3. Request 3: 0.226s (hit)
        4. Request 4: 0.231s (hit)
        5. Request 5: 0.224s (hit)
        6. Request 6: 0.229s (hit)
        """))
    assert len(recs) == 1
    [rec] = recs
    assert rec.outcome.value != "failed"
    assert has_time(rec, 0.229)
    assert not has_time(rec, 0.235) and not has_time(rec, 0.224)


def test_k47_prompt_bullets_after_a_one_row_summary_table(tmp_path):
    f, recs = drafts(tmp_path, "k47-gemma.md", dedent("""\
        ## llama-server, Gemma-3-12B-it Q4_K_M, RTX 3060 12GB (2026-06-10)

        `llama-server -m gemma-3-12b-it-Q4_K_M.gguf -ngl 99 -c 8192`, five prompts sent one after another,
        generation speed from the `timings` field of each response.

        | run | mean tok/s | min | max |
        |---|---|---|---|
        | gemma-3-12b Q4_K_M, -ngl 99 | 28.6 | 27.9 | 29.4 |

        - Prompt 1: 29.4 tok/s
        - Prompt 2: 28.1 tok/s
        - Prompt 3: 27.9 tok/s
        - Prompt 4: 29.0 tok/s
        - Prompt 5: 28.6 tok/s
        """))
    assert len(recs) == 1
    assert headlines(recs) == [28.6]


@pytest.mark.xfail(strict=True, reason="kb reads the summary table's rows (`primera solicitud` 184 ms, `promedio` 41 ms) as two attempts, not as one run's figures")
def test_k47_spanish_radix_cache_summary_then_requests_in_ms(tmp_path):
    f, recs = drafts(tmp_path, "k47-radix-es.md", dedent("""\
        # Caché radix de SGLang — Llama-3.1-8B-Instruct en una H100, 2026-06-12

        Cinco solicitudes con el mismo prefijo de 4.000 tokens, una tras otra, contra
        `python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct`. Se mide la TTFT.

        | métrica | valor |
        |---|---|
        | primera solicitud | 184 ms |
        | promedio (solicitudes 2–5) | 41 ms |
        | aceleración | 4.5x |

        1. Solicitud 1: 184 ms (miss)
        2. Solicitud 2: 43 ms (hit)
        3. Solicitud 3: 40 ms (hit)
        4. Solicitud 4: 41 ms (hit)
        5. Solicitud 5: 40 ms (hit)
        """))
    assert len(recs) == 1
    [rec] = recs
    assert rec.outcome.value != "failed"
    assert has_time(rec, 0.041)


def test_k47_numbered_prompts_without_summary_are_one_attempt_with_the_mean(tmp_path):
    f, recs = drafts(tmp_path, "k47-nemo.md", dedent("""\
        ## Mistral-Nemo-12B Q5_K_M on an RTX 4070 Ti SUPER — llama-cli b6050, 2026-06-15

        `llama-cli -m Mistral-Nemo-Instruct-2407-Q5_K_M.gguf -ngl 99 -n 256`, five different prompts,
        eval rate read from the timings line after each:

        1. Prompt 1: 42.1 tok/s
        2. Prompt 2: 43.5 tok/s
        3. Prompt 3: 41.8 tok/s
        4. Prompt 4: 44.0 tok/s
        5. Prompt 5: 42.6 tok/s
        """))
    assert len(recs) == 1
    assert value(recs[0]) == pytest.approx(42.8, abs=0.05)


def test_k47_request_latencies_without_summary_mean_in_seconds(tmp_path):
    f, recs = drafts(tmp_path, "k47-e2e.md", dedent("""\
        # End-to-end latency, Phi-4 (14B) via Ollama 0.9 on a MacBook Pro M3 Max — 2026-06-18

        Four identical chat requests (`ollama run phi4` with a 300-word summarisation prompt), wall time
        measured by the client:

        1. Request 1: 1.20s
        2. Request 2: 1.32s
        3. Request 3: 1.25s
        4. Request 4: 1.27s
        """))
    assert len(recs) == 1
    assert has_time(recs[0], 1.26, rel=5e-3)


def test_k47_counter_named_configurations_stay_one_attempt_each(tmp_path):
    f, recs = drafts(tmp_path, "k47-precisions.md", dedent("""\
        ## Llama-3.1-8B-Instruct decode by precision — TensorRT-LLM 0.19, one RTX 4090 (2026-06-20)

        Batch size 1, 512 output tokens, one engine per precision:

        - fp16: 41 tok/s
        - int8: 55 tok/s
        - int4: 63 tok/s
        """))
    assert len(recs) == 3
    assert headlines(recs) == [41, 55, 63]
    assert outcomes(recs) == {41: "baseline", 55: "improved", 63: "improved"}


# =============================================================================================
# k48: denied failures are not failed attempts
# =============================================================================================


def test_k48_nothing_errored_or_crashed_bullet_after_the_table(tmp_path):
    f, recs = drafts(tmp_path, "k48-dsv3.md", dedent("""\
        # SGLang 0.5.0 load test, DeepSeek-V3 on 8x H200 — 2026-07-02

        `python -m sglang.bench_serving --dataset-name sharegpt --num-prompts 2000 --max-concurrency C`.

        | max concurrency | Output tok/s | Median TTFT (ms) |
        |---|---|---|
        | 32 | 2210.4 | 410.2 |
        | 64 | 3480.9 | 655.7 |
        | 128 | 4622.0 | 1380.5 |

        - nothing errored or crashed during the test
        - the radix cache hit rate stayed around 30 %
        """))
    assert len(recs) == 3
    assert failed(recs) == []
    assert outcomes(recs) == {2210.4: "baseline", 3480.9: "improved", 4622.0: "improved"}


def test_k48_errors_none_nothing_hung_in_a_summary_list(tmp_path):
    f, recs = drafts(tmp_path, "k48-trtllm.md", dedent("""\
        ## TensorRT-LLM 0.21 throughput, Llama-3.1-70B-Instruct FP8, 4x H100 (TP=4) — 2026-07-05

        Ran `trtllm-bench --model meta-llama/Llama-3.1-70B-Instruct throughput --dataset isl2048_osl512.jsonl
        --tp 4` with 1,000 requests.

        - Output tok/s: 4310.7
        - Request throughput: 8.42 req/s
        - Errors: none, nothing hung
        """))
    assert len(recs) == 1
    [rec] = recs
    assert rec.outcome.value != "failed"
    assert value(rec) == pytest.approx(4310.7)


def test_k48_zero_failed_requests_and_no_oom_in_list_items(tmp_path):
    f, recs = drafts(tmp_path, "k48-gptoss.md", dedent("""\
        # gpt-oss-120b on one H200 — vLLM 0.10.2, `--max-num-seqs` sweep (2026-07-08)

        - `--max-num-seqs 64`: 2950.3 output tok/s; zero failed requests
        - `--max-num-seqs 128`: 3620.8 output tok/s; no OOM and no crash seen
        - `--max-num-seqs 256`: 3655.1 output tok/s, zero failed requests this time either
        """))
    assert len(recs) == 3
    assert failed(recs) == []
    assert outcomes(recs) == {2950.3: "baseline", 3620.8: "improved", 3655.1: "improved"}


def test_k48_german_no_errors_no_crash_sentence(tmp_path):
    f, recs = drafts(tmp_path, "k48-de.md", dedent("""\
        # Llama-3.1-8B-Instruct auf einer L4 — vLLM 0.9.1, 2026-07-09

        `vllm bench serve --dataset-name sharegpt --num-prompts 300 --request-rate R`

        | Request rate | Output tok/s |
        |---|---|
        | 1 | 198.4 |
        | 4 | 702.6 |

        Während des ganzen Tests gab es keinen Fehler und keinen Absturz; no OOM and no crash seen.
        """))
    assert len(recs) == 2
    assert failed(recs) == []


def test_k48_counter_int4_build_crashed_is_a_failed_attempt(tmp_path):
    f, recs = drafts(tmp_path, "k48-int4.md", dedent("""\
        # Qwen3-32B builds, TensorRT-LLM 1.0 on one L40S (2026-07-10)

        Batch size 1, 1024 in / 256 out, `trtllm-bench ... latency`.

        - fp16 build: 38.2 output tok/s, no OOM and no crash seen
        - fp8 build: 61.7 output tok/s, nothing errored
        - the int4 build crashed with an illegal memory access during the first request
        """))
    assert len(recs) == 3
    [bad] = failed(recs)
    assert value(bad) is None
    assert outcomes(recs) == {38.2: "baseline", 61.7: "improved"}


# =============================================================================================
# k49: llama-benchy and llama-bench tables over several depths
# =============================================================================================

BENCHY_HEAD = (
    "| model | test | t/s | peak t/s | ttfr (ms) | est_ppt (ms) | e2e_ttft (ms) |\n"
    "|:------|-----:|----:|---------:|----------:|-------------:|--------------:|\n"
)


def test_k49_llama_benchy_one_model_three_depths_is_one_attempt(tmp_path):
    m = "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"
    text = (
        f"$ uvx llama-benchy --base-url http://localhost:8000/v1 --model {m} --pp 2048 --tg 128 "
        "--depth 0 4096 8192 --latency-mode generation\n\n"
        + BENCHY_HEAD
        + f"| {m} | pp2048 | 6119.14 ± 770.05 | | 352.41 ± 41.20 | 334.69 ± 41.20 | 371.02 ± 40.88 |\n"
        + f"| {m} | tg128 | 148.62 ± 1.35 | 152.00 ± 1.00 | | | |\n"
        + f"| {m} | pp2048 @ d4096 | 4980.77 ± 210.33 | | 1251.90 ± 52.10 | 1234.18 ± 52.10 | 1270.44 ± 52.37 |\n"
        + f"| {m} | tg128 @ d4096 | 139.05 ± 0.92 | 143.00 ± 1.41 | | | |\n"
        + f"| {m} | pp2048 @ d8192 | 4102.50 ± 95.61 | | 2514.61 ± 58.40 | 2496.89 ± 58.40 | 2533.95 ± 58.62 |\n"
        + f"| {m} | tg128 @ d8192 | 131.40 ± 1.10 | 135.67 ± 0.94 | | | |\n"
        + "\nllama-benchy (build: 0fbd242)\n"
        + "date: 2026-07-21 14:02:37 | latency mode: generation\n"
    )
    f, recs = drafts(tmp_path, "benchy-qwen3-coder.txt", text)
    assert len(recs) == 1
    [rec] = recs
    for pp in (6119.14, 4980.77, 4102.50):
        assert has(rec, pp, "tok/s", "input_throughput")
    for tg in (148.62, 139.05, 131.40):
        assert has(rec, tg, "tok/s", "output_throughput")
    assert str(rec.date) == "2026-07-21"


def test_k49_llama_benchy_two_models_two_attempts(tmp_path):
    f, recs = drafts(tmp_path, "k49-benchy-two-models.md", dedent("""\
        # llama-benchy on the DGX Spark — vLLM 0.10.2, two models, 2026-07-22

        Server restarted between the models; same client both times:
        `llama-benchy --base-url http://spark:8000/v1 --model M --pp 2048 --tg 128 --runs 3`.

        ## gpt-oss-120b

        | model | test | t/s | peak t/s | ttfr (ms) | est_ppt (ms) | e2e_ttft (ms) |
        |:------|-----:|----:|---------:|----------:|-------------:|--------------:|
        | openai/gpt-oss-120b | pp2048 | 2019.02 ± 34.98 | | 1054.64 ± 17.57 | 1014.66 ± 17.57 | 1115.41 ± 18.70 |
        | openai/gpt-oss-120b | tg128 | 52.94 ± 1.01 | 55.33 ± 0.47 | | | |

        ## GLM-4.5-Air (FP8)

        | model | test | t/s | peak t/s | ttfr (ms) | est_ppt (ms) | e2e_ttft (ms) |
        |:------|-----:|----:|---------:|----------:|-------------:|--------------:|
        | zai-org/GLM-4.5-Air-FP8 | pp2048 | 1386.45 ± 20.11 | | 1517.80 ± 22.05 | 1477.14 ± 22.05 | 1590.26 ± 23.40 |
        | zai-org/GLM-4.5-Air-FP8 | tg128 | 31.27 ± 0.44 | 33.00 ± 0.82 | | | |
        """))
    assert len(recs) == 2
    assert headlines(recs) == [31.27, 52.94]
    assert has(one(recs, 52.94), 2019.02, "tok/s", "input_throughput")
    assert has(one(recs, 31.27), 1386.45, "tok/s", "input_throughput")
    assert all(r.outcome.value != "failed" for r in recs)


def test_k49_german_llama_benchy_in_notes_with_depths(tmp_path):
    f, recs = drafts(tmp_path, "k49-benchy-de.md", dedent("""\
        # SGLang 0.5.0, Llama-3.3-70B-Instruct AWQ auf 2x RTX 3090 (TP=2)

        Eine Messung mit `llama-benchy --base-url http://localhost:30000/v1 --model
        casperhansen/llama-3.3-70b-instruct-awq --pp 512 --tg 64 --depth 0 2048 --runs 5`:

        | model | test | t/s | peak t/s | ttfr (ms) | est_ppt (ms) | e2e_ttft (ms) |
        |:--|--:|--:|--:|--:|--:|--:|
        | casperhansen/llama-3.3-70b-instruct-awq | pp512 | 980.40 ± 44.12 | | 548.20 ± 24.30 | 522.24 ± 24.30 | 571.85 ± 25.02 |
        | casperhansen/llama-3.3-70b-instruct-awq | tg64 | 21.85 ± 0.31 | 23.00 ± 0.00 | | | |
        | casperhansen/llama-3.3-70b-instruct-awq | pp512 @ d2048 | 865.12 ± 30.77 | | 2985.74 ± 106.50 | 2959.78 ± 106.50 | 3012.63 ± 107.10 |
        | casperhansen/llama-3.3-70b-instruct-awq | tg64 @ d2048 | 20.12 ± 0.28 | 21.40 ± 0.49 | | | |

        Mit 2k Kontext verliert die Generierung knapp 8 %.
        """))
    assert len(recs) == 1
    [rec] = recs
    assert has(rec, 980.40, "tok/s", "input_throughput")
    assert has(rec, 865.12, "tok/s", "input_throughput")
    assert has(rec, 21.85, "tok/s", "output_throughput")
    assert has(rec, 20.12, "tok/s", "output_throughput")


def test_k49_plain_llama_bench_table_over_depths_is_one_attempt(tmp_path):
    f, recs = drafts(tmp_path, "llama-bench-depths.txt", dedent("""\
        $ ./llama-bench -m Qwen3-30B-A3B-Q4_K_M.gguf -ngl 99 -fa 1 -p 2048 -n 128 -d 0,4096,16384
        ggml_cuda_init: found 1 CUDA devices:
          Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: yes
        | model                          |       size |     params | backend    | ngl |            test |                  t/s |
        | ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: | -------------------: |
        | qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |          pp2048 |      5210.44 ± 30.12 |
        | qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |           tg128 |        182.35 ± 0.60 |
        | qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |  pp2048 @ d4096 |      4410.90 ± 22.80 |
        | qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |   tg128 @ d4096 |        160.12 ± 0.45 |
        | qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 | pp2048 @ d16384 |      2990.31 ± 12.05 |
        | qwen3moe 30B.A3B Q4_K - Medium |  17.28 GiB |    30.53 B | CUDA       |  99 |  tg128 @ d16384 |        121.77 ± 0.38 |

        build: 6a2b7c1d (6310)
        """))
    assert len(recs) == 1
    [rec] = recs
    for pp in (5210.44, 4410.90, 2990.31):
        assert has(rec, pp, "tok/s", "input_throughput")
    for tg in (182.35, 160.12, 121.77):
        assert has(rec, tg, "tok/s", "output_throughput")


# =============================================================================================
# k50: guidance tables measure nothing; a Status ✅/❌ results table does
# =============================================================================================


def test_k50_offload_guidance_table_gives_no_attempt(tmp_path):
    f, recs = drafts(tmp_path, "k50-16gb-guide.md", dedent("""\
        # Which GGUF models fit a 16GB card? (RTX 4080 / RTX 4060 Ti 16GB)

        Rule of thumb for llama.cpp with 8k context, from the model file sizes.

        | Model size | VRAM | Offload needed? | Recommended |
        |---|---|---|---|
        | 7B Q4_K_M | 16GB | ❌ | ✅ |
        | 14B Q4_K_M | 16GB | ❌ | ✅ |
        | 32B Q4_K_M | 16GB | ✅ | ❌ |
        | 70B Q4_K_M | 16GB | ✅ | ❌ |
        """))
    assert recs == []


def test_k50_fits_question_column_with_notes_gives_no_attempt(tmp_path):
    f, recs = drafts(tmp_path, "k50-fit-notes.md", dedent("""\
        ## Planning: models for the 16GB inference box

        | Model size | VRAM | Fits without offload? | Recommended | Notes |
        |:--|:--|:-:|:-:|:--|
        | 8B (Q8_0) | 16GB | ✅ | ✅ | room for 32k context |
        | 12B (Q6_K) | 16GB | ✅ | ✅ | |
        | 24B (Q4_K_M) | 16GB | ✅ | ❌ | only ~4k context left |
        | 32B (Q4_K_M) | 16GB | ❌ | ❌ | needs `-ngl 40` or so |

        Nothing has been benchmarked yet; this is what to try first.
        """))
    assert recs == []


def test_k50_guidance_table_then_one_real_measurement(tmp_path):
    f, recs = drafts(tmp_path, "k50-guide-then-run.md", dedent("""\
        # 16GB card notes — RTX 4060 Ti 16GB, llama.cpp b5900 (2026-07-25)

        | Model size | VRAM | Offload needed? | Recommended |
        |---|---|---|---|
        | 8B Q4_K_M | 16GB | ❌ | ✅ |
        | 14B Q4_K_M | 16GB | ❌ | ✅ |
        | 32B Q4_K_M | 16GB | ✅ | ❌ |

        ## What I actually measured

        ```
        $ ./llama-bench -m Qwen2.5-14B-Instruct-Q4_K_M.gguf -ngl 99 -p 512 -n 128
        | model                          |       size |     params | backend    | ngl |          test |                  t/s |
        | ------------------------------ | ---------: | ---------: | ---------- | --: | ------------: | -------------------: |
        | qwen2 14B Q4_K - Medium        |   8.37 GiB |    14.77 B | CUDA       |  99 |         pp512 |      1180.42 ± 6.10 |
        | qwen2 14B Q4_K - Medium        |   8.37 GiB |    14.77 B | CUDA       |  99 |         tg128 |         31.70 ± 0.05 |

        build: 1c5ae4b2 (5900)
        ```
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == pytest.approx(31.70)
    assert has(rec, 1180.42, "tok/s", "input_throughput")


def test_k50_counter_status_column_with_figures_one_attempt_per_row(tmp_path):
    f, recs = drafts(tmp_path, "k50-status.md", dedent("""\
        # Llama-3.1-8B-Instruct quantizations on one H100 — vLLM 0.10.1 (2026-07-26)

        `vllm bench serve --dataset-name random --random-input-len 1024 --random-output-len 256
        --max-concurrency 16 --num-prompts 160` against a server started with each checkpoint.

        | model | quant | Output tok/s | Status |
        |---|---|---|---|
        | Llama-3.1-8B | BF16 | 1820.5 | ✅ |
        | Llama-3.1-8B | FP8 | 2710.2 | ✅ |
        | Llama-3.1-8B | NVFP4 | — | ❌ |
        | Llama-3.1-8B | INT4 AWQ | 2495.0 | ✅ |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {1820.5: "baseline", 2710.2: "improved", 2495.0: "improved"}
    [bad] = failed(recs)
    assert value(bad) is None


def test_k50_counter_status_cross_with_a_figure_is_still_failed(tmp_path):
    f, recs = drafts(tmp_path, "k50-status-dp.md", dedent("""\
        # Kimi-K2 serving flags, SGLang 0.5.1 on 8x H200 (2026-07-27)

        | config | Output tok/s | Status |
        |:--|--:|:-:|
        | TP=8 (default) | 85.0 | ✅ |
        | TP=8 + `--enable-dp-attention` | 97.3 | ❌ |
        | TP=8 + `--enable-torch-compile` | 88.6 | ✅ |
        """))
    assert len(recs) == 3
    assert one(recs, 85.0).outcome.value == "baseline"
    assert one(recs, 88.6).outcome.value == "improved"
    [bad] = failed(recs)
    assert value(bad) in (None, 97.3)
