"""Result tables an unknown program prints: a header line naming the columns, then rows of
numbers aligned under it (pandas' ``DataFrame`` print, which ``triton.testing.perf_report`` uses,
with its integer index first; a script's own ``print`` of padded columns, of Markdown pipes, of
box-drawn cells as rich and tabulate draw them, or of comma-separated values), and labelled rows of
figures (``FLASH_ATTN : 0.56ms avg, 6677821 tokens/sec avg``).

Units come from the header (``avg_pred_t/s``, ``TFLOPS``, ``latency (ms)``), from the cells
(``11.976s``), or from the title line above the table (``TFLOP/s comparison ...:``). Rows:

- a table whose headers name figures gives one run per row; its first column (and any other
  column of words) are the row's settings;
- a table whose columns are what is compared (headers that name no measure, in the title's unit)
  over rows of one swept number gives one run per column (setting ``column``), its cells the
  points of a series named by the swept column (``tflops[batch_size=512.0]``);
- labelled rows give one run per row (setting ``row``).

All runs are ``documented=False``: the shape of the output is known, the program is not.

>>> out = read('''category  avg_pred_t/s  avg_latency
... --------  ------------  -----------
... coding    51.55         11.976s
... qa        51.66         9.242s''')
>>> [(r.settings, {k: (m.text, m.unit) for k, m in r.metrics.items()}) for r in out.runs][0]
({'category': 'coding'}, {'output_throughput': ('51.55', 'tok/s'), 'mean_latency': ('11.976', 's')})
>>> [r.settings["row"] for r in read("A   :  0.56ms avg,  6677 tokens/sec avg\\nB   :  0.65ms avg,  5713 tokens/sec avg").runs]
['A', 'B']
>>> read("prompt eval count:    27 token(s)\\nprompt eval rate:     402.19 tokens/s").runs
[]
"""

from __future__ import annotations

import re

from kb.importers.read import cells, labels
from kb.importers.read.base import NUMBER, Measure, Readout, RunReading, number

TOOL = "printed"
SOURCES = {"pandas DataFrame.to_string (as triton.testing.perf_report prints it)": ()}
"""The shapes read."""

_SPLIT = re.compile(r"\s{2,}|\t")
_BOX = str.maketrans({**dict.fromkeys("│┃║╎┆┇┊┋", "|"), **dict.fromkeys("─━═┄┅┈┉╌╍┏┓┗┛┌┐└┘┡┩┢┪╇╈┣┫┠┨├┤┬┴┼┯┷┿┳┻╋╤╧╪╔╗╚╝╠╣╦╩╬╒╕╘╛╞╡╓╖╙╜╟╢╥╨╫", "-")})
"""Box-drawing characters as terminal table printers draw them (Python's rich, tabulate's
``fancy_grid``): vertical bars become column pipes, the rest rule lines."""
_RULE = re.compile(r"^[\s=+|:-]+$")
_CELL = re.compile(rf"^\s*({NUMBER})\s*([A-Za-zµμ/%]+(?:/[A-Za-z]+)?)?\s*$")
_ROW = re.compile(rf"^\s*([A-Za-z][\w .()/+-]*?)\s*[:|]\s*((?:{NUMBER})\s*[A-Za-zµμ/%]+(?:/[A-Za-z]+)?.*)$")
_FIGURE = re.compile(rf"({NUMBER})\s*([A-Za-zµμ/%]+(?:/[A-Za-z]+)*)")


def read(text: str) -> Readout:
    """The runs of the printed tables and labelled rows in ``text`` (see the module docstring)."""
    out = Readout()
    lines = text.translate(_BOX).splitlines() if any(c in text for c in "│┃║") else text.splitlines()
    i = 0
    title_unit: str | None = None
    invocation = 0
    while i < len(lines):
        line = lines[i]
        header = _header(line)
        if header is not None:
            rows, end = _rows(lines, i + 1, len(header))
            if len(rows) >= 1:
                runs = _table_runs(header, rows, title_unit)
                for run in runs:
                    run.invocation = invocation
                if runs:
                    invocation += 1
                    out.runs.extend(runs)
                    i = end
                    continue
        named = labels.units_named(line) if line.rstrip().endswith(":") else []
        if named:
            title_unit = named[0]
        i += 1
    if not out.runs:
        _labelled_rows(lines, out)
    return out


