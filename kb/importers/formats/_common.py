"""Helpers shared by the format readers: streaming lines, decoding, JSON lines, timestamps,
warnings, and the limits that keep a read in bounded memory (:data:`MAX_LINE_BYTES`,
:data:`MAX_DOCUMENT_BYTES`, :func:`cap_text`). Private to ``kb.importers``."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from kb.importers.events import Event, LogFormatError, ReadWarning

MAX_DECODE_WARNINGS = 20
"""Past this many undecodable lines in one file, further ones are counted, not listed."""

MAX_JSON_WARNINGS = 1000
"""Past this many lines that are not JSON objects, further ones are counted in one closing
warning, not listed one by one (a file of garbage must not fill memory with warnings)."""

MAX_LINE_BYTES = 32 * 2**20
"""Longest line a streamed (JSONL) reader parses; a longer line is skipped with a warning
``line of N bytes is over the 32 MiB limit for one line; skipped`` and never held whole.
Claude Code and Codex cap tool output far below this."""

MAX_DOCUMENT_BYTES = 64 * 2**20
"""Largest file (decompressed) a format that is read whole accepts: opencode exports and old
Gemini documents are one JSON document, Gemini JSONL is replayed whole (``$rewindTo`` and
checkpoints can drop any earlier message), and Markdown formats (aider, specstory, markdown)
are parsed whole. Above it the read fails with :class:`LogFormatError` naming the format and
the reason; Claude and Codex JSONL are streamed and have no size limit."""

TEXT_HEAD_CHARS = 16 * 1024
TEXT_TAIL_CHARS = 48 * 1024
"""An event text longer than ``TEXT_HEAD_CHARS + TEXT_TAIL_CHARS`` keeps its first 16 Ki and
its last 48 Ki characters (cut at line ends), joined by a marker line (:func:`cap_text`):
errors, tracebacks and benchmark summaries sit at the end of tool outputs."""

_WHOLE_REASONS = {
    "opencode": "an opencode export is one JSON document, parsed whole",
    "gemini": "a Gemini CLI recording is replayed whole ($rewindTo and checkpoints can drop any "
              "earlier message)",
    "aider": "a Markdown chat history is parsed whole",
    "specstory": "a Markdown chat history is parsed whole",
    "markdown": "a Markdown document is parsed whole (sections and tables span it)",
}


@dataclass
class Reading:
    """State of one read in progress: the events and warnings collected so far, and the
    session fields a reader fills in as it meets them."""

    path: Path
    format: str
    events: list[Event] = field(default_factory=list)
    warnings: list[ReadWarning] = field(default_factory=list)
    session_id: str | None = None
    cwd: str | None = None
    tool_version: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    max_bytes: int | None = None
    """Refuse the file past this many (decompressed) bytes (see :data:`MAX_DOCUMENT_BYTES`)."""
    max_line_bytes: int | None = None
    """Skip lines longer than this (see :data:`MAX_LINE_BYTES`); ``None``: no limit."""
    _warned_keys: set[str] = field(default_factory=set)
    _decode_errors: int = 0
    _json_errors: int = 0

    @property
    def name(self) -> str:
        """The file name used in locators and messages."""
        return self.path.name

    def warn(self, line: int | None, message: str) -> None:
        self.warnings.append(ReadWarning(self.name, line, message))

    def warn_once(self, key: str, line: int | None, message: str) -> None:
        """Warn the first time ``key`` is met (one warning per unknown record type)."""
        if key not in self._warned_keys:
            self._warned_keys.add(key)
            self.warn(line, message)

    def error(self, line: int | None, message: str) -> LogFormatError:
        return LogFormatError(self.name, line, message)

    def too_large(self, size: int | None = None) -> LogFormatError:
        """The error for a file over :attr:`max_bytes`: its size (``None``: only known to be
        larger, as for a compressed file read so far), the format, the limit and why."""
        limit = self.max_bytes or MAX_DOCUMENT_BYTES
        why = _WHOLE_REASONS.get(self.format, "this format is read whole")
        what = f"file is {_size_text(size)} ({size} bytes)" if size is not None else "file is larger (decompressed)"
        return self.error(None, f"{what}, over the {_size_text(limit)} limit for {self.format} logs: "
                                f"{why}, so it is held in memory; nothing imported from it")


def _size_text(size: int) -> str:
    """``64 MiB``, ``80.5 MiB``, ``12 KiB``, ``900 bytes``."""
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


def open_binary(path: Path) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing ``.zst`` on the fly (``zstandard`` is
    imported only then). Raises :class:`LogFormatError` when it cannot."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it (a with block would close it here)
    except OSError as exc:
        raise LogFormatError(path.name, None, f"cannot open: {exc.strerror or exc}") from exc
    if path.name.endswith(".zst"):
        try:
            import zstandard
        except ImportError as exc:
            raw.close()
            raise LogFormatError(
                path.name,
                None,
                "reading .zst files needs the 'zstandard' package: pip install zstandard",
            ) from exc
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.BufferedReader(reader)  # type: ignore[arg-type]
    return raw


def decode_line(reading: Reading, raw: bytes, lineno: int, offset: int) -> str:
    """Decode one line as UTF-8. Invalid bytes are replaced by U+FFFD and a warning names the
    line and the byte offset (from the start of the decompressed stream) of the first bad
    byte: one bad byte does not cost the rest of the file (FORMATS.md)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        reading._decode_errors += 1
        if reading._decode_errors <= MAX_DECODE_WARNINGS:
            reading.warn(
                lineno,
                f"not valid UTF-8 at byte offset {offset + exc.start}; "
                "bad bytes replaced with U+FFFD",
            )
        elif reading._decode_errors == MAX_DECODE_WARNINGS + 1:
            reading.warn(lineno, "more lines not valid UTF-8; no further warnings for them")
        return raw.decode("utf-8", errors="replace")


