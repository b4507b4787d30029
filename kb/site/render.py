"""Render the knowledge graph into Markdown pages (``find → build context → render``).

:func:`render_site` returns every page as ``{src_uri: markdown}``; the MkDocs plugin adds them as
generated files. Page context is computed here in Python; the Jinja templates under
``templates/`` only lay it out. Every ``{{ value }}`` is escaped by :func:`kb.site.text.inline`
unless it is :class:`~markupsafe.Markup` built by this module.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import jinja2
from markupsafe import Markup

from kb.graph import KnowledgeGraph
from kb.models import (
    METRIC_NAMES,
    Attempt,
    Blocker,
    Campaign,
    Decision,
    Metric,
    Outcome,
    Platform,
    Record,
    Stack,
)
from kb.queries import error_headline, resolve_blockers, roots, unblocks, why
from kb.site.charts import ChartPoint, DiagramNode, cause_diagram, metric_chart
from kb.site.text import code_block, inline, join, markdown_block, mono

OUTCOME_ICONS = {
    "baseline": "◆",
    "improved": "▲",
    "regressed": "▼",
    "neutral": "●",
    "failed": "✖",
    "inconclusive": "?",
}

NAV = [
    ("Home", "index.md"),
    ("Campaigns", "campaigns/index.md"),
    ("Attempts", "attempts/index.md"),
    ("Root causes", "blockers/index.md"),
    ("Decisions", "decisions/index.md"),
    ("Upgrade paths", "upgrades.md"),
    ("Stacks", "stacks/index.md"),
    ("Platforms", "platforms/index.md"),
    ("Tags", "tags.md"),
]
"""The site navigation: sections and index pages only, never one entry per record (a nav with
every record makes each page carry the whole list and the build quadratic)."""


def page_of(record: Record) -> str:
    """Source path of a record's page: ``attempts/<id>.md`` etc."""
    return f"{record.folder}/{record.id}.md"


def _url_of(src: str, directory_urls: bool) -> str:
    if not directory_urls:
        return src[:-3] + ".html"
    if src == "index.md" or src.endswith("/index.md"):
        return src[: -len("index.md")]
    return src[:-3] + "/"


@dataclass
class _Ctx:
    kg: KnowledgeGraph
    directory_urls: bool = True

    def link(self, src_from: str, record: Record | None, rid: str = "") -> Markup:
        """A Markdown link from page ``src_from`` to ``record``'s page, titled with its title."""
        if record is None:
            return inline(rid)
        target = posixpath.relpath(page_of(record), posixpath.dirname(src_from) or ".")
        return Markup(f"[{inline(record.title)}]({target})")

    def href(self, src_from: str, src_to: str) -> str:
        """A final URL (for raw HTML such as SVG) from ``src_from``'s page to ``src_to``'s."""
        a = _url_of(src_from, self.directory_urls)
        b = _url_of(src_to, self.directory_urls)
        base = (a if self.directory_urls else posixpath.dirname(a)).rstrip("/") or "."
        rel = posixpath.relpath(b.rstrip("/") or ".", base)
        return rel + "/" if (b == "" or b.endswith("/")) else rel

    @cached_property
    def adr_numbers(self) -> dict[str, int]:
        ds = sorted(self.kg.of_kind(Decision), key=lambda d: (d.date, d.id))
        return {d.id: i + 1 for i, d in enumerate(ds)}

    @cached_property
    def roots(self):
        return roots(self.kg)


def _env() -> jinja2.Environment:
    def finalize(value: Any) -> Any:
        if value is None:
            return ""
        return value if isinstance(value, Markup) else inline(value)

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kb.site", "templates"),
        autoescape=False,
        finalize=finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["md"] = markdown_block
    env.filters["code"] = code_block
    env.filters["mono"] = mono
    env.filters["join"] = join
    return env


_ENV = _env()


def _render(template: str, **context: Any) -> str:
    return tidy_markdown(_ENV.get_template(template).render(**context))


