"""Kinds fixed after the second sealed half was opened (issue 22): each with variants of its own.

- a failed ``pip install`` a document shows with its error is a failed attempt; in an agent's
  transcript, where installs are retried at once, it is not;
- an error block a document shows under a heading without its command is the section's failed try,
  titled by the heading, and it does not turn the notes beside it into commentary;
- ``**Error:**`` introduces the block after a command as ``Error:`` does;
- a shell loop's body names the program it runs; ``rep N: name value unit`` lines of one run give
  their mean as its figure;
- a table's column of checkpoint files names the model of each row; a glued ``gentps`` header is
  tokens per second.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_import_kinds import bare, drafts, failed, outcomes, transcript, value

from kb.importers.read import commands, errors, labels, read_output, statements


@pytest.mark.parametrize("block", [
    "```bash\npip install flash-attn --no-build-isolation\n```\n\n**Error:**\n\n```\n"
    "RuntimeError: FlashAttention is only supported on CUDA 11.7 and above\n```\n",
    "```\n$ pip3 install vllm==0.6.3\nERROR: No matching distribution found for vllm==0.6.3\n```\n",
])
def test_a_failed_install_in_a_document_is_a_failed_attempt(tmp_path, block):
    f, recs = drafts(tmp_path, "bringup.md", "# Bring-up on the L4 (2026-04-02)\n\n## Try 1: the wheel\n\n" + block)
    [bad] = failed(recs)
    assert len(recs) == 1
    assert bare(bad.error).startswith(("RuntimeError: FlashAttention", "ERROR: No matching distribution"))


def test_a_failed_install_in_a_transcript_is_no_attempt(tmp_path):
    text = transcript(tmp_path, [
        ("run", "pip install flash-attn==9.9", "ERROR: No matching distribution found for flash-attn==9.9", 1),
        ("run", "python bench.py --model m", "decode: 41.2 tok/s"),
    ])
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert [value(r) for r in recs] == [41.2]


@pytest.mark.parametrize("label,error", [
    ("**Error:**", "RuntimeError: No supported CUDA architectures found for major versions [10]."),
    ("Output:", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
    ("Le serveur s'arrête avec :", "ValueError: Unsupported FA version: 3"),
])
def test_an_error_block_under_its_heading_is_the_sections_failed_try(tmp_path, label, error):
    f, recs = drafts(tmp_path, "errors.md", dedent(f"""\
        # NVFP4 MoE on the RTX 5090 (2026-04-03)

        ## 1. FlashInfer TRT-LLM MoE backend

        {label}

        ```
        Traceback (most recent call last):
          File "/opt/venv/lib/python3.12/site-packages/x/launch.py", line 12, in main
        {error}
        ```

        **Fix:** patched the JIT flags.

        ## 2. After the patch

        - `--moe-runner-backend flashinfer_trtllm`: **612.4 tok/s** decode, output is coherent.
        """))
    [bad] = failed(recs)
    assert bare(bad.error) == error
    assert bad.title == "1. FlashInfer TRT-LLM MoE backend"
    assert [value(r) for r in recs if r not in failed(recs)] == [612.4]


def test_an_error_block_leaves_the_notes_of_its_section_at_their_confidence(tmp_path):
    f, recs = drafts(tmp_path, "draft.md", dedent("""\
        # Speculative decoding on the 3090 (2026-04-04)

        - no draft: **32.4 tok/s** decode, the baseline
        - draft model, `--draft-max 16`: **51.7 tok/s**
        - `--draft-max 32`: refused to start:
          ```
          ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1026.00 MiB on device 0: cudaMalloc failed: out of memory
          ```
        """))
    assert outcomes(recs) == {32.4: "baseline", 51.7: "improved"}
    assert "cudaMalloc failed: out of memory" in bare(failed(recs)[0].error)


@pytest.mark.parametrize("loop,program", [
    ("for i in 1 2 3; do python bench_decode.py --attn triton --tag rep$i; done", "bench_decode.py"),
    ("while true; do ./llama-bench -m m.gguf; sleep 1; done", "llama-bench"),
    ("if python3 -m sglang.bench_serving --backend sglang; then echo ok; fi", "sglang.bench_serving"),
])
def test_a_shell_compound_command_runs_the_program_of_its_body(loop, program):
    assert commands.program_of(loop) == program


def test_repetition_lines_of_one_run_give_their_mean():
    run = read_output("rep 1: decode 96.2 tok/s\nrep 2: decode 95.8 tok/s\nrep 3: decode 96.7 tok/s\n").runs[0]
    assert run.metrics["output_throughput"].text == "96.2"  # (96.2 + 95.8 + 96.7) / 3 = 96.23
    assert run.metrics["output_throughput"].spread == "0.5"  # sample standard deviation 0.45
    assert run.metrics["output_throughput[rep 2]"].text == "95.8"


def test_lines_of_parts_that_are_not_repetitions_keep_the_first_part():
    run = read_output("prefill: decode 80.5 tok/s\nlong: decode 60.1 tok/s\n").runs[0]
    assert run.metrics["output_throughput"].text == "80.5"


@pytest.mark.parametrize("label,stem", [
    ("cfgA_run2", "cfga"), ("`original_interactive_run1`:", "original_interactive"), ("Run 4", ""),
    ("FA on (trial 2)", "fa on"), ("w8a8 rep3", "w8a8"), ("tp2", None), ("bs 8", None), ("bypass 2", None),
])
def test_repetition_stem(label, stem):
    assert labels.repetition_stem(label) == stem


def test_a_column_of_checkpoint_files_names_each_rows_model(tmp_path):
    f, recs = drafts(tmp_path, "quants.md", dedent("""\
        # Qwen2.5-7B GGUF quants, llama.cpp b4600, RTX 3090 (2026-04-05)

        | file | tg128 t/s |
        |---|---:|
        | `qwen2.5-7b-f16.gguf` (reference) | 52.30 ± 0.11 |
        | `qwen2.5-7b-q8_0.gguf` | 88.90 ± 0.25 |
        | `qwen2.5-7b-q4_k_m.gguf` | 52.90 ± 2.30 |
        """))
    assert outcomes(recs) == {52.3: "baseline", 88.9: "improved", 52.9: "neutral"}


@pytest.mark.parametrize("header,name", [("gentps", "output_throughput"), ("prompttps", "input_throughput"),
                                         ("decodetps", "output_throughput")])
def test_a_glued_tokens_per_second_header(header, name):
    assert labels.header_figure(header) == (name, "tok/s")


def test_a_glued_word_that_is_no_rate_stays_a_setting():
    assert labels.header_figure("steps") is None
    assert labels.header_figure("ts") is None


@pytest.mark.parametrize("text,wrong", [
    ("Fast, but the completions are garbage: it answers 'Province Province'.", True),
    ("El rendimiento sube, pero la salida es basura.", True),
    ("Die Antworten sind unbrauchbar.", True),
    ("the model repeats the same token over and over: repeated tokens everywhere", True),
    ("gsm8k accuracy 0 % (every answer empty)", True),
    ("Output checked on 50 prompts: fine, no garbage, no repeated tokens.", False),
    ("accuracy 80 %, coherent answers", False),
    ("We collected the garbage-collection stats as well", False),
])
def test_wrong_output_in_words(text, wrong):
    assert (errors.wrong_output(text) is not None) is wrong


@pytest.mark.parametrize("output,verdict", [
    ("sample[0]: '!!!!!!!!!!!!!!!!'", True),
    ('completion: "the the the the the the the"', True),
    ("sample[0]: ' Sarah and I am a software engineer.'", False),
    ("progress: ........", False),
])
def test_a_degenerate_completion_fails_the_runs_own_check(output, verdict):
    assert (errors.check_failed(output) is not None) is verdict


def test_prose_after_a_run_whose_own_check_passed_does_not_fail_it(tmp_path):
    f, recs = drafts(tmp_path, "check.md", dedent("""\
        # TP2 output check on two 3090s (2026-04-06)

        ## P2P off

        ```
        $ NCCL_P2P_DISABLE=1 python3 check_outputs.py --tp 2 --prompts 16
        decode: 88.1 tok/s
        OK: 16/16 responses match
        ```

        With P2P on the same check returned garbage; with it off all 16 match.
        """))
    assert [r.outcome.value for r in recs] != ["failed"]


@pytest.mark.parametrize("text,cited", [
    ("The same error is reported upstream in vllm#12345: `RuntimeError: CUDA error`", True),
    ("see https://github.com/sgl-project/sglang/issues/5012 for `HIP error`", True),
    ("Run #3 crashed with `RuntimeError: CUDA error`", False),
])
def test_a_paragraph_citing_a_thread_quotes_someone_elses_error(tmp_path, text, cited):
    assert statements.cites_thread(text) is cited
    f, recs = drafts(tmp_path, "cite.md", f"# Bring-up on the MI300X (2026-04-07)\n\n{text}\n")
    assert len(failed(recs)) == (0 if cited else 1)


def test_an_exception_named_by_its_module_path_is_quoted_as_the_error(tmp_path):
    f, recs = drafts(tmp_path, "triton.md", dedent("""\
        # Qwen3-32B-FP8 on the RTX PRO 6000 (2026-04-08)

        **Error:** `triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456`
        """))
    [bad] = failed(recs)
    assert bare(bad.error) == "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456"


@pytest.mark.parametrize("command,model", [
    ("ollama run qwen2.5:7b --verbose 'Why is the sky blue?'", "qwen2.5:7b"),
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192", "meta-llama/Llama-3.1-8B-Instruct"),
    ("trtllm-serve nvidia/Llama-3.3-70B-Instruct-FP4 --backend pytorch", "nvidia/Llama-3.3-70B-Instruct-FP4"),
    ("./llama-bench -m models/qwen2.5-7b-q4_k_m.gguf -p 512", "models/qwen2.5-7b-q4_k_m.gguf"),
    ("vllm bench serve --model Qwen/Qwen3-8B", "Qwen/Qwen3-8B"),
    ("ollama list", None),
    ("vllm serve --help", None),
])
def test_the_model_a_command_runs(command, model):
    assert commands.model_of(commands.command_config(command)[0], command) == model


def test_runs_of_different_models_are_not_compared(tmp_path):
    f, recs = drafts(tmp_path, "ollama.txt", dedent("""\
        $ ollama run llama3.2:3b --verbose "Why is the sky blue?"
        eval count:           260 token(s)
        eval rate:            72.19 tokens/s

        $ ollama run qwen2.5:7b --verbose "Why is the sky blue?"
        eval count:           251 token(s)
        eval rate:            46.40 tokens/s
        """))
    assert outcomes(recs) == {72.19: "baseline", 46.4: "baseline"}


def test_a_table_whose_columns_are_devices_compares_within_each_column(tmp_path):
    f, recs = drafts(tmp_path, "gemm.md", dedent("""\
        # BF16 GEMM kernels, M=N=K=4096 (2026-04-09)

        Figures are TFLOPS.

        | kernel | RTX 5090 | A100 80GB |
        |---|---:|---:|
        | cuBLAS | 177.05 | 244.40 |
        | v1 (tiling) | 140.66 | 59.92 |
        | v4 (swizzle) | 177.42 | 190.94 |
        """))
    assert outcomes(recs, "tflops") == {177.05: "baseline", 140.66: "regressed", 177.42: "neutral",
                                        244.4: "baseline", 59.92: "regressed", 190.94: "regressed"}


@pytest.mark.parametrize("block", [
    "总请求数: 1\n成功请求数: 1\n平均首字回复时间: 3.73秒\n平均每秒回复token数量: {v}\n最少每秒回复token数量: 70.1\n",
    "Requests: 1\nMean TTFT: 3.73 s\ntokens per second: {v}\nmax tokens per second: 99.9\n",
    "requests : 1\noutput tokens/sec : {v}\nlatency (ms): 812\n",
])
def test_a_pasted_summary_without_a_fence_is_read_as_an_output(tmp_path, block):
    runs = "".join(f"# Run {n}\n\n" + block.format(v=v) + "\n" for n, v in ((1, "78.11"), (2, "96.40")))
    f, recs = drafts(tmp_path, "ladder.md", runs)
    assert outcomes(recs) == {78.11: "baseline", 96.4: "improved"}


def test_a_pasted_paragraph_of_settings_gives_no_attempt(tmp_path):
    f, recs = drafts(tmp_path, "setup.md", "# Setup on the L4 (2026-04-10)\n\nModel: Qwen2.5-7B\nGPU: L4\nDriver: 570.86\n")
    assert recs == []


@pytest.mark.parametrize("label,unit", [
    ("tokens per second", "tok/s"), ("Output tokens/sec", "tok/s"), ("平均每秒回复token数量", "tok/s"),
    ("requests per second", "req/s"), ("TTFT (ms)", "ms"), ("count", None), ("成功率", None),
])
def test_the_unit_a_figures_name_gives(label, unit):
    assert labels.unit_in_label(label) == unit


def test_a_table_whose_columns_sweep_one_setting_is_one_attempt_a_row(tmp_path):
    f, recs = drafts(tmp_path, "conc.md", dedent("""\
        # Aggregate output throughput vs concurrency (tok/s), 2026-04-11

        | Model | c=2 | c=8 | c=32 | c=128 |
        |---|---:|---:|---:|---:|
        | Qwen3-8B-AWQ | 83 | 164 | 232 | 242 |
        | Qwen3-8B-GPTQ-8bit | 79 | 142 | 166 | 238 |
        """))
    assert sorted(value(r) for r in recs) == [238, 242]  # each row's largest swept point
    awq = next(r for r in recs if value(r) == 242)
    assert awq.metrics["output_throughput[c=8]"].value == 164


@pytest.mark.parametrize("language", ["yaml", "toml", "python", "dockerfile"])
def test_a_source_or_configuration_block_is_no_output(tmp_path, language):
    f, recs = drafts(tmp_path, "conf.md", f"# Serving config (2026-04-12)\n\n```{language}\n"
                     "gpu-memory-utilization: 0.45\nthroughput: 120 tok/s\nlatency: 30 ms\n```\n")
    assert recs == []


@pytest.mark.parametrize("header", ["model_name = {m}", "Model: {m}", "model = {m}"])
def test_a_loop_whose_passes_each_name_their_model_is_one_attempt_a_model(tmp_path, header):
    def block(model, rates):
        return "\n".join([header.format(m=model), *(f"prompt = question {i}\neval rate:            {r} tokens/s"
                                                      for i, r in enumerate(rates)), f"Average of eval rate:  {sum(rates) / len(rates):.2f}  tokens/s"])
    text = "\n".join(["-------Linux----------", "gpu_info: NVIDIA GeForce RTX 3060", "----------",
                      block("mistral:7b", [67.1, 66.6, 67.3]), block("phi4:14b", [32.9, 33.1, 32.7]),
                      block("gemma2:9b", [47.0, 47.3, 47.1])]) + "\n"
    f, recs = drafts(tmp_path, "ollama-benchmark.txt", text)
    assert sorted(value(r) for r in recs) == [32.9, 47.13, 67.0]  # each pass's own average
    assert {r.outcome.value for r in recs} == {"baseline"}  # three models: nothing to compare


@pytest.mark.parametrize("span", ["NCCL WARN Cuda failure 700 'an illegal memory access was encountered'",
                                  "CUDA error: an illegal memory access was encountered",
                                  "Segmentation fault (core dumped)"])
def test_a_failure_line_quoted_in_prose_beside_a_run_is_a_failed_try(tmp_path, span):
    f, recs = drafts(tmp_path, "bringup.md", dedent(f"""\
        # SGLang on two RTX PRO 6000 (2026-04-13)

        The first benchmark did not finish: after about 40 requests the server died with `{span}`.

        After the driver update the same benchmark finished:

        ```
        ============ Serving Benchmark Result ============
        Successful requests:                     200
        Output token throughput (tok/s):         1388.4
        ==================================================
        ```
        """))
    [bad] = failed(recs)
    assert bare(bad.error) == span
    assert [value(r) for r in recs if r is not bad] == [1388.4]
