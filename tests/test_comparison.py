"""kb.queries.compare and ``kb diff``: what differs between two attempts, and which pairs get pages."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS

from kb.cli import cli
from kb.errors import QueryError
from kb.models import Attempt
from kb.pipeline import load_graph
from kb.queries import diff_attempts
from kb.queries.compare import compare_pairs

E128 = "2026-02-21-eagle3-speculation"
E13 = "2026-02-27-eagle3-cuda13"
TREE = "2026-02-23-nccl-tree"


@pytest.fixture(scope="module")
def kg():
    return load_graph(CAMPAIGN_RECORDS)


def test_diff_of_the_two_eagle3_runs(kg) -> None:
    d = diff_attempts(kg, E128, E13)
    assert d.outcome == ("regressed", "improved")
    assert d.stack == ("cuda-12.8", "cuda-13.0")
    head = d.headline
    assert (head.name, head.a, head.b, head.unit) == ("output_throughput", 54.1, 96.1, "tok/s")
    assert head.delta == pytest.approx(42.0) and head.pct == pytest.approx(77.63, abs=0.01) and head.better is True
    assert d.metrics[0] is head  # the headline first
    flags = [(c.key, c.a, c.b) for c in d.sections["flags"]]
    assert flags == [("--enable-flashinfer-allreduce-fusion", None, "")]
    assert d.same["flags"] == 3
    comps = {c.key: (c.a, c.b, c.direction) for c in d.sections["components"]}
    assert comps["cuda"] == ("12.8.1", "13.0.1", "upgrade")
    assert comps["torch"] == ("2.10.0+cu128", "2.11.0.dev20260220+cu130", "upgrade")
    assert "driver" not in comps  # the same driver on both stacks
    assert d.sections["platform"] == [] and d.same["platform"] == 4
    assert d.blockers == {"only_a": ["eagle3-verify-allreduce-latency"], "only_b": [], "both": []}


def test_diff_env_and_reverse_direction(kg) -> None:
    d = diff_attempts(kg, TREE, E128)
    assert [(c.key, c.a, c.b) for c in d.sections["env"]] == [("NCCL_ALGO", "Tree", None)]
    back = diff_attempts(kg, E13, E128)
    assert back.headline.delta == pytest.approx(-42.0) and back.headline.better is False
    assert {c.key: c.direction for c in back.sections["components"]}["cuda"] == "downgrade"


def test_diff_unknown_id_names_it_with_a_hint(kg) -> None:
    with pytest.raises(QueryError, match=r"no attempt with id '2026-02-21-eagle3-speculaton'.*did you mean 2026-02-21-eagle3-speculation"):
        diff_attempts(kg, "2026-02-21-eagle3-speculaton", E13)
    with pytest.raises(QueryError, match="no attempt with id 'cuda-12.8'"):
        diff_attempts(kg, "cuda-12.8", E13)  # a stack, not an attempt


def test_published_pairs_are_bounded_and_hold_the_eagle3_pair(kg) -> None:
    pairs = compare_pairs(kg)
    keys = {(p.a, p.b): p.why for p in pairs}
    assert keys[(E128, E13)] == "decision 2026-02-26-upgrade-to-cuda-13"
    assert keys[("2026-02-19-cuda-graph-max-bs-128", E13)] == "baseline"
    assert keys[("2026-02-23-flashinfer-allreduce-fusion", E13)] == "closest earlier run"  # the same flags
    pages = {(p.a, p.b) for p in pairs if p.page}
    assert (E128, E13) in pages and ("2026-02-23-flashinfer-allreduce-fusion", E13) not in pages
    n = len(kg.of_kind(Attempt))
    assert len(pages) <= n + 12 and len(pairs) <= 2 * n + 12 and len(pairs) < n * (n - 1) // 2
    assert len(keys) == len(pairs) and not any((b, a) in keys for a, b in keys)  # no repeats either way


def test_kb_diff_text_and_json() -> None:
    r = CliRunner().invoke(cli, ["--records", str(CAMPAIGN_RECORDS), "diff", E128, E13])
    assert r.exit_code == 0, r.output
    assert "* output_throughput: 54.1 → 96.1 tok/s  Δ +42 (+77.6 %)  better" in r.output
    assert "  ~ cuda: 12.8.1 → 13.0.1  (upgrade)" in r.output
    assert "  + --enable-flashinfer-allreduce-fusion" in r.output
    assert "outcome: regressed → improved" in r.output
    assert "  - eagle3-verify-allreduce-latency (only A)" in r.output
    assert "platform" not in r.output  # nothing differs there
    r = CliRunner().invoke(cli, ["--records", str(CAMPAIGN_RECORDS), "diff", E128, E13, "--json"])
    assert r.exit_code == 0
    data = json.loads(r.output)
    assert data["metrics"][0]["pct"] == pytest.approx(77.63, abs=0.01)
    assert data["sections"]["components"][0] == {"key": "cuda", "a": "12.8.1", "b": "13.0.1", "direction": "upgrade"}
    r = CliRunner().invoke(cli, ["--records", str(CAMPAIGN_RECORDS), "diff", "nope", E13])
    assert r.exit_code == 1 and "no attempt with id 'nope'" in r.output
