"""The result block and result keys that vLLM's and SGLang's serving benchmarks share.

Both print a block opened by a ``Serving Benchmark Result`` banner of ``=`` and closed by a line
of ``=``, one ``Label: value`` a line, with ``-`` rules heading the latency groups (vLLM's
``vllm/benchmarks/serve.py`` and its ancestor ``benchmarks/benchmark_serving.py``; SGLang's
``python/sglang/bench_serving.py``), and both save the same figures under the same keys
(``mean_ttft_ms``, ``output_throughput``, ...). :func:`blocks` finds the blocks,
:func:`label_figure` and :func:`key_figure` name what one line or key holds; the tool readers
(:mod:`.vllm_bench`, :mod:`.sglang_bench`) decide which tool printed them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from kb.importers.read.base import Measure, RunReading, number

SOURCES = {
    "vllm-project/vllm vllm/benchmarks/serve.py (print of the result block, keys of the saved result)": (
        "Serving Benchmark Result", "Successful requests", "Failed requests", "Maximum request concurrency",
        "Request rate configured (RPS)", "Benchmark duration (s)", "Total input tokens", "Total generated tokens",
        "Request throughput (req/s)", "Request goodput (req/s)", "Output token throughput (tok/s)",
        "Peak output token throughput (tok/s)", "Peak concurrent requests", "Total Token throughput (tok/s)",
        "Time to First Token", "Time per Output Token (excl. 1st token)", "Inter-token Latency",
        "End-to-end Latency", "Speculative Decoding", "Acceptance rate (%)", "Acceptance length", "Traffic request rate",
        "Burstiness factor", "Starting initial single prompt test run"),
    "sgl-project/sglang python/sglang/bench_serving.py (print of the result block, keys of --output-file)": (
        "Backend", "Max request concurrency", "Total generated tokens (retokenized)", "Input token throughput (tok/s)",
        "Concurrency", "Accept length", "End-to-End Latency", "Inter-Token Latency", "Mean E2E Latency (ms)"),
}
"""Where the labels below are documented: each tool's own print statements."""

_BANNER = re.compile(r"^\s*=+\s*Serving Benchmark Result\s*=+\s*$")
_CLOSE = re.compile(r"^\s*={10,}\s*$")
_RULE = re.compile(r"^\s*-{3,}\s*([^-].*?)?\s*-*\s*$")
_LINE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")
_STAT_LABEL = re.compile(r"^(Mean|Median|Std|Max|Min|P\d+(?:\.\d+)?)\s+(TTFT|TPOT|ITL|E2EL|E2E Latency)\s*\((ms|s)\)$", re.I)
_STAT_KEY = re.compile(r"^(mean|median|std|max|min|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_(ms|s)$")
_METRIC_WORDS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e_latency", "e2e latency": "e2e_latency",
                 "e2e_latency": "e2e_latency"}

LABELS: dict[str, tuple[str, str | None]] = {
    "successful requests": ("successful_requests", None),
    "failed requests": ("failed_requests", None),
    "maximum request concurrency": ("max_concurrency", None),
    "max request concurrency": ("max_concurrency", None),
    "request rate configured (rps)": ("request_rate", None),
    "traffic request rate": ("request_rate", None),
    "burstiness factor": ("burstiness", None),
    "backend": ("backend", None),
    "benchmark duration (s)": ("duration", "s"),
    "total input tokens": ("total_input_tokens", None),
    "total generated tokens": ("total_output_tokens", None),
    "total generated tokens (retokenized)": ("total_output_tokens_retokenized", None),
    "request throughput (req/s)": ("request_throughput", "req/s"),
    "request goodput (req/s)": ("goodput", "req/s"),
    "input token throughput (tok/s)": ("input_throughput", "tok/s"),
    "output token throughput (tok/s)": ("output_throughput", "tok/s"),
    "peak output token throughput (tok/s)": ("peak_output_throughput", "tok/s"),
    "peak concurrent requests": ("peak_concurrent_requests", None),
    "total token throughput (tok/s)": ("total_throughput", "tok/s"),
    "concurrency": ("concurrency", None),
    "accept length": ("acceptance_length", "tokens"),
    "acceptance length": ("acceptance_length", "tokens"),
    "acceptance rate (%)": ("acceptance_rate", "%"),
    "drafts": ("drafts", None),
    "draft tokens": ("draft_tokens", None),
    "accepted tokens": ("accepted_tokens", None),
}
"""Result-block labels (lower case) → (name, unit); a ``None`` unit makes the value a setting."""