def tidy_markdown(text: str) -> str:
    """Blank lines where Markdown needs them (before headings, tables and admonitions, after
    lists) and never more than one in a row; fenced code is left untouched."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence is not None:
            out.append(line)
            if stripped.startswith(fence) and stripped.strip("`") == "":
                fence = None
            continue
        if stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        prev = out[-1] if out else ""
        starts_block = (line.startswith(("#", "!!!", "<div", "```"))
                        or (line.startswith("|") and not prev.startswith("|"))
                        or (prev.startswith(("- ", "|")) and line and not line.startswith((prev[0], " "))))
        if starts_block and prev.strip():
            out.append("")
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line.rstrip())
    return "\n".join(out).strip("\n") + "\n"


def metric_name(name: str) -> str:
    """Display name of a metric (``output_throughput`` → ``Output throughput``)."""
    return METRIC_NAMES.get(name, name.replace("_", " "))


def headline(kg: KnowledgeGraph, a: Attempt) -> Metric | None:
    """The attempt's figure for its campaign's headline metric, if it has one."""
    camp = kg.get(a.campaign)
    if isinstance(camp, Campaign):
        return a.metrics.get(camp.metric.name)
    return None


def _delta(value: float, ref: float, higher: bool) -> str:
    if ref == 0:
        return ""
    pct = (value - ref) / ref * 100
    return f"{pct:+.1f} %"


# --------------------------------------------------------------------------- pages


def _outcome_cell(outcome: Outcome | str) -> Markup:
    name = outcome.value if isinstance(outcome, Outcome) else outcome
    return Markup(f'{OUTCOME_ICONS.get(name, "")} {inline(name)}')


def _attempt_row(c: _Ctx, src: str, a: Attempt) -> dict[str, Any]:
    m = headline(c.kg, a)
    return {
        "date": a.date.isoformat(),
        "link": c.link(src, a),
        "outcome": _outcome_cell(a.outcome),
        "metric": m.display() if m else "—",
        "blocked_by": Markup(", ".join(c.link(src, c.kg.get(b), b) for b in a.blocked_by)) or "—",
        "draft": a.status == "draft",
    }


def _with_drafts(reviewed: int, drafts: int) -> str:
    """``"3"``, or ``"3 (+6 drafts)"`` when unreviewed drafts are blocked too."""
    return f"{reviewed} (+{drafts} draft{'s' if drafts != 1 else ''})" if drafts else str(reviewed)


def _campaign_dashboard(c: _Ctx, src: str, camp: Campaign) -> dict[str, Any]:
    kg = c.kg
    attempts = kg.attempts_of(camp.id)
    points = []
    for a in attempts:
        m = a.metrics.get(camp.metric.name)
        if m is None and a.outcome != Outcome.failed:
            continue
        points.append(ChartPoint(a.date, a.title, m.value if m else None, a.outcome.value,
                                 c.href(src, page_of(a))))
    base = camp.baseline.value if camp.baseline else None
    chart = metric_chart(points, metric=metric_name(camp.metric.name), unit=camp.metric.unit,
                         baseline=base, target=camp.target.value if camp.target else None,
                         higher_is_better=camp.metric.direction.value == "higher")
    counts = Counter(a.outcome.value for a in attempts)
    by_outcome = [{"outcome": _outcome_cell(o.value), "count": counts.get(o.value, 0)}
                  for o in Outcome if counts.get(o.value)]
    ids = {a.id for a in attempts}
    top_roots = []
    for r in c.roots:
        n = len([x for x in r.attempts if x in ids])
        nd = len([x for x in r.drafts if x in ids])
        if n or nd:
            top_roots.append({"link": c.link(src, kg.get(r.id)), "count": _with_drafts(n, nd)})
    decisions = sorted((d for d in kg.of_kind(Decision) if d.campaign in (camp.id, None)),
                       key=lambda d: (d.date, d.id), reverse=True)[:5]
    higher = camp.metric.direction.value == "higher"
    measured = [(a, a.metrics[camp.metric.name]) for a in attempts if camp.metric.name in a.metrics]
    best = (max if higher else min)(measured, key=lambda x: x[1].value) if measured else None
    table = [{**_attempt_row(c, src, a),
              "delta": _delta(a.metrics[camp.metric.name].value, base, higher)
              if camp.metric.name in a.metrics and base is not None else ""} for a in attempts]
    return {
        "camp": camp,
        "chart": Markup(f'<div class="kb-chart-box">\n{chart}\n</div>'),
        "by_outcome": by_outcome,
        "top_roots": top_roots[:5],
        "decisions": [{"link": c.link(src, d), "status": d.status, "date": d.date.isoformat(),
                       "number": f"ADR-{c.adr_numbers[d.id]:04d}"} for d in decisions],
        "best": {"link": c.link(src, best[0]), "value": best[1].display(),
                 "delta": _delta(best[1].value, base, higher) if base is not None else ""} if best else None,
        "attempts": table,
        "platform": c.link(src, kg.get(camp.platform), camp.platform),
        "stack": c.link(src, kg.get(camp.stack), camp.stack) if camp.stack else None,
        "metric": metric_name(camp.metric.name),
        "n_attempts": len(attempts),
    }


def render_home(c: _Ctx) -> str:
    """The home page: counts, then each campaign's dashboard."""
    src = "index.md"
    camps = c.kg.of_kind(Campaign)
    dashboards = [_campaign_dashboard(c, src, camp) for camp in camps]
    return _render("home.md.j2", dashboards=dashboards, campaigns=camps,
                   counts={k: len(c.kg.of_kind(m)) for k, m in
                           (("attempts", Attempt), ("blockers", Blocker), ("decisions", Decision))})


