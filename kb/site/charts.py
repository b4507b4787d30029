"""Inline SVG for the site: the headline-metric chart and the cause diagrams.

Rendered at build time in Python so pages show them with no JavaScript and no CDN (GPU hosts are
often offline). Every text that comes from a record is XML-escaped; links are only ever built by
kb from record ids.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from html import escape


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


def metric_chart(points: list[ChartPoint], *, metric: str, unit: str, baseline: float | None,
                 target: float | None, higher_is_better: bool = True, width: int = 720,
                 height: int = 300) -> str:
    """An SVG scatter/step chart of ``points`` over time, with dashed baseline and target lines.

    Attempts without a figure are drawn as crosses on the bottom axis, so failed attempts stay
    visible. The best value so far (by ``higher_is_better``) is drawn as a step line. Returns an
    ``<svg>`` element as a string (``role="img"`` with a ``<title>``).
    """
    left, right, top, bottom = 56, 16, 20, 44
    pw, ph = width - left - right, height - top - bottom
    values = [p.value for p in points if p.value is not None]
    refs = [v for v in (baseline, target) if v is not None]
    lo = min(values + refs, default=0.0)
    hi = max(values + refs, default=1.0)
    if hi == lo:
        hi = lo + 1.0
    pad = (hi - lo) * 0.1
    lo, hi = max(0.0, lo - pad), hi + pad
    dates = [p.date for p in points] or [dt.date.today()]
    d0, d1 = min(dates), max(dates)
    span = max((d1 - d0).days, 1)

    def x(d: dt.date, i: int = 0) -> float:
        return left + pw * ((d - d0).days / span) if d1 != d0 else left + pw / 2 + i * 0

    def y(v: float) -> float:
        return top + ph * (1 - (v - lo) / (hi - lo))

    out = [f'<svg class="kb-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="100%" role="img" aria-label="{_e(metric)} per attempt over time">',
           f"<title>{_e(metric)} ({_e(unit)}) per attempt over time</title>",
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#9e9e9e" stroke-width="1"/>']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        yy = y(v)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" stroke="#e0e0e0"/>')
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" font-size="11" text-anchor="end" fill="currentColor">{v:.0f}</text>')
    out.append(f'<text x="12" y="{top + ph / 2:.0f}" font-size="11" fill="currentColor" '
               f'transform="rotate(-90 12 {top + ph / 2:.0f})" text-anchor="middle">{_e(unit)}</text>')
    seen_dates: list[dt.date] = []
    for p in points:
        if p.date not in seen_dates:
            seen_dates.append(p.date)
    for d in seen_dates:
        out.append(f'<text x="{x(d):.1f}" y="{top + ph + 16}" font-size="11" text-anchor="middle" '
                   f'fill="currentColor">{d.isoformat()}</text>')
    for value, name, colour in ((baseline, "baseline", "#546e7a"), (target, "target", "#2e7d32")):
        if value is None:
            continue
        yy = y(value)
        out.append(f'<line class="kb-{name}" x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" '
                   f'stroke="{colour}" stroke-dasharray="6 4" stroke-width="1.5"/>')
        out.append(f'<text x="{left + pw - 4}" y="{yy - 4:.1f}" font-size="11" text-anchor="end" '
                   f'fill="{colour}">{name} {value:g}</text>')
    best: float | None = None
    step = []
    for p in sorted((p for p in points if p.value is not None), key=lambda p: p.date):
        assert p.value is not None
        if best is None or (p.value > best if higher_is_better else p.value < best):
            best = p.value
        step.append((x(p.date), y(best)))
    if len(step) > 1:
        path = " ".join(f"{'M' if i == 0 else 'L'}{a:.1f},{b:.1f}" for i, (a, b) in enumerate(step))
        out.append(f'<path class="kb-best" d="{path}" fill="none" stroke="#2e7d32" stroke-opacity="0.35" stroke-width="2"/>')
    per_date: dict[dt.date, int] = {}
    for p in points:
        i = per_date.get(p.date, 0)
        per_date[p.date] = i + 1
        colour = _OUTCOME_COLOURS.get(p.outcome, "#000")
        cx = x(p.date) + (i % 5 - 2) * 7 * (1 if p.value is None else 0.4)
        label = f"{p.label}: {p.value:g} {unit} ({p.outcome})" if p.value is not None else f"{p.label}: {p.outcome}, no figure"
        out.append(f'<a href="{_e(p.href)}"><g class="kb-point kb-{_e(p.outcome)}">')
        out.append(f"<title>{_e(label)}</title>")
        if p.value is None:
            cy = top + ph - 8
            out.append(f'<path d="M{cx - 5:.1f},{cy - 5:.1f} l10,10 m0,-10 l-10,10" stroke="{colour}" stroke-width="2.5"/>')
        else:
            out.append(f'<circle cx="{cx:.1f}" cy="{y(p.value):.1f}" r="5.5" fill="{colour}" stroke="#fff" stroke-width="1"/>')
        out.append("</g></a>")
    lx = left
    for name, colour in _OUTCOME_COLOURS.items():
        if any(p.outcome == name for p in points):
            out.append(f'<circle cx="{lx + 5}" cy="{height - 10}" r="4.5" fill="{colour}"/>'
                       f'<text x="{lx + 13}" y="{height - 6}" font-size="11" fill="currentColor">{name}</text>')
            lx += 22 + 7 * len(name)
    out.append("</svg>")
    return "".join(out)


@dataclass
class DiagramNode:
    """A box in a cause diagram: ``kind`` is ``attempt``, ``blocker`` or ``root``."""

    id: str
    label: str
    kind: str
    href: str


_NODE_STYLE = {
    "attempt": ("#eceff1", "#546e7a"),
    "blocker": ("#fff3e0", "#ef6c00"),
    "root": ("#ffebee", "#c62828"),
    "focus": ("#e3f2fd", "#1565c0"),
}


def cause_diagram(nodes: list[DiagramNode], edges: list[tuple[str, str]], *, focus: str | None = None,
                  title: str = "Causes") -> str:
    """A left-to-right layered SVG diagram: attempts → blockers → root causes.

    ``edges`` are ``(from_id, to_id)`` pairs (``blocked_by`` and ``caused_by``). Layers are the
    longest path from a source; nodes in a layer are ordered by the mean position of their
    predecessors (one barycentre pass). Returns an ``<svg>`` string.
    """
    ids = [n.id for n in nodes]
    by_id = {n.id: n for n in nodes}
    preds: dict[str, list[str]] = {i: [] for i in ids}
    for a, b in edges:
        if a in by_id and b in by_id:
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
    pos: dict[str, int] = {}
    for k in sorted(layers):
        col = layers[k]
        if k > 0:
            col.sort(key=lambda n: (sum(pos.get(p, 0) for p in preds[n]) / max(len(preds[n]), 1), n))
        for j, n in enumerate(col):
            pos[n] = j
    box_w, box_h, gap_x, gap_y = 230, 46, 70, 18
    ncols = max(layers) + 1 if layers else 1
    nrows = max((len(c) for c in layers.values()), default=1)
    width = ncols * box_w + (ncols - 1) * gap_x + 20
    height = nrows * (box_h + gap_y) + 20

    def xy(n: str) -> tuple[float, float]:
        col = layers[layer[n]]
        offset = (nrows - len(col)) * (box_h + gap_y) / 2
        return 10 + layer[n] * (box_w + gap_x), 10 + offset + pos[n] * (box_h + gap_y)

    out = [f'<svg class="kb-diagram" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="100%" style="max-width:{width}px" role="img" aria-label="{_e(title)}">',
           f"<title>{_e(title)}</title>",
           '<defs><marker id="kb-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#78909c"/></marker></defs>']
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
        lines = _wrap(node.label, 32, 2)
        out.append(f'<a href="{_e(node.href)}"><g class="kb-node kb-{_e(node.kind)}">')
        out.append(f"<title>{_e(node.label)}</title>")
        out.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{box_w}" height="{box_h}" rx="6" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{2.5 if n == focus else 1.5}"/>')
        for k, line in enumerate(lines):
            ty = y0 + box_h / 2 + (k - (len(lines) - 1) / 2) * 14 + 4
            out.append(f'<text x="{x0 + box_w / 2:.1f}" y="{ty:.1f}" font-size="12" text-anchor="middle" '
                       f'fill="#212121">{_e(line)}</text>')
        out.append("</g></a>")
    out.append("</svg>")
    return "".join(out)


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
