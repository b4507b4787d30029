"""Draft attempts from the runs of an MLflow tracking store (``kb import --format mlflow``).

The pipeline, one named step each::

    open the store (store_of) → read its runs through the mlflow client (read_runs) →
    one extraction per experiment (experiment_extraction) → the import path of every
    importer (kb.importers.drafts.import_extractions: redact, draft, validate, write gate)

Stores, as MLflow writes them (its tracking URI forms):

* a file store: a ``mlruns/`` folder (``file:///path/mlruns``), one folder per experiment holding
  ``meta.yaml``. MLflow 3 keeps it in maintenance mode and refuses to open one unless
  ``MLFLOW_ALLOW_FILE_STORE=true``; kb sets that while it reads (it only reads, though MLflow's
  file store adds an empty ``.trash`` folder where there is none);
* a SQLite database: ``mlflow.db`` (``sqlite:///path/mlflow.db``). kb reads a copy (SQLite's
  backup API, consistent even while MLflow writes), because MLflow upgrades the schema of a
  database it opens when tables are missing, which an older client could then no longer read;
* a tracking server: ``http(s)://host:port`` (``mlflow server``). kb asks it once, with a
  10-second timeout, before the client (whose retries take minutes against an address where
  nothing answers).

Each active run (deleted runs are not read) that has ended becomes one draft attempt:

* ``mlflow.runName`` (the run's name) → ``title``; the run's description (``mlflow.note.content``)
  → ``approach``, else the title;
* the start time → ``date`` (the run's UTC date; MLflow keeps milliseconds since the epoch, UTC);
* params → ``config.settings``; a param or tag naming a stack component kb knows (``cuda``,
  ``torch``, ``flashinfer``, ...) with a version, or the platform (``gpu``, ``gpu_count``,
  ``compute_capability``, ``interconnect``), is a fact matched against the stack and platform
  records, as facts read from a log are;
* metrics (the last value logged, as MLflow's run page shows it) → ``metrics``, named and given
  a unit by the key (:func:`metric_of_key`, the vocabulary of kb's benchmark readers); a metric
  whose key gives no unit (``loss``, ``accuracy``), or that is negative or not finite, is named in
  the notes for the reviewer, not guessed;
* status ``FINISHED`` → the headline metric against the campaign's baseline (improved,
  regressed, or neutral within the campaign's noise; ``inconclusive`` without a comparable
  figure); ``FAILED`` → ``failed``, with the error the run logged as a tag whose key names an
  error (``error``, ``error_message``, ``exception``, ``traceback``), else a sentence saying it
  logged none; ``KILLED`` → ``inconclusive`` (kb's outcomes have no "interrupted"), said in the
  notes. A run still ``RUNNING`` or ``SCHEDULED`` is skipped with a warning: import it again once
  it has ended;
* the run's page → ``run_url``: ``<server>/#/experiments/<experiment id>/runs/<run id>``, the
  address MLflow prints when a run ends, for a tracking server; for a local store, under the
  address ``mlflow ui`` serves it at when that is given (``ui_url``), else none;
* every field cites the run (``source``: the store, ``run <id>``, the param or metric).

A run is identified by its run id (a UUID MLflow gives it): importing the store again reports
the runs already imported as ``exists`` and writes only the new ones.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import math
import os
import re
import shutil
import sqlite3
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kb.errors import TrackingStoreError, UsageError
from kb.importers.model import Evidence, ExtractedAttempt, Extraction, Fact, Figure, Headline, short_quote
from kb.importers.read import labels, serving
from kb.importers.read.prose import normalised
from kb.models import UNITS

FORMAT = "mlflow"
"""The import format's name, and the ``format`` of every source a draft of it cites."""

EXTRA_HINT = ("install kb's mlflow extra (pip install 'kb-campaign[mlflow]'), or the mlflow client itself "
              "(pip install mlflow-skinny sqlalchemy alembic)")
"""How to get the client, said wherever it is missing."""

ENDED = ("FINISHED", "FAILED", "KILLED")
"""MLflow run statuses of a run that has ended (``RUNNING`` and ``SCHEDULED`` have not)."""

ERROR_WORDS = frozenset({"error", "exception", "traceback", "failure"})
"""A tag whose key holds one of these words (``error``, ``error_message``, ``exception``) is the
error text a failed run logged."""

