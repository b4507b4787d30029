"""Variants of our own (written with the fix), kinds k83 to k88, from the reasons blind23 gave.

k83 a paragraph of ``label: figure`` lines and nothing else (``build A prefill: 3100 t/s`` over
``build A decode: 88.2 t/s``) writes one run's result down as such: a draft at a label's
confidence even beside a run's output, titled by the words its labels share. A label that is only
a statistic (``Average:``) sums up rows given elsewhere and is not one.
k84 result lines inside a prose paragraph (``v1: prompt 1893 tokens/s, eval 68.2 tokens/s.`` once a
line, between sentences of what was done) are read one a line, full stops and all; wrapped prose
whose lines happen to hold figures is not.
k85 a printed table whose column gives each cell in the unit its size calls for (``4.9 GB`` over
``274 MB``) is one figure column (a size: no run); a row of such figures never names the columns.
k86 the paragraph right after a quiet run's block gives its result even when it ends by leading into
the next block (``...; the placement:``); a paragraph without figures in between ends that; a result
written under its own command is no comment on the other runs of its section.
k87 decimal commas in prose (``77,6 tok/s``, ``0,74 s``) are decimals; a comma before three digits
stays a thousands separator.
k88 a row that gives its speed only as a range (``~60-65 tok/s``) ran: ``neutral``, not
``inconclusive``. ``Process 1843 new tokens at 640.7 T/s`` (exllamav2's metrics line) is the input
throughput: a count of tokens is no setting, and ``process`` is the input phase.
k89 a paragraph's draft is anchored at the lines of its figures, not at the prose around them.
k90 an output's ``name value unit`` lines whose labels lead with a configuration (``8bit Prompt:``
over ``8bit Generation:``, then ``4bit ...``; ``Q8_0 (stock) pp512:``) are one run per
configuration; lines that lead with a counter (``gpu0``, ``gpu1``) stay one run's, and a number
with a width suffix (``8bit``, ``4.65bpw``) names a quantization, not a measure.
k91 a line that opens with a short field whose value is a date (``**Date:** 2025-04-09 · **Node:**
...``) dates the log however long the line; a section without a date after a dated heading (a
closing ``## Summary``) is of that heading's day, not the day of the import.
k92 a table row ticked in a column headed by a reference word (``| ref |``, ``| baseline |`` with
``✓``) is the reference of its table, wherever it stands.
k93 a block that starts an inference server in the foreground (``vllm serve``, ``llama-server``,
``python -m sglang.launch_server``) prints a start-up log whose load times and memory measure no
run: the paragraph right after it gives the run against it. A server started and measured in one
command line is still one run.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, outcomes, value


def test_k83_label_lines_of_one_run_are_its_result_beside_other_output(tmp_path):
    f, recs = drafts(tmp_path, "k83-builds.md", dedent("""\
        # llama.cpp builds on the 4060 Ti, 2025-05-11

        All builds ran `llama-bench -m mistral-7b-q5_k_m.gguf -p 1024 -n 256 -r 3`.

        build b5120 prefill: 3100 t/s
        build b5120 decode: 88.2 t/s

        build b5300 prefill: 3180 t/s
        build b5300 decode: 95.0 t/s

        The b5400 build would not start:

        ```
        $ ./build-b5400/bin/llama-bench -m mistral-7b-q5_k_m.gguf -p 1024 -n 256 -r 3
        ggml_cuda_init: found 1 CUDA devices:
        CUDA error: no kernel image is available for execution on the device
        ```
        """))
    assert [value(r) for r in recs if value(r) is not None] == [88.2, 95.0]
    assert [value(r, "input_throughput") for r in recs if value(r) is not None] == [3100, 3180]
    assert [r.title for r in recs if value(r) is not None] == ["build b5120", "build b5300"]
    assert outcomes(recs) == {88.2: "baseline", 95.0: "improved"}
    assert [r.outcome.value for r in recs if value(r) is None] == ["failed"]


def test_k83_an_average_line_under_a_table_is_no_run(tmp_path):
    f, recs = drafts(tmp_path, "k83-average.md", dedent("""\
        # KV-cache types on the 3090, 2025-05-12

        | KV cache | Output tok/s |
        |---|---|
        | f16 | 40.1 |
        | q8_0 | 39.0 |
        | q4_0 | 36.2 |

        **Mean: 38.4 tok/s**
        """))
    assert [value(r) for r in recs] == [40.1, 39.0, 36.2]


def test_k84_result_lines_inside_prose_are_one_a_line(tmp_path):
    f, recs = drafts(tmp_path, "k84-vllm.md", dedent("""\
        # vLLM upgrades on the L4, 2025-07-01

        Same ShareGPT slice each time, 64 prompts, the engine restarted between versions, and the
        second pass kept.
        vLLM 0.8.5: output 612.4 tok/s, TTFT 210 ms.
        vLLM 0.9.1: output 640.0 tok/s, TTFT 198 ms.
        vLLM 0.10.0: output 603.9 tok/s, TTFT 225 ms.
        The middle one is the keeper for now.
        """))
    assert [value(r) for r in recs] == [612.4, 640.0, 603.9]
    assert [r.source[0].locator for r in recs] == ["line 5", "line 6", "line 7"]
    assert outcomes(recs) == {612.4: "baseline", 640.0: "improved", 603.9: "neutral"}


def test_k84_wrapped_prose_with_figures_is_not_split(tmp_path):
    from kb.importers.segment import _result_run

    assert _result_run(dedent("""\
        We tried the new scheduler first.
        It gave 51.0 tok/s on the short prompts and the
        longer ones: 44.2 tok/s, which is about what we hoped.""")) is None
    assert _result_run("Set up as before.\nFP16: 40.2 tok/s.\nFP8: 55.1 tok/s.\nDone.") == (1, 3)


def test_k85_a_size_column_in_mixed_units_is_no_run(tmp_path):
    from kb.importers.read import printed

    out = printed.read(dedent("""\
        REPOSITORY          TAG       IMAGE ID       CREATED        SIZE
        vllm/vllm-openai    v0.9.1    0b1c2d3e4f5a   2 weeks ago    19.4 GB
        lmsysorg/sglang     latest    9f8e7d6c5b4a   5 days ago     21.0 GB
        busybox             latest    1a2b3c4d5e6f   3 months ago   4.3 MB"""))
    assert [dict(r.settings)["REPOSITORY"] for r in out.runs] == ["vllm/vllm-openai", "lmsysorg/sglang", "busybox"]
    assert [(m.text, m.unit) for r in out.runs for m in r.metrics.values()] == [
        ("19.4", "GB"), ("21.0", "GB"), ("4.3", "MB")]
    f, recs = drafts(tmp_path, "k85-images.md", dedent("""\
        # Which image, 2025-08-02

        ```
        $ docker images
        REPOSITORY          TAG       IMAGE ID       CREATED        SIZE
        vllm/vllm-openai    v0.9.1    0b1c2d3e4f5a   2 weeks ago    19.4 GB
        lmsysorg/sglang     latest    9f8e7d6c5b4a   5 days ago     21.0 GB
        busybox             latest    1a2b3c4d5e6f   3 months ago   4.3 MB
        ```

        With the vLLM image, `vllm bench serve --num-prompts 200`: 1480 tok/s output.
        """))
    assert [value(r) for r in recs] == [1480]


def test_k86_a_quiet_servers_result_may_lead_into_the_next_block(tmp_path):
    f, recs = drafts(tmp_path, "k86-server.md", dedent("""\
        # SGLang on the A10, 2025-09-09

        ## Offline

        ```
        $ python -m sglang.bench_offline_throughput --model-path Qwen/Qwen2.5-3B-Instruct --num-prompts 100
        Output token throughput (tok/s): 2210.55
        ```

        ## Server

        ```
        $ python -m sglang.launch_server --model-path Qwen/Qwen2.5-3B-Instruct --port 30000
        [2025-09-09 10:12:01] The server is fired up and ready to roll!
        ```

        Against it, one client at a time: 131.5 tok/s per request and a first token in 0,21 s. The memory:

        ```
        $ nvidia-smi --query-gpu=memory.used --format=csv
        memory.used [MiB]
        21877 MiB
        ```
        """))
    assert [value(r) for r in recs] == [2210.55, 131.5]
    assert all(d.confidence >= 0.5 for d in f.drafts)


def test_k86_a_paragraph_between_ends_the_quiet_runs_result(tmp_path):
    f, recs = drafts(tmp_path, "k86-between.md", dedent("""\
        # Ollama context sizes, 2025-09-10

        ```
        $ ollama run qwen2.5:7b
        >>> /set parameter num_ctx 8192
        Set parameter 'num_ctx' to '8192'
        ```

        Nothing odd in the answers.

        For comparison, a colleague's 4090 gives about 120 tokens/s here.
        """))
    assert recs == []


def test_k87_decimal_commas_are_decimals():
    from kb.importers.read import prose

    found = prose.figures("Die Generierung lief mit 41,7 tok/s, der erste Token kam nach 0,35 s; 1,024 tokens/s Prefill.")
    assert [(f.name, f.text, f.unit) for f in found] == [
        ("output_throughput", "41.7", "tok/s"), ("time", "0.35", "s"), ("input_throughput", "1024", "tok/s")]


def test_k87_a_paragraph_with_decimal_commas_is_a_result(tmp_path):
    f, recs = drafts(tmp_path, "k87-es.md", dedent("""\
        # Llama 3.1 8B en la RTX 3060, 2025-10-03

        ```
        $ ./llama-server -m llama-3.1-8b-q4_k_m.gguf -ngl 99 --port 8081
        main: server is listening on http://127.0.0.1:8081 - starting the main loop
        ```

        Con diez peticiones seguidas la generación quedó en 58,3 tok/s de media.
        """))
    assert [value(r) for r in recs] == [58.3]


def test_k88_a_speed_range_in_a_row_is_neutral(tmp_path):
    f, recs = drafts(tmp_path, "k88-ranges.md", dedent("""\
        # LM Studio quick looks on the RTX 4070, 2025-10-20

        | Model | Size | Speed |
        |---|---|---|
        | Phi-4 Q4_K_M | 9.05 GB | ~30-34 tok/s |
        | Gemma-3-12B Q4_K_M | 8.15 GB | 35-38 tok/s |
        """))
    assert [r.outcome.value for r in recs] == ["neutral", "neutral"]


def test_k88_process_new_tokens_is_the_input_throughput():
    from kb.importers.read import prose

    found = prose.figures("Metrics: Process: 0 cached tokens and 2048 new tokens at 811.3 T/s, Generate: 24.9 T/s")
    assert [(f.name, f.text) for f in found] == [("input_throughput", "811.3"), ("output_throughput", "24.9")]


def test_k89_a_paragraphs_draft_is_anchored_at_its_figures(tmp_path):
    f, recs = drafts(tmp_path, "k89-anchor.md", dedent("""\
        # Speculative decoding on the A6000, 2025-11-02

        A quick look before the real sweep. The draft model is the 0.5B of the same family, and I
        kept the target at its usual settings. With `--num-speculative-tokens 4` the engine reached
        88.4 tok/s on the chat prompts, against what I remember from last week.
        Nothing else changed.
        """))
    assert [value(r) for r in recs] == [88.4]
    assert recs[0].source[0].locator == "line 5"


def test_k90_configuration_prefixed_lines_are_one_run_each(tmp_path):
    f, recs = drafts(tmp_path, "k90-bits.md", dedent("""\
        # Bits ladder on the M2 Ultra, 2025-11-05

        ```
        fp16  Prompt:     310.2 tokens-per-sec
        fp16  Generation:  21.4 tokens-per-sec
        q8    Prompt:     298.7 tokens-per-sec
        q8    Generation:  37.9 tokens-per-sec
        q4    Prompt:     305.0 tokens-per-sec
        q4    Generation:  61.3 tokens-per-sec
        ```
        """))
    assert [value(r) for r in recs] == [21.4, 37.9, 61.3]
    assert [value(r, "input_throughput") for r in recs] == [310.2, 298.7, 305.0]
    assert outcomes(recs) == {21.4: "baseline", 37.9: "improved", 61.3: "improved"}


def test_k90_counted_prefixes_and_notes_in_labels():
    from kb.importers.read import cells, lines

    one = lines.read("gpu0 decode: 40.1 tok/s\ngpu1 decode: 40.3 tok/s")
    assert len(one.runs) == 1
    runs = lines.read("Q8_0 (stock) pp512: 3312.40 t/s\nQ8_0 (stock) tg128: 41.87 t/s\n"
                      "Q6_K pp512: 2987.15 t/s\nQ6_K tg128: 50.23 t/s").runs
    assert [(r.settings["row"], r.metrics["output_throughput"].text) for r in runs] == [
        ("Q8_0 (stock)", "41.87"), ("Q6_K", "50.23")]
    assert [cells.measured(c) for c in ("8bit", "4.65bpw", "64KB", "3.6s")] == [False, False, True, True]


def test_k91_a_date_field_on_a_long_line_dates_the_log(tmp_path):
    f, recs = drafts(tmp_path, "k91-field.md", dedent("""\
        # TensorRT-LLM on the L40S

        **Date:** 2025-05-20 · **Node:** `node-07` (1x L40S 48 GB, driver 570.86) · **Image:** release 0.19.0

        ```
        $ trtllm-bench --model meta-llama/Llama-3.1-8B-Instruct throughput --dataset data.jsonl
        Token Throughput (tokens/sec):                     2890.1200
        ```
        """))
    assert [r.date.isoformat() for r in recs] == ["2025-05-20"]


def test_k91_a_summary_after_dated_sections_takes_their_day(tmp_path):
    f, recs = drafts(tmp_path, "k91-summary.md", dedent("""\
        # Quant ladder on the 3090

        ## 2025-06-02 — llama-bench

        ```
        Q8_0 tg128: 80.1 t/s
        Q4_K_M tg128: 112.4 t/s
        ```

        ## Summary

        | quant | tg128 t/s | server t/s |
        |---|---|---|
        | Q8_0 | 80.1 | 78 |
        | Q4_K_M | 112.4 | 109 |
        """))
    assert {r.date.isoformat() for r in recs} == {"2025-06-02"}


def test_k92_a_ticked_reference_column_marks_the_baseline(tmp_path):
    f, recs = drafts(tmp_path, "k92-ref.md", dedent("""\
        # KV-cache dtypes on the H100, 2025-06-18

        | kv cache | out tok/s | baseline |
        |---|---|---|
        | fp8 | 1210.4 | |
        | auto | 1105.0 | ✓ |
        | fp8_e5m2 | 1190.2 | |
        """))
    assert outcomes(recs) == {1210.4: "improved", 1105.0: "baseline", 1190.2: "improved"}


def test_k93_a_foreground_servers_start_up_log_is_no_run(tmp_path):
    f, recs = drafts(tmp_path, "k93-serve.md", dedent("""\
        # Qwen2.5-7B on the L4, 2025-08-14

        ```
        $ vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        INFO 08-14 09:10:02 [gpu_model_runner.py:1595] Model loading took 14.2547 GiB and 9.12 seconds
        INFO 08-14 09:10:31 [core.py:171] init engine (profile, create kv cache, warmup model) took 28.90 seconds
        INFO 08-14 09:10:33 [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000
        ```

        Against it, `vllm bench serve --num-prompts 100 --request-rate 4` gave 402.7 tok/s output.
        """))
    assert [value(r) for r in recs] == [402.7]
    assert [m for r in recs for m in r.metrics if m.startswith("time")] == []


def test_k93_a_server_and_its_benchmark_in_one_command_are_one_run():
    from kb.importers.read import commands

    assert commands.starts_server("python -m sglang.launch_server --model-path m --port 30000")
    assert commands.starts_server("./build/bin/llama-server -m m.gguf -ngl 99")
    assert not commands.starts_server("vllm serve m & sleep 60; vllm bench serve --model m")
    assert not commands.starts_server("vllm bench serve --model m --num-prompts 100")


def test_k94_a_line_that_opens_with_its_date_dates_the_log(tmp_path):
    f, recs = drafts(tmp_path, "k94-lead.md", dedent("""\
        # SGLang flags on the H200

        *2025-07-30 · host h200-c4 · 1x H200 141 GB · driver 570.133.20 · CUDA 12.8 · fp8 weights*

        ```
        $ python -m sglang.bench_serving --backend sglang --num-prompts 200 --max-concurrency 16
        Output token throughput (tok/s):         1530.44
        ```
        """))
    assert [r.date.isoformat() for r in recs] == ["2025-07-30"]


def test_k95_per_device_lines_are_one_runs_output(tmp_path):
    f, recs = drafts(tmp_path, "k95-devices.md", dedent("""\
        # Tensor parallel on two A6000s, 2025-09-01

        ```
        $ python bench_tp.py --tp 2 --prompt long.txt
        gpu0 peak mem: 41.3 GiB
        gpu1 peak mem: 40.8 GiB
        decode: 33.6 tok/s
        ```
        """))
    assert [value(r) for r in recs] == [33.6]
