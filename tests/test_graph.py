"""Reference checks between records, and the graph built from them."""

from __future__ import annotations

import pytest
from conftest import CAMPAIGN_RECORDS
from test_store import ATTEMPT, BLOCKER, DECISION, valid_tree

from kb.errors import InvalidRecords
from kb.pipeline import load, load_graph


def problems(root):
    return [str(p) for p in load(root).problems]


def test_valid_tree_has_no_reference_problems(write_tree):
    assert problems(valid_tree(write_tree)) == []


def test_unknown_id_with_hint(write_tree):
    root = valid_tree(write_tree)
    (root / "attempts/a.yaml").write_text(ATTEMPT.replace("blocked_by: [b]", "blocked_by: [bb]"), encoding="utf-8")
    assert problems(root) == ["records/attempts/a.yaml:9: blocked_by.0: unknown blocker 'bb'; did you mean 'b'?"]


@pytest.mark.parametrize("rel,old,new,expected", [
    ("attempts/a.yaml", "blocked_by: [b]", "blocked_by: [s]",
     "records/attempts/a.yaml:9: blocked_by.0: 's' is a stack, but blocked_by must name a blocker"),
    ("decisions/d.yaml", "resolves: [b]", "resolves: [a]",
     "records/decisions/d.yaml:11: resolves.0: 'a' is an attempt, but resolves must name a blocker"),
    ("decisions/d.yaml", "resolves: [b]", "resolves: [b]\nsupersedes: [c]",
     "records/decisions/d.yaml:12: supersedes.0: 'c' is a campaign, but supersedes must name a decision"),
    ("attempts/a.yaml", "stack: s", "stack: s\nbaseline: b",
     "records/attempts/a.yaml:6: baseline: 'b' is a blocker, but baseline must name an attempt"),
    ("attempts/a.yaml", "stack: s", "stack: s\nbaseline: nowhere",
     "records/attempts/a.yaml:6: baseline: unknown attempt 'nowhere'"),
    ("attempts/a.yaml", "stack: s", "stack: s\nbaseline: aa",  # no hint of the attempt itself
     "records/attempts/a.yaml:6: baseline: unknown attempt 'aa'"),
    ("attempts/a.yaml", "stack: s", "stack: s\nbaseline: a",
     "records/attempts/a.yaml:6: baseline: attempt 'a' refers to itself in baseline"),
    ("decisions/d.yaml", "evidence: [a]", "evidence: [a, ghost]",
     "records/decisions/d.yaml:7: considered_options.0.evidence.1: unknown attempt 'ghost'"),
])
def test_reference_to_the_wrong_kind_or_nowhere(write_tree, rel, old, new, expected):
    root = valid_tree(write_tree)
    text = {"attempts/a.yaml": ATTEMPT, "decisions/d.yaml": DECISION}[rel]
    (root / rel).write_text(text.replace(old, new), encoding="utf-8")
    assert problems(root) == [expected]


def test_caused_by_cycle_is_reported_once(write_tree):
    root = write_tree({
        "blockers/x.yaml": "title: x\ncaused_by: [y]\n",
        "blockers/y.yaml": "title: y\ncaused_by: [z]\n",
        "blockers/z.yaml": "title: z\ncaused_by: [x]\n",
    })
    assert problems(root) == [
        "records/blockers/x.yaml:2: caused_by.0: cycle in caused_by: x → y → z → x; a cause cannot cause itself: remove one link"]


def test_stack_base_cycle(write_tree):
    root = write_tree({"stacks/s1.yaml": "title: a\nbase: s2\n", "stacks/s2.yaml": "title: b\nbase: s1\n"})
    assert problems(root) == ["records/stacks/s1.yaml:2: base: cycle in base: s1 → s2 → s1; remove one link"]


def test_superseded_status_must_match_supersedes(write_tree):
    root = valid_tree(write_tree)
    (root / "decisions/e.yaml").write_text(DECISION.replace("resolves: [b]", "supersedes: [d]"), encoding="utf-8")
    assert problems(root) == [
        "records/decisions/e.yaml:11: supersedes.0: supersedes 'd', whose status is 'accepted'; set its status to 'superseded'"]


