"""The records as a SQLite database for Datasette, sqlite-utils or plain SQL (``kb export --sqlite``).

Tables (all written with the standard library's :mod:`sqlite3`):

* ``records(id PRIMARY KEY, kind, title, status, date, catalog, path)``: every record; ``path``
  is the record's file, relative to the database's folder (POSIX separators), so it names a file
  that exists, the catalogs' records included; ``catalog`` the catalog a record was read from;
* one table per kind (``attempts``, ``blockers``, ``decisions``, ``stacks``, ``platforms``,
  ``campaigns``), one row per record, one column per top-level field. A single reference is a
  foreign key to its kind's table (:data:`FOREIGN_KEYS`: ``attempts.stack`` → ``stacks(id)``,
  ``attempts.campaign`` → ``campaigns(id)``, ...), so Datasette links it and shows the title;
  ``components`` and ``metrics`` are tables of their own (below); other lists and mappings are
  JSON text (Datasette shows them as JSON), dates ``YYYY-MM-DD``;
* ``edges(source, target, type)``: the graph's typed references (lists included: ``blocked_by``,
  ``caused_by``, ``resolves``, ``evidence``), both ends foreign keys to ``records(id)``;
* ``metrics(attempt, name, value, unit, text, spread, note)``: one row per attempt × metric;
* ``attempt_components(attempt, component, version, source, bundled_in, stack)``: one row per
  attempt × component the attempt ran with (its stack's, base chain applied, then its own
  overrides); ``stack`` names the stack a component came from, ``NULL`` for an override;
* ``stack_components(stack, component, version, source, bundled_in, defined_in)``: one row per
  stack × component, base chain applied; ``defined_in`` is the stack that sets it.

Beside the database, :func:`write_sqlite` writes ``<name>.metadata.json``: Datasette's metadata
(titles, descriptions, label columns, facets by outcome, campaign and stack), read with
``datasette kb.db -m kb.metadata.json``. Shape: Datasette's documented ``metadata.json``
(``databases`` → database name, the file's stem → ``tables`` → ``title``, ``description``,
``facets``, ``label_column``, ``sort_desc``).

Both files are written to a temporary name beside the target and renamed into place, so a reader
never sees half a database; an existing file is replaced only when asked.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from kb.atomic import TEMP_SUFFIX, current_umask, sweep_temp_files, write_text_atomic
from kb.errors import RecordExists, WriteError
from kb.graph import KnowledgeGraph
from kb.models import KINDS, Attempt, Component, Record, Stack
from kb.twins import record_json

FOREIGN_KEYS: dict[str, dict[str, str]] = {
    "attempts": {"campaign": "campaigns", "platform": "platforms", "stack": "stacks", "baseline": "attempts"},
    "campaigns": {"platform": "platforms", "stack": "stacks", "baseline_attempt": "attempts"},
    "stacks": {"base": "stacks"},
    "decisions": {"campaign": "campaigns"},
}
"""Kind table → column → the table it references: the single references that
:func:`kb.graph.references` yields at a record's top level (lists go to ``edges``)."""

TABLE_OF_FIELD: dict[str, set[str]] = {"attempts": {"components", "metrics"}, "stacks": {"components"}}
"""Fields left out of a kind's table because a table of their own holds them."""

METADATA_SUFFIX = ".metadata.json"
"""The metadata file's name is the database's stem plus this (``kb.db`` → ``kb.metadata.json``)."""


def metadata_path(target: str | Path) -> Path:
    """Where :func:`write_sqlite` writes Datasette's metadata for the database ``target``."""
    target = Path(target)
    return target.with_name(target.stem + METADATA_SUFFIX)


