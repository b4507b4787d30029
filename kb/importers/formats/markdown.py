"""Lab notebooks and plan documents in Markdown, parsed with markdown-it-py (CommonMark plus
tables). Format facts: FORMATS.md.

Events, in document order, each located by its 1-based inclusive line range (trailing blank
lines trimmed):

- ``heading``: ``text`` the heading, ``level``; the locator spans the whole section (up to
  the next heading of the same or a higher level); a date ``YYYY-MM-DD`` in the text becomes
  the (naive) ``timestamp``.
- ``text``: a paragraph outside lists (in block quotes too).
- ``list_item``: one per item, ``text`` its own paragraphs (sub-items are their own events);
  ``attrs["depth"]`` its nesting (0 for a top-level item), ``attrs["ordered"]``, and
  ``attrs["task"]`` (``open``/``done``) for a GitHub task-list item, whose ``[ ]`` is dropped.
- ``table``: ``table.headers`` and ``table.rows`` (header → cell, with each row's line);
  ``text`` is the table's source.
- ``code``: fenced or indented code, ``attrs["language"]`` from the fence info; also a paragraph
  that is a tool's output pasted without a fence (a tool reader recognises it), with
  ``attrs["pasted"]``, its lines as written.

Every event's ``section`` is the text of the innermost heading above it.
"""

from __future__ import annotations

import re
from datetime import datetime

from kb.importers.events import Event, Locator, Table, TableRow
from kb.importers.formats._common import Reading, read_text
from kb.importers.read import read_output

_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_TASK = re.compile(r"^\[([ xX])\]\s+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")

MAX_PARAGRAPH_CHARS = 1 << 20
"""Longest line, and longest paragraph, a Markdown document keeps (1 Mi characters): a longer one
is blanked out with a warning before parsing, as the JSONL readers skip an over-long line, so
that one runaway paste neither costs minutes of parsing nor becomes an attempt."""


def read(reading: Reading) -> None:
    """Fill ``reading`` from a Markdown document."""
    from markdown_it import MarkdownIt  # imported here: only Markdown reading needs it

    text = read_text(reading)
    lines = re.split(r"\r\n?|\n", text)  # markdown-it's own line breaks, so token.map fits
    if any(len(line) > MAX_PARAGRAPH_CHARS for line in lines):
        for number, line in enumerate(lines, 1):
            if len(line) > MAX_PARAGRAPH_CHARS:
                reading.warn(number, f"line of {len(line)} characters is over the {MAX_PARAGRAPH_CHARS} character "
                                     "limit for one paragraph; skipped")
                lines[number - 1] = ""
        text = "\n".join(lines)
    pasted = _pasted_outputs(lines)
    for first, last in pasted:  # parsed as Markdown they would become headings, lists, paragraphs
        for number in range(first - 1, last):
            lines[number] = ""
    if pasted:
        text = "\n".join(lines)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    for _ in range(STRAY_FENCES):
        stray = _stray_fence(tokens, lines)
        if stray is None:
            break
        line, unclosed = stray  # read what follows as the Markdown it is, not as code
        reading.warn(line + 1, "this fence is never closed, so it would run to the end of the file over headings and "
                               "text; read as Markdown after it (close the fence to keep a code block)" if unclosed else
                     "this fence opens a block of headings and text, so it pairs with the fence meant to open the next "
                     "block; read as a stray fence (delete it, or give the block a language, to keep it)")
        lines[line] = ""
        text = "\n".join(lines)
        tokens = MarkdownIt("commonmark").enable("table").parse(text)

    def where(start: int, end: int) -> Locator:
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        return Locator(reading.name, line_start=start + 1, line_end=end)

    headings: list[Event] = []
    stack: list[Event] = []
    items: list[Event] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        section = stack[-1].text if stack else None
        if token.type == "heading_open" and token.map:
            level = int(token.tag[1:])
            title = tokens[i + 1].content.strip()
            while stack and (stack[-1].level or 0) >= level:
                stack.pop()
            event = Event("heading", where(*token.map), text=title, level=level,
                          timestamp=_date_of(title), section=title)
            headings.append(event)
            stack.append(event)
            reading.events.append(event)
        elif token.type == "paragraph_open" and token.map and len(tokens[i + 1].content) > MAX_PARAGRAPH_CHARS:
            reading.warn(token.map[0] + 1, f"paragraph of {len(tokens[i + 1].content)} characters is over the "
                                           f"{MAX_PARAGRAPH_CHARS} character limit for one paragraph; skipped")
        elif token.type == "paragraph_open" and token.map:
            content = tokens[i + 1].content
            if items:
                owner = items[-1]
                if not owner.text:
                    task = _TASK.match(content)
                    if task:  # a GitHub task-list item: "[ ] to do", "[x] done"
                        owner.attrs["task"] = "open" if task.group(1) == " " else "done"
                        content = content[task.end():]
                owner.text = f"{owner.text}\n{content}" if owner.text else content
            else:
                reading.events.append(Event("text", where(*token.map), text=content, section=section))
        elif token.type == "list_item_open" and token.map:
            event = Event("list_item", where(*token.map), section=section,
                          attrs={"depth": len(items), "ordered": token.info != "" or token.markup in (".", ")")})
            items.append(event)
            reading.events.append(event)
        elif token.type == "list_item_close":
            items.pop()
        elif token.type in ("fence", "code_block") and token.map:
            attrs: dict = {"language": token.info.strip()} if token.info.strip() else {}
            attrs["fenced"] = token.type == "fence"
            reading.events.append(
                Event("code", where(*token.map), text=token.content, section=section, attrs=attrs)
            )
        elif token.type == "table_open" and token.map:
            i, table = _table(tokens, i)
            start, end = token.map
            reading.events.append(
                Event("table", where(start, end), text="\n".join(lines[start:end]).rstrip(),
                      table=table, section=section)
            )
            continue
        i += 1
    _section_ends(headings, lines, reading.name)
    if pasted:
        original = re.split(r"\r\n?|\n", read_text(reading))
        for first, last in pasted:
            event = Event("code", Locator(reading.name, line_start=first, line_end=last),
                          text="\n".join(original[first - 1:last]) + "\n",
                          attrs={"fenced": False, "pasted": True})
            at = next((i for i, e in enumerate(reading.events) if (e.locator.line_start or 0) > first), len(reading.events))
            reading.events.insert(at, event)
        _sections_of(reading.events)


