"""Agent hooks: `kb hooks install|uninstall|status` (settings merged, never overwritten) and
`kb import --hook` (a hook payload imports its transcript once, never fails the agent).

Fixtures: tests/fixtures/hooks/ (payloads and settings files, README.md there) and the
transcripts of tests/fixtures/logs/."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.errors import ConfigError
from kb.usecases import hooks
from kb.usecases.hooks import AGENTS, hook_command, hook_status, install_hook, uninstall_hook

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
