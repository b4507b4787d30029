"""The one event model every session-log reader produces.

A reader turns a log (Claude Code, Codex CLI, opencode, Gemini CLI, Aider, SpecStory, or a
Markdown notebook; see ``FORMATS.md`` in the shared docs) into a :class:`Session`: a flat,
time-ordered list of :class:`Event` objects, each carrying a :class:`Locator` back to the
exact line (or line range, or message/part id) it came from, plus the :class:`ReadWarning`
list of everything that was skipped.

Tool calls and their results are separate events linked both ways by position in
``Session.events`` (``Event.result`` on the call, ``Event.result_of`` on the result);
:meth:`Session.tool_pairs` iterates them together.

Nothing here interprets content (no attempts, no metrics): that is the next import step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from kb.errors import LogFormatError as KbLogFormatError

EventKind = Literal[
    "text",  # prose: a chat message's text, a Markdown paragraph
    "thinking",  # model reasoning (Claude "thinking", Codex "reasoning", Gemini "thoughts")
    "tool_call",  # the agent asked to run a tool (tool_name, tool_input, call_id)
    "tool_result",  # what came back (text, is_error, exit_code, stdout/stderr, call_id)
    "error",  # an error reported by the agent program itself (API error, quota, ...)
    "heading",  # a Markdown heading; its locator spans the whole section
    "list_item",  # a Markdown list item (its own paragraphs, not its sub-items)
    "table",  # a Markdown table; rows in ``Event.table``
    "code",  # a fenced or indented code block in a Markdown document
]
"""What an :class:`Event` is. Chat formats use text/thinking/tool_call/tool_result/error;
Markdown documents use text/heading/list_item/table/code."""

Role = Literal["user", "assistant", "system", "tool"]
"""Who produced an event in a chat transcript; ``None`` on events of plain documents."""

FORMATS = ("claude", "codex", "opencode", "gemini", "aider", "specstory", "markdown", "claude-export",
           "vllm-bench", "sglang-bench", "llama-bench", "text", "csv")
"""Format names accepted by ``read_session(format=...)`` and returned by ``detect_format``:
agent transcripts, Markdown notebooks, Claude Code ``/export`` text, and benchmark result files
(``vllm bench serve --save-result`` JSON, SGLang ``bench_serving --output-file`` JSONL,
``llama-bench`` JSON or markdown), ``text`` for a raw console capture and ``csv`` for a CSV table."""


class LogFormatError(KbLogFormatError):
    """A session log that cannot be read at all (empty, unknown format, unreadable).

    Problems confined to one line or record are *not* errors: they become
    :class:`ReadWarning` entries and the rest of the file is still read.

    Attributes: ``file`` (display name; also ``path``, as :class:`kb.errors.LogFormatError`
    names it), ``line`` (1-based, or ``None`` when the whole file is concerned), ``message``.
    ``str(error)`` reads ``file:line: message``. A :class:`kb.errors.KbError`, so the CLI
    reports it like any other kb error.
    """

    def __init__(self, file: str, line: int | None, message: str) -> None:
        super().__init__(file, line, message)
        self.file = file


@dataclass(frozen=True)
class Locator:
    """Where an event came from, precise enough for a person to open the file and look.

    ``file`` is the file's name (not its full path: home directories leak user names).
    Line formats (JSONL) set ``line`` (1-based); Markdown formats set ``line_start`` and
    ``line_end`` (1-based, inclusive); JSON documents set ids (``session_id`` for opencode,
    ``message_id``, ``part_id``). ``uuid`` is Claude Code's per-line uuid.

    ``str()`` gives ``claude-campaign.jsonl:9``, ``notebook.md:27-33``,
    ``export.json#msg_01/prt_02``.
    """

    file: str
    line: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    message_id: str | None = None
    part_id: str | None = None
    uuid: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.line_start is not None:
            end = self.line_end if self.line_end is not None else self.line_start
            if end == self.line_start:
                return f"{self.file}:{self.line_start}"
            return f"{self.file}:{self.line_start}-{end}"
        ids = "/".join(i for i in (self.message_id, self.part_id) if i)
        return f"{self.file}#{ids}" if ids else self.file


@dataclass(frozen=True)
class ReadWarning:
    """Something a reader skipped or repaired; ``str()`` reads ``file:line: message``
    (``file: message`` when no line applies)."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True)
class TableRow:
    """One body row of a Markdown table: ``cells`` maps header text → cell text (inline
    Markdown kept as written, e.g. backticks), ``line`` is its 1-based line number."""

    cells: dict[str, str]
    line: int


@dataclass(frozen=True)
class Table:
    """A Markdown table: ``headers`` in column order and body ``rows``. Duplicate or empty
    header cells are made unique as ``column 2``-style names."""

    headers: list[str]
    rows: list[TableRow]
    written_by_program: bool = False
    """A CSV file a script wrote (its loops are in its rows), not a table a person typed."""


