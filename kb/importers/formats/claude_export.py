"""Claude Code ``/export`` text: the conversation as the terminal showed it.

Shape (Claude Code 2.x): an optional banner box (``╭─── Claude Code v2.1.1 ───╮``), the
person's messages as ``> text`` lines, each tool call as ``● Tool(argument)`` (``● Bash(python3
bench.py)``) with its result on the following lines, the first marked ``⎿`` and the rest
indented; an assistant message is a ``●`` line that is no call. A result starting ``Error: Exit
code N`` is a failure with that exit code. There are no ids or timestamps: events are located by
line, and the date comes from nothing (the import date, flagged) unless the file name starts
with ``YYYY-MM-DD`` as ``/export`` names files.
"""

from __future__ import annotations

import re
from datetime import datetime

from kb.importers.events import Event, Locator
from kb.importers.formats._common import Reading, read_text

_CALL = re.compile(r"^●\s+([A-Za-z][\w.-]*)\((.*)\)\s*$")
_RESULT = re.compile(r"^\s*⎿\s?(.*)$")
_EXIT = re.compile(r"^\s*Error:\s*Exit code\s+(-?\d+)\s*$")


def read(reading: Reading) -> None:
    """Fill ``reading`` from ``/export`` text."""
    lines = read_text(reading).splitlines()
    named = re.match(r"(\d{4}-\d{2}-\d{2})", reading.name)
    when = datetime.fromisoformat(named.group(1)) if named else None
    i = 0
    turn = 0
    while i < len(lines):
        line = lines[i]
        call = _CALL.match(line)
        if line.startswith("> "):
            turn += 1
            text, end = _block(lines, i, lambda s: s.startswith("  ") or not s.strip(), strip=2)
            reading.events.append(Event("text", _where(reading, i, end), role="user", text=line[2:] + text,
                                        timestamp=when, turn=turn))
            i = end + 1
        elif call:
            turn += 1
            call_id = f"line-{i + 1}"
            reading.events.append(Event("tool_call", _where(reading, i, i), role="assistant", tool_name=call.group(1),
                                        tool_input={"command": call.group(2)}, call_id=call_id, timestamp=when,
                                        turn=turn))
            if i + 1 < len(lines) and _RESULT.match(lines[i + 1]):
                first = _RESULT.match(lines[i + 1]).group(1)  # type: ignore[union-attr]
                rest, end = _block(lines, i + 1, lambda s: s.startswith("     ") or not s.strip(), strip=5)
                output = (first + rest).strip("\n")
                exit_match = _EXIT.match(first)
                exit_code = int(exit_match.group(1)) if exit_match else None
                reading.events.append(Event("tool_result", _where(reading, i + 1, end), role="tool", text=output,
                                            call_id=call_id, exit_code=exit_code,
                                            is_error=True if exit_code not in (None, 0) else None,
                                            timestamp=when, turn=turn))
                i = end + 1
            else:
                i += 1
        elif line.startswith("● "):
            turn += 1
            text, end = _block(lines, i, lambda s: s.startswith("  ") or not s.strip(), strip=2)
            reading.events.append(Event("text", _where(reading, i, end), role="assistant", text=line[2:] + text,
                                        timestamp=when, turn=turn))
            i = end + 1
        else:
            i += 1


def _block(lines: list[str], start: int, belongs, strip: int) -> tuple[str, int]:
    """The continuation lines after ``lines[start]`` (as ``\\n``-joined text, ``strip``
    characters of indentation removed) and the index of the block's last line."""
    end = start
    parts: list[str] = []
    j = start + 1
    while j < len(lines) and belongs(lines[j]) and not _RESULT.match(lines[j]):
        if lines[j].strip():
            end = j
        parts.append(lines[j][strip:])
        j += 1
    kept = parts[: end - start]
    return ("\n" + "\n".join(kept)) if kept else "", end


def _where(reading: Reading, start: int, end: int) -> Locator:
    return Locator(reading.name, line_start=start + 1, line_end=end + 1)
