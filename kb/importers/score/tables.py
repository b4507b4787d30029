"""Candidates from tables: a results table's rows (or, in a table whose columns are the arms, its
columns), by the shape of the table alone.

Columns are told apart by their header and their cells (:mod:`kb.importers.read.labels`,
:mod:`kb.importers.read.cells`): *figure* columns (a unit or a metric term in the header, or cells
that are figures with a unit), *mark* columns (most cells mark a result: ✅, ❌, OOM), *difference*
columns (signed or ``x`` cells: they compare, they measure nothing), *text* columns (long cells:
notes and error text) and *setting* columns (the rest: what was run).

A row is a candidate when it has a figure or marks a failure, and names what was run. Rows that
are not runs are left out by their shape: rows with nothing measured yet (``TBD``, ``—``), and
rows whose every figure is the sum, mean or difference of other rows' (totals, averages,
differences). Rows are compared within their table, and within the blocks of a setting column
whose values repeat (one model's rows, then another's): a row marked as the reference, else the
first measured row of its block, is the baseline.

A table whose rows are the measures is read by column (each column one configuration): its first
column names measures, or every row gives one unit in each of two or more columns while the rows'
units differ (tok/s, then GB, then s). Number columns whose headers differ only in an amount
(``bs 1 | bs 8 | bs 32``, ``c=2 | c=4``) are the points of one sweep of each row; a unit named in
the corner header (``Throughput (token/s) vs. length``) is their cells' unit. Columns that count
what a run was deployed on (``1 GPU | 2 GPUs``, ``TP=2``, ``EP=8``) are a launch each: a run per
cell, compared down its column. Columns that pair a measure with a configuration (``Prompt tok/s
(base) | Prompt tok/s (patched) | Gen tok/s (base) | ...``, ``tok/s A | VRAM GB A``) give a run
per row and configuration (:func:`_paired`).
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import replace

from kb.importers.events import Locator, Table, TableRow
from kb.importers.model import Evidence, Figure, locator_text, short_quote
from kb.importers.read import cells, dates, labels, prose, stack, statements
from kb.importers.read import commands as shell
from kb.importers.read import errors as error_output
from kb.importers.score import repeats
from kb.importers.score.candidate import MEMORY_UNITS, TIME_UNITS, Candidate, decimals
from kb.importers.segment import Segment

LEVEL = "#at="
"""Separates a table group's name from the load level its rows are compared at (:func:`_load_level`)."""

_CONSTANT = 3
"""A column holding one value in every one of at least this many rows is a setting they share."""

_TEXT_WORDS = 5
"""Cells of at least this many words on average make a column of text (notes, error messages)."""


def table_candidates(segment: Segment, context_units: list[str] | None = None,
                     defined: dict[str, str] | None = None) -> list[Candidate]:
    """The candidates of one ``table`` segment (see the module docstring). ``context_units``: the
    units the text just above the table names (``All figures are it/s``), for number columns whose
    header has none; ``defined``: the units the text above gives column names (``"throughput" is
    output tokens per second``: :func:`kb.importers.read.labels.units_defined`)."""
    table = segment.table
    if table is None or not table.rows or not table.headers:
        return []
    table = _with_defined_units(_filled_down(table), defined or {})
    if not context_units and any(all(labels.unit_of_test(prose.plain(row.cells.get(h, ""))) for row in table.rows)
                                 for h in table.headers):
        context_units = ["tok/s"]  # a column of llama-bench tests (pp512, tg128 @ d4096): its numbers are t/s
    if not context_units:  # | Throughput (token/s) vs. length | max 32 | max 128 |: the corner names the cells' unit
        corner = prose.plain(table.headers[0])
        context_units = labels.units_named(corner) or [u for u in [labels.bracketed_unit(corner)] if u]
    context_unit = context_units[0] if context_units else None
    paired = _paired(table)
    roles = _roles(table, context_unit, paired)
    if any(cells.is_formula(value) for row in table.rows for value in row.cells.values()):
        return []  # a worked calculation (``5.4 × 14.0 = 75 ms``): derived figures, no run
    if paired:
        return _qualified_arms(segment, table, roles, paired)
    if _transposed(table):
        transposed = _arms(segment, table, context_unit)
        if transposed:
            return transposed
    if any(role[0] == "answer" for role in roles.values()) and \
            not any(role[0] in ("figure", "arm") for role in roles.values()):
        return []  # "| Model size | Offload needed? | Recommended |": a guide that answers questions, no run measured
    measures = [h for h, role in roles.items() if role[0] in ("figure", "arm")]
    if measures and all(statements.names_unmeasured(prose.plain(h)) for h in measures):
        return []  # "| M | N | K | Target (us) |": goals or someone else's figures, nothing this log ran
    for header in measures:
        if roles[header][0] == "figure" and statements.names_unmeasured(prose.plain(header)):
            roles[header] = ("text", None, None)  # | Goal tg128 (t/s) | beside | Measured tg128 (t/s) |: no figure of the row
    if any(role[0] == "arm" for role in roles.values()):
        return _arm_columns(segment, table, roles)
    rows = [_row(segment, table, roles, row, position) for position, row in enumerate(table.rows)]
    found = [c for c in rows if c is not None]
    found = _request_log(found, table, roles)
    merged = _merged_rows(segment, table, roles, found)  # points of one run: no row of them is derived from the others
    if merged is not None:
        _group(merged, table, roles)
        return merged
    _drop_derived(found, roles)
    _group(found, table, roles)
    return found


def _filled_down(table: Table) -> Table:
    """The table with the empty cells of its first column filled from the row above, when that
    column names groups of rows that way (``| **model A** | default |`` then ``| | patched |``:
    a merged cell, as Markdown cannot span rows). The first row must name its group and at least
    two rows must name one; other columns are left as written."""
    first = table.headers[0]
    values = [row.cells.get(first, "") for row in table.rows]
    named = [v for v in values if v.strip()]
    if len(table.headers) < 3 or not values[0].strip() or len(named) < 2 or len(named) == len(values):
        return table
    rows: list[TableRow] = []
    above = values[0]
    for row in table.rows:
        value = row.cells.get(first, "")
        if value.strip():
            above = value
            rows.append(row)
        else:
            rows.append(TableRow({**row.cells, first: above}, row.line))
    return Table(table.headers, rows)


def _with_defined_units(table: Table, defined: dict[str, str]) -> Table:
    """The table with each header that names no unit but starts with a term the text above defines
    with one (``throughput (old)`` under ``"throughput" is output tokens per second``) given that
    unit before its bracketed part: ``throughput tok/s (old)``."""
    renamed: dict[str, str] = {}
    for header in table.headers[1:]:
        text = prose.plain(header)
        lowered = text.lower()
        if labels.header_figure(text) or labels.qualified_figure(text, statistics=True):
            continue
        term = next((t for t in sorted(defined, key=len, reverse=True)
                     if lowered == t or lowered.startswith(t + " ") or lowered.startswith(t + "(")), None)
        if term is not None:
            renamed[header] = f"{text[:len(term)]} {defined[term]}{text[len(term):]}"
    if not renamed:
        return table
    headers = [renamed.get(h, h) for h in table.headers]
    rows = [TableRow({renamed.get(h, h): v for h, v in row.cells.items()}, row.line) for row in table.rows]
    return Table(headers, rows)


REQUESTS = 3
"""Rows of one configuration, one a request, that a request log needs before they are one run."""


def _request_log(found: list[Candidate], table: Table, roles: dict) -> list[Candidate]:
    """A log of requests (a CSV or table a client wrote, one row a request, each row stamped with
    its own date and time) holds runs, not attempts: the rows of one configuration (the first
    setting column, in runs of :data:`REQUESTS` rows or more) are one attempt at the mean of their
    figures. A table with another column that differs in every row (a case key, an output file)
    names a configuration a row; it, like any other table, is returned as it is."""
    settings = [h for h, r in roles.items() if r[0] == "setting"]
    stamps = [h for h in settings if _stamps(table, h)]
    if not settings or len(found) < REQUESTS or not stamps:
        return found
    if any(_distinct(table, h) for h in settings if h not in stamps):
        return found  # a column that names each row apart (a case key, a file): every row a configuration
    first = settings[0]
    blocks: list[list[Candidate]] = []
    for candidate in found:
        if blocks and blocks[-1][0].settings.get(first) == candidate.settings.get(first):
            blocks[-1].append(candidate)
        else:
            blocks.append([candidate])
    if any(len(block) < REQUESTS for block in blocks):
        return found
    merged = []
    for block in blocks:
        run = repeats.mean_of(block, block[0].settings.get(first, ""))
        run.reason = f"the mean of {len(block)} requests of one configuration (a request log)"
        merged.append(run)
    return merged


