"""Agent sessions feed kb: the hook that imports a session's transcript when an agent stops
(``kb hooks install``, ``kb import --hook``).

Two halves, both plain functions:

- *Installing*: :func:`install_hook` merges one command hook into an agent's settings file, as
  that agent documents it, keeping everything else in the file (other keys, other events, other
  hooks of the same event); installing twice adds it once; a file that is not valid JSON, or
  whose ``hooks`` is not an object, is refused with :class:`kb.errors.ConfigError` and nothing is
  written. :func:`uninstall_hook` takes kb's hook out again, :func:`hook_status` says where it is.
- *Running*: :func:`read_payload` reads the JSON the agent writes on the hook's stdin, waiting at
  most :data:`PAYLOAD_WAIT_S` (an agent may never close the pipe); :func:`run_hook` imports the
  transcript the payload names (:func:`kb.importers.drafts.import_logs`: a draft per attempt,
  never one already imported, so a session resumed or a turn added brings only its new attempts)
  within :data:`IMPORT_BUDGET_S`, and never raises: what happened is one line of
  :func:`hooks_log_path` (and the :class:`HookRun` it returns), so a hook never fails the agent.

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
import datetime as dt
import json
import os
import re
import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.errors import ConfigError, KbError, Problem, RecordExists, UsageError


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


def _user_cache() -> Path:
    """kb's folder in the user's cache (``$XDG_CACHE_HOME/kb``, ``~/.cache/kb`` by default: the
    XDG Base Directory Specification)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")) / "kb"


def hooks_log_path(records: Path) -> Path:
    """The hook log of the records folder ``records``: ``hooks.log`` in its cache folder
    (``.kb-cache/`` beside it, or ``$KB_CACHE_DIR``; also beside it when ``KB_CACHE=off``, which
    turns off the cache, not the log); for a records folder that does not exist,
    ``$XDG_CACHE_HOME/kb/hooks.log`` (``~/.cache/kb/`` by default), so that nothing is created
    beside a folder the hook named wrongly."""
    from kb.store.cache import cache_folder

    if not Path(records).is_dir():  # never a cache beside a folder that is not there (an unset
        # $CLAUDE_PROJECT_DIR names /records): the user's cache folder (XDG base directories)
        return _user_cache() / LOG_NAME
    folder = None
    with contextlib.suppress(OSError, ValueError):
        folder = cache_folder(Path(records))
    if folder is None or os.environ.get("KB_CACHE", "").strip().lower() in ("off", "0", "no", "false"):
        folder = Path(os.path.abspath(records)).parent / ".kb-cache"
    return folder / LOG_NAME



# --- running the hook ----------------------------------------------------------------------


class HookTimeout(BaseException):
    """Raised inside :func:`run_hook` when its budget runs out. A ``BaseException`` (as
    ``KeyboardInterrupt`` is), so that no ``except Exception`` on the way swallows it; ``finally``
    blocks still run (a temporary file is removed, a lock released)."""


class HookInputError(KbError):
    """The hook payload is not usable: nothing on stdin, not JSON, no ``transcript_path``, or a
    transcript that is not there. The message says which and what was expected."""


@dataclass
class HookPayload:
    """What kb takes from a hook's stdin JSON: the ``event`` (``hook_event_name``), the
    ``session`` id, the ``transcript`` path (made absolute against the payload's ``cwd``), and
    the ``turn`` id (Codex) or end ``reason`` (Claude Code) when given."""

    event: str
    session: str
    transcript: Path
    turn: str = ""
    reason: str = ""


@dataclass
class HookRun:
    """What :func:`run_hook` did: ``state`` is ``imported``, ``failed`` (the payload or the
    import was refused; ``message`` says why) or ``timed out``; ``written``/``existing`` count
    the drafts written and those already imported; ``log`` is the log file written (``None``
    when it could not be)."""

    state: str
    message: str
    written: int = 0
    existing: int = 0
    payload: HookPayload | None = None
    log: Path | None = None


