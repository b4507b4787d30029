"""Agent sessions feed kb: the hook that imports a session's transcript when an agent stops
(``kb hooks install``, ``kb import --hook``).

- *Installing*: :func:`install_hook` merges one command hook into an agent's settings file, as
  that agent documents it, keeping everything else in the file (other keys, other events, other
  hooks of the same event); installing twice adds it once; a file that is not valid JSON, or
  whose ``hooks`` is not an object, is refused with :class:`kb.errors.ConfigError` and nothing is
  written. :func:`uninstall_hook` takes kb's hook out again, :func:`hook_status` says where it is.

The agents (:data:`AGENTS`), from their own documentation:

- **Claude Code** (code.claude.com/docs/en/hooks): project settings ``.claude/settings.json``,
  ``{"hooks": {"SessionEnd": [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}``;
  the command runs in a shell with ``$CLAUDE_PROJECT_DIR`` set to the project's folder and gets
  ``{"session_id", "transcript_path", "cwd", "hook_event_name": "SessionEnd", "reason", ...}`` on
  stdin. SessionEnd hooks share a budget of 1.5 s by default, raised to the highest per-hook
  ``timeout`` of the settings files (at most 60 s): kb's hook sets ``timeout`` to
  :data:`HOOK_TIMEOUT_S`.
- **Codex** (developers.openai.com/codex/hooks, and the ``stop.command.input`` schema of
  openai/codex ``codex-rs/hooks/schema/generated``): hooks in ``<repo>/.codex/hooks.json`` (or
  ``~/.codex/hooks.json``, or inline in ``config.toml``) in the same shape; kb uses ``Stop``, which
  runs at the end of every turn with ``{"session_id", "turn_id", "transcript_path" (the rollout
  file, or null), "cwd", "hook_event_name": "Stop", "model", ...}`` on stdin. Project hooks run
  only in a trusted project, and a new or changed command hook only after it is reviewed in
  Codex's ``/hooks``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.errors import ConfigError, Problem, RecordExists, UsageError


@dataclass(frozen=True)
class Agent:
    """An agent kb can hook into: ``name`` (the ``kb hooks install`` argument), ``title``,
    ``settings`` (the file, relative to the project folder), ``event`` (the hook event kb's
    command runs on), ``format`` (the transcript format :mod:`kb.importers` reads) and
    ``project_var`` (the variable naming the project folder in the command's environment, if
    the agent sets one)."""

    name: str
    title: str
    settings: str
    event: str
    format: str
    project_var: str | None = None


AGENTS: dict[str, Agent] = {
    "claude-code": Agent("claude-code", "Claude Code", ".claude/settings.json", "SessionEnd", "claude",
                         "CLAUDE_PROJECT_DIR"),
    "codex": Agent("codex", "Codex", ".codex/hooks.json", "Stop", "codex"),
}
"""The agents with hooks, by name (see the module docstring for their sources)."""

HOOK_TIMEOUT_S = 30
"""The ``timeout`` (seconds) written with kb's hook: the agent stops waiting for it after this
long. Claude Code raises its SessionEnd budget (1.5 s by default) to the highest such timeout."""

PAYLOAD_WAIT_S = 3.0
"""How long :func:`read_payload` waits for the hook's JSON on stdin (an agent writes it at once)."""

IMPORT_BUDGET_S = 20.0
"""How long :func:`run_hook` may take in all, under :data:`HOOK_TIMEOUT_S`; past it the import
stops (each draft already written is complete: writes are atomic) and the next run goes on."""

PAYLOAD_LIMIT = 1 << 20
"""Most bytes of a hook payload read (an agent's is well under a kilobyte)."""

LOG_NAME = "hooks.log"
LOG_LIMIT = 1 << 20
"""Past this size (bytes) the hook log is moved to ``hooks.log.1`` (one older file kept)."""

_OURS = re.compile(r"(?:^|[\s/\\])kb(?:\.exe)?['\"]?\s.*\bimport\s+--hook\b|-m\s+kb\s.*\bimport\s+--hook\b")
"""A command that is kb's hook: runs ``kb`` (or ``python -m kb``) with ``import --hook``."""


