"""What import finds in one log, before drafts are made of it: :class:`Extraction` (the attempts,
the possible attempts, stack facts, decision statements), :class:`ExtractedAttempt`,
:class:`Fact`, :class:`Figure`, :class:`Evidence`, and the text helpers the stages share."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from kb.importers.events import Locator

QUOTE_CHARS = 200
"""Longest quote kept as evidence (longer ones are cut with ``…``)."""

ERROR_CHARS = 2000
"""Longest error text kept (the end is kept: the exception line is last)."""


@dataclass
class Evidence:
    """Where one extracted value came from: the ``field`` it supports (``approach``,
    ``config``, ``error``, ``outcome``, ``metrics.output_throughput``, ``stack.cuda``,
    ``platform.gpu_count``, ``attempt`` for the anchor of an attempt, ``decision``,
    ``option``), a ``locator`` in the file (``line 9``, ``lines 27-33``, ``msg_a1/prt_a1b``)
    and a short ``quote`` as written."""

    field: str
    locator: str
    quote: str


@dataclass
class Fact:
    """A stack or platform fact: ``scope`` ``stack`` (``name`` a component: ``cuda``,
    ``cuda-driver``, ``driver``, ``torch``, ``torch-cuda``, ...) or ``platform`` (``gpu``,
    ``gpu_count``, ``compute_capability``, ``interconnect``, ``nvlink``); ``value`` as written;
    ``until``: the fact holds for attempts dated before this date only; ``position``: the
    index of the event it was read from (facts apply to later attempts)."""

    scope: str
    name: str
    value: str
    evidence: Evidence
    position: int = 0
    until: dt.date | None = None


@dataclass
class Figure:
    """A metric as written: ``name`` (``output_throughput``, ``median_ttft``, ...), ``text``
    (``"89.52"``), ``unit`` (a unit of :data:`kb.models.UNITS`), ``spread`` (the reported ± or
    stddev as written, or ``None``), ``generic`` (named from its unit alone: the scoring stage
    names it after the campaign's metric when that has its unit)."""

    name: str
    text: str
    unit: str
    evidence: Evidence
    spread: str | None = None
    generic: bool = False

    @property
    def value(self) -> float:
        """The figure as a float."""
        return float(self.text)


@dataclass
class ExtractedAttempt:
    """One draft attempt before it becomes a record (see :mod:`kb.importers.drafts`).

    ``anchor`` locates the attempt itself (the tool call, the table row, the paragraph) and
    identifies it across imports. ``outcome`` is a :class:`kb.models.Outcome` value.
    ``reference`` is the index (in :attr:`Extraction.attempts`) of the attempt it was compared
    with, ``-1`` for the campaign's baseline, ``None`` for none.

    ``key`` identifies the passage within its log across imports, whatever the file's bytes
    (a Claude uuid, a call id, the normalised text of a row and its arm); :mod:`.drafts` joins it
    with the session id. ``family``: attempts of one family are compared with each other (the
    program run and its model in a transcript, a table or section of a notebook). ``error`` is
    the error headline (one line), ``error_detail`` its context (a traceback). ``previous``: for
    a figure written ``from X to Y``, X by metric name. ``change``: a signed percentage written
    with the attempt (``+31.6 %``), which decides its outcome before any arithmetic.
    ``date_basis`` says where ``date`` came from (see :func:`run_date`). ``settings``: the run's
    settings as its tool printed them. ``confidence`` (0-1) and ``reason``: how sure the scoring
    stage is that this is an attempt, and why. ``restated``: other places of the log that restate
    it (a summary row, a sentence quoting its figure). ``headline``: the name of its headline
    metric in ``metrics``.
    """

    anchor: Evidence
    title: str
    approach: str
    date: dt.date | None
    outcome: str = "inconclusive"
    command: str | None = None
    flags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, Figure] = field(default_factory=dict)
    error: str | None = None
    cause: str | None = None
    notes: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    reference: int | None = None
    explicit_outcome: bool = False
    key: str | None = None
    family: str | None = None
    error_detail: str | None = None
    previous: dict[str, Figure] = field(default_factory=dict)
    change: float | None = None
    date_basis: str | None = None
    settings: dict[str, str] = field(default_factory=dict)
    confidence: float = 1.0
    reason: str = ""
    restated: list[Evidence] = field(default_factory=list)
    headline: str | None = None
    run_url: str | None = None
    """The run's page in an experiment tracker, for an attempt read from one (its ``run_url``)."""


