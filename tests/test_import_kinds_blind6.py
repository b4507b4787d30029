"""Blind tests, kinds k32..k34 (expected values decided from the inputs before running kb).

k32 a bring-up notebook of a server on a new GPU: each try that stopped with an error is a failed attempt
whose error is the headline it printed (the exception line of a traceback, `CUDA error: ...`, `nvcc fatal`,
`NCCL WARN ...`), whether the error sits in the command's own block, in the next block, alone under a
heading naming the try, after a bold label or inline in prose; the try that works is the measured one. An
error quoted from an upstream issue that the author did not hit is not an attempt.
k33 a run that finishes and prints a throughput but whose output is wrong (garbage, repeated tokens,
"!!!!", accuracy 0 %) is failed, whatever its throughput; a run whose output the prose says is fine is not.
k34 a serving-benchmark concurrency ladder, one command per rung: one attempt per rung, the first rung is
the baseline; a rung that timed out, or whose requests failed, is failed.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import bare, drafts, failed, has, one, outcomes, serve_block, transcript, value


def errors(recs):
    return sorted(bare(r.error) or "" for r in failed(recs))


# =============================================================================================
# k32: a bring-up notebook: tries that stopped with an error, then the one that works
# =============================================================================================


def test_k32_attempt_headings_command_block_then_error_block(tmp_path):
    f, recs = drafts(tmp_path, "k32-b200-bringup-2026-03-10.md", dedent("""\
        # Bring-up: vLLM + Kimi-K2.5 on the new B200 node — 2026-03-10

        Fresh 8x B200 box (sm_100), driver 570.86.15. Goal: get a first serving number.

        ### Attempt 1: stock vLLM 0.8.5 wheel

        ```
        $ vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8 --trust-remote-code
        ```

        Died before loading the weights:

        ```
        Traceback (most recent call last):
          File "/usr/local/bin/vllm", line 8, in <module>
            sys.exit(main())
          File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 165, in init_device
            torch.cuda.set_device(self.device)
          File "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py", line 478, in set_device
            torch._C._cuda_setDevice(device)
        RuntimeError: CUDA error: no kernel image is available for execution on the device
        CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
        For debugging consider passing CUDA_LAUNCH_BLOCKING=1
        Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
        ```

        ### Attempt 2: build vLLM from source for sm_100

        ```
        $ TORCH_CUDA_ARCH_LIST="10.0" pip install -e . --no-build-isolation
        ```

        ```
          nvcc fatal   : Unsupported gpu architecture 'compute_100'
          ninja: build stopped: subcommand failed.
          error: subprocess-exited-with-error
        ```

        The system toolkit is CUDA 12.4, which does not know sm_100.

        ### Attempt 3: CUDA 12.8 toolkit, rebuilt, serve with default flags

        The build went through this time. The server then died during CUDA graph capture:

        ```
        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 3 has a total capacity of 178.35 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 177.31 GiB memory in use.
        ```

        ### Attempt 4: same build, `--gpu-memory-utilization 0.85`

        ```
        $ vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 8 --trust-remote-code --gpu-memory-utilization 0.85 &
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 32 --num-prompts 320 --random-input-len 1024 --random-output-len 512
        ============ Serving Benchmark Result ============
        Successful requests:                     320
        Benchmark duration (s):                  71.42
        Output token throughput (tok/s):         2140.5
        Mean TTFT (ms):                          288.30
        ==================================================
        ```

        It works.
        """))
    # three failed tries (a failing launch and a failing build count) and the one that works
    assert len(recs) == 4
    assert outcomes(recs) == {2140.5: "baseline"}
    bad = failed(recs)
    assert len(bad) == 3
    errs = [bare(r.error) or "" for r in bad]
    assert "RuntimeError: CUDA error: no kernel image is available for execution on the device" in errs
    assert any("nvcc fatal" in e and "Unsupported gpu architecture 'compute_100'" in e for e in errs)
    assert any(e.startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.") for e in errs)
    assert has(one(recs, 2140.5), 288.30, "ms")


def test_k32_error_blocks_alone_under_try_headings_and_upstream_issue_quote(tmp_path):
    f, recs = drafts(tmp_path, "k32-mi355x-sglang.md", dedent("""\
        # SGLang on the MI355X — bring-up log (2026-03-11)

        Model: Qwen/Qwen3-235B-A22B-FP8, TP 8, ROCm 6.4.

        ## Try 1 — rocm/sglang v0.4.6 image as shipped

        ```
        RuntimeError: HIP error: invalid device function
        HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
        For debugging consider passing AMD_SERIALIZE_KERNEL=3
        Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.
        ```

        The image's kernels are built for gfx942 only; the MI355X is gfx950.

        ## Try 2 — v0.4.9 image (gfx950 build), `--attention-backend aiter`

        ```
        Traceback (most recent call last):
          File "/sgl-workspace/sglang/python/sglang/launch_server.py", line 14, in <module>
            launch_server(server_args)
          File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/aiter_backend.py", line 28, in <module>
            from aiter import mha_batch_prefill_func
        ModuleNotFoundError: No module named 'aiter'
        ```

        A related error is reported upstream in sglang#5012 for the same GPU:
        `RuntimeError: HIP error: an illegal memory access was encountered` during CUDA graph capture with
        aiter on gfx950; the reporter worked around it with `--disable-cuda-graph`. We never hit that one.

        ## Try 3 — aiter built from source in the container, same flags

        ```
        $ python -m sglang.bench_serving --backend sglang --dataset-name random --random-input 1024 --random-output 512 --num-prompts 400 --max-concurrency 64

        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Max request concurrency:                 64
        Successful requests:                     400
        Benchmark duration (s):                  102.77
        Output token throughput (tok/s):         1874.2
        Mean TTFT (ms):                          640.11
        ==================================================
        ```
        """))
    # the upstream issue's error is not the author's run: three drafts, two failed
    assert len(recs) == 3
    assert outcomes(recs) == {1874.2: "baseline"}
    assert errors(recs) == ["ModuleNotFoundError: No module named 'aiter'",
                            "RuntimeError: HIP error: invalid device function"]
    assert not [r for r in recs if r.error and "illegal memory access" in r.error]


def test_k32_numbered_tries_error_in_the_same_block_after_the_prompt(tmp_path):
    f, recs = drafts(tmp_path, "k32-rtx5090-llamacpp.md", dedent("""\
        # llama.cpp on the RTX 5090 — first light (2026-03-12)

        Qwen2.5-32B-Instruct Q4_K_M, CUDA backend.

        1. Prebuilt b4800 release binary (CUDA 12.4):

           ```
           $ ./llama-bench -m models/qwen2.5-32b-instruct-q4_k_m.gguf -ngl 99 -fa 1
           ggml_cuda_init: found 1 CUDA devices:
             Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: yes
           ggml_cuda_compute_forward: MUL_MAT failed
           CUDA error: no kernel image is available for execution on the device
             current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda/ggml-cuda.cu:2313
             err
           ggml/src/ggml-cuda/ggml-cuda.cu:73: CUDA error
           ```

        2. Built from source with `-DCMAKE_CUDA_ARCHITECTURES=120` against the same CUDA 12.4:

           ```
           $ cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=120 && cmake --build build -j 32
           [  9%] Building CUDA object ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/acc.cu.o
           nvcc fatal   : Unsupported gpu architecture 'compute_120'
           gmake[2]: *** [ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/build.make:77: ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/acc.cu.o] Error 1
           ```

        3. Installed CUDA 12.8, rebuilt (clean build), reran the bench:

           ```
           $ ./build/bin/llama-bench -m models/qwen2.5-32b-instruct-q4_k_m.gguf -ngl 99 -fa 1
           | model                          |       size |     params | backend    | ngl | fa |          test |                  t/s |
           | ------------------------------ | ---------: | ---------: | ---------- | --: | -: | ------------: | -------------------: |
           | qwen2 32B Q4_K - Medium        |  18.48 GiB |    32.76 B | CUDA       |  99 |  1 |         pp512 |      4211.37 ± 12.05 |
           | qwen2 32B Q4_K - Medium        |  18.48 GiB |    32.76 B | CUDA       |  99 |  1 |         tg128 |         61.84 ± 0.07 |

           build: 1a24c46 (4820)
           ```
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {61.84: "baseline"}
    assert has(one(recs, 61.84), 4211.37, "tok/s", "input_throughput")
    bad = failed(recs)
    assert len(bad) == 2
    errs = [bare(r.error) or "" for r in bad]
    assert "CUDA error: no kernel image is available for execution on the device" in errs
    assert any("nvcc fatal" in e and "Unsupported gpu architecture 'compute_120'" in e for e in errs)


