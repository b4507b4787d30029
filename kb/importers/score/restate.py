"""Restatements: a candidate that repeats a run already drafted links to that attempt instead of
making another one.

Candidates are taken strongest first (:data:`~kb.importers.score.candidate.STRENGTH`: a tool's
output before a results row, a row before a list item, a list item before a paragraph), then in
the order of the log. A command that ran never restates (it is a run of its own); a row or note
taken before it that repeats it becomes its restatement. A candidate restates an
accepted one when its headline figure is one of the
accepted candidate's figures as people round them (:func:`~kb.importers.score.candidate.same_figure`,
the same kind of figure, or one named only by its unit), and every other figure of the same kind it
gives agrees too; a note restates when each of its figures repeats a figure of some accepted
candidate. A failed candidate without figures restates an accepted failure with the same error
(a printed error with no command, only a failed table row that took it as its own error),
or, when its words point back (``failed, see above``), the earlier failure whose section or title
names it.
The restatement's place is kept in the attempt's ``restated`` list.
"""

from __future__ import annotations

from kb.importers.model import Evidence, Figure, Headline, locator_text
from kb.importers.read import cells, prose, statements
from kb.importers.score.candidate import Candidate, headline_name, same_figure

_GENERIC = frozenset({"output_throughput", "latency", "time", "bandwidth", "figure"})
"""Names a figure gets from its unit alone when its words name no kind (:func:`kb.importers.read.labels.name_for`)."""

_NOTES = frozenset({"item", "note", "narration"})

_LABEL_WORDS = 3
"""A row named by one setting alone is the same run as another table's row of that name only when the
name has this many words or more (``NCCL 2.29.2 CUDA Graph``; a bare ``vLLM`` or ``16`` is no name of one run)."""


def link(candidates: list[Candidate], headline: Headline) -> list[Candidate]:
    """The candidates that are attempts, in log order; restatements are added to the
    ``restated`` list of the attempt they repeat."""
    accepted: list[Candidate] = []
    for candidate in sorted(candidates, key=lambda c: (-c.strength, c.ordinal, c.sub)):
        same_arm = _same_arm(candidate, accepted) or _same_row(candidate, accepted)
        if same_arm is not None:  # the same configuration measured again in another table of the log
            for name, figure in candidate.figures.items():
                same_arm.figures.setdefault(name, figure)
            same_arm.restated.append(Evidence("restated", locator_text(candidate.locator), candidate.quote))
            continue
        target = _restates(candidate, accepted, headline)
        if target is None:
            for earlier in _restating(candidate, accepted, headline):  # a run that a stronger-ranked row repeated
                accepted.remove(earlier)
                for name, figure in earlier.figures.items():
                    candidate.figures.setdefault(name, figure)
                candidate.marked = candidate.marked or earlier.marked
                candidate.group = earlier.group if earlier.group.startswith("table:") else candidate.group
                candidate.restated.append(Evidence("restated", locator_text(earlier.locator), earlier.quote))
                candidate.restated.extend(earlier.restated)
            accepted.append(candidate)
            continue
        if candidate.evidence == target.evidence and not target.command and len(candidate.figures) > len(target.figures):
            # two rows of one run: the fuller one (a detailed results table, not the summary) is the attempt
            accepted[accepted.index(target)] = candidate
            for name, figure in target.figures.items():
                candidate.figures.setdefault(name, figure)
            candidate.marked = candidate.marked or target.marked
            candidate.restated.extend([Evidence("restated", locator_text(target.locator), target.quote), *target.restated])
            continue
        target.restated.append(Evidence("restated", locator_text(candidate.locator), candidate.quote))
    return sorted(accepted, key=lambda c: (c.ordinal, c.sub))


def _same_arm(candidate: Candidate, accepted: list[Candidate]) -> Candidate | None:
    """An accepted arm of another comparison table of the same section with the same label: the
    tables compare the same configurations on other measures, so they hold one attempt each."""
    if not candidate.arm or not candidate.label:
        return None
    return next((a for a in accepted if a.arm and a.ordinal != candidate.ordinal and a.label == candidate.label
                 and a.path == candidate.path and not (a.failed or candidate.failed)
                 and not _disagree_on_a_measure(a, candidate)), None)


def _disagree_on_a_measure(a: Candidate, b: Candidate) -> bool:
    """Whether two candidates give one measure (the same figure name) different values: two runs of
    one configuration (a 13B and a 70B table of the same engines), not one run's other measures."""
    return any(name in b.figures and not same_figure(figure, b.figures[name])
               for name, figure in a.figures.items() if "[" not in name)


def _same_row(candidate: Candidate, accepted: list[Candidate]) -> Candidate | None:
    """An accepted row of another table of the document whose settings hold the same values
    (``vLLM`` at concurrency ``16`` in a throughput table and in a latency table, the columns in
    another order): the tables give other measures of the same run, one attempt, unless they
    measure one figure differently."""
    values = _setting_values(candidate)
    distinctive = len(values) == 1 and len(candidate.label.split()) >= _LABEL_WORDS  # "NCCL 2.29.2 eager + symmetric"
    if candidate.evidence != "row" or (len(values) < 2 and not distinctive) or candidate.failed or candidate.merged:
        return None  # a table that is one run's points stands for that run, whatever its first row says
    return next((a for a in accepted if a.evidence == "row" and a.ordinal != candidate.ordinal and not a.failed
                 and not a.merged
                 and a.path[:1] == candidate.path[:1] and _setting_values(a) == values and not _disagree(a, candidate)),
                None)


