"""Blind tests, kinds k51..k55 of the eleventh round (expected values decided from the inputs before running kb).

k51 PyTorch profiler summaries (``prof.key_averages().table()``: dashed separators, a header Name / Self CPU % /
Self CPU / CPU total % / CPU total / CPU time avg / Self CUDA / Self CUDA % / CUDA total / CUDA time avg / # of
Calls, operator rows, then ``Self CPU time total: X`` and ``Self CUDA time total: Y``), in a fenced block or as a
Markdown pipe table, one per optimisation step under its own heading: each table is ONE attempt whose figure is
a ``time`` metric equal to the Self CUDA time total (unit as printed: s, ms or us); the first step is the
baseline, later ones improved/regressed/neutral against it (lower is better). Operator rows are not attempts.
A CPU-only profile (no CUDA columns, only ``Self CPU time total``) takes that total as its time.
k52 a results table with a column of per-run samples as a list (``Runs (tok/s)`` holding ``113.3, 109.6,
114.1``) and a unit-less summary column headed ``Average`` / ``Mean`` / ``Median``: each row is one attempt whose
figure is the summary value, in the samples column's unit (not one of the samples).
k53 a grid of two or more on/off (0/1, true/false, two numeric states) knobs with one figure column: every row
is compared with the FIRST row, the baseline. Counter-cases that keep their blocks: two models each measured at
batch 1/8/32 (model column repeated) compare within each model; an engine column alternating under a
batch-size column compares within each batch size.
k54 a table whose first column names a group only on the group's first row (``| **Qwen3-8B** | Baseline | 52.7
|`` then ``| | ... |``): blank cells mean the same group; each group's first row is its baseline.
k55 a prose line or bullet restating a table row's figures under a shorter name (``Baseline: 295.8 tok/s, TTFT
3014 ms`` after a table with ``Avg Throughput (tok/s)`` / ``Mean TTFT (ms)`` columns) adds no attempt.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, failed, has, headlines, outcomes


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


def times(recs):
    """{the draft's ``time`` figure: its unit}."""
    return {r.metrics["time"].value: r.metrics["time"].unit for r in recs if "time" in r.metrics}


# --- PyTorch profiler output ------------------------------------------------------------------

CUDA_HEAD = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
             "Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg", "# of Calls"]
CPU_HEAD = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]


def prof_table(rows, cpu_total, cuda_total=None):
    """The text ``print(prof.key_averages().table(...))`` writes, for the operator rows given."""
    head = CUDA_HEAD if cuda_total is not None else CPU_HEAD
    widths = [max(len(r[0]) for r in rows) + 6] + [12] * (len(head) - 1)
    sep = "  ".join("-" * w for w in widths) + "  "

    def line(cells):
        return "  ".join(c.rjust(w) for c, w in zip(cells, widths)) + "  "

    out = [sep, line(head), sep] + [line(r) for r in rows] + [sep, f"Self CPU time total: {cpu_total}"]
    if cuda_total is not None:
        out.append(f"Self CUDA time total: {cuda_total}")
    return "\n".join(out) + "\n"


def fenced(table, lang=""):
    return f"```{lang}\n{table}```\n"


# =============================================================================================
# k51: one profiler table per optimisation step is one attempt; its time is the Self CUDA total
# =============================================================================================


def test_k51_fenced_profiles_three_steps_ms(tmp_path):
    step0 = prof_table([
        ("aten::mm", "9.84%", "6.042ms", "14.10%", "8.658ms", "30.063us", "29.871ms", "61.96%", "29.871ms", "103.719us", "288"),
        ("aten::_scaled_dot_product_flash_attention", "2.51%", "1.541ms", "6.02%", "3.696ms", "115.500us",
         "9.204ms", "19.09%", "9.204ms", "287.625us", "32"),
        ("aten::mul", "4.77%", "2.929ms", "7.03%", "4.317ms", "11.242us", "3.113ms", "6.46%", "3.113ms", "8.107us", "384"),
        ("aten::silu", "1.20%", "0.737ms", "1.91%", "1.173ms", "36.656us", "2.410ms", "5.00%", "2.410ms", "75.313us", "32"),
    ], "61.402ms", "48.213ms")
    step1 = prof_table([
        ("CompiledFunction", "21.30%", "4.871ms", "88.02%", "20.130ms", "629.063us", "0.000us", "0.00%", "30.950ms", "967.188us", "32"),
        ("triton_poi_fused_mul_silu_0", "3.02%", "0.691ms", "3.02%", "0.691ms", "21.594us", "1.588ms", "4.98%", "1.588ms", "49.625us", "32"),
        ("aten::mm", "6.55%", "1.498ms", "9.80%", "2.241ms", "7.781us", "20.722ms", "64.94%", "20.722ms", "71.951us", "288"),
    ], "22.870ms", "31.907ms")
    step2 = prof_table([
        ("aten::_scaled_mm", "8.61%", "5.120ms", "12.44%", "7.397ms", "25.684us", "27.305ms", "54.75%", "27.305ms", "94.809us", "288"),
        ("aten::to_copy", "5.90%", "3.508ms", "9.72%", "5.780ms", "15.052us", "8.844ms", "17.73%", "8.844ms", "23.031us", "384"),
        ("aten::_scaled_dot_product_flash_attention", "2.44%", "1.451ms", "5.87%", "3.490ms", "109.063us",
         "9.199ms", "18.45%", "9.199ms", "287.469us", "32"),
    ], "59.466ms", "49.870ms")
    text = (dedent("""\
        # Decode step profile — Llama-3.1-8B-Instruct, 1x H100 SXM, batch 1, 32 decode steps

        Each step below ran the same `profile_decode.py --steps 32` and printed
        `prof.key_averages().table(sort_by="cuda_time_total", row_limit=4)`.

        ## Step 0 — eager baseline

        """) + fenced(step0) + dedent("""\

        ## Step 1 — torch.compile(mode="reduce-overhead")

        """) + fenced(step1) + dedent("""\

        ## Step 2 — torch.compile + FP8 weights (torchao float8 dynamic)

        The casts around `_scaled_mm` eat the gain.

        """) + fenced(step2))
    f, recs = drafts(tmp_path, "k51-llama-decode-profile.md", text)
    assert len(recs) == 3
    assert times(recs) == {48.213: "ms", 31.907: "ms", 49.870: "ms"}
    assert outcomes(recs, "time") == {48.213: "baseline", 31.907: "improved", 49.870: "regressed"}
    assert failed(recs) == []


