"""TensorRT-LLM's ``trtllm-bench`` (``throughput`` and ``latency``) report, printed or written
with ``--report_json``.

Facts (NVIDIA/TensorRT-LLM ``tensorrt_llm/bench/dataclasses/reporting.py`` and
``docs/source/performance/perf-benchmarking.md``): the report is a series of sections, each under
a banner of ``=`` lines with a ``= TITLE`` line (``ENGINE DETAILS`` or ``PYTORCH BACKEND``,
``WORLD + RUNTIME INFORMATION``, ``REQUEST DETAILS``, ``PERFORMANCE OVERVIEW``, ...), one
``Label (unit): value`` a line; latency breakdowns print ``[Latency] P50 : 123.4`` lines. Older
releases print ``Token Throughput (tokens/sec)`` for the output throughput, newer ones ``Total
Output Throughput (tokens/sec)`` beside ``Total Token Throughput``; unit spellings vary
(``(tokens/sec/user)``, ``[w/ ctx] (tps/user)``). Each invocation logs ``[TensorRT-LLM]
TensorRT-LLM version: X`` first; a command-line error is click's ``Error: ...`` line.

One run per report (a ``PERFORMANCE OVERVIEW`` section): its figures named as kb names them
(:data:`METRICS`; ``[Latency] P90`` → ``p90_e2e_latency``, ``[TTFT] AVERAGE`` → ``mean_ttft``; a
label kb does not name, with a unit, in snake case) and its settings, every other field in snake
case (``TP Size`` → ``tp_size``; :data:`SETTINGS`), values as printed. Pasted copies may lose the
``=`` of a title, gain table-cell residue (``|``) or tabs; those are read through.

The ``--report_json`` file holds the same report as sections ``engine``, ``machine``,
``world_info``, ``request_info``, ``performance``, ``streaming_metrics`` and ``dataset``, with the
unit in the key (``avg_request_latency_ms``, ``system_output_throughput_tok_s``) and percentiles as
objects (``ttft_percentiles``: ``p50`` ... ``minimum``, ``maximum``, ``average``).

Warnings: a report without a performance section, a report that starts mid-way (fields before any
section), a field left without its value (cut off), and an invocation that printed no report (with
its ``Error:`` line when there is one: then it is a failed run with that line as its error).

>>> text = "= PERFORMANCE OVERVIEW\\nRequest Throughput (req/sec):  43.2089\\nTotal Output Throughput (tokens/sec): 5530.7382"
>>> read(text).runs[0].metrics["output_throughput"].text
'5530.7382'
"""

from __future__ import annotations

import json
import re

from kb.importers.read.base import Measure, Readout, RunReading, number

