"""Round 3 of a tester trying to break kb's new parts: ``kb migrate``, ``schema_version``, stale
catalog records (``KB_TODAY``), "[explained by: ...]" warnings, ``gpu_count`` /
``tensor_parallel_size`` in ``applies_when``, ``bundled_in``, ``build_option`` fixes and
``kb log``'s refusal to auto-link a blocker the stack resolves.

Each test states what a user would expect; every one failed against kb when it was written.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli

REPO = Path(__file__).resolve().parents[1]

PLATFORM = """\
schema_version: 2
title: 8x RTX PRO 6000
gpu: NVIDIA RTX PRO 6000 Blackwell
gpu_count: 8
compute_capability: '12.0'
interconnect: PCIe Gen5
nvlink: false
"""
STACK = """\
schema_version: 2
title: CUDA 12.8
components:
  cuda: '12.8'
  torch: 2.9.1+cu128
"""
STACK13 = """\
schema_version: 2
title: CUDA 13.0
components:
  cuda: '13.0'
  torch: 2.10.0+cu130
"""
CAMPAIGN = """\
schema_version: 2
title: Llama 70B on RTX PRO
model: Llama-3.1-70B FP8
platform: p
stack: cuda-12.8
metric:
  name: output_throughput
  unit: tok/s
started: 2026-12-01
"""


def make(root: Path, files: dict[str, str | bytes] | None = None, *, base: bool = True) -> Path:
    """A records folder ``root/records`` with a platform ``p``, stack ``cuda-12.8`` and a campaign
    ``c`` (when ``base``), plus ``files`` (path under records → exact text or bytes)."""
    rec = root / "records"
    rec.mkdir(parents=True, exist_ok=True)
    every: dict[str, str | bytes] = {}
    if base:
        every.update({"platforms/p.yaml": PLATFORM, "stacks/cuda-12.8.yaml": STACK, "campaigns/c.yaml": CAMPAIGN})
    every.update(files or {})
    for rel, text in every.items():
        path = rec / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", newline="")
    return rec


def kb(rec: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["--records", str(rec), *args], env=env)


def out(r) -> str:
    return r.output


def no_traceback(r) -> None:
    assert "Traceback" not in out(r)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)


def snapshot(rec: Path) -> dict[str, bytes]:
    return {str(p.relative_to(rec)): p.read_bytes() for p in sorted(rec.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- schema_version


def test_schema_version_true_is_refused_not_read_as_version_1(tmp_path):
    """``schema_version: true`` is not a version; YAML's boolean is silently coerced to 1 (kb
    check passes and kb migrate says "schema_version: 1 → 2")."""
    rec = make(tmp_path, {"blockers/b.yaml": "schema_version: true\ntitle: b\ncomponent: cuda\n"})
    r = kb(rec, "check")
    no_traceback(r)
    assert r.exit_code == 1, out(r)
    assert "b.yaml:1: schema_version:" in out(r)


# --------------------------------------------------------------------------- kb migrate


V1_BLOCKER = 'title: SM120 blocker\ncomponent: cuda\nfixed_by:\n  - {cuda: ">=13.0"}\n'


def test_migrate_warns_that_trailing_comments_are_lost(tmp_path):
    """A comment at the end of a line is lost by --write just as a whole-line one is, but only
    whole-line comments get "(its comments will not be kept)" in the dry run."""
    rec = make(tmp_path, {"blockers/b.yaml": 'title: SM120 blocker\n'
                                             'component: cuda   # see NVIDIA forum thread 1234, keep this\n'
                                             'fixed_by:\n  - {cuda: ">=13.0"}  # per the ADR\n'})
    r = kb(rec, "migrate")
    no_traceback(r)
    assert "b.yaml" in r.output
    assert "comments will not be kept" in r.output, r.output


def test_migrate_does_not_call_a_hash_inside_a_block_scalar_a_comment(tmp_path):
    """A ``#`` line inside ``notes: |`` is text (kept by the rewrite), not a comment."""
    rec = make(tmp_path, {"blockers/b.yaml": V1_BLOCKER + "notes: |\n  Steps:\n  # 1. install the cu130 wheel\n"})
    r = kb(rec, "migrate")
    no_traceback(r)
    assert "b.yaml" in r.output
    assert "comments will not be kept" not in r.output, r.output


