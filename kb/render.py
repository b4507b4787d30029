"""The text renderers: what ``kb roots``, ``kb why``, ``kb unblocks`` and ``kb diff`` print, as
text built from the queries' results (:mod:`kb.queries`), so that the CLI only prints and a
library user (:mod:`kb.api`) can have the same text. Each function returns the text without its
last newline."""

from __future__ import annotations

from typing import Any


def roots_text(report: Any) -> str:
    """``kb roots``: each root cause of a :class:`kb.queries.RootsReport` ranked by the attempts it
    blocked, whether it stands now, its fix, any dispute; then one line for the catalog root causes
    no attempt met."""
    out: list[str] = []
    for i, r in enumerate(report.roots, 1):
        drafts = f", +{len(r.drafts)} draft{'s' if len(r.drafts) != 1 else ''}" if r.drafts else ""
        source = f", {r.source}" if r.source != "campaign" else ""
        out.append(f"{i}. {r.id}  ({len(r.attempts)} attempt{'s' if len(r.attempts) != 1 else ''}{drafts}; "
                   f"blocks {len(r.current)} now{source})")
        out.append(f"   {r.title}")
        for cid, state in sorted(r.now.items()):
            stack = report.current_stack if report.campaign == cid else None
            out.append(f"   now: {state.replace('_', ' ')} on {cid}'s current stack" + (f" ({stack})" if stack else ""))
        out.append(f"   fix: {r.fix}")
        theirs = [f for f in r.fixes if f["blocker"] != r.id and f["blocker"] not in r.also_recorded_as]
        if theirs:
            out.append("   fixes of the blockers met: " + "; ".join(
                f"{f['blocker']}: {', '.join(f'{k}{v}' for k, v in f['requires'].items())}"
                + (" (only disables it)" if f["kind"] == "disables" else "") for f in theirs))
        if r.also_recorded_as:
            said = {f["blocker"]: f for f in r.fixes}
            out.append("   also recorded as: " + ", ".join(
                f"{x} (the records: fixed by {', '.join(f'{k}{v}' for k, v in said[x]['requires'].items())})" if x in said else x
                for x in r.also_recorded_as))
        for d in r.disputes:
            says = f"says {d['claim']}" if d["claim"].startswith("fixed_by") else f"still {d['claim']}"
            out.append(f"   disputed: {d['source']}'s \"{d['title']}\" ({d['record']}) {says}")
        if r.blockers:
            rest = len(r.blockers) - len(r.met)
            if r.source == "campaign" or not rest:
                out.append(f"   causes: {', '.join(r.blockers)}")
            else:
                out.append(f"   causes met here: {', '.join(r.met) or 'none'}; {rest} more in {r.source}")
        if r.current:
            out.append(f"   blocks now: {', '.join(r.current)}")
        if r.attempts:
            shown = [f"{a} (by {r.linked_by[a]})" if a in r.linked_by else a for a in r.attempts]
            out.append(f"   attempts: {', '.join(shown)}")
        if r.drafts:
            out.append(f"   drafts (not reviewed): {', '.join(r.drafts)}")
    if report.not_met:
        n = len(report.not_met)
        out.append(f"{n} catalog root cause{'s' if n != 1 else ''} met no attempt here; 'kb roots --catalog' lists "
                   f"{'them' if n != 1 else 'it'}")
    return "\n".join(out)


def catalog_roots_text(ranked: list[Any]) -> str:
    """``kb roots --catalog``: the catalogs' root causes by the blockers each explains."""
    out: list[str] = []
    for i, r in enumerate(ranked, 1):
        out.append(f"{i}. {r.id}  (explains {len(r.explains)} blocker{'s' if len(r.explains) != 1 else ''}"
                   f" of catalog {r.catalog})")
        out.append(f"   {r.title}")
    return "\n".join(out)


HEADLINE_CHARS = 300
"""Longest error headline ``kb match`` prints (characters; a longer one is cut with ``…``)."""


def next_text(steps: list[Any]) -> str:
    """``kb next``: each step ranked, what to do, why, and what it was ranked on."""
    out: list[str] = []
    for i, st in enumerate(steps, 1):
        ranked = f"unblocks {st.rank['unblocks']}"
        head = st.rank.get("headroom")
        if head is not None:
            ranked += f"; headroom to target {head:g}" if head > 0 else "; target met"
        out.append(f"{i}. {st.title}  ({st.kind}; {ranked})")
        out.append(f"   {st.reason}")
    return "\n".join(out)