def _split(line: str) -> list[str]:
    """A line's cells: between pipes when it is a pipe-delimited row (Markdown emphasis and an
    estimate's ``~`` taken off: ``**~435ms**`` is ``435ms``), else split by runs of spaces."""
    stripped = line.strip()
    if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 3:
        return [_plain(c) for c in stripped[1:-1].split("|")]
    cells = [c for c in _SPLIT.split(stripped) if c]
    if len(cells) == 1 and stripped.count(",") >= 2 and '"' not in stripped and ": " not in stripped:
        return [c.strip() for c in stripped.split(",")]  # a script's CSV print (``model,python,swift``)
    return cells


def _plain(cell: str) -> str:
    text = cell.strip().strip("*_`").strip()
    return text[1:].lstrip() if text[:1] in "~≈<>≤≥" and text[1:].strip()[:1].isdigit() else text


def _header(line: str) -> list[str] | None:
    """The column names of a header line: two or more names split by runs of spaces, not numbers."""
    cells = _split(line)
    if len(cells) < 2 or any(number(c) is not None for c in cells) or _RULE.match(line):
        return None
    if any((found := _CELL.match(c)) and found.group(2) and labels.unit_of(found.group(2)) for c in cells):
        return None  # a row of figures ("4.9 GB"), which names no column
    if any(len(c) > 40 for c in cells) or line.strip().endswith(":") or cells[0].endswith(":"):
        return None  # "prompt eval count:    27 token(s)": a name: value line (ollama --verbose), no header
    return cells


def _rows(lines: list[str], start: int, width: int) -> tuple[list[tuple[int, list[str]]], int]:
    rows: list[tuple[int, list[str]]] = []
    i = start
    while i < len(lines):
        line = lines[i]
        if _RULE.match(line) and line.strip():
            i += 1
            continue
        if not line.strip():
            break
        cells = _split(line) if line.strip().startswith("|") or line.count(",") >= 2 else line.split()
        if len(cells) not in (width, width + 1):
            cells = _split(line)
        if len(cells) == width + 1 and cells[0].isdigit():  # pandas' index column
            cells = cells[1:]
        if len(cells) != width or not any(_CELL.match(c) for c in cells):
            break
        shape = [bool(_CELL.match(c)) for c in cells]
        first = [bool(_CELL.match(c)) for c in rows[0][1]] if rows else shape
        if any(a != b and cell and other for a, b, cell, other in list(zip(shape, first, cells, rows[0][1] if rows else cells))[1:]):
            break  # a line of another shape ends the table ("best: 61.0 tok/s (tp=4)"); an empty cell fits any
        rows.append((i + 1, cells))
        i += 1
    return rows, i


