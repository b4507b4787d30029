"""The cases of issue 11 (``../shared/cases/truth/``, copied under tests/fixtures/cases/truth/), each
answering as its README says: the CLI's exit code and the exact lines that matter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.pipeline import load_graph
from kb.queries import unblocks
from kb.site.pages import render_site

CASES = Path(__file__).resolve().parent / "fixtures" / "cases" / "truth"


@pytest.fixture
def case(tmp_path: Path):
    """Copy a case's records (and extra/) to tmp_path; return a runner of ``kb --records ...``."""

    def load(name: str):
        shutil.copytree(CASES / name, tmp_path / name)
        root = tmp_path / name / "records"

        def run(*args: str):
            return CliRunner().invoke(cli, ["--records", str(root), *args])

        run.root = root  # type: ignore[attr-defined]
        return run

    return load


def test_success_on_a_stack_where_the_blocker_of_the_same_flag_stands_is_a_warning(case):
    run = case("contradiction-success-where-blocker-applies")
    r = run("check")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        "records/attempts/2026-02-27-fusion-cu130.yaml:7: outcome: warning: outcome is improved on stack cu130-fi064, "
        "where blocker fi-gate still stands (needs flashinfer>=0.6.17); it blocked 2026-02-23-fusion-cu128, run with "
        "the same --enable-flashinfer-allreduce-fusion: check the outcome, the stack or the blocker's "
        f"applies_when/fixed_by [explained by: kb --records {run.root} why 2026-02-27-fusion-cu130]"]
    assert "7 records OK in" in r.stderr and "1 warning" in r.stderr
    assert run("check", "--strict").exit_code == 1
    why = run("why", "2026-02-27-fusion-cu130")
    assert why.exit_code == 0
    assert "  warning: outcome is improved on stack cu130-fi064, where blocker fi-gate still stands" in why.stdout
    res = run("unblocks", "--from", "cu128", "--to", "cu130-fi064", "--json")
    data = json.loads(res.stdout)
    assert [s["id"] for s in data["still_blocked"]] == ["fi-gate"] and data["resolved"] == []


def test_a_success_citing_a_blocker_is_a_warning(case):
    run = case("contradiction-success-where-blocker-applies")
    p = run.root / "attempts" / "2026-02-27-fusion-cu130.yaml"
    p.write_text(p.read_text(encoding="utf-8") + "blocked_by: [fi-gate]\n", encoding="utf-8")
    r = run("check")
    assert r.exit_code == 0
    assert ("records/attempts/2026-02-27-fusion-cu130.yaml:9: blocked_by: warning: outcome is improved, yet "
            "blocked_by names fi-gate; a blocked attempt did not succeed: fix the outcome or drop the blocker") in r.stdout


def test_a_local_label_under_an_ordering_operator_says_how_to_write_it(case):
    r = case("local-label-in-specifier-message")("check")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "records/blockers/torch-symm-mem-no-cc12.yaml:5: fixed_by.0.torch: '>=2.10.0+cu130': local version labels "
        "(+cu130) are only allowed with == and !=; write '>=2.10.0' and put the CUDA requirement in cuda: '>=13.0'"]


