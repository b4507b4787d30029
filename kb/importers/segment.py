"""Stage 1 of import, *segment*: a read :class:`~kb.importers.events.Session` as structural segments.

Every format's reader (``formats/``) gives events; this module turns them into the few shapes an
attempt can be made of, by structure alone (no words are looked at):

- ``run``: a command with its output and exit status: a shell tool call and its result in a
  transcript; in a document, a fenced block of a shell session (prompts), or a block of commands
  followed by the block of their output; in a raw capture, each prompt's command;
- ``output``: a fenced block (or a whole result file, or a capture without prompts) with no
  command of its own;
- ``table``: a Markdown table;
- ``note``: a paragraph, a list item (with its nesting depth and task state), a chat message;
- ``heading``: a section boundary; every segment carries the path of headings above it;
- ``edit``: a transcript's file edit (what changed before the next run).

Each segment has an ``ordinal`` (its position), a :class:`~kb.importers.events.Locator`, a
``when`` (its own timestamp, else the nearest dated heading above it), and for runs the notes
that narrate it (``narration``: the assistant's texts since the previous run in a transcript, the
note just above in a document).
"""

from __future__ import annotations

import datetime as dt
import json
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from kb.importers.events import Event, Locator, Session, Table
from kb.importers.formats import console
from kb.importers.read import commands as shell
from kb.importers.read import labels, prose

DOCUMENT_FORMATS = ("markdown",)
"""Formats read as documents (headings, tables, lists, blocks), not as chats."""

RESULT_FORMATS = ("vllm-bench", "sglang-bench", "llama-bench", "text", "csv")
"""Formats that are one tool output (a result file, a raw console capture)."""


@dataclass
class Segment:
    """One structural piece of a log (see the module docstring).

    ``text``: a note's text, a heading's title, an output's text, a table's source. ``command``,
    ``output``, ``exit_code``, ``is_error``: a run's. ``output_at``: the 1-based line in the file
    where the output's first line is, when the output is located by lines (documents), so that a
    reader's line number maps to the file. ``path``: the titles of the headings above, outermost
    first. ``table``: a table's rows. ``attrs``: ``language``, ``depth`` and ``task`` of list items,
    ``description`` and ``tool`` of a tool call, ``file`` of an edit, ``level`` of a heading.
    ``key``: the source's own id of the event (a Claude uuid, a call id), when it has one.
    """

    kind: str
    locator: Locator
    ordinal: int = 0
    text: str = ""
    command: str | None = None
    output: str | None = None
    output_locator: Locator | None = None
    output_at: int | None = None
    exit_code: int | None = None
    is_error: bool | None = None
    role: str | None = None
    path: tuple[str, ...] = ()
    when: dt.datetime | None = None
    table: Table | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    narration: list[Segment] = field(default_factory=list)
    key: str | None = None

    @property
    def first_line(self) -> int | None:
        """The segment's first line in the file (``None`` for id-located events)."""
        return self.locator.line if self.locator.line is not None else self.locator.line_start


def command_of(event: Event) -> str | None:
    """The shell command of a tool call: its input's ``command`` or ``cmd`` (a string, or an argv
    list; ``bash -lc SCRIPT`` gives the script), or a plain-string input. ``None`` for a tool call
    that runs no command (a file edit, a search)."""
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
        if len(parts) >= 3 and console.is_shell(parts[0]) and parts[1] in ("-lc", "-c"):
            return parts[2]
        return shlex.join(parts)
    return command if isinstance(command, str) and command.strip() else None


def edited_file(event: Event) -> str | None:
    """The file a tool call edits (its input's ``file_path``, ``path`` or ``filePath``), or ``None``."""
    data = event.tool_input
    if not isinstance(data, dict) or command_of(event) is not None:
        return None
    path = data.get("file_path") or data.get("path") or data.get("filePath")
    return path if isinstance(path, str) and path else None


def segments(windows: Iterable[Session]) -> Iterator[Segment]:
    """The segments of a log read as consecutive windows (:func:`kb.importers.sessions.iter_windows`),
    in order, numbered from 0."""
    ordinal = 0
    state = _ChatState()
    for window in windows:
        if window.format in DOCUMENT_FORMATS:
            produced: Iterable[Segment] = _measure_lists(_folded(_document(window)))
        elif window.format in RESULT_FORMATS:
            produced = _capture(window)
        else:
            produced = state.feed(window)
        for segment in produced:
            segment.ordinal = ordinal
            ordinal += 1
            yield segment