def _table_runs(header: list[str], rows: list[tuple[int, list[str]]], title_unit: str | None) -> list[RunReading]:
    transposed = _measures_by_row(header, rows)
    if transposed is not None:
        return [transposed]
    columns: list[tuple[str, str, str | None]] = []
    for position, name in enumerate(header):
        cells = [row[position] for _, row in rows]
        parsed = [_CELL.match(c) for c in cells]
        numeric = [p for p in parsed if p]
        named = labels.header_figure(name)
        units = {labels.unit_of(p.group(2)) for p in numeric if p.group(2)}
        units -= {None, "%", "x"}  # shares and ratios compare; they measure nothing
        if len(numeric) < len(cells) or (position == 0 and not named):
            columns.append(("setting", name, None))
        elif named:
            columns.append(("figure", named[0], named[1]))
        elif labels.one_dimension({u for u in units if u}):  # "4.9 GB" over "274 MB": one size
            unit = next(labels.unit_of(p.group(2)) for p in numeric if p.group(2) and labels.unit_of(p.group(2)) in units)
            columns.append(("figure", labels.name_for(name, unit or ""), unit))
        elif title_unit and not labels.names_measure(name):
            columns.append(("arm", name, title_unit))
        else:
            columns.append(("setting", name, None))
    columns = _distinct_names(columns, header)
    arms = [c for c in columns if c[0] == "arm"]
    settings = [(position, c) for position, c in enumerate(columns) if c[0] == "setting"]
    if arms and len(settings) == 1:
        dim_at, (_, dim, _) = settings[0]
        runs = []
        for position, (_, arm, unit) in enumerate(columns):
            if (_, arm, unit) not in arms:
                continue
            run = RunReading(TOOL, settings={"column": arm}, documented=False, lines=(rows[0][0] - 1, rows[-1][0]))
            metric = labels.name_for("", unit or "")
            for line, row in rows:
                found = _CELL.match(row[position])
                if found and unit:
                    run.metrics[f"{metric}[{dim}={row[dim_at]}]"] = Measure(found.group(1).replace(",", ""), unit,
                                                                            line=line)
            if run.metrics:
                runs.append(run)
        return runs
    if not any(c[0] == "figure" for c in columns):
        return []
    total = _breakdown_total(columns, rows)
    start = rows[0][0]
    if total is not None:  # the rows are the parts of one measurement: the run is their total
        rows = [total]
    elif labels.repetitions(header[0], [row[0] for _, row in rows]):
        return []  # the passes of one measurement (run 1, 2, 3): their summary, printed with them, is the run
    runs = []
    for line, row in rows:
        run = RunReading(TOOL, documented=False, lines=(line, line) if total is None else (start, line))
        for position, (kind, name, unit) in enumerate(columns):
            if kind == "setting":
                run.settings[name] = row[position]
                continue
            found = _CELL.match(row[position])
            if not found:
                continue
            cell_unit = labels.unit_of(found.group(2)) if found.group(2) else unit
            if cell_unit and cell_unit not in ("%", "x"):
                run.metrics[name if cell_unit == unit else labels.name_for(header[position], cell_unit)] = Measure(
                    found.group(1).replace(",", ""), cell_unit, line=line,
                    generic=not labels.qualifies(header[position], cell_unit))
        if run.metrics:
            runs.append(run)
    return runs


def _measures_by_row(header: list[str], rows: list[tuple[int, list[str]]]) -> RunReading | None:
    """A two-column table whose rows name the measures (``| metric | value |`` over ``| output
    tok/s | 83.6 |``, ``| TTFT | 435ms |``): one run, a figure a row, named and united by the row's
    label (or the cell's unit). ``None`` unless most rows' labels name a measure."""
    if len(header) != 2 or len(rows) < 2 or sum(labels.names_measure(r[1][0]) for r in rows) * 2 < len(rows):
        return None
    run = RunReading(TOOL, documented=False, lines=(rows[0][0], rows[-1][0]))
    for line, (label, value) in rows:
        found = _CELL.match(value)
        if not found:
            return None
        named = labels.header_figure(label)
        cell_unit = labels.unit_of(found.group(2)) if found.group(2) else None
        unit = cell_unit or (named[1] if named else None)
        if unit is None or unit in ("%", "x"):
            continue  # a count or a ratio (accept length 2.41): kept by no unit
        name = named[0] if named and named[1] == unit else labels.name_for(label, unit)
        run.metrics.setdefault(name, Measure(found.group(1).replace(",", ""), unit, line=line,
                                             generic=not labels.qualifies(label, unit)))
    return run if run.metrics else None


