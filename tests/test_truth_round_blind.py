"""Blind tests of three behaviours, written from their description only:

A. ``kb check`` folds the warnings that pair one attempt with several blockers into one line per
   record and kind ("; and N more like it: about ..."), keeps a decision's own warnings apart, and
   ends every warning line with the command that explains it.
B. ``kb log`` reports, but does not link, a matched blocker that the new attempt cannot have met
   (its stack resolves it, it does not apply there, or the run's TP size is outside it).
C. The site marks a decision that a catalog disputes ("Disputed by a catalog" box, "(disputed by a
   catalog: see Decision Outcome below)", the Upgrade paths page's "(disputed: N)"), records named by
   title, and an attempt page shows both deltas when
   its own baseline attempt differs from the campaign baseline.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from click.testing import CliRunner

from kb.cli import cli

ROOT = Path(__file__).resolve().parent.parent
LIVE_RECORDS = ROOT / "records"

PLATFORM = {"title": "8x RTX PRO 6000", "gpu": "NVIDIA RTX PRO 6000 Blackwell", "gpu_count": 8,
            "compute_capability": "12.0", "interconnect": "PCIe Gen5", "nvlink": False}
SIG = "No supported CUDA architectures found for major versions [9, 10]"


def kb(root: Path, *args: str, input: str | None = None):
    if args[:1] == ("check",) and root.name == "records":
        # run beside the folder, as a user does: the "[explained by: ...]" commands then need no --records
        old = os.getcwd()
        os.chdir(root.parent)
        try:
            return CliRunner().invoke(cli, ["--records", "records", *args], input=input)
        finally:
            os.chdir(old)
    return CliRunner().invoke(cli, ["--records", str(root), *args], input=input)


def small(blockers: dict[str, Any], attempts: dict[str, Any], components: dict[str, Any] | None = None,
          extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A one-stack campaign: stack s (cuda 12.9.1, flashinfer 0.6.4 unless given) on 8x PCIe SM120."""
    files: dict[str, Any] = {
        "platforms/rtx.yaml": PLATFORM,
        "stacks/s.yaml": {"title": "the stack", "components": components or {"cuda": "12.9.1", "flashinfer": "0.6.4"}},
        "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "rtx", "stack": "s",
                             "metric": {"name": "output_throughput", "unit": "tok/s"}},
    }
    for bid, b in blockers.items():
        files[f"blockers/{bid}.yaml"] = b
    for aid, a in attempts.items():
        files[f"attempts/{aid}.yaml"] = {"title": f"run {aid}", "date": aid[:10], "campaign": "c",
                                         "approach": "try it", "stack": "s", **a}
    files.update(extra or {})
    return files


def fixed(i: int) -> dict[str, Any]:
    """A blocker stack s (flashinfer 0.6.4) resolves."""
    return {"title": f"gate {i}", "fixed_by": [{"flashinfer": f">=0.6.{i % 4}"}]}


def failed(*blocked_by: str) -> dict[str, Any]:
    return {"outcome": "failed", "error": "RuntimeError: boom", "blocked_by": list(blocked_by)}


def resolved_msg(bid: str, req: str) -> str:
    return (f"warning: blocked_by names {bid}, which stack s resolves ({req}): either the attempt ran on another "
            f"stack, or {bid}'s fixed_by or applies_when is wrong")


@pytest.fixture
def check(write_tree: Callable[[dict[str, Any]], Path]) -> Callable[..., Any]:
    def run(files: dict[str, Any], *args: str) -> Any:
        return kb(write_tree(files), "check", *args)

    return run


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """A writable copy of the live campaign (never /work/main/records itself)."""
    dest = tmp_path / "records"
    shutil.copytree(LIVE_RECORDS, dest)
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def lines_of(r: Any) -> list[str]:
    return r.stdout.splitlines()


# =========================================================================== A: kb check


def test_a_single_resolved_blocker_has_no_fold_tail(check):
    r = check(small({"g1": fixed(1)}, {"2026-03-01-run": failed("g1")}))
    assert r.exit_code == 0, r.output
    assert lines_of(r) == [
        "records/attempts/2026-03-01-run.yaml:9: blocked_by.0: " + resolved_msg("g1", "flashinfer>=0.6.1")
        + " [explained by: kb why 2026-03-01-run]"]


def test_a_three_resolved_blockers_fold_into_one_line(check):
    r = check(small({f"g{i}": fixed(i) for i in (1, 2, 3)}, {"2026-03-01-run": failed("g1", "g2", "g3")}))
    assert r.exit_code == 0, r.output
    assert lines_of(r) == [
        "records/attempts/2026-03-01-run.yaml:9: blocked_by.0: " + resolved_msg("g1", "flashinfer>=0.6.1")
        + "; and 2 more like it: about g2, g3 [explained by: kb why 2026-03-01-run]"]
    assert "1 warning" in r.stderr


def test_a_seven_resolved_blockers_list_five_ids_then_how_many_more(check):
    ids = [f"g{i}" for i in range(1, 8)]
    r = check(small({g: fixed(i) for i, g in enumerate(ids, 1)}, {"2026-03-01-run": failed(*ids)}))
    lines = lines_of(r)
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("records/attempts/2026-03-01-run.yaml:9: blocked_by.0: warning: blocked_by names g1,")
    assert "; and 6 more like it: about g2, g3, g4, g5, g6" in line
    assert "and 1 more" in line.split("more like it:")[1]
    assert "g7" not in line
    assert line.endswith(" [explained by: kb why 2026-03-01-run]")


