"""Property tests (hypothesis) of the truthful model (issue 11): ``kb unblocks`` never lists a blocker
both as resolved and as introduced; a component the stack lacks never blocks; and whatever fix
specifiers pass ``kb check`` (``==13.*``, ``>0.6.16``, ``~=2.10``, ``!=``, alternatives), the site builds."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.graph import build_graph
from kb.models import Blocker, Component, Stack
from kb.pipeline import load
from kb.queries import candidate_versions, unblocks, upgrade_paths
from kb.site.pages import render_site
from kb.store import RecordSet
from kb.versions import satisfies

COMPONENTS = ["cuda", "torch", "flashinfer", "bitsandbytes"]
OPS = [">=", ">", "<", "<=", "==", "!=", "~="]
VERSIONS = [f"{a}.{b}" for a in range(4) for b in range(4)]
specs = st.builds(lambda op, a, b: f"{op}{a}.{b}", st.sampled_from(OPS), st.integers(0, 3), st.integers(0, 3))
requirement = st.dictionaries(st.sampled_from(COMPONENTS), specs, min_size=1, max_size=2)
fixes = st.one_of(
    requirement,  # the shorthand: an enabling fix
    st.builds(lambda k, r, rev: {"kind": k, "requires": r, "reverted": rev},
              st.sampled_from(["enables", "disables"]), requirement, st.booleans()),
    st.just({"kind": "workaround", "flag": "--disable-it"}),
    st.just({"kind": "hardware_gap", "advice": "switch backend"}),
)


@st.composite
def blockers(draw):
    """Blockers with a component (or none), applies_when ranges, fixes of every kind, and causes
    among the earlier ones (so no cycles)."""
    out = []
    for i in range(draw(st.integers(1, 8))):
        out.append(Blocker(
            id=f"b{i}", title=f"b{i}",
            component=draw(st.one_of(st.none(), st.sampled_from(COMPONENTS))),
            applies_when=draw(st.dictionaries(st.sampled_from(COMPONENTS), specs, max_size=2)),
            fixed_by=draw(st.lists(fixes, max_size=3)),
            caused_by=draw(st.lists(st.sampled_from([f"b{j}" for j in range(i)]), unique=True, max_size=2)) if i else [],
        ))
    return out


stacks = st.dictionaries(st.sampled_from(COMPONENTS), st.sampled_from(VERSIONS), min_size=1)


def _graph(bs, comps):
    rs = RecordSet()
    for b in bs:
        rs.records[b.id] = b
    rs.records["s"] = Stack(id="s", title="s", components={k: Component(version=v) for k, v in comps.items()})
    return build_graph(rs)


@settings(max_examples=300, deadline=None)
@given(bs=blockers(), before=stacks, change=stacks)
def test_no_blocker_is_both_resolved_and_introduced(bs, before, change):
    res = unblocks(_graph(bs, before), change, from_stack="s")
    resolved = {r["id"] for r in res.resolved}
    introduced = {r["id"] for r in res.introduced}
    disabled = {r["id"] for r in res.disabled}
    still = {s.id for s in res.still_blocked + res.other_still_blocked}
    assert not resolved & introduced
    assert not disabled & (resolved | introduced)
    assert not still & (resolved | introduced | disabled)


@settings(max_examples=300, deadline=None)
@given(bs=blockers(), before=stacks, change=stacks)
def test_a_component_the_stack_lacks_never_blocks(bs, before, change):
    res = unblocks(_graph(bs, before), change, from_stack="s")
    after = {**before, **change}
    absent = {b.id for b in bs if b.component and b.component not in after and b.component not in before}
    reported = ({r["id"] for r in res.resolved + res.introduced + res.disabled}
                | {s.id for s in res.still_blocked + res.other_still_blocked})
    assert not absent & reported


# ---------------------------------------------------------------- kb check passing implies kb build passing

FIX_SPECS = ["==13.*", ">0.6.16", "~=2.10", "!=13.0", ">=12.9,<14", ">=0.6.17", "<=2.9", "==2.10.*", "===13.0",
             ">=2.10.0", "!=2.10.*", "~=0.6.17", ">=12.9,!=13.0", "==12.9", "<13"]
spec_texts = st.one_of(st.sampled_from(FIX_SPECS),
                       st.builds(lambda op, a, b, star: f"{op}{a}.{b}" + (".*" if star and op in ("==", "!=") else ""),
                                 st.sampled_from(OPS), st.integers(0, 14), st.integers(0, 12), st.booleans()),
                       st.text(alphabet="<>=!~.*0123456789,+cu ", min_size=1, max_size=12))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(alternatives=st.lists(st.dictionaries(st.sampled_from(["cuda", "torch", "flashinfer"]), spec_texts,
                                             min_size=1, max_size=2), min_size=1, max_size=3),
       kind=st.sampled_from(["enables", "disables", None]))
def test_what_kb_check_accepts_the_site_renders(alternatives, kind):
    """Any fixed_by that passes ``kb check`` renders every page, the upgrade paths included (the
    page that once cut ``>=`` off by hand and crashed on ``==13.*``)."""
    fixed_by = [alt if kind is None else {"kind": kind, "requires": alt} for alt in alternatives]
    files = {
        "platforms/p.yaml": {"title": "p", "gpu": "g", "gpu_count": 8, "compute_capability": "12.0"},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
        "stacks/s.yaml": {"title": "s", "components": {"cuda": "12.8.1", "torch": "2.9.1", "flashinfer": "0.6.4"}},
        "blockers/b.yaml": {"title": "b", "fixed_by": fixed_by},
        "attempts/2026-01-01-a.yaml": {"title": "a", "date": "2026-01-01", "campaign": "c", "approach": "x",
                                       "stack": "s", "outcome": "failed", "blocked_by": ["b"]},
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "records"
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        loaded = load(root)
        if loaded.problems:
            assert all(p.path == "records/blockers/b.yaml" and p.line for p in loaded.problems)
            return
        pages = render_site(loaded.graph)
    assert "upgrades.md" in pages and "blockers/b.md" in pages
    for paths in upgrade_paths(loaded.graph):
        for row in paths.rows:
            name, version = row.change.split("=")
            assert name in ("cuda", "torch", "flashinfer")


@settings(max_examples=300, deadline=None)
@given(spec=spec_texts)
def test_every_candidate_version_satisfies_its_specifier(spec):
    try:
        found = candidate_versions(spec)
    except ValueError:
        return  # not a specifier: kb check refuses it with a located message
    assert all(satisfies(v, spec).ok for v in found)
