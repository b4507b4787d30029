"""Reading ADR files (adr-tools, MADR 2-4, log4brains) into sections and metadata; the mapping
to decision records is :mod:`kb.importers.adr`.

A file is split at its headings (outside code fences) after HTML comments are blanked; the title
is its first ``#`` heading; metadata comes from YAML front matter (MADR 3 and 4), bullet lines
under the title (``* Status:``, MADR 2 and log4brains) or a ``Date:`` line (adr-tools).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SKIP_NAMES = {"readme.md", "index.md", "template.md", "toc.md"}
"""File names in an ADR folder that are not decisions (indexes, templates)."""

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_META = re.compile(r"^\s*[-*]\s+(Status|Deciders|Date|Tags|Decision-makers|Consulted|Informed)\s*:\s*(.*)$", re.I)
_NUMBERED_TITLE = re.compile(r"^(?:ADR[-\s]?)?(\d+)[.:]?\s+(.*)$", re.I)

@dataclass
class Section:
    """A heading and the text under it (up to the next heading of the same or a higher level is
    not tracked: each heading owns the lines until the next heading of any level)."""

    level: int
    title: str
    lines: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class AdrFile:
    """One ADR file as read: ``rel`` (shown path), ``format``, ``title``, ``meta`` (lower-case
    keys), the ``sections`` in order, ``number`` (file-name prefix) and ``sha256`` of its bytes."""

    path: Path
    rel: str
    format: str
    title: str
    meta: dict[str, Any]
    sections: list[Section]
    preamble: str
    number: int | None
    sha256: str
    id: str = ""
    date: dt.date | None = None
    date_warning: str | None = None


def find_adr_files(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Markdown files under ``folder`` (recursively, sorted) that may be ADRs, and those skipped
    with the reason (indexes, templates). Raises :class:`FileNotFoundError` when ``folder`` is
    not a folder."""
    if not folder.is_dir():
        raise FileNotFoundError(folder)
    keep, skipped = [], []
    for p in sorted(folder.rglob("*.md")):
        name = p.name.lower()
        if any(part.startswith(".") or part == "node_modules" for part in p.relative_to(folder).parts):
            continue
        if name in SKIP_NAMES or "template" in name:
            skipped.append((p, "an index or template, not a decision"))
        else:
            keep.append(p)
    return keep, skipped


def read_adr(path: Path, rel: str, log4brains: bool = False) -> AdrFile:
    """Parse one ADR file (any of the formats above). Raises :class:`ValueError` for a file
    that is not UTF-8 or has no title."""
    data = path.read_bytes()
    text = data.decode("utf-8").replace("\r\n", "\n").lstrip("\ufeff")
    meta: dict[str, Any] = {}
    fmt = ""
    offset = 0
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0:
            try:
                loaded = yaml.safe_load(text[4:end])
            except yaml.YAMLError as exc:
                raise ValueError(f"front matter is not valid YAML ({exc.__class__.__name__}); fix it") from None
            if isinstance(loaded, dict):
                meta = {str(k).lower(): v for k, v in loaded.items()}
            offset = text[: end + 4].count("\n") + 1
            text = text[end + 4:]
            fmt = "madr-4" if "decision-makers" in meta else "madr-3"
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    sections: list[Section] = []
    title = ""
    preamble: list[str] = []
    fence = False
    for n, line in enumerate(text.split("\n"), offset):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = _HEADING.match(line) if not fence else None
        if m and len(m.group(1)) == 1 and not title:
            title = m.group(2).strip()
            continue
        if m and title:
            sections.append(Section(len(m.group(1)), m.group(2).strip(), [], n))
            continue
        if sections:
            sections[-1].lines.append(line)
        elif title:
            meta_m = _META.match(line)
            if meta_m and not fmt.startswith("madr-3") and not fmt.startswith("madr-4"):
                meta[meta_m.group(1).lower()] = meta_m.group(2).strip()
                fmt = fmt or ("log4brains" if log4brains else "madr-2")
            elif line.strip().lower().startswith("date:") and not meta.get("date"):
                meta["date"] = line.split(":", 1)[1].strip()
            else:
                preamble.append(line)
    if not title:
        raise ValueError("no '# title' line; an ADR starts with its title")
    names = {s.title.lower() for s in sections}
    if not fmt:
        fmt = "adr-tools" if "status" in names and "decision" in names else ("madr-2" if "considered options" in names else "markdown")
    if fmt == "madr-3" and any(s.title.lower() == "confirmation" for s in sections):
        fmt = "madr-4"
    number = None
    m = re.match(r"^(\d+)-", path.name)
    if m and len(m.group(1)) <= 5:
        number = int(m.group(1))
    nm = _NUMBERED_TITLE.match(title)
    if nm and fmt == "adr-tools":
        number = number if number is not None else int(nm.group(1))
        title = nm.group(2).strip()
    return AdrFile(path, rel, fmt, title, meta, sections, "\n".join(preamble).strip(), number,
                   hashlib.sha256(data).hexdigest())
