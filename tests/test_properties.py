"""Property tests (hypothesis): the record loader never crashes (on any text or any bytes on disk);
unblocks is monotonic and independent of record order (for any specifier operator)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from kb.errors import Problem
from kb.graph import build_graph
from kb.models import KINDS, Blocker, Component
from kb.queries import resolve_blockers
from kb.store import RecordSet, load_records, parse_record

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


# ---------------------------------------------------------------- loader over bytes (the file as read from disk)

_VALID = "title: t\nsignatures: [abc]\n".encode()
byte_soup = st.one_of(
    st.binary(max_size=200),
    st.tuples(st.binary(max_size=20), st.binary(max_size=20)).map(lambda t: t[0] + _VALID + t[1]),
    st.lists(st.sampled_from([b"\xef\xbb\xbf", b"\r\n", b"\r", b"\n", b"\t", b"\x00", b"\xff", b"\xc3", b"\xa9",
                              b"title: ", b"x", b": ", b"- ", b"[", b"]", b"&a ", b"*a", b'"', b"\x85", b"\xe2\x80\xa8"]),
             max_size=40).map(b"".join),
)


@settings(max_examples=200, deadline=None)
@given(data=byte_soup)
def test_any_bytes_on_disk_are_a_record_or_a_located_error(data):
    """The whole read path (size, UTF-8, BOM, NUL, YAML, model), from bytes in a record file."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "records"
        (root / "blockers").mkdir(parents=True)
        (root / "blockers" / "x.yaml").write_bytes(data)
        res = load_records(root)
    if res.problems:
        assert res.records.get("x") is None
        for p in res.problems:
            assert p.path == "records/blockers/x.yaml" and p.message
            assert p.line is None or p.line >= 1
    else:
        assert res.records.get("x") is not None


# ---------------------------------------------------------------- unblocks: any specifier, absent components

OPS = [">=", ">", "<", "<=", "==", "!=", "~="]
ALL_VERSIONS = [f"{a}.{b}" for a in range(4) for b in range(4)]
specs = st.builds(lambda op, a, b: f"{op}{a}.{b}", st.sampled_from(OPS), st.integers(0, 3), st.integers(0, 3))


@st.composite
def general_blockers(draw):
    """Blockers whose alternatives use every specifier operator, with causes among earlier ones."""
    n = draw(st.integers(min_value=1, max_value=10))
    out = []
    for i in range(n):
        alts = draw(st.lists(st.dictionaries(st.sampled_from(COMPONENTS), specs, min_size=1, max_size=3), max_size=3))
        causes = draw(st.lists(st.sampled_from([f"b{j}" for j in range(i)]), unique=True, max_size=3)) if i else []
        out.append(Blocker(id=f"b{i}", title=f"b{i}", fixed_by=alts, caused_by=causes))
    return out


def _satisfied(blockers, name, version):
    """The specifiers on component ``name`` (any blocker, any alternative) that ``version`` meets."""
    found = {alt.requires[name] for b in blockers for alt in b.fixed_by if name in alt.requires}
    if version is None:
        return set()
    return {s for s in found if SpecifierSet(s).contains(Version(version), prereleases=True)}


@settings(max_examples=300, deadline=None)
@given(blockers=general_blockers(),
       before=st.dictionaries(st.sampled_from(COMPONENTS), st.sampled_from(ALL_VERSIONS)),
       data=st.data())
def test_a_change_meeting_more_specifiers_never_unresolves_a_blocker(blockers, before, data):
    """Change one component the stack has to a version that meets every specifier the old one
    met, and maybe more: no resolved blocker stands again. (Adding a component the stack lacked
    is another kind of change: it may introduce the blockers of that component, DESIGN.md "A
    blocker belongs to a component"; tests/test_truth_properties.py covers it.)"""
    assume(before)
    name = data.draw(st.sampled_from(sorted(before)))
    old = _satisfied(blockers, name, before.get(name))
    candidates = [v for v in ALL_VERSIONS if _satisfied(blockers, name, v) >= old]
    after = {**before, name: data.draw(st.sampled_from(candidates))}
    kg = _graph(blockers)
    st0 = resolve_blockers(kg, {k: Component(version=v) for k, v in before.items()})
    st1 = resolve_blockers(kg, {k: Component(version=v) for k, v in after.items()})
    for bid, s in st0.items():
        if s.state == "resolved":
            assert st1[bid].state == "resolved", (bid, before, after)


@settings(max_examples=200, deadline=None)
@given(blockers=general_blockers(), comps=st.dictionaries(st.sampled_from(COMPONENTS), st.sampled_from(ALL_VERSIONS)),
       seed=st.integers(0, 1000))
def test_resolution_with_any_specifiers_does_not_depend_on_record_order(blockers, comps, seed):
    stack = {k: Component(version=v) for k, v in comps.items()}
    a = resolve_blockers(_graph(blockers), stack)
    b = resolve_blockers(_graph(blockers, order_seed=seed), stack)
    assert {k: (v.state, v.missing) for k, v in a.items()} == {k: (v.state, v.missing) for k, v in b.items()}
