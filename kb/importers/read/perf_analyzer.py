"""Triton's ``perf_analyzer`` (``perf_client`` before it): its console report and the CSV file of
``-f FILE``.

Facts (the Perf Analyzer documentation, ``docs/perf_analyzer.md``/``cli.md``/``measurements_metrics.md``
of triton-inference-server/perf_analyzer, and the archived ``perf_client`` guide): the report opens with
``*** Measurement Settings ***`` (``Batch size: N``, the measurement window or mode, how it
stabilises), then one section per load level, ``Request concurrency: N`` (``Request Rate: N`` in
request-rate mode), with a ``Client:`` block (``Request count``, ``Throughput: X infer/sec``,
``Avg latency: X usec (standard deviation Y usec)`` when it stabilises on the average, ``p50``..``p99
latency: X usec``, ``Avg HTTP time``/``Avg gRPC time``) and a ``Server:`` block; it closes with
``Inferences/Second vs. Client Average Batch Latency`` (or ``... p95 Batch Latency``) and one line a
level, ``Concurrency: N, throughput: X infer/sec, latency Y usec``. A level that does not settle
prints ``Failed to obtain stable measurement ...``; other failures print ``error: ...``. The CSV's
header is ``Concurrency`` (or ``Request Rate``), ``Inferences/Second``, the client and server
components, ``p50 latency`` .. ``p99 latency``, all times in microseconds; ``--verbose-csv`` adds
columns (``Avg latency`` among them). Its rows are sorted by throughput, not by level.

One run an invocation: a sweep over load levels is one run. Its figures are those of its largest
level (``inferences_per_second`` in req/s: perf_analyzer counts inferences, requests times batch,
a second; ``latency``, the average, and ``p50_latency``..``p99_latency`` in us), and each level's
``inferences_per_second[concurrency=N]`` and ``latency[concurrency=N]`` (``request_rate=N`` in that
mode). Settings: ``batch_size`` and the levels measured (``concurrency: 1,2,4``: by value in a
report, as its rows come in a CSV). In a CSV, columns a user put before perf_analyzer's first
column are the run's settings: rows that share their values are one sweep.

A report's summary alone (the ``Inferences/Second vs. ...`` lines) is a run too; in a report that
stabilises on a percentile, each level's latency is that percentile (``p95_latency[concurrency=N]``).
A level that printed ``Failed to ...`` or ``error: ...`` makes the run failed, with that line as its error.

Warnings: a report whose levels lack a throughput, or that has no summary and no failure (cut off);
a CSV row of the wrong length (left out).

>>> out = read('''*** Measurement Settings ***
...   Batch size: 1
...
... Request concurrency: 1
...   Client:
...     Request count: 348
...     Throughput: 69.6 infer/sec
...     Avg latency: 14316 usec (standard deviation 512 usec)
...     p99 latency: 21859 usec
... Request concurrency: 2
...   Client:
...     Throughput: 120.4 infer/sec
...     Avg latency: 16530 usec (standard deviation 640 usec)
... Inferences/Second vs. Client Average Batch Latency
... Concurrency: 1, throughput: 69.6 infer/sec, latency 14316 usec
... Concurrency: 2, throughput: 120.4 infer/sec, latency 16530 usec
... ''')
>>> run = out.runs[0]
>>> run.metrics["inferences_per_second"].text, run.metrics["latency"].spread, run.settings, out.warnings
('120.4', '640', {'batch_size': '1', 'concurrency': '1,2'}, [])
"""

from __future__ import annotations

import csv
import io
import re

from kb.importers.read.base import NUMBER, Measure, Readout, RunReading, number