def read_payload(stream: Any, timeout: float = PAYLOAD_WAIT_S, limit: int = PAYLOAD_LIMIT) -> tuple[bytes, bool]:
    """Read a hook payload from ``stream`` (a binary stream: the hook's stdin) without ever
    blocking past ``timeout`` seconds: ``(bytes read, whether the wait ran out)``.

    Reading stops at end of file, as soon as the bytes read make one complete JSON object (an
    agent may keep the pipe open after writing), after ``limit`` bytes, or when ``timeout`` has
    passed (a terminal, or a pipe left open and empty). A stream without a file descriptor (an
    in-memory one) is read at once. The descriptor is read with :func:`os.read`, never through a
    buffered stream, and waited on with ``select`` (or, where ``select`` takes sockets only, by a
    background thread that does not hold the process open, left behind if the wait runs out)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is None:
        return bytes(stream.read(limit)), False
    import select

    deadline = time.monotonic() + timeout
    data = bytearray()
    while len(data) < limit:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(data), True
        try:
            ready, _w, _x = select.select([fd], [], [], left)
        except (OSError, ValueError):  # pragma: no cover - Windows pipes and consoles
            return _read_in_thread(fd, data, deadline, limit)
        if not ready:
            return bytes(data), True
        if _read_some(fd, data, limit):
            break
    return bytes(data), False


def _read_some(fd: int, data: bytearray, limit: int) -> bool:
    """Read once from ``fd`` into ``data``; whether reading is over (end of file, an error, or
    a complete JSON object)."""
    try:
        chunk = os.read(fd, min(65536, limit - len(data)))
    except BlockingIOError:
        return False
    except OSError:
        return True
    data += chunk
    return not chunk or (data.rstrip().endswith(b"}") and _complete(data))


def _read_in_thread(fd: int, data: bytearray, deadline: float, limit: int) -> tuple[bytes, bool]:
    """:func:`read_payload`'s loop in a thread of the low-level ``_thread`` module, which the
    interpreter does not wait for at exit (a stdin that never ends cannot keep the hook alive),
    waited for until ``deadline``."""
    import _thread
    import threading

    done = threading.Event()

    def loop() -> None:
        try:
            while len(data) < limit and not _read_some(fd, data, limit):
                pass
        finally:
            done.set()

    _thread.start_new_thread(loop, ())
    done.wait(max(0.0, deadline - time.monotonic()))
    return bytes(data), not done.is_set()


def _complete(data: bytes | bytearray) -> bool:
    try:
        return isinstance(json.loads(data.decode("utf-8", "replace")), dict)
    except ValueError:
        return False


def parse_payload(data: bytes, *, waited_out: bool = False, wait: float = PAYLOAD_WAIT_S) -> HookPayload:
    """The :class:`HookPayload` of the hook JSON ``data``. Raises :class:`HookInputError` for no
    bytes, bytes that are not a JSON object, no ``transcript_path`` (or ``null``: the agent keeps
    no transcript of that session), or a transcript file that does not exist."""
    text = data.decode("utf-8", "replace")
    if not text.strip():
        why = f"nothing came on stdin within {wait:g} s" if waited_out else "stdin was empty"
        raise HookInputError(f"{why}; expected the JSON object an agent writes on a hook's stdin "
                             '({"session_id", "transcript_path", "hook_event_name", ...})')
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (it stopped before the end: the wait ran out)" if waited_out else ""
        raise HookInputError(f"stdin:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno}){cut}; "
                             "expected the JSON object an agent writes on a hook's stdin") from None
    if not isinstance(doc, dict):
        raise HookInputError(f"stdin holds a JSON {_json_type(doc)}; expected an object with transcript_path")
    transcript = doc.get("transcript_path")
    event = str(doc.get("hook_event_name") or "hook")
    if transcript is None or transcript == "":
        raise HookInputError(f"the {event} payload has no transcript_path (the agent keeps no transcript of "
                             "this session): nothing to import")
    if not isinstance(transcript, str):
        raise HookInputError(f"the {event} payload's transcript_path is a JSON {_json_type(transcript)}, "
                             "expected a path")
    path = Path(os.path.expanduser(transcript))
    cwd = doc.get("cwd")
    if not path.is_absolute() and isinstance(cwd, str) and cwd:
        path = Path(cwd) / path
    if not path.is_file():
        raise HookInputError(f"the transcript {path} named by the {event} payload is not there "
                             "(moved, deleted, or the session wrote none)")
    return HookPayload(event, str(doc.get("session_id") or ""), path,
                       turn=str(doc.get("turn_id") or ""), reason=str(doc.get("reason") or ""))


Importer = Callable[..., Any]


def run_hook(records: Path, data: bytes, *, waited_out: bool = False, format: str = "auto",
             campaign: str | None = None, catalogs: list[str] | tuple[str, ...] = (),
             budget: float | None = IMPORT_BUDGET_S, log: Path | None = None,
             importer: Importer | None = None) -> HookRun:
    """Import the transcript named by the hook payload ``data`` into draft attempts under
    ``records``; never raises.

    The payload is parsed (:func:`parse_payload`), then the transcript imported with
    ``importer`` (default :func:`kb.importers.drafts.import_logs`, with ``format``, ``campaign``
    and ``catalogs``): attempts already imported (by their passage in the log) are not written
    again, so a grown transcript adds only its new attempts. One hook runs at a time per records
    folder (a lock beside the log, where the platform has ``fcntl``). The whole run stops after
    ``budget`` seconds (``None``: no limit; POSIX main thread only) with state ``timed out``.

    Every run appends one line to ``log`` (default :func:`hooks_log_path`): UTC time, event,
    session, transcript, and what came of it; warnings and an unexpected error's traceback
    follow, indented. The returned :class:`HookRun` says the same."""
    log = log if log is not None else hooks_log_path(records)
    run = HookRun("failed", "")
    start = time.monotonic()
    details: list[str] = []
    try:
        with _time_limit(budget), _one_at_a_time(log):
            run.payload = parse_payload(data, waited_out=waited_out)
            if importer is None:
                from kb.importers.drafts import import_logs

                importer = import_logs
            report = importer(records, [run.payload.transcript], format=format, campaign=campaign,
                              catalogs=catalogs)
            _summarise(report, run, details)
    except HookTimeout:
        run.state, run.message = "timed out", (f"stopped after {budget:g} s; the drafts written so far are kept "
                                               "and the next run imports the rest")
    except KeyboardInterrupt:
        run.state, run.message = "failed", "interrupted"
    except KbError as exc:
        run.state, run.message = "failed", str(exc)
    except Exception as exc:  # noqa: BLE001 - a hook never fails the agent: any error is logged
        import traceback

        run.state, run.message = "failed", f"unexpected {type(exc).__name__}: {exc}"
        details.extend(traceback.format_exc().rstrip().splitlines())
    run.log = _append_log(log, run, time.monotonic() - start, details)
    return run


def _summarise(report: Any, run: HookRun, details: list[str]) -> None:
    """Fill ``run`` from an :class:`kb.importers.drafts.ImportReport` of one file."""
    taken = report.drafts + [d for f in report.files for d in f.possible if d.state != "possible"]
    run.written = sum(1 for d in taken if d.state == "written")
    run.existing = sum(1 for d in taken if d.state == "exists")
    for item in report.files:
        details.extend(f"warning: {w}" for w in item.warnings)
        if item.error:
            run.state, run.message = "failed", item.error
            return
    run.state = "imported"
    run.message = f"{run.written} draft(s) written, {run.existing} already imported"
    if report.record_problems:
        details.append(f"warning: the records folder has {report.record_problems} invalid record(s); run 'kb check'")


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`HookTimeout` in the block after ``seconds`` (a POSIX interval timer; no
    limit where there is none, or off the main thread)."""
    import signal
    import threading

    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, _frame: Any) -> None:
        raise HookTimeout

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def _one_at_a_time(log: Path) -> Iterator[None]:
    """Hold ``hooks.lock`` beside ``log`` (an exclusive ``flock``, waited for: two sessions
    ending at once import one after the other); nothing where ``fcntl`` or the folder is missing."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    try:
        _prepare_folder(log.parent)
        handle = open(log.parent / "hooks.lock", "a+b")  # noqa: SIM115 - held for the block
    except OSError:
        yield
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield
    finally:
        handle.close()


def _prepare_folder(folder: Path) -> None:
    """Create the cache folder with its ``.gitignore`` of ``*`` (as the record cache does). Only
    ``$KB_CACHE_DIR`` and the user's cache folder (:func:`hooks_log_path` for a records folder
    that is not there) are created with their parents."""
    folder.mkdir(parents=bool(os.environ.get("KB_CACHE_DIR")) or folder == _user_cache(), exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError, KbError):
            from kb.atomic import write_text_atomic

            write_text_atomic(ignore, "# kb's caches and hook log: never commit or publish them\n*\n")


def _append_log(log: Path, run: HookRun, seconds: float, details: list[str]) -> Path | None:
    """Append ``run``'s line (and ``details``, indented) to ``log``; ``None`` when the disk refuses."""
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    p = run.payload
    what = "hook"
    if p is not None:
        what = " ".join([p.event, f"session={p.session or '?'}", *([f"turn={p.turn}"] if p.turn else []),
                         *([f"reason={p.reason}"] if p.reason else []), f"transcript={p.transcript}"])
    lines = [f"{when} {what}: {run.state}: {run.message} ({seconds:.1f} s)"] + [f"    {d}" for d in details]
    try:
        _prepare_folder(log.parent)
        with contextlib.suppress(OSError):
            if log.stat().st_size > LOG_LIMIT:
                os.replace(log, log.with_name(log.name + ".1"))
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("".join(line.replace("\n", " ") + "\n" for line in lines))
    except OSError:
        return None
    return log
