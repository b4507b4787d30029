"""Compare pages: one page per published attempt pair (:func:`kb.queries.compare.compare_pairs`), and
the compare picker page, which compares any two attempts in the browser from a JSON twin of every
attempt's facts (``compare/attempts.json``, built by :func:`compare_data`).

Why not a page for every pair: N attempts make N(N−1)/2 pairs (1,000 attempts, half a million
pages). Pages go to the pairs an engineer asks for first (against the baseline, before/after a
decision): at most one per attempt plus a few per decision. The closest earlier run is suggested
on each attempt's page through the picker, which covers every other pair without a page each.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from kb.models import Attempt, Campaign
from kb.queries.compare import AttemptDiff, Pair, attempt_facts, compare_pairs, diff_attempts
from kb.site.pages.context import ROWS, Ctx, metric_name, outcome_cell, render
from kb.site.pages.shared import page_of, pair_page

SECTION_TITLES = {"flags": ("Flags", "Flag"), "env": ("Environment", "Variable"),
                  "components": ("Stack components", "Component"), "platform": ("Platform", "Field")}

SAME_NOUNS = {"flags": "flags", "env": "environment variables", "components": "stack components",
              "platform": "platform fields"}


def pairs_by_attempt(pairs: list[Pair]) -> dict[str, list[Pair]]:
    """Each attempt id → the published pairs it is part of."""
    out: dict[str, list[Pair]] = {}
    for p in pairs:
        out.setdefault(p.a, []).append(p)
        out.setdefault(p.b, []).append(p)
    return out


def _num(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"


def _metric_rows(d: AttemptDiff) -> list[dict[str, Any]]:
    rows = []
    for m in d.metrics:
        sign = "" if m.better is None else (" ✔ better" if m.better else " ✘ worse")
        rows.append({"name": metric_name(m.name) + (" (headline)" if m.headline else ""), "unit": m.unit,
                     "a": _num(m.a), "b": _num(m.b),
                     "delta": f"{m.delta:+g}{sign}" if m.delta is not None else "—",
                     "pct": f"{m.pct:+.1f} %" if m.pct is not None else "—"})
    return rows


def render_compare(c: Ctx, pair: Pair) -> str:
    """The compare page of one pair: headline change, then only what differs, section by section."""
    kg = c.kg
    src = pair_page(pair.a, pair.b)
    d = diff_attempts(kg, pair.a, pair.b)
    a, b = kg.get(pair.a), kg.get(pair.b)
    assert isinstance(a, Attempt) and isinstance(b, Attempt)
    h = d.headline
    why = pair.why
    if why.startswith("decision "):
        why = Markup(f"before and after decision {c.link(src, kg.get(why.split(' ', 1)[1]))}")
    sections = []
    for sec, changes in d.sections.items():
        if not changes:
            continue
        title, key = SECTION_TITLES[sec]
        sections.append({"title": title, "key": key, "same": d.same[sec],
                         "rows": [{"key": ch.key, "a": "—" if ch.a is None else (ch.a or "(set)"),
                                   "b": "—" if ch.b is None else (ch.b or "(set)"),
                                   "direction": ch.direction} for ch in changes]})
    same = [f"{n} {SAME_NOUNS[s]}" for s, n in d.same.items() if n and not d.sections[s]]
    return render(
        "compare.md.j2", d=d, a=c.link(src, a), b=c.link(src, b), why=why,
        outcome_a=outcome_cell(d.outcome[0]), outcome_b=outcome_cell(d.outcome[1]),
        headline=({"name": metric_name(h.name), "a": _num(h.a), "b": _num(h.b), "unit": h.unit,
                   "delta": f"{h.delta:+g}" if h.delta is not None else None,
                   "pct": f"{h.pct:+.1f} %" if h.pct is not None else None, "better": h.better} if h else None),
        stack_a=c.link(src, kg.get(a.stack), a.stack) if a.stack else "—",
        stack_b=c.link(src, kg.get(b.stack), b.stack) if b.stack else "—",
        metrics=_metric_rows(d), sections=sections, same=same,
        blockers={k: [c.link(src, kg.get(x), x) for x in v] for k, v in d.blockers.items()},
        picker=Markup(f"[Compare other attempts]({c.md_target(src, 'compare/index.md')}?a={a.id}&amp;b={b.id})"),
    )


def render_compare_index(c: Ctx, pairs: list[Pair]) -> str:
    """The compare picker page (two attempt menus, compared in the browser) and the published pairs."""
    src = "compare/index.md"
    attempts = c.of_kind(Attempt)
    more = None
    if len(pairs) > ROWS and not c.small:  # the newest pairs here, all of them in a paginated list
        def newest(p: Pair) -> tuple[str, str]:
            b = c.kg.get(p.b)
            return (b.date.isoformat() if isinstance(b, Attempt) else "", p.b)

        pairs = sorted(pairs, key=newest, reverse=True)
        more = c.list_link(src, "compare", "Suggested comparisons", pairs,
                           f"All {len(pairs)} suggested comparisons, newest first", columns="pairs")
        pairs = pairs[:ROWS]
    rows = [{"a": c.link(src, c.kg.get(p.a)), "b": c.link(src, c.kg.get(p.b)),
             "page": Markup(f"[compare]({c.md_target(src, pair_page(p.a, p.b))})" if p.page
                           else f"[compare](?a={p.a}&amp;b={p.b})"),
             "why": p.why} for p in pairs]
    return render("compare_index.md.j2", rows=rows, n=len(attempts), more=more)


def compare_data(c: Ctx, pairs: list[Pair]) -> str:
    """``compare/attempts.json``: every attempt's facts for the picker, and the published pairs.

    Shape: ``{"attempts": {id: {"title", "date", "outcome", "url", "stack", "blocked_by",
    "metrics": {name: [value, unit]}, "headline": name, "higher": bool, "facts": {section:
    {key: text}}}}, "pairs": {"a--b": url}}`` (URLs relative to the picker page).
    """
    src = "compare/index.md"
    out: dict[str, Any] = {"attempts": {}, "pairs": {}, "names": {}}
    for a in c.kg.of_kind(Attempt):
        camp = c.kg.get(a.campaign)
        out["attempts"][a.id] = {
            "title": a.title, "date": a.date.isoformat(), "outcome": a.outcome.value,
            "url": c.href(src, page_of(a)), "stack": a.stack or "", "blocked_by": a.blocked_by,
            "metrics": {k: [m.value, m.unit] for k, m in a.metrics.items()},
            "headline": camp.metric.name if isinstance(camp, Campaign) else "",
            "higher": not isinstance(camp, Campaign) or camp.metric.direction.value == "higher",
            "facts": attempt_facts(c.kg, a),
        }
        for k in a.metrics:
            out["names"][k] = metric_name(k)
    for p in pairs:
        if p.page:
            out["pairs"][f"{p.a}--{p.b}"] = c.href(src, pair_page(p.a, p.b))
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


__all__ = ["compare_data", "compare_pairs", "pair_page", "pairs_by_attempt", "render_compare",
           "render_compare_index"]
