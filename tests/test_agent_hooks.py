"""Agent hooks: `kb hooks install|uninstall|status` (settings merged, never overwritten) and
`kb import --hook` (a hook payload imports its transcript once, never fails the agent).

Fixtures: tests/fixtures/hooks/ (payloads and settings files, README.md there) and the
transcripts of tests/fixtures/logs/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.errors import ConfigError
from kb.usecases import hooks
from kb.usecases.hooks import AGENTS, hook_command, hook_status, install_hook, run_hook, uninstall_hook

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "tests" / "fixtures" / "hooks"
LOGS = ROOT / "tests" / "fixtures" / "logs"
CLAUDE_CMD = 'kb --records "$CLAUDE_PROJECT_DIR"/records import --hook --format claude'


@pytest.fixture
def project(records: Path) -> Path:
    """A project folder holding a copy of the campaign's records (``records/``), its cache and
    hook log beside them (``.kb-cache/``)."""
    return records.parent


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def kb_cli(*args: str, input: bytes | str | None = None, cwd: Path | None = None):
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, list(args), input=input)
    finally:
        os.chdir(old)


def log_lines(project: Path) -> list[str]:
    return (project / ".kb-cache" / "hooks.log").read_text(encoding="utf-8").splitlines()


def runs(project: Path) -> list[str]:
    """The summary line of every hook run logged (details are indented)."""
    return [line for line in log_lines(project) if not line.startswith(" ")]


# --- installing ------------------------------------------------------------------------------


def test_install_keeps_every_other_key_and_hook_exactly(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    shutil.copy(HOOKS / "claude-settings.json", settings)
    change = install_hook("claude-code", project, project / "records")
    assert (change.state, change.command, change.path) == ("installed", CLAUDE_CMD, settings)
    assert settings.read_text(encoding="utf-8") == (HOOKS / "claude-settings.installed.json").read_text(encoding="utf-8")


def test_installing_twice_adds_the_hook_once(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    shutil.copy(HOOKS / "claude-settings.json", settings)
    install_hook("claude-code", project, project / "records")
    after_first = settings.read_bytes()
    again = install_hook("claude-code", project, project / "records")
    assert again.state == "unchanged"
    assert settings.read_bytes() == after_first
    commands = [h["command"] for g in json.loads(after_first)["hooks"]["SessionEnd"] for h in g["hooks"]]
    assert commands == ["notify-send 'Claude Code' 'session cleared'", CLAUDE_CMD]


def test_the_cli_installs_once_and_says_so(project):
    first = kb_cli("hooks", "install", "claude-code", "--kb-command", "kb", cwd=project)
    assert first.exit_code == 0, first.output
    assert f"claude-code hook added to .claude/settings.json: {CLAUDE_CMD}" in first.stdout
    assert f"logged in {project / '.kb-cache' / 'hooks.log'}" in first.stderr
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {
        "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": CLAUDE_CMD, "timeout": 30}]}]}}
    second = kb_cli("hooks", "install", "claude-code", "--kb-command", "kb", cwd=project)
    assert second.exit_code == 0 and "hook already in .claude/settings.json" in second.stdout


def test_installing_for_a_records_folder_not_there_warns(tmp_path):
    result = kb_cli("hooks", "install", "claude-code", "--kb-command", "kb", cwd=tmp_path)
    assert result.exit_code == 0
    assert "warning: the records folder records does not exist (yet)" in result.stderr
    assert (tmp_path / ".claude" / "settings.json").is_file()


def test_a_new_records_folder_replaces_kb_s_hook_in_place(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    shutil.copy(HOOKS / "claude-settings.json", settings)
    install_hook("claude-code", project, project / "records")
    moved = install_hook("claude-code", project, project / "data" / "records", kb_command="/opt/venv/bin/python -m kb")
    assert moved.state == "updated"
    groups = json.loads(settings.read_text())["hooks"]["SessionEnd"]
    assert [h["command"] for g in groups for h in g["hooks"]] == [
        "notify-send 'Claude Code' 'session cleared'",
        '/opt/venv/bin/python -m kb --records "$CLAUDE_PROJECT_DIR"/data/records import --hook --format claude']


def test_uninstall_gives_back_the_file_as_it_was(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    shutil.copy(HOOKS / "claude-settings.json", settings)
    install_hook("claude-code", project, project / "records")
    removed = uninstall_hook("claude-code", project)
    assert (removed.state, removed.command) == ("removed", CLAUDE_CMD)
    assert json.loads(settings.read_text()) == json.loads((HOOKS / "claude-settings.json").read_text())
    assert uninstall_hook("claude-code", project).state == "absent"


def test_uninstall_drops_what_only_kb_s_hook_held(project):
    install_hook("claude-code", project, project / "records")
    settings = project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["model"] = "opus"
    settings.write_text(json.dumps(data))
    uninstall_hook("claude-code", project)
    assert json.loads(settings.read_text()) == {"model": "opus"}


def test_a_missing_file_and_folder_are_created(project):
    assert not (project / ".claude").exists()
    install_hook("claude-code", project, project / "records")
    assert json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["SessionEnd"][0]["hooks"][0][
        "command"] == CLAUDE_CMD


def test_an_empty_file_counts_as_no_settings(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("\n")
    assert install_hook("claude-code", project, project / "records").state == "installed"
    assert list(json.loads(settings.read_text())) == ["hooks"]


def test_a_symlinked_settings_file_keeps_its_link(project, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}')
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.symlink_to(dotfiles)
    install_hook("claude-code", project, project / "records")
    assert settings.is_symlink()
    assert json.loads(dotfiles.read_text())["model"] == "opus"
    assert CLAUDE_CMD in dotfiles.read_text(encoding="utf-8").replace('\\"', '"')


MALFORMED = [
    ('{"model": "opus",}\n', 1, "not valid JSON: Expecting property name enclosed in double quotes (column 18)"),
    ('{\n  // my hooks\n  "hooks": {}\n}\n', 2, "not valid JSON: Expecting property name enclosed in double quotes"),
    ('{"hooks": {"SessionEnd": [\n', 2, "not valid JSON: Expecting value"),
    ('[{"hooks": {}}]', 1, "the top level is a JSON list, expected an object {...}"),
    ('{"model": "opus",\n "hooks": []}', 2, "hooks: is a JSON list, expected an object of events"),
    ('{"hooks": {\n  "SessionEnd": {"hooks": []}}}', 2,
     "hooks.SessionEnd: is a JSON object, expected a list of matcher groups"),
]


@pytest.mark.parametrize("text, line, message", MALFORMED)
def test_a_malformed_settings_file_is_refused_and_left_alone(project, text, line, message):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        install_hook("claude-code", project, project / "records")
    assert caught.value.problem.path == str(settings) and caught.value.problem.line == line
    assert message in str(caught.value)
    assert str(caught.value).endswith("then run 'kb hooks install claude-code' again (nothing was written)")
    assert settings.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]  # no temporary file left


def test_a_non_utf8_settings_file_is_refused(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{\n "model": "op\xe9ra"}')
    with pytest.raises(ConfigError, match=r"settings.json:2: not valid UTF-8 \(byte 0xe9\); save the file as UTF-8"):
        install_hook("claude-code", project, project / "records")


def test_the_cli_reports_a_malformed_file_with_its_line_and_exits_1(project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",}')
    result = kb_cli("hooks", "install", "claude-code", cwd=project)
    assert result.exit_code == 1
    assert result.stderr.startswith("kb: .claude/settings.json:1: not valid JSON: Expecting property name")
    assert "JSON has no comments and no trailing commas" in result.stderr
    assert settings.read_text() == '{"model": "opus",}'


@pytest.mark.parametrize("records, agent, expected", [
    ("records", "claude-code", CLAUDE_CMD),
    ("data/kb records", "claude-code",
     "kb --records \"$CLAUDE_PROJECT_DIR\"/'data/kb records' import --hook --format claude"),
    (".", "claude-code", 'kb --records "$CLAUDE_PROJECT_DIR" import --hook --format claude'),
    ("/srv/shared/records", "claude-code", "kb --records /srv/shared/records import --hook --format claude"),
    ("records", "codex", "kb --records /p/proj/records import --hook --format codex"),
    ("/srv/a b/records", "codex", "kb --records '/srv/a b/records' import --hook --format codex"),
])
def test_the_hook_line_names_the_records_folder(records, agent, expected):
    project = Path("/p/proj")
    assert hook_command(AGENTS[agent], project / records, project) == expected


def test_the_hook_line_passes_the_campaign_and_the_kb_command():
    line = hook_command(AGENTS["claude-code"], Path("/p/records"), Path("/p"), kb_command="/v/bin/python -m kb",
                        campaign="kimi-k25-eagle3-blackwell")
    assert line == ('/v/bin/python -m kb --records "$CLAUDE_PROJECT_DIR"/records import --hook --format claude '
                    "--campaign kimi-k25-eagle3-blackwell")
    assert hooks.is_kb_hook(line)


def test_codex_install_merges_into_hooks_json_exactly(project):
    target = project / ".codex" / "hooks.json"
    target.parent.mkdir()
    shutil.copy(HOOKS / "codex-hooks.json", target)
    change = install_hook("codex", project, project / "records")
    assert change.state == "installed"
    expected = (HOOKS / "codex-hooks.installed.json").read_text(encoding="utf-8").replace("PROJECT", str(project))
    assert target.read_text(encoding="utf-8") == expected
    assert install_hook("codex", project, project / "records").state == "unchanged"
    assert target.read_text(encoding="utf-8") == expected
    assert uninstall_hook("codex", project).state == "removed"
    assert json.loads(target.read_text()) == json.loads((HOOKS / "codex-hooks.json").read_text())


def test_codex_malformed_hooks_json_is_refused(project):
    target = project / ".codex" / "hooks.json"
    target.parent.mkdir()
    target.write_text('{"hooks": {"Stop": "python3 check.py"}}')
    with pytest.raises(ConfigError, match=r"hooks.json:1: hooks.Stop: is a JSON string, expected a list .*"
                                          r"'kb hooks install codex' again \(nothing was written\)"):
        install_hook("codex", project, project / "records")
    assert target.read_text() == '{"hooks": {"Stop": "python3 check.py"}}'


def test_codex_install_tells_to_trust_the_hook(project):
    result = kb_cli("hooks", "install", "codex", "--kb-command", "kb", cwd=project)
    assert result.exit_code == 0, result.output
    assert "hook added to .codex/hooks.json" in result.stdout
    assert "open /hooks in Codex" in result.stderr


def test_status_lists_each_agent_and_the_last_run(project):
    install_hook("claude-code", project, project / "records")
    (project / ".codex").mkdir()
    (project / ".codex" / "hooks.json").write_text("{oops")
    states = {s.agent: s for s in hook_status(project)}
    assert states["claude-code"].commands == [CLAUDE_CMD] and states["claude-code"].installed
    assert not states["codex"].installed and "hooks.json:1: not valid JSON" in (states["codex"].error or "")
    result = kb_cli("hooks", "status", cwd=project)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"claude-code: installed in .claude/settings.json (SessionEnd): {CLAUDE_CMD}"
    assert lines[1].startswith("codex: .codex/hooks.json:1: not valid JSON")
    assert lines[2] == f"log: {project / '.kb-cache' / 'hooks.log'} (no hook has run yet)"
    data = json.loads(kb_cli("hooks", "status", "--json", cwd=project).stdout)
    assert [a["installed"] for a in data["agents"]] == [True, False] and data["last"] == ""


# --- running the hook --------------------------------------------------------------------------


def payload(name: str, transcript: Path) -> str:
    """The payload fixture ``name`` with its transcript_path pointing at ``transcript``."""
    data = json.loads((HOOKS / name).read_text())
    data["transcript_path"] = str(transcript)
    return json.dumps(data)


def transcript(tmp_path: Path, source: Path, lines: int | None = None, name: str | None = None) -> Path:
    """A copy of the transcript ``source`` (its first ``lines`` lines) as the agent keeps it."""
    path = tmp_path / "agent" / (name or source.name)
    path.parent.mkdir(exist_ok=True)
    text = source.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(text[:lines]) + (b"\n" if lines else b""))
    return path


def hook_subprocess(project: Path, stdin: str, *records_args: str) -> subprocess.CompletedProcess[str]:
    """``kb import --hook`` as an agent runs it: a child process in the project folder."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KB_CACHE_DIR", None)
    argv = [sys.executable, "-m", "kb", "--records", str(project / "records"), "import", "--hook", *records_args]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=project, env=env, timeout=120)


