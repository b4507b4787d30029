"""kb as a library: load the records once, then ask in process.

    >>> import kb
    >>> knowledge = kb.load("records")                       # doctest: +SKIP
    >>> [r.id for r in knowledge.roots(limit=3)]              # doctest: +SKIP
    >>> knowledge.unblocks("cuda=13.0").resolved              # doctest: +SKIP

It writes too: :func:`log_attempt` records an attempt as ``kb log`` does, and ``with
kb.record_run(...) as run:`` records the block's run when it ends (MLflow's ``start_run`` shape),
both through the store's write gate.

The functions are the same queries the commands print (:mod:`kb.queries`; :mod:`kb.render` turns
their results into the commands' text), over the graph that
:func:`kb.pipeline.load` builds (load → check → link); what they return are the queries' result
objects, each with ``to_dict()`` for JSON. A script or an agent that asks many questions loads
once (:func:`load`) and asks the :class:`Knowledge`; :meth:`Knowledge.refresh` loads again only
when a record file or a catalog folder changed. The module-level :func:`roots`, :func:`why`,
:func:`unblocks` and :func:`diff` take a :class:`Knowledge` or a records folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.errors import Problem
    from kb.graph import KnowledgeGraph
    from kb.queries import AttemptDiff, RootCause, RootsReport, UnblocksResult, WhyResult
    from kb.usecases.log import LogResult

__all__ = ["Knowledge", "Run", "check", "diff", "load", "log_attempt", "record_run", "roots", "unblocks", "why"]


def _signature(root: Path, catalogs: Iterable[Path]) -> tuple[tuple[str, int, int], ...]:
    """What decides whether the records changed: every file's path, size and modification time
    (nanoseconds) under ``root`` and the catalog folders, sorted. Reading it costs a walk of the
    folders, no file is opened."""
    seen: list[tuple[str, int, int]] = []
    for base in (root, *catalogs):
        if not base.is_dir():
            seen.append((str(base), -1, -1))
            continue
        for folder, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in files:
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                seen.append((path, st.st_size, st.st_mtime_ns))
    return tuple(sorted(seen))


@dataclass
class Knowledge:
    """The records of one folder, loaded, checked and linked once: ``graph`` (a
    :class:`kb.graph.KnowledgeGraph`) and ``problems`` (every :class:`kb.errors.Problem` found,
    sorted; the queries refuse to answer while there is any, as the commands do)."""

    root: Path
    catalogs: tuple[str, ...] = ()
    problems: list[Problem] = field(default_factory=list)
    _graph: Any = None
    _seen: tuple[tuple[str, int, int], ...] = ()

    @property
    def graph(self) -> KnowledgeGraph:
        """The linked graph; raises :class:`kb.errors.InvalidRecords` (holding every problem)
        when a record or a reference is invalid."""
        if self.problems:
            from kb.errors import InvalidRecords

            raise InvalidRecords(self.problems)
        return self._graph

    def refresh(self) -> bool:
        """Load again when a file under the records folder or a catalog folder changed (path,
        size or modification time) since the last load; ``True`` when it did."""
        from kb.pipeline import catalog_folders

        folders = catalog_folders(self._graph.records, self.root, self.catalogs) if self._graph is not None else []
        if self._graph is not None and _signature(self.root, folders) == self._seen:
            return False
        self._load()
        return True

    def _load(self) -> None:
        from kb.pipeline import catalog_folders
        from kb.pipeline import load as load_pipeline

        loaded = load_pipeline(self.root, self.catalogs)
        self._graph, self.problems = loaded.graph, loaded.problems
        self._seen = _signature(self.root, catalog_folders(loaded.records, self.root, self.catalogs))

    def roots(self, campaign: str | None = None, limit: int | None = None, now_first: bool = False) -> list[RootCause]:
        """Root causes ranked as ``kb roots`` ranks them (:func:`kb.queries.roots`: by the attempts
        they blocked over the history; ``now_first``: by those still blocked now, ``--now``)."""
        from kb.queries import roots as rank

        return rank(self.graph, campaign=campaign, limit=limit, now_first=now_first)

    def roots_report(self, campaign: str | None = None, limit: int | None = None,
                     now_first: bool = False) -> RootsReport:
        """What ``kb roots --json`` prints (:func:`kb.queries.roots_report`): the ranked roots,
        the catalog roots no attempt met, and the campaign in scope with its current stack."""
        from kb.queries import roots_report

        return roots_report(self.graph, campaign=campaign, limit=limit, now_first=now_first)

    def why(self, attempt: str) -> WhyResult:
        """Why ``attempt`` came out as it did (:func:`kb.queries.why`); raises
        :class:`kb.errors.QueryError` for an unknown attempt id."""
        from kb.queries import why as explain

        return explain(self.graph, attempt)

    def unblocks(self, change: str | Iterable[str] | Mapping[str, str] = (), *, to_stack: str | None = None,
                 from_stack: str | None = None, campaign: str | None = None) -> UnblocksResult:
        """What a stack change does (:func:`kb.queries.unblocks`). ``change``: ``"cuda=13.0"``,
        several such strings, or a mapping component → version; raises
        :class:`kb.errors.UsageError` for a malformed change (:func:`kb.queries.parse_change`)."""
        from kb.queries import parse_change
        from kb.queries import unblocks as compute

        if isinstance(change, Mapping):
            items = [f"{k}={v}" for k, v in change.items()]
        elif isinstance(change, str):
            items = change.split()
        else:
            items = list(change)
        return compute(self.graph, parse_change(items), to_stack=to_stack, from_stack=from_stack, campaign=campaign)

    def diff(self, a: str, b: str) -> AttemptDiff:
        """What differs between attempt ``a`` (the reference) and ``b`` (:func:`kb.queries.diff_attempts`)."""
        from kb.queries import diff_attempts

        return diff_attempts(self.graph, a, b)


def load(records: str | Path = "records", catalogs: Iterable[str] = ()) -> Knowledge:
    """Load, check and link the records under ``records`` with the catalogs their campaigns list
    and ``catalogs`` (names or folders, as the kb plugin's option). Bad records do not raise here:
    they are in :attr:`Knowledge.problems`, and a query then raises
    :class:`kb.errors.InvalidRecords`. Raises :class:`kb.errors.RecordError` when ``records`` is
    not a folder."""
    knowledge = Knowledge(Path(records), tuple(catalogs))
    knowledge._load()
    return knowledge


def check(records: str | Path = "records", catalogs: Iterable[str] = ()) -> list[Problem]:
    """Every problem ``kb check`` reports for ``records`` (``[]`` when all is valid)."""
    return load(records, catalogs).problems


def _knowledge(source: Knowledge | str | Path) -> Knowledge:
    return source if isinstance(source, Knowledge) else load(source)


def roots(source: Knowledge | str | Path = "records", campaign: str | None = None,
          limit: int | None = None) -> list[RootCause]:
    """:meth:`Knowledge.roots` of ``source`` (a :class:`Knowledge`, or a records folder loaded now)."""
    return _knowledge(source).roots(campaign=campaign, limit=limit)


def why(source: Knowledge | str | Path, attempt: str) -> WhyResult:
    """:meth:`Knowledge.why` of ``source`` (a :class:`Knowledge`, or a records folder loaded now)."""
    return _knowledge(source).why(attempt)


def unblocks(source: Knowledge | str | Path, change: str | Iterable[str] | Mapping[str, str] = (), *,
             to_stack: str | None = None, from_stack: str | None = None, campaign: str | None = None) -> UnblocksResult:
    """:meth:`Knowledge.unblocks` of ``source`` (a :class:`Knowledge`, or a records folder loaded now)."""
    return _knowledge(source).unblocks(change, to_stack=to_stack, from_stack=from_stack, campaign=campaign)


def diff(source: Knowledge | str | Path, a: str, b: str) -> AttemptDiff:
    """:meth:`Knowledge.diff` of ``source`` (a :class:`Knowledge`, or a records folder loaded now)."""
    return _knowledge(source).diff(a, b)


def _items(values: Mapping[str, Any] | Iterable[str]) -> list[str]:
    """``{"a": 1}`` as ``["a=1"]``; a list of ``name=value`` strings as it is."""
    if isinstance(values, Mapping):
        return [f"{k}={v}" for k, v in values.items()]
    return list(values)


def log_attempt(records: str | Path = "records", *, title: str, outcome: str, approach: str | None = None,
                campaign: str | None = None, metrics: Mapping[str, Any] | Iterable[str] = (),
                flags: Iterable[str] = (), env: Mapping[str, str] | Iterable[str] = (),
                components: Mapping[str, str] | Iterable[str] = (), command: str | None = None,
                error: str | None = None, baseline: str | None = None, blocked_by: Iterable[str] = (),
                notes: str | None = None, tags: Iterable[str] = (), date: Any = None, status: str = "reviewed",
                link_matches: bool = False) -> LogResult:
    """Record one attempt as ``kb log`` does, through the store's write gate (secrets redacted,
    a merge-safe id, an atomic write). ``approach`` defaults to the title. ``metrics``: ``{"output_throughput": "54.1tok/s"}`` (a
    number alone takes the campaign's headline unit) or ``["name=value unit", ...]``; ``env`` and
    ``components`` likewise (``{"NCCL_ALGO": "Tree"}``, ``{"cuda": "13.0"}``). ``link_matches``:
    link the blockers whose signatures the error matches specifically.

    Returns a :class:`kb.usecases.log.LogResult` (the attempt as written, its path, the blocker
    matches, what was redacted). Raises :class:`kb.errors.InvalidOptions` (nothing written) for
    bad input, naming each field as ``kb log``'s option (``--outcome``, ``--metric``); :class:`kb.errors.WriteError` when the disk refuses."""
    from kb.usecases.log import AttemptDraft
    from kb.usecases.log import log_attempt as log

    draft = AttemptDraft(title=title, approach=approach or title, outcome=outcome, campaign=campaign, date=date,
                         components=_items(components), flags=list(flags), env=_items(env), command=command,
                         metrics=_items(metrics), baseline=baseline, error=error, blocked_by=list(blocked_by),
                         notes=notes, tags=list(tags), status=status)
    return log(Path(records), draft, link_matches=link_matches)


class Run:
    """An attempt being recorded from Python code (:func:`record_run`): set what it measured
    (:meth:`metric`), its ``outcome`` (one of kb's outcomes; ``inconclusive`` unless set: kb does
    not guess a comparison), its ``flags``, ``env`` and ``notes``. ``result`` holds the
    :class:`kb.usecases.log.LogResult` once the ``with`` block has ended."""

    def __init__(self, title: str, approach: str | None, command: str | None):
        self.title, self.approach, self.command = title, approach, command
        self.outcome: str | None = None
        self.metrics: dict[str, str] = {}
        self.flags: list[str] = []
        self.env: dict[str, str] = {}
        self.notes: list[str] = []
        self.result: LogResult | None = None

    def metric(self, name: str, value: float | str, unit: str | None = None) -> None:
        """Record one figure: ``run.metric("output_throughput", 54.1, "tok/s")``; without a unit
        the campaign's headline unit is taken for its headline metric (else the write refuses)."""
        self.metrics[name] = f"{value}{unit}" if unit else str(value)


class record_run:
    """``with kb.record_run("records", title="EAGLE-3, 5 steps") as run: ...``: the attempt is
    written when the block ends, through :func:`log_attempt`. An exception in the block records
    the attempt as ``failed`` with the exception as its error headline (``KeyError: 12``), then
    goes on up; a ``KeyboardInterrupt`` records it as failed too, with ``interrupted``. The
    duration is kept in the notes. Writing raises what :func:`log_attempt` raises."""

    def __init__(self, records: str | Path = "records", *, title: str, approach: str | None = None,
                 campaign: str | None = None, command: str | None = None, **fields: Any):
        self.records, self.campaign, self.fields = Path(records), campaign, fields
        self.run = Run(title, approach, command)
        self.started = 0.0

    def __enter__(self) -> Run:
        import time

        self.started = time.monotonic()
        return self.run

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        import time

        run = self.run
        seconds = time.monotonic() - self.started
        error = None
        outcome = run.outcome or "inconclusive"
        if exc is not None:
            outcome = "failed"
            error = "interrupted (KeyboardInterrupt)" if isinstance(exc, KeyboardInterrupt) else \
                f"{type(exc).__name__}: {exc}".strip()
        notes = "\n\n".join([*run.notes, f"Recorded from Python by kb.record_run; the block ran {seconds:.1f} s."])
        run.result = log_attempt(self.records, title=run.title, outcome=outcome, approach=run.approach,
                                 campaign=self.campaign, metrics=run.metrics, flags=run.flags, env=run.env,
                                 command=run.command, error=error, notes=notes, **self.fields)
        # returning None: the exception, if any, goes on up
