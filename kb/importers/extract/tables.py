"""Attempts from the tables of a notebook: one per row, or one per arm of an A/B table.

Cells are read with Markdown emphasis and code backticks stripped. Columns:

- *metric columns*: a header naming a unit in any spelling (``(t/s)``, ``tok/s``,
  ``(tokens/s)``, ``TPS``, ``(ms)``, ``it/s``, ``GB/s``, ``TFLOPS``) or a known measurement
  (``Accept length``); each maps to its own metric by its words (``Prefill``/``pp2048`` →
  ``input_throughput``, ``Decode``/``tg32``/``Output`` → ``output_throughput``, ``Total`` →
  ``total_throughput``, ``Median TTFT (ms)`` → ``median_ttft``), a second column with a name
  already taken keeps its header's name: never the last column wins;
- the *title* column (``Run``, ``Config``, ``Approach``, ... else the first), an *outcome*
  column (``Outcome``/``Result``/``Status``), a *gain* column (``Δ``, ``vs baseline``, ``Gain``),
  an *error* column (``Error``, ``Cause``, ``Reason``).

A table whose numeric columns are the arms of a comparison (``| Concurrency | Auto NCCL | Simple
+ 2 channels | Gain vs auto |``), with the unit in the headers or in the sentence above it
(``Values are median aggregate output tok/s.``), or two columns of one metric (``master (t/s)``,
``fa-tune branch (t/s)``), gives one attempt per row and arm, titled ``<arm> (<row>)``; its first
arm with a figure is the row's baseline; a ``❌`` cell is a failed arm whose error is the one the
text after the table quotes. When the rows are the points of a sweep (``pp1024@d4096``,
``pp1024@d8192``: one number varies), each arm is one attempt with a series, its headline at the
largest point, its outcome from every point (:func:`_pointwise`).

Rows: a row with only its first cell filled is a section row (skipped), a ``Total``/``Sum``
row is skipped. Rows are of the document's family (compared with the latest baseline above
them); the arms of one A/B row are a family of their own. Outcome cells are read as written
(:func:`outcome_cell`): ``Failed – <error>``, ``❌ <error>``, ``✅``, ``Winner``, ``baseline``,
``+23%``; a ``baseline`` Δ cell, or a title starting ``Baseline``, makes the row the baseline.
"""

from __future__ import annotations

import datetime as dt
import re

from kb.importers.events import Event, Table
from kb.importers.extract.config import row_config
from kb.importers.extract.failures import error_headline
from kb.importers.extract.measurements import _column, canonical_unit, direction_of, metric_name, signed_percent
from kb.importers.extract.model import Evidence, ExtractedAttempt, Extraction, Figure, short_quote

TITLE_COLUMNS = ("approach", "config", "configuration", "experiment", "run", "change", "setting", "variant", "what",
                 "build", "stage", "draft model", "pipeline", "model", "name")
EMPTY_CELLS = {"", "—", "–", "-", "n/a", "na", "none", "?"}
_OUTCOME_WORDS = [
    (re.compile(r"^(?:❌|✗|✘|(?:failed|fail|error|crashed|crash|oom)\b)\s*[-–—:]?\s*", re.I), "failed"),
    (re.compile(r"^(?:baseline|reference|ref)\b", re.I), "baseline"),
    (re.compile(r"\b(?:winner|best|improved|faster|better)\b", re.I), "improved"),
    (re.compile(r"\b(?:regressed|regression|slower|worse)\b", re.I), "regressed"),
    (re.compile(r"^(?:neutral|no change|same|unchanged)\b", re.I), "neutral"),
    (re.compile(r"^inconclusive\b", re.I), "inconclusive"),
]
_FAILED_MARK = re.compile(r"^(?:❌|✗|✘)")
_OK_MARK = re.compile(r"^(?:✅|✓|✔|☑)\s*")
_UNIT_HINT = re.compile(r"\((tok/s|tokens/s|t/s|it/s|req/s|GB/s|TFLOPS|TFLOP/s|ms|us|µs|μs)\)|\b(tok/s|tokens/s|tokens per second"
                        r"|t/s|it/s|req/s|GB/s|TFLOPS|TFLOP/s|steps per second|iterations per second)(?![\w/])", re.I)


