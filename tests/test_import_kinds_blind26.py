"""Blind variants of k94 (a line that opens with its date) and k95 (per-device lines are one run's
output), written by a helper who had not seen either fix: dates opening a line in three styles, and
run outputs with ``cuda:0``/``cuda:1``, ``GPU 0``/``GPU 1`` and ``rank0``/``rank1`` lines. 3 logs, 9
attempts, kept in tests/fixtures/kinds/blind26/.

First look at b25d049, nothing tuned on them: P 1.00, R 0.78, metric 0.67, outcome 0.57, error line
1.00, date 1.00. The dates hold; the device lines only partly. Each log is read whole
(tests/blind_corpus.py); those still wrong are strict expected failures, for the reasons below.
"""

from __future__ import annotations

from blind_corpus import read_whole_test

WRONG = {
    "h100x2-qwen25-72b-sglang-tp2-device-lines.md":
        "the run with `cuda:0`/`cuda:1` lines loses its throughput (its draft holds only the devices' memory, "
        "as passes run=1/run=2), so the next run is the baseline",
    "l40s-mistral-7b-trtllm-quoted-date.md":
        "the run with `rank0`/`rank1` lines loses its throughput (utilization and memory only), and the two "
        "runs printed in `token/sec` are missed (1 of 3 drafted)",
}

test_blind_log_is_read_whole = read_whole_test("blind26", WRONG)
