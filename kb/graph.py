"""The knowledge graph: records as nodes, typed references as edges (networkx).

Built once per load, after :func:`check_references` found nothing wrong. Edge types (edge key,
source → target):

=============  ================================  ===========================================
type           from → to                         field
=============  ================================  ===========================================
blocked_by     attempt → blocker                 ``attempt.blocked_by``
caused_by      blocker → blocker                 ``blocker.caused_by`` (parent cause)
resolves       decision → blocker                ``decision.resolves``
supersedes     decision → decision               ``decision.supersedes``
evidence       decision → attempt                ``considered_options[].evidence``
uses_stack     attempt/campaign → stack          ``stack``
based_on       stack → stack                     ``stack.base``
runs_on        attempt/campaign → platform       ``platform``
baseline       attempt/campaign → attempt        ``baseline`` / ``baseline_attempt``
part_of        attempt/decision → campaign       ``campaign``
=============  ================================  ===========================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from kb.errors import Problem
from kb.models import (
    Attempt,
    Blocker,
    Campaign,
    Component,
    Decision,
    Platform,
    Record,
    Stack,
)
from kb.store import RecordSet
from kb.store.read import gc_paused
from kb.versions import KNOWN_COMPONENTS

if TYPE_CHECKING:
    import networkx as nx

_KIND_NAMES = {Attempt: "attempt", Blocker: "blocker", Campaign: "campaign", Decision: "decision",
               Platform: "platform", Stack: "stack"}


def references(record: Record) -> Iterator[tuple[tuple[Any, ...], str, type[Record], str]]:
    """Yield ``(field_path, target_id, expected_kind, edge_type)`` for every reference in ``record``."""
    if isinstance(record, Attempt):
        yield ("campaign",), record.campaign, Campaign, "part_of"
        if record.platform:
            yield ("platform",), record.platform, Platform, "runs_on"
        if record.stack:
            yield ("stack",), record.stack, Stack, "uses_stack"
        if record.baseline:
            yield ("baseline",), record.baseline, Attempt, "baseline"
        for i, b in enumerate(record.blocked_by):
            yield ("blocked_by", i), b, Blocker, "blocked_by"
    elif isinstance(record, Blocker):
        for i, b in enumerate(record.caused_by):
            yield ("caused_by", i), b, Blocker, "caused_by"
    elif isinstance(record, Stack):
        if record.base:
            yield ("base",), record.base, Stack, "based_on"
    elif isinstance(record, Campaign):
        yield ("platform",), record.platform, Platform, "runs_on"
        if record.stack:
            yield ("stack",), record.stack, Stack, "uses_stack"
        if record.baseline_attempt:
            yield ("baseline_attempt",), record.baseline_attempt, Attempt, "baseline"
    elif isinstance(record, Decision):
        if record.campaign:
            yield ("campaign",), record.campaign, Campaign, "part_of"
        for i, b in enumerate(record.resolves):
            yield ("resolves", i), b, Blocker, "resolves"
        for i, d in enumerate(record.supersedes):
            yield ("supersedes", i), d, Decision, "supersedes"
        for i, opt in enumerate(record.considered_options):
            for j, a in enumerate(opt.evidence):
                yield ("considered_options", i, "evidence", j), a, Attempt, "evidence"
        if record.stack_change:
            if record.stack_change.from_:
                yield ("stack_change", "from"), record.stack_change.from_, Stack, "uses_stack"
            if record.stack_change.to:
                yield ("stack_change", "to"), record.stack_change.to, Stack, "uses_stack"


LOOSE_REFERENCES: dict[str, dict[str, tuple[type[Record], bool]]] = {
    "attempts": {"campaign": (Campaign, False), "platform": (Platform, False), "stack": (Stack, False),
                 "baseline": (Attempt, False), "blocked_by": (Blocker, True)},
    "blockers": {"caused_by": (Blocker, True)},
    "stacks": {"base": (Stack, False)},
    "campaigns": {"platform": (Platform, False), "stack": (Stack, False), "baseline_attempt": (Attempt, False)},
    "decisions": {"campaign": (Campaign, False), "resolves": (Blocker, True), "supersedes": (Decision, True)},
}
"""The top-level reference fields of each kind folder, as :func:`references` reads them (field →
(the kind it names, whether it holds a list)): what :func:`loose_reference_problems` checks in a
record file that failed validation. Nested references (a decision's option evidence, its stack
change) are checked once the file is valid."""


def loose_reference_problems(records: RecordSet) -> list[Problem]:
    """The unknown ids and wrong kinds that the top-level reference fields
    (:data:`LOOSE_REFERENCES`) of record files that failed validation name
    (:attr:`kb.store.RecordSet.loose`), so that one run reports a file's schema errors and its
    bad references together. A field whose value is not a string (a list of strings for a list
    field) is left alone: its own problem was reported by validation. Returns
    :class:`kb.errors.Problem` located at the value's line."""
    problems: list[Problem] = []
    ids = records.records
    for stem, loose in sorted(records.loose.items()):
        for name, (kind, many) in LOOSE_REFERENCES.get(loose.folder, {}).items():
            values = loose.values.get(name)
            if values is None or (values[0][0] is None) == many:
                continue
            for index, target, line in values:
                where = name if index is None else f"{name}.{index}"
                other = ids.get(target)
                if target in records.broken or target == stem or where in loose.reported or name in loose.reported:
                    continue
                if other is None:
                    hint = _closest(target, [r.id for r in ids.values() if isinstance(r, kind)])
                    problems.append(Problem(loose.path, line, where, f"unknown {_KIND_NAMES[kind]} '{target}'" + hint))
                elif not isinstance(other, kind):
                    problems.append(Problem(loose.path, line, where,
                                            f"'{target}' is {_a(other.kind)}, but {name} must name {_a(_KIND_NAMES[kind])}"))
    return problems


