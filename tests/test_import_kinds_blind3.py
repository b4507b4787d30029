"""`kb import` on logs of kinds k20..k24, written blind (kb/importers/ unread): k20 size-sweep tables, k21 llama-bench
comparison tables, k22 a reference library printed beside the kernel, k23 command + lead-in line + output block, k24
numbered sample tables. Expected values were decided from the inputs before kb ran on them."""
from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import drafts, failed, has, named, one, outcomes, transcript, value


def holding(recs, number, unit):
    """The one draft that holds ``number`` in ``unit`` (under any metric name)."""
    found = [r for r in recs if has(r, number, unit)]
    assert len(found) == 1, [(r.title, {n: (m.value, m.unit) for n, m in r.metrics.items()}) for r in recs]
    return found[0]


def states(recs, unit, *numbers):
    """The outcome of the draft holding each of ``numbers`` (in ``unit``), in order."""
    return [holding(recs, n, unit).outcome.value for n in numbers]


def bare(error):
    return None if error is None else error.strip().strip("`").strip()


# ========== k20: a size sweep table gives one draft per method column


def test_k20_allreduce_times_in_us_three_methods(tmp_path):
    f, recs = drafts(tmp_path, "custom-ar-2026-03-10.md", dedent("""\
        # Custom all-reduce vs NCCL, 8x H200 — 2026-03-10
        One `python bench_ar.py --dtype bf16 --sizes 8KB,64KB,256KB,1MB` per backend, 8 ranks.
        Times in µs (lower is better); NCCL is the stock baseline.

        | size | NCCL | custom AR (one-shot) | custom AR (two-shot) |
        |---|---:|---:|---:|
        | 8KB | 14.2 | 6.1 | 9.3 |
        | 64KB | 16.8 | 7.4 | 10.2 |
        | 256KB | 22.5 | 11.9 | 13.7 |
        | 1MB | 41.3 | 30.6 | 24.8 |
        """))
    assert len(recs) == 3
    assert all(has(holding(recs, 14.2, "us"), v, "us") for v in (16.8, 22.5, 41.3))
    assert all(has(holding(recs, 6.1, "us"), v, "us") for v in (7.4, 11.9, 30.6))
    assert states(recs, "us", 14.2, 6.1, 9.3) == ["baseline", "improved", "improved"]


def test_k20_german_allgather_bandwidth_in_gbps(tmp_path):
    f, recs = drafts(tmp_path, "allgather-bandbreite.md", dedent("""\
        # Allgather-Bandbreite, 4x H100 NVLink — 11.03.2026
        Je Backend ein Lauf über die Nachrichtengrößen. Werte in GB/s (busbw, höher ist besser).
        Referenz ist NCCL 2.21.

        | Größe | NCCL | MSCCL++ | NVSHMEM |
        |---|---:|---:|---:|
        | 1 MiB | 38.4 | 52.7 | 31.0 |
        | 16 MiB | 141.9 | 176.3 | 118.6 |
        | 64 MiB | 268.1 | 301.5 | 240.2 |
        | 256 MiB | 339.7 | 352.8 | 310.4 |

        MSCCL++ liegt über alle Größen vorn, NVSHMEM durchgehend dahinter.
        """))
    assert len(recs) == 3
    assert all(has(holding(recs, 52.7, "GB/s"), v, "GB/s") for v in (176.3, 301.5, 352.8))
    assert states(recs, "GB/s", 38.4, 52.7, 31.0) == ["baseline", "improved", "regressed"]


def test_k20_french_reduction_element_counts_4k_to_1g(tmp_path):
    f, recs = drafts(tmp_path, "reduction-h200.md", dedent("""\
        # Réduction (somme) fp32 sur H200 — 12/03/2026
        Balayage sur la taille du tenseur (nombre d'éléments), médiane de 100 itérations.
        Temps en µs. La colonne torch.sum (stock) sert de référence.

        | taille | torch.sum | triton | cub |
        |---|---:|---:|---:|
        | 4K | 7.9 | 9.1 | 4.6 |
        | 1M | 12.4 | 14.0 | 8.1 |
        | 64M | 168.0 | 181.3 | 150.2 |
        | 1G | 2510.0 | 2702.0 | 2301.0 |

        Résultat : cub gagne partout, le noyau triton est plus lent que torch.
        """))
    assert len(recs) == 3
    assert all(has(holding(recs, 4.6, "us"), v, "us") for v in (8.1, 150.2, 2301.0))
    assert states(recs, "us", 7.9, 9.1, 4.6) == ["baseline", "regressed", "improved"]


