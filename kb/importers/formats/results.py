"""Files that are one tool's output: benchmark result files (``vllm bench serve --save-result``
JSON, SGLang ``bench_serving --output-file`` JSONL, llama-bench JSON/JSONL/markdown/CSV, aiperf
exports), raw console captures (``text``: a ``.log``, a ``.txt`` of a terminal), and CSV tables of
results (``csv``).

A result file or a capture becomes one ``text`` event holding the whole file, located over all its
lines; what it says is for the tool readers (:mod:`kb.importers.read`) to read. A CSV file that no
tool reader knows becomes one ``table`` event (its first row the header, each later row a
:class:`~kb.importers.events.TableRow` with its line), so that its rows are read as any table.
"""

from __future__ import annotations

import csv
import io

from kb.importers.events import Event, Locator, Table, TableRow
from kb.importers.formats._common import Reading, read_text


def read(reading: Reading) -> None:
    """Fill ``reading`` with the one event of a result file, capture or CSV table."""
    text = read_text(reading)
    lines = text.splitlines()
    last = len(lines)
    while last > 1 and not lines[last - 1].strip():
        last -= 1
    where = Locator(reading.name, line_start=1, line_end=max(last, 1))
    if reading.format == "csv":
        from kb.importers.read import recognises

        if recognises(text) is None:
            table = _table(text)
            if table is not None:
                reading.events.append(Event("table", where, text=text, table=table))
                return
    reading.events.append(Event("text", where, text=text))


def _table(text: str) -> Table | None:
    """The CSV as a table (header → cell per row, each row's 1-based line), or ``None`` when it
    has no header and body."""
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 2:
        return None
    headers = [cell.strip() or f"column {i}" for i, cell in enumerate(rows[0], 1)]
    body = [TableRow(dict(zip(headers, (cell.strip() for cell in row))), line)
            for line, row in enumerate(rows[1:], 2) if any(cell.strip() for cell in row)]
    return Table(headers, body, written_by_program=True)
