"""Variants of our own (written with the fix), kinds k66 to k74.

k66 a table whose columns count what a run was deployed on (``1 GPU | 2 GPUs | 4 GPUs``, ``TP=1 |
TP=2``, ``tp1 | tp2``) holds a run per cell: each amount is another launch, and the runs of one
column (the same hardware) are compared with each other. Columns over a load (``bs 1 | bs 8 | bs
32``, concurrency) stay the points of one run per row.
k67 a table whose columns pair a measure with the configuration it was taken under (``Prompt tok/s
(base) | Prompt tok/s (patched) | Gen tok/s (base) | ...``, ``TTFT ms [eager]``, ``tok/s A | tok/s B |
VRAM GB A | VRAM GB B``) holds one attempt per row and configuration, whose figures are that
configuration's columns; a ratio column beside them (``Gen ratio | 1.08``) is derived, no setting.
Phases (``(prefill) | (decode)``) and statistics (``(p50) | (p99)``) are figures of one run.
k68 a printed error with no command of its own, just under a table whose failed cell took it as its
error, is that cell's failure, not another attempt.
k69 a table the text above gives as a datasheet (``not measured``) holds no runs; a heading that
names a comparison (``before/after``) is no reference section; a date in the first sentence of a
long line (``Week of 2024-10-07. Procurement wants ...``) dates what follows.
k70 the unit of a table's number columns may be named two paragraphs above it, in its section, or
given a column's name by a sentence that defines it (``"throughput" is output tokens per second``).
k71 a table in a section about the hardware, and a column of published figures beside one's own, hold
no runs; a line that says its runs were made on a date dates them, however long it is.
k72 a figure written as a bound (``Goal: >= 2,000 tok/s``, ``at most 900 ms``) is a requirement, no run.
k73 aligned ``name:   value unit`` lines (``ollama run --verbose``) are one run's figures, no table; a
line's bare parts take its name (``Generation: 200 tokens, 80.1 tokens-per-sec``, as mlx_lm.generate prints).
k74 arms of the same label in tables of other sections are other runs (a load-time table, then a
generation table); in one section they are one attempt measured on other measures.
"""

from __future__ import annotations

from textwrap import dedent

from test_import_kinds import drafts, outcomes, value


def test_k66_gpu_count_columns_are_a_run_per_cell(tmp_path):
    f, recs = drafts(tmp_path, "k66-gpus.md", dedent("""\
        # Llama-70B decode over GPU counts

        Decode throughput (tok/s) at batch size 1:

        |        | 1 GPU | 2 GPUs | 4 GPUs | 8 GPUs |
        |--------|------:|-------:|-------:|-------:|
        | bf16   | OOM   | 21.4   | 38.9   | 60.2   |
        | fp8    | 22.0  | 39.5   | 66.1   | 91.7   |
        """))
    assert len(recs) == 8
    assert [r.outcome.value for r in recs[:4]] == ["failed", "baseline", "baseline", "baseline"]
    # each GPU count's runs are compared with each other: fp8 against bf16 on the same GPUs
    assert outcomes(recs[4:]) == {22.0: "baseline", 39.5: "improved", 66.1: "improved", 91.7: "improved"}


def test_k66_tensor_parallel_headers_with_units(tmp_path):
    f, recs = drafts(tmp_path, "k66-tp.md", dedent("""\
        # Tensor parallel on an 8x A100 node

        | Engine | TP=1 (tok/s) | TP=2 (tok/s) | TP=4 (tok/s) |
        |---|---|---|---|
        | vLLM 0.6.3 | 812 | 1430 | 2210 |
        | SGLang 0.3.5 | 845 | 1502 | 2301 |
        """))
    assert [value(r) for r in recs] == [812.0, 1430.0, 2210.0, 845.0, 1502.0, 2301.0]
    assert recs[1].title.startswith("TP=2") and "tok/s" not in recs[1].title


def test_k66_batch_columns_stay_one_run_per_row(tmp_path):
    f, recs = drafts(tmp_path, "k66-bs.md", dedent("""\
        # Decode sweep on one H100

        One `bench_one_batch` call per build, output throughput (tok/s):

        | Build | bs 1 | bs 8 | bs 32 |
        |---|---|---|---|
        | main | 182.4 | 1210.0 | 3020.5 |
        | patched | 184.1 | 1290.2 | 3390.0 |
        """))
    assert len(recs) == 2
    assert [r.metrics["output_throughput[bs=8]"].value for r in recs] == [1210.0, 1290.2]


