"""`kb review`: drafts walked on a terminal (a pseudo-terminal here) become reviewed records, are
merged into the attempt they repeat, or are rejected for good; the steps as library functions."""

from __future__ import annotations

import datetime as dt
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT
from terminal import Terminal

from kb.cli import cli
from kb.errors import RecordError, UsageError
from kb.importers.drafts import import_logs
from kb.pipeline import load
from kb.store import remove_record
from kb.store.review import Rejection, add_rejection, load_rejections
from kb.usecases import review as uc

LOG = ROOT / "tests" / "fixtures" / "logs" / "claude-campaign.jsonl"
BASELINE = "2026-02-26-baseline-throughput-cuda-graph-max-bs-128"
FAILED = "2026-02-26-try-torch-symmetric-memory-allreduce"
EAGLE = "2026-02-27-eagle-3-throughput-on-cuda-13"
TARGET = "2026-02-27-eagle3-cuda13"  # the hand-written record EAGLE repeats
SHA = "112eaa35f9b405d6dbe1a66f113df8a25aed6a3a745871b2f26463facb99a630"
KEYS = "[a]ccept  [e]dit  [m]erge  [r]eject  [s]kip  [q]uit ? "


@pytest.fixture
def drafts(campaign_copy: Path) -> Path:
    """The campaign's records with the three drafts `kb import` makes of the Claude transcript."""
    report = import_logs(campaign_copy, [LOG])
    assert sorted(d.id for d in report.drafts if d.state == "written") == [BASELINE, FAILED, EAGLE]
    return campaign_copy


def data(records: Path, rid: str) -> dict:
    return yaml.safe_load((records / "attempts" / f"{rid}.yaml").read_text(encoding="utf-8"))


def review(records: Path, *args: str, env: dict[str, str] | None = None) -> Terminal:
    return Terminal([sys.executable, "-m", "kb", "--records", str(records), "review", *args],
                    cwd=str(records.parent), env=env)


def reimport(records: Path) -> tuple[str, str]:
    res = CliRunner().invoke(cli, ["--records", str(records), "import", str(LOG)])
    assert res.exit_code == 0, res.stderr
    return res.stdout, res.stderr


# --------------------------------------------------------------------------- on a terminal


