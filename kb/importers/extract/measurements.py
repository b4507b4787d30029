"""Measurements: figures in tool output and in prose, each with a name, a unit and, for a sweep,
its dimension.

Forms read (``output_figures``, ``prose_figures``):

- benchmark summary lines of ``bench_serving``/``vllm bench serve`` (:data:`BENCH_METRICS`):
  ``Output token throughput (tok/s): 131.35``, ``Median TTFT (ms): 9009.79``;
- ``key=value`` pairs whose key names a measurement: ``median_us=69.3`` (name ``median_us``,
  unit ``us``), ``tflops_per_sec=488.2`` (``tflops``, ``TFLOPS``), ``busbw=190`` (``GB/s``);
- tables printed by benchmark tools, whitespace- or pipe-separated, ``#``-commented as
  nccl-tests prints them (a units line such as ``(B) ... (us) (GB/s)`` under the header is
  read), llama-bench's ``pp512``/``tg128`` rows (``373.36 ± 2.25`` keeps the mean);
- a figure with its unit anywhere in a line or sentence, named from the words before it:
  ``output throughput: 21.0 tok/s``, ``total 6095.37 tok/s``, ``mean TPOT 54.10 ms``,
  ``32.01it/s``, ``1,070 tok/s``; ``from 89 s to 219 ms`` keeps the second figure and the first
  as the figure it changed from.

Units are written as :data:`kb.models.UNITS` spells them: ``tok/s`` (also for ``tokens/s``,
``t/s``, ``tokens per second``, ``TPS``), ``req/s``, ``ms``, ``s``, ``us`` (for ``µs``/``μs``),
``GB/s``, ``TFLOPS``, ``it/s``. Names: ``output_throughput`` (decode, ``tg``, output),
``input_throughput`` (prefill, ``pp``, prompt, input), ``total_throughput``,
``request_throughput``, ``iterations`` (it/s), ``tflops``, ``busbw``/``algbw``/``bandwidth``
(GB/s), ``<stat>_<ttft|tpot|itl|e2e_latency>`` for latencies, ``time`` for a time column.

*A sweep is one attempt with a series*: a printed table whose rows vary a dimension (message
size, batch, ``m``, ``-ngl``) gives, per metric, the headline figure under the plain name (the
row with the largest value of the first numeric dimension that varies, else the first row) and
every point as a further metric named ``<name>[<dimension>=<value>]`` (only the dimensions that
vary; at most :data:`SERIES_POINTS` points per metric), so the series stays in the draft's
``metrics``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.importers.events import Event
from kb.importers.extract.model import Evidence, ExtractedAttempt, Figure, _sentence_around, locator_text, short_quote

SERIES_POINTS = 32
"""Most points of one series kept as metrics."""

BENCH_METRICS: list[tuple[re.Pattern[str], str, str | None]] = [
    (re.compile(r"^\s*(Output token throughput|Output throughput)\s*\(tok/s\)\s*:\s*([\d.]+)", re.I | re.M), "output_throughput", "tok/s"),
    (re.compile(r"^\s*Total [Tt]oken throughput\s*\(tok/s\)\s*:\s*([\d.]+)", re.M), "total_throughput", "tok/s"),
    (re.compile(r"^\s*Input token throughput\s*\(tok/s\)\s*:\s*([\d.]+)", re.I | re.M), "input_throughput", "tok/s"),
    (re.compile(r"^\s*Request throughput\s*\(req/s\)\s*:\s*([\d.]+)", re.I | re.M), "request_throughput", "req/s"),
    (re.compile(r"^\s*(Mean|Median|P\d+)\s+(TTFT|TPOT|ITL|E2E Latency|E2EL)\s*\((ms|s)\)\s*:\s*([\d.]+)", re.I | re.M), "", None),
    (re.compile(r"^\s*(?:Mean\s+)?(?:Accept|Acceptance)(?:ed)?\s+length\s*:\s*([\d.]+)", re.I | re.M), "acceptance_length", "tokens"),
]
"""Benchmark result lines (sglang/vLLM ``bench_serving``): pattern, metric name, unit."""

_UNIT_WORDS = (r"tok/s|tokens/s(?:ec)?|token/s|tokens per second|tok/sec|t/s|TPS|req/s|requests/s|ms|µs|μs|us|GB/s|GiB/s"
               r"|TFLOP/?S|TFLOPs|tflops|it/s|s")
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_FIGURE = re.compile(rf"(?<![\w.,])({_NUMBER})\s*(?:\*\*)?\s*({_UNIT_WORDS})(?![\w/])", re.I)
_TOK_S = re.compile(rf"(?<![\w.,])({_NUMBER})\s*(?:\*\*)?\s*(?:tok/s|tokens/s(?:ec)?|tokens per second|t/s)(?![\w/])", re.I)
_KV = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z0-9_]*)=(\d+(?:\.\d+)?)(?![\w.])")
_SIGNED_PERCENT = re.compile(r"(?<![\w.])([+\-−])\s?(\d+(?:\.\d+)?)\s?%")
_FROM_TO = re.compile(rf"\bfrom\s+({_NUMBER})\s*({_UNIT_WORDS})?\s+to\s+({_NUMBER})\s*({_UNIT_WORDS})(?![\w/])", re.I)
_LATENCY = re.compile(r"\b(ttft|tpot|itl|e2el|e2e(?:[ _]latency)?|latency|time)\b", re.I)
_LABELLED = re.compile(rf"^[\s|>]*([A-Za-z][^|:()]*?)\s*\(([^)]{{1,12}})\)\s*[|:]\s*({_NUMBER})\s*\|?\s*$")
"""``Label (unit): value`` or ``| Label (unit) | value |`` (summary tables such as evalscope's)."""
_RATE_WORDS = re.compile(r"total|prefill|prompt|input|\bpp\d*|decode|output|generat|\btg\d*", re.I)
_STAT = re.compile(r"\b(mean|median|avg|average|p\d{2,3})\b", re.I)

LOWER_IS_BETTER_UNITS = frozenset({"ms", "s", "us", "µs"})
"""Units whose metrics are better lower (latencies, times); every other unit is better higher."""


def canonical_unit(text: str) -> str | None:
    """The :data:`kb.models.UNITS` spelling of a unit as written (``tokens/s`` → ``tok/s``,
    ``μs`` → ``us``, ``TFLOP/s`` → ``TFLOPS``), or ``None`` for no unit kb records."""
    t = text.strip().strip("()[]").strip()
    low = t.lower()
    if low in ("tok/s", "tokens/s", "tokens/sec", "tok/sec", "tokens per second", "t/s", "tps", "token/s"):
        return "tok/s"
    if low in ("req/s", "requests/s", "req/sec", "requests/sec"):
        return "req/s"
    if low in ("ms", "s"):
        return low
    if low in ("us", "µs", "μs"):
        return "us"
    if low in ("gb/s", "gib/s"):
        return "GB/s"
    if low in ("tflops", "tflop/s"):
        return "TFLOPS"
    if low == "it/s":
        return "it/s"
    return None


def direction_of(unit: str) -> str:
    """``lower`` for latency/time units (``ms``, ``s``, ``us``), else ``higher``."""
    return "lower" if unit in LOWER_IS_BETTER_UNITS else "higher"


def metric_name(label: str, unit: str) -> str | None:
    """Name a figure of ``unit`` from the words written before or above it (``label``);
    ``None`` when a time figure is not said to be a latency (``ready in 94 s``)."""
    low = label.lower()
    if unit == "tok/s":
        if re.search(r"\btotal\b|total_", low) and not re.search(r"output|decode|generat", low):
            return "total_throughput"
        if re.search(r"prefill|prompt|\binput\b|input_|\bpp\s?\d*\b|^pp", low) and not re.search(r"decode|\btg\s?\d*\b|output|generat", low):
            return "input_throughput"
        return "output_throughput"
    if unit == "req/s":
        return "request_throughput"
    if unit == "it/s":
        return "iterations"
    if unit == "TFLOPS":
        return "tflops"
    if unit == "GB/s":
        for word in ("busbw", "algbw"):
            if word in low:
                return word
        return "bandwidth"
    if unit in ("ms", "s", "us"):
        what = _LATENCY.findall(low)
        if not what:
            return None
        kind = what[-1].replace(" ", "_")
        kind = {"e2el": "e2e_latency", "e2e": "e2e_latency", "e2e_latency": "e2e_latency"}.get(kind, kind)
        stat = _STAT.findall(low)
        prefix = {"avg": "mean", "average": "mean"}.get(stat[-1].lower(), stat[-1].lower()) if stat else ""
        return f"{prefix}_{kind}" if prefix else kind
    return None


def _number(text: str) -> str:
    return text.replace(",", "")


def _figure(name: str, value: str, unit: str, field_where: str, quote: str) -> Figure:
    return Figure(name, _number(value), unit, Evidence(f"metrics.{name}", field_where, short_quote(quote)))


# --------------------------------------------------------------------------- tool output


def output_figures(output: str, where: str) -> dict[str, Figure]:
    """Every figure in a tool's output (the forms of the module docstring), by metric name;
    ``where`` is the locator text of the output. The headline figures come first."""
    found: dict[str, Figure] = {}
    for name, figure in _table_figures(output, where).items():
        found.setdefault(name, figure)
    for line in output.splitlines():
        labelled = _LABELLED.match(line) if len(line) < 400 else None
        if labelled:
            unit = canonical_unit(labelled.group(2))
            label = metric_name(labelled.group(1), unit) if unit else None
            if unit and label and label not in found:
                found[label] = _figure(label, labelled.group(3), unit, where, line)
            continue
        if len(line) > 2000 or line.lstrip().startswith(("|", "#")):
            continue
        for name, figure in _line_figures(line, where).items():
            if name in found and "[" not in name and found[name].evidence.quote != figure.evidence.quote:
                if _is_progress(line):
                    continue  # a progress bar's rate does not beat a printed figure
            found[name] = figure  # the last printed figure of a name is the final one
        for match in _KV.finditer(line):
            named = _kv_metric(match.group(1))
            if named:
                found.setdefault(named[0], _figure(named[0], match.group(2), named[1], where, line))
    bench: set[str] = set()
    for pattern, name, unit in BENCH_METRICS:
        for match in pattern.finditer(output):
            if name:
                metric, value, metric_unit = name, match.groups()[-1], unit or ""
            else:
                stat, what, metric_unit, value = match.groups()
                what = {"E2E LATENCY": "e2e_latency", "E2EL": "e2e_latency"}.get(what.upper(), what.lower())
                metric = f"{stat.lower()}_{what}"
            if not re.fullmatch(r"\d+(?:\.\d+)?", value) or metric in bench:
                continue
            bench.add(metric)
            found[metric] = _figure(metric, value, metric_unit, where, match.group(0))
    return _ordered(found)


def _is_progress(line: str) -> bool:
    return bool(re.search(r"\d+%\||\[\d\d:\d\d<", line))


def _ordered(found: dict[str, Figure]) -> dict[str, Figure]:
    """Plain names first (throughputs before the rest), series points after."""
    rank = {"output_throughput": 0, "total_throughput": 1, "input_throughput": 2, "busbw": 3, "tflops": 3,
            "iterations": 3, "request_throughput": 4, "algbw": 4, "bandwidth": 4}
    names = sorted(found, key=lambda n: ("[" in n, rank.get(n, 5)))
    return {n: found[n] for n in names}


def _kv_metric(key: str) -> tuple[str, str] | None:
    """A ``key=value`` measurement keeps its key as its name, the unit read from it:
    ``median_us`` → (``median_us``, ``us``), ``tflops_per_sec`` → (``tflops_per_sec``,
    ``TFLOPS``), ``peer_bw_GBps`` → (``peer_bw_GBps``, ``GB/s``); a token rate is named as a
    throughput (``output_tok_s`` → ``output_throughput``). Keys that name no measurement
    (``tp``, ``m``, ``conc``) → ``None``."""
    low = key.lower()
    if "tflop" in low:
        return key, "TFLOPS"
    if low in ("busbw", "algbw") or low.endswith(("_gbps", "_gb_s", "gbps")):
        return key, "GB/s"
    if re.search(r"tok(?:en)?s?_(?:per_)?s(?:ec)?$|_tok_s$|throughput", low):
        return metric_name(low, "tok/s") or "output_throughput", "tok/s"
    for suffix, unit in (("_us", "us"), ("_ms", "ms")):
        if low.endswith(suffix) and len(low) > len(suffix):
            return low, unit
    if re.fullmatch(r"(?:mean|median|p\d+)_?(?:ttft|tpot|itl|latency)", low):
        return low, "ms"
    return None


def _line_figures(line: str, where: str) -> dict[str, Figure]:
    """Figures with a unit in one line; each named by the words before it on the line."""
    found: dict[str, Figure] = {}
    start = 0
    for match in _FIGURE.finditer(line):
        unit = canonical_unit(match.group(2))
        if unit is None:
            continue
        label = line[start:match.start()]
        if unit in ("s", "ms", "us") and not _LATENCY.search(label):
            continue
        if unit == "tok/s" and not _RATE_WORDS.search(label):
            label = line[:match.start()]  # ``Prefill. latency: 0.38 s, throughput: 43480.63 token/s``
        name = metric_name(label, unit)
        if name and name not in found:
            found[name] = _figure(name, match.group(1), unit, where, line)
        start = match.end()
    return found


# --------------------------------------------------------------------------- printed tables


@dataclass
class _Column:
    index: int
    header: str
    name: str | None
    unit: str | None


def _split_row(line: str, mode: str = "wide") -> list[str] | None:
    """Cells of a printed table row: between pipes, else (``mode`` ``wide``) between runs of two
    or more spaces or tabs, else (``narrow``) between any spaces. A leading ``#`` is dropped."""
    text = line.strip()
    if text.startswith("#"):
        text = text.lstrip("#").strip()
    if "|" in text:
        cells = [c.strip() for c in text.strip("|").split("|")]
        return cells if len(cells) >= 2 else None
    if mode == "wide" and re.search(r"\s{2,}|\t", text):
        cells = re.split(r"\s{2,}|\t", text)
    else:
        cells = text.split()
    return [c for c in cells if c] or None


def _row_cells(line: str, width: int) -> list[str] | None:
    """The cells of a row of a ``width``-column table; a pandas row index (``3  128.0 ...``,
    one cell more than the header, an integer first) is dropped."""
    for mode in ("wide", "narrow"):
        cells = _split_row(line, mode)
        if cells and len(cells) == width + 1 and cells[0].isdigit():
            cells = cells[1:]
        if cells and len(cells) == width:
            return cells
    return None


def _cell_number(cell: str) -> str | None:
    match = re.fullmatch(rf"\**\s*({_NUMBER})\s*(?:±\s*[\d.]+)?\s*\**", cell.strip())
    return _number(match.group(1)) if match else None


def _column(index: int, header: str, unit_hint: str | None) -> _Column:
    unit_match = re.search(r"\(([^)]*)\)|\[([^\]]*)\]", header)
    unit = canonical_unit(unit_match.group(1) or unit_match.group(2)) if unit_match else None
    low = header.lower()
    if unit is None:
        for pattern, spelled in ((r"tok_s|tok/s|tokens?/s|t/s$|_t/s|\btps\b", "tok/s"), (r"tflops", "TFLOPS"),
                                 (r"gb/s|gbps", "GB/s"), (r"it/s", "it/s"), (r"_us$|\(us\)|μs|µs", "us"),
                                 (r"_ms$", "ms")):
            if re.search(pattern, low):
                unit = spelled
                break
    if unit is None and unit_hint and low in ("busbw", "algbw", "time"):
        unit = unit_hint
    if unit is None:
        return _Column(index, header, None, None)
    name = metric_name(header, unit)
    if name is None and unit in ("us", "ms", "s"):
        name = "time" if "time" in low else None
    return _Column(index, header, name, unit)


def _table_figures(output: str, where: str) -> dict[str, Figure]:
    """Figures of the tables a tool printed (see the module docstring)."""
    lines = output.splitlines()
    found: dict[str, Figure] = {}
    i = 0
    while i < len(lines):
        best: tuple[list[str], list[str], list[tuple[list[str], str]], int] | None = None
        for mode in ("wide", "narrow"):
            header = _split_row(lines[i], mode) if len(lines[i]) < 1000 else None
            if not header or len(header) < 2 or _cell_number(header[0]) is not None or not any(
                    re.search(r"[A-Za-z]", h) for h in header):
                continue
            units, rows, end = _table_body(lines, i + 1, len(header))
            if rows and (best is None or len(rows) > len(best[2])):
                best = (header, units, rows, end)
        if best is None:
            i += 1
            continue
        header, units, rows, end = best
        found.update({k: v for k, v in _series(header, units, rows, where).items() if k not in found})
        i = end
    return found


def _table_body(lines: list[str], j: int, width: int) -> tuple[list[str], list[tuple[list[str], str]], int]:
    """The units line (nccl-tests' ``(B) ... (GB/s)``), the rows of ``width`` cells from line
    ``j`` (rules skipped), and the index after them."""
    units: list[str] = []
    while j < len(lines) and re.fullmatch(r"[\s|:#+=-]*", lines[j]) and lines[j].strip():
        j += 1  # a rule under the header
    if j < len(lines) and re.fullmatch(r"[#\s]*(?:\([^)]*\)\s*)+", lines[j]):
        units = re.findall(r"\(([^)]*)\)", lines[j])
        j += 1
    rows: list[tuple[list[str], str]] = []
    while j < len(lines):
        if re.fullmatch(r"[\s|:+=-]*", lines[j]) and lines[j].strip():
            j += 1
            continue
        cells = _row_cells(lines[j], width)
        if not cells:
            break
        if rows and any((_cell_number(a) is None) != (_cell_number(b) is None) for a, b in zip(rows[0][0], cells)):
            break  # not a row of this table (``Exit Code: 0`` after it): numbers where the first row has words
        rows.append((cells, lines[j]))
        j += 1
    return units, rows, j


def _measured(column: _Column, rows: list[tuple[list[str], str]]) -> bool:
    """A column of measurements kb does not record (``avg_latency`` as ``11.976s``, a rate, a
    count of wrong results): not a dimension of the sweep."""
    if _LATENCY.search(column.header) or re.search(r"rate|accept|wrong|std|stddev|err", column.header, re.I):
        return True
    return any(_FIGURE.fullmatch(r[0][column.index].strip()) for r in rows)


def _series(header: list[str], units: list[str], rows: list[tuple[list[str], str]], where: str) -> dict[str, Figure]:
    unit_hint = canonical_unit(units[-1]) if units else None
    seen: set[str] = set()
    columns: list[_Column] = []
    for index, head in enumerate(header):
        if head in seen:
            continue  # nccl-tests repeats time/algbw/busbw for in-place: the first set is kept
        seen.add(head)
        column = _column(index, head, unit_hint if head.lower() in ("busbw", "algbw") else (
            "us" if head.lower() == "time" and "us" in units else None))
        columns.append(column)
    metric_cols = [c for c in columns if c.name and all(_cell_number(r[0][c.index]) is not None for r in rows)]
    if not metric_cols:
        return {}
    dims = [c for c in columns if c not in metric_cols and not _measured(c, rows)]
    test_col = next((c for c in dims if c.header.lower() == "test"), None)
    varying: list[_Column] = []
    for column in dims:  # a dimension that varies and is not determined by those kept already
        values: dict[tuple[str, ...], set[str]] = {tuple(r[0][c.index] for c in varying): set() for r in rows}
        for cells, _ in rows:
            values[tuple(cells[c.index] for c in varying)].add(cells[column.index])
        if any(len(v) > 1 for v in values.values()):
            varying.append(column)
    numeric_varying = [c for c in varying if all(_cell_number(r[0][c.index]) is not None for r in rows)]
    found: dict[str, Figure] = {}
    for column in metric_cols:
        groups: dict[str, list[tuple[list[str], str]]] = {}
        for cells, line in rows:
            name = column.name or ""
            if test_col is not None and column.unit == "tok/s":  # llama-bench: pp → prefill, tg → decode
                test = cells[test_col.index].lower()
                name = "input_throughput" if test.startswith("pp") else "output_throughput" if test.startswith("tg") else name
            groups.setdefault(name, []).append((cells, line))
        for name, members in groups.items():
            if numeric_varying:
                key = numeric_varying[0].index
                head_cells, head_line = max(members, key=lambda r: float(_cell_number(r[0][key]) or 0))
            else:
                head_cells, head_line = members[0]
            value = _cell_number(head_cells[column.index])
            assert value is not None
            found.setdefault(name, _figure(name, value, column.unit or "", where, head_line))
            if len(members) > 1:
                for cells, line in members[:SERIES_POINTS]:
                    label = ",".join(f"{c.header}={cells[c.index]}" for c in varying)
                    point = f"{name}[{label}]"
                    found.setdefault(point, _figure(point, _cell_number(cells[column.index]) or "0", column.unit or "", where, line))
    return found


# --------------------------------------------------------------------------- prose


def prose_figures(text: str, where: str) -> tuple[dict[str, Figure], dict[str, Figure]]:
    """Figures written in prose (a paragraph, a list item and its sub-items, a message), each
    named from the words before it in its sentence. Returns ``(figures, previous)``:
    ``previous`` holds, for a figure written ``from X to Y``, the figure it changed from."""
    figures: dict[str, Figure] = {}
    previous: dict[str, Figure] = {}
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", text):
        if len(sentence) > 4000:
            continue
        moved = _FROM_TO.search(sentence)
        if moved:
            unit = canonical_unit(moved.group(4))
            name = metric_name(sentence[:moved.start()], unit) if unit else None
            if unit and name:
                figures.setdefault(name, _figure(name, moved.group(3), unit, where, sentence))
                before = canonical_unit(moved.group(2)) if moved.group(2) else unit
                if before:
                    previous.setdefault(name, _figure(name, moved.group(1), before, where, sentence))
                continue
        for name, figure in _line_figures(sentence, where).items():
            figures.setdefault(name, figure)
    return _ordered(figures), previous


def signed_percent(text: str) -> float | None:
    """A change written with its sign (``+31.6 %``, ``-7.6 %``, ``−3%``) in ``text``, or ``None``."""
    match = _SIGNED_PERCENT.search(text)
    if not match:
        return None
    value = float(match.group(2))
    return -value if match.group(1) in "-−" else value


def in_units(figure: Figure, unit: str) -> float | None:
    """``figure``'s value in ``unit`` (``s``/``ms``/``us`` convert), ``None`` when they do not."""
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}
    value = float(figure.text)
    if figure.unit == unit:
        return value
    if figure.unit in scale and unit in scale:
        return value * scale[figure.unit] / scale[unit]
    return None


def _prose_figure(attempt: ExtractedAttempt, event: Event) -> None:
    """Give a run that printed no figure the throughput its next assistant message states."""
    match = _TOK_S.search(event.text)
    if match:
        attempt.metrics["output_throughput"] = Figure(
            "output_throughput", _number(match.group(1)), "tok/s",
            Evidence("metrics.output_throughput", locator_text(event.locator), short_quote(_sentence_around(event.text, match.start()))))