def test_log_dry_run_shows_the_matches_it_would_link(case):
    run = case("log-dry-run-ignores-link-matches")
    args = ["log", "-t", "fusion", "-o", "failed", "-a", "fuse", "-c", "c", "-s", "cu128", "--date", "2026-02-24",
            "--error", "RuntimeError: No supported CUDA architectures found for major versions [9, 10]",
            "--link-matches", "--no-interactive"]
    dry = run(*args, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "blocked_by:\n- fi-gate\n" in dry.stdout
    assert ("kb log: error text matches fi-gate; fixed by flashinfer>=0.6.17, cuda>=12.9 (would be linked)"
            in dry.stderr)
    assert not (run.root / "attempts" / "2026-02-24-fusion.yaml").exists()
    real = run(*args)
    assert real.exit_code == 0
    assert "blocked_by:\n- fi-gate\n" in (run.root / "attempts" / "2026-02-24-fusion.yaml").read_text(encoding="utf-8")
    assert "kb log: error text matches fi-gate; fixed by flashinfer>=0.6.17, cuda>=12.9 (linked)" in real.stderr


def test_log_says_a_cause_without_a_fix_has_none(case):
    r = case("log-says-fixed-with-causes-that-have-no-fix")(
        "log", "-t", "symm", "-o", "failed", "-a", "x", "-c", "c", "-s", "cu128", "--date", "2026-02-23",
        "--error", "KeyError: 12", "--no-interactive")
    assert r.exit_code == 0, r.output
    assert ("kb log: error text matches symm-keyerror; no fix of its own; its cause arch-table has no known fix "
            "(workaround: patch the component that owns the table) (not linked; --link-matches links it)") in r.stderr
    assert "fixed with" not in r.stderr


def test_a_rejected_decision_resolves_nothing(case):
    run = case("rejected-decision-resolves-blocker")
    r = run("check")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == [
        "records/decisions/2026-03-02-upgrade-cuda-13.yaml:10: resolves: warning: status is rejected, so its resolves "
        "(sm120-unsupported) resolve nothing; only accepted decisions resolve blockers (pages show it as rejected)"]
    assert run("check", "--strict").exit_code == 1
    pages = render_site(load_graph(run.root))
    blocker = pages["blockers/sm120-unsupported.md"]
    assert "Resolved by decision" not in blocker
    assert "Claimed by decision [Upgrade to CUDA 13](../decisions/2026-03-02-upgrade-cuda-13.md) (rejected): not a resolution." in blocker
    assert "### Would have resolved (rejected: resolves nothing)" in pages["decisions/2026-03-02-upgrade-cuda-13.md"]


def test_a_proposed_decision_would_resolve(case):
    run = case("rejected-decision-resolves-blocker")
    p = run.root / "decisions" / "2026-03-02-upgrade-cuda-13.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("status: rejected", "status: proposed"), encoding="utf-8")
    blocker = render_site(load_graph(run.root))["blockers/sm120-unsupported.md"]
    assert "Would resolve (proposed): [Upgrade to CUDA 13](../decisions/2026-03-02-upgrade-cuda-13.md)." in blocker


def test_an_unfilled_skeleton_warns_for_each_placeholder_in_file_order(case):
    r = case("todo-skeleton-passes-check")("check")
    assert r.exit_code == 0
    fields = [line.split(": ")[1] for line in r.stdout.splitlines()]
    assert fields == ["context", "decision_drivers.0", "considered_options.0.description", "considered_options.0.pros.0",
                      "considered_options.0.cons.0", "outcome.rationale", "consequences.good.0", "consequences.bad.0"]
    assert all(": warning: still holds kb's 'TODO' placeholder; fill it in" in line for line in r.stdout.splitlines())
    assert "8 warnings" in r.stderr


def test_an_accepted_skeleton_is_named_as_such(case):
    run = case("todo-skeleton-passes-check")
    p = run.root / "decisions" / "2026-01-01-template.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("status: proposed", "status: accepted"), encoding="utf-8")
    r = run("check", "--strict")
    assert r.exit_code == 1
    assert "4: context: warning: an accepted decision with an unfilled 'TODO'" in r.stdout


def test_a_blocker_of_a_component_the_stack_lacks_is_not_applicable(case):
    run = case("unblocks-absent-component-stands")
    data = json.loads(run("unblocks", "--from", "cu128", "cuda=13.0", "--json").stdout)
    assert data["still_blocked"] == [] and data["other_still_blocked"] == [] and data["introduced"] == []
    # nor does the upgrade paths page offer bitsandbytes to a stack without it
    assert "bitsandbytes" not in render_site(load_graph(run.root))["upgrades.md"]


def test_an_explicit_component_makes_it_not_applicable_too(case):
    run = case("unblocks-absent-component-stands")
    p = run.root / "blockers" / "bnb-no-cu128.yaml"
    p.write_text("title: needs cuda 13\ncomponent: bitsandbytes\nfixed_by: [{cuda: '>=13.0'}]\n", encoding="utf-8")
    kg = load_graph(run.root)
    assert unblocks(kg, {"cuda": "13.0"}, from_stack="cu128").resolved == []
    # adding the component makes it apply: it is introduced (it does not stand before)
    res = unblocks(kg, {"cuda": "12.9", "bitsandbytes": "0.45.0"}, from_stack="cu128")
    assert [i["id"] for i in res.introduced] == ["bnb-no-cu128"]


def test_a_change_reports_the_blockers_it_introduces_and_the_retries_they_would_hit(case):
    run = case("unblocks-ignores-new-blockers")
    r = run("unblocks", "--from", "cu128", "flashinfer=0.6.17")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert "  ✓ cutlass-lt-44: CUTLASS < 4.4 lacks SM12x FP4 tiles (vllm#38423)  [flashinfer>=0.6.7]" in lines
    assert ("  ⚠ fi-jit-needs-nvcc-129: flashinfer >= 0.6.7 JIT on SM12x needs nvcc >= 12.9 (flashinfer#3674)  "
            "[it applies when flashinfer>=0.6.7, which now holds; needs cuda>=12.9]") in lines
    assert lines[lines.index("worth retrying (0):") + 1] == "  nothing"
    assert ("  ↻ 2026-03-20-nvfp4: NVFP4 MoE on SM120 (was failed) — would hit fi-jit-needs-nvcc-129") in lines
    r = run("unblocks", "--from", "cu128", "cuda=13.0")
    assert ("  ⚠ sgl-kernel-libcudart12: sgl-kernel cu130 wheel hard-codes libcudart.so.12 (sglang#18203)  "
            "[it applies when cuda>=13.0, which now holds]") in r.stdout.splitlines()


def test_the_platform_is_named_or_asked_for(case):
    run = case("unblocks-platform-from-latest-attempt")
    first = run("unblocks", "--from", "cu128", "cuda=13.0")
    assert first.exit_code == 2
    assert ("kb: the campaigns run on different platforms: c (platform rtx), c2 (platform spark); blockers depend on "
            "the platform, so pass --campaign c (or another)") in first.stderr
    shutil.copy(run.root.parent / "extra" / "2026-03-01-spark.yaml", run.root / "attempts")
    assert run("unblocks", "--from", "cu128", "cuda=13.0").exit_code == 2  # the same answer, not a silent flip
    r = run("unblocks", "--from", "cu128", "cuda=13.0", "--campaign", "c")
    assert r.exit_code == 0
    assert ("reasoned for platform rtx (8x RTX PRO 6000 PCIe), campaign c, stack cu128" in r.stdout.splitlines())
    assert "still blocked (1; --all lists them with what each needs): pcie-no-multicast" in r.stdout
    spark = json.loads(run("unblocks", "--from", "cu128", "cuda=13.0", "--campaign", "c2", "--json").stdout)
    assert spark["platform"] == "spark" and spark["still_blocked"] == []


def test_retries_already_made_are_reported_with_their_outcome_not_recommended(case):
    run = case("unblocks-recommends-done-retry")
    r = run("unblocks", "--from", "cuda-12.8", "cuda=13.0")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[lines.index("worth retrying (1):") + 1] == "  ↻ 2026-02-23-torch-symm-mem: Torch symmetric-memory allreduce (was failed)"
    assert lines[lines.index("already retried (3):") + 1:lines.index("already retried (3):") + 4] == [
        "  ✔ 2026-02-21-eagle3-speculation: retried 2026-02-27 on cuda-13.0 as 2026-02-27-eagle3-cuda13: improved, "
        "output_throughput 96.1 tok/s",
        "  ✔ 2026-02-23-flashinfer-allreduce-fusion: retried 2026-02-27 on cuda-13.0 as 2026-02-27-eagle3-cuda13: "
        "improved, output_throughput 96.1 tok/s",
        "  ✔ 2026-02-23-flashinfer-allreduce-fusion: retried 2026-02-28 on cuda-13.0 as "
        "2026-02-28-flashinfer-allreduce-fusion-on-cuda-13: regressed, output_throughput 61 tok/s"]


def test_retry_of_says_which_attempt_is_re_run(case):
    run = case("unblocks-recommends-done-retry")
    p = run.root / "attempts" / "2026-02-28-flashinfer-allreduce-fusion-on-cuda-13.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("baseline: 2026-02-23-flashinfer-allreduce-fusion\n",
                                                       "retry_of: 2026-02-23-torch-symm-mem\n"), encoding="utf-8")
    data = json.loads(run("unblocks", "--from", "cuda-12.8", "cuda=13.0", "--json").stdout)
    assert data["retry"] == []
    assert ("2026-02-23-torch-symm-mem", "2026-02-28-flashinfer-allreduce-fusion-on-cuda-13", "regressed") in [
        (d["of"], d["id"], d["outcome"]) for d in data["retried"]]


