"""Variants of our own (written with the fix), kinds k57 to k61.

k57 a comparison table whose rows are the measures and whose columns are the configurations is
read column by column whatever language its first column is in: each row holds one unit in every
column and the rows' units differ (tok/s, then GB, then s), so every column is one run. A table
whose rows each hold several units (rows are the runs), or one measure printed in two scales
(``120 ms`` above ``1.2 s``), is not turned.
k58 reading does not depend on Python's hash seed: a column whose cells carry two units equally
often takes the first one (a set's order decided it before, so one log gave 12, 15 or 17 drafts
from one run to the next).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from test_import_kinds import drafts, headlines, outcomes, value

ROOT = Path(__file__).resolve().parent.parent


def test_k57_rows_of_measures_in_german_are_read_by_column(tmp_path):
    f, recs = drafts(tmp_path, "k57-de.md", dedent("""\
        # Qwen3-30B-A3B auf einem M2 Ultra, 2026-04-02

        | Kennzahl | GGUF Q4_K_M | MLX 4-bit | MLX 8-bit |
        |---|---|---|---|
        | Durchsatz | **52.1 tok/s** | 61.7 tok/s | 40.2 tok/s |
        | Speicher | 18.6 GB | 17.2 GB | 32.5 GB |
        | Ladezeit | 4.1 s | 2.9 s | 5.8 s |
        """))
    assert [r.title for r in recs] == ["GGUF Q4_K_M", "MLX 4-bit", "MLX 8-bit"]
    assert [value(r) for r in recs] == [52.1, 61.7, 40.2]
    assert outcomes(recs) == {52.1: "baseline", 61.7: "improved", 40.2: "regressed"}
    assert [r.metrics["time"].value for r in recs] == [4.1, 2.9, 5.8]


def test_k57_rows_of_measures_in_japanese_are_read_by_column(tmp_path):
    f, recs = drafts(tmp_path, "k57-ja.md", dedent("""\
        # Llama-3.1-8B on RTX 4070 — 2026-05-20

        | 項目 | FP16 | AWQ | GPTQ |
        |------|------|-----|------|
        | 生成速度 | 38.5 tok/s | 71.2 tok/s | 66.0 tok/s |
        | VRAM | 16.1 GB | 5.9 GB | 6.3 GB |
        | 初回応答 | 180 ms | 150 ms | 160 ms |
        """))
    assert [r.title for r in recs] == ["FP16", "AWQ", "GPTQ"]
    assert [value(r) for r in recs] == [38.5, 71.2, 66.0]
    assert [value(r, "latency") for r in recs] == [180.0, 150.0, 160.0]


def test_k57_counter_rows_that_hold_several_units_are_the_runs(tmp_path):
    f, recs = drafts(tmp_path, "k57-rows.md", dedent("""\
        # vLLM on one L4, 2026-03-02

        | Config | Throughput | Memory |
        |---|---|---|
        | fp16 | 41.0 tok/s | 15.2 GB |
        | fp8 | 55.3 tok/s | 8.1 GB |
        """))
    assert [r.title for r in recs] == ["fp16", "fp8"]
    assert headlines(recs) == [41.0, 55.3]


def test_k57_counter_one_measure_in_two_scales_keeps_its_rows(tmp_path):
    f, recs = drafts(tmp_path, "k57-scales.md", dedent("""\
        # Whisper on one T4, 2026-03-02

        | Model | Run 1 | Run 2 | Run 3 |
        |---|---|---|---|
        | tiny | 120 ms | 130 ms | 125 ms |
        | large-v3 | 1.2 s | 1.3 s | 1.25 s |
        """))
    assert [r.title for r in recs] == ["tiny", "large-v3"]  # the runs of a row are its points, not other rows' measures
    assert [sorted({m.unit for m in r.metrics.values()}) for r in recs] == [["ms"], ["s"]]


TIED = dedent("""\
    # Three builds on one Mac Studio, 2026-02-05

    | Build | Runtime | Size | Speed | Passed |
    |---|---|---|---|---|
    | Q4_K_S | llama.cpp | 130GB | 37.4 TPS | 5/5 |
    | 8-bit | MLX | 243GB | 26.0 TPS | 4/5 |

    | Measure | Q4_K_S | 8-bit | Lead |
    |---|---|---|---|
    | Per GB | 0.287 | 0.107 | 2.7x |
    | Speed | 37.37 TPS | 25.98 TPS | 44% |
    | Size | 130GB | 243GB | 46% |
    | Load | - | 41.4s | N/A |
    """)

_DIGEST = """
import json, sys
from pathlib import Path
sys.path.insert(0, "tests")
from test_import_kinds import drafts
import tempfile
with tempfile.TemporaryDirectory() as tmp:
    f, recs = drafts(Path(tmp), "k58.md", sys.stdin.read())
    print(json.dumps([[r.title, {n: [m.value, m.unit] for n, m in sorted(r.metrics.items())}, str(r.outcome)] for r in recs]))
