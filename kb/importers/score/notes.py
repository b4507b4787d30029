"""Candidates from notes: a list item or paragraph that quotes a figure.

A note is weaker evidence than a run's output or a results row: a list item with a figure is a
candidate at 0.55, a paragraph at 0.4, and each gains 0.15 when it also writes what was run (a
``--flag``, an ``ENV=value``, a code span). An open to-do item (``- [ ]``) never is. A note that
quotes several figures of one kind under different words (``FA on: 41 tok/s, FA off: 38 tok/s``)
holds several arms, one candidate each; figures of different kinds (prefill and decode) are
metrics of one. An agent's narration in a transcript is the weakest (0.3): it mostly repeats what
a run printed, and such repeats are linked to that run (:mod:`.restate`).
"""

from __future__ import annotations

from dataclasses import replace

from kb.importers.events import Locator
from kb.importers.model import Evidence, Figure, locator_text, short_quote
from kb.importers.read import cells, dates, labels, prose, statements
from kb.importers.read import commands as shell
from kb.importers.read import errors as error_output
from kb.importers.score.candidate import Candidate
from kb.importers.segment import Segment

ESTIMATE_PENALTY = 0.2
"""Confidence lost by a note whose every figure is an estimate (``~70 ms``, ``about 5 ms``): runs
print measurements; estimates belong to an analysis."""


def note_candidates(segment: Segment, chat: bool) -> list[Candidate]:
    """The candidates of one ``note`` segment (see the module docstring)."""
    if segment.attrs.get("task") == "open":
        return []
    quoted = prose.figures(segment.text)
    failure = prose.failure_clause(segment.text) if not chat and segment.attrs.get("item") else None
    stopped = error_output.quoted_error(segment.text, spans_only=True) \
        if not chat and not quoted and not segment.attrs.get("item") else None
    if not quoted and failure is None and stopped is None:
        return []
    if not quoted and failure is None:  # a paragraph quoting the error its try stopped with
        elsewhere = statements.attributed(segment.text) or statements.cites_thread(segment.text)
        return [] if elsewhere else [_failed_paragraph(segment, stopped or "")]
    if not quoted:
        return [_failed_item(segment, failure or "")]
    item = bool(segment.attrs.get("item"))
    ran = segment.attrs.get("ran")  # the command written just above this result
    flags, env = shell.command_config(ran) if ran else shell.row_config(segment.text)
    spans = prose.code_spans(segment.text)
    configured = bool(flags or env or spans)
    if not chat and not configured and (statements.attributed(segment.text) or
                                        (item and statements.introduces_references(segment.attrs.get("lead")))):
        return []  # someone else's figure, quoted for reference: no run of this log
    if chat:
        evidence, confidence, reason = "narration", 0.3, "figures in an agent's narration"
    elif item:
        evidence, confidence, reason = "item", 0.55, "a list item quoting a figure"
    elif segment.attrs.get("result_line"):
        evidence, confidence, reason = "item", 0.55, "a line of a paragraph written one result a line"
    else:
        evidence, confidence, reason = "note", 0.4, "a paragraph quoting a figure"
    if ran and not chat:
        confidence, reason = max(confidence, RAN), "a result written under the command it ran"
    elif configured and not chat:
        confidence += 0.15
        reason += " and what was run"
    if all(fig.approximate for fig in quoted):
        confidence -= ESTIMATE_PENALTY
        reason += "; its figures are estimates (~, about)"
    where = locator_text(segment.locator)
    quoted = _the_runs_figures(quoted)
    arms = [quoted] if segment.attrs.get("sweep") else _arms(quoted)
    found = []
    for position, group in enumerate(arms):
        figures: dict[str, Figure] = {}
        if segment.attrs.get("sweep"):
            group = _sweep_points(group)
        for fig in group:
            name = fig.name if fig.name not in figures else f"{fig.name}[{len(figures)}]"
            figures[name] = Figure(name, fig.text, fig.unit, Evidence(f"metrics.{name}", where,
                                                                      short_quote(segment.text[max(0, fig.start - 60):fig.end])),
                                   fig.spread, generic=fig.generic)
        label = group[0].label if len(arms) > 1 else ""
        text = prose.plain(segment.text)
        before = segment.text[:group[0].start].rstrip().rstrip("*_").rstrip()  # "**Stock (TP8):** 1612 tok/s"
        lead = group[0].label if len(arms) == 1 and before.endswith((":", "=")) and \
            text.lower().startswith(group[0].label.lower()) else ""  # "INT4 (shipped checkpoint): 82.3 tok/s"
        title = (label or (lead if len(lead.split()) >= 2 else "") or prose.first_sentence(text, 80) or text[:80]).strip()
        if lead and len(arms) == 1 and "\n" in segment.text.strip() and _figure_lines(segment.text):
            title = _shared_label(segment.text) or title  # "CUDA 12.4" of "CUDA 12.4 prompt processing: ..." lines
        labelled = not chat and not item and ((bool(lead) and len(lead.split()) <= 3  # "Baseline: 31.5 tok/s without X"
                                               and not labels.central_statistic(lead))  # ("Mean:" sums rows up)
                                              or (not segment.attrs.get("result_line") and _figure_lines(segment.text)))
        section = dates.without_date(segment.path[-1]) if segment.path else ""
        if not segment.attrs.get("item") and len(arms) == 1 and len(section.split()) >= 2 and not labelled:
            title = section  # a paragraph is the run of its section: the heading says what ran
        name = ""
        if segment.attrs.get("result_line"):  # "Backend A [ prompt: 448 t/s | ...": the line's own name
            name = prose.plain(segment.text[:group[0].start])
            name = name[:min((name.find(c) for c in "[(:|=" if c in name), default=len(name))].strip() or name.strip()
            title = f"{name} ({section})" if section and name else (name or title)
        parent = segment.attrs.get("parent")
        own = prose.plain(segment.text.split(";", 1)[0]).rstrip(":").strip() if segment.attrs.get("folded") else ""
        entry = own or (_entry_name(segment.text) if item and len(arms) == 1 else "")
        if own and len(arms) == 1:  # an item named by its first line, its figures in its sub-items
            title, label = own[:80], own
            text = f"{prose.plain(parent)}\n{text}" if parent else text
        elif parent:  # a result under the item that says what was tried
            title = prose.first_sentence(prose.plain(parent), 80) + (f" ({label})" if label else "")
            text = f"{prose.plain(parent)}\n{text}"
        candidate = Candidate(evidence, _figure_lines_of(segment, group), segment.ordinal, sub=position, figures=figures, flags=flags,
                              env=env, label=label, title=title, approach=prose.first_paragraph(text)[:600],
                              quote=short_quote(segment.text), when=segment.when, path=segment.path,
                              confidence=max(confidence, LABELLED) if labelled else confidence,
                              reason=f"{reason} under a label of its own" if labelled else reason, key=f"{segment.text}|{position}",
                              change=prose.signed_percent(segment.text), list_at=segment.attrs.get("list_at"))
        candidate.labelled = labelled or bool(segment.attrs.get("result_line"))  # a result written down as such
        candidate.entry = entry
        candidate.ran = bool(ran) and not chat
        failure_mark = (cells.fail_marked(prose.plain(segment.text)) or error_output.wrong_output(prose.plain(segment.text))) \
            if len(arms) == 1 and not chat else None
        if failure_mark:  # a figure the try printed, marked as a failure (garbage output, wrong answers)
            candidate.failed = True
            candidate.error = error_output.quoted_error(segment.text) or failure_mark
        if len(arms) > 1:
            candidate.group = f"arms:{segment.ordinal}"
        elif segment.attrs.get("parent_at") is not None:
            candidate.group = f"list:{segment.attrs['parent_at']}"
        elif name:  # the lines of one name under several headings: what the headings set is what varies
            candidate.group = f"lines:{prose.normalised(name)}"
        candidate.marked = statements.names_reference(label or text, first=12)
        candidate.workload = labels.workload({}, flags)
        previous = {fig.name: fig.previous for fig in group if fig.previous}
        if previous:
            candidate.notes.append("The note gives the figure it changed from: "
                                   + ", ".join(f"{k} {v}" for k, v in previous.items()) + ".")
        found.append(candidate)
    return found