def test_accept_reject_and_merge_on_a_terminal_then_a_reimport_brings_nothing_back(drafts):
    before = {rid: data(drafts, rid) for rid in (BASELINE, EAGLE, TARGET)}
    term = review(drafts)
    try:
        screen = term.expect(KEYS)
        assert f"Draft 1 of 3: {BASELINE}" in screen
        assert "confidence  0.90: sglang-bench output" in screen
        term.press("a")
        term.expect(f"Draft 2 of 3: {FAILED}")
        screen = term.expect(KEYS)
        assert "error       KeyError: 12" in screen
        assert "from        claude-campaign.jsonl line 8 (claude, sha256 112eaa35f9b4)" in screen
        assert "- blocked by torch-symm-mem-no-capability-12 (" in screen
        term.press("r")
        term.expect("empty: back): ")
        term.send("the same run as 2026-02-23-torch-symm-mem")
        term.expect(f"Draft 3 of 3: {EAGLE}")
        screen = term.expect(KEYS)
        assert f"possibly the same run as {TARGET} (same date and output_throughput 96.1 tok/s)" in screen
        term.press("m")
        screen = term.expect("Tab completes; empty: back): ")
        assert f"  1. {TARGET}  EAGLE-3 speculative decoding on the CUDA 13 stack  (same date" in screen
        term.send(TARGET)
        for field, key in (("title", "t"), ("approach", "k"), ("baseline", "k"), ("config.flags", "k")):
            term.expect(f"  {field} differs:")
            term.expect("[c]ancel the merge ? ")
            term.press(key)
        screen = term.expect("reviewed: 1 accepted, 1 merged, 1 rejected")
    finally:
        code = term.close()
    assert code == 0, screen

    # accepted: reviewed, in place, the request for review gone from its notes, nothing else changed
    accepted = data(drafts, BASELINE)
    assert "status" not in accepted  # reviewed, the default, is not written
    assert accepted["notes"].startswith("Drafted by `kb import` from claude-campaign.jsonl (claude 2.1.14).\n\n"
                                        "Confidence 0.90: sglang-bench output.")
    assert "status: reviewed" not in accepted["notes"]
    assert {k: v for k, v in accepted.items() if k not in ("status", "notes")} == \
        {k: v for k, v in before[BASELINE].items() if k not in ("status", "notes")}

    # rejected: gone, with its reason and identity kept
    assert not (drafts / "attempts" / f"{FAILED}.yaml").exists()
    kept = yaml.safe_load((drafts / "review" / "rejected.yaml").read_text(encoding="utf-8"))
    assert kept == {"rejected": [{
        "id": FAILED, "reason": "the same run as 2026-02-23-torch-symm-mem", "date": dt.date.today(),
        "title": "Try torch symmetric memory allreduce", "file": "claude-campaign.jsonl", "sha256": SHA,
        "locator": "line 8", "key": "claude:7d1c2a9e-4b3f-4e55-9a51-0c2f1e6b8a10:u-0007"}]}

    # merged: the draft is gone; the attempt took the title it was told to, kept the rest, gained the
    # draft's figures, sources and notes
    assert not (drafts / "attempts" / f"{EAGLE}.yaml").exists()
    merged, old = data(drafts, TARGET), before[TARGET]
    assert merged["title"] == "EAGLE-3 throughput on CUDA 13"
    assert (merged["approach"], merged["baseline"], merged["config"]["flags"]) == \
        (old["approach"], old["baseline"], old["config"]["flags"])
    assert merged["metrics"] == {**old["metrics"], "duration": "341.05 s", "median_ttft": "905.10 ms",
                                 "median_tpot": "10.21 ms", "acceptance_length": "2.84 tokens"}
    assert merged["config"]["command"] == before[EAGLE]["config"]["command"]
    assert merged["config"]["settings"] == {"backend": "sglang", "successful_requests": "64"}
    assert merged["source"][:2] == old["source"]
    assert merged["source"][2:] == before[EAGLE]["source"]
    assert merged["tags"] == old["tags"]
    assert "status" not in merged
    assert merged["notes"].startswith(f"Merged from draft `{EAGLE}` (drafted from claude-campaign.jsonl line 17) "
                                      f"in `kb review` on {dt.date.today().isoformat()}.\n\n")
    assert ('approach: the draft had "Stack is up. Now EAGLE-3 with flashinfer allreduce fusion enabled."; '
            f'baseline: the draft had "{BASELINE}"') in merged["notes"]
    assert "> Confidence 0.90: sglang-bench output." in merged["notes"]
    assert "Possibly a duplicate" not in merged["notes"]

    # the same log again: the accepted and the merged are already imported, the rejected stays out
    files = sorted(p.name for p in (drafts / "attempts").iterdir())
    out, err = reimport(drafts)
    assert "0 draft(s) written" in err and "2 already imported, 1 rejected in review" in err
    assert f"rejected in review: {FAILED} (line 8): the same run as 2026-02-23-torch-symm-mem" in out
    assert sorted(p.name for p in (drafts / "attempts").iterdir()) == files
    check = CliRunner().invoke(cli, ["--records", str(drafts), "check"])
    assert check.exit_code == 0, check.output


FAKE_EDITOR = """
import os, sys, pathlib
path, state = pathlib.Path(sys.argv[1]), pathlib.Path(os.environ["FAKE_EDITOR_STATE"])
n = int(state.read_text()) if state.exists() else 0
state.write_text(str(n + 1))
text = path.read_text(encoding="utf-8")
if n == 0:  # a slip: an outcome kb does not know
    text = text.replace("outcome: failed", "outcome: wonderful")
else:       # fixed, and a better title
    text = text.replace("outcome: wonderful", "outcome: failed").replace(
        "title: Try torch symmetric memory allreduce", "title: Torch symmetric memory allreduce on SM120")
path.write_text(text, encoding="utf-8")
"""