def plain(text: str) -> str:
    """A cell without Markdown emphasis (``**x**``, ``*x*``, ``_x_``) or code backticks."""
    text = re.sub(r"\*\*|__|`", "", text)
    text = re.sub(r"(?<![\w*])\*(?=\S)([^*]+)(?<=\S)\*(?![\w*])", r"\1", text)
    return text.strip()


_TIME_HINT = re.compile(r"\bin\s+(µs|μs|us|ms|microseconds|milliseconds)\b", re.I)


def unit_hint(text: str) -> tuple[str, str] | None:
    """The unit a sentence says a table's figures are in, and the words before it:
    ``Values are median aggregate output tok/s.`` → (``tok/s``, ``...output``); ``Times are
    kernel latency in µs`` → (``us``, ``Times are kernel latency``)."""
    match = _UNIT_HINT.search(text or "")
    if not match:
        timed = _TIME_HINT.search(text or "")
        if timed:
            word = timed.group(1).lower()
            unit = {"microseconds": "us", "milliseconds": "ms"}.get(word) or canonical_unit(word)
            return (unit, text[:timed.start()]) if unit else None
        return None
    word = (match.group(1) or match.group(2)).lower()
    unit = {"steps per second": "it/s", "iterations per second": "it/s"}.get(word) or canonical_unit(word)
    return (unit, text[:match.start()]) if unit else None


def outcome_cell(cell: str) -> tuple[str | None, str | None, float | None]:
    """Read an outcome cell: ``(outcome, error, change)``. ``Failed – collective mismatch`` →
    (``failed``, ``collective mismatch``, None); ``❌ Unstable`` → (``failed``, ``Unstable``);
    ``✅ +23%`` → (``improved``, None, 23.0); ``✅ serves, but one GPU only`` → (``neutral``, ...):
    it ran, nothing says better; ``Winner`` → ``improved``; unknown text → (None, None, None)."""
    text = plain(cell)
    if text.lower() in EMPTY_CELLS:
        return None, None, None
    change = signed_percent(text)
    ok = _OK_MARK.match(text)
    rest = text[ok.end():] if ok else text
    for pattern, outcome in _OUTCOME_WORDS:
        match = pattern.search(rest)
        if not match:
            continue
        if outcome == "failed":
            if ok:
                continue
            error = rest[match.end():].strip(" .;") or None
            return "failed", error, None
        return outcome, None, change
    if change is not None:
        return ("improved" if change > 0 else "regressed" if change < 0 else "neutral"), None, change
    if ok:
        return "neutral", None, None
    return None, None, None


