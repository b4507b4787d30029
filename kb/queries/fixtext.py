"""How a blocker is fixed, in words: the one place that says it, used by ``kb roots``, ``kb why``,
``kb unblocks``, ``kb match``, ``kb log`` and the site. Its own fixes (:mod:`kb.queries.fixes`),
else through its causes; a fix an accepted decision credits while other components changed with
it carries that hedge (:func:`credit_hedge`), so that no answer states the hypothesis as fact.

>>> from kb.models import Blocker
>>> describe_fix(Blocker(id="b", title="t", fixed_by=[{"cuda": ">=13.0"}]))
'fixed by cuda>=13.0'
>>> describe_fix(Blocker(id="b", title="t", workaround="leave it off"))
'no known fix (workaround: leave it off)'
>>> describe_fix(Blocker(id="b", title="t", fixed_by=[{"kind": "hardware_gap", "advice": "switch backend to NCCL"}]))
'no upgrade fixes it: a hardware gap; switch backend to NCCL'
"""

from __future__ import annotations

from typing import Any

from kb.models import Blocker, Decision
from kb.queries.credit import decision_credit
from kb.queries.fixes import has_own_fix, own_fixes_text


def describe_fix(blocker: Blocker, kg: Any = None, _seen: tuple[str, ...] = ()) -> str:
    """How ``blocker`` is fixed, in words (the one function that says it; see the module doctest).

    Its own fixes first (``fixed by cuda>=13.0``, disabling fixes, workarounds, build options,
    hardware gaps), each with its kind and provenance. A blocker with no version fix of its own
    is fixed through its causes, followed through ``kg`` (a :class:`kb.graph.KnowledgeGraph`)
    when given: ``no fix of its own; its cause arch-table has no known fix (workaround: ...)``.
    Without any: ``no known fix`` (``no fix coming`` for a ``wontfix`` blocker) and the
    ``workaround`` text if there is one. With a graph, computed once per blocker of it.
    """
    if kg is not None and not _seen and hasattr(kg, "memo") and kg.get(blocker.id) is blocker:
        return kg.memo(("describe_fix", blocker.id), lambda: _describe(blocker, kg, ()))
    return _describe(blocker, kg, _seen)


def credit_hedge(kg: Any, blocker_id: str) -> str:
    """Why the recorded fix of ``blocker_id`` is a hypothesis, not a fact: ``"credited, not verified:
    flashinfer, sgl-kernel, sglang, torch changed with cuda in 2026-02-26-upgrade-to-cuda-13"`` when an
    accepted decision credits a stack change with fixing it while other components changed with the
    credited ones and no attempt changed only those (:func:`kb.queries.credit.decision_credit`:
    ``confounded`` and not ``verified``); ``""`` otherwise (no decision credits it, or the credit is
    verified). ``kg``: a :class:`kb.graph.KnowledgeGraph`; worked out once per graph."""
    def build() -> dict[str, str]:
        out: dict[str, str] = {}
        for d in kg.of_kind(Decision):
            if d.status != "accepted" or d.stack_change is None:
                continue
            c = decision_credit(kg, d)
            if c is None or not c.confounded or c.verified:
                continue
            for x in c.credited:
                others = [n for n in c.co_changed if n not in x["components"]]
                if others:
                    out.setdefault(x["blocker"], f"credited, not verified: {', '.join(others)} changed with "
                                                 f"{', '.join(x['components'])} in {d.id}")
        return out

    return kg.memo("fixes.credit_hedges", build).get(blocker_id, "")  # type: ignore[no-any-return]


def _describe(blocker: Blocker, kg: Any, _seen: tuple[str, ...]) -> str:
    own = own_fixes_text(blocker)
    hedge = credit_hedge(kg, blocker.id) if own and kg is not None and hasattr(kg, "memo") else ""
    if hedge:
        own = f"{own} ({hedge})"
    if has_own_fix(blocker) or not blocker.caused_by:
        if own:
            tail = f"; workaround: {blocker.workaround}" if blocker.workaround and not has_own_fix(blocker) else ""
            return own + tail
        none = "no fix coming (upstream will not fix it)" if blocker.status == "wontfix" else "no known fix"
        return none + (f" (workaround: {blocker.workaround})" if blocker.workaround else "")
    causes = []
    for cid in blocker.caused_by:
        rec = kg.get(cid) if kg is not None and cid not in _seen else None
        if isinstance(rec, Blocker):
            causes.append((cid, _cause_clause(rec, kg, _seen + (blocker.id,))))
        else:
            causes.append((cid, ""))
    head = "no fix of its own"
    if own:
        head += f" ({own})"
    if len(causes) == 1:
        cid, clause = causes[0]
        return f"{head}; its cause {cid}" + (f" {clause}" if clause else "")
    listed = "; ".join(f"{cid} {clause}".rstrip() for cid, clause in causes)
    return f"{head}; fixed when all its causes are: {listed}"


def _cause_clause(cause: Blocker, kg: Any, seen: tuple[str, ...]) -> str:
    text = describe_fix(cause, kg, seen)
    if text.startswith("fixed by "):
        return "is " + text
    if text.startswith("no known fix"):
        return "has " + text
    if text.startswith("no fix of its own"):
        return "has " + text
    return f"has: {text}"
