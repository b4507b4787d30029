"""``kb hooks install|uninstall|status``: the hook that feeds an agent's sessions to kb
(:mod:`kb.usecases.hooks`)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import click

from kb.cli.app import Env, cli, emit_json, handle_errors, pass_env

AGENT_NAMES = ["claude-code", "codex"]
PROJECT_HELP = "The project folder whose agent settings are edited (default: the current folder)."


def default_kb_command() -> str:
    """How a hook starts kb: ``kb`` when a ``kb`` is on ``PATH``, else this Python with ``-m kb``
    (kb installed in a virtual environment the agent's shell does not activate)."""
    return "kb" if shutil.which("kb") else f"{shlex.quote(sys.executable)} -m kb"


@cli.group("hooks")
def hooks() -> None:
    """Feed agent sessions to kb: a hook that imports each session's transcript into drafts.

    \b
    Examples:
      kb hooks install claude-code     # SessionEnd hook in .claude/settings.json
      kb hooks install codex           # Stop hook (each turn) in .codex/hooks.json
      kb hooks status
    """


@hooks.command("install")
@click.argument("agent", type=click.Choice(AGENT_NAMES))
@click.option("--project", type=click.Path(file_okay=False), default=".", show_default=True, help=PROJECT_HELP)
@click.option("--campaign", help="The campaign the drafts join (needed when the records hold several).")
@click.option("--kb-command", help="How the hook starts kb (default: 'kb' when it is on PATH, else this "
                                   "Python with -m kb).")
@pass_env
@handle_errors
def install(env: Env, agent: str, project: str, campaign: str | None, kb_command: str | None) -> None:
    """Add kb's import hook to AGENT's settings in the project, keeping everything else there.

    The hook runs `kb --records FOLDER import --hook`, which imports the session's transcript
    into draft attempts (only attempts not imported before) and never fails the agent. Installing
    twice adds it once.
    """
    from kb.usecases.hooks import install_hook

    change = install_hook(agent, _project(project), env.records, kb_command=kb_command or default_kb_command(),
                          campaign=campaign)
    said = {"installed": "added to", "updated": "updated in", "unchanged": "already in"}[change.state]
    click.echo(f"kb hooks: {agent} hook {said} {change.path}: {change.command}")
    if not env.records.is_dir():
        click.echo(f"kb hooks: warning: the records folder {env.records} does not exist (yet); each run of the hook "
                   "will log that until it does (pass --records to point at another)", err=True)
    if agent == "codex" and change.state != "unchanged":
        click.echo("kb hooks: Codex runs a new or changed hook only once it is reviewed and trusted: open /hooks "
                   "in Codex (project hooks also need the project trusted)", err=True)
    if change.state != "unchanged":
        from kb.usecases.hooks import hooks_log_path

        click.echo(f"kb hooks: what each run imports is logged in {hooks_log_path(env.records)}", err=True)


@hooks.command("uninstall")
@click.argument("agent", type=click.Choice(AGENT_NAMES))
@click.option("--project", type=click.Path(file_okay=False), default=".", show_default=True, help=PROJECT_HELP)
@handle_errors
def uninstall(agent: str, project: str) -> None:
    """Take kb's import hook out of AGENT's settings in the project (nothing else changes)."""
    from kb.usecases.hooks import uninstall_hook

    change = uninstall_hook(agent, _project(project))
    if change.state == "removed":
        click.echo(f"kb hooks: {agent} hook removed from {change.path}")
    else:
        click.echo(f"kb hooks: no kb hook in {change.path}; nothing written")


@hooks.command("status")
@click.option("--project", type=click.Path(file_okay=False), default=".", show_default=True, help=PROJECT_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@pass_env
def status(env: Env, project: str, as_json: bool) -> None:
    """Where kb's import hook is installed, and the last line of the hook log."""
    from kb.usecases.hooks import hook_status, hooks_log_path

    states = hook_status(_project(project))
    log = hooks_log_path(env.records)
    last = _last_line(log)
    if as_json:
        emit_json({"agents": [s.to_dict() for s in states], "log": str(log), "last": last})
        return
    for s in states:
        if s.error:
            click.echo(f"{s.agent}: {s.error}")
        elif s.installed:
            for command in s.commands:
                click.echo(f"{s.agent}: installed in {s.path} ({s.event}): {command}")
        else:
            click.echo(f"{s.agent}: not installed ({s.path} {'has no kb hook' if s.exists else 'does not exist'})")
    click.echo(f"log: {log}" + (f"\nlast: {last}" if last else " (no hook has run yet)"))


def _project(project: str) -> Path:
    return Path(project)


def _last_line(path: Path) -> str:
    """The last unindented line of the hook log (a run's summary), or ``""``."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 8192))
            tail = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return next((line for line in reversed(tail) if line and not line.startswith(" ")), "")