# --------------------------------------------------------------------------- transcripts


_NO_IDS = ("aider", "specstory", "claude-export")
"""Transcript formats that keep no ids of their own (their readers number calls by line)."""


class _ChatState:
    """What a transcript carries from one window to the next: the narration since the last run."""

    def __init__(self) -> None:
        self.narration: list[Segment] = []
        self.last_user: Segment | None = None
        self.started: dt.datetime | None = None  # an Aider run's "chat started at" time

    def feed(self, session: Session) -> Iterator[Segment]:
        ids = session.format not in _NO_IDS  # formats whose events carry the source's own ids
        for event in session.events:
            if event.kind == "heading" and event.timestamp is not None:
                self.started = event.timestamp
                continue
            if event.kind == "text" and event.role in ("assistant", "user") and event.text.strip():
                note = Segment("note", event.locator, text=event.text, role=event.role, when=event.timestamp,
                               key=event.locator.uuid, attrs=dict(event.attrs))
                if event.role == "user":
                    self.last_user = note
                    self.narration = []
                else:
                    self.narration.append(note)
                yield note
                continue
            if event.kind != "tool_call":
                continue
            result = session.result_for(event)
            command = command_of(event)
            if command is None:
                path = edited_file(event)
                if path:
                    yield Segment("edit", event.locator, text=path, when=event.timestamp, attrs={"file": path})
                continue
            output = result.text if result is not None else None
            description = event.tool_input.get("description") if isinstance(event.tool_input, dict) else None
            narration = self.narration or ([self.last_user] if self.last_user is not None else [])
            yield Segment("run", event.locator, command=command, output=output,
                          output_locator=result.locator if result is not None else None,
                          exit_code=result.exit_code if result is not None else None,
                          is_error=result.is_error if result is not None else None,
                          role="assistant", when=event.timestamp or (result.timestamp if result is not None else None)
                          or self.started,
                          narration=list(narration), key=(event.locator.uuid or event.call_id) if ids else None,
                          attrs={"tool": event.tool_name, "description": description if isinstance(description, str)
                                 else None})
            self.narration = []


# --------------------------------------------------------------------------- documents


