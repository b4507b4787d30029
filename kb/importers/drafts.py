"""Step 3 of import: extracted attempts become draft attempt records, written through the store.

The pipeline of :func:`import_logs`, one named step each::

    load records → read each log window by window (iter_windows) and extract from each
    window (extract_windows) → redact → draft (ids, stack, platform, blockers, baseline) →
    validate every draft → write each (atomically)

:func:`import_extractions` takes the same path from the read step on, for readers that are no
session-log reader (an experiment tracker's runs: :mod:`kb.importers.mlflow_runs`).

Guarantees:

- *Bounded memory*: Claude and Codex JSONL are read and extracted a window at a time, so a
  1 GB transcript takes about the memory of one window plus the drafts; formats read whole
  are refused above 64 MiB with a message naming the format (see
  :mod:`kb.importers.sessions`).

- *Grown logs*: a draft is identified by its passage's stable key (:func:`passage_key`: session
  id and the call's uuid or id, or a digest of a document passage's text), so a transcript that
  grew or a notebook saved with other line endings adds only its new attempts.
- Drafts are :class:`kb.models.Attempt` records with ``status: draft`` and the tag
  ``imported``; every field's evidence is a ``source`` entry (file name, sha256, format,
  locator, quote, ``field``).
- *Idempotent*: a draft is identified by its log's sha256 and the locator of the passage it was
  drafted from (its anchor); an attempt that already cites that pair (draft or reviewed) is
  reported as ``exists`` and nothing is written for it. A record is never overwritten
  (:func:`kb.store.write_record` refuses).
- *Rejections stand*: a passage whose draft a person rejected in ``kb review``
  (:mod:`kb.store.review`, identified the same way) is reported as ``rejected``, with the
  reason given, and nothing is written for it.
- *Validated before written*: every draft of every file is validated before the first is
  written. A draft the model refuses (a figure it cannot hold) is left out with a warning
  naming its locator, and the log's other drafts still come in; a draft that refers to a
  record that does not exist raises :class:`kb.errors.InvalidRecords` and nothing is written.
  Each write is atomic.
- *Redaction first*: everything extracted goes through one :class:`Redactor` before a record is
  built, written or printed; :attr:`ImportReport.redactions` counts what it replaced by kind.
- References only to what exists: ``stack``/``platform`` are set when exactly one existing
  stack/platform agrees with the facts seen in the log; ``blocked_by`` holds the known blockers
  whose signatures match the error text (:func:`kb.queries.match_signatures`); ``baseline``
  names a draft of the same import, an existing attempt, or the campaign's baseline attempt.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kb.draftnotes import DUPLICATE_NOTE, IMPORT_TAG, REVIEW_HINT, confidence_note
from kb.errors import InvalidRecords, Problem, RecordExists, UsageError
from kb.ids import dated_id, free_id
from kb.importers.events import LogFormatError, Session
from kb.importers.matching import (
    _existing_sources,
    _match_platform,
    _match_stack,
    campaign_terms,
    passage_key,
    specific_blockers,
)
from kb.importers.model import ExtractedAttempt, Extraction, Fact, Headline, Statement
from kb.importers.score import score
from kb.importers.sessions import iter_windows
from kb.models import Attempt, Campaign, Platform, Stack
from kb.pipeline import load
from kb.queries import possible_duplicates
from kb.queries.signatures import is_generic
from kb.redact import SECRET, Redactor, secret_name
from kb.store import RecordSet, record_to_data, write_record
from kb.store.review import Rejection, load_rejections, rejected_passages
from kb.validation import located_problems

_SKIP_REDACT = {"sha256", "format", "field", "scope", "unit", "kind", "position", "explicit_outcome", "outcome", "key",
                "session_id", "family", "file", "headline", "reason", "confidence"}
"""Fields that are identifiers or kb's own words, never a log's text (the file name stays as it is
on disk, so that a reviewer can open the cited file)."""


@dataclass
class Draft:
    """One attempt found in a log. ``state``: ``new`` (valid, not written: a dry run),
    ``written``, ``exists`` (an attempt already cites its source; ``record`` is then
    ``None`` and ``id`` is the existing record's), or ``rejected`` (its draft was rejected in
    ``kb review``: ``id`` is the rejected draft's, ``rejected`` the reason; nothing written). ``anchor``: the locator it was drafted from.
    ``duplicates``: existing attempts it may repeat (``kb.queries.possible_duplicates``), also
    named in the draft's notes so the reviewer sees them on the site. ``known``: the catalog
    blockers (:mod:`kb.catalog`) its error matches, linked or possible, as ``(id, catalog, fix)``
    where ``fix`` is :func:`kb.queries.describe_fix` (what fixes it and what that fix needs)."""

    id: str
    anchor: str
    state: str
    record: Attempt | None = None
    rejected: str = ""
    """For state ``rejected``: the reason the draft was rejected in ``kb review``."""
    blocked_by: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    known: list[tuple[str, str, str]] = field(default_factory=list)
    confidence: float = 1.0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        data: dict[str, Any] = {"id": self.id, "state": self.state, "anchor": self.anchor,
                                "path": f"attempts/{self.id}.yaml", "confidence": self.confidence,
                                "reason": self.reason}
        if self.state == "rejected":
            data["rejected_because"] = self.rejected
        if self.record is not None:
            data["record"] = _jsonable(record_to_data(self.record))
        data["blocked_by"] = self.blocked_by
        data["possible_duplicates"] = [{"id": rid, "reason": why} for rid, why in self.duplicates]
        data["known_blockers"] = [{"id": bid, "catalog": cat, "fix": fix} for bid, cat, fix in self.known]
        return data


@dataclass
class FileImport:
    """What one log gave: its ``file`` name, ``format``, ``sha256``, reader ``warnings``
    (``file:line: message``), ``drafts``, ``decisions`` and rejected ``options`` (statements a
    person turns into ADRs with ``kb new decision``), ``facts`` seen, or the ``error`` that
    stopped it being read. ``matches_campaign`` is ``False`` when the campaign was not named
    (``--campaign``) and the log names neither its model nor its GPU: the drafts joined the only
    campaign but say so, and nothing was compared with the campaign's baseline. ``possible``:
    attempts scored below the confidence threshold (state ``possible``; written with ``all``).
    ``about_inference``: ``False`` for a log that shows no inference or benchmark work (it gives no
    drafts)."""

    file: str
    format: str | None = None
    sha256: str | None = None
    warnings: list[str] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    possible: list[Draft] = field(default_factory=list)
    about_inference: bool = True
    decisions: list[Statement] = field(default_factory=list)
    options: list[Statement] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    error: str | None = None
    matches_campaign: bool = True

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        def statement(s: Statement) -> dict[str, str]:
            return {"text": s.text, "locator": s.evidence.locator, "quote": s.evidence.quote}

        return {
            "file": self.file, "format": self.format, "sha256": self.sha256, "error": self.error,
            "matches_campaign": self.matches_campaign,
            "about_inference": self.about_inference,
            "warnings": self.warnings, "drafts": [d.to_dict() for d in self.drafts],
            "possible": [d.to_dict() for d in self.possible],
            "decisions": [statement(s) for s in self.decisions],
            "options": [statement(s) for s in self.options],
            "facts": [{"scope": f.scope, "name": f.name, "value": f.value, "locator": f.evidence.locator,
                       "quote": f.evidence.quote} for f in self.facts],
        }


@dataclass
class ImportReport:
    """The result of :func:`import_logs`: one :class:`FileImport` per path, the campaign the
    drafts joined, what was redacted (kind → count), whether it was a dry run, and
    ``problems`` of the existing records (the import goes on; ``kb check`` reports them)."""

    campaign: str
    dry_run: bool
    files: list[FileImport] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)
    record_problems: int = 0

    @property
    def drafts(self) -> list[Draft]:
        return [d for f in self.files for d in f.drafts]

    @property
    def failed(self) -> list[FileImport]:
        """Files that could not be read at all."""
        return [f for f in self.files if f.error]

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return {
            "campaign": self.campaign, "dry_run": self.dry_run,
            "files": [f.to_dict() for f in self.files],
            "redactions": dict(sorted(self.redactions.items())),
            "counts": dict(Counter(d.state for d in self.drafts)),
        }


# --------------------------------------------------------------------------- pipeline


def import_day() -> dt.date:
    """The day an import runs (:func:`datetime.date.today`): the date of a draft whose log gives
    none, until a person corrects it. A function of its own so that tests can fix the day."""
    return dt.date.today()


def import_logs(root: str | Path, paths: list[str | Path], *, format: str = "auto",
                campaign: str | None = None, dry_run: bool = False,
                today: dt.date | None = None, progress: Any = None,
                catalogs: list[str] | tuple[str, ...] = (), all_attempts: bool = False) -> ImportReport:
    """Import the session logs at ``paths`` into draft attempts under ``root`` (records/),
    matching their errors against the records and the catalogs its campaigns list, plus
    ``catalogs`` (the kb plugin's option).

    ``format``: ``auto`` or a name of :data:`kb.importers.FORMATS`. ``campaign``: the id the
    drafts join; optional when ``root`` holds exactly one campaign. ``dry_run``: build and
    validate everything, write nothing. ``today`` dates an attempt whose log gives no date.
    ``all_attempts``: write the possible attempts too (those scored below the confidence threshold).
    ``progress(iterable, label)``, when given, wraps each log's windows as they are read (the
    CLI passes a progress bar drawn only on a terminal).

    A log that cannot be read (empty, unknown format, undecodable container, over the size
    limit of a format read whole) is reported in its :class:`FileImport` ``error``, nothing is
    drafted from it, and the others are still imported. Raises
    :class:`kb.errors.UsageError` for a missing/unknown campaign,
    :class:`kb.errors.RecordError` when ``root`` is not a folder, and
    :class:`kb.errors.InvalidRecords` (before anything is written) when a draft refers to a
    record that does not exist (a draft the model refuses is left out, said in its file's
    ``warnings``); :class:`kb.errors.WriteError` if the disk refuses a write (records written
    before it are complete).
    """
    root = Path(root)
    kg, camp, report, existing, rejected, taken = _start(root, catalogs, campaign, dry_run)
    redactor = Redactor()
    headline = _headline(kg, camp, vouched=bool(campaign))
    problems: list[Problem] = []
    suffixes: dict[str, int] = {}
    for path in paths:
        path = Path(path)
        item = FileImport(path.name)
        report.files.append(item)
        last: list[Session] = []

        def windows(path: Path = path, last: list[Session] = last) -> Iterator[Session]:
            windows_ = iter_windows(path, format)
            for window in (progress(windows_, f"reading {path.name}") if progress else windows_):
                last[:] = [window]
                yield window

        try:
            extraction = score(windows(), headline)
        except LogFormatError as exc:
            item.error = redactor.redact(str(exc))
            continue
        session = last[0]  # the last window: the whole log's fields and warnings
        redactor.learn(session.cwd)
        _scout(extraction, redactor)
        item.format, item.sha256 = session.format, session.sha256
        item.warnings = [redactor.redact(str(w)) for w in session.warnings] + \
            [redactor.redact(w) for w in extraction.warnings]
        redact_extraction(extraction, redactor)
        item.file = extraction.file
        item.about_inference = extraction.about_inference
        item.decisions, item.options, item.facts = extraction.decisions, extraction.options, extraction.facts
        item.matches_campaign = extraction.matches_campaign
        item.drafts, file_problems = _drafts(extraction, kg, camp, existing, taken, redactor, today, suffixes,
                                             item.warnings, rejected)
        problems.extend(file_problems)
        possible = Extraction(extraction.file, extraction.format, extraction.sha256, extraction.tool_version,
                              attempts=extraction.possible, session_id=extraction.session_id)
        item.possible, file_problems = _drafts(possible, kg, camp, existing, taken, redactor, today, suffixes,
                                               item.warnings, rejected)
        for draft in item.possible:
            if draft.state == "new" and not all_attempts:
                draft.state = "possible"
        problems.extend(file_problems)
    return _finish(root, report, redactor, problems, dry_run)


def _headline(kg: Any, camp: Campaign, *, vouched: bool) -> Headline:
    """The campaign's headline metric for comparisons; ``vouched``: the caller named the
    campaign (``--campaign``), so a log need not name its model to be compared with its baseline."""
    platform = kg.get(camp.platform)
    return Headline(camp.metric.name, camp.metric.direction.value,
                    camp.baseline.value if camp.baseline and camp.baseline.unit == camp.metric.unit else None,
                    unit=camp.metric.unit, terms=() if vouched else campaign_terms(camp),
                    gpu=platform.gpu if isinstance(platform, Platform) else None,
                    noise=camp.noise if camp.noise is not None else 2.0, model_terms=campaign_terms(camp))


def _write_drafts(root: Path, report: ImportReport) -> None:
    """Write every ``new`` draft of ``report`` (its possible attempts too, when they were made
    ``new``) through the write gate; one that appeared meanwhile is ``exists``."""
    for draft in report.drafts + [d for f in report.files for d in f.possible]:
        if draft.state != "new" or draft.record is None:
            continue
        try:
            write_record(root, draft.record)
        except RecordExists:
            draft.state = "exists"
            continue
        draft.state = "written"


def import_extractions(root: str | Path, extract: Callable[[Headline], Iterable[Extraction]], *,
                       campaign: str | None = None, dry_run: bool = False, today: dt.date | None = None,
                       catalogs: list[str] | tuple[str, ...] = ()) -> ImportReport:
    """Draft attempts from what a reader other than the session-log readers extracted (the runs
    of an experiment tracker: :mod:`kb.importers.mlflow_runs`), along the same path as
    :func:`import_logs`: the same campaign choice, redaction, ids, references, duplicate and
    blocker checks, validation before any write, and the write gate.

    ``extract(headline)`` yields one :class:`Extraction` per source (an experiment); the
    :class:`Headline` is the campaign's, for the reader's comparisons. Each becomes one
    :class:`FileImport` of the report. An attempt's ``run_url`` that redaction changed (it named
    a private host or a user) is left out, with a warning: a link to a redacted address leads
    nowhere. Raises what :func:`import_logs` raises, and what ``extract`` raises."""
    root = Path(root)
    kg, camp, report, existing, rejected, taken = _start(root, catalogs, campaign, dry_run)
    redactor = Redactor()
    problems: list[Problem] = []
    suffixes: dict[str, int] = {}
    for extraction in extract(_headline(kg, camp, vouched=bool(campaign))):
        urls = [a.run_url for a in extraction.attempts]
        _scout(extraction, redactor)
        redact_extraction(extraction, redactor)
        item = FileImport(extraction.file, extraction.format, extraction.sha256 or None,
                          warnings=list(extraction.warnings), about_inference=extraction.about_inference,
                          facts=extraction.facts, matches_campaign=extraction.matches_campaign)
        report.files.append(item)
        for attempt, url in zip(extraction.attempts, urls):
            if attempt.run_url != url:
                item.warnings.append(f"{attempt.anchor.locator}: its run URL names a private host or a user, which "
                                     "kb redacts; the draft links no run (its source names the run)")
                attempt.run_url = None
        item.drafts, file_problems = _drafts(extraction, kg, camp, existing, taken, redactor, today, suffixes,
                                             item.warnings, rejected)
        problems.extend(file_problems)
    return _finish(root, report, redactor, problems, dry_run)


def _finish(root: Path, report: ImportReport, redactor: Redactor, problems: list[Problem], dry_run: bool) -> ImportReport:
    """What every import ends with: the redactions counted, :class:`InvalidRecords` when a draft
    refers to a record that does not exist (nothing written), else the drafts written (unless
    ``dry_run``); returns ``report``."""
    report.redactions = redactor.counts
    if problems:
        raise InvalidRecords(problems)
    if not dry_run:
        _write_drafts(root, report)
    return report


def _start(root: Path, catalogs: list[str] | tuple[str, ...], campaign: str | None, dry_run: bool) -> tuple[Any, ...]:
    """What every import starts from: the graph of ``root`` (with ``catalogs``), the campaign
    the drafts join, an empty :class:`ImportReport`, the passages already imported, those
    rejected in ``kb review``, and the ids taken."""
    loaded = load(root, catalogs)
    records = loaded.records
    camp = _campaign(records, campaign)
    report = ImportReport(camp.id, dry_run, record_problems=len(loaded.problems))
    return (loaded.graph, camp, report, _existing_sources(records), rejected_passages(load_rejections(root)),
            set(records.records))


def _campaign(records: RecordSet, wanted: str | None) -> Campaign:
    campaigns = records.of_kind(Campaign)
    if wanted:
        found = records.get(wanted)
        if isinstance(found, Campaign):
            return found
        known = ", ".join(c.id for c in campaigns) or "none yet"
        raise UsageError(f"--campaign {wanted}: no such campaign (campaigns: {known})")
    if len(campaigns) == 1:
        return campaigns[0]
    if not campaigns:
        raise UsageError("attempts need a campaign and records/ has none: start one first with "
                         "'kb new platform', 'kb new stack' and 'kb new campaign' (README: Start a campaign), "
                         "then import")
    raise UsageError("records/ holds several campaigns; choose one with --campaign ID (one of: "
                     + ", ".join(c.id for c in campaigns) + ")")


def _scout(extraction: Extraction, redactor: Redactor) -> None:
    """Teach ``redactor`` every user and host name the extraction shows anywhere (home paths,
    ``hostname`` output, ``on host X``, ``user@host``) before anything is redacted, so a name
    is removed also from the texts that come before the one that shows it is a name."""
    import copy

    scout = Redactor(redactor.names)
    for host in extraction.hosts:
        scout.learn_hosts(f"host {host}")
        scout.hosts.add(host.split(".")[0])
    redact_extraction(copy.deepcopy(extraction), scout)
    redactor.names |= scout.names
    redactor.hosts |= scout.hosts


def redact_extraction(value: Any, redactor: Redactor) -> Any:
    """Redact, in place, every string of an :class:`Extraction` (texts, quotes, commands,
    flags, env values and keys), except identifiers such as ``sha256`` and ``format``."""
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            if f.name in _SKIP_REDACT:
                continue
            setattr(value, f.name, redact_extraction(getattr(value, f.name), redactor))
        return value
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, list):
        return [redact_extraction(v, redactor) for v in value]
    if isinstance(value, dict):
        return {redact_extraction(k, redactor) if isinstance(k, str) and not k.isidentifier() else k:
                redact_extraction(v, redactor) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- drafting


def _drafts(x: Extraction, kg: Any, camp: Campaign, existing: dict[tuple[str, str], str],
            taken: set[str], redactor: Redactor, today: dt.date | None,
            suffixes: dict[str, int], warnings: list[str],
            rejected: dict[tuple[str, str], Rejection] | None = None) -> tuple[list[Draft], list[Problem]]:
    """The drafts of one extraction, and the problems of their references. A draft whose record
    would not validate is left out and said in ``warnings`` (one line each, with its locator).
    A passage in ``rejected`` (:func:`kb.store.review.rejected_passages`) gives a draft of state
    ``rejected`` and no record; a draft whose baseline it was gets none."""
    drafts: list[Draft] = []
    problems: list[Problem] = []
    dropped: list[Draft] = []
    ids: list[str | None] = []
    for attempt in x.attempts:
        stable = ("key", passage_key(x, attempt))
        found = existing.get(stable) or existing.get((x.sha256, attempt.anchor.locator))
        date = attempt.date or today or import_day()
        if found:
            ids.append(found)
            drafts.append(Draft(found, attempt.anchor.locator, "exists", confidence=attempt.confidence,
                                reason=attempt.reason))
            continue
        refused = (rejected or {}).get(stable) or (rejected or {}).get((x.sha256, attempt.anchor.locator))
        if refused is not None:
            ids.append(None)  # not a record: nothing may name it as its baseline
            drafts.append(Draft(refused.id, attempt.anchor.locator, "rejected", confidence=attempt.confidence,
                                reason=attempt.reason, rejected=refused.reason))
            continue
        new_id = _new_id(date, attempt.title, taken, suffixes)
        taken.add(new_id)
        ids.append(new_id)
        existing[stable] = new_id  # the same log twice in one import drafts it once
        drafts.append(Draft(new_id, attempt.anchor.locator, "new", confidence=attempt.confidence,
                            reason=attempt.reason))
    for attempt, draft, record_id in zip(x.attempts, drafts, ids):
        if draft.state in ("exists", "rejected") or record_id is None:
            continue
        baseline: str | None = None
        if attempt.reference is not None and attempt.reference >= 0:
            baseline = ids[attempt.reference]
        elif attempt.reference == -1 and isinstance(kg.get(camp.baseline_attempt or ""), Attempt):
            baseline = camp.baseline_attempt
        try:
            draft.record = _record(x, attempt, record_id, kg, camp, baseline, redactor, attempt.date or today or import_day())
        except ValidationError as exc:  # one draft the model refuses must not cost the log's others
            why = "; ".join(f"{p.field}: {p.message}" for p in located_problems(exc, Attempt, x.file))
            warnings.append(f"{attempt.anchor.locator}: the run read there was not drafted, its record would be "
                            f"invalid ({why}); write it by hand if it is an attempt")
            dropped.append(draft)
            continue
        draft.blocked_by = list(draft.record.blocked_by)
        draft.duplicates = possible_duplicates(kg, draft.record)
        draft.known = _known_blockers(kg, draft.record)
        if draft.duplicates:
            lines = "\n".join(f"- `{rid}`: {why}" for rid, why in draft.duplicates)
            draft.record = draft.record.model_copy(update={
                "notes": (draft.record.notes or "") + f"\n{DUPLICATE_NOTE}\n\n{lines}\n"})
        problems.extend(_reference_problems(draft.record, kg, {i for i in ids if i}, x.file))
    gone = {d.id for d in dropped}
    for draft in drafts:
        if draft.record is not None and draft.record.baseline in gone:  # its baseline was left out
            draft.record = draft.record.model_copy(update={"baseline": None})
    return [d for d in drafts if d.id not in gone], problems


def _new_id(date: dt.date, title: str, taken: set[str], suffixes: dict[str, int]) -> str:
    """``<date>-<slug of title>``, with ``-2``, ``-3``, ... when ``taken`` holds it already
    (``suffixes`` remembers the next number per base, so many repeats stay linear)."""
    base = dated_id(date, title, fallback="imported-attempt")
    found = free_id(base, taken, suffixes.get(base, 2))
    if found != base:
        suffixes[base] = int(found.rsplit("-", 1)[1]) + 1
    return found


def _known_blockers(kg: Any, record: Attempt) -> list[tuple[str, str, str]]:
    """The catalog blockers the attempt's error matches: ``(id, catalog, fix)``, linked ones first."""
    from kb.models import Blocker
    from kb.queries import describe_fix, match_signatures

    catalog = kg.records.catalog_of
    text = "\n".join(t for t in (record.error, record.notes) if t)
    found = [b for b in record.blocked_by if b in catalog]
    found += [b for b in match_signatures(kg, record.error or "") if b in catalog and b not in found]
    return [(bid, catalog[bid], describe_fix(b, kg)) for bid in found if isinstance(b := kg.get(bid), Blocker)] if text else []