def check_references(records: RecordSet) -> list[Problem]:
    """Every problem between records: unknown ids, references to the wrong kind, a record
    referring to itself, cycles in ``caused_by``, ``stack.base`` and ``supersedes``, and
    decision statuses that contradict ``supersedes``.

    Returns a list of :class:`Problem` (empty when the records are consistent).
    """
    problems: list[Problem] = []
    ids = records.records
    # one pass over the references; the edges that can close a cycle are kept, in this order, per kind
    edges: dict[str, list[tuple[str, str, tuple[Any, ...]]]] = {"caused_by": [], "based_on": [], "supersedes": []}
    shadowed = records.shadowed
    for rid, rec in ids.items():
        lost = shadowed.get(records.catalog_of.get(rid, ""), ()) if shadowed else ()
        for path, target, kind, e in references(rec):
            other = ids.get(target)
            field_ = path[0]
            if other is None and target in records.broken:
                continue  # the target's own file is invalid and already reported
            if target in lost:
                continue  # a catalog's record not loaded for an id clash, already reported: another record has its id
            if other is None:
                hint = _closest(target, [r.id for r in ids.values() if isinstance(r, kind) and r.id != rid])
                problems.append(records.problem(rid, path, f"unknown {_KIND_NAMES[kind]} '{target}'" + hint))
            elif not isinstance(other, kind):
                problems.append(records.problem(
                    rid, path,
                    f"'{target}' is {_a(other.kind)}, but {field_} must name {_a(_KIND_NAMES[kind])}"))
            elif target == rid:
                problems.append(records.problem(rid, path, f"{rec.kind} '{rid}' refers to itself in {field_}"))
            elif e in edges:
                edges[e].append((rid, target, path))
    for edge, label in (("caused_by", "caused_by"), ("based_on", "base"), ("supersedes", "supersedes")):
        if not _has_cycle(edges[edge]):
            continue  # the usual case: no graph to build (networkx is imported only to name a cycle)
        import networkx as nx

        g = nx.DiGraph()
        for rid, target, path in edges[edge]:
            g.add_edge(rid, target, path=path)
        for cycle in _cycles(g):
            first = cycle[0]
            path = g.edges[first, cycle[1 % len(cycle)]]["path"]
            chain = " → ".join(cycle + [first])
            problems.append(records.problem(first, path, f"cycle in {label}: {chain}; a cause cannot cause itself: remove one link"
                                            if edge == "caused_by" else f"cycle in {label}: {chain}; remove one link"))
    problems.extend(_component_name_problems(records))
    problems.extend(_supersession_problems(records, ids))
    return problems