def test_a_six_blockers_list_exactly_five_ids_and_no_count_of_more(check):
    ids = [f"g{i}" for i in range(1, 7)]
    r = check(small({g: fixed(i) for i, g in enumerate(ids, 1)}, {"2026-03-01-run": failed(*ids)}))
    line, = lines_of(r)
    tail = line.split("; and ", 1)[1]
    assert tail == "5 more like it: about g2, g3, g4, g5, g6 [explained by: kb why 2026-03-01-run]"


def test_a_the_fold_describes_the_first_by_field_not_the_first_by_id(check):
    blockers = {f"g{i}": fixed(i) for i in (1, 2, 3)}
    r = check(small(blockers, {"2026-03-01-run": failed("g3", "g1", "g2")}))
    line, = lines_of(r)
    assert line.startswith("records/attempts/2026-03-01-run.yaml:9: blocked_by.0: " + resolved_msg("g3", "flashinfer>=0.6.3"))
    about = line.split("more like it: about ")[1].split(" [explained by")[0]
    assert sorted(about.split(", ")) == ["g1", "g2"]
    assert "; and 2 more like it:" in line


def test_a_a_standing_blocker_stays_out_of_the_fold(check):
    blockers = {"st": {"title": "stands", "status": "open"}, "fa": fixed(1), "fb": fixed(2)}
    r = check(small(blockers, {"2026-03-01-run": failed("st", "fa", "fb")}))
    assert lines_of(r) == [
        "records/attempts/2026-03-01-run.yaml:10: blocked_by.1: " + resolved_msg("fa", "flashinfer>=0.6.1")
        + "; and 1 more like it: about fb [explained by: kb why 2026-03-01-run]"]


def test_a_resolved_not_applicable_and_missing_component_fold_together(check):
    blockers = {"fx": fixed(0), "na": {"title": "NVLink only", "applies_when": {"interconnect": "NVLink"}},
                "nc": {"title": "nccl thing", "component": "nccl", "status": "open"},
                "st": {"title": "stands", "status": "open"}}
    r = check(small(blockers, {"2026-03-01-a": failed("st", "nc", "na", "fx")}))
    line, = lines_of(r)
    assert line.startswith("records/attempts/2026-03-01-a.yaml:10: blocked_by.1: warning: blocked_by names nc, "
                           "which lives in nccl, but stack s records no nccl")
    assert "; and 2 more like it: about " in line
    about = line.split("more like it: about ")[1].removesuffix(" [explained by: kb why 2026-03-01-a]")
    assert sorted(about.split(", ")) == ["fx", "na"]


def test_a_each_attempt_gets_its_own_folded_line(check):
    blockers = {f"g{i}": fixed(i) for i in (1, 2)}
    r = check(small(blockers, {"2026-03-01-a": failed("g1", "g2"),
                               "2026-03-02-b": {**failed("g2", "g1"), "outcome": "regressed",
                                                "metrics": {"output_throughput": "50 tok/s"}}}))
    assert lines_of(r) == [
        "records/attempts/2026-03-01-a.yaml:9: blocked_by.0: " + resolved_msg("g1", "flashinfer>=0.6.1")
        + "; and 1 more like it: about g2 [explained by: kb why 2026-03-01-a]",
        "records/attempts/2026-03-02-b.yaml:9: blocked_by.0: " + resolved_msg("g2", "flashinfer>=0.6.2")
        + "; and 1 more like it: about g1 [explained by: kb why 2026-03-02-b]",
    ]


def test_a_success_where_two_blockers_of_its_flag_stand_is_one_warning(check):
    blockers = {"b1": {"title": "one", "flags": ["--enable-x"], "applies_when": {"flashinfer": "<0.6.17"}},
                "b2": {"title": "two", "flags": ["--enable-x"], "fixed_by": [{"flashinfer": ">=0.7"}]}}
    ok = {"outcome": "improved", "metrics": {"output_throughput": "90 tok/s"}, "config": {"flags": ["--enable-x"]}}
    r = check(small(blockers, {"2026-03-01-ok": ok}))
    line, = lines_of(r)
    assert line.startswith("records/attempts/2026-03-01-ok.yaml:")
    assert ": outcome: warning: outcome is improved on stack s, where blocker b1 still stands" in line
    assert "it runs with --enable-x, the flag that turns that feature on" in line
    assert line.endswith("; and 1 more like it: about b2 [explained by: kb why 2026-03-01-ok]")


@pytest.mark.parametrize("n", [2, 3])
def test_a_success_whose_error_matches_several_standing_blockers_is_one_warning(check, n):
    words = ["alpha", "beta", "gamma"][:n]
    blockers = {f"b{i}": {"title": f"bug {w}", "signatures": [f"{w} failure code {i}"]} for i, w in enumerate(words, 1)}
    err = "saw " + " and ".join(f"{w} failure code {i}" for i, w in enumerate(words, 1))
    ok = {"outcome": "improved", "metrics": {"output_throughput": "90 tok/s"}, "error": err}
    r = check(small(blockers, {"2026-03-01-ok": ok}))
    line, = lines_of(r)
    assert ": error: warning: outcome is improved, yet its error matches blocker b1 (signature 'alpha failure code 1')" in line
    more = ", ".join(f"b{i}" for i in range(2, n + 1))
    assert line.endswith(f"; and {n - 1} more like it: about {more} [explained by: kb why 2026-03-01-ok]")