def render_campaign(c: _Ctx, camp: Campaign) -> str:
    """A campaign's page: its goal and dashboard (chart, outcomes, root causes, decisions, attempts)."""
    src = page_of(camp)
    return _render("campaign.md.j2", d=_campaign_dashboard(c, src, camp), sources=_sources(camp))


def _sources(r: Record) -> list[dict[str, Any]]:
    """The record's sources for display, in order, without repeats, each with the field it
    supports (``error``, ``stack.cuda``) when the importer said so."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for s in r.source:
        key = (s.file, s.url, s.locator, s.quote, s.field)
        if key in seen:
            continue
        seen.add(key)
        out.append({"file": s.file, "url": s.url, "locator": s.locator, "quote": s.quote, "format": s.format,
                    "sha256": s.sha256[:12] if s.sha256 else None, "field": s.field})
    return out


def _components_table(c: _Ctx, comps: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": k, "version": v.version or "—", "source": v.source or ""} for k, v in sorted(comps.items())]


def render_attempt(c: _Ctx, a: Attempt) -> str:
    """An attempt's page: the one-screen summary, setup, measurements, error, evidence and sources."""
    kg = c.kg
    src = page_of(a)
    camp = kg.get(a.campaign)
    m = headline(kg, a)
    base = kg.get(a.baseline) if a.baseline else None
    base_m = headline(kg, base) if isinstance(base, Attempt) else None
    higher = not isinstance(camp, Campaign) or camp.metric.direction.value == "higher"
    w = why(kg, a.id)
    chains = [[{"link": c.link(src, kg.get(l.id)), "root": l.is_root,
                "fix": " or ".join(", ".join(f"{k}{v}" for k, v in alt.items()) for alt in l.fixed_by),
                "workaround": l.workaround} for l in chain] for chain in w.chains]
    fixes = []
    for bid in sorted(kg.causes_closure(a.blocked_by)):
        b = kg.get(bid)
        if isinstance(b, Blocker) and (b.fixed_by or b.workaround):
            fixes.append({"link": c.link(src, b),
                          "fix": " or ".join(", ".join(f"{k}{v}" for k, v in alt.items()) for alt in b.fixed_by),
                          "workaround": b.workaround})
    stack = kg.get(a.stack) if a.stack else None
    return _render(
        "attempt.md.j2", a=a, src=src, summary=_attempt_summary(a, m),
        campaign=c.link(src, camp, a.campaign),
        platform=c.link(src, kg.get(a.platform), a.platform) if a.platform else None,
        stack=c.link(src, stack, a.stack or "") if a.stack else None,
        stack_summary=", ".join(f"{k} {v.version}" for k, v in sorted(kg.attempt_components(a).items())
                                if v.version and k in ("cuda", "torch", "flashinfer", "driver")),
        overrides=_components_table(c, a.components),
        outcome=_outcome_cell(a.outcome),
        metric=m.display() if m else None,
        metric_name=metric_name(camp.metric.name) if isinstance(camp, Campaign) else "",
        vs=({"link": c.link(src, base), "value": base_m.display(), "delta": _delta(m.value, base_m.value, higher)}
            if m and base_m and isinstance(base, Attempt) else None),
        baseline=c.link(src, base) if isinstance(base, Attempt) else None,
        metrics=[{"name": metric_name(k), "value": v.display(), "note": v.note} for k, v in a.metrics.items()],
        blocked_by=[c.link(src, kg.get(b), b) for b in a.blocked_by],
        chains=chains, fixes=fixes,
        matches=[c.link(src, kg.get(b), b) for b in w.matches],
        cited_by=[{"link": c.link(src, d), "status": d.status} for d in kg.of_kind(Decision)
                  if a.id in d.evidence],
        command=_command_line(a),
        sources=_sources(a),
    )