RETIRING = ("accepted", "deprecated", "superseded")
"""Statuses of a decision whose ``supersedes`` hold: it was accepted (it may have been retired
itself since). A proposed decision's ``supersedes`` are pending (the old one stands until it is
accepted: :mod:`kb.queries.findings`, ``pending-supersession``); a rejected one supersedes
nothing. The rules of MADR's and adr-tools' status lines: an ADR is "Superseded by" a later
*accepted* one."""


def stated_status(decision: Decision) -> str | None:
    """The status as the document a decision was imported from states it (the ``quote`` of its
    ``status`` source, ``kb import --format adr``), or ``None`` when nothing quotes it. A status so
    stated is the log's own statement: kb keeps it, and a superseded one that no accepted decision
    answers is a warning (:mod:`kb.queries.findings`, ``superseded-as-stated``), not an error."""
    return next((s.quote for s in decision.source if s.field == "status" and s.quote), None)


def _supersession_problems(records: RecordSet, ids: dict[str, Record]) -> list[Problem]:
    """The problems of decision statuses against ``supersedes`` (see :data:`RETIRING`): a
    decision marked superseded that no retiring decision lists (naming the pending ones; unless
    its status is quoted from the ADR it was imported from, :func:`stated_status`), one that a
    retiring decision lists but is not marked superseded, and a rejected decision that lists any."""
    problems: list[Problem] = []
    by: dict[str, list[Decision]] = {}
    for rec in records.of_kind(Decision):
        for t in rec.supersedes:
            by.setdefault(t, []).append(rec)
    for rec in records.of_kind(Decision):
        listers = by.get(rec.id, [])
        if rec.status == "superseded" and not any(d.status in RETIRING for d in listers) and not stated_status(rec):
            pending = [d.id for d in listers if d.status == "proposed"]
            if pending:
                why = (f"status is 'superseded' but only {', '.join(pending)} (proposed) "
                       f"list{'s' if len(pending) == 1 else ''} it in 'supersedes'; "
                       "a decision stands until the one replacing it is accepted: set its status back "
                       "(e.g. 'accepted'), or accept the newer one")
            else:
                why = ("status is 'superseded' but no accepted decision lists it in 'supersedes'; "
                       "add it to the newer decision's supersedes")
            problems.append(records.problem(rec.id, ("status",), why))
        for i, t in enumerate(rec.supersedes):
            other = ids.get(t)
            if rec.status == "rejected":
                problems.append(records.problem(rec.id, ("supersedes", i),
                                                f"status is 'rejected', so it supersedes nothing, yet it lists '{t}'; "
                                                "remove it from supersedes (the rejected proposal's text can say what it "
                                                "would have replaced)"))
            elif rec.status in RETIRING and isinstance(other, Decision) and other.status != "superseded":
                problems.append(records.problem(rec.id, ("supersedes", i),
                                                f"supersedes '{t}', whose status is '{other.status}'; set its status to 'superseded'"))
    return problems


