"""Read any session log of FORMATS.md into one :class:`~kb.importers.events.Session`.

``read_session(path)`` detects the format (:func:`detect_format`), streams the file through
the format's reader (``kb/importers/formats/<format>.py``), links tool calls with their
results and returns the session with its warnings. :func:`iter_windows` reads the same log
as a series of windows (sessions of a few hundred events each) so that a long transcript is
imported in bounded memory. This is step 1 of import: no attempts are extracted here.

Choices common to all formats:

- JSONL formats are streamed line by line (a 1 GB transcript is never read whole); the
  single-document JSON formats (opencode export, old Gemini) and Markdown formats are
  parsed whole, as their parsers need.
- Memory bounds (see ``kb/importers/formats/_common.py``): Claude Code and Codex JSONL
  (:data:`STREAMED_FORMATS`) have no size limit; :func:`iter_windows` hands their events on
  window by window, and a line over ``MAX_LINE_BYTES`` (32 MiB) is skipped with a warning.
  Every other format is held whole and refused above ``MAX_DOCUMENT_BYTES`` (64 MiB) with a
  :class:`~kb.importers.events.LogFormatError` naming the format and why (Gemini JSONL
  included: its ``$rewindTo`` and checkpoint lines can drop any earlier message, so it is
  replayed whole). In chat formats (claude, codex, gemini, opencode) an event text over
  64 Ki characters keeps its first 16 Ki and last 48 Ki characters around a marker line
  (``[... N characters omitted by kb import ...]``): the end of a tool output holds the
  error or the benchmark summary. Markdown formats keep their text whole.
- Bytes that are not UTF-8 are replaced by U+FFFD and reported as a warning naming the line
  and the byte offset of the first bad byte (``file:line: not valid UTF-8 at byte offset N;
  ...``): FORMATS.md asks that one bad line never cost the rest of a file.
- A malformed JSON line is skipped with ``file:line: not valid JSON (...)`` (the first 1000
  are listed, the rest counted); an unknown record type is skipped with one warning per type.
- An empty (or all-whitespace) file, a file that cannot be opened, a ``.zst`` file without
  the ``zstandard`` package, and a file of no known format raise
  :class:`~kb.importers.events.LogFormatError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

from kb.importers.events import FORMATS, Event, LogFormatError, Session, link_tool_results
from kb.importers.formats import aider, claude, claude_export, codex, console, gemini, markdown, opencode, results, specstory
from kb.importers.formats._common import (
    MAX_DOCUMENT_BYTES,
    MAX_LINE_BYTES,
    Reading,
    cap_event,
    open_binary,
)
from kb.importers.read import read_output, recognises

HEAD_BYTES = 64 * 1024
"""How much of the start of a file :func:`read_session` shows :func:`detect_format`."""

WINDOW_EVENTS = 512
"""A window of :func:`iter_windows` is closed at the first safe point after this many
events..."""

WINDOW_CHARS = 4 * 2**20
"""... or after this many characters of event text, whichever comes first. A window that
finds no safe point grows to four times either bound, then is closed anyway."""

STREAMED_FORMATS = ("claude", "codex")
"""Formats read as a stream of windows, without a size limit."""

_STREAMERS: dict[str, Callable[[Reading], Iterator[Event]]] = {
    "claude": claude.iter_events,
    "codex": codex.iter_events,
}
_ORDER: dict[str, Callable[[Reading, list[Event]], list[Event]]] = {"claude": claude.order_window}
_CAPPED_FORMATS = {"claude", "codex", "gemini", "opencode"}

_READERS: dict[str, Callable[[Reading], None]] = {
    "claude": claude.read,
    "codex": codex.read,
    "opencode": opencode.read,
    "gemini": gemini.read,
    "aider": aider.read,
    "specstory": specstory.read,
    "markdown": markdown.read,
    "claude-export": claude_export.read,
    "vllm-bench": results.read,
    "sglang-bench": results.read,
    "llama-bench": results.read,
    "text": results.read,
    "csv": results.read,
}

_CLAUDE_TYPES = {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation"}
_CLAUDE_PREAMBLE = {"file-history-snapshot", "queue-operation", "summary"}
"""Claude Code record types that may open a transcript without a session id or uuid."""
_CODEX_TYPES = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".txt")


def detect_format(path: str | Path, head_bytes: bytes) -> str:
    """Name the format (one of :data:`~kb.importers.events.FORMATS`) of the log at ``path``
    from its name and its first bytes ``head_bytes`` (decompressed for ``.zst``; 64 KiB is
    plenty).

    Rules, from the layouts in FORMATS.md: ``.jsonl.zst`` is Codex (the only agent that
    compresses); ``.aider.chat.history.md`` or a ``# aider chat started at`` line is Aider; a
    SpecStory banner, a ``.specstory`` folder or ``_**User**_``-style turn headers is
    SpecStory; other Markdown is ``markdown``. For JSON, the first record decides: ``type`` +
    ``payload`` (or an old ``{id, instructions}`` header) is Codex; a Claude line ``type``
    with ``sessionId``/``uuid``/``summary`` is Claude; ``sessionId`` + ``projectHash`` or a
    ``$set``/``$rewindTo`` line is Gemini; ``{info, messages}`` with ``ses_`` ids is opencode.

    Claude Code transcripts may open with ``file-history-snapshot`` or ``queue-operation``
    records: the first records that are not such preamble decide. Result files: a JSON object
    with ``output_throughput`` and ``total_token_throughput``/``model_id`` is ``vllm-bench``;
    JSONL with ``output_throughput`` and ``input_throughput``/``dataset_name`` is
    ``sglang-bench``; an array with ``avg_ts``/``n_prompt``, or a ``| model | ... | test | t/s |``
    table, is ``llama-bench``; ``● Tool(...)``/``⎿`` lines are Claude Code ``/export`` text.

    Raises :class:`LogFormatError` when the head is empty or matches no format (the message
    names the ``--format`` option and lists the formats).
    """
    path = Path(path)
    name = path.name
    lowered = name.lower()
    if lowered.endswith(".jsonl.zst") or lowered.endswith(".json.zst"):
        return "codex"
    if not head_bytes.strip():
        raise LogFormatError(name, None, "file is empty; nothing to import")
    head = head_bytes.decode("utf-8", errors="replace").lstrip("\ufeff")
    stripped = head.lstrip()
    if stripped.startswith("{"):
        found = _detect_json(head)
        if found:
            return found
    if stripped.startswith("[") and re.search(r'"avg_ts"\s*:', head) and re.search(r'"n_prompt"\s*:', head):
        return "llama-bench"
    first_line = stripped.split("\n", 1)[0]
    if re.match(r"\|\s*model\s*\|", first_line) and re.search(r"\|\s*test\s*\|\s*t/s\s*\|", first_line):
        return "llama-bench"
    if re.search(r"(?m)^╭─+\s*Claude Code\b", head) or (
            re.search(r"(?m)^● \S", head) and re.search(r"(?m)^\s+⎿", head)):
        return "claude-export"
    if lowered.endswith(".csv"):
        return "csv"
    if lowered.endswith(".aider.chat.history.md") or re.search(
        r"(?m)^# aider chat started at \d{4}-", head
    ):
        return "aider"
    if (
        "Generated by SpecStory" in head
        or ".specstory" in path.parts
        or re.search(r"(?m)^_\*\*(User|Agent|Assistant)\b.*\*\*_\s*$", head)
    ):
        return "specstory"
    if (lowered.endswith((".log", ".out")) or (lowered.endswith(".txt") and not _looks_like_markdown(head))) \
            and "\x00" not in head:
        return "text"
    if "\x00" not in head and _raw_tool_output(head):
        return "text"
    if (lowered.endswith(_MARKDOWN_SUFFIXES) or re.search(r"(?m)^#{1,6} \S", head)) and "\x00" not in head:
        return "markdown"
    if "\x00" not in head and "\ufffd" not in head[:4096] and not stripped.startswith(("{", "[")) and \
            not lowered.endswith((".json", ".jsonl")):
        return "text"  # a console capture under any name; JSON kb cannot place is no capture ...
    if stripped.startswith(("{", "[")) and any(run.metrics for run in read_output(head).runs):
        return "text"  # ... unless it is a results file whose keys name figures (a script's own JSON report)
    raise LogFormatError(
        name,
        None,
        "cannot tell the format of this file; force one with --format NAME, e.g. --format claude "
        f"(one of: {', '.join(FORMATS)})",
    )


def _raw_tool_output(head: str) -> bool:
    """Whether a text is a tool's raw output (nccl-tests, a serving benchmark's result block, a
    trtllm-bench report) pasted without fences: a tool reader knows it, and it is no Markdown
    document holding it (no fenced block; not a llama-bench table, which is Markdown)."""
    tool = recognises(head)
    if tool is None or re.search(r"(?m)^\s*(```|~~~)", head):
        return False
    return not (tool == "llama-bench" and re.search(r"(?m)^\s*\|.*\|\s*$", head))


def _looks_like_markdown(head: str) -> bool:
    """Whether a text is a Markdown document rather than a console capture: an ATX heading with
    words (``## Results``; nccl-tests' ``# nThread 1 nGpus 8`` is a comment of its output, and
    ``##### arm 2 #####``, framed on both sides, a script's banner), a table
    rule line (``|---|``) or a fenced block."""
    lines = head.splitlines()[:400]
    headings = [ln for ln in lines if re.match(r"^#{1,6} [A-Za-z]", ln) and not recognises(ln)
                and console.banner(ln) is None]  # "##### run 3: tp=2 #####" is a script's banner
    fences = [ln for ln in lines if re.match(r"^\s*(```|~~~)", ln)]
    rules = [ln for ln in lines if re.match(r"^\s*\|?\s*:?-{3,}:?\s*\|", ln)]
    return bool(fences) or (bool(headings) and (bool(rules) or len(headings) >= 2))


def _detect_json(head: str) -> str | None:
    """The format of a JSON or JSONL head: the first records decide, Claude Code's preamble
    records (``file-history-snapshot``, ``queue-operation``, ``summary``) skipped; benchmark
    result files by their documented keys."""
    if re.search(r'"output_throughput"\s*:', head):
        if re.search(r'"(?:total_token_throughput|model_id|endpoint_type)"\s*:', head):
            return "vllm-bench"
        if re.search(r'"(?:input_throughput|mean_e2e_latency_ms|dataset_name)"\s*:', head):
            return "sglang-bench"
    if re.search(r'"avg_ts"\s*:', head) and re.search(r'"n_prompt"\s*:', head):
        return "llama-bench"  # llama-bench -o jsonl: one test a line
    claude_preamble = False
    for line in head.lstrip().split("\n")[:20]:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            break
        if not isinstance(record, dict):
            break
        rtype = record.get("type")
        if rtype in _CLAUDE_PREAMBLE and "sessionId" not in record and "uuid" not in record:
            claude_preamble = True
            continue
        if rtype in _CODEX_TYPES and "payload" in record:
            return "codex"
        if "id" in record and ("instructions" in record or "git" in record) and "type" not in record:
            return "codex"
        if rtype in _CLAUDE_TYPES and (
            "sessionId" in record or "uuid" in record or rtype == "summary" or "leafUuid" in record
        ):
            return "claude"
        if "$set" in record or "$rewindTo" in record or (
            "sessionId" in record and "projectHash" in record
        ):
            return "gemini"
        if isinstance(record.get("info"), dict) and "messages" in record:
            return "opencode"
        break
    if claude_preamble:
        return "claude"
    # a pretty-printed single document: look at its first keys
    if re.search(r'"sessionId"\s*:', head) and re.search(r'"projectHash"\s*:', head):
        return "gemini"
    if re.search(r'"info"\s*:\s*\{', head) and re.search(r'"id"\s*:\s*"ses_', head):
        return "opencode"
    if re.search(r'"info"\s*:\s*\{', head) and re.search(r'"messages"\s*:', head):
        return "opencode"
    return None


def read_session(path: str | Path, format: str = "auto") -> Session:
    """Read the session log at ``path`` into a :class:`Session`.

    ``format`` is ``"auto"`` (see :func:`detect_format`) or one of
    :data:`~kb.importers.events.FORMATS`. The result holds every event in time order (source
    order where the source has no times), tool calls linked with their results
    (``Session.tool_pairs()``), the file's sha256, and the warnings for everything skipped.
    Every event is held at once (texts capped as the module docstring says); to import a
    long Claude or Codex transcript in bounded memory use :func:`iter_windows`.

    Raises :class:`LogFormatError` for an unknown ``format`` name, a file that cannot be
    opened or decompressed, an empty file, an undetectable format, a JSON document
    (opencode) that does not parse, or a file over ``MAX_DOCUMENT_BYTES`` (64 MiB) in a
    format read whole. Per-line problems are warnings, never errors.
    """
    session: Session | None = None
    for session in iter_windows(path, format, window_events=None):  # noqa: B007 (the last window is what is wanted)
        pass
    assert session is not None  # iter_windows always yields a last window
    return session


def iter_windows(path: str | Path, format: str = "auto", *, window_events: int | None = WINDOW_EVENTS,
                 window_chars: int = WINDOW_CHARS) -> Iterator[Session]:
    """Read the session log at ``path`` as consecutive windows, each a :class:`Session`.

    For Claude and Codex JSONL (:data:`STREAMED_FORMATS`) a window is closed at the first
    *safe point* after ``window_events`` events or ``window_chars`` characters of text: a
    point where every tool call of the window has its result and the next event starts a
    new turn (the lines of one split Claude reply stay together). Calls are linked with
    their results within the window; Claude's sort by timestamp is done per window (lines
    out of order across a window's edge stay in file order). A call still without a result
    when the window reaches four times its bounds is given up on (one warning): a result
    that comes later is not paired with it. Other formats, and ``window_events=None``, give
    one window holding the whole session (what :func:`read_session` returns).

    Each window's ``events`` are its own, numbered from ``first_index`` through the whole
    log. Session fields (``tool_version``, ``session_id``, ``cwd``) are as known when the
    window is closed; ``warnings`` and ``meta`` are the read's own list and dict, complete
    once the last window is out. There is always a last window (it may hold no events), so
    the last window's fields describe the whole log.

    Raises :class:`LogFormatError` as :func:`read_session` does; for a streamed format the
    error can come after some windows were yielded (a corrupt ``.zst`` frame, an empty
    file), so a caller must not act on windows before the last one is out.
    """
    path, format = _resolve(path, format)
    reading = Reading(path=path, format=format)
    sha256 = _sha256(path)
    if format in _STREAMERS:
        reading.max_line_bytes = MAX_LINE_BYTES
        yield from _stream(reading, sha256, window_events, window_chars)
        return
    reading.max_bytes = MAX_DOCUMENT_BYTES
    if not path.name.endswith(".zst"):
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise reading.too_large(size)
    _READERS[format](reading)
    if format in _CAPPED_FORMATS:
        for event in reading.events:
            cap_event(event)
    session = _window(reading, sha256, reading.events, 0)
    link_tool_results(session)
    yield session


def _resolve(path: str | Path, format: str) -> tuple[Path, str]:
    """The path and the format to read it with (detected for ``auto``)."""
    path = Path(path)
    if format != "auto" and format not in _READERS:
        raise LogFormatError(
            path.name, None, f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}"
        )
    if not path.is_file():
        raise LogFormatError(path.name, None, f"no such file: {path}")
    if format == "auto":
        with open_binary(path) as handle:
            head = handle.read(HEAD_BYTES)
        format = detect_format(path, head)
    return path, format


def _sha256(path: Path) -> str:
    """sha256 of the log's content: of the decompressed bytes for ``.zst``, so one log imported
    once plain and once compressed is recognised as the same log (and not drafted twice)."""
    try:
        if path.name.endswith(".zst"):
            digest = hashlib.sha256()
            with open_binary(path) as handle:
                try:
                    for chunk in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(chunk)
                except Exception as exc:  # zstandard raises ZstdError on corrupt frames
                    if type(exc).__name__ == "ZstdError":
                        raise LogFormatError(path.name, None, f"corrupt zstd data: {exc}") from exc
                    raise
            return digest.hexdigest()
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise LogFormatError(path.name, None, f"cannot open: {exc.strerror or exc}") from exc


def _window(reading: Reading, sha256: str, events: list[Event], first_index: int) -> Session:
    return Session(
        path=reading.path,
        format=reading.format,
        sha256=sha256,
        tool_version=reading.tool_version,
        session_id=reading.session_id,
        cwd=reading.cwd,
        events=events,
        warnings=reading.warnings,
        meta=reading.meta,
        first_index=first_index,
    )


def _stream(reading: Reading, sha256: str, max_events: int | None, max_chars: int) -> Iterator[Session]:
    """Cut the reader's event stream into windows at safe points (see :func:`iter_windows`)."""
    order = _ORDER.get(reading.format)
    window: list[Event] = []
    chars = 0
    first_index = 0
    pending: dict[str, Event] = {}  # call id → call still waiting for its result
    early: set[str] = set()  # call ids whose result came before the call
    last_turn: object = None

    def close() -> Session:
        events = order(reading, window) if order is not None else window
        session = _window(reading, sha256, events, first_index)
        link_tool_results(session)
        return session

    for event in _STREAMERS[reading.format](reading):
        cap_event(event)
        if window and max_events is not None and (len(window) >= max_events or chars >= max_chars):
            forced = len(window) >= 4 * max_events or chars >= 4 * max_chars
            if forced or (not pending and (event.turn is None or event.turn != last_turn)):
                if pending:
                    call = next(iter(pending.values()))
                    reading.warn_once(
                        "window", call.locator.line,
                        f"{len(pending)} tool call(s) still without a result {len(window)} events "
                        "later; a result that comes after this point is not paired with its call")
                    pending.clear()
                yield close()
                first_index += len(window)
                window, chars = [], 0
                early.clear()
        window.append(event)
        chars += len(event.text) + len(event.stdout or "") + len(event.stderr or "")
        last_turn = event.turn
        if event.call_id is not None:
            if event.kind == "tool_call":
                if event.call_id in early:
                    early.discard(event.call_id)
                else:
                    pending[event.call_id] = event
            elif event.kind == "tool_result" and pending.pop(event.call_id, None) is None:
                early.add(event.call_id)
    yield close()