def test_k51_pipe_table_profiles_us_german(tmp_path):
    f, recs = drafts(tmp_path, "k51-rmsnorm-a100.md", dedent("""\
        # Profiling der Norm-Kernel — Mistral-7B, ein A100 80GB, ein Vorwärtsdurchlauf mit 512 Tokens

        Die Tabellen sind die Ausgabe von `prof.key_averages().table(sort_by="self_cuda_time_total")`,
        als Markdown übernommen. Pro Optimierungsschritt eine Messung.

        ### Ausgangslage (PyTorch eager)

        | Name | Self CPU % | Self CPU | CPU total % | CPU total | CPU time avg | Self CUDA | Self CUDA % | CUDA total | CUDA time avg | # of Calls |
        |---|---|---|---|---|---|---|---|---|---|---|
        | aten::mm | 18.40% | 388.976us | 27.75% | 586.635us | 4.074us | 402.118us | 44.07% | 402.118us | 2.793us | 144 |
        | aten::pow | 6.21% | 131.279us | 9.02% | 190.683us | 2.926us | 151.732us | 16.63% | 151.732us | 2.371us | 65 |
        | aten::rsqrt | 4.88% | 103.163us | 7.10% | 150.094us | 2.309us | 98.406us | 10.78% | 98.406us | 1.514us | 65 |
        | aten::mean | 5.02% | 106.123us | 7.64% | 161.510us | 2.485us | 96.771us | 10.61% | 96.771us | 1.489us | 65 |

        Self CPU time total: 2.114ms
        Self CUDA time total: 912.448us

        ### Fusionierter RMSNorm-Kernel (Triton)

        | Name | Self CPU % | Self CPU | CPU total % | CPU total | CPU time avg | Self CUDA | Self CUDA % | CUDA total | CUDA time avg | # of Calls |
        |---|---|---|---|---|---|---|---|---|---|---|
        | aten::mm | 20.71% | 388.105us | 31.02% | 581.348us | 4.037us | 401.996us | 62.80% | 401.996us | 2.792us | 144 |
        | rmsnorm_fwd_kernel | 7.33% | 137.364us | 7.33% | 137.364us | 2.113us | 121.870us | 19.04% | 121.870us | 1.875us | 65 |
        | aten::add | 3.90% | 73.086us | 5.81% | 108.879us | 1.134us | 58.301us | 9.11% | 58.301us | 0.607us | 96 |

        Self CPU time total: 1.874ms
        Self CUDA time total: 640.120us

        ### Zusätzlich fusioniertes SwiGLU

        Kaum Unterschied zur Ausgangslage: die SwiGLU-Fusion zwingt `aten::mm` auf einen langsameren Pfad.

        | Name | Self CPU % | Self CPU | CPU total % | CPU total | CPU time avg | Self CUDA | Self CUDA % | CUDA total | CUDA time avg | # of Calls |
        |---|---|---|---|---|---|---|---|---|---|---|
        | aten::mm | 17.02% | 351.664us | 25.90% | 535.141us | 3.716us | 688.205us | 74.38% | 688.205us | 4.779us | 144 |
        | rmsnorm_fwd_kernel | 6.80% | 140.501us | 6.80% | 140.501us | 2.162us | 121.904us | 13.17% | 121.904us | 1.875us | 65 |
        | swiglu_fwd_kernel | 3.11% | 64.258us | 3.11% | 64.258us | 2.008us | 61.710us | 6.67% | 61.710us | 1.928us | 32 |

        Self CPU time total: 2.066ms
        Self CUDA time total: 925.300us
        """))
    assert len(recs) == 3
    assert times(recs) == {912.448: "us", 640.120: "us", 925.300: "us"}
    assert outcomes(recs, "time") == {912.448: "baseline", 640.120: "improved", 925.300: "neutral"}


