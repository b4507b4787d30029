"""roots and why on the campaign records."""

from __future__ import annotations

from conftest import CAMPAIGN_RECORDS

from kb.pipeline import load_graph
from kb.queries import roots, why

SM120 = "sm120-unsupported-by-cuda-12.8-stack"


def test_roots_rank_by_the_attempts_blocked_over_the_history_with_now_beside():
    kg = load_graph(CAMPAIGN_RECORDS)
    ranked = roots(kg)
    # SM120 blocked the most attempts over the campaign's history: first, though the campaign's
    # current stack (cuda-13.0) resolves it
    assert [r.id for r in ranked] == [SM120, "ep-a2a-gpu-memory-exhausted", "nccl-tree-incompatible-with-cuda-graphs",
                                      "pcie-bus-contention"]
    assert [len(r.current) for r in ranked] == [0, 1, 1, 1]
    assert [len(r.attempts) for r in ranked] == [3, 1, 1, 1]
    first = ranked[0]
    assert first.now == {"kimi-k25-eagle3-blackwell": "resolved"}
    assert first.attempts == ["2026-02-21-eagle3-speculation", "2026-02-23-flashinfer-allreduce-fusion",
                              "2026-02-23-torch-symm-mem"]
    assert first.blockers == ["eagle3-verify-allreduce-latency", "flashinfer-allreduce-fusion-jit-no-sm120",
                              "torch-symm-mem-no-capability-12"]
    assert first.fixed_by == [{"cuda": ">=13.0"}]
    assert (first.source, first.linked_by, first.disputes, first.also_recorded_as) == ("campaign", {}, [], [])
    # --now: what still blocks the current stack first, the history beside
    assert [r.id for r in roots(kg, now_first=True)] == ["ep-a2a-gpu-memory-exhausted",
                                                         "nccl-tree-incompatible-with-cuda-graphs",
                                                         "pcie-bus-contention", SM120]


def test_ranking_counts_attempts_through_caused_blockers(write_tree):
    root = write_tree({
        "platforms/p.yaml": {"title": "p", "gpu": "g", "gpu_count": 1, "compute_capability": "9.0"},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "p",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}, "baseline": "1 tok/s"},
        "blockers/root-a.yaml": {"title": "A"},
        "blockers/root-b.yaml": {"title": "B"},
        "blockers/mid.yaml": {"title": "mid", "caused_by": ["root-a"]},
        "blockers/leaf.yaml": {"title": "leaf", "caused_by": ["mid", "root-b"]},
        **{f"attempts/x{i}.yaml": {"title": f"x{i}", "date": "2026-01-0%d" % (i + 1), "campaign": "c",
                                   "approach": "a", "outcome": "failed", "blocked_by": [b]}
           for i, b in enumerate(["leaf", "mid", "root-b", "leaf"])},
    })
    ranked = roots(load_graph(root))
    # root-a blocks x0, x1, x3 (through mid and leaf); root-b blocks x0, x2, x3
    assert [(r.id, r.attempts) for r in ranked] == [("root-a", ["x0", "x1", "x3"]), ("root-b", ["x0", "x2", "x3"])]
    assert ranked[0].blockers == ["leaf", "mid"]


def test_why_gives_every_chain_to_the_root_causes():
    res = why(load_graph(CAMPAIGN_RECORDS), "2026-02-21-eagle3-speculation")
    assert [[l.id for l in chain] for chain in res.chains] == [
        ["eagle3-verify-allreduce-latency", "flashinfer-allreduce-fusion-jit-no-sm120", SM120],
        ["eagle3-verify-allreduce-latency", "torch-symm-mem-no-capability-12", SM120],
    ]
    assert res.chains[0][-1].fixed_by == [{"cuda": ">=13.0"}] and res.chains[0][-1].is_root


def test_drafts_are_counted_apart_from_reviewed_attempts(campaign_copy):
    draft = campaign_copy / "attempts" / "2026-02-28-imported-symm-mem.yaml"
    draft.write_text("title: imported\ndate: 2026-02-28\ncampaign: kimi-k25-eagle3-blackwell\napproach: x\n"
                     "outcome: failed\nerror: 'KeyError: 12'\nblocked_by: [torch-symm-mem-no-capability-12]\n"
                     "status: draft\n", encoding="utf-8")
    first = next(r for r in roots(load_graph(campaign_copy)) if r.id == SM120)
    assert len(first.attempts) == 3
    assert first.drafts == ["2026-02-28-imported-symm-mem"]