def test_load_graph_raises_with_every_problem(write_tree):
    root = valid_tree(write_tree)
    (root / "attempts/a.yaml").write_text(ATTEMPT.replace("campaign: c", "campaign: cc").replace("stack: s", "stack: ss"),
                                          encoding="utf-8")
    with pytest.raises(InvalidRecords) as exc:
        load_graph(root)
    assert [p.field for p in exc.value.problems] == ["campaign", "stack"]
    assert str(exc.value) == "2 problems in records"


def test_campaign_graph_edges():
    kg = load_graph(CAMPAIGN_RECORDS)
    assert kg.out("2026-02-21-eagle3-speculation", "blocked_by") == ["eagle3-verify-allreduce-latency"]
    assert sorted(kg.out("eagle3-verify-allreduce-latency", "caused_by")) == [
        "flashinfer-allreduce-fusion-jit-no-sm120", "torch-symm-mem-no-capability-12"]
    assert kg.into("sm120-unsupported-by-cuda-12.8-stack", "resolves") == ["2026-02-26-upgrade-to-cuda-13"]
    assert kg.out("cuda-13.0", "based_on") == ["cuda-12.8"]
    comps = kg.stack_components("cuda-13.0")
    assert comps["cuda"].version == "13.0.1"            # overridden
    assert comps["driver"].version == "590.48.01"       # inherited from the base stack
    assert comps["vllm"].version == "0.16.0rc2.dev344"
    assert kg.g.number_of_nodes() == 21


def test_references_to_an_invalid_record_are_not_reported_again(campaign_copy):
    path = campaign_copy / "stacks" / "cuda-12.8.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('torch: "2.10.0+cu128"', "torch: 2.10"), encoding="utf-8")
    # ten records name cuda-12.8; only the broken file itself is reported
    assert problems(campaign_copy) == [
        "records/stacks/cuda-12.8.yaml:6: components.torch: '2.10' was read by YAML as a number (2.1); "
        "versions and names are strings: quote it, e.g. torch: \"2.10\""]


def test_a_misspelt_component_in_fixed_by_is_reported(write_tree):
    root = valid_tree(write_tree)
    (root / "blockers/b.yaml").write_text(BLOCKER.replace("cuda:", "cudaa:"), encoding="utf-8")
    assert problems(root) == [
        "records/blockers/b.yaml:3: fixed_by.0.cudaa: no stack or attempt has a component 'cudaa'; "
        "did you mean 'cuda'? (a misspelt component can never be satisfied)"]


def test_has_cycle_finds_exactly_the_directed_cycles():
    from kb.graph import _has_cycle

    def e(*pairs: str) -> list[tuple[str, str, tuple]]:
        return [(p[0], p[1], ()) for p in pairs]

    assert _has_cycle(e("ab", "bc", "ca")) is True
    assert _has_cycle(e("ab", "ba")) is True
    assert _has_cycle(e("ab", "ac", "bd", "cd")) is False  # a diamond: two paths, no cycle
    assert _has_cycle(e("ab", "bc", "xy", "yz", "zx")) is True  # in a second component
    assert _has_cycle(e("ab", "cb", "db")) is False
    assert _has_cycle([]) is False
    chain = [(f"n{i}", f"n{i + 1}", ()) for i in range(50_000)]  # deep: no recursion limit
    assert _has_cycle(chain) is False and _has_cycle(chain + [("n50000", "n0", ())]) is True


def test_loose_references_name_every_top_level_reference_field_the_graph_reads():
    """:data:`kb.graph.LOOSE_REFERENCES` (what is checked in a record file that failed
    validation) lists each top-level reference :func:`kb.graph.references` yields, with its kind."""
    from pathlib import Path

    from kb.graph import LOOSE_REFERENCES, references
    from kb.models import KINDS
    from kb.store import load_records

    folder_of = {model: folder for folder, model in KINDS.items()}
    seen: set[tuple[str, str]] = set()
    for root in (Path(__file__).parent / "fixtures" / "campaign", Path(__file__).parent.parent / "records"):
        for rec in load_records(root).raise_if_invalid().records.values():
            folder = folder_of[type(rec)]
            for path, _target, kind, _edge in references(rec):
                if len(path) == 1 or (len(path) == 2 and isinstance(path[1], int)):
                    assert LOOSE_REFERENCES[folder][path[0]] == (kind, len(path) == 2), (folder, path)
                    seen.add((folder, path[0]))
    assert {("attempts", "stack"), ("attempts", "blocked_by"), ("blockers", "caused_by"), ("decisions", "resolves"),
            ("campaigns", "platform")} <= seen