def _is_number(cell: str) -> bool:
    return bool(re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", plain(cell).replace(" ", "")))


def _number(cell: str) -> str | None:
    match = re.match(r"^\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s*(?:±|\+/-)\s*[\d.]+)?\s*$", plain(cell))
    return match.group(1).replace(",", "") if match else None


def table_attempts(event: Event, date: dt.date | None, lines: dict[int, str], out: Extraction,
                   hint: str, after: str, reference_words: frozenset[str] = frozenset()) -> None:
    """Append the attempts of the table ``event`` to ``out`` (see the module docstring).
    ``hint``: the text just above the table (a unit); ``after``: the text just below it (the
    error an ``❌`` arm refers to); ``reference_words``: names the document calls its reference
    (``FlashInfer ... is the reference in every table``): a row titled so is the baseline.
    A table whose baseline row is not its first is a family of its own (its rows are compared
    with that row, also the rows above it); otherwise rows stay in the document's family."""
    start = len(out.attempts)
    _table_attempts(event, date, lines, out, hint, after, reference_words)
    rows = out.attempts[start:]
    for attempt in rows:
        if not attempt.explicit_outcome and attempt.title.lower() in reference_words and not any(
                a.outcome == "baseline" for a in rows):
            attempt.outcome, attempt.explicit_outcome = "baseline", True
            attempt.notes.append("The reference the document names for its tables.")
    if rows and rows[0].outcome != "baseline" and any(a.outcome == "baseline" for a in rows[1:]) \
            and all(a.family is None for a in rows):
        for attempt in rows:
            attempt.family = f"table {event.locator.line_start}"


def _table_attempts(event: Event, date: dt.date | None, lines: dict[int, str], out: Extraction,
                    hint: str, after: str, reference_words: frozenset[str]) -> None:
    table = event.table
    assert table is not None
    headers = table.headers
    names = {h: plain(h) for h in headers}
    low = {h: names[h].lower() for h in headers}
    outcome_col = next((h for h in headers if low[h] in ("outcome", "result", "status", "verdict")), None)
    gain_col = next((h for h in headers if re.search(r"vs\.?\s|\bvs\b|baseline|gain|Δ|delta|speed-?up", names[h], re.I)
                     and h != outcome_col), None)
    error_col = next((h for h in headers if re.search(r"\b(?:error|cause|reason|why)\b", low[h]) and h != outcome_col), None)
    title_col = next((h for h in headers if low[h] in TITLE_COLUMNS), headers[0])
    hinted = unit_hint(hint)
    metric_cols: list[tuple[str, str, str]] = []
    taken: set[str] = set()
    for header in headers:
        if header in (title_col, outcome_col, gain_col, error_col):
            continue
        column = _column(0, names[header], None)
        name, unit = column.name, column.unit
        if name is None and re.search(r"accept", low[header]):
            name, unit = "acceptance_length", "tokens"
        if name is None or unit is None:
            continue
        if name in taken:
            name = re.sub(r"[^a-z0-9]+", "_", low[header]).strip("_")
        taken.add(name)
        metric_cols.append((header, name, unit))
    rows = table.rows
    if _transposed(event, table, date, lines, out):
        return
    same = [h for h, n, u in metric_cols if u == "tok/s" and _column(0, names[h], None).name ==
            next((_column(0, names[o], None).name for o, _, uo in metric_cols if uo == "tok/s" and o != h), None)]
    if len(same) >= 2 and not outcome_col:  # two columns of one metric: the arms of a comparison
        unit = next(u for h, _, u in metric_cols if h == same[0])
        words = hinted[1] if hinted and hinted[0] == unit else names[same[0]]
        _ab_attempts(event, table, title_col, same, gain_col, (unit, words), date, lines, out, after)
        return
    if not metric_cols and hinted and not outcome_col:
        def arm_cell(cell: str) -> bool:
            text = plain(cell)
            return bool(_number(text) or _FAILED_MARK.match(text) or text.lower() in EMPTY_CELLS)

        arms = [h for h in headers if h not in (title_col, gain_col, error_col)
                and all(arm_cell(r.cells.get(h, "")) for r in rows)
                and any(_number(r.cells.get(h, "")) or _FAILED_MARK.match(plain(r.cells.get(h, ""))) for r in rows)]
        if len(arms) >= 2:
            _ab_attempts(event, table, title_col, arms, gain_col, hinted, date, lines, out, after)
        return
    if not (any(unit == "tok/s" or name in ("iterations", "tflops") for _, name, unit in metric_cols)
            or outcome_col or (metric_cols and gain_col)):
        return
    for row in rows:
        cells = {h: row.cells.get(h, "") for h in headers}
        title = plain(cells.get(title_col, ""))
        others = [plain(v) for h, v in cells.items() if h != title_col]
        if not title:
            continue
        if all(v.lower() in EMPTY_CELLS for v in others):
            continue  # a section row
        if re.match(r"^(?:total|sum|overall|average)\b", title, re.I):
            continue
        where = f"line {row.line}"
        quote = short_quote(lines.get(row.line, " | ".join(cells.values())))
        attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=date)
        attempt.key = " ".join(lines.get(row.line, " | ".join(cells.values())).split())
        attempt.evidence.append(Evidence("approach", where, quote))
        for header, name, unit in metric_cols:
            value = _number(cells.get(header, ""))
            if value is not None:
                attempt.metrics[name] = Figure(name, value, unit, Evidence(f"metrics.{name}", where, quote))
        if outcome_col:
            outcome, error, change = outcome_cell(cells.get(outcome_col, ""))
            if outcome:
                attempt.outcome, attempt.explicit_outcome = outcome, True
                attempt.error = error if outcome == "failed" else None
                attempt.evidence.append(Evidence("outcome", where, quote))
                if outcome == "neutral" and attempt.metrics:
                    attempt.outcome, attempt.explicit_outcome = "inconclusive", False  # ✅ with figures: compare them
        if gain_col:
            _gain(attempt, plain(cells.get(gain_col, "")), gain_col, where, quote)
        if not attempt.explicit_outcome and re.match(r"^baseline\b", title, re.I):
            attempt.outcome, attempt.explicit_outcome = "baseline", True
        if error_col:
            text = plain(cells.get(error_col, ""))
            if text.lower() not in EMPTY_CELLS:
                if attempt.outcome == "failed":
                    attempt.error = text
                    attempt.evidence.append(Evidence("error", where, quote))
                else:
                    attempt.cause = text
                    attempt.notes.append(f"{plain(error_col)}: {text}")
        if attempt.outcome == "failed" and not attempt.error:
            attempt.error = f"{title}: failed"
        attempt.flags, attempt.env = row_config(cells.get(title_col, ""))
        out.attempts.append(attempt)


