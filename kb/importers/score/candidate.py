"""A candidate attempt: what one segment (or one row, or one arm of a list item) claims was run,
before the scoring stage decides whether it is an attempt, a restatement of one, or nothing.

Figures are compared as people round them (:func:`same_figure`: ``89.5`` restates ``89.52``,
``82`` restates ``82.0``), and every candidate names its headline figure
(:func:`headline_name`): the campaign's metric when it has it, else a figure in the campaign's
unit, else the first figure of the most telling kind.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from kb.importers.events import Locator
from kb.importers.model import Evidence, Figure, Headline
from kb.importers.read import labels

STRENGTH = {"tool": 5, "row": 4, "failure": 4, "lines": 3, "item": 2, "note": 1, "narration": 0}
"""How much a kind of evidence weighs when two candidates claim the same run: a benchmark tool's own
output, a results-table row, a failed run's output, ``name value unit`` lines, a list item, a
paragraph, an agent's narration."""

PRIORITY = ("output_throughput", "total_throughput", "input_throughput", "request_throughput", "busbw", "tflops",
            "iterations", "bandwidth", "algbw")
"""Figure names in the order that best tells what a run achieved, when the campaign's metric is
not among them."""

LOWER_IS_BETTER = frozenset({"ms", "s", "us"})
"""Units whose figures are better lower (latencies, times)."""


