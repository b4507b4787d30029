"""Arms of a comparison printed by one run: a table whose numeric columns carry no unit of their
own, the unit named just above it (``TFLOP/s comparison (block_size=(128, 128)):``), its first
column the swept dimension (``batch_size``), each other numeric column an arm
(``w8a8-block-fp8-triton``, ``w8a8-block-fp8-cutlass``); pandas' row index is dropped. Each arm
becomes its own attempt (see :mod:`.chat`): its headline at the largest point, the series as
``name[<dimension>=<value>]``; an arm the narration calls a reference (``BF16 is printed for
reference only``) is left out.
"""

from __future__ import annotations

import re

from kb.importers.extract.measurements import SERIES_POINTS, _cell_number, _figure, _split_row, _table_body, metric_name
from kb.importers.extract.model import Figure
from kb.importers.extract.tables import unit_hint

_STOP = frozenset({"the", "and", "for", "only", "is", "are", "printed", "shown", "kept", "just", "reference", "as", "with"})


def output_arms(output: str, where: str) -> list[tuple[str, dict[str, Figure], dict[int, str]]]:
    """``(arm header, figures, {row index: value})`` per arm of the first such table in
    ``output``; ``[]`` when there is none (fewer than two arms, or no unit above)."""
    lines = output.splitlines()
    for i, line in enumerate(lines[:400]):
        hint = next((unit_hint(lines[k]) for k in range(max(0, i - 3), i) if unit_hint(lines[k])), None)
        if hint is None:
            continue
        header = _split_row(line, "wide") or []
        if len(header) < 3 or _cell_number(header[0]) is not None:
            continue
        _, rows, _ = _table_body(lines, i + 1, len(header))
        if len(rows) < 2 or not all(_cell_number(r[0][0]) is not None for r in rows):
            continue
        arms = [c for c in range(1, len(header)) if all(_cell_number(r[0][c]) is not None for r in rows)]
        if len(arms) < 2:
            continue
        unit, words = hint
        name = metric_name(words, unit) or "value"
        top = max(range(len(rows)), key=lambda r: float(_cell_number(rows[r][0][0]) or 0))
        found = []
        for column in arms:
            values = {r: _cell_number(rows[r][0][column]) or "0" for r in range(len(rows))}
            figures = {name: _figure(name, values[top], unit, where, rows[top][1])}
            for r in list(values)[:SERIES_POINTS]:
                point = f"{name}[{header[0]}={rows[r][0][0]}]"
                figures[point] = _figure(point, values[r], unit, where, rows[r][1])
            found.append((header[column], figures, values))
        return found
    return []


def references(narration: str) -> set[str]:
    """Words the narration says name a reference only (``BF16 is printed for reference only`` →
    ``{"bf16"}``): arms whose header holds one are no attempts."""
    words: set[str] = set()
    for sentence in re.split(r"(?<=[.;!?])\s+", narration):
        if re.search(r"\bfor reference\b|\bas (?:a )?reference\b", sentence, re.I):
            words |= {w.lower() for w in re.findall(r"[A-Za-z][\w.]{2,}", sentence) if w.lower() not in _STOP}
    return words