ADMONITIONS = {
    "baseline": "info",
    "improved": "success",
    "regressed": "warning",
    "neutral": "note",
    "failed": "failure",
    "inconclusive": "question",
}
"""The Material admonition type that frames an attempt's summary, by outcome."""


def _attempt_summary(a: Attempt, m: Metric | None) -> dict[str, Any]:
    """The one-screen answer at the top of an attempt page: admonition type and title, the
    first line of the error, and whether the full error needs its own section."""
    outcome = a.outcome.value
    title = outcome.capitalize() + (f": {m.display()}" if m else "")
    lines = (a.error or "").strip().splitlines()
    first = error_headline(a.error or "")
    return {
        "kind": ADMONITIONS.get(outcome, "note"),
        "title": title,
        "error": (first[:157] + "…") if len(first) > 160 else first,
        "error_in_full": len(lines) > 1 or len(first) > 160,
        "why_label": "Why it failed" if a.outcome == Outcome.failed else "Held back by",
    }


def _command_line(a: Attempt) -> str:
    """The attempt's configuration as shell text: env vars, then the command or flags; a line
    longer than 80 characters is continued with backslashes, one flag per line."""
    parts = [f"{k}={v}" for k, v in a.config.env.items()]
    if a.config.command:
        parts.append(a.config.command)
    elif a.config.flags:
        parts.append("… " + a.config.flags[0])
        parts.extend(a.config.flags[1:])
    line = " ".join(parts)
    if len(line) <= 80 or a.config.command:
        return line
    return " \\\n    ".join(parts)


def _diagram_for(c: _Ctx, src: str, blocker_ids: set[str], attempt_ids: set[str], focus: str | None,
                 title: str) -> Markup:
    kg = c.kg
    nodes, edges = [], []
    for aid in sorted(attempt_ids):
        a = kg.get(aid)
        assert isinstance(a, Attempt)
        nodes.append(DiagramNode(aid, a.title, "attempt", c.href(src, page_of(a))))
        edges.extend((aid, b) for b in a.blocked_by if b in blocker_ids)
    for bid in sorted(blocker_ids):
        b = kg.get(bid)
        assert isinstance(b, Blocker)
        nodes.append(DiagramNode(bid, b.title, "root" if b.is_root else "blocker", c.href(src, page_of(b))))
        edges.extend((bid, p) for p in b.caused_by if p in blocker_ids)
    svg = cause_diagram(nodes, edges, focus=focus, title=title)
    return Markup(f'<div class="kb-diagram-box">\n{svg}\n</div>')