PLATFORM_KEYS = ("gpu", "gpu_count", "compute_capability", "interconnect")
"""Param or tag keys that state the platform a run ran on (a fact matched to platform records)."""

_SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass
class TrackingStore:
    """An opened MLflow store: ``location`` as given, ``kind`` (``file``, ``sqlite``, ``http``),
    ``uri`` the tracking URI the client opens (a temporary copy for SQLite), ``label`` what the
    drafts' sources name (the folder or file name, or the server's address), ``server`` the base
    of run pages (the server's address, or ``ui_url`` for a local store; ``None`` without)."""

    location: str
    kind: str
    uri: str
    label: str
    server: str | None = None
    copy_dir: str | None = None


@dataclass
class TrackedRun:
    """One MLflow run as read: ids, names, ``status`` (``FINISHED``, ``FAILED``, ``KILLED``,
    ``RUNNING``, ``SCHEDULED``), ``start_ms``/``end_ms`` (milliseconds since the epoch, UTC),
    ``params`` and ``tags`` (strings), ``metrics`` (the last value logged of each key)."""

    run_id: str
    experiment_id: str
    experiment: str
    name: str | None
    status: str
    start_ms: int | None
    end_ms: int | None = None
    params: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)



# --------------------------------------------------------------------------- metric names


def metric_of_key(key: str) -> tuple[str, str] | None:
    """``(name, unit)`` of an MLflow metric key, in the names and units of kb's benchmark
    readers, or ``None`` when the key gives no unit kb records.

    In order: a rate written with its unit at the end (``tok_s``, ``output_tok_s``, ``req_s``,
    ``gb_s``: a unit of :data:`kb.importers.read.labels.UNITS` spelt with ``_`` for ``/``); a key
    of the vLLM and SGLang saved results (``output_throughput``, ``median_ttft_ms``, a key ending
    ``_ms``/``_s``: :func:`kb.importers.read.serving.key_figure`); a key carrying its unit
    (``tokens_per_second``, ``decode_tps``: :func:`kb.importers.read.labels.key_figure`); a key
    ending with a size unit (``peak_memory_gib``). Keys are read in snake case first (``eval/ttft_ms``
    is ``eval_ttft_ms``).

    >>> metric_of_key("tok_s"), metric_of_key("output_tok_s"), metric_of_key("prefill_tok_s")
    (('output_throughput', 'tok/s'), ('output_throughput', 'tok/s'), ('input_throughput', 'tok/s'))
    >>> metric_of_key("tokens_per_second"), metric_of_key("ttft_ms"), metric_of_key("median_tpot_ms")
    (('output_throughput', 'tok/s'), ('ttft', 'ms'), ('median_tpot', 'ms'))
    >>> metric_of_key("request_throughput"), metric_of_key("req_s"), metric_of_key("peak_memory_gib")
    (('request_throughput', 'req/s'), ('request_throughput', 'req/s'), ('peak_memory', 'GiB'))
    >>> metric_of_key("loss"), metric_of_key("accuracy"), metric_of_key("step")
    (None, None, None)
    """
    snake = serving.snake(key)
    words = snake.split("_") if snake else []
    if not words:
        return None
    for size in (3, 2):  # tokens_sec_user, tok_s, gb_s: a rate unit spelt with "_" for "/"
        if len(words) > size - 1 and words[-1] in ("s", "sec", "second", "user"):
            unit = labels.UNITS.get("/".join(words[-size:]))
            if unit and unit in UNITS:
                return labels.name_for(" ".join(words[:-size]), unit), unit
    found = serving.key_figure(snake, 1.0)
    if found is not None and found[2] is not None and found[2] in UNITS:
        return found[0], found[2]
    carried = labels.key_figure(snake)
    if carried is not None and carried[1] in UNITS and carried[1] != "s":
        return carried
    if len(words) > 1 and words[-1] in ("gib", "gb", "mib", "mb"):
        unit = labels.UNITS.get(words[-1])
        if unit:
            return "_".join(words[:-1]), unit
    return None


# --------------------------------------------------------------------------- opening a store


