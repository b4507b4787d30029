"""Runs in agent transcripts, whatever the script is called: measurements in the forms
engineers print, sweeps as one attempt with a series, failures with their error headline,
outcomes within a family of runs, distinct titles."""

from __future__ import annotations

from import_helpers import claude_log

from kb.importers import read_session
from kb.importers.score import score_session as extract


def attempts(tmp_path, steps):
    return extract(read_session(claude_log(tmp_path / "s.jsonl", steps))).attempts


def figures(attempt):
    return {name: (f.text, f.unit) for name, f in attempt.metrics.items()}


def test_own_scripts_are_runs_compared_within_their_family(tmp_path):
    found = attempts(tmp_path, [
        ("user", "Measure decode with and without the draft at TP1 and TP4."),
        ("run", "python3 serve_bench.py --model Q/QwQ-32B --tp 1 --no-spec",
         "[serve_bench] ready in 94 s\noutput throughput: 21.0 tok/s\nmedian TTFT: 118 ms"),
        ("say", "Now with the draft."),
        ("run", "python3 serve_bench.py --model Q/QwQ-32B --tp 1 --spec eagle", "output throughput: 30.0 tok/s"),
        ("run", "python3 sweep.py --model Q/QwQ-32B --tp 4 --spec off",
         "tp  spec  conc  output_tok_s\n4   off   1     61.0\nbest: 61.0 tok/s (tp=4)"),
        ("run", "python3 sweep.py --model Q/QwQ-32B --tp 4 --spec eagle", "tp  spec  conc  output_tok_s\n4   eagle 1     59.0"),
        ("run", "ls results/", "ls: cannot access 'results/': No such file or directory", True),
    ])
    assert [(a.outcome, figures(a).get("output_throughput")) for a in found] == [
        ("baseline", ("21.0", "tok/s")), ("improved", ("30.0", "tok/s")),
        ("baseline", ("61.0", "tok/s")), ("regressed", ("59.0", "tok/s"))]
    assert figures(found[0])["median_ttft"] == ("118", "ms")
    assert [a.reference for a in found] == [None, 0, None, 2]
    assert "Changed since the previous run: --no-spec → --spec eagle" not in found[1].approach
    assert "added --spec eagle" in found[1].approach and "dropped --no-spec" in found[1].approach
    assert len({a.title for a in found}) == 4


def test_a_sweep_is_one_attempt_with_a_series(tmp_path):
    nccl = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
            "     1048576        262144     float     sum      -1    354.9    2.95    5.76      0    345.7    3.03    5.92      0\n"
            "  1073741824     268435456     float     sum      -1   5651.3  190.00  190.00      0   5650.1  190.04  190.04      0\n"
            "# Avg bus bandwidth    : 97.9\n")
    gemm = ("| m    | n     | k     | Time (μs) | TFLOPS | GB/s   |\n+------+-------+\n"
            "|    8 |  4096 |  7168 | 102.9     | 4.6    | 286.4  |\n|  128 | 18432 |  7168 | 69.3      | 488.2  | 1988.2 |\n"
            "| 1024 | 18432 |  7168 | 279.0     | 969.8  | 635.2  |\n")
    found = attempts(tmp_path, [
        ("run", "mpirun -np 16 -x NCCL_ALGO=Ring ./build/all_reduce_perf -b 1M -e 1G -f 1024", nccl),
        ("run", "python3 bench_fp8_block_gemm.py --impl deepgemm", gemm),
        ("run", "python3 bench_fp8_block_gemm.py --impl deepgemm --shape 128,18432,7168",
         "shape m=128 n=18432 k=7168 median_us=69.3 std_pct=0.8 tflops_per_sec=488.2"),
    ])
    assert len(found) == 3
    assert figures(found[0])["busbw"] == ("97.9", "GB/s")  # the run's own "Avg bus bandwidth"
    assert figures(found[0])["busbw[size=1073741824]"] == ("190.00", "GB/s")
    assert figures(found[0])["busbw[size=1048576]"] == ("5.76", "GB/s")
    assert figures(found[0])["time"] == ("5651.3", "us")
    assert found[0].env == {"NCCL_ALGO": "Ring"}
    assert figures(found[1])["tflops"] == ("969.8", "TFLOPS")
    assert figures(found[1])["tflops[m=8,n=4096]"] == ("4.6", "TFLOPS")  # every setting the sweep varies
    assert figures(found[1])["bandwidth"] == ("635.2", "GB/s")
    assert figures(found[2])["median_us"] == ("69.3", "us")
    assert figures(found[2])["tflops_per_sec"] == ("488.2", "TFLOPS")