def agent(name: str) -> Agent:
    """The :class:`Agent` called ``name``; raises :class:`kb.errors.UsageError` naming the choices."""
    found = AGENTS.get(name)
    if found is None:
        raise UsageError(f"unknown agent '{name}'; choose one of: {', '.join(AGENTS)}")
    return found


def is_kb_hook(command: Any) -> bool:
    """Whether ``command`` (a hook's ``command`` string) is kb's import hook.

    >>> is_kb_hook('kb --records "$CLAUDE_PROJECT_DIR"/records import --hook --format claude')
    True
    >>> is_kb_hook("/usr/bin/python3 -m kb --records /srv/records import --hook")
    True
    >>> is_kb_hook("kb import session.jsonl"), is_kb_hook("notify-send done")
    (False, False)
    """
    return isinstance(command, str) and bool(_OURS.search(command))


def hook_command(which: Agent, records: Path, project: Path, *, kb_command: str = "kb",
                 campaign: str | None = None) -> str:
    """The shell command of kb's hook for ``which``: ``kb --records FOLDER import --hook --format F``.

    ``FOLDER`` is the records folder, written relative to the agent's project variable when the
    agent sets one and the folder lies inside ``project`` (so a settings file committed to the
    repository works in every clone), absolute otherwise; shell-quoted either way. ``kb_command``
    is how the hook starts kb (``kb``, or ``/path/to/python -m kb`` where ``kb`` is not on the
    agent's ``PATH``); ``campaign`` is passed on as ``--campaign``.

    >>> hook_command(AGENTS["claude-code"], Path("/p/records"), Path("/p"))
    'kb --records "$CLAUDE_PROJECT_DIR"/records import --hook --format claude'
    >>> hook_command(AGENTS["codex"], Path("/srv/my records"), Path("/p"), campaign="c1")
    "kb --records '/srv/my records' import --hook --format codex --campaign c1"
    """
    folder = Path(os.path.abspath(records))
    base = Path(os.path.abspath(project))
    if which.project_var and folder.is_relative_to(base):
        rel = folder.relative_to(base).as_posix()
        where = f'"${which.project_var}"' + ("" if rel == "." else "/" + shlex.quote(rel))
    else:
        where = shlex.quote(str(folder))
    parts = [kb_command, "--records", where, "import", "--hook", "--format", which.format]
    if campaign:
        parts += ["--campaign", shlex.quote(campaign)]
    return " ".join(parts)


@dataclass
class HookChange:
    """What :func:`install_hook` or :func:`uninstall_hook` did: ``state`` is ``installed``,
    ``updated`` (kb's hook was there with another command), ``unchanged``, ``removed`` or
    ``absent`` (there was no kb hook to remove); ``path`` the settings file; ``command`` kb's
    hook command (installed, or removed)."""

    agent: str
    path: Path
    state: str
    command: str = ""


