"""Gemini CLI chat recordings. Format facts: FORMATS.md.

Current form, JSONL, replayed in order:

- a metadata line (``sessionId``, ``projectHash``, ``startTime``, ...);
- message records (``id``, ``timestamp``, ``type`` user/gemini/info/warning/error, ``content``
  as a string or a list of parts, ``toolCalls[{id, name, args, result, status,
  resultDisplay}]``, ``thoughts``, ``model``); a record repeating an earlier ``id`` replaces
  it in place (the CLI appends a message again as its tool calls complete);
- ``{"$set": {...}}`` updates the metadata; a ``messages`` list inside it is a checkpoint
  that replaces every message so far;
- ``{"$rewindTo": "<id>"}`` drops that message and every message after it. A rewind to an
  id never seen is ignored with a warning (dropping everything would lose evidence).

Older form: one JSON document ``{sessionId, projectHash, startTime, messages: [...]}``;
its locators are message ids (``file#<message id>/<tool call id>``).

Message types: ``user`` → user text; ``gemini`` → assistant text, ``thinking`` for each
thought, a ``tool_call`` per tool call plus a ``tool_result`` once it has a ``result`` or a
final ``status``; ``info``/``warning`` → system text; ``error`` → ``error`` event.
"""

from __future__ import annotations

import json
from typing import Any

from kb.importers.events import Event, Locator
from kb.importers.formats._common import (
    Reading,
    content_text,
    find_exit_code,
    iter_json_lines,
    iter_lines,
    parse_timestamp,
    read_text,
)

_META_KEYS = ("sessionId", "projectHash", "startTime", "lastUpdated", "summary", "kind")


def read(reading: Reading) -> None:
    """Fill ``reading`` from a Gemini CLI recording (JSONL or the older single document)."""
    if not _first_line_is_json(reading) and _read_document(reading):
        return
    messages: dict[str, tuple[int, dict[str, Any]]] = {}  # id → (line, record); dicts keep order
    for lineno, record in iter_json_lines(reading):
        if "$set" in record:
            update = record["$set"]
            if not isinstance(update, dict):
                reading.warn(lineno, "$set without an object; skipped")
                continue
            if isinstance(update.get("messages"), list):
                messages.clear()
                for message in update["messages"]:
                    if isinstance(message, dict) and isinstance(message.get("id"), str):
                        messages[message["id"]] = (lineno, message)
            _metadata(reading, update)
        elif "$rewindTo" in record:
            target = record["$rewindTo"]
            if target not in messages:
                reading.warn(lineno, f"$rewindTo {target!r}: no such message; ignored")
                continue
            ids = list(messages)
            for mid in ids[ids.index(target):]:
                del messages[mid]
        elif isinstance(record.get("id"), str) and "type" in record:
            messages[record["id"]] = (lineno, record)  # a known id is replaced in place
        elif isinstance(record.get("sessionId"), str):
            _metadata(reading, record)
            for message in record.get("messages") or []:  # a one-line single document
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    messages[message["id"]] = (lineno, message)
        else:
            keys = ",".join(sorted(record)[:3])
            reading.warn_once(f"shape:{keys}", lineno, f"unknown record shape (keys {keys}) skipped")
    for turn, (mid, (lineno, record)) in enumerate(messages.items()):
        _message_events(reading, record, turn, lambda part=None, ln=lineno, m=mid: Locator(
            reading.name, line=ln, message_id=m, part_id=part))


def _first_line_is_json(reading: Reading) -> bool:
    """True for JSONL (first non-blank line is a whole JSON value); False for a
    pretty-printed single document, whose first line is a bare ``{``."""
    before, decode_errors = len(reading.warnings), reading._decode_errors
    try:
        for _, text in iter_lines(reading):
            if text.strip():
                try:
                    json.loads(text)
                except json.JSONDecodeError:
                    return False
                return True
        return True
    finally:
        del reading.warnings[before:]  # the real pass reports decoding problems once
        reading._decode_errors = decode_errors