def _component_name_problems(records: RecordSet) -> list[Problem]:
    """A component named in a blocker's ``fixed_by``/``applies_when`` that no stack, attempt or
    known list uses, but that is one letter or so from one that is (``cudaa``): a typo there
    makes the blocker unresolvable, so it is reported with the likely name."""
    known = set(KNOWN_COMPONENTS)
    for rec in records.records.values():
        if isinstance(rec, (Stack, Attempt)):
            known.update(rec.components)
        if isinstance(rec, Decision) and rec.stack_change:
            known.update(rec.stack_change.components)
    import difflib

    problems = []
    for b in records.of_kind(Blocker):
        origin = records.origins.get(b.id)
        places: list[tuple[tuple[Any, ...], str]] = []
        for i, fix in enumerate(b.fixed_by):
            places += [(("fixed_by", i), name) for name in fix.requires]
        places += [(("applies_when", name), name) for name in b.applies_when.components]
        for path, name in places:
            if name in known:
                continue
            near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
            if near:
                if path[0] == "fixed_by":  # the line map is read only here (a cached record parses it on demand)
                    full = origin is not None and path + ("requires",) in origin.doc.lines
                    path = path + (("requires",) if full else ()) + (name,)
                problems.append(records.problem(
                    b.id, path, f"no stack or attempt has a component '{name}'; did you mean '{near[0]}'? "
                                "(a misspelt component can never be satisfied)"))
    return problems


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _has_cycle(edges: list[tuple[str, str, Any]]) -> bool:
    """Whether the directed graph of ``edges`` (``(source, target, _)``) has a cycle: an
    iterative depth-first search with three colours, linear in the edges."""
    out: dict[str, list[str]] = {}
    for u, v, _ in edges:
        out.setdefault(u, []).append(v)
    state: dict[str, int] = {}  # absent: not seen; 1: on the current path; 2: done
    for start in out:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(out[start]))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(out.get(nxt, ()))))
    return False


def _cycles(g: nx.DiGraph) -> list[list[str]]:
    import networkx as nx

    out = []
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1:
            start = min(comp)
            out.append(nx.find_cycle(g.subgraph(comp), source=start))
    return [[u for u, _v in c] for c in sorted(out)]


def _closest(target: str, candidates: list[str]) -> str:
    import difflib

    hint = difflib.get_close_matches(target, candidates, n=1, cutoff=0.6)
    return f"; did you mean '{hint[0]}'?" if hint else ""


