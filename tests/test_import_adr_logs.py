"""kb import --format adr on re-created ADR logs as they really are (tests/fixtures/adr/logs, a
second or third log per family, each written differently from the held-out one): every decision
imported with its status, date and supersession right, the assumptions warned and counted,
images copied through the store, and ``kb check`` clean right after the import."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from adr_logs import FIXTURES, copied_images, lay_out, run_log
from click.testing import CliRunner

from kb.cli import cli
from kb.importers.adr import import_adrs

LOGS = FIXTURES / "logs"
ALL = sorted(p.name for p in LOGS.iterdir() if (p / "truth.yaml").is_file())


def test_there_is_a_variant_of_every_family():
    assert ALL == ["adr-handwritten", "adr-tools-generated", "adr-tools-undated", "folder-per-decision-readme",
                   "log4brains-drafts", "madr-front-matter-git", "madr-git", "madr-versions"]


@pytest.mark.parametrize("name", ALL)
def test_every_decision_right_and_check_clean(tmp_path, name):
    out = run_log(LOGS / name, tmp_path)
    assert out.imported.exit_code == 0, out.imported.output
    assert out.misses == [], "\n".join(out.misses)
    assert out.checked.exit_code == 0, out.checked.output
    assert [ln for ln in out.checked.stdout.splitlines() if ": warning:" not in ln and " OK in " not in ln] == []
    assert len(copied_images(tmp_path / "records")) == out.truth["images"]
    assert out.report["tally"] == out.truth["tally"]
    skipped = sorted(str(Path(s["file"]).relative_to(tmp_path / "checkout" / out.truth["folder"]))
                     for s in out.report["skipped"] if "a link to" not in s["why"])
    assert skipped == sorted(out.truth["skipped"])


def test_the_summary_counts_each_assumption(tmp_path):
    out = run_log(LOGS / "madr-git", tmp_path)
    assert "of the decisions: date from git history 2, images copied 1, status assumed 2" in out.imported.stderr
    assert out.imported.stderr.count("no status: recorded as 'accepted' (it records the option taken), marked assumed") == 2
    rec = out.records["0002-choose-a-prompt-template-format.md"]
    assert {"file": rec["source"][0]["file"], "field": "status", "summary": (
        "assumed: the ADR states no status; 'accepted' because it records the option taken")} in rec["source"]
    assert {"file": rec["source"][0]["file"], "field": "date", "locator": "git log --follow", "summary": (
        "the date of the commit that added the file; the ADR states none")} in rec["source"]
    assert out.report["skipped"][0]["why"] == "a template (its title and values are placeholders), not a decision"


def test_adr_tools_spelling_and_the_links_it_writes(tmp_path):
    out = run_log(LOGS / "adr-tools-generated", tmp_path)
    old, new = out.records["0003-route-with-nginx.md"], out.records["0004-serve-with-vllm-and-sglang.md"]
    assert old["status"] == "superseded" and old["_id"] in new["supersedes"]
    assert "Clarified by [5. Pin the CUDA toolkit](0005-pin-the-cuda-toolkit.md)" in old["notes"]
    assert {"file": old["source"][0]["file"], "field": "status", "locator": "line 7", "quote": (
        "Superceded by [4. Serve with vLLM and SGLang](0004-serve-with-vllm-and-sglang.md) "
        "Clarified by [5. Pin the CUDA toolkit](0005-pin-the-cuda-toolkit.md)")} in old["source"]
    warned = out.results["0003-route-with-nginx.md"]["warnings"]
    assert any("date '03/04/2024' read day first (3 April 2024), as adr-tools wrote dd/mm/yyyy" in w for w in warned)
    assert not any("dropped" in w or "proposed" in w for w in warned)


def test_a_status_kb_has_no_word_for_is_kept_verbatim_and_warned(tmp_path):
    out = run_log(LOGS / "adr-handwritten", tmp_path)
    part = out.records["0002-one-cluster-per-region.md"]
    assert part["status"] == "accepted"
    assert "**Status in the ADR**\n\nPartially superseded by [ADR 0005](0005-shared-gpu-pool.md)" in part["notes"]
    assert [w for w in out.results["0002-one-cluster-per-region.md"]["warnings"] if "status" in w] == [
        f"{out.results['0002-one-cluster-per-region.md']['file']}: status 'Partially superseded by [ADR 0005]"
        "(0005-shared-gpu-pool.md)' it still stands in part: recorded as 'accepted'; the ADR's words kept verbatim "
        "beside it (source and notes)"]
    approved = out.results["0007-autoscale-on-kv-cache-use.md"]
    assert approved["status_text"] == "Approved"
    assert any("status 'Approved' recorded as 'accepted', the nearest kb status" in w for w in approved["warnings"])
    # kb infers the superseded status of 0008 from 0009 (accepted) only: said so, the ADR's word kept
    inferred = out.results["0008-use-one-model-per-gpu.md"]["warnings"]
    assert any("status 'accepted' in the ADR, but" in w and "recorded as 'superseded'" in w for w in inferred)
    assert out.records["0001-record-decisions.md"]["status"] == "accepted"
    assert out.results["0001-record-decisions.md"]["status_text"] is None  # "Accepted on <date>" reads plainly


def test_the_logs_own_superseded_by_a_draft_is_kept(tmp_path):
    out = run_log(LOGS / "log4brains-drafts", tmp_path)
    ring, nvls = out.records["20240105-use-ring-allreduce.md"], out.records["20240301-use-nvls-allreduce.md"]
    assert (ring["status"], nvls["status"], nvls["supersedes"]) == ("superseded", "proposed", [ring["_id"]])
    assert any("the ADR says it is superseded, but only" in w and "kept as the log states" in w
               for w in out.results["20240105-use-ring-allreduce.md"]["warnings"])
    warned = [ln for ln in out.checked.stdout.splitlines() if ": warning:" in ln]
    assert len(warned) == 1 and f"{ring['_id']}.yaml" in warned[0] and "superseded as its ADR states" in warned[0]
    assert "Refined by [20240210-pin-nccl-2-21](20240210-pin-nccl-2-21.md)" in ring["notes"]


def test_images_are_copied_beside_the_decisions_and_links_rewritten(tmp_path):
    out = run_log(LOGS / "adr-tools-undated", tmp_path)
    records = tmp_path / "records"
    assert copied_images(records) == ["decisions/img/awq-profile.png", "decisions/img/flow.svg"]
    src = tmp_path / "checkout" / "doc" / "adr" / "img"
    assert (records / "assets/decisions/img/flow.svg").read_bytes() == (src / "flow.svg").read_bytes()
    fp8, awq = out.records["0001-use-fp8-weights.md"], out.records["0002-try-int4-awq.md"]
    assert "![Where the scales are applied](decisions/img/flow.svg)" in fp8["considered_options"][0]["description"]
    text = awq["considered_options"][0]["description"]
    assert '![kernel profile](decisions/img/awq-profile.png "profile of one decode step")' in text
    assert "`![not an image](img/in-code.png)`" in text and "![also not an image](img/in-fence.png)" in text
    assert out.results["0002-try-int4-awq.md"]["images"] == ["decisions/img/awq-profile.png"]
    # importing again writes neither records nor a second copy of an image
    again = CliRunner().invoke(cli, ["--records", str(records), "import", "--format", "adr",
                                     str(tmp_path / "checkout" / "doc" / "adr")])
    assert again.exit_code == 0 and "3 exists" in again.stderr
    assert copied_images(records) == ["decisions/img/awq-profile.png", "decisions/img/flow.svg"]


def test_an_image_beside_the_adr_folder_in_the_work_tree_is_copied(tmp_path):
    out = run_log(LOGS / "madr-git", tmp_path)
    assert copied_images(tmp_path / "records") == ["decisions/images/request-path.png"]
    rec = out.records["0001-use-chat-templates-from-the-tokenizer.md"]
    assert "![request path](decisions/images/request-path.png)" in rec["outcome"]["rationale"]


def test_an_undated_file_gets_the_import_day_never_its_mtime(tmp_path):
    folder = lay_out(LOGS / "adr-tools-undated", tmp_path / "checkout")
    undated = folder / "0003-keep-the-lm-head-in-bf16.md"
    old = dt.datetime(2001, 5, 6, 12, 0).timestamp()
    os.utime(undated, (old, old))
    day = dt.date(2030, 1, 2)
    report = import_adrs(tmp_path / "records", folder, today=day)
    result = next(r for r in report.results if r.file.endswith("0003-keep-the-lm-head-in-bf16.md"))
    assert (result.id, result.date_from, result.record.date) == ("0003-keep-the-lm-head-in-bf16", "assumed", day)
    assert any("no date in the ADR nor in git history: recorded the import day 2030-01-02, marked assumed" in w
               for w in result.warnings)
    assert report.tally["date assumed"] == 1
    assert "2001" not in yaml.safe_dump(result.to_dict())


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=repo, env={**clean, **(env or {})}, check=True, capture_output=True)


def test_a_shallow_clone_gives_no_git_date_for_files_older_than_its_history(tmp_path):
    origin = tmp_path / "origin"
    (origin / "doc" / "adr").mkdir(parents=True)
    _git(origin, "init", "-q", "-b", "main")
    for n, date in enumerate(["2020-01-10T12:00:00+00:00", "2021-02-11T12:00:00+00:00", "2022-03-12T12:00:00+00:00"], 1):
        (origin / "doc" / "adr" / f"000{n}-choice-{n}.md").write_text(
            f"# {n}. Choice {n}\n\n## Status\n\nAccepted\n\n## Context\n\nWhy {n}.\n\n## Decision\n\nDo {n}.\n",
            encoding="utf-8")
        _git(origin, "add", ".")
        _git(origin, "-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", f"c{n}",
             env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    _git(tmp_path, "clone", "-q", "--depth", "2", f"file://{origin}", "shallow")
    report = import_adrs(tmp_path / "records", tmp_path / "shallow" / "doc" / "adr", today=dt.date(2030, 1, 2))
    # the clone's history starts at c2: what c2 shows as added may be older, so only c3's file has a git date
    assert [(Path(r.file).name, r.date_from, str(r.record.date)) for r in report.results] == [
        ("0001-choice-1.md", "assumed", "2030-01-02"), ("0002-choice-2.md", "assumed", "2030-01-02"),
        ("0003-choice-3.md", "git", "2022-03-12")]
    full = import_adrs(tmp_path / "records-full", origin / "doc" / "adr")
    assert [str(r.record.date) for r in full.results] == ["2020-01-10", "2021-02-11", "2022-03-12"]


def test_renames_are_followed_copies_are_not(tmp_path):
    # 0001 is renamed twice (once from a name git quotes); 0002 is a new ADR written from the same
    # template as 0001, which `git log --follow` would take for a copy of it
    repo = tmp_path / "repo"
    (repo / "adr").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    body = "\n\n## Status\n\nAccepted\n\n## Context\n\nThe same context.\n\n## Decision\n\nThe same decision.\n"

    def commit(date: str) -> None:
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", date,
             env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})

    (repo / "adr" / "0001-caf\u00e9.md").write_text("# 1. Caf\u00e9" + body, encoding="utf-8")
    commit("2019-04-01T10:00:00+02:00")
    _git(repo, "mv", "adr/0001-caf\u00e9.md", "adr/0001-cafe.md")
    commit("2020-05-02T10:00:00+02:00")
    (repo / "adr" / "0002-tea.md").write_text("# 2. Tea" + body, encoding="utf-8")
    commit("2021-06-03T10:00:00+02:00")
    (repo / "doc").mkdir()
    _git(repo, "mv", "adr", "doc/adr")
    commit("2022-07-04T10:00:00+02:00")
    report = import_adrs(tmp_path / "records", repo / "doc" / "adr")
    assert [(Path(r.file).name, r.date_from, str(r.record.date)) for r in report.results] == [
        ("0001-cafe.md", "git", "2019-04-01"), ("0002-tea.md", "git", "2021-06-03")]


def test_git_variables_of_a_hook_do_not_point_git_elsewhere(tmp_path, monkeypatch):
    folder = lay_out(LOGS / "madr-git", tmp_path / "checkout")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere" / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path))
    report = import_adrs(tmp_path / "records", folder)
    assert sorted(str(r.record.date) for r in report.results) == ["2024-09-30", "2024-11-04"]


def test_without_git_on_the_path_the_dates_are_assumed(tmp_path, monkeypatch):
    folder = lay_out(LOGS / "madr-git", tmp_path / "checkout")
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    report = import_adrs(tmp_path / "records", folder, today=dt.date(2030, 1, 2))
    assert [r.date_from for r in report.results] == ["assumed", "assumed"]
    assert all("git is not installed" in " ".join(r.warnings) for r in report.results)


def test_a_folder_per_decision_imports_every_folder(tmp_path):
    out = run_log(LOGS / "folder-per-decision-readme", tmp_path)
    assert sorted(r["_id"] for r in out.records.values()) == [
        "2022-03-04-slurm-for-training-jobs", "2023-01-30-gpu-scheduler", "kubernetes-device-plugin"]
    assert copied_images(tmp_path / "records") == ["decisions/gpu-scheduler/placement.png"]


def test_dry_run_copies_nothing_but_names_the_images(tmp_path):
    folder = lay_out(LOGS / "adr-tools-undated", tmp_path / "checkout")
    report = import_adrs(tmp_path / "records", folder, dry_run=True)
    assert not (tmp_path / "records").exists()
    assert report.tally["images copied"] == 2
