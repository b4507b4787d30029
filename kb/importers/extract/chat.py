"""Attempts from chat transcripts (claude, codex, opencode, gemini, aider, specstory).

*A run is an attempt*, whatever the script is called: a shell tool call whose result reports a
measurement (:func:`kb.importers.extract.measurements.output_figures`), or that fails
(:func:`kb.importers.extract.failures.is_failure`: ``is_error``, an ``error`` state, a non-zero
exit, a traceback, an out-of-memory, ``NCCL error`` or ``CUDA error`` line) while running a
program (:func:`kb.importers.extract.config.program_of`: not ``ls``, ``cat``, ``pip``, ...), or
that launches a server or benchmark (a run waiting for its figure in the next message), or that
runs again a program an earlier attempt ran (a variant: ``NCCL_P2P_DISABLE=1`` and the same check;
without a figure its outcome stays ``inconclusive``). Probes give stack facts only.

Each attempt keeps: the error headline and its traceback (``error``, ``error_detail``); its
``family`` (the program and its ``--model``; runs of one family are compared); ``key``, the
source's own id of the call (Claude uuid, call id, else the line); an approach from the
narration before the run and *what changed* since the family's previous run (flags, env, files
edited, packages installed), e.g. ``Changed since the previous run: --tp 1 → --tp 4.``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex

from kb.importers.events import Event, Session
from kb.importers.extract.arms import output_arms, references
from kb.importers.extract.config import _RUN, _command_config, _text_flags, model_of, program_of
from kb.importers.extract.facts import _output_facts
from kb.importers.extract.failures import error_detail, error_headline, is_failure
from kb.importers.extract.measurements import _prose_figure, output_figures
from kb.importers.extract.model import (
    Evidence,
    ExtractedAttempt,
    Extraction,
    Fact,
    Figure,
    _first_paragraph,
    _title_of,
    locator_text,
    run_date,
    short_quote,
)
from kb.importers.extract.outcomes import _decision_in
from kb.importers.extract.tables import _pointwise

_BASELINE_WORDS = re.compile(r"\b(?:re-?measur\w*|measur\w*|establish\w*|record\w*)\s+(?:the\s+|a\s+|our\s+|today's\s+)?baseline\b|^\s*baseline\b", re.I)
_EDIT_TOOLS = re.compile(r"^(?:edit|multiedit|write|str_replace\w*|apply_patch|replace|write_file|patch|create_file)$", re.I)


class _ChatState:
    """A chat extraction in progress: :meth:`feed` it the windows of a session in order."""

    def __init__(self, out: Extraction) -> None:
        self.out = out
        self.context: list[Event] = []  # assistant texts since the last tool call
        self.last_user: Event | None = None
        self.last_date: dt.date | None = None
        self.pending_prose: ExtractedAttempt | None = None  # a run without a figure, waiting for prose
        self.latest: dict[tuple[str, str], Fact] = {}  # the latest fact per (scope, name) so far
        self.edits: list[str] = []  # files edited since the last run
        self.last_of_family: dict[str | None, ExtractedAttempt] = {}
        self.server: str | None = None  # the command of the server started in the background last

    def feed(self, session: Session) -> None:
        out = self.out
        for event in session.events:
            if event.timestamp is not None:
                self.last_date = event.timestamp.date()
            if event.kind == "text" and event.role in ("assistant", "user"):
                _decision_in(event, out)
                if event.role == "user" and event.text.lstrip().startswith("/"):
                    continue  # an Aider command such as "/run ...": the call itself, not a request
                if event.role == "user":
                    self.last_user = event
                    self.context = []
                    self.pending_prose = None
                else:
                    self.context.append(event)
                    if self.pending_prose is not None:
                        _prose_figure(self.pending_prose, event)
                        self.pending_prose = None
                continue
            if event.kind != "tool_call":
                continue
            if event.tool_name and _EDIT_TOOLS.match(event.tool_name) and isinstance(event.tool_input, dict):
                path = event.tool_input.get("file_path") or event.tool_input.get("path") or event.tool_input.get("filePath")
                if isinstance(path, str) and path:
                    self.edits.append(path.rsplit("/", 1)[-1])
                continue
            command = _command_of(event)
            result = session.result_for(event)
            output = result.text if result is not None else ""
            if result is not None:
                for fact in _output_facts(command, output, result, event.index):
                    out.facts.append(fact)
                    self.latest[(fact.scope, fact.name)] = fact
            if command and result is not None and re.match(r"^\s*(?:\S*/)?hostname(?:\s+-[sf])?\s*$", command):
                host = output.strip().splitlines()[0].strip() if output.strip() else ""
                if re.fullmatch(r"[A-Za-z][\w.-]*", host):
                    out.hosts.append(host)
            program = program_of(command) if command else None
            figures = output_figures(output, locator_text(result.locator)) if result is not None and program else {}
            failed = result is not None and program is not None and is_failure(
                result.is_error, result.exit_code, output, bool(figures))
            if command and result is not None and _BACKGROUND.search(output) and not figures:
                self.server = command  # a server started in the background: the next runs measure it
                self.context = []
                continue
            family = f"{program}|{model_of(_command_config(command)[0]) or ''}" if program and command else None
            retry = family in self.last_of_family  # a run of a program already tried: a variant
            arms = output_arms(output, locator_text(result.locator)) if result is not None and program and not failed \
                and not figures else []
            if arms and command is not None and result is not None:
                _arm_attempts(self, event, result, command, arms, family)
                continue
            if command is None or not (figures and program or failed or retry or (program and _RUN.search(command))):
                self.context = []
                continue
            attempt = _chat_attempt(event, result, command, figures, self.context, self.last_user,
                                    self.last_date, failed)
            attempt.facts = list(self.latest.values())
            if self.server:
                _with_server(attempt, self.server)
            attempt.family = family
            _note_changes(attempt, self.last_of_family.get(attempt.family), self.edits)
            self.last_of_family[attempt.family] = attempt
            self.edits = []
            out.attempts.append(attempt)
            self.pending_prose = attempt if "output_throughput" not in attempt.metrics and not attempt.error else None
            self.context = []


def _arm_attempts(state: "_ChatState", call: Event, result: Event, command: str, arms: list, family: str | None) -> None:
    """One attempt per arm of a comparison the run printed (:mod:`.arms`): the first arm kept is
    the baseline, each other judged point by point against it."""
    narration = " ".join(e.text for e in state.context)
    skip = references(narration)
    kept = [arm for arm in arms if not ({w for w in re.split(r"[-_\s]+", arm[0].lower()) if len(w) >= 3} & skip)]
    first: dict | None = None
    first_position = len(state.out.attempts)
    for header, figures, values in kept:
        attempt = _chat_attempt(call, result, command, figures, state.context, state.last_user, state.last_date, False)
        attempt.title = f"{header} ({attempt.title})"[:100]
        attempt.key = f"{attempt.key}|{header}"
        attempt.family = f"{family}|arms"
        attempt.facts = list(state.latest.values())
        unit = next(iter(figures.values())).unit
        if first is None:
            first = values
            attempt.outcome, attempt.explicit_outcome = "baseline", True
        else:
            attempt.outcome, attempt.explicit_outcome = _pointwise(first, values, unit), True
            attempt.reference = first_position
        state.out.attempts.append(attempt)
    state.context = []


_BACKGROUND = re.compile(r"^\s*Command running in background(?: with ID)?|^\s*\[\d+\]\s+\d+\s*$|started in (?:the )?background",
                         re.I | re.M)
"""A tool result saying the command went on in the background (Claude Code's ``Command running
in background with ID: 3f1a9c``, a shell's ``[1] 12345``)."""


def _with_server(attempt: ExtractedAttempt, server: str) -> None:
    """A run against a server started in the background: the server's environment and flags are
    part of what was tried (``SGLANG_SUPPORT_CUTLASS_BLOCK_FP8=1``), noted with its command."""
    flags, env = _command_config(server)
    attempt.env = {**env, **attempt.env}
    attempt.flags = attempt.flags + [f for f in flags if f.split(" ")[0] not in {g.split(" ")[0] for g in attempt.flags}]
    attempt.notes.append(f"Measured against the server started with: `{server[:300]}`")


def _note_changes(attempt: ExtractedAttempt, before: ExtractedAttempt | None, edits: list[str]) -> None:
    """Add to the approach what changed since the family's previous run: flags and env set,
    changed or dropped, files edited, packages installed in the same command."""
    changes: list[str] = []
    if before is not None:
        old = {f.split(" ")[0].split("=")[0]: f for f in before.flags}
        new = {f.split(" ")[0].split("=")[0]: f for f in attempt.flags}
        for name, flag in new.items():
            if name not in old:
                changes.append(f"added {flag}")
            elif old[name] != flag:
                changes.append(f"{old[name]} → {flag}")
        changes += [f"dropped {old[name]}" for name in old if name not in new]
        for name, value in attempt.env.items():
            if before.env.get(name) != value:
                changes.append(f"{name}={value}")
        changes += [f"unset {name}" for name in before.env if name not in attempt.env]
    changes += [f"edited {name}" for name in dict.fromkeys(edits)]
    installs = re.findall(r"\bpip3?\s+install\s+([^;&|]+)", attempt.command or "")
    changes += [f"installed {' '.join(p for p in spec.split() if not p.startswith('-'))}" for spec in installs]
    if changes:
        attempt.approach = (attempt.approach + "\n\n" if attempt.approach else "") + \
            "Changed since the previous run: " + "; ".join(changes) + "."


def _command_of(event: Event) -> str | None:
    data = event.tool_input
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return data.strip() or None
    if not isinstance(data, dict):
        return None
    command = data.get("command", data.get("cmd"))
    if isinstance(command, list):
        parts = [str(p) for p in command]
        if len(parts) >= 3 and parts[0] in ("bash", "sh", "zsh") and parts[1] in ("-lc", "-c"):
            return parts[2]
        return shlex.join(parts)
    return command if isinstance(command, str) and command.strip() else None


def _chat_attempt(call: Event, result: Event | None, command: str,
                  figures: dict[str, Figure], context: list[Event], last_user: Event | None,
                  last_date: dt.date | None, failed: bool) -> ExtractedAttempt:
    description = call.tool_input.get("description") if isinstance(call.tool_input, dict) else None
    description = description if isinstance(description, str) and description.strip() else None
    texts = [e for e in context if e.text.strip()]
    if texts:
        approach_event = texts[-1] if len(texts) == 1 else None
        approach = "\n\n".join(_first_paragraph(e.text) for e in texts)
        approach_locator = locator_text((approach_event or texts[0]).locator)
    elif last_user is not None and last_user.text.strip():
        approach, approach_locator = _first_paragraph(last_user.text), locator_text(last_user.locator)
    else:
        approach, approach_locator = description or command, locator_text(call.locator)
    generic = description is not None and len(description.split()) < 3
    title = (description if description and not generic else None) or (
        _title_of(approach) if texts else _command_title(command))
    when = call.timestamp or (result.timestamp if result is not None else None)
    attempt = ExtractedAttempt(
        anchor=Evidence("attempt", locator_text(call.locator), short_quote(description or command)),
        title=title, approach=approach.strip(), date=run_date(when)[0] if when else last_date, command=command,
    )
    if when is not None:
        attempt.date_basis = run_date(when)[1]
    attempt.evidence.append(Evidence("approach", approach_locator, short_quote(approach)))
    flags, env = _command_config(command)
    for text_event in texts + ([last_user] if last_user is not None and not texts else []):
        for flag in _text_flags(text_event.text):
            if not any(f.split(" ")[0] == flag.split(" ")[0] for f in flags):
                flags.append(flag)
    attempt.flags, attempt.env = flags, env
    if flags or env:
        attempt.evidence.append(Evidence("config", locator_text(call.locator), short_quote(command)))
    attempt.key = call.locator.uuid or call.call_id or locator_text(call.locator)
    if result is not None:
        attempt.metrics = figures
        if failed:
            attempt.error = error_headline(result.text)
            detail = error_detail(result.text)
            attempt.error_detail = detail if detail != attempt.error else None
            attempt.evidence.append(Evidence("error", locator_text(result.locator), short_quote(attempt.error)))
            attempt.outcome, attempt.explicit_outcome = "failed", True
            attempt.evidence.append(Evidence("outcome", locator_text(result.locator), _outcome_quote(result)))
    said = _BASELINE_WORDS.search(approach)
    if attempt.outcome != "failed" and (said or (description or "").lower().startswith("baseline")):
        attempt.outcome, attempt.explicit_outcome = "baseline", True
        attempt.evidence.append(Evidence("outcome", approach_locator if said else locator_text(call.locator),
                                         short_quote(said.group(0) if said else description or "")))
    return attempt


_QUIET = re.compile(r"^--?(?:model|model-path|tokenizer|port|host|served-model-name|trust-remote-code|api-key|output-file"
                    r"|result-dir|allow-run-as-root|np|H|hostfile)$")


def _command_title(command: str) -> str:
    """A title from the command when no narration says what a run tries: the program, the
    arguments and the environment it was given (``all_reduce_perf -b 1G -e 1G NCCL_ALGO=Tree``,
    ``serve_bench.py --tp 1 --no-spec``), paths shortened to file names, without model paths,
    ports, hosts and secrets; at most 80 characters."""
    program = program_of(command) or command.split()[0]
    _, env = _command_config(command)
    try:
        tokens = shlex.split(command)
    except ValueError:
        tokens = command.split()
    start = next((i for i, tok in enumerate(tokens) if tok.rsplit("/", 1)[-1] == program.rsplit(" ", 1)[-1]
                  or tok == program.split(" ")[0]), None)
    rest: list[str] = []
    skip = False
    for token in tokens[start + 1:] if start is not None else []:
        if token in ("|", "&&", ";", ">", "2>&1"):
            break
        if skip:
            skip = False
            continue
        if _QUIET.match(token.split("=", 1)[0]):
            skip = "=" not in token
            continue
        rest.append(token.rsplit("/", 1)[-1] if "/" in token and not token.startswith("-") else token)
    parts = [program] + rest + [f"{k}={v}" for k, v in env.items() if not re.search(r"TOKEN|KEY|SECRET|PASS|IFNAME|GID", k)]
    title = " ".join(parts)
    return title if len(title) <= 80 else title[:80].rsplit(" ", 1)[0]


def _outcome_quote(result: Event) -> str:
    if result.is_error:
        return "is_error: true" if result.exit_code is None else f"exit code {result.exit_code}"
    if result.exit_code:
        return f"exit code {result.exit_code}"
    return short_quote(error_headline(result.text))