def test_migrate_write_with_a_record_that_does_not_load_exits_1_and_counts_it(tmp_path):
    """A record that fails validation is skipped; --write then exits 0 and, on the next run,
    says "nothing to migrate: N records already in schema version 2" although that file is still
    version 1. A user (or CI) expects exit 1 and the skipped file in the summary."""
    rec = make(tmp_path, {"blockers/good.yaml": V1_BLOCKER,
                          "blockers/bad.yaml": 'title: bad\ncomponent: cuda\nstatus: opened\n'})
    r = kb(rec, "migrate", "--write")
    no_traceback(r)
    assert "bad.yaml:3: status:" in out(r)
    assert r.exit_code == 1, out(r)
    again = kb(rec, "migrate")
    assert again.exit_code == 1, out(again)
    assert "skipped" in again.output or "1 record" in again.output, out(again)


def test_migrate_write_of_a_yml_record_does_not_leave_a_duplicate(tmp_path):
    """kb reads ``records/platforms/other.yml``; --write wrote ``other.yaml`` beside it, so the
    next ``kb check`` fails with "duplicate id 'other'"."""
    rec = make(tmp_path, {"platforms/other.yml": PLATFORM.replace("schema_version: 2\n", "").replace(
        "title: 8x RTX PRO 6000", "title: Other")})
    assert kb(rec, "check").exit_code == 0
    r = kb(rec, "migrate", "--write")
    no_traceback(r)
    names = sorted(p.name for p in (rec / "platforms").iterdir())
    assert names.count("other.yml") + names.count("other.yaml") == 1, names
    c = kb(rec, "check")
    assert c.exit_code == 0, out(c)


def test_migrate_write_does_not_silently_replace_a_symlinked_record(tmp_path):
    """``blockers/inner.yaml`` links to ``assets/real.yaml`` (inside the records folder, which
    kb check accepts). --write replaced the link with a plain file, leaving the link's target in
    version 1 and the two names split. Expected: write through the link, or refuse naming it."""
    rec = make(tmp_path, {"assets/real.yaml": V1_BLOCKER})
    (rec / "blockers").mkdir()
    (rec / "blockers" / "inner.yaml").symlink_to("../assets/real.yaml")
    assert kb(rec, "check").exit_code == 0
    r = kb(rec, "migrate", "--write")
    no_traceback(r)
    link = rec / "blockers" / "inner.yaml"
    if r.exit_code == 0:
        assert link.is_symlink(), "the symlink was replaced by a plain file"
        assert "schema_version: 2" in (rec / "assets" / "real.yaml").read_text()
    else:
        assert "symlink" in out(r) and "inner.yaml" in out(r)
        assert link.is_symlink()


def test_migrate_dry_run_and_write_say_what_the_write_gate_redacts(tmp_path):
    """--write goes through the write gate, which replaces a token in the notes by ``<secret>``
    and adds ``redacted: {secret: 1}``. The dry run (and --diff) showed neither, and --write said
    only "rewrote 1 records": text in the user's record changed without a word."""
    rec = make(tmp_path, {"blockers/b.yaml": V1_BLOCKER + "notes: |\n  pulled with token "
                                             "hf_abcdefghijklmnopqrstuvwxyz123456 from the hub\n"})
    dry = kb(rec, "migrate", "--diff")
    no_traceback(dry)
    assert "redact" in dry.output.lower(), dry.output
    r = kb(rec, "migrate", "--write")
    no_traceback(r)
    assert "redact" in out(r).lower(), out(r)


def test_migrate_write_failing_midway_does_not_claim_nothing_was_changed(tmp_path, monkeypatch):
    """The disk refuses the second file after the first was rewritten; kb said "cannot write
    (...); nothing was changed", which is false: one record was already rewritten."""
    rec = make(tmp_path, {"attempts/2026-12-01-a.yaml": "title: a\ndate: 2026-12-01\ncampaign: c\napproach: x\n"
                                                        "platform: p\nstack: cuda-12.8\noutcome: neutral\n",
                          "blockers/zz-b.yaml": V1_BLOCKER})
    real = os.replace

    def replace(src, dst, *a, **k):
        if "blockers" in str(dst):
            raise PermissionError(1, "Operation not permitted")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    r = kb(rec, "migrate", "--write")
    no_traceback(r)
    assert r.exit_code == 1
    assert "schema_version: 2" in (rec / "attempts" / "2026-12-01-a.yaml").read_text()  # it was written
    assert "nothing was changed" not in out(r), out(r)


