"""A campaign's own blockers and the catalog blockers that describe the same failure, and where the
two disagree (issue 12: "a campaign's claim ... checked against what upstream says").

A campaign writes down a blocker in its own words ("FlashInfer allreduce-fusion JIT finds no
supported architecture on SM120", resolved, it believes, by CUDA 13); a catalog (:mod:`kb.catalog`)
may hold the upstream record of the same failure, with what really fixes it ("needs FlashInfer
0.6.17 and nvcc 12.9"). :func:`counterparts` pairs them; :func:`disputes` names, for a set of
blockers the campaign's model calls resolved under a stack, the counterparts that still stand
there. ``kb unblocks`` shows them beside what it resolves, ``kb check`` warns on a decision whose
credit the catalog disputes.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Callable

from kb.graph import KnowledgeGraph
from kb.models import Blocker
from kb.queries.resolution import BlockerStatus, blocker_component, flag_names
from kb.queries.signatures import is_generic, literal_in


@dataclass(frozen=True)
class _Shape:
    """What :func:`same_failure` compares of one blocker, worked out once: its component, its
    flag names, its literal signatures (whitespace collapsed) and its regex signatures, generic
    ones left out."""

    component: str | None
    flags: frozenset[str]
    literals: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]


def _shape(b: Blocker) -> _Shape:
    literals, patterns = [], []
    for s in b.signatures:
        if is_generic(s):
            continue
        if len(s) > 2 and s.startswith("/") and s.endswith("/"):
            try:
                patterns.append(re.compile(s[1:-1]))
            except re.error:
                continue
        else:
            literals.append(" ".join(s.split()))
    return _Shape(blocker_component(b), frozenset(flag_names(b.flags)), tuple(literals), tuple(patterns))


def _same(x: _Shape, y: _Shape) -> str:
    for a, b in ((x, y), (y, x)):
        for t in b.literals:
            if any(s in t and literal_in(s, t) for s in a.literals) or any(p.search(t) for p in a.patterns):
                return "same error signature"
    if x.component and x.component == y.component:
        shared = sorted(x.flags & y.flags)
        if shared:
            return f"same feature ({', '.join(shared)})"
    return ""


def same_failure(own: Blocker, other: Blocker) -> str:
    """Why ``own`` and ``other`` describe the same failure, ``""`` when they do not:

    * ``"same error signature"``: a signature of one, not generic
      (:func:`kb.queries.signatures.is_generic`), matches a literal signature of the other
      (``KeyError: 12`` and ``KeyError: 12``);
    * ``"same feature (FLAG)"``: both live in the same component (:func:`blocker_component`)
      and are turned on by a flag of the same name (``--enable-torch-symm-mem``).

    >>> a = Blocker(id="a", title="a", component="sglang", flags=["--enable-torch-symm-mem"])
    >>> b = Blocker(id="b", title="b", component="sglang", flags=["--enable-torch-symm-mem 1"])
    >>> same_failure(a, b), same_failure(a, Blocker(id="c", title="c", component="vllm", flags=["--enable-torch-symm-mem"]))
    ('same feature (--enable-torch-symm-mem)', '')
    >>> same_failure(Blocker(id="d", title="d", signatures=["KeyError: 12"]),
    ...              Blocker(id="e", title="e", signatures=["/KeyError: 1[0-9]$/"]))
    'same error signature'
    """
    return _same(_shape(own), _shape(other))


def counterparts(kg: KnowledgeGraph) -> dict[str, dict[str, str]]:
    """Own blocker id → ``{catalog blocker id: why}`` (:func:`same_failure`) for every blocker of
    the campaign records that a catalog blocker describes too; ``{}`` without catalogs. Once per
    graph."""

    def build() -> dict[str, dict[str, str]]:
        catalog = kg.records.catalog_of
        if not catalog:
            return {}
        blockers = kg.of_kind(Blocker)
        theirs = {b.id: _shape(b) for b in blockers if b.id in catalog and (b.signatures or b.flags)}
        # indexes over the catalog's shapes, so that each own blocker is compared with what can match
        lits = [(t, cid) for cid, c in theirs.items() for t in c.literals]
        pats = [(p, cid) for cid, c in theirs.items() for p in c.patterns]
        feature: dict[tuple[str, str], list[str]] = {}
        for cid, c in theirs.items():
            for f in c.flags if c.component else ():
                feature.setdefault((c.component, f), []).append(cid)  # type: ignore[arg-type]
        out: dict[str, dict[str, str]] = {}
        for own in blockers:
            if own.id in catalog or not (own.signatures or own.flags):
                continue
            mine = _shape(own)
            hits = {cid for s in mine.literals for t, cid in lits
                    if (s in t and literal_in(s, t)) or (t in s and literal_in(t, s))}
            hits.update(cid for s in mine.literals for p, cid in pats if cid not in hits and p.search(s))
            hits.update(cid for p in mine.patterns for t, cid in lits if cid not in hits and p.search(t))
            found = dict.fromkeys(hits, "same error signature")
            if mine.component:
                for cid in sorted({cid for f in mine.flags for cid in feature.get((mine.component, f), ())} - hits):
                    found[cid] = f"same feature ({', '.join(sorted(mine.flags & theirs[cid].flags))})"
            if found:
                out[own.id] = dict(sorted(found.items()))
        return out

    return kg.memo("counterparts", build)


@dataclass
class Dispute:
    """A blocker of the campaign's own that its model calls resolved (``own``, ``by``: how), while
    a catalog blocker of the same failure (``catalog_id`` of catalog ``catalog``, ``why`` they are
    the same) still ``state`` ("stands" or "disabled": only a disabling fix holds) under the same
    stack, ``missing`` what it still needs, ``source`` its first upstream reference."""

    own: str
    by: str
    catalog_id: str
    catalog: str
    why: str
    state: str
    missing: list[str]
    source: str | None

    def to_dict(self) -> dict[str, Any]:
        """This dispute as plain data."""
        return asdict(self)

    def sentence(self, under: str = "") -> str:
        """``"catalog blackwell's X (same error signature) still stands: needs flashinfer>=0.6.17
        (source sgl-project/sglang#15650)"``; with ``under`` (a stack), "still stands under it"."""
        what = "still stands" if self.state == "stands" else "is only disabled (the feature stays off)"
        what += f" under {under}" if under else ""
        need = f": needs {' and '.join(self.missing)}" if self.missing else ""
        src = f" (source {self.source})" if self.source else ""
        return f"catalog {self.catalog}'s {self.catalog_id} ({self.why}) {what}{need}{src}"


def disputes(kg: KnowledgeGraph, resolved: dict[str, str], statuses: dict[str, BlockerStatus]) -> list[Dispute]:
    """The catalog blockers that disagree with ``resolved`` (own blocker id → how the campaign's
    model resolves it) under the stack whose ``statuses`` are given
    (:func:`kb.queries.resolution.resolve_blockers`): each counterpart (:func:`counterparts`)
    that stands or is only disabled there. Sorted by own id, then catalog id."""
    pairs = counterparts(kg)
    out = []
    for own in sorted(resolved):
        for cid, why in sorted(pairs.get(own, {}).items()):
            st = statuses.get(cid)
            if st is None or st.state not in ("stands", "disabled"):
                continue
            b = kg.get(cid)
            src = b.upstream[0] if isinstance(b, Blocker) and b.upstream else None
            out.append(Dispute(own, resolved[own], cid, kg.records.catalog_of.get(cid, ""), why, st.state,
                               list(st.missing), src))
    return out


def credit_disputes(kg: KnowledgeGraph, resolves: list[str], before_of: Callable[[], dict[str, BlockerStatus]],
                    after: dict[str, BlockerStatus], to: str) -> list[tuple[int, str]]:
    """What a catalog says against a decision's credit: for each blocker ``resolves[i]`` it
    credits a stack change with fixing, the campaign's own blockers that stood ``before`` and are
    resolved ``after`` (the statuses under the stack it moves from, asked of ``before_of`` only
    when a catalog describes one of the campaign's blockers, and to, named ``to``) through
    it (it, or a blocker caused by it, transitively) and whose catalog counterpart still stands
    after. Returns ``[(i, message)]``, one per :class:`Dispute`, in order of ``resolves``
    (``kb check``'s ``credit-disputed-by-catalog`` warning)."""
    pairs = counterparts(kg)
    if not pairs:
        return []
    before = before_of()
    out: list[tuple[int, str]] = []
    for i, bid in enumerate(resolves):
        reached, todo = set(), [bid]
        while todo:
            x = todo.pop()
            if x not in reached:
                reached.add(x)
                todo.extend(kg.into(x, "caused_by"))
        moved = {x: after[x].by for x in reached
                 if x in pairs and x in before and before[x].state in ("stands", "disabled")
                 and after[x].state in ("resolved", "not_applicable")}
        for d in disputes(kg, moved, after):
            through = "" if d.own == bid else f", and through it {d.own}"
            out.append((i, f"credits the stack change with fixing {bid}{through}; {d.sentence(to)}"))
    return out


def current_counterparts(kg: KnowledgeGraph, blocker_id: str) -> list[tuple[str | None, Dispute]]:
    """Where the catalogs disagree with blocker ``blocker_id`` of the campaign's own under each
    campaign's current stack (:func:`kb.queries.resolution.now_statuses`): the records resolve it
    there (by its fix, or through its causes) while a catalog blocker of the same failure
    (:func:`counterparts`) still stands or is only disabled there. Returns ``(current stack id or
    None, Dispute)`` pairs, without repeats, in order of campaign then catalog id; empty for a
    catalog blocker, one without counterparts, or where the two agree."""
    from kb.models import Campaign
    from kb.queries.resolution import current_stack, now_statuses

    pairs = counterparts(kg).get(blocker_id, {})
    if not pairs:
        return []
    out: list[tuple[str | None, Dispute]] = []
    for camp in kg.of_kind(Campaign):
        now = now_statuses(kg, camp)
        mine = now.get(blocker_id)
        if mine is None or mine.state in ("stands", "disabled"):
            continue
        sid = current_stack(kg, camp)
        for cid, why in sorted(pairs.items()):
            st = now.get(cid)
            b = kg.get(cid)
            if st is None or st.state not in ("stands", "disabled") or not isinstance(b, Blocker):
                continue
            d = Dispute(blocker_id, mine.by, cid, kg.records.catalog_of.get(cid, ""), why, st.state, list(st.missing),
                        b.upstream[0] if b.upstream else None)
            if (sid, d) not in out:
                out.append((sid, d))
    return out


def current_disputes(kg: KnowledgeGraph, blocker_id: str) -> list[str]:
    """The disputes of :func:`current_counterparts` as sentences, e.g. ``"catalog blackwell's
    "FlashInfer TRT-LLM allreduce fusion refuses to build on SM12x"
    (flashinfer-allreduce-fusion-sm12x-gate, same error signature) still stands on cuda-13.0: needs
    flashinfer>=0.6.17"``."""
    out: list[str] = []
    for sid, d in current_counterparts(kg, blocker_id):
        b = kg.get(d.catalog_id)
        need = f": needs {' and '.join(d.missing)}" if d.missing else ""
        text = (f"catalog {d.catalog}'s \"{b.title if b is not None else d.catalog_id}\" ({d.catalog_id}, {d.why}) "
                f"still stands on {sid or 'the current stack'}{need}")
        if text not in out:
            out.append(text)
    return out