def iter_lines(reading: Reading) -> Iterator[tuple[int, str]]:
    """Stream ``(line number, text without the newline)`` one line at a time, so a huge
    JSONL file is never held in memory whole. Raises :class:`LogFormatError` if the file
    holds no bytes, or only whitespace, or (with ``reading.max_bytes``) more bytes than that.
    With ``reading.max_line_bytes``, a longer line is skipped with a warning (it is read in
    pieces, never whole) and comes out as an empty line."""
    offset = 0
    seen_content = False
    limit = reading.max_line_bytes
    max_bytes = reading.max_bytes
    with open_binary(reading.path) as handle:
        try:
            lineno = 0
            while True:
                raw = handle.readline(limit + 1) if limit else handle.readline()
                if not raw:
                    break
                lineno += 1
                if limit and len(raw) > limit and not raw.endswith(b"\n"):
                    size = len(raw)
                    while not raw.endswith(b"\n"):
                        raw = handle.readline(2**20)
                        if not raw:
                            break
                        size += len(raw)
                    offset += size
                    seen_content = True
                    reading.warn(lineno, f"line of {size} bytes is over the {_size_text(limit)} limit "
                                         "for one line; skipped")
                    yield lineno, ""
                    continue
                text = decode_line(reading, raw, lineno, offset)
                offset += len(raw)
                if max_bytes is not None and offset > max_bytes:
                    raise reading.too_large()
                if not seen_content and text.strip():
                    seen_content = True
                yield lineno, text.rstrip("\r\n")
        except Exception as exc:  # zstandard raises ZstdError on corrupt frames
            if type(exc).__name__ == "ZstdError":
                raise reading.error(None, f"corrupt zstd data: {exc}") from exc
            raise
    if not seen_content:
        raise reading.error(None, "file is empty; nothing to import")


def read_text(reading: Reading) -> str:
    """The whole file as text (Markdown and single-document JSON formats, which their
    parsers need whole), decoded as :func:`decode_line` does. Raises
    :class:`LogFormatError` when empty."""
    parts = [text + "\n" for _, text in iter_lines(reading)]
    return "".join(parts)