def test_k51_cpu_only_profiles_seconds_french(tmp_path):
    rows0 = [
        ("aten::addmm", "58.12%", "861.338ms", "61.40%", "909.948ms", "12.638ms", "72"),
        ("aten::gelu", "9.75%", "144.495ms", "9.75%", "144.495ms", "12.041ms", "12"),
        ("aten::softmax", "6.02%", "89.216ms", "6.44%", "95.441ms", "7.953ms", "12"),
    ]
    rows1 = [
        ("CompiledFunction", "12.31%", "149.567ms", "97.90%", "1.189s", "1.189s", "1"),
        ("mkldnn::_linear_pointwise", "61.02%", "741.393ms", "64.10%", "778.815ms", "10.817ms", "72"),
        ("aten::softmax", "5.44%", "66.096ms", "5.60%", "68.040ms", "5.670ms", "12"),
    ]
    rows2 = [
        ("aten::addmm", "55.30%", "828.394ms", "58.02%", "869.140ms", "12.071ms", "72"),
        ("aten::to_copy", "11.64%", "174.367ms", "13.10%", "196.238ms", "0.681ms", "288"),
        ("aten::gelu", "8.91%", "133.472ms", "8.91%", "133.472ms", "11.123ms", "12"),
    ]
    text = (dedent("""\
        # Profilage CPU de BERT-base (inférence, lot de 32 phrases) — Xeon Platinum 8480+, 56 cœurs

        Pas de GPU sur cette machine : `ProfilerActivity.CPU` seulement, puis
        `print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=3))`.

        ## Étape 0 : référence (fp32, eager)

        """) + fenced(prof_table(rows0, "1.482s")) + dedent("""\

        ## Étape 1 : torch.compile (backend inductor)

        """) + fenced(prof_table(rows1, "1.215s")) + dedent("""\

        ## Étape 2 : autocast bf16 sans compile

        Les conversions bf16 annulent le gain des matmuls.

        """) + fenced(prof_table(rows2, "1.498s")))
    f, recs = drafts(tmp_path, "k51-bert-cpu-fr.md", text)
    assert len(recs) == 3
    assert times(recs) == {1.482: "s", 1.215: "s", 1.498: "s"}
    assert outcomes(recs, "time") == {1.482: "baseline", 1.215: "improved", 1.498: "neutral"}


def test_k51_four_steps_units_change_from_s_to_ms(tmp_path):
    def rows(conv, attn, norm):
        return [
            ("aten::cudnn_convolution", "4.02%", "21.940ms", "6.11%", "33.345ms", "92.625us", conv, "-", conv, "-", "360"),
            ("aten::_efficient_attention_forward", "1.10%", "6.003ms", "2.05%", "11.188ms", "77.694us", attn, "-", attn, "-", "144"),
            ("aten::native_group_norm", "2.91%", "15.881ms", "4.40%", "24.013ms", "39.356us", norm, "-", norm, "-", "610"),
        ]
    t0 = prof_table(rows("512.330ms", "388.610ms", "96.202ms"), "545.702ms", "1.204s")
    t1 = prof_table(rows("509.871ms", "170.114ms", "95.990ms"), "540.118ms", "873.512ms")
    t2 = prof_table(rows("498.004ms", "169.870ms", "96.441ms"), "538.961ms", "861.040ms")
    t3 = prof_table(rows("514.776ms", "385.903ms", "95.118ms"), "612.330ms", "1.199s")
    text = (dedent("""\
        # SDXL UNet, 30 denoising steps at 1024x1024 — RTX 4090, diffusers 0.30, torch 2.4

        One profile per change, `prof.key_averages().table(sort_by="cuda_time_total", row_limit=3)`;
        percentage columns trimmed to `-`.

        ## 1. Stock pipeline (fp16)

        """) + fenced(t0) + dedent("""\

        ## 2. `pipe.unet.set_attn_processor(AttnProcessor2_0())` (SDPA)

        """) + fenced(t1) + dedent("""\

        ## 3. SDPA + `memory_format=torch.channels_last`

        """) + fenced(t2) + dedent("""\

        ## 4. Back to the default attention, fp16 VAE upcast disabled

        """) + fenced(t3))
    f, recs = drafts(tmp_path, "k51-sdxl-4090.md", text)
    assert len(recs) == 4
    assert times(recs) == {1.204: "s", 873.512: "ms", 861.040: "ms", 1.199: "s"}
    assert outcomes(recs, "time") == {1.204: "baseline", 873.512: "improved", 861.040: "improved", 1.199: "neutral"}