def test_edit_in_the_editor_keeps_an_invalid_edit_then_saves_it_once_it_validates(drafts, tmp_path):
    script = tmp_path / "fake_editor.py"
    script.write_text(FAKE_EDITOR, encoding="utf-8")
    state = tmp_path / "editor-calls"
    env = {"EDITOR": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", "VISUAL": "",
           "FAKE_EDITOR_STATE": str(state)}
    draft = drafts / "attempts" / f"{FAILED}.yaml"
    original = draft.read_bytes()
    edit = drafts / "review" / "edits" / f"{FAILED}.yaml"

    term = review(drafts, FAILED, env=env)
    try:
        term.expect(KEYS)
        term.press("e")
        screen = term.expect("[s]kip this draft (kb review offers the edit next time) ? ")
        term.press("s")
        screen = term.expect("reviewed: 1 skipped")
    finally:
        code = term.close()
    assert code == 0, screen
    line = edit.read_text(encoding="utf-8").splitlines().index("outcome: wonderful") + 1
    assert f"records/review/edits/{FAILED}.yaml:{line}: outcome: " in screen
    assert draft.read_bytes() == original  # the draft is untouched, the edit kept
    assert "outcome: wonderful" in edit.read_text(encoding="utf-8")

    term = review(drafts, FAILED, env=env)
    try:
        screen = term.expect(KEYS)
        assert f"unfinished edit: {edit} ([e]dit goes on from it)" in screen
        term.press("e")
        term.expect(f"saved: {draft}")
        screen = term.expect(KEYS)
        assert "title       Torch symmetric memory allreduce on SM120" in screen.rsplit("saved:", 1)[1]
        term.press("a")
        screen = term.expect("reviewed: 1 accepted, 1 edited")
    finally:
        code = term.close()
    assert code == 0, screen
    assert state.read_text() == "2"
    record = data(drafts, FAILED)
    assert (record["title"], record["outcome"], record.get("status", "reviewed")) == (
        "Torch symmetric memory allreduce on SM120", "failed", "reviewed")
    assert not edit.exists()


@pytest.mark.parametrize("where", ["at the key prompt", "while typing a reason"])
def test_ctrl_c_mid_review_keeps_what_was_done(drafts, where):
    before = {rid: (drafts / "attempts" / f"{rid}.yaml").read_bytes() for rid in (FAILED, EAGLE)}
    term = review(drafts)
    try:
        term.expect(KEYS)
        term.press("a")
        term.expect(f"accepted: {drafts / 'attempts' / BASELINE}.yaml")
        term.expect(KEYS)
        if where == "while typing a reason":
            term.press("r")
            term.expect("empty: back): ")
            term.press("half a rea")
            term.expect("half a rea")  # echoed: the line is being typed
            term.wait_blocked()
        term.press("\x03")
        screen = term.expect("every file is whole")
    finally:
        code = term.close()
    assert code == 130, screen
    assert "interrupted: reviewed: 1 accepted" in screen
    assert "status" not in data(drafts, BASELINE)
    assert {rid: (drafts / "attempts" / f"{rid}.yaml").read_bytes() for rid in (FAILED, EAGLE)} == before
    assert not (drafts / "review").exists()


# --------------------------------------------------------------------------- without a terminal


def test_without_a_terminal_it_refuses_and_lists_instead(drafts):
    res = CliRunner().invoke(cli, ["--records", str(drafts), "review"])
    assert res.exit_code == 2
    assert "stdin or stdout is not a terminal" in res.stderr and "kb review --list" in res.stderr
    res = CliRunner().invoke(cli, ["--records", str(drafts), "review", "--list", "--json"])
    assert res.exit_code == 0, res.stderr
    import json

    views = {v["id"]: v for v in json.loads(res.stdout)}
    assert list(views) == [BASELINE, FAILED, EAGLE]
    failed = views[FAILED]
    assert {k: failed[k] for k in ("title", "outcome", "metric", "stack", "platform", "error", "source", "confidence",
                                   "confidence_reason", "problems", "pending_edit")} == {
        "title": "Try torch symmetric memory allreduce", "outcome": "failed", "metric": None, "stack": "cuda-12.8",
        "platform": "rtx-pro-6000-blackwell-x8", "error": "KeyError: 12",
        "source": "claude-campaign.jsonl line 8 (claude, sha256 112eaa35f9b4)", "confidence": 0.85,
        "confidence_reason": "a failed run (its output reports the failure)", "problems": [], "pending_edit": None}
    assert failed["inferred"][0].startswith("blocked by torch-symm-mem-no-capability-12 (Torch symmetric memory")
    assert views[BASELINE]["metric"] == "output_throughput 89.52 tok/s"
    assert views[EAGLE]["inferred"][0] == f"compared with baseline {BASELINE}"