def _gain(attempt: ExtractedAttempt, gain: str, header: str, where: str, quote: str) -> None:
    value = re.match(r"^([+\-−]?)\s*(\d+(?:\.\d+)?)\s*%", gain)
    if value:
        number = float(value.group(2)) * (-1 if value.group(1) in "-−" and value.group(1) else 1)
        attempt.metrics["gain_vs_baseline"] = Figure("gain_vs_baseline", value.group(2), "%",
                                                     Evidence("metrics.gain_vs_baseline", where, quote))
        if not attempt.explicit_outcome:
            attempt.change = number
    elif gain.lower() in EMPTY_CELLS | {"baseline", "reference", "ref", "0", "0%"}:
        if not attempt.explicit_outcome:
            attempt.outcome, attempt.explicit_outcome = "baseline", True
            attempt.evidence.append(Evidence("outcome", where, quote))
    elif gain:
        attempt.notes.append(f"{plain(header)}: {gain}")


def _ab_attempts(event: Event, table: Table, title_col: str, arms: list[str], gain_col: str | None,
                 hinted: tuple[str, str], date: dt.date | None, lines: dict[int, str], out: Extraction,
                 after: str) -> None:
    unit, words = hinted
    name = metric_name(words, unit) or "output_throughput"
    error = _quoted_error(after)
    sweep = _sweep_position(table, title_col)
    if sweep is not None:
        _sweep_arms(event, table, title_col, arms, sweep, name, unit, out, date)
        return
    for row in table.rows:
        label = plain(row.cells.get(title_col, ""))
        if re.match(r"^(?:total|sum|overall)\b", label, re.I):
            continue
        where = f"line {row.line}"
        line = lines.get(row.line, " | ".join(row.cells.values()))
        quote = short_quote(line)
        first = True
        for arm in arms:
            cell = plain(row.cells.get(arm, ""))
            value = _number(cell)
            if value is None and not _FAILED_MARK.match(cell):
                continue
            title = f"{_arm_title(arm)} ({label})" if label else _arm_title(arm)
            attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=date)
            attempt.key = " ".join(line.split()) + " | " + plain(arm)
            attempt.family = f"table {event.locator.line_start} row {row.line}"
            attempt.evidence.append(Evidence("approach", where, quote))
            if value is None:
                attempt.outcome, attempt.explicit_outcome = "failed", True
                attempt.error = error or f"{plain(arm)}: {cell}"
                attempt.evidence.append(Evidence("outcome", where, quote))
            else:
                attempt.metrics[name] = Figure(name, value, unit, Evidence(f"metrics.{name}", where, quote))
                if first:
                    attempt.outcome, attempt.explicit_outcome = "baseline", True
                    first = False
                elif gain_col:
                    _gain(attempt, plain(row.cells.get(gain_col, "")), gain_col, where, quote)
            attempt.flags, attempt.env = row_config(arm)
            out.attempts.append(attempt)