def store_of(location: str, ui_url: str | None = None) -> TrackingStore:
    """Resolve ``location`` (a ``mlruns/`` folder, a ``mlflow.db`` file, a ``file://`` or
    ``sqlite:///`` URI, or a tracking server's ``http(s)://`` address) to a :class:`TrackingStore`
    that :func:`read_runs` can open. ``ui_url``: where ``mlflow ui`` serves a local store (the
    base of its run pages). A SQLite store is copied to a temporary folder first
    (:func:`close_store` removes it).

    Raises :class:`kb.errors.TrackingStoreError` naming the location and how to fix it: no such
    file or folder, a folder that is no file store, a file that is no MLflow database, a server
    that does not answer, another scheme (``postgresql://``, ``databricks``)."""
    if ui_url is not None and not _web_address(ui_url):
        raise UsageError(f"--ui-url {ui_url}: not an http(s) address; give the address 'mlflow ui' serves the store at, "
                         "e.g. http://localhost:5000")
    scheme = urlsplit(location).scheme.lower()
    if scheme in ("http", "https"):
        if not _web_address(location):
            raise TrackingStoreError(f"{location}: not a tracking server's address; write it as http://HOST:PORT")
        base = location.rstrip("/")
        _probe(base)
        return TrackingStore(location, "http", base, base, server=base)
    if scheme == "file":
        return _file_store(location, Path(_uri_path(location)), ui_url)
    if scheme == "sqlite":
        return _sqlite_store(location, Path(_uri_path(location)), ui_url)
    if len(scheme) > 1:  # a one-letter scheme is a Windows drive
        raise TrackingStoreError(f"{location}: kb reads MLflow's file store (a mlruns/ folder), its SQLite database "
                                 "(mlflow.db, sqlite:///PATH) and tracking servers (http(s)://HOST:PORT), not "
                                 f"'{scheme}' stores; serve this one with 'mlflow server --backend-store-uri {location}' "
                                 "and import from the server's http:// address")
    path = Path(location)
    if path.is_dir():
        return _file_store(location, path, ui_url)
    if path.is_file():
        return _sqlite_store(location, path, ui_url)
    raise TrackingStoreError(f"{location}: no such file or folder; pass an MLflow store: its mlruns/ folder, its "
                             "mlflow.db file, or a tracking server's http(s)://HOST:PORT address")


def close_store(store: TrackingStore) -> None:
    """Remove the temporary copy a SQLite store was read from (nothing for other stores)."""
    if store.copy_dir:
        shutil.rmtree(store.copy_dir, ignore_errors=True)
        store.copy_dir = None


