"""`kb import` on small logs of each kind the importer once got wrong.

Each test's name starts with its kind (k01..k11). The expected values were written by reading the
inputs as an engineer would (tests/corpus/README.md says what an attempt, an outcome, a headline
are), before kb was run on them:

k01 restatements (results tables, lessons, summaries) give no extra drafts; k02 one run split over
rows/columns/lines is one draft; k03 figures in prose (runs described elsewhere, reference figures)
give none; k04 rows that are not attempts (checklists, difference/target/TBD/pending/average rows,
feature-matrix ✅ rows); k05 runs as list items, several arms in one item; k06 output shapes
(nccl-tests, llama-bench CSV and markdown, key: value notebooks, requests/sec tables, scripts
printing ``name value unit``); k07 outcomes from figures beyond the noise; k08 error headlines;
k09 versions stay in their section; k10 identity of drafts and re-imports; k11 logs not about
inference.

Inline inputs use ``dedent``; longer raw captures live in tests/fixtures/kinds/.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from textwrap import dedent

import pytest
from import_helpers import claude_log

from kb.importers.drafts import import_logs

CAMPAIGN = Path(__file__).parent / "fixtures" / "campaign"  # a frozen campaign: headline output_throughput tok/s
KINDS = Path(__file__).parent / "fixtures" / "kinds"
CAMPAIGN_ID = "kimi-k25-eagle3-blackwell"


def drafts(tmp_path, name, text, **kw):
    root = tmp_path / "records"
    if not root.exists():
        shutil.copytree(CAMPAIGN, root)
    log = tmp_path / name
    log.write_text(text, encoding="utf-8")
    report = import_logs(root, [log], dry_run=True, campaign=CAMPAIGN_ID, **kw)
    f = report.files[0]
    return f, [d.record for d in f.drafts if d.record is not None]


def fixture(tmp_path, name):
    return drafts(tmp_path, name, (KINDS / name).read_text(encoding="utf-8"))


def transcript(tmp_path, steps, day="2026-03-01"):
    """The text of a Claude Code transcript (see import_helpers.claude_log)."""
    return claude_log(tmp_path / "built.jsonl", steps, day=day).read_text(encoding="utf-8")


# --- reading drafts ---------------------------------------------------------------------------


def value(rec, name="output_throughput"):
    m = rec.metrics.get(name)
    return None if m is None else m.value


def metric(rec, name):
    m = rec.metrics.get(name)
    return None if m is None else (m.value, m.unit)


def named(rec, base):
    """The metrics called ``base`` or ``base[...]`` (a qualified figure: ``input_throughput[test=pp512]``)."""
    return {n: m for n, m in rec.metrics.items() if n == base or n.startswith(base + "[")}


def has(rec, number, unit, base=None):
    """Whether the draft holds ``number`` in ``unit`` (under a metric named ``base``/``base[...]`` if given)."""
    pool = named(rec, base) if base else rec.metrics
    return any(m.value == pytest.approx(number) and m.unit == unit for m in pool.values())


def one(recs, number, name="output_throughput"):
    """The one draft whose ``name`` metric is ``number``."""
    found = [r for r in recs if value(r, name) is not None and value(r, name) == pytest.approx(number)]
    assert len(found) == 1, [(r.title, value(r, name)) for r in recs]
    return found[0]


def headlines(recs, name="output_throughput"):
    return sorted(v for v in (value(r, name) for r in recs) if v is not None)


def outcomes(recs, name="output_throughput"):
    """{headline value: outcome} for the drafts that have the headline."""
    return {value(r, name): r.outcome.value for r in recs if value(r, name) is not None}


def failed(recs):
    return [r for r in recs if r.outcome.value == "failed"]


def version(rec, component):
    c = rec.components.get(component)
    return None if c is None else c.version


def serve_block(out_tps, ttft="212.40", n=256):
    """The result block ``vllm bench serve`` prints, with the figures given."""
    return (
        "============ Serving Benchmark Result ============\n"
        f"Successful requests:                     {n}\n"
        "Benchmark duration (s):                  88.31\n"
        f"Output token throughput (tok/s):         {out_tps}\n"
        f"Mean TTFT (ms):                          {ttft}\n"
        "==================================================\n"
    )


def bare(error):
    return None if error is None else error.strip().strip("`").strip()


# =============================================================================================
# k01: a results table / lessons / summary restating runs described above adds no drafts
# =============================================================================================


def test_k01_results_table_after_sections_restates_them(tmp_path):
    f, recs = drafts(tmp_path, "spec-steps-2026-03-02.md", dedent("""\
        # Decode tuning, Kimi-K2.5 INT4 TP8 — 2026-03-02

        Workload: one request at a time, 1024 tokens in, 512 out.

        ## Baseline (no speculation)

        ```
        $ python -m sglang.bench_one_batch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --batch-size 1 --input-len 1024 --output-len 512
        decode throughput: 81.9 tok/s
        ```

        ## EAGLE-3, 3 draft steps

        Added `--speculative-algorithm EAGLE3 --speculative-num-steps 3`.

        ```
        decode throughput: 95.4 tok/s
        accept length: 2.71
        ```

        ## EAGLE-3, 5 draft steps

        Same, with `--speculative-num-steps 5`.

        ```
        decode throughput: 88.0 tok/s
        accept length: 3.02
        ```

        ## Results

        | config | decode tok/s | accept len |
        |---|---:|---:|
        | baseline | 81.9 | – |
        | EAGLE-3, 3 steps | 95.4 | 2.71 |
        | EAGLE-3, 5 steps | 88.0 | 3.02 |
        """))
    assert len(recs) == 3
    assert headlines(recs) == [81.9, 88.0, 95.4]
    assert outcomes(recs) == {81.9: "baseline", 95.4: "improved", 88.0: "improved"}
    assert all(str(r.date) == "2026-03-02" for r in recs)


def test_k01_lessons_list_restates_list_item_runs(tmp_path):
    f, recs = drafts(tmp_path, "llama-server-fa.md", dedent("""\
        # FA / KV-cache experiments, llama-server, Qwen2.5-32B Q4_K_M, RTX 4090 — 2026-03-10

        ### Runs (32 parallel slots, 512-token replies)

        - `llama-server -np 32 -fa off`: 412.5 tok/s aggregate
        - `-fa on`: 447.9 tok/s aggregate
        - `-fa on -ctk q8_0 -ctv q8_0`: 441.0 tok/s aggregate

        ### Lessons

        - FA on is worth +8.6% (412.5 → 447.9 tok/s); keep it.
        - q8_0 KV cache costs ~1.5% (441.0 vs 447.9 tok/s) but halves KV memory: use it for long contexts.
        - Don't bother with `-fa off` any more.
        """))
    assert len(recs) == 3
    assert headlines(recs) == [412.5, 441.0, 447.9]
    assert outcomes(recs) == {412.5: "baseline", 447.9: "improved", 441.0: "improved"}


def test_k01_transcript_final_summary_table_restates_the_runs(tmp_path):
    def serve(duration, out_tps, ttft):  # 64 requests x 512 tokens
        return ("============ Serving Benchmark Result ============\n"
                "Successful requests:                     64\n"
                f"Benchmark duration (s):                  {duration}\n"
                f"Output token throughput (tok/s):         {out_tps}\n"
                f"Mean TTFT (ms):                          {ttft}\n"
                "==================================================\n")
    text = transcript(tmp_path, [
        ("user", "Compare plain decode with EAGLE-3 at concurrency 1."),
        ("run", "vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 1 --num-prompts 64 "
                "--random-input-len 1024 --random-output-len 512", serve("402.56", "81.4", "391.20")),
        ("say", "Baseline done. Now with the EAGLE-3 draft."),
        ("run", "vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 1 --num-prompts 64 "
                "--random-input-len 1024 --random-output-len 512  # server: --speculative-config eagle3, 3 tokens",
         serve("341.69", "95.9", "405.77")),
        ("say", "Summary:\n\n| config | output tok/s | mean TTFT ms |\n|---|---:|---:|\n"
                "| baseline | 81.4 | 391.20 |\n| EAGLE-3 (3 tokens) | 95.9 | 405.77 |\n\n"
                "EAGLE-3 is +17.8% on decode throughput for +3.7% TTFT."),
    ], day="2026-03-03")
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 2
    assert outcomes(recs) == {81.4: "baseline", 95.9: "improved"}
    assert metric(one(recs, 95.9), "mean_ttft") == (pytest.approx(405.77), "ms")


def test_k01_conclusion_prose_and_table_restate_llama_bench_runs(tmp_path):
    table = ("| model | size | params | backend | ngl | fa | test | t/s |\n"
             "| --- | ---: | ---: | --- | --: | -: | ---: | ---: |\n")
    f, recs = drafts(tmp_path, "fa-4090.md", dedent("""\
        # Flash attention on the 4090 (llama.cpp b4510), 2026-03-06

        ## FA off

        ```
        $ ./llama-bench -m qwen2.5-32b-q4_k_m.gguf -ngl 99 -fa 0
        """) + table + dedent("""\
        | qwen2 32B Q4_K - Medium | 18.48 GiB | 32.76 B | CUDA | 99 | 0 | pp512 | 2810.44 ± 9.12 |
        | qwen2 32B Q4_K - Medium | 18.48 GiB | 32.76 B | CUDA | 99 | 0 | tg128 | 38.12 ± 0.05 |
        ```

        ## FA on

        ```
        $ ./llama-bench -m qwen2.5-32b-q4_k_m.gguf -ngl 99 -fa 1
        """) + table + dedent("""\
        | qwen2 32B Q4_K - Medium | 18.48 GiB | 32.76 B | CUDA | 99 | 1 | pp512 | 3102.87 ± 11.40 |
        | qwen2 32B Q4_K - Medium | 18.48 GiB | 32.76 B | CUDA | 99 | 1 | tg128 | 41.05 ± 0.04 |
        ```

        ## Conclusion

        FA on: pp512 3102.87 vs 2810.44 t/s (+10.4%), tg128 41.05 vs 38.12 t/s (+7.7%).

        | fa | pp512 | tg128 |
        |---|---:|---:|
        | 0 | 2810.44 | 38.12 |
        | 1 | 3102.87 | 41.05 |
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {38.12: "baseline", 41.05: "improved"}
    assert has(one(recs, 41.05), 3102.87, "tok/s", "input_throughput")