def test_unknown_or_reviewed_ids_are_usage_errors(drafts):
    res = CliRunner().invoke(cli, ["--records", str(drafts), "review", "--list", FAILED[:-3]])
    assert res.exit_code == 2 and f"no such draft (did you mean {FAILED}?)" in res.stderr
    res = CliRunner().invoke(cli, ["--records", str(drafts), "review", "--list", TARGET])
    assert res.exit_code == 2 and "already reviewed" in res.stderr


# --------------------------------------------------------------------------- the steps


def test_merge_plan_fills_empty_fields_and_names_each_conflict(drafts):
    loaded, _ = uc.load_drafts(drafts)
    plan = uc.plan_merge(loaded, EAGLE, TARGET)
    assert [c.field for c in plan.conflicts] == ["title", "approach", "baseline", "config.flags"]
    assert [name for name, _v in plan.filled] == [
        "config.command", "config.settings.backend", "config.settings.successful_requests", "metrics.duration",
        "metrics.median_ttft", "metrics.median_tpot", "metrics.acceptance_length"]
    assert len(plan.sources) == 17 and plan.tags == [] and plan.referrers == []
    with pytest.raises(UsageError, match="no such attempt"):
        uc.plan_merge(loaded, EAGLE, "2026-02-27-eagle3-cuda14")
    with pytest.raises(UsageError, match="into itself"):
        uc.plan_merge(loaded, EAGLE, EAGLE)


def test_merge_points_the_records_naming_the_draft_at_the_attempt(drafts):
    (drafts / "attempts" / "2026-02-28-rerun.yaml").write_text(yaml.safe_dump({
        "title": "Re-run", "date": "2026-02-28", "campaign": "kimi-k25-eagle3-blackwell", "approach": "again",
        "outcome": "neutral", "baseline": EAGLE, "retry_of": EAGLE, "status": "draft"}), encoding="utf-8")
    adr = drafts / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml"
    text = adr.read_text(encoding="utf-8")
    adr.write_text(text.replace("evidence: [2026-02-23-nccl-tree]", f"evidence: [2026-02-23-nccl-tree, {EAGLE}]"),
                   encoding="utf-8")
    loaded, _ = uc.load_drafts(drafts)
    plan = uc.plan_merge(loaded, EAGLE, TARGET)
    assert sorted(plan.referrers) == [("2026-02-26-upgrade-to-cuda-13", "considered_options.2.evidence.1"),
                                      ("2026-02-28-rerun", "baseline"), ("2026-02-28-rerun", "retry_of")]
    res = uc.apply_merge(drafts, loaded, plan)
    assert res.redirected == ["2026-02-26-upgrade-to-cuda-13", "2026-02-28-rerun"]
    rerun = data(drafts, "2026-02-28-rerun")
    assert (rerun["baseline"], rerun["retry_of"]) == (TARGET, TARGET)
    options = yaml.safe_load(adr.read_text(encoding="utf-8"))["considered_options"]
    assert options[2]["evidence"] == ["2026-02-23-nccl-tree", TARGET]
    assert load(drafts).problems == []


