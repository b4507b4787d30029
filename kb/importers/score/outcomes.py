"""Outcomes from figures: each attempt against the baseline of its comparison group, on the same
metric in the same unit, beyond the noise.

Groups: the rows of a results table with at least two measured rows (and, within it, one block of
a repeated setting: :mod:`.tables`), the sub-items of one list item, the arms of one note, the
result lines of one name under several headings (each with two measured attempts or more); in a transcript, the runs of one program and model (its
*family*); everything else in a document (list items, paragraphs, outputs, one-row tables) is one
group per headline metric. A group's baseline is the attempt the log calls the reference
(baseline, default, before; one in the attempt's own section before one elsewhere), else its first
measured attempt. A table row with no reference in
its own table takes one from an earlier table: the row of a section that holds the reference runs
for its model, or the first row measured under the same stated workload (request rate, lengths, KV
depth), so that two tables of one sweep compare row by row. An attempt with no baseline in its
log (the only measured run of its group, under its workload) is compared with the campaign's
baseline value instead, when the log is the campaign's and the value is in the headline's unit
(``reference`` -1): runs measured side by side in one log are compared with each other first.

Verdict: ``failed`` for a failed run or a row marked failed, whatever its figures; else the
headline's change against the baseline's, in the metric's direction (the campaign's for its own
metric; lower for times, higher otherwise) is ``improved`` or ``regressed`` only beyond the noise:
the larger of the spreads either run reported (relative), and the campaign's ``noise`` (2 %
unless set); within it ``neutral``. No comparable figure: a stated change (``+9.1%``) or
``from X to Y`` decides by its sign; else a run that printed no figure is ``neutral`` when it ran
(a row that gives its rate only as a range ran too), ``inconclusive`` otherwise.
"""

from __future__ import annotations

from kb.importers.model import Headline
from kb.importers.read import cells, labels, prose
from kb.importers.score.candidate import TIME_UNITS, Candidate, better, headline_name, rate_in_words
from kb.importers.score.tables import LEVEL

_GROUPS = ("table:", "list:", "arms:", "lines:")
"""Groups compared within themselves when they hold two measured attempts or more: a results
table's rows, the sub-items of one list item (a sweep of what the item names), the arms of one note,
the result lines of one name under several headings (``Backend A [ ... ]`` in each section)."""


def decide(attempts: list[Candidate], headline: Headline, campaign_value: float | None) -> dict[int, tuple[str, int | None]]:
    """``{position: (outcome, reference)}`` for each attempt (by position in ``attempts``);
    ``reference`` is the position of the baseline it was compared with, ``-1`` for the campaign's
    baseline, ``None`` for none."""
    table_sizes: dict[str, int] = {}
    for candidate in attempts:
        if candidate.group.startswith(_GROUPS) and (candidate.figures or (candidate.failed and candidate.arm)):
            # a failed configuration of a table's row still makes the row a group of its own
            table = candidate.group.split(LEVEL, 1)[0]  # a level measured once is still the table's
            table_sizes[table] = table_sizes.get(table, 0) + 1
    keys = [_group_of(c, table_sizes, headline) for c in attempts]
    by_model = _models_compared(attempts, keys)
    comparables = [_comparable(c, headline, keep_model=keys[i] not in by_model) for i, c in enumerate(attempts)]
    decided: dict[int, tuple[str, int | None]] = {}
    for position, candidate in enumerate(attempts):
        if not _measured(candidate):
            decided[position] = _verdict(attempts, position, None, headline, None)
            continue
        key, comparable = keys[position], comparables[position]
        if key.startswith((*_GROUPS, "family:")):
            pool = [p for p in range(len(attempts)) if keys[p] == key and _agree(comparables[p], comparable)]
        else:  # a document's notes and outputs: any earlier attempt measured under the same workload
            pool = [p for p in range(len(attempts)) if _agree(_comparable(attempts[p], headline), comparable)
                    and (p <= position or keys[p] == key)]
        pool = [p for p in pool if _measured(attempts[p])]
        marked = [p for p in pool if attempts[p].marked]
        own = [p for p in marked if p < position and attempts[p].path == candidate.path]
        if not own and candidate.marked and any(p != position and attempts[p].path == candidate.path for p in pool):
            own = [position]  # the reference of a section that compares runs of its own (a workload of its own)
        marked = own or marked  # the reference of its own section, above it, before one elsewhere
        base = position if candidate.reference_section else marked[0] if marked else (pool[0] if pool else None)
        if key.startswith("table:") and not marked and base is not None:  # none in its own table: an earlier one's
            base = _across_tables(attempts, keys, comparables, position, base, sections_only=base != position)
        use_campaign = campaign_value is not None and not candidate.marked and pool == [position] and \
            _campaign_model(comparable[2], headline)
        decided[position] = _verdict(attempts, position, base, headline, campaign_value if use_campaign else None)
    return decided


