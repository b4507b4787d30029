"""Helpers shared by the format readers: streaming lines, decoding, JSON lines, timestamps,
warnings. Private to ``kb.importers``."""

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
    _warned_keys: set[str] = field(default_factory=set)
    _decode_errors: int = 0

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


def open_binary(path: Path) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing ``.zst`` on the fly (``zstandard`` is
    imported only then). Raises :class:`LogFormatError` when it cannot."""
    try:
        raw = open(path, "rb")
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
    holds no bytes, or only whitespace."""
    offset = 0
    seen_content = False
    with open_binary(reading.path) as handle:
        try:
            for lineno, raw in enumerate(handle, 1):
                text = decode_line(reading, raw, lineno, offset)
                offset += len(raw)
                if text.strip():
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
            reading.warn(lineno, f"not valid JSON ({exc.msg}, column {exc.colno}); line skipped")
            continue
        if not isinstance(record, dict):
            reading.warn(lineno, f"expected a JSON object, got {type(record).__name__}; line skipped")
            continue
        yield lineno, record


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