def render_blocker(c: _Ctx, b: Blocker) -> str:
    """A blocker's page: cause or root-cause status, the diagram around it, fix, applicability, signatures and the attempts it blocks."""
    kg = c.kg
    src = page_of(b)
    up = kg.causes_closure([b.id])
    down: set[str] = set()
    todo = [b.id]
    while todo:
        cur = todo.pop()
        for child in kg.into(cur, "caused_by"):
            if child not in down:
                down.add(child)
                todo.append(child)
    blockers = up | down
    attempts = {a for x in blockers & (down | {b.id}) for a in kg.into(x, "blocked_by")}
    direct = kg.into(b.id, "blocked_by")
    via = sorted(attempts - set(direct))
    return _render(
        "blocker.md.j2", b=b,
        diagram=_diagram_for(c, src, blockers, attempts, b.id, f"Causes around {b.title}"),
        caused_by=[c.link(src, kg.get(p), p) for p in b.caused_by],
        causes=[c.link(src, kg.get(x), x) for x in kg.into(b.id, "caused_by")],
        fixed_by=[", ".join(f"{k}{v}" for k, v in alt.items()) for alt in b.fixed_by],
        applies=b.applies_when,
        direct=[_attempt_row(c, src, kg.get(x)) for x in direct],
        via=[_attempt_row(c, src, kg.get(x)) for x in via],
        resolved_by=[c.link(src, d) for d in kg.of_kind(Decision) if b.id in d.resolves],
        upstream=[{"text": u, "url": u if u.startswith("http") else
                   "https://github.com/{0}/issues/{1}".format(*u.split("#"))} for u in b.upstream],
        sources=_sources(b),
    )


def render_blockers_index(c: _Ctx) -> str:
    """The root-causes page: roots ranked by attempts blocked, the whole cause diagram, the other blockers."""
    kg = c.kg
    src = "blockers/index.md"
    all_blockers = {b.id for b in kg.of_kind(Blocker)}
    attempts = {a.id for a in kg.of_kind(Attempt) if a.blocked_by}
    ranked = [{"rank": i + 1, "link": c.link(src, kg.get(r.id)), "attempts": _with_drafts(len(r.attempts), len(r.drafts)),
               "blockers": len(r.blockers),
               "fix": " or ".join(", ".join(f"{k}{v}" for k, v in alt.items()) for alt in r.fixed_by) or "no known fix"}
              for i, r in enumerate(c.roots)]
    others = [{"link": c.link(src, b), "causes": Markup(", ".join(c.link(src, kg.get(p), p) for p in b.caused_by)),
               "n": len(kg.into(b.id, "blocked_by"))} for b in kg.of_kind(Blocker) if not b.is_root]
    return _render("blockers_index.md.j2", ranked=ranked, others=others,
                   diagram=_diagram_for(c, src, all_blockers, attempts, None, "Attempts, blockers and root causes"))