@dataclass
class Candidate:
    """One claim that something was run. ``evidence``: a key of :data:`STRENGTH`. ``figures``:
    name → :class:`~kb.importers.model.Figure`. ``verdict``: ``pass``/``fail`` as the log marks it.
    ``marked``: the log calls it the reference (baseline, default, before);
    ``reference_section``: a row of a section that holds the reference runs (each the baseline of
    its model and workload). ``group``: what it is
    compared within. ``label``: a short description (a row's settings, an arm's words).
    ``confidence``/``reason``: how sure, and why. ``ordinal``: its segment's position; ``sub``: its
    position within the segment (row, arm). ``workload``: what the run was measured under (request
    rate, concurrency, lengths, dataset, model: :func:`kb.importers.read.labels.workload`); runs are
    compared only under the same workload. ``said``: the outcome the log states in words (a tie-breaker
    when figures cannot decide). ``transcript``: it comes from an agent's session (whose runs of one
    program and model are compared as a family), not a document. ``list_at``: the first line of the
list a list item belongs to (items of one list are separate entries, never restatements of each
other)."""

    evidence: str
    locator: Locator
    ordinal: int
    sub: int = 0
    figures: dict[str, Figure] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    command: str | None = None
    flags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    failed: bool = False
    error: str | None = None
    error_detail: str | None = None
    verdict: str | None = None
    marked: bool = False
    reference_section: bool = False
    group: str = ""
    label: str = ""
    approach: str = ""
    title: str = ""
    quote: str = ""
    when: dt.datetime | None = None
    dated_by: str | None = None
    path: tuple[str, ...] = ()
    confidence: float = 0.5
    reason: str = ""
    change: float | None = None
    key: str = ""
    tool: str | None = None
    restated: list[Evidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evidence_list: list[Evidence] = field(default_factory=list)
    family: str | None = None
    workload: dict[str, str] = field(default_factory=dict)
    said: str | None = None
    fallback_error: str | None = None
    failure_note: str | None = None
    """What failed, in kb's words, for a failed run whose log prints no error (``output_throughput
    0.00 tok/s: nothing was served``); used only when no error is printed near it."""
    arm: bool = False
    merged: bool = False
    """The rows of one table that are one run's points (:func:`kb.importers.score.tables._merged_rows`)."""
    arm_of_output: bool = False
    """One of the arms an output printed (its rows or labelled lines), named by ``label``."""
    labelled: bool = False
    """A paragraph that is a short label, a colon and the run's figure: a result written down, kept
    at its confidence beside tables (:func:`kb.importers.score._demote_commentary`)."""
    ran: bool = False
    """A note written right under the command it gives the result of (a command block without
    output, or one whose output printed no figure): that run's result, no comment on another's."""
    series: bool = True
    """Whether its bracketed figures are a series the outcome may compare point by point (a
    sweep's points); ``False`` when they are other workloads of one configuration (a knob grid's
    columns): then the headline alone decides."""
    cause: str | None = None
    source_id: str | None = None
    transcript: bool = False
    list_at: int | None = None
    stopped: bool = False
    """A note that quotes the error its try stopped with (:mod:`.notes`): a try of its own, never a
    comment on a run beside it."""
    checked: bool = False
    """Its own output reports a correctness check that passed: later prose does not make it failed."""
    entry: str = ""
    """The name a list item gives itself before its colon (``cfgA_run1``, ``Run 2``), for telling
    repetitions of one configuration (:mod:`kb.importers.score.repeats`)."""

    @property
    def strength(self) -> int:
        """The weight of this candidate's kind of evidence (:data:`STRENGTH`)."""
        return STRENGTH[self.evidence]


SERVED_UNITS = ("tok/s", "req/s", "it/s")
"""Rates of work served: a run that printed every one of them as zero produced nothing."""


def served_nothing(candidate: Candidate) -> Figure | None:
    """The first of a candidate's own rates (tok/s, req/s, it/s; a sweep's points ``name[dim=v]``
    aside) when every one of them is zero (``tok_s=0.00 req_s=0.00``: no request was served, so
    the run failed, whatever else it printed), else ``None``."""
    rates = [f for n, f in candidate.figures.items() if "[" not in n and f.unit in SERVED_UNITS]
    return rates[0] if rates and all(f.value == 0 for f in rates) else None


def fail_if_served_nothing(candidate: Candidate, error: str | None = None) -> None:
    """Fail ``candidate`` when :func:`served_nothing` says so: ``error`` the line its output printed
    about it, if any, else :attr:`Candidate.failure_note` says which rate was zero."""
    nothing = served_nothing(candidate)
    if nothing is None or candidate.failed:
        return
    candidate.failed = True
    candidate.error = candidate.error or error
    candidate.failure_note = f"{nothing.name} {nothing.text} {nothing.unit}: nothing was served"
    candidate.notes.append(f"Its {candidate.failure_note}.")


def decimals(text: str) -> int:
    """Digits after the decimal point of a number as written (``"89.50"`` → 2)."""
    return len(text.split(".", 1)[1]) if "." in text and "e" not in text.lower() else 0


def same_figure(a: Figure, b: Figure) -> bool:
    """Whether two figures are one figure written twice: the same unit, and the more precise one
    rounds to the other (``89.52`` and ``89.5``; ``82`` and ``82.0``)."""
    if a.unit != b.unit:
        return False
    try:
        x, y = Decimal(a.text), Decimal(b.text)
    except InvalidOperation:
        return False
    places = min(decimals(a.text), decimals(b.text))
    quantum = Decimal(1).scaleb(-places)
    return x.quantize(quantum) == y.quantize(quantum) and (x != 0 or y == 0)


TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
"""Seconds per unit of the time units kb records: a profiler prints ``1.199s`` for one run and
``873.512ms`` for the next (PyTorch's ``_format_time`` picks the unit by size)."""

MEMORY_UNITS = frozenset({"GiB", "GB", "MB", "KB"})
"""Units of memory sizes: kept as metrics, never a run's headline (a model's weights in GiB say
what it needed, not how well it ran)."""


def headline_name(figures: dict[str, Figure], headline: Headline) -> str | None:
    """The name of the figure that is ``figures``' headline (see the module docstring); ``None``
    when every figure is a memory size."""
    plain = [name for name in figures if "[" not in name] or list(figures)
    plain = [name for name in plain if figures[name].unit not in MEMORY_UNITS]
    if not plain:
        return None
    if headline.name in plain and (headline.unit is None or figures[headline.name].unit == headline.unit):
        return headline.name
    if headline.unit:
        same_unit = [name for name in plain if figures[name].unit == headline.unit]
        if same_unit:
            return min(same_unit, key=lambda n: PRIORITY.index(n) if n in PRIORITY else len(PRIORITY))
    ranked = [name for name in PRIORITY if name in plain]
    return ranked[0] if ranked else plain[0]


def better(unit: str, headline: Headline, name: str) -> str:
    """``higher`` or ``lower``: the campaign's direction for its own metric, else by the unit."""
    if name == headline.name and headline.direction in ("higher", "lower"):
        return headline.direction
    if labels.better_lower(name):
        return "lower"
    return "lower" if unit in LOWER_IS_BETTER else "higher"


def family_key(program: str, model: str | None) -> str:
    """The family of runs a command belongs to: its program and the model it was given, without
    the model's precision (``eval.py|whisper-large-v3`` for ``--model openai/whisper-large-v3``
    and ``--model whisper-large-v3-ct2-int8``): runs of one family are compared with each other."""
    return f"{program}|{labels.base_model(model) if model else ''}"


def rate_in_words(candidate: Candidate) -> bool:
    """Whether a candidate's settings give a rate the figures do not hold: a cell in a rate unit
    kb reads no one figure from (``~60-65 tok/s``, a range), or a column headed by a rate unit
    (``| t/s |``). Such a row measured a run, as a range or a rough figure."""
    return any(labels.unit_of(word) in labels.RATE_UNITS for header, cell in candidate.settings.items()
               for word in f"{header} {cell}".split())
