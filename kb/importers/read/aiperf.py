"""NVIDIA aiperf and its predecessor genai-perf: the console table, the JSON export
(``profile_export_aiperf.json``, ``profile_export_genai_perf.json``) and the CSV export.

Facts (ai-dynamo/aiperf ``docs/`` and triton-inference-server/perf_analyzer ``genai-perf/README.md``):
the console prints a rich table titled ``NVIDIA AIPerf | LLM Metrics`` (``NVIDIA GenAI-Perf | LLM
Metrics``) whose first column is the metric with its unit (``Time to First Token (ms)``,
``Output Token Throughput (tokens/sec)``, genai-perf's ``(per sec)``) and whose other columns are
statistics (``avg``, ``min``, ``max``, ``p99``, ``p90``, ``p75``, ``p50``, ``std``); a long label
wraps onto a second row with empty cells. The JSON export holds one object per metric, ``{"unit":
"ms", "avg": ..., "p99": ...}``, keyed ``time_to_first_token``, ``inter_token_latency``,
``request_latency``, ``output_token_throughput``, ``request_throughput``, ...; the CSV export
has a ``Metric,avg,min,...`` table and a ``Metric,Value`` table.

One run per table or export: a latency is kept per statistic (``mean_ttft`` from ``avg``,
``p99_ttft``, ...); a throughput, which has only ``avg``, under its plain name
(``output_throughput``, ``request_throughput``, ``per_user_output_throughput``); sequence lengths
and request counts are settings (their ``avg``), as are the ``input_config`` values the JSON keeps
(model, concurrency, request rate, endpoint type).

>>> run = read('{"request_throughput": {"unit": "requests/sec", "avg": 1.99}, '
...            '"time_to_first_token": {"unit": "ms", "avg": 16.26, "p99": 17.09}}').runs[0]
>>> run.metrics["request_throughput"].text, run.metrics["p99_ttft"].text
('1.99', '17.09')
"""

from __future__ import annotations

import csv
import io
import json
import re

from kb.importers.read.base import Measure, Readout, RunReading, number

TOOL = "aiperf"
SOURCES = {
    "ai-dynamo/aiperf docs and triton-inference-server/perf_analyzer genai-perf/README.md (console, JSON, CSV exports)": (
        "NVIDIA AIPerf | LLM Metrics", "NVIDIA GenAI-Perf | LLM Metrics", "Time to First Token", "Time to Second Token",
        "Inter Token Latency", "Request Latency", "Output Token Throughput", "Output Token Throughput Per User",
        "Request Throughput", "Output Sequence Length", "Input Sequence Length", "Request Count"),
}
"""The documentation of the output this reader knows."""

METRICS: dict[str, tuple[str, str]] = {
    "time to first token": ("ttft", "latency"),
    "time to second token": ("ttst", "latency"),
    "inter token latency": ("itl", "latency"),
    "request latency": ("e2e_latency", "latency"),
    "output token throughput": ("output_throughput", "tok/s"),
    "output token throughput per user": ("per_user_output_throughput", "tok/s"),
    "output token throughput per request": ("per_user_output_throughput", "tok/s"),
    "request throughput": ("request_throughput", "req/s"),
    "goodput": ("goodput", "req/s"),
    "output sequence length": ("output_sequence_length", "setting"),
    "input sequence length": ("input_sequence_length", "setting"),
    "request count": ("request_count", "setting"),
}
"""Metric labels and JSON keys (lower case, ``_`` as space, units dropped) → (name, kind):
``latency`` takes its unit from the label or the export, a unit is fixed, ``setting`` is a setting."""

_TITLE = re.compile(r"NVIDIA (?:AIPerf|GenAI-Perf)\s*\|")
_UNIT = re.compile(r"\(([^)]*)\)\s*$")
_STATS = {"avg": "mean", "mean": "mean", "min": "min", "max": "max", "std": "std", "median": "median"}
_CONFIG_KEYS = {"model": "model", "concurrency": "concurrency", "request_rate": "request_rate",
                "endpoint_type": "endpoint_type", "streaming": "streaming", "num_prompts": "num_prompts",
                "request_count": "request_count", "synthetic_input_tokens_mean": "input_len",
                "output_tokens_mean": "output_len"}