def test_k67_bracketed_configurations_pair_with_measures(tmp_path):
    f, recs = drafts(tmp_path, "k67-paired.md", dedent("""\
        # Patch results on an RTX A6000

        | Model | Prompt tok/s (base) | Prompt tok/s (patched) | Gen tok/s (base) | Gen tok/s (patched) | Gen ratio |
        |---|---|---|---|---|---|
        | Qwen3-8B-4bit | 410.2 | 455.0 | 31.2 | 33.9 | 1.09 |
        | Qwen3-14B-4bit | 220.5 | 219.8 | 17.4 | 17.5 | 1.01 |
        """))
    assert [r.title.split(" (")[0] for r in recs] == ["base", "patched", "base", "patched"]
    assert [value(r) for r in recs] == [31.2, 33.9, 17.4, 17.5]
    assert [r.metrics["input_throughput"].value for r in recs] == [410.2, 455.0, 220.5, 219.8]
    assert [r.outcome.value for r in recs] == ["baseline", "improved", "baseline", "neutral"]
    assert all("1.09" not in r.title and "1.01" not in r.title for r in recs)  # the ratio names no configuration


def test_k67_square_brackets_and_latencies(tmp_path):
    f, recs = drafts(tmp_path, "k67-graphs.md", dedent("""\
        # Eager vs CUDA graphs, Llama-3.1-8B on an L40S

        | Batch | TTFT ms [eager] | TTFT ms [graphs] | TPOT ms [eager] | TPOT ms [graphs] |
        |---|---|---|---|---|
        | 1 | 45.1 | 44.0 | 12.3 | 8.1 |
        | 8 | 61.7 | 60.2 | 14.9 | 9.6 |
        """))
    assert len(recs) == 4
    assert [r.metrics["tpot"].value for r in recs] == [12.3, 8.1, 14.9, 9.6]


def test_k67_trailing_word_configurations_over_two_measures(tmp_path):
    f, recs = drafts(tmp_path, "k67-ab.md", dedent("""\
        # Two small models per A10G with vLLM

        | model | tok/s A | tok/s B | VRAM GB A | VRAM GB B |
        |---|---:|---:|---:|---:|
        | gemma-2-2b-it | 1,388 | 1,352 | 21.4 | 10.6 |
        | Qwen2.5-3B-Instruct | 1,902 | 1,889 | 21.3 | 10.5 |
        """))
    assert [value(r) for r in recs] == [1388.0, 1352.0, 1902.0, 1889.0]
    assert [r.outcome.value for r in recs] == ["baseline", "regressed", "baseline", "neutral"]


def test_k67_phases_and_statistics_are_one_run(tmp_path):
    f, recs = drafts(tmp_path, "k67-phases.md", dedent("""\
        # Llama-3.1-8B on one H100 with vLLM 0.6.3

        | Config | Latency ms (prefill) | Latency ms (decode) | TTFT ms (p50) | TTFT ms (p99) |
        |---|---|---|---|---|
        | chunked prefill | 210.4 | 11.2 | 180.2 | 402.9 |
        | no chunking | 198.7 | 12.9 | 171.0 | 655.1 |
        """))
    assert len(recs) == 2


def test_k68_error_under_the_table_is_the_failed_cell(tmp_path):
    f, recs = drafts(tmp_path, "k68-oom.md", dedent("""\
        # qwen2.5-32b on two A100-40GB, tp1 vs tp2

        output tok/s, 200 prompts:

        | dtype | tp1 | tp2 |
        |---|---:|---:|
        | bf16 | OOM | 612 |
        | fp8 | 388 | 701 |

        bf16 tp1 died at load:

            torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 270.00 MiB.

        so the bf16 row only has tp2.
        """))
    assert len(recs) == 4
    failures = [r for r in recs if r.outcome.value == "failed"]
    assert len(failures) == 1 and failures[0].error.startswith("torch.OutOfMemoryError")


def test_k69_datasheet_table_and_comparison_heading(tmp_path):
    f, recs = drafts(tmp_path, "k69-datasheet.md", dedent("""\
        # Decode patch: before/after on the A6000

        Week of 2024-10-07. Both builds ran the same llama-bench call on the same card today.

        For reference, the card (datasheet, not measured):

        | RTX A6000 | |
        |---|---|
        | Memory | 48 GB |
        | Peak FP16 | 155 TFLOPS |

        | build | Gen tok/s |
        |---|---|
        | before | 118.4 |
        | after | 127.9 |
        """))
    assert [value(r) for r in recs] == [118.4, 127.9]
    assert [r.outcome.value for r in recs] == ["baseline", "improved"]
    assert {r.date.isoformat() for r in recs} == {"2024-10-07"}