def _document(session: Session) -> Iterator[Segment]:
    """A Markdown document's segments: headings give the path and the date; a block of commands
    followed by a block without a shell language becomes one run."""
    path: list[tuple[int, str, dt.datetime | None]] = []
    events = session.events
    held: Segment | None = None  # a block of commands waiting for the block of its output
    last_note: Segment | None = None
    items: list[Event] = []  # the list items enclosing the current one, outermost first
    lead: Event | None = None  # the paragraph just before the current list
    list_at: int | None = None  # the line of the current list's first item
    quiet: Segment | None = None  # a run just above whose output printed no figure
    for event in _with_result_runs(events):
        if event.kind != "text" or not event.text.strip():
            quiet = None  # only the paragraph right after the run's block gives its result
        if event.kind != "list_item" and not (event.kind == "text" and event.text.strip()):
            items, lead, list_at = [], None, None  # a heading, a table or a block ends the list and its lead
        if event.kind == "heading":
            if held is not None:
                yield _unheld(held)
                held = None
            level = event.level or 1
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, event.text, event.timestamp))
            last_note = None
            yield Segment("heading", event.locator, text=event.text, path=tuple(p[1] for p in path[:-1]),
                          when=_dated(path), attrs={"level": level})
            continue
        titles = tuple(p[1] for p in path)
        when = _dated(path)
        if event.kind == "code":
            language = str(event.attrs.get("language") or "")
            content_at = (event.locator.line_start or 1) + (1 if event.attrs.get("fenced", True) else 0)
            if held is not None and not console.is_shell(language) and event.text.strip():
                held.output, held.output_locator, held.output_at = event.text, event.locator, content_at
                held.locator = Locator(event.locator.file, line_start=held.locator.line_start,
                                       line_end=event.locator.line_end)
                yield held
                held = None
                continue
            if held is not None:
                yield _unheld(held)
                held = None
            steps = console.split(event.text)
            if any(step.command for step in steps) and any(step.output.strip() for step in steps):
                for step in steps:
                    if step.command is None:
                        if step.output.strip():
                            yield _output(event, step.output, content_at + step.first - 1, content_at + step.last - 1,
                                          titles, when, language)
                        continue
                    first, last = content_at + step.first - 1, content_at + step.last - 1
                    run = Segment("run", Locator(event.locator.file, line_start=first, line_end=last),
                                  command=step.command, output=step.output, output_at=content_at + step.output_first - 1,
                                  path=titles, when=when, narration=[last_note] if last_note else [],
                                  attrs={"language": language})
                    quiet = None if prose.figures(step.output) and not shell.starts_server(step.command) else run
                    # (a server's start-up log, its load times aside, prints no result either)
                    yield run
                continue
            commands = console.commands_only(event.text) if console.is_shell(language) or not language else []
            if commands and (console.is_shell(language) or all(console.prompt_command(ln) for ln in
                                                               event.text.splitlines() if ln.strip())):
                held = Segment("run", event.locator, command="\n".join(commands), path=titles, when=when,
                               narration=[last_note] if last_note else [], attrs={"language": language})
                continue
            if language.lower() in SOURCE_LANGUAGES:
                last_note = None
                continue  # a configuration file or a program's source shown in the log: no output
            yield _output(event, event.text, content_at, event.locator.line_end or content_at, titles, when, language,
                          [last_note] if last_note else [])
            last_note = None
            continue
        if held is not None and event.kind == "text" and held.path == titles and not _introduces_output(event.text) \
                and prose.figures(event.text):
            attrs = {**event.attrs, "item": False, "ran": held.command}  # the result of the command just above
            note = Segment("note", event.locator, text=event.text, path=titles, when=when, attrs=attrs)
            held, last_note = None, note
            yield note
            continue
        if quiet is not None and held is None and event.kind == "text" and quiet.path == titles and \
                prose.figures(event.text):  # (its figures make it a result even where it leads into a block)
            attrs = {**event.attrs, "item": False, "ran": quiet.command}  # what the run above printed no figure of
            note = Segment("note", event.locator, text=event.text, path=titles, when=when, attrs=attrs)
            quiet, last_note = None, note
            yield note
            continue
        if event.kind == "text" and event.text.strip():
            quiet = None  # a paragraph without figures came first: what follows it is no longer the run's result
        if held is not None and held.attrs.get("paragraph") is None and event.kind == "text" and \
                _introduces_output(event.text):
            yield Segment("note", event.locator, text=event.text, path=titles, when=when, attrs={**event.attrs, "item": False})
            continue  # "It stops with:" between a command block and its output: the command still waits for it
        if held is not None:
            yield _unheld(held)
            held = None
        if event.kind == "table":
            last_note = None
            yield Segment("table", event.locator, text=event.text, table=event.table, path=titles, when=when)
        elif event.kind == "text" and event.locator.line_start is not None and \
                (results := _result_lines(event.text, sentences=bool(event.attrs.get("result_run")))):
            first = event.locator.line_start
            for offset, line in results:
                note = Segment("note", Locator(event.locator.file, line_start=first + offset, line_end=first + offset),
                               text=line, path=titles, when=when, attrs={**event.attrs, "item": False, "result_line": True})
                last_note = note
                yield note
            items, lead, list_at = [], event, None
        elif event.kind == "text" and _pasted_output(event.text):
            first = event.locator.line_start or 1
            yield _output(event, event.text, first, event.locator.line_end or first, titles, when, "",
                          [last_note] if last_note else [])
            last_note = None
        elif event.kind == "text" and shell.looks_like_command(event.text):
            held = Segment("run", event.locator, command=" ".join(shell.commands_only_text(event.text)),
                           path=titles, when=when, narration=[last_note] if last_note else [],
                           attrs={"language": "", "paragraph": event.text})
        elif event.kind in ("text", "list_item") and event.text.strip():
            attrs = {**event.attrs, "item": event.kind == "list_item"}
            if event.kind == "list_item":
                depth = int(event.attrs.get("depth", 0))
                del items[depth:]
                if items:
                    attrs["parent"] = items[0].text
                    attrs["parent_at"] = items[0].locator.line_start
                list_at = list_at if list_at is not None else event.locator.line_start
                attrs["list_at"] = list_at
                if lead is not None:
                    attrs["lead"] = lead.text
                items.append(event)
            else:
                items, lead, list_at = [], event, None
            note = Segment("note", event.locator, text=event.text, path=titles, when=when, attrs=attrs)
            last_note = note
            yield note
    if held is not None:
        yield _unheld(held)