def _quoted_error(text: str) -> str | None:
    """The error a paragraph quotes: a code span that reads as an error line, else ``None``."""
    for span in re.findall(r"`([^`\n]{4,400})`", text or ""):
        if re.search(r"Error|Exception|Unsupported|error:|failed|FAILED|out of memory", span):
            return error_headline(span)
    return None


def _sweep_position(table: Table, title_col: str) -> int | None:
    """When the rows of an A/B table are the points of a sweep (``pp1024@d4096``,
    ``pp1024@d8192``, ...: labels alike but for one number that varies), the index of that
    number in the labels; else ``None`` (the rows are separate comparisons)."""
    labels = [plain(r.cells.get(title_col, "")) for r in table.rows]
    if len(labels) < 2:
        return None
    numbers = [re.findall(r"\d+(?:\.\d+)?", label) for label in labels]
    shapes = {re.sub(r"\d+(?:\.\d+)?", "#", label) for label in labels}
    if len(shapes) != 1 or not numbers[0] or any(len(n) != len(numbers[0]) for n in numbers):
        return None
    varying = [i for i in range(len(numbers[0])) if len({n[i] for n in numbers}) == len(labels)]
    return varying[0] if varying else None


def _sweep_arms(event: Event, table: Table, title_col: str, arms: list[str], position: int, name: str, unit: str,
                out: Extraction, date: dt.date | None) -> None:
    """One attempt per arm of an A/B table over a sweep: its figures as a series
    (``name[<title column>=<row>]``), the headline at the largest point; the first arm is the
    baseline."""
    where = f"lines {event.locator.line_start}-{event.locator.line_end}"
    rows = table.rows
    top = max(rows, key=lambda r: float(re.findall(r"\d+(?:\.\d+)?", plain(r.cells.get(title_col, "")))[position]))
    dimension = plain(title_col)
    for index, arm in enumerate(arms):
        value = _number(top.cells.get(arm, ""))
        if value is None:
            continue
        quote = short_quote(f"{plain(arm)}: {value} {unit} at {plain(top.cells.get(title_col, ''))}")
        title = _arm_title(arm)
        attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=date)
        attempt.key = f"table {' '.join(event.text.split()[:40])} | {plain(arm)}"
        attempt.family = f"table {event.locator.line_start}"
        attempt.evidence.append(Evidence("approach", where, quote))
        attempt.metrics[name] = Figure(name, value, unit, Evidence(f"metrics.{name}", f"line {top.line}", quote))
        for row in rows:
            point = _number(row.cells.get(arm, ""))
            if point is not None:
                label = f"{name}[{dimension}={plain(row.cells.get(title_col, ''))}]"
                attempt.metrics[label] = Figure(label, point, unit, Evidence(f"metrics.{label}", f"line {row.line}", quote))
        if index == 0:
            attempt.outcome, attempt.explicit_outcome = "baseline", True
            first = {row.line: _number(row.cells.get(arm, "")) for row in rows}
            reference = len(out.attempts)
        else:
            attempt.outcome, attempt.explicit_outcome = _pointwise(first, {row.line: _number(row.cells.get(arm, ""))
                                                                           for row in rows}, unit), True
            attempt.reference = reference
        attempt.flags, attempt.env = row_config(arm)
        out.attempts.append(attempt)


