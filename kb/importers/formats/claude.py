"""Claude Code session transcripts (JSONL, one file per session). Format facts: FORMATS.md.

- ``user`` lines: a string content is the person's text; list content holds ``text`` blocks
  and ``tool_result`` blocks (``tool_use_id``, ``content``, ``is_error``), with the shell's
  separate streams in the line's top-level ``toolUseResult`` (``stdout``, ``stderr``,
  ``interrupted``).
- ``assistant`` lines: ``text``, ``thinking`` and ``tool_use`` blocks. One reply may be split
  over several lines sharing ``message.id``: those events share one ``turn``; a block
  repeated on a later line (same tool-use id, or same text) is dropped.
- ``system`` lines become ``system`` text events; ``summary`` lines are not evidence and go to
  ``Session.meta["summaries"]``; ``file-history-snapshot`` and ``queue-operation`` lines are skipped silently; any
  other ``type`` is skipped with one warning per type.
- Lines out of time order are sorted by ``timestamp`` (stable, so lines without one keep
  their place relative to their neighbours in file order); locators keep the file line.
  The sort is per window (:func:`order_window`): when a long transcript is streamed in
  windows (``kb.importers.sessions.iter_windows``), lines are only reordered within their
  window; the warning is given once either way.

:func:`iter_events` streams the events in file order keeping bounded state: the turn numbers
and the dropped-block fingerprints of the last :data:`RECENT_TURNS` message ids only (a reply's
lines are adjacent in practice).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from kb.importers.events import Event, Locator
from kb.importers.formats._common import (
    Reading,
    content_text,
    find_exit_code,
    iter_json_lines,
    parse_timestamp,
)

_SILENT_TYPES = {"file-history-snapshot", "queue-operation"}

RECENT_TURNS = 4096
"""How many recent message ids (and line uuids) the reader remembers to give split replies one
``turn`` and drop repeated blocks; older ones are forgotten (memory stays bounded)."""


def read(reading: Reading) -> None:
    """Fill ``reading`` from a Claude Code JSONL transcript (all of it, sorted as one window)."""
    reading.events.extend(iter_events(reading))
    reading.events = order_window(reading, reading.events)


def iter_events(reading: Reading) -> Iterator[Event]:
    """Stream the events of a Claude Code JSONL transcript in file order (not yet sorted by
    time: see :func:`order_window`). Session fields, ``meta`` and warnings go to ``reading``
    as lines are met."""
    turns: OrderedDict[str, int] = OrderedDict()  # recent turn keys → turn number
    seen_blocks: dict[str, set[Any]] = {}
    next_turn = 0
    for lineno, record in iter_json_lines(reading):
        kind = record.get("type")
        if kind == "summary":
            summary = record.get("summary")
            if isinstance(summary, str):
                reading.meta.setdefault("summaries", []).append(summary)
            continue
        if kind in _SILENT_TYPES:
            continue
        if kind not in ("user", "assistant", "system"):
            reading.warn_once(
                f"type:{kind}", lineno, f"unknown record type {kind!r} skipped (first seen here)"
            )
            continue
        _session_fields(reading, record)
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        turn_key = message_id or record.get("uuid") or f"line:{lineno}"
        if not isinstance(turn_key, str):
            turn_key = f"line:{lineno}"
        turn = turns.get(turn_key)
        if turn is None:
            turn = turns[turn_key] = next_turn
            next_turn += 1
            if len(turns) > RECENT_TURNS:
                forgotten, _ = turns.popitem(last=False)
                seen_blocks.pop(forgotten, None)
        else:
            turns.move_to_end(turn_key)
        base = {
            "timestamp": parse_timestamp(record.get("timestamp")),
            "turn": turn,
        }
        locator = Locator(reading.name, line=lineno, message_id=message_id, uuid=record.get("uuid"))
        attrs: dict[str, Any] = {}
        if record.get("isSidechain"):
            attrs["sidechain"] = True
        if isinstance(message.get("model"), str):
            attrs["model"] = message["model"]
        if kind == "system":
            text = record.get("content") if isinstance(record.get("content"), str) else ""
            text = text or content_text(message.get("content"))
            if text:
                yield Event("text", locator, role="system", text=text, attrs=attrs, **base)
            continue
        content = message.get("content", record.get("content"))
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            reading.warn(lineno, f"{kind} line without message content; skipped")
            continue
        seen = seen_blocks.setdefault(turn_key, set())
        for block in content:
            if not isinstance(block, dict):
                continue
            event = _block_event(reading, record, kind, block, locator, lineno)
            if event is None:
                continue
            if message_id is not None and kind == "assistant":
                # the text's hash, not the text: a fingerprint must not keep a long text alive
                fingerprint = event.call_id or (event.kind, len(event.text), hash(event.text))
                if fingerprint in seen:
                    continue  # the same block written again on a later line of this reply
                seen.add(fingerprint)
            event.attrs.update(attrs)
            event.timestamp = base["timestamp"]
            event.turn = turn
            yield event


def _session_fields(reading: Reading, record: dict[str, Any]) -> None:
    for key, attr in (("sessionId", "session_id"), ("cwd", "cwd"), ("version", "tool_version")):
        value = record.get(key)
        if isinstance(value, str) and getattr(reading, attr) is None:
            setattr(reading, attr, value)
    branch = record.get("gitBranch")
    if isinstance(branch, str) and branch:
        reading.meta.setdefault("git_branch", branch)


def _block_event(
    reading: Reading,
    record: dict[str, Any],
    kind: str,
    block: dict[str, Any],
    locator: Locator,
    lineno: int,
) -> Event | None:
    role = "assistant" if kind == "assistant" else "user"
    btype = block.get("type")
    if btype == "text":
        text = block.get("text") or ""
        return Event("text", locator, role=role, text=text) if text else None
    if btype == "thinking":
        text = block.get("thinking") or ""
        return Event("thinking", locator, role=role, text=text) if text else None
    if btype == "redacted_thinking":
        return None
    if btype == "tool_use":
        tool_input = block.get("input")
        if not isinstance(tool_input, (dict, str)):
            tool_input = None
        return Event(
            "tool_call",
            locator,
            role="assistant",
            tool_name=block.get("name"),
            tool_input=tool_input,
            call_id=block.get("id"),
        )
    if btype == "tool_result":
        text = content_text(block.get("content"))
        event = Event(
            "tool_result",
            locator,
            role="tool",
            text=text,
            call_id=block.get("tool_use_id"),
            is_error=block.get("is_error") if isinstance(block.get("is_error"), bool) else None,
            exit_code=find_exit_code(text),
        )
        extra = record.get("toolUseResult")
        if isinstance(extra, dict):
            if isinstance(extra.get("stdout"), str):
                event.stdout = extra["stdout"]
            if isinstance(extra.get("stderr"), str):
                event.stderr = extra["stderr"]
            if extra.get("interrupted") is True:
                event.attrs["interrupted"] = True
        return event
    if btype in ("image", "document"):
        return None
    reading.warn_once(
        f"block:{btype}", lineno, f"unknown content block type {btype!r} skipped (first seen here)"
    )
    return None


def order_window(reading: Reading, events: list[Event]) -> list[Event]:
    """``events`` (a window of the transcript, or all of it) in time order: a stable sort by
    timestamp where an event without one takes the time of the event before it in file
    order, so it stays next to its neighbours. Warns once per read when lines were out of
    order; naive and aware timestamps mixed keep file order."""
    keyed = []
    last = None
    for position, event in enumerate(events):
        if event.timestamp is not None:
            last = event.timestamp
        keyed.append((last, position, event))
    if any(k[0] is None for k in keyed) and any(k[0] is not None for k in keyed):
        first = next(k[0] for k in keyed if k[0] is not None)
        keyed = [(k[0] or first, k[1], k[2]) for k in keyed]
    try:
        keyed.sort(key=lambda k: (k[0], k[1]) if k[0] is not None else (0, k[1]))
    except TypeError:  # naive and aware timestamps mixed: keep file order
        return events
    if any(k[1] != i for i, k in enumerate(keyed)):
        reading.warn_once("order", None, "lines not in time order; events sorted by timestamp")
        return [k[2] for k in keyed]
    return events