def _read_document(reading: Reading) -> bool:
    """Read the older single-document form; False (nothing read) when the text is not one
    JSON document, so that the caller reads it as JSONL instead."""
    before = len(reading.warnings)
    text = read_text(reading)
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        del reading.warnings[before:]  # decoding warnings come again from the JSONL pass
        return False
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        raise reading.error(None, "not a Gemini CLI session: expected {sessionId, messages: [...]}")
    _metadata(reading, document)
    for turn, record in enumerate(document["messages"]):
        if not isinstance(record, dict):
            continue
        mid = str(record.get("id") or f"message-{turn + 1}")
        _message_events(reading, record, turn, lambda part=None, m=mid: Locator(
            reading.name, message_id=m, part_id=part))
    return True


def _metadata(reading: Reading, record: dict[str, Any]) -> None:
    if isinstance(record.get("sessionId"), str):
        reading.session_id = record["sessionId"]
    for key in _META_KEYS[1:]:
        if key in record:
            reading.meta[key] = record[key]
    for key in ("directories",):
        dirs = record.get(key)
        if isinstance(dirs, list) and dirs and isinstance(dirs[0], str) and reading.cwd is None:
            reading.cwd = dirs[0]


def _message_events(reading: Reading, record: dict[str, Any], turn: int, where: Any) -> None:
    mtype = record.get("type")
    timestamp = parse_timestamp(record.get("timestamp"))
    common = {"timestamp": timestamp, "turn": turn}
    text = content_text(record.get("content"))
    attrs = {"model": record["model"]} if isinstance(record.get("model"), str) else {}
    if mtype == "user":
        if text:
            reading.events.append(Event("text", where(), role="user", text=text, **common))
        return
    if mtype in ("info", "warning"):
        if text:
            reading.events.append(Event("text", where(), role="system", text=text, **common))
        return
    if mtype == "error":
        reading.events.append(Event("error", where(), role="system", text=text, is_error=True, **common))
        return
    if mtype != "gemini":
        reading.warn_once(f"type:{mtype}", where().line, f"unknown message type {mtype!r} skipped")
        return
    for thought in record.get("thoughts") or []:
        if isinstance(thought, dict):
            body = ": ".join(str(thought[k]) for k in ("subject", "description") if thought.get(k))
            if body:
                reading.events.append(Event("thinking", where(), role="assistant", text=body, **common))
    if text:
        reading.events.append(Event("text", where(), role="assistant", text=text, attrs=attrs, **common))
    for position, call in enumerate(record.get("toolCalls") or []):
        if not isinstance(call, dict):
            continue
        call_id = str(call.get("id") or f"{record.get('id')}:{position}")
        locator = where(call_id)
        args = call.get("args")
        status = call.get("status")
        call_ts = parse_timestamp(call.get("timestamp")) or timestamp
        reading.events.append(
            Event("tool_call", locator, role="assistant", tool_name=call.get("name"),
                  tool_input=args if isinstance(args, (dict, str)) else None, call_id=call_id,
                  timestamp=call_ts, turn=turn, attrs={"status": status})
        )
        if call.get("result") is None and status not in ("success", "error", "cancelled"):
            continue
        output = _result_text(call.get("result")) or content_text(call.get("resultDisplay"))
        if not output and isinstance(call.get("resultDisplay"), str):
            output = call["resultDisplay"]
        reading.events.append(
            Event("tool_result", locator, role="tool", text=output, tool_name=call.get("name"),
                  call_id=call_id, is_error=(status == "error") if status else None,
                  exit_code=find_exit_code(output), timestamp=call_ts, turn=turn)
        )


def _result_text(result: Any) -> str:
    """Text of a tool ``result``: a string, or Gemini API parts holding
    ``functionResponse.response.output`` / ``.error``."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        result = [result]
    if not isinstance(result, list):
        return ""
    texts = []
    for part in result:
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse", {}).get("response") if isinstance(
            part.get("functionResponse"), dict) else None
        if isinstance(response, dict):
            for key in ("output", "error", "content"):
                if isinstance(response.get(key), str):
                    texts.append(response[key])
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts)
