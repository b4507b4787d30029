"""kb why, kb unblocks and kb graph through the CLI: text, --json, exit codes (0 ok, 1 failed query
or invalid records, 2 bad usage)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from unblock_cases import CASES, GATE, SYMM, TWO

from kb.cli import cli


@pytest.fixture
def run(write_tree):
    root = write_tree(CASES)

    def invoke(*args: str):
        return CliRunner().invoke(cli, ["--records", str(root), *args])

    return invoke


def test_why_walks_every_chain_with_fixes_and_workarounds(run):
    r = run("why", "2026-02-24-both-allreduces")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "2026-02-24-both-allreduces: Both fast allreduces (failed)"
    assert f"    → {GATE} [root cause]: FlashInfer allreduce-fusion JIT gate lists only majors 9 and 10" in lines
    assert "      fixed by flashinfer>=0.6.17, cuda>=12.9" in lines
    assert "      no known fix (workaround: Leave --enable-torch-symm-mem off.)" in lines


def test_why_json_parses(run):
    r = run("why", "2026-02-24-both-allreduces", "--json")
    assert r.exit_code == 0
    data = json.loads(r.output)
    assert [[link["id"] for link in chain] for chain in data["chains"]] == [[TWO, GATE], [TWO, SYMM]]
    assert data["chains"][1][1] == {"id": SYMM, "title": "torch symmetric-memory size table keyed by compute capability 9 and 10",
                                    "fixed_by": [], "workaround": "Leave --enable-torch-symm-mem off.", "is_root": True,
                                    "fix": "no known fix (workaround: Leave --enable-torch-symm-mem off.)"}


def test_why_reports_signature_matches_not_yet_linked(write_tree):
    root = write_tree({**CASES, "attempts/2026-03-01-symm-again.yaml": {
        "title": "Symm mem again", "date": "2026-03-01", "campaign": "blackwell", "approach": "retry",
        "outcome": "failed", "error": "Traceback ...\nKeyError: 12"}})
    r = CliRunner().invoke(cli, ["--records", str(root), "why", "2026-03-01-symm-again"])
    assert r.exit_code == 0
    assert "  no blocker recorded for this attempt" in r.output
    assert f"  the error text also matches: {SYMM}" in r.output
    r = CliRunner().invoke(cli, ["--records", str(root), "why", "2026-02-23-symm-mem", "--json"])
    assert json.loads(r.output)["matches"] == []  # already linked


def test_why_unknown_attempt_exits_1_with_a_hint(run):
    r = run("why", "2026-02-24-both-allreduce")
    assert r.exit_code == 1
    assert "unknown attempt '2026-02-24-both-allreduce'; did you mean '2026-02-24-both-allreduces'?" in r.output


def test_unblocks_json_parses(run):
    r = run("unblocks", "cuda=13.0", "flashinfer=0.6.17", "--from", "cu128", "--json")
    assert r.exit_code == 0
    data = json.loads(r.output)
    assert data["change"] == {"cuda": "13.0", "flashinfer": "0.6.17"}
    assert data["from_stack"] == "cu128"
    assert [x["id"] for x in data["retry"]] == ["2026-02-21-eagle3", "2026-02-23-fusion"]
    assert {x["id"]: x["missing"] for x in data["still_blocked"]}[TWO] == [f"cause {SYMM} (no known fix)"]


@pytest.mark.parametrize("args, message", [
    (["unblocks"], "nothing to change"),
    (["unblocks", "cuda=13.0", "--from", "nope"], "unknown stack 'nope'"),
    (["unblocks", "cuda=13.0", "--campaign", "nope"], "unknown campaign 'nope'"),
])
def test_unblocks_bad_options_are_usage_errors_exit_2(run, args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output


def test_an_unknown_attempt_is_a_failed_query_exit_1(run):
    r = run("why", "2026-02-23-no-such-attempt")
    assert r.exit_code == 1
    assert "unknown attempt '2026-02-23-no-such-attempt'" in r.output


def test_an_unknown_campaign_exits_2_in_every_command(write_tree):
    """One user mistake, one exit code: --campaign naming no campaign is bad usage everywhere."""
    from click.testing import CliRunner

    from kb.cli import cli

    root = write_tree(CASES)
    log = tmp_log = root.parent / "n.md"
    tmp_log.write_text("# 2026-03-01\n\nServed at 7.7 tok/s.\n", encoding="utf-8")
    commands = [["unblocks", "cuda=13.0", "--campaign", "nope"],
                ["import", str(log), "--campaign", "nope", "--dry-run"],
                ["log", "-t", "x", "-a", "y", "-o", "neutral", "--campaign", "nope", "--no-interactive"],
                ["new", "decision", "--campaign", "nope", "T"]]
    for args in commands:
        r = CliRunner().invoke(cli, ["--records", str(root), *args])
        assert r.exit_code == 2, (args, r.output)
        assert "nope" in r.output, (args, r.output)


@pytest.mark.parametrize("args, message", [
    (["unblocks", "cuda"], "'cuda' is not a change; write component=version, e.g. cuda=13.0"),
    (["unblocks", "cuda=thirteen"], "'thirteen' is not a PEP 440 version"),
])
def test_a_malformed_change_is_bad_usage(run, args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output


def test_bad_usage_exits_2(run):
    assert run("why").exit_code == 2
    assert run("graph", "--format", "svg").exit_code == 2
    assert run("unblocks", "--frm", "cu128").exit_code == 2


def test_invalid_records_exit_1_for_every_query(write_tree):
    root = write_tree({**CASES, "attempts/2026-03-01-bad.yaml": {"title": "bad", "date": "2026-03-01",
                                                                 "campaign": "nope", "approach": "x", "outcome": "neutral"}})
    for args in (["why", "2026-02-23-fusion"], ["unblocks", "cuda=13.0"], ["graph"]):
        r = CliRunner().invoke(cli, ["--records", str(root), *args])
        assert r.exit_code == 1
        assert "records/attempts/2026-03-01-bad.yaml:3: campaign: unknown campaign 'nope'" in r.output


def test_graph_mermaid(run):
    r = run("graph", "--format", "mermaid")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "flowchart LR"
    assert '    n_2026_02_23_fusion["attempt: FlashInfer allreduce fusion"]' in lines
    assert "    n_2026_02_23_fusion -->|blocked_by| n_flashinfer_allreduce_fusion_jit_gate" in lines
    assert "    n_fast_allreduce_unavailable -->|caused_by| n_torch_symm_mem_no_capability_D12" not in lines
    assert "    n_fast_allreduce_unavailable -->|caused_by| n_torch_symm_mem_no_capability_12" in lines
    assert "    n_cu130 -->|based_on| n_cu128" in lines


def test_graph_mermaid_ids_stay_distinct(write_tree):
    root = write_tree({"stacks/a-b.yaml": {"title": "dash"}, "stacks/a_b.yaml": {"title": "underscore"},
                       "stacks/a.b.yaml": {"title": "dot"}})
    r = CliRunner().invoke(cli, ["--records", str(root), "graph"])
    nodes = [line.split("[", 1)[0].strip() for line in r.output.splitlines()[1:]]
    assert nodes == ["n_a_b", "n_a_Db", "n_a_Ub"]  # a-b, a.b, a_b (sorted by id)


def test_graph_dot(run):
    r = run("graph", "--format", "dot")
    assert r.exit_code == 0
    assert r.output.startswith("digraph kb {\n  rankdir=LR;\n")
    assert '  "2026-02-23-fusion" -> "flashinfer-allreduce-fusion-jit-gate" [label="blocked_by"];' in r.output
    assert r.output.rstrip().endswith("}")


def test_graph_json_and_the_json_flag_agree(run):
    a, b = run("graph", "--format", "json"), run("graph", "--json")
    assert a.exit_code == b.exit_code == 0
    assert json.loads(a.output) == json.loads(b.output)
    data = json.loads(a.output)
    assert len(data["nodes"]) == len(CASES)
    assert {"source": TWO, "target": SYMM, "type": "caused_by"} in data["edges"]
    assert {"source": "2026-02-21-eagle3", "target": "cu128", "type": "uses_stack"} in data["edges"]