def test_k70_unit_named_two_paragraphs_above(tmp_path):
    f, recs = drafts(tmp_path, "k70-unit.md", dedent("""\
        # Qwen2.5-7B-AWQ across cloud cards

        I ran each engine on each card, one deployment per cell. Number = aggregate output tok/s.

        Engines: vLLM 0.6.4, llama.cpp b4120, same prompts everywhere.

        Each engine's row is compared across the cards.

        | engine | RTX 4090 | L4 | L40S |
        |:--|--:|--:|--:|
        | vLLM | 1,020 | 402 | 1,005 |
        | llama.cpp | 610 | 255 | 642 |
        """))
    assert sorted(value(r) for r in recs) == [255.0, 402.0, 610.0, 642.0, 1005.0, 1020.0]
    assert {r.metrics["output_throughput"].unit for r in recs} == {"tok/s"}


def test_k67_load_rows_make_one_attempt_per_configuration(tmp_path):
    f, recs = drafts(tmp_path, "k67-load.md", dedent("""\
        # Qwen2.5-7B on one RTX 5090: three engines over concurrency

        | Concurrency | vLLM RPS | SGLang RPS | vLLM TPS | SGLang TPS |
        |---|---|---|---|---|
        | 1  | 0.41 | 0.41 | 101 | 102 |
        | 8  | 3.10 | 3.02 | 760 | 741 |
        | 32 | 9.80 | 8.10 | 2410 | 1990 |
        """))
    assert [r.title for r in recs] == ["vLLM", "SGLang"]
    assert [value(r) for r in recs] == [2410.0, 1990.0]  # the highest load's figure
    assert recs[1].metrics["output_throughput[Concurrency=8]"].value == 741.0
    assert [r.outcome.value for r in recs] == ["baseline", "regressed"]


def test_k67_numbered_load_qualifiers_stay_one_run_per_row(tmp_path):
    f, recs = drafts(tmp_path, "k67-conc.md", dedent("""\
        # GEMM tuning on MI355X with SGLang

        | image / config | conc4 TPOT | conc4 ITL | conc64 TPOT | conc64 ITL |
        |---|---|---|---|---|
        | stock | 10.35 ms | 9.75 ms | 26.71 ms | 14.38 ms |
        | split-K JSON | 9.49 ms | 8.88 ms | 26.67 ms | 14.35 ms |
        """))
    assert len(recs) == 2
    assert [r.outcome.value for r in recs] == ["baseline", "improved"]


def test_k67_space_grouped_thousands_in_cells(tmp_path):
    f, recs = drafts(tmp_path, "k67-fr.md", dedent("""\
        # Trois moteurs sur une H100 NVL, FP8

        | Modèle | vLLM [tok/s] | TensorRT-LLM [tok/s] | ratio TRT/vLLM |
        |---|---:|---:|---:|
        | Llama-3.1-8B-Instruct | 6 840 | 7 912 | 1,16 |
        | Qwen2.5-14B-Instruct | 3 920 | 4 388 | 1,12 |
        """))
    assert [value(r) for r in recs] == [6840.0, 7912.0, 3920.0, 4388.0]


def test_k68_quoted_error_line_is_the_failed_cells_error(tmp_path):
    f, recs = drafts(tmp_path, "k68-quote.md", dedent("""\
        # Quantisierter KV-Cache auf einer RTX 6000 Ada

        | Model | Mem A (GiB) | Mem B (GiB) | tok/s A | tok/s B |
        |---|---:|---:|---:|---:|
        | Llama-3.1-8B-Instruct | 27.9 | 19.9 | 38.2 | 24.1 |
        | Phi-3-medium-128k-instruct | OOM | 34.9 | OOM | 15.2 |

        Bei Phi-3-medium bricht Konfiguration A im Prefill ab:

        > torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB.
        """))
    assert len(recs) == 4
    failures = [r for r in recs if r.outcome.value == "failed"]
    assert len(failures) == 1 and failures[0].error.startswith("torch.OutOfMemoryError: CUDA out of memory")


def test_k70_units_a_sentence_defines_for_column_names(tmp_path):
    f, recs = drafts(tmp_path, "k70-glossary.md", dedent("""\
        # SGLang on one L40S: old and new deployment

        Each workload ran against the old and the new server. "throughput" is output tokens per
        second; "p50 latency" is the median request latency in seconds. "old" is the baseline.

        | workload | throughput (old) | throughput (new) | p50 latency (old) | p50 latency (new) |
        |---|---:|---:|---:|---:|
        | chat | 2,840 | 3,315 | 11.2 | 9.6 |
        | RAG | 612 | 655 | 13.9 | 13.1 |
        """))
    assert [value(r) for r in recs] == [2840.0, 3315.0, 612.0, 655.0]
    assert [r.metrics["p50_latency"].value for r in recs] == [11.2, 9.6, 13.9, 13.1]
    assert {r.metrics["p50_latency"].unit for r in recs} == {"s"}