def _web_address(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(c.isspace() for c in text)


def _uri_path(uri: str) -> str:
    """The local path of a ``file:`` or ``sqlite:`` URI (``sqlite:///rel.db`` is relative,
    ``sqlite:////abs.db`` and ``file:///abs`` absolute, as SQLAlchemy and MLflow read them)."""
    from urllib.parse import unquote

    rest = uri.split(":", 1)[1]
    if rest.startswith("///"):
        rest = rest[3:] if uri.lower().startswith("sqlite:") else rest[2:]
    elif rest.startswith("//"):
        rest = rest[2:]
    return unquote(rest.split("?", 1)[0])


def _file_store(location: str, path: Path, ui_url: str | None) -> TrackingStore:
    if not path.is_dir():
        raise TrackingStoreError(f"{location}: no such folder; pass the mlruns/ folder MLflow wrote its runs to")
    if not any((child / "meta.yaml").is_file() for child in path.iterdir() if child.is_dir()):
        raise TrackingStoreError(f"{location}: not an MLflow file store (no experiment folder holding meta.yaml); pass "
                                 "the mlruns/ folder MLflow wrote (the folder its tracking URI file:./mlruns names)")
    return TrackingStore(location, "file", path.resolve().as_uri(), path.name or str(path),
                         server=ui_url.rstrip("/") if ui_url else None)


def _sqlite_store(location: str, path: Path, ui_url: str | None) -> TrackingStore:
    if not path.is_file():
        raise TrackingStoreError(f"{location}: no such file; pass the mlflow.db file MLflow wrote (its tracking URI "
                                 "sqlite:///mlflow.db names it)")
    with open(path, "rb") as f:
        head = f.read(len(_SQLITE_MAGIC))
    if head != _SQLITE_MAGIC:
        raise TrackingStoreError(f"{location}: not a SQLite database, so no MLflow store; pass the mlruns/ folder or "
                                 "the mlflow.db file MLflow wrote")
    copy_dir = tempfile.mkdtemp(prefix="kb-mlflow-")
    copy = Path(copy_dir) / "mlflow.db"
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            target = sqlite3.connect(copy)
            with target:
                source.backup(target)
            tables = {r[0] for r in target.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            target.close()
        finally:
            source.close()
    except sqlite3.Error as exc:
        shutil.rmtree(copy_dir, ignore_errors=True)
        raise TrackingStoreError(f"{location}: cannot read the database ({exc}); check that it is a complete "
                                 "mlflow.db file and readable") from None
    if not {"experiments", "runs"} <= tables:
        shutil.rmtree(copy_dir, ignore_errors=True)
        raise TrackingStoreError(f"{location}: a SQLite database, but not an MLflow tracking store (it has no "
                                 "experiments and runs tables); pass the mlflow.db file MLflow wrote")
    return TrackingStore(location, "sqlite", "sqlite:///" + copy.as_posix(), path.name,
                         server=ui_url.rstrip("/") if ui_url else None, copy_dir=copy_dir)


def _probe(base: str) -> None:
    """Raise :class:`TrackingStoreError` when nothing answers HTTP at ``base`` within 10 s; any
    answer (even an error status: a proxy's login page) lets the client try."""
    try:
        with urllib.request.urlopen(base + "/", timeout=10):  # noqa: S310 - the http(s) address the user gave
            pass
    except urllib.error.HTTPError:
        return
    except (urllib.error.URLError, OSError) as exc:
        why = getattr(exc, "reason", exc)
        raise TrackingStoreError(f"{base}: no MLflow tracking server answers there ({why}); start it ('mlflow server' "
                                 "with that address's --port) or correct the address") from None


# --------------------------------------------------------------------------- reading runs


@contextlib.contextmanager
def _client_settings(store: TrackingStore) -> Iterator[None]:
    """The environment the mlflow client reads while kb reads ``store``: the file store allowed
    (MLflow 3 refuses it otherwise), few HTTP retries with a 30-s timeout unless the user set
    them, and MLflow's own info lines (database set-up) kept off the terminal."""
    wanted = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1", "MLFLOW_HTTP_REQUEST_TIMEOUT": "30"}
    if store.kind == "file":
        wanted["MLFLOW_ALLOW_FILE_STORE"] = "true"
    before = {k: os.environ.get(k) for k in wanted}
    for key, value in wanted.items():
        if key == "MLFLOW_ALLOW_FILE_STORE" or os.environ.get(key) is None:
            os.environ[key] = value
    quiet = [logging.getLogger(name) for name in ("mlflow", "alembic")]
    levels = [log.level for log in quiet]
    for log in quiet:
        log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        for log, level in zip(quiet, levels):
            log.setLevel(level)


def read_runs(store: TrackingStore, experiments: list[str] | tuple[str, ...] = ()) -> tuple[list[TrackedRun], str]:
    """Every active run of the active experiments of ``store`` (only those named in
    ``experiments``, by name or id, when given), oldest first, and the mlflow client's version.

    Raises :class:`kb.errors.TrackingStoreError` when the mlflow client is not installed (or
    lacks SQLAlchemy for a SQLite store), or the store cannot be read (the client's message
    and the fix); :class:`kb.errors.UsageError` for an experiment the store does not hold."""
    if store.kind == "sqlite" and not all(_has_module(m) for m in ("sqlalchemy", "alembic")):
        raise TrackingStoreError(f"{store.location}: reading an mlflow.db file needs SQLAlchemy and Alembic beside the "
                                 f"mlflow client: {EXTRA_HINT}")
    try:
        import mlflow
        from mlflow.entities import ViewType
        from mlflow.exceptions import MlflowException
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise TrackingStoreError(f"{store.location}: reading an MLflow store needs the mlflow client: {EXTRA_HINT}") from None
    with _client_settings(store):
        try:
            client = MlflowClient(tracking_uri=store.uri, registry_uri=store.uri if store.kind == "http" else None)
            found = _experiments(client, ViewType.ACTIVE_ONLY)
            chosen = _choose(found, experiments, store)
            runs: list[TrackedRun] = []
            for exp_id, name in chosen:
                token = None
                while True:
                    page = client.search_runs([exp_id], run_view_type=ViewType.ACTIVE_ONLY, max_results=1000,
                                              order_by=["attributes.start_time ASC"], page_token=token)
                    runs += [_tracked(r, name) for r in page]
                    token = page.token
                    if not token:
                        break
        except MlflowException as exc:
            raise TrackingStoreError(_client_problem(store, exc)) from None
        except OSError as exc:
            raise TrackingStoreError(f"{store.location}: cannot read the store ({exc})") from None
    runs.sort(key=lambda r: (r.start_ms or 0, r.run_id))
    return runs, str(mlflow.__version__)


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _experiments(client: Any, view: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    token = None
    while True:
        page = client.search_experiments(view_type=view, max_results=1000, page_token=token)
        found += [(e.experiment_id, e.name) for e in page]
        token = page.token
        if not token:
            return found


def _choose(found: list[tuple[str, str]], wanted: list[str] | tuple[str, ...], store: TrackingStore) -> list[tuple[str, str]]:
    if not wanted:
        return found
    chosen = [(i, n) for i, n in found if i in wanted or n in wanted]
    missing = [w for w in wanted if not any(w in (i, n) for i, n in found)]
    if missing:
        names = ", ".join(f"{n} (id {i})" for i, n in found) or "none"
        raise UsageError(f"--experiment {missing[0]}: {store.location} holds no such experiment (experiments: {names})")
    return chosen


def _client_problem(store: TrackingStore, exc: Exception) -> str:
    message = str(getattr(exc, "message", None) or exc).strip().splitlines()[0][:400]
    code = str(getattr(exc, "error_code", ""))
    if "out-of-date database schema" in message:
        return (f"{store.location}: its database schema is not the one this mlflow client reads ({message}); read it with "
                "the MLflow version that wrote it, or upgrade a copy ('mlflow db upgrade sqlite:///COPY') and import "
                "the copy")
    if code in ("UNAUTHENTICATED", "PERMISSION_DENIED") or re.search(r"\b40[13]\b", message):
        return (f"{store.location}: the tracking server refused access ({message}); set MLFLOW_TRACKING_USERNAME and "
                "MLFLOW_TRACKING_PASSWORD, or MLFLOW_TRACKING_TOKEN, as for any mlflow client")
    return f"{store.location}: the mlflow client could not read the store ({message})"


def _tracked(run: Any, experiment: str) -> TrackedRun:
    info, data = run.info, run.data
    tags = dict(data.tags)
    return TrackedRun(run_id=info.run_id, experiment_id=str(info.experiment_id), experiment=experiment,
                      name=tags.get("mlflow.runName") or getattr(info, "run_name", None) or None,
                      status=str(info.status), start_ms=info.start_time, end_ms=info.end_time,
                      params=dict(data.params), metrics={k: float(v) for k, v in data.metrics.items()}, tags=tags)


# --------------------------------------------------------------------------- runs → extractions


def run_page(server: str | None, run: TrackedRun) -> str | None:
    """The address of ``run``'s page under ``server`` (a tracking server, or where ``mlflow ui``
    serves a local store), as MLflow prints it when a run ends; ``None`` without a server.

    >>> run_page("http://127.0.0.1:5000", TrackedRun("ab12", "3", "sweep", "r", "FINISHED", 0))
    'http://127.0.0.1:5000/#/experiments/3/runs/ab12'
    """
    return f"{server}/#/experiments/{run.experiment_id}/runs/{run.run_id}" if server else None


def experiment_extraction(runs: list[TrackedRun], store: TrackingStore, headline: Headline,
                          client_version: str) -> Extraction:
    """The runs of one experiment as an :class:`Extraction` for
    :func:`kb.importers.drafts.import_extractions`: one attempt per ended run (see the module
    docstring), the runs not ended as warnings. ``file`` is the store's label, ``session_id``
    the experiment id (a draft's key is ``mlflow:<experiment id>:<run id>``), ``url`` the
    server's address for a tracking server."""
    first = runs[0]
    out = Extraction(store.label, FORMAT, "", f"client {client_version}", session_id=first.experiment_id,
                     url=store.server if store.kind == "http" else None)
    wanted = {normalised(t): t for t in headline.terms if normalised(t)}
    for run in runs:
        locator = f"run {run.run_id}"
        if run.status not in ENDED:
            out.warnings.append(f"{locator} ({run.name or 'unnamed'}) is {run.status}, not ended: not drafted; "
                                "import the store again once it has ended")
            continue
        text = normalised(" ".join([run.experiment, run.name or "", *run.params.values(), *run.tags.values()]))
        out.terms_seen |= {term for key, term in wanted.items() if key in text}
        out.attempts.append(_attempt(run, locator, store, headline))
    out.matches_campaign = not headline.terms or bool(out.terms_seen)
    if not out.matches_campaign:  # not the campaign's: compare nothing with its baseline
        for attempt in out.attempts:
            if attempt.reference == -1:
                attempt.outcome, attempt.reference = "inconclusive", None
    return out


def _attempt(run: TrackedRun, locator: str, store: TrackingStore, headline: Headline) -> ExtractedAttempt:
    title = run.name or f"MLflow run {run.run_id[:8]}"
    description = (run.tags.get("mlflow.note.content") or "").strip()
    started = dt.datetime.fromtimestamp(run.start_ms / 1000, dt.timezone.utc) if run.start_ms else None
    anchor = Evidence("attempt", locator, short_quote(f"{run.experiment} / {title}: {run.status}"
                                                      + (f", started {started.isoformat(timespec='seconds')}" if started else "")))
    attempt = ExtractedAttempt(anchor=anchor, title=title, approach=short_quote(description, 300) if description else title,
                               date=started.date() if started else None, key=run.run_id, confidence=1.0,
                               reason=f"a run of an MLflow tracking store, status {run.status}",
                               run_url=run_page(store.server, run))
    if started:
        attempt.date_basis = f"dated {started.date().isoformat()} from the MLflow run's start time (UTC)"
    attempt.settings = dict(run.params)
    if run.params:
        attempt.evidence.append(Evidence("config", f"{locator} params",
                                         short_quote(", ".join(f"{k}={v}" for k, v in sorted(run.params.items())))))
    attempt.facts = _facts(run, locator)
    unitless = _metrics(run, locator, attempt)
    user_tags = {k: v for k, v in sorted(run.tags.items()) if not k.startswith("mlflow.")}
    notes = [f"MLflow run `{run.run_id}` of experiment `{run.experiment}` (id {run.experiment_id}) in {store.label}, "
             f"status {run.status}."]
    if not attempt.run_url and store.kind != "http":
        notes.append("No run URL: a local store has none of its own; import again with --ui-url set to the address "
                     "`mlflow ui` serves it at to link each attempt to its run page.")
    if unitless:
        notes.append("Metrics whose key gives no unit kb records (not drafted as metrics; add each with its unit if it "
                     "is a measurement): " + ", ".join(f"{k} {v}" for k, v in unitless) + ".")
    if user_tags:
        notes.append("Tags of the run: " + ", ".join(f"{k}={short_quote(v, 80)}" for k, v in user_tags.items()) + ".")
    source = run.tags.get("mlflow.source.name")
    commit = run.tags.get("mlflow.source.git.commit")
    if source or commit:
        notes.append("Logged by " + (f"`{source}`" if source else "a program") + (f" at git commit `{commit}`" if commit else "") + ".")
    if run.tags.get("mlflow.parentRunId"):
        notes.append(f"A nested run: its parent is run `{run.tags['mlflow.parentRunId']}`.")
    if run.status == "KILLED":
        notes.append("The run was killed before it finished (MLflow status KILLED); its figures may be partial, so its "
                     "outcome is inconclusive.")
    attempt.notes = notes
    if run.status == "FAILED":
        attempt.outcome, attempt.explicit_outcome = "failed", True
        attempt.error, where = _error_text(run)
        attempt.evidence.append(Evidence("error", f"{locator} {where}", short_quote(attempt.error)))
    elif run.status == "FINISHED":
        attempt.outcome, attempt.reference = _verdict(attempt, headline)
    attempt.evidence.append(Evidence("outcome", f"{locator} status", run.status))
    return attempt


def _facts(run: TrackedRun, locator: str) -> list[Fact]:
    """Stack and platform facts a run states in its params and tags (params first)."""
    from kb.versions import KNOWN_COMPONENTS, canonical_component, parse_version

    facts: list[Fact] = []
    seen: set[tuple[str, str]] = set()
    for where, items in (("params", run.params), ("tags", run.tags)):
        for key, value in sorted(items.items()):
            if key.startswith("mlflow.") or not value.strip():
                continue
            value = value.strip()
            name = canonical_component(key)
            scope = "stack" if name in KNOWN_COMPONENTS else "platform" if key.lower() in PLATFORM_KEYS else None
            if scope == "stack":
                try:
                    parse_version(value)
                except ValueError:
                    continue
            elif scope == "platform":
                name = key.lower()
            else:
                continue
            if (scope, name) in seen:
                continue
            seen.add((scope, name))
            facts.append(Fact(scope, name, value, Evidence(f"{scope}.{name}", f"{locator} {where} {key}", f"{key}={value}")))
    return facts


def _metrics(run: TrackedRun, locator: str, attempt: ExtractedAttempt) -> list[tuple[str, str]]:
    """Put the run's metrics with a unit in ``attempt.metrics``; return ``(key, value)`` of the
    others (no unit from the key, negative, not finite), sorted by key."""
    unitless: list[tuple[str, str]] = []
    for key, value in sorted(run.metrics.items()):
        text = repr(value)
        found = metric_of_key(key)
        if found is None or not math.isfinite(value) or value < 0:
            unitless.append((key, text))
            continue
        name, unit = found
        if name in attempt.metrics:  # two keys, one name: the second keeps its own
            name = serving.snake(key)
        attempt.metrics[name] = Figure(name, text, unit, Evidence(f"metrics.{name}", f"{locator} metric {key}", f"{key}={text}"))
    return unitless


def _error_text(run: TrackedRun) -> tuple[str, str]:
    """The error a failed run logged (a tag whose key names an error) and where, else kb's
    sentence that it logged none."""
    for key, value in sorted(run.tags.items()):
        words = set(re.split(r"[^a-z]+", key.lower()))
        if not key.startswith("mlflow.") and words & ERROR_WORDS and value.strip():
            return value.strip()[-2000:], f"tag {key}"
    return ("MLflow run ended with status FAILED; it logged no error text (see the run's artifacts or the "
            "program's output)"), "status"


def _verdict(attempt: ExtractedAttempt, headline: Headline) -> tuple[str, int | None]:
    """The outcome of a finished run: its figure of the campaign's headline metric (same name
    and unit) against the campaign's baseline value, in the metric's direction, beyond the
    campaign's noise (the rule of :mod:`kb.importers.score.outcomes`); ``inconclusive`` without
    either figure."""
    figure = attempt.metrics.get(headline.name)
    if figure is None or headline.value is None or figure.unit != headline.unit:
        return "inconclusive", None
    attempt.headline = headline.name
    if headline.value == 0:
        return "neutral", -1
    change = (figure.value - headline.value) / abs(headline.value)
    if abs(change) <= headline.noise / 100:
        return "neutral", -1
    gained = change > 0 if headline.direction == "higher" else change < 0
    return ("improved" if gained else "regressed"), -1


# --------------------------------------------------------------------------- the use case


def import_mlflow(root: str | Path, location: str, *, campaign: str | None = None, dry_run: bool = False,
                  experiments: list[str] | tuple[str, ...] = (), ui_url: str | None = None,
                  today: dt.date | None = None, catalogs: list[str] | tuple[str, ...] = ()) -> Any:
    """Import the runs of the MLflow store at ``location`` into draft attempts under ``root``
    (see the module docstring); return the :class:`kb.importers.drafts.ImportReport`, one
    :class:`kb.importers.drafts.FileImport` per experiment.

    Raises :class:`kb.errors.TrackingStoreError` (the store cannot be opened or read: nothing is
    written), :class:`kb.errors.UsageError` (campaign, experiment or ``--ui-url``), and what
    :func:`kb.importers.drafts.import_extractions` raises."""
    from kb.importers.drafts import import_extractions

    store = store_of(location, ui_url)
    try:
        runs, version = read_runs(store, experiments)
    finally:
        close_store(store)

    def extract(headline: Headline) -> Iterator[Extraction]:
        by_experiment: dict[str, list[TrackedRun]] = {}
        for run in runs:
            by_experiment.setdefault(run.experiment_id, []).append(run)
        for group in by_experiment.values():
            yield experiment_extraction(group, store, headline, version)

    return import_extractions(root, extract, campaign=campaign, dry_run=dry_run, today=today, catalogs=catalogs)