_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+\S")


STRAY_FENCES = 3
"""At most this many stray fences are taken out of one document before it is read."""


def _stray_fence(tokens: list, lines: list[str]) -> tuple[int, bool] | None:
    """``(0-based line, never closed)`` of the first fence that turns Markdown into code, or
    ``None``. One fence lost or doubled above (an unpaired one shifts every later pair) makes the
    rest of a notebook, headings included, code: CommonMark runs a block never closed to the end of
    the document, and a stray fence after a closed block opens one that the next block's own fence
    closes. Swallowed Markdown: in a block never closed, a heading line of ``##`` or more or one set
    off by a blank line after it (a shell comment ``# install`` sits in a script's lines); in a
    closed block without a language, a heading of ``##`` or more and a line of prose."""
    for token in (t for t in tokens if t.type == "fence" and t.map):
        start, end = token.map
        body = list(lines[start + 1:end])
        while body and not body[-1].strip():
            body.pop()
        closing = body[-1].strip() if body else ""
        closed = bool(closing) and set(closing) == {token.markup[0]} and len(closing) >= len(token.markup)
        if closed:
            body = body[:-1]
            if not token.info.strip() and any(_HEADING.match(ln) and ln.lstrip().startswith("##") for ln in body) and \
                    any(len(ln.split()) >= 6 and not _HEADING.match(ln) for ln in body):
                return start, False
            continue
        for number, line in enumerate(body):
            if _HEADING.match(line) and (line.lstrip().startswith("##") or
                                         (number + 1 < len(body) and not body[number + 1].strip())):
                return start, True
        return None
    return None


def _pasted_outputs(lines: list[str]) -> list[tuple[int, int]]:
    """The 1-based line ranges, outside fenced blocks, of a tool output a reader knows (a serving
    benchmark's result block, an nccl-tests run, a trtllm-bench report) pasted without a fence."""
    outside = list(lines)
    fence: str | None = None
    for number, line in enumerate(lines):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            outside[number] = ""
        elif fence is not None:
            outside[number] = ""
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
    if not any(outside):
        return []
    found = read_output("\n".join(outside), generic=False)
    spans = sorted({run.lines for run in found.runs if run.documented and run.tool != "error"})
    merged: list[tuple[int, int]] = []
    for first, last in spans:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


def _sections_of(events: list[Event]) -> None:
    """Set each event's ``section`` to the innermost heading above it (after pasted outputs were
    put in their places)."""
    stack: list[Event] = []
    for event in events:
        if event.kind == "heading":
            while stack and (stack[-1].level or 0) >= (event.level or 0):
                stack.pop()
            stack.append(event)
            continue
        event.section = stack[-1].text if stack else None


def _date_of(text: str) -> datetime | None:
    match = _DATE.search(text)
    if not match:
        return None
    try:
        return datetime(*(int(g) for g in match.groups()))
    except ValueError:
        return None


def _table(tokens: list, i: int) -> tuple[int, Table]:
    """Read the table starting at ``tokens[i]``; return the index after it and the table."""
    headers: list[str] = []
    rows: list[TableRow] = []
    row: list[str] = []
    row_line = 0
    in_head = False
    while tokens[i].type != "table_close":
        token = tokens[i]
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
            row_line = token.map[0] + 1 if token.map else 0
        elif token.type == "inline":
            row.append(token.content.strip())
        elif token.type == "tr_close":
            if in_head:
                headers = _unique(row)
            else:
                cells = dict(zip(headers, row + [""] * (len(headers) - len(row))))
                rows.append(TableRow(cells=cells, line=row_line))
        i += 1
    return i + 1, Table(headers=headers, rows=rows)


def _unique(names: list[str]) -> list[str]:
    seen: set[str] = set()
    result = []
    for position, name in enumerate(names, 1):
        if not name or name in seen:
            name = f"column {position}"
        seen.add(name)
        result.append(name)
    return result


def _section_ends(headings: list[Event], lines: list[str], name: str) -> None:
    """Stretch each heading's locator over its section."""
    last = len(lines)
    while last > 0 and not lines[last - 1].strip():
        last -= 1
    for position, heading in enumerate(headings):
        end = last
        for later in headings[position + 1:]:
            if (later.level or 0) <= (heading.level or 0):
                end = (later.locator.line_start or 1) - 1
                break
        start = heading.locator.line_start or 1
        while end > start and not lines[end - 1].strip():
            end -= 1
        heading.locator = Locator(name, line_start=start, line_end=end)
