"""The kb command through click's CliRunner: check, roots, build, help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS, ROOT

from kb.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_check_passes_on_the_campaign_records():
    res = run("--records", str(CAMPAIGN_RECORDS), "check")
    assert res.exit_code == 0
    assert res.stdout == ""
    assert "21 records OK" in res.stderr


@pytest.mark.parametrize("rel,old,new,expected", [
    ("attempts/2026-02-23-torch-symm-mem.yaml", "outcome: failed", "outcome: failed\noutcom: typo",
     "records/attempts/2026-02-23-torch-symm-mem.yaml:11: outcom: unknown key 'outcom'; did you mean 'outcome'?"),
    ("stacks/cuda-12.8.yaml", 'torch: "2.10.0+cu128"', "torch: 2.10",
     "records/stacks/cuda-12.8.yaml:6: components.torch: '2.10' was read by YAML as a number (2.1)"),
    ("blockers/eagle3-verify-allreduce-latency.yaml", "  - torch-symm-mem-no-capability-12",
     "  - torch-symm-mem-no-capability-13",
     "records/blockers/eagle3-verify-allreduce-latency.yaml:9: caused_by.1: unknown blocker 'torch-symm-mem-no-capability-13'; did you mean 'torch-symm-mem-no-capability-12'?"),
])
def test_check_fails_with_file_and_line_on_a_broken_copy(campaign_copy, rel, old, new, expected):
    path = campaign_copy / rel
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    res = run("--records", str(campaign_copy), "check")
    assert res.exit_code == 1
    assert res.stdout.splitlines()[0].startswith(expected), res.stdout
    assert "1 problem in" in res.stderr


def test_check_json(campaign_copy):
    (campaign_copy / "attempts" / "x.yaml").write_text("title: [", encoding="utf-8")
    res = run("--records", str(campaign_copy), "check", "--json")
    data = json.loads(res.stdout)
    assert res.exit_code == 1
    assert data["records"] == 21
    assert data["problems"][0]["path"] == "records/attempts/x.yaml" and data["problems"][0]["line"] == 1  # a one-line file


def test_check_without_a_records_folder(tmp_path):
    res = run("--records", str(tmp_path / "nope"), "check")
    assert res.exit_code == 1
    assert "records folder not found" in res.stderr


def test_roots_text_and_json():
    res = run("--records", str(CAMPAIGN_RECORDS), "roots")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    # ranked by the attempts blocked over the history: SM120 blocked three, though the campaign now
    # stands on cuda-13.0 (its latest attempt's stack), where it is resolved
    assert lines[:4] == ["1. sm120-unsupported-by-cuda-12.8-stack  (3 attempts; blocks 0 now)",
                         "   SM120 not supported by the CUDA 12.8 software stack",
                         "   now: resolved on kimi-k25-eagle3-blackwell's current stack (cuda-13.0)",
                         "   fix: fixed by cuda>=13.0 (credited, not verified: flashinfer, nccl, sgl-kernel, sglang, torch, triton "
                         "changed with cuda in 2026-02-26-upgrade-to-cuda-13)"]  # the decision's credit is a hypothesis
    assert "2. ep-a2a-gpu-memory-exhausted  (1 attempt; blocks 1 now)" in lines
    assert not any("catalog root cause" in line for line in lines)  # the fixture uses no catalog
    data = json.loads(run("--records", str(CAMPAIGN_RECORDS), "roots", "--json").stdout)
    assert (data["campaign"], data["current_stack"], data["not_met"]) == ("kimi-k25-eagle3-blackwell", "cuda-13.0", [])
    assert data["roots"][0]["id"] == "sm120-unsupported-by-cuda-12.8-stack"
    assert data["roots"][0]["fixed_by"] == [{"cuda": ">=13.0"}] and data["roots"][0]["now"] == "resolved"
    assert [(len(r["current"]), len(r["attempts"])) for r in data["roots"]] == [(0, 3), (1, 1), (1, 1), (1, 1)]
    now = json.loads(run("--records", str(CAMPAIGN_RECORDS), "roots", "--now", "--json").stdout)
    assert [(len(r["current"]), len(r["attempts"])) for r in now["roots"]] == [(1, 1), (1, 1), (1, 1), (0, 3)]


def test_roots_on_invalid_records_exits_1_with_the_problems(campaign_copy):
    (campaign_copy / "attempts" / "x.yaml").write_text("title: [", encoding="utf-8")
    res = run("--records", str(campaign_copy), "roots")
    assert res.exit_code == 1
    assert "records/attempts/x.yaml:1: invalid YAML" in res.stderr


def test_build_writes_the_site_and_says_where(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    site = tmp_path / "site"
    res = run("--records", str(CAMPAIGN_RECORDS), "build", "--site-dir", str(site))
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip() == str(site)
    assert f"site written to {site}/" in res.stderr
    assert (site / "decisions" / "2026-02-26-upgrade-to-cuda-13" / "index.html").is_file()


def test_build_fails_on_an_invalid_record_with_checks_messages(campaign_copy, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    (campaign_copy / "attempts" / "x.yaml").write_text("title: [", encoding="utf-8")
    res = run("--records", str(campaign_copy), "build", "--site-dir", str(tmp_path / "site"))
    assert res.exit_code == 1
    assert "records/attempts/x.yaml:1: invalid YAML" in res.stderr
    assert not (tmp_path / "site").exists()


def test_every_command_has_help():
    for name, cmd in cli.commands.items():
        res = run(name, "--help")
        assert res.exit_code == 0, name
        assert cmd.help and cmd.help.strip(), f"kb {name} has no help text"


def test_bad_usage_exits_2():
    assert run("roots", "--limit", "0").exit_code == 2
    assert run("no-such-command").exit_code == 2


def test_python_m_kb_help():
    out = subprocess.run([sys.executable, "-m", "kb", "--help"], capture_output=True, text=True, check=True)
    assert "kb: attempts, blockers, root causes and decisions" in out.stdout
    for command in ("check", "roots", "build", "why", "unblocks"):
        assert f"  {command}" in out.stdout


def test_why_names_a_root_cause_without_a_fix():
    res = run("--records", str(CAMPAIGN_RECORDS), "why", "2026-02-23-custom-allreduce-pcie")
    assert res.exit_code == 0
    lines = [ln.strip() for ln in res.stdout.splitlines() if ln.strip()]
    assert lines[1] == "→ pcie-bus-contention [root cause]: PCIe bus contention from all-to-all allreduce traffic (no NVLink)"
    assert lines[2:] == ["no known fix (workaround: Keep NCCL's ring allreduce on PCIe-only machines.)"]


def test_unblocks_to_a_whole_stack_names_each_changed_component():
    res = run("--records", str(CAMPAIGN_RECORDS), "unblocks", "--from", "cuda-12.8", "--to", "cuda-13.0", "--json")
    data = json.loads(res.stdout)
    assert data["change"] == {"cuda": "13.0.1", "torch": "2.11.0.dev20260220+cu130", "flashinfer": "0.6.9",
                              "sgl-kernel": "cu130 wheel index", "sglang": "rebuilt from source against CUDA 13"}
    # EAGLE-3 and the fusion were re-run on cuda-13.0 already (2026-02-27-eagle3-cuda13): not recommended again
    assert [r["id"] for r in data["retry"]] == ["2026-02-23-torch-symm-mem"]
    assert [(d["of"], d["id"], d["outcome"]) for d in data["retried"]] == [
        ("2026-02-21-eagle3-speculation", "2026-02-27-eagle3-cuda13", "improved"),
        ("2026-02-23-flashinfer-allreduce-fusion", "2026-02-27-eagle3-cuda13", "improved")]


def test_unblocks_says_when_the_change_is_not_an_upgrade():
    res = run("--records", str(CAMPAIGN_RECORDS), "unblocks", "cuda=13.0")
    assert res.exit_code == 0
    assert ("note: stack cuda-13.0 already has cuda 13.0.1; cuda=13.0 is not an upgrade "
            "(pick the starting stack with --from)") in res.stdout


def test_an_attempt_whose_blockers_no_longer_stood_on_its_own_stack_is_no_retry(campaign_copy):
    (campaign_copy / "attempts" / "2026-02-28-symm-mem-on-cuda13.yaml").write_text(
        "title: symm mem again\ndate: 2026-02-28\ncampaign: kimi-k25-eagle3-blackwell\napproach: x\n"
        "stack: cuda-13.0\noutcome: failed\nerror: 'KeyError: 12'\nblocked_by: [torch-symm-mem-no-capability-12]\n",
        encoding="utf-8")
    data = json.loads(run("--records", str(campaign_copy), "unblocks", "--from", "cuda-12.8", "cuda=13.0", "--json").stdout)
    assert [r["id"] for r in data["retry"]] == ["2026-02-23-torch-symm-mem"]


def test_log_reports_the_fix_a_matched_blocker_inherits_from_its_cause(campaign_copy):
    res = run("--records", str(campaign_copy), "log", "-t", "symm mem again", "-o", "failed", "-a", "retry",
              "--stack", "cuda-12.8", "--error", "KeyError: 12", "--no-interactive")
    assert res.exit_code == 0, res.stderr
    assert ("kb log: error text matches torch-symm-mem-no-capability-12; no fix of its own; its cause "
            "sm120-unsupported-by-cuda-12.8-stack is fixed by cuda>=13.0 (credited, not verified: flashinfer, nccl, "
            "sgl-kernel, sglang, torch, triton changed with cuda in 2026-02-26-upgrade-to-cuda-13) (not linked; "
            "--link-matches links it)") in res.stderr


def test_build_json(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    site = tmp_path / "site"
    res = run("--records", str(CAMPAIGN_RECORDS), "build", "--site-dir", str(site), "--json")
    data = json.loads(res.stdout)
    assert data["site"] == str(site)
    assert data["pages"] == sum(1 for _ in site.rglob("*.html"))
    assert (site / "attempts" / "2026-02-23-torch-symm-mem" / "index.html").is_file()


def test_log_without_a_terminal_or_a_stack_says_the_attempt_gets_none_and_how_to_give_one(campaign_copy):
    res = run("--records", str(campaign_copy), "log", "-t", "no stack", "-o", "failed", "-a", "retry",
              "-e", "boom", "--no-interactive", "--dry-run")
    assert res.exit_code == 0, res.stderr
    assert ("kb log: no stack given, so the attempt records none (the campaign's current stack is cuda-13.0: "
            "pass --stack cuda-13.0, --component NAME=VERSION or --capture)") in res.stderr
    assert "\nstack:" not in res.stdout
    given = run("--records", str(campaign_copy), "log", "-t", "a stack", "-o", "failed", "-a", "retry",
                "-e", "boom", "--stack", "cuda-12.8", "--no-interactive", "--dry-run")
    assert "no stack given" not in given.stderr and "\nstack: cuda-12.8\n" in given.stdout