def test_a_two_kinds_on_one_attempt_are_two_lines(check):
    """A standing blocker of the run's flag and another whose signature the error shows: two kinds,
    so two warnings (folding is per kind)."""
    blockers = {"bf": {"title": "flag bug", "flags": ["--enable-x"], "status": "open"},
                "bs": {"title": "sig bug", "signatures": ["zeta failure code 5"]}}
    ok = {"outcome": "improved", "metrics": {"output_throughput": "90 tok/s"}, "config": {"flags": ["--enable-x"]},
          "error": "zeta failure code 5 once"}
    lines = lines_of(check(small(blockers, {"2026-03-01-ok": ok})))
    assert len(lines) == 2, lines
    assert sum(": outcome: warning: outcome is improved on stack s, where blocker bf still stands" in x for x in lines) == 1
    assert sum(": error: warning: outcome is improved, yet its error matches blocker bs" in x for x in lines) == 1
    assert not any("more like it" in x for x in lines)
    assert all(x.endswith(" [explained by: kb why 2026-03-01-ok]") for x in lines)


def test_a_catalog_blockers_of_a_success_fold_on_the_campaign(campaign):
    edit(campaign / "attempts" / "2026-02-27-eagle3-cuda13.yaml", '"--enable-flashinfer-allreduce-fusion"]',
         '"--enable-flashinfer-allreduce-fusion", "--enable-torch-symm-mem"]')
    lines = lines_of(kb(campaign, "check"))
    att = [x for x in lines if x.startswith("records/attempts/2026-02-27-eagle3-cuda13.yaml")]
    assert len(att) == 1, lines
    assert att[0].startswith("records/attempts/2026-02-27-eagle3-cuda13.yaml:11: outcome: warning: outcome is improved "
                             "on stack cuda-13.0, where blocker flashinfer-allreduce-fusion-sm12x-gate (catalog blackwell")
    assert att[0].endswith("; and 1 more like it: about sglang-symm-mem-size-table-keyerror-12 "
                           "[explained by: kb why 2026-02-27-eagle3-cuda13]")


def test_a_campaign_and_catalog_blockers_resolved_on_the_stack_fold(campaign):
    (campaign / "attempts" / "2026-02-28-retry-jit.yaml").write_text(yaml.safe_dump({
        "title": "Retry JIT on 13", "date": "2026-02-28", "campaign": "kimi-k25-eagle3-blackwell", "approach": "again",
        "platform": "rtx-pro-6000-blackwell-x8", "stack": "cuda-13.0", "outcome": "failed", "error": "boom",
        "blocked_by": ["sm120-unsupported-by-cuda-12.8-stack", "flashinfer-jit-sm12x-needs-cuda-12.9"]},
        sort_keys=False), encoding="utf-8")
    lines = [x for x in lines_of(kb(campaign, "check")) if "2026-02-28-retry-jit" in x.split(":")[0]]
    assert lines == [
        "records/attempts/2026-02-28-retry-jit.yaml:10: blocked_by.0: warning: blocked_by names "
        "sm120-unsupported-by-cuda-12.8-stack, which stack cuda-13.0 resolves (cuda>=13.0): either the attempt ran on "
        "another stack, or sm120-unsupported-by-cuda-12.8-stack's fixed_by or applies_when is wrong; and 1 more like "
        "it: about flashinfer-jit-sm12x-needs-cuda-12.9 [explained by: kb why 2026-02-28-retry-jit]"]


def test_a_the_campaign_keeps_both_disputes_of_one_resolves_item(campaign):
    """Two warnings on the decision's resolves.0 (one per disputing catalog record): a decision's own
    field, so not folded; every line ends with the command that explains it."""
    r = kb(campaign, "check")
    assert r.exit_code == 0, r.output
    lines = lines_of(r)
    assert len(lines) == 3, lines
    dec = [x for x in lines if x.startswith("records/decisions/2026-02-26-upgrade-to-cuda-13.yaml:91: resolves.0: ")]
    assert len(dec) == 2
    assert any("catalog blackwell's flashinfer-allreduce-fusion-sm12x-gate (same error signature)" in x for x in dec)
    assert any("catalog blackwell's sglang-symm-mem-size-table-keyerror-12 (same error signature)" in x for x in dec)
    assert not any("more like it" in x for x in lines)
    assert all(x.endswith(" [explained by: kb unblocks --from cuda-12.8 --to cuda-13.0]") for x in dec)
    att = [x for x in lines if x not in dec]
    assert att[0].endswith(" [explained by: kb why 2026-02-27-eagle3-cuda13]")


def decision(**over: Any) -> dict[str, Any]:
    return {"title": "Up to 13", "status": "accepted", "date": "2026-03-02", "campaign": "c", "context": "ctx",
            "decision_drivers": ["d"], "considered_options": [{"title": "Up"}],
            "outcome": {"chosen": "Up", "rationale": "r"}, "stack_change": {"from": "s", "to": "s13"}, **over}


S13 = {"stacks/s13.yaml": {"title": "new", "base": "s", "components": {"cuda": "13.0"}}}