def test_a_recorded_session_end_payload_imports_its_transcript_once(project, tmp_path):
    log = transcript(tmp_path, LOGS / "claude-campaign.jsonl", name="7d1c2a9e-4b3f-4e55-9a51-0c2f1e6b8a10.jsonl")
    stdin = payload("claude-code-session-end.json", log)
    first = hook_subprocess(project, stdin, "--format", "claude")
    assert first.returncode == 0 and first.stdout == ""
    hook_log = project / ".kb-cache" / "hooks.log"
    assert first.stderr == (f"kb: {log.name}: imported: 3 draft(s) written, 0 already imported (log: {hook_log})\n")
    drafts = sorted(p.name for p in (project / "records" / "attempts").iterdir() if p.name.startswith("2026-02-2"))
    assert {"2026-02-26-try-torch-symmetric-memory-allreduce.yaml", "2026-02-26-baseline-throughput-cuda-graph-max-bs-128.yaml",
            "2026-02-27-eagle-3-throughput-on-cuda-13.yaml"} <= set(drafts)
    (line,) = runs(project)
    assert line.endswith(f" SessionEnd session=7d1c2a9e-4b3f-4e55-9a51-0c2f1e6b8a10 reason=prompt_input_exit "
                         f"transcript={log}: imported: 3 draft(s) written, 0 already imported ({line.rsplit('(', 1)[1]}")
    assert "    warning: 7d1c2a9e-4b3f-4e55-9a51-0c2f1e6b8a10.jsonl:20: not valid JSON" in log_lines(project)[1]
    written = tree(project / "records")
    second = hook_subprocess(project, stdin, "--format", "claude")
    assert second.returncode == 0
    assert "imported: 0 draft(s) written, 3 already imported" in second.stderr
    assert tree(project / "records") == written