def iter_json_lines(reading: Reading) -> Iterator[tuple[int, Any]]:
    """Stream ``(line number, parsed JSON object)`` from a JSONL file. Blank lines are
    skipped silently; a line that is not valid JSON, or not an object, is skipped with a
    warning ``not valid JSON (...)``."""
    for lineno, text in iter_lines(reading):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            _json_warning(reading, lineno, f"not valid JSON ({exc.msg}, column {exc.colno}); line skipped")
            continue
        if not isinstance(record, dict):
            _json_warning(reading, lineno, f"expected a JSON object, got {type(record).__name__}; line skipped")
            continue
        yield lineno, record
    if reading._json_errors > MAX_JSON_WARNINGS:
        reading.warn(None, f"{reading._json_errors - MAX_JSON_WARNINGS} more line(s) not valid JSON "
                           "objects skipped; not listed")


def _json_warning(reading: Reading, lineno: int, message: str) -> None:
    reading._json_errors += 1
    if reading._json_errors <= MAX_JSON_WARNINGS:
        reading.warn(lineno, message)


def cap_text(text: str, head: int = TEXT_HEAD_CHARS, tail: int = TEXT_TAIL_CHARS) -> str:
    """``text`` unchanged when at most ``head + tail`` characters; else its first ``head``
    and last ``tail`` characters (cut at line ends when a line end is near) around a marker
    line ``[... N characters omitted by kb import ...]``. The end of a tool output is where
    errors and benchmark summaries are, so the tail is the larger part."""
    if len(text) <= head + tail:
        return text
    head_end = text.rfind("\n", 0, head)
    if head_end < head // 2:
        head_end = head
    tail_start = text.find("\n", len(text) - tail, len(text) - tail // 2)
    tail_start = len(text) - tail if tail_start < 0 else tail_start + 1
    omitted = tail_start - head_end
    return f"{text[:head_end]}\n[... {omitted} characters omitted by kb import ...]\n{text[tail_start:]}"


def cap_event(event: Event) -> Event:
    """Cap, in place, every long text an event keeps (``text``, ``stdout``, ``stderr``, a
    string ``tool_input`` or the string values of a dict one) with :func:`cap_text`."""
    limit = TEXT_HEAD_CHARS + TEXT_TAIL_CHARS
    if len(event.text) > limit:
        event.text = cap_text(event.text)
    if event.stdout is not None and len(event.stdout) > limit:
        event.stdout = cap_text(event.stdout)
    if event.stderr is not None and len(event.stderr) > limit:
        event.stderr = cap_text(event.stderr)
    data = event.tool_input
    if isinstance(data, str) and len(data) > limit:
        event.tool_input = cap_text(data)
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str) and len(value) > limit:
                data[key] = cap_text(value)
    return event


_ISO_Z = re.compile(r"Z$")


def parse_timestamp(value: Any) -> datetime | None:
    """ISO 8601 text (``2026-02-26T09:14:02.118Z``, ``2026-07-13 13:40:49Z``) or epoch
    milliseconds → ``datetime``; ``None`` when absent or unreadable. Values with ``Z`` or an
    offset come back timezone-aware; epoch values are UTC."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = _ISO_Z.sub("+00:00", value.strip())
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def content_text(content: Any) -> str:
    """Text of a message ``content`` that is a string, a list of blocks/parts with ``text``,
    or a single such dict; other blocks are ignored."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, list):
        texts = [content_text(item) for item in content]
        return "\n".join(t for t in texts if t)
    return ""


_EXIT_CODE = re.compile(r"(?im)^\s*exit[ _]code:?\s*(-?\d+)\s*$")


def find_exit_code(text: str | None) -> int | None:
    """The exit status a tool output states on a line of its own (``Exit code 1``,
    ``Exit code: 1``, ``Exit Code: 1``), the last one if several; else ``None``."""
    if not text:
        return None
    found = _EXIT_CODE.findall(text)
    return int(found[-1]) if found else None


def json_error_message(exc: json.JSONDecodeError, text: str) -> str:
    """The message for a JSON document that does not parse: ``file ends before the JSON document
    is complete (truncated?)`` when the error is at the end of the text (an export cut off by a
    crash or a full disk), else ``not valid JSON (<why> at column N)``."""
    if exc.pos >= len(text.rstrip()) - 1 or not text[exc.pos:].strip():
        return (f"file ends before the JSON document is complete (truncated?): {exc.msg} at line {exc.lineno}; "
                "export it again")
    return f"not valid JSON ({exc.msg} at column {exc.colno})"