def test_a_two_resolves_items_of_a_decision_are_not_folded(check):
    blockers = {"ba": {"title": "needs cuda 14", "fixed_by": [{"cuda": ">=14"}]},
                "bb": {"title": "needs cuda 15", "fixed_by": [{"cuda": ">=15"}]}}
    r = check(small(blockers, {}, extra={**S13, "decisions/2026-03-02-up.yaml": decision(resolves=["ba", "bb"])}))
    assert r.exit_code == 0, r.output
    lines = lines_of(r)
    assert len(lines) == 2, lines
    assert lines[0].startswith("records/decisions/2026-03-02-up.yaml:") and ": resolves.0: warning: resolves ba, which still stands under s13 (cuda>=14)" in lines[0]
    assert ": resolves.1: warning: resolves bb, which still stands under s13 (cuda>=15)" in lines[1]
    assert all(x.endswith(" [explained by: kb unblocks --from s --to s13]") for x in lines)
    assert not any("more like it" in x for x in lines)


def test_a_placeholders_carry_no_explained_by_suffix(check):
    blockers = {"ba": {"title": "needs cuda 14", "fixed_by": [{"cuda": ">=14"}]},
                "todo": {"title": "a gate", "description": "TODO: what fails, where and why"}}
    r = check(small(blockers, {}, extra={**S13, "decisions/2026-03-02-up.yaml": decision(
        context="TODO: the problem and the forces at play", resolves=["ba"])}))
    lines = lines_of(r)
    todo = [x for x in lines if "TODO" in x]
    assert len(todo) == 2, lines
    assert {x.split(":")[0] for x in todo} == {"records/blockers/todo.yaml", "records/decisions/2026-03-02-up.yaml"}
    assert not any("[explained by:" in x for x in todo)
    rest = [x for x in lines if x not in todo]
    assert rest and all(x.endswith(" [explained by: kb unblocks --from s --to s13]") for x in rest)


def test_a_four_attempts_on_one_blocker_print_one_group_line(check):
    atts = {f"2026-03-0{i}-run{i}": failed("g1") for i in range(1, 5)}
    files = small({"g1": fixed(1)}, atts)
    r = check(files)
    lines = lines_of(r)
    assert len(lines) == 1, lines
    assert lines[0].startswith("records/blockers/g1.yaml:")
    assert "4 attempts that did not succeed name this blocker on stacks where it does not stand" in lines[0]
    v = check(files, "-v")
    assert [x.split(":")[0] for x in lines_of(v)] == [f"records/attempts/2026-03-0{i}-run{i}.yaml" for i in range(1, 5)]
    assert all(x.endswith(f" [explained by: kb why {x.split('/')[-1].split('.yaml')[0]}]") for x in lines_of(v))


def test_a_three_attempts_on_one_blocker_are_not_grouped(check):
    r = check(small({"g1": fixed(1)}, {f"2026-03-0{i}-run{i}": failed("g1") for i in range(1, 4)}))
    lines = lines_of(r)
    assert len(lines) == 3
    assert all(x.startswith("records/attempts/") and "blocked_by.0: " in x for x in lines)


def test_a_four_attempts_each_with_two_blockers_group_and_fold(check):
    files = small({"g1": fixed(1), "g2": fixed(2)}, {f"2026-03-0{i}-run{i}": failed("g1", "g2") for i in range(1, 5)})
    lines = lines_of(check(files))
    assert len(lines) == 1 and lines[0].startswith("records/blockers/g1.yaml:"), lines
    v = lines_of(check(files, "-v"))
    assert len(v) == 4
    for i, x in enumerate(v, 1):
        assert x.startswith(f"records/attempts/2026-03-0{i}-run{i}.yaml:9: blocked_by.0: warning: blocked_by names g1,")
        assert x.endswith(f"; and 1 more like it: about g2 [explained by: kb why 2026-03-0{i}-run{i}]")