def test_rates_in_the_forms_engineers_print(tmp_path):
    found = attempts(tmp_path, [
        ("run", "python bench_sd15.py --steps 100",
         "100%|##########| 100/100 [00:03<00:00, 32.01it/s]\nsd15 fp16 bs=1 sdpa: 32.0 it/s"),
        ("run", "python3 speed_bench.py --no-spec",
         "category  avg_pred_t/s  avg_latency\n--------  ------------  -----------\ncoding    51.55         11.976s\nqa        51.66         9.242s"),
        ("run", "python3 tp.py", "single-stream decode over 16 prompts: 1,090 tokens/s\nprefill 7340.2 t/s, 3.1 req/s"),
    ])
    assert figures(found[0])["iterations"] == ("32.0", "it/s")
    assert figures(found[1])["output_throughput"] == ("51.55", "tok/s")
    assert figures(found[1])["output_throughput[category=qa]"] == ("51.66", "tok/s")
    assert figures(found[2])["output_throughput"] == ("1090", "tok/s")
    assert figures(found[2])["input_throughput"] == ("7340.2", "tok/s")
    assert figures(found[2])["request_throughput"] == ("3.1", "req/s")


def test_failed_runs_carry_their_error_headline(tmp_path):
    vllm_oom = ("(VllmWorker rank=6 pid=3121) INFO 03-22 10:31:40 [gpu_model_runner.py:1623] Capturing cudagraphs.\n"
                "(VllmWorker rank=6 pid=3121) ERROR 03-22 10:31:52 [multiproc_executor.py:470] torch.OutOfMemoryError: "
                "CUDA out of memory. Tried to allocate 2.00 MiB.\nRuntimeError: Engine core initialization failed.")
    nccl = ("gpu-node-a3:51877:51990 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer\n"
            "gpu-node-a3: Test NCCL failure common.cu:1279 'remote process exited or there was a network error / '\n"
            " .. gpu-node-a3 pid 51877: Test failure common.cu:1135")
    traceback = ('Exit code 1\nTraceback (most recent call last):\n  File "/srv/b.py", line 9, in <module>\n'
                 "    from deep_gemm import gemm_fp8\nImportError: cannot import name 'gemm_fp8' from 'deep_gemm'")
    found = attempts(tmp_path, [
        ("run", "vllm serve /w/DeepSeek-R1 --tensor-parallel-size 8", vllm_oom, True),
        ("run", "mpirun -np 40 -x NCCL_ALGO=Tree ./all_reduce_perf -b 1G", "Exit code 3\n" + nccl, True),
        ("run", "python3 bench.py --impl deepgemm", traceback, True),
        ("run", "python3 probe.py", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 24826.35 MiB on device 0: "
                                    "cudaMalloc failed: out of memory\nmain: error: failed to load model"),
        ("run", "cat /tmp/missing.log", "cat: /tmp/missing.log: No such file or directory", True),
        ("run", "python -c 'import sgl_kernel'", "ModuleNotFoundError: No module named 'sgl_kernel'", True),
    ])
    assert [a.outcome for a in found] == ["failed"] * 4
    assert [a.error for a in found] == [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB.",
        "gpu-node-a3: Test NCCL failure common.cu:1279 'remote process exited or there was a network error / '",
        "ImportError: cannot import name 'gemm_fp8' from 'deep_gemm'",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 24826.35 MiB on device 0: cudaMalloc failed: out of memory"]
    assert found[2].error_detail.startswith("Traceback (most recent call last):")


def test_a_printed_table_ends_where_its_rows_stop_matching(tmp_path):
    found = attempts(tmp_path, [
        ("run", "python3 speed_bench.py --no-spec",
         "Command: python3 speed_bench.py --no-spec\nStdout:\ncategory  avg_pred_t/s  avg_latency\n"
         "--------  ------------  -----------\ncoding    51.55         11.976s\nqa        51.66         9.242s\nExit Code: 0"),
    ])
    assert figures(found[0])["output_throughput"] == ("51.55", "tok/s")


def test_titles_say_what_ran_when_no_narration_does(tmp_path):
    found = attempts(tmp_path, [
        ("user", "Compare Ring and Tree."),
        ("run", "mpirun --allow-run-as-root -np 16 -H 10.0.0.1:8 -x NCCL_ALGO=Ring /opt/nccl-tests/build/all_reduce_perf -b 1G -e 1G",
         "#  size  count  type  redop  root  time  algbw  busbw\n#  (B)  (elements)  (us)  (GB/s)  (GB/s)\n"
         "1073741824  268435456  float  sum  -1  5651.3  190.00  190.00"),
        ("run", "mpirun --allow-run-as-root -np 16 -H 10.0.0.1:8 -x NCCL_ALGO=Tree /opt/nccl-tests/build/all_reduce_perf -b 1G -e 1G",
         "#  size  count  type  redop  root  time  algbw  busbw\n#  (B)  (elements)  (us)  (GB/s)  (GB/s)\n"
         "1073741824  268435456  float  sum  -1  7100.0  150.00  150.00"),
    ])
    assert [a.title for a in found] == ["all_reduce_perf -b 1G -e 1G NCCL_ALGO=Ring", "all_reduce_perf -b 1G -e 1G NCCL_ALGO=Tree"]
    assert [a.env for a in found] == [{"NCCL_ALGO": "Ring"}, {"NCCL_ALGO": "Tree"}]
    assert [a.outcome for a in found] == ["baseline", "regressed"]
    assert next(iter(found[1].metrics)) == "busbw"
    assert "NCCL_ALGO=Tree" in found[1].approach  # what changed since the Ring run


def test_summary_tables_key_values_exception_lines_and_variants(tmp_path):
    found = attempts(tmp_path, [
        ("run", "bash start_vllm.sh", "INFO 08-28 16:40:31 [api_server.py:1805] vLLM API server version 0.10.1.1\n"
                                      "ERROR 08-28 16:40:35 [core.py:700] ValueError: max_num_batched_tokens (128) is smaller"),
        ("run", "evalscope perf --parallel 1 --number 20",
         "Benchmarking summary:\n+------+------+\n| Key | Value |\n| Output token throughput (tok/s)   |  32.2219 |\n"
         "| Average latency (s)               |  30.2874 |"),
        ("run", "./scripts/p2p-validate.sh --bandwidth", "verdict: PASS\npeer_bw_GBps=6.60 host_staged_GBps=3.10 ratio=2.13"),
        ("run", "python3 check_outputs.py --tp 2", "FAIL: 16/16 responses differ from the reference\nexit 1", True),
        ("run", "NCCL_P2P_DISABLE=1 python3 check_outputs.py --tp 2", "OK: 16/16 responses match"),
    ])
    assert [a.outcome for a in found] == ["failed", "baseline", "baseline", "failed", "neutral"]  # a variant that worked, no figure
    assert found[0].error == "ValueError: max_num_batched_tokens (128) is smaller"
    assert figures(found[1])["output_throughput"] == ("32.2219", "tok/s")
    assert figures(found[2]) == {"peer_bw_GBps": ("6.60", "GB/s"), "host_staged_GBps": ("3.10", "GB/s")}
    assert found[3].error == "FAIL: 16/16 responses differ from the reference"
    assert found[4].env == {"NCCL_P2P_DISABLE": "1"} and "NCCL_P2P_DISABLE=1" in found[4].approach


def test_arms_a_run_prints_side_by_side_are_attempts_each(tmp_path):
    out = ("TFLOP/s comparison (block_size=(128, 128)):\n"
           "    batch_size  torch-bf16  w8a8-triton  w8a8-cutlass\n"
           "0          1.0    3.059417     1.298436      0.893065\n"
           "1       8192.0  666.385367   406.511360    489.655688\n")
    found = attempts(tmp_path, [("say", "Both FP8 paths; BF16 is printed for reference only."),
                                ("run", "python3 bench_block_fp8_gemm.py --n 2112", out)])
    assert [(a.title.split(" ")[0], a.outcome, figures(a)["tflops"]) for a in found] == [
        ("w8a8-triton", "baseline", ("406.511360", "TFLOPS")), ("w8a8-cutlass", "improved", ("489.655688", "TFLOPS"))]
    assert figures(found[1])["tflops[batch_size=1.0]"] == ("0.893065", "TFLOPS")
    assert len({a.key for a in found}) == 2


def test_variants_are_judged_against_the_reference_run_not_the_previous_variant(tmp_path):
    found = attempts(tmp_path, [
        ("say", "Page size 1 first, as the reference."),
        ("run", "python -m sglang.bench_one_batch --batch-size 16 --page-size 1",
         "Prefill. latency: 0.37681 s, throughput:  43480.63 token/s\n"
         "Decode.  median latency: 0.00896 s, median throughput:   1785.76 token/s"),
        ("run", "python -m sglang.bench_one_batch --batch-size 16 --page-size 64",
         "Decode.  median latency: 0.00771 s, median throughput:   2074.53 token/s"),
        ("run", "python -m sglang.bench_one_batch --batch-size 16 --page-size 128",
         "Decode.  median latency: 0.00777 s, median throughput:   2058.87 token/s"),
    ])
    assert [a.outcome for a in found] == ["baseline", "improved", "improved"]
    assert [a.reference for a in found] == [None, 0, 0]
    assert figures(found[0])["input_throughput"] == ("43480.63", "tok/s")
    assert figures(found[0])["output_throughput"] == ("1785.76", "tok/s")


def test_a_server_started_in_the_background_is_part_of_the_runs_against_it(tmp_path):
    found = attempts(tmp_path, [
        ("run", "SGLANG_SUPPORT_CUTLASS_BLOCK_FP8=1 python -m sglang.launch_server --model /w/q --tp 2",
         "Command running in background with ID: 7b2e04"),
        ("run", "python3 -m sglang.bench_serving --backend sglang --max-concurrency 128",
         "Input token throughput (tok/s):          4120.86"),
    ])
    assert len(found) == 1
    assert found[0].env == {"SGLANG_SUPPORT_CUTLASS_BLOCK_FP8": "1"} and "--tp 2" in found[0].flags
    assert figures(found[0])["input_throughput"] == ("4120.86", "tok/s")


def test_a_failed_build_is_a_failed_run_with_the_compilers_fatal_line(tmp_path):
    found = attempts(tmp_path, [
        ("run", "cmake -B build -DGGML_CUDA=ON && cmake --build build --target llama-bench",
         "[  3%] Building CUDA object acc.cu.o\nnvcc fatal   : Unsupported gpu architecture 'compute_120a'\n"
         "gmake[2]: *** [build.make:77: acc.cu.o] Error 1"),
    ])
    assert [(a.outcome, a.error) for a in found] == [("failed", "nvcc fatal   : Unsupported gpu architecture 'compute_120a'")]