def _record(x: Extraction, a: ExtractedAttempt, record_id: str, kg: Any, camp: Campaign,
            baseline: str | None, redactor: Redactor, date: dt.date) -> Attempt:
    stack_id, components = _match_stack(kg, [f for f in a.facts if f.scope == "stack"])
    platform_id, unmatched = _match_platform(kg, [f for f in a.facts if f.scope == "platform"])
    env = {}
    for name, value in a.env.items():
        if secret_name(name) or SECRET in value:
            if SECRET not in value:
                redactor.counts["env-secret"] += 1
            continue  # a secret is no configuration: drop it
        env[name] = value
    evidence_text = "\n".join(t for t in (a.error, a.error_detail, a.cause) if t)
    blocked_by, possible = specific_blockers(kg, evidence_text)
    notes = [f"Drafted by `kb import` from {x.file} ({x.format}"
             + (f" {x.tool_version}" if x.tool_version else "") + "). " + REVIEW_HINT]
    if not x.matches_campaign:
        notes.append(f"This log names neither the model of campaign `{camp.id}` ({camp.model}) nor its platform; "
                     "it joined that campaign only because it is the only one, and nothing was compared with "
                     "the campaign's baseline. Re-import with `--campaign ID` or move the attempt.")
    notes.append(confidence_note(a.confidence, a.reason))
    if a.date_basis:
        notes.append(f"Date: {a.date_basis}.")
    elif a.date is None:
        notes.append(f"Date: the log gives none; dated {date.isoformat()}, the day of the import. Correct it.")
    notes += a.notes
    if a.restated:
        notes.append("The log restates this run at " + ", ".join(e.locator for e in a.restated[:8])
                     + (f" and {len(a.restated) - 8} more places" if len(a.restated) > 8 else "") + ".")
    if a.error_detail:
        notes.append("Error output:\n\n```\n" + a.error_detail + "\n```")
    for blocker_id, signature in possible:
        if is_generic(signature):
            why = "is generic: any such error matches it"
        elif blocker_id in kg.records.catalog_of:
            why = "also matches a blocker of the campaign's own, which was linked instead"
        else:
            why = "matches, beside other blockers, none of them by a specific signature"
        notes.append(f"Possible match: blocker `{blocker_id}` (its signature \"{signature}\" {why}). "
                     "Add it to `blocked_by` if it is this cause.")
    deltas = [f"{name} {m.text} {m.unit}".strip() for name, m in a.metrics.items() if m.text.startswith("-")]
    if deltas:
        notes.append("Negative figures read beside this run (a difference, not a measurement; no metric "
                     "is negative): " + ", ".join(deltas) + ".")
    if unmatched:
        notes.append("Platform seen in the log (no platform record matches): "
                     + ", ".join(f"{f.name} {f.value}" for f in unmatched) + ".")
    sources = [a.anchor] + a.evidence + [m.evidence for m in a.metrics.values() if "[" not in m.name][:12] + \
        [f.evidence for f in a.facts] + a.restated[:8]
    data: dict[str, Any] = {
        "id": record_id,
        "title": a.title,
        "date": date,
        "campaign": camp.id,
        "approach": a.approach or a.title,
        "platform": platform_id,
        "stack": stack_id,
        "components": components,
        "config": {"command": a.command, "flags": a.flags, "env": env, "settings": a.settings},
        "outcome": a.outcome,
        "metrics": {name: _metric(m) for name, m in _headline_first(a).items() if not m.text.startswith("-")},
        "baseline": baseline,
        "error": a.error,
        "blocked_by": blocked_by,
        "status": "draft",
        "tags": [IMPORT_TAG],
        "notes": "\n\n".join(notes) + "\n",
        "source": [{"file": None if x.url else x.file, "url": x.url, "locator": e.locator, "quote": e.quote or None,
                    "sha256": x.sha256 or None, "format": x.format, "field": e.field,
                    "key": passage_key(x, a) if e is a.anchor else None}
                   for e in sources],
        "run_url": a.run_url,
    }
    return Attempt.model_validate(data)