@pytest.mark.parametrize("item, fix", [("cuda>=13.0", "write cuda=13.0"), ("cuda==13.0", "write cuda=13.0"),
                                       ("cuda~=13.0", "write cuda=13.0"), ("cuda<13", "write cuda=13")])
def test_a_specifier_in_a_change_is_refused_with_what_to_write(case, item, fix):
    r = case("unblocks-specifier-or-typo-silently-ignored")("unblocks", "--from", "cuda-12.8", item)
    assert r.exit_code == 2
    assert f"'{item}' is a specifier; a change names the version to move to: {fix}" in r.output


def test_a_misspelt_component_is_refused_with_a_did_you_mean(case):
    r = case("unblocks-specifier-or-typo-silently-ignored")("unblocks", "--from", "cuda-12.8", "cudaa=13.0")
    assert r.exit_code == 2
    assert r.stderr.strip() == "kb: cudaa is in no stack or fix; did you mean cuda? (write cuda=13.0)"


# ---------------------------------------------------------------- confounds: the campaign's CUDA 13 move

def test_the_adr_names_every_co_changed_component_and_the_unverified_credit():
    from conftest import CAMPAIGN_RECORDS

    adr = render_site(load_graph(CAMPAIGN_RECORDS))["decisions/2026-02-26-upgrade-to-cuda-13.md"]
    box = adr[adr.index('!!! note "Credit is a hypothesis"'):].split("\n\n")[0]
    assert "7 components changed together: cuda, flashinfer, nccl, sgl&#45;kernel, sglang, torch, triton." in box
    assert "the others (flashinfer, nccl, sgl&#45;kernel, sglang, torch, triton) are possible co-causes" in box
    assert "Unverified: no attempt changed the credited component alone." in box
    assert "**Unverified**, not re-run since (expected, not seen): torch&#45;symm&#45;mem&#45;no&#45;capability&#45;12." in box


