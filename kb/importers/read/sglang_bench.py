"""SGLang's benchmarks: ``python -m sglang.bench_serving`` (its printed result block and the JSONL
its ``--output-file`` appends to, one object a run), and the one-line summaries of
``bench_one_batch`` and ``bench_offline_throughput``.

A serving block is SGLang's when it has a ``Backend:`` line (vLLM's has none); a saved object when
it has ``input_throughput`` or ``total_output_tokens_retokenized``. Figures and settings are named
as in :mod:`.serving`. ``bench_one_batch`` prints, per batch, ``Prefill. latency: 0.03 s,
throughput: 4096.11 token/s`` and ``Decode. median latency: 0.01 s, median throughput: 95.3
token/s`` lines and a ``Total. latency: ...`` line (``python/sglang/bench_one_batch.py``): one run,
with ``input_throughput`` from the prefill line, ``output_throughput`` from the median decode
line and ``latency`` from the total.

>>> run = read("Decode.  median latency: 0.01049 s, median throughput:     95.33 token/s").runs[0]
>>> run.metrics["output_throughput"].text
'95.33'
"""

from __future__ import annotations

import re

from kb.importers.read import serving
from kb.importers.read.base import NUMBER, Measure, Readout, RunReading

TOOL = "sglang-bench"
SOURCES = {
    **{key: value for key, value in serving.SOURCES.items() if key.startswith("sgl-project")},
    "sgl-project/sglang python/sglang/bench_one_batch.py (prints of prefill, decode and total)": (
        "Prefill. latency", "Decode. median latency", "Total. latency"),
}
"""The documentation of the output this reader knows."""

_ONE_BATCH = re.compile(
    rf"^\s*(Prefill|Decode|Total)\.\s+(?:median\s+)?latency:\s*({NUMBER})\s*s,\s*(?:median\s+)?throughput:\s*({NUMBER})\s*token/s",
    re.I)


def read(text: str) -> Readout:
    """The runs of SGLang's benchmarks in ``text`` (see the module docstring)."""
    out = Readout()
    records = serving.json_records(text)
    if records:
        for record, first, last in records:
            if "input_throughput" in record or "total_output_tokens_retokenized" in record:
                out.runs.append(serving.record_run(TOOL, record, first, last))
        return out
    lines = text.splitlines()
    start = 0
    for block in serving.blocks(lines):
        if not any(label.lower() == "backend" for label, _, _ in block.entries):
            start = block.last
            continue
        run = serving.block_run(TOOL, block, serving.preamble_settings(lines[start:block.first - 1]))
        start = block.last
        if not block.closed:
            out.warnings.append(f"the SGLang result block at line {block.first} is cut off before its closing rule")
        if block.unknown:
            out.warnings.append(f"the SGLang result block at line {block.first} has lines kb does not know: "
                                + ", ".join(block.unknown[:5]))
        out.runs.append(run)
    if not out.runs:
        _one_batch(lines, out)
    return out


def _one_batch(lines: list[str], out: Readout) -> None:
    """``bench_one_batch``: the prefill, median decode and total lines of each batch make one run
    (the last batch's figures: the first batch of the script is a warm-up)."""
    run: RunReading | None = None
    for number_, line in enumerate(lines, 1):
        found = _ONE_BATCH.match(line)
        if not found:
            continue
        stage = found.group(1).lower()
        if run is None or (stage == "prefill" and "input_throughput" in run.metrics):
            run = RunReading(TOOL, lines=(number_, number_))
            out.runs.append(run)
        run.lines = (run.lines[0], number_)
        if stage == "prefill":
            run.metrics["input_throughput"] = Measure(found.group(3).replace(",", ""), "tok/s", line=number_)
            run.metrics["prefill_latency"] = Measure(found.group(2), "s", line=number_)
        elif stage == "decode":
            run.metrics["output_throughput"] = Measure(found.group(3).replace(",", ""), "tok/s", line=number_)
            run.metrics["decode_latency"] = Measure(found.group(2), "s", line=number_)
        else:
            run.metrics["latency"] = Measure(found.group(2), "s", line=number_)
            run.metrics["total_throughput"] = Measure(found.group(3).replace(",", ""), "tok/s", line=number_)
    if len(out.runs) > 1:  # the script's warm-up batch comes first; keep the measured one
        out.runs[:] = out.runs[-1:]