KEYS: dict[str, tuple[str, str | None]] = {
    "completed": ("successful_requests", None),
    "failed": ("failed_requests", None),
    "num_prompts": ("num_prompts", None),
    "request_rate": ("request_rate", None),
    "burstiness": ("burstiness", None),
    "max_concurrency": ("max_concurrency", None),
    "backend": ("backend", None),
    "model_id": ("model", None),
    "model": ("model", None),
    "dataset_name": ("dataset_name", None),
    "random_input_len": ("random_input_len", None),
    "random_output_len": ("random_output_len", None),
    "random_range_ratio": ("random_range_ratio", None),
    "sharegpt_output_len": ("sharegpt_output_len", None),
    "total_input_tokens": ("total_input_tokens", None),
    "total_input": ("total_input_tokens", None),
    "total_output_tokens": ("total_output_tokens", None),
    "total_output": ("total_output_tokens", None),
    "total_output_tokens_retokenized": ("total_output_tokens_retokenized", None),
    "duration": ("duration", "s"),
    "request_throughput": ("request_throughput", "req/s"),
    "request_goodput": ("goodput", "req/s"),
    "input_throughput": ("input_throughput", "tok/s"),
    "output_throughput": ("output_throughput", "tok/s"),
    "max_output_tokens_per_s": ("peak_output_throughput", "tok/s"),
    "total_token_throughput": ("total_throughput", "tok/s"),
    "total_throughput": ("total_throughput", "tok/s"),
    "concurrency": ("concurrency", None),
    "accept_length": ("acceptance_length", "tokens"),
    "spec_accept_length": ("acceptance_length", "tokens"),
}
"""Saved-result keys → (name, unit); ``<stat>_<ttft|tpot|itl|e2el|e2e_latency>_ms`` keys are
named by :func:`key_figure` without a table."""


UNKEPT_KEYS = frozenset({"date", "tokenizer_id", "endpoint_type", "label", "generated_texts", "errors", "input_lens",
                         "output_lens", "ttfts", "itls", "start_times", "tpots", "e2els"})
"""Saved-result keys that are no setting of the run (per-request arrays, the date, which the
caller reads, and identifiers)."""

ARGS = ("backend", "model", "dataset_name", "dataset", "num_prompts", "request_rate", "max_concurrency", "burstiness",
        "random_input_len", "random_output_len", "random_range_ratio", "sharegpt_output_len", "input_len",
        "output_len", "seed", "tokenizer", "endpoint", "port")
"""Arguments of an echoed ``Namespace(...)`` kept as settings: those that define the workload."""

_NAMESPACE_ARG = re.compile(r"(\w+)=('[^']*'|\"[^\"]*\"|[^,()]+)")


def namespace_settings(lines: list[str]) -> dict[str, str]:
    """The workload arguments of a ``Namespace(backend='vllm', num_prompts=1000, ...)`` line, as
    both benchmark scripts print their parsed arguments before running (``None`` values left out)."""
    settings: dict[str, str] = {}
    for line in lines:
        start = line.find("Namespace(")
        if start < 0:
            continue
        for key, value in _NAMESPACE_ARG.findall(line[start + len("Namespace("):]):
            value = value.strip().strip("'\"")
            if key in ARGS and value not in ("None", ""):
                settings[key] = value
    return settings


def preamble_settings(lines: list[str]) -> dict[str, str]:
    """Settings the scripts print before the result block: ``Traffic request rate: inf``,
    ``Burstiness factor: 1.0 (Poisson process)``, ``Maximum request concurrency: 64`` (``None``
    when unset is left out), and an echoed ``Namespace(...)``."""
    settings = namespace_settings(lines)
    for line in lines:
        found = _LINE.match(line)
        if not found:
            continue
        named = label_figure(found.group(1), found.group(2))
        if named is not None and named[2] is None and named[1] not in ("None", "not set"):
            settings[named[0]] = named[1].split(" (")[0]
    return settings


@dataclass
class Block:
    """One result block: its ``(label, value, line)`` entries, 1-based ``first``/``last`` line,
    whether its closing rule was seen (``closed``), and the labels it did not know."""

    entries: list[tuple[str, str, int]]
    first: int
    last: int
    closed: bool
    unknown: list[str]


