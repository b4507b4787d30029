"""Findings: what the records say that cannot all be true, or is not finished.

``kb check`` prints them as warnings (each a located line ``path:line: field: warning: ...``;
``--strict`` makes them errors); ``kb why`` and the site show them on the records concerned.

Kinds (issue 11, "Contradictions and status"):

* ``success-where-blocker-stands`` — an attempt recorded as improved (or as the baseline) on a
  stack and platform where a blocker of the same feature stands: a blocker whose ``flags`` it
  runs with, or one that blocked another attempt run with the flags that set that attempt apart;
* ``success-cites-blocker`` — an improved or baseline attempt that names a blocker in ``blocked_by``;
* ``credit-unchanged`` — a decision resolving a blocker through a stack change where no component
  of the blocker's fixes changed;
* ``resolves-still-standing`` — a decision resolving a blocker that still stands under the stack it moves to;
* ``not-accepted-resolves`` — ``resolves`` on a decision that is not accepted (it resolves nothing);
* ``placeholder`` — a field still holding kb's ``TODO`` placeholder (an accepted decision so, the more so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.errors import Problem
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Decision, Record
from kb.queries.credit import StatusCache
from kb.queries.resolution import attempt_flags, flag_names

SUCCESS = ("improved", "baseline")
"""Outcomes that claim the feature worked."""

PLACEHOLDER = "TODO"
"""The placeholder ``kb new`` writes into fields for a person to fill (kb.logbook.TODO)."""


@dataclass(frozen=True)
class Finding:
    """One finding: the ``record`` it is about, the ``field`` path inside it, its ``kind`` (see
    the module docstring) and the ``message`` (what is contradictory and what to check)."""

    record: str
    field: tuple[Any, ...]
    kind: str
    message: str

    def problem(self, kg: KnowledgeGraph) -> Problem:
        """This finding as a located :class:`Problem` (``path:line: field: warning: message``)."""
        p = kg.records.problem(self.record, self.field, self.message)
        return Problem(p.path, p.line, p.field, f"warning: {self.message}")


def _distinguishing(kg: KnowledgeGraph, a: Attempt) -> frozenset[str]:
    """The flags that set ``a`` apart from its baseline (all its flags without a baseline)."""
    mine = attempt_flags(a)
    base = kg.get(a.baseline) if a.baseline else None
    return mine - attempt_flags(base) if isinstance(base, Attempt) else mine


def _same_feature(kg: KnowledgeGraph, b: Blocker, a: Attempt, flags: frozenset[str]) -> str:
    """Why blocker ``b`` concerns the feature attempt ``a`` runs (``""`` when it does not)."""
    names = flag_names(flags)
    env = {f for f in flags if "=" in f and not f.startswith("-")}
    own = [f for f in b.flags if (f in env) or ("=" not in f and flag_names([f]) & names)]
    if own:
        return f"it runs with {', '.join(own)}, the flag{'s' if len(own) > 1 else ''} that turn{'' if len(own) > 1 else 's'} that feature on"
    for other_id in kg.into(b.id, "blocked_by"):
        other = kg.get(other_id)
        if not isinstance(other, Attempt) or other.id == a.id:
            continue
        dist = _distinguishing(kg, other)
        if dist and dist <= flags:
            return f"it blocked {other.id}, run with the same {', '.join(sorted(dist))}"
    return ""


def _catalog_note(kg: KnowledgeGraph, b: Blocker) -> str:
    """`` (catalog blackwell, source sgl-project/sglang#15650)`` for a catalog blocker, else ``""``."""
    name = kg.records.catalog_of.get(b.id)
    if not name:
        return ""
    src = next((u for u in b.upstream), None) or next((s.url or s.file for s in b.source), None)
    return f" (catalog {name}" + (f", source {src}" if src else "") + ")"


def _success_findings(kg: KnowledgeGraph, cache: StatusCache) -> list[Finding]:
    out = []
    for a in kg.of_kind(Attempt):
        if a.outcome.value not in SUCCESS:
            continue
        if a.blocked_by:
            out.append(Finding(a.id, ("blocked_by",), "success-cites-blocker",
                               f"outcome is {a.outcome.value}, yet blocked_by names {', '.join(a.blocked_by)}; "
                               "a blocked attempt did not succeed: fix the outcome or drop the blocker"))
        comps = kg.attempt_components(a)
        if not comps:
            continue
        statuses = cache.of(comps, a.campaign)
        flags = attempt_flags(a)
        for b in kg.of_kind(Blocker):
            st = statuses[b.id]
            if st.state not in ("stands", "disabled") or b.id in a.blocked_by:
                continue
            why = _same_feature(kg, b, a, flags)
            if not why:
                continue
            state = ("still stands" + (f" (needs {' and '.join(st.missing)})" if st.missing else " (no known fix)")
                     if st.state == "stands" else f"is only disabled ({st.by}: the feature is off)")
            where = f"stack {a.stack}" if a.stack else "its stack"
            out.append(Finding(a.id, ("outcome",), "success-where-blocker-stands",
                               f"outcome is {a.outcome.value} on {where}, where blocker {b.id}{_catalog_note(kg, b)} "
                               f"{state}; {why}: check the outcome, the stack or the blocker's applies_when/fixed_by"))
    return out


def _decision_findings(kg: KnowledgeGraph, cache: StatusCache) -> list[Finding]:
    from kb.queries.credit import stack_diff

    out = []
    for d in kg.of_kind(Decision):
        if d.resolves and d.status != "accepted":
            out.append(Finding(d.id, ("resolves",), "not-accepted-resolves",
                               f"status is {d.status}, so its resolves ({', '.join(d.resolves)}) resolve nothing; "
                               "only accepted decisions resolve blockers (pages show it as "
                               f"{'would resolve' if d.status == 'proposed' else d.status})"))
        sc = d.stack_change
        if d.status != "accepted" or sc is None or not (sc.from_ and (sc.to or sc.components)):
            continue
        before = kg.stack_components(sc.from_)
        after = {**(kg.stack_components(sc.to) if sc.to else before), **sc.components}
        changed = {c["component"] for c in stack_diff(before, after)}
        st1 = cache.of(after, d.campaign)
        for i, bid in enumerate(d.resolves):
            b = kg.get(bid)
            if not isinstance(b, Blocker):
                continue
            needs = {n for f in b.fixed_by if f.is_version_fix for n in f.requires}
            if needs and not needs & changed:
                out.append(Finding(d.id, ("resolves", i), "credit-unchanged",
                                   f"credits the stack change with fixing {bid}, whose fixes need "
                                   f"{', '.join(sorted(needs))}; none of them changed from {sc.from_} to "
                                   f"{sc.to or 'the changed stack'}"))
            elif st1[bid].state in ("stands", "disabled"):
                miss = " and ".join(st1[bid].missing) or "no known fix"
                out.append(Finding(d.id, ("resolves", i), "resolves-still-standing",
                                   f"resolves {bid}, which still {'stands' if st1[bid].state == 'stands' else 'is only disabled'} "
                                   f"under {sc.to or 'the changed stack'} ({miss})"))
    return out


def _placeholders(value: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    if isinstance(value, str):
        text = value.strip()
        return [path] if text == PLACEHOLDER or text.startswith((PLACEHOLDER + ":", PLACEHOLDER + " ")) else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _placeholders(v, path + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _placeholders(v, path + (i,))]
    return []


def _placeholder_findings(kg: KnowledgeGraph) -> list[Finding]:
    out = []
    for rec in sorted(kg.records.records.values(), key=lambda r: r.id):
        data = rec.model_dump(mode="json", by_alias=True, exclude_none=True)
        for path in _placeholders(data, ()):
            accepted = isinstance(rec, Decision) and rec.status == "accepted"
            what = f"an accepted decision with an unfilled '{PLACEHOLDER}'" if accepted else f"still holds kb's '{PLACEHOLDER}' placeholder"
            out.append(Finding(rec.id, path, "placeholder", f"{what}; fill it in (or remove the line if it is optional)"))
    return out


def findings(kg: KnowledgeGraph) -> list[Finding]:
    """Every finding over ``kg``, sorted by record, field and kind (see the module docstring).
    Computed once per graph (kept on it), since each page of the site asks for its own."""
    cached = kg.__dict__.get("_kb_findings")
    if cached is not None:
        return list(cached)
    cache = StatusCache(kg)
    out = _success_findings(kg, cache) + _decision_findings(kg, cache) + _placeholder_findings(kg)
    result = sorted(set(out), key=lambda f: (f.record, tuple(map(str, f.field)), f.kind, f.message))
    kg.__dict__["_kb_findings"] = result
    return list(result)


def findings_of(kg: KnowledgeGraph, record: Record | str) -> list[Finding]:
    """The findings about one record (for its page)."""
    rid = record if isinstance(record, str) else record.id
    return [f for f in findings(kg) if f.record == rid]