@dataclass
class KnowledgeGraph:
    """The records and the graph over them; queries in :mod:`kb.queries` take one of these.

    ``g`` is a :class:`networkx.MultiDiGraph` whose nodes are record ids (attribute ``kind``)
    and whose edges are keyed by edge type (see the module docstring).

    A graph is immutable once :func:`build_graph` made it: nothing in kb adds records or edges
    afterwards (catalogs are merged into the :class:`RecordSet` before), so what is derived from
    every record (records per kind, edges per node, a stack's components, and the query indexes
    of :mod:`kb.queries.index`) is computed once per graph and kept here. Whoever changes
    ``records`` or ``g`` after linking must build a new graph (or call :meth:`forget`).
    """

    records: RecordSet
    _g: nx.MultiDiGraph | None = None
    _succ: dict[str, dict[str, dict[str, None]]] | None = field(default=None, repr=False, compare=False)
    """Edges as plain dicts, source → target → edge types (in insertion order, as networkx keeps
    them): what :func:`build_graph` makes; ``g`` is made from it on first use."""
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def g(self) -> nx.MultiDiGraph:
        """The :class:`networkx.MultiDiGraph` of the records (nodes: ids with attribute ``kind``;
        edges keyed by edge type), built on first use: queries read the plain edge tables, so
        a command that never asks for ``g`` never imports networkx (about 0.1 s of CPU)."""
        if self._g is None:
            import networkx as nx

            g = nx.MultiDiGraph()
            g.add_nodes_from((rid, {"kind": rec.kind}) for rid, rec in self.records.records.items())
            g.add_edges_from((u, v, k) for u, targets in (self._succ or {}).items()
                             for v, keys in targets.items() for k in keys)
            self._g = g
        return self._g

    def _adjacency(self, inward: bool) -> dict[str, dict[str, dict[str, None]]]:
        """node → neighbour → edge types, outward (targets) or ``inward`` (sources), in the order
        networkx keeps them; from ``g`` when the graph was made from one."""
        if self._succ is None:
            return self.g.pred if inward else self.g.succ  # type: ignore[return-value]
        if not inward:
            return self._succ

        def build() -> dict[str, dict[str, dict[str, None]]]:
            pred: dict[str, dict[str, dict[str, None]]] = {}
            for u, targets in self._succ.items():  # type: ignore[union-attr]
                for v, keys in targets.items():
                    pred.setdefault(v, {}).setdefault(u, {}).update(keys)
            return pred
        return self.memo("pred", build)  # type: ignore[no-any-return]

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, computed once per graph under ``key`` and kept (tables derived from every
        record, e.g. :func:`kb.queries.index.index`); ``key`` is any hashable, usually a string.
        The cyclic collector is paused while it computes (what it builds is kept; walking the
        loaded records again and again doubled the cost of a query at 10,000 attempts)."""
        try:
            return self._memo[key]
        except KeyError:
            with gc_paused():
                value = self._memo[key] = compute()
            return value

    def memoized(self, key: Any) -> bool:
        """Whether :meth:`memo` already holds ``key``."""
        return key in self._memo

    def forget(self) -> None:
        """Drop everything computed from the records (after a change to ``records`` or ``g``)."""
        self._memo.clear()
        if self._g is not None:
            self._succ = None  # g may have changed: read the edges from it from now on

    def get(self, record_id: str) -> Record | None:
        """The record with id ``record_id``, or ``None``."""
        return self.records.get(record_id)

    def of_kind(self, cls: type) -> list:
        """Records of one model class, sorted by id (sorted once per graph; a new list each call)."""
        return list(self.memo(("of_kind", cls), lambda: self._of_kind(cls)))

    def _of_kind(self, cls: type) -> list:
        by_type = self.memo("by_type", self._by_type)
        found = [lst for t, lst in by_type.items() if issubclass(t, cls)]
        if len(found) == 1:
            return list(found[0])
        return sorted((r for lst in found for r in lst), key=lambda r: r.id)

    def _by_type(self) -> dict[type, list]:
        """Model class → its records sorted by id: one pass over the ids in order (what
        :meth:`of_kind` filters, instead of every record again for each kind asked)."""
        recs = self.records.records
        by: dict[type, list] = {}
        for rid in sorted(recs):
            rec = recs[rid]
            got = by.get(type(rec))
            if got is None:
                by[type(rec)] = [rec]
            else:
                got.append(rec)
        return by

    def _edges(self, node: str, inward: bool) -> dict[str, list[str]]:
        """Edge type → ``node``'s targets in insertion order (``inward``: its sources, sorted);
        read from ``g`` once per node and direction, so a node with thousands of edges (a
        campaign, a common blocker) is not walked again for each question."""
        table = self._memo.setdefault("into" if inward else "out", {})
        got = table.get(node)
        if got is None:
            got = {}
            adj = self._adjacency(inward)
            if node in adj:
                for other, keys in adj[node].items():
                    for k in keys:
                        got.setdefault(k, []).append(other)
            if inward:
                for sources in got.values():
                    sources.sort()
            table[node] = got
        return got

    def out(self, node: str, edge: str) -> list[str]:
        """Targets of ``node``'s edges of type ``edge``, in insertion order."""
        return list(self._edges(node, False).get(edge, ()))

    def into(self, node: str, edge: str) -> list[str]:
        """Sources of edges of type ``edge`` that point at ``node``, sorted."""
        if self._succ is None:
            return list(self._edges(node, True).get(edge, ()))
        return list(self.memo(("into", edge), lambda: self._inverse(edge)).get(node, ()))

    def _inverse(self, edge: str) -> dict[str, list[str]]:
        """Target → the sorted sources of its edges of type ``edge``: one pass over the plain edge
        tables, keeping only that type (a query asks for one or two types; inverting every edge
        of 10,000 attempts for the few ``caused_by`` ones cost 50 ms)."""
        out: dict[str, list[str]] = {}
        for u, targets in self._succ.items():  # type: ignore[union-attr]
            for v, keys in targets.items():
                if edge in keys:
                    got = out.get(v)
                    if got is None:
                        out[v] = [u]
                    else:
                        got.append(u)
        for sources in out.values():
            sources.sort()
        return out

    def causes_closure(self, blocker_ids: list[str]) -> set[str]:
        """The given blockers and every blocker they are (transitively) caused by."""
        seen: set[str] = set()
        stack = list(blocker_ids)
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            stack.extend(self._edges(b, False).get("caused_by", ()))
        return seen

    def stack_components(self, stack_id: str) -> dict[str, Component]:
        """Components of ``stack_id`` with its ``base`` chain applied (base first, then overrides).
        Computed once per stack; a new dict each call (callers may change it)."""
        return dict(self.memo(("stack_components", stack_id), lambda: self._stack_components(stack_id)))

    def _stack_components(self, stack_id: str) -> dict[str, Component]:
        chain = []
        cur: str | None = stack_id
        while cur and cur not in chain:
            chain.append(cur)
            rec = self.records.get(cur)
            cur = rec.base if isinstance(rec, Stack) else None
        out: dict[str, Component] = {}
        for sid in reversed(chain):
            rec = self.records.get(sid)
            if isinstance(rec, Stack):
                out.update(rec.components)
        return out

    def attempt_components(self, attempt: Attempt) -> dict[str, Component]:
        """The attempt's stack (with its base chain) plus the attempt's own overrides (a new dict)."""
        if not attempt.stack:
            return dict(attempt.components)
        comps = self.memo(("stack_components", attempt.stack), lambda: self._stack_components(attempt.stack or ""))
        return {**comps, **attempt.components}

    def attempts_of(self, campaign_id: str) -> list[Attempt]:
        """The campaign's attempts ordered by date, then id (grouped once per graph; a new list)."""
        def build() -> dict[str, list[Attempt]]:
            by: dict[str, list[Attempt]] = {}
            for a in self.of_kind(Attempt):
                by.setdefault(a.campaign, []).append(a)
            for lst in by.values():
                lst.sort(key=lambda a: (a.date, a.id))
            return by
        return list(self.memo("attempts_by_campaign", build).get(campaign_id, ()))


