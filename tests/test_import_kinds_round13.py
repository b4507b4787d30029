"""Variants of our own (written with the fix), kinds k75 to k77.

k75 a paragraph written one result a line (``Backend [ Prompt: 448 t/s | Generation: 28.7 t/s ]``,
``Baseline: 31.5 tok/s`` over ``FA on: 35.2 tok/s``) is a list without bullets: each line is an
attempt anchored at its own line. The lines of one name under several headings are compared with
each other (the headings set what varies). One run's figures a line (``Throughput`` over ``TTFT``),
one program's line printed again and again, and a prose paragraph wrapped over lines are not.
k76 a fence never closed that would run to the end of the file over headings and text is a stray
fence: what follows is read as Markdown, with a warning naming its line. A code block left open at
the end of a script (shell comments, no headings) stays a code block.
k77 a throughput label whose input word comes before its output word names the input (``Ollama
prompt eval rate``, ``Model X prompt eval rate``), whatever comes before both.
k78 a table whose every figure column is a goal (``Target (us)``, ``Goal``, ``Expected tok/s``,
``Latency budget``) holds no run; beside a measured column, a goal column is no arm.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, outcomes, value


def test_k75_lines_of_backends_under_memory_headings_are_one_run_a_line(tmp_path):
    f, recs = drafts(tmp_path, "k75-igpu.md", dedent("""\
        # iGPU speed checks

        One prompt for all backends.

        ## UMA frame buffer 8 GB

        llama.cpp HIP { pp: 310.2 t/s | tg: 18.1 t/s }
        llama.cpp Vulkan { pp: 250.0 t/s | tg: 19.6 t/s }
        LM Studio { prompt eval rate: 101.5 tokens/s | eval rate: 12.02 tokens/s }

        ## UMA frame buffer 24 GB

        llama.cpp HIP { pp: 330.9 t/s | tg: 18.9 t/s }
        llama.cpp Vulkan { pp: 262.4 t/s | tg: 19.7 t/s }
        LM Studio { prompt eval rate: 99.0 tokens/s | eval rate: 10.50 tokens/s }
        """))
    assert [value(r) for r in recs] == [18.1, 19.6, 12.02, 18.9, 19.7, 10.5]
    assert [r.metrics["input_throughput"].value for r in recs] == [310.2, 250.0, 101.5, 330.9, 262.4, 99.0]
    assert [d.confidence >= 0.5 for d in f.drafts] == [True] * 6
    # each backend against its own first line: HIP +4.4 %, Vulkan +0.5 %, LM Studio -12.6 %
    assert outcomes(recs) == {18.1: "baseline", 19.6: "baseline", 12.02: "baseline",
                              18.9: "improved", 19.7: "neutral", 10.5: "regressed"}
    assert all("LM Studio" in r.title for r in recs if value(r) in (12.02, 10.5))


def test_k75_label_colon_figure_lines_of_one_paragraph_are_runs(tmp_path):
    f, recs = drafts(tmp_path, "k75-labels.md", dedent("""\
        # Qwen2.5-7B decode on an RTX 4090, llama.cpp b4500

        Baseline: 101.4 tok/s
        Flash attention on: 108.9 tok/s
        Flash attention on, q8_0 KV cache: 99.6 tok/s
        """))
    assert [value(r) for r in recs] == [101.4, 108.9, 99.6]
    assert outcomes(recs) == {101.4: "baseline", 108.9: "improved", 99.6: "neutral"}


def test_k75_one_runs_measures_a_line_stay_one_run(tmp_path):
    f, recs = drafts(tmp_path, "k75-one-run.md", dedent("""\
        # vLLM 0.8.4 on one L4, Llama-3.2-3B

        Throughput: 412.3 tok/s
        Mean TTFT: 88.1 ms
        """))
    assert len(recs) == 1 and value(recs[0]) == 412.3


def test_k75_a_programs_repeated_line_is_no_list_of_results(tmp_path):
    f, recs = drafts(tmp_path, "k75-streams.md", dedent("""\
        # Four parallel streams against the server

        worker 1 done in 31.2 s: 17.8 tok/s
        worker 2 done in 32.9 s: 17.1 tok/s
        worker 3 done in 30.4 s: 18.3 tok/s
        worker 4 done in 33.0 s: 16.9 tok/s
        """))
    assert [d.locator for d in f.drafts if "line 4" in str(d.locator) or "line 5" in str(d.locator)] == []
    assert len(recs) <= 1


def test_k75_prose_wrapped_over_lines_is_no_list_of_results(tmp_path):
    f, recs = drafts(tmp_path, "k75-prose.md", dedent("""\
        # Notes

        On the old driver the server gave 41.0 tok/s at batch one and the
        new driver gave 44.5 tok/s with the same flags, so we kept it.
        """))
    assert all(d.confidence < 0.5 for d in f.drafts)
    assert recs == []


def test_k76_stray_fence_above_speed_section_is_read_as_markdown(tmp_path):
    f, recs = drafts(tmp_path, "k76-stray.md", dedent("""\
        # Set-up and a speed check

        ## Build

        ```
        cmake -B build -DGGML_VULKAN=ON
        ```

        Then start the server:
        ```
        llama-server -m model.gguf -ngl 99
        ```
        ```

        ## Speed

        Vulkan [ Prompt: 120.5 t/s | Generation: 22.4 t/s ]
        CPU [ Prompt: 40.0 t/s | Generation: 9.1 t/s ]
        """))
    assert [value(r) for r in recs] == [22.4, 9.1]
    assert any(w.startswith("k76-stray.md:13:") and "never closed" in w for w in f.warnings), f.warnings


def test_k76_tilde_fence_left_open_over_dated_sections(tmp_path):
    f, recs = drafts(tmp_path, "k76-tilde.md", dedent("""\
        # Worklog

        ~~~bash
        export CUDA_VISIBLE_DEVICES=0

        ## 2025-03-02 TensorRT-LLM, FP8

        - trtllm-bench throughput, 512 requests: 2210.4 tok/s
        - same with `--kv_cache_free_gpu_mem_fraction 0.95`: 2391.0 tok/s
        """))
    assert [value(r) for r in recs] == [2210.4, 2391.0]
    assert f.warnings and f.warnings[0].startswith("k76-tilde.md:3:")


def test_k76_script_left_open_at_the_end_stays_code(tmp_path):
    f, recs = drafts(tmp_path, "k76-script.md", dedent("""\
        # Bench script

        Measured 41.2 tok/s with the script below.

        ```bash
        # install
        pip install vllm==0.8.4
        # run
        vllm bench serve --model m
        """))
    assert not any("never closed" in w for w in f.warnings)


def test_k77_input_word_before_output_word_names_the_input():
    from kb.importers.read import labels

    assert labels.name_for("Ollama prompt eval rate", "tok/s") == "input_throughput"
    assert labels.name_for("Qwen3 [ prompt eval rate", "tok/s") == "input_throughput"
    assert labels.name_for("eval rate", "tok/s") == "output_throughput"
    assert labels.name_for("decode after prefill", "tok/s") == "output_throughput"


def test_k78_tables_of_goals_hold_no_runs(tmp_path):
    f, recs = drafts(tmp_path, "k78-goals.md", dedent("""\
        # FP8 GEMM kernel, round 3

        ## Speed-of-light figures from the task sheet

        | M | N | K | Target (us) |
        |---|---|---|---|
        | 256 | 4096 | 7168 | 4.7 |
        | 512 | 4096 | 7168 | 8.7 |

        ## What we want next

        | Model | Expected tok/s |
        |---|---|
        | Llama-3-8B | 150 |
        | Qwen2.5-7B | 160 |

        | Stage | Latency budget (ms) |
        |---|---|
        | prefill | 120 |
        | decode step | 25 |
        """))
    assert recs == []


def test_k78_a_goal_column_beside_measured_figures_is_no_arm(tmp_path):
    f, recs = drafts(tmp_path, "k78-beside.md", dedent("""\
        # Decode on one L40S, vLLM 0.9.1, 2025-06-10

        | Config | Measured (tok/s) | Goal (tok/s) |
        |---|---|---|
        | bf16 | 61.2 | 70 |
        | fp8 | 88.4 | 90 |
        """))
    assert [value(r) for r in recs] == [61.2, 88.4]
    assert outcomes(recs) == {61.2: "baseline", 88.4: "improved"}
