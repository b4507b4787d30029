"""Findings: what the records say that cannot all be true, or is not finished.

``kb check`` prints them as warnings (each a located line ``path:line: field: warning: ...``;
``--strict`` makes them errors); ``kb why`` and the site show them on the records concerned.

Kinds (issue 11, "Contradictions and status"):

* ``success-where-blocker-stands`` — an attempt recorded as improved (or as the baseline) on a
  stack and platform where a blocker of the same feature stands: a blocker whose ``flags`` it
  runs with, or, for a blocker that names no flags, one that blocked another attempt run with the
  flags that set that attempt apart (a blocker's own ``flags`` name its feature: an attempt that
  runs none of them does not run it, whatever else it shares with the attempts it blocked);
* ``success-cites-blocker`` — an improved or baseline attempt that names a blocker in ``blocked_by``;
* ``blocked-where-fixed`` — an attempt that did not succeed naming a blocker its own stack resolves;
* ``success-error-matches-standing-blocker`` — an improved or baseline attempt whose error text
  matches (by a signature that is not generic) a blocker standing on its own stack;
* ``credit-unchanged`` — a decision resolving a blocker through a stack change where no component
  of the blocker's fixes changed;
* ``resolves-still-standing`` — a decision resolving a blocker that still stands under the stack it moves to;
* ``not-accepted-resolves`` — ``resolves`` on a decision that is not accepted (it resolves nothing);
* ``pending-supersession`` — a proposed decision listing in ``supersedes`` one that still stands: the
  change is pending (only an accepted decision retires another, :data:`kb.graph.RETIRING`);
* ``credit-disputed-by-catalog`` — a decision crediting a stack change with fixing a blocker (or,
  through it, the blockers it causes) while a catalog record of the same failure still stands
  under the stack it moves to (:func:`kb.queries.counterparts.credit_disputes`);
* ``superseded-as-stated`` — a decision superseded as the ADR it was imported from says
  (:func:`kb.graph.stated_status`) that no accepted decision lists in ``supersedes``: kb keeps the
  log's statement, and a decision stands until the one replacing it is accepted;
* ``placeholder`` — a field still holding kb's ``TODO`` placeholder (an accepted decision so, the more so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from kb.errors import Problem
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Decision, Record
from kb.queries.index import index
from kb.queries.resolution import StatusCache, flag_names, run_condition_reason
from kb.queries.signatures import is_generic, match_text

SUCCESS = ("improved", "baseline")
"""Outcomes that claim the feature worked."""

PLACEHOLDER = "TODO"
"""The placeholder ``kb new`` writes into fields for a person to fill (kb.usecases.log.TODO)."""


@dataclass(frozen=True)
class Finding:
    """One finding: the ``record`` it is about, the ``field`` path inside it, its ``kind`` (see
    the module docstring) and the ``message`` (what is contradictory and what to check)."""

    record: str
    field: tuple[Any, ...]
    kind: str
    message: str
    about: str = ""
    """The other record the finding is about, when there is one: the blocker of a
    ``success-where-blocker-stands`` finding."""

    def problem(self, kg: KnowledgeGraph) -> Problem:
        """This finding as a located :class:`Problem` (``path:line: field: warning: message``),
        the message ending with the command that explains it (:meth:`explained_by`)."""
        p = kg.records.problem(self.record, self.field, self.message)
        how = self.explained_by(kg)
        return Problem(p.path, p.line, p.field, f"warning: {self.message}" + (f" [explained by: {how}]" if how else ""))

    def explained_by(self, kg: KnowledgeGraph) -> str:
        """The kb command that shows the reasoning behind this finding: ``kb why ATTEMPT`` for an
        attempt; for a decision's stack change, ``kb unblocks --from A --to B``; ``""`` for a
        placeholder or a decision without one."""
        rec = kg.get(self.record)
        if self.kind == "placeholder" or rec is None:
            return ""
        if isinstance(rec, Attempt):
            return f"kb why {rec.id}"
        change = rec.stack_change if isinstance(rec, Decision) else None
        if change is not None and change.from_ and change.to:
            return f"kb unblocks --from {change.from_} --to {change.to}"
        return ""


def _distinguishing(kg: KnowledgeGraph, a: Attempt) -> frozenset[str]:
    """The flags that set ``a`` apart from its baseline (all its flags without a baseline)."""
    ix = index(kg)
    mine = ix.flags(a)
    base = kg.get(a.baseline) if a.baseline else None
    return mine - ix.flags(base) if isinstance(base, Attempt) else mine


def _own_flags(b: Blocker, flags: frozenset[str]) -> list[str]:
    """The flags of blocker ``b`` that attempt flags ``flags`` turn on (an env setting given
    exactly, a flag by its name)."""
    names = flag_names(flags)
    env = {f for f in flags if "=" in f and not f.startswith("-")}
    return [f for f in b.flags if (f in env) or ("=" not in f and flag_names([f]) & names)]


def _same_feature(kg: KnowledgeGraph, b: Blocker, a: Attempt, flags: frozenset[str]) -> str:
    """Why blocker ``b`` concerns the feature attempt ``a`` runs (``""`` when it does not).

    The definition, one pair at a time; :class:`_Features` answers it for one attempt and every
    blocker at once."""
    own = _own_flags(b, flags)
    if own:
        return _own_text(own)
    if b.flags:  # its feature is named by its flags, and ``a`` runs none of them
        return ""
    for other_id in kg.into(b.id, "blocked_by"):
        other = kg.get(other_id)
        if not isinstance(other, Attempt) or other.id == a.id:
            continue
        dist = _distinguishing(kg, other)
        if dist and dist <= flags:
            return _blocked_text(other.id, dist)
    return ""


def _own_text(own: list[str]) -> str:
    return f"it runs with {', '.join(own)}, the flag{'s' if len(own) > 1 else ''} that turn{'' if len(own) > 1 else 's'} that feature on"


def _blocked_text(other: str, dist: frozenset[str]) -> str:
    return f"it blocked {other}, run with the same {', '.join(sorted(dist))}"


def _blocked_by(kg: KnowledgeGraph) -> dict[str, list[str]]:
    """Blocker id → the attempts it blocked, sorted: ``kg.into(b, "blocked_by")`` for every
    blocker at once, read from the attempts' ``blocked_by`` by the rule that made those edges
    (:func:`kb.graph.build_graph`: an edge to each id naming a blocker of the graph, once).
    ``kg.into`` would first build the inward adjacency of the whole graph (0.1 s at 10,000
    attempts) for these few hundred lists."""
    out: dict[str, list[str]] = {}
    for a in kg.of_kind(Attempt):  # by id, so each list comes out sorted
        for bid in a.blocked_by:
            if isinstance(kg.get(bid), Blocker):
                got = out.setdefault(bid, [])
                if not got or got[-1] != a.id:  # a blocker named twice by one attempt: one edge
                    got.append(a.id)
    return out


class _Features:
    """:func:`_same_feature` for one attempt against every blocker, without a scan per pair.

    A blocker concerns an attempt's feature (1) through its own ``flags`` (looked up by env
    setting and by flag name), or (2) through an attempt it blocked whose distinguishing flags
    the attempt carries: each distinct set of distinguishing flags is filed under its rarest flag,
    so an attempt tests only the sets filed under one of its own flags."""

    def __init__(self, kg: KnowledgeGraph):
        ix = index(kg)
        self.blockers: dict[str, Blocker] = {b.id: b for b in kg.of_kind(Blocker)}
        self.by_env: dict[str, set[str]] = {}
        self.by_name: dict[str, set[str]] = {}
        for b in kg.of_kind(Blocker):
            for f in b.flags:
                self.by_env.setdefault(f, set()).add(b.id)
                if "=" not in f:
                    for n in flag_names([f]):
                        self.by_name.setdefault(n, set()).add(b.id)
        count: dict[str, int] = {}
        for a in kg.of_kind(Attempt):
            for f in ix.flags(a):
                count[f] = count.get(f, 0) + 1
        blocked_by = _blocked_by(kg)
        # distinguishing flag set → blocker → the attempts it blocked that ran with that set (sorted)
        self.blocked: dict[frozenset[str], dict[str, list[str]]] = {}
        for b in kg.of_kind(Blocker):
            if b.flags:  # the blocker names the flags of its feature: only those say an attempt runs it
                continue
            for other_id in blocked_by.get(b.id, ()):
                other = kg.get(other_id)
                if not isinstance(other, Attempt):
                    continue
                dist = _distinguishing(kg, other)
                if dist:
                    self.blocked.setdefault(dist, {}).setdefault(b.id, []).append(other_id)
        self.filed: dict[str, list[frozenset[str]]] = {}
        for dist in self.blocked:
            rarest = min(dist, key=lambda f: (count.get(f, 0), f))
            self.filed.setdefault(rarest, []).append(dist)

    def concerned(self, a: Attempt, flags: frozenset[str]) -> dict[str, str]:
        """Blocker id → why it concerns the feature ``a`` runs with ``flags`` (as :func:`_same_feature`),
        for every blocker it concerns."""
        names = flag_names(flags)
        env = {f for f in flags if "=" in f and not f.startswith("-")}
        by_flag: set[str] = set()
        for f in env:
            by_flag |= self.by_env.get(f, set())
        for n in names:
            by_flag |= self.by_name.get(n, set())
        first: dict[str, tuple[str, frozenset[str]]] = {}
        for f in flags:
            for dist in self.filed.get(f, ()):
                if not dist <= flags:
                    continue
                for bid, others in self.blocked[dist].items():
                    other = next((o for o in others if o != a.id), None)
                    if other is not None and (bid not in first or other < first[bid][0]):
                        first[bid] = (other, dist)
        out = {}
        for bid in by_flag | set(first):
            b = self.blocker(bid)
            own = _own_flags(b, flags)
            if own:
                out[bid] = _own_text(own)
            elif bid in first:
                out[bid] = _blocked_text(*first[bid])
        return out

    def blocker(self, bid: str) -> Blocker:
        """The blocker record ``bid``."""
        return self.blockers[bid]


def _catalog_note(kg: KnowledgeGraph, b: Blocker) -> str:
    """`` (catalog blackwell, source sgl-project/sglang#15650)`` for a catalog blocker, else ``""``."""
    name = kg.records.catalog_of.get(b.id)
    if not name:
        return ""
    src = next((u for u in b.upstream), None) or next((s.url or s.file for s in b.source), None)
    return f" (catalog {name}" + (f", source {src}" if src else "") + ")"


def _success_findings(kg: KnowledgeGraph, cache: StatusCache, a: Attempt) -> list[Finding]:
    """The findings of kinds ``success-cites-blocker`` and ``success-where-blocker-stands`` about attempt ``a``."""
    out: list[Finding] = []
    if a.outcome.value not in SUCCESS:
        return out
    if a.blocked_by:
        out.append(Finding(a.id, ("blocked_by",), "success-cites-blocker",
                           f"outcome is {a.outcome.value}, yet blocked_by names {', '.join(a.blocked_by)}; "
                           "a blocked attempt did not succeed: fix the outcome or drop the blocker"))
    comps = kg.attempt_components(a)
    if not comps:
        return out
    ix = index(kg)
    features = ix.memo("findings.features", lambda: _Features(kg))
    concerned = features.concerned(a, ix.flags(a))
    if not concerned:
        return out
    statuses = ix.statuses(a, a.campaign)  # only the concerned blockers are read
    for bid, why in sorted(concerned.items()):
        st = statuses[bid]
        if st.state not in ("stands", "disabled") or bid in a.blocked_by:
            continue
        b = features.blocker(bid)
        if run_condition_reason(b, a):  # the run was made where the blocker cannot bite (its TP size)
            continue
        state = ("still stands" + (f" (needs {' and '.join(st.missing)})" if st.missing else " (no known fix)")
                 if st.state == "stands" else f"is only disabled ({st.by}: the feature is off)")
        where = f"stack {a.stack}" if a.stack else "its stack"
        out.append(Finding(a.id, ("outcome",), "success-where-blocker-stands",
                           f"outcome is {a.outcome.value} on {where}, where blocker {b.id}{_catalog_note(kg, b)} "
                           f"{state}; {why}: check the outcome, the stack or the blocker's applies_when/fixed_by",
                           about=b.id))
    return out


def _stack_findings(kg: KnowledgeGraph, cache: StatusCache, a: Attempt) -> list[Finding]:
    """The findings of kinds ``blocked-where-fixed`` and ``success-error-matches-standing-blocker``
    about attempt ``a``, judged under its own stack (its components, on its campaign's platform)."""
    from kb.queries.signatures import match_signatures

    out: list[Finding] = []
    comps = kg.attempt_components(a)
    if not comps:
        return out
    statuses = index(kg).statuses(a, a.campaign)
    where = f"stack {a.stack}" if a.stack else "its stack"
    if a.outcome.value not in SUCCESS and a.outcome.value != "inconclusive":
        for i, bid in enumerate(a.blocked_by):
            b = kg.get(bid)
            if not isinstance(b, Blocker):
                continue
            st = statuses[bid]
            run_reason = run_condition_reason(b, a)
            if run_reason:
                out.append(Finding(a.id, ("blocked_by", i), "blocked-where-fixed",
                                   f"blocked_by names {bid}, which does not apply to this run ({run_reason}): "
                                   f"either the run's flags are wrong or {bid}'s applies_when is", about=bid))
            elif st.state in ("resolved", "not_applicable"):
                missing = b.component if b.component and st.reason == f"the stack has no {b.component}" else None
                if missing:  # the stack leaves the blocker's component out: the stack record is what to complete
                    text = (f"blocked_by names {bid}, which lives in {missing}, but {where} records no {missing}: "
                            f"add {missing}'s version to the stack (a component may ship inside another: torch's "
                            f"wheels bundle NCCL and Triton), or remove {bid}'s component if it does not live there")
                else:
                    how = f"{where} resolves ({st.by})" if st.state == "resolved" else f"does not apply on {where} ({st.reason})"
                    text = (f"blocked_by names {bid}, which {how}: either the attempt ran on another stack, or "
                            f"{bid}'s fixed_by or applies_when is wrong")
                out.append(Finding(a.id, ("blocked_by", i), "blocked-where-fixed", text, about=bid))
    elif a.outcome.value in SUCCESS and a.error:
        for bid in match_signatures(kg, a.error):
            b = kg.get(bid)
            if bid in a.blocked_by or not isinstance(b, Blocker):
                continue
            sigs = [x for x in match_text(b, a.error) if not is_generic(x)]
            if sigs and statuses[bid].state in ("stands", "disabled") and not run_condition_reason(b, a):
                out.append(Finding(a.id, ("error",), "success-error-matches-standing-blocker",
                                   f"outcome is {a.outcome.value}, yet its error matches blocker {bid}"
                                   f"{_catalog_note(kg, b)} (signature {sigs[0]!r}), which stands on {where}: if the run "
                                   "hit it, the outcome or the stack is wrong; if it did not, the blocker is narrower "
                                   "than recorded (applies_when, fixed_by)", about=bid))
    return out


def _decision_findings(kg: KnowledgeGraph, cache: StatusCache, d: Decision) -> list[Finding]:
    """The findings about decision ``d`` (``not-accepted-resolves``, ``credit-unchanged``, ``resolves-still-standing``)."""
    from kb.queries.credit import stack_diff

    out: list[Finding] = []
    if d.status == "superseded":
        from kb.graph import RETIRING, stated_status

        stated = stated_status(d)
        listers = [x for x in (kg.get(i) for i in kg.into(d.id, "supersedes")) if isinstance(x, Decision)]
        if stated and not any(x.status in RETIRING for x in listers):
            named = ", ".join(f"{x.id} ({x.status})" for x in listers) or "none"
            out.append(Finding(d.id, ("status",), "superseded-as-stated",
                               f"superseded as its ADR states ({stated!r}), but no accepted decision lists it in "
                               f"supersedes (listed by: {named}): a decision stands until the one replacing it is "
                               "accepted; accept the newer one, or correct the status"))
    if d.status == "proposed":
        for i, t in enumerate(d.supersedes):
            old = kg.get(t)
            if isinstance(old, Decision) and old.status != "superseded":
                out.append(Finding(d.id, ("supersedes", i), "pending-supersession",
                                   f"would supersede {t} ({old.title!r}, {old.status}) once accepted; until then "
                                   f"{t} stands: accept this decision (then mark {t} superseded) or reject it"))
    if d.resolves and d.status != "accepted":
        out.append(Finding(d.id, ("resolves",), "not-accepted-resolves",
                           f"status is {d.status}, so its resolves ({', '.join(d.resolves)}) resolve nothing; "
                           "only accepted decisions resolve blockers (pages show it as "
                           f"{'would resolve' if d.status == 'proposed' else d.status})"))
    sc = d.stack_change
    if d.status != "accepted" or sc is None or not (sc.from_ and (sc.to or sc.components)):
        return out
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
    from kb.queries.counterparts import credit_disputes  # catalogs (issue 12): what upstream says of the credit

    out += [Finding(d.id, ("resolves", i), "credit-disputed-by-catalog", text) for i, text in
            credit_disputes(kg, d.resolves, lambda: cache.of(before, d.campaign), st1, sc.to or "the changed stack")]
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


def _mentions(value: Any, word: str) -> bool:
    """Whether any text in ``value`` (a record: its fields, nested models, dict keys and values,
    list items) contains ``word``. For a word in capital letters (kb's ``TODO``), which no number,
    date or JSON literal spells and JSON does not escape, it is true exactly when the record's JSON
    text holds the word, so a record it is false for holds no placeholder."""
    if isinstance(value, str):
        return word in value
    if isinstance(value, BaseModel):
        value = value.__dict__
    if isinstance(value, dict):
        return any((isinstance(k, str) and word in k) or _mentions(v, word) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_mentions(v, word) for v in value)
    return False


def _placeholder_findings(kg: KnowledgeGraph, rec: Record, alone: bool = False) -> list[Finding]:
    """The ``placeholder`` findings about ``rec``: every field still holding kb's ``TODO``
    (``alone``: ``rec`` is the only record asked about, see :func:`_mentions`)."""
    out: list[Finding] = []
    mine = kg.records.get(rec.id) is rec  # dumped once per record set (kb check dumps it for links too)
    if alone:  # one record asked (kb why): a walk, not the JSON serializer (built on first use: 0.1 s)
        if not _mentions(rec, PLACEHOLDER):
            return out
    elif not (kg.records.may_hold(rec.id, PLACEHOLDER) if mine
              else PLACEHOLDER in rec.model_dump_json(by_alias=True, exclude_none=True)):
        return out  # the walk below only for a record that holds the word at all
    data = rec.model_dump(mode="json", by_alias=True, exclude_none=True)
    for path in _placeholders(data, ()):
        accepted = isinstance(rec, Decision) and rec.status == "accepted"
        what = f"an accepted decision with an unfilled '{PLACEHOLDER}'" if accepted else f"still holds kb's '{PLACEHOLDER}' placeholder"
        out.append(Finding(rec.id, path, "placeholder", f"{what}; fill it in (or remove the line if it is optional)"))
    return out


GROUP_AT = 4
"""Attempts with a finding of one :data:`GROUPED` kind about one blocker from which ``kb check``
shows them as one line at the blocker (:func:`grouped`): one attempt at odds with a blocker
questions the attempt; several question the blocker."""

GROUPED = {
    "success-where-blocker-stands": "recorded as improved or baseline run this blocker's feature on stacks where it stands",
    "success-error-matches-standing-blocker": "recorded as improved or baseline print this blocker's error on stacks "
                                              "where it stands",
    "blocked-where-fixed": "that did not succeed name this blocker on stacks where it does not stand",
}
"""The finding kinds about an attempt and a blocker (:attr:`Finding.about`) that :func:`grouped`
folds, with what the members have in common."""


@dataclass(frozen=True)
class FindingGroup:
    """The findings of one :data:`GROUPED` ``kind`` about one ``blocker`` (at least :data:`GROUP_AT`),
    shown as one warning located at the blocker; ``members`` sorted by record."""

    blocker: str
    kind: str
    members: tuple[Finding, ...]

    def problem(self, kg: KnowledgeGraph) -> Problem:
        """The group as one located warning on the blocker's file: how many attempts, the first
        three with their stacks, and what to check."""
        b = kg.get(self.blocker)
        fields = b.model_fields_set if b is not None else set()
        field = next((f for f in ("applies_when", "fixed_by", "flags", "signatures") if f in fields), "title")
        shown = []
        for f in self.members[:3]:
            a = kg.get(f.record)
            stack = a.stack if isinstance(a, Attempt) else None
            shown.append(f"{f.record} (stack {stack})" if stack else f.record)
        more = ", …" if len(self.members) > 3 else ""
        check = ("either it is wider than recorded (fixed_by, applies_when) or they ran on other stacks"
                 if self.kind == "blocked-where-fixed" else
                 "either it is narrower than recorded (applies_when, fixed_by, flags) or those outcomes are wrong")
        p = kg.records.problem(self.blocker, (field,),
                               f"{len(self.members)} attempts {GROUPED[self.kind]} ({', '.join(shown)}{more}): "
                               f"{check}; 'kb check -v' lists each")
        return Problem(p.path, p.line, p.field, f"warning: {p.message}")


def grouped(found: list[Finding]) -> list[FindingGroup]:
    """The findings of ``found`` of a :data:`GROUPED` kind by kind and blocker, for each pair with
    at least :data:`GROUP_AT` of them, sorted by blocker id, then kind."""
    by: dict[tuple[str, str], list[Finding]] = {}
    for f in found:
        if f.kind in GROUPED and f.about:
            by.setdefault((f.about, f.kind), []).append(f)
    return [FindingGroup(bid, kind, tuple(sorted(fs, key=lambda f: f.record))) for (bid, kind), fs in sorted(by.items())
            if len(fs) >= GROUP_AT]


def findings(kg: KnowledgeGraph) -> list[Finding]:
    """Every finding over ``kg``, sorted by record, field and kind (see the module docstring).
    Computed once per graph (kept on it), since each page of the site asks for its own."""
    return list(kg.memo("queries.findings", lambda: _findings(kg)))


def _sorted(found: list[Finding]) -> list[Finding]:
    return sorted(set(found), key=lambda f: (f.record, tuple(map(str, f.field)), f.kind, f.message))


def _about(kg: KnowledgeGraph, cache: StatusCache, rec: Record, alone: bool = False) -> list[Finding]:
    """Every finding about ``rec`` (unsorted; ``alone``: the only record asked about): at most one
    per kind of contradiction (:func:`_one_per_kind`), and one per unfilled placeholder."""
    out = _placeholder_findings(kg, rec, alone)
    found: list[Finding] = []
    if isinstance(rec, Attempt):
        found += _success_findings(kg, cache, rec)
        found += _stack_findings(kg, cache, rec)
    elif isinstance(rec, Decision):
        found += _decision_findings(kg, cache, rec)
    return out + _one_per_kind(found)


def _one_per_kind(found: list[Finding]) -> list[Finding]:
    """``found`` (the contradictions about one record) with the findings of one kind about another
    record (a blocker: :attr:`Finding.about`) folded into the first of them (by field): its message ends with how many others it stands for and whom
    they are about ("; and 2 more like it: about b2, b3"), so that findings grow with the records,
    not with pairs of records and blockers (issue 24: one rule printed 111,209 warnings at 10,000
    attempts)."""
    by: dict[str, list[Finding]] = {}
    out = []
    for f in sorted(set(found), key=lambda f: (tuple(map(str, f.field)), f.message)):
        if f.about:  # a pair of this record and another one: the kind that grows with pairs
            by.setdefault(f.kind, []).append(f)
        else:  # one of the record's own fields (a decision's resolves.0): grows with the record
            out.append(f)
    for fs in by.values():
        first, rest = fs[0], fs[1:]
        if rest:
            whom = sorted({f.about for f in rest if f.about and f.about != first.about})
            tail = f": about {', '.join(whom[:5])}" + (f" and {len(whom) - 5} more" if len(whom) > 5 else "") if whom else ""
            first = Finding(first.record, first.field, first.kind,
                            f"{first.message}; and {len(rest)} more like it{tail}", first.about)
        out.append(first)
    return out


def _findings(kg: KnowledgeGraph) -> list[Finding]:
    cache = StatusCache(kg)
    return _sorted([f for rec in kg.records.records.values() for f in _about(kg, cache, rec)])


def findings_of(kg: KnowledgeGraph, record: Record | str) -> list[Finding]:
    """The findings about one record (for its page, and ``kb why``): the findings of
    :func:`findings` about it, in that order. Once every finding is known they are looked up;
    before that only this record's are worked out (``kb why`` asks about one attempt)."""
    rid = record if isinstance(record, str) else record.id
    ix = index(kg)
    if kg.memoized("queries.findings"):
        by_record = ix.memo("findings_by_record", lambda: _by_record(findings(kg)))
        return list(by_record.get(rid, ()))
    rec = kg.get(rid)
    if rec is None:
        return []
    return list(ix.memo(("findings_of", rid), lambda: _sorted(_about(kg, StatusCache(kg), rec, alone=True))))


def _by_record(found: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in found:
        out.setdefault(f.record, []).append(f)
    return out
