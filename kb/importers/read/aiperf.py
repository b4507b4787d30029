"""NVIDIA AIPerf and its predecessor GenAI-Perf: the console tables, the JSON export
(``profile_export_aiperf.json``, ``profile_export_genai_perf.json``, the timeslices export) and the
CSV export.

Facts (ai-dynamo/aiperf ``docs/`` and ``aiperf/metrics``, triton-inference-server/perf_analyzer
``genai-perf/README.md`` and ``genai_perf/export_data``): the console prints a rich table (title
``NVIDIA AIPerf | LLM Metrics``, ``NVIDIA GenAI-Perf | LLM Metrics``, early builds just ``LLM
Metrics``; also ``Embeddings Metrics``, ``Image Generation Metrics``, and ``GPU Telemetry Summary``
tables captioned ``host:port | GPU N | NAME``) whose first column, ``Metric`` or ``Statistic``, is
the metric with its unit (``Time to First Token (ms)``; early builds print ns and ``Num output
token`` rows) and whose other columns are statistics (``avg``, ``min``, ``max``, ``p1`` ...
``p99``, ``std``); a long label wraps onto a second row with empty cells; single-value metrics
(throughputs, counts) print ``N/A`` in the other columns, or sit on ``Label (per sec): value``
lines under the table in early builds. The JSON export holds one object per metric, ``{"unit":
"ms", "avg": ..., "p99": ...}`` (early AIPerf nests them under ``records`` with a ``tag``), beside
``input_config``; the CSV export has a ``Metric,avg,min,...`` section, a ``Metric,Value`` section
and, for telemetry, identity columns (``Endpoint,GPU_Index,...``) before ``Metric``; the timeslices
CSV is long: ``Timeslice,Metric,Unit,Stat,Value``.

One run per table or export (per timeslice, per GPU for telemetry). A metric with statistics is
kept per statistic, ``{stat}_{name}`` (``avg`` → ``mean``: ``mean_ttft``, ``p99_e2e_latency``), in
its own unit (ns → ms, tokens/sec → tok/s, requests/sec → req/s; W, MHz and the like as printed);
a single-value rate or duration under its plain name (``output_throughput``, ``duration``); any
other single value (counts, timestamps, totals) is a setting, as printed, as is every scalar of
``input_config``. Names are :data:`NAMES` or the label in snake case.

Warnings: a table without its bottom border (cut off), rows whose statistics have no header, an
export that is not valid JSON, elided (``...``) rows, a run that ended in a traceback.

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
from decimal import Decimal
from typing import Any

from kb.importers.read.base import Measure, Readout, RunReading, number

TOOL = "aiperf"
SOURCES = {
    "ai-dynamo/aiperf docs and aiperf/metrics (console tables, JSON and CSV exports, telemetry)": (
        "NVIDIA AIPerf", "LLM Metrics", "GPU Telemetry Summary", "Time to First Token", "Time to Second Token",
        "Inter Token Latency", "Request Latency", "Output Token Throughput", "Output Token Throughput Per User",
        "Request Throughput", "Output Sequence Length", "Input Sequence Length", "Request Count", "Goodput",
        "Benchmark Duration", "Timeslice", "DCGM endpoints reachable"),
    "triton-inference-server/perf_analyzer genai-perf/README.md and genai_perf/export_data (GenAI-Perf)": (
        "NVIDIA GenAI-Perf", "Statistic", "Num output token", "Num input token", "Request goodput", "(per sec)"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("metrics", "summary", "metric", "traceback", "\"unit\"", "timeslice", "│", "┃")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

NAMES: dict[str, str] = {
    "ttft": "ttft", "time to first token": "ttft",
    "ttst": "time_to_second_token",
    "itl": "itl", "inter token latency": "itl",
    "request latency": "e2e_latency",
    "output token throughput": "output_throughput",
    "output token throughput per user": "per_user_output_throughput",
    "output token throughput per request": "per_user_output_throughput",
    "total token throughput": "total_throughput",
    "request goodput": "goodput",
    "benchmark duration": "duration",
    "num output token": "output_sequence_length",
    "num input token": "input_sequence_length",
}
"""Labels and JSON keys (lower case, ``_`` as space, unit dropped) → kb's names."""

