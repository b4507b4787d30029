"""opencode sessions, as ``opencode export`` prints them: one JSON document
``{info: session, messages: [{info, parts}]}``. Format facts: FORMATS.md.

- ``info``: ``id`` → ``session_id``, ``directory`` → ``cwd``, ``version`` → ``tool_version``,
  ``title`` → ``meta["title"]``.
- Message ``info``: ``id``, ``role``, ``time.created`` (epoch ms) → timestamp, ``modelID`` →
  ``attrs["model"]``, ``error`` → an ``error`` event.
- Parts: ``text`` → text, ``reasoning`` → thinking, ``tool`` → a ``tool_call`` (``callID``,
  ``tool``, ``state.input``) and, once ``state.status`` is ``completed`` or ``error``, its
  ``tool_result`` (``state.output`` or ``state.error``; ``state.metadata.exit`` →
  ``exit_code``). ``step-start``, ``step-finish``, ``patch``, ``snapshot``, ``file``, ``agent``,
  ``compaction``, ``subtask``, ``retry`` parts carry no evidence and are skipped silently;
  other part types get one warning per type.
- Locators are ids (``file#msg_.../prt_...``): the document has no useful line numbers.
  The document is parsed whole (``json.loads``); text before the first ``{`` (a redirected
  "Exporting session" notice) is skipped with a warning.
"""

from __future__ import annotations

import json
from typing import Any

from kb.importers.events import Event, Locator
from kb.importers.formats._common import Reading, content_text, json_error_message, parse_timestamp, read_text

_SILENT_PARTS = {
    "step-start",
    "step-finish",
    "patch",
    "snapshot",
    "file",
    "agent",
    "compaction",
    "subtask",
    "retry",
}


def read(reading: Reading) -> None:
    """Fill ``reading`` from an opencode export document."""
    text = read_text(reading)
    start = text.find("{")
    if start > 0:
        skipped = text[:start].count("\n")
        reading.warn(1, f"{skipped} line(s) of text before the JSON document skipped")
    try:
        document = json.loads(text[max(start, 0):])
    except json.JSONDecodeError as exc:
        line = text[: max(start, 0)].count("\n") + exc.lineno
        raise reading.error(line, json_error_message(exc, text[max(start, 0):])) from exc
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        raise reading.error(None, "not an opencode export: expected {info, messages: [...]}")
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    for key, attr in (("id", "session_id"), ("directory", "cwd"), ("version", "tool_version")):
        if isinstance(info.get(key), str):
            setattr(reading, attr, info[key])
    if isinstance(info.get("title"), str):
        reading.meta["title"] = info["title"]
    for turn, message in enumerate(document["messages"]):
        if not isinstance(message, dict):
            reading.warn(None, f"message {turn + 1} is not an object; skipped")
            continue
        _message(reading, message, turn)


def _message(reading: Reading, message: dict[str, Any], turn: int) -> None:
    info = message.get("info") if isinstance(message.get("info"), dict) else {}
    message_id = info.get("id") if isinstance(info.get("id"), str) else f"message-{turn + 1}"
    role = info.get("role") if info.get("role") in ("user", "assistant") else "system"
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    timestamp = parse_timestamp(time.get("created"))
    attrs: dict[str, Any] = {}
    if isinstance(info.get("modelID"), str):
        attrs["model"] = info["modelID"]
    for part in message.get("parts") or []:
        if not isinstance(part, dict):
            continue
        ptype = part.get("type")
        part_id = part.get("id") if isinstance(part.get("id"), str) else None
        locator = Locator(reading.name, message_id=message_id, part_id=part_id)
        ptime = part.get("time") if isinstance(part.get("time"), dict) else {}
        part_ts = parse_timestamp(ptime.get("start")) or timestamp
        common = {"timestamp": part_ts, "turn": turn}
        if ptype == "text":
            if part.get("text"):
                extra = {"synthetic": True} if part.get("synthetic") else {}
                reading.events.append(
                    Event("text", locator, role=role, text=part["text"], attrs={**attrs, **extra}, **common)
                )
        elif ptype == "reasoning":
            if part.get("text"):
                reading.events.append(Event("thinking", locator, role=role, text=part["text"], **common))
        elif ptype == "tool":
            _tool(reading, part, locator, common)
        elif ptype in _SILENT_PARTS:
            continue
        else:
            reading.warn_once(
                f"part:{ptype}", None,
                f"unknown part type {ptype!r} skipped (first seen at {locator})",
            )
    error = info.get("error")
    if isinstance(error, dict):
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        text = data.get("message") or error.get("name") or json.dumps(error)
        reading.events.append(
            Event("error", Locator(reading.name, message_id=message_id), role="system",
                  text=str(text), is_error=True, timestamp=timestamp, turn=turn)
        )


def _tool(reading: Reading, part: dict[str, Any], locator: Locator, common: dict[str, Any]) -> None:
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    tool_input = state.get("input") if isinstance(state.get("input"), (dict, str)) else None
    call_id = part.get("callID") if isinstance(part.get("callID"), str) else part.get("id")
    status = state.get("status")
    times = state.get("time") if isinstance(state.get("time"), dict) else {}
    reading.events.append(
        Event("tool_call", locator, role="assistant", tool_name=part.get("tool"),
              tool_input=tool_input, call_id=call_id, attrs={"status": status},
              timestamp=parse_timestamp(times.get("start")) or common["timestamp"],
              turn=common["turn"])
    )
    if status not in ("completed", "error"):
        return
    metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
    exit_code = metadata.get("exit") if isinstance(metadata.get("exit"), int) else None
    if status == "completed":
        output = state.get("output")
        text = output if isinstance(output, str) else content_text(output)
        is_error = exit_code is not None and exit_code != 0
    else:
        text = str(state.get("error") or "")
        is_error = True
    reading.events.append(
        Event("tool_result", locator, role="tool", text=text, tool_name=part.get("tool"),
              call_id=call_id, is_error=is_error, exit_code=exit_code,
              timestamp=parse_timestamp(times.get("end")) or common["timestamp"], turn=common["turn"])
    )