def match_text(res: Any) -> str:
    """``kb match``: the blockers an error text matches (linked or possible), each with its source,
    fix and the attempts that hit it before; then the attempts that printed the same headline."""
    out: list[str] = []
    if res.headline:
        head = res.headline if len(res.headline) <= HEADLINE_CHARS else res.headline[:HEADLINE_CHARS - 1] + "…"
        out.append(f"error: {head}")
    if not res.matches:
        out.append("no blocker of the campaign or its catalogs matches this error")
    for m in res.matches:
        how = ("matches" if m.specific else f"the catalog's record of {m.same_as}" if m.same_as
               else "possible match (a short or generic signature)")
        where = "" if m.source == "campaign" else f", {m.source}"
        out.append(f"{how}: {m.blocker}{where}: {m.title}")
        out.append(f"   signature: {', '.join(repr(s) for s in m.signatures)}")
        out.append(f"   fix: {m.fix}")
        if m.attempts:
            more = f" (+{len(m.attempts) - 5} more)" if len(m.attempts) > 5 else ""
            out.append(f"   hit before by: {', '.join(m.attempts[:5])}{more}")
    if res.same_error:
        more = f" (+{len(res.same_error) - 5} more)" if len(res.same_error) > 5 else ""
        out.append(f"same error printed by: {', '.join(res.same_error[:5])}{more}")
    return "\n".join(out)


def why_text(res: Any) -> str:
    """``kb why``: an attempt's chains of blockers to their root causes, fixes, credit, findings."""
    out: list[str] = []
    out.append(f"{res.attempt}: {res.title} ({res.outcome})")
    if res.error and res.error.strip():
        out.append(f"  error: {res.error.strip().splitlines()[-1]}")
    if not res.chains:
        out.append("  no blocker recorded for this attempt")
    for chain in res.chains:
        out.append("")
        for depth, link in enumerate(chain):
            tag = " [root cause]" if link.is_root else ""
            out.append(f"  {'  ' * depth}→ {link.id}{tag}: {link.title}")
            if link.fixed_by or link.is_root:
                out.append(f"  {'  ' * depth}  {link.fix}")
            if link.workaround and link.fixed_by:
                out.append(f"  {'  ' * depth}  workaround: {link.workaround}")
    if res.matches:
        out.append(f"\n  the error text also matches: {', '.join(res.matches)}")
    for d in res.disputes:
        out.append(f"  disputed: {d['root']} stands no more on the current stack, but {d['source']}'s "
                   f"\"{d['title']}\" ({d['record']}), which this attempt also reached, still {d['claim']}")
    if res.retries:
        out.append(f"\n  re-runs: {', '.join(res.retries)}")
    if res.credit_text:
        c = res.credit or {}
        out.append(f"\n  stack change since {c.get('before')}: {res.credit_text}")
    for f in res.findings:
        out.append(f"\n  warning: {f}")
    return "\n".join(out)


def _retry_line(a) -> str:
    line = f"  ↻ {a.id}: {a.title} (was {a.outcome}" + (f", {a.last_metric})" if a.last_metric else ")")
    if a.disputed:
        line += f" — the catalog disagrees: {', '.join(a.disputed)} still stands"
    by_why: dict[str, list[str]] = {}
    for bid, why in sorted(a.may_hit.items()):
        by_why.setdefault(why, []).append(bid)
    for why, ids in by_why.items():
        line += f" — may hit {', '.join(ids)} ({why})"
    return line