def render_decision(c: _Ctx, d: Decision) -> str:
    """An ADR page in MADR's sections, with each option's evidence table and the stack change."""
    kg = c.kg
    src = page_of(d)
    options = []
    for o in d.considered_options:
        ev = []
        for aid in o.evidence:
            a = kg.get(aid)
            if isinstance(a, Attempt):
                m = headline(kg, a)
                ev.append({"link": c.link(src, a), "outcome": _outcome_cell(a.outcome),
                           "metric": m.display() if m else "—", "date": a.date.isoformat()})
        options.append({"o": o, "chosen": o.title == d.outcome.chosen, "evidence": ev})
    change = []
    if d.stack_change:
        before = kg.stack_components(d.stack_change.from_) if d.stack_change.from_ else {}
        after = kg.stack_components(d.stack_change.to) if d.stack_change.to else dict(before)
        after = {**after, **d.stack_change.components}
        for k in sorted(set(before) | set(after)):
            v0 = before.get(k)
            v1 = after.get(k)
            if v0 != v1:
                change.append({"name": k, "from": (v0.version or v0.source) if v0 else "—",
                               "to": (v1.version or v1.source) if v1 else "—"})
    return _render(
        "decision.md.j2", d=d, number=f"ADR-{c.adr_numbers[d.id]:04d}", options=options,
        campaign=c.link(src, kg.get(d.campaign), d.campaign) if d.campaign else None,
        resolves=[c.link(src, kg.get(b), b) for b in d.resolves],
        supersedes=[c.link(src, kg.get(x), x) for x in d.supersedes],
        superseded_by=[c.link(src, x) for x in kg.of_kind(Decision) if d.id in x.supersedes],
        stack_from=c.link(src, kg.get(d.stack_change.from_), "") if d.stack_change and d.stack_change.from_ else None,
        stack_to=c.link(src, kg.get(d.stack_change.to), "") if d.stack_change and d.stack_change.to else None,
        change=change, sources=_sources(d),
    )


def render_decisions_index(c: _Ctx) -> str:
    """The decision log: every ADR with its display number, status, date and chosen option."""
    src = "decisions/index.md"
    ds = sorted(c.kg.of_kind(Decision), key=lambda d: (d.date, d.id), reverse=True)
    rows = [{"number": f"ADR-{c.adr_numbers[d.id]:04d}", "link": c.link(src, d), "status": d.status,
             "date": d.date.isoformat(), "chosen": d.outcome.chosen} for d in ds]
    return _render("decisions_index.md.j2", rows=rows)


def render_stack(c: _Ctx, s: Stack) -> str:
    """A stack's page: components with the base chain applied, derived stacks, attempts on it."""
    kg = c.kg
    src = page_of(s)
    comps = kg.stack_components(s.id)
    return _render("stack.md.j2", s=s, base=c.link(src, kg.get(s.base), s.base) if s.base else None,
                   components=_components_table(c, comps),
                   attempts=[_attempt_row(c, src, a) for a in kg.of_kind(Attempt) if a.stack == s.id],
                   derived=[c.link(src, x) for x in kg.of_kind(Stack) if x.base == s.id],
                   sources=_sources(s))


def render_platform(c: _Ctx, p: Platform) -> str:
    """A platform's page: GPUs, compute capability, interconnect, the campaigns on it."""
    src = page_of(p)
    return _render("platform.md.j2", p=p,
                   campaigns=[c.link(src, x) for x in c.kg.of_kind(Campaign) if x.platform == p.id],
                   attempts=len([a for a in c.kg.of_kind(Attempt) if a.platform == p.id]),
                   sources=_sources(p))


def render_index(c: _Ctx, kind: type[Record], title: str, intro: str) -> str:
    """The index page of one record kind (attempts as a table, the others as a list)."""
    src = f"{kind.folder}/index.md"
    records = c.kg.of_kind(kind)
    if kind is Attempt:
        rows = [_attempt_row(c, src, a) for a in sorted(records, key=lambda a: (a.date, a.id), reverse=True)]
        return _render("attempts_index.md.j2", rows=rows, title=title, intro=intro)
    rows = []
    for r in records:
        extra = ""
        if isinstance(r, Stack):
            comps = c.kg.stack_components(r.id)
            extra = ", ".join(f"{k} {v.version}" for k, v in sorted(comps.items())
                              if v.version and k in ("cuda", "torch", "flashinfer"))
        elif isinstance(r, Platform):
            extra = f"{r.gpu_count}× {r.gpu}, compute capability {r.compute_capability}, {r.interconnect or ''}"
        elif isinstance(r, Campaign):
            extra = f"{metric_name(r.metric.name)}: " + (
                f"baseline {r.baseline.display()}" if r.baseline else "no baseline yet") + (
                f", result {r.result.display()}" if r.result else "")
        rows.append({"link": c.link(src, r), "extra": extra})
    return _render("simple_index.md.j2", rows=rows, title=title, intro=intro)