def test_why_names_the_changed_components_and_which_one_the_fix_credits():
    from conftest import CAMPAIGN_RECORDS

    r = CliRunner().invoke(cli, ["--records", str(CAMPAIGN_RECORDS), "why", "2026-02-27-eagle3-cuda13", "--json"])
    data = json.loads(r.stdout)
    assert data["retries"] == ["2026-02-21-eagle3-speculation", "2026-02-23-flashinfer-allreduce-fusion"]
    credit = data["credit"]
    assert [c["component"] for c in credit["changed"]] == ["cuda", "flashinfer", "nccl", "sgl-kernel", "sglang", "torch", "triton"]
    assert credit["credited"] == [{"blocker": "sm120-unsupported-by-cuda-12.8-stack", "fix": "cuda>=13.0",
                                   "kind": "enables", "components": ["cuda"]}]
    assert credit["co_changed"] == ["flashinfer", "nccl", "sgl-kernel", "sglang", "torch", "triton"]
    assert (credit["confounded"], credit["verified"], credit["isolated_by"]) == (True, False, [])
    text = CliRunner().invoke(cli, ["--records", str(CAMPAIGN_RECORDS), "why", "2026-02-27-eagle3-cuda13"]).stdout
    assert "the recorded fix credits cuda (sm120-unsupported-by-cuda-12.8-stack: cuda>=13.0); also changed, " \
           "possible co-causes: flashinfer, nccl, sgl-kernel, sglang, torch, triton; unverified: no attempt changed cuda alone" in text


def test_an_attempt_that_changed_only_the_credited_component_verifies_it(tmp_path):
    from conftest import CAMPAIGN_RECORDS

    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    (root / "stacks" / "cuda-13-only.yaml").write_text("title: only cuda 13\nbase: cuda-12.8\ncomponents: {cuda: '13.0.1'}\n",
                                                       encoding="utf-8")
    (root / "attempts" / "2026-02-25-cuda-only.yaml").write_text(
        "title: cuda alone\ndate: 2026-02-25\ncampaign: kimi-k25-eagle3-blackwell\napproach: x\nstack: cuda-13-only\n"
        "outcome: neutral\n", encoding="utf-8")
    from kb.queries import decision_credit

    kg = load_graph(root)
    credit = decision_credit(kg, kg.get("2026-02-26-upgrade-to-cuda-13"))
    assert credit.verified and credit.isolated_by == ["2026-02-25-cuda-only"]


def test_a_decision_crediting_a_component_that_did_not_change_is_a_warning(tmp_path):
    from conftest import CAMPAIGN_RECORDS

    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    (root / "stacks" / "torch-only.yaml").write_text("title: torch only\nbase: cuda-12.8\ncomponents: {torch: '2.11.0'}\n",
                                                     encoding="utf-8")
    p = root / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("  to: cuda-13.0", "  to: torch-only"), encoding="utf-8")
    r = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert r.exit_code == 0
    assert ("records/decisions/2026-02-26-upgrade-to-cuda-13.yaml:88: resolves.0: warning: credits the stack change "
            "with fixing sm120-unsupported-by-cuda-12.8-stack, whose fixes need cuda; none of them changed from "
            "cuda-12.8 to torch-only") in r.stdout