def test_k51_chinese_headings_with_profiling_code_block(tmp_path):
    def rows(mm, attn):
        return [
            ("aten::mm", "11.20%", "9.871ms", "16.30%", "14.366ms", "49.882us", mm, "63.10%", mm, "0.471ms", "288"),
            (attn, "3.05%", "2.688ms", "7.80%", "6.874ms", "214.813us", "38.115ms", "20.40%", "38.115ms", "1.191ms", "32"),
            ("aten::copy_", "6.40%", "5.640ms", "9.90%", "8.725ms", "22.721us", "12.880ms", "6.10%", "12.880ms", "33.542us", "384"),
        ]
    text = (dedent("""\
        # Qwen2-7B-Instruct 生成性能分析 — 单卡 L40S，transformers 4.44，生成 64 个 token

        每一步都用同一段代码采集：

        ```python
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            model.generate(**inputs, max_new_tokens=64)
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=3))
        ```

        ## 基线（attn_implementation="eager"）

        """) + fenced(prof_table(rows("135.602ms", "aten::bmm"), "88.131ms", "215.331ms")) + dedent("""\

        ## 改用 flash_attention_2

        """) + fenced(prof_table(rows("101.877ms", "flash_attn::_flash_attn_forward"), "79.402ms", "162.004ms")) + dedent("""\

        ## flash_attention_2 + torch.compile

        编译后反而变慢，重编译太频繁。

        """) + fenced(prof_table(rows("139.960ms", "flash_attn::_flash_attn_forward"), "140.226ms", "221.900ms")))
    f, recs = drafts(tmp_path, "k51-qwen2-l40s-zh.md", text)
    assert len(recs) == 3
    assert times(recs) == {215.331: "ms", 162.004: "ms", 221.900: "ms"}
    assert outcomes(recs, "time") == {215.331: "baseline", 162.004: "improved", 221.900: "regressed"}


# =============================================================================================
# k52: a samples column (a list) and a unit-less Average/Mean/Median column: the summary is the figure
# =============================================================================================


