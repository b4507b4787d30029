"""Blind tests, kinds k25..k28 (expected values decided from the inputs before running kb).

k25 reference figures copied from others (vendor blog, paper) give no drafts; the author's own runs after
them are the attempts. k26 a run whose correctness check fails, or that prints a reference timing and then
dies (compiler error / traceback), is failed. k27 the same runs in a throughput table and a latency table are
one attempt per run. k28 a background server start whose log lines land later is not an attempt.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, failed, has, one, outcomes, serve_block, transcript, value


def _err(rec):
    return None if rec.error is None else rec.error.strip().strip("`").strip()


# =============================================================================================
# k25: someone else's figures give no drafts; the author's own runs after them are the attempts
# =============================================================================================


def test_k25_vendor_blog_table_then_own_list_runs(tmp_path):
    f, recs = drafts(tmp_path, "k25-vendor-2026-03-04.md", dedent("""\
        # Kimi-K2.5 serving throughput — 2026-03-04

        The figures below are copied from the vendor's launch blog post; they were not measured by us
        and use a different workload (their numbers, 8x B200, FP4).

        | engine | concurrency | output tok/s |
        |---|---:|---:|
        | vLLM | 32 | 5,200 |
        | SGLang | 32 | 6,100 |

        ## Our runs (8x H200, 1024 in / 512 out, concurrency 32)

        - baseline, `vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 32 --num-prompts 512`: 3,480 output tok/s
        - with `--enable-chunked-prefill --max-num-batched-tokens 8192` on the server, same bench command: 3,910 output tok/s
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {3480: "baseline", 3910: "improved"}
    assert not [r for r in recs if value(r) in (5200, 6100)]