def test_migrate_a_record_with_a_nel_character(tmp_path):
    """U+0085 (NEL) in a note is valid YAML and kb check accepts it, but kb migrate refuses the
    file with "it would read back as a different record (please report this as a kb bug)"."""
    rec = make(tmp_path, {"blockers/b.yaml": 'title: b\ncomponent: cuda\nnotes: "copied from a log: a\\x85b"\n'})
    assert kb(rec, "check").exit_code == 0
    r = kb(rec, "migrate", "--write")
    no_traceback(r)
    assert "kb bug" not in out(r), out(r)
    assert "schema_version: 2" in (rec / "blockers" / "b.yaml").read_text()


def test_migrate_interrupted_says_how_far_it_got(tmp_path):
    """Ctrl-C during --write printed only click's "Aborted!": the plan (every file) was listed
    before writing, so the user cannot tell which files were rewritten. Expected: no traceback,
    every file whole, and a line saying how many were rewritten / to run kb migrate --write again."""
    files = {f"attempts/2026-11-{i % 28 + 1:02d}-run-{i}.yaml":
             f"title: run {i}\ndate: 2026-11-{i % 28 + 1:02d}\ncampaign: c\napproach: try {i}\nplatform: p\n"
             f"stack: cuda-12.8\nconfig:\n  flags: [\"--tp 8\"]\noutcome: neutral\n" for i in range(1500)}
    rec = make(tmp_path, files)
    env = {**os.environ, "KB_CACHE": "off"}
    log_out, log_err = tmp_path / "out.txt", tmp_path / "err.txt"
    attempts = rec / "attempts"
    first = attempts / sorted(n.split("/")[1] for n in files)[0]  # written first (the plan is sorted by id)
    with open(log_out, "w") as fo, open(log_err, "w") as fe:
        # the child's SIGINT set to its default, whatever the suite was started with (a background
        # job ignores SIGINT, and a process keeps an ignored signal ignored)
        p = subprocess.Popen([sys.executable, "-m", "kb", "--records", str(rec), "migrate", "--write"],
                             stdout=fo, stderr=fe, env=env,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + 120
        while time.time() < deadline and p.poll() is None and not first.read_text().startswith("# yaml-language"):
            time.sleep(0.01)
        time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
    stdout, stderr = log_out.read_text(), log_err.read_text()
    assert "Traceback" not in stderr
    for f in attempts.iterdir():  # each file whole: old or new
        assert f.read_text().rstrip().endswith("outcome: neutral") or "schema_version: 2" in f.read_text()
    done = sum("schema_version: 2" in f.read_text() for f in attempts.iterdir())
    assert 0 < done < 1500, f"{done} rewritten: the interrupt did not land mid-write"
    tail = (stdout + stderr)[-400:]
    assert f"rewrote {done}" in tail or "kb migrate --write again" in tail, tail


# --------------------------------------------------------------------------- applies_when, bundled_in


def test_gpu_count_written_as_a_number_gets_advice_that_works(tmp_path):
    """``gpu_count: 8`` says 'quote it, e.g. gpu_count: "8"'; doing so gives a second error
    ("'8' is not a PEP 440 specifier set ...; did you mean '>=8' or '==8'?"). The first message
    should already suggest a specifier."""
    rec = make(tmp_path, {"blockers/b.yaml": 'schema_version: 2\ntitle: b\nsignatures: ["boom here"]\n'
                                             'applies_when:\n  gpu_count: 8\n'})
    r = kb(rec, "check")
    no_traceback(r)
    assert r.exit_code == 1
    assert "b.yaml:5: applies_when.gpu_count:" in out(r)
    assert 'gpu_count: "8"' not in out(r), out(r)
    assert "==8" in out(r) or ">=8" in out(r), out(r)


@pytest.mark.parametrize("bundler", ["banana-lib", "nccl", "vllm", '""'])
def test_bundled_in_must_name_another_component_of_the_stack(tmp_path, bundler):
    """``bundled_in`` naming an unknown component, the component itself, one the stack does not
    have, or nothing was accepted without a word."""
    stack = STACK + f'  nccl: {{version: "2.27.3", bundled_in: {bundler}}}\n'
    rec = make(tmp_path, {"stacks/cuda-12.8.yaml": stack})
    r = kb(rec, "check")
    no_traceback(r)
    assert r.exit_code == 1, out(r)
    assert "cuda-12.8.yaml:6: components.nccl.bundled_in:" in out(r), out(r)


TP_BLOCKER = ('schema_version: 2\ntitle: allreduce breaks at TP>=4\nsignatures: ["boom at allreduce"]\n'
              'applies_when:\n  tensor_parallel_size: ">=4"\n')


def test_tensor_parallel_size_of_a_run_with_two_tp_flags_is_deterministic(tmp_path):
    """With ``--flag "--tp 2" --flag "--tp 8"`` the TP size is read from a frozenset, so whether
    kb log links the TP>=4 blocker depends on PYTHONHASHSEED (linked on some runs, not on
    others). The same command must give the same record every time (the last flag wins, as in
    argparse)."""
    rec = make(tmp_path, {"blockers/tpb.yaml": TP_BLOCKER})
    (tmp_path / "err.log").write_text("boom at allreduce\n")
    seen = set()
    for seed in ("1", "2", "3", "4", "5", "6", "7", "8"):
        p = subprocess.run([sys.executable, "-m", "kb", "--records", str(rec), "log", "-t", "try", "-a", "x",
                            "-o", "failed", "--stack", "cuda-12.8", "--flag", "--tp 2", "--flag", "--tp 8",
                            "--error-file", str(tmp_path / "err.log"), "--link-matches", "--dry-run",
                            "--no-interactive"],
                           capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert p.returncode == 0, p.stderr
        seen.add("blocked_by" in p.stdout)
    assert len(seen) == 1, "kb log links the blocker on some hash seeds and not on others"


# --------------------------------------------------------------------------- kb log auto-link refusal


def test_log_refusal_does_not_credit_the_stack_with_what_the_override_resolves(tmp_path):
    """``--stack cuda-12.8 --component cuda=13.0``: kb said "stack cuda-12.8 resolves it
    (cuda>=13.0)", which is false (cuda-12.8 has cuda 12.8); the override resolves it."""
    rec = make(tmp_path, {"blockers/nokernel.yaml": 'schema_version: 2\ntitle: no kernel\ncomponent: cuda\n'
                                                    'signatures: ["no kernel image is available for execution"]\n'
                                                    'fixed_by:\n  - kind: enables\n    requires: {cuda: ">=13.0"}\n'})
    r = kb(rec, "log", "-t", "on12 with override", "-a", "x", "-o", "failed", "--stack", "cuda-12.8",
           "--component", "cuda=13.0", "--error", "CUDA error: no kernel image is available for execution on the device",
           "--link-matches", "--no-interactive", "--dry-run")
    no_traceback(r)
    assert "not linked" in out(r), out(r)
    assert "stack cuda-12.8 resolves it" not in out(r), out(r)
    assert "cuda=13.0" in out(r) or "cuda 13.0" in out(r), out(r)


# --------------------------------------------------------------------------- build_option fixes


def _rebuild_tree(tmp_path: Path, fix: str) -> Path:
    return make(tmp_path, {"blockers/nosm.yaml": 'schema_version: 2\ntitle: no sm120 kernels in the wheel\n'
                                                 'component: torch\nsignatures: ["no kernel image"]\n'
                                                 'applies_when: {cuda: "<13.0"}\nfixed_by:\n' + fix})


def test_unblocks_all_does_not_call_a_rebuild_fix_no_known_fix(tmp_path):
    """``kb unblocks cuda=12.9 --all`` lists nosm under "fixable by a rebuild the change makes
    possible" and again under "still blocked" as "no known fix" (JSON: missing: ["no known
    fix"]), contradicting itself."""
    rec = _rebuild_tree(tmp_path, '  - kind: build_option\n    requires: {cuda: ">=12.9"}\n'
                                  '    flag: TORCH_CUDA_ARCH_LIST=12.0\n')
    r = kb(rec, "unblocks", "cuda=12.9", "--from", "cuda-12.8", "--all")
    no_traceback(r)
    assert "fixable by a rebuild" in r.output
    assert "no known fix" not in r.output, r.output
    j = json.loads(kb(rec, "unblocks", "cuda=12.9", "--from", "cuda-12.8", "--json").output)
    for row in j["other_still_blocked"] + j["still_blocked"]:
        assert "no known fix" not in row.get("missing", []), row


def test_unblocks_rebuild_without_a_flag_does_not_print_the_note_as_the_flag(tmp_path):
    """A build_option with ``requires`` and a ``note`` but no ``flag`` printed "rebuild with
    rebuild torch from source for sm_120" and put the note in the JSON's ``flag``."""
    rec = _rebuild_tree(tmp_path, '  - kind: build_option\n    requires: {cuda: ">=12.9"}\n'
                                  '    note: rebuild torch from source for sm_120\n')
    assert kb(rec, "check").exit_code == 0
    r = kb(rec, "unblocks", "cuda=12.9", "--from", "cuda-12.8")
    no_traceback(r)
    assert "fixable by a rebuild" in r.output
    assert "rebuild with rebuild" not in r.output, r.output
    j = json.loads(kb(rec, "unblocks", "cuda=12.9", "--from", "cuda-12.8", "--json").output)
    assert j["rebuild"][0]["flag"] is None, j["rebuild"]


# --------------------------------------------------------------------------- kb check warnings, staleness


def test_explained_by_command_works_from_where_kb_check_was_run(tmp_path):
    """``kb --records /elsewhere/records check`` ends a warning with "[explained by: kb why ID]";
    run from the same folder that command fails ("records folder not found"). It should carry
    ``--records``."""
    rec = tmp_path / "campaign" / "records"
    shutil.copytree(REPO / "records", rec)
    work = tmp_path / "work"
    work.mkdir()
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(work)
    try:
        r = runner.invoke(cli, ["--records", str(rec), "check"], env={"KB_RECORDS": ""})
        assert "[explained by: " in out(r), out(r)
        cmd = out(r).split("[explained by: ", 1)[1].split("]", 1)[0]
        argv = cmd.split()
        assert argv[0] == "kb"
        again = runner.invoke(cli, argv[1:], env={"KB_RECORDS": ""})
        assert again.exit_code == 0, f"{cmd}: {out(again)}"
    finally:
        os.chdir(old)


def test_every_warning_ends_with_the_command_that_explains_it(tmp_path):
    """README: a warning about an attempt, or about a decision's stack change, ends with the
    command that explains it. (The helper found a proposed decision's ``resolves`` warning with
    none: the README claimed every warning; it now says which, and the decision here has a stack
    change, so its warning names ``kb unblocks``.)"""
    rec = make(tmp_path, {"blockers/b1.yaml": "schema_version: 2\ntitle: B1\ncomponent: cuda\n",
                          "stacks/s1.yaml": "title: s1\ncomponents: {cuda: '12.8'}\n",
                          "stacks/s2.yaml": "title: s2\ncomponents: {cuda: '13.0'}\n",
                          "decisions/2026-12-01-d1.yaml": "schema_version: 2\ntitle: D1\nstatus: proposed\n"
                                                          "date: 2026-12-01\ncontext: ctx\nresolves: [b1]\n"
                                                          "stack_change: {from: s1, to: s2}\n"
                                                          "considered_options: [{title: A}]\n"
                                                          "outcome: {chosen: A, rationale: r}\n"})
    r = kb(rec, "check")
    no_traceback(r)
    warnings = [line for line in out(r).splitlines() if ": warning: " in line]
    assert warnings
    for line in warnings:
        assert line.rstrip().endswith("]") and "[explained by: kb " in line, line


def test_a_catalog_record_checked_in_the_future_is_flagged(tmp_path):
    """A catalog record with ``checked: 2062-01-05`` (a typo for 2026) is never stale and kb
    check -v says nothing; a date after today is surely wrong and should be named."""
    rec = make(tmp_path, {"campaigns/c.yaml": CAMPAIGN + "catalogs: [../mycat]\n"})
    cat = tmp_path / "mycat"
    (cat / "blockers").mkdir(parents=True)
    (cat / "CATALOG.md").write_text("# my catalog\n")
    (cat / "blockers" / "typo-date.yaml").write_text("title: a record\nchecked: 2062-01-05\ncomponent: cuda\n"
                                                     'signatures: ["boom here"]\n')
    r = kb(rec, "check", "-v", env={"KB_TODAY": "2026-12-02"})
    no_traceback(r)
    assert "typo-date" in out(r), out(r)
    assert "2062-01-05" in out(r), out(r)


def test_build_with_a_bad_kb_today_is_a_usage_error_like_check(tmp_path):
    """``KB_TODAY=bad kb check`` exits 2 (usage); ``KB_TODAY=bad kb build`` exits 1 with "site
    build failed". The same bad setting should be the same exit code."""
    rec = make(tmp_path)
    c = kb(rec, "check", env={"KB_TODAY": "bad"})
    assert c.exit_code == 2
    b = kb(rec, "build", "--site-dir", str(tmp_path / "site"), env={"KB_TODAY": "bad"})
    no_traceback(b)
    assert "KB_TODAY" in out(b)
    assert b.exit_code == 2, out(b)
