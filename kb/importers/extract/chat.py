"""Attempts from chat transcripts (claude, codex, opencode, gemini, aider, specstory): a run is a
tool call that launches a server or benchmark or whose output holds a figure."""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex

from kb.importers.events import Event, Session
from kb.importers.extract.config import _RUN, _command_config, _text_flags
from kb.importers.extract.facts import _output_facts
from kb.importers.extract.measurements import _bench_figures, _prose_figure
from kb.importers.extract.model import (ERROR_CHARS, Evidence, ExtractedAttempt, Extraction, Fact, Figure,
    _first_paragraph, _title_of, locator_text, short_quote)
from kb.importers.extract.outcomes import _decision_in

_BASELINE_WORDS = re.compile(r"\b(?:re-?measur\w*|measur\w*|establish\w*|record\w*)\s+(?:the\s+|a\s+|our\s+|today's\s+)?baseline\b", re.I)


_TRACEBACK = "Traceback (most recent call last)"


_ERROR_LINE = re.compile(r"(?:\b\w*(?:Error|Exception)\b|\berror:|NCCL WARN|CUDA error|out of memory|FAILED|Segmentation fault|core dumped)")


_NOISE_LINE = re.compile(r"^\s*(?:exit[ _]code:?\s*-?\d+|wall time:.*|command:.*|error:\s*\(none\)|signal:.*|process group pgid:.*|background pids:.*)\s*$", re.I)


class _ChatState:
    """A chat extraction in progress: :meth:`feed` it the windows of a session in order."""

    def __init__(self, out: Extraction) -> None:
        self.out = out
        self.context: list[Event] = []  # assistant texts since the last tool call
        self.last_user: Event | None = None
        self.last_date: dt.date | None = None
        self.pending_prose: ExtractedAttempt | None = None  # a run without a figure, waiting for prose
        self.latest: dict[tuple[str, str], Fact] = {}  # the latest fact per (scope, name) so far

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
            command = _command_of(event)
            result = session.result_for(event)
            output = result.text if result is not None else ""
            if result is not None:
                for fact in _output_facts(command, output, result, event.index):
                    out.facts.append(fact)
                    self.latest[(fact.scope, fact.name)] = fact
            figures = _bench_figures(output, result) if result is not None else {}
            if command is None or not (_RUN.search(command) or figures):
                self.context = []
                continue
            attempt = _chat_attempt(event, result, command, figures, self.context, self.last_user,
                                    self.last_date)
            attempt.facts = list(self.latest.values())
            out.attempts.append(attempt)
            self.pending_prose = attempt if "output_throughput" not in attempt.metrics and not attempt.error else None
            self.context = []


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
                  last_date: dt.date | None) -> ExtractedAttempt:
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
    title = description or _title_of(approach)
    when = call.timestamp or (result.timestamp if result is not None else None)
    attempt = ExtractedAttempt(
        anchor=Evidence("attempt", locator_text(call.locator), short_quote(description or command)),
        title=title, approach=approach.strip(), date=when.date() if when else last_date, command=command,
    )
    attempt.evidence.append(Evidence("approach", approach_locator, short_quote(approach)))
    flags, env = _command_config(command)
    for text_event in texts + ([last_user] if last_user is not None and not texts else []):
        for flag in _text_flags(text_event.text):
            if not any(f.split(" ")[0] == flag.split(" ")[0] for f in flags):
                flags.append(flag)
    attempt.flags, attempt.env = flags, env
    if flags or env:
        attempt.evidence.append(Evidence("config", locator_text(call.locator), short_quote(command)))
    if result is not None:
        attempt.metrics = figures
        if _is_failure(result, figures):
            attempt.error = _error_text(result.text)
            attempt.evidence.append(Evidence("error", locator_text(result.locator), short_quote(attempt.error.splitlines()[-1])))
            attempt.outcome, attempt.explicit_outcome = "failed", True
            attempt.evidence.append(Evidence("outcome", locator_text(result.locator), _outcome_quote(result)))
    if attempt.outcome != "failed" and (_BASELINE_WORDS.search(approach) or (description or "").lower().startswith("baseline")):
        attempt.outcome, attempt.explicit_outcome = "baseline", True
        attempt.evidence.append(Evidence("outcome", approach_locator if _BASELINE_WORDS.search(approach) else locator_text(call.locator),
                                         short_quote(_BASELINE_WORDS.search(approach).group(0) if _BASELINE_WORDS.search(approach) else description or "")))
    return attempt


def _outcome_quote(result: Event) -> str:
    if result.is_error:
        return "is_error: true" if result.exit_code is None else f"exit code {result.exit_code}"
    if result.exit_code:
        return f"exit code {result.exit_code}"
    return short_quote(_error_text(result.text).splitlines()[-1])


def _is_failure(result: Event, figures: dict[str, Figure]) -> bool:
    if result.is_error or (result.exit_code not in (None, 0)):
        return True
    return not figures and (_TRACEBACK in result.text)


def _error_text(output: str) -> str:
    """The error in a tool's output: the traceback (from ``Traceback`` to its end), else the
    error lines, else the last lines; wrapper lines (``Exit code 1``, ``Wall time``,
    ``Command:``) removed, ``Output:`` prefixes dropped."""
    lines = []
    for line in output.splitlines():
        if _NOISE_LINE.match(line):
            continue
        lines.append(re.sub(r"^\s*Output:\s?", "", line))
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    text = "\n".join(lines)
    if _TRACEBACK in text:
        text = text[text.index(_TRACEBACK):]
    else:
        errors = [line for line in lines if _ERROR_LINE.search(line)]
        text = "\n".join(errors[-5:]) if errors else "\n".join(lines[-5:])
    text = text.strip() or output.strip() or "(no output)"
    return text if len(text) <= ERROR_CHARS else "…" + text[-(ERROR_CHARS - 1):]