def test_reject_drops_what_other_drafts_take_from_it_and_refuses_while_a_record_names_it(drafts):
    hand = drafts / "attempts" / "2026-02-28-by-hand.yaml"
    hand.write_text(yaml.safe_dump({
        "title": "By hand", "date": "2026-02-28", "campaign": "kimi-k25-eagle3-blackwell", "approach": "x",
        "outcome": "neutral", "baseline": BASELINE}), encoding="utf-8")
    loaded, _ = uc.load_drafts(drafts)
    with pytest.raises(UsageError, match=r"is named by 2026-02-28-by-hand \(baseline\)"):
        uc.reject_draft(drafts, loaded, BASELINE, "not a real baseline")
    assert (drafts / "attempts" / f"{BASELINE}.yaml").exists() and not (drafts / "review").exists()
    with pytest.raises(UsageError, match="needs a reason"):
        uc.reject_draft(drafts, loaded, BASELINE, "  ")

    hand.unlink()
    loaded, _ = uc.load_drafts(drafts)
    res = uc.reject_draft(drafts, loaded, BASELINE, "not a real baseline", today=dt.date(2026, 3, 1))
    assert res.cleared == [EAGLE]
    eagle = data(drafts, EAGLE)
    assert "baseline" not in eagle
    assert eagle["notes"].endswith(f"Its baseline was draft `{BASELINE}`, rejected in `kb review` on 2026-03-01: "
                                   "not a real baseline\n")
    assert load(drafts).problems == []

    # the log imported again after its drafts went: the rejected passage stays out, and the run that
    # was compared with it comes back without a baseline
    (drafts / "attempts" / f"{EAGLE}.yaml").unlink()
    report = import_logs(drafts, [LOG])
    states = {d.id: d.state for d in report.drafts}
    assert states == {FAILED: "exists", BASELINE: "rejected", EAGLE: "written"}
    assert "baseline" not in data(drafts, EAGLE)
    assert load(drafts).problems == []


def test_import_recognises_a_rejection_by_log_and_locator_without_a_key(drafts):
    loaded, _ = uc.load_drafts(drafts)
    remove_record(drafts, loaded.records.get(FAILED))
    add_rejection(drafts, Rejection(id=FAILED, reason="noise", date=dt.date(2026, 3, 1), sha256=SHA, locator="line 8"))
    report = import_logs(drafts, [LOG], dry_run=True)
    [gone] = [d for d in report.drafts if d.state == "rejected"]
    assert (gone.id, gone.anchor, gone.rejected) == (FAILED, "line 8", "noise")
    assert gone.to_dict()["rejected_because"] == "noise"


@pytest.mark.parametrize(("text", "where"), [
    ("rejected:\n- id: x\n  date: 2026-03-01\n", "records/review/rejected.yaml:2: rejected.0.reason: required field"),
    ("rejected:\n- id: x\n  reason: r\n  date: soon\n", "records/review/rejected.yaml:4: rejected.0.date: 'soon' is not a date"),
    ("rejected:\n- id: x\n  reason: r\n  date: 2026-03-01\n  why: y\n", "rejected.0: unknown key(s) why"),
    ("- id: x\n", "records/review/rejected.yaml:1: expected a mapping with one key, 'rejected'"),
])
def test_a_malformed_rejections_file_is_a_located_error(drafts, text, where):
    (drafts / "review").mkdir()
    (drafts / "review" / "rejected.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as exc:
        load_rejections(drafts)
    assert where in str(exc.value)
    res = CliRunner().invoke(cli, ["--records", str(drafts), "import", str(LOG)])
    assert res.exit_code == 1 and where in res.stderr


def test_an_edit_naming_a_missing_record_is_located_and_kept(drafts):
    loaded, _ = uc.load_drafts(drafts)
    path = uc.start_edit(drafts, loaded, EAGLE)
    text = path.read_text(encoding="utf-8").replace(f"baseline: {BASELINE}", "baseline: 2026-02-19-baseline-tp9")
    path.write_text(text, encoding="utf-8")
    res = uc.finish_edit(drafts, loaded, EAGLE)
    line = text.splitlines().index("baseline: 2026-02-19-baseline-tp9") + 1
    assert [str(p) for p in res.problems] == [
        f"records/review/edits/{EAGLE}.yaml:{line}: baseline: no attempt '2026-02-19-baseline-tp9'; "
        "did you mean '2026-02-19-baseline-tp8'?"]
    assert res.record is None and path.read_text(encoding="utf-8") == text
    assert data(drafts, EAGLE)["baseline"] == BASELINE
    path.write_text(text.replace("baseline: 2026-02-19-baseline-tp9", f"baseline: {BASELINE}"), encoding="utf-8")
    res = uc.finish_edit(drafts, loaded, EAGLE)
    assert (res.changed, res.problems) == (False, []) and not path.exists()


def test_the_review_folder_is_not_read_as_records(drafts):
    add_rejection(drafts, Rejection(id="x", reason="r", date=dt.date(2026, 3, 1)))
    (drafts / "review" / "edits").mkdir()
    (drafts / "review" / "edits" / f"{EAGLE}.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["--records", str(drafts), "check"])
    assert res.exit_code == 0, res.output