# =============================================================================================
# k02: one run split over rows, columns or lines is one draft with those figures as metrics
# =============================================================================================


def test_k02_llama_bench_pp_and_tg_rows_of_one_run_are_one_draft(tmp_path):
    header = ("| model                          |       size |     params | backend    | ngl | fa |          test |                  t/s |\n"
              "| ------------------------------ | ---------: | ---------: | ---------- | --: | -: | ------------: | -------------------: |\n")
    f, recs = drafts(tmp_path, "quant-4090.md", dedent("""\
        # llama.cpp on the 4090: Q4_K_M vs Q8_0 (2026-03-05)

        ## Q4_K_M

        ```
        $ ./build/bin/llama-bench -m models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -ngl 99 -fa 1
        """) + header + dedent("""\
        | llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |  1 |         pp512 |     11950.42 ± 38.17 |
        | llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |  1 |         tg128 |        158.61 ± 0.22 |

        build: 4dd34ff8 (4510)
        ```

        ## Q8_0

        ```
        $ ./build/bin/llama-bench -m models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf -ngl 99 -fa 1
        """) + header + dedent("""\
        | llama 8B Q8_0                  |   7.95 GiB |     8.03 B | CUDA       |  99 |  1 |         pp512 |     12410.77 ± 51.90 |
        | llama 8B Q8_0                  |   7.95 GiB |     8.03 B | CUDA       |  99 |  1 |         tg128 |        109.35 ± 0.09 |

        build: 4dd34ff8 (4510)
        ```
        """))
    assert len(recs) == 2
    q4, q8 = one(recs, 158.61), one(recs, 109.35)
    assert has(q4, 11950.42, "tok/s", "input_throughput") and has(q8, 12410.77, "tok/s", "input_throughput")
    assert (q4.outcome.value, q8.outcome.value) == ("baseline", "regressed")


def test_k02_tg32_tg64_tg128_columns_of_one_row_are_one_draft(tmp_path):
    f, recs = drafts(tmp_path, "qwen14b-quants.md", dedent("""\
        # Decode speed by quant — RTX 4090, llama.cpp b4510, Qwen2.5-14B-Instruct, -ngl 99 -fa 1

        | quant | pp512 t/s | tg32 t/s | tg64 t/s | tg128 t/s |
        |---|---:|---:|---:|---:|
        | Q4_K_M | 5120.3 | 78.9 | 78.1 | 77.4 |
        | Q5_K_M | 4730.8 | 68.2 | 67.6 | 66.9 |
        | Q8_0 | 5388.0 | 52.4 | 52.0 | 51.6 |
        """))
    assert len(recs) == 3
    rows = {(5120.3, 78.9, 78.1, 77.4): "baseline", (4730.8, 68.2, 67.6, 66.9): "regressed",
            (5388.0, 52.4, 52.0, 51.6): "regressed"}
    for figures, outcome in rows.items():
        [rec] = [r for r in recs if has(r, figures[3], "tok/s")]
        assert sorted(m.value for m in rec.metrics.values() if m.unit == "tok/s") == sorted(figures)
        assert value(rec) in figures[1:]  # the headline is one of its tg figures
        assert has(rec, figures[0], "tok/s", "input_throughput")
        assert rec.outcome.value == outcome