@dataclass
class Statement:
    """A decision statement or a considered (rejected) option, with its evidence."""

    kind: str
    text: str
    evidence: Evidence


@dataclass
class Headline:
    """The campaign's headline metric for comparisons: ``name`` (``output_throughput``),
    ``direction`` (``higher``/``lower``), the campaign's baseline ``value`` if known and its
    ``unit``, and ``noise`` (percent: a change within it is neutral). ``terms``: words naming the
    campaign's model (``Kimi-K2.5``); the campaign's
    baseline is a reference only for a log that names one of them (compared without case,
    spaces or punctuation) and no other GPU than ``gpu`` (when given). With no terms the
    caller vouches that the log belongs to the campaign. ``model_terms``: the same words whether or
    not the caller vouched: a run that names another model is never compared with the campaign's
    baseline."""

    name: str = "output_throughput"
    direction: str = "higher"
    value: float | None = None
    unit: str | None = None
    terms: tuple[str, ...] = ()
    gpu: str | None = None
    noise: float = 2.0
    model_terms: tuple[str, ...] = ()


@dataclass
class Extraction:
    """What :func:`extract` found in one session: attempts in order, every fact, decision
    statements, rejected options. ``file``/``format``/``sha256`` identify the source.
    ``terms_seen``: the :attr:`Headline.terms` the log names; ``matches_campaign``: whether the
    log is the campaign's (see :class:`Headline`); ``hosts``: host names the log printed
    (``hostname`` output), for the redactor. ``possible``: attempts scored below the confidence
    threshold (listed, written only when asked). ``about_inference``: whether the log shows any
    inference or benchmark work at all (a run of a known tool, a stack probe, a throughput figure);
    a log that does not yields no drafts. ``warnings``: ``file:line: message`` for each output a
    reader recognised only in half."""

    file: str
    format: str
    sha256: str
    tool_version: str | None
    attempts: list[ExtractedAttempt] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    decisions: list[Statement] = field(default_factory=list)
    options: list[Statement] = field(default_factory=list)
    terms_seen: set[str] = field(default_factory=set)
    matches_campaign: bool = True
    session_id: str | None = None
    hosts: list[str] = field(default_factory=list)
    possible: list[ExtractedAttempt] = field(default_factory=list)
    about_inference: bool = True
    warnings: list[str] = field(default_factory=list)
    url: str | None = None
    """The address the attempts were read from when it is no file (a tracking server): their
    sources cite it as ``url`` instead of ``file``."""


def locator_text(locator: Locator) -> str:
    """``line 9``, ``lines 27-33``, ``msg_a1/prt_a1b``: a locator without its file name."""
    if locator.line is not None:
        return f"line {locator.line}"
    if locator.line_start is not None:
        end = locator.line_end or locator.line_start
        return f"line {locator.line_start}" if end == locator.line_start else f"lines {locator.line_start}-{end}"
    ids = "/".join(i for i in (locator.message_id, locator.part_id) if i)
    return ids or locator.file


def short_quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` stripped, on one line (newlines as `` / ``), cut to ``limit`` characters."""
    text = " / ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def as_dict(value: Any) -> Any:
    """An extraction (or any part of it) as plain JSON-ready data (dates as ISO strings)."""
    from dataclasses import asdict, is_dataclass

    if is_dataclass(value) and not isinstance(value, type):
        return as_dict(asdict(value))
    if isinstance(value, dict):
        return {k: as_dict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_dict(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def run_date(when: "dt.datetime") -> tuple[dt.date, str]:
    """The one date convention of import: the run's date in the log's own time zone (a
    timestamp with an offset is dated where it was written; a naive one as written), and the
    sentence saying so for the record's notes."""
    offset = when.utcoffset()
    if offset is None:
        return when.date(), f"dated {when.date().isoformat()} from the log's timestamp (no time zone in the log)"
    minutes = int(offset.total_seconds() // 60)
    zone = "UTC" if minutes == 0 else f"UTC{'+' if minutes > 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return when.date(), f"dated {when.date().isoformat()}: the run's local date in the log's time zone ({zone})"
