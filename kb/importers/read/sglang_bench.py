"""SGLang's benchmarks: ``python -m sglang.bench_serving`` (its printed result block and the JSONL
its ``--output-file`` appends to, one object a run), and the one-line summaries of
``bench_one_batch`` and ``bench_offline_throughput``.

A serving block is SGLang's when it has a ``Backend:`` line (vLLM's has none); a saved object when
it has ``input_throughput`` or ``total_output_tokens_retokenized``. Figures and settings are named
as in :mod:`.serving`. ``bench_one_batch`` prints, per batch, ``Prefill. latency: 0.03 s,
throughput: 4096.11 token/s`` and ``Decode. median latency: 0.01 s, median throughput: 95.3
token/s`` lines and a ``Total. latency: ...`` line (``python/sglang/bench_one_batch.py``; its
predecessor ``bench_latency`` also prints one ``Decode. latency`` line a step, and its first
version labels the latency ``ms``): one run a pass, with ``input_throughput`` from the prefill
line, ``output_throughput`` from the median decode line and ``latency`` from the total; step lines
are detail, and a ``nan`` figure (no decode step) is warned about.

>>> run = read("Decode.  median latency: 0.01049 s, median throughput:     95.33 token/s").runs[0]
>>> run.metrics["output_throughput"].text
'95.33'
"""

from __future__ import annotations

import ast
import re

from kb.importers.read import serving
from kb.importers.read.base import NUMBER, Measure, Readout, RunReading, number