def _column_value(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return int(value)
    return value


def write_sqlite(kg: KnowledgeGraph, target: str | Path, *, overwrite: bool = False) -> dict[str, int]:
    """Write ``kg`` as a SQLite database at ``target`` and Datasette's metadata beside it
    (:func:`metadata_path`); return ``{table: rows}``.

    Raises :class:`kb.errors.WriteError` when ``target`` or its metadata file exists and
    ``overwrite`` is false (nothing is written then), or when a file cannot be written.
    """
    target = Path(target)
    meta = metadata_path(target)
    for path in (target, meta):
        if path.exists() and not overwrite:
            raise WriteError(f"{path}: already exists; pass --force to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep_temp_files(target.parent)  # what a killed export left: its pid is gone
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=target.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~current_umask())  # the mode any new file gets (mkstemp's is 0600)
    counts: dict[str, int] = {}
    try:
        con = sqlite3.connect(tmp)
        try:
            _fill(con, kg, counts, target.parent)
            con.commit()
            bad = con.execute("PRAGMA foreign_key_check").fetchall()
        finally:
            con.close()
        if bad:  # check_references vouches for every reference; a row here is kb's own bug
            table, rowid, parent, _ = bad[0]
            raise WriteError(f"{target}: not written: row {rowid} of {table} refers to a missing row of {parent} "
                             f"({len(bad)} such reference(s)); run 'kb check' and report it if the records pass")
        try:
            write_text_atomic(meta, json.dumps(datasette_metadata(kg, target.stem), indent=2) + "\n", overwrite=overwrite)
        except RecordExists:
            raise WriteError(f"{meta}: already exists; pass --force to replace it") from None
        os.replace(tmp, target)
    except (OSError, sqlite3.Error) as exc:
        raise WriteError(f"{target}: cannot write the database ({exc}); nothing was changed") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return counts


def _record_path(kg: KnowledgeGraph, rec: Record, base: Path) -> str | None:
    """The record's file relative to ``base`` (POSIX), absolute where no relative path exists
    (another drive on Windows); ``None`` when the file is not known."""
    origin = kg.records.origins.get(rec.id)
    file = origin.file if origin is not None else None
    if file is None:
        return None
    try:
        return Path(os.path.relpath(os.path.abspath(file), os.path.abspath(base))).as_posix()
    except ValueError:
        return Path(os.path.abspath(file)).as_posix()


def _fill(con: sqlite3.Connection, kg: KnowledgeGraph, counts: dict[str, int], base: Path) -> None:
    con.execute("CREATE TABLE records (id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, "
                "status TEXT, date TEXT, catalog TEXT, path TEXT)")
    rows = []
    for rid in sorted(kg.records.records):
        rec = kg.records.records[rid]
        date = getattr(rec, "date", None)
        rows.append((rid, rec.kind, rec.title, getattr(rec, "status", None),
                     date.isoformat() if date is not None else None, kg.records.catalog_of.get(rid),
                     _record_path(kg, rec, base)))
    con.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    counts["records"] = len(rows)
    for folder, model in KINDS.items():
        own_tables = TABLE_OF_FIELD.get(folder, set())
        fields = [f.alias or name for name, f in model.model_fields.items() if (f.alias or name) not in own_tables]
        refs = FOREIGN_KEYS.get(folder, {})

        def column(c: str, refs: dict[str, str] = refs) -> str:
            if c == "id":
                return '"id" TEXT PRIMARY KEY REFERENCES records(id)'
            if c in refs:
                return f'"{c}" TEXT REFERENCES "{refs[c]}"(id)'
            return f'"{c}"'  # no declared type: a value keeps its own (numbers stay numbers, JSON stays text)

        con.execute(f'CREATE TABLE "{folder}" ({", ".join(column(c) for c in fields)})')
        records = kg.of_kind(model)
        marks = ", ".join("?" for _ in fields)
        con.executemany(f'INSERT INTO "{folder}" VALUES ({marks})',  # noqa: S608 - folder: a record kind's fixed name
                        [tuple(_column_value(record_json(r).get(c)) for c in fields) for r in records])
        counts[folder] = len(records)
        for c in refs:
            con.execute(f'CREATE INDEX "{folder}_{c}" ON "{folder}"("{c}")')
    con.execute("CREATE TABLE edges (source TEXT NOT NULL REFERENCES records(id), "
                "target TEXT NOT NULL REFERENCES records(id), type TEXT NOT NULL, PRIMARY KEY (source, target, type))")
    edges = sorted(kg.g.edges(keys=True))
    con.executemany("INSERT INTO edges VALUES (?, ?, ?)", edges)
    counts["edges"] = len(edges)
    con.execute("CREATE INDEX edges_target ON edges(target)")
    _fill_metrics(con, kg, counts)
    _fill_components(con, kg, counts)


def _fill_metrics(con: sqlite3.Connection, kg: KnowledgeGraph, counts: dict[str, int]) -> None:
    con.execute("CREATE TABLE metrics (attempt TEXT NOT NULL REFERENCES attempts(id), name TEXT NOT NULL, "
                "value REAL NOT NULL, unit TEXT NOT NULL, text TEXT, spread REAL, note TEXT, PRIMARY KEY (attempt, name))")
    metrics = [(a.id, name, m.value, m.unit, m.text, m.spread, m.note)
               for a in kg.of_kind(Attempt) for name, m in a.metrics.items()]
    con.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?)", metrics)
    counts["metrics"] = len(metrics)


def _component_row(owner: str, name: str, c: Component, came_from: str | None) -> tuple[Any, ...]:
    return (owner, name, c.version, c.source, c.bundled_in, came_from)


def _defined_in(kg: KnowledgeGraph, stack_id: str) -> dict[str, str]:
    """Component → the stack of ``stack_id``'s base chain that sets it (the nearest one)."""
    found: dict[str, str] = {}
    seen: list[str] = []
    cur: str | None = stack_id
    while cur and cur not in seen:
        seen.append(cur)
        rec = kg.get(cur)
        if not isinstance(rec, Stack):
            break
        for name in rec.components:
            found.setdefault(name, cur)
        cur = rec.base
    return found