_UNITS = {"ms": ("ms", 0), "ns": ("ms", -6), "us": ("ms", -3), "s": ("s", 0), "sec": ("s", 0),
          "tokens": ("tokens", 0), "tokens/sec": ("tok/s", 0), "tokens/sec/user": ("tok/s", 0),
          "tokens/sec/gpu": ("tok/s", 0), "requests/sec": ("req/s", 0), "images/sec": ("images/s", 0)}
"""Unit spellings → (kb unit, power of ten to scale by)."""
_COUNT_NAMES = {"output_sequence_length", "input_sequence_length"}
_STATS = re.compile(r"^(?:avg|mean|min|max|std|median|p\d+(?:\.\d+)?)$")
_PREFIX = {"avg": "mean"}
_UNIT = re.compile(r"\(([^()]*)\)\s*$")
_TITLE = re.compile(r"(?:NVIDIA (?:AIPerf|GenAI-Perf)\s*\|\s*)?\b[A-Z][A-Za-z ]*(?:Metrics|Summary)\s*$")
_CAPTION = re.compile(r"^(\S+:\d+)\s*\|\s*GPU\s+(\d+)\s*\|\s*(\S.*?)\s*$")
_SUMMARY = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?\([^()]+\))\s*:\s*(\S+)\s*$")
_BOX = "│┃"
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):", re.M)
_TOOL_NAMED = re.compile(r"\b(?:genai[-_]perf|aiperf)\b", re.I)


def _name(label: str) -> tuple[str, str | None]:
    """``(name, unit as printed)`` of a label or key: ``Time to First Token (ms)`` → ``("ttft", "ms")``."""
    unit = _UNIT.search(label)
    key = " ".join(_UNIT.sub("", label).replace("_", " ").lower().split())
    name = NAMES.get(key) or "_".join(part for part in re.split(r"[^a-z0-9]+", key) if part)
    return name, unit.group(1).strip() if unit else None


def _unit(name: str, printed: str | None) -> tuple[str | None, int]:
    """kb's unit for a metric and the power of ten its values are scaled by."""
    if printed is None:
        return ("tokens", 0) if name in _COUNT_NAMES else (None, 0)
    spelled = printed.lower()
    if spelled == "per sec":
        return ("tok/s" if "token" in name or name.endswith(("output_throughput", "total_throughput")) else "req/s"), 0
    if spelled in _UNITS:
        return _UNITS[spelled]
    return (printed, 0) if spelled else (None, 0)


def _scaled(value: str, power: int) -> str:
    """``value`` times ten to ``power``, as plain digits."""
    if not power:
        return value
    scaled = Decimal(value).scaleb(power).normalize()
    return format(scaled, "f")


def _add(run: RunReading, label: str, stats: dict[str, str], line: int, *, setting: str | None = None,
         one_of_many: bool = False) -> None:
    """Add one metric with its statistics (``stat`` → printed value) to ``run``; ``setting`` names
    it when it is a setting, ``one_of_many`` says the statistics given are some of the metric's."""
    name, printed = _name(label)
    values = {stat.lower(): number(value) for stat, value in stats.items()
              if _STATS.match(stat.lower()) and number(value) is not None}
    if not values:
        return
    unit, power = _unit(name, printed)
    single = set(values) <= {"avg", "mean"} and not one_of_many
    rate = unit is not None and ("/s" in unit or unit == "s")
    if single and not rate:
        raw = next(value for stat, value in stats.items() if stat.lower() in values)
        run.settings.setdefault(setting or name, raw.strip())
        return
    if unit is None:
        return
    for stat, value in values.items():
        key = name if single else f"{_PREFIX.get(stat, stat)}_{name}"
        run.metrics[key] = Measure(_scaled(value or "", power), unit, line=line)
    run.lines = (min(run.lines[0], line), max(run.lines[1], line))