def build_graph(records: RecordSet) -> KnowledgeGraph:
    """Build the :class:`KnowledgeGraph` of ``records``; references to missing ids are skipped
    (run :func:`check_references` first to report them)."""
    ids = records.records
    succ: dict[str, dict[str, dict[str, None]]] = {}
    for rid, rec in ids.items():
        if type(rec) is Attempt:  # nine records in ten: their references, in the order references() yields them
            refs: list[tuple[str, type[Record], str]] = [(rec.campaign, Campaign, "part_of")]
            if rec.platform:
                refs.append((rec.platform, Platform, "runs_on"))
            if rec.stack:
                refs.append((rec.stack, Stack, "uses_stack"))
            if rec.baseline:
                refs.append((rec.baseline, Attempt, "baseline"))
            refs.extend((b, Blocker, "blocked_by") for b in rec.blocked_by)
        else:
            refs = [(target, kind, edge) for _path, target, kind, edge in references(rec)]
        out: dict[str, dict[str, None]] | None = None
        for target, kind, edge in refs:
            if isinstance(ids.get(target), kind):
                if out is None:
                    out = succ.setdefault(rid, {})
                got = out.get(target)
                if got is None:
                    out[target] = {edge: None}
                else:
                    got[edge] = None
    return KnowledgeGraph(records, None, succ)