def test_k32_bold_error_labels_and_output_paragraph(tmp_path):
    f, recs = drafts(tmp_path, "k32-rtxpro6000.md", dedent("""\
        # vLLM on the RTX PRO 6000 Blackwell: bring-up, 2026-03-13

        Qwen3-32B-FP8, single GPU, vLLM 0.9.1.

        **Try 1: defaults.** `vllm serve Qwen/Qwen3-32B-FP8 --max-model-len 16384`

        **Error:** `triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376`

        The FP8 block-scaled Triton GEMM configs are tuned for the 228 KB of shared memory of an H100; sm_120
        has about 100 KB.

        **Try 2: CUTLASS FP8 path** (`VLLM_USE_TRITON_FP8_GEMM=0 vllm serve Qwen/Qwen3-32B-FP8 --max-model-len 16384`)

        **Error:** `NotImplementedError: No compiled cutlass_scaled_mm for a compute capability less than CUDA device capability: 120`

        **Try 3: vLLM nightly wheel (built with the sm_120 CUTLASS kernels), same flags.** The server came up.

        Output: `vllm bench serve --model Qwen/Qwen3-32B-FP8 --max-concurrency 16 --num-prompts 160` reported
        1,042.7 output tok/s, mean TTFT 310.5 ms, 160/160 requests successful.
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1042.7: "baseline"}
    assert errors(recs) == [
        "NotImplementedError: No compiled cutlass_scaled_mm for a compute capability less than CUDA device capability: 120",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376",
    ]


def test_k32_german_prose_with_inline_errors(tmp_path):
    f, recs = drafts(tmp_path, "k32-inbetriebnahme.md", dedent("""\
        # Inbetriebnahme: SGLang auf 2x RTX PRO 6000 (PCIe) — 2026-03-14

        Modell: Qwen/Qwen3-30B-A3B, `--tp 2`, zwei neue Karten ohne NVLink.

        Zuerst habe ich den Server mit `python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 2`
        gestartet; er brach beim Initialisieren von NCCL mit
        `torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2`
        ab.

        Mit `NCCL_P2P_DISABLE=1` startete der Server. Der erste Benchmark
        `python -m sglang.bench_serving --backend sglang --num-prompts 200 --max-concurrency 32` lief aber nicht
        durch: nach etwa 40 Anfragen stürzte der Server mit
        `NCCL WARN Cuda failure 700 'an illegal memory access was encountered'` ab.

        Nach dem Treiber-Update auf 575.51 und einem Neustart lief derselbe Benchmark durch:

        ```
        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Successful requests:                     200
        Output token throughput (tok/s):         1388.4
        Mean TTFT (ms):                          201.77
        ==================================================
        ```
        """))
    # a failed launch, a benchmark that crashed midway, the benchmark that ran
    assert len(recs) == 3
    assert outcomes(recs) == {1388.4: "baseline"}
    bad = failed(recs)
    assert len(bad) == 2
    errs = [bare(r.error) or "" for r in bad]
    assert any(e.startswith("torch.distributed.DistBackendError: NCCL error in:") and "unhandled system error" in e
               for e in errs)
    assert any("NCCL WARN Cuda failure 700 'an illegal memory access was encountered'" in e for e in errs)


# =============================================================================================
# k33: a run that prints a throughput but produced wrong output is failed
# =============================================================================================


def test_k33_garbage_completions_said_in_prose_after_the_block(tmp_path):
    f, recs = drafts(tmp_path, "k33-nvfp4-2026-03-15.md", dedent("""\
        # NVFP4 vs BF16 on 1x B200, Llama-3.3-70B-Instruct — 2026-03-15

        ## BF16 baseline

        ```
        $ vllm bench serve --model meta-llama/Llama-3.3-70B-Instruct --max-concurrency 32 --num-prompts 320
        ============ Serving Benchmark Result ============
        Successful requests:                     320
        Output token throughput (tok/s):         1210.4
        Mean TTFT (ms):                          245.10
        ==================================================
        ```

        Spot-checked a few completions with curl: coherent.

        ## NVFP4 checkpoint (nvidia/Llama-3.3-70B-Instruct-FP4)

        ```
        $ vllm bench serve --model nvidia/Llama-3.3-70B-Instruct-FP4 --max-concurrency 32 --num-prompts 320
        ============ Serving Benchmark Result ============
        Successful requests:                     320
        Output token throughput (tok/s):         1968.2
        Mean TTFT (ms):                          160.40
        ==================================================
        ```

        Fast, but the completions are garbage: asking "What is the capital of France?" returns
        "ungeonsIRT.scalablytyped Province Province Province". The default FP4 GEMM path of this build is broken.

        ## NVFP4, FlashInfer CUTLASS FP4 GEMM (`VLLM_NVFP4_GEMM_BACKEND=flashinfer-cutlass`)

        ```
        $ vllm bench serve --model nvidia/Llama-3.3-70B-Instruct-FP4 --max-concurrency 32 --num-prompts 320
        ============ Serving Benchmark Result ============
        Successful requests:                     320
        Output token throughput (tok/s):         1745.9
        Mean TTFT (ms):                          171.80
        ==================================================
        ```

        Completions correct again (same answers as BF16 on the spot checks).
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {1210.4: "baseline", 1968.2: "failed", 1745.9: "improved"}
    [bad] = failed(recs)
    # wrong output, no error line printed; a failed record must name what went wrong (kb.models), so the
    # error holds the log's own sentence about it (changed after the run: the README's "absent" is the
    # corpus truth's convention, which the record schema does not allow)
    assert bad.error.startswith("Fast, but the completions are garbage")


def test_k33_output_check_column_gibberish_and_repeated_tokens(tmp_path):
    f, recs = drafts(tmp_path, "k33-w4a16-kernels.md", dedent("""\
        # W4A16 GEMM kernels, Qwen2.5-72B-Instruct-AWQ, 1x H200, vLLM 0.9 — 2026-03-16

        Each row is one `python benchmarks/benchmark_throughput.py --model Qwen/Qwen2.5-72B-Instruct-AWQ
        --quantization <kernel> --num-prompts 500`; the outputs of 20 prompts were checked by eye.

        | kernel | output tok/s | output check |
        |---|---:|---|
        | awq (default) | 2210.6 | ok |
        | awq_marlin | 2488.0 | ok |
        | machete | 2893.1 | gibberish |
        | exllama | 2650.3 | repeated tokens ("the the the ...") |
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {2210.6: "baseline", 2488.0: "improved", 2893.1: "failed", 2650.3: "failed"}


def test_k33_exclamation_marks_output_in_the_run_block(tmp_path):
    f, recs = drafts(tmp_path, "k33-fp16-overflow.md", dedent("""\
        # Mistral-Small-3.1-24B, dtype and KV cache, 1x L40S — 2026-03-17

        `bench_offline.py` runs 200 prompts through `vllm.LLM.generate` and prints the first completion.

        ```
        $ python bench_offline.py --model mistralai/Mistral-Small-3.1-24B-Instruct-2503 --dtype bfloat16
        Processed 200 prompts in 20.33 s
        output throughput: 2519.2 tok/s
        sample[0]: ' Sarah and I am a software engineer from Seattle.'
        $ python bench_offline.py --model mistralai/Mistral-Small-3.1-24B-Instruct-2503 --dtype float16
        Processed 200 prompts in 19.21 s
        output throughput: 2664.9 tok/s
        sample[0]: '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
        $ python bench_offline.py --model mistralai/Mistral-Small-3.1-24B-Instruct-2503 --dtype bfloat16 --kv-cache-dtype fp8
        Processed 200 prompts in 18.99 s
        output throughput: 2690.3 tok/s
        sample[0]: ' Sarah and I am a software engineer from Seattle.'
        ```

        float16 only ever produces "!!!!" — the activations overflow in fp16, so that run's output is unusable.
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {2519.2: "baseline", 2664.9: "failed", 2690.3: "improved"}


def test_k33_accuracy_zero_percent_numbered_items(tmp_path):
    f, recs = drafts(tmp_path, "k33-eagle3-gsm8k.md", dedent("""\
        # EAGLE-3 on Llama-3.1-8B-Instruct, SGLang, 1x H100 — 2026-03-18

        Throughput from `python -m sglang.bench_one_batch_server --batch-size 1 --input-len 256 --output-len 512`,
        accuracy from `python benchmark/gsm8k/bench_sglang.py --num-questions 200`.

        1. No speculation (baseline): 152.3 tok/s, gsm8k accuracy 79.5 %
        2. EAGLE-3 with `yuhuili/EAGLE3-LLaMA3.1-Instruct-8B`, steps 3, topk 1, draft tokens 4: 251.7 tok/s,
           gsm8k accuracy 0 % (every answer is empty)
        3. Same, with the draft model forced to `--dtype bfloat16`: 238.4 tok/s, gsm8k accuracy 79.0 %
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {152.3: "baseline", 251.7: "failed", 238.4: "improved"}


def test_k33_spanish_transcript_salida_basura(tmp_path):
    text = transcript(tmp_path, [
        ("user", "Prueba la caché KV en FP8 y compara con la línea base."),
        ("run", "vllm bench serve --model Qwen/Qwen3-32B --max-concurrency 32 --num-prompts 256",
         serve_block("1432.7")),
        ("say", "Línea base correcta. Ahora reinicio el servidor con --kv-cache-dtype fp8_e5m2 y repito."),
        ("run", "vllm bench serve --model Qwen/Qwen3-32B --max-concurrency 32 --num-prompts 256  # servidor: fp8_e5m2",
         serve_block("1611.0", ttft="190.20")),
        ("say", "El rendimiento sube, pero la salida es basura: las respuestas repiten el mismo token "
                "(\"de de de de de\"). Descarto esta configuración y pruebo fp8_e4m3."),
        ("run", "vllm bench serve --model Qwen/Qwen3-32B --max-concurrency 32 --num-prompts 256  # servidor: fp8_e4m3",
         serve_block("1580.2", ttft="195.70")),
        ("say", "Con fp8_e4m3 las respuestas son correctas."),
    ])
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 3
    assert outcomes(recs) == {1432.7: "baseline", 1611.0: "failed", 1580.2: "improved"}


def test_k33_control_prose_says_the_output_was_fine(tmp_path):
    f, recs = drafts(tmp_path, "k33-fp8-kv-ok.md", dedent("""\
        # FP8 KV cache, Kimi-K2.5 TP8 — 2026-03-19

        ## Baseline (bf16 KV cache)

        ```
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 64 --num-prompts 512
        """) + serve_block("2987.4", n=512) + dedent("""\
        ```

        ## `--kv-cache-dtype fp8`

        ```
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 64 --num-prompts 512
        """) + serve_block("3345.1", ttft="198.20", n=512) + dedent("""\
        ```

        Output checked on 50 prompts against the bf16 run: fine — no garbage, no repeated tokens, gsm8k
        accuracy 93.1 % against 93.4 %.
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {2987.4: "baseline", 3345.1: "improved"}
    assert failed(recs) == []


# =============================================================================================
# k34: a serving concurrency ladder with a rung that timed out or lost requests
# =============================================================================================
#
# Decision for a rung whose result block shows failed requests (30 of 130): failed. The README calls a
# run failed when "it did not run to the end ... was refused"; such a rung did not serve its workload to
# the end (30 requests were refused or timed out), so its throughput is over a different, partial workload
# and is not a measurement of the rung, whatever it prints. It prints no exception line, so its error is
# not asserted. A rung killed by a TimeoutError traceback before its result block is plainly failed, with
# the exception line as its error.


def vllm_block(out_tps, ttft, ok=130, bad=None):
    failed_line = "" if bad is None else f"Failed requests:                         {bad}\n"
    return (
        "============ Serving Benchmark Result ============\n"
        f"Successful requests:                     {ok}\n"
        + failed_line
        + "Benchmark duration (s):                  60.12\n"
        f"Output token throughput (tok/s):         {out_tps}\n"
        f"Mean TTFT (ms):                          {ttft}\n"
        "==================================================\n"
    )


@pytest.mark.xfail(strict=True, reason="kb marks the rung with 30 of 130 failed requests improved (1805.0), not failed")
def test_k34_heading_per_rung_one_rung_with_failed_requests(tmp_path):
    cmd = ("$ vllm bench serve --model Qwen/Qwen3-32B --dataset-name random --random-input-len 1024 "
           "--random-output-len 256 --num-prompts 130 --max-concurrency {}\n")
    f, recs = drafts(tmp_path, "k34-ladder-2026-03-20.md", dedent("""\
        # Concurrency ladder, Qwen3-32B on 1x H200, vLLM 0.10 — 2026-03-20

        ```
        $ vllm serve Qwen/Qwen3-32B --max-num-seqs 64 &
        ```

        ### concurrency 1

        ```
        """) + cmd.format(1) + vllm_block("78.4", "61.20", bad=0) + dedent("""\
        ```

        ### concurrency 4

        ```
        """) + cmd.format(4) + vllm_block("301.9", "70.85", bad=0) + dedent("""\
        ```

        ### concurrency 16

        ```
        """) + cmd.format(16) + vllm_block("1102.6", "118.30", bad=0) + dedent("""\
        ```

        ### concurrency 64

        ```
        """) + cmd.format(64) + vllm_block("1805.0", "2410.55", ok=100, bad=30) + dedent("""\
        ```

        30 of the 130 requests failed at 64 (HTTP 503 from the server once the queue filled up).
        """))
    # one attempt per rung; the server launch is not one
    assert len(recs) == 4
    assert outcomes(recs) == {78.4: "baseline", 301.9: "improved", 1102.6: "improved", 1805.0: "failed"}
    assert has(one(recs, 1102.6), 118.30, "ms")


def test_k34_benchmark_serving_rung_dies_with_timeout_traceback(tmp_path):
    base = ("$ python benchmarks/benchmark_serving.py --backend vllm --model Qwen/Qwen2.5-72B-Instruct "
            "--dataset-name random --random-input-len 2048 --random-output-len 256 --num-prompts 200 "
            "--max-concurrency {}\n")
    head = ("Starting initial single prompt test run...\n"
            "Initial test run completed. Starting main benchmark run...\n"
            "Traffic request rate: inf\n"
            "Maximum request concurrency: {}\n")
    f, recs = drafts(tmp_path, "console.txt",
                     base.format(8) + head.format(8)
                     + "100%|██████████| 200/200 [01:12<00:00,  2.76it/s]\n"
                     + vllm_block("706.9", "312.55", ok=200)
                     + base.format(32) + head.format(32)
                     + "100%|██████████| 200/200 [00:31<00:00,  6.40it/s]\n"
                     + vllm_block("2011.3", "598.20", ok=200)
                     + base.format(128) + head.format(128)
                     + " 41%|████      | 82/200 [06:00<08:38,  4.39s/it]\n"
                     + dedent("""\
                         Traceback (most recent call last):
                           File "/opt/vllm/benchmarks/benchmark_serving.py", line 1298, in <module>
                             main(args)
                           File "/opt/vllm/benchmarks/benchmark_serving.py", line 868, in main
                             benchmark_result = asyncio.run(
                           File "/usr/lib/python3.10/asyncio/runners.py", line 44, in run
                             return loop.run_until_complete(main)
                           File "/usr/lib/python3.10/asyncio/base_events.py", line 649, in run_until_complete
                             return future.result()
                           File "/opt/vllm/benchmarks/backend_request_func.py", line 287, in async_request_openai_completions
                             async with session.post(url=api_url, json=payload, headers=headers) as response:
                           File "/usr/lib/python3.10/asyncio/tasks.py", line 456, in wait_for
                             return fut.result()
                         asyncio.exceptions.TimeoutError
                         """)
                     + base.format(64) + head.format(64)
                     + "100%|██████████| 200/200 [00:25<00:00,  7.91it/s]\n"
                     + vllm_block("2604.8", "880.10", ok=200))
    assert len(recs) == 4
    assert outcomes(recs) == {706.9: "baseline", 2011.3: "improved", 2604.8: "improved"}
    [bad] = failed(recs)
    assert bare(bad.error) == "asyncio.exceptions.TimeoutError"


def test_k34_numbered_rungs_all_requests_failed_at_the_top(tmp_path):
    f, recs = drafts(tmp_path, "k34-kimi-ladder.md", dedent("""\
        # Kimi-K2.5 TP8 on 8x H200, concurrency ladder — 2026-03-21

        One `vllm bench serve --model moonshotai/Kimi-K2.5 --num-prompts 512 --max-concurrency N` per rung.

        1. N = 16

           ```
           ============ Serving Benchmark Result ============
           Successful requests:                     512
           Failed requests:                         0
           Output token throughput (tok/s):         1102.6
           Mean TTFT (ms):                          180.40
           ==================================================
           ```

        2. N = 64

           ```
           ============ Serving Benchmark Result ============
           Successful requests:                     512
           Failed requests:                         0
           Output token throughput (tok/s):         2870.3
           Mean TTFT (ms):                          402.75
           ==================================================
           ```

        3. N = 256 — the server had been OOM-killed by the kernel (dmesg) a few seconds into the rung:

           ```
           /opt/vllm/vllm/benchmarks/serve.py:178: UserWarning: All requests failed. This is likely due to a misconfiguration on the benchmark arguments.
             warnings.warn(
           ============ Serving Benchmark Result ============
           Successful requests:                     0
           Failed requests:                         512
           Output token throughput (tok/s):         0.00
           Mean TTFT (ms):                          0.00
           ==================================================
           ```
        """))
    assert len(recs) == 3
    assert outcomes(recs)[1102.6] == "baseline"
    assert outcomes(recs)[2870.3] == "improved"
    [bad] = failed(recs)
    assert value(bad) in (None, 0.0)
    assert "All requests failed" in (bare(bad.error) or "")


@pytest.mark.xfail(strict=True, reason="kb gives 3 drafts: the rung that stopped with an inline-quoted asyncio.exceptions.TimeoutError is not a draft")
def test_k34_french_ladder_timeout_quoted_inline(tmp_path):
    f, recs = drafts(tmp_path, "k34-palier.md", dedent("""\
        # Montée en concurrence, SGLang, Llama-3.1-70B-Instruct sur 4x H100 — 2026-03-22

        Une commande `python -m sglang.bench_serving --backend sglang --num-prompts 300 --max-concurrency N`
        par palier.

        ## Palier 4

        ```
        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Max request concurrency:                 4
        Successful requests:                     300
        Output token throughput (tok/s):         301.9
        Mean TTFT (ms):                          95.40
        ==================================================
        ```

        ## Palier 16

        ```
        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Max request concurrency:                 16
        Successful requests:                     300
        Output token throughput (tok/s):         1040.2
        Mean TTFT (ms):                          130.10
        ==================================================
        ```

        ## Palier 64

        ```
        ============ Serving Benchmark Result ============
        Backend:                                 sglang
        Max request concurrency:                 64
        Successful requests:                     300
        Output token throughput (tok/s):         2211.8
        Mean TTFT (ms):                          388.60
        ==================================================
        ```

        ## Palier 128

        Ce palier n'a pas abouti : le client s'est arrêté avec `asyncio.exceptions.TimeoutError` après
        10 minutes, sans bloc de résultats.
        """))
    assert len(recs) == 4
    assert outcomes(recs) == {301.9: "baseline", 1040.2: "improved", 2211.8: "improved"}
    [bad] = failed(recs)
    assert bare(bad.error) == "asyncio.exceptions.TimeoutError"


@pytest.mark.xfail(strict=True, reason="kb marks the row with 30 failed requests improved (3120.5), not failed")
def test_k34_summary_table_only_with_failed_column(tmp_path):
    f, recs = drafts(tmp_path, "k34-table.md", dedent("""\
        # Llama-3.1-8B-Instruct on 1x L40S, vLLM 0.10 — concurrency ladder (2026-03-23)

        One `vllm bench serve --num-prompts 400 --max-concurrency N` per row.

        | concurrency | successful | failed | output tok/s | mean TTFT (ms) |
        |---:|---:|---:|---:|---:|
        | 8 | 400 | 0 | 612.4 | 140.2 |
        | 32 | 400 | 0 | 1990.0 | 233.9 |
        | 128 | 370 | 30 | 3120.5 | 1450.8 |
        """))
    # the table is all there is: its rows are the attempts; the 128 row lost 30 requests: failed (see above)
    assert len(recs) == 3
    assert outcomes(recs) == {612.4: "baseline", 1990.0: "improved", 3120.5: "failed"}
    assert has(one(recs, 1990.0), 233.9, "ms")