def test_a_grown_transcript_adds_only_its_new_attempts(project, tmp_path):
    log = transcript(tmp_path, LOGS / "claude-campaign.jsonl", lines=11)
    stdin = payload("claude-code-session-end.json", log).encode()
    first = run_hook(project / "records", stdin, format="claude")
    assert (first.state, first.written, first.existing) == ("imported", 2, 0)
    before = tree(project / "records")
    shutil.copy(LOGS / "claude-campaign.jsonl", log)  # the session resumed, and ended again
    grown = run_hook(project / "records", stdin, format="claude")
    assert (grown.state, grown.written, grown.existing) == ("imported", 1, 2)
    added = set(tree(project / "records")) - set(before)
    assert added == {"attempts/2026-02-27-eagle-3-throughput-on-cuda-13.yaml"}
    assert all(tree(project / "records")[k] == v for k, v in before.items())  # nothing rewritten


def test_codex_stop_hooks_import_each_turn_incrementally(project, tmp_path):
    name = "rollout-2026-02-24T08-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
    rollout = transcript(tmp_path, LOGS / "codex-rollout.jsonl", lines=9, name=name)
    stdin = payload("codex-stop.json", rollout).encode()
    turn1 = run_hook(project / "records", stdin, format="codex")
    assert (turn1.state, turn1.written, turn1.existing) == ("imported", 1, 0)
    assert turn1.payload is not None and turn1.payload.turn == "0199a1b2-d0e1-7f20-9a31-4b5c6d7e8f90"
    shutil.copy(LOGS / "codex-rollout.jsonl", rollout)  # the next turn ran
    turn2 = run_hook(project / "records", stdin, format="codex")
    assert (turn2.written, turn2.existing) == (1, 1)
    turn3 = run_hook(project / "records", stdin, format="codex")
    assert (turn3.written, turn3.existing) == (0, 2)
    assert [line.split(": ", 2)[2] for line in runs(project)] == [
        "1 draft(s) written, 0 already imported" + runs(project)[0].rsplit(" already imported", 1)[1],
        "1 draft(s) written, 1 already imported" + runs(project)[1].rsplit(" already imported", 1)[1],
        "0 draft(s) written, 2 already imported" + runs(project)[2].rsplit(" already imported", 1)[1]]
    assert " Stop session=0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b turn=0199a1b2-d0e1-7f20-9a31-4b5c6d7e8f90 " in runs(project)[0]


