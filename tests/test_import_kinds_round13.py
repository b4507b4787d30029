"""Variants of our own (written with the fix), kinds k75 to k77.

k75 a paragraph written one result a line (``Backend [ Prompt: 448 t/s | Generation: 28.7 t/s ]``,
``Baseline: 31.5 tok/s`` over ``FA on: 35.2 tok/s``) is a list without bullets: each line is an
attempt anchored at its own line. The lines of one name under several headings are compared with
each other (the headings set what varies). One run's figures a line (``Throughput`` over ``TTFT``),
one program's line printed again and again, and a prose paragraph wrapped over lines are not.
k76 a fence never closed that would run to the end of the file over headings and text is a stray
fence: what follows is read as Markdown, with a warning naming its line; so is a fence doubled after a
closed block, which opens a block of headings and prose that the next block's own fence closes
(every later pair shifted). A code block left open at the end of a script (shell comments, no
headings) stays a code block, as does a bare block of shell lines.
k77 a throughput label whose input word comes before its output word names the input (``Ollama
prompt eval rate``, ``Model X prompt eval rate``), whatever comes before both.
k78 a table whose every figure column is a goal (``Target (us)``, ``Goal``, ``Expected tok/s``,
``Latency budget``) holds no run; beside a measured column, a goal column is no arm and no figure
of the row, and in a table of measures by configuration (``| Metric | Budget | Default | AITER |``)
no configuration. A heading that sums up in another language (``Resumen``, ``Zusammenfassung``)
opens a summary as ``Summary`` does.
k79 a row or output whose only figures are sizes (a checkpoint table's ``Size on disk``, ``ollama ps``'s
``SIZE``) is no run, and no run's output that makes the notes beside it commentary; a row that gives
its rate beside the size (as a range, or under a ``t/s`` header) still is.
k80 lines that differ in a version only (``Ollama 0.4.7 ...`` over ``Ollama 0.5.4 ...``) are results,
not one program's repeated line; the words after a setting's value name the measure (``Ollama 0.6.2
prompt eval rate`` is the input throughput, ``CUDA 12 llama.cpp [ Prompt`` too). Notes in two
sections, each with its own reference (``stock``), are compared with the reference of their section.
k81 the paragraph right after a run's block whose output printed no figure (an interactive
``ollama run`` given a ``/set parameter``) gives that run's result, as one under a command block
without output does; a paragraph after a block that printed its own figures stays a note.
k82 a table header that gives its unit before the words naming the figure (``tok/s output``,
``tokens/s salida``) names that figure, so a closing summary table's rows restate the runs above;
a configuration after the unit (``t/s master``) stays an arm.
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


def test_k79_a_checkpoint_table_and_ollama_ps_are_no_runs(tmp_path):
    f, recs = drafts(tmp_path, "k79-sizes.md", dedent("""\
        # Qwen2.5-7B formats on one L4, vLLM 0.8.5, 2025-05-02

        | Format | Checkpoint | Size on disk |
        |---|---|---|
        | bf16 | Qwen/Qwen2.5-7B-Instruct | 15.2 GB |
        | awq | Qwen/Qwen2.5-7B-Instruct-AWQ | 5.6 GB |

        ## Results

        bf16: 21.4 tok/s
        awq: 48.9 tok/s

        ```
        NAME          ID              SIZE      PROCESSOR    UNTIL
        qwen2.5:7b    845dbda0ea48    6.0 GB    100% GPU     4 minutes from now
        ```
        """))
    assert [value(r) for r in recs] == [21.4, 48.9]
    assert all(d.confidence >= 0.5 for d in f.drafts)


def test_k79_a_row_with_its_rate_as_a_range_beside_the_size_is_a_run(tmp_path):
    f, recs = drafts(tmp_path, "k79-range.md", dedent("""\
        # Small models on a Jetson Orin Nano

        Ollama 0.5.4 with every layer on the GPU, decode speed as `ollama run --verbose` gives it.

        | Model | Quantization | Size | Speed |
        |---|---|---|---|
        | Llama 3.2 1B | Q8_0 | 1.3 GB | ~17-20 tokens/sec |
        | Qwen2.5 0.5B | Q4_0 | 0.4 GB | ~30-35 tokens/sec |
        """))
    assert len(recs) == 2


def test_k80_lines_apart_by_a_version_are_results(tmp_path):
    f, recs = drafts(tmp_path, "k80-versions.md", dedent("""\
        # llama3.1:8b across Ollama releases, RTX 3070 8 GB, 2025-02-11

        Ollama 0.3.14 prompt eval rate: 980.2 tokens/s, eval rate: 61.5 tokens/s
        Ollama 0.4.7 prompt eval rate: 975.0 tokens/s, eval rate: 62.0 tokens/s
        Ollama 0.5.7 prompt eval rate: 402.4 tokens/s, eval rate: 29.3 tokens/s
        """))
    assert [value(r) for r in recs] == [61.5, 62.0, 29.3]
    assert [r.metrics["input_throughput"].value for r in recs] == [980.2, 975.0, 402.4]
    assert outcomes(recs) == {61.5: "baseline", 62.0: "neutral", 29.3: "regressed"}


def test_k80_words_after_a_settings_value_name_the_measure():
    from kb.importers.read import prose

    assert [f.name for f in prose.figures("stock Ollama 0.6.2 prompt eval rate: 187.4 tokens/s, eval rate: 27.9 tokens/s")] \
        == ["input_throughput", "output_throughput"]
    assert [f.name for f in prose.figures("CUDA 12 llama.cpp [ Prompt: 1412.6 t/s | Generation: 61.4 t/s ]")] \
        == ["input_throughput", "output_throughput"]
    assert [f.name for f in prose.figures("chunked prefill 4096: 41.0 tok/s")] == ["output_throughput"]


def test_k78_a_goal_column_gives_no_figure_to_a_row_not_measured(tmp_path):
    f, recs = drafts(tmp_path, "k78-tbd.md", dedent("""\
        # Qwen2.5-14B quants on an RTX 4090, llama-bench b5200, 2025-05-20

        | Quant | Goal tg128 (t/s) | Measured tg128 (t/s) |
        |---|---:|---:|
        | Q4_K_M | 60 | 71.40 ± 0.11 |
        | Q5_K_M | 55 | 63.02 ± 0.09 |
        | Q8_0 | 45 | TBD |
        """))
    assert [value(r) for r in recs] == [71.4, 63.02]


def test_k78_a_budget_column_of_a_metric_by_configuration_table_is_no_configuration(tmp_path):
    f, recs = drafts(tmp_path, "k78-budget.md", dedent("""\
        # Llama-3.3-70B on MI300X, vLLM 0.9 (ROCm), concurrency 32

        | Metric (ms) | Budget | Default | AITER |
        |---|---:|---:|---:|
        | P99 TTFT | 800 | 1840.52 | 910.37 |
        | P99 TPOT | 40 | 38.24 | 31.02 |
        """))
    assert sorted(r.metrics["p99_ttft"].value for r in recs) == [910.37, 1840.52]


def test_k78_summary_headings_in_other_languages():
    from kb.importers.read import statements

    assert [statements.summary_heading(t) for t in ("Resumen", "Zusammenfassung", "Résultats", "まとめ", "Aufbau")] \
        == [True, True, True, True, False]


def test_k80_each_sections_own_reference_is_its_baseline(tmp_path):
    f, recs = drafts(tmp_path, "k80-sections.md", dedent("""\
        # Mistral-Small on an M2 Pro, Ollama 0.6.1, 2025-04-03

        ### Short prompt

        - stock: eval rate: 30.1 tokens/s
        - with `OLLAMA_FLASH_ATTENTION=1`: eval rate: 30.4 tokens/s

        ### Long prompt (8k tokens)

        - stock: eval rate: 19.8 tokens/s
        - with `OLLAMA_FLASH_ATTENTION=1`: eval rate: 23.9 tokens/s
        """))
    assert outcomes(recs) == {30.1: "baseline", 30.4: "neutral", 19.8: "baseline", 23.9: "improved"}


def test_k76_a_doubled_fence_after_a_closed_block_shifts_no_later_pair(tmp_path):
    f, recs = drafts(tmp_path, "k76-doubled.md", dedent("""\
        # vLLM 0.9.2 on 2x L40S, Qwen2.5-32B-AWQ, 2025-07-01

        ```bash
        vllm serve Qwen/Qwen2.5-32B-Instruct-AWQ --tensor-parallel-size 2
        ```
        ```

        Each run is `vllm bench serve --dataset-name random --num-prompts 500` against a fresh server.

        ## Run 1: defaults

        ```
        Output token throughput (tok/s):         1210.44
        ```

        ## Run 2: --enable-chunked-prefill

        ```
        Output token throughput (tok/s):         1302.87
        ```
        """))
    assert [value(r) for r in recs] == [1210.44, 1302.87]
    assert any(w.startswith("k76-doubled.md:6:") and "stray fence" in w for w in f.warnings), f.warnings


def test_k76_a_bare_block_of_shell_lines_stays_code(tmp_path):
    f, recs = drafts(tmp_path, "k76-bare.md", dedent("""\
        # Setup

        ```
        ## the cluster's own notes
        export NCCL_DEBUG=INFO
        ```

        Decode ran at 41.2 tok/s after that.
        """))
    assert f.warnings == []


def test_k81_the_result_under_a_quiet_runs_block_is_that_runs(tmp_path):
    f, recs = drafts(tmp_path, "k81-quiet.md", dedent("""\
        # llama3.1:8b on an RTX 3060 12 GB, Ollama 0.5.7, 2025-02-02

        ## Default

        ```
        $ ollama run llama3.1:8b --verbose "Say hi"
        prompt eval rate:     1010.4 tokens/s
        eval rate:            44.1 tokens/s
        ```

        So about 44 tokens/s, as on the old driver.

        ## All layers on the GPU

        ```
        $ ollama run llama3.1:8b
        >>> /set parameter num_gpu 33
        Set parameter 'num_gpu' to '33'
        ```

        Then: prompt eval rate: 1102.9 tokens/s, eval rate: 52.6 tokens/s
        """))
    assert [value(r) for r in recs] == [44.1, 52.6]
    assert all(d.confidence >= 0.5 for d in f.drafts)


def test_k82_a_unit_before_its_words_names_a_column():
    from kb.importers.read import labels

    assert labels.header_figure("tok/s output") == ("output_throughput", "tok/s")
    assert labels.header_figure("tokens/s salida") == ("output_throughput", "tok/s")
    assert labels.header_figure("ms p99") == ("p99_latency", "ms")
    assert labels.header_figure("t/s master") is None  # a configuration's column: an arm
    assert labels.header_figure("% of peak") is None  # a share, no measure of a run


def test_k82_a_summary_table_with_the_unit_first_restates_the_runs(tmp_path):
    f, recs = drafts(tmp_path, "k82-resumen.md", dedent("""\
        # Qwen2.5-3B en una L4, TensorRT-LLM 0.19, 2025-08-11

        ## FP16

        FP16: 1054.39 tokens/s de salida, 4.12 req/s

        ## FP8

        FP8: 1625.10 tokens/s de salida, 6.35 req/s

        ## Resumen

        | Precisión | req/s | tokens/s salida |
        |-----------|-------|-----------------|
        | FP16      | 4.12  | 1054.4          |
        | FP8       | 6.35  | 1625.1          |
        """))
    assert len(recs) == 2  # the summary rows link to the runs they restate (the fuller row keeps the figure)
    assert [round(value(r)) for r in recs] == [1054, 1625]
    assert [r.metrics["request_throughput"].value for r in recs] == [4.12, 6.35]