"""


@pytest.mark.parametrize("text", [TIED], ids=["tied-units"])
def test_k58_the_same_drafts_under_every_hash_seed(text):
    seen = set()
    for seed in ("0", "1", "2", "3"):
        proc = subprocess.run([sys.executable, "-c", _DIGEST], input=text, capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120, check=True)
        seen.add(proc.stdout)
    assert len(seen) == 1, seen
    assert json.loads(seen.pop())  # drafts were made, the same each time


def test_k59_a_corner_header_names_the_unit_of_a_sweep_table(tmp_path):
    f, recs = drafts(tmp_path, "k59-corner.md", dedent("""\
        # Three servers, one H100, 2026-06-01

        | Output tok/s by batch size | bs 1 | bs 8 | bs 32 |
        |:--|:--|:--|:--|
        | engine-a | 91.5 | 402.3 | 910.0 |
        | engine-b | 88.0 | 455.1 | 1203.7 |
        """))
    assert [r.title.split(" (")[0] for r in recs] == ["engine-a", "engine-b"]
    assert [value(r) for r in recs] == [910.0, 1203.7]  # the largest batch size is the row's headline
    assert all(len([n for n in r.metrics if n.startswith("output_throughput[")]) == 3 for r in recs)
    assert {m.unit for r in recs for m in r.metrics.values()} == {"tok/s"}


def test_k59_counter_a_corner_without_a_unit_gives_the_cells_none(tmp_path):
    f, recs = drafts(tmp_path, "k59-plain.md", dedent("""\
        # Which server handled the prompt set, 2026-06-01

        | Prompt set | engine-a | engine-b |
        |:--|:--|:--|
        | short | 12 | 14 |
        | long | 3 | 2 |
        """))
    assert recs == []


PERF_CSV = dedent("""\
    engine,instances,Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency
    onnx,1,1,210.4,20,300,10,15,4100,12,3,4620,4700,4760,4900
    onnx,1,4,455.0,22,310,3900,15,4120,12,3,8700,8900,9000,9300
    onnx,2,1,212.0,21,305,11,16,4080,12,3,4600,4690,4750,4880
    onnx,2,4,801.9,23,320,400,16,4100,12,3,4990,5100,5200,5400
    """)


def test_k60_perf_analyzer_csv_rows_sharing_a_users_columns_are_one_sweep(tmp_path):
    f, recs = drafts(tmp_path, "k60-perf.csv", PERF_CSV)
    assert len(recs) == 2
    assert [value(r, "inferences_per_second") for r in recs] == [455.0, 801.9]  # the largest concurrency of each
    assert [value(r, "inferences_per_second[concurrency=1]") for r in recs] == [210.4, 212.0]
    assert outcomes(recs, "inferences_per_second") == {455.0: "baseline", 801.9: "improved"}


def test_k60_perf_analyzer_reports_are_one_attempt_an_invocation(tmp_path):
    report = dedent("""\
        *** Measurement Settings ***
          Batch size: {batch}
          Using "time_windows" mode for stabilization
          Measurement window: 5000 msec
          Using synchronous calls for inference
          Stabilizing using average latency

        Request concurrency: 1
          Client:
            Request count: 900
            Throughput: {low} infer/sec
            Avg latency: 5500 usec (standard deviation 210 usec)
            p50 latency: 5400 usec
            p99 latency: 6900 usec
          Server:
            Inference count: 900
        Request concurrency: 2
          Client:
            Request count: 1500
            Throughput: {high} infer/sec
            Avg latency: 6600 usec (standard deviation 300 usec)
            p99 latency: 8100 usec
        Inferences/Second vs. Client Average Batch Latency
        Concurrency: 1, throughput: {low} infer/sec, latency 5500 usec
        Concurrency: 2, throughput: {high} infer/sec, latency 6600 usec
        """)
    text = ("# resnet50 on one L4, 2026-04-11\n\n## batch 1\n\n```\n" + report.format(batch=1, low=180.2, high=301.5)
            + "```\n\n## batch 4\n\n```\n" + report.format(batch=4, low=520.0, high=844.4) + "```\n")
    f, recs = drafts(tmp_path, "k60-report.md", text)
    assert [value(r, "inferences_per_second") for r in recs] == [301.5, 844.4]
    assert [r.metrics["p99_latency"].value for r in recs] == [8100.0, 8100.0]
    assert recs[0].metrics["latency"].unit == "us"


GRID_CSV = dedent("""\
    ,kv_fp8,graphs,ctx,gen_tps,prefill_tps
    0,False,False,512,61.0,2100.5
    1,False,False,4096,55.2,3900.1
    2,False,False,16384,41.7,3500.0
    3,True,False,512,63.5,2150.2
    4,True,False,4096,58.9,4010.7
    5,True,False,16384,47.3,3620.4
    6,True,True,512,70.2,2180.0
    7,True,True,4096,66.1,4100.3
    8,True,True,16384,52.8,3700.9
    """)


def test_k61_each_knob_setting_running_the_same_sweep_is_one_attempt(tmp_path):
    f, recs = drafts(tmp_path, "k61-grid.csv", GRID_CSV)
    assert [r.title for r in recs] == ["kv_fp8=False, graphs=False", "kv_fp8=True, graphs=False", "kv_fp8=True, graphs=True"]
    assert [value(r) for r in recs] == [41.7, 47.3, 52.8]  # each sweep's largest context is its headline
    assert [value(r, "output_throughput[ctx=512]") for r in recs] == [61.0, 63.5, 70.2]
    assert outcomes(recs) == {41.7: "baseline", 47.3: "improved", 52.8: "improved"}


def test_k61_counter_the_same_grid_typed_as_a_markdown_table_keeps_its_rows(tmp_path):
    rows = [line.split(",") for line in GRID_CSV.splitlines()[1:]]
    table = "| kv fp8 | graphs | ctx | gen tok/s |\n|---|---|---|---|\n" + "".join(
        f"| {kv} | {graphs} | {ctx} | {gen} |\n" for _i, kv, graphs, ctx, gen, _p in rows)
    f, recs = drafts(tmp_path, "k61-grid.md", "# Decode speed over context, one RTX 4090, 2026-06-02\n\n" + table)
    assert len(recs) == 9  # a person's table of crossed levels: each row a run, compared at equal ctx (blind9 k46)


def test_k61_counter_rows_whose_numbers_differ_by_configuration_stay_rows(tmp_path):
    f, recs = drafts(tmp_path, "k61-rows.md", dedent("""\
        # Batch per engine, one H100, 2026-06-02

        | engine | graphs | batch | gen tok/s |
        |---|---|---|---|
        | a | off | 8 | 610.0 |
        | a | on | 16 | 700.5 |
        | b | off | 32 | 805.1 |
        | b | on | 64 | 990.4 |
        """))
    assert len(recs) == 4


def test_k61_counter_a_knob_swept_per_build_in_a_csv_keeps_its_rows(tmp_path):
    f, recs = drafts(tmp_path, "k61-knob.csv", dedent("""\
        build,threads,avg_ts,stddev_ts
        cpu-avx2,4,11.2,0.1
        cpu-avx2,8,19.8,0.2
        cpu-avx2,16,23.1,0.3
        cpu-avx512,4,12.0,0.1
        cpu-avx512,8,21.5,0.2
        cpu-avx512,16,26.4,0.2
        """))
    assert len(recs) == 6  # the threads tried are configurations being tuned, each row one run


def test_k62_run_columns_are_repetitions_whose_figure_is_their_mean(tmp_path):
    f, recs = drafts(tmp_path, "k62-runs.md", dedent("""\
        # Decode speed, three runs each, one RTX 4090, 2026-06-03

        | Decode tok/s | Run 1 | Run 2 | Run 3 |
        |---|---|---|---|
        | fp16 | 100.0 | 110.0 | 130.0 |
        | awq | 150.0 | 148.0 | 152.0 |
        """))
    assert [r.title for r in recs] == ["fp16", "awq"]
    assert [value(r) for r in recs] == [113.3, 150.0]  # the mean of the passes, not the last one
    assert [r.metrics["output_throughput"].spread for r in recs] == [15.3, 2.0]
    assert outcomes(recs) == {113.3: "baseline", 150.0: "improved"}