def render_upgrades(c: _Ctx) -> str:
    """For each stack and each version named by some ``fixed_by``: what moving to it resolves."""
    kg = c.kg
    src = "upgrades.md"
    candidates: dict[str, set[str]] = {}
    for b in kg.of_kind(Blocker):
        for alt in b.fixed_by:
            for name, spec in alt.items():
                for s in str(spec).split(","):
                    s = s.strip()
                    for op in (">=", "==", "~="):
                        if s.startswith(op):
                            candidates.setdefault(name, set()).add(s[len(op):].strip())
    sections = []
    for s in kg.of_kind(Stack):
        comps = kg.stack_components(s.id)
        st = resolve_blockers(kg, comps)
        standing = [b for b, x in st.items() if x.state == "stands"]
        rows = []
        for name in sorted(candidates):
            for version in sorted(candidates[name]):
                cur = comps.get(name)
                if cur and cur.version and not _is_upgrade(cur.version, version):
                    continue
                res = unblocks(kg, {name: version}, from_stack=s.id)
                if not res.resolved and not standing:
                    continue
                rows.append({
                    "change": f"{name}={version}",
                    "current": (cur.version if cur and cur.version else "—"),
                    "resolved": Markup(", ".join(c.link(src, kg.get(r["id"])) for r in res.resolved)) or "—",
                    "retry": Markup(", ".join(c.link(src, kg.get(r.id)) for r in res.retry)) or "—",
                    "still": len(res.still_blocked),
                })
        sections.append({"stack": c.link(src, s), "standing": len(standing), "rows": rows})
    return _render("upgrades.md.j2", sections=sections)


def _is_upgrade(current: str, candidate: str) -> bool:
    """Whether ``candidate`` is a newer PEP 440 version than ``current`` (local tags ignored)."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(candidate) > Version(Version(current).public)
    except InvalidVersion:
        return True


def render_tags(c: _Ctx) -> str:
    """The tags page: every tag with the records carrying it."""
    src = "tags.md"
    tags: dict[str, list[Markup]] = {}
    for r in sorted(c.kg.records.records.values(), key=lambda r: (r.kind, r.id)):
        for t in r.tags:
            tags.setdefault(t, []).append(Markup(f"{c.link(src, r)} ({inline(r.kind)})"))
    return _render("tags.md.j2", tags=sorted(tags.items()))


def render_site(kg: KnowledgeGraph, *, directory_urls: bool = True) -> dict[str, str]:
    """Every generated page: ``{src_uri: markdown}`` (index pages, one page per record,
    the upgrade paths and tags pages)."""
    c = _Ctx(kg, directory_urls)
    pages: dict[str, str] = {
        "index.md": render_home(c),
        "attempts/index.md": render_index(c, Attempt, "Attempts", "Everything tried, newest first."),
        "campaigns/index.md": render_index(c, Campaign, "Campaigns", "Each campaign's goal and headline metric."),
        "stacks/index.md": render_index(c, Stack, "Stacks", "Software stacks, with inherited components resolved."),
        "platforms/index.md": render_index(c, Platform, "Platforms", "Hardware the attempts ran on."),
        "blockers/index.md": render_blockers_index(c),
        "decisions/index.md": render_decisions_index(c),
        "upgrades.md": render_upgrades(c),
        "tags.md": render_tags(c),
    }
    for a in kg.of_kind(Attempt):
        pages[page_of(a)] = render_attempt(c, a)
    for b in kg.of_kind(Blocker):
        pages[page_of(b)] = render_blocker(c, b)
    for d in kg.of_kind(Decision):
        pages[page_of(d)] = render_decision(c, d)
    for s in kg.of_kind(Stack):
        pages[page_of(s)] = render_stack(c, s)
    for p in kg.of_kind(Platform):
        pages[page_of(p)] = render_platform(c, p)
    for camp in kg.of_kind(Campaign):
        pages[page_of(camp)] = render_campaign(c, camp)
    return pages
