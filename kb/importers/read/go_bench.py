"""Go benchmark results: what ``go test -bench`` prints (and every tool that writes Go's benchmark
format, benchstat's input).

Facts (the Go ``testing`` package documentation, ``BenchmarkResult.String`` and
``B.ReportMetric``; the format is specified in the Go proposal "Benchmark data format",
golang/proposal ``design/14313-benchmark-format.md``): a result line is the benchmark's name,
which starts with ``Benchmark`` and ends with ``-N`` when GOMAXPROCS was not 1, then the iteration
count, then one or more ``value unit`` pairs: ``ns/op`` always, ``MB/s`` with ``b.SetBytes``,
``B/op`` and ``allocs/op`` with ``-benchmem``, and any unit a benchmark reports itself with
``b.ReportMetric`` (``tokens/s``). Configuration lines ``key: value`` (a lower-case key without
spaces: ``goos``, ``goarch``, ``pkg``, ``cpu``) hold for the results after them. ``-count=N`` prints
each result line N times; a package ends with ``PASS`` or ``FAIL`` and ``ok  <pkg>  <time>``; a
failed benchmark prints ``--- FAIL: BenchmarkName``.

One run a benchmark name and configuration: each figure is the median of its repetitions, as
benchstat summarises them (golang.org/x/perf/cmd/benchstat). Figures in a unit kb records
(:func:`kb.importers.read.labels.unit_of`: ``tokens/s`` → tok/s) take their name from the unit
and the benchmark's name (:func:`kb.importers.read.labels.name_for`); ``ns/op`` is kept as
``time_per_op`` in ms. ``B/op``, ``allocs/op``, ``MB/s`` and other units are settings, as printed
(their median). Settings: ``benchmark`` (the name without ``-N``), ``gomaxprocs``, ``iterations``
(of the median repetition), ``count`` (repetitions), and the configuration keys in force (every
``key: value`` line of the header, as the format defines them: ``note``, ``backend`` …). The
results of one ``go test`` invocation (one configuration block) share an invocation. A failed
benchmark is a failed run without figures, its error the ``--- FAIL:`` text (on a line of its
own, or after the name on the name's line), and a warning.

Warnings: a failed benchmark; a name line without figures that no result of it (or of its
sub-benchmarks) follows (a result line cut off).

>>> out = read('''goos: linux
... cpu: Example CPU
... BenchmarkInference-8   	     100	  11000000 ns/op	       90.5 tokens/s
... BenchmarkInference-8   	     100	  10000000 ns/op	       99.5 tokens/s
... BenchmarkInference-8   	     100	  10500000 ns/op	       95.2 tokens/s
... PASS''')
>>> run = out.runs[0]
>>> run.metrics["output_throughput"].text, run.metrics["time_per_op"].text, run.settings["count"], run.settings["cpu"]
('95.2', '10.5', '3', 'Example CPU')
"""

from __future__ import annotations

import re
import statistics

from kb.importers.read import labels
from kb.importers.read.base import NUMBER, Measure, Readout, RunReading