def read(text: str) -> Readout:
    """The runs of AIPerf or GenAI-Perf in ``text`` (see the module docstring)."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return _json(text)
    first = stripped.split("\n", 1)[0]
    if "Metric" in [cell.strip() for cell in first.split(",")]:
        return _csv(text)
    return _console(text)


def _cells(raw: str) -> list[str] | None:
    """The cells of a table row (``│ a │ b │``), or ``None`` when ``raw`` is not one."""
    line = raw.strip()
    if len(line) < 2 or line[0] not in _BOX or line[-1] not in _BOX:
        return None
    found = [cell.strip() for cell in re.split(f"[{_BOX}]", line)[1:-1]]
    return found or None


def _console(text: str) -> Readout:
    """Runs from the console tables (see the module docstring)."""
    out = Readout()
    run: RunReading | None = None
    header: list[str] = []
    open_table = False
    last: RunReading | None = None
    caption: dict[str, str] = {}
    pending: tuple[str, dict[str, str], int] | None = None
    headerless = False

    def flush() -> None:
        nonlocal pending
        if pending is not None and run is not None:
            _add(run, *pending)
        pending = None

    def close(at: int, *, cut: bool) -> None:
        nonlocal run, open_table, last, header
        flush()
        if run is not None and (run.metrics or run.settings):
            if cut:
                out.warnings.append(f"the {TOOL} table at line {run.lines[0]} has no bottom border (cut off?)")
            out.runs.append(run)
            last = run
        run, open_table, header = None, False, []

    for at, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        found = _CAPTION.match(line)
        if found and not open_table:
            caption = {"endpoint": found.group(1), "gpu_index": found.group(2), "gpu_name": found.group(3)}
            continue
        if line.startswith(("┏", "┌", "╭")):
            if open_table:
                close(at, cut=True)
            run, open_table, header = RunReading(TOOL, settings=dict(caption), lines=(at, at)), True, []
            caption, headerless = {}, False
            continue
        if line.startswith(("└", "╰")) and run is not None:
            run.lines = (run.lines[0], at)
            close(at, cut=False)
            continue
        cells = _cells(raw)
        if cells is None:
            if line.startswith(("┡", "├", "┣", "╞")):
                continue
            if open_table and run is not None and not line.startswith("━"):
                close(at, cut=True)
            summary = _SUMMARY.match(line)
            if summary and last is not None and number(summary.group(2)) is not None:
                _add(last, summary.group(1), {"avg": summary.group(2)}, at)
            elif line and not summary and not _TITLE.search(line):
                last = None if not line.startswith(("```", "</", "<")) else last
            continue
        if run is None:
            run, open_table, header, headerless = RunReading(TOOL, lines=(at, at)), True, [], True
        if not header and not headerless and cells and cells[0].lower() in ("metric", "statistic"):
            header = [cell.lower() for cell in cells]
            continue
        label, values = cells[0], cells[1:]
        if not any(values):
            if pending is not None:
                pending = (f"{pending[0]} {label}", pending[1], pending[2])
            continue
        flush()
        if not header:
            numbers = [value for value in values if number(value) is not None]
            if len(numbers) == 1 and number(values[0]) is not None:
                pending = (label, {"avg": values[0]}, at)
            elif not any("statistics have no header" in w for w in out.warnings):
                out.warnings.append(f"the {TOOL} rows from line {at} have statistics but no column header; "
                                    "those rows are left out")
            continue
        pending = (label, dict(zip(header[1:], values)), at)
        run.lines = (run.lines[0], at)
    if run is not None:
        close(0, cut=True)
    if not out.runs and _TRACEBACK.search(text) and _TOOL_NAMED.search(text):
        out.warnings.append(f"the {TOOL} run ended in a Python traceback; no table was printed")
    return out


def _flat(config: dict, parent: str = "") -> dict[str, str]:
    """The scalar values of an ``input_config``, named by their key (``type`` as ``<parent>_type``)."""
    found: dict[str, str] = {}
    for key, value in config.items():
        if key == "cli_command" or value is None:
            continue
        if isinstance(value, dict):
            for name, text in _flat(value, key).items():
                found.setdefault(name, text)
            continue
        if isinstance(value, list):
            if not value or not all(isinstance(item, str | int | float) for item in value):
                continue
            value = ", ".join(map(str, value))
        name = {"model_names": "model"}.get(key, f"{parent}_{key}" if key == "type" and parent else key)
        found.setdefault(name, str(value).lower() if isinstance(value, bool) else str(value))
    return found


def _json_run(metrics: dict, lines: tuple[int, int]) -> RunReading:
    """A run from one object of metric records."""
    run = RunReading(TOOL, lines=lines)
    for key, value in metrics.items():
        if isinstance(value, dict) and ("avg" in value or "unit" in value):
            unit = value.get("unit")
            label = f"{key} ({unit})" if isinstance(unit, str) else key
            stats = {stat: str(figure) for stat, figure in value.items()
                     if figure is not None and not isinstance(figure, dict | list | bool)}
            _add(run, label, stats, lines[0], setting=key)
            run.lines = lines
        elif key.endswith("_version") and isinstance(value, str):
            run.settings.setdefault(key, value)
    return run


def _json(text: str) -> Readout:
    """Runs from a JSON export."""
    out = Readout()
    lines = (1, text.rstrip().count("\n") + 1)
    try:
        document = json.loads(text, parse_float=str)
    except ValueError:
        if '"unit"' in text and '"avg"' in text:
            out.warnings.append(f"an {TOOL} JSON export that is not valid JSON (cut off or elided?); nothing read")
        return out
    if not isinstance(document, dict):
        return out
    slices = document.get("timeslices")
    records = document.get("records")
    parts: list[dict[str, Any]] = (
        [dict(part, timeslice=part.get("timeslice_index")) for part in slices if isinstance(part, dict)]
        if isinstance(slices, list) else [records if isinstance(records, dict) else document])
    config = _flat(document["input_config"]) if isinstance(document.get("input_config"), dict) else {}
    for part in parts:
        run = _json_run(part, lines)
        if part.get("timeslice") is not None:
            run.settings["timeslice"] = str(part["timeslice"])
        for key, value in document.items():
            if key.endswith("_version") and isinstance(value, str):
                run.settings.setdefault(key, value)
        for key, value in config.items():
            run.settings.setdefault(key, value)
        if run.metrics:
            out.runs.append(run)
    return out


def _csv(text: str) -> Readout:
    """Runs from a CSV export (wide sections, or the long timeslices layout)."""
    out = Readout()
    runs: dict[tuple[str, ...], RunReading] = {}
    header: list[str] = []
    elided = False
    for at, row in enumerate(csv.reader(io.StringIO(text)), 1):
        cells = [cell.strip() for cell in row]
        if not any(cells):
            header = []
            continue
        if cells[0] in ("...", "…"):
            elided = True
            continue
        if "Metric" in cells:
            header = cells
            continue
        if not header:
            continue
        at_metric = header.index("Metric")
        identity = tuple(cells[:at_metric])
        if "Stat" in header and "Value" in header:  # the long layout: one figure a row
            record = dict(zip(header, cells))
            key = identity
            run = runs.setdefault(key, RunReading(TOOL, lines=(at, at)))
            for name, value in zip(header[:at_metric], identity):
                run.settings[name.lower()] = value
            unit = record.get("Unit") or ""
            label = f"{record['Metric']} ({unit})" if unit else record["Metric"]
            _add(run, label, {record["Stat"]: record["Value"]}, at, one_of_many=True)
            continue
        run = runs.setdefault(identity, RunReading(TOOL, lines=(at, at)))
        for name, value in zip(header[:at_metric], identity):
            run.settings["_".join(name.lower().split())] = value
        stats = dict(zip(header[at_metric + 1:], cells[at_metric + 1:]))
        if list(stats) == ["Value"]:
            stats = {"avg": stats["Value"]}
        _add(run, cells[at_metric], stats, at)
    for run in runs.values():
        if run.metrics:
            out.runs.append(run)
    if elided:
        out.warnings.append(f"the {TOOL} CSV export has elided ('...') rows; the rows shown are read")
    return out