def test_k20_spanish_nccl_algo_ring_vs_tree_two_columns(tmp_path):
    f, recs = drafts(tmp_path, "nccl-algo.md", dedent("""\
        ## NCCL_ALGO=Ring frente a Tree (all_reduce_perf, 2 nodos x 8 GPU) — 2026-03-12
        Tabla: algbw en GB/s por tamaño de mensaje.

        | tamaño | Ring | Tree |
        | :-- | --: | --: |
        | 2MB | 61.33 | 47.05 |
        | 8MB | 118.72 | 96.41 |
        | 32MB | 171.90 | 150.08 |
        | 128MB | 203.44 | 184.27 |
        """))
    assert len(recs) == 2
    assert all(has(holding(recs, 61.33, "GB/s"), v, "GB/s") for v in (118.72, 171.90, 203.44))
    assert states(recs, "GB/s", 61.33, 47.05) == ["baseline", "regressed"]


# ========== k21: a llama-bench comparison table gives one draft per build column


def test_k21_two_builds_with_delta_column(tmp_path):
    f, recs = drafts(tmp_path, "build-bump.md", dedent("""\
        # llama.cpp build bump on the 4090 box — 2026-03-13
        Rebuilt at b4720 and re-ran the same `llama-bench -m qwen2.5-7b-q4_k_m.gguf -ngl 99 -fa 1`
        against the old build b4510 (figures in t/s).

        | model | size | params | test | b4510 | b4720 | Δ% |
        |---|---:|---:|---:|---:|---:|---:|
        | qwen2 7B Q4_K - Medium | 4.36 GiB | 7.62 B | pp512 | 12873.40 | 13310.95 | +3.4 |
        | qwen2 7B Q4_K - Medium | 4.36 GiB | 7.62 B | tg128 | 171.22 | 183.05 | +6.9 |
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {171.22: "baseline", 183.05: "improved"}
    assert value(one(recs, 171.22), "input_throughput") == pytest.approx(12873.40)
    assert has(one(recs, 183.05), 13310.95, "tok/s", "input_throughput")


def test_k21_german_backends_with_depth_rows(tmp_path):
    f, recs = drafts(tmp_path, "cuda-vs-vulkan.md", dedent("""\
        # CUDA- gegen Vulkan-Backend, Llama-3.1-8B Q4_K_M, RTX 4080 (14.03.2026)
        Gleicher Build (b4800), beide Backends mit `llama-bench -d 0,4096`. Werte in t/s.

        | model | size | params | test | CUDA | Vulkan | Δ% |
        |---|---:|---:|---:|---:|---:|---:|
        | llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | pp512 | 9812.33 | 8120.40 | -17.2 |
        | llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | tg128 | 131.77 | 118.40 | -10.1 |
        | llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | pp512 @ d4096 | 7304.10 | 5011.62 | -31.4 |
        | llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | tg128 @ d4096 | 108.55 | 96.12 | -11.5 |

        Vulkan ist in jeder Zeile langsamer.
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {131.77: "baseline", 118.40: "regressed"}
    vulkan = one(recs, 118.40)
    assert has(vulkan, 96.12, "tok/s", "output_throughput") and has(vulkan, 5011.62, "tok/s", "input_throughput")
    assert not has(vulkan, 131.77, "tok/s") and not has(vulkan, -17.2, "%")


def test_k21_spanish_compare_script_with_speedup_column(tmp_path):
    f, recs = drafts(tmp_path, "pr-11842.md", dedent("""\
        # PR #11842 (kernels MMQ nuevos) contra master — 2026-03-15
        Salida de `scripts/compare-llama-bench.py -b master -c pr-11842`, H100, Llama-3.1-8B Q8_0:

        | Model | Test | t/s master | t/s pr-11842 | Speedup |
        |:--|:--|--:|--:|--:|
        | llama 8B Q8_0 | pp512 | 10480.22 | 10391.07 | 0.99 |
        | llama 8B Q8_0 | tg128 | 104.61 | 98.09 | 0.94 |

        La generación empeora un 6 %; no lo fusionamos así.
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {104.61: "baseline", 98.09: "regressed"}
    assert value(one(recs, 98.09), "input_throughput") == pytest.approx(10391.07)


@pytest.mark.xfail(strict=True, reason="kb makes one draft per row (pp512, pp2048, tg128), neutral, holding only size 6.41 GiB, "
                                       "instead of one per build column with tok/s figures")
def test_k21_transcript_compare_output_two_builds(tmp_path):
    table = ("| model | size | params | test | main (8f1d81a) | fa-tiles (c0ffee1) | Δ% |\n"
             "|---|---:|---:|---:|---:|---:|---:|\n"
             "| gemma3 12B Q4_0 | 6.41 GiB | 11.77 B | pp512 | 6120.44 | 6498.03 | +6.2 |\n"
             "| gemma3 12B Q4_0 | 6.41 GiB | 11.77 B | pp2048 | 5402.18 | 5893.70 | +9.1 |\n"
             "| gemma3 12B Q4_0 | 6.41 GiB | 11.77 B | tg128 | 88.64 | 93.21 | +5.2 |\n")
    text = transcript(tmp_path, [
        ("user", "Compare the fa-tiles branch against main on the 5090."),
        ("run", "python scripts/compare-llama-bench.py -b main -c fa-tiles --output markdown", table),
        ("say", "fa-tiles is 5.2% faster on tg128 and 9.1% on pp2048."),
    ], day="2026-03-16")
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 2
    assert outcomes(recs) == {88.64: "baseline", 93.21: "improved"}
    assert has(one(recs, 93.21), 5893.70, "tok/s", "input_throughput")
    assert has(one(recs, 88.64), 6120.44, "tok/s", "input_throughput") and named(one(recs, 88.64), "output_throughput")


# ========== k22: the reference printed beside the kernel in each section is no draft of its own


def test_k22_gemm_worklog_four_kernels_beside_cublas(tmp_path):
    sections = [("Kernel 1: naive tiling", "1.20", "114", "0.95", "145"),
                ("Kernel 2: smem double buffering", "1.04", "132", "0.95", "145"),
                ("Kernel 3: WGMMA + TMA", "0.98", "140", "0.96", "143"),
                ("Kernel 4: persistent + swizzle", "0.93", "148", "0.95", "145")]
    text = "# fp16 GEMM worklog, H100 SXM, M=N=K=4096 — 2026-03-17\n"
    for head, ms, tf, cms, ctf in sections:
        text += (f"\n## {head}\n\n```\n$ ./gemm_bench 4096 4096 4096\nmy_kernel: {ms} ms, {tf} TFLOPS\n"
                 f"cuBLAS: {cms} ms, {ctf} TFLOPS\n```\n")
    f, recs = drafts(tmp_path, "gemm-worklog.md", text)
    assert len(recs) == 4
    for _, ms, tf, _, _ in sections:
        assert has(holding(recs, float(tf), "TFLOPS"), float(ms), "ms")
    assert states(recs, "TFLOPS", 114, 132, 140, 148) == ["baseline", "improved", "improved", "improved"]


def test_k22_german_fp8_gemm_against_cublaslt_with_regression(tmp_path):
    tries = [("Basis, 128x128-Kacheln", "0.612", "224.6", "0.540", "254.5"),
             ("256x128-Kacheln, Cluster 2x1", "0.571", "240.7", "0.541", "254.1"),
             ("Split-K = 2", "0.655", "209.8", "0.539", "255.0")]
    text = "# FP8-GEMM-Tagebuch, H200, 8192x8192x8192 (18.03.2026)\n"
    for i, (head, ms, tf, rms, rtf) in enumerate(tries, 1):
        text += (f"\n## Versuch {i} — {head}\n\n```\ngemm_fp8  : {ms} ms | {tf} TFLOPS\n"
                 f"cublasLt  : {rms} ms | {rtf} TFLOPS\n```\n")
    f, recs = drafts(tmp_path, "fp8-gemm-tagebuch.md", text + "\nSplit-K lohnt sich bei dieser Größe nicht.\n")
    assert len(recs) == 3
    assert states(recs, "ms", 0.612, 0.571, 0.655) == ["baseline", "improved", "regressed"]
    assert has(holding(recs, 0.571, "ms"), 240.7, "TFLOPS")


@pytest.mark.xfail(strict=True, reason="kb gives each kernel draft torch.softmax's latency (0.301/0.302/0.300 ms) instead of "
                                       "the kernel's (0.344/0.262/0.219 ms); bandwidth and outcomes are right")
def test_k22_transcript_softmax_runs_beside_torch(tmp_path):
    def out(ms, gbs, rms, rgbs):
        return (f"softmax_triton   N=32768  {ms} ms  {gbs} GB/s\n"
                f"torch.softmax    N=32768  {rms} ms  {rgbs} GB/s\n")
    text = transcript(tmp_path, [
        ("user", "Make the Triton softmax at least as fast as torch for N=32768."),
        ("run", "python bench_softmax.py --n 32768", out("0.344", "780.3", "0.301", "891.6")),
        ("say", "Slower than torch. Switching to one program per row with a looped reduction."),
        ("run", "python bench_softmax.py --n 32768", out("0.262", "1024.5", "0.302", "888.7")),
        ("say", "Better. Now vectorising the loads with BLOCK=8192 and num_warps=16."),
        ("run", "python bench_softmax.py --n 32768", out("0.219", "1225.4", "0.300", "894.5")),
        ("say", "The Triton kernel now beats torch.softmax by about 37%."),
    ], day="2026-03-19")
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 3
    assert states(recs, "GB/s", 780.3, 1024.5, 1225.4) == ["baseline", "improved", "improved"]
    assert has(holding(recs, 1024.5, "GB/s"), 0.262, "ms")


def test_k22_french_attention_kernel_beside_flash_attn_neutral_step(tmp_path):
    steps = [("version de départ", "2.41", "57.0", "1.62", "84.8"),
             ("pipeline K/V sur deux étages", "2.02", "68.0", "1.63", "84.3"),
             ("retour à un étage, softmax en ligne réécrit", "2.39", "57.5", "1.61", "85.3")]
    text = ("# Journal du noyau d'attention, H100, seq 8192, d 128 — 20/03/2026\n\n"
            "Chaque sortie affiche aussi FlashAttention-2 comme référence.\n")
    for i, (head, ms, tf, rms, rtf) in enumerate(steps, 1):
        text += (f"\n## Étape {i} : {head}\n\n" + ("Résultat :\n\n" if i == 1 else "")
                 + f"```\nmon_noyau    : {ms} ms, {tf} TFLOPS\nflash_attn 2 : {rms} ms, {rtf} TFLOPS\n```\n")
    f, recs = drafts(tmp_path, "noyau-attention.md", text)
    assert len(recs) == 3
    assert states(recs, "TFLOPS", 57.0, 68.0, 57.5) == ["baseline", "improved", "neutral"]
    assert has(holding(recs, 68.0, "TFLOPS"), 2.02, "ms")


# ========== k23: command block + lead-in line + output block is one run; failed builds take the first error


def test_k23_cmake_configure_error_after_it_fails_with(tmp_path):
    f, recs = drafts(tmp_path, "moe-ext-gb200.md", dedent("""\
        # Building the fused MoE extension on the GB200 box — 2026-03-14

        ## Configure and build

        ```bash
        export CUDA_HOME=/usr/local/cuda-12.8
        export TORCH_CUDA_ARCH_LIST="10.0"
        cmake -B build -S . -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=100a
        cmake --build build -j 32
        ```

        It fails with:

        ```
        -- The CXX compiler identification is GNU 13.2.0
        -- The CUDA compiler identification is NVIDIA 12.8.61
        CMake Error at CMakeLists.txt:48 (message):
          CUTLASS 3.x not found; set CUTLASS_DIR or init the submodule
        -- Configuring incomplete, errors occurred!
        ```

        ## Second try
        After `git submodule update --init third_party/cutlass` the same block configures and builds. Then:

        ```
        $ python bench_moe.py --tokens 4096 --experts 64 --topk 8
        fused_moe decode: 1523.7 tok/s
        ```
        """))
    assert len(recs) == 2
    [bad] = failed(recs)
    assert bare(bad.error) == "CMake Error at CMakeLists.txt:48 (message):"
    assert "cmake -B build" in (bad.config.command or "") + " ".join(bad.config.flags)
    assert holding(recs, 1523.7, "tok/s").outcome.value != "failed"


def test_k23_german_nvcc_error_after_die_ausgabe(tmp_path):
    f, recs = drafts(tmp_path, "attn-build.md", dedent("""\
        # Attention-Kernel bauen, H100 — 15.03.2026

        ## Erster Build

        ```sh
        nvcc -O3 -std=c++17 -arch=sm_90a -o attn attn_fwd.cu
        ```

        Die Ausgabe:

        ```
        attn_fwd.cu(12): error: identifier "__hmax2_nan" is undefined
        attn_fwd.cu(57): error: no instance of overloaded function "wgmma_m64n128k16" matches the argument list
        2 errors detected in the compilation of "attn_fwd.cu".
        ```

        ## Nach dem Fix

        `#include <cuda_fp16.h>` ergänzt und die Signatur angepasst; der Build läuft durch. Messung:

        ```
        $ ./attn --seq 8192 --heads 32
        attn_fwd: 0.84 ms, 412.3 TFLOPS
        ```
        """))
    assert len(recs) == 2
    [bad] = failed(recs)
    assert bare(bad.error) == 'attn_fwd.cu(12): error: identifier "__hmax2_nan" is undefined'
    assert holding(recs, 412.3, "TFLOPS").outcome.value != "failed"


def test_k23_french_gcc_error_after_resultat(tmp_path):
    f, recs = drafts(tmp_path, "harnais.md", dedent("""\
        # Harnais de mesure CUDA driver API — 16/03/2026
        Version de gcc :

        ```
        $ gcc --version
        gcc (Ubuntu 13.2.0-23ubuntu4) 13.2.0
        ```

        ## Compilation du harnais

        ```
        gcc -O2 -Wall -o harness harness.c -I/usr/local/cuda/include -lcuda
        ```

        Résultat :

        ```
        harness.c: In function 'main':
        harness.c:5:3: error: unknown type name 'CUdeviceptr_v3'
            5 |   CUdeviceptr_v3 buf;
              |   ^~~~~~~~~~~~~~
        ```

        Le type n'existe pas dans les en-têtes de CUDA 12 ; à corriger demain.
        """))
    assert len(recs) == 1
    [bad] = failed(recs)
    assert bare(bad.error) == "harness.c:5:3: error: unknown type name 'CUdeviceptr_v3'"


def test_k23_spanish_multiline_llama_cpp_build_fails_in_nvcc(tmp_path):
    f, recs = drafts(tmp_path, "llama-sm120.md", dedent("""\
        # llama.cpp para RTX 5090 (sm_120) — 2026-03-17

        ## Compilar con CUDA 12.4

        ```bash
        export CUDACXX=/usr/local/cuda-12.4/bin/nvcc
        cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=120
        cmake --build build --config Release -j
        ```

        Falla con:

        ```
        [ 23%] Building CUDA object ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/fattn.cu.o
        ggml/src/ggml-cuda/fattn-mma-f16.cuh(412): error: identifier "__shfl_sync_fp8" is undefined
        1 error detected in the compilation of "ggml/src/ggml-cuda/fattn.cu".
        gmake[2]: *** [ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/build.make:90: fattn.cu.o] Error 1
        gmake: *** [Makefile:146: all] Error 2
        ```

        ## Con CUDA 12.8
        Mismo bloque con `CUDACXX=/usr/local/cuda-12.8/bin/nvcc`: compila. La medida:

        ```
        $ ./build/bin/llama-bench -m models/llama-3.1-8b-q4_k_m.gguf -ngl 99 -p 0 -n 128
        | model                  |     size | params | backend | ngl |  test |           t/s |
        | ---------------------- | -------: | -----: | ------- | --: | ----: | ------------: |
        | llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | CUDA    |  99 | tg128 | 201.45 ± 0.88 |
        ```
        """))
    assert len(recs) == 2
    [bad] = failed(recs)
    assert bare(bad.error) == 'ggml/src/ggml-cuda/fattn-mma-f16.cuh(412): error: identifier "__shfl_sync_fp8" is undefined'
    assert "cmake" in (bad.config.command or "") + " ".join(bad.config.flags)
    assert one(recs, 201.45).outcome.value != "failed"


# ========== k24: a numbered sample table is one draft per table; the first table is the baseline


def _numbered(mark, header, rows):
    cols = header.count("|") - 1
    lines = [header, "|" + "---|" * cols]
    lines += [f"| {i} | " + " | ".join(str(c) for c in row) + " |" for i, row in enumerate(rows, 1)]
    return "\n".join(lines).replace("| # |", f"| {mark} |", 1)


def test_k24_five_prompts_per_precision(tmp_path):
    prompts = ["summarize RFC 9110", "write a haiku", "SQL from schema", "translate to French", "explain KV cache"]
    tables = {"fp32": [21.4, 21.9, 21.1, 21.6, 21.3], "fp16": [41.8, 42.3, 41.5, 42.0, 41.7],
              "int8 (W8A8)": [58.2, 59.0, 57.6, 58.7, 58.1]}
    text = "# Per-prompt decode speed by precision — Llama-3.1-8B, vLLM, L40S (2026-03-15)\n\n"
    text += "Five fixed prompts, 256 new tokens each, batch 1.\n"
    for name, speeds in tables.items():
        rows = [(p, 256, s) for p, s in zip(prompts, speeds)]
        text += f"\n## {name}\n\n" + _numbered("#", "| # | prompt | out tokens | tok/s |", rows) + "\n"
    f, recs = drafts(tmp_path, "precision-prompts.md", text)
    assert len(recs) == 3
    assert all(has(holding(recs, 41.8, "tok/s"), v, "tok/s") for v in (42.3, 41.5, 42.0, 41.7))
    assert states(recs, "tok/s", 21.4, 41.8, 58.2) == ["baseline", "improved", "improved"]


@pytest.mark.xfail(strict=True, reason="kb makes one draft per numbered row (12; each table's row 1 a baseline, the rest "
                                       "neutral) instead of one per table compared with the first table")
def test_k24_russian_numero_sign_ttft_tables(tmp_path):
    tables = {"FP16": [48.2, 47.6, 49.1, 48.4], "FP8": [31.7, 32.2, 31.3, 31.9], "INT4 AWQ": [36.9, 37.4, 36.5, 37.1]}
    text = ("# Задержка первого токена по точности — Qwen2.5-14B, TensorRT-LLM, H100 (16.03.2026)\n\n"
            "Четыре одинаковых запроса на каждую конфигурацию, по одному.\n")
    for name, ttft in tables.items():
        rows = list(zip(["перевод", "резюме", "код", "вопрос"], ttft))
        text += f"\n## {name}\n\n" + _numbered("№", "| # | запрос | TTFT (ms) |", rows) + "\n"
    f, recs = drafts(tmp_path, "ttft-tochnost.md", text)
    assert len(recs) == 3
    assert all(has(holding(recs, 31.7, "ms"), v, "ms") for v in (32.2, 31.3, 31.9))
    assert states(recs, "ms", 48.2, 31.7, 36.9) == ["baseline", "improved", "improved"]


@pytest.mark.xfail(strict=True, reason="kb makes one draft per numbered row (12; each table's row 1 a baseline, the rest "
                                       "neutral) instead of one per table compared with the first table")
def test_k24_japanese_no_column_quant_tables_with_a_regression(tmp_path):
    tables = {"Q8_0": [128.4, 127.9, 128.8, 128.1], "Q4_K_M": [171.3, 170.6, 172.0, 171.1],
              "IQ2_XS": [119.2, 118.7, 119.9, 118.5]}
    text = ("# 量子化ごとのデコード速度 — Mistral-7B, llama.cpp, RTX 4090 (2026-03-17)\n\n"
            "各設定で同じ4つのプロンプトを実行(生成 128 トークン)。\n")
    for name, speeds in tables.items():
        rows = list(zip(["要約", "翻訳", "コード生成", "質問応答"], speeds))
        text += f"\n## {name} の結果\n\n" + _numbered("No.", "| # | プロンプト | tok/s |", rows) + "\n"
    f, recs = drafts(tmp_path, "quant-speed.md", text)
    assert len(recs) == 3
    assert all(has(holding(recs, 119.2, "tok/s"), v, "tok/s") for v in (118.7, 119.9, 118.5))
    assert states(recs, "tok/s", 128.4, 171.3, 119.2) == ["baseline", "improved", "regressed"]


@pytest.mark.xfail(strict=True, reason="kb makes one draft per numbered row plus one per 'Media:' line (12) instead of one "
                                       "per table with the stated mean as its headline")
def test_k24_spanish_tables_with_stated_mean_as_headline(tmp_path):
    tables = {"bf16": ([88.4, 87.5, 88.9], "88.3"), "fp8": ([121.6, 120.2, 122.3], "121.4"),
              "int4-awq": ([79.8, 80.9, 79.1], "79.9")}
    text = ("# Velocidad de decodificación por formato — Qwen3-8B, SGLang, H100 (2026-03-18)\n\n"
            "Tres peticiones numeradas por formato, 512 tokens de salida.\n")
    for name, (speeds, mean) in tables.items():
        rows = list(zip(["resumen", "traducción", "código"], speeds))
        text += f"\n## {name}\n\n" + _numbered("#", "| # | petición | tok/s |", rows) + f"\n\nMedia: {mean} tok/s\n"
    f, recs = drafts(tmp_path, "formatos.md", text)
    assert len(recs) == 3
    assert outcomes(recs) == {88.3: "baseline", 121.4: "improved", 79.9: "regressed"}
    assert all(has(one(recs, 121.4), v, "tok/s") for v in (121.6, 120.2, 122.3))
