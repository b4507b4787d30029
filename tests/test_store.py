"""Loading records: every kind valid and invalid, each problem located, the rest still loading."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CAMPAIGN_RECORDS

from kb.errors import RecordExists
from kb.models import Attempt, Blocker, Campaign, Decision, Platform, Stack
from kb.store import dump_record, load_records, write_record

PLATFORM = """\
title: 8x RTX PRO 6000
gpu: NVIDIA RTX PRO 6000 Blackwell
gpu_count: 8
compute_capability: "12.0"
arch: sm_120
interconnect: PCIe Gen5
"""
STACK = """\
title: CUDA 12.8
components:
  cuda: "12.8.1"
  torch: "2.10.0+cu128"
  flashinfer-python: "0.6.4"
"""
CAMPAIGN = """\
title: Kimi on Blackwell
model: Kimi-K2.5
platform: p
metric: {name: output_throughput, unit: tok/s}
baseline: 82 tok/s
"""
BLOCKER = """\
title: SM120 missing from CUDA 12.8
fixed_by:
  - cuda: ">=13.0"
"""
ATTEMPT = """\
title: EAGLE-3
date: 2026-02-21
campaign: c
approach: speculative decoding
stack: s
outcome: regressed
metrics:
  output_throughput: 54.1 tok/s
blocked_by: [b]
"""
DECISION = """\
title: Upgrade to CUDA 13
status: accepted
date: 2026-02-26
context: six dead ends
considered_options:
  - title: Upgrade
    evidence: [a]
  - title: Stay
outcome:
  chosen: Upgrade