def _folded(produced: Iterable[Segment]) -> Iterator[Segment]:
    """``produced`` with each list item whose sub-items are all ``name: value`` lines of distinct
    measures (:func:`kb.importers.read.prose.metric_line`) folded into one note: the sub-items are
    the figures of the item's run (``run1`` with its latency and throughputs), not runs of their
    own. Sub-items that repeat a measure (``bs=1: 40 tok/s``, ``bs=8: 200 tok/s``) are the points
    of one sweep when the item shows the command that ran (``attrs["sweep"]``), and tries of their
    own otherwise."""
    pending: list[Segment] = []  # an item, then its direct sub-items so far
    for segment in produced:
        depth = segment.attrs.get("depth") if segment.kind == "note" and segment.attrs.get("item") else None
        if pending and depth == int(pending[0].attrs.get("depth", 0)) + 1 and prose.metric_line(segment.text):
            pending.append(segment)
            continue
        yield from _fold(pending)
        pending = [segment] if depth is not None else []
        if depth is None:
            yield segment
    yield from _fold(pending)


MEASURE_ITEMS = 2
"""Figures of different measures, one an item, that make a list of ``name: value`` items one run's summary."""


def _measure_lists(produced: Iterable[Segment]) -> Iterator[Segment]:
    """``produced`` with each list of :data:`MEASURE_ITEMS` or more sibling items that are all
    ``name: value`` lines of distinct measures (``- Output tok/s: 4287.6``, ``- TTFT (ms): 45.2``)
    folded into one note: a run's summary pasted as a list, one run, not one try an item."""
    run: list[Segment] = []

    def flush() -> Iterator[Segment]:
        names = [f.name for s in run for f in prose.figures(s.text)]
        if len(names) >= MEASURE_ITEMS and len(names) == len(set(names)):
            first, last = run[0], run[-1].locator
            locator = Locator(first.locator.file, line_start=first.locator.line_start,
                              line_end=last.line_end or last.line_start)
            yield Segment("note", locator, text="; ".join(s.text.strip() for s in run), path=first.path,
                          when=first.when, attrs={**first.attrs, "folded": len(run)})
        else:
            yield from run
        run.clear()

    for segment in produced:
        item = segment.kind == "note" and segment.attrs.get("item") and not segment.attrs.get("folded")
        if item and prose.metric_line(segment.text) and (not run or (
                segment.attrs.get("depth") == run[-1].attrs.get("depth") and segment.path == run[-1].path
                and (segment.locator.line_start or 0) == (run[-1].locator.line_end or run[-1].locator.line_start or 0) + 1)):
            run.append(segment)
            continue
        yield from flush()
        if item and prose.metric_line(segment.text):
            run.append(segment)
            continue
        yield segment
    yield from flush()


def _fold(pending: list[Segment]) -> list[Segment]:
    if len(pending) < 3:  # an item and a single sub-item: the sub-item may be a result of its own
        return pending
    item, subs = pending[0], pending[1:]
    names = [f.name for s in pending for f in prose.figures(s.text)]
    sweep = False
    if not names:
        return pending
    if len(names) != len(set(names)):
        # one command whose output the sub-items list point by point ("bs=1: 40 tok/s", "bs=8: ..."):
        # a sweep, one run; without a command the sub-items are tries of their own
        ran = any(shell.looks_like_command(span) for span in prose.code_spans(item.text))
        if not ran or prose.figures(item.text) or len({f.name for s in subs for f in prose.figures(s.text)}) != 1:
            return pending
        sweep = True
    text = "; ".join([item.text.rstrip(), *(s.text.strip() for s in subs)])  # one clause per sub-item
    end = subs[-1].locator
    locator = Locator(item.locator.file, line_start=item.locator.line_start, line_end=end.line_end or end.line_start)
    return [Segment("note", locator, text=text, path=item.path, when=item.when,
                    attrs={**item.attrs, "folded": len(subs), "sweep": sweep})]