TOOL = "go test -bench"
SOURCES = {
    "Go testing package documentation (BenchmarkResult.String, B.ReportMetric, B.SetBytes, -benchmem)": (
        "Benchmark", "ns/op", "B/op", "allocs/op", "MB/s", "PASS", "FAIL", "--- FAIL:", "ok"),
    "golang/proposal design/14313-benchmark-format.md (result and configuration lines)": (
        "goos", "goarch", "pkg", "cpu"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("ns/op", "allocs/op", "--- fail: benchmark")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_RESULT = re.compile(rf"^(Benchmark\S*?)(?:-(\d+))?\s+(\d+)((?:\s+{NUMBER}\s+\S+)+)\s*$")
_PAIR = re.compile(rf"({NUMBER})\s+(\S+)")
_CONFIG = re.compile(r"^([a-z][a-z0-9_.-]*):\s+(\S.*?)\s*$")
_FAIL = re.compile(r"^(?:Benchmark\S*\s+)?(--- FAIL:\s+(Benchmark\S*?)(?:-(\d+))?(?=\s|$).*?)\s*$")
_NAME = re.compile(r"^(Benchmark\S*?)(?:-\d+)?(?:\s.*)?$")
_END = re.compile(r"^(?:PASS|FAIL|ok\s+\S+\s+\S+s)\s*$")


def read(text: str) -> Readout:
    """The runs of Go benchmark results in ``text`` (see the module docstring)."""
    out = Readout()
    config: dict[str, str] = {}
    block = 0
    results: dict[tuple[int, str, str | None], list[tuple[int, str, list[tuple[str, str]]]]] = {}
    failures: list[RunReading] = []
    configs: dict[int, dict[str, str]] = {}
    bare: list[tuple[int, str]] = []  # names printed without figures (-v prints one before its results; a cut line too)
    configured = False
    for at, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        found = _RESULT.match(line)
        if found:
            name, procs, iterations, pairs = found.groups()
            key = (block, name, procs)
            results.setdefault(key, []).append((at, iterations, _PAIR.findall(pairs)))
            configured = False
            continue
        found = _FAIL.match(line)
        if found:
            error, name, procs = found.groups()
            failures.append(RunReading(TOOL, settings={"benchmark": name, **({"gomaxprocs": procs} if procs else {}),
                                                       **config}, lines=(at, at), failed=True, error=error,
                                       invocation=block))
            continue
        found = _CONFIG.match(line)
        if found and raw[:1] not in " \t":
            if not configured:  # a new header: the results before it were another invocation's
                block += 1
                config = {}
                configured = True
            config[found.group(1)] = found.group(2)
            configs[block] = dict(config)
            continue
        found = _NAME.match(line)
        if found:
            bare.append((at, found.group(1)))
            continue
        if _END.match(line):
            configured = False
    for (at_block, name, procs), reps in results.items():
        out.runs.append(_run(name, procs, reps, configs.get(at_block, {}), at_block))
    out.runs.extend(failures)
    out.runs.sort(key=lambda run: run.lines)
    if failures:
        out.warnings.append(f"{len(failures)} benchmark{'s' if len(failures) != 1 else ''} failed (--- FAIL): "
                            "no figures for them")
    last: dict[str, int] = {}  # the last line each benchmark's results reach
    for (_block, name, _procs), reps in results.items():
        last[name] = max(last.get(name, 0), reps[-1][0])
    cut = [name for at, name in bare
           if not any(end > at and (m == name or m.startswith(name + "/")) for m, end in last.items())]
    if cut:
        out.warnings.append(f"a result line of {cut[-1]} has no figures (cut off?): left out")
    return out




def _run(name: str, procs: str | None, reps: list[tuple[int, str, list[tuple[str, str]]]],
         config: dict[str, str], block: int) -> RunReading:
    """One benchmark's repetitions as one run (medians; see the module docstring)."""
    by_unit: dict[str, list[str]] = {}
    for _at, _iterations, pairs in reps:
        for value, unit in pairs:
            by_unit.setdefault(unit, []).append(value.replace(",", ""))
    middle = sorted(range(len(reps)), key=lambda i: float(reps[i][2][0][0].replace(",", "")))[len(reps) // 2]
    run = RunReading(TOOL, lines=(reps[0][0], reps[-1][0]), invocation=block)
    run.settings = {"benchmark": name, **({"gomaxprocs": procs} if procs else {}), "iterations": reps[middle][1],
                    "count": str(len(reps)), **config}
    label = re.sub(r"^Benchmark", "", name).replace("/", " ").replace("_", " ")
    for unit, values in by_unit.items():
        median = _median(values)
        if unit == "ns/op":
            run.metrics["time_per_op"] = Measure(f"{float(median) / 1e6:.6g}", "ms", line=reps[0][0])
            continue
        kb_unit = labels.unit_of(unit)
        if kb_unit is None or "/op" in unit:
            run.settings[unit] = median
            continue
        metric = labels.name_for(label, kb_unit)
        run.metrics.setdefault(metric, Measure(median, kb_unit, line=reps[0][0],
                                               generic=not labels.qualifies(label, kb_unit)))
    return run


def _median(values: list[str]) -> str:
    """The median of figures as printed, as printed when it is one of them (an odd count), else
    their mean's shortest form."""
    ordered = sorted(values, key=float)
    if len(ordered) % 2:
        return ordered[len(ordered) // 2]
    return f"{statistics.median(float(v) for v in ordered):.6g}"
