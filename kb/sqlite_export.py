"""The records as a SQLite database for Datasette, sqlite-utils or plain SQL (``kb export --sqlite``).

Tables (all written with the standard library's :mod:`sqlite3`):

* ``records(id PRIMARY KEY, kind, title, status, date, path)``: every record;
* one table per kind (``attempts``, ``blockers``, ``decisions``, ``stacks``, ``platforms``,
  ``campaigns``), one row per record, one column per top-level field; lists and mappings are
  stored as JSON text (Datasette shows them as JSON), dates as ``YYYY-MM-DD``;
* ``edges(source, target, type)``: the graph's typed references, both ends foreign keys to
  ``records(id)`` (Datasette links them);
* ``metrics(attempt, name, value, unit)``: each measured value of each attempt, for charts.

The file is written to a temporary name beside the target and renamed into place, so a reader
never sees half a database; an existing file is replaced only when asked.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from kb.atomic import TEMP_SUFFIX, current_umask, sweep_temp_files
from kb.errors import WriteError
from kb.graph import KnowledgeGraph
from kb.models import KINDS, Attempt
from kb.twins import record_json


def _column_value(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return int(value)
    return value


def write_sqlite(kg: KnowledgeGraph, target: str | Path, *, overwrite: bool = False) -> dict[str, int]:
    """Write ``kg`` as a SQLite database at ``target``; return ``{table: rows}``.

    Raises :class:`kb.errors.WriteError` when ``target`` exists and ``overwrite`` is false, or
    when the file cannot be written.
    """
    target = Path(target)
    if target.exists() and not overwrite:
        raise WriteError(f"{target}: already exists; pass --force to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep_temp_files(target.parent)  # what a killed export left: its pid is gone
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=target.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~current_umask())  # the mode any new file gets (mkstemp's is 0600)
    counts: dict[str, int] = {}
    try:
        con = sqlite3.connect(tmp)
        try:
            _fill(con, kg, counts)
            con.commit()
        finally:
            con.close()
        os.replace(tmp, target)
    except (OSError, sqlite3.Error) as exc:
        raise WriteError(f"{target}: cannot write the database ({exc}); nothing was changed") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return counts


def _fill(con: sqlite3.Connection, kg: KnowledgeGraph, counts: dict[str, int]) -> None:
    con.execute("CREATE TABLE records (id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, "
                "status TEXT, date TEXT, path TEXT NOT NULL)")
    rows = []
    for rid in sorted(kg.records.records):
        rec = kg.records.records[rid]
        date = getattr(rec, "date", None)
        rows.append((rid, rec.kind, rec.title, getattr(rec, "status", None),
                     date.isoformat() if date is not None else None, f"{rec.folder}/{rid}.yaml"))
    con.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)", rows)
    counts["records"] = len(rows)
    for folder, model in KINDS.items():
        fields = [f.alias or name for name, f in model.model_fields.items()]
        # no declared type: a value keeps its own (numbers stay numbers, JSON stays text)
        cols = ", ".join(f'"{c}"' if c != "id" else '"id" TEXT PRIMARY KEY REFERENCES records(id)' for c in fields)
        con.execute(f'CREATE TABLE "{folder}" ({cols})')
        records = kg.of_kind(model)
        marks = ", ".join("?" for _ in fields)
        con.executemany(f'INSERT INTO "{folder}" VALUES ({marks})',  # noqa: S608 - folder: a record kind's fixed name
                        [tuple(_column_value(record_json(r).get(c)) for c in fields) for r in records])
        counts[folder] = len(records)
    con.execute("CREATE TABLE edges (source TEXT NOT NULL REFERENCES records(id), "
                "target TEXT NOT NULL REFERENCES records(id), type TEXT NOT NULL, PRIMARY KEY (source, target, type))")
    edges = sorted(kg.g.edges(keys=True))
    con.executemany("INSERT INTO edges VALUES (?, ?, ?)", edges)
    counts["edges"] = len(edges)
    con.execute("CREATE TABLE metrics (attempt TEXT NOT NULL REFERENCES attempts(id), name TEXT NOT NULL, "
                "value REAL NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (attempt, name))")
    metrics = [(a.id, name, m.value, m.unit) for a in kg.of_kind(Attempt) for name, m in a.metrics.items()]
    con.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?)", metrics)
    counts["metrics"] = len(metrics)
    con.execute("CREATE INDEX edges_target ON edges(target)")