TOOL = "perf_analyzer"
SOURCES = {
    "Triton perf_analyzer docs/perf_analyzer.md and the perf_client guide (the console report)": (
        "*** Measurement Settings ***", "Batch size:", "Request concurrency:", "Request Rate:", "Client:",
        "Server:", "Throughput:", "infer/sec", "Avg latency:", "standard deviation", "p99 latency:",
        "Inferences/Second vs. Client", "Failed to obtain stable measurement", "error:"),
    "Triton perf_analyzer docs/cli.md (-f, --verbose-csv) and measurements_metrics.md (the CSV file)": (
        "Concurrency", "Request Rate", "Inferences/Second", "Client Send", "Server Queue", "p50 latency",
        "p90 latency", "p95 latency", "p99 latency", "Avg latency"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("infer/sec", "inferences/second", "*** measurement settings ***")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_SETTINGS = re.compile(r"^\s*\*{3}\s*Measurement Settings\s*\*{3}")
_BATCH = re.compile(r"^\s*Batch size:\s*(\d+)")
_LEVEL = re.compile(rf"^\s*Request (concurrency|Rate|rate):\s*({NUMBER})")
_THROUGHPUT = re.compile(rf"^\s*Throughput:\s*({NUMBER})\s*infer/sec")
_AVG = re.compile(rf"^\s*Avg latency:\s*({NUMBER})\s*usec(?:\s*\(standard deviation\s*({NUMBER})\s*usec\))?")
_PERCENTILE = re.compile(rf"^\s*p(\d+) latency:\s*({NUMBER})\s*usec")
_SUMMARY = re.compile(r"^\s*Inferences/Second vs\. Client (?:(Average)|p(\d+)) Batch Latency")
_SUMMARY_LINE = re.compile(rf"^\s*(Concurrency|Request Rate):\s*({NUMBER}),\s*(?:throughput:\s*)?({NUMBER})\s*infer/sec,"
                          rf"\s*latency\s*({NUMBER})\s*usec")
_FAILED = re.compile(r"^\s*(Failed to \S.*|error:\s*\S.*)$", re.I)
_LEVEL_COLUMNS = {"concurrency": "concurrency", "request rate": "request_rate"}

Figures = dict[str, tuple[str, "str | None", int]]
"""A level's figures: name → (number as printed, spread or ``None``, line)."""


def read(text: str) -> Readout:
    """The runs of perf_analyzer reports and CSV files in ``text`` (see the module docstring)."""
    out = Readout()
    first = next((line for line in text.splitlines() if line.strip()), "")
    if "inferences/second" in first.lower() and "," in first:
        _read_csv(text, out)
    else:
        _read_report(text, out)
    return out


class _Report:
    """One report being read: its levels in order (``[key, level as printed, figures]``), the
    latency its summary gives (``latency``, or ``p95_latency`` when it stabilises on a percentile)."""

    def __init__(self, start: int) -> None:
        self.start = self.end = start
        self.batch: str | None = None
        self.levels: list[list] = []
        self.error: str | None = None
        self.summary: str | None = None

    def level(self, key: str, printed: str) -> list:
        """The level ``printed`` (matched by value: ``2.5`` is ``2.50``), added when new."""
        for entry in self.levels:
            if entry[0] == key and float(entry[1]) == float(printed):
                return entry
        entry = [key, printed, {}]
        self.levels.append(entry)
        return entry


def _read_report(text: str, out: Readout) -> None:
    report: _Report | None = None
    current: list | None = None

    def close() -> None:
        nonlocal report, current
        if report is not None:
            _finish(report, out)
        report, current = None, None

    for at, line in enumerate(text.splitlines(), 1):
        if _SETTINGS.match(line):
            close()
            report = _Report(at)
            continue
        level = None if report is not None and report.summary is not None and _SUMMARY_LINE.match(line) else _LEVEL.match(line)
        if level:
            key = "concurrency" if level.group(1) == "concurrency" else "request_rate"
            if report is None or (report.summary is not None
                                  and not any(k == key and float(lv) == float(level.group(2)) for k, lv, _f in report.levels)):
                close()  # a new report (a level its summary did not list)
                report = _Report(at)
            current = report.level(key, level.group(2))
            report.end = at
            continue
        summary = _SUMMARY.match(line)
        if summary:
            if report is None:
                report = _Report(at)  # the summary alone, pasted without its sections
            report.summary = "latency" if summary.group(1) else f"p{summary.group(2)}_latency"
            report.end = at
            current = None
            continue
        if report is None:
            continue
        if (found := _BATCH.match(line)) is not None:
            report.batch = found.group(1)
        elif (found := _SUMMARY_LINE.match(line)) is not None and report.summary is not None:
            entry = report.level(_LEVEL_COLUMNS[found.group(1).lower()], found.group(2))
            entry[1] = found.group(2)  # the summary's spelling of the level (``2.50``)
            entry[2].setdefault("inferences_per_second", (found.group(3), None, at))
            entry[2].setdefault(report.summary, (found.group(4), None, at))
        elif (found := _FAILED.match(line)) is not None:
            report.error = report.error or found.group(1).strip()
        elif current is not None and (found := _THROUGHPUT.match(line)) is not None:
            current[2]["inferences_per_second"] = (found.group(1), None, at)
        elif current is not None and (found := _AVG.match(line)) is not None:
            current[2]["latency"] = (found.group(1), found.group(2), at)
        elif current is not None and (found := _PERCENTILE.match(line)) is not None:
            current[2][f"p{found.group(1)}_latency"] = (found.group(2), None, at)
        else:
            continue
        report.end = at
    close()


def _finish(report: _Report, out: Readout) -> None:
    measured = [(key, level, figures) for key, level, figures in report.levels if "inferences_per_second" in figures]
    unmeasured = [level for _key, level, figures in report.levels if "inferences_per_second" not in figures]
    if report.error is None and (unmeasured or report.summary is None) and report.levels:
        what = f"the levels {', '.join(unmeasured)} have" if unmeasured else "it has"
        out.warnings.append(f"a perf_analyzer report (line {report.start}): {what} no throughput or no summary "
                            "(cut off?)" + ("" if measured else ": left out"))
    if not measured and report.error is None:
        return
    run = RunReading(TOOL, lines=(report.start, report.end))
    if report.batch:
        run.settings["batch_size"] = report.batch
    report.levels.sort(key=lambda entry: float(entry[1]))  # the order perf_analyzer runs them in, sections elided or not
    for key in dict.fromkeys(key for key, _lv, _f in report.levels):
        run.settings[key] = ",".join(level for k, level, _f in report.levels if k == key)
    _figures(run, measured, report.summary or "latency")
    if report.error:
        run.failed, run.error = True, report.error
    out.runs.append(run)


def _figures(run: RunReading, measured: list[tuple[str, str, Figures]], latency: str = "latency") -> None:
    """The headline figures at the largest level, and each level's throughput and ``latency``
    (the average, or the percentile the run stabilised on)."""
    if not measured:
        return
    _key, _level, figures = max(measured, key=lambda m: float(m[1]))
    for name, (value, spread, at) in figures.items():
        run.metrics[name] = Measure(value, "req/s" if name == "inferences_per_second" else "us", spread, at)
    for key, level, figures in measured:
        for name in ("inferences_per_second", latency):
            if name in figures:
                value, spread, at = figures[name]
                run.metrics[f"{name}[{key}={level}]"] = Measure(
                    value, "req/s" if name == "inferences_per_second" else "us", spread, at)


def _read_csv(text: str, out: Readout) -> None:
    rows = list(csv.reader(io.StringIO(text)))
    header_at = next(i for i, row in enumerate(rows) if row)
    header = [cell.strip() for cell in rows[header_at]]
    lowered = [cell.lower() for cell in header]
    if "inferences/second" not in lowered:
        return
    first = lowered.index("inferences/second") - 1  # the level comes right before it (a user's own columns may
    if first < 0 or lowered[first] not in _LEVEL_COLUMNS:  # name a concurrency range too)
        return
    key = _LEVEL_COLUMNS[lowered[first]]
    columns = {"inferences_per_second": lowered.index("inferences/second")}
    if "avg latency" in lowered:
        columns["latency"] = lowered.index("avg latency")
    for cell in lowered:
        found = re.fullmatch(r"p(\d+) latency", cell)
        if found:
            columns[f"p{found.group(1)}_latency"] = lowered.index(cell)
    groups: dict[tuple[str, ...], list[tuple[int, list[str]]]] = {}
    for at, row in enumerate(rows[header_at + 1:], header_at + 2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            out.warnings.append(f"a perf_analyzer CSV row (line {at}) has {len(row)} cells, the header {len(header)}: left out")
            continue
        groups.setdefault(tuple(cell.strip() for cell in row[:first]), []).append((at, row))
    for settings, members in groups.items():
        run = RunReading(TOOL, lines=(members[0][0], members[-1][0]))
        run.settings.update({header[i]: value for i, value in enumerate(settings) if value})
        measured = []
        for at, row in members:
            level = number(row[first])
            figures: Figures = {name: (value, None, at) for name, i in columns.items() if (value := number(row[i])) is not None}
            if level is not None and "inferences_per_second" in figures:
                measured.append((key, level, figures))
        if not measured:
            continue
        run.settings.setdefault(key, ",".join(level for _k, level, _f in measured))  # a user's own column of that name stays
        _figures(run, measured)
        out.runs.append(run)