def _disagree(a: Candidate, b: Candidate) -> bool:
    """Whether two rows measure one figure (name and unit) with different values: two runs (one
    engine's table, then another's), not two measures of one run."""
    return any(name in b.figures and b.figures[name].unit == f.unit and not same_figure(f, b.figures[name])
               for name, f in a.figures.items())


def _setting_values(candidate: Candidate) -> frozenset[str]:
    return frozenset(prose.normalised(v) for v in candidate.settings.values() if v and prose.normalised(v))


def _compatible(a: str, b: str) -> bool:
    """Whether two figure names can name one figure: the same name, one named only by its unit, or
    one the other with its statistic (``ttft`` in a sentence, ``mean_ttft`` in the table it sums up)."""
    base_a, base_b = a.split("[", 1)[0], b.split("[", 1)[0]
    return (base_a == base_b or base_a in _GENERIC or base_b in _GENERIC
            or base_a.endswith("_" + base_b) or base_b.endswith("_" + base_a))


def _repeats(figure: Figure, other: Candidate) -> bool:
    return any(same_figure(figure, theirs) and _compatible(figure.name, name) for name, theirs in other.figures.items())


def _leads(note: Candidate, row: Candidate) -> bool:
    """Whether ``note`` is the labelled result line the table of ``row`` is compared with (it
    joined that table's group): a run of its own, never a restatement of one of the rows."""
    return note.labelled and note.group.startswith("table:") and note.group == row.group


def _siblings(a: Candidate, b: Candidate) -> bool:
    """Whether two candidates are items of one list (each item is an entry of its own)."""
    return a.list_at is not None and a.list_at == b.list_at


def _separate_entries(owner: Candidate, note: Candidate) -> bool:
    """Whether two notes are entries of their own sections (``## Morning`` / ``## Evening``, each
    listing what it ran), not a note that sums up another: neither section is a summary."""
    if owner.evidence not in _NOTES or owner.path == note.path:
        return False
    return not any(statements.summary_heading(title) for title in note.path) and not statements.conclusion(note.quote)


def _restating(run: Candidate, accepted: list[Candidate], headline: Headline) -> list[Candidate]:
    """The accepted rows and notes that repeat ``run``, a command that ran: they were taken first
    (a results row outranks ``name value unit`` lines), but it is the run they restate."""
    if not (run.command and run.evidence in ("tool", "lines", "failure")) or not run.figures:
        return []
    return [other for other in accepted if not other.command and other.evidence in _NOTES | {"row"}
            and other.ordinal != run.ordinal and _restates(other, [run], headline) is run]


def _restates(candidate: Candidate, accepted: list[Candidate], headline: Headline) -> Candidate | None:
    if candidate.command and candidate.evidence in ("tool", "lines", "failure"):
        return None  # a command that ran is a run of its own, whatever it printed
    if not candidate.figures:
        if candidate.failed and candidate.evidence == "row" and candidate.fallback_error and \
                cells.refers_back(candidate.fallback_error):
            words = set(prose.words(candidate.label))
            return next((a for a in accepted if a.failed and a.ordinal < candidate.ordinal and words
                         and words <= set(prose.words(" ".join(a.path[-1:]) + " " + a.title))), None)
        if candidate.failed and candidate.error and candidate.evidence in _NOTES | {"row", "failure"}:
            # a printed error with no command of its own, which a failed table cell took as its error
            # (the OOM under the table), is that cell's failure; a note or row, any failure's
            error = " ".join(candidate.error.split()).lower()
            return next((a for a in accepted if a.failed and a.error and " ".join(a.error.split()).lower() == error
                         and a.ordinal != candidate.ordinal
                         and (candidate.evidence != "failure" or a.evidence == "row")), None)
        return None
    if candidate.evidence in _NOTES:
        plain = [f for name, f in candidate.figures.items() if "[" not in name] or list(candidate.figures.values())
        owners = [next((a for a in accepted if _repeats(f, a) and not _siblings(a, candidate)
                        and not _separate_entries(a, candidate) and not _leads(candidate, a)), None) for f in plain]
        if owners and all(owner is not None for owner in owners):
            return owners[0]
        return None
    name = headline_name(candidate.figures, headline)
    if name is None:
        return None
    wanted = candidate.figures[name]
    for other in accepted:
        if other.ordinal == candidate.ordinal or not _repeats(wanted, other):
            continue
        if candidate.merged and other.merged and candidate.path != other.path:
            continue  # two tables of runs over the same inputs, each in its own section: two runs
        agree = all(_repeats(f, other) for n, f in candidate.figures.items()
                    if any(n.split("[", 1)[0] == m.split("[", 1)[0] for m in other.figures) and "[" not in n)
        if agree:
            return other
    return None