SWEEP_TOLERANCE = 0.02
"""An arm of a sweep is ``improved`` when it beats the first arm by more than this at some point,
else ``regressed`` when it loses by more than this somewhere, else ``neutral``."""


def _pointwise(first: dict[int, str | None], other: dict[int, str | None], unit: str) -> str:
    """Outcome of a sweep arm against the first arm, point by point (see :data:`SWEEP_TOLERANCE`):
    an arm that wins clearly in some regime (decode-sized M, long contexts) is an improvement."""
    lower = direction_of(unit) == "lower"
    gains = []
    for line, mine in other.items():
        theirs = first.get(line)
        if mine is None or theirs is None or float(theirs) == 0:
            continue
        change = (float(mine) - float(theirs)) / float(theirs)
        gains.append(-change if lower else change)
    if gains and max(gains) > SWEEP_TOLERANCE:
        return "improved"
    if gains and min(gains) < -SWEEP_TOLERANCE:
        return "regressed"
    return "neutral" if gains else "inconclusive"


def _arm_title(arm: str) -> str:
    """An arm's header without the unit it carries: ``master (t/s)`` → ``master``."""
    return re.sub(r"\s*\((?:tok/s|tokens/s|t/s|it/s|ms|us|µs|GB/s|TFLOPS)\)\s*$", "", plain(arm), flags=re.I) or plain(arm)


def _transposed(event: Event, table: Table, date: dt.date | None, lines: dict[int, str], out: Extraction) -> bool:
    """A table whose rows are metrics (``Total Output Throughput (tokens/sec): | 15999.06 |
    16075.82``) and whose columns are the arms: one attempt per arm, the first the baseline.
    Returns whether the table was one."""
    headers = table.headers
    first = headers[0]
    named = []
    for row in table.rows:
        label = plain(row.cells.get(first, "")).rstrip(":")
        unit_match = re.search(r"\(([^)]{1,16})\)\s*$", label)
        unit = canonical_unit(unit_match.group(1)) if unit_match else None
        name = metric_name(label[:unit_match.start()], unit) if unit and unit_match else None
        if name is None and unit in ("ms", "s", "us") and unit_match:
            name = re.sub(r"[^a-z0-9]+", "_", label[:unit_match.start()].lower()).strip("_") or None
        if name:
            named.append((row, name, unit))
    arms = [h for h in headers[1:] if all(_number(r.cells.get(h, "")) for r, _, _ in named)]
    if len(named) < 2 or len(arms) < 2 or len(named) < len(table.rows) // 2:
        return False
    where = f"lines {event.locator.line_start}-{event.locator.line_end}"
    for index, arm in enumerate(arms):
        title = _arm_title(arm)
        quote = short_quote(f"{title}: " + ", ".join(f"{plain(r.cells.get(first, ''))} {_number(r.cells.get(arm, ''))}"
                                                   for r, _, _ in named[:3]))
        attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=date)
        attempt.key = f"table {' '.join(event.text.split()[:40])} | {title}"
        attempt.family = f"table {event.locator.line_start}"
        attempt.evidence.append(Evidence("approach", where, quote))
        for row, name, unit in named:
            value = _number(row.cells.get(arm, ""))
            if value is not None and unit is not None and name not in attempt.metrics:
                attempt.metrics[name] = Figure(name, value, unit, Evidence(f"metrics.{name}", f"line {row.line}",
                                                                           short_quote(lines.get(row.line, quote))))
        order = ["output_throughput", "total_throughput", "input_throughput"]
        attempt.metrics = {k: attempt.metrics[k] for k in sorted(attempt.metrics, key=lambda n: order.index(n) if n in order else 9)}
        if index == 0:
            attempt.outcome, attempt.explicit_outcome = "baseline", True
        attempt.flags, attempt.env = row_config(arm)
        out.attempts.append(attempt)
    return True