@dataclass
class Event:
    """One thing that happened in a session, in the same shape whatever the format.

    Fields (all but ``kind`` and ``locator`` optional):

    - ``role``: ``user`` / ``assistant`` / ``system`` / ``tool`` in chats; ``None`` in documents.
    - ``text``: message text, reasoning, tool output (``tool_result``), paragraph or
      list-item text, heading text, code-block content; ``""`` when none.
    - ``tool_name``, ``tool_input`` (a dict when the source gave structured arguments, else the
      raw string), ``call_id``: on ``tool_call`` and ``tool_result``.
    - ``is_error``: the source's own error flag; failing that, ``exit_code != 0`` for a paired
      result whose exit code is known; ``None`` when nothing says;
      ``exit_code``: a shell exit status when the source states one; ``stdout``/``stderr``:
      the separated streams when the source keeps them (Claude ``toolUseResult``, Codex
      ``exec_command_end``).
    - ``timestamp``: timezone-aware when the source gives an offset (all JSON formats);
      naive for Aider run headings and undated SpecStory values; ``None`` when unknown.
      Markdown headings carry the date of their text (``## 2026-02-19 — ...``).
    - ``turn``: events from one source message share it (Claude replies split over several
      lines with one ``message.id`` get one turn).
    - ``section``: for Markdown events, the text of the innermost enclosing heading.
    - ``level``: heading level (1-6). ``table``: rows of a ``table`` event.
    - ``attrs``: format-specific extras (``model``, ``language`` of a code block,
      ``sidechain``, ``status``, ...).
    - ``index``: position in ``Session.events``; ``result`` (on a call) and ``result_of``
      (on a result) are indexes linking a tool call with its result.
    """

    kind: EventKind
    locator: Locator
    role: Role | None = None
    text: str = ""
    tool_name: str | None = None
    tool_input: dict[str, Any] | str | None = None
    call_id: str | None = None
    is_error: bool | None = None
    exit_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None
    timestamp: datetime | None = None
    turn: int | None = None
    section: str | None = None
    level: int | None = None
    table: Table | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    index: int = -1
    result: int | None = None
    result_of: int | None = None


@dataclass
class Session:
    """One session log, read.

    ``path`` is the file as given; ``format`` one of :data:`FORMATS`; ``sha256`` the hex
    digest of the file's bytes on disk (the compressed bytes for ``.jsonl.zst``);
    ``tool_version`` the agent's version when the log records it (Claude ``version``, Codex
    ``cli_version``, opencode ``info.version``); ``session_id`` and ``cwd`` likewise.
    ``events`` are in time order (source order where there are no timestamps);
    ``warnings`` list what was skipped. ``meta`` holds format extras (Claude ``summaries``,
    Codex ``git`` and ``model``, opencode ``title``, Gemini ``projectHash``, ...), which are
    context, not evidence.

    A session may be one *window* of a longer log streamed by
    :func:`kb.importers.sessions.iter_windows`: then ``events`` holds only that window's events,
    ``first_index`` is the ``index`` of its first event in the whole log (``0`` for a whole
    session), and ``index``/``result``/``result_of`` stay positions in the whole log; the
    lookups below answer ``None`` for an event outside the window.
    """

    path: Path
    format: str
    sha256: str
    tool_version: str | None = None
    session_id: str | None = None
    cwd: str | None = None
    events: list[Event] = field(default_factory=list)
    warnings: list[ReadWarning] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    first_index: int = 0

    def event_at(self, index: int | None) -> Event | None:
        """The event whose ``index`` is ``index``; ``None`` for ``None`` or an index outside
        ``events`` (another window of a streamed log)."""
        if index is None:
            return None
        position = index - self.first_index
        return self.events[position] if 0 <= position < len(self.events) else None

    def tool_pairs(self) -> Iterator[tuple[Event, Event | None]]:
        """Yield ``(call, result)`` for every ``tool_call`` event in order; ``result`` is
        ``None`` when no result came back (the session ended or was killed first)."""
        for event in self.events:
            if event.kind == "tool_call":
                yield event, self.event_at(event.result)

    def result_for(self, call: Event) -> Event | None:
        """The ``tool_result`` event answering ``call``, or ``None``."""
        return self.event_at(call.result)

    def call_for(self, result: Event) -> Event | None:
        """The ``tool_call`` event that ``result`` answers, or ``None``."""
        return self.event_at(result.result_of)

    def turns(self) -> list[list[Event]]:
        """Events grouped by ``turn`` (one group per source message), in order of each
        turn's first event; events without a turn form groups of one."""
        groups: dict[Any, list[Event]] = {}
        for event in self.events:
            key = event.turn if event.turn is not None else ("event", event.index)
            groups.setdefault(key, []).append(event)
        return list(groups.values())


def link_tool_results(session: Session) -> None:
    """Number ``session.events`` (``index``, from ``session.first_index``) and link each
    ``tool_result`` to the ``tool_call`` with the same ``call_id`` (the latest earlier call
    with that id; if the result comes first in time, the first call with that id). A result
    whose call id matches no call gets a warning; it stays in the session unlinked. For a
    window of a streamed log, only calls of the same window are matched."""
    first = session.first_index
    calls: dict[str, int] = {}
    for i, event in enumerate(session.events, first):
        event.index = i
        if event.kind == "tool_call" and event.call_id is not None:
            calls.setdefault(event.call_id, i)
    latest: dict[str, int] = {}
    for i, event in enumerate(session.events, first):
        if event.kind == "tool_call" and event.call_id is not None:
            latest[event.call_id] = i
        elif event.kind == "tool_result" and event.call_id is not None:
            call_index = latest.get(event.call_id, calls.get(event.call_id))
            if call_index is None:
                session.warnings.append(
                    ReadWarning(
                        event.locator.file,
                        event.locator.line or event.locator.line_start,
                        f"tool result for unknown call id {event.call_id!r}; kept unpaired",
                    )
                )
                continue
            if event.is_error is None and event.exit_code is not None:
                event.is_error = event.exit_code != 0
            call = session.events[call_index - first]
            if call.result is None:
                call.result = i
            event.result_of = call_index
            if event.tool_name is None:
                event.tool_name = call.tool_name