@dataclass
class HookState:
    """Where kb's hook stands for one agent (:func:`hook_status`): ``commands`` are kb's hook
    commands found under ``event`` in ``path`` (empty: not installed); ``error`` says why the
    file could not be read."""

    agent: str
    path: Path
    event: str
    exists: bool
    commands: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def installed(self) -> bool:
        """Whether kb's hook is in the file."""
        return bool(self.commands)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``kb hooks status --json``)."""
        return {"agent": self.agent, "path": str(self.path), "event": self.event, "exists": self.exists,
                "installed": self.installed, "commands": list(self.commands), "error": self.error}


def settings_path(which: Agent, project: Path) -> Path:
    """The settings file of ``which`` in the project folder ``project``."""
    return Path(project) / which.settings


def install_hook(name: str, project: Path, records: Path, *, kb_command: str = "kb",
                 campaign: str | None = None, timeout: int = HOOK_TIMEOUT_S) -> HookChange:
    """Add kb's hook (:func:`hook_command`) to agent ``name``'s settings file in ``project``.

    The file is merged, never replaced: other keys, other events and the event's other hooks are
    kept as they were (in their order); kb's hook is appended to the event's list as a group of
    its own (``{"hooks": [{"type": "command", "command": ..., "timeout": timeout}]}``). Installing
    again with the same command changes nothing (``unchanged``); a kb hook with another command
    (another records folder) is replaced in place (``updated``) and any second copy dropped. The
    file is written atomically (a symbolic link's target is written, the link kept), and only if
    it did not change meanwhile.

    Raises :class:`kb.errors.ConfigError` (nothing written) when the file is not UTF-8 JSON, its
    top level is not an object, ``hooks`` is not an object or the event's value is not a list;
    :class:`kb.errors.UsageError` for an unknown agent; :class:`kb.errors.WriteError` when the
    disk refuses."""
    which = agent(name)
    path = settings_path(which, project)
    command = hook_command(which, records, project, kb_command=kb_command, campaign=campaign)
    data, raw, text = _read_settings(path, which)
    groups = _event_groups(data, which, path, text, create=True)
    assert groups is not None
    handler = {"type": "command", "command": command, "timeout": timeout}
    ours = list(_kb_handlers(groups))
    if ours:
        first = ours[0][1]
        if first.get("command") == command and first.get("timeout") == timeout and first.get("type") == "command" \
                and len(ours) == 1:
            return HookChange(which.name, path, "unchanged", command)
        first.update(handler)
        _drop(groups, ours[1:])
        state = "updated"
    else:
        groups.append({"hooks": [handler]})
        state = "installed"
    _write_settings(path, data, raw)
    return HookChange(which.name, path, state, command)


def uninstall_hook(name: str, project: Path) -> HookChange:
    """Take kb's hook out of agent ``name``'s settings file in ``project``: every kb hook
    handler of the event goes, with any group it leaves empty, the event when no group is left,
    and ``hooks`` when no event is; everything else is kept. ``absent`` (nothing written) when
    there is no file or no kb hook in it. Raises as :func:`install_hook` does."""
    which = agent(name)
    path = settings_path(which, project)
    if not path.exists():
        return HookChange(which.name, path, "absent")
    data, raw, text = _read_settings(path, which)
    groups = _event_groups(data, which, path, text, create=False)
    ours = list(_kb_handlers(groups or []))
    if not groups or not ours:
        return HookChange(which.name, path, "absent")
    command = str(ours[0][1].get("command", ""))
    _drop(groups, ours)
    if not groups:
        hooks = data["hooks"]
        del hooks[which.event]
        if not hooks:
            del data["hooks"]
    _write_settings(path, data, raw)
    return HookChange(which.name, path, "removed", command)


def hook_status(project: Path) -> list[HookState]:
    """kb's hook in each agent's settings file of ``project`` (:data:`AGENTS` order); a file
    that cannot be read is reported in its :class:`HookState`'s ``error``, never raised."""
    states = []
    for which in AGENTS.values():
        path = settings_path(which, project)
        state = HookState(which.name, path, which.event, path.exists())
        if state.exists:
            try:
                data, _raw, text = _read_settings(path, which)
                groups = _event_groups(data, which, path, text, create=False) or []
                state.commands = [str(h.get("command")) for _g, h in _kb_handlers(groups)]
            except ConfigError as exc:
                state.error = str(exc)
        states.append(state)
    return states


def _read_settings(path: Path, which: Agent) -> tuple[dict[str, Any], bytes | None, str]:
    """``(settings, the file's bytes or None when there is none, its text)``; an empty file is
    ``{}``. Raises :class:`ConfigError` for bytes that are not UTF-8 JSON holding an object."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, None, ""
    except OSError as exc:
        raise _config_error(path, None, "", f"cannot be read ({exc.strerror or exc})", which,
                            "check its permissions") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise _config_error(path, line, "", f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", which,
                            "save the file as UTF-8") from None
    if not text.strip():
        return {}, raw, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _config_error(path, exc.lineno, "", f"not valid JSON: {exc.msg} (column {exc.colno})", which,
                            "fix the JSON there (JSON has no comments and no trailing commas)") from None
    if not isinstance(data, dict):
        raise _config_error(path, 1, "", f"the top level is a JSON {_json_type(data)}, expected an object {{...}}",
                            which, "make the file one JSON object")
    return data, raw, text


def _event_groups(data: dict[str, Any], which: Agent, path: Path, text: str,
                  *, create: bool) -> list[Any] | None:
    """The list of matcher groups under ``hooks.<event>`` (created empty with ``create``)."""
    hooks = data.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = data["hooks"] = {}
    if not isinstance(hooks, dict):
        raise _config_error(path, _line_of(text, "hooks"), "hooks",
                            f"is a JSON {_json_type(hooks)}, expected an object of events", which,
                            'make it {"<Event>": [...]} as the agent documents')
    groups = hooks.get(which.event)
    if groups is None:
        if not create:
            return None
        groups = hooks[which.event] = []
    if not isinstance(groups, list):
        raise _config_error(path, _line_of(text, which.event), f"hooks.{which.event}",
                            f"is a JSON {_json_type(groups)}, expected a list of matcher groups", which,
                            f'make it [{{"hooks": [...]}}, ...] (wrap the {_json_type(groups)} in [ ] if it is one group)')
    return groups


def _kb_handlers(groups: list[Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """``(group, handler)`` for every kb hook handler in ``groups`` (entries of another shape
    are someone else's: left alone)."""
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler in handlers if isinstance(handlers, list) else []:
            if isinstance(handler, dict) and is_kb_hook(handler.get("command")):
                yield group, handler


def _drop(groups: list[Any], found: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """Remove the handlers of ``found`` from their groups, and a group left with no handler."""
    for group, handler in found:
        group["hooks"] = [h for h in group["hooks"] if h is not handler]
    groups[:] = [g for g in groups if not (isinstance(g, dict) and isinstance(g.get("hooks"), list)
                                           and not g["hooks"] and any(g is grp for grp, _h in found))]


def _write_settings(path: Path, data: dict[str, Any], raw: bytes | None) -> None:
    """Write ``data`` to ``path`` as two-space indented JSON, atomically; refuse when the file
    changed since it was read as ``raw`` (``None``: it did not exist)."""
    from kb.atomic import write_text_atomic

    target = path.resolve() if path.is_symlink() else path
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        now: bytes | None = target.read_bytes()
    except FileNotFoundError:
        now = None
    if now != raw:
        raise ConfigError(Problem(str(path), None, "", "changed while kb was editing it; nothing written: "
                                                       "run the command again"))
    try:
        write_text_atomic(target, text, overwrite=raw is not None)
    except RecordExists:
        raise ConfigError(Problem(str(path), None, "", "was created while kb was writing it; nothing written: "
                                                       "run the command again")) from None


def _config_error(path: Path, line: int | None, key: str, what: str, which: Agent, fix: str) -> ConfigError:
    return ConfigError(Problem(str(path), line, key, f"{what}; {fix}, then run 'kb hooks install {which.name}' "
                                                     "again (nothing was written)"))


def _line_of(text: str, key: str) -> int | None:
    """The line of the first ``"key":`` in ``text`` (1-based), or ``None``."""
    match = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _json_type(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def hooks_log_path(records: Path) -> Path:
    """The hook log of the records folder ``records``: ``hooks.log`` in its cache folder
    (``.kb-cache/`` beside it, or ``$KB_CACHE_DIR``; also beside it when ``KB_CACHE=off``, which
    turns off the cache, not the log)."""
    from kb.store.cache import cache_folder

    folder = None
    with contextlib.suppress(OSError, ValueError):
        folder = cache_folder(Path(records))
    if folder is None or os.environ.get("KB_CACHE", "").strip().lower() in ("off", "0", "no", "false"):
        folder = Path(os.path.abspath(records)).parent / ".kb-cache"
    return folder / LOG_NAME