def _headline_first(a: ExtractedAttempt) -> dict[str, Any]:
    """The attempt's metrics with its headline first (the one a table of drafts shows)."""
    if a.headline and a.headline in a.metrics:
        return {a.headline: a.metrics[a.headline], **{k: v for k, v in a.metrics.items() if k != a.headline}}
    return dict(a.metrics)


def _metric(figure: Any) -> dict[str, Any]:
    """A figure as a record's metric: value, unit, the number as written, and its reported spread."""
    data: dict[str, Any] = {"value": float(figure.text), "unit": figure.unit, "text": figure.text}
    if figure.spread:
        with contextlib.suppress(ValueError):  # a spread written as no number is left out
            data["spread"] = abs(float(figure.spread))
    return data


def _reference_problems(record: Attempt, kg: Any, batch: set[str], file: str) -> list[Problem]:
    problems = []
    wanted = [("campaign", record.campaign, Campaign), ("platform", record.platform, Platform),
              ("stack", record.stack, Stack)] + [("blocked_by", b, None) for b in record.blocked_by]
    for name, target, kind in wanted:
        if target is None:
            continue
        found = kg.get(target)
        if found is None or (kind is not None and not isinstance(found, kind)):
            problems.append(Problem(file, None, name, f"draft {record.id} refers to unknown '{target}'"))
    if record.baseline and record.baseline not in batch and not isinstance(kg.get(record.baseline), Attempt):
        problems.append(Problem(file, None, "baseline", f"draft {record.id} refers to unknown attempt '{record.baseline}'"))
    return problems


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
