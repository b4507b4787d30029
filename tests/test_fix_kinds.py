"""Fix kinds (issue 11): enables, disables, workaround, build option, hardware gap; provenance and
reverts; how each reads (kb.queries.fixes) and what each does to a blocker under a stack."""

from __future__ import annotations

import pytest

from kb.models import Blocker
from kb.pipeline import load_graph
from kb.queries import describe_fix, resolve_blockers, unblocks
from kb.store import dump_record, parse_record

BASE = {
    "platforms/p.yaml": {"title": "p", "gpu": "g", "gpu_count": 8, "compute_capability": "12.0", "interconnect": "PCIe"},
    "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p", "metric": {"name": "output_throughput", "unit": "tok/s"}},
    "stacks/s.yaml": {"title": "s", "components": {"cuda": "12.8.1", "torch": "2.10.0", "sglang": "0.5.8"}},
    "blockers/keyerror.yaml": {"title": "table keyed by 9 and 10", "component": "sglang",
                               "fixed_by": [{"kind": "disables", "requires": {"sglang": ">=0.5.9"}, "pr": "sgl-project/sglang#1",
                                             "release": "0.5.9"},
                                            {"kind": "enables", "requires": {"sglang": ">=0.6"}}]},
    "blockers/reverted.yaml": {"title": "fixed, then reverted",
                               "fixed_by": [{"kind": "enables", "requires": {"torch": ">=2.11"}, "reverted": True}]},
    "blockers/tcgen05.yaml": {"title": "SM120 has no tcgen05",
                              "fixed_by": [{"kind": "hardware_gap", "advice": "switch backend to the Triton one"}]},
    "blockers/ptxas.yaml": {"title": "bundled ptxas too old",
                            "fixed_by": [{"kind": "workaround", "flag": "TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas"},
                                         {"kind": "build_option", "flag": "TORCH_CUDA_ARCH_LIST=12.0"}]},
}


@pytest.fixture
def kg(write_tree):
    return load_graph(write_tree(BASE))


def test_a_disabling_fix_only_disables(kg):
    res = unblocks(kg, {"sglang": "0.5.9"}, from_stack="s")
    assert res.resolved == []
    assert res.disabled == [{"id": "keyerror", "title": "table keyed by 9 and 10", "by": "sglang>=0.5.9",
                             "missing": ["sglang>=0.6"]}]
    assert [r["id"] for r in unblocks(kg, {"sglang": "0.6"}, from_stack="s").resolved] == ["keyerror"]


def test_a_reverted_fix_fixes_nothing(kg):
    st = resolve_blockers(kg, {**kg.stack_components("s"), **load_graph_components(torch="2.12")})
    assert st["reverted"].state == "stands"
    assert describe_fix(kg.get("reverted")) == "torch>=2.11, reverted upstream (fixes nothing now)"


def load_graph_components(**versions):
    from kb.models import Component

    return {k: Component(version=v) for k, v in versions.items()}


def test_no_upgrade_fixes_a_hardware_gap_and_it_says_what_to_do(kg):
    res = unblocks(kg, {"cuda": "13.0", "torch": "2.12", "sglang": "0.7"}, from_stack="s")
    gap = next(s for s in res.still_blocked + res.other_still_blocked if s.id == "tcgen05")
    assert gap.missing == ["no known fix"]
    assert gap.advice == ["no upgrade fixes it: a hardware gap; switch backend to the Triton one"]
    assert describe_fix(kg.get("tcgen05")) == "no upgrade fixes it: a hardware gap; switch backend to the Triton one"


def test_workarounds_and_build_options_are_advice_not_resolution(kg):
    st = resolve_blockers(kg, kg.stack_components("s"))
    assert st["ptxas"].state == "stands"
    assert st["ptxas"].advice == ["workaround: TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas",
                                  "build option: TORCH_CUDA_ARCH_LIST=12.0"]


def test_provenance_reads_with_the_fix(kg):
    assert describe_fix(kg.get("keyerror")) == (
        "fixed by sglang>=0.6; sglang>=0.5.9 only disables the feature (the crash becomes a clean refusal) "
        "(release 0.5.9; sgl-project/sglang#1)")


def test_a_wontfix_blocker_says_no_fix_is_coming():
    b = Blocker(id="b", title="t", status="wontfix", workaround="use NCCL")
    assert describe_fix(b) == "no fix coming (upstream will not fix it) (workaround: use NCCL)"


def test_fixes_round_trip_and_are_written_in_full():
    """Schema version 2 writes every fix in full; the version-1 shorthand still reads as the same fix."""
    b = Blocker(id="x", title="t", fixed_by=[{"cuda": ">=13.0"}, {"kind": "hardware_gap", "advice": "switch backend"},
                                             {"kind": "enables", "requires": {"torch": ">=2.11"}, "reverted": True}])
    text = dump_record(b)
    assert text.startswith("schema_version: 2\ntitle: t\nfixed_by:\n- kind: enables\n  requires:\n    cuda: '>=13.0'\n"
                           "- kind: hardware_gap\n  advice: switch backend\n")
    record, _doc, problems = parse_record(text, "records/blockers/x.yaml", "blockers", "x")
    assert problems == [] and record == b.model_copy(update={"schema_version": 2})


@pytest.mark.parametrize("fix, message", [
    ({"kind": "enables"}, "a fix of kind 'enables' needs 'requires'"),
    ({"kind": "hardware_gap", "requires": {"cuda": ">=13"}}, "a fix of kind 'hardware_gap' takes no 'requires'"),
    ({"kind": "workaround"}, "a fix of kind 'workaround' needs 'flag'"),
    ({"kind": "enables", "requires": {"cuda": ">=13"}, "pr": "#12"}, "pr '#12' is not 'owner/repo#123'"),
    ({"kind": "enable", "requires": {"cuda": ">=13"}}, "Input should be 'enables', 'disables'"),
])
def test_a_malformed_fix_is_a_located_error(fix, message):
    import yaml

    text = yaml.safe_dump({"title": "t", "fixed_by": [fix]})
    record, _doc, problems = parse_record(text, "records/blockers/x.yaml", "blockers", "x")
    assert record is None and len(problems) == 1
    assert problems[0].line == 2 and problems[0].field.startswith("fixed_by.0") and message in problems[0].message
