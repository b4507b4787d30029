"""Codex CLI rollout files (``rollout-<timestamp>-<uuid>.jsonl``, or ``.jsonl.zst``).
Format facts: FORMATS.md.

Each line is ``{timestamp, type, payload}``:

- ``session_meta``: ``id``, ``cwd``, ``cli_version``, ``git`` → session fields and
  ``meta["git"]``; ``turn_context``: ``model`` → ``meta["model"]`` and later events'
  ``attrs["model"]``.
- ``response_item``: ``message`` (text; user messages that are injected context such as
  ``<environment_context>`` or ``<user_instructions>`` get role ``system``), ``reasoning``
  (``summary`` texts → ``thinking``), ``function_call`` / ``custom_tool_call`` /
  ``local_shell_call`` → ``tool_call`` (``arguments`` is a JSON string, parsed to a dict when
  it can be, kept as the string with a warning when not), ``*_output`` with a ``call_id``
  → ``tool_result``. An output that is itself JSON ``{"output", "metadata": {"exit_code"}}``
  is unwrapped; an ``Exit code: N`` line gives ``exit_code``.
- ``event_msg``: mostly repeats ``response_item`` content, so it adds no events; its
  ``exec_command_end`` (``call_id``, ``exit_code``, ``stdout``, ``stderr``) fills those fields
  on the matching result, and ``error`` messages become ``error`` events. The reader streams
  (:func:`iter_events`): an ``exec_command_end`` met before its result waits for it, one met
  after fills the result in place; either way only the last :data:`RECENT_CALLS` call ids
  are remembered (memory stays bounded).
- ``compacted``: a summary of earlier turns, not evidence; skipped.
- Older rollouts without the ``payload`` wrapper (a first line ``{id, timestamp,
  instructions}``, then bare response items, ``record_type`` state lines) are read too.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from kb.importers.events import Event, Locator
from kb.importers.formats._common import (
    Reading,
    cap_text,
    content_text,
    find_exit_code,
    iter_json_lines,
    parse_timestamp,
)

_CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")
_RESPONSE_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
}


RECENT_CALLS = 1024
"""How many call ids the reader remembers to join ``exec_command_end`` with its result."""


def read(reading: Reading) -> None:
    """Fill ``reading`` from a Codex rollout (all of it)."""
    reading.events.extend(iter_events(reading))


def iter_events(reading: Reading) -> Iterator[Event]:
    """Stream the events of a Codex rollout in file order. Session fields, ``meta`` and
    warnings go to ``reading`` as lines are met; a result's exec fields may be filled just
    after it is yielded (its ``exec_command_end`` follows it)."""
    exec_ends: OrderedDict[str, dict[str, Any]] = OrderedDict()  # ends waiting for their result
    results: OrderedDict[str, list[Event]] = OrderedDict()  # recent results by call id
    model: str | None = None
    for lineno, record in iter_json_lines(reading):
        rtype = record.get("type")
        payload = record.get("payload")
        timestamp = parse_timestamp(record.get("timestamp"))
        if payload is None:  # older rollouts: no wrapper
            if rtype in _RESPONSE_TYPES:
                rtype, payload = "response_item", record
            elif "record_type" in record:
                continue
            elif "id" in record and ("instructions" in record or "git" in record):
                rtype, payload = "session_meta", record
        if not isinstance(payload, dict):
            reading.warn_once(
                f"type:{rtype}", lineno, f"unknown record type {rtype!r} skipped (first seen here)"
            )
            continue
        if rtype == "session_meta":
            _session_meta(reading, payload)
        elif rtype == "turn_context":
            if isinstance(payload.get("model"), str):
                model = payload["model"]
                reading.meta.setdefault("model", model)
        elif rtype == "response_item":
            event = _response_item(reading, payload, lineno)
            if event is not None:
                event.timestamp = timestamp
                event.turn = lineno
                if model and event.role == "assistant":
                    event.attrs["model"] = model
                if event.kind == "tool_result" and isinstance(event.call_id, str):
                    end = exec_ends.get(event.call_id)
                    if end is not None:
                        _apply_exec_end(event, end)
                    _remember(results, event.call_id, event)
                yield event
        elif rtype == "event_msg":
            etype = payload.get("type")
            if etype == "exec_command_end" and isinstance(payload.get("call_id"), str):
                call_id = payload["call_id"]
                end = {"exit_code": payload.get("exit_code")}
                for stream in ("stdout", "stderr"):
                    if isinstance(payload.get(stream), str):
                        end[stream] = cap_text(payload[stream])
                for event in results.get(call_id, ()):
                    _apply_exec_end(event, end)
                exec_ends[call_id] = end
                exec_ends.move_to_end(call_id)
                if len(exec_ends) > RECENT_CALLS:
                    exec_ends.popitem(last=False)
            elif etype == "error" and isinstance(payload.get("message"), str):
                yield Event(
                    "error",
                    Locator(reading.name, line=lineno),
                    role="system",
                    text=payload["message"],
                    is_error=True,
                    timestamp=timestamp,
                    turn=lineno,
                )
        elif rtype == "compacted":
            continue
        else:
            reading.warn_once(
                f"type:{rtype}", lineno, f"unknown record type {rtype!r} skipped (first seen here)"
            )


def _remember(results: OrderedDict[str, list[Event]], call_id: str, event: Event) -> None:
    results.setdefault(call_id, []).append(event)
    results.move_to_end(call_id)
    if len(results) > RECENT_CALLS:
        results.popitem(last=False)


def _apply_exec_end(event: Event, end: dict[str, Any]) -> None:
    """Fill a result's exit code and streams from its ``exec_command_end`` where the output
    itself did not state them."""
    if event.exit_code is None and isinstance(end.get("exit_code"), int):
        event.exit_code = end["exit_code"]
    for stream in ("stdout", "stderr"):
        if getattr(event, stream) is None and isinstance(end.get(stream), str):
            setattr(event, stream, end[stream])
    if event.is_error is None and event.exit_code is not None:
        event.is_error = event.exit_code != 0


def _session_meta(reading: Reading, payload: dict[str, Any]) -> None:
    for key, attr in (("id", "session_id"), ("cwd", "cwd"), ("cli_version", "tool_version")):
        value = payload.get(key)
        if isinstance(value, str) and getattr(reading, attr) is None:
            setattr(reading, attr, value)
    if isinstance(payload.get("git"), dict):
        reading.meta.setdefault("git", payload["git"])


def _response_item(reading: Reading, item: dict[str, Any], lineno: int) -> Event | None:
    itype = item.get("type")
    locator = Locator(reading.name, line=lineno)
    if itype == "message":
        role = item.get("role")
        text = content_text(item.get("content"))
        if not text:
            return None
        if role not in ("user", "assistant"):
            role = "system"  # "developer" and "system" messages are instructions
        elif role == "user" and text.lstrip().startswith(_CONTEXT_PREFIXES):
            role = "system"
        return Event("text", locator, role=role, text=text)
    if itype == "reasoning":
        text = content_text(item.get("summary")) or content_text(item.get("content"))
        return Event("thinking", locator, role="assistant", text=text) if text else None
    if itype in ("function_call", "custom_tool_call"):
        raw = item.get("arguments", item.get("input"))
        tool_input: dict[str, Any] | str | None = raw if isinstance(raw, (str, dict)) else None
        if itype == "function_call" and isinstance(raw, str):
            try:
                parsed = json.loads(raw)
            except json.JSONDecodeError as exc:
                reading.warn(lineno, f"function_call arguments are not valid JSON ({exc.msg}); kept as text")
            else:
                tool_input = parsed if isinstance(parsed, dict) else raw
        return Event(
            "tool_call",
            locator,
            role="assistant",
            tool_name=item.get("name"),
            tool_input=tool_input,
            call_id=item.get("call_id"),
        )
    if itype == "local_shell_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        return Event(
            "tool_call",
            locator,
            role="assistant",
            tool_name="local_shell",
            tool_input=action,
            call_id=item.get("call_id") or item.get("id"),
            attrs={"status": item["status"]} if isinstance(item.get("status"), str) else {},
        )
    if isinstance(itype, str) and itype.endswith("_output") and "call_id" in item:
        return _output_event(item, locator)
    if itype == "web_search_call":
        return Event("tool_call", locator, role="assistant", tool_name="web_search",
                     tool_input=item.get("action") if isinstance(item.get("action"), dict) else None)
    reading.warn_once(
        f"item:{itype}", lineno, f"unknown response_item type {itype!r} skipped (first seen here)"
    )
    return None


def _output_event(item: dict[str, Any], locator: Locator) -> Event:
    output = item.get("output")
    exit_code: int | None = None
    if isinstance(output, dict):  # some versions: {content, success}
        success = output.get("success")
        text = content_text(output.get("content")) or json.dumps(output)
        is_error = (not success) if isinstance(success, bool) else None
    else:
        text = output if isinstance(output, str) else content_text(output)
        is_error = None
        try:
            wrapped = json.loads(text) if text.startswith("{") else None
        except json.JSONDecodeError:
            wrapped = None
        if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
            text = wrapped["output"]
            metadata = wrapped.get("metadata")
            if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
                exit_code = metadata["exit_code"]
    if exit_code is None:
        exit_code = find_exit_code(text)
    if is_error is None and exit_code is not None:
        is_error = exit_code != 0
    return Event(
        "tool_result",
        locator,
        role="tool",
        text=text,
        call_id=item.get("call_id"),
        is_error=is_error,
        exit_code=exit_code,
    )