SOURCE_LANGUAGES = frozenset({"yaml", "yml", "toml", "ini", "cfg", "conf", "dockerfile", "makefile", "cmake", "python",
                              "py", "c", "cpp", "c++", "cu", "cuda", "rust", "go", "javascript", "js", "typescript",
                              "ts", "java", "diff", "patch", "sql", "html", "css", "jinja", "hcl", "nix"})
"""Fence languages (GitHub Linguist names) of configuration files and program source: such a block
shows what was written, not what a run printed."""

PASTED_LINES = 3
"""A paragraph of at least this many lines, each a ``name: value`` line, is a program's output
pasted without a fence (a script's summary of a run), read as an output."""


def _pasted_output(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) >= PASTED_LINES and all(prose.metric_line(line) for line in lines) and \
        any(prose.figures(line) or any(ch.isdigit() for ch in line.partition(":")[2]) for line in lines)


def _with_result_runs(events: Iterable[Event]) -> Iterator[Event]:
    """``events`` with each paragraph that holds a run of result lines inside its prose split in
    three (the prose before, the lines, the prose after): see :func:`_result_run`. The lines'
    paragraph is marked ``attrs["result_run"]``."""
    for event in events:
        start = event.locator.line_start
        found = _result_run(event.text) if event.kind == "text" else None
        if found is None or start is None:
            yield event
            continue
        lines = event.text.splitlines()
        first, last = found
        for begin, end, marked in ((0, first, False), (first, last, True), (last, len(lines), False)):
            part = "\n".join(lines[begin:end])
            if part.strip():
                yield replace(event, text=part, locator=Locator(event.locator.file, line_start=start + begin,
                                                                line_end=start + end - 1),
                              attrs={**event.attrs, "result_run": True} if marked else event.attrs)


RESULT_LABEL_WORDS = 4
"""At most this many words before the colon that opens a result line inside prose (``Ollama
0.5.4:``)."""


def _result_run(text: str) -> tuple[int, int] | None:
    """``(first, end)`` line offsets of the result lines a prose paragraph holds, or ``None``. They
    are two or more lines in a row, each opening with a short label and a colon (at most
    :data:`RESULT_LABEL_WORDS` words), quoting figures after it, and each ending where its
    sentence does or running on into the next such line; the line before them ends a sentence.
    Such lines (``v1: prompt 1893 tokens/s, eval 68.2 tokens/s.`` once a line) are results written
    one a line in a paragraph that also tells what was done; a paragraph of result lines only is
    read by :func:`_result_lines`."""
    lines = text.splitlines()
    if len(lines) < 3 or _result_lines(text):
        return None  # (a paragraph of result lines only is read whole)

    def opens(line: str) -> bool:
        plain = prose.plain(line).strip()
        label, colon, _ = plain.partition(":")
        quoted = prose.figures(plain)
        return bool(colon) and bool(label.strip()) and len(label.split()) <= RESULT_LABEL_WORDS and \
            any(ch.isalpha() for ch in label) and bool(quoted) and quoted[0].start > len(label)

    for first in range(len(lines)):
        if not opens(lines[first]) or (first and not prose.plain(lines[first - 1]).rstrip().endswith((".", ":", "!", "?"))):
            continue
        end = first
        while end < len(lines) and opens(lines[end]):
            end += 1
        if end - first >= 2 and (first or end < len(lines)) and \
                _result_lines("\n".join(lines[first:end]), sentences=True):
            return first, end
    return None