def test_k71_hardware_section_table_and_published_column_hold_no_runs(tmp_path):
    f, recs = drafts(tmp_path, "k71-published.md", dedent("""\
        # Llama-3.1-8B on an M3 Max: published numbers and mine

        macOS 15.3, plugged in. All runs were measured on 2025-03-22 with the same 27-token prompt and 256 tokens out.

        ## Hardware

        | Machine | Memory | Bandwidth | FP16 TFLOPS |
        |---|---|---|---|
        | M3 Max 40c | 64 GB | 400 GB/s | 28.4 |
        | M2 Ultra | 192 GB | 800 GB/s | 27.2 |

        ## Published vs mine (generation tok/s)

        | Engine / quant | Published | Mine |
        |---|---:|---:|
        | Ollama Q4_K_M 8B | 60 | 58.41 |
        | MLX 4-bit 8B | 74 | 71.84 |
        """))
    assert [value(r) for r in recs] == [58.41, 71.84]
    assert {r.date.isoformat() for r in recs} == {"2025-03-22"}


def test_k72_a_goal_written_as_a_bound_is_no_run(tmp_path):
    f, recs = drafts(tmp_path, "k72-goal.md", dedent("""\
        # Tuning diary: Qwen2.5-14B on one L40S with SGLang

        Box: one L40S 48 GB, SGLang 0.4.3 (CUDA 12.4).
        Goal: >= 2,000 output tok/s on our chat workload (1024 in / 128 out, 300 prompts,
        max concurrency 32) while keeping median TTFT at most 900 ms. Same client every day.

        ## 2025-03-02 baseline

        Stock server, `sglang.bench_serving` over 500 prompts: 1540.2 output tok/s.

        ## 2025-03-03 chunked prefill 4096

        Same client, `--chunked-prefill-size 4096`: 1688.9 output tok/s.
        """))
    assert [value(r) for r in recs] == [1540.2, 1688.9]
    assert [r.outcome.value for r in recs] == ["baseline", "improved"]
    assert f.possible == []  # the goal paragraph is not even a possible attempt


def test_k73_name_value_lines_of_one_run_are_no_table(tmp_path):
    f, recs = drafts(tmp_path, "k73-verbose.md", dedent("""\
        # Llama-3.1-8B on a Mac Studio M2 Ultra, 2025-05-04

        ## Ollama 0.6.5

        ```console
        $ ollama run llama3.1:8b --verbose "Summarise the RFC in three lines."
        total duration:       3.901223s
        load duration:        18.114ms
        prompt eval count:    31 token(s)
        prompt eval rate:     512.40 tokens/s
        eval count:           200 token(s)
        eval duration:        3.012004s
        eval rate:            66.40 tokens/s
        ```

        ## MLX, 4-bit

        ```console
        $ mlx_lm.generate --model mlx-community/Meta-Llama-3.1-8B-Instruct-4bit --max-tokens 200 --prompt "Summarise the RFC in three lines."
        ==========
        Prompt: 31 tokens, 401.220 tokens-per-sec
        Generation: 200 tokens, 80.115 tokens-per-sec
        Peak memory: 4.790 GB
        ```
        """))
    assert [value(r) for r in recs] == [66.4, 80.115]
    assert [r.metrics["input_throughput"].value for r in recs] == [512.4, 401.22]


def test_k74_same_arms_in_tables_of_other_sections_are_other_runs(tmp_path):
    f, recs = drafts(tmp_path, "k74-sections.md", dedent("""\
        # mmap loading on an M4 Max with mlx-lm

        ## Load time

        | Model | Standard (s) | Mmap (s) |
        |---|---|---|
        | Qwen3-4B-4bit | 0.101 | 0.131 |
        | Qwen3-8B-4bit | 0.352 | 0.328 |

        ## Generation speed

        | Model | Standard (tok/s) | Mmap (tok/s) |
        |---|---|---|
        | Qwen3-4B-4bit | 56.9 | 58.5 |
        | Qwen3-8B-4bit | 30.1 | 30.1 |
        """))
    assert len(recs) == 8  # a load-time run and a generation run of each model and arm
    assert sorted(value(r) for r in recs if value(r) is not None) == [30.1, 30.1, 56.9, 58.5]