def test_k02_vllm_bench_serve_output_is_one_draft(tmp_path):
    f, recs = drafts(tmp_path, "serve-c16.txt", dedent("""\
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --dataset-name random --random-input-len 1024 --random-output-len 512 --num-prompts 200 --max-concurrency 16
        INFO 03-07 14:02:11 [__init__.py:244] Automatically detected platform cuda.
        Starting initial single prompt test run...
        Initial test run completed. Starting main benchmark run...
        Traffic request rate: inf
        Burstiness factor: 1.0 (Poisson process)
        Maximum request concurrency: 16
        100%|██████████| 200/200 [01:52<00:00,  1.78it/s]
        ============ Serving Benchmark Result ============
        Successful requests:                     200
        Maximum request concurrency:             16
        Benchmark duration (s):                  112.43
        Total input tokens:                      204800
        Total generated tokens:                  102400
        Request throughput (req/s):              1.78
        Output token throughput (tok/s):         910.79
        Total Token throughput (tok/s):          2732.37
        ---------------Time to First Token----------------
        Mean TTFT (ms):                          612.35
        Median TTFT (ms):                        588.10
        P99 TTFT (ms):                           1450.72
        -----Time per Output Token (excl. 1st token)------
        Mean TPOT (ms):                          16.42
        Median TPOT (ms):                        16.31
        P99 TPOT (ms):                           19.87
        ---------------Inter-token Latency----------------
        Mean ITL (ms):                           16.40
        Median ITL (ms):                         15.02
        P99 ITL (ms):                            48.11
        ==================================================
        """))
    assert len(recs) == 1
    [rec] = recs
    expected = {"output_throughput": (910.79, "tok/s"), "request_throughput": (1.78, "req/s"),
                "total_throughput": (2732.37, "tok/s"), "mean_ttft": (612.35, "ms"), "median_ttft": (588.10, "ms"),
                "p99_ttft": (1450.72, "ms"), "mean_tpot": (16.42, "ms"), "median_tpot": (16.31, "ms"),
                "mean_itl": (16.40, "ms"), "median_itl": (15.02, "ms")}
    for name, (number, unit) in expected.items():
        assert metric(rec, name) == (pytest.approx(number), unit), name
    assert rec.outcome.value != "failed"


def test_k02_sglang_bench_serving_blocks_one_draft_per_section(tmp_path):
    def block(duration, rps, out, inp, e2e, ttft, accept):  # 80 requests, 1024 in / 512 out
        return dedent(f"""\
            ```
            ============ Serving Benchmark Result ============
            Backend:                                 sglang
            Traffic request rate:                    inf
            Max request concurrency:                 8
            Successful requests:                     80
            Benchmark duration (s):                  {duration}
            Total input tokens:                      81920
            Total generated tokens:                  40960
            Request throughput (req/s):              {rps}
            Input token throughput (tok/s):          {inp}
            Output token throughput (tok/s):         {out}
            Concurrency:                             7.96
            Accept length:                           {accept}
            ----------------End-to-End Latency----------------
            Mean E2E Latency (ms):                   {e2e}
            Median E2E Latency (ms):                 9401.66
            ---------------Time to First Token----------------
            Mean TTFT (ms):                          {ttft}
            Median TTFT (ms):                        391.07
            P99 TTFT (ms):                           880.45
            ---------------Inter-Token Latency----------------
            Mean ITL (ms):                           17.78
            Median ITL (ms):                         12.31
            P99 ITL (ms):                            66.90
            ==================================================
            ```
            """)
    text = ("# SGLang EAGLE-3 steps, concurrency 8 (2026-03-08)\n\n"
            "## steps=3\n\n`python -m sglang.bench_serving --backend sglang --max-concurrency 8 --num-prompts 80`\n\n"
            + block("95.21", "0.84", "430.21", "860.41", "9472.15", "402.18", "2.84")
            + "\n## steps=5\n\nServer relaunched with `--speculative-num-steps 5`, same client command.\n\n"
            + block("90.44", "0.88", "452.90", "905.80", "8998.02", "415.36", "3.31"))
    f, recs = drafts(tmp_path, "sglang-steps.md", text)
    assert len(recs) == 2
    first, second = one(recs, 430.21), one(recs, 452.90)
    assert metric(first, "input_throughput") == (pytest.approx(860.41), "tok/s")
    assert metric(first, "mean_e2e_latency") == (pytest.approx(9472.15), "ms")
    assert metric(second, "mean_ttft") == (pytest.approx(415.36), "ms")
    assert value(first, "acceptance_length") == pytest.approx(2.84)
    assert value(second, "acceptance_length") == pytest.approx(3.31)
    assert (first.outcome.value, second.outcome.value) == ("baseline", "improved")


# =============================================================================================
# k03: figures in prose about a run described elsewhere, and reference figures, give no drafts
# =============================================================================================


def test_k03_discussion_prose_and_paper_figures_are_not_runs(tmp_path):
    f, recs = drafts(tmp_path, "eagle3-h100.md", dedent("""\
        # EAGLE-3 on H100, vLLM — 2026-03-11

        ## Run: Llama-3.1-8B + EAGLE-3 head, 3 speculative tokens

        ```
        $ vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --dataset-name sharegpt --max-concurrency 1 --num-prompts 64
        ============ Serving Benchmark Result ============
        Successful requests:                     64
        Benchmark duration (s):                  98.17
        Request throughput (req/s):              0.65
        Output token throughput (tok/s):         174.20
        Mean TTFT (ms):                          21.40
        Mean TPOT (ms):                          5.61
        ==================================================
        ```

        ## Discussion

        The 174.2 tok/s above is about 2.1x our plain decode from last week (83 tok/s, see the
        2026-03-04 notes). The EAGLE-3 paper reports up to 6.5x on H100, and the vLLM blog quotes
        200 tok/s for this pair at concurrency 1; we are not there yet. A colleague measured
        190 tok/s on an H200 with the same settings.
        """))
    assert len(recs) == 1
    assert value(recs[0]) == pytest.approx(174.20)
    assert metric(recs[0], "mean_tpot") == (pytest.approx(5.61), "ms")


