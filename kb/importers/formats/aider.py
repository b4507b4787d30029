"""Aider chat histories (``.aider.chat.history.md``, appended across runs). Format facts:
FORMATS.md. Aider writes no ids, so every event is located by its line range.

- ``# aider chat started at YYYY-MM-DD HH:MM:SS`` → a ``heading`` (level 1) with that naive
  local time as ``timestamp``; later events of the run carry it as ``section``.
- Consecutive ``#### `` lines → one ``user`` text event. ``#### /run CMD``, ``#### /test CMD``
  and ``#### !CMD`` also give a ``tool_call`` (tool ``shell``, input ``{"command": CMD}``)
  answered by the ``> `` block that follows.
- A block of ``> `` lines is tool output. Inside it, ``Running CMD`` (aider running a command
  the assistant suggested) starts a ``tool_call`` whose ``tool_result`` is the rest of the
  block up to the next ``Running``; other quoted output (banner, token counts, applied
  edits) is a ``tool_result`` with tool ``aider`` and no call.
- Anything else is the assistant's reply (plain Markdown, code fences kept; lines inside a
  fence are never taken for user input or output).
"""

from __future__ import annotations

import re
from datetime import datetime

from kb.importers.events import Event, Locator
from kb.importers.formats._common import Reading, iter_lines

_RUN_HEADING = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})")
_USER_COMMAND = re.compile(r"^(?:/run|/test)\s+(.+)$|^!\s*(.+)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def read(reading: Reading) -> None:
    """Fill ``reading`` from an Aider chat history."""
    state = _State(reading)
    for lineno, raw in iter_lines(reading):
        line = raw.rstrip()
        if state.kind == "assistant" and state.in_fence:
            state.add(lineno, line)
            if _FENCE.match(line):
                state.in_fence = False
            continue
        run = _RUN_HEADING.match(line)
        if run:
            state.flush()
            state.section = line[2:].strip()
            reading.events.append(
                Event("heading", Locator(reading.name, line_start=lineno, line_end=lineno),
                      text=state.section, level=1, section=state.section,
                      timestamp=datetime.strptime(run.group(1), "%Y-%m-%d %H:%M:%S"))
            )
        elif line.startswith("#### ") or line == "####":
            state.switch("user", lineno, line[5:])
        elif line.startswith(">"):
            state.switch("quote", lineno, line[2:] if line.startswith("> ") else line[1:])
        elif not line.strip():
            if state.kind in ("user", "quote"):
                state.flush()
            elif state.kind == "assistant":
                state.add(lineno, line)
        else:
            state.switch("assistant", lineno, line)
            if _FENCE.match(line):
                state.in_fence = not state.in_fence
    state.flush()


class _State:
    """The block being collected (user input, quoted output or assistant reply)."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.kind: str | None = None
        self.lines: list[tuple[int, str]] = []
        self.section: str | None = None
        self.in_fence = False
        self.pending: Event | None = None  # a /run call waiting for its output
        self.turn = 0

    def switch(self, kind: str, lineno: int, text: str) -> None:
        if self.kind != kind:
            self.flush()
            self.kind = kind
        self.add(lineno, text)

    def add(self, lineno: int, text: str) -> None:
        self.lines.append((lineno, text))

    def locator(self, lines: list[tuple[int, str]]) -> Locator:
        return Locator(self.reading.name, line_start=lines[0][0], line_end=lines[-1][0])

    def flush(self) -> None:
        kind, lines = self.kind, self.lines
        while lines and not lines[-1][1].strip():
            lines = lines[:-1]
        self.kind, self.lines, self.in_fence = None, [], False
        if not lines:
            return
        self.turn += 1
        events = self.reading.events
        common = {"section": self.section, "turn": self.turn}
        text = "\n".join(t for _, t in lines)
        if kind == "user":
            events.append(Event("text", self.locator(lines), role="user", text=text, **common))
            command = _USER_COMMAND.match(text.strip())
            if command:
                cmd = (command.group(1) or command.group(2)).strip()
                call = Event("tool_call", self.locator(lines), role="user", tool_name="shell",
                             tool_input={"command": cmd}, call_id=f"line-{lines[0][0]}", **common)
                events.append(call)
                self.pending = call
            return
        if kind == "assistant":
            self.pending = None
            events.append(Event("text", self.locator(lines), role="assistant", text=text, **common))
            return
        self._quote(lines, common)

    def _quote(self, lines: list[tuple[int, str]], common: dict) -> None:
        events = self.reading.events
        call, self.pending = self.pending, None
        segment: list[tuple[int, str]] = []

        def close() -> None:
            body = segment
            if not body:
                return
            text = "\n".join(t for _, t in body)
            events.append(Event("tool_result", self.locator(body), role="tool", text=text,
                                tool_name=None if call else "aider",
                                call_id=call.call_id if call else None, **common))

        for lineno, text in lines:
            if text.startswith("Running "):
                close()
                segment = []
                call = Event("tool_call", self.locator([(lineno, text)]), role="assistant",
                             tool_name="shell", tool_input={"command": text[8:].strip()},
                             call_id=f"line-{lineno}", **common)
                events.append(call)
                continue
            segment.append((lineno, text))
        close()
