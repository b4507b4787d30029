"""Repetitions: sibling list items that are repeated runs of one configuration (``x_run1``,
``x_run2``, ``x_run3``) are one attempt, whose figures are their mean and whose spread is their
sample standard deviation; the log's own mean of them, when it gives one, then restates it
(:mod:`.restate`).

Siblings are the items of one list (under one parent item, their ``list:`` group); the name an
item gives itself (:attr:`~kb.importers.score.candidate.Candidate.entry`) names a repetition
when :func:`kb.importers.read.labels.repetition_stem` finds one, and two repetitions are of one
configuration when their stems are equal. A failed repetition keeps the group failed.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from kb.importers.events import Locator
from kb.importers.model import Evidence, Figure, locator_text
from kb.importers.read import labels
from kb.importers.score.candidate import Candidate, decimals


def merge(candidates: list[Candidate]) -> list[Candidate]:
    """``candidates`` with each set of two or more repetitions of one configuration replaced by one
    candidate at the first repetition's place (see the module docstring)."""
    sets: dict[tuple[str, str], list[Candidate]] = {}
    for candidate in candidates:
        stem = labels.repetition_stem(candidate.entry) if candidate.entry else None
        siblings = candidate.group if candidate.group.startswith("list:") else f"items:{candidate.list_at}"
        if stem is not None and candidate.evidence == "item" and candidate.list_at is not None:
            sets.setdefault((siblings, stem), []).append(candidate)
    means: dict[int, Candidate] = {}  # the first repetition's id → the set's mean
    dropped: set[int] = set()  # the other repetitions
    for (_, stem), members in sets.items():
        if len(members) >= 2:
            means[id(members[0])] = mean_of(members, stem)
            dropped |= {id(other) for other in members[1:]}
    for members in _series(candidates, dropped):
        first = members[0]
        units = {f.unit for f in first.figures.values()}
        at = candidates.index(first)
        summarised = any(_near(c.path, first.path) and id(c) not in dropped and c.evidence != "item"
                         and units & {f.unit for f in c.figures.values()} for c in candidates[:at])
        if summarised:  # the section's table or output, just above, gives the run: these are its samples
            dropped |= {id(m) for m in members}
        else:
            means[id(first)] = mean_of(members, labels.series_stem(first.entry) or "")
            dropped |= {id(other) for other in members[1:]}
    return [means.get(id(c), c) for c in candidates if id(c) not in dropped]


def _near(summary: tuple[str, ...], samples: tuple[str, ...]) -> bool:
    """Whether a summary in the section ``summary`` may sum up samples listed in ``samples``: the
    same section, one that holds it, or a sibling under the same heading (``### Results`` then
    ``### Per-Request Latencies``)."""
    return samples[:len(summary)] == summary or (len(summary) == len(samples) and summary[:-1] == samples[:-1])


SERIES = 3
"""Sibling items numbered this many times or more (``Request 1``, ``Request 2``, ``Request 3``)
are the samples of one measurement, not runs of their own."""


def _series(candidates: list[Candidate], dropped: set[int]) -> list[list[Candidate]]:
    """Runs of sibling list items named by one word and consecutive numbers (``Request 1: 0.259s``,
    ``Request 2: 0.225s``, ...), each giving figures in the same units and nothing that names a
    configuration: the per-request or per-sample figures of one run."""
    found: list[list[Candidate]] = []
    current: list[Candidate] = []

    def close() -> None:
        if len(current) >= SERIES:
            found.append(list(current))
        current.clear()

    for candidate in candidates:
        if id(candidate) in dropped or candidate.evidence != "item" or candidate.list_at is None:
            close()
            continue
        number = labels.series_number(candidate.entry)
        stem = labels.series_stem(candidate.entry)
        previous = current[-1] if current else None
        if previous is not None and (stem != labels.series_stem(previous.entry) or previous.list_at != candidate.list_at
                                     or number != (labels.series_number(previous.entry) or 0) + 1
                                     or {f.unit for f in previous.figures.values()} != {f.unit for f in candidate.figures.values()}):
            close()
        if number is None or not candidate.figures:
            close()
            continue
        current.append(candidate)
    close()
    return found


def mean_of(members: list[Candidate], stem: str) -> Candidate:
    """One candidate for repetitions ``members`` of one configuration, at the first one's place:
    each figure they all give is their mean, its spread their sample standard deviation."""
    first, last = members[0], members[-1]
    names = [n for n in first.figures if all(n in m.figures and m.figures[n].unit == first.figures[n].unit
                                             for m in members)]
    where = Locator(first.locator.file, line_start=first.locator.line_start,
                    line_end=last.locator.line_end or last.locator.line_start)
    figures: dict[str, Figure] = {}
    for name in names:
        values = [m.figures[name].value for m in members]
        places = max(decimals(m.figures[name].text) for m in members)
        mean, spread = statistics.fmean(values), statistics.stdev(values)
        figures[name] = Figure(name, f"{mean:.{places}f}", first.figures[name].unit,
                               Evidence(f"metrics.{name}", locator_text(where), f"mean of {len(values)} runs: "
                                        + ", ".join(m.figures[name].text for m in members)),
                               f"{spread:.{places}f}", generic=first.figures[name].generic)
    title = stem or (first.path[-1] if first.path else first.title)
    return replace(first, locator=where, figures=figures, label=stem or first.label, title=title,
                   failed=any(m.failed for m in members), error=next((m.error for m in members if m.error), None),
                   notes=[*first.notes, f"The mean of {len(members)} repetitions ("
                          + ", ".join(m.label for m in members) + ")."],
                   restated=[*first.restated, *(Evidence("restated", locator_text(m.locator), m.quote)
                                                 for m in members[1:])])
