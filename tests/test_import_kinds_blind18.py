"""Blind variants of the eighteenth and nineteenth rounds (logs and truth files written without reading
the importer, by two helpers who had not seen the fixes; tests/corpus/README.md says what an attempt,
an outcome and a headline are), kept in tests/fixtures/kinds/blind18/ and scored as a small corpus.

Kinds k66 to k70 of tests/test_import_kinds_round12.py: tables in which each cell, or each group of
cells of one configuration, is a separate run (rows of models, precisions or engines; columns of
engines, devices, GPU counts, ``TP1 | TP2``, ``EP=8 | EP=16``; columns pairing a measure with a
configuration, ``Prompt tok/s (base) | Prompt tok/s (patched)``, ``TTFT before (ms) | TTFT after
(ms)``, ``tok/s A | tok/s B``), with failed cells whose error is printed under the table, datasheet
tables, target rows, derived ratio columns, and one control per round whose columns are one
sweep's points.

Round eighteen (10 logs, 92 attempts) on the rules before: P 0.94, R 0.63, metric 0.88, outcome 0.83,
date 0.14; after the first rule (deployment columns, bracketed configurations) P 0.94, R 0.83; then
P 1.00, R 1.00, metric 1.00, outcome 0.84, error line 1.00, date 1.00. Round nineteen (8 logs, 57
attempts), written after those rules and scored once before any change for it: P 1.00, R 0.61,
metric 0.97, outcome 0.83, error line 1.00; after the unbracketed and word-pair configurations,
space-grouped thousands (``6 840``) and quoted error lines: P 1.00, R 0.91, metric 0.88, outcome
0.88. Both rounds together: P 1.00, R 0.97, metric 0.95, outcome 0.92 over 149 attempts; R 1.00 once
a sentence that defines a column's unit (``"throughput" is output tokens per second``) is read.

Each log is read whole (tests/blind_corpus.py); the expected failures below say what goes wrong.
"""

from __future__ import annotations

from blind_corpus import read_whole_test

WRONG = {
    "a100-vllm-prefix-caching-ttft-before-after.md":
        "the TTFT columns are named ttft; the text says its figures are medians and the truth names them "
        "median_ttft",
    "rtx4090-l4-a10g-l40s-qwen25-7b-awq-engine-rows-target-row.md":
        "device columns are compared down each column; the text says each engine's row is compared with its own "
        "RTX 4090 cell",
    "a100-40gb-qwen25-32b-dtypes-tp1-tp2.md":
        "tp1 | tp2 columns are compared down each column (same deployment); the text compares tp2 with tp1 "
        "along each row",
    "h20-qwen25-7b-sglang-bench-one-batch-config-rows-batch-sweep.md":
        "the headline of a row over bs 1 | 8 | 32 is the largest batch's figure; the text names bs=1 as the one "
        "that matters, so one row within 2 % at bs=1 comes out improved",
}

test_blind_log_is_read_whole = read_whole_test("blind18", WRONG)