BAD_INPUT = [
    ("", "hook: failed: stdin was empty; expected the JSON object an agent writes on a hook's stdin"),
    ('{"session_id": "s", "transcript_path": ', "hook: failed: stdin:1: not valid JSON: Expecting value (column 40)"),
    ("[1, 2]", "hook: failed: stdin holds a JSON list; expected an object with transcript_path"),
    ('{"session_id": "s", "hook_event_name": "SessionEnd", "transcript_path": null}',
     "hook: failed: the SessionEnd payload has no transcript_path (the agent keeps no transcript of this session)"),
    ('{"hook_event_name": "Stop", "transcript_path": 7}',
     "hook: failed: the Stop payload's transcript_path is a JSON number, expected a path"),
    ('{"session_id": "s", "hook_event_name": "SessionEnd", "transcript_path": "/nowhere/s.jsonl"}',
     "hook: failed: the transcript /nowhere/s.jsonl named by the SessionEnd payload is not there"),
]


@pytest.mark.parametrize("stdin, logged", BAD_INPUT)
def test_bad_hook_input_exits_0_and_is_logged(project, stdin, logged):
    before = tree(project / "records")
    result = kb_cli("--records", str(project / "records"), "import", "--hook", input=stdin, cwd=project)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.startswith("kb: hook payload: failed: ") and result.stderr.count("\n") == 1
    assert result.stderr.rstrip().endswith(f"(log: {project / '.kb-cache' / 'hooks.log'})")
    (line,) = runs(project)
    assert logged in line
    assert tree(project / "records") == before