def _distinct(table: Table, header: str) -> bool:
    """Whether a column holds a different value in every row."""
    values = [prose.plain(row.cells.get(header, "")) for row in table.rows]
    return len(set(values)) == len(values)


def _stamps(table: Table, header: str) -> bool:
    """Whether a column holds a distinct date and time in every row (a request's time stamp)."""
    values = [prose.plain(row.cells.get(header, "")) for row in table.rows]
    return len(values) >= REQUESTS and len(set(values)) == len(values) and all(
        dates.is_stamp(v) for v in values)


def _merged_rows(segment: Segment, table: Table, roles: dict, found: list[Candidate]) -> list[Candidate] | None:
    """Rows that are points of one run, not runs: they differ only in what was measured (a column
    headed ``Sample``, ``Case``, ``Prompt``, ``Dataset``, or of file names) or in a pass number
    (``Run`` 1, 2, 3), within blocks of the other settings (``fp16`` rows, ``int8`` rows). Each block of two or more rows becomes one
    attempt: the first row's figures under their plain names, every row's as points
    (``output_throughput[K=2]``). ``None`` when the table is not of that shape."""
    settings = [h for h, r in roles.items() if r[0] == "setting"]
    dim = _swept(table, settings, found)
    if dim is None:
        return None
    others = [h for h in settings if h != dim and not all(cells.measured(c.settings.get(h, "")) for c in found)
              and not _row_numbers(found, h)]
    blocks: dict[tuple, list[Candidate]] = {}
    for candidate in found:
        blocks.setdefault(tuple(candidate.settings.get(h, "") for h in others), []).append(candidate)
    if all(len(block) < 2 for block in blocks.values()):
        return None
    name = prose.plain(dim).strip()
    swept_numbers = table.written_by_program and _same_sweep([[c.settings.get(dim, "") for c in block]
                                                              for block in blocks.values()])
    out = []
    for block in blocks.values():
        if len(block) < 2 or any(c.failed for c in block) or len({c.marked for c in block}) > 1:
            out.extend(block)  # a failed or a marked row stands apart: the rows are compared
            continue
        central = next((c for c in block if labels.central_statistic(c.settings.get(dim, ""))), None)
        passes = [c for c in block if c is not central]  # the passes' own mean is no point of them
        repeated = labels.counts_passes(dim) and labels.repetitions(dim, [c.settings.get(dim, "") for c in block])
        head = passes[0]
        largest = max(passes, key=lambda c: float(c.settings.get(dim, "0").replace(",", ""))) \
            if swept_numbers and not repeated else None  # a sweep's headline is its largest point, as for swept columns
        points = {}
        for candidate in passes:
            for key, figure in candidate.figures.items():
                if "[" not in key:
                    point = f"{key}[{name}={candidate.settings.get(dim, '')}]"
                    points[point] = Figure(point, figure.text, figure.unit, figure.evidence, figure.spread, figure.generic)
        if central is not None:  # the mean the log prints is the attempt's figure
            head.figures = {k: f for k, f in central.figures.items() if "[" not in k}
        elif largest is not None:
            head.figures = {k: f for k, f in largest.figures.items() if "[" not in k}
        elif repeated:
            head.figures = _means(passes)
        head.figures.update(points)
        head.series = head.series and not repeated  # passes of one setting: the mean decides, not pass by pass
        last = max(c.locator.line_end or c.locator.line_start or 0 for c in block)
        head.locator = Locator(segment.locator.file, line_start=block[0].locator.line_start, line_end=last)
        rest = ", ".join(f"{prose.plain(h).strip()}={v}" if cells.switch_state(v) else v  # flash_attn=True, not True
                         for h, v in ((h, head.settings.get(h, "")) for h in others) if v)
        section = prose.plain(segment.path[-1]).strip() if segment.path else ""
        head.title = head.label = head.approach = (f"{rest} ({section})" if rest and section else rest or section
                                                   or f"{name} sweep")
        head.settings = {h: v for h, v in head.settings.items() if h != dim}
        head.workload = {}
        head.reason = f"rows of one run over {name} (a table's points, one attempt)"
        head.merged = True
        head.key = f"{segment.text}|{rest}"
        out.append(head)
    return out


def _means(block: list[Candidate]) -> dict[str, Figure]:
    """The plain figures of repeated passes (``block``'s rows) as their mean, each with the passes'
    sample standard deviation as its spread (the decimals of the most precise pass)."""
    first = block[0]
    means: dict[str, Figure] = {}
    for name, figure in first.figures.items():
        mine = [c.figures.get(name) for c in block]
        if "[" in name or any(f is None or f.unit != figure.unit for f in mine):
            means[name] = figure
            continue
        means[name] = _mean_figure(name, [f for f in mine if f is not None])
    return means


def _mean_figure(name: str, samples: list[Figure]) -> Figure:
    """Two or more passes' figures (one unit) as their mean, with their sample standard deviation
    as its spread, both to the decimals of the most precise pass; the first pass's evidence."""
    places = max(decimals(f.text) for f in samples)
    values = [f.value for f in samples]
    return Figure(name, f"{statistics.fmean(values):.{places}f}", samples[0].unit, samples[0].evidence,
                  f"{statistics.stdev(values):.{places}f}", samples[0].generic)


def _swept(table: Table, settings: list[str], found: list[Candidate]) -> str | None:
    """The setting column the rows run over, when they run over one, within each block of the
    other settings: a column that names workloads (headed ``Sample``, ``Prompt``, ``Case``, or
    holding file names), or a column of pass numbers (1, 2, 3 in each block). A column of swept
    numbers is left alone in a table a person typed (its rows over batch sizes are as often the
    configurations tried as one sweep), but not in a CSV file a script wrote (:func:`_same_sweep`)."""
    if len(found) < 2:
        return None
    for header in settings:
        blocks = _blocks_of(found, settings, header)
        values = [v for block in blocks for v in block]
        workload = labels.workload_key(header) == "dataset_name" or all(cells.file_name(v) for v in values)
        if workload and all(len(set(block)) == len(block) for block in blocks) and any(len(block) >= 2 for block in blocks):
            return header
        if all(labels.repetitions(header, block) for block in blocks) and any(len(b) >= 2 for b in blocks):
            return header
    for header in settings if table.written_by_program else ():  # a typed table's rows are as often runs
        blocks = _blocks_of(found, settings, header)
        if labels.names_workload_axis(prose.plain(header)) and _same_sweep(blocks):
            return header
    return None


def _same_sweep(blocks: list[list[str]]) -> bool:
    """Whether every block of the other settings runs the same three or more numbers in the same
    order (``128, 1024, 2048`` under each of four knob settings). In a CSV file a script wrote, over a
    column that names a workload (:func:`kb.importers.read.labels.names_workload_axis`: a prompt
    length, not a knob such as ``ubatch`` being tuned), that is one loop run once per configuration,
    so each block is one sweep; in a table a person typed, each row is as often a run of its own
    (crossed load levels)."""
    if len(blocks) < 2 or any(not all(cells.whole_number(v) or cells.decimal(v) for v in block) for block in blocks):
        return False
    return len(set(blocks[0])) >= 3 and all(block == blocks[0] for block in blocks)


def _row_numbers(found: list[Candidate], header: str) -> bool:
    """Whether a column numbers the rows (0, 1, 2, ... or 1, 2, 3, ... down the table: a pandas
    index), saying nothing of what was run."""
    values = [found_.settings.get(header, "") for found_ in found]
    if len(values) < 3 or not all(v.isdigit() for v in values):
        return False
    start = int(values[0])
    return start in (0, 1) and [int(v) for v in values] == list(range(start, start + len(values)))