TOOL = "trtllm-bench"
SOURCES = {
    "NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py (the --report_json keys)": (
        "avg_request_latency_ms", "system_output_throughput_tok_s", "system_total_throughput_tok_s",
        "output_throughput_per_user_tok_s", "output_throughput_per_gpu_tok_s", "token_output_speed_tok_s"),
    "NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py (report sections and labels)": (
        "PERFORMANCE OVERVIEW", "ENGINE DETAILS", "PYTORCH BACKEND", "WORLD + RUNTIME INFORMATION", "REQUEST DETAILS",
        "Request Throughput (req/sec)", "Total Output Throughput (tokens/sec)", "Total Token Throughput (tokens/sec)",
        "Token Throughput (tokens/sec)", "Total Latency (ms)", "Average request latency (ms)",
        "Per User Output Throughput", "Per GPU Output Throughput (tps/gpu)", "Number of requests",
        "Number of concurrent requests", "Average Input Length (tokens)", "Average Output Length (tokens)",
        "Max Runtime Batch Size", "Max Runtime Tokens", "KV Cache Dtype", "KV Memory Percentage",
        "Scheduling Policy", "Issue Rate (req/sec)", "Average time-to-first-token", "Average time-per-output-token",
        "Request Latency Breakdown", "DATASET DETAILS"),
    "pallets/click (Usage / Error: lines of a command-line error)": ("Usage:", "Error:"),
    "NVIDIA/TensorRT-LLM tensorrt_llm/__init__.py (the version banner each process logs)": (
        "[TensorRT-LLM] TensorRT-LLM version: 0.16.0",),
    "NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py (--report_json keys)": (
        "engine", "world_info", "request_info", "performance", "streaming_metrics", "dataset", "_percentiles",
        "avg_request_latency_ms", "system_output_throughput_tok_s", "token_output_speed_tok_s"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("performance overview", "tensorrt-llm", "engine details", "pytorch backend", "\"performance\"", "request throughput")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_RULE = re.compile(r"^\s*(?:={5,}|-{1,2})\s*$")
_SECTION = re.compile(r"^\s*(=\s+)?([A-Za-z][A-Za-z +/&-]+?)\s*$")
_TITLES = ("ENGINE DETAILS", "PYTORCH BACKEND", "WORLD + RUNTIME INFORMATION", "REQUEST DETAILS",
           "PERFORMANCE OVERVIEW", "DATASET DETAILS")
_RESIDUE = re.compile(r"(?:\s*\|)+\s*$")
_LINE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(.*?)\s*$")
_BANNER = re.compile(r"^\[TensorRT-LLM\]\s+TensorRT-LLM version:\s*(\S+)")
_CLICK_ERROR = re.compile(r"^Error:\s+\S.*$")
_PERCENTILE = re.compile(r"^\s*\[(Latency|TTFT|TPOT|GEN_TPS|ITL)\]\s+(P\d+(?:\.\d+)?|MINIMUM|MAXIMUM|AVERAGE|MEAN|MEDIAN)\s*:\s*(\S+)")
_UNIT = re.compile(r"\(([^()]*)\)\s*$")
_QUALIFIER = re.compile(r"\s*(?:\([^()]*\)|\[[^\]]*\])")
_STAT = {"minimum": "min", "maximum": "max", "average": "mean", "mean": "mean", "median": "median"}
_GROUP = {"latency": ("e2e_latency", "ms"), "ttft": ("ttft", "ms"), "tpot": ("tpot", "ms"), "itl": ("itl", "ms"),
          "gen_tps": ("per_user_output_throughput", "tok/s")}
_UNITS = {"ms": "ms", "s": "s", "sec": "s", "req/sec": "req/s", "req/s": "req/s", "tokens/sec": "tok/s",
          "tokens/sec/user": "tok/s", "tokens/sec/gpu": "tok/s", "tps/user": "tok/s", "tps/gpu": "tok/s",
          "tok/s": "tok/s", "%": "%"}
"""The unit spellings of the report's labels → kb's units."""

METRICS: dict[str, str] = {
    "request throughput": "request_throughput",
    "total output throughput": "output_throughput",
    "token throughput": "output_throughput",
    "total token throughput": "total_throughput",
    "total latency": "total_latency",
    "average request latency": "mean_e2e_latency",
    "per user output throughput": "per_user_output_throughput",
    "per user output speed": "per_user_output_speed",
    "per gpu output throughput": "per_gpu_output_throughput",
    "average time-to-first-token": "mean_ttft",
    "average time-per-output-token": "mean_tpot",
    "issue rate": "issue_rate",
}
"""Report labels (lower case, unit and bracketed qualifier dropped) → kb's metric names; any other
label with a unit kb knows is a metric named in snake case."""

SETTINGS: dict[str, str] = {"number of requests": "num_requests"}
"""Report labels whose setting is named after the ``trtllm-bench`` flag that sets it; any other
label without a unit is a setting named in snake case (``TP Size`` → ``tp_size``)."""


def _label(text: str) -> tuple[str, str | None]:
    """``(key, unit)`` of a report label: the label in lower case without its qualifiers, and the
    kb unit its last parenthesis names (``None`` when it names none)."""
    unit = _UNIT.search(text)
    key = " ".join(_QUALIFIER.sub(" ", text).lower().split())
    return key, _UNITS.get(unit.group(1).strip().lower()) if unit else None


def _snake(key: str) -> str:
    """``key`` in snake case: ``tensorrt-llm version`` → ``tensorrt_llm_version``."""
    return "_".join(part for part in re.split(r"[^a-z0-9]+", key) if part)


class _Report:
    """One pass over an output: the run being read, what preceded it, the invocations."""

    def __init__(self) -> None:
        self.out = Readout()
        self.run: RunReading | None = None
        self.settings: dict[str, str] = {}
        self.metrics: dict[str, Measure] = {}
        self.pending: list[tuple[int, str, str]] = []
        self.section = ""
        self.first = 0
        self.invocation: tuple[int, str | None, int] | None = None
        self.failures = 0

    def finish_invocation(self) -> None:
        """End a ``trtllm-bench`` invocation (from its version banner) that printed no report: a
        failed run when it printed an ``Error:`` line, else a warning (cut off?)."""
        if self.invocation is not None:
            line, error, at = self.invocation
            if error:
                self.out.runs.append(RunReading(TOOL, lines=(line, at), failed=True, error=error,
                                                invocation=len(self.out.runs)))
                self.failures += 1
            else:
                self.out.warnings.append(f"the trtllm-bench run started at line {line} printed no report (cut off?)")
        self.invocation = None

    def value(self, at: int, label: str, value: str) -> None:
        """Take one ``Label: value`` line of the report."""
        key, unit = _label(label)
        if not value:
            if key in METRICS or unit:
                self.out.warnings.append(f"the trtllm-bench report is cut off at line {at} ({label.strip()}: no value)")
            return
        if len(value.split()) > 1 and all(number(cell) is not None for cell in value.split()):
            return  # a row of the dataset's percentile table, not a report field
        target = self.run
        if key in METRICS or (unit and unit != "%"):
            figure = number(value.split()[0].replace("E", "e"))
            if figure is not None:
                measure = Measure(figure, unit or "", line=at)
                (target.metrics if target is not None else self.metrics)[METRICS.get(key, _snake(key))] = measure
        else:
            (target.settings if target is not None else self.settings)[SETTINGS.get(key, _snake(key))] = value
        if target is not None:
            target.lines = (target.lines[0], at)

    def section_line(self, at: int, title: str) -> None:
        """Enter the section ``title``; a ``PERFORMANCE OVERVIEW`` opens the run."""
        if self.pending:
            self.out.warnings.append(f"the trtllm-bench report at line {self.pending[0][0]} starts mid-way "
                                     "(no section before it)")
            self.first = self.first or self.pending[0][0]
            for at_, label, value in self.pending:
                self.value(at_, label, value)
            self.pending = []
        self.section = title
        self.first = self.first or at
        if title.endswith("BACKEND"):
            self.settings["backend"] = title.rsplit(" ", 1)[0].lower()
        if title == "PERFORMANCE OVERVIEW":
            self.run = RunReading(TOOL, settings=self.settings, metrics=self.metrics, lines=(self.first, at),
                                  invocation=len(self.out.runs))
            self.out.runs.append(self.run)
            self.settings, self.metrics, self.first, self.invocation = {}, {}, 0, None


JSON_METRICS: dict[str, str] = {
    "avg_request_latency_ms": "mean_e2e_latency",
    "system_output_throughput_tok_s": "output_throughput",
    "system_total_throughput_tok_s": "total_throughput",
    "output_throughput_per_user_tok_s": "per_user_output_throughput",
    "output_throughput_per_gpu_tok_s": "per_gpu_output_throughput",
    "token_output_speed_tok_s": "per_user_output_speed",
    "request_latency": "e2e_latency",
    "issue_rate": "issue_rate",
}
"""``--report_json`` keys (unit suffix kept, or the stem of a ``*_percentiles`` key) → kb's names;
any other key with a unit suffix is named by its stem (``avg_`` as ``mean_``)."""
_KEY_UNITS = (("_tok_s", "tok/s"), ("_req_s", "req/s"), ("_ms", "ms"))
_STEM_UNITS = {"ttft": "ms", "tpot": "ms", "itl": "ms", "e2e_latency": "ms", "gen_tps": "tok/s"}
_SETTING_SECTIONS = ("engine", "machine", "world_info", "request_info", "dataset")


def _json_report(document: dict) -> Readout:
    """The run of one ``--report_json`` file: metrics from ``performance`` and
    ``streaming_metrics`` (and ``world_info.issue_rate``), settings from the scalars of the other
    sections (``machine.name`` as ``machine_name``; JSON ``null`` as ``null``)."""
    run = RunReading(TOOL, lines=(1, 1))
    for section in _SETTING_SECTIONS:
        values = document.get(section)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if isinstance(value, dict | list) or "." in key or key == "issue_rate":
                continue
            name = f"{section}_{key}" if key == "name" else key
            run.settings.setdefault(name, json.dumps(value) if value is None or isinstance(value, bool) else str(value))
    world = document.get("world_info")
    if isinstance(world, dict) and number(str(world.get("issue_rate"))) is not None:
        run.metrics["issue_rate"] = Measure(number(str(world["issue_rate"])) or "", "req/s")
    for section in ("performance", "streaming_metrics"):
        values = document.get(section)
        for key, value in (values.items() if isinstance(values, dict) else ()):
            if isinstance(value, dict) and "_percentiles" in key:
                stem = key.split("_percentiles")[0]
                stem = JSON_METRICS.get(stem, stem)
                unit = next((u for suffix, u in _KEY_UNITS if key.endswith(suffix)), None) or _STEM_UNITS.get(stem)
                for stat, figure in value.items():
                    if stat != "average" and unit and number(str(figure)) is not None:
                        run.metrics[f"{_STAT.get(stat, stat)}_{stem}"] = Measure(number(str(figure)) or "", unit)
                continue
            unit = next((u for suffix, u in _KEY_UNITS if key.endswith(suffix)), None)
            if unit is None or number(str(value)) is None:
                continue
            stem = key[: -len(next(s for s, u in _KEY_UNITS if key.endswith(s)))]
            name = JSON_METRICS.get(key) or ("mean_" + stem[4:] if stem.startswith("avg_") else stem)
            run.metrics[name] = Measure(number(str(value)) or "", unit)
    out = Readout()
    if run.metrics:
        out.runs.append(run)
    return out


def read(text: str) -> Readout:
    """The runs of ``trtllm-bench`` in ``text`` (see the module docstring)."""
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text, parse_float=str)
        except ValueError:
            document = None
        if isinstance(document, dict) and isinstance(document.get("performance"), dict):
            return _json_report(document)
    report = _Report()
    for at, raw in enumerate(text.splitlines(), 1):
        line = _RESIDUE.sub("", raw.replace("\t", " ")).rstrip()
        banner = _BANNER.match(line.strip())
        if banner:
            report.finish_invocation()
            report.run, report.section, report.invocation = None, "", (at, None, at)
            continue
        if report.invocation is not None and _CLICK_ERROR.match(line.strip()):
            report.invocation = (report.invocation[0], line.strip(), at)
            continue
        if not line.strip() or _RULE.match(line):
            continue
        heading = _SECTION.match(" ".join(line.split()))
        if heading and (heading.group(1) or heading.group(2).upper() in _TITLES):
            report.section_line(at, heading.group(2).strip().upper())
            continue
        found = _PERCENTILE.match(line)
        if found:
            if report.run is not None:
                group, unit = _GROUP[found.group(1).lower()]
                stat = found.group(2).lower()
                value = number(found.group(3))
                if value is not None:
                    report.run.metrics[f"{_STAT.get(stat, stat)}_{group}"] = Measure(value, unit, line=at)
                    report.run.lines = (report.run.lines[0], at)
            continue
        found = _LINE.match(line)
        if found and not line.lstrip().startswith("["):
            label = " ".join(found.group(1).split())
            if report.section:
                report.value(at, label, found.group(2))
                continue
            key, _ = _label(label)
            if key in METRICS or key in SETTINGS:
                report.pending.append((at, label, found.group(2)))
                continue
        if line.lstrip().startswith("-- "):
            continue
        if not report.section:
            report.pending = []
        elif report.run is None and not found:
            report.section = ""
    report.finish_invocation()
    if report.failures:
        report.out.warnings.append(f"{report.failures} trtllm-bench run(s) stopped on a command-line error "
                                   "and printed no report")
    if report.settings and not report.out.runs:
        report.out.warnings.append("a trtllm-bench report without its PERFORMANCE OVERVIEW section (cut off?); "
                                   "no figure read")
    return report.out