def test_an_unreadable_transcript_and_an_unknown_campaign_exit_0_and_are_logged(project, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    stdin = json.dumps({"hook_event_name": "SessionEnd", "transcript_path": str(empty)})
    result = kb_cli("--records", str(project / "records"), "import", "--hook", input=stdin, cwd=project)
    assert result.exit_code == 0 and "empty.jsonl: failed: " in result.stderr
    result = kb_cli("--records", str(project / "records"), "import", "--hook", "--campaign", "nope",
                    input=payload("claude-code-session-end.json", LOGS / "claude-campaign.jsonl"), cwd=project)
    assert result.exit_code == 0 and "claude-campaign.jsonl: failed: " in result.stderr
    first, second = runs(project)
    assert "empty.jsonl: failed: " in first and "is empty" in first
    assert second.endswith("claude-campaign.jsonl: failed: --campaign nope: no such campaign "
                           f"(campaigns: kimi-k25-eagle3-blackwell) ({second.rsplit('(', 1)[1]}")


def test_a_records_folder_that_is_not_there_exits_0_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("KB_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "gone").mkdir()  # the folder above exists (as / does for an unset $CLAUDE_PROJECT_DIR)
    stdin = payload("claude-code-session-end.json", LOGS / "claude-campaign.jsonl")
    result = kb_cli("--records", str(tmp_path / "gone" / "records"), "import", "--hook", input=stdin, cwd=tmp_path)
    assert result.exit_code == 0
    assert result.stderr.startswith("kb: claude-campaign.jsonl: failed: ")
    log = tmp_path / "xdg" / "kb" / "hooks.log"
    assert result.stderr.endswith(f"(log: {log})\n")
    assert "records folder not found" in log.read_text(encoding="utf-8")
    assert list((tmp_path / "gone").iterdir()) == []  # nothing beside the folder that is not there


def test_an_unexpected_error_is_logged_with_its_traceback_and_exits_0(project, monkeypatch):
    import kb.importers.drafts

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(kb.importers.drafts, "import_logs", broken)
    stdin = payload("claude-code-session-end.json", LOGS / "claude-campaign.jsonl")
    result = kb_cli("--records", str(project / "records"), "import", "--hook", input=stdin, cwd=project)
    assert result.exit_code == 0
    assert "claude-campaign.jsonl: failed: unexpected RuntimeError: disk on fire" in result.stderr
    lines = log_lines(project)
    assert "failed: unexpected RuntimeError: disk on fire" in lines[0]
    assert lines[1] == "    Traceback (most recent call last):" and lines[-1] == "    RuntimeError: disk on fire"


def test_the_import_stops_within_its_budget(project):
    def slow(*args, **kwargs):
        time.sleep(10)

    stdin = payload("claude-code-session-end.json", LOGS / "claude-campaign.jsonl").encode()
    start = time.monotonic()
    run = run_hook(project / "records", stdin, budget=0.3, importer=slow)
    assert time.monotonic() - start < 3
    assert run.state == "timed out" and run.message.startswith("stopped after 0.3 s; the drafts written so far are kept")
    assert ": timed out: stopped after 0.3 s" in runs(project)[0]


def test_a_stdin_left_open_and_empty_does_not_block(project):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KB_CACHE_DIR", None)
    argv = [sys.executable, "-m", "kb", "--records", str(project / "records"), "import", "--hook"]
    start = time.monotonic()
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=project, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        rc = proc.wait(timeout=30)  # stdin stays open and empty: kb must not wait for its end
        out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
        proc.stdin.close()
    elapsed = time.monotonic() - start
    assert rc == 0 and out == ""
    assert elapsed < hooks.PAYLOAD_WAIT_S + 10
    assert "failed: nothing came on stdin within 3 s" in err
    assert "hook: failed: nothing came on stdin within 3 s" in runs(project)[0]


def test_a_payload_on_a_pipe_left_open_is_imported_without_waiting_for_its_end(project, tmp_path):
    log = transcript(tmp_path, LOGS / "claude-campaign.jsonl", lines=9)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KB_CACHE_DIR", None)
    argv = [sys.executable, "-m", "kb", "--records", str(project / "records"), "import", "--hook"]
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project, env=env) as proc:
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.write(payload("claude-code-session-end.json", log).encode())
        proc.stdin.flush()  # and never closed until kb is done
        rc = proc.wait(timeout=60)
        err = proc.stderr.read().decode()
        proc.stdin.close()
    assert rc == 0
    assert "imported: 1 draft(s) written, 0 already imported" in err
    assert "nothing came on stdin" not in err


def test_read_payload_stops_at_a_complete_object_or_the_timeout():
    read, write = os.pipe()
    try:
        os.write(write, b'{"transcript_path": "/t.jsonl"}\n')
        start = time.monotonic()
        assert hooks.read_payload(os.fdopen(os.dup(read), "rb", buffering=0), timeout=5) == (
            b'{"transcript_path": "/t.jsonl"}\n', False)
        assert time.monotonic() - start < 1
        os.write(write, b'{"transcript_path": ')
        start = time.monotonic()
        data, waited_out = hooks.read_payload(os.fdopen(os.dup(read), "rb", buffering=0), timeout=0.5)
        assert (data, waited_out) == (b'{"transcript_path": ', True)
        assert 0.4 < time.monotonic() - start < 2
    finally:
        os.close(read)
        os.close(write)


def test_read_payload_reads_a_file_and_an_ended_pipe_whole(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(b'{"a": 1}\n{"b": 2}')
    with open(path, "rb") as fh:
        assert hooks.read_payload(fh, timeout=1) == (b'{"a": 1}\n{"b": 2}', False)
    read, write = os.pipe()
    os.write(write, b"[1, 2]")
    os.close(write)
    with os.fdopen(read, "rb", buffering=0) as fh:
        assert hooks.read_payload(fh, timeout=5) == (b"[1, 2]", False)


def test_hook_usage_errors_are_refused():
    result = CliRunner().invoke(cli, ["import", "--hook", "session.jsonl"])
    assert result.exit_code == 2 and "--hook reads the transcript to import from the hook's JSON on stdin" in result.output
    result = CliRunner().invoke(cli, ["import"])
    assert result.exit_code == 2 and "Missing argument 'PATHS...'" in result.output


def test_the_log_goes_beside_the_records_even_with_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.delenv("KB_CACHE_DIR", raising=False)
    monkeypatch.setenv("KB_CACHE", "off")
    (tmp_path / "records").mkdir()
    assert hooks.hooks_log_path(tmp_path / "records") == tmp_path / ".kb-cache" / "hooks.log"
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("KB_CACHE")
    assert hooks.hooks_log_path(tmp_path / "records") == tmp_path / "elsewhere" / "hooks.log"


def test_two_hooks_firing_at_once_import_the_transcript_once(project, tmp_path):
    log = transcript(tmp_path, LOGS / "claude-campaign.jsonl")
    stdin = payload("claude-code-session-end.json", log).encode()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KB_CACHE_DIR", None)
    argv = [sys.executable, "-m", "kb", "--records", str(project / "records"), "import", "--hook"]
    before = set(tree(project / "records"))
    procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project, env=env)
             for _ in range(2)]
    for p in procs:  # both payloads written before either is waited on: a hook waits 3 s for its stdin
        assert p.stdin is not None
        p.stdin.write(stdin)
        p.stdin.close()
    errs = [p.stderr.read().decode() for p in procs if p.stderr is not None]  # a few lines each
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert sorted(e.split(": imported: ")[1].split(" (log")[0] for e in errs) == [
        "0 draft(s) written, 3 already imported", "3 draft(s) written, 0 already imported"]
    assert len(set(tree(project / "records")) - before) == 3


def test_the_thread_reader_used_where_select_fails_reads_a_pipe_and_gives_up_at_the_deadline():
    """The fallback for pipes select() cannot wait on (Windows): a whole payload is read; a stdin
    that never ends is left behind at the deadline, reported as not finished."""
    r, w = os.pipe()
    os.write(w, b'{"session_id": "s1"}')
    os.close(w)
    assert hooks._read_in_thread(r, bytearray(), time.monotonic() + 5, 1 << 20) == (b'{"session_id": "s1"}', False)
    os.close(r)
    r, w = os.pipe()
    started = time.monotonic()
    assert hooks._read_in_thread(r, bytearray(), started + 0.2, 1 << 20) == (b"", True)
    assert time.monotonic() - started < 3
    os.close(w)