def _blocks_of(found: list[Candidate], settings: list[str], header: str) -> list[list[str]]:
    """The values of column ``header`` in each block of the other (non-numeric) settings."""
    others = [h for h in settings if h != header and not all(cells.measured(c.settings.get(h, "")) for c in found)
              and not _row_numbers(found, h)]
    blocks: dict[tuple, list[str]] = {}
    for candidate in found:
        blocks.setdefault(tuple(candidate.settings.get(h, "") for h in others), []).append(candidate.settings.get(header, ""))
    return list(blocks.values())


def _roles(table: Table, context_unit: str | None, paired: dict[str, tuple[str, str, str]] | None = None,
           ) -> dict[str, tuple[str, str | None, str | None]]:
    """Each column's role: ``("figure", name, unit)``, ``("arm", name, unit)`` (number columns
    whose headers name configurations, not measures, in a unit the text above gives: each cell is
    a run), ``("mark", None, None)``, ``("delta", ...)``, ``("text", ...)`` or ``("setting", ...)``.
    ``paired``: the columns :func:`_paired` found, figures of their measure."""
    roles: dict[str, tuple[str, str | None, str | None]] = {}
    knobs = _leading_knobs(table) if context_unit else set()
    sweep = _sweep_headers(table.headers[1:])
    for header in table.headers:
        if paired and header in paired:
            roles[header] = ("figure", paired[header][0], paired[header][1])
            continue
        if header in knobs:
            roles[header] = ("setting", None, None)  # the settings each row ran with
            continue
        if header == table.headers[0] and labels.workload_key(header) == "dataset_name":
            roles[header] = ("setting", None, None)  # "Sample", "Case", "Prompt": what the row was measured on
            continue
        if header == table.headers[0] and len(table.rows) >= 2 and labels.header_figure(header) is None and all(
                cells.measured(prose.plain(row.cells.get(header, ""))) for row in table.rows):
            roles[header] = ("setting", None, None)  # "| Size | ..." over 2KB, 32KB, 1MB: the swept dimension names the row
            continue
        values = [row.cells.get(header, "") for row in table.rows]
        filled = [v for v in values if not cells.is_blank(v)]
        if len(filled) >= _CONSTANT and len(filled) == len(values) and len(set(map(prose.plain, filled))) == 1:
            roles[header] = ("setting", None, None)  # "16GB" in every row: what all rows share, not a measure
            continue
        if header.rstrip(" *_").endswith("?"):
            roles[header] = ("answer", None, None)  # "Offload needed?" over ✅/❌: answers, not results of runs
            continue
        named = labels.header_figure(header) or _kind_qualified(header)
        figures = [cells.cell_figure(v) for v in filled]
        with_unit = [f for f in figures if f is not None and f[1]]
        numeric = [f for f in figures if f is not None]
        marks = [cells.mark(v) for v in filled]
        if numeric and len(numeric) >= max(1, len(filled) // 2) and labels.names_spread(header) and \
                any(r[0] == "figure" for r in roles.values()):
            roles[header] = ("spread", None, None)
        elif not named and numeric and len(numeric) >= max(1, len(filled) // 2) and not with_unit and \
                labels.names_ratio(prose.plain(header)) and header != table.headers[0]:
            roles[header] = ("delta", None, None)  # | Gen ratio | 1.08 |: a comparison of the columns beside it
        elif named and numeric and len(numeric) >= max(1, len(filled) // 2):
            roles[header] = ("figure", named[0], named[1])
        elif filled and len(with_unit) >= max(1, (2 * len(filled)) // 3):
            units = list(dict.fromkeys(f[1] for f in with_unit))  # in order of appearance: a tie goes to the first
            unit = max(units, key=lambda u: sum(1 for f in with_unit if f[1] == u))
            roles[header] = ("figure", labels.name_for(header, unit or ""), unit)
        elif filled and sum(1 for v in filled if cells.is_delta(v)) >= max(1, (2 * len(filled)) // 3):
            roles[header] = ("delta", None, None)
        elif context_unit and numeric and len(numeric) >= max(1, (2 * len(filled)) // 3) and header != table.headers[0] \
                and not (len(filled) >= 4 and not with_unit and len(set(filled)) <= len(filled) // 2):  # repeated values: a knob
            kind = "figure" if labels.names_measure(header) and not sweep else "arm"  # `512 tok`: a sweep's point
            roles[header] = (kind, labels.name_for(header, context_unit), context_unit)
        elif filled and sum(1 for m in marks if m) >= max(1, len(filled) // 2):
            roles[header] = ("mark", None, None)
        elif filled and sum(len(v.split()) for v in filled) / len(filled) >= _TEXT_WORDS and header != table.headers[0]:
            roles[header] = ("text", None, None)  # the first column names the row, however long
        else:
            roles[header] = ("setting", None, None)
    _summary_columns(table, roles)
    by_unit: dict[str | None, list[str]] = {}
    for header, role in roles.items():
        if role[0] == "figure" and not labels.names_measure(labels.split_unit(prose.plain(header))[0]):
            by_unit.setdefault(role[2], []).append(header)
    for unit, headers in by_unit.items():
        if len(headers) >= 2 and unit not in MEMORY_UNITS:  # "master (t/s) | branch (t/s)": the configurations compared
            for header in headers:
                roles[header] = ("arm", labels.name_for("", unit or ""), unit)
    return roles


def _kind_qualified(header: str) -> tuple[str, str] | None:
    """``(name, unit)`` of a header that names a figure and, in brackets after it, its phase or
    statistic (``Latency ms (prefill)`` → ``prefill_latency``, ``TTFT ms (p99)`` → ``p99_ttft``):
    one of a run's figures, where a configuration in the brackets would make the column an arm
    (:func:`_paired`)."""
    qualified = labels.qualified_figure(prose.plain(header), statistics=True)
    if qualified is None or not (labels.is_statistic(qualified[2]) or labels.names_phase(qualified[2])):
        return None
    name, unit, qualifier = qualified
    named = labels.name_for(f"{qualifier} {prose.plain(header)}", unit)
    return (named if named != name else f"{prose.normalised(qualifier)}_{name}"), unit


def _summary_columns(table: Table, roles: dict[str, tuple[str, str | None, str | None]]) -> None:
    """A column headed by a central statistic (``Average``, ``Median``) whose numbers carry no
    unit summarises the samples of the column beside it that names one (``Samples (ms)`` over
    ``41.2, 40.8, 41.5``): it is the row's figure, in that column's unit and name; the samples
    column stays the row's detail. Changes ``roles`` in place."""
    sources = [h for h, role in roles.items() if role[0] not in ("figure", "arm", "spread")
               and labels.header_figure(prose.plain(h)) is not None]
    units = {labels.header_figure(prose.plain(h))[1] for h in sources}  # type: ignore[index]
    if len(units) != 1:
        return
    source = sources[0]
    unit = units.pop()
    for header, role in roles.items():
        if role[0] != "setting" or not labels.central_statistic(prose.plain(header)):
            continue
        filled = [v for v in (row.cells.get(header, "") for row in table.rows) if not cells.is_blank(v)]
        figures = [cells.cell_figure(v) for v in filled]
        if filled and all(f is not None and not f[1] for f in figures):
            roles[header] = ("figure", labels.name_for(prose.plain(labels.split_unit(source)[0]), unit or ""), unit)
            roles[source] = ("samples", None, None)


def _row(segment: Segment, table: Table, roles: dict, row: TableRow, position: int) -> Candidate | None:
    where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
    source = segment.text.splitlines()
    at = row.line - (segment.locator.line_start or 1)
    line_text = source[at].strip() if 0 <= at < len(source) else " | ".join(row.cells.values())
    figures: dict[str, Figure] = {}
    last: str | None = None
    for header, (role, name, unit) in roles.items():
        value = row.cells.get(header, "")
        if role == "spread" and last is not None and cells.cell_figure(value) is not None:
            figures[last].spread = (cells.cell_figure(value) or ("",))[0]
            continue
        if role in ("mark", "text") and not cells.is_blank(value):
            found = cells.cell_figure(value)
            if found is not None and found[1]:  # a result column that gives a figure where the run worked
                key = labels.name_for(header, found[1])
                figures.setdefault(key, Figure(key, found[0], found[1], Evidence(
                    f"metrics.{key}", locator_text(where), short_quote(f"{header}: {value}")), found[2],
                    not labels.qualifies(header, found[1])))
            continue
        if role != "figure" or cells.is_blank(value):
            continue
        found = cells.cell_figure(value)
        if found is None or name is None:
            continue
        number, cell_unit, spread = found
        figure_unit = cell_unit or unit
        if figure_unit is None:
            continue
        kind = cells.qualifier(value)
        if kind:  # "69.3 output tok/s" under "primary metric": the cell names its kind
            name = labels.name_for(f"{header} {kind}", figure_unit)
        key = name if name not in figures else f"{name}[{header}]"
        figures[key] = Figure(key, number, figure_unit, Evidence(f"metrics.{key}", locator_text(where),
                                                                  short_quote(f"{header}: {value}")), spread,
                              not labels.qualifies(f"{header} {kind}", figure_unit))
        last = key
    first_setting = next((h for h in table.headers if roles[h][0] == "setting"), None)
    verdicts = [cells.mark(row.cells.get(h, "")) for h, r in roles.items() if r[0] in ("mark", "setting")
                and (h != first_setting or len(table.headers) == 1)]  # the row's name is what it is about
    verdict = "fail" if "fail" in verdicts else ("pass" if "pass" in verdicts else None)
    if not figures and "fail" in verdicts and "pass" in verdicts:
        return None  # ❌ under one column, ✅ under another: a matrix of issues, no one run
    if verdict is None and not figures and any(_error_like(row.cells.get(h, "")) for h, r in roles.items()
                                               if r[0] in ("mark", "text", "setting")):
        verdict = "fail"  # no figure, and a cell quotes the error it stopped on
    said = next((w for h, r in roles.items() if r[0] in ("mark", "setting", "text") and h != first_setting
                 for w in [cells.outcome_word(row.cells.get(h, ""))] if w), None)
    settings = [prose.plain(row.cells.get(h, "")) for h, r in roles.items() if r[0] == "setting"
                and (h == first_setting or (cells.mark(row.cells.get(h, "")) is None
                                            and cells.outcome_word(row.cells.get(h, "")) is None))]
    settings = [s for s in settings if s and not cells.is_blank(s)]
    if not figures and verdict != "fail" and said is None:
        return None  # a row marked only as working (a feature matrix's ✅) measured nothing
    if not settings and not figures:
        return None
    first = next((row.cells.get(h, "") for h in table.headers if roles[h][0] == "setting"
                  and not cells.is_blank(row.cells.get(h, ""))), "")
    if cells.is_summary(first) or (not figures and first.strip().startswith("**") and first.strip().endswith("**")
                                    and verdict is None and said is None):
        return None  # a total, an average, a target: a summary of other rows, no run
    label = _title(settings, table, roles, row)
    flags, env = shell.row_config(" ".join(row.cells.get(h, "") for h, r in roles.items() if r[0] in ("setting", "text")))
    candidate = Candidate("row", where, segment.ordinal, sub=position, figures=figures, flags=flags, env=env,
                          label=label, title=label, approach=label, quote=short_quote(line_text), when=segment.when,
                          path=segment.path, verdict=verdict, key=line_text,
                          settings={h: prose.plain(row.cells.get(h, "")) for h, r in roles.items()
                                    if r[0] == "setting" and not cells.is_blank(row.cells.get(h, ""))})
    candidate.workload = labels.workload(candidate.settings, flags, columns=True)
    candidate.said = said
    for header, value in candidate.settings.items():
        day = dates.only_date(value)
        if day is not None:  # a cell that is the row's date
            candidate.when = dt.datetime(day.year, day.month, day.day)
            candidate.dated_by = f"the row's \"{short_quote(header, 30)}\" cell"
            break
    said_in_result = any(cells.outcome_word(row.cells.get(h, "")) and labels.names_result(h) for h in table.headers)
    candidate.confidence = 0.8 if figures else (0.6 if verdict or said_in_result else 0.45)
    candidate.reason = "a results-table row" + ("" if figures else (
        " marked with its result" if verdict or said_in_result else " that judges (better, best) without a figure or mark"))
    candidate.marked = any(statements.names_reference(s) for s in settings) or any(
        statements.names_reference(h) and cells.mark(row.cells.get(h, "")) == "pass" for h in table.headers)
    # (a "ref" or "baseline" column ticked in this row: the row is the reference)
    if verdict == "fail":
        candidate.failed = True
        texts = [row.cells.get(h, "") for h, r in roles.items() if r[0] in ("text", "mark", "setting")]
        error = next((t for t in texts if _error_like(t)), None)
        if error:
            candidate.error = prose.plain(error).strip()
        else:
            marked = next((t for t in texts if cells.mark(t) == "fail"), "")
            causes = [row.cells.get(h, "") for h, r in roles.items() if (r[0] == "text" or (
                r[0] == "setting" and h != first_setting and len(row.cells.get(h, "").split()) >= 3))
                and not cells.is_blank(row.cells.get(h, "")) and cells.mark(row.cells.get(h, "")) is None
                and cells.outcome_word(row.cells.get(h, "")) is None]
            after_mark = cells.without_mark(marked) if marked else ""
            said_error = prose.plain(after_mark if after_mark and after_mark != marked.strip(" *_")
                                     else (causes[-1] if causes else after_mark)).strip()
            candidate.fallback_error = said_error if said_error and said_error.lower() not in ("failed", "fail") else None
        candidate.reason += " (marked failed)"
    if not candidate.failed:
        notes = [prose.plain(row.cells.get(h, "")) for h, r in roles.items() if r[0] == "text"
                 and not cells.is_blank(row.cells.get(h, ""))]
        candidate.cause = notes[-1] if notes else None
    delta = next((row.cells.get(h, "") for h, r in roles.items() if r[0] == "delta"
                  and not cells.is_blank(row.cells.get(h, ""))), None)
    candidate.change = prose.signed_percent(delta) if delta else None
    return candidate


def _leading_knobs(table: Table) -> set[str]:
    """The columns of whole numbers a table starts with, when a column of decimals follows them
    (``| batch | threads | ctx | chat | code |`` over ``| 512 | 16 | 4096 | 34.2 | 33.1 |``): the
    knobs each row set, not figures; nothing when every column holds whole numbers."""
    found: list[str] = []
    for header in table.headers:
        values = [prose.plain(row.cells.get(header, "")).strip() for row in table.rows]
        filled = [v for v in values if v]
        if filled and all(cells.whole_number(v) for v in filled):
            found.append(header)
            continue
        if found and filled and all(cells.decimal(v) for v in filled):
            return set(found)
        break
    return set()


def _arm_columns(segment: Segment, table: Table, roles: dict) -> list[Candidate]:
    """A table whose number columns are the configurations compared (``| Pipeline | torch 2.0 |
    nightly, eager | nightly + compile |``): each cell of an arm column (and of a mark column beside
    them) is a run; the runs of one row are compared with each other, unless the columns are devices
    (``5090 @ 400W | A100``) or count what the runs were deployed on (``1 GPU | 2 GPUs``, ``TP=4``):
    then each column's runs are compared with each other, on the same hardware. A column of
    someone else's figures or of goals beside one's own (``| Published | Mine |``, ``| Measured |
    Target |``) holds no runs."""
    arms = [h for h, r in roles.items() if r[0] == "arm" or (r[0] == "mark" and h != table.headers[0])]
    unit = next(r[2] for r in roles.values() if r[0] == "arm")
    if any(not statements.names_unmeasured(prose.plain(h)) for h in arms if roles[h][0] == "arm"):
        arms = [h for h in arms if not statements.names_unmeasured(prose.plain(h))]  # | Published | Mine | Target |: not ours
    labels_ = [h for h, r in roles.items() if r[0] == "setting"]
    varying = [h for h in labels_ if len({row.cells.get(h, "").strip() for row in table.rows}) > 1]
    if len(labels_) > 1 and len(varying) == 1:
        labels_ = varying  # model, size, params the same on every row: they describe the table, the test names the row
    if _sweep_headers(arms) and (swept := _swept_columns(segment, table, roles, arms, labels_, unit)) is not None:
        return swept  # the columns are one sweep's points, whatever the rows are named
    if len(labels_) == 1 and len(table.rows) >= 2 and all(
            cells.cell_figure(row.cells.get(labels_[0], "")) is not None or cells.measured(prose.plain(row.cells.get(labels_[0], "")))
            or labels.names_measure(prose.plain(row.cells.get(labels_[0], ""))) for row in table.rows):
        return _swept_arms(segment, table, roles, arms, labels_[0], unit)  # rows sweep a number, or are measures
    if len(labels_) >= 2 and len(table.rows) >= 2 and all(
            cells.cell_figure(row.cells.get(h, "")) is not None for h in labels_ for row in table.rows):
        return _grid_rows(segment, table, roles, arms, labels_, unit)
    swept = _swept_columns(segment, table, roles, arms, labels_, unit)
    if swept is not None:
        return swept
    by_device = all(stack.names_device(prose.plain(h)) or labels.names_deployment(labels.split_unit(prose.plain(h))[0])
                    for h in arms if roles[h][0] == "arm")  # | H100 | A100 |, | 1 GPU | 2 GPUs |: compared on the same hardware
    found = []
    for position, row in enumerate(table.rows):
        where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
        row_label = ", ".join(prose.plain(row.cells.get(h, "")) for h in labels_ if row.cells.get(h, "").strip())
        for column, header in enumerate(arms):
            value = row.cells.get(header, "")
            if cells.is_blank(value):
                continue
            figure = cells.cell_figure(value)
            verdict = cells.mark(value)
            if figure is None and verdict != "fail":
                continue
            arm = labels.split_unit(prose.plain(header))[0] or prose.plain(header)  # | TP=2 (tok/s) |: the unit names no arm
            label = f"{arm} ({row_label})" if row_label else arm
            name = roles[header][1] or labels.name_for(header, unit or "")
            figures = {}
            if figure is not None and unit:
                figures[name] = Figure(name, figure[0], figure[1] or unit, Evidence(
                    f"metrics.{name}", locator_text(where), short_quote(f"{header}: {value}")), figure[2],
                    not labels.qualifies(header, figure[1] or unit))
            candidate = Candidate("row", where, segment.ordinal, sub=position * 100 + column, figures=figures,
                                  label=label, title=label, approach=label, quote=short_quote(f"{row_label} | {header}: {value}"),
                                  when=segment.when, path=segment.path, key=f"{row_label}|{header}|{value}",
                                  group=f"table:{segment.ordinal}:" + (f"@{header}" if by_device else row_label),
                                  verdict=verdict,
                                  confidence=0.75 if figures else 0.65,
                                  reason="a cell of a comparison table whose columns are the configurations", arm=True)
            candidate.failed = verdict == "fail"
            candidate.marked = statements.names_reference(row_label if by_device else header)
            candidate.settings = {h: prose.plain(row.cells.get(h, "")) for h in labels_ if row.cells.get(h, "").strip()}
            found.append(candidate)
    return found


def _paired(table: Table) -> dict[str, tuple[str, str, str]]:
    """``{header: (name, unit, configuration)}`` for a table whose columns pair measures with the
    configurations they were taken under (``Prompt tok/s (Std) | Prompt tok/s (Mmap) | Gen tok/s
    (Std) | ...``, ``TTFT before (ms) | TTFT after (ms) | TPOT before (ms) | ...``, ``Mem A (GiB) |
    Mem B (GiB) | tok/s A | tok/s B``); ``{}`` for other tables.

    Two headers of one unit whose words (the unit left out) differ in one place name two
    configurations there, unless one of the two words is a phase or kind of figure (``Prompt
    tok/s | Gen tok/s``, ``TTFT | TPOT``) or both are statistics (``p50 | p99``): those are figures
    of one run. A column's configuration is the one such word it holds, its measure the rest. The
    table is paired when two or more configurations are each taken on one measure, and either
    two or more measures are so taken or a configuration is written in brackets after its measure
    (``Throughput tok/s (base) | Throughput tok/s (patched)``); one unbracketed measure over
    configurations is a table of arm columns (:func:`_arm_columns`). Configurations that are
    amounts (``c=1 | c=8``, ``conc4 | conc64``) are the points of one sweep, not paired, unless
    they count what a run was deployed on (``tp1 | tp2``: a launch each)."""
    parsed: dict[str, tuple[str, list[str], bool]] = {}  # header → (unit, words without the unit, bracketed)
    for header in table.headers[1:]:
        text = prose.plain(header)
        qualified = labels.qualified_figure(text, statistics=True)
        figure = labels.header_figure(text)
        unit = qualified[1] if qualified else figure[1] if figure else \
            next((u for w in text.split() if (u := labels.unit_of(w))), None)  # | tok/s A |: the unit leads
        if unit:
            words = [w for w in labels.header_words(text) if not labels.unit_of(w)]
            parsed[header] = (unit, [w for w in words if w], qualified is not None)
    arms: dict[str, bool] = {}  # configuration word → written in brackets
    items = list(parsed.items())
    for position, (first, (unit, words, _)) in enumerate(items):
        for second, (other_unit, other_words, _) in items[position + 1:]:
            if unit != other_unit or len(words) != len(other_words):
                continue
            differ = [i for i, (a, b) in enumerate(zip(words, other_words, strict=True)) if a.lower() != b.lower()]
            if len(differ) != 1:
                continue
            a, b = words[differ[0]], other_words[differ[0]]
            if labels.names_phase(a) or labels.names_phase(b) or (labels.is_statistic(a) and labels.is_statistic(b)):
                continue
            for word, header in ((a, first), (b, second)):
                arms[word] = arms.get(word, False) or (parsed[header][2] and _bracketed(header, word))
    found: dict[str, tuple[str, str, str]] = {}
    measures: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for header, (unit, words, _) in parsed.items():
        named = [w for w in words if w in arms]
        if len(named) != 1:
            continue
        rest = [w for w in labels.header_words(prose.plain(header)) if w != named[0]]
        figure = labels.header_figure(" ".join(rest)) or (labels.name_for(" ".join(rest), unit), unit)
        found[header] = (figure[0], unit, named[0])
        measures.setdefault((unit, tuple(w.lower() for w in words if w != named[0])), []).append(named[0])
    taken = {key: names for key, names in measures.items() if len(names) >= 2 and len(set(names)) == len(names)}
    used = list(dict.fromkeys(name for names in taken.values() for name in names))
    if len(used) < 2 or not (len(taken) >= 2 or any(arms[a] for a in used)):
        return {}
    stems = {labels.series_stem(a) for a in used}
    numbered = None not in stems and len(stems) == 1  # conc4 | conc64, bs1 | bs8: one word over amounts
    if all(labels.is_statistic(a) for a in used) or \
            ((numbered or all(prose.amounts(a) for a in used)) and not any(labels.names_deployment(a) for a in used)):
        return {}  # p50 | p99, c=1 | c=8, conc4 | conc64: figures or points of one run
    return {h: q for h, q in found.items() if q[2] in used}


def _loaded_pairs(segment: Segment, table: Table, paired: dict[str, tuple[str, str, str]], arms: list[str],
                  load: str) -> list[Candidate]:
    """A paired table (:func:`_qualified_arms`) whose rows are the levels of a load put on each
    configuration (``| Concurrency | vLLM RPS | SGLang RPS | vLLM TPS | ...``): each configuration
    is one attempt, a server swept over the load, its cells the points of a series
    (``output_throughput[Concurrency=8]``), the highest level's figure also under the plain name."""
    dim = prose.plain(load).strip()
    levels = [float((cells.cell_figure(row.cells.get(load, "")) or ("0",))[0]) for row in table.rows]
    top = max(range(len(levels)), key=levels.__getitem__)
    found = []
    for column, arm in enumerate(arms):
        figures: dict[str, Figure] = {}
        failed = False
        for position, row in enumerate(table.rows):
            where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
            level = prose.plain(row.cells.get(load, "")).strip()
            points, row_failed = _configuration_figures(row, paired, arm, where, f"[{dim}={level}]")
            figures.update(points)
            failed = failed or row_failed
            if position == top:
                figures.update({n.split("[", 1)[0]: replace(f, name=n.split("[", 1)[0]) for n, f in points.items()})
        if not figures and not failed:
            continue
        candidate = Candidate("row", segment.locator, segment.ordinal, sub=column, figures=figures, label=arm, title=arm,
                              approach=f"{arm} over {dim}", quote=short_quote(arm), when=segment.when, path=segment.path,
                              key=f"{segment.text}|{arm}", group=f"table:{segment.ordinal}:", confidence=0.75,
                              reason=f"a configuration of a table that pairs measures with configurations, swept over {dim}",
                              arm=True)
        candidate.failed = failed and not figures
        candidate.marked = statements.names_reference(arm)
        found.append(candidate)
    return found


def _configuration_figures(row: TableRow, paired: dict[str, tuple[str, str, str]], arm: str, where: Locator,
                           point: str) -> tuple[dict[str, Figure], bool]:
    """The figures one row gives configuration ``arm`` in a paired table (:func:`_paired`), each
    named by its measure and ``point`` (``""``, or ``[Concurrency=8]``), and whether a cell of it
    marks a failure (``OOM``)."""
    figures: dict[str, Figure] = {}
    failed = False
    for header in (h for h, q in paired.items() if q[2] == arm):
        value = row.cells.get(header, "")
        figure = cells.cell_figure(value)
        if figure is None:
            failed = failed or cells.mark(value) == "fail"
            continue
        name = paired[header][0] + point
        figures[name] = Figure(name, figure[0], figure[1] or paired[header][1], Evidence(
            f"metrics.{name}", locator_text(where), short_quote(f"{header}: {value}")), figure[2])
    return figures, failed


def _bracketed(header: str, word: str) -> bool:
    """Whether ``word`` is written in brackets in ``header`` (``Gen tok/s (patched)``)."""
    text = prose.plain(header)
    return f"({word})" in text or f"[{word}]" in text


def _qualified_arms(segment: Segment, table: Table, roles: dict, paired: dict[str, tuple[str, str, str]],
                    ) -> list[Candidate]:
    """The runs of a table whose columns pair measures with configurations (:func:`_paired`):
    each row and configuration is one attempt, whose figures are that configuration's columns;
    the configurations of one row are compared with each other, the first (or the one named as the
    reference) being the baseline."""
    arms = list(dict.fromkeys(q[2] for q in paired.values()))
    settings = [h for h, r in roles.items() if r[0] == "setting"]
    if len(settings) == 1 and len(table.rows) >= 2 and labels.names_load(prose.plain(settings[0])) and all(
            cells.cell_figure(row.cells.get(settings[0], "")) is not None for row in table.rows):
        return _loaded_pairs(segment, table, paired, arms, settings[0])
    found = []
    for position, row in enumerate(table.rows):
        where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
        row_label = ", ".join(prose.plain(row.cells.get(h, "")) for h in settings if row.cells.get(h, "").strip())
        for column, arm in enumerate(arms):
            figures, failed = _configuration_figures(row, paired, arm, where, "")
            if not figures and not failed:
                continue
            label = f"{arm} ({row_label})" if row_label else arm
            candidate = Candidate("row", where, segment.ordinal, sub=position * 100 + column, figures=figures,
                                  label=label, title=label, approach=label, quote=short_quote(f"{row_label} | {arm}"),
                                  when=segment.when, path=segment.path, key=f"{segment.text}|{row_label}|{arm}",
                                  group=f"table:{segment.ordinal}:{row_label}", confidence=0.75 if figures else 0.65,
                                  reason="a configuration's columns in a row of a table that pairs measures with "
                                         "configurations", arm=True)
            candidate.failed = failed and not figures
            candidate.marked = statements.names_reference(arm)
            candidate.settings = {h: prose.plain(row.cells.get(h, "")) for h in settings if row.cells.get(h, "").strip()}
            found.append(candidate)
    return found


def _swept_columns(segment: Segment, table: Table, roles: dict, arms: list[str], labels_: list[str],
                   unit: str | None) -> list[Candidate] | None:
    """Arm columns headed ``key=value`` with one key and numbers (``c=2 | c=4 | ... | c=128``), or one
    name over amounts (``bs 1 | bs 8 | bs 32``, ``4k ctx | 32k ctx``): the columns are the points of
    one sweep, and each row (a model, a build) is one attempt whose cells are its points
    (``output_throughput[c=8]``), the largest swept value also under the plain name; columns over
    passes (``Run 1 | Run 2 | Run 3``) give their mean instead, with their sample standard deviation
    as its spread. The measure is named by the corner header when it names one, else by the
    section. ``None`` when the columns are not of that shape."""
    points = [prose.plain(h).replace(" ", "").partition("=") for h in arms]
    keys = {key for key, eq, _ in points}
    if _sweep_headers(arms) and len(keys) != 1:
        # | bs 1 | bs 8 | bs 32 |, | max 32 tokens | max 128 tokens |: one name over the amounts it was run at
        name = " ".join(prose.shape(prose.plain(arms[0])).replace("#", " ").split())
        points = [(name, "=", prose.amounts(prose.plain(h))[0]) for h in arms]
        keys = {name}
    if len(arms) < 3 or len(keys) != 1 or any(not eq or not _amount(value) for _, eq, value in points):
        return None
    key = keys.pop()
    if labels.names_deployment(key):
        return None  # | 1 GPU | 2 GPUs | 4 GPUs |, | tp1 | tp2 |: a launch per column, so a run per cell
    largest = max(range(len(arms)), key=lambda i: prose.amount_value(_amount(points[i][2])))
    passes = labels.counts_passes(key)  # Run 1, Run 2: the same run repeated, not a sweep
    corner = prose.plain(table.headers[0])  # | TTFT (ms) | 1 user | 4 users |: the corner names the measure
    measure = corner if labels.names_measure(corner) else prose.plain(segment.path[-1]) if segment.path else ""
    found = []
    for position, row in enumerate(table.rows):
        row_label = ", ".join(prose.plain(row.cells.get(h, "")) for h in labels_ if row.cells.get(h, "").strip())
        where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
        figures: dict[str, Figure] = {}
        for column, header in enumerate(arms):
            figure = cells.cell_figure(row.cells.get(header, ""))
            if figure is None or not (figure[1] or unit):
                continue
            name = labels.name_for(measure, figure[1] or unit or "")
            point = f"{name}[{key}={points[column][2]}]"
            evidence = Evidence(f"metrics.{point}", locator_text(where), short_quote(f"{header}: {row.cells.get(header)}"))
            figures[point] = Figure(point, figure[0], figure[1] or unit or "", evidence, figure[2])
            if column == largest and not passes:
                figures[name] = Figure(name, figure[0], figure[1] or unit or "", evidence, figure[2])
        if not figures:
            continue
        if passes:  # | Run 1 | Run 2 | Run 3 |: repetitions of one run, whose figure is their mean
            samples = [f for n, f in figures.items() if "[" in n]
            if len({f.unit for f in samples}) == 1 and len(samples) >= 2:
                name = samples[0].name.split("[")[0]
                figures[name] = _mean_figure(name, samples)
        candidate = Candidate("row", where, segment.ordinal, sub=position, figures=figures, label=row_label,
                              title=row_label or f"{key} sweep", approach=f"{row_label} over {key}",
                              quote=short_quote(row_label),
                              when=segment.when, path=segment.path, key=f"{segment.text}|{row_label}",
                              group=f"table:{segment.ordinal}:", confidence=0.75,
                              reason=f"a row of a table whose columns sweep {key} (one attempt a row)", arm=True)
        candidate.settings = {h: prose.plain(row.cells.get(h, "")) for h in labels_ if row.cells.get(h, "").strip()}
        candidate.marked = statements.names_reference(row_label)
        candidate.series = not passes  # passes of one run: the mean decides, not pass by pass
        found.append(candidate)
    return found


def _amount(value: str) -> str:
    """A swept column's amount (``8``, ``2k``), or ``""`` when the header's value is no amount."""
    found = prose.amounts(value)
    return found[0] if len(found) == 1 and cells.cell_figure(value.replace(found[0], "1")) is not None else ""


def _sweep_headers(headers: list[str]) -> bool:
    """Whether three or more headers are one name over amounts (``bs 1 | bs 8 | bs 32``)."""
    shapes = {prose.shape(prose.plain(h)) for h in headers}
    return len(headers) >= 3 and len(shapes) == 1 and next(iter(shapes)).count("#") == 1


def _grid_rows(segment: Segment, table: Table, roles: dict, arms: list[str], knobs: list[str],
               unit: str | None) -> list[Candidate]:
    """Rows that set two or more numbers each (a grid of knobs: ``draft-max | draft-min | p-min``)
    over columns of one unit: each row is a configuration, one attempt, measured under each column
    (its workloads); the first column's figure is the plain name, the others are its points
    (``output_throughput[TS]``)."""
    found = []
    for position, row in enumerate(table.rows):
        where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
        setting = {prose.plain(h).strip(): prose.plain(row.cells.get(h, "")).strip() for h in knobs}
        label = ", ".join(f"{k}={v}" for k, v in setting.items())
        figures: dict[str, Figure] = {}
        failed = False
        for header in arms:
            value = row.cells.get(header, "")
            figure = cells.cell_figure(value)
            if figure is None:
                failed = failed or cells.mark(value) == "fail"
                continue
            figure_unit = figure[1] or unit or ""
            name = roles[header][1] or labels.name_for(header, figure_unit)
            point = f"{name}[{prose.plain(header).strip()}]"
            evidence = Evidence(f"metrics.{point}", locator_text(where), short_quote(f"{header}: {value}"))
            figures[point] = Figure(point, figure[0], figure_unit, evidence, figure[2], not labels.qualifies(header, figure_unit))
            if name not in figures:
                figures[name] = Figure(name, figure[0], figure_unit, evidence, figure[2], not labels.qualifies(header, figure_unit))
        if not figures and not failed:
            continue
        candidate = Candidate("row", where, segment.ordinal, sub=position, figures=figures, label=label, title=label,
                              approach=label, quote=short_quote(" | ".join(row.cells.get(h, "") for h in table.headers)),
                              when=segment.when, path=segment.path, key=f"{segment.text}|{label}",
                              group=f"table:{segment.ordinal}:", confidence=0.75,
                              reason="a row of a table whose rows set several knobs (its columns are what each was measured on)")
        candidate.failed = failed and not figures
        candidate.settings = setting
        candidate.series = False  # its columns are workloads: the first one is the headline
        found.append(candidate)
    return found


def _swept_arms(segment: Segment, table: Table, roles: dict, arms: list[str], dimension: str,
                unit: str | None) -> list[Candidate]:
    """Arm columns over rows that sweep one number (``M``, batch size, message size): each arm is
    one attempt, its cells the points of a series named by the swept column
    (``latency[M=16]``), the first row's figure also under the plain name."""
    found = []
    dim = prose.plain(dimension).strip() or "x"
    numbers = [cells.cell_figure(row.cells.get(dimension, "")) for row in table.rows]
    values = [float(n[0]) if n is not None else float("-inf") for n in numbers]
    last = max(range(len(values)), key=values.__getitem__) if all(numbers) else len(table.rows) - 1
    tests = all(labels.unit_of_test(prose.plain(row.cells.get(dimension, ""))) for row in table.rows)
    for column, header in enumerate(arms):
        figures: dict[str, Figure] = {}
        undepthed: set[str] = set()
        failed = False
        for position, row in enumerate(table.rows):
            value = row.cells.get(header, "")
            figure = cells.cell_figure(value)
            if figure is None:
                failed = failed or cells.mark(value) == "fail"
                continue
            label = prose.plain(row.cells.get(dimension, "")).strip()
            figure_unit = figure[1] or unit or ""
            name = labels.name_for(label, figure_unit) if labels.names_measure(label) and not numbers[position] \
                else (roles[header][1] or labels.name_for(header, figure_unit))
            where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
            point = f"{name}[{dim}={label}]"
            named_by_row = labels.names_measure(label) and not numbers[position]
            made = Figure(point, figure[0], figure_unit, Evidence(
                f"metrics.{point}", locator_text(where), short_quote(f"{header}: {value}")), figure[2],
                not labels.qualifies(label if named_by_row else header, figure_unit))
            figures[point] = made
            at_depth = "@" in label
            if name not in figures or (position == last and not (tests and name in undepthed)) or \
                    (tests and not at_depth and name not in undepthed):
                # the plain name: the largest swept number, else the last row; over llama-bench tests, a test at
                # no depth (tg128 before tg128 @ d4096) when the table has one
                if tests and not at_depth:
                    undepthed.add(name)
                figures[name] = Figure(name, made.text, made.unit, made.evidence, made.spread, made.generic)
        if not figures and not failed:
            continue
        label = prose.plain(labels.split_unit(header)[0]) or prose.plain(header)
        candidate = Candidate("row", segment.locator, segment.ordinal, sub=column, figures=figures, label=label,
                              title=label, approach=f"{label} over {dim}", quote=short_quote(f"{header}"),
                              when=segment.when, path=segment.path, key=f"{segment.text}|{header}",
                              group=f"table:{segment.ordinal}:", confidence=0.75,
                              reason=f"an arm (column) of a table that sweeps {dim}", arm=True)
        candidate.failed = failed and not figures
        candidate.marked = statements.names_reference(label)
        found.append(candidate)
    return found


def _title(settings: list[str], table: Table, roles: dict, row: TableRow) -> str:
    """A row's title: its first setting, with the other settings that set it apart from rows that
    share its first one."""
    if not settings:
        return ""
    first_header = next((h for h in table.headers if roles[h][0] == "setting"), None)
    same = [r for r in table.rows if first_header and r.cells.get(first_header, "") == row.cells.get(first_header, "")]
    if len(same) > 1:
        return ", ".join(settings)[:120]
    return settings[0][:120]


def _error_like(text: str) -> bool:
    """Whether a cell quotes an error (an exception line, a CUDA or NCCL error), not a description."""
    return bool(error_output.read(prose.plain(text)).runs)


def _drop_derived(found: list[Candidate], roles: dict) -> None:
    """Remove rows whose every figure is derived from other rows of its column: their sum, their
    mean, or the difference or ratio of two of them (a total, an average, a delta row), when the row
    has two figures or more, or no words of its own (a single figure can match by chance)."""
    derived = []
    for candidate in found:
        if not candidate.figures or candidate.failed:
            continue
        others = [c for c in found if c is not candidate]
        unnamed = not any(ch.isalnum() for ch in candidate.label)
        if (len(candidate.figures) >= 2 or unnamed) and \
                all(_is_derived(name, fig.value, others) for name, fig in candidate.figures.items()):
            derived.append(candidate)  # one figure near the column's mean is as often a coincidence
    for candidate in derived:
        found.remove(candidate)


def _is_derived(name: str, value: float, others: list[Candidate]) -> bool:
    column = [c.figures[name].value for c in others if name in c.figures]
    if len(column) < 2:
        return False

    def close(a: float, b: float) -> bool:
        return abs(a - b) <= max(abs(b) * 0.005, 0.006)

    total = sum(column)
    if close(value, total) or close(value, total / len(column)):
        return True
    return any(close(value, a - b) or close(value, b - a) for i, a in enumerate(column) for b in column[i + 1:])


def _group(found: list[Candidate], table: Table, roles: dict) -> None:
    """Name each row's comparison group: the table, and the block of a setting column whose values
    come in runs of repeated values (one model's rows, then the next's) when another setting
    varies within the blocks. A column of knob states (``off, off, on, on``; ``2, 2, 0, 0``)
    crossed with other knobs is a grid of one configuration's variants, not blocks: every row is
    compared with the table's first."""
    settings = [h for h, r in roles.items() if r[0] == "setting"]
    block_column = None
    for header in settings:
        values = [c.settings.get(header, "") for c in found]
        distinct = list(dict.fromkeys(values))
        if 1 < len(distinct) < len(values) and all(values.count(v) >= 2 for v in distinct):
            runs = sum(1 for i, v in enumerate(values) if i == 0 or values[i - 1] != v)
            others = [h for h in settings if h != header]
            if runs == len(distinct) and any(len({c.settings.get(h) for c in found}) > 1 for h in others):
                block_column = header
                break
    level = _load_level(found, [h for h in settings if h != block_column])
    if block_column and level is None:
        across = _load_level(found, settings)  # blocks that are one load sweep each: compare them at equal load
        if across is not None and across != block_column and labels.names_load(across):
            block_column, level = None, across
        elif across is None and not labels.names_load(block_column) and _switch(
                [c.settings.get(block_column, "") for c in found]):
            block_column = None  # a flag's off, off, on, on in a grid of knobs: every row against the first
    for candidate in found:
        block = candidate.settings.get(block_column, "") if block_column else ""
        at = f"{LEVEL}{candidate.settings.get(level, '')}" if level else ""
        candidate.group = f"table:{candidate.ordinal}:{block}{at}"


def _switch(values: list[str]) -> bool:
    """Whether a column's values are one knob's two states (``off``/``on``, ``true``/``false``,
    ``0``/``2``: a number beside 0 or 1), not amounts (batch 1, 8, 32; 1,200 and 2,400 prompts)
    nor names."""
    states = {prose.plain(v).strip().lower() for v in values}
    if len(states) != 2 or not all(cells.switch_state(v) for v in states):
        return False
    numbers = [v for v in states if cells.whole_number(v) or cells.decimal(v)]
    return not numbers or (len(numbers) == 2 and bool(states & {"0", "1"}))  # 0/1, 0/2: off and on; 1200/2400 are amounts


def _load_level(found: list[Candidate], settings: list[str]) -> str | None:
    """The setting column at whose values the rows are compared, when a table measures each
    configuration at the same several levels (``| layout | conc |`` over TP=4 and TP=2, each at
    concurrency 1, 4, 16, 64): a column crossed with another setting (two values of that one or
    more, each measured at two or more of the same levels) whose values are amounts (three or more
    numbers, every row giving one: a concurrency, a batch size, a length), and which changes more
    often from row to row than the other. A column of knobs (a flag on or off, a quantization
    named ``4``, ``8`` and ``Q4_K_M``) is no level. Rows are then compared at equal level: TP=2 at c64 with
    TP=4 at c64, not with TP=4 at c1. ``None`` when no two columns cross."""
    def varying(header: str) -> bool:
        values = [c.settings.get(header, "") for c in found]
        return 1 < len(set(values)) < len(values)

    def changes(header: str) -> int:
        values = [c.settings.get(header, "") for c in found]
        return sum(1 for i in range(1, len(values)) if values[i] != values[i - 1])

    def levels_of(header: str) -> bool:  # a sweep of amounts: three or more, every row giving one
        values = [prose.plain(c.settings.get(header, "")) for c in found]
        return all(cells.whole_number(v) or cells.decimal(v) for v in values) and len(set(values)) >= 3

    columns = [h for h in settings if varying(h)]
    best: tuple[int, str] | None = None
    for first in columns:
        for second in columns:
            if first == second or not levels_of(second):
                continue
            levels: dict[str, set[str]] = {}
            for c in found:
                levels.setdefault(c.settings.get(first, ""), set()).add(c.settings.get(second, ""))
            shared = set.intersection(*levels.values()) if len(levels) >= 2 else set()
            if len(shared) >= 2 and changes(second) > changes(first) and (best is None or changes(second) > best[0]):
                best = (changes(second), second)
    return best[1] if best else None


def _transposed(table: Table) -> bool:
    """Whether the table's first column names the measures (``Mean``, ``P99``, ``TTFT (ms)``) and
    its other headers the configurations compared (``| Metric | PyTorch | TensorRT EP |``)."""
    first = table.headers[0]
    if all(cells.measured(prose.plain(row.cells.get(first, ""))) for row in table.rows):
        return False  # 1 MiB, 16 MiB: sizes a run swept, not the names of measures
    named = [labels.names_measure(prose.plain(row.cells.get(first, ""))) for row in table.rows]
    others = table.headers[1:]
    if _sweep_headers(others):
        return False  # | TTFT (ms) | 1 user | 4 users |: the columns are a sweep's points, the rows its runs
    if others and labels.names_measure_axis(prose.plain(first)):
        return True  # | Metric | Before | After |: the header says the rows are measures
    if others and all(labels.is_statistic(prose.plain(row.cells.get(first, ""))) for row in table.rows):
        return True  # | Percentile | Latency |: one distribution
    if bool(others) and sum(named) >= max(1, (len(named) + 1) // 2) and \
            not any(labels.names_measure(prose.plain(h)) for h in others):
        return True
    return _units_by_row(table)


def _units_by_row(table: Table) -> bool:
    """Whether each row's cells share one unit and the rows' units differ (``37.37 TPS | 25.98
    TPS`` above ``130GB | 243GB``): every row measures one thing in every column, so the rows are
    the measures and the columns the configurations, whatever language the first column is in."""
    row_units: list[str] = []
    for row in table.rows:
        units = {_dimension(figure[1]) for h in table.headers[1:]
                 if (figure := cells.cell_figure(row.cells.get(h, ""))) is not None and figure[1]
                 and not cells.is_delta(row.cells.get(h, ""))}
        if len(units) > 1:
            return False
        row_units.extend(units)
    measured = [h for h in table.headers[1:] if sum(cells.cell_figure(row.cells.get(h, "")) is not None
                                                   for row in table.rows) * 2 > len(table.rows)]
    return len(measured) >= 2 and len(set(row_units)) >= 2 and len(row_units) >= 2  # two configurations at least


def _dimension(unit: str) -> str:
    """What a unit measures, so that ``120 ms`` above ``1.2 s`` is one measure in two scales."""
    if unit in TIME_UNITS:
        return "time"
    return "memory" if unit in MEMORY_UNITS else unit


def _arms(segment: Segment, table: Table, context_unit: str | None = None) -> list[Candidate]:
    """A table whose first column names measures and whose other columns are the arms compared
    (``| metric | before | after |``): one candidate per arm column, one figure per measure row."""
    first = table.headers[0]
    found = []
    output_named = any(labels.qualifies(prose.plain(row.cells.get(first, "")), "tok/s") and
                       labels.name_for(prose.plain(row.cells.get(first, "")), "tok/s") == "output_throughput"
                       for row in table.rows)
    for position, header in enumerate(table.headers[1:], 1):
        if cells.is_delta(header) or labels.names_spread(header) or statements.names_unmeasured(prose.plain(header)):
            continue  # | Metric | Budget | Default | AITER |: a goal or someone else's figures is no arm
        figures: dict[str, Figure] = {}
        failed = False
        above: Figure | None = None  # the figure of the row just above
        for row in table.rows:
            label = prose.plain(row.cells.get(first, ""))
            value = row.cells.get(header, "")
            figure = cells.cell_figure(value)
            if figure is None:
                failed = failed or cells.mark(value) == "fail"
                above = None
                continue
            if labels.names_spread(label):
                if above is not None and above.spread is None:
                    above.spread = figure[0]  # | Decode | 61 | then | Decode sigma | 0.5 |: the spread of the figure above
                continue  # (not a figure of the arm)
            above = None
            named = labels.header_figure(label)
            unit = figure[1] or (named[1] if named else None) or context_unit
            if unit is None:
                continue
            name = named[0] if named and named[1] == unit else labels.name_for(label, unit)
            if name == "output_throughput" and not labels.qualifies(label, unit) and output_named:
                name = "total_throughput"  # "Tokens per second" beside "Output tokens per second": both kinds
            if name in figures:
                continue
            where = Locator(segment.locator.file, line_start=row.line, line_end=row.line)
            figures[name] = Figure(name, figure[0], unit, Evidence(f"metrics.{name}", locator_text(where),
                                                                   short_quote(f"{label} | {header}: {value}")),
                                   figure[2], not labels.qualifies(label, unit))
            above = figures[name]
        if not figures and (not failed or cells.annotates(prose.plain(header))):
            continue  # a column of marks beside each row (``Status: 🔴``) is no failed arm
        label = prose.plain(header)
        candidate = Candidate("row", segment.locator, segment.ordinal, sub=position, figures=figures, label=label,
                              title=label, approach=label, quote=short_quote(f"{first} | {header}"),
                              when=segment.when, path=segment.path, key=f"{segment.text}|{header}",
                              group=f"table:{segment.ordinal}:", confidence=0.75,
                              reason="an arm (column) of a comparison table",
                              arm=len(table.headers) > 2)  # | Metric | Value |: one run, no arm of a comparison
        candidate.failed = failed and not figures
        candidate.marked = statements.names_reference(label)
        found.append(candidate)
    return found