def read(text: str) -> Readout:
    """The runs of aiperf or genai-perf in ``text`` (see the module docstring)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _json(text)
    if stripped.startswith("Metric,"):
        return _csv(text)
    return _console(text)


def _metric(label: str) -> tuple[str, str, str | None] | None:
    """``(name, kind, unit)`` of a label such as ``Time to First Token (ms)``."""
    unit = _UNIT.search(label)
    base = _UNIT.sub("", label).replace("_", " ").strip().lower()
    base = " ".join(base.split())
    if base not in METRICS:
        return None
    name, kind = METRICS[base]
    return name, kind, unit.group(1).strip() if unit else None


def _unit(kind: str, printed: str | None) -> str | None:
    if kind != "latency":
        return kind if kind != "setting" else None
    spelled = (printed or "ms").lower()
    return {"ms": "ms", "s": "s", "sec": "s", "us": "us", "ns": None}.get(spelled, None)


def _add(run: RunReading, label: str, stats: dict[str, str], line: int) -> bool:
    found = _metric(label)
    if found is None:
        return False
    name, kind, printed = found
    unit = _unit(kind, printed)
    values = {stat: number(value) for stat, value in stats.items() if number(value) is not None}
    if not values:
        return True
    if kind == "setting":
        run.settings[name] = values.get("avg") or next(iter(values.values()))
        return True
    if unit is None:
        return False
    if kind != "latency":
        value = values.get("avg") or values.get("value") or next(iter(values.values()))
        run.metrics[name] = Measure(value, unit, line=line)
        return True
    for stat, value in values.items():
        prefix = _STATS.get(stat, stat)
        run.metrics[f"{prefix}_{name}"] = Measure(value, unit, line=line)
    return True


def _console(text: str) -> Readout:
    out = Readout()
    lines = text.splitlines()
    run: RunReading | None = None
    header: list[str] = []
    pending: tuple[str, dict[str, str], int] | None = None
    unknown: list[str] = []

    def flush() -> None:
        nonlocal pending
        if pending is not None and run is not None and not _add(run, *pending):
            unknown.append(pending[0])
        pending = None

    for number_, raw in enumerate(lines, 1):
        if _TITLE.search(raw):
            flush()
            run = RunReading(TOOL, lines=(number_, number_))
            out.runs.append(run)
            header = []
            continue
        if run is None:
            continue
        cells = [cell.strip() for cell in re.split(r"[│┃|]", raw)]
        if len(cells) < 3:
            continue
        cells = cells[1:-1] if raw.strip()[:1] in "│┃|" else cells
        if not header:
            header = [cell.lower() for cell in cells]
            continue
        label, values = cells[0], cells[1:]
        if not any(values):  # the wrapped end of the previous row's label
            if pending is not None:
                pending = (f"{pending[0]} {label}", pending[1], pending[2])
            continue
        flush()
        pending = (label, dict(zip(header[1:], values)), number_)
        run.lines = (run.lines[0], number_)
    flush()
    if unknown:
        out.warnings.append("the aiperf/genai-perf table has rows kb does not know: " + ", ".join(unknown[:5]))
    out.runs = [run for run in out.runs if run.metrics]
    return out


def _json(text: str) -> Readout:
    out = Readout()
    try:
        document = json.loads(text, parse_float=str)
    except ValueError:
        return out
    if not isinstance(document, dict):
        return out
    metrics = document.get("records") if isinstance(document.get("records"), dict) else document
    run = RunReading(TOOL, lines=(1, text.rstrip().count("\n") + 1))
    for key, value in metrics.items():
        if isinstance(value, dict) and ("avg" in value or "unit" in value):
            unit = value.get("unit")
            label = f"{key} ({unit})" if isinstance(unit, str) else key
            _add(run, label, {k: str(v) for k, v in value.items() if k != "unit" and not isinstance(v, (dict, list))}, 1)
    config = document.get("input_config")
    if isinstance(config, dict):
        for key, value in config.items():
            if key in _CONFIG_KEYS and not isinstance(value, dict):
                run.settings[_CONFIG_KEYS[key]] = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    if run.metrics:
        out.runs.append(run)
    return out


def _csv(text: str) -> Readout:
    out = Readout()
    run = RunReading(TOOL, lines=(1, text.rstrip().count("\n") + 1))
    header: list[str] = []
    for number_, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not any(cell.strip() for cell in row):
            header = []
            continue
        if row[0].strip() == "Metric":
            header = [cell.strip().lower() for cell in row]
            continue
        if header:
            _add(run, row[0].strip(), dict(zip(header[1:], (cell.strip() for cell in row[1:]))), number_)
    if run.metrics:
        out.runs.append(run)
    return out
