"""Recording a new attempt (``kb log``); new platforms, stacks and campaigns, and decision and
blocker skeletons (``kb new``).

The pipeline of ``kb log``, each step a function:

1. :func:`build_attempt` — parse what was given as text (:class:`AttemptDraft`: ``--metric
   output_throughput=54.1tok/s``, ``--component cuda=13.0``, ``--env NCCL_ALGO=Tree``), fill the
   defaults (today, the only campaign, the campaign's platform), validate through
   :class:`kb.models.Attempt` and check every reference against the records (unknown campaign,
   stack, platform, baseline or blocker ids are errors). Every problem is collected, then
   :class:`kb.errors.InvalidOptions` is raised once; nothing has been written.
2. :func:`match_blockers` — known blockers whose ``signatures`` occur in the error text, each
   with its fix (``fixed by flashinfer>=0.6.17, cuda>=12.9``) or ``no known fix``.
3. :func:`kb.store.save_record` — the write gate: redact, then write atomically under a merge-safe id
   ``YYYY-MM-DD-<slug of title>``, suffixed ``-2``, ``-3`` … on collision, never overwriting.

:func:`log_attempt` runs the three. The CLI only prompts and prints.

>>> name, metric = parse_metric("output_throughput=54.1tok/s")
>>> name, metric.display()
('output_throughput', '54.1 tok/s')
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kb.errors import InvalidOptions, Problem, UsageError
from kb.errortext import error_excerpt
from kb.graph import KnowledgeGraph
from kb.ids import dated_id, slugify
from kb.models import (
    Attempt,
    Blocker,
    Campaign,
    Component,
    Metric,
    Outcome,
    Platform,
    Record,
    Stack,
)
from kb.pipeline import load
from kb.queries import match_signatures
from kb.store import save_record
from kb.validation import first_message, option_problems
from kb.versions import canonical_component, parse_version

LOG_WHERE = "kb log"
"""The ``path`` of problems in what ``kb log`` was given (there is no file yet)."""


REFERENCE_FIELDS: dict[str, tuple[type[Record], str]] = {
    "campaign": (Campaign, "--campaign"),
    "platform": (Platform, "--platform"),
    "stack": (Stack, "--stack"),
    "baseline": (Attempt, "--baseline"),
    "retry_of": (Attempt, "--retry-of"),
    "blocked_by": (Blocker, "--blocked-by"),
}
"""Attempt field → (kind it must name, the ``kb log`` flag that sets it)."""

_FLAGS = {"title": "--title", "approach": "--approach", "outcome": "--outcome", "date": "--date",
          "hypothesis": "--hypothesis", "components": "--component", "metrics": "--metric",
          "error": "--error", "notes": "--notes", "tags": "--tag", "config": "--flag/--env",
          "id": "--title", **{k: flag for k, (_c, flag) in REFERENCE_FIELDS.items()}}

_METRIC = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*=\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(\S.*?)?\s*$")


# --------------------------------------------------------------------------- parsing flags


def parse_metric(text: str, default_units: dict[str, str] | None = None) -> tuple[str, Metric]:
    """Parse ``NAME=VALUE[UNIT]`` (``output_throughput=54.1tok/s``, ``verify_time=30 ms``).

    The unit may be left out for a name in ``default_units`` (the campaign's headline metric:
    ``{"output_throughput": "tok/s"}``). Returns ``(name, Metric)`` with the number kept as
    written. Raises ``ValueError`` naming the expected form, a missing unit or an unknown unit.
    """
    m = _METRIC.match(text)
    if not m:
        raise ValueError(f"'{text}' is not NAME=VALUE UNIT, e.g. output_throughput=54.1tok/s or verify_time=30ms")
    name, number, unit = m.group(1), m.group(2), m.group(3)
    if not unit:
        unit = (default_units or {}).get(name)
        if not unit:
            raise ValueError(f"'{text}' has no unit; write it with one, e.g. {name}={number}tok/s or {name}={number}ms")
    try:
        return name, Metric.model_validate(f"{number} {unit}")
    except ValidationError as exc:
        raise ValueError(f"'{text}': {first_message(exc)}") from None


def parse_component(text: str, *, source_fallback: bool = False) -> tuple[str, Component]:
    """Parse ``NAME=VERSION`` (``cuda=13.0``, ``torch=2.10.0+cu128``) into ``(canonical name,
    Component)``. Raises ``ValueError`` for a missing ``=`` or a version that is not PEP 440.

    With ``source_fallback`` a value that is not a PEP 440 version is kept as the component's
    ``source`` instead (``sglang=built from source`` → ``Component(source="built from source")``),
    the way :func:`kb.machine.component_from_text` keeps what a tool reported.
    """
    name, sep, version = text.partition("=")
    if not sep or not name.strip() or not version.strip():
        raise ValueError(f"'{text}' is not NAME=VERSION, e.g. cuda=13.0 or flashinfer=0.6.17")
    try:
        parse_version(version.strip())
    except ValueError:
        if not source_fallback:
            raise
        return canonical_component(name), Component(source=version.strip())
    return canonical_component(name), Component(version=version.strip())


def parse_env(text: str) -> tuple[str, str]:
    """Parse ``KEY=VALUE`` (``NCCL_ALGO=Tree``); the value may be empty. Raises ``ValueError``
    when there is no ``=`` or the key is not an environment variable name."""
    key, sep, value = text.partition("=")
    if not sep or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
        raise ValueError(f"'{text}' is not KEY=VALUE with KEY a variable name, e.g. NCCL_ALGO=Tree")
    return key, value


def parse_date(text: str | dt.date) -> dt.date:
    """``YYYY-MM-DD`` (or a date) → date; ``"today"``/``"yesterday"`` are accepted.
    Raises ``ValueError`` otherwise."""
    if isinstance(text, dt.date):
        return text
    word = text.strip().lower()
    if word in ("today", "yesterday"):
        return dt.date.today() - dt.timedelta(days=1 if word == "yesterday" else 0)
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"'{text}' is not a date; write YYYY-MM-DD, e.g. {dt.date.today().isoformat()}") from None


def check_reference(kg: KnowledgeGraph, field_name: str, value: str) -> str:
    """Return ``value`` if it is the id of a record of the kind ``field_name`` must name
    (:data:`REFERENCE_FIELDS`); raise :class:`kb.errors.UsageError` naming the kind, the closest id and the
    known ids otherwise."""
    cls, _flag = REFERENCE_FIELDS[field_name]
    rec = kg.get(value)
    if isinstance(rec, cls):
        return value
    ids = [r.id for r in kg.of_kind(cls)]
    if rec is not None:
        def a(noun: str) -> str:
            return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"

        raise UsageError(f"'{value}' is {a(rec.kind)}, not {a(cls.kind)}; give the id of {a(cls.kind)}"
                         + (f" (known: {', '.join(ids[:20])}{', …' if len(ids) > 20 else ''})" if ids else ""))
    hint = difflib.get_close_matches(value, ids, n=1, cutoff=0.5)
    known = ", ".join(ids[:20]) + (", …" if len(ids) > 20 else "") if ids else f"none yet; add one under records/{cls.folder}/"
    raise UsageError(f"unknown {cls.kind} '{value}'" + (f"; did you mean '{hint[0]}'?" if hint else "") + f" (known: {known})")


# --------------------------------------------------------------------------- the draft


@dataclass
class AttemptDraft:
    """What ``kb log`` was given, as text; :func:`build_attempt` parses and checks it.

    List fields take one flag value per item: ``metrics`` ``["output_throughput=54.1tok/s"]``,
    ``components`` ``["cuda=13.0"]``, ``env`` ``["NCCL_ALGO=Tree"]``. ``captured`` holds
    components read from the machine (``kb log --capture``); ``components`` override them.
    ``error_file`` is read when ``error`` is not given.
    """

    title: str | None = None
    approach: str | None = None
    outcome: str | None = None
    campaign: str | None = None
    date: str | dt.date | None = None
    hypothesis: str | None = None
    platform: str | None = None
    stack: str | None = None
    components: list[str] = field(default_factory=list)
    captured: dict[str, Component] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=list)
    command: str | None = None
    metrics: list[str] = field(default_factory=list)
    baseline: str | None = None
    retry_of: str | None = None
    error: str | None = None
    error_file: str | Path | None = None
    blocked_by: list[str] = field(default_factory=list)
    notes: str | None = None
    tags: list[str] = field(default_factory=list)
    status: str = "reviewed"


def default_campaign(kg: KnowledgeGraph) -> str | None:
    """The campaign an attempt belongs to when none is given: the only campaign, else the only
    active one, else ``None``."""
    camps = kg.of_kind(Campaign)
    if len(camps) == 1:
        return camps[0].id
    active = [c for c in camps if c.status == "active"]
    return active[0].id if len(active) == 1 else None


def headline_units(kg: KnowledgeGraph, campaign: str | None) -> dict[str, str]:
    """``{headline metric name: unit}`` of ``campaign`` (``{"output_throughput": "tok/s"}``), or ``{}``."""
    c = kg.get(campaign) if campaign else None
    return {c.metric.name: c.metric.unit} if isinstance(c, Campaign) else {}


def error_file_source(path: str | Path, text: str) -> dict[str, Any]:
    """The ``source`` entry citing an error log that is kept as an excerpt, not pasted: its
    file name (no folders: home paths name people), sha256 and size in bytes of the whole file,
    and how many lines it has (``field: error``)."""
    raw = Path(path).read_bytes()
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return {"file": Path(path).name, "sha256": hashlib.sha256(raw).hexdigest(), "size": len(raw),
            "field": "error", "locator": f"{lines} lines; the error is an excerpt (kb.errortext.error_excerpt)"}


def read_error_file(path: str | Path) -> str:
    """The text of an error log, decoded as UTF-8 (bad bytes replaced). Raises ``ValueError``
    naming the file when it cannot be read."""
    try:
        return Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"cannot read '{path}': {exc.strerror}") from None


def build_attempt(kg: KnowledgeGraph, draft: AttemptDraft, *, today: dt.date | None = None) -> Attempt:
    """Parse, default and check ``draft`` into an :class:`Attempt` whose id is
    ``YYYY-MM-DD-<slug of title>`` (not yet made unique: :func:`kb.store.save_record` does that).

    Defaults: ``date`` today (or ``today``), ``campaign`` :func:`default_campaign`, ``platform``
    the campaign's. A metric without a unit takes the campaign's headline unit when it is the
    headline metric. Raises :class:`InvalidOptions` with every problem, each located at the flag
    that caused it (``kb log: --campaign: unknown campaign 'x' …``).
    """
    problems: list[Problem] = []

    def problem(flag: str, message: str) -> None:
        problems.append(Problem(LOG_WHERE, None, flag, message))

    data: dict[str, Any] = {}
    for key in ("title", "approach", "outcome", "hypothesis", "notes", "status"):
        value = getattr(draft, key)
        if value is not None and str(value).strip() != "":
            data[key] = str(value).strip() if key != "notes" else str(value)
    for key in ("title", "approach", "outcome"):
        if key not in data:
            problem(_FLAGS[key], f"missing; give {_FLAGS[key]}"
                    + (f" (one of: {', '.join(o.value for o in Outcome)})" if key == "outcome" else ""))
    if "outcome" in data and data["outcome"] not in {o.value for o in Outcome}:
        hint = difflib.get_close_matches(data["outcome"], [o.value for o in Outcome], n=1)
        problem("--outcome", f"'{data['outcome']}' is not an outcome"
                + (f"; did you mean '{hint[0]}'?" if hint else "")
                + f" (one of: {', '.join(o.value for o in Outcome)})")
        data.pop("outcome")
    try:
        date = parse_date(draft.date) if draft.date else (today or dt.date.today())
    except ValueError as exc:
        problem("--date", str(exc))
        date = today or dt.date.today()
    data["date"] = date

    # references
    campaign = draft.campaign or default_campaign(kg)
    if campaign is None:
        ids = [c.id for c in kg.of_kind(Campaign)]
        problem("--campaign", "missing; give --campaign ID" + (
            f" (one of: {', '.join(ids)})" if ids
            else " (no campaign yet: start one with 'kb new campaign TITLE --model M --platform ID')"))
    refs = {"campaign": campaign, "platform": draft.platform, "stack": draft.stack, "baseline": draft.baseline,
            "retry_of": draft.retry_of}
    for key, value in refs.items():
        if not value:
            continue
        try:
            data[key] = check_reference(kg, key, value)
        except UsageError as exc:
            problem(REFERENCE_FIELDS[key][1], str(exc))
    camp = kg.get(data.get("campaign", ""))
    if "platform" not in data and not draft.platform and isinstance(camp, Campaign) and isinstance(kg.get(camp.platform), Platform):
        data["platform"] = camp.platform
    blocked: list[str] = []
    for b in draft.blocked_by:
        try:
            ref = check_reference(kg, "blocked_by", b)
        except UsageError as exc:
            problem("--blocked-by", str(exc))
            continue
        if ref not in blocked:
            blocked.append(ref)
    data["blocked_by"] = blocked

    # text items
    def parsed(items: list[str], parse: Any, flag: str) -> list[tuple[str, Any]]:
        out = []
        for item in items:
            try:
                out.append(parse(item))
            except ValueError as exc:
                problem(flag, str(exc))
        return out

    components: dict[str, Component] = dict(draft.captured)
    components.update(parsed(draft.components, parse_component, "--component"))
    data["components"] = components
    metrics: dict[str, Metric] = {}
    units = headline_units(kg, campaign)
    for name, metric in parsed(draft.metrics, lambda item: parse_metric(item, units), "--metric"):
        if name in metrics:
            problem("--metric", f"'{name}' given twice; give each metric once")
        metrics[name] = metric
    data["metrics"] = metrics
    env: dict[str, str] = dict(parsed(draft.env, parse_env, "--env"))
    data["config"] = {"flags": [f for f in draft.flags if f.strip()], "env": env,
                      **({"command": draft.command} if draft.command else {})}
    error = draft.error
    if error is None and draft.error_file is not None:
        try:
            error = read_error_file(draft.error_file)
        except ValueError as exc:
            problem("--error-file", str(exc))
        else:
            data["source"] = [error_file_source(draft.error_file, error)]
    if error is not None and error.strip():
        data["error"] = error_excerpt(error)
    if draft.tags:
        data["tags"] = list(dict.fromkeys(t.strip() for t in draft.tags if t.strip()))

    title = str(data.get("title") or "")
    if title.strip() and not slugify(title, fallback=""):
        problem("--title", f"'{title.strip()}' has no letter or digit in any script to make the attempt's id from; "
                           "give a title with words (e.g. 'EAGLE-3 on CUDA 13')")
    data["id"] = dated_id(date, title or "attempt")
    if problems:
        # still validate what is there, so that one run reports every problem; a failed attempt's
        # missing cause is not one when the cause given (--blocked-by, --error-file) was refused
        cause_refused = any(p.field in ("--blocked-by", "--error-file") for p in problems)
        problems.extend(p for p in _model_problems(data, partial=True) if p not in problems
                        and not (cause_refused and p.field == "--error/--blocked-by"))
        raise InvalidOptions(problems)
    model_problems = _model_problems(data, partial=False)
    if model_problems:
        raise InvalidOptions(model_problems)
    return Attempt.model_validate(data)


def _model_problems(data: dict[str, Any], *, partial: bool) -> list[Problem]:
    """Problems pydantic finds in ``data``; with ``partial`` missing fields (already reported) are skipped."""
    try:
        Attempt.model_validate(data)
    except ValidationError as exc:
        out = []
        for p in option_problems(exc, LOG_WHERE, {**_FLAGS, "": "--error/--blocked-by"}, skip_missing=partial,
                                 keyed=("metrics", "components")):
            if p.field == "--error/--blocked-by":  # the model's own rule: a failed attempt needs a cause
                if partial and "outcome" not in data:
                    continue
                p = Problem(p.path, p.line, p.field, p.message + " (give --error TEXT, --error-file PATH or --blocked-by ID)")
            out.append(p)
        return out
    return []


# --------------------------------------------------------------------------- known blockers


@dataclass
class BlockerMatch:
    """A known blocker whose signature occurs in an error text.

    ``fix``: ``"fixed by flashinfer>=0.6.17, cuda>=12.9"`` (alternatives joined by ``" or "``) or
    ``"no known fix (workaround: …)"``; ``linked``: whether the new attempt names it in ``blocked_by``.
    """

    id: str
    title: str
    fix: str
    linked: bool = False
    where_fixed: str = ""
    """Why the blocker cannot be what the new attempt met, by the records (``"stack cuda-13.0
    resolves it (cuda>=13.0)"``); ``""`` when nothing says so. Such a match is never linked
    unless named with ``-b``: linking it is the contradiction ``kb check`` reports as
    ``blocked-where-fixed``."""

    def describe(self) -> str:
        """``"matches <id>; fixed by cuda>=13.0"``, and ``", but stack S resolves it (...)"``."""
        return f"matches {self.id}; {self.fix}" + (f", but {self.where_fixed}" if self.where_fixed else "")

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json``: ``{id, title, fix, linked}``, and
        ``where_fixed`` when the records rule the match out for the attempt."""
        out: dict[str, Any] = {"id": self.id, "title": self.title, "fix": self.fix, "linked": self.linked}
        if self.where_fixed:
            out["where_fixed"] = self.where_fixed
        return out


def describe_fix(blocker: Blocker, kg: KnowledgeGraph | None = None) -> str:
    """How ``blocker`` is fixed, in words: :func:`kb.queries.fixtext.describe_fix` (the one place
    that says it), kept here under its old name for callers of the logbook."""
    from kb.queries.fixtext import describe_fix as words

    return words(blocker, kg)


def match_blockers(kg: KnowledgeGraph, error_text: str | None, linked: list[str] | tuple[str, ...] = (),
                   attempt: Attempt | None = None) -> list[BlockerMatch]:
    """Known blockers whose ``signatures`` occur in ``error_text``
    (:func:`kb.queries.match_signatures`), sorted by id, each with :func:`describe_fix`;
    ``linked`` marks those already named in ``blocked_by``. With ``attempt`` (the one being
    logged), each match says when the records rule it out for that attempt (``where_fixed``:
    its stack resolves the blocker, the blocker does not apply there, or the run's
    tensor-parallel size is outside the blocker's)."""
    out = []
    for bid in match_signatures(kg, error_text or ""):
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        out.append(BlockerMatch(b.id, b.title, describe_fix(b, kg), bid in linked,
                                _where_fixed(kg, b, attempt) if attempt is not None else ""))
    return out


def _where_fixed(kg: KnowledgeGraph, b: Blocker, attempt: Attempt) -> str:
    """Why the records say ``attempt`` cannot have met ``b`` (``""`` when they do not)."""
    from kb.queries.resolution import StatusCache, attempt_platform, run_condition_reason

    why = run_condition_reason(b, attempt)
    if why:
        return f"it does not apply to this run ({why})"
    comps = kg.attempt_components(attempt)
    if not comps:
        return ""
    st = StatusCache(kg).lazy_on(StatusCache.key(comps), comps, attempt_platform(kg, attempt))[b.id]
    over = ", ".join(f"{k}={c.version or c.source}" for k, c in attempt.components.items())
    where = (f"stack {attempt.stack}" if attempt.stack else "the attempt's stack") + (f" with {over}" if over else "")
    if st.state == "resolved":
        return f"{where} resolves it ({st.by})"
    if st.state == "not_applicable":
        return f"it does not apply on {where} ({st.reason})"
    return ""


# --------------------------------------------------------------------------- logging


@dataclass
class LogResult:
    """What :func:`log_attempt` wrote: the attempt (with its final id), its path, the matches,
    and what the write gate redacted (kind → count)."""

    attempt: Attempt
    path: Path
    matches: list[BlockerMatch]
    redactions: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"id", "path", "matches": [{"id", "title", "fix", "linked"}], "redacted": {kind: n}}``."""
        return {"id": self.attempt.id, "path": str(self.path), "matches": [m.to_dict() for m in self.matches],
                "redacted": dict(sorted(self.redactions.items()))}


def load_for_writing(root: str | Path, catalogs: list[str] | tuple[str, ...] = ()) -> tuple[KnowledgeGraph, list[Problem]]:
    """The graph of the valid records under ``root`` (with the catalogs its campaigns list, plus
    ``catalogs``: the kb plugin's option) and the problems of the others.

    A broken record elsewhere does not stop a new one from being written (its id still counts as
    taken, through the file that exists); references are checked against the valid records.
    Raises :class:`kb.errors.RecordError` when ``root`` is not a folder.
    """
    loaded = load(root, catalogs)
    return loaded.graph, loaded.problems


def log_attempt(root: str | Path, draft: AttemptDraft, *, kg: KnowledgeGraph | None = None,
                link_matches: bool = False, today: dt.date | None = None) -> LogResult:
    """Check ``draft`` (:func:`build_attempt`), match its error against known blockers, link
    the matches when ``link_matches``, and write it under a new merge-safe id.

    ``kg`` is the graph of ``root`` if already loaded. Raises :class:`InvalidOptions` (nothing
    written) for bad input, :class:`kb.errors.WriteError` when the disk refuses.
    """
    if kg is None:
        kg, _problems = load_for_writing(root)
    attempt, matches = prepare_attempt(kg, draft, link_matches=link_matches, today=today)
    saved = save_record(root, attempt, taken=kg.records.records)
    assert isinstance(saved.record, Attempt)
    return LogResult(saved.record, saved.path, matches, dict(saved.redactions))


def prepare_attempt(kg: KnowledgeGraph, draft: AttemptDraft, *, link_matches: bool = False,
                    today: dt.date | None = None) -> tuple[Attempt, list[BlockerMatch]]:
    """The attempt :func:`log_attempt` would write, and its signature matches, without writing:
    ``(attempt, matches)``, the matches linked into ``blocked_by`` when ``link_matches`` (so a
    dry run shows what the real run writes), those that are specific
    (:func:`kb.queries.signatures.specific_matches`): a generic one is reported, not linked. Raises :class:`InvalidOptions` for bad input."""
    attempt = build_attempt(kg, draft, today=today)
    full_error = draft.error if draft.error is not None else attempt.error
    if draft.error is None and draft.error_file is not None:
        full_error = read_error_file(draft.error_file)
    matches = match_blockers(kg, full_error, attempt.blocked_by, attempt)
    if link_matches:
        from kb.queries.signatures import specific_matches

        specific = set(specific_matches(kg, full_error or "")) - {m.id for m in matches if m.where_fixed}
        matches = [m for m in matches if m.linked or m.id in specific] + [
            m for m in matches if not m.linked and m.id not in specific]
        new = [m.id for m in matches if not m.linked and m.id in specific]
        if new:
            attempt = attempt.model_copy(update={"blocked_by": attempt.blocked_by + new})
        for m in matches:
            m.linked = m.linked or m.id in specific
        matches.sort(key=lambda m: m.id)
    return attempt, matches