def test_k03_reference_points_list_is_not_runs(tmp_path):
    f, recs = drafts(tmp_path, "dsv3-h200.md", dedent("""\
        ## 2026-03-12 — SGLang, DeepSeek-V3 FP8, 8x H200

        Reference points before we start:

        - SGLang's blog: 1,850 tok/s output per node at concurrency 64 on H200.
        - The DeepSeek-V3 tech report quotes 20 tok/s per user.
        - NVIDIA's B200 numbers (not comparable, FP4): 3,200 tok/s.

        What we ran (`python -m sglang.bench_serving --max-concurrency 64 --num-prompts 640`):

        - server with `--tp 8`: 1612.4 tok/s output
        - server with `--tp 8 --enable-dp-attention --dp 8`: 1790.3 tok/s output
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {1612.4: "baseline", 1790.3: "improved"}
    assert all(str(r.date) == "2026-03-12" for r in recs)


def test_k03_transcript_prose_quoting_earlier_and_upstream_figures(tmp_path):
    text = transcript(tmp_path, [
        ("user", "Last week you got 96 tok/s with EAGLE-3. Re-measure plain decode first."),
        ("run", "python -m sglang.bench_one_batch_server --model-path moonshotai/Kimi-K2.5 --tp 8 "
                "--batch-size 1 --input-len 1024 --output-len 512",
         "Warmup ...\nBenchmark ...\nbatch size: 1\nlatency: 6.25 s\ndecode throughput: 81.9 tok/s\n"),
        ("say", "Plain decode is 81.9 tok/s, in line with the campaign's 82 tok/s baseline. For reference, the "
                "SGLang docs report about 110 tok/s for Kimi-K2 on 8x H200, and the EAGLE-3 paper claims 3x "
                "speed-ups; on PCIe we should not expect that."),
    ], day="2026-03-13")
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 1
    assert value(recs[0]) == pytest.approx(81.9)
    assert str(recs[0].date) == "2026-03-13"


# =============================================================================================
# k04: checklists, difference/target/total/average rows, TBD/pending rows, ✅-only rows
# =============================================================================================


def test_k04_checklist_and_next_steps_are_not_runs(tmp_path):
    f, recs = drafts(tmp_path, "todo.md", dedent("""\
        # Kimi-K2.5 decode — 2026-03-09

        ## TODO
        - [ ] EAGLE-3 with 5 steps (expect ~100 tok/s)
        - [ ] try NCCL_ALGO=Tree with CUDA graphs off
        - [x] rebuild sgl-kernel for sm_120
        - [ ] reach the 100 tok/s target

        ## Runs
        - baseline TP8, CUDA graphs for bs 1-64: 82.2 tok/s
        - `--cuda-graph-max-bs 128`: 89.6 tok/s

        ## Next steps
        - EAGLE-3 draft from the February checkpoint: 120 tok/s would be great
        - ask upstream about the 110 tok/s they see on H200
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {82.2: "baseline", 89.6: "improved"}


def test_k04_difference_target_tbd_pending_rows_are_not_runs(tmp_path):
    f, recs = drafts(tmp_path, "status.md", dedent("""\
        # Status, 2026-03-10

        | run | output tok/s | mean TTFT (ms) |
        |---|---:|---:|
        | baseline (TP8) | 82.0 | 410 |
        | + CUDA graphs bs≤128 | 89.5 | 395 |
        | difference | +7.5 | −15 |
        | EAGLE-3 (3 steps) | TBD | TBD |
        | NCCL Tree | pending | |
        | target | 100 | |
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {82.0: "baseline", 89.5: "improved"}
    assert metric(one(recs, 89.5), "mean_ttft") == (pytest.approx(395), "ms")


def test_k04_feature_matrix_checkmarks_are_not_runs(tmp_path):
    f, recs = drafts(tmp_path, "engines.md", dedent("""\
        # Engine support for our setup (checked 2026-03-11)

        | feature | vLLM 0.11 | SGLang 0.5.3 |
        |---|:-:|:-:|
        | EAGLE-3 | ✅ | ✅ |
        | FP8 KV cache | ✅ | ✅ |
        | CUDA graphs with spec decode | ✅ | ✅ |
        | Expert parallel | ✅ | ✅ |

        ## Measured

        ```
        $ vllm bench serve --model moonshotai/Kimi-K2.5 --max-concurrency 1 --num-prompts 32
        Output token throughput (tok/s):         77.4
        Mean TPOT (ms):                          12.70
        ```
        """))
    assert len(recs) == 1
    assert value(recs[0]) == pytest.approx(77.4)


def test_k04_average_row_is_not_a_run(tmp_path):
    f, recs = drafts(tmp_path, "datasets.md", dedent("""\
        # EAGLE-3 (3 steps) by prompt set, 2026-03-12

        | prompt set | output tok/s |
        |---|---:|
        | ShareGPT | 88.1 |
        | random 1k/512 | 91.4 |
        | LongBench 8k | 79.0 |
        | average | 86.2 |
        """))
    assert len(recs) == 3
    assert headlines(recs) == [79.0, 88.1, 91.4]


# =============================================================================================
# k05: runs as list items of a campaign log; several arms in one item
# =============================================================================================


def test_k05_list_items_with_result_and_failure_sub_items(tmp_path):
    f, recs = drafts(tmp_path, "campaign-log.md", dedent("""\
        # Campaign log — Kimi-K2.5 on 8x RTX PRO 6000

        ## 2026-03-04

        - Baseline, TP8, CUDA graphs on (default flags)
          - 82.1 tok/s output, mean TTFT 402 ms
        - Tried `--enable-torch-compile`
          - crashed during CUDA graph capture:
            `RuntimeError: CUDA error: an illegal memory access was encountered`
        - `--cuda-graph-max-bs 128`
          - 89.4 tok/s output, mean TTFT 398 ms
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {82.1: "baseline", 89.4: "improved"}
    [bad] = failed(recs)
    assert bare(bad.error) == "RuntimeError: CUDA error: an illegal memory access was encountered"
    assert all(str(r.date) == "2026-03-04" for r in recs)


def test_k05_several_arms_in_one_item_are_separate_drafts(tmp_path):
    f, recs = drafts(tmp_path, "arms.md", dedent("""\
        ## llama.cpp, Qwen2.5-32B Q4_K_M, RTX 4090 (2026-03-06)

        - tg128: FA on: 41 tok/s, FA off: 38 tok/s
        - KV cache type with FA on: ctk f16: 40.9 t/s, ctk q8_0: 40.2 t/s, ctk q4_0: 37.6 t/s
        """))
    assert len(recs) == 5
    assert headlines(recs) == [37.6, 38.0, 40.2, 40.9, 41.0]
    assert all(r.metrics["output_throughput"].unit == "tok/s" for r in recs)


def test_k05_arms_with_a_default_take_it_as_baseline(tmp_path):
    f, recs = drafts(tmp_path, "draft-graphs.md", dedent("""\
        # Spec-decode knobs, 2026-03-07

        - CUDA graphs for the draft model, default (off): 90.2 tok/s; on: 95.7 tok/s
        - `--speculative-num-draft-tokens`
          - 4 (default): 94.1 tok/s
          - 8: 96.9 tok/s
          - 16: 91.0 tok/s
        """))
    assert len(recs) == 5
    assert outcomes(recs) == {90.2: "baseline", 95.7: "improved", 94.1: "baseline", 96.9: "improved",
                              91.0: "regressed"}


def test_k05_numbered_items_with_an_oom_failure(tmp_path):
    f, recs = drafts(tmp_path, "day3.md", dedent("""\
        ### Day 3 (2026-03-08) — EAGLE-3 step sweep, one command per setting

        1. EAGLE-3, num-steps 2, topk 1
           - accept len 2.1, 90.3 tok/s
        2. EAGLE-3, num-steps 4, topk 1
           - accept len 2.9, 97.8 tok/s
        3. EAGLE-3, num-steps 6, topk 1
           - OOM during CUDA graph capture:
             `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of 94.97 GiB of which 1.12 GiB is free.`
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {90.3: "baseline", 97.8: "improved"}
    [bad] = failed(recs)
    assert bare(bad.error).startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")


# =============================================================================================
# k06: output shapes
# =============================================================================================


def test_k06_nccl_all_reduce_perf_txt_is_one_draft_with_busbw(tmp_path):
    f, recs = fixture(tmp_path, "all_reduce_pcie.txt")
    assert len(recs) == 1
    assert metric(recs[0], "busbw") == (pytest.approx(8.33885), "GB/s")
    assert recs[0].metrics["busbw"].text == "8.33885"
    assert recs[0].outcome.value != "failed"


def test_k06_nccl_all_reduce_perf_log_with_nccl_info_lines(tmp_path):
    f, recs = fixture(tmp_path, "all_reduce_h200_nvlink.log")
    assert len(recs) == 1
    assert metric(recs[0], "busbw") == (pytest.approx(286.162), "GB/s")
    assert has(recs[0], 361.03, "GB/s", "busbw")  # the 1 GiB row's out-of-place busbw, a point of the sweep


def test_k06_llama_bench_csv_file(tmp_path):
    f, recs = fixture(tmp_path, "llama-bench-h100.csv")
    assert len(recs) == 1
    [rec] = recs
    assert metric(rec, "output_throughput") == (pytest.approx(181.32604), "tok/s")
    assert rec.metrics["output_throughput"].text == "181.326040"
    assert has(rec, 14202.330771, "tok/s", "input_throughput")
    assert str(rec.date) == "2026-03-06"
    assert rec.config.settings.get("ngl") == "99"


def test_k06_llama_bench_markdown_with_init_lines_and_build_line(tmp_path):
    f, recs = drafts(tmp_path, "bench-4090.txt", dedent("""\
        ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
        ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
        ggml_cuda_init: found 1 CUDA devices:
          Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes
        | model                          |       size |     params | backend    | ngl |          test |                  t/s |
        | ------------------------------ | ---------: | ---------: | ---------- | --: | ------------: | -------------------: |
        | llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |         pp512 |     11234.56 ± 45.10 |
        | llama 8B Q4_K - Medium         |   4.58 GiB |     8.03 B | CUDA       |  99 |         tg128 |        152.33 ± 0.41 |

        build: 4dd34ff8 (4510)
        """))
    assert len(recs) == 1
    [rec] = recs
    assert metric(rec, "output_throughput") == (pytest.approx(152.33), "tok/s")
    assert rec.metrics["output_throughput"].spread == pytest.approx(0.41)
    assert has(rec, 11234.56, "tok/s", "input_throughput")
    assert "4dd34ff8" in rec.config.settings.get("build", "")


def test_k06_three_llama_bench_tables_in_one_capture(tmp_path):
    head = ("| model | size | params | backend | ngl | type_k | type_v | fa | test | t/s |\n"
            "| --- | ---: | ---: | --- | --: | ---: | ---: | -: | ---: | ---: |\n")
    row = "| qwen2 7B Q4_K - Medium | 4.36 GiB | 7.62 B | CUDA | 99 | {k} | {k} | {fa} | {test} | {ts} |\n"
    parts = []
    tables = [("f16", 0, "13021.45 ± 61.20", "168.94 ± 0.52"), ("f16", 1, "14210.80 ± 55.02", "181.37 ± 0.40"),
              ("q8_0", 1, "13890.11 ± 70.31", "176.02 ± 0.61")]
    for k, fa, pp, tg in tables:
        parts.append(f"$ ./llama-bench -m models/qwen2.5-7b-instruct-q4_k_m.gguf -ngl 99 -fa {fa} -ctk {k} -ctv {k}\n"
                     "ggml_cuda_init: found 1 CUDA devices:\n"
                     "  Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, VMM: yes\n"
                     + head + row.format(k=k, fa=fa, test="pp512", ts=pp) + row.format(k=k, fa=fa, test="tg128", ts=tg)
                     + "\nbuild: 3f1ae2e3 (5400)\n")
    text = "\n".join(parts)
    f, recs = drafts(tmp_path, "kv-fa-sweep.txt", text)
    lines = text.splitlines()
    table_lines = [i + 1 for i, line in enumerate(lines) if line.startswith("| model")]
    assert len(table_lines) == 3
    found = {value(r) for r in recs}
    skipped = []
    for start, tg in zip(table_lines, (168.94, 181.37, 176.02)):
        if any(v == pytest.approx(tg) for v in found if v is not None):
            continue
        skipped.append(start)
        # not read: a warning must name it by its line (the table's header or one of its rows)
        assert any(f":{n}:" in w for w in f.warnings for n in range(start, start + 4)), (start, f.warnings)
    assert len(recs) == 3 - len(skipped)
    if not skipped:
        assert outcomes(recs) == {168.94: "baseline", 181.37: "improved", 176.02: "improved"}


def test_k06_notebook_fenced_key_value_lines(tmp_path):
    f, recs = drafts(tmp_path, "spec-notebook.md", dedent("""\
        # Spec-decode sweep — notebook, 2026-03-09

        Model: Kimi-K2.5 INT4, TP8, SGLang. Workload: 1 concurrent request, 1k in / 512 out.

        ## 1. No speculation

        ```text
        output_throughput: 82.4 tok/s
        mean_ttft: 388.0 ms
        mean_tpot: 12.1 ms
        ```

        ## 2. EAGLE-3, 3 steps, topk 1

        ```text
        output_throughput: 96.0 tok/s
        mean_ttft: 402.5 ms
        mean_tpot: 10.4 ms
        acceptance_length: 2.74
        ```

        ## 3. EAGLE-3, 4 steps, topk 4

        ```text
        output_throughput: 93.9 tok/s
        mean_ttft: 415.2 ms
        mean_tpot: 10.6 ms
        acceptance_length: 3.05
        ```
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {82.4: "baseline", 96.0: "improved", 93.9: "improved"}
    assert metric(one(recs, 96.0), "mean_tpot") == (pytest.approx(10.4), "ms")
    assert metric(one(recs, 93.9), "mean_ttft") == (pytest.approx(415.2), "ms")


def test_k06_requests_per_second_table(tmp_path):
    f, recs = drafts(tmp_path, "concurrency.md", dedent("""\
        # Throughput vs concurrency — vLLM 0.11, Llama-3.1-8B-Instruct, H100, 512 in / 128 out

        Each row is its own `vllm bench serve --max-concurrency N --num-prompts 400` run (2026-03-10).

        | concurrency | requests/sec | p50 latency (ms) | p99 latency (ms) |
        |---:|---:|---:|---:|
        | 1 | 0.91 | 1092 | 1130 |
        | 4 | 3.42 | 1163 | 1250 |
        | 16 | 11.85 | 1340 | 1610 |
        | 64 | 29.70 | 2140 | 3055 |
        """))
    assert len(recs) == 4
    assert headlines(recs, "request_throughput") == [0.91, 3.42, 11.85, 29.70]
    assert all(r.metrics["request_throughput"].unit == "req/s" for r in recs)
    assert outcomes(recs, "request_throughput") == {0.91: "baseline", 3.42: "improved", 11.85: "improved",
                                                    29.70: "improved"}
    assert has(one(recs, 11.85, "request_throughput"), 1340, "ms")


def test_k06_script_printing_name_value_unit_lines(tmp_path):
    f, recs = drafts(tmp_path, "decode-bench.txt", dedent("""\
        $ python scripts/decode_bench.py --model moonshotai/Kimi-K2.5 --tp 8
        warmup: 3 iterations
        decode_throughput 82.61 tok/s
        prefill_throughput 5890.2 tok/s
        ttft 395.4 ms
        tpot 12.10 ms

        $ python scripts/decode_bench.py --model moonshotai/Kimi-K2.5 --tp 8 --speculative eagle3 --steps 3
        warmup: 3 iterations
        decode_throughput 95.82 tok/s
        prefill_throughput 6011.4 tok/s
        ttft 401.7 ms
        tpot 10.44 ms
        """))
    assert len(recs) == 2
    assert outcomes(recs) == {82.61: "baseline", 95.82: "improved"}
    spec = one(recs, 95.82)
    assert has(spec, 6011.4, "tok/s") and has(spec, 401.7, "ms") and has(spec, 10.44, "ms")
    assert not has(spec, 5890.2, "tok/s")


# =============================================================================================
# k07: outcomes from figures beyond the noise
# =============================================================================================


def test_k07_within_two_percent_is_neutral(tmp_path):
    f, recs = drafts(tmp_path, "nccl-knobs.md", dedent("""\
        # Collective knobs, Kimi-K2.5 TP8 decode (2026-03-11)

        | config | output tok/s |
        |---|---:|
        | baseline TP8 | 82.0 |
        | NCCL_ALGO=Ring | 83.1 |
        | --cuda-graph-max-bs 160 | 85.3 |
        | NCCL_PROTO=LL128 | 79.4 |
        | --disable-custom-all-reduce | 80.9 |
        """))
    assert len(recs) == 5
    assert outcomes(recs) == {82.0: "baseline", 83.1: "neutral", 85.3: "improved", 79.4: "regressed",
                              80.9: "neutral"}


def test_k07_lower_latency_is_better(tmp_path):
    f, recs = drafts(tmp_path, "ttft.md", dedent("""\
        # TTFT vs chunked prefill size — Qwen3-32B FP8, H100, 8k-token prompts (2026-03-12)

        One `vllm serve` launch per setting, then the same client run.

        | --max-num-batched-tokens | median TTFT (ms) |
        |---|---:|
        | 8192 (default) | 640 |
        | 4096 | 652 |
        | 16384 | 571 |
        | 2048 | 742 |
        """))
    assert len(recs) == 4
    assert all(r.metrics["median_ttft"].unit == "ms" for r in recs)
    assert outcomes(recs, "median_ttft") == {640: "baseline", 652: "neutral", 571: "improved", 742: "regressed"}


def test_k07_the_row_called_baseline_is_the_baseline_even_when_not_first(tmp_path):
    f, recs = drafts(tmp_path, "spec.md", dedent("""\
        # Speculation vs none (2026-03-13)

        | run | output tok/s |
        |---|---:|
        | EAGLE-3 steps=3 | 95.8 |
        | baseline (no speculation) | 82.0 |
        | EAGLE-3 steps=3, topk=4 | 83.0 |
        """))
    assert len(recs) == 3
    assert outcomes(recs) == {82.0: "baseline", 95.8: "improved", 83.0: "neutral"}


def test_k07_garbage_output_row_is_failed_despite_its_throughput(tmp_path):
    f, recs = drafts(tmp_path, "quants.md", dedent("""\
        # Quantisation check — Qwen3-32B on RTX PRO 6000, vLLM (2026-03-14)

        | quant | output tok/s | result |
        |---|---:|---|
        | BF16 | 41.3 | ✅ |
        | FP8 | 63.0 | ✅ |
        | NVFP4 | 88.9 | ❌ garbage output |
        """))
    assert len(recs) == 3
    by_outcome = sorted(r.outcome.value for r in recs)
    assert by_outcome == ["baseline", "failed", "improved"]
    assert one(recs, 41.3).outcome.value == "baseline"
    assert one(recs, 63.0).outcome.value == "improved"
    [bad] = failed(recs)
    assert "NVFP4" in bad.title or "nvfp4" in bad.approach.lower()


def test_k07_garbage_output_list_item_is_failed(tmp_path):
    f, recs = drafts(tmp_path, "w4a8.md", dedent("""\
        ## 2026-03-15, Kimi-K2.5 quant variants (TP8)

        - INT4 (shipped checkpoint): 82.3 tok/s, answers fine
        - W4A8 via llm-compressor: 92.1 tok/s ❌ garbage output (repeats "the the the")
        - INT4 + FP8 KV cache: 84.9 tok/s, answers fine
        """))
    assert len(recs) == 3
    assert one(recs, 82.3).outcome.value == "baseline"
    assert one(recs, 84.9).outcome.value == "improved"
    [bad] = failed(recs)
    assert value(bad) in (None, 92.1)


def test_k07_change_within_the_runs_own_spread_is_neutral(tmp_path):
    head = ("| model | size | params | backend | ngl | n_ubatch | test | t/s |\n"
            "| --- | ---: | ---: | --- | --: | ---: | ---: | ---: |\n")
    row = "| llama 70B Q4_K - Medium | 39.59 GiB | 70.55 B | CUDA | 99 | {ub} | tg128 | {ts} |\n"
    text = ""
    for ub, ts in ((512, "40.12 ± 1.50"), (1024, "41.10 ± 1.45"), (2048, "44.90 ± 0.30")):
        text += (f"$ ./llama-bench -m llama-3.3-70b-q4_k_m.gguf -ngl 99 -ub {ub} -n 128 -p 0\n" + head
                 + row.format(ub=ub, ts=ts) + "\nbuild: 3f1ae2e3 (5400)\n\n")
    f, recs = drafts(tmp_path, "ubatch.txt", text)
    assert len(recs) == 3
    # 41.10 is +2.4 % but within the ±1.50 the runs printed; 44.90 is beyond it
    assert outcomes(recs) == {40.12: "baseline", 41.10: "neutral", 44.90: "improved"}


# =============================================================================================
# k08: error headlines
# =============================================================================================


def test_k08_each_failed_run_takes_its_own_traceback(tmp_path):
    f, recs = drafts(tmp_path, "failures-2026-03-05.md", dedent("""\
        # Two failed launches, 2026-03-05

        ## --enable-torch-compile

        ```
        $ python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --enable-torch-compile
        [2026-03-05 10:02:11 TP0] Capture cuda graph begin. This can take up to several minutes.
        Traceback (most recent call last):
          File "/opt/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 341, in capture
            graph, output_buffers = self.capture_one_batch_size(bs, forward)
          File "/opt/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 455, in capture_one_batch_size
            torch.cuda.synchronize()
        RuntimeError: CUDA error: an illegal memory access was encountered
        CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
        For debugging consider passing CUDA_LAUNCH_BLOCKING=1
        ```

        ## --enable-dp-attention --dp 8

        ```
        $ python -m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --enable-dp-attention --dp 8
        WARNING: server_args.py:612: --enable-dp-attention is experimental with speculative decoding
        Traceback (most recent call last):
          File "/opt/sglang/python/sglang/launch_server.py", line 14, in <module>
            server_args = prepare_server_args(sys.argv[1:])
          File "/opt/sglang/python/sglang/srt/server_args.py", line 1890, in check_server_args
            assert self.moe_dense_tp_size in (1, None), "moe_dense_tp_size must be 1 or None when dp attention is enabled"
        AssertionError: moe_dense_tp_size must be 1 or None when dp attention is enabled
        ```
        """))
    assert len(recs) == 2
    assert all(r.outcome.value == "failed" for r in recs)
    assert sorted(bare(r.error) for r in recs) == [
        "AssertionError: moe_dense_tp_size must be 1 or None when dp attention is enabled",
        "RuntimeError: CUDA error: an illegal memory access was encountered"]
    [compile_run] = [r for r in recs if "illegal memory access" in (r.error or "")]
    assert "--enable-torch-compile" in " ".join(compile_run.config.flags) + (compile_run.config.command or "") + compile_run.title


def test_k08_same_error_row_takes_the_error_printed_above(tmp_path):
    f, recs = drafts(tmp_path, "fp4-l40s.md", dedent("""\
        # FP4 on the L40S box (2026-03-06)

        | model | quant | output tok/s | notes |
        |---|---|---:|---|
        | Qwen3-32B | FP8 | 41.2 | ok |
        | Qwen3-32B | NVFP4 | — | `RuntimeError: CUTLASS kernel not supported on sm_89` |
        | Qwen3-32B | MXFP4 | — | same error |
        """))
    assert len(recs) == 3
    assert one(recs, 41.2).outcome.value == "baseline"
    bad = failed(recs)
    assert len(bad) == 2
    assert [bare(r.error) for r in bad] == ["RuntimeError: CUTLASS kernel not supported on sm_89"] * 2


def test_k08_same_error_row_after_a_section_with_a_traceback(tmp_path):
    f, recs = drafts(tmp_path, "fp4-sections.md", dedent("""\
        # FP4 checkpoints on the L40S (2026-03-07)

        ## NVFP4 (modelopt)

        ```
        $ vllm serve nvidia/Qwen3-32B-FP4 --quantization modelopt_fp4
        INFO 03-07 09:12:40 [config.py:1604] Using max model len 40960
        Traceback (most recent call last):
          File "/usr/local/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/modelopt.py", line 812, in create_weights
            raise ValueError(
        ValueError: FP4 quantization requires compute capability 100 or higher; the current GPU has 89.
        ```

        ## All tries

        | quant | result |
        |---|---|
        | FP8 (modelopt) | 44.8 tok/s |
        | NVFP4 (modelopt) | failed, see above |
        | MXFP4 (`--quantization mxfp4`) | same error |
        """))
    # the NVFP4 row restates the section's run; FP8 and MXFP4 appear only in the table
    assert len(recs) == 3
    assert one(recs, 44.8).outcome.value != "failed"
    bad = failed(recs)
    assert len(bad) == 2
    assert [bare(r.error) for r in bad] == [
        "ValueError: FP4 quantization requires compute capability 100 or higher; the current GPU has 89."] * 2


def test_k08_vllm_error_prefixed_traceback_gives_the_exception_line(tmp_path):
    f, recs = drafts(tmp_path, "maxlen.log", dedent("""\
        $ vllm serve Qwen/Qwen3-30B-A3B-FP8 --max-model-len 131072 &
        $ vllm bench serve --model Qwen/Qwen3-30B-A3B-FP8 --dataset-name random --random-input-len 4096 --random-output-len 512 --max-concurrency 16 --num-prompts 160
        ============ Serving Benchmark Result ============
        Successful requests:                     160
        Benchmark duration (s):                  68.19
        Request throughput (req/s):              2.35
        Output token throughput (tok/s):         1201.40
        Mean TTFT (ms):                          845.12
        ==================================================
        $ vllm serve Qwen/Qwen3-30B-A3B-FP8 --max-model-len 262144
        INFO 03-05 10:11:02 [config.py:1604] Using max model len 262144
        ERROR 03-05 10:11:40 [core.py:586] EngineCore failed to start.
        ERROR 03-05 10:11:40 [core.py:586] Traceback (most recent call last):
        ERROR 03-05 10:11:40 [core.py:586]   File "/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 577, in run_engine_core
        ERROR 03-05 10:11:40 [core.py:586]     engine_core = EngineCoreProc(*args, **kwargs)
        ERROR 03-05 10:11:40 [core.py:586]   File "/usr/local/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py", line 692, in check_enough_kv_cache_memory
        ERROR 03-05 10:11:40 [core.py:586]     raise ValueError(
        ERROR 03-05 10:11:40 [core.py:586] ValueError: The model's max seq len (262144) is larger than the maximum number of tokens that can be stored in KV cache (181344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
        """))
    assert len(recs) == 2
    assert value(one(recs, 1201.40)) == pytest.approx(1201.40)
    [bad] = failed(recs)
    assert "ValueError: The model's max seq len (262144) is larger than the maximum number of tokens" in bad.error
    assert "EngineCore failed to start" not in bad.error and "Traceback" not in bad.error


def test_k08_transcript_error_is_the_exception_not_the_trailing_warning(tmp_path):
    text = transcript(tmp_path, [
        ("run", "python bench_latency.py --model meta-llama/Llama-3.1-70B-Instruct --tp 2 --batch-size 16",
         "batch 16: 38.7 tok/s per request, 619.2 tok/s total\n"),
        ("say", "Batch 16 worked; trying 64."),
        ("run", "python bench_latency.py --model meta-llama/Llama-3.1-70B-Instruct --tp 2 --batch-size 64",
         "Traceback (most recent call last):\n"
         "  File \"/srv/work/bench_latency.py\", line 88, in <module>\n"
         "    out = model.generate(**batch, max_new_tokens=512)\n"
         "  File \"/srv/work/.venv/lib/python3.12/site-packages/torch/utils/_contextlib.py\", line 116, in decorate_context\n"
         "    return func(*args, **kwargs)\n"
         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total capacity "
         "of 79.19 GiB of which 1.02 GiB is free.\n"
         "[rank0]:[W305 11:20:41.412006 ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was "
         "not called before program exit, which can leak resources.\n", True),
        ("say", "Batch 64 runs out of memory."),
    ], day="2026-03-05")
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 2
    [bad] = failed(recs)
    assert bare(bad.error).startswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB.")
    assert "destroy_process_group" not in bad.error


# =============================================================================================
# k09: a version stated in one section does not attach to a run in another section
# =============================================================================================


def test_k09_engine_versions_stay_in_their_sections(tmp_path):
    f, recs = drafts(tmp_path, "engines-week.md", dedent("""\
        # Two engines, one workload

        ## vLLM runs (2026-03-02)

        Stack: vllm 0.11.0, torch 2.8.0, CUDA 12.8.

        ```
        $ vllm bench serve --model Qwen/Qwen3-30B-A3B-FP8 --dataset-name random --random-input-len 1024 --random-output-len 256 --max-concurrency 8 --num-prompts 160
        Output token throughput (tok/s):         1402.55
        Mean TTFT (ms):                          121.40
        ```

        ## SGLang runs (2026-03-03)

        Stack: sglang 0.5.3, torch 2.8.0, flashinfer 0.4.1.

        ```
        $ python -m sglang.bench_serving --backend sglang --dataset-name random --random-input-len 1024 --random-output-len 256 --max-concurrency 8 --num-prompts 160
        Output token throughput (tok/s):         1488.10
        Mean TTFT (ms):                          109.85
        ```
        """))
    assert len(recs) == 2
    vllm_run, sglang_run = one(recs, 1402.55), one(recs, 1488.10)
    assert version(vllm_run, "sglang") is None and version(vllm_run, "flashinfer") is None
    assert version(sglang_run, "vllm") is None
    assert version(vllm_run, "vllm") in (None, "0.11.0") and version(sglang_run, "sglang") in (None, "0.5.3")
    assert (str(vllm_run.date), str(sglang_run.date)) == ("2026-03-02", "2026-03-03")


def test_k09_planned_upgrade_versions_do_not_attach_to_the_run_above(tmp_path):
    f, recs = drafts(tmp_path, "upgrade-plan.md", dedent("""\
        ## 2026-03-04 — baseline on the 12.8 stack

        Running with CUDA 12.8, torch 2.7.1+cu128, sglang 0.4.9.

        - TP8 decode: 82.3 tok/s

        ## Plan: CUDA 13 upgrade

        Next week: CUDA 13.0, torch 2.9.0, sglang 0.5.4; rebuild sgl-kernel for sm_120. Nothing run yet.
        """))
    assert len(recs) == 1
    [rec] = recs
    assert value(rec) == pytest.approx(82.3)
    assert version(rec, "cuda") in (None, "12.8")
    assert version(rec, "torch") in (None, "2.7.1+cu128", "2.7.1")
    assert version(rec, "sglang") in (None, "0.4.9")


def test_k09_version_in_one_box_heading_stays_with_that_box(tmp_path):
    f, recs = drafts(tmp_path, "boxes.md", dedent("""\
        # FlashInfer versions, 2026-03-05

        ### Box A (flashinfer 0.2.9)

        - TP8 decode, FlashInfer attention backend: 80.7 tok/s

        ### Box B (flashinfer 0.3.1)

        - TP8 decode, FlashInfer attention backend: 84.6 tok/s
        """))
    assert len(recs) == 2
    a, b = one(recs, 80.7), one(recs, 84.6)
    assert version(a, "flashinfer") in (None, "0.2.9")
    assert version(b, "flashinfer") in (None, "0.3.1")


# =============================================================================================
# k10: identity of drafts, re-imports and provenance
# =============================================================================================


def _import(root, log):
    report = import_logs(root, [log], campaign=CAMPAIGN_ID)
    assert not report.failed, report.files[0].error
    return report.files[0]


def test_k10_two_runs_with_the_same_text_are_two_drafts(tmp_path):
    f, recs = drafts(tmp_path, "repeats.md", dedent("""\
        # Repeat runs, 2026-03-08

        ## Morning

        - reran baseline TP8: 82.0 tok/s

        ## Evening (after reboot)

        - reran baseline TP8: 82.0 tok/s
        """))
    assert len(recs) == 2
    assert headlines(recs) == [82.0, 82.0]
    ids = [d.id for d in f.drafts if d.record is not None]
    assert len(set(ids)) == 2


def test_k10_two_identical_transcript_runs_are_two_drafts(tmp_path):
    out = "decode throughput: 81.7 tok/s\n"
    cmd = "python -m sglang.bench_one_batch_server --model-path moonshotai/Kimi-K2.5 --tp 8 --batch-size 1"
    text = transcript(tmp_path, [("run", cmd, out), ("say", "Once more to check the noise."), ("run", cmd, out)])
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert len(recs) == 2
    assert headlines(recs) == [81.7, 81.7]
    assert len({d.id for d in f.drafts if d.record is not None}) == 2


NOTEBOOK = dedent("""\
    # Kimi-K2.5 decode log

    ## 2026-03-09

    - baseline TP8: 82.0 tok/s
    - `--cuda-graph-max-bs 128`: 89.5 tok/s
    """)


def test_k10_reimporting_the_same_log_adds_nothing(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN, root)
    log = tmp_path / "decode-log.md"
    log.write_text(NOTEBOOK, encoding="utf-8")
    first = _import(root, log)
    assert [d.state for d in first.drafts] == ["written", "written"]
    files = sorted(p.name for p in (root / "attempts").iterdir())
    again = _import(root, log)
    assert [d.state for d in again.drafts] == ["exists", "exists"]
    assert [d.id for d in again.drafts] == [d.id for d in first.drafts]
    assert sorted(p.name for p in (root / "attempts").iterdir()) == files


def test_k10_appending_a_run_adds_exactly_one_draft(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN, root)
    log = tmp_path / "decode-log.md"
    log.write_text(NOTEBOOK, encoding="utf-8")
    first = _import(root, log)
    before = len(list((root / "attempts").iterdir()))
    log.write_text(NOTEBOOK + "\n## 2026-03-10\n\n- EAGLE-3, 3 steps: 95.6 tok/s\n", encoding="utf-8")
    second = _import(root, log)
    states = [d.state for d in second.drafts]
    assert states.count("exists") == len(first.drafts) == 2 and states.count("written") == 1
    assert len(list((root / "attempts").iterdir())) == before + 1
    [new] = [d.record for d in second.drafts if d.state == "written"]
    assert value(new) == pytest.approx(95.6) and str(new.date) == "2026-03-10"


@pytest.mark.parametrize("name", ["jdoe-bench-2026-03-02.md", "notes_from_mwilson.md", "bench run (asmith).md"])
def test_k10_provenance_file_is_the_name_on_disk(tmp_path, name):
    f, recs = drafts(tmp_path, name, NOTEBOOK)
    assert len(recs) == 2
    assert [r.source[0].file for r in recs] == [name, name]


# =============================================================================================
# k11: a log not about inference gives no drafts and says so
# =============================================================================================


def test_k11_web_app_dev_notes_with_ms_timings(tmp_path):
    f, recs = drafts(tmp_path, "dev-notes.md", dedent("""\
        # Dev notes — invoices service, 2026-03-03

        ## Slow /api/invoices endpoint

        - p95 was 840 ms on staging; added a composite index on (customer_id, created_at)
        - p95 now 120 ms, p50 38 ms
        - `npm run test`: 412 passed in 18.4 s

        ## Frontend

        - Lighthouse: LCP 1.9 s → 1.4 s after lazy-loading the charts bundle
        - bundle size 412 kB → 268 kB
        - [ ] move the PDF export to a worker (takes 2300 ms on big invoices)
        """))
    assert recs == []
    assert f.about_inference is False


def test_k11_web_app_coding_transcript_with_a_load_test(tmp_path):
    text = transcript(tmp_path, [
        ("user", "The /api/health route is slow under load, can you look?"),
        ("run", "npx vitest run", " ✓ src/routes/health.test.ts (4 tests) 38ms\n Test Files  12 passed (12)\n"
                "      Tests  87 passed (87)\n   Duration  3.21s\n"),
        ("run", "ab -n 5000 -c 50 http://localhost:3000/api/health",
         "Concurrency Level:      50\nTime taken for tests:   2.732 seconds\nComplete requests:      5000\n"
         "Failed requests:        0\nRequests per second:    1830.22 [#/sec] (mean)\n"
         "Time per request:       27.319 [ms] (mean)\n"),
        ("say", "The handler awaited the DB pool on every call; cached the pool."),
        ("run", "ab -n 5000 -c 50 http://localhost:3000/api/health",
         "Requests per second:    6420.87 [#/sec] (mean)\nTime per request:       7.787 [ms] (mean)\n"),
        ("say", "Health endpoint now serves 6420 req/s, up from 1830."),
    ], day="2026-03-04")
    f, recs = drafts(tmp_path, "session.jsonl", text)
    assert recs == []
    assert f.about_inference is False


def test_k11_frontend_build_console_capture(tmp_path):
    f, recs = drafts(tmp_path, "build.txt", dedent("""\
        $ npm run build
        > shop-frontend@2.4.0 build
        > vite build
        vite v5.4.8 building for production...
        ✓ 1423 modules transformed.
        dist/assets/index-5f2c1a9b.js   268.41 kB │ gzip: 84.12 kB
        ✓ built in 2841ms
        $ npm run test -- --run
         Test Files  31 passed (31)
              Tests  204 passed (204)
           Duration  12.50s
        $ curl -s -o /dev/null -w '%{time_total}\\n' http://localhost:4173/
        0.018
        GET /orders 200 in 143ms
        """))
    assert recs == []
    assert f.about_inference is False