def _fill_components(con: sqlite3.Connection, kg: KnowledgeGraph, counts: dict[str, int]) -> None:
    columns = "component TEXT NOT NULL, version TEXT, source TEXT, bundled_in TEXT"
    con.execute(f"CREATE TABLE stack_components (stack TEXT NOT NULL REFERENCES stacks(id), {columns}, "
                "defined_in TEXT NOT NULL REFERENCES stacks(id), PRIMARY KEY (stack, component))")
    rows = []
    origins: dict[str, dict[str, str]] = {}
    for s in kg.of_kind(Stack):
        origins[s.id] = _defined_in(kg, s.id)
        rows += [_component_row(s.id, name, c, origins[s.id][name]) for name, c in sorted(kg.stack_components(s.id).items())]
    con.executemany("INSERT INTO stack_components VALUES (?, ?, ?, ?, ?, ?)", rows)
    counts["stack_components"] = len(rows)
    con.execute(f"CREATE TABLE attempt_components (attempt TEXT NOT NULL REFERENCES attempts(id), {columns}, "
                "stack TEXT REFERENCES stacks(id), PRIMARY KEY (attempt, component))")
    rows = []
    for a in kg.of_kind(Attempt):
        for name, c in sorted(kg.attempt_components(a).items()):
            came_from = None if name in a.components else origins.get(a.stack or "", {}).get(name)
            rows.append(_component_row(a.id, name, c, came_from))
    con.executemany("INSERT INTO attempt_components VALUES (?, ?, ?, ?, ?, ?)", rows)
    counts["attempt_components"] = len(rows)
    con.execute("CREATE INDEX attempt_components_component ON attempt_components(component, version)")


_TABLES: dict[str, tuple[str, str, list[Any], str | None]] = {
    "records": ("Records", "Every record, of every kind; path is its YAML file, relative to this database's folder.",
                ["kind", "status", "catalog"], None),
    "attempts": ("Attempts", "What was tried: approach, stack, platform, outcome and error; metrics and components "
                 "are in tables of their own.", ["outcome", "campaign", "stack", "platform", "status", {"array": "tags"}],
                 "date"),
    "blockers": ("Blockers", "Failure causes; a blocker with no caused_by is a root cause.",
                 ["status", "component", {"array": "tags"}], None),
    "decisions": ("Decisions", "Architecture Decision Records in MADR's shape.", ["status", "campaign"], "date"),
    "stacks": ("Stacks", "Named software stacks; their components are in stack_components.", ["base"], None),
    "platforms": ("Platforms", "Hardware: GPU model and count, compute capability, interconnect.",
                  ["gpu", "compute_capability"], None),
    "campaigns": ("Campaigns", "Goals: model, platform, headline metric, baseline and target.", ["status", "platform"], None),
    "edges": ("Edges", "The graph's typed references between records (blocked_by, caused_by, resolves, evidence, ...).",
              ["type"], None),
    "metrics": ("Metrics", "One row per attempt and measured metric: value and unit.", ["name", "unit"], None),
    "attempt_components": ("Attempt components", "One row per attempt and component it ran with; stack names the "
                           "stack it came from (empty: the attempt's own override).", ["component", "version", "stack"], None),
    "stack_components": ("Stack components", "One row per stack and component, base chain applied; defined_in "
                         "is the stack that sets it.", ["component", "version", "defined_in"], None),
}
"""Table → (title, description, facets, column to sort by, newest first)."""


def datasette_metadata(kg: KnowledgeGraph, database: str) -> dict[str, Any]:
    """Datasette's metadata for the database named ``database`` (the file's stem): a title and
    description for the instance and for each table, ``label_column: title`` for the tables of
    records (a foreign key then shows the record's title), and facets (attempts by outcome,
    campaign and stack). Facets over columns that do not exist are never listed."""
    from kb.models import Campaign

    campaigns = sorted(kg.of_kind(Campaign), key=lambda c: c.id)
    title = "kb: " + "; ".join(c.title for c in campaigns) if campaigns else "kb"
    tables: dict[str, Any] = {}
    for table, (name, description, facets, sort) in _TABLES.items():
        entry: dict[str, Any] = {"title": name, "description": description, "facets": facets}
        if table == "records" or table in KINDS:
            entry["label_column"] = "title"
        if sort:
            entry["sort_desc"] = sort
        tables[table] = entry
    return {
        "title": title,
        "description": f"{len(kg.records.records)} records exported by kb export --sqlite: attempts, blockers, "
                       "decisions, stacks, platforms and campaigns, with their references as foreign keys.",
        "databases": {database: {"tables": tables}},
    }