@pytest.mark.xfail(strict=True, reason="kb misses the German attribution (stammen aus dem Paper, nicht von uns gemessen): the 2 paper rows become drafts (41.2 baseline, 172.8 improved) and all 3 own runs are marked improved against 41.2")
def test_k25_paper_figures_german_then_own_runs(tmp_path):
    f, recs = drafts(tmp_path, "k25-papier.md", dedent("""\
        # Durchsatzmessung Kimi-K2.5, EAGLE-3

        Die folgenden Werte stammen aus dem EAGLE-3-Paper und wurden nicht von uns gemessen:

        | Modell | Methode | tok/s |
        |---|---|---:|
        | LLaMA-70B | Vanilla | 41.2 |
        | LLaMA-70B | EAGLE-3 | 172.8 |

        ## Eigene Läufe

        - Basislauf ohne Spekulation, `python -m sglang.bench_one_batch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --batch-size 1`: 82.0 output tok/s
        - mit `--speculative-algorithm EAGLE3 --speculative-num-steps 3`: 96.5 output tok/s
        - mit `--speculative-algorithm EAGLE3 --speculative-num-steps 6`: 81.6 output tok/s
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {82.0: "baseline", 96.5: "improved", 81.6: "neutral"}
    assert not [r for r in recs if value(r) in (41.2, 172.8)]


def test_k25_transcript_quotes_vendor_table_then_runs(tmp_path):
    text = transcript(tmp_path, [
        ("user", "How do we compare with the numbers NVIDIA published? Then try FP8 KV cache."),
        ("say", "For reference, these are NVIDIA's published figures (from their tech blog, not measured by us):\n\n"
                "| config | output tok/s |\n|---|---:|\n| TRT-LLM, conc 64 | 7,450 |\n| TRT-LLM, conc 128 | 9,020 |\n\n"
                "Now our own baseline on this box."),
        ("run", "vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 64 --num-prompts 512",
         serve_block("2987.4")),
        ("say", "Restarted the server with --kv-cache-dtype fp8 and reran the same benchmark."),
        ("run", "vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 64 --num-prompts 512  # server: --kv-cache-dtype fp8",
         serve_block("3345.1")),
    ])
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 2
    assert outcomes(recs) == {2987.4: "baseline", 3345.1: "improved"}


# =============================================================================================
# k26: a failing correctness check or a crash after a reference timing is a failed attempt
# =============================================================================================


def test_k26_max_abs_err_fail_is_failed_despite_speed(tmp_path):
    f, recs = drafts(tmp_path, "k26-fused-moe.md", dedent("""\
        # Fused MoE kernel, decode — 2026-03-05

        ## Baseline (Triton fused_moe)

        ```
        $ python bench_moe.py --impl triton --batch 64
        output throughput: 3,480 tok/s
        max abs err: 3.1e-03 (PASS)
        ```

        ## Hand-written CUDA kernel, v1

        ```
        $ python bench_moe.py --impl cuda_v1 --batch 64
        output throughput: 4,120 tok/s
        max abs err: 2.1e+01 (FAIL)
        ```
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {3480: "baseline", 4120: "failed"}
    assert len(failed(recs)) == 1


def test_k26_reference_timing_then_compiler_error(tmp_path):
    f, recs = drafts(tmp_path, "console.txt", dedent("""\
        $ python bench_attn.py --impl flashinfer --batch 32
        flashinfer decode: 1.82 ms/step, output throughput: 17582 tok/s
        $ python bench_attn.py --impl custom --batch 32
        flashinfer reference: 1.82 ms/step
        building extension custom_attn ...
        csrc/decode_attn.cu(118): error: identifier "__hmax2_nan" is undefined
        csrc/decode_attn.cu(131): error: no instance of overloaded function "atomicMax" matches the argument list
        2 errors detected in the compilation of "csrc/decode_attn.cu".
        RuntimeError: Error building extension 'custom_attn'
        """))
    assert len(recs) == 2
    bad = failed(recs)
    assert len(bad) == 1
    assert _err(bad[0]) == 'csrc/decode_attn.cu(118): error: identifier "__hmax2_nan" is undefined'
    assert one(recs, 17582).outcome.value != "failed"


def test_k26_spanish_transcript_verification_failed_and_traceback(tmp_path):
    text = transcript(tmp_path, [
        ("user", "Prueba el kernel de cuantización nuevo contra la referencia."),
        ("run", "python bench_quant.py --impl marlin",
         "Throughput: 3650 tok/s\nverification: PASSED\n"),
        ("say", "La referencia pasa. Ahora el kernel nuevo."),
        ("run", "python bench_quant.py --impl w4a8_new",
         "Throughput: 4410 tok/s\nverification: FAILED (12/64 outputs mismatch)\n"),
        ("say", "Da resultados incorrectos. Pruebo la variante con torch.compile."),
        ("run", "python bench_quant.py --impl w4a8_compiled",
         "marlin reference: 2.40 ms\n"
         "Traceback (most recent call last):\n"
         '  File "bench_quant.py", line 88, in <module>\n'
         "    out = kernel(x, w)\n"
         '  File "quant/w4a8.py", line 41, in forward\n'
         "    return ops.w4a8_gemm(x, self.qweight, self.scales)\n"
         "RuntimeError: w4a8_gemm: expected scales of dtype float16, got bfloat16\n", True),
    ])
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 3
    assert outcomes(recs)[3650] == "baseline"
    assert outcomes(recs)[4410] == "failed"
    bad = failed(recs)
    assert len(bad) == 2
    assert "RuntimeError: w4a8_gemm: expected scales of dtype float16, got bfloat16" in [_err(r) for r in bad]


# =============================================================================================
# k27: the same runs in a throughput table and a latency table are one attempt per run
# =============================================================================================


def test_k27_throughput_and_latency_tables_same_runs(tmp_path):
    f, recs = drafts(tmp_path, "k27-engines.md", dedent("""\
        # vLLM vs SGLang, Kimi-K2.5 TP8 — 2026-03-06

        Each engine was benchmarked with `vllm bench serve --num-prompts 256 --random-input-len 1024
        --random-output-len 512` at concurrency 1 and 16.

        ### Throughput

        | engine | concurrency | tok/s |
        |---|---:|---:|
        | vLLM | 1 | 81.4 |
        | vLLM | 16 | 902.5 |
        | SGLang | 1 | 88.7 |
        | SGLang | 16 | 1011.3 |

        ### Latency

        | concurrency | engine | TTFT p50 (ms) |
        |---:|---|---:|
        | 1 | vLLM | 190.2 |
        | 1 | SGLang | 175.6 |
        | 16 | vLLM | 412.9 |
        | 16 | SGLang | 388.0 |
        """))
    assert len(recs) == 4
    assert sorted(value(r) for r in recs) == [81.4, 88.7, 902.5, 1011.3]
    assert has(one(recs, 81.4), 190.2, "ms")
    assert has(one(recs, 88.7), 175.6, "ms")
    assert has(one(recs, 902.5), 412.9, "ms")
    assert has(one(recs, 1011.3), 388.0, "ms")


def test_k27_french_sweep_tables_in_reverse_order(tmp_path):
    f, recs = drafts(tmp_path, "k27-balayage.md", dedent("""\
        # Balayage de concurrence, vLLM, Kimi-K2.5

        Une commande `vllm bench serve --max-concurrency N` par valeur de N.

        ## Débit

        | engine | concurrency | tok/s |
        |---|---:|---:|
        | vLLM | 8 | 604.0 |
        | vLLM | 32 | 1850.5 |
        | vLLM | 64 | 2710.2 |

        ## Latence

        | concurrency | engine | TTFT p50 |
        |---:|---|---:|
        | 64 | vLLM | 930 ms |
        | 32 | vLLM | 515 ms |
        | 8 | vLLM | 240 ms |
        """))
    assert len(recs) == 3
    assert sorted(value(r) for r in recs) == [604.0, 1850.5, 2710.2]
    assert has(one(recs, 604.0), 240, "ms")
    assert has(one(recs, 1850.5), 515, "ms")
    assert has(one(recs, 2710.2), 930, "ms")


@pytest.mark.xfail(strict=True, reason="kb gives no drafts at all for tables in an assistant message of a transcript with no tool runs")
def test_k27_transcript_tables_only_summary(tmp_path):
    text = transcript(tmp_path, [
        ("user", "Paste the numbers from yesterday's runs, split by throughput and latency."),
        ("say", "Throughput:\n\n| engine | concurrency | tok/s |\n|---|---:|---:|\n"
                "| SGLang | 4 | 301.9 |\n| SGLang | 48 | 2244.0 |\n\n"
                "Latency:\n\n| concurrency | engine | TTFT p50 (ms) |\n|---:|---|---:|\n"
                "| 48 | SGLang | 702.3 |\n| 4 | SGLang | 160.8 |\n"),
    ])
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 2
    assert has(one(recs, 301.9), 160.8, "ms")
    assert has(one(recs, 2244.0), 702.3, "ms")


# =============================================================================================
# k28: a background server start whose log lands after the next prompts is not an attempt
# =============================================================================================


def test_k28_vllm_serve_background_then_two_benches(tmp_path):
    f, recs = drafts(tmp_path, "console.txt", dedent("""\
        $ vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8 --port 8000 &
        [1] 48213
        $ sleep 240; curl -s localhost:8000/health
        INFO 03-07 10:02:11 [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000
        INFO 03-07 10:02:11 [default_loader.py:262] Loading weights took 212.40 seconds
        INFO:     Application startup complete.
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 16 --num-prompts 256
        INFO 03-07 10:03:02 [loggers.py:118] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 812.3 tokens/s
        ============ Serving Benchmark Result ============
        Successful requests:                     256
        Output token throughput (tok/s):         1432.7
        Mean TTFT (ms):                          188.10
        ==================================================
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 64 --num-prompts 256
        INFO 03-07 10:05:40 [loggers.py:118] Avg prompt throughput: 9120.4 tokens/s, Avg generation throughput: 2901.6 tokens/s
        ============ Serving Benchmark Result ============
        Successful requests:                     256
        Output token throughput (tok/s):         3480.2
        Mean TTFT (ms):                          455.70
        ==================================================
        """))
    assert len(recs) == 2
    assert sorted(value(r) for r in recs) == [1432.7, 3480.2]
    assert failed(recs) == []


def test_k28_sglang_launch_server_background_log_interleaved(tmp_path):
    f, recs = drafts(tmp_path, "capture.txt", dedent("""\
        $ python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --port 30000 > /dev/stdout 2>&1 &
        [1] 7731
        $ python -m sglang.bench_serving --backend sglang --num-prompts 200 --request-rate 4
        [2026-03-07 11:00:03 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=21.33 GB
        [2026-03-07 11:00:09 TP0] Decode batch. #running-req: 12, #token: 9012, gen throughput (token/s): 644.18
        [2026-03-07 11:00:10] The server is fired up and ready to roll!

        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Successful requests:                     200
        Output token throughput (tok/s):         1598.4
        Median TTFT (ms):                        143.20
        ==================================================
        $ python -m sglang.bench_serving --backend sglang --num-prompts 200 --request-rate 16
        [2026-03-07 11:04:51 TP0] Decode batch. #running-req: 48, #token: 40112, gen throughput (token/s): 2512.77
        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Successful requests:                     200
        Output token throughput (tok/s):         2760.9
        Median TTFT (ms):                        301.50
        ==================================================
        """))
    assert len(recs) == 2
    assert sorted(value(r) for r in recs) == [1598.4, 2760.9]
    assert failed(recs) == []


def test_k28_japanese_comments_background_server(tmp_path):
    f, recs = drafts(tmp_path, "ログ.txt", dedent("""\
        # サーバーをバックグラウンドで起動する
        $ nohup vllm serve moonshotai/Kimi-K2.5 -tp 8 --kv-cache-dtype fp8 &
        [1] 90210
        # 起動を待ってからベンチマーク（ベースライン）
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 32 --num-prompts 320
        INFO 03-08 09:14:55 [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000
        INFO 03-08 09:14:56 [launcher.py:37] Route: /v1/completions, Methods: POST
        ============ Serving Benchmark Result ============
        Successful requests:                     320
        Output token throughput (tok/s):         2410.6
        Mean TTFT (ms):                          251.00
        ==================================================
        # 同じ条件で2回目（プレフィックスキャッシュを有効化したサーバー）
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 32 --num-prompts 320
        ============ Serving Benchmark Result ============
        Successful requests:                     320
        Output token throughput (tok/s):         2455.9
        Mean TTFT (ms):                          240.30
        ==================================================
        """))
    assert len(recs) == 2
    assert sorted(value(r) for r in recs) == [2410.6, 2455.9]
    assert failed(recs) == []
