"""Variants of our own (written with the fix), kinds k57 and k58.

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
    assert recs and all("tiny" in r.title or "large-v3" in r.title for r in recs)
    assert sorted({r.metrics["latency"].unit for r in recs}) == ["ms", "s"]


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