def test_a_json_lists_the_folded_warning(check):
    r = check(small({f"g{i}": fixed(i) for i in (1, 2, 3)}, {"2026-03-01-run": failed("g1", "g2", "g3")}), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["problems"] == []
    assert data["warnings"] == [{
        "path": "records/attempts/2026-03-01-run.yaml", "line": 9, "field": "blocked_by.0",
        "message": resolved_msg("g1", "flashinfer>=0.6.1") + "; and 2 more like it: about g2, g3 "
                   "[explained by: kb why 2026-03-01-run]"}]


def test_a_json_lists_grouped_warnings_each_and_the_group(check):
    r = check(small({"g1": fixed(1)}, {f"2026-03-0{i}-run{i}": failed("g1") for i in range(1, 5)}), "--json")
    data = json.loads(r.stdout)
    assert [w["path"] for w in data["warnings"]] == [f"records/attempts/2026-03-0{i}-run{i}.yaml" for i in range(1, 5)]
    assert len(data["groups"]) == 1
    assert data["groups"][0]["path"] == "records/blockers/g1.yaml"
    assert data["groups"][0]["warnings"] == [0, 1, 2, 3]


# =========================================================================== B: kb log

LOG_FILES = {
    "platforms/rtx.yaml": PLATFORM,
    "stacks/cu128.yaml": {"title": "old", "components": {"cuda": "12.8.1", "flashinfer": "0.6.4", "torch": "2.10.0+cu128"}},
    "stacks/cu130.yaml": {"title": "new", "base": "cu128", "components": {"cuda": "13.0", "flashinfer": "0.6.17"}},
    "campaigns/c.yaml": {"title": "c", "model": "m", "platform": "rtx", "stack": "cu128",
                         "metric": {"name": "output_throughput", "unit": "tok/s"}},
    "blockers/gate.yaml": {"title": "JIT gate", "fixed_by": [{"flashinfer": ">=0.6.17"}], "signatures": [SIG]},
    "blockers/nvl.yaml": {"title": "NVLink bug", "applies_when": {"interconnect": "NVLink"},
                          "signatures": ["NVLS multicast failed"]},
    "blockers/vl.yaml": {"title": "vllm bug", "component": "vllm", "signatures": ["vllm custom op missing"]},
    "blockers/tp.yaml": {"title": "big TP bug", "applies_when": {"tensor_parallel_size": ">=4"},
                         "signatures": ["allgather size mismatch"]},
    "blockers/oom.yaml": {"title": "standing OOM", "signatures": ["expert buffer exhausted on rank"]},
}
LOG = ["log", "-t", "Retry", "-a", "again", "--date", "2026-03-01", "-o", "failed"]
NI = [*LOG, "--no-interactive"]
RESOLVED_WHY = "stack cu130 resolves it (flashinfer>=0.6.17)"


@pytest.fixture
def logroot(write_tree) -> Path:
    return write_tree(LOG_FILES)


def written(r: Any) -> dict[str, Any]:
    return yaml.safe_load(Path(r.stdout.strip()).read_text(encoding="utf-8"))


def test_b_a_match_the_stack_resolves_is_reported_not_linked(logroot):
    r = kb(logroot, *NI, "-s", "cu130", "--error", f"RuntimeError: {SIG}", "--link-matches")
    assert r.exit_code == 0, r.output
    assert f"not linked: {RESOLVED_WHY}; add -b gate if the run met it all the same" in r.stderr
    assert "blocked_by" not in written(r)


def test_b_the_same_match_on_a_stack_where_it_stands_is_linked(logroot):
    r = kb(logroot, *NI, "-s", "cu128", "--error", f"RuntimeError: {SIG}", "--link-matches")
    assert r.exit_code == 0, r.output
    assert written(r)["blocked_by"] == ["gate"]
    assert "not linked" not in r.stderr
    assert "kb log: error text matches gate; fixed by flashinfer>=0.6.17 (linked)" in r.stderr


def test_b_json_gives_where_fixed_only_to_the_match_that_cannot_stand(logroot):
    a = json.loads(kb(logroot, *NI, "-s", "cu130", "--error", SIG, "--link-matches", "--json").stdout)
    assert a["matches"] == [{"id": "gate", "title": "JIT gate", "fix": "fixed by flashinfer>=0.6.17", "linked": False,
                             "where_fixed": RESOLVED_WHY}]
    b = json.loads(kb(logroot, *NI, "-s", "cu128", "--error", SIG, "--link-matches", "--json").stdout)
    assert len(b["matches"]) == 1 and "where_fixed" not in b["matches"][0]
    assert b["matches"][0]["linked"] is True


def test_b_a_blocker_of_another_interconnect_is_not_linked(logroot):
    r = kb(logroot, *NI, "-s", "cu128", "--error", "NCCL: NVLS multicast failed", "--link-matches", "--json")
    m, = json.loads(r.stdout)["matches"]
    assert m["id"] == "nvl" and m["linked"] is False
    assert m["where_fixed"] == "it does not apply on stack cu128 (applies only over NVLink; rtx has PCIe Gen5)"
    assert ("not linked: it does not apply on stack cu128 (applies only over NVLink; rtx has PCIe Gen5); "
            "add -b nvl if the run met it all the same") in r.stderr
    assert "blocked_by" not in yaml.safe_load(Path(json.loads(r.stdout)["path"]).read_text())


def test_b_a_blocker_whose_component_the_stack_lacks_is_not_linked(logroot):
    r = kb(logroot, *NI, "-s", "cu130", "--error", "vllm custom op missing", "--link-matches", "--json")
    m, = json.loads(r.stdout)["matches"]
    assert (m["id"], m["linked"], m["where_fixed"]) == ("vl", False, "it does not apply on stack cu130 (the stack has no vllm)")


@pytest.mark.parametrize(("flag", "linked"), [
    ("--tp 2", False), ("--tensor-parallel-size 2", False), ("-tp 2", False), ("--tp-size 1", False),
    ("--tp 8", True), ("--tensor-parallel-size 4", True),
])
def test_b_the_runs_tensor_parallel_size_decides_the_link(logroot, flag, linked):
    r = kb(logroot, *NI, "-s", "cu128", "--flag", flag, "--error", "allgather size mismatch", "--link-matches", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    m, = data["matches"]
    assert m["linked"] is linked
    rec = yaml.safe_load(Path(data["path"]).read_text())
    if linked:
        assert "where_fixed" not in m and rec["blocked_by"] == ["tp"]
    else:
        size = flag.split()[-1]
        assert m["where_fixed"] == f"it does not apply to this run (applies only at tensor-parallel size >=4; the run used {size})"
        assert "blocked_by" not in rec
        assert "add -b tp if the run met it all the same" in r.stderr


def test_b_of_four_matches_only_the_standing_one_is_linked(logroot):
    err = "NVLS multicast failed; vllm custom op missing; allgather size mismatch; expert buffer exhausted on rank 3"
    r = kb(logroot, *NI, "-s", "cu128", "--flag", "--tp 2", "--error", err, "--link-matches", "--json")
    data = json.loads(r.stdout)
    assert {m["id"]: m["linked"] for m in data["matches"]} == {"nvl": False, "vl": False, "tp": False, "oom": True}
    assert sorted(m["id"] for m in data["matches"] if "where_fixed" in m) == ["nvl", "tp", "vl"]
    assert yaml.safe_load(Path(data["path"]).read_text())["blocked_by"] == ["oom"]
    assert r.stderr.count("if the run met it all the same") == 3


def test_b_dash_b_links_a_where_fixed_match_all_the_same(logroot):
    r = kb(logroot, *NI, "-s", "cu130", "--error", SIG, "--link-matches", "-b", "gate")
    assert r.exit_code == 0, r.output
    assert written(r)["blocked_by"] == ["gate"]


def test_b_dry_run_shows_the_same_choice(logroot):
    before = sorted((logroot / "attempts").glob("*")) if (logroot / "attempts").exists() else []
    new = kb(logroot, *NI, "-s", "cu130", "--error", SIG, "--link-matches", "--dry-run")
    old = kb(logroot, *NI, "-s", "cu128", "--error", SIG, "--link-matches", "--dry-run")
    assert new.exit_code == old.exit_code == 0
    assert "blocked_by" not in new.stdout and "stack: cu130" in new.stdout
    assert "blocked_by:\n- gate\n" in old.stdout
    after = sorted((logroot / "attempts").glob("*")) if (logroot / "attempts").exists() else []
    assert after == before


def test_b_the_prompt_for_a_resolved_match_defaults_to_no(logroot):
    r = kb(logroot, *LOG, "--interactive", "--flag", "--tp 8", "-s", "cu130", "--error", SIG, input="\n")
    assert r.exit_code == 0, r.output
    assert (f"matches gate; fixed by flashinfer>=0.6.17, but {RESOLVED_WHY}. "
            "Link it into blocked_by anyway? [y/N]") in r.output
    assert "Link it into blocked_by? [Y/n]" not in r.output
    assert "blocked_by" not in yaml.safe_load(Path(r.stdout.strip().splitlines()[-1]).read_text())


def test_b_answering_yes_links_the_resolved_match(logroot):
    r = kb(logroot, *LOG, "--interactive", "--flag", "--tp 8", "-s", "cu130", "--error", SIG, input="y\n")
    assert r.exit_code == 0, r.output
    assert yaml.safe_load(Path(r.stdout.strip().splitlines()[-1]).read_text())["blocked_by"] == ["gate"]


def test_b_the_prompt_for_a_standing_match_defaults_to_yes(logroot):
    r = kb(logroot, *LOG, "--interactive", "--flag", "--tp 8", "-s", "cu128", "--error", SIG, input="\n")
    assert r.exit_code == 0, r.output
    assert "matches gate; fixed by flashinfer>=0.6.17. Link it into blocked_by? [Y/n]" in r.output
    assert "anyway" not in r.output
    assert yaml.safe_load(Path(r.stdout.strip().splitlines()[-1]).read_text())["blocked_by"] == ["gate"]


def test_b_the_prompt_names_why_a_tp_blocker_cannot_have_been_met(logroot):
    r = kb(logroot, *LOG, "--interactive", "--flag", "--tp 2", "-s", "cu128", "--error", "allgather size mismatch", input="\n")
    assert r.exit_code == 0, r.output
    assert ("matches tp; no known fix, but it does not apply to this run (applies only at tensor-parallel size >=4; "
            "the run used 2). Link it into blocked_by anyway? [y/N]") in r.output


CAMPAIGN_LOG = ["log", "-t", "Retry", "-a", "again", "--date", "2026-03-01", "--no-interactive", "-o", "failed",
                "--flag", "--tp 8", "--link-matches", "--json"]


def test_b_a_catalog_blocker_that_does_not_apply_on_cuda_13_is_not_linked(campaign):
    r = kb(campaign, *CAMPAIGN_LOG, "-s", "cuda-13.0", "--error", "RuntimeError: SM 12.x requires CUDA >= 12.9")
    data = json.loads(r.stdout)
    m, = data["matches"]
    assert m["id"] == "flashinfer-jit-sm12x-needs-cuda-12.9" and m["linked"] is False
    assert m["where_fixed"] == "it does not apply on stack cuda-13.0 (applies only when cuda<12.9; the stack has cuda 13.0.1)"
    assert "blocked_by" not in yaml.safe_load(Path(data["path"]).read_text())


def test_b_a_standing_catalog_blocker_is_linked(campaign):
    r = kb(campaign, *CAMPAIGN_LOG, "-s", "cuda-12.8", "--error", "NCCL WARN NVLS multicast support is not available on dev 0")
    data = json.loads(r.stdout)
    m, = data["matches"]
    assert m["id"] == "nccl-nvls-multicast-unavailable-on-pcie" and m["linked"] is True and "where_fixed" not in m
    assert yaml.safe_load(Path(data["path"]).read_text())["blocked_by"] == ["nccl-nvls-multicast-unavailable-on-pcie"]


def test_b_a_campaign_blocker_resolved_through_its_cause_is_not_linked_on_cuda_13(campaign):
    new = json.loads(kb(campaign, *CAMPAIGN_LOG, "-s", "cuda-13.0", "--error", "KeyError: 12").stdout)
    own = {m["id"]: m for m in new["matches"]}["torch-symm-mem-no-capability-12"]
    assert own["linked"] is False
    assert own["where_fixed"] == "stack cuda-13.0 resolves it (its causes are resolved)"
    assert "blocked_by" not in yaml.safe_load(Path(new["path"]).read_text())
    old = json.loads(kb(campaign, *CAMPAIGN_LOG, "-s", "cuda-12.8", "--error", "KeyError: 12").stdout)
    own = {m["id"]: m for m in old["matches"]}["torch-symm-mem-no-capability-12"]
    assert own["linked"] is True and "where_fixed" not in own
    assert yaml.safe_load(Path(old["path"]).read_text())["blocked_by"] == ["torch-symm-mem-no-capability-12"]


# =========================================================================== C: the site


def build(records: Path, site: Path) -> Path:
    from kb.site.build import build_site

    build_site(records, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(site), strict=True)
    return site


BLOCK = re.compile(r"</?(p|li|ul|ol|div|br|tr|td|th|table|h[1-6]|details|summary)\b[^>]*>", re.I)


def plain(fragment: str) -> str:
    """HTML to text: block tags become line breaks, inline tags vanish, spaces collapse per line."""
    t = html.unescape(re.sub(r"<[^>]+>", "", BLOCK.sub("\n", fragment)))
    return "\n".join(x for x in (re.sub(r"[ \t]+", " ", line).strip() for line in t.splitlines()) if x)


def text_of(path: Path) -> str:
    return plain(path.read_text(encoding="utf-8"))


def boxes(path: Path, title: str) -> list[str]:
    """The text of each admonition titled ``title`` on a page."""
    raw = path.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r'<div class="admonition[^"]*">\s*<p class="admonition-title">(.*?)</p>(.*?)</div>', raw, re.S):
        if html.unescape(m.group(1)).strip() == title:
            out.append(plain(m.group(2)).replace("\n", " "))
    return out


def copy_live(tmp: Path) -> Path:
    dest = tmp / "records"
    shutil.copytree(LIVE_RECORDS, dest)
    return dest


@pytest.fixture(scope="module")
def live_site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("live")
    return build(copy_live(tmp), tmp / "site")


DECISION_PAGE = "decisions/2026-02-26-upgrade-to-cuda-13/index.html"
FUSION = "FlashInfer allreduce-fusion JIT finds no supported architecture on SM120"
SYMM = "Torch symmetric memory has no size table entry for compute capability 12"


STACK13 = "CUDA 13 stack (toolkit 13.0.1, torch 2.11 nightly cu130)"
DISPUTED = "Disputed by a catalog"


def test_c_the_decision_page_shows_a_disputed_item_per_catalog_record(live_site):
    box, = boxes(live_site / DECISION_PAGE, DISPUTED)
    assert box == (
        f"{SYMM} is resolved here, but SGLang torch symmetric-memory allreduce looks up capability 12 in a table keyed "
        f"by 9 and 10 (catalog blackwell) (same error signature) still stands on {STACK13}: needs cause An architecture "
        "allow-list or capability-keyed table leaves out 12.x (catalog blackwell) (no known fix) "
        f"{FUSION} is resolved here, but FlashInfer TRT-LLM allreduce fusion refuses to build on SM12x (catalog "
        f"blackwell) (same error signature) still stands on {STACK13}: needs flashinfer>=0.6.17")


def test_c_the_decision_summary_says_resolves_is_disputed(live_site):
    t = text_of(live_site / DECISION_PAGE)
    assert ("Resolves: SM120 not supported by the CUDA 12.8 software stack (disputed by a catalog: see Decision "
            "Outcome below)") in t


def resolves_cell(site: Path, change: str) -> str:
    raw = (site / "upgrades" / "index.html").read_text(encoding="utf-8")
    for tr in re.findall(r"<tr>(.*?)</tr>", raw, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        if cells and f"<code>{change}</code>" in cells[0]:
            return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", cells[2]))).strip()
    raise AssertionError(f"no row for {change}")


def test_c_the_upgrade_paths_page_marks_and_lists_the_disputes(live_site):
    assert resolves_cell(live_site, "cuda=13.0") == "4 (disputed: 2)"
    box, = boxes(live_site / "upgrades" / "index.html", DISPUTED)  # in the cuda=13.0 section
    assert box.count(" is resolved here") == 2
    assert f"{FUSION} is resolved here" in box and f"{SYMM} is resolved here" in box
    assert "still stands: needs flashinfer>=0.6.17" in box


def test_c_a_proposed_decision_shows_no_disputed_box(tmp_path):
    records = copy_live(tmp_path)
    edit(records / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml", "status: accepted", "status: proposed")
    site = build(records, tmp_path / "site")
    assert boxes(site / DECISION_PAGE, DISPUTED) == []
    assert "(disputed by a catalog" not in text_of(site / DECISION_PAGE)


def test_c_a_team_catalog_disputes_the_decision_too(tmp_path):
    records = copy_live(tmp_path)
    team = tmp_path / "team-catalog"
    (team / "blockers").mkdir(parents=True)
    (team / "CATALOG.md").write_text("# Team catalog\n\nOur own blockers.\n", encoding="utf-8")
    (team / "blockers" / "team-symm-table-keyerror.yaml").write_text(yaml.safe_dump({
        "title": "Team: symm-mem table lacks capability 12", "component": "sglang",
        "applies_when": {"compute_capability": ">=12.0,<13"},
        "fixed_by": [{"kind": "enables", "requires": {"sglang": ">=0.6"}}],
        "signatures": ["KeyError: 12"], "status": "open"}, sort_keys=False), encoding="utf-8")
    edit(records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml", "catalogs: [blackwell]", "catalogs: [../team-catalog]")
    site = build(records, tmp_path / "site")
    box, = boxes(site / DECISION_PAGE, DISPUTED)
    assert box.startswith(f"{SYMM} is resolved here, but Team: symm-mem table lacks capability 12 (catalog ")
    assert "team-symm-table-keyerror" not in box  # by its title
    assert box.endswith(f"still stands on {STACK13}: needs sglang>=0.6")
    assert text_of(site / DECISION_PAGE).count("(disputed by a catalog: see Decision Outcome below)") == 1
    assert resolves_cell(site, "cuda=13.0").endswith("(disputed: 1)")
    ubox, = boxes(site / "upgrades" / "index.html", DISPUTED)
    assert ubox.count(" is resolved here") == 1 and "Team: symm-mem table lacks capability 12" in ubox


def test_c_without_catalogs_nothing_is_disputed(tmp_path):
    records = copy_live(tmp_path)
    edit(records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml", "catalogs: [blackwell]\n", "")
    site = build(records, tmp_path / "site")
    assert boxes(site / DECISION_PAGE, DISPUTED) == []
    assert "(disputed" not in text_of(site / DECISION_PAGE)
    assert "(disputed" not in resolves_cell(site, "cuda=13.0")
    assert boxes(site / "upgrades" / "index.html", DISPUTED) == []


def headline(site: Path, attempt: str) -> str:
    t = text_of(site / "attempts" / attempt / "index.html")
    m = re.search(r"^Output throughput: (.*)$", t, re.M)
    assert m, t[:2000]
    return m.group(1).strip()


def home_pct(site: Path, attempt: str) -> str:
    raw = (site / "index.html").read_text(encoding="utf-8")
    for tr in re.findall(r"<tr>(.*?)</tr>", raw, re.S):
        if f'href="attempts/{attempt}/"' in tr:
            cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            return next(c for c in cells if c.endswith("%"))
    raise AssertionError(attempt)


@pytest.mark.parametrize(("attempt", "expected", "home"), [
    ("2026-02-27-eagle3-cuda13",
     "96.1 tok/s, +7.4 % vs 89.5 tok/s (Lower --cuda-graph-max-bs from 512 to 128); +17.2 % vs the campaign baseline (82 tok/s)",
     "+17.2 %"),
    ("2026-02-21-eagle3-speculation",
     "54.1 tok/s, -39.6 % vs 89.5 tok/s (Lower --cuda-graph-max-bs from 512 to 128); -34.0 % vs the campaign baseline (82 tok/s)",
     "-34.0 %"),
    ("2026-02-23-custom-allreduce-pcie",
     "38 tok/s, -29.8 % vs 54.1 tok/s (EAGLE-3 speculative decoding on the CUDA 12.8 stack); -53.7 % vs the campaign "
     "baseline (82 tok/s)", "-53.7 %"),
])
def test_c_an_attempt_page_shows_both_deltas(live_site, attempt, expected, home):
    assert headline(live_site, attempt) == expected
    assert home_pct(live_site, attempt) == home


def test_c_a_baseline_attempt_equal_to_the_campaign_baseline_shows_one_delta(live_site):
    got = headline(live_site, "2026-02-19-cuda-graph-max-bs-128")
    assert got == "89.5 tok/s, +9.1 % vs 82.0 tok/s (Baseline, tensor parallel 8, cuda-graph-max-bs 512)"
    assert home_pct(live_site, "2026-02-19-cuda-graph-max-bs-128") == "+9.1 %"


def test_c_a_moved_campaign_baseline_moves_the_second_delta_and_the_home_page(tmp_path):
    records = copy_live(tmp_path)
    camp = records / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    edit(camp, "baseline: 82 tok/s\n", "baseline: 84 tok/s\n")
    edit(camp, "baseline_attempt: 2026-02-19-baseline-tp8\n", "")
    site = build(records, tmp_path / "site")
    assert headline(site, "2026-02-27-eagle3-cuda13") == (
        "96.1 tok/s, +7.4 % vs 89.5 tok/s (Lower --cuda-graph-max-bs from 512 to 128); "
        "+14.4 % vs the campaign baseline (84 tok/s)")
    assert home_pct(site, "2026-02-27-eagle3-cuda13") == "+14.4 %"
    assert headline(site, "2026-02-19-cuda-graph-max-bs-128") == (
        "89.5 tok/s, +9.1 % vs 82.0 tok/s (Baseline, tensor parallel 8, cuda-graph-max-bs 512); "
        "+6.5 % vs the campaign baseline (84 tok/s)")
    assert home_pct(site, "2026-02-19-cuda-graph-max-bs-128") == "+6.5 %"