def _result_lines(text: str, sentences: bool = False) -> list[tuple[int, str]]:
    """The lines of a paragraph that writes one result a line, each line with its offset in the
    paragraph; ``[]`` for any other paragraph. Such a paragraph (``Backend A [ prompt: 448 t/s |
    generation: 28.7 t/s ]`` over two or more lines) is a list written without bullets: every line
    quotes figures after a label of its own, all lines share a measure (one figure name at least),
    and no line ends a sentence, as a prose paragraph wrapped over lines does. Lines of different
    measures (``Throughput: 41 tok/s`` over ``TTFT: 45 ms``) are one run's figures, and lines that
    differ in their digits only (``[0005] done (9.27 tokens/sec)``) one program's output, unless
    versions set them apart (:func:`_versions_apart`): neither is a list of results. With
    ``sentences``, lines may end in full stops (lines :func:`_result_run` took out of prose)."""
    lines = [(offset, line) for offset, line in enumerate(text.splitlines()) if line.strip()]
    if len(lines) < 2 or (not sentences and any(prose.plain(line).rstrip().endswith((".", "!", "?")) for _, line in lines)):
        return []
    shared: set[str] | None = None
    heads = []
    for _, line in lines:
        quoted = prose.figures(line)
        if not quoted or not any(ch.isalpha() for ch in prose.plain(line[:quoted[0].start])):
            return []
        heads.append(prose.plain(line[:quoted[0].start]).split())
        names = {fig.name for fig in quoted}
        shared = names if shared is None else shared & names
        if not shared:
            return []
    if len({"".join(ch for ch in line if not ch.isdigit()) for _, line in lines}) == 1 and not _versions_apart(heads):
        return []  # one line of a program printed again and again, its numbers changed: one run's output
    return lines


def _versions_apart(heads: list[list[str]]) -> bool:
    """Whether lines that differ in their digits only are set apart, before their figures, by
    versions (``Ollama 0.4.7`` over ``Ollama 0.5.4``): configurations a person tried, not the
    counter or id a program prints on each line (``[0005]``, ``worker 2``); names that join
    letters and digits (``FP16`` over ``FP8``) set them apart as versions do."""
    if len({len(words) for words in heads}) != 1:
        return False
    apart = [column for column in zip(*heads) if len(set(column)) > 1]
    return bool(apart) and all(all(prose.is_version(word) for word in column) or
                               (all(labels.configuration_word(word) for word in column) and not labels.counting(list(column)))
                               for column in apart)


INTRODUCTION_WORDS = 40
"""A paragraph of at most this many words that ends with a colon introduces the block after it."""


def _introduces_output(text: str) -> bool:
    """Whether a paragraph only leads into the block after it (``It stops with:``, ``The
    statistics:``): short, and ending with a colon."""
    stripped = prose.plain(text)  # "**Error:**" introduces as "Error:" does
    return stripped.endswith(":") and len(stripped.split()) <= INTRODUCTION_WORDS


def _unheld(held: Segment) -> Segment:
    """A command that no output followed: a command block is a run without output; a paragraph
    that read as a command is a note again."""
    paragraph = held.attrs.get("paragraph")
    if paragraph is None:
        return held
    return Segment("note", held.locator, text=paragraph, path=held.path, when=held.when, attrs={"item": False})


def _output(event: Event, text: str, first: int, last: int, titles: tuple[str, ...], when: dt.datetime | None,
            language: str, narration: list[Segment] | None = None) -> Segment:
    """An output block of no command; ``narration``: the note just above it (``Model: `x```)."""
    return Segment("output", Locator(event.locator.file, line_start=first, line_end=max(first, last)), text=text,
                   output=text, output_at=first, path=titles, when=when, attrs={"language": language},
                   narration=narration or [])


def _dated(path: list[tuple[int, str, dt.datetime | None]]) -> dt.datetime | None:
    for _, _, when in reversed(path):
        if when is not None:
            return when
    return None


# --------------------------------------------------------------------------- captures and result files


def _capture(session: Session) -> Iterator[Segment]:
    """A result file or a raw console capture: each prompt's command with its output is a run; a
    capture without prompts (or a result file) is one output."""
    for event in session.events:
        if event.kind == "table":
            yield Segment("table", event.locator, text=event.text, table=event.table, when=event.timestamp)
            continue
        start = event.locator.line_start or 1
        steps = console.split(event.text) if session.format == "text" else [console.Step(None, event.text, 1, 1, 1)]
        for step in steps:
            if step.command is None:
                if step.output.strip():
                    first = start + step.first - 1
                    last = event.locator.line_end or first if len(steps) == 1 else start + step.last - 1
                    yield Segment("output", Locator(event.locator.file, line_start=first, line_end=max(first, last)),
                                  text=step.output, output=step.output, output_at=first, when=event.timestamp)
                continue
            first, last = start + step.first - 1, start + step.last - 1
            yield Segment("run", Locator(event.locator.file, line_start=first, line_end=last), command=step.command,
                          output=step.output, output_at=start + step.output_first - 1, when=event.timestamp)
