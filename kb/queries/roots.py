"""Root causes ranked by the attempts they blocked over the campaign's history, with what still
stands now and how each is fixed beside them (issue 24: "what are the common root causes?").

An attempt reaches a root cause through the blockers it names (``blocked_by``, and what those are
caused by, transitively) and through the catalog blockers its error text matches by signature
(:func:`kb.queries.signatures.catalog_matches`, and their causes). A campaign's root cause whose
every attempt the catalog explains through one catalog root is shown as that catalog root's row,
"also recorded as" the campaign's; a row whose state now disagrees with a root its attempts also
reach (the campaign's record says fixed, the catalog's still stands there) names the dispute. The
catalogs' root causes that no attempt reached are not rows: :attr:`RootsReport.not_met` lists
them (``kb roots --catalog`` ranks them all)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign
from kb.queries.fixes import fix_json, requirement_text
from kb.queries.fixtext import describe_fix
from kb.queries.resolution import current_stack, now_statuses

SUCCESS = ("improved", "baseline")
"""Outcomes of an attempt that worked: never counted as blocked now, whatever it cites."""

STANDING = ("stands", "disabled")
"""States of a blocker that still keep its feature from working (a disabling fix only turns it off)."""


@dataclass
class RootCause:
    """A root cause and the attempts it blocked.

    ``attempts``: reviewed attempt ids that reached it (sorted; its historical count), directly,
    through caused blockers or through catalog blockers their errors match (``linked_by``: attempt
    id → how, for those, reviewed or draft, not reached through their own ``blocked_by``; only an
    attempt that did not succeed is linked by its error: a success printing a standing blocker's
    error is a contradiction ``kb check`` reports); ``current``: those of them
    that did not succeed and whose campaign's current stack (:func:`kb.queries.resolution.current_stack`)
    still has this root standing (or only disabled) on the campaign's platform: what blocks it
    now; ``now``: the root's state under each campaign's current stack (``{campaign: "stands"}``);
    ``drafts``: the historical count of attempts still in draft (imported, not reviewed), apart;
    ``blockers``: the blockers it causes, transitively (sorted); ``fix``:
    :func:`kb.queries.fixtext.describe_fix` of it; ``fixes``: the version fixes of it and of the
    catalog blockers that linked its attempts (``{"blocker", "kind", "requires"}``); ``source``:
    ``"campaign"`` or ``"catalog NAME"``; ``also_recorded_as``: campaign roots shown as this row
    (every attempt of theirs reaches it); ``disputes``: ``{"record", "title", "source", "claim"}``
    of each root its attempts also reach whose state now differs (``claim``: what that record
    says, e.g. ``"fixed_by cuda>=13.0"`` or ``"stands on cuda-13.0"``); ``met``: for a catalog
    row, the blockers it causes that its attempts reached (sorted; a campaign row's are ``blockers``).
    """

    id: str
    title: str
    attempts: list[str]
    blockers: list[str]
    fixed_by: list[dict[str, Any]]
    workaround: str | None
    drafts: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    now: dict[str, str] = field(default_factory=dict)
    fix: str = ""
    source: str = "campaign"
    linked_by: dict[str, str] = field(default_factory=dict)
    fixes: list[dict[str, Any]] = field(default_factory=list)
    also_recorded_as: list[str] = field(default_factory=list)
    disputes: list[dict[str, str]] = field(default_factory=list)
    met: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """This result as plain data for ``--json`` (dicts, lists, strings, numbers)."""
        return asdict(self)


@dataclass
class RootsReport:
    """What ``kb roots`` answers: the ranked ``roots``, the catalog root causes no attempt reached
    (``not_met``, sorted), and, when one campaign is in scope (``--campaign``, or the records hold
    only one), its id and current stack."""

    roots: list[RootCause]
    not_met: list[str]
    campaign: str | None = None
    current_stack: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``: ``{"campaign", "current_stack", "roots": [...], "not_met": [...]}``,
        each root's ``now`` the state under that campaign's current stack when there is one
        campaign, else the ``{campaign: state}`` object."""
        rows = []
        for r in self.roots:
            row = r.to_dict()
            if self.campaign is not None:
                row["now"] = r.now.get(self.campaign, "")
            rows.append(row)
        return {"campaign": self.campaign, "current_stack": self.current_stack, "roots": rows, "not_met": self.not_met}


def roots(kg: KnowledgeGraph, campaign: str | None = None, limit: int | None = None,
          now_first: bool = False) -> list[RootCause]:
    """The rows of :func:`roots_report` (``limit``: only the first ``limit`` of them): what the
    home page, the Root causes page and :meth:`kb.api.Knowledge.roots` show."""
    return roots_report(kg, campaign, limit, now_first).roots


def roots_report(kg: KnowledgeGraph, campaign: str | None = None, limit: int | None = None,
                 now_first: bool = False) -> RootsReport:
    """Root causes (blockers without ``caused_by``) ranked by the reviewed attempts that reached
    them over the history (see the module docstring), then by those blocked now, then by draft
    attempts, then by the number of blockers they cause, then by id; ``now_first``: by those
    blocked now first (``kb roots --now``). ``campaign`` restricts every count to one campaign's
    attempts. The campaign's own roots all appear (last those that blocked nothing); a catalog's
    only when an attempt reached it. Computed once per graph and arguments."""
    key = ("roots", campaign, now_first)
    full: RootsReport = kg.memo(key, lambda: _report(kg, campaign, now_first))
    return RootsReport(full.roots[:limit], full.not_met, full.campaign, full.current_stack)


def _report(kg: KnowledgeGraph, campaign: str | None, now_first: bool) -> RootsReport:
    from kb.queries.signatures import catalog_matches

    catalog = kg.records.catalog_of
    camps = [c for c in kg.of_kind(Campaign) if campaign is None or c.id == campaign]
    if campaign is not None and not camps:
        from kb.errors import UsageError

        known = ", ".join(c.id for c in kg.of_kind(Campaign)) or "none"
        raise UsageError(f"unknown campaign '{campaign}'; the campaigns are {known}")
    now_by_camp = {}
    stack_of: dict[str, str | None] = {}
    for c in camps:
        stack_of[c.id] = current_stack(kg, c)
        now_by_camp[c.id] = now_statuses(kg, c)
    root_of: dict[str, set[str]] = {}  # blocker → the roots its closure holds, once per blocker

    def roots_of(bids: list[str]) -> set[str]:
        out: set[str] = set()
        for bid in bids:
            got = root_of.get(bid)
            if got is None:
                got = root_of[bid] = {x for x in kg.causes_closure([bid])
                                      if isinstance(b := kg.get(x), Blocker) and b.is_root}
            out |= got
        return out

    blocked: dict[str, set[str]] = {}
    drafts: dict[str, set[str]] = {}
    current: dict[str, set[str]] = {}
    linked: dict[str, dict[str, str]] = {}  # root → attempt → how (catalog signature)
    via: dict[str, dict[str, str]] = {}  # root → attempt → the catalog blocker that linked it
    reached_by: dict[str, set[str]] = {}  # attempt → every root it reached
    touched: dict[str, set[str]] = {}  # attempt → every blocker it reached
    for a in kg.of_kind(Attempt):
        if campaign is not None and a.campaign != campaign:
            continue
        own = roots_of(a.blocked_by) if a.blocked_by else set()
        extra: dict[str, str] = {}
        if a.error and catalog and a.outcome.value not in SUCCESS:
            for cid in catalog_matches(kg, a.error):
                if not applies_to(kg, a, cid):
                    continue  # the catalog's failure cannot be this one: not on this stack and platform
                for r in roots_of([cid]) - own:
                    extra.setdefault(r, cid)
        if not own and not extra:
            continue
        reached_by[a.id] = own | set(extra)
        if extra:  # what a catalog row's attempts met: only a catalog's blockers (``met``)
            touched[a.id] = kg.causes_closure(sorted(set(extra.values())))
        draft = a.status == "draft"
        for r in own | set(extra):
            (drafts if draft else blocked).setdefault(r, set()).add(a.id)
        for r, cid in extra.items():
            linked.setdefault(r, {})[a.id] = f"signature of {cid}"
            via.setdefault(r, {})[a.id] = cid
        if not draft and a.outcome.value not in SUCCESS and a.campaign in now_by_camp:
            now = now_by_camp[a.campaign]
            for r in own | set(extra):
                st = now.get(r)
                if st is not None and st.state in STANDING:
                    current.setdefault(r, set()).add(a.id)
    # a campaign root whose every attempt reaches one catalog root through the catalog: that row
    merged_into: dict[str, str] = {}
    for b in kg.of_kind(Blocker):
        mine = blocked.get(b.id)
        if not b.is_root or b.id in catalog or not mine:
            continue
        cover = [r for r in linked if r in catalog and mine <= set(linked[r])]
        if cover:
            merged_into[b.id] = min(cover, key=lambda r: (-len(blocked.get(r, ())), r))
    empty: set[str] = set()
    rows = []
    for b in kg.of_kind(Blocker):
        if not b.is_root or b.id in merged_into:
            continue
        if b.id in catalog and not blocked.get(b.id) and not drafts.get(b.id):
            continue  # a catalog root no attempt reached: the footer
        also = sorted(r for r, into in merged_into.items() if into == b.id)
        attempts = set(blocked.get(b.id, empty)).union(*(blocked.get(r, empty) for r in also))
        now_ids = set(current.get(b.id, empty)).union(*(current.get(r, empty) for r in also))
        draft_ids = set(drafts.get(b.id, empty)).union(*(drafts.get(r, empty) for r in also))
        caused = _caused_blockers(kg, b.id)
        order = (-len(now_ids), -len(attempts)) if now_first else (-len(attempts), -len(now_ids))
        rows.append(((*order, -len(draft_ids), -len(caused), b.id), b, caused, attempts, now_ids, draft_ids, also))
    rows.sort(key=lambda x: x[0])
    out: list[RootCause] = []
    for _key, b, caused, attempts, now_ids, draft_ids, also in rows:
        row = RootCause(b.id, b.title, sorted(attempts), sorted(caused), [fix_json(f) for f in b.fixed_by], b.workaround,
                      sorted(draft_ids), sorted(now_ids),
                      {cid: st[b.id].state for cid, st in now_by_camp.items() if b.id in st}, describe_fix(b, kg),
                      source=f"catalog {catalog[b.id]}" if b.id in catalog else "campaign",
                      linked_by=dict(sorted(linked.get(b.id, {}).items())),
                      fixes=_fixes(kg, b, via.get(b.id, {}), also), also_recorded_as=also)
        row.disputes = _disputes(kg, row, reached_by, now_by_camp, stack_of)
        if b.id in catalog:
            row.met = sorted(caused & set().union(*(touched.get(a, empty) | kg.causes_closure(_blocked_by(kg, a))
                                                    for a in attempts | draft_ids)))
        out.append(row)
    not_met = sorted(b.id for b in kg.of_kind(Blocker)
                     if b.is_root and b.id in catalog and not blocked.get(b.id) and not drafts.get(b.id))
    one = camps[0].id if len(camps) == 1 else None
    return RootsReport(out, not_met, one, stack_of.get(one) if one else None)


def applies_to(kg: KnowledgeGraph, a: Attempt, blocker_id: str) -> bool:
    """Whether blocker ``blocker_id`` can be what attempt ``a`` met: its state under the attempt's
    own components on its campaign's platform is not ``not_applicable`` (an attempt without
    components is given the benefit of the doubt), and no condition on the run rules it out (a
    tensor-parallel size, :func:`kb.queries.resolution.run_condition_reason`)."""
    from kb.queries.index import index
    from kb.queries.resolution import run_condition_reason

    b = kg.get(blocker_id)
    if isinstance(b, Blocker) and run_condition_reason(b, a):
        return False
    if not kg.attempt_components(a):
        return True
    return index(kg).statuses(a, a.campaign)[blocker_id].state != "not_applicable"


def _blocked_by(kg: KnowledgeGraph, attempt_id: str) -> list[str]:
    a = kg.get(attempt_id)
    return list(a.blocked_by) if isinstance(a, Attempt) else []


def _fixes(kg: KnowledgeGraph, root: Blocker, via: dict[str, str], also: list[str] | None = None) -> list[dict[str, Any]]:
    """The version fixes of ``root``, of the campaign roots shown as its row (``also``: what the
    campaign's records say fixes them) and of the catalog blockers that linked attempts to it
    (``via``: attempt → catalog blocker), each ``{"blocker", "kind", "requires"}``, in that order."""
    out: list[dict[str, Any]] = []
    also = also or []
    for bid in [root.id, *also, *sorted(set(via.values()) - {root.id} - set(also))]:
        b = kg.get(bid)
        if isinstance(b, Blocker):
            out.extend({"blocker": bid, "kind": f.kind, "requires": dict(f.requires)}
                       for f in b.fixed_by if f.is_version_fix)
    return out


def root_claim(kg: KnowledgeGraph, bid: str, state: str, stack: str | None) -> str:
    """What the records say of root ``bid`` under a campaign's current ``stack``, in a few words:
    ``"fixed_by cuda>=13.0"`` when it is resolved there by a version fix, else its state there
    (``"stands on cuda-13.0"``)."""
    b = kg.get(bid)
    if state in ("resolved", "not_applicable") and isinstance(b, Blocker):
        fixes = [requirement_text(f.requires) for f in b.fixed_by if f.is_version_fix]
        if fixes:
            return "fixed_by " + " or ".join(fixes)
    return f"{state.replace('_', ' ')} on {stack}" if stack else state.replace("_", " ")


def dispute_side(kg: KnowledgeGraph, bid: str, claim: str) -> dict[str, str]:
    """``{"record", "title", "source", "claim"}`` of root ``bid`` (a dispute's other side)."""
    b = kg.get(bid)
    where = kg.records.catalog_of.get(bid)
    return {"record": bid, "title": b.title if isinstance(b, Blocker) else bid,
            "source": f"catalog {where}" if where else "campaign", "claim": claim}


def _disputes(kg: KnowledgeGraph, row: RootCause, reached_by: dict[str, set[str]],
              now_by_camp: dict[str, Any], stack_of: dict[str, str | None]) -> list[dict[str, str]]:
    """Roots of the other side (a catalog's for a campaign row, the campaign's for a catalog row)
    that attempts of ``row`` also reach, whose state now disagrees with the row's under the same
    campaign's current stack (one standing, the other not): :func:`dispute_side` of each. Two
    campaign roots of one attempt, one fixed and one not, are no dispute: the attempt needs both."""
    catalog = kg.records.catalog_of
    if not catalog:
        return []
    mine_is_catalog = row.id in catalog
    out: dict[str, str] = {}
    for aid in row.attempts:
        a = kg.get(aid)
        if not isinstance(a, Attempt) or a.campaign not in now_by_camp:
            continue
        now = now_by_camp[a.campaign]
        mine = row.now.get(a.campaign)
        if mine is None:
            continue
        for other in sorted(reached_by.get(aid, set()) - {row.id}):  # a root shown as this row still disputes it
            if (other in catalog) == mine_is_catalog:
                continue
            st = now.get(other)
            if st is None or (st.state in STANDING) == (mine in STANDING):
                continue
            out.setdefault(other, root_claim(kg, other, st.state, stack_of.get(a.campaign)))
    return [dispute_side(kg, rid, claim) for rid, claim in sorted(out.items())]


def _caused_blockers(kg: KnowledgeGraph, root_id: str) -> set[str]:
    """Every blocker ``root_id`` causes, transitively (itself left out unless on a cycle)."""
    seen: set[str] = set()
    todo = [root_id]
    while todo:
        cur = todo.pop()
        for child in kg.into(cur, "caused_by"):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@dataclass
class CatalogRoot:
    """A root cause of a catalog and the catalog blockers it explains (transitively), sorted."""

    id: str
    title: str
    catalog: str
    explains: list[str]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return asdict(self)


def catalog_roots(kg: KnowledgeGraph, catalog: str | None = None) -> list[CatalogRoot]:
    """The root causes read from catalogs (``catalog``: only that one), ranked by the number of
    catalog blockers each explains, directly or through the blockers it causes, then by id."""
    of = kg.records.catalog_of
    out = []
    for b in kg.of_kind(Blocker):
        name = of.get(b.id)
        if not name or not b.is_root or (catalog is not None and name != catalog):
            continue
        explains = sorted(x for x in _caused_blockers(kg, b.id) if x in of)
        out.append(CatalogRoot(b.id, b.title, name, explains))
    out.sort(key=lambda r: (-len(r.explains), r.id))
    return out
