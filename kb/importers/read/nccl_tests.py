"""NVIDIA nccl-tests: ``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``alltoall_perf``, ``sendrecv_perf`` and the other ``*_perf`` programs.

Facts (NVIDIA/nccl-tests ``src/common.cu``, README and ``doc/PERFORMANCE.md``): a run prints a
``# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
...`` line, one ``#  Rank N Group N Pid N on HOST device N [BUS] NAME`` line a rank, a two-line
column header (``size count type redop root time algbw busbw #wrong`` for the out-of-place half,
then the same for in-place; older builds print ``error`` for ``#wrong`` and no ``root``), one row a
message size (bytes), and ``# Avg bus bandwidth : 94.2188`` (GB/s) at the end.

One run per column header: ``busbw`` is the average bus bandwidth (the run's own summary), and
each row gives the points ``busbw[size=N]``, ``algbw[size=N]`` (GB/s) and ``time[size=N]`` (us) of
the out-of-place columns; settings are the program (``op``, when the capture names it), the
ranks counted, ``min_bytes``, ``max_bytes``, ``dtype``, ``redop`` and the iteration counts. A run
without its average line is cut off (a warning); a ``Test NCCL failure`` or ``Test failure`` line
marks it failed, with that line as its error.

>>> out = read('''# nThread 1 nGpus 2 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20
... #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
... #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
...         1024           256     float     sum      -1    10.51    0.10    0.10      0    10.40    0.10    0.10      0
... # Avg bus bandwidth    : 0.0975''')
>>> run = out.runs[0]
>>> run.metrics["busbw"].text, run.metrics["busbw[size=1024]"].text, run.settings["max_bytes"]
('0.0975', '0.10', '1024')
"""

from __future__ import annotations

import re

from kb.importers.read.base import NUMBER, Measure, Readout, RunReading, number

TOOL = "nccl-tests"
SOURCES = {
    "NVIDIA/nccl-tests src/common.cu and doc/PERFORMANCE.md (header, rows, summary lines)": (
        "nThread", "nGpus", "minBytes", "maxBytes", "warmup iters", "agg iters", "Using devices",
        "out-of-place", "in-place", "Avg bus bandwidth", "Out of bounds values", "Test NCCL failure", "Test failure"),
}
"""The documentation of the output this reader knows."""

_PARAMS = re.compile(r"^#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)(.*)$")
_RANK = re.compile(r"^#\s*Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+\S+\s+device\s+\d+")
_HEADER = re.compile(r"^#\s+size\s+count\s+type\b.*\bbusbw\b")
_AVG = re.compile(rf"^#\s*Avg bus bandwidth\s*:\s*({NUMBER})")
_FAILURE = re.compile(r"^.*\bTest (?:NCCL )?failure\b.*$")
_PROGRAM = re.compile(r"\b([a-z_]+_perf)(?:_mpi)?\b")
_ITERS = re.compile(r"(warmup iters|iters|agg iters|validation|graph):\s*(\d+)")


def read(text: str) -> Readout:
    """The runs of nccl-tests in ``text`` (see the module docstring)."""
    out = Readout()
    lines = text.splitlines()
    params: dict[str, str] = {}
    params_line = 0
    ranks = 0
    program: str | None = None
    run: RunReading | None = None
    columns: list[str] = []
    for number_, raw in enumerate(lines, 1):
        line = raw.strip()
        found = _PARAMS.match(line)
        if found:
            _close(run, out)
            run = None
            params = {"nthread": found.group(1), "ngpus": found.group(2), "min_bytes": found.group(3),
                      "max_bytes": found.group(4)}
            params.update({key.replace(" ", "_"): value for key, value in _ITERS.findall(found.group(5))})
            params_line, ranks = number_, 0
            continue
        if _RANK.match(line):
            ranks += 1
            continue
        if _HEADER.match(line):
            _close(run, out)
            columns = line.lstrip("#").split()
            settings = dict(params)
            if program:
                settings["op"] = program
            if ranks:
                settings["nranks"] = str(ranks)
            run = RunReading(TOOL, settings=settings, lines=(params_line or number_, number_),
                             invocation=len(out.runs))
            continue
        if run is None:
            called = _PROGRAM.search(line)
            if called and not line.startswith("#"):
                program = called.group(1)
            continue
        avg = _AVG.match(line)
        if avg:
            run.metrics["busbw"] = Measure(avg.group(1), "GB/s", line=number_)
            run.lines = (run.lines[0], number_)
            out.runs.append(run)
            run = None
            continue
        if _FAILURE.match(line):
            run.failed, run.error = True, line
            run.lines = (run.lines[0], number_)
            continue
        if line.startswith("#") or not line:
            continue
        _row(run, columns, line.split(), number_)
    _close(run, out)
    return out


def _row(run: RunReading, columns: list[str], cells: list[str], line: int) -> None:
    """Add the out-of-place points of one size row."""
    if len(cells) < 4 or number(cells[0]) is None:
        return
    size = cells[0]
    for name, unit in (("time", "us"), ("algbw", "GB/s"), ("busbw", "GB/s")):
        if name in columns:
            at = columns.index(name)
            if at < len(cells) and number(cells[at]) is not None:
                run.metrics[f"{name}[size={size}]"] = Measure(number(cells[at]) or "", unit, line=line)
    for name in ("type", "redop"):
        if name in columns and columns.index(name) < len(cells):
            run.settings.setdefault("dtype" if name == "type" else name, cells[columns.index(name)])
    run.lines = (run.lines[0], line)


def _close(run: RunReading | None, out: Readout) -> None:
    """Keep a run that ended without its average line: failed, or cut off (a warning)."""
    if run is None:
        return
    if run.failed or any(name.startswith("busbw[") for name in run.metrics):
        if not run.failed:
            out.warnings.append(f"the nccl-tests run at line {run.lines[0]} has no 'Avg bus bandwidth' line "
                                "(cut off?); its size rows are kept")
        out.runs.append(run)