def _distinct_names(columns: list[tuple[str, str, str | None]], header: list[str]) -> list[tuple[str, str, str | None]]:
    """Figure columns that would share a name (``Total (ms)``, ``Encode (ms)``, ``Decode (ms)``
    are all ``latency``): the first keeps it, the others are named by their header too
    (``encode_latency``); a ``Total`` column takes the plain name."""
    figures = [i for i, c in enumerate(columns) if c[0] == "figure"]
    out = list(columns)
    by_name: dict[str, list[int]] = {}
    for i in figures:
        by_name.setdefault(columns[i][1], []).append(i)
    for name, positions in by_name.items():
        if len(positions) < 2:
            continue
        keeper = next((i for i in positions if cells.is_summary(header[i])), positions[0])
        for i in positions:
            if i != keeper:
                words = "_".join(re.findall(r"[a-z0-9]+", re.sub(r"\(.*?\)", "", header[i].lower()))) or f"column{i}"
                out[i] = ("figure", f"{words}_{name}" if not name.startswith(words) else f"{name}_{i}", columns[i][2])
    return out


def _breakdown_total(columns: list[tuple[str, str, str | None]], rows: list[tuple[int, list[str]]]) -> tuple[int, list[str]] | None:
    """The ``Total`` row of a table whose other rows add up to it (a time broken down by stage):
    such rows are the parts of one run, not runs. ``None`` for any other table. The sum must be
    within 10 % of the total, in every figure column the total row fills."""
    if len(rows) < 3:
        return None
    total = next((r for r in rows if cells.is_summary(r[1][0]) and re.findall(r"[a-z]+", r[1][0].lower())[0]
                  in ("total", "totals", "sum", "overall")), None)
    if total is None:
        return None
    parts = [r for r in rows if r is not total]
    checked = 0
    for position, (kind, _, _) in enumerate(columns):
        if kind != "figure":
            continue
        found = _CELL.match(total[1][position])
        if not found:
            continue
        values = [_CELL.match(row[position]) for _, row in parts]
        if not all(values):
            return None
        whole = float(found.group(1).replace(",", ""))
        summed = sum(float(v.group(1).replace(",", "")) for v in values if v)
        if whole <= 0 or abs(summed - whole) > 0.1 * whole:
            return None
        checked += 1
    return total if checked else None


def _labelled_rows(lines: list[str], out: Readout) -> None:
    """Lines of a label and figures with units (``FLASH_ATTN : 0.56ms avg, 6677821 tokens/sec
    avg``), when at least two lines have that shape: one run each; lines whose labels count
    devices (``gpu0``, ``gpu1``: :func:`kb.importers.read.labels.counting`) are none."""
    found: list[RunReading] = []
    for number_, line in enumerate(lines, 1):
        match = _ROW.match(line)
        if not match or labels.names_measure(match.group(1)):
            continue  # "output throughput: 21.0 tok/s" names its figure: a name value unit line, not an arm
        run = RunReading(TOOL, settings={"row": match.group(1).strip()}, documented=False, lines=(number_, number_))
        for value, unit_text in _FIGURE.findall(match.group(2)):
            unit = labels.unit_of(unit_text)
            plain = number(value)
            if unit and plain is not None and unit not in ("%", "x"):
                name = labels.name_for("", unit)
                run.metrics.setdefault(name, Measure(plain, unit, line=number_, generic=True))
        if run.metrics:
            found.append(run)  # a row of only ratios or shares ("ratio (a/b): 21.48x") compares rows; it is none
    units = {tuple(m.unit for m in run.metrics.values()) for run in found}
    firsts = [run.settings["row"].split()[0] for run in found]
    if len(found) >= 2 and labels.counting(firsts):
        return  # "gpu0 mem used: 21.7 GiB" over "gpu1 mem used: ...": the devices of one run, no rows
    if len(found) >= 2 and len(units) == 1:  # rows that compare: the same figures, one row each
        for run in found:
            run.invocation = 0
        out.runs.extend(found)
