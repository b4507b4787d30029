"""PyTorch profiler summaries: what ``prof.key_averages().table(...)`` prints (``torch.profiler``
and ``torch.autograd.profiler``), pasted as printed or copied into a Markdown pipe table.

Facts (PyTorch ``torch/autograd/profiler_util.py``, ``_build_table`` and ``_format_time``; the
profiler recipe of the PyTorch tutorials): the table is framed by dashed separator lines; its
header row names the columns ``Name``, ``Self CPU %``, ``Self CPU``, ``CPU total %``, ``CPU total``,
``CPU time avg``, with a device ``Self CUDA``, ``Self CUDA %``, ``CUDA total``, ``CUDA time avg``
(another device's name in place of CUDA), memory columns with ``profile_memory``, ``# of Calls``,
and ``Input Shapes``, ``Source Location`` or FLOPs columns when asked for. One row per operator
(``row_limit`` rows, sorted by ``sort_by``). After the closing separator come the totals:
``Self CPU time total: T`` and, when a device was profiled, ``Self CUDA time total: T`` (``Self
XPU …`` and so on). Times are printed by ``_format_time``: three decimals and ``us`` below 1 ms,
``ms`` below 1 s, else ``s``.

One run a table: the totals are its figures, the rows its breakdown (not runs). ``time`` is the
device total when one is printed, else the CPU total (what the profiled code cost where it ran);
``cpu_time`` is the CPU total beside a device total. Settings: ``top_op`` (the first row's name:
the operator the table was sorted to put first) and ``device`` (the device the total names, lower
case). A run spans the table's first line (its separator or header) to its last totals line;
totals printed without a table are a run of their own.

A header row is ``Name`` and at least one of those columns (tables printed with some columns left
out are read too).

Warnings: a header row that no totals line follows (the output was cut off): left out; a total
whose unit is not one ``_format_time`` prints (``57.549m``): the run is kept without that figure.

>>> out = read('''---------------  ------------  ------------  ------------  ------------  ------------
...            Name    Self CPU %      Self CPU   CPU total %     CPU total    # of Calls
... ---------------  ------------  ------------  ------------  ------------  ------------
...     aten::addmm        60.00%       1.200ms        80.00%       1.600ms             3
... ---------------  ------------  ------------  ------------  ------------  ------------
... Self CPU time total: 2.000ms
... Self CUDA time total: 850.500us''')
>>> run = out.runs[0]
>>> run.metrics["time"].text, run.metrics["time"].unit, run.metrics["cpu_time"].text, run.settings
('850.500', 'us', '2.000', {'top_op': 'aten::addmm', 'device': 'cuda'})
"""

from __future__ import annotations

import re

from kb.importers.read.base import NUMBER, Measure, Readout, RunReading

TOOL = "torch.profiler"
SOURCES = {
    "PyTorch torch/autograd/profiler_util.py (_build_table, _format_time)": (
        "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls",
        "Self CPU time total:", "time total:"),
    "PyTorch recipes: Profiling your PyTorch module / PyTorch Profiler (key_averages().table)": (
        "Self CUDA", "CUDA total", "CUDA time avg", "Self CUDA time total:"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("self cpu time total", "# of calls")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_TOTAL = re.compile(rf"^[\s*_|>]*Self\s+([A-Za-z0-9]+)\s+time\s+total:\s*({NUMBER})\s*([A-Za-z]*)")
_UNITS = ("us", "ms", "s")
"""What ``_format_time`` prints after a time."""
_COLUMN = re.compile(r"^(?:Self\s+)?[A-Za-z0-9]+\s+(?:total(?:\s+%)?|time\s+avg|Mem|%)$|^#\s+of\s+Calls$|^Input\s+Shapes$", re.I)
_SEPARATOR = re.compile(r"^[\s|:=-]*-{3,}[\s|:=-]*$")


def _is_header(line: str) -> bool:
    """A header row: ``Name`` first, then at least one column ``_build_table`` prints (a table
    printed with some columns left out, ``Name | CPU total | Input Shapes``, is one too)."""
    cells = _cells(line)
    return len(cells) >= 2 and cells[0].strip("*_ ").lower() == "name" and any(_COLUMN.match(c.strip("*_ ")) for c in cells[1:])


def _cells(line: str) -> list[str]:
    """A row's cells: between pipes in a Markdown table, else between runs of two or more spaces."""
    stripped = line.strip()
    if stripped.startswith("|"):
        return [cell.strip() for cell in stripped.strip("|").split("|")]
    return [cell for cell in re.split(r"\s{2,}", stripped) if cell]


def read(text: str) -> Readout:
    """The runs of PyTorch profiler summaries in ``text`` (see the module docstring)."""
    out = Readout()
    lines = text.splitlines()
    start: int | None = None  # the 1-based first line of the table being read
    top: str | None = None
    header_at: int | None = None
    totals: dict[str, tuple[str, str, int]] = {}
    last_total = 0

    def close() -> None:
        nonlocal start, top, header_at, totals, last_total
        if totals:
            out.runs.append(_run(totals, top, (start or min(at for _v, _u, at in totals.values()), last_total)))
        elif header_at is not None:
            out.warnings.append(f"a PyTorch profiler table (line {header_at}) has no 'Self CPU time total' line "
                                "after it (cut off?): left out")
        start, top, header_at, totals, last_total = None, None, None, {}, 0

    for at, line in enumerate(lines, 1):
        found = _TOTAL.match(line)
        if found:
            device = found.group(1).lower()
            if device in totals:  # a second totals block without a table between: another run
                close()
            unit = found.group(3)
            if unit not in _UNITS:
                out.warnings.append(f"line {at}: the {found.group(1)} time total {found.group(2)}{unit} has no unit "
                                    f"of {', '.join(_UNITS)}: left out of the run's figures")
            totals[device] = (found.group(2).replace(",", ""), unit if unit in _UNITS else "", at)
            last_total = at
            continue
        if totals and line.strip():
            close()  # the totals ended the run; whatever follows is not part of it
        if _is_header(line):
            if header_at is not None:
                close()
            header_at = at
            top = None
            previous = lines[at - 2] if at >= 2 else ""
            start = at - 1 if at >= 2 and _SEPARATOR.match(previous) else at
            continue
        if header_at is not None and top is None and line.strip() and not _SEPARATOR.match(line):
            cells = _cells(line)
            if cells and len(cells) >= 3:
                top = cells[0]
    close()
    return out


def _run(totals: dict[str, tuple[str, str, int]], top: str | None, lines: tuple[int, int]) -> RunReading:
    """One profiled run from its totals (device → (number, unit, line))."""
    run = RunReading(TOOL, lines=lines)
    devices = [name for name in totals if name != "cpu"]
    names = {devices[0]: "time", "cpu": "cpu_time"} if devices else {"cpu": "time"}
    for device, name in names.items():
        value, unit, at = totals.get(device, ("", "", 0))
        if unit:  # a total printed without a unit _format_time writes is no figure
            run.metrics[name] = Measure(value, unit, line=at)
    if top:
        run.settings["top_op"] = top
    if devices:
        run.settings["device"] = devices[0]
    return run