TOOL = "sglang-bench"
SOURCES = {
    **{key: value for key, value in serving.SOURCES.items() if key.startswith("sgl-project")},
    "sgl-project/sglang python/sglang/bench_one_batch.py (prints of prefill, decode and total)": (
        "Prefill. latency", "Decode. median latency", "Total. latency"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("serving benchmark result", "ttft", "tpot", "itl", "e2e", "output_throughput", "input_throughput", "throughput", "latency")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_ONE_BATCH = re.compile(
    rf"^\s*(Prefill|Decode|Total)\.\s+(median\s+)?latency:\s*({NUMBER}|nan)\s*(s|ms),\s*(?:median\s+)?"
    rf"throughput:\s*({NUMBER}|nan)\s*token/s", re.I)


def read(text: str) -> Readout:
    """The runs of SGLang's benchmarks in ``text`` (see the module docstring)."""
    out = Readout()
    records, partial = serving.json_records(text)
    if records:
        for record, first, last in records:
            if "input_throughput" in record or "total_output_tokens_retokenized" in record or "dataset_name" in record:
                out.runs.append(serving.record_run(TOOL, record, first, last))
        if partial and out.runs:
            out.warnings.append("an SGLang --output-file record is cut off; only its complete lines were read")
        return out
    lines = text.splitlines()
    offline = Readout()
    _offline(lines, offline)
    taken = {n for run in offline.runs for n in range(run.lines[0], run.lines[1] + 1)}
    start = 0
    for block in serving.blocks(lines):
        if block.banner and not any(label.lower() == "backend" for label, _, _ in block.entries):
            start = block.last
            continue  # vLLM's block
        if not block.banner and block.first in taken:
            continue  # lines of an offline result block
        settings = serving.preamble_settings(block.preamble(lines, start)) if block.banner else {}
        run = serving.block_run(TOOL, block, settings)
        start = block.last
        if not block.banner:
            out.warnings.append(serving.excerpt_warning(block))
        elif not block.closed:
            out.warnings.append(f"the SGLang result block at line {block.first} is cut off before its closing rule")
        out.runs.append(run)
    for line in serving.cut_banners(lines):
        out.warnings.append(f"a result block's banner at line {line} is cut short; what followed it is missing")
    if not out.runs:
        _one_batch(lines, out)
    out.extend(offline)
    out.runs.sort(key=lambda run: run.lines)
    return out


_CODE_SPAN = re.compile(r"`([^`]+)`")
_PHASE = re.compile(r"^\s*(Warmup|Benchmark)\s*\.\.\.\s*$", re.I)
_BATCH = re.compile(r"Batch size:\s*(\d+)")
_OFFLINE_BANNER = re.compile(r"=+\s*Offline Throughput Benchmark Result\s*=+")
_OLD_THROUGHPUT = re.compile(rf"^\s*Throughput:\s*({NUMBER})\s*tokens/s\s*$")
_DICT = re.compile(r"^\s*\{.*\}\s*$")


def _one_batch(lines: list[str], out: Readout) -> None:
    """``bench_one_batch``: each pass (``Warmup ...``, ``Benchmark ...``, else each Prefill line)
    is a run: ``input_throughput`` and ``prefill_latency`` from its prefill line,
    ``output_throughput`` and ``median_decode_latency`` from its median decode line, ``total_latency``
    and ``total_throughput`` from its total line; settings ``phase`` and ``batch_size``. A warm-up
    pass is marked ``role: warmup``."""
    run: RunReading | None = None
    phase: str | None = None
    for number_, line in enumerate(lines, 1):
        started = _PHASE.match(line)
        if started:
            phase = started.group(1).capitalize()
            run = None
            continue
        batch = _BATCH.search(line)
        if batch and run is not None:
            run.settings.setdefault("batch_size", batch.group(1))
        found = next(filter(None, (_ONE_BATCH.match(part) for part in [line, *_CODE_SPAN.findall(line)])), None)
        if not found:
            continue
        stage = found.group(1).lower()
        if stage == "decode" and not found.group(2):
            continue  # one decode step: detail of the pass, not its figure
        if number(found.group(3)) is None or number(found.group(5)) is None:
            out.warnings.append(f"the bench_one_batch {stage} line at line {number_} prints no figure (nan)")
            continue
        if run is None or (stage == "prefill" and "input_throughput" in run.metrics):
            run = RunReading(TOOL, lines=(number_, number_), settings={"phase": phase} if phase else {},
                             role="warmup" if phase == "Warmup" else None)
            out.runs.append(run)
        run.lines = (run.lines[0], number_)
        latency, unit, rate = found.group(3), found.group(4).lower(), found.group(5).replace(",", "")
        if stage == "prefill":
            run.metrics["input_throughput"] = Measure(rate, "tok/s", line=number_)
            run.metrics["prefill_latency"] = Measure(latency, unit, line=number_)
        elif stage == "decode":
            run.metrics["output_throughput"] = Measure(rate, "tok/s", line=number_)
            run.metrics["median_decode_latency"] = Measure(latency, unit, line=number_)
        else:
            run.metrics["total_latency"] = Measure(latency, unit, line=number_)
            run.metrics["total_throughput"] = Measure(rate, "tok/s", line=number_)


def _offline(lines: list[str], out: Readout) -> None:
    """``bench_offline_throughput``: its ``Offline Throughput Benchmark Result`` block (labels as in
    :mod:`.serving`), or, before that block existed, a ``Throughput: N tokens/s`` line (input and
    output tokens over the whole run: ``total_throughput``) and the result dict it printed
    (``total_latency`` → ``duration``; the other scalars are settings)."""
    for number_, line in enumerate(lines, 1):
        if _OFFLINE_BANNER.search(line):
            entries = []
            for later, text in enumerate(lines[number_:], number_ + 1):
                found = serving._LINE.match(text)
                if found:
                    entries.append((found.group(1), found.group(2), later))
                elif text.strip() and not serving._CLOSE.match(text):
                    break
                if serving._CLOSE.match(text):
                    break
            block = serving.Block(entries, number_, entries[-1][2] if entries else number_, True)
            out.runs.append(serving.block_run(TOOL, block, {}))
            continue
        found = _OLD_THROUGHPUT.match(line)
        if not found:
            continue
        run = RunReading(TOOL, lines=(number_, number_))
        run.metrics["total_throughput"] = Measure(found.group(1), "tok/s", line=number_)
        following = lines[number_] if number_ < len(lines) else ""
        if _DICT.match(following):
            try:
                values = ast.literal_eval(following.strip())
            except (ValueError, SyntaxError):
                values = {}
            if isinstance(values, dict):
                run.lines = (number_, number_ + 1)
                for key, value in values.items():
                    if key == "total_latency" and number(str(value)) is not None:
                        run.metrics["duration"] = Measure(number(str(value)) or "", "s", line=number_ + 1)
                    elif key != "throughput" and not isinstance(value, (dict, list)):
                        run.settings[str(key)] = str(value)
        out.runs.append(run)