def _across_tables(attempts: list[Candidate], keys: list[str], comparables: list[tuple], position: int, base: int,
                   sections_only: bool) -> int:
    """The baseline, in an earlier table of the document, of a row that has none in its own table:
    the first row (the one the log calls the reference, when there is one) measured under the same
    stated workload (request rate, lengths, KV depth: each a setting both rows give, equal) with the
    same figure, unit and model, or, for a row whose only stated workload is its model, the
    reference row of that model (a baseline table's row). Two tables measured under the same
    workloads compare their rows pairwise (one engine's sweep of request rates, then another's).
    With ``sections_only`` (the row has an earlier one in its own table), only a row of a section
    of reference runs is taken. ``base`` (its own table's) when there is none."""
    name, unit, model, load = comparables[position]
    if name is None:
        return base
    found = [p for p in range(position) if keys[p].startswith("table:") and keys[p] != keys[position]
             and _measured(attempts[p]) and comparables[p][:2] == (name, unit) and comparables[p][3] == load
             and (comparables[p][2] or "") == (model or "")]
    if not load:
        found = [p for p in found if model and attempts[p].marked]
    if sections_only:
        found = [p for p in found if attempts[p].reference_section]
    marked = [p for p in found if attempts[p].marked]
    return marked[0] if marked else found[0] if found else base


def _measured(candidate: Candidate) -> bool:
    return bool(candidate.figures) and not candidate.failed and candidate.verdict != "fail"


def _models_compared(attempts: list[Candidate], keys: list[str]) -> set[str]:
    """The tables whose rows differ in their model and in no other setting, one row of which the
    log calls the reference (``original``, ``baseline``): the table compares models (a
    precision's variants against the original checkpoint) with that reference, so the model does
    not keep its rows apart. Without a reference (model sizes side by side), or in a grid of
    models by settings, or in a table of reference runs (each its model's baseline), it does."""
    rows: dict[str, list[Candidate]] = {}
    for candidate, key in zip(attempts, keys):
        if key.startswith("table:") and candidate.workload.get("model"):
            rows.setdefault(key, []).append(candidate)
    compared = set()
    for key, members in rows.items():
        models = {c.workload["model"] for c in members}
        if len(models) < 2 or not any(c.marked for c in members) or all(c.reference_section for c in members):
            continue
        columns = {k for c in members for k, v in c.settings.items() if v != c.workload["model"]
                   and not all(cells.measured(m.settings.get(k, "")) or cells.is_blank(m.settings.get(k, ""))
                               for m in members)}  # a column of scores (MMLU) is no setting
        loads = {k for c in members for k in c.workload if k != "model"}
        if all(len({c.settings.get(k) for c in members}) == 1 for k in columns) and \
                all(len({c.workload.get(k) for c in members}) == 1 for k in loads):
            compared.add(key)
    return compared


def _comparable(candidate: Candidate, headline: Headline, keep_model: bool = True) -> tuple:
    """What two attempts must share to be compared: the headline's name and unit, the model (unless
    ``keep_model`` is false: a table comparing models), and the workload (request rate,
    concurrency, lengths, dataset)."""
    name = headline_name(candidate.figures, headline) if candidate.figures else None
    unit = candidate.figures[name].unit if name else ""
    unit = "time" if unit in TIME_UNITS else unit  # 1.2 s and 873 ms are one kind of figure
    workload = dict(candidate.workload)
    model = workload.pop("model", candidate.settings.get("model", ""))
    model = model if labels.names_model(model) else ""  # a "model" column holding a scenario's label
    if not model:  # the model a section's heading names (#### 0.5B Model)
        model = next((m for m in map(labels.heading_model, reversed(candidate.path)) if m), "")
    model = candidate.settings.get("base_model") or model  # a reader's model without its quantization
    model = labels.base_model(model) if model and keep_model else ""  # one model in two precisions is compared
    return name, unit, model, tuple(sorted(workload.items()))


def _campaign_model(model: str, headline: Headline) -> bool:
    """Whether a run's model (``""`` when unsaid) may be the campaign's: unsaid, or named by one of
    the campaign's terms (a run of another model is not compared with the campaign's baseline)."""
    terms = headline.model_terms or headline.terms
    if not model or not terms:
        return True
    wanted = prose.normalised(model)
    return any(prose.normalised(term) in wanted for term in terms if prose.normalised(term))


def _agree(a: tuple, b: tuple) -> bool:
    """Whether two :func:`_comparable` keys allow a comparison: the same figure and unit, and no
    model or workload setting that both give and that differs (one a log leaves unsaid does not
    separate runs)."""
    if a[:2] != b[:2] or (a[2] and b[2] and a[2] != b[2]):
        return False
    theirs = dict(b[3])
    return all(theirs.get(k, v) == v for k, v in a[3])