def test_k52_runs_tok_s_with_average_column(tmp_path):
    f, recs = drafts(tmp_path, "k52-vllm-l4.md", dedent("""\
        # Llama-3.1-8B-Instruct on one L4 (24 GB), vLLM 0.8.5 — three runs per config

        `vllm bench serve --dataset-name random --random-input-len 512 --random-output-len 256
        --max-concurrency 4 --num-prompts 64`, server restarted for every row.

        | Config | Runs (tok/s) | Average |
        |---|---|---|
        | baseline | 113.3, 109.6, 114.1 | 112.3 |
        | `--enable-prefix-caching` | 128.0, 126.4, 129.9 | 128.1 |
        | `--num-scheduler-steps 8` | 111.2, 115.0, 112.9 | 113.0 |
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {112.3: "baseline", 128.1: "improved", 113.0: "neutral"}


def test_k52_runs_ms_with_median_column_lower_is_better(tmp_path):
    f, recs = drafts(tmp_path, "k52-triton-gemm.md", dedent("""\
        # FP16 GEMM 8192x8192x8192 on H100 PCIe — cuBLAS vs our Triton kernel

        Five timed runs each (`triton.testing.do_bench`, 25 ms warm-up), cuBLAS is the reference.

        | Kernel | Runs (ms) | Median |
        |---|---|---|
        | cuBLAS (torch.matmul) | 4.21, 4.18, 4.25, 4.19, 4.22 | 4.21 |
        | Triton, BLOCK_M=128, BLOCK_N=256, 3 stages | 3.71, 3.69, 3.75, 3.70, 3.72 | 3.71 |
        | Triton, BLOCK_M=64, BLOCK_N=64, 4 stages | 4.60, 4.58, 4.66, 4.61, 4.57 | 4.60 |
        """))
    assert len(recs) == 3
    assert by_unit(recs, "ms") == {4.21: "baseline", 3.71: "improved", 4.60: "regressed"}


def test_k52_bracketed_samples_mean_column_german(tmp_path):
    f, recs = drafts(tmp_path, "k52-sglang-h200-de.md", dedent("""\
        # Qwen3-30B-A3B auf einer H200, SGLang 0.4.9 — Durchsatz je Variante

        Jede Variante dreimal mit `python -m sglang.bench_serving --dataset-name sharegpt --num-prompts 1000
        --max-concurrency 128` gemessen; die Liste ist genau so aus dem Skript kopiert.

        | Variante | Samples (tok/s) | Mean |
        |---|---|---|
        | Standard | [2411.0, 2398.5, 2420.7] | 2410.1 |
        | `--enable-dp-attention` | [2650.2, 2671.9, 2644.0] | 2655.4 |
        | `--chunked-prefill-size 4096` | [2290.3, 2301.8, 2284.6] | 2292.2 |

        DP-Attention lohnt sich; das kleinere Chunked-Prefill kostet rund 5 %.
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {2410.1: "baseline", 2655.4: "improved", 2292.2: "regressed"}


def test_k52_llama_cpp_quants_median_with_size_and_notes(tmp_path):
    f, recs = drafts(tmp_path, "k52-llamacpp-3090.md", dedent("""\
        # Llama-3.1-8B-Instruct quants on an RTX 3090 — llama.cpp b5120

        `./llama-bench -m MODEL.gguf -ngl 99 -p 0 -n 128 -r 1`, run three times per file; tg128 speeds.

        | Quant | Size | Runs (t/s) | Median | Notes |
        |---|---|---|---|---|
        | Q8_0 | 8.5 GB | 87.1, 86.4, 87.9 | 87.1 | reference |
        | Q6_K | 6.6 GB | 101.8, 102.5, 101.2 | 101.8 | |
        | Q4_K_M | 4.9 GB | 131.0, 129.7, 132.2 | 131.0 | |
        | IQ3_XXS | 3.3 GB | 88.0, 86.9, 87.5 | 87.5 | dequant is slow |
        """))
    assert len(recs) == 4
    assert by_unit(recs, "tok/s") == {87.1: "baseline", 101.8: "improved", 131.0: "improved", 87.5: "neutral"}


def test_k52_runs_req_s_with_average_column_tgi(tmp_path):
    f, recs = drafts(tmp_path, "k52-tgi-a10g.md", dedent("""\
        ## TGI 3.0 on one A10G — Mistral-7B-Instruct-v0.3, request throughput

        Load from `k6 run --vus 16 --duration 5m chat.js`, three five-minute runs per setting.

        | Setting | Runs (req/s) | Average |
        |:--|:--|:--|
        | default | 4.12, 4.05, 4.19 | 4.12 |
        | `--max-batch-prefill-tokens 8192` | 4.61, 4.70, 4.58 | 4.63 |
        | `--max-concurrent-requests 32` | 3.70, 3.66, 3.75 | 3.70 |
        """))
    assert len(recs) == 3
    assert by_unit(recs, "req/s") == {4.12: "baseline", 4.63: "improved", 3.70: "regressed"}


# =============================================================================================
# k53: a knob grid compares every row with the first; a model or batch column keeps its blocks
# =============================================================================================


def test_k53_two_by_two_on_off_grid(tmp_path):
    f, recs = drafts(tmp_path, "k53-vllm-graphs-compile.md", dedent("""\
        # CUDA graphs × torch.compile, vLLM 0.9.1, Llama-3.1-8B-Instruct on one H100

        `vllm bench throughput --input-len 1024 --output-len 256 --num-prompts 500`; "off" for CUDA graphs
        means `--enforce-eager`, "off" for compile means `-O0`.

        | CUDA graphs | torch.compile | Output tok/s |
        |---|---|---|
        | off | off | 1520.4 |
        | on | off | 1688.0 |
        | off | on | 1541.0 |
        | on | on | 1702.0 |
        """))
    assert len(recs) == 4
    assert headlines(recs) == [1520.4, 1541.0, 1688.0, 1702.0]
    assert outcomes(recs) == {1520.4: "baseline", 1688.0: "improved", 1541.0: "neutral", 1702.0: "improved"}


def test_k53_two_by_two_by_two_zero_one_grid_ttft(tmp_path):
    f, recs = drafts(tmp_path, "k53-sglang-ttft-grid.md", dedent("""\
        # TTFT over three server switches — SGLang 0.4.6, Qwen2.5-72B-Instruct, 4x H100 (TP=4)

        1 = switch on, 0 = off. Client: `python -m sglang.bench_serving --dataset-name generated-shared-prefix
        --num-prompts 512 --request-rate 4`.

        | fp8_kv | radix_cache | chunked_prefill | Mean TTFT (ms) |
        |:-:|:-:|:-:|--:|
        | 0 | 0 | 0 | 842 |
        | 1 | 0 | 0 | 830 |
        | 0 | 1 | 0 | 611 |
        | 1 | 1 | 0 | 604 |
        | 0 | 0 | 1 | 905 |
        | 1 | 0 | 1 | 889 |
        | 0 | 1 | 1 | 650 |
        | 1 | 1 | 1 | 851 |
        """))
    assert len(recs) == 8
    assert by_unit(recs, "ms") == {
        842: "baseline", 830: "neutral", 611: "improved", 604: "improved",
        905: "regressed", 889: "regressed", 650: "improved", 851: "neutral"}


@pytest.mark.xfail(strict=True, reason="kb reads max_num_tokens 4096/8192 (two amounts, neither 0 nor 1) as blocks, so the 8192 rows compare with each other; only on/off words and 0/1-style numbers are read as a knob's two states")
def test_k53_true_false_and_two_numeric_states_french(tmp_path):
    f, recs = drafts(tmp_path, "k53-trtllm-fr.md", dedent("""\
        # Options de build TensorRT-LLM 0.17 — Llama-3.1-70B FP8, 2x H100 (TP=2)

        Une engine par combinaison, puis `trtllm-bench throughput --dataset isl2048_osl512.jsonl`.
        La première ligne est la configuration d'origine.

        | use_paged_context_fmha | max_num_tokens | tok/s |
        |---|---|---|
        | false | 4096 | 3050.0 |
        | true | 4096 | 3302.5 |
        | false | 8192 | 3088.0 |
        | true | 8192 | 3120.0 |
        """))
    assert len(recs) == 4
    assert by_unit(recs, "tok/s") == {3050.0: "baseline", 3302.5: "improved", 3088.0: "neutral", 3120.0: "improved"}


@pytest.mark.xfail(strict=True, reason="kb drafts nothing from a table whose only figure column is per-request decode speed (`Decode tok/s per request`)")
def test_k53_counter_two_models_each_at_three_batch_sizes(tmp_path):
    f, recs = drafts(tmp_path, "k53-two-models-batches.md", dedent("""\
        # Per-request decode speed vs batch size — vLLM 0.10.0, one H100 80GB

        `vllm bench latency --input-len 512 --output-len 256 --batch-size B`, one line per model and B.

        | Model | Batch | Decode tok/s per request |
        |---|---|---|
        | Llama-3.1-8B-Instruct | 1 | 150.2 |
        | Llama-3.1-8B-Instruct | 8 | 138.9 |
        | Llama-3.1-8B-Instruct | 32 | 97.4 |
        | Qwen2.5-32B-Instruct | 1 | 61.3 |
        | Qwen2.5-32B-Instruct | 8 | 60.8 |
        | Qwen2.5-32B-Instruct | 32 | 44.0 |
        """))
    assert len(recs) == 6
    assert by_unit(recs, "tok/s") == {
        150.2: "baseline", 138.9: "regressed", 97.4: "regressed",
        61.3: "baseline", 60.8: "neutral", 44.0: "regressed"}


def test_k53_counter_engine_alternates_under_batch_column(tmp_path):
    f, recs = drafts(tmp_path, "k53-engines-by-batch.md", dedent("""\
        # vLLM vs SGLang by batch size — Llama-3.1-8B-Instruct, one H200

        Both servers at their defaults; `genai-bench` with 1024 in / 256 out at fixed concurrency = batch.

        | Batch | Engine | Output tok/s |
        |---|---|---|
        | 1 | vLLM 0.10.1 | 142.5 |
        | 1 | SGLang 0.5.0 | 151.0 |
        | 8 | vLLM 0.10.1 | 1003.2 |
        | 8 | SGLang 0.5.0 | 1011.4 |
        | 32 | vLLM 0.10.1 | 2950.7 |
        | 32 | SGLang 0.5.0 | 2801.0 |
        """))
    assert len(recs) == 6
    assert headlines(recs) == [142.5, 151.0, 1003.2, 1011.4, 2801.0, 2950.7]
    assert outcomes(recs) == {
        142.5: "baseline", 151.0: "improved", 1003.2: "baseline", 1011.4: "neutral",
        2950.7: "baseline", 2801.0: "regressed"}


# =============================================================================================
# k54: a group named only on its first row; blank cells continue the group
# =============================================================================================


def test_k54_bold_model_groups_blank_cells(tmp_path):
    f, recs = drafts(tmp_path, "k54-eagle-two-models.md", dedent("""\
        # EAGLE-3 on two models — SGLang 0.5.2, one H100, concurrency 1

        | Model | Variant | Output tok/s |
        |---|---|---|
        | **Qwen3-8B** | Baseline | 52.7 |
        | | + EAGLE-3, 3 steps | 69.9 |
        | **Llama-3.1-70B-Instruct (TP=1, FP8)** | Baseline | 11.2 |
        | | + EAGLE-3, 3 steps | 14.0 |
        | | + EAGLE-3, 6 steps | 11.3 |
        """))
    assert len(recs) == 5
    assert headlines(recs) == [11.2, 11.3, 14.0, 52.7, 69.9]
    assert outcomes(recs) == {52.7: "baseline", 69.9: "improved", 11.2: "baseline", 14.0: "improved", 11.3: "neutral"}


def test_k54_gpu_groups_three_rows_each_llama_cpp(tmp_path):
    f, recs = drafts(tmp_path, "k54-llamacpp-gpus.md", dedent("""\
        # llama.cpp b5400, Qwen2.5-14B-Instruct Q4_K_M — tg128 by GPU and backend

        `./llama-bench -m qwen2.5-14b-instruct-q4_k_m.gguf -ngl 99 -p 0 -n 128` on each box.

        | GPU | Build | tg128 (t/s) |
        |---|---|---|
        | RTX 4090 | CUDA, -fa off | 128.4 |
        |  | CUDA, -fa on | 139.7 |
        |  | Vulkan | 101.2 |
        | RX 7900 XTX | ROCm, -fa off | 97.5 |
        |  | ROCm, -fa on | 98.1 |
        |  | Vulkan | 104.9 |
        """))
    assert len(recs) == 6
    assert by_unit(recs, "tok/s") == {
        128.4: "baseline", 139.7: "improved", 101.2: "regressed",
        97.5: "baseline", 98.1: "neutral", 104.9: "improved"}


def test_k54_three_model_groups_ttft_german(tmp_path):
    f, recs = drafts(tmp_path, "k54-prefix-ttft-de.md", dedent("""\
        # Prefix-Caching und TTFT — vLLM 0.9.0, 2x A100 80GB, RAG-Last mit 6k gemeinsamen Präfix-Tokens

        Je Modell zuerst ohne, dann mit `--enable-prefix-caching`. Gemessen mit `vllm bench serve
        --dataset-name prefix_repetition --num-prompts 300`.

        | Modell | Konfiguration | p50 TTFT (ms) |
        |---|---|---|
        | **Mistral-7B-Instruct** | Standard | 84.0 |
        | | Prefix-Caching | 61.5 |
        | **Mixtral-8x7B-Instruct** | Standard | 212.0 |
        | | Prefix-Caching | 208.3 |
        | **Llama-3.3-70B-Instruct** | Standard | 395.0 |
        | | Prefix-Caching | 270.8 |
        | | Prefix-Caching + FP8-KV | 410.0 |
        """))
    assert len(recs) == 7
    assert by_unit(recs, "ms") == {
        84.0: "baseline", 61.5: "improved", 212.0: "baseline", 208.3: "neutral",
        395.0: "baseline", 270.8: "improved", 410.0: "regressed"}


def test_k54_code_named_checkpoints_precision_rows(tmp_path):
    f, recs = drafts(tmp_path, "k54-trtllm-precisions.md", dedent("""\
        # Weight precision sweep, TensorRT-LLM 1.0 on one H100 SXM

        `trtllm-bench --model CKPT throughput --dataset isl1024_osl512.jsonl --num_requests 800`, one engine per
        row; FP16 is each checkpoint's starting point.

        | Checkpoint | Precision | Output tok/s |
        |:--|:--|--:|
        | `Qwen/Qwen2.5-Coder-32B-Instruct` | FP16 | 1210.0 |
        |   | FP8 | 1795.5 |
        |   | INT4 AWQ | 1650.2 |
        | `microsoft/phi-4` | FP16 | 2480.0 |
        |   | FP8 | 2512.8 |
        |   | INT4 AWQ | 2301.0 |
        """))
    assert len(recs) == 6
    assert headlines(recs) == [1210.0, 1650.2, 1795.5, 2301.0, 2480.0, 2512.8]
    assert outcomes(recs) == {
        1210.0: "baseline", 1795.5: "improved", 1650.2: "improved",
        2480.0: "baseline", 2512.8: "neutral", 2301.0: "regressed"}


@pytest.mark.xfail(strict=True, reason="the first row's `referencia` note makes it the reference of the whole table, so the second hardware group's first row (12.90) is improved instead of its own baseline")
def test_k54_hardware_groups_req_s_with_blank_notes_spanish(tmp_path):
    f, recs = drafts(tmp_path, "k54-vllm-hw-es.md", dedent("""\
        # Pruebas de vLLM 0.8.4 con Llama-3.1-8B-Instruct — una y dos H100

        Cliente: `vllm bench serve --dataset-name sharegpt --num-prompts 1000 --request-rate inf`.
        Cada bloque de hardware empieza por la configuración por defecto.

        | Hardware | Config | req/s | Notas |
        |---|---|---|---|
        | **1× H100** | por defecto | 7.40 | referencia |
        | | `--enable-chunked-prefill` | 7.52 | |
        | | `--max-num-seqs 512` | 8.31 | |
        | **2× H100 (TP=2)** | por defecto | 12.90 | |
        | | `--enable-chunked-prefill` | 12.10 | más lento con TP |
        """))
    assert len(recs) == 5
    assert by_unit(recs, "req/s") == {
        7.40: "baseline", 7.52: "neutral", 8.31: "improved", 12.90: "baseline", 12.10: "regressed"}


# =============================================================================================
# k55: a line restating a table row's figures under a shorter name adds no attempt
# =============================================================================================


def test_k55_takeaway_bullets_restate_rows(tmp_path):
    f, recs = drafts(tmp_path, "k55-fp8-kv.md", dedent("""\
        # KV-cache experiments — Llama-3.3-70B-Instruct, 4x L40S (TP=4), vLLM 0.9.2

        `vllm bench serve --dataset-name random --random-input-len 4096 --random-output-len 512
        --max-concurrency 16 --num-prompts 160`.

        | Config | Avg Throughput (tok/s) | Mean TTFT (ms) |
        |---|---|---|
        | Baseline (vLLM 0.9.2 defaults) | 295.8 | 3014 |
        | `--kv-cache-dtype fp8` | 341.2 | 2750 |
        | `--kv-cache-dtype fp8 --enable-prefix-caching` | 402.7 | 1980 |

        Takeaways:

        - Baseline: 295.8 tok/s, TTFT 3014 ms
        - FP8 KV: 341.2 tok/s, TTFT 2750 ms
        - FP8 + prefix: 402.7 tok/s, TTFT 1980 ms
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {295.8: "baseline", 341.2: "improved", 402.7: "improved"}
    assert all(has(r, ttft, "ms") for r, ttft in
               zip(sorted(recs, key=lambda r: in_unit(r, "tok/s")), (3014, 2750, 1980)))


def test_k55_prose_sentence_restates_two_rows(tmp_path):
    f, recs = drafts(tmp_path, "k55-chunked-prose.md", dedent("""\
        # Chunked prefill on Qwen2.5-14B-Instruct — one A100 80GB, vLLM 0.7.3

        | Server flags | Avg Throughput (tok/s) | Mean TTFT (ms) |
        |---|---|---|
        | defaults | 1180.4 | 512 |
        | `--enable-chunked-prefill --max-num-batched-tokens 4096` | 1251.9 | 388 |
        | `--enable-chunked-prefill --max-num-batched-tokens 16384` | 1192.0 | 455 |

        Chunked 4k came out on top at 1251.9 tok/s, TTFT 388 ms; chunked 16k (1192.0 tok/s, TTFT 455 ms)
        barely moved throughput but still helped first-token latency.
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {1180.4: "baseline", 1251.9: "improved", 1192.0: "neutral"}


def test_k55_spanish_summary_bullets_abbreviated_names(tmp_path):
    f, recs = drafts(tmp_path, "k55-eagle-es.md", dedent("""\
        # Decodificación especulativa — Llama-3.1-8B-Instruct en una RTX 6000 Ada, SGLang 0.4.10

        Concurrencia 1, 256 tokens de salida; `python -m sglang.bench_serving --dataset-name random
        --num-prompts 64 --max-concurrency 1`.

        | Variante | Avg Throughput (tok/s) | Mean TTFT (ms) |
        |---|---|---|
        | Referencia | 88.6 | 640 |
        | EAGLE-3 (3 pasos) | 121.3 | 655 |
        | EAGLE-3 (5 pasos) | 117.9 | 690 |

        Resumen:

        - Ref.: 88.6 tok/s, TTFT 640 ms
        - EAGLE 3p: 121.3 tok/s, TTFT 655 ms
        - EAGLE 5p: 117.9 tok/s, TTFT 690 ms
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {88.6: "baseline", 121.3: "improved", 117.9: "improved"}


def test_k55_bold_baseline_and_best_lines(tmp_path):
    f, recs = drafts(tmp_path, "k55-sglang-policy.md", dedent("""\
        # Scheduling policy — SGLang 0.4.8, DeepSeek-V2-Lite, one H100, ShareGPT 2000 prompts

        | Run | Avg Throughput (tok/s) | Mean TTFT (ms) | P99 TTFT (ms) |
        |---|---|---|---|
        | stock SGLang | 2030.5 | 140.2 | 611.0 |
        | `--schedule-policy lpm` | 2088.1 | 131.7 | 590.4 |
        | `--schedule-policy lpm --enable-mixed-chunk` | 2203.9 | 152.6 | 702.3 |

        **Baseline: 2030.5 tok/s, TTFT 140.2 ms.**

        **Best: 2203.9 tok/s, TTFT 152.6 ms (lpm + mixed chunk), at the cost of a worse tail.**
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {2030.5: "baseline", 2088.1: "improved", 2203.9: "improved"}


def test_k55_chinese_conclusion_bullets_tokens_per_s(tmp_path):
    f, recs = drafts(tmp_path, "k55-tp-dp-zh.md", dedent("""\
        # 并行方式对比 — Qwen2.5-72B-Instruct，4 张 H20，vLLM 0.8.5

        压测命令：`vllm bench serve --dataset-name random --random-input-len 2048 --random-output-len 256
        --max-concurrency 32 --num-prompts 320`。

        | 配置 | Avg Throughput (tok/s) | Mean TTFT (ms) |
        |---|---|---|
        | 基线 (TP=4) | 655.0 | 1210 |
        | TP=2 × DP=2 | 731.8 | 980 |
        | TP=4 + FP8 权重 | 649.1 | 1195 |

        结论：

        - 基线：655.0 tokens/s，TTFT 1210 ms
        - DP2：731.8 tokens/s，TTFT 980 ms
        - FP8：649.1 tokens/s，TTFT 1195 ms
        """))
    assert len(recs) == 3
    assert by_unit(recs, "tok/s") == {655.0: "baseline", 731.8: "improved", 649.1: "neutral"}