def blocks(lines: list[str]) -> Iterator[Block]:
    """Every ``Serving Benchmark Result`` block in ``lines`` (a block cut off by the end of the
    text or by another banner is yielded with ``closed`` false)."""
    i = 0
    while i < len(lines):
        if not _BANNER.match(lines[i]):
            i += 1
            continue
        first, entries, unknown = i + 1, [], []
        closed = False
        i += 1
        while i < len(lines):
            line = lines[i]
            if _BANNER.match(line):
                break
            if _CLOSE.match(line):
                closed = True
                i += 1
                break
            found = _LINE.match(line)
            if found:
                entries.append((found.group(1), found.group(2), i + 1))
                if label_figure(found.group(1), found.group(2)) is None:
                    unknown.append(found.group(1))
            elif line.strip() and not _RULE.match(line):
                break  # the block ended without its rule (a log line followed it)
            i += 1
        last = entries[-1][2] if entries else first
        yield Block(entries, first, max(last, i if closed else last), closed, unknown)


def label_figure(label: str, value: str) -> tuple[str, str, str | None] | None:
    """``(name, value, unit)`` of one result line: ``Output token throughput (tok/s)`` →
    ``("output_throughput", "2156.98", "tok/s")``, ``Median TTFT (ms)`` → ``median_ttft``; a
    setting (``Successful requests: 1000``) has unit ``None``. ``None`` for a label no tool prints."""
    key = " ".join(label.lower().split())
    stat = _STAT_LABEL.match(label.strip())
    if stat:
        name = f"{stat.group(1).lower()}_{_METRIC_WORDS[stat.group(2).lower()]}"
        figure = number(value.split()[0]) if value.split() else None
        return (name, figure, stat.group(3).lower()) if figure is not None else None
    if key not in LABELS:
        return None
    name, unit = LABELS[key]
    if unit is None:
        return name, value.split("  ")[0].strip(), None
    figure = number(value.split()[0]) if value.split() else None
    return (name, figure, unit) if figure is not None else None


def key_figure(key: str, value: object) -> tuple[str, str, str | None] | None:
    """``(name, value, unit)`` of one saved-result key (see :data:`KEYS`); ``None`` for a key
    that is neither a figure nor a setting kb keeps, or a value of the wrong shape."""
    stat = _STAT_KEY.match(key)
    if stat:
        name, unit = f"{stat.group(1)}_{_METRIC_WORDS[stat.group(2)]}", stat.group(3)
    elif key in KEYS:
        name, unit = KEYS[key]
    else:
        return None
    if unit is None:
        if isinstance(value, (list, dict)) or value is None:
            return None
        return name, str(value), None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    figure = number(str(value))
    return (name, figure, unit) if figure is not None else None


def block_run(tool: str, block: Block, settings: dict[str, str]) -> RunReading:
    """A run from a result block, with ``settings`` read around it (they go first)."""
    run = RunReading(tool, lines=(block.first, block.last), settings=dict(settings))
    for label, value, line in block.entries:
        found = label_figure(label, value)
        if found is None:
            continue
        name, figure, unit = found
        if unit is None:
            run.settings[name] = figure
        else:
            run.metrics[name] = Measure(figure, unit, line=line)
    if run.settings.get("successful_requests") == "0":
        run.failed = True
    return run


def json_records(text: str) -> list[tuple[dict, int, int]]:
    """The JSON objects of a saved result: one document (an object, or an array of objects) or
    one object a line (JSONL), each with its first and last line. Empty when the text is not JSON."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return []
    try:
        document = json.loads(stripped, parse_float=str, parse_constant=str)
    except ValueError:
        document = None
    if document is not None:
        last = text.rstrip().count("\n") + 1
        items = document if isinstance(document, list) else [document]
        return [(item, 1, last) for item in items if isinstance(item, dict)]
    found = []
    for number_, line in enumerate(text.splitlines(), 1):
        if not line.strip().startswith("{"):
            continue
        try:
            item = json.loads(line, parse_float=str, parse_constant=str)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.append((item, number_, number_))
    return found


def record_run(tool: str, record: dict, first: int, last: int) -> RunReading:
    """A run from one saved-result object: every key :func:`key_figure` knows, plus the
    ``--metadata`` pairs vLLM saves as top-level keys (kept as settings when they are scalars
    and not one of the result's own arrays)."""
    run = RunReading(tool, lines=(first, last))
    for key, value in record.items():
        found = key_figure(key, value)
        if found is None:
            if key not in UNKEPT_KEYS and isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
                run.settings[key] = str(value)  # a --metadata pair, or a setting of a newer version
            continue
        name, figure, unit = found
        if unit is None:
            run.settings[name] = figure
        else:
            run.metrics[name] = Measure(figure, unit, line=first)
    if run.settings.get("successful_requests") == "0":
        run.failed = True
    return run