def _group_of(candidate: Candidate, table_sizes: dict[str, int], headline: Headline) -> str:
    if candidate.group.startswith(_GROUPS) and table_sizes.get(candidate.group.split(LEVEL, 1)[0], 0) >= 2:
        return candidate.group
    if candidate.family is not None and candidate.transcript and candidate.evidence in ("tool", "lines", "failure") \
            and candidate.command:
        return f"family:{candidate.family}"
    return "doc"


def in_unit(value: float, unit: str, wanted: str) -> float | None:
    """``value`` in ``unit`` expressed in ``wanted`` (time units convert: 1.2 s is 1200 ms), or
    ``None`` when the units measure different things."""
    if unit == wanted:
        return value
    if unit in TIME_UNITS and wanted in TIME_UNITS:
        return value * TIME_UNITS[unit] / TIME_UNITS[wanted]
    return None


SCALE = 5.0
"""A figure more than this many times larger or smaller than the campaign's baseline measures
something else (a kernel's throughput beside a server's, a batch of 64 beside one request): it is
not compared with it."""


def _same_scale(value: float, reference: float) -> bool:
    return reference > 0 and value > 0 and 1 / SCALE <= value / reference <= SCALE


def _verdict(attempts: list[Candidate], position: int, base: int | None, headline: Headline,
             campaign_value: float | None) -> tuple[str, int | None]:
    candidate = attempts[position]
    if candidate.failed or candidate.verdict == "fail":
        return "failed", None
    name = headline_name(candidate.figures, headline) if candidate.figures else None
    if name is None:
        if candidate.said in ("improved", "regressed", "neutral", "baseline"):
            return candidate.said, None
        if candidate.verdict == "pass" or (candidate.evidence in ("tool", "lines") and candidate.command) or \
                rate_in_words(candidate):  # a rate given as a range: it ran, with no one figure to compare
            return "neutral", None
        return "inconclusive", None
    figure = candidate.figures[name]
    direction = better(figure.unit, headline, name)
    if campaign_value is not None and name == headline.name and (headline.unit is None or figure.unit == headline.unit) \
            and _same_scale(figure.value, campaign_value):
        return _compare(figure.value, campaign_value, direction, _spread(candidate, name), 0.0, headline), -1
    if base is None or base == position:
        if candidate.change is not None:
            return _signed(candidate.change, direction), None
        if candidate.said in ("improved", "regressed", "neutral") and not candidate.marked:
            return candidate.said, None
        return "baseline", None
    pointwise = _pointwise(candidate, attempts[base], name, direction, headline) if candidate.series else None
    if pointwise is not None:
        return pointwise, base
    reference = attempts[base].figures.get(name)
    if reference is None or in_unit(reference.value, reference.unit, figure.unit) is None:
        if candidate.change is not None:
            return _signed(candidate.change, direction), None
        return "inconclusive", None
    return _compare(figure.value, in_unit(reference.value, reference.unit, figure.unit) or 0.0, direction, _spread(candidate, name), _spread(attempts[base], name),
                    headline), base


def _pointwise(candidate: Candidate, base: Candidate, name: str, direction: str, headline: Headline) -> str | None:
    """A sweep against its baseline, point by point (the points both have of the headline's
    series): ``improved`` when it wins clearly at some point (beyond the noise), else
    ``regressed`` when it loses clearly at some point, else ``neutral``; ``None`` when the two
    share fewer than two points. An arm that wins in one regime (decode-sized M, long contexts)
    is worth keeping, so a clear win counts first."""
    prefix = name + "["
    shared = [(f, base.figures[key]) for key, f in candidate.figures.items()
              if key.startswith(prefix) and key in base.figures and base.figures[key].unit == f.unit]
    if len(shared) < 2:
        return None
    noise = headline.noise / 100
    gains = []
    for mine, theirs in shared:
        if theirs.value == 0:
            continue
        change = (mine.value - theirs.value) / abs(theirs.value)
        gains.append(change if direction == "higher" else -change)
    if not gains:
        return None
    if max(gains) > noise:
        return "improved"
    if min(gains) < -noise:
        return "regressed"
    return "neutral"


def _spread(candidate: Candidate, name: str) -> float:
    """The relative spread a run reported for its figure ``name`` (0 when none)."""
    figure = candidate.figures.get(name)
    if figure is None or not figure.spread or not figure.value:
        return 0.0
    try:
        return abs(float(figure.spread) / figure.value)
    except ValueError:
        return 0.0


def _compare(value: float, reference: float, direction: str, spread: float, reference_spread: float,
             headline: Headline) -> str:
    if reference == 0:
        return "neutral"
    noise = max(headline.noise / 100, spread, reference_spread)
    change = (value - reference) / abs(reference)
    if abs(change) <= noise:
        return "neutral"
    gained = change > 0 if direction == "higher" else change < 0
    return "improved" if gained else "regressed"


def _signed(change: float, direction: str) -> str:
    gain = change if direction == "higher" else -change
    return "improved" if gain > 0 else "regressed" if gain < 0 else "neutral"