def unblocks_text(res: Any, show_all: bool = False) -> str:
    """``kb unblocks``: what a stack change resolves, disables, introduces, the retries; what still
    stands, folded unless ``show_all``."""
    out: list[str] = []
    what = " ".join(f"{k}={v}" for k, v in res.change.items()) or "(no component changes)"
    out.append(f"change: {what}" + (f" (from stack {res.from_stack})" if res.from_stack else ""))
    where = f"platform {res.platform} ({res.platform_title})" if res.platform else "no platform (platform rules not checked)"
    out.append(f"reasoned for {where}" + (f", campaign {res.campaign}" if res.campaign else "")
               + f", stack {res.from_stack or '(none)'}" + (f" → {res.to_stack}" if res.to_stack else ""))
    out.append(f"\nresolved ({len(res.resolved)}):")
    for r in res.resolved:
        out.append(f"  ✓ {r['id']}: {r['title']}  [{r['by']}]")
    if not res.resolved:
        out.append("  nothing")
    if res.disputed:
        out.append(f"\nresolved here, but the catalog disagrees ({len(res.disputed)}):")
        for disp in res.disputed:
            out.append(f"  ≠ {disp['own']} [{disp['by']}]: {_dispute_text(disp)}")
    if res.disabled:
        out.append(f"\nonly disabled, the feature still off ({len(res.disabled)}):")
        for r in res.disabled:
            need = f"; to enable it: {' and '.join(r['missing'])}" if r["missing"] else ""
            out.append(f"  ◐ {r['id']}: {r['title']}  [{r['by']}{need}]")
    if res.rebuild:
        out.append(f"\nfixable by a rebuild the change makes possible ({len(res.rebuild)}):")
        for r in res.rebuild:
            with_ = ", ".join(f"{k}{v}" for k, v in r["requires"].items())
            how = f"rebuild with {r['flag']}" if r.get("flag") else f"rebuild: {r.get('note') or 'see the blocker'}"
            out.append(f"  ⚒ {r['id']}: {r['title']}  [{how}, possible with {with_}]")
    out.append(f"\nintroduced ({len(res.introduced)}):")
    for r in res.introduced:
        fix = f"; needs {' and '.join(r['missing'])}" if r["missing"] else ""
        doubt = f" (may not be met: {r['doubt']})" if r.get("doubt") else ""
        out.append(f"  ⚠ {r['id']}: {r['title']}  [{r['reason']}{fix}]{doubt}")
    if not res.introduced:
        out.append("  nothing")
    out.append(f"\nworth retrying ({len(res.retry)}):")
    for a in res.retry:
        out.append(_retry_line(a))
    if not res.retry:
        out.append("  nothing")
    if res.retry_would_hit:
        out.append(f"\nretries that would hit an introduced blocker, its conditions confirmed on the stack ({len(res.retry_would_hit)}):")
        for a in res.retry_would_hit:
            out.append(_retry_line(a) + f" — would hit {', '.join(a.would_hit)}")
    if res.retried:
        out.append(f"\nalready retried ({len(res.retried)}):")
        for d in res.retried:
            out.append(f"  ✔ {d.of}: retried {d.date} on {d.stack or 'its stack'} as {d.id}: {d.outcome}"
                       + (f", {d.last_metric}" if d.last_metric else ""))
    n_still = len(res.still_blocked)
    others = (f"; {len(res.other_still_blocked)} more that no attempt of the campaign met"
              if res.other_still_blocked else "")
    if show_all:
        out.append(f"\nstill blocked ({n_still}{others}):")
        for s in res.still_blocked + res.other_still_blocked:
            need = " and ".join(s.missing)
            line = f"  ✗ {s.id}: " + (f"needs {need}" if need != "no known fix" else "no known fix")
            if s.workaround and need == "no known fix":
                line += f" (workaround: {s.workaround})"
            if s.advice:
                line += f" [{'; '.join(s.advice)}]"
            out.append(line)
    else:
        ids = f": {', '.join(s.id for s in res.still_blocked)}" if res.still_blocked else ""
        out.append(f"\nstill blocked ({n_still}{others}; --all lists them with what each needs){ids}")
    for n in res.notes:
        out.append(f"\nnote: {n}")
    return "\n".join(out)


def _dispute_text(d: dict) -> str:
    from kb.queries.counterparts import Dispute

    return Dispute(**d).sentence()


def diff_text(d: Any, show_all: bool = False) -> str:
    """``kb diff``: what differs between two attempts (``show_all``: the sections that do not too)."""
    out: list[str] = []
    out.append(f"A  {d.a}  {d.date_a}  {d.title_a}")
    out.append(f"B  {d.b}  {d.date_b}  {d.title_b}")
    out.append("")
    if d.outcome[0] != d.outcome[1]:
        out.append(f"outcome: {d.outcome[0]} → {d.outcome[1]}")
    else:
        out.append(f"outcome: {d.outcome[0]} (both)")
    if d.metrics:
        out.append("metrics:")
        for m in d.metrics:
            change = ""
            if m.delta is not None:
                change = f"  Δ {m.delta:+g}" + (f" ({m.pct:+.1f} %)" if m.pct is not None else "")
                if m.better is not None:
                    change += "  better" if m.better else "  worse"
            mark = "*" if m.headline else " "
            out.append(f" {mark} {m.name}: {_fmt(m.a)} → {_fmt(m.b)} {m.unit}{change}")
    if d.stack[0] != d.stack[1]:
        out.append(f"stack: {d.stack[0] or '—'} → {d.stack[1] or '—'}")
    for sec, changes in d.sections.items():
        same = f" ({d.same[sec]} the same)" if show_all else ""
        if not changes:
            if show_all:
                out.append(f"{sec}: no difference{same}")
            continue
        out.append(f"{sec}:{same}")
        for c in changes:
            if c.a is None:
                out.append(f"  + {c.key} {c.b}".rstrip())
            elif c.b is None:
                out.append(f"  - {c.key} {c.a}".rstrip())
            else:
                out.append(f"  ~ {c.key}: {c.a or '(set)'} → {c.b or '(set)'}" + (f"  ({c.direction})" if c.direction else ""))
    if d.command != (None, None):
        out.append(f"command:\n  A: {d.command[0] or '—'}\n  B: {d.command[1] or '—'}")
    bl = d.blockers
    if bl["only_a"] or bl["only_b"] or bl["both"]:
        out.append("blockers:")
        for x in bl["only_a"]:
            out.append(f"  - {x} (only A)")
        for x in bl["only_b"]:
            out.append(f"  + {x} (only B)")
        for x in bl["both"]:
            out.append(f"  = {x} (both)")
    return "\n".join(out)


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"
