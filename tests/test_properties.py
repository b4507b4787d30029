"""Property tests (hypothesis): the record loader never crashes; unblocks is monotonic and
independent of record order."""

from __future__ import annotations

import random

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.errors import Problem
from kb.graph import build_graph
from kb.models import KINDS, Blocker, Component
from kb.queries import resolve_blockers
from kb.store import RecordSet, parse_record

# ---------------------------------------------------------------- loader: record or located error

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=20), st.sampled_from(["2.10", "no", "on", "2026-02-30", "12.0", ">=13", "~"]))
keys = st.one_of(st.sampled_from(["title", "date", "campaign", "approach", "outcome", "metrics", "fixed_by",
                                  "caused_by", "components", "gpu_count", "status", "id", "source"]),
                 st.text(min_size=1, max_size=10))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(keys, inner, max_size=5)), max_leaves=20)


def _assert_record_or_located(text: str, folder: str) -> None:
    record, _doc, problems = parse_record(text, f"records/{folder}/x.yaml", folder, "x")
    if record is None:
        assert problems, "a failed parse must say why"
        for p in problems:
            assert isinstance(p, Problem)
            assert p.path == f"records/{folder}/x.yaml"
            assert p.line is None or p.line >= 1
            assert p.message
    else:
        assert problems == [] and record.id == "x"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.dictionaries(keys, values, max_size=8), folder=st.sampled_from(sorted(KINDS)))
def test_any_yaml_mapping_is_a_record_or_a_located_error(data, folder):
    _assert_record_or_located(yaml.safe_dump(data, allow_unicode=True), folder)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200), folder=st.sampled_from(sorted(KINDS)))
def test_any_text_is_a_record_or_a_located_error(text, folder):
    _assert_record_or_located(text, folder)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("{}[]:,-&*!|>'\"#%@` \n\tab1.")), max_size=120),
       folder=st.sampled_from(sorted(KINDS)))
def test_yaml_punctuation_soup_never_crashes(text, folder):
    _assert_record_or_located(text, folder)


# ---------------------------------------------------------------- unblocks semantics

COMPONENTS = ["cuda", "torch", "flashinfer"]
versions = st.integers(min_value=0, max_value=9)


@st.composite
def blocker_sets(draw):
    """A DAG of blockers: each may have fixed_by alternatives of '>=' specifiers and causes
    among the earlier blockers (so no cycles)."""
    n = draw(st.integers(min_value=1, max_value=8))
    blockers = []
    for i in range(n):
        alts = draw(st.lists(st.dictionaries(st.sampled_from(COMPONENTS), versions.map(lambda v: f">={v}.0"),
                                             min_size=1, max_size=3), max_size=2))
        causes = draw(st.lists(st.sampled_from([f"b{j}" for j in range(i)]), unique=True, max_size=3)) if i else []
        blockers.append(Blocker(id=f"b{i}", title=f"b{i}", fixed_by=alts, caused_by=causes))
    return blockers


def _graph(blockers, order_seed=None):
    items = list(blockers)
    if order_seed is not None:
        random.Random(order_seed).shuffle(items)
    rs = RecordSet()
    for b in items:
        rs.records[b.id] = b
    return build_graph(rs)


def _stack(vs):
    return {c: Component(version=f"{v}.0") for c, v in zip(COMPONENTS, vs)}


@settings(max_examples=300, deadline=None)
@given(blockers=blocker_sets(), before=st.tuples(versions, versions, versions),
       bump=st.tuples(versions, versions, versions))
def test_an_upgrade_never_unresolves_a_blocker(blockers, before, bump):
    kg = _graph(blockers)
    after = tuple(min(9, v + d) for v, d in zip(before, bump))  # every component the same or newer
    st0 = resolve_blockers(kg, _stack(before))
    st1 = resolve_blockers(kg, _stack(after))
    for bid, s in st0.items():
        if s.state == "resolved":
            assert st1[bid].state == "resolved", (bid, before, after)


@settings(max_examples=200, deadline=None)
@given(blockers=blocker_sets(), vs=st.tuples(versions, versions, versions), seed=st.integers(0, 1000))
def test_resolution_does_not_depend_on_record_order(blockers, vs, seed):
    a = resolve_blockers(_graph(blockers), _stack(vs))
    b = resolve_blockers(_graph(blockers, order_seed=seed), _stack(vs))
    assert {k: (v.state, v.missing) for k, v in a.items()} == {k: (v.state, v.missing) for k, v in b.items()}