resolves: [b]
"""


def valid_tree(write_tree):
    return write_tree({
        "platforms/p.yaml": PLATFORM, "stacks/s.yaml": STACK, "campaigns/c.yaml": CAMPAIGN,
        "blockers/b.yaml": BLOCKER, "attempts/a.yaml": ATTEMPT, "decisions/d.yaml": DECISION,
    })


def test_each_kind_loads_with_its_fields(write_tree):
    res = load_records(valid_tree(write_tree))
    assert res.problems == []
    recs = res.records
    assert {r.id: type(r) for r in recs.records.values()} == {
        "p": Platform, "s": Stack, "c": Campaign, "b": Blocker, "a": Attempt, "d": Decision}
    s = recs.get("s")
    assert s.components["torch"].version == "2.10.0+cu128"
    assert s.components["flashinfer"].version == "0.6.4"  # flashinfer-python is the same component
    a = recs.get("a")
    assert a.metrics["output_throughput"].value == 54.1 and a.metrics["output_throughput"].unit == "tok/s"
    assert [(f.kind, f.requires) for f in recs.get("b").fixed_by] == [("enables", {"cuda": ">=13.0"})]
    assert recs.get("d").evidence == ["a"]
    assert recs.origins["a"].path == "records/attempts/a.yaml"
    assert recs.origins["a"].line("blocked_by") == 9


def test_campaign_records_load_cleanly():
    res = load_records(CAMPAIGN_RECORDS)
    assert res.problems == []
    assert len(res.records.of_kind(Attempt)) == 9
    assert res.records.get("2026-02-27-eagle3-cuda13").metrics["output_throughput"].text == "96.1"


# (file, content, expected "path:line: field: message" fragment)
BROKEN = [
    ("attempts/unknown-key.yaml", ATTEMPT + "aproach: typo\n",
     "records/attempts/unknown-key.yaml:10: aproach: unknown key 'aproach'; did you mean 'approach'?"),
    ("stacks/float-version.yaml", "title: t\ncomponents:\n  torch: 2.10\n",
     "records/stacks/float-version.yaml:3: components.torch"),
    ("blockers/bad-spec.yaml", "title: t\nfixed_by:\n  - cuda: 13.0\n",
     "records/blockers/bad-spec.yaml:3: fixed_by.0.cuda: '13.0' was read by YAML as a number (13.0); a constraint is a quoted PEP 440 specifier: write cuda: \">=13.0\""),
    ("blockers/not-pep440.yaml", "title: t\nfixed_by:\n  - cuda: \"=> 13\"\n",
     "records/blockers/not-pep440.yaml:3: fixed_by.0.cuda: '=> 13' is not a PEP 440 specifier set"),
    ("platforms/dup-key.yaml", PLATFORM + "gpu_count: 4\n",
     "records/platforms/dup-key.yaml:7: gpu_count: duplicate key 'gpu_count' (first on line 3)"),
    ("attempts/bad-yaml.yaml", "title: [unclosed\n", "records/attempts/bad-yaml.yaml:1: invalid YAML"),
    ("attempts/missing.yaml", "title: t\ndate: 2026-02-21\ncampaign: c\napproach: x\n",
     "records/attempts/missing.yaml:1: outcome: required field 'outcome' is missing; add it"),
    ("attempts/bad-outcome.yaml", ATTEMPT.replace("regressed", "sucess"),
     "records/attempts/bad-outcome.yaml:6: outcome: Input should be"),
    ("attempts/near-outcome.yaml", ATTEMPT.replace("regressed", "failure"),
     "records/attempts/near-outcome.yaml:6: outcome: Input should be 'baseline', 'improved', 'regressed', "
     "'neutral', 'failed' or 'inconclusive' (got 'failure'); did you mean 'failed'?"),
    ("attempts/bad-unit.yaml", ATTEMPT.replace("54.1 tok/s", "54.1 furlongs"),
     "records/attempts/bad-unit.yaml:8: metrics.output_throughput.unit: unknown unit 'furlongs'"),
    ("attempts/bad-date.yaml", ATTEMPT.replace("2026-02-21", "2026-02-30"),
     "records/attempts/bad-date.yaml:2: date: '2026-02-30' looks like a date but is not a valid one"),
    ("platforms/cc-number.yaml", PLATFORM.replace('"12.0"', "12.0"),
     "records/platforms/cc-number.yaml:4: compute_capability: '12.0' was read by YAML as a number (12.0)"),
    ("decisions/bad-status.yaml", DECISION.replace("accepted", "approved"),
     "records/decisions/bad-status.yaml:2: status: Input should be 'proposed', 'accepted', 'rejected', 'deprecated' or "
     "'superseded' (got 'approved')"),  # no hint: the nearest by letters, 'proposed', would mislead
    ("decisions/chosen-not-option.yaml", DECISION.replace("chosen: Upgrade", "chosen: Downgrade"),
     "records/decisions/chosen-not-option.yaml:9: outcome: outcome.chosen 'Downgrade' is not one of the considered options"),
    ("attempts/a-list.yaml", "- title: x\n", "records/attempts/a-list.yaml:1: the file holds a list"),
    ("attempts/empty.yaml", "", "records/attempts/empty.yaml: empty file"),
    ("attempts/Bad Id.yaml", ATTEMPT, "records/attempts/Bad Id.yaml:1: id: 'Bad Id' is not a valid id"),
    ("attempts/wrong-id.yaml", "id: other\n" + ATTEMPT,
     "records/attempts/wrong-id.yaml:1: id: id 'other' differs from the file name 'wrong-id'"),
    ("blockers/bool-sig.yaml", "title: t\nsignatures: [no]\n",
     "records/blockers/bool-sig.yaml:2: signatures.0: 'no' was read by YAML as the boolean False; quote it"),
    ("blockers/applies-typo.yaml", "title: t\napplies_when:\n  compute_capabilty: \">=12.0\"\n",
     "records/blockers/applies-typo.yaml:2: applies_when: 'compute_capabilty' looks like a misspelt 'compute_capability'"),
    ("stacks/same-component-twice.yaml", "title: t\ncomponents:\n  torch: \"2.10.0\"\n  Torch: \"2.11.0\"\n",
     "records/stacks/same-component-twice.yaml:2: components: 'torch' and 'Torch' name the same component (torch); keep one"),
    ("blockers/slow-regex.yaml", "title: t\nsignatures: [\"/(a+)+$/\"]\n",
     "records/blockers/slow-regex.yaml:2: signatures: '/(a+)+$/' repeats a group that itself repeats"),
    ("blockers/empty-alt.yaml", "title: t\nfixed_by:\n  - {}\n",
     "records/blockers/empty-alt.yaml:2: fixed_by: alternative 0 is empty"),
    ("blockers/bad-regex.yaml", "title: t\nsignatures: [\"/[unclosed/\"]\n",
     "records/blockers/bad-regex.yaml:2: signatures: '/[unclosed/' is not a valid regular expression"),
]


@pytest.mark.parametrize("rel,content,expected", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_file_is_located_and_the_rest_still_loads(write_tree, rel, content, expected):
    root = valid_tree(write_tree)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(content, encoding="utf-8")
    res = load_records(root)
    messages = [str(p) for p in res.problems]
    assert any(m.startswith(expected) or expected in m for m in messages), messages
    assert all(p.path == f"records/{rel}" for p in res.problems), messages
    # the six valid records still load
    assert {"p", "s", "c", "b", "a", "d"} <= set(res.records.records)


def test_version_read_as_float_says_to_quote_it(write_tree):
    root = write_tree({"stacks/s.yaml": "title: t\ncomponents:\n  torch: 2.10\n"})
    [p] = load_records(root).problems
    assert p.message == "'2.10' was read by YAML as a number (2.1); versions and names are strings: quote it, e.g. torch: \"2.10\""


def test_all_problems_are_collected_not_only_the_first(write_tree):
    root = write_tree({f"attempts/x{i}.yaml": "title: [" for i in range(5)})
    assert len(load_records(root).problems) == 5


def test_unknown_folder_and_stray_file_are_reported(write_tree):
    root = write_tree({"atempts/x.yaml": ATTEMPT, "loose.yaml": ATTEMPT})
    msgs = sorted(str(p) for p in load_records(root).problems)
    assert msgs[0].startswith("records/atempts: unknown folder") and "did you mean 'attempts'" in msgs[0]
    assert msgs[1].startswith("records/loose.yaml: record outside a kind folder")


def test_duplicate_id_across_kinds(write_tree):
    root = valid_tree(write_tree)
    (root / "blockers" / "a.yaml").write_text(BLOCKER, encoding="utf-8")
    [p] = load_records(root).problems
    assert p.path == "records/blockers/a.yaml"
    assert "duplicate id 'a' (also records/attempts/a.yaml)" in p.message


def test_write_is_atomic_and_never_overwrites(tmp_path: Path):
    rec = Blocker(id="x", title="A blocker", fixed_by=[{"cuda": ">=13.0"}])
    path = write_record(tmp_path, rec)
    assert path == tmp_path / "blockers" / "x.yaml"
    before = path.read_bytes()
    with pytest.raises(RecordExists):
        write_record(tmp_path, Blocker(id="x", title="Other"))
    assert path.read_bytes() == before
    assert [p.name for p in (tmp_path / "blockers").iterdir()] == ["x.yaml"]  # no temporary left


def test_dumped_record_loads_back_identically(tmp_path: Path):
    res = load_records(CAMPAIGN_RECORDS)
    for rec in res.records.records.values():
        write_record(tmp_path / "records", rec)
    again = load_records(tmp_path / "records")
    assert again.problems == []
    for rid, rec in res.records.records.items():  # written in the current shape, otherwise the same record
        assert again.records.get(rid) == rec.model_copy(update={"schema_version": 2}), rid
    text = dump_record(res.records.get("cuda-12.8"))
    assert 'torch: 2.10.0+cu128' in text and "cuda: 12.8.1" in text