def _figure_lines_of(segment: Segment, group: list[prose.ProseFigure]) -> Locator:
    """Where a paragraph's candidate is: from the line of its first figure to that of its last (the
    sentence a reviewer checks), not the lines of prose around them; a list item keeps its own."""
    where = segment.locator
    if segment.attrs.get("item") or where.line_start is None or where.line_end is None or not group:
        return where
    first = where.line_start + segment.text[:group[0].start].count("\n")
    last = where.line_start + segment.text[:group[-1].start].count("\n")
    return Locator(where.file, line_start=first, line_end=min(max(last, first), where.line_end)) \
        if first <= where.line_end else where


def _figure_lines(text: str) -> bool:
    """Whether a paragraph is written as ``label: figure`` lines and nothing else (``v2 prompt
    processing: 4512 t/s`` over ``v2 token generation: 121.6 t/s``): every line a short label, a
    colon or ``=``, then at once its figure, and no line ending a sentence. Such lines write a run's
    result down as such; they are no comment on one. A label that is only a statistic (``Average:``)
    sums up runs given elsewhere."""
    lines = [prose.plain(line).strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    for line in lines:
        quoted = prose.figures(line)
        label = line[:quoted[0].start].rstrip() if quoted else ""
        name = label[:-1].strip()
        if not label.endswith((":", "=")) or not name or line.endswith((".", "!", "?")) or \
                len(name.split()) > prose.METRIC_LINE_WORDS or not any(ch.isalpha() for ch in name) or \
                name.count("(") != name.count(")") or name.count("[") != name.count("]") or \
                labels.central_statistic(name):
            return False  # "Average: 6.33 tok/s" sums up rows; "(sd=0.3" is inside a sentence
    return True


def _shared_label(text: str) -> str:
    """The words the labels of a paragraph's ``label: figure`` lines begin with alike (``CUDA 12.4``
    of ``CUDA 12.4 prompt processing:`` and ``CUDA 12.4 token generation:``), or ``""``."""
    heads = [prose.plain(line).partition(":")[0].split() for line in text.splitlines() if line.strip()]
    shared = []
    for column in zip(*heads):
        if len(set(column)) > 1:
            break
        shared.append(column[0])
    return " ".join(shared)


ENTRY_WORDS = 6
"""At most this many words before a list item's colon name the item (``cfgA_run1: 1012 tok/s``)."""


def _entry_name(text: str) -> str:
    """The name a list item gives itself before its first colon, or ``""``."""
    name, colon, _ = prose.plain(text).partition(":")
    return name.strip() if colon and name.strip() and len(name.split()) <= ENTRY_WORDS else ""


RAN = 0.6
"""The confidence of a paragraph that gives the figure of the command written just above it, in
its section (a command in a code span or block without output, then ``Medimos 30.2 tok/s``)."""

LABELLED = 0.55
"""The confidence of a paragraph that is a short label, a colon and the run's figure (``Baseline:
31.5 tok/s without the AVX-512 build``): a result written down as such, not a figure mentioned."""

_GENERIC_TIMES = frozenset({"latency", "time"})


def _the_runs_figures(quoted: list[prose.ProseFigure]) -> list[prose.ProseFigure]:
    """The figures of a note that measure its run: those in the unit of its first rate (a throughput)
    or, with none, of its first figure; a time in another unit stays only when its words name it
    (``TTFT 45 ms``), not when the prose explains a cost (``about 200 µs on PCIe``)."""
    lead = next((f for f in quoted if f.unit in labels.RATE_UNITS), quoted[0] if quoted else None)
    if lead is None:
        return quoted
    return [f for f in quoted if f.unit == lead.unit or f.name.split("_")[-1] not in _GENERIC_TIMES]


def _sweep_points(group: list[prose.ProseFigure]) -> list[prose.ProseFigure]:
    """The points of a swept note (``bs=1: 40 tok/s; bs=8: 210 tok/s; bs=32: 655 tok/s``): the
    last point first, as the run's headline (a sweep is listed up to the point it is run to
    reach), then each point named by its label (``output_throughput[bs=8]``)."""
    points = [replace(fig, name=f"{fig.name}[{fig.label}]") for fig in group]
    return [group[-1], *points]


def _failed_item(segment: Segment, failure: str) -> Candidate:
    """A list item (or the sub-item of one) that says the try failed, with no figure."""
    parent = segment.attrs.get("parent")
    text = prose.plain(segment.text)
    title = prose.first_sentence(prose.plain(parent) if parent else text, 80)
    candidate = Candidate("item", segment.locator, segment.ordinal, title=title or failure[:80],
                          approach=(f"{prose.plain(parent)}\n{text}" if parent else text)[:600],
                          quote=short_quote(segment.text), when=segment.when, path=segment.path, failed=True,
                          error=error_output.quoted_error(segment.text) or failure, confidence=0.55,
                          reason="a list item that says the try failed",
                          key=f"{segment.text}|failed")
    return candidate


def _failed_paragraph(segment: Segment, error: str) -> Candidate:
    """A paragraph that quotes, in a code span, the exception a try stopped with (``**Error:**
    `NotImplementedError: ...` ``, ``it broke off with `DistBackendError: ...` ``): the try of its
    section, failed. Someone else's error quoted for reference is left out by the caller."""
    text = prose.plain(segment.text)
    section = dates.without_date(segment.path[-1]) if segment.path else ""
    return Candidate("note", segment.locator, segment.ordinal, title=(section or prose.first_sentence(text, 80))[:80],
                     approach=text[:600], quote=short_quote(segment.text), when=segment.when, path=segment.path,
                     failed=True, error=error, confidence=FAILED_PARAGRAPH,
                     reason="a paragraph quoting the error its try stopped with", key=f"{segment.text}|failed",
                     stopped=True)


FAILED_PARAGRAPH = 0.5
"""The confidence of a paragraph that quotes the exception its try stopped with: written down by
the person who ran it, but prose, so a reviewer confirms it."""


def _arms(quoted: list[prose.ProseFigure]) -> list[list[prose.ProseFigure]]:
    """The figures of one note split into arms: a new arm starts at a figure whose name an earlier
    figure of the current arm already has, under other words."""
    arms: list[list[prose.ProseFigure]] = [[]]
    for fig in quoted:
        current = arms[-1]
        if any(f.name == fig.name and f.unit == fig.unit for f in current) and fig.label and \
                all(f.label != fig.label for f in current if f.name == fig.name):
            arms.append([fig])
        else:
            current.append(fig)
    return [arm for arm in arms if arm]
