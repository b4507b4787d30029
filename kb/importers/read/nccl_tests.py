"""NVIDIA nccl-tests: ``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``alltoall_perf``, ``sendrecv_perf`` and the other ``*_perf`` programs (``*_perf_mpi`` when built
with MPI).

Facts (NVIDIA/nccl-tests ``src/common.cu``, README and ``doc/PERFORMANCE.md``): a run prints
``# nccl-tests version 2.18.0 ...`` and ``# Collective test starting: all_reduce_perf`` (recent
builds), a ``# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5
iters: 20 ...`` line, one ``#  Rank N Group N Pid N on HOST device N [BUS] NAME`` line a rank
(older builds print no ``Group``), a two-line column header (``size count type redop root time
algbw busbw #wrong`` for the out-of-place half, then the same for in-place; older builds print
``error`` for ``#wrong``, no ``root``, and leave the ``redop`` cell blank for collectives without
one), one row a message size (bytes), ``# Out of bounds values : 0 OK`` and ``# Avg bus bandwidth :
94.2188`` (GB/s) at the end. NCCL itself logs ``NCCL INFO NCCL version 2.18.5+cuda12.2`` (NCCL
docs, environment variable ``NCCL_DEBUG=INFO``). Under ``mpirun --tag-output`` (Open MPI docs) every
write is prefixed ``[job,rank]<stdout>:``, which may land inside a row.

One run per table: ``busbw`` is the average bus bandwidth (the run's own summary), and each row
gives the points ``busbw[size=N]``, ``algbw[size=N]`` (GB/s) and ``time[size=N]`` (us) of the
out-of-place columns. Settings are as printed: ``op`` (the program, from the starting line or the
command), ``nranks`` (the Rank lines counted), ``nthread``, ``ngpus``, ``min_bytes``,
``max_bytes``, ``step``, ``warmup_iters``, ``iters``, ``agg_iters``, ``validation``, ``graph``,
``dtype``, ``redop``, ``out_of_bounds_values``, ``nccl_tests_version`` and ``nccl_version``.

Warnings (the output was recognised only in half): a run without its average line (cut off), an
average line that is not one number, rows without a column header, a ``...`` line in a table
(rows elided), a size printed twice (the first row is kept), and a failure: a ``Test NCCL
failure`` or ``Test failure`` line marks the run failed, with the first such line as its error; a
failed run is kept even with no rows.

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
        "nccl-tests version", "Collective test starting", "nThread", "nGpus", "minBytes", "maxBytes",
        "warmup iters", "agg iters", "Using devices", "out-of-place", "in-place", "Out of bounds values",
        "Avg bus bandwidth", "Test NCCL failure", "Test failure",
        "size count type redop root time algbw busbw #wrong time algbw busbw #wrong"),
    "NVIDIA NCCL documentation, NCCL_DEBUG=INFO (the version banner)": ("NCCL INFO NCCL version",),
    "Open MPI mpirun --tag-output (the [job,rank]<stdout>: prefix)": ("<stdout>", "<stderr>"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("busbw", "nthread", "bus bandwidth", "test nccl failure", "test failure")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_TAG = re.compile(r"\[\d+,\d+\]<std(?:out|err)>:")
_VERSION = re.compile(r"^#?\s*nccl-tests version\s+(\S+)")
_STARTING = re.compile(r"^#?\s*Collective test starting:\s*(\S+)")
_PARAMS = re.compile(r"^#?\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)(.*)$")
_STEP = re.compile(r"step:\s*(\S+)")
_ITERS = re.compile(r"(warmup iters|agg iters|iters|validation|graph):\s*(\d+)")
_RANK = re.compile(r"^#?\s*Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+\S+\s+device\s+\d+")
_HEADER = re.compile(r"^#\s*size\s+count\s+type\b.*\bbusbw\b")
_AVG = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(.*?)\s*$")
_AVG_VALUE = re.compile(rf"^({NUMBER})(?:\s*GB/s)?$")
_BOUNDS = re.compile(r"^#?\s*Out of bounds values\s*:\s*(.+?)\s*$")
_NCCL = re.compile(r"\bNCCL INFO NCCL version\s+(\S+)")
_FAILURE = re.compile(r"\bTest (?:NCCL )?failure\b.*$")
_PROGRAM = re.compile(r"\b([a-z_]+_perf(?:_mpi)?)\b")
_ELIDED = re.compile(r"^(?:\.{3,}|…)$")
_DEFAULT_COLUMNS = ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"]
"""The column header of nccl-tests 2.x, for rows whose header was not captured."""


class _Reader:
    """The state of one pass over an output: the run being read and what precedes it."""

    def __init__(self) -> None:
        self.out = Readout()
        self.run: RunReading | None = None
        self.rows = False
        self.context: dict[str, str] = {}
        self.program: str | None = None
        self.ranks = 0
        self.failure: str | None = None
        self.columns: list[str] = []
        self.notes: list[str] = []
        self.sizes: set[str] = set()

    def start(self, line: int) -> RunReading:
        """The run being read, opened at ``line`` with what preceded it when none is."""
        if self.run is None:
            settings = dict(self.context)
            if self.program:
                settings.setdefault("op", self.program)
            if self.ranks:
                settings["nranks"] = str(self.ranks)
            self.run = RunReading(TOOL, settings=settings, lines=(line, line), invocation=len(self.out.runs))
            if self.failure:
                self.fail(self.failure, line)
            self.context, self.ranks, self.failure, self.columns, self.rows = {}, 0, None, [], False
            self.notes, self.sizes = [], set()
        return self.run

    def fail(self, error: str, line: int) -> None:
        """Mark the run failed with its first failure line as the error."""
        run = self.run
        if run is None:
            self.failure = self.failure or error
            return
        if not run.failed:
            run.failed, run.error = True, error
        run.lines = (run.lines[0], line)

    def close(self, *, summarised: bool = False) -> None:
        """Keep the run being read when it holds rows, a summary or a failure."""
        run, self.run = self.run, None
        if run is None:
            return
        if not (run.failed or summarised or self.rows):
            return
        warnings = list(self.notes)
        if run.failed:
            warnings.append(f"the nccl-tests run at line {run.lines[0]} failed: {run.error}")
        elif not summarised and "busbw" not in run.metrics:
            warnings.append(f"the nccl-tests run at line {run.lines[0]} has no 'Avg bus bandwidth' line "
                            "(cut off?); its size rows are kept")
        self.out.warnings.extend(warnings)
        self.out.runs.append(run)

    def row(self, cells: list[str], line: int) -> None:
        """Add the out-of-place points of one size row (cells mapped from the right when the
        ``redop`` cell is blank)."""
        run = self.start(line)
        if not self.columns:
            self.columns = list(_DEFAULT_COLUMNS)
            self.notes.append(f"the nccl-tests rows from line {line} have no column header; nccl-tests 2.x "
                              "columns assumed")
        self.rows = True
        run.lines = (run.lines[0], line)
        size = cells[0]
        if size in self.sizes:
            if not any("printed twice" in note for note in self.notes):
                self.notes.append(f"the nccl-tests run at line {run.lines[0]} prints size {size} twice "
                                  "(the first row is kept)")
            return
        self.sizes.add(size)
        run.settings.setdefault("dtype", cells[2])
        rest, tail = cells[3:], self.columns[3:]
        names = tail[-len(rest):] if len(rest) <= len(tail) else tail
        for name, cell in zip(names, rest[-len(names):]):
            if name == "redop" and number(cell) is None:
                run.settings.setdefault("redop", cell)
        for name, unit in (("time", "us"), ("algbw", "GB/s"), ("busbw", "GB/s")):
            if name in names:
                value = number(rest[-len(names):][names.index(name)])
                if value is not None:
                    run.metrics[f"{name}[size={size}]"] = Measure(value, unit, line=line)


def _is_row(cells: list[str]) -> bool:
    """Whether ``cells`` are a size row: size and count as integers, then the type."""
    return (len(cells) >= 6 and cells[0].isdigit() and cells[1].isdigit()
            and number(cells[2]) is None and cells[2].isidentifier())


def read(text: str) -> Readout:
    """The runs of nccl-tests in ``text`` (see the module docstring)."""
    state = _Reader()
    for at, raw in enumerate(text.splitlines(), 1):
        line = _TAG.sub(" ", raw).strip()
        if not line:
            continue
        found = _VERSION.match(line) or _STARTING.match(line)
        if found:
            if state.rows or (state.run and state.run.failed):
                state.close()
            if found.re is _VERSION:
                state.context["nccl_tests_version"] = found.group(1)
            else:
                state.program = found.group(1)
            continue
        found = _PARAMS.match(line)
        if found:
            state.close()
            state.context.update({"nthread": found.group(1), "ngpus": found.group(2),
                                  "min_bytes": found.group(3), "max_bytes": found.group(4)})
            step = _STEP.search(found.group(5))
            if step:
                state.context["step"] = step.group(1)
            state.context.update({key.replace(" ", "_"): value for key, value in _ITERS.findall(found.group(5))})
            state.start(at)
            continue
        if _RANK.match(line):
            if state.run is not None and not state.rows:
                state.run.settings["nranks"] = str(int(state.run.settings.get("nranks", "0")) + 1)
            else:
                state.ranks += 1
            continue
        found = _NCCL.search(line)
        if found:
            target = state.run.settings if state.run is not None else state.context
            target.setdefault("nccl_version", found.group(1))
            continue
        found = _FAILURE.search(line)
        if found:
            state.fail(found.group(0).strip(), at)
            continue
        if _HEADER.match(line):
            if state.rows:
                state.close()
            state.start(at)
            state.columns = line.lstrip("#").split()
            continue
        found = _AVG.match(line)
        if found and state.run is not None:
            value = _AVG_VALUE.match(found.group(1))
            if value and number(value.group(1)) is not None:
                state.run.metrics["busbw"] = Measure(number(value.group(1)) or "", "GB/s", line=at)
            else:
                state.notes.append(f"the nccl-tests average at line {at} is not one number "
                                   f"({found.group(1)!r}); no average is kept")
            state.run.lines = (state.run.lines[0], at)
            state.close(summarised=True)
            continue
        found = _BOUNDS.match(line)
        if found and state.run is not None:
            state.run.settings["out_of_bounds_values"] = found.group(1)
            continue
        if state.run is not None and state.rows and _ELIDED.match(line):
            if not any("elided" in note for note in state.notes):
                state.notes.append(f"the nccl-tests table has rows elided at line {at}")
            continue
        if line.startswith("#"):
            continue
        cells = line.split()
        if _is_row(cells):
            state.row(cells, at)
            continue
        called = _PROGRAM.search(line)
        if called:
            state.program = called.group(1)
    state.close()
    return state.out
