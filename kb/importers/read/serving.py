"""The result block and result keys that vLLM's and SGLang's serving benchmarks share.

Both print a block opened by a ``Serving Benchmark Result`` banner of ``=`` and closed by a line
of ``=``, one ``Label: value`` a line, with ``-`` rules heading the latency groups (vLLM's
``vllm/benchmarks/serve.py`` and its ancestor ``benchmarks/benchmark_serving.py``; SGLang's
``python/sglang/bench_serving.py``), and both save the same figures under the same keys
(``mean_ttft_ms``, ``output_throughput``, ...).

Naming: a figure the tools document takes kb's name (``Output token throughput (tok/s)`` →
``output_throughput``, ``Median TTFT (ms)`` → ``median_ttft``, ``Benchmark duration (s)`` →
``duration``); any other ``Label (unit): value`` line the name of its label in snake case
(``Peak output token throughput (tok/s)`` → ``peak_output_token_throughput``); a line without a
unit is a setting named the same way (``Total generated tokens`` → ``total_generated_tokens``),
except the workload's own names (``max_concurrency``, ``request_rate``, ``burstiness``,
``backend``). A saved result keeps every scalar key as a setting under its own name, as JSON writes
it (``null``, ``true``), and its figure keys as metrics.

A block whose banner is glued to a progress bar, or whose lines all carry a comment prefix
(``# ``), is read; latency sections printed without the block (a pasted excerpt) give a run with a
warning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from kb.importers.read import labels
from kb.importers.read.base import Measure, RunReading, number

SOURCES = {
    "vllm-project/vllm vllm/benchmarks/serve.py (print of the result block, keys of the saved result)": (
        "Serving Benchmark Result", "Successful requests", "Failed requests", "Maximum request concurrency",
        "Request rate configured (RPS)", "Benchmark duration (s)", "Total input tokens", "Total generated tokens",
        "Request throughput (req/s)", "Request goodput (req/s)", "Output token throughput (tok/s)",
        "Peak output token throughput (tok/s)", "Peak concurrent requests", "Total Token throughput (tok/s)",
        "Time to First Token", "Time per Output Token (excl. 1st token)", "Inter-token Latency",
        "End-to-end Latency", "Speculative Decoding", "Acceptance rate (%)", "Acceptance length", "Traffic request rate",
        "Burstiness factor", "Starting initial single prompt test run", "max_output_tokens_per_s", "max_concurrent_requests"),
    "sgl-project/sglang python/sglang/bench_serving.py (print of the result block, keys of --output-file)": (
        "Backend", "Max request concurrency", "Max reqeuest concurrency", "Total generated tokens (retokenized)",
        "Input token throughput (tok/s)", "Concurrency", "Accept length", "End-to-End Latency", "Inter-Token Latency",
        "Mean E2E Latency (ms)"),
}
"""Where the labels below are documented: each tool's own print statements (SGLang printed
``reqeuest`` in some releases)."""

_BANNER = re.compile(r"=+\s*Serving Benchmark Result\s*=+\s*$")
_CLOSE = re.compile(r"^\s*={10,}\s*$")
_RULE = re.compile(r"^\s*-{3,}\s*([^-].*?)?\s*-*\s*$")
_LINE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")
_STAT_LABEL = re.compile(r"^(Mean|Average|Median|Std|Max|Min|P\d+(?:\.\d+)?)\s+(TTFT|TPOT|ITL|E2EL|E2E Latency)\s*\((ms|s)\)$", re.I)
_STAT_KEY = re.compile(r"^(mean|median|std|max|min|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_(ms|s)$")
_UNIT_LABEL = re.compile(r"^(.*?)\s*\(([^()]+)\)$")
_SECTIONS = re.compile(r"^\s*-{3,}\s*(Time to First Token|Time per Output Token|Inter-?token Latency|End-to-[Ee]nd Latency|"
                       r"Speculative Decoding)\b", re.I)
_METRIC_WORDS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e_latency", "e2e latency": "e2e_latency",
                 "e2e_latency": "e2e_latency"}
_STAT_WORDS = {"average": "mean"}
_JSON_LINE = re.compile(r'^\s*"([^"]+)"\s*:\s*("(?:[^"\\]|\\.)*"|[-+\w.]+)\s*,?\s*$')

LABELS: dict[str, tuple[str, str | None]] = {
    "maximum request concurrency": ("max_concurrency", None),
    "max request concurrency": ("max_concurrency", None),
    "max reqeuest concurrency": ("max_concurrency", None),
    "request rate configured (rps)": ("request_rate", None),
    "traffic request rate": ("request_rate", None),
    "burstiness factor": ("burstiness", None),
    "backend": ("backend", None),
    "benchmark duration (s)": ("duration", "s"),
    "request throughput (req/s)": ("request_throughput", "req/s"),
    "request goodput (req/s)": ("goodput", "req/s"),
    "input token throughput (tok/s)": ("input_throughput", "tok/s"),
    "output token throughput (tok/s)": ("output_throughput", "tok/s"),
    "total token throughput (tok/s)": ("total_throughput", "tok/s"),
    "accept length": ("acceptance_length", "tokens"),
    "acceptance length": ("acceptance_length", "tokens"),
    "acceptance rate (%)": ("acceptance_rate", "%"),
}
"""Result-block labels (lower case) the tools document → (kb's name, unit); ``None`` makes a setting."""

KEYS: dict[str, tuple[str, str]] = {
    "duration": ("duration", "s"),
    "request_throughput": ("request_throughput", "req/s"),
    "request_goodput": ("goodput", "req/s"),
    "input_throughput": ("input_throughput", "tok/s"),
    "output_throughput": ("output_throughput", "tok/s"),
    "max_output_tokens_per_s": ("peak_output_token_throughput", "tok/s"),
    "total_token_throughput": ("total_throughput", "tok/s"),
    "total_throughput": ("total_throughput", "tok/s"),
    "accept_length": ("acceptance_length", "tokens"),
    "spec_accept_length": ("acceptance_length", "tokens"),
}
"""Saved-result figure keys → (kb's name, unit); ``<stat>_<ttft|tpot|itl|e2el|e2e_latency>_ms`` keys
are named without a table, and a key ending ``_s``/``_ms`` names a time of that unit."""

UNKEPT_KEYS = frozenset({"generated_texts", "errors", "input_lens", "output_lens", "ttfts", "itls", "start_times",
                         "tpots", "e2els", "itl", "percentiles"})
"""Saved-result keys that are no setting of the run (per-request arrays)."""

ARGS = ("backend", "model", "dataset_name", "dataset", "num_prompts", "request_rate", "max_concurrency", "burstiness",
        "random_input_len", "random_output_len", "random_range_ratio", "sharegpt_output_len", "input_len",
        "output_len", "seed", "tokenizer", "endpoint", "port")
"""Arguments of an echoed ``Namespace(...)`` kept as settings: those that define the workload."""

_NAMESPACE_ARG = re.compile(r"(\w+)=('[^']*'|\"[^\"]*\"|[^,()]+)")


def snake(label: str) -> str:
    """A label in snake case: ``Total generated tokens (retokenized)`` → ``total_generated_tokens_retokenized``."""
    return "_".join(re.findall(r"[a-z0-9]+", label.lower()))


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
    ``Burstiness factor: 1.0 (Poisson process)``, ``Maximum request concurrency: 64``, and an echoed
    ``Namespace(...)``."""
    settings = namespace_settings(lines)
    for line in lines:
        found = _LINE.match(line)
        if not found or " ".join(found.group(1).lower().split()) not in LABELS:
            continue
        named = label_figure(found.group(1), found.group(2))
        if named is not None and named[2] is None:
            settings[named[0]] = named[1].split(" (")[0]
    return settings


@dataclass
class Block:
    """One result block: its ``(label, value, line)`` entries, 1-based ``first``/``last`` line,
    whether its closing rule was seen (``closed``), whether a banner opened it (``banner``)."""

    entries: list[tuple[str, str, int]]
    first: int
    last: int
    closed: bool
    banner: bool = True
    prefix: str = ""

    def preamble(self, lines: list[str], start: int) -> list[str]:
        """The lines between ``start`` and this block, without the block's comment prefix."""
        return [line[len(self.prefix):] if self.prefix and line.startswith(self.prefix) else line
                for line in lines[start:self.first - 1]]


def _strip_prefix(lines: list[str], at: int) -> tuple[list[str], str]:
    """The lines from ``at`` with the comment prefix the banner line carries (``# ``) removed."""
    match = re.match(r"^(\s*(?:#|//|>)\s*)=", lines[at])
    prefix = match.group(1) if match else ""
    if not prefix:
        return lines, ""
    return [line[len(prefix):] if line.startswith(prefix) else line for line in lines], prefix


def blocks(lines: list[str]) -> Iterator[Block]:
    """Every ``Serving Benchmark Result`` block in ``lines`` (a block cut off by the end of the
    text or by another banner is yielded with ``closed`` false), then the latency sections printed
    without a block (``banner`` false)."""
    i = 0
    taken: set[int] = set()
    while i < len(lines):
        if not _BANNER.search(lines[i]):
            i += 1
            continue
        body, prefix = _strip_prefix(lines, i)
        first, entries, closed = i + 1, [], False
        i += 1
        while i < len(body):
            line = body[i]
            if _BANNER.search(line):
                break
            if _CLOSE.match(line):
                closed = True
                i += 1
                break
            found = _LINE.match(line)
            if found:
                entries.append((found.group(1), found.group(2), i + 1))
            elif line.strip() and not _RULE.match(line) and not _SECTION_TITLE.match(line):
                break  # the block ended without its rule (a log line followed it)
            i += 1
        last = entries[-1][2] if entries else first
        taken.update(range(first, max(last, i if closed else last) + 1))
        yield Block(entries, first, max(last, i if closed else last), closed, prefix=prefix)
    yield from _loose_sections(lines, taken)


_SECTION_TITLE = re.compile(r"^\s*[A-Z][A-Za-z/()&-]*(?: [A-Za-z/()&-]+){0,5}\s*$")
"""A section's title printed centred without rules (``     Load Balance Metrics     ``), as forks of
the serving benchmarks add sections inside the result block: the block goes on."""
_CUT_BANNER = re.compile(r"={3,}\s*Serving Bench")


def excerpt_warning(block: Block) -> str:
    """What to say of latency figures printed without their result block (a pasted excerpt)."""
    return (f"latency figures at line {block.first} without their 'Serving Benchmark Result' block "
            "(an excerpt?); read as a run of their own")


def cut_banners(lines: list[str]) -> list[int]:
    """The 1-based lines where a result block's banner is cut short (a paste that ends there)."""
    return [n for n, line in enumerate(lines, 1) if _CUT_BANNER.search(line) and not _BANNER.search(line)]


def _loose_sections(lines: list[str], taken: set[int]) -> Iterator[Block]:
    """Latency sections pasted without their block: a section rule or a stat line (``Median TTFT
    (ms): 123``) outside any block, with the result lines of the block's own labels right before
    it (``Output token throughput (tok/s): 91.2``), up to the next blank line that follows a stat
    line."""
    i = 0
    while i < len(lines):
        if i + 1 in taken or not (_SECTIONS.match(lines[i]) or _stat_line(lines[i])):
            i += 1
            continue
        while i > 0 and i not in taken and _result_line(lines[i - 1]):
            i -= 1
        first, entries = i + 1, []
        while i < len(lines) and i + 1 not in taken:
            line = lines[i]
            found = _LINE.match(line)
            if found and (_stat_line(line) or _result_line(line)):
                entries.append((found.group(1), found.group(2), i + 1))
            elif not (_SECTIONS.match(line) or _RULE.match(line)) and (line.strip() or entries):
                break
            i += 1
        if entries:
            yield Block(entries, first, entries[-1][2], False, banner=False)


def _result_line(line: str) -> bool:
    """Whether ``line`` is a figure line of a result block under one of its documented labels."""
    found = _LINE.match(line)
    return bool(found and LABELS.get(" ".join(found.group(1).lower().split()), ("", None))[1] is not None)


def _stat_line(line: str) -> bool:
    found = _LINE.match(line)
    return bool(found and _STAT_LABEL.match(found.group(1).strip()))


def label_figure(label: str, value: str) -> tuple[str, str, str | None] | None:
    """``(name, value, unit)`` of one result line (see the module docstring); ``None`` for a line
    whose value is not a number where a figure is expected."""
    key = " ".join(label.lower().split())
    stat = _STAT_LABEL.match(label.strip())
    if stat:
        name = f"{_STAT_WORDS.get(stat.group(1).lower(), stat.group(1).lower())}_{_METRIC_WORDS[stat.group(2).lower()]}"
        figure = number(value.split()[0]) if value.split() else None
        return (name, figure, stat.group(3).lower()) if figure is not None else None
    if key in LABELS:
        name, unit = LABELS[key]
    else:
        with_unit = _UNIT_LABEL.match(label.strip())
        unit = labels.unit_of(with_unit.group(2)) if with_unit else None
        name = snake(with_unit.group(1)) if with_unit and unit else snake(label)
    if unit is None:
        return name, value.split("  ")[0].strip(), None
    figure = number(value.split()[0]) if value.split() else None
    return (name, figure, unit) if figure is not None else None


def key_figure(key: str, value: object) -> tuple[str, str, str | None] | None:
    """``(name, value, unit)`` of one saved-result key: a figure (``mean_ttft_ms``, ``output_throughput``,
    a key ending ``_s``/``_ms``), or a setting under its own name with the value as JSON writes it;
    ``None`` for an array, an object, or a figure key without a number (``accept_length: null``)."""
    if isinstance(value, (list, dict)) or key in UNKEPT_KEYS:
        return None
    stat = _STAT_KEY.match(key)
    if stat:
        name, unit = f"{stat.group(1)}_{_METRIC_WORDS[stat.group(2)]}", stat.group(3)
    elif key in KEYS:
        name, unit = KEYS[key]
    elif re.fullmatch(r"[a-z][a-z0-9_]*_(ms|s)", key) and isinstance(value, (int, float, str)) and not isinstance(value, bool) \
            and number(str(value)) is not None:
        name, unit = key.rsplit("_", 1)[0], key.rsplit("_", 1)[1]
    else:
        return key, json_text(value), None
    if isinstance(value, bool) or value is None:
        return None
    figure = number(str(value))
    return (name, figure, unit) if figure is not None else None


def json_text(value: object) -> str:
    """A JSON scalar as JSON writes it (``null``, ``true``, ``Infinity``, numbers as written)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return str(value)


def _put(run: RunReading, found: tuple[str, str, str | None] | None, line: int) -> None:
    """Put one read ``(name, value, unit)`` in ``run``: a figure when it has a unit, else a setting."""
    if found is None:
        return
    name, figure, unit = found
    if unit is None:
        run.settings[name] = figure
    else:
        run.metrics[name] = Measure(figure, unit, line=line)


def block_run(tool: str, block: Block, settings: dict[str, str]) -> RunReading:
    """A run from a result block, with ``settings`` read around it (they go first)."""
    run = RunReading(tool, lines=(block.first, block.last), settings=dict(settings))
    for label, value, line in block.entries:
        _put(run, label_figure(label, value), line)
    if run.settings.get("successful_requests") == "0":
        run.failed = True
    return run


def json_records(text: str) -> tuple[list[tuple[dict, int, int]], bool]:
    """The JSON objects of a saved result: one document (an object, or an array of objects) or
    one object a line (JSONL), each with its first and last line; and whether some of it was
    recovered from lines that did not parse whole (a record cut off, pretty-printed and truncated).
    Empty when the text is not JSON."""
    stripped = text.strip().strip("`").strip()
    if stripped.startswith("json"):
        stripped = stripped[4:].strip()
    if not stripped.startswith(("{", "[")):
        return [], False
    try:
        document = json.loads(stripped, parse_float=str, parse_constant=str)
    except ValueError:
        document = None
    if document is not None:
        last = text.rstrip().count("\n") + 1
        items = document if isinstance(document, list) else [document]
        return [(item, 1, last) for item in items if isinstance(item, dict)], False
    found, partial = [], False
    for number_, line in enumerate(text.splitlines(), 1):
        if not line.strip().startswith("{"):
            continue
        try:
            item = json.loads(line, parse_float=str, parse_constant=str)
        except ValueError:
            partial = True
            continue
        if isinstance(item, dict):
            found.append((item, number_, number_))
    if not found:  # a pretty-printed record cut off: its complete "key": value lines
        record: dict = {}
        for line in text.splitlines():
            pair = _JSON_LINE.match(line)
            if pair:
                try:
                    record[pair.group(1)] = json.loads(pair.group(2), parse_float=str, parse_constant=str)
                except ValueError:
                    record[pair.group(1)] = pair.group(2)
        if record:
            return [(record, 1, text.rstrip().count("\n") + 1)], True
    return found, partial


def record_run(tool: str, record: dict, first: int, last: int) -> RunReading:
    """A run from one saved-result object (see :func:`key_figure`)."""
    run = RunReading(tool, lines=(first, last))
    for key, value in record.items():
        _put(run, key_figure(key, value), first)
    if run.settings.get("completed") == "0":
        run.failed = True
    return run
