"""Inline SVG for the site: the headline-metric chart and the cause diagrams.

Rendered at build time in Python so pages show them with no JavaScript and no CDN (GPU hosts are
often offline). Every text that comes from a record is XML-escaped; links are only ever built by
kb from record ids.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from dataclasses import dataclass
from html import escape
from typing import Any


def _e(text: str) -> str:
    return escape(text, quote=True)


@dataclass
class ChartPoint:
    """One attempt on the metric chart. ``value`` is ``None`` for an attempt with no figure
    (failed); ``href`` is a page URL relative to the page holding the chart."""

    date: dt.date
    label: str
    value: float | None
    outcome: str
    href: str


_OUTCOME_COLOURS = {
    "baseline": "#546e7a",
    "improved": "#2e7d32",
    "regressed": "#ef6c00",
    "neutral": "#1565c0",
    "failed": "#c62828",
    "inconclusive": "#8e24aa",
}


def nice_ticks(lo: float, hi: float, max_ticks: int = 8) -> list[float]:
    """Evenly spaced "nice" tick values (1, 2, 2.5 or 5 × 10^k apart) covering ``[lo, hi]``.

    The first tick is at or below ``lo`` and the last at or above ``hi``; of the nice steps that
    give 4 to ``max_ticks`` ticks, the one wasting the least range wins, then the one with fewer
    ticks (Heckbert's "nice numbers" for graph labels, Graphics Gems, 1990).

    >>> nice_ticks(33.5, 99.9)
    [30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0]
    >>> nice_ticks(0, 1)
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> nice_ticks(5, 5)
    [5.0, 5.25, 5.5, 5.75, 6.0]
    """
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        hi = lo + 1.0
    base = 10.0 ** math.floor(math.log10((hi - lo) / 4))
    best: tuple[float, int, list[float]] | None = None
    for mag in (base / 10, base, base * 10):
        for m in (1, 2, 2.5, 5):
            step = m * mag
            first = math.floor(lo / step + 1e-9) * step
            last = math.ceil(hi / step - 1e-9) * step
            n = round((last - first) / step) + 1
            if not 4 <= n <= max_ticks:
                continue
            ticks = [float(round(first + i * step, 10)) for i in range(n)]
            key = (round(last - first, 10), n, ticks)
            if best is None or key[:2] < best[:2]:
                best = key
    if best is None:  # unreachable for finite input; keep the ends
        return [float(lo), float(hi)]
    return best[2]


def compress_gaps(dates: list[dt.date], *, factor: float = 3.0, min_days: int = 14,
                  drawn_as: float = 2.0) -> tuple[dict[dt.date, float], list[tuple[dt.date, dt.date]]]:
    """Positions of sorted distinct ``dates`` on a time axis whose long gaps are drawn short.

    A gap between consecutive dates counts as ``drawn_as`` days when it is longer than both
    ``min_days`` and ``factor`` times the median gap (one run logged months later no longer
    squashes the rest to the left). Returns ``({date: offset in days from the first}, [(before,
    after) of each compressed gap])``.

    >>> d = [dt.date(2026, 2, 19), dt.date(2026, 2, 21), dt.date(2026, 2, 23), dt.date(2026, 6, 1)]
    >>> offsets, breaks = compress_gaps(d)
    >>> [offsets[x] for x in d], breaks == [(d[2], d[3])]
    ([0.0, 2.0, 4.0, 6.0], True)
    """
    offsets: dict[dt.date, float] = {}
    breaks: list[tuple[dt.date, dt.date]] = []
    gaps = sorted((b - a).days for a, b in itertools.pairwise(dates))
    median = gaps[len(gaps) // 2] if gaps else 0
    pos = 0.0
    for i, d in enumerate(dates):
        if i:
            gap: float = (d - dates[i - 1]).days
            if gap > min_days and gap > factor * max(median, 1):
                breaks.append((dates[i - 1], d))
                gap = drawn_as
            pos += gap
        offsets[d] = pos
    return offsets, breaks


def _fmt(v: float) -> str:
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 else f"{v:g}"


def metric_chart(points: list[ChartPoint], *, metric: str, unit: str, baseline: float | None,
                 target: float | None, higher_is_better: bool = True, width: int = 720,
                 height: int = 320) -> str:
    """An SVG chart of ``points`` over time, with dashed baseline and target lines.

    Each attempt with a figure is a dot coloured by outcome; attempts without one (failed) are
    crosses in a "failed" lane under the plot, so failed attempts stay visible. Several attempts
    on one day are spread side by side. The best value so far (by ``higher_is_better``) is a
    pale step line. The y axis has "nice" ticks (:func:`nice_ticks`) and the plot is padded so
    no point sits on its border. Every point is a link with a ``<title>`` and an ``aria-label``.
    Returns an ``<svg role="group">`` element as a string.
    """
    left, right, top = 56, 28, 16
    lane_h, axis_h, legend_h = 26, 26, 22
    pw = width - left - right
    ph = height - top - lane_h - axis_h - legend_h
    lane_y = top + ph + lane_h / 2
    values = [p.value for p in points if p.value is not None]
    refs = [v for v in (baseline, target) if v is not None]
    vmin = min(values + refs, default=0.0)
    vmax = max(values + refs, default=1.0)
    pad = (vmax - vmin) * 0.04 or max(abs(vmax) * 0.1, 1.0)
    # an honest axis: from zero for figures that cannot be negative, so heights compare
    ticks = nice_ticks(0.0 if vmin >= 0 else vmin - pad, vmax + pad)
    lo, hi = ticks[0], ticks[-1]
    dates = sorted({p.date for p in points}) or [dt.date.today()]
    d0, d1 = dates[0], dates[-1]
    offsets, breaks = compress_gaps(dates)
    span = max(offsets[d1], 1.0)
    inset = 36.0  # keeps the first and last day (and the points spread around them) off the border

    def x(d: dt.date) -> float:
        if d0 == d1:
            return left + pw / 2
        return left + inset + (pw - 2 * inset) * (offsets[d] / span)

    def y(v: float) -> float:
        return top + ph * (1 - (v - lo) / (hi - lo))

    out = [(f'<svg class="kb-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="100%" style="max-width:{width}px;--kb-min-width:{width}px" role="group" '
            f'aria-label="{_e(metric)} ({_e(unit)}) per attempt over time">'),
           f"<title>{_e(metric)} ({_e(unit)}) per attempt over time</title>"]
    for v in ticks:
        yy = y(v)
        out.append(f'<line class="kb-grid" x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" '
                   'stroke="#9e9e9e" stroke-opacity="0.3"/>')
        out.append(f'<text class="kb-tick" x="{left - 6}" y="{yy + 4:.1f}" font-size="11" text-anchor="end" '
                   f'fill="currentColor">{_fmt(v)}</text>')
    out.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#9e9e9e"/>')
    for before, after in breaks:
        bx = (x(before) + x(after)) / 2
        by = top + ph
        out.append(f'<g class="kb-gap"><title>{(after - before).days} days without attempts, drawn short</title>'
                   f'<rect x="{bx - 7:.1f}" y="{top}" width="14" height="{ph + lane_h:.0f}" fill="#9e9e9e" '
                   'fill-opacity="0.12"/>'
                   f'<path d="M{bx - 7:.1f},{by + 5:.1f} l5,-10 M{bx + 2:.1f},{by + 5:.1f} l5,-10" '
                   'stroke="currentColor" stroke-width="1.5"/>'
                   f'<text x="{bx:.1f}" y="{top + 12}" font-size="11" text-anchor="middle" '
                   f'fill="currentColor">+{(after - before).days} d</text></g>')
    out.append(f'<text x="14" y="{top + ph / 2:.0f}" font-size="11" fill="currentColor" '
               f'transform="rotate(-90 14 {top + ph / 2:.0f})" text-anchor="middle">{_e(unit)}</text>')
    if any(p.value is None for p in points):
        out.append(f'<rect x="{left}" y="{top + ph + 3}" width="{pw}" height="{lane_h - 6}" fill="#c62828" '
                   'fill-opacity="0.06"/>')
        out.append(f'<text x="{left - 6}" y="{lane_y + 4:.1f}" font-size="11" text-anchor="end" '
                   'fill="#c62828">failed</text>')
    # date labels: every distinct day, thinned so labels never overlap (about 72 px each)
    last_x = -1e9
    for d in dates:
        xx = x(d)
        if xx - last_x < 72 and d != dates[-1]:
            continue
        if xx - last_x < 72:  # keep the last day: drop the label before it instead
            out.pop()
        out.append(f'<text class="kb-date" x="{xx:.1f}" y="{top + ph + lane_h + 16}" font-size="11" '
                   f'text-anchor="middle" fill="currentColor">{d.isoformat()}</text>')
        last_x = xx
    for value, name, colour in ((baseline, "baseline", "#546e7a"), (target, "target", "#2e7d32")):
        if value is None:
            continue
        yy = y(value)
        out.append(f'<line class="kb-{name}" x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" '
                   f'stroke="{colour}" stroke-dasharray="6 4" stroke-width="1.5"><title>{name} {value:g} '
                   f'{_e(unit)}</title></line>')
        out.append(f'<text x="{left + pw - 4}" y="{yy - 5:.1f}" font-size="11" text-anchor="end" '
                   f'fill="{colour}">{name} {value:g}</text>')
    best: float | None = None
    step: list[tuple[float, float]] = []
    for p in sorted((p for p in points if p.value is not None), key=lambda p: p.date):
        assert p.value is not None
        if best is None or (p.value > best if higher_is_better else p.value < best):
            best = p.value
            if step:
                step.append((x(p.date), step[-1][1]))
            step.append((x(p.date), y(best)))
    if len(step) > 1:
        step.append((left + pw - 4, step[-1][1]))
        path = " ".join(f"{'M' if i == 0 else 'L'}{a:.1f},{b:.1f}" for i, (a, b) in enumerate(step))
        out.append(f'<path class="kb-best" d="{path}" fill="none" stroke="#2e7d32" stroke-opacity="0.35" '
                   'stroke-width="2"><title>best so far</title></path>')
    measured = [p for p in points if p.value is not None]
    best_point = ((max if higher_is_better else min)(measured, key=lambda p: p.value or 0.0) if measured else None)
    per_day: dict[tuple[dt.date, bool], list[ChartPoint]] = {}
    for p in points:
        per_day.setdefault((p.date, p.value is None), []).append(p)
    for (day, failed), group in per_day.items():
        gap = 14.0 if failed else 9.0
        for i, p in enumerate(group):
            colour = _OUTCOME_COLOURS.get(p.outcome, "#000")
            cx = x(day) + (i - (len(group) - 1) / 2) * gap
            label = (f"{p.label}: {p.value:g} {unit} ({p.outcome}, {day.isoformat()})" if p.value is not None
                     else f"{p.label}: {p.outcome}, no figure ({day.isoformat()})")
            out.append(f'<a href="{_e(p.href)}" aria-label="{_e(label)}">'
                       f'<g class="kb-point kb-{_e(p.outcome)}">')
            out.append(f"<title>{_e(label)}</title>")
            if p.value is None:
                out.append(f'<path d="M{cx - 4.5:.1f},{lane_y - 4.5:.1f} l9,9 m0,-9 l-9,9" stroke="{colour}" '
                           'stroke-width="2.5" stroke-linecap="round"/>')
            else:
                out.append(f'<circle cx="{cx:.1f}" cy="{y(p.value):.1f}" r="5.5" fill="{colour}" '
                           'stroke="#fff" stroke-width="1"/>')
                if p is best_point or p.outcome == "baseline":  # the two figures a reader looks for
                    ty = y(p.value) - 10 if p is best_point else y(p.value) + 19
                    out.append(f'<text class="kb-value" x="{cx:.1f}" y="{ty:.1f}" font-size="12" '
                               f'font-weight="bold" text-anchor="middle" fill="currentColor">{p.value:g}</text>')
            out.append("</g></a>")
    lx = left
    ly = height - 8
    for name, colour in _OUTCOME_COLOURS.items():
        if any(p.outcome == name for p in points):
            mark = (f'<path d="M{lx},{ly - 8} l8,8 m0,-8 l-8,8" stroke="{colour}" stroke-width="2.5"/>'
                    if name == "failed" else f'<circle cx="{lx + 4}" cy="{ly - 4}" r="4.5" fill="{colour}"/>')
            out.append(f'{mark}<text x="{lx + 13}" y="{ly}" font-size="11" fill="currentColor">{name}</text>')
            lx += 24 + 7 * len(name)
    if baseline is not None or target is not None:
        out.append(f'<path d="M{lx},{ly - 4} h18" stroke="#546e7a" stroke-dasharray="5 3" stroke-width="1.5"/>'
                   f'<text x="{lx + 24}" y="{ly}" font-size="11" fill="currentColor">'
                   f'{"campaign baseline / target" if baseline is not None and target is not None else ("campaign baseline" if baseline is not None else "target")}</text>')
        lx += 190 if baseline is not None and target is not None else 150
    if len(step) > 1:
        out.append(f'<path d="M{lx},{ly - 4} h18" stroke="#2e7d32" stroke-opacity="0.35" stroke-width="2"/>'
                   f'<text x="{lx + 24}" y="{ly}" font-size="11" fill="currentColor">best so far</text>')
    out.append("</svg>")
    return "".join(out)


@dataclass
class DiagramNode:
    """A box in a cause diagram: ``kind`` is ``attempt``, ``blocker``, ``root`` or ``more`` (a box
    counting records left out of a large diagram, linked to their list); ``status`` (blockers
    only) is ``open``, ``fixed`` or ``introduced`` (it starts to apply from some version on), each
    drawn in its own style (:data:`STATUS_STYLE`) so that colour is never the only cue."""

    id: str
    label: str
    kind: str
    href: str
    status: str = ""


STATUS_STYLE: dict[str, dict[str, Any]] = {
    "open": {"fill": None, "stroke": None, "dash": "", "mark": ""},
    "fixed": {"fill": "#e8f5e9", "stroke": "#2e7d32", "dash": "7 4", "mark": "✓ "},
    "introduced": {"fill": "#f3e5f5", "stroke": "#8e24aa", "dash": "2 3", "mark": "⚠ "},
    "disabled": {"fill": "#eceff1", "stroke": "#546e7a", "dash": "7 2 2 2", "mark": "⊘ "},
}
"""How a blocker's status changes its box: fill, border colour, border dashes and a mark before
its label (``None`` keeps the kind's colours). Open: solid border; fixed: long dashes and ✓;
introduced: dots and ⚠; disabled upstream (the crash became a clean refusal, the feature stays
off): dash-dots and ⊘."""


_NODE_STYLE = {
    "attempt": ("#eceff1", "#546e7a"),
    "blocker": ("#fff3e0", "#ef6c00"),
    "root": ("#ffebee", "#c62828"),
    "focus": ("#e3f2fd", "#1565c0"),
    "more": ("#fafafa", "#90a4ae"),
}


def _layering(ids: list[str], edges: list[tuple[str, str]]
              ) -> tuple[dict[str, list[str]], dict[str, int], dict[int, list[str]]]:
    """Predecessors of each node, its layer (the longest path from a source) and the nodes of
    each layer in ``ids`` order; edges naming an unknown node are ignored."""
    known = set(ids)
    preds: dict[str, list[str]] = {i: [] for i in ids}
    for a, b in edges:
        if a in known and b in known:
            preds[b].append(a)
    layer: dict[str, int] = {}

    def depth(n: str, trail: frozenset[str] = frozenset()) -> int:
        if n in layer:
            return layer[n]
        if n in trail:
            return 0
        d = max((depth(p, trail | {n}) + 1 for p in preds[n]), default=0)
        layer[n] = d
        return d

    for i in ids:
        depth(i)
    layers: dict[int, list[str]] = {}
    for i in ids:
        layers.setdefault(layer[i], []).append(i)
    return preds, layer, layers


DIAGRAM_ROW_PX = 70
"""Height of one row of boxes in a cause diagram (box and gap), in SVG user units (px at 1:1)."""


def diagram_rows(node_ids: list[str], edges: list[tuple[str, str]]) -> int:
    """Rows the tallest column of :func:`cause_diagram` would have for these nodes and edges: the
    diagram is ``rows × DIAGRAM_ROW_PX + 20`` px tall."""
    _preds, _layer, layers = _layering(node_ids, edges)
    return max((len(col) for col in layers.values()), default=1)


def cause_diagram(nodes: list[DiagramNode], edges: list[tuple[str, str]], *, focus: str | None = None,
                  title: str = "Causes") -> str:
    """A left-to-right layered SVG diagram: attempts → blockers → root causes.

    ``edges`` are ``(from_id, to_id)`` pairs (``blocked_by`` and ``caused_by``). Layers are the
    longest path from a source; nodes in a layer are ordered by the mean position of their
    predecessors (one barycentre pass). Returns an ``<svg>`` string.
    """
    ids = [n.id for n in nodes]
    by_id = {n.id: n for n in nodes}
    preds, layer, layers = _layering(ids, edges)
    pos: dict[str, int] = {}
    for k in sorted(layers):
        col = layers[k]
        if k > 0:
            col.sort(key=lambda n: (sum(pos.get(p, 0) for p in preds[n]) / max(len(preds[n]), 1), n))
        for j, n in enumerate(col):
            pos[n] = j
    box_w, box_h, gap_x, gap_y = 190, 54, 40, 16
    ncols = max(layers) + 1 if layers else 1
    nrows = max((len(c) for c in layers.values()), default=1)
    width = ncols * box_w + (ncols - 1) * gap_x + 20
    height = nrows * (box_h + gap_y) + 20

    def xy(n: str) -> tuple[float, float]:
        col = layers[layer[n]]
        offset = (nrows - len(col)) * (box_h + gap_y) / 2
        return 10 + layer[n] * (box_w + gap_x), 10 + offset + pos[n] * (box_h + gap_y)

    out = [(f'<svg class="kb-diagram" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="100%" style="max-width:{width}px;--kb-min-width:{math.ceil(width * 11 / 13)}px" role="group" '
            f'aria-label="{_e(title)}">'),
           f"<title>{_e(title)}</title>",
           ('<defs><marker id="kb-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#78909c"/></marker></defs>')]
    for a, b in edges:
        if a not in by_id or b not in by_id:
            continue
        x1, y1 = xy(a)
        x2, y2 = xy(b)
        sx, sy, ex, ey = x1 + box_w, y1 + box_h / 2, x2, y2 + box_h / 2
        if ex <= sx:  # same or earlier layer (should not happen in a DAG): route below
            sx, ex = x1 + box_w / 2, x2 + box_w / 2
        mx = (sx + ex) / 2
        out.append(f'<path d="M{sx:.1f},{sy:.1f} C{mx:.1f},{sy:.1f} {mx:.1f},{ey:.1f} {ex:.1f},{ey:.1f}" '
                   'fill="none" stroke="#78909c" stroke-width="1.5" marker-end="url(#kb-arrow)"/>')
    for n in ids:
        node = by_id[n]
        x0, y0 = xy(n)
        fill, stroke = _NODE_STYLE["focus" if n == focus else node.kind]
        style = STATUS_STYLE.get(node.status, STATUS_STYLE["open"])
        if n != focus:
            fill, stroke = style["fill"] or fill, style["stroke"] or stroke
        dash = f' stroke-dasharray="{style["dash"]}"' if style["dash"] else ""
        lines = _wrap(style["mark"] + node.label, 26, 3)
        status = f" kb-{_e(node.status)}" if node.status else ""
        out.append(f'<a href="{_e(node.href)}"><g class="kb-node kb-{_e(node.kind)}{status}">')
        out.append(f"<title>{_e(node.label)}</title>")
        out.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{box_w}" height="{box_h}" rx="6" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{2.5 if n == focus else 1.5}"{dash}/>')
        for k, line in enumerate(lines):
            ty = y0 + box_h / 2 + (k - (len(lines) - 1) / 2) * 15 + 4
            out.append(f'<text x="{x0 + box_w / 2:.1f}" y="{ty:.1f}" font-size="13" text-anchor="middle" '
                       f'fill="#212121">{_e(line)}</text>')
        out.append("</g></a>")
    out.append("</svg>")
    return "".join(out)


def diagram_legend(nodes: list[DiagramNode], focus: str | None = None) -> str:
    """An HTML legend for the box styles used by ``nodes`` (outside the SVG, so it wraps on a
    phone while the diagram scrolls). Returns ``<ul class="kb-legend">…</ul>``."""
    entries = []
    used_kinds = {n.kind for n in nodes}
    for kind, label in (("attempt", "attempt"), ("blocker", "blocker (a cause)"), ("root", "root cause"),
                        ("more", "a count of records left out, linked to their list")):
        if kind in used_kinds:
            fill, stroke = _NODE_STYLE[kind]
            entries.append((fill, stroke, "", label))
    used = {n.status for n in nodes}
    for status, label in (("open", "open: solid border"), ("fixed", "✓ fixed: dashed border"),
                          ("introduced", "⚠ introduced by a version: dotted border"),
                          ("disabled", "⊘ only disabled upstream (the feature stays off): dash-dot border")):
        if status in used:
            st = STATUS_STYLE[status]
            entries.append((st["fill"] or "#fff", st["stroke"] or "#616161", st["dash"], label))
    if focus:
        fill, stroke = _NODE_STYLE["focus"]
        entries.append((fill, stroke, "", "this page"))
    items = "".join(
        f'<li><svg width="26" height="16" aria-hidden="true"><rect x="1" y="1" width="24" height="14" rx="3" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="2"{f" stroke-dasharray={chr(34)}{dash}{chr(34)}" if dash else ""}/>'
        f"</svg> {_e(label)}</li>" for fill, stroke, dash, label in entries)
    return f'<ul class="kb-legend" aria-label="Legend">{items}</ul>'


def _wrap(text: str, width: int, max_lines: int) -> list[str]:
    words = text.split()
    lines: list[str] = []
    cur = ""
    for w in words:
        if len(cur) + len(w) + (1 if cur else 0) <= width:
            cur = f"{cur} {w}" if cur else w
        else:
            if cur:
                lines.append(cur)
            cur = w[:width]
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: width - 1].rstrip() + "…"
    return lines or [""]
