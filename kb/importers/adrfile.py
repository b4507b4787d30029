"""Reading ADR files (adr-tools, MADR 2-4, log4brains, and hand-written records) into sections
and metadata; the mapping to decision records is :mod:`kb.importers.adr`.

A file is split at its headings (outside code fences) after HTML comments are blanked; the title
is its first ``#`` heading (the first heading of any level when it has no ``#`` one, as some
hand-written records start at ``##``); metadata comes from YAML front matter (MADR 3 and 4),
``Key: value`` lines under the title, bulleted (``* Status:``, MADR 2 and log4brains) or not
(``Date:``, adr-tools; ``Status:``, ``Decision Date:`` in hand-written records), bold labels
allowed (``**Status**: Accepted``).

Which files of a folder are decisions is decided by their text, not their names alone
(:func:`classify`): a template is recognised by its placeholders (``{title of option 1}``,
``[short title of solved problem and solution]``, adr-tools' ``NUMBER. TITLE``), an index page
(``README.md``, ``index.md``) by having none of a decision's sections. A folder per decision
(``NAME/index.md``, with ``NAME/README.md`` often a link to it) is read like a folder of files,
each link to a file already listed skipped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

INDEX_NAMES = frozenset({"readme.md", "index.md", "toc.md", "_index.md", "summary.md"})
"""File names an ADR folder uses for its index or home page. Such a file is a decision only when
its text is shaped like one (:func:`classify`): in a folder-per-decision layout ``NAME/index.md``
is the decision itself."""

DECISION_SECTIONS = frozenset({
    "status", "context", "context and problem statement", "problem statement", "problem", "issue", "background",
    "decision", "decision outcome", "considered options", "options considered", "consequences", "decision drivers",
    "rationale", "proposal", "decided approach", "decision made", "considered alternatives", "alternatives considered",
})
"""Section names (normalised: :func:`section_name`) that make a text a decision record, from the
templates of adr-tools (Nygard), MADR 2-4, log4brains, and the hand-written variants of
joelparkerhenderson/architecture-decision-record's examples."""

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
META_KEYS = {
    "status": "status", "date": "date", "decision date": "date", "updated": "date", "last updated": "date",
    "deciders": "deciders", "decision-makers": "decision-makers", "decision makers": "decision-makers",
    "decision maker": "decision-makers", "decision maker(s)": "decision-makers", "tags": "tags",
    "consulted": "consulted", "informed": "informed",
}
"""Labels of metadata lines under the title → the metadata key they set (MADR 2's and log4brains'
bullets, adr-tools' ``Date:``, the ``Status:`` / ``Decision Date:`` / ``Decision Maker:`` lines of
hand-written records)."""

_META = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?([A-Za-z][A-Za-z ()-]{1,24}?)(?::(?:\*\*|__)|(?:\*\*|__):|:)\s*(.*)$")
_NUMBERED_TITLE = re.compile(r"^(?:ADR[-\s]?)?(\d+)[.:]?\s+(.*)$", re.I)
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+")
_PLACEHOLDER_WORDS = frozenset({"NUMBER", "TITLE", "DATE", "STATUS", "NAME", "SHORT", "TODO", "TBD", "XXX"})


@dataclass
class Section:
    """A heading (``title`` as written, ``level`` 1-6, ``line`` its 1-based line) and the text
    under it, up to the next heading of any level."""

    level: int
    title: str
    lines: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()

    @property
    def name(self) -> str:
        """The heading normalised for matching (:func:`section_name`)."""
        return section_name(self.title)


@dataclass
class AdrFile:
    """One ADR file as read: ``rel`` (shown path), ``format``, ``title``, ``meta`` (lower-case
    keys; ``meta_lines``: the line each came from), the ``sections`` in order, ``number``
    (file-name prefix, or the number in an adr-tools title) and ``sha256`` of its bytes."""

    path: Path
    rel: str
    format: str
    title: str
    meta: dict[str, Any]
    sections: list[Section]
    preamble: str
    number: int | None
    sha256: str
    meta_lines: dict[str, int] = field(default_factory=dict)
    front_matter: bool = False
    id: str = ""
    date: dt.date | None = None
    date_from: str = "document"
    date_warning: str | None = None

    def section(self, *names: str) -> Section | None:
        """The first section whose normalised name is one of ``names``."""
        return next((s for s in self.sections if s.name in names), None)


def section_name(title: str) -> str:
    """A heading reduced for matching: no numbering, emphasis, trailing colon or case.

    >>> section_name("7. **Decision**"), section_name("Context and Problem Statement:")
    ('decision', 'context and problem statement')
    """
    text = re.sub(r"[*_`]", "", title).strip()
    text = _SECTION_NUMBER.sub("", text)
    return " ".join(text.lower().rstrip(":").split())


def is_placeholder(text: str) -> bool:
    """Whether ``text`` is a template's placeholder rather than a value: wholly inside ``{…}``,
    ``[…]`` (not a Markdown link) or ``<…>`` (not a URL), or made of adr-tools' upper-case
    placeholder words (``NUMBER. TITLE``, ``DATE``).

    >>> [is_placeholder(t) for t in ("{title of option 1}", "[Insert Date]", "NUMBER. TITLE", "Accepted")]
    [True, True, True, False]
    >>> is_placeholder("[MADR](https://adr.github.io/madr/)"), is_placeholder("<https://example.org>")
    (False, False)
    """
    t = re.sub(r"^\s*(?:[-*+]\s+)?", "", text).strip().strip('"\'').rstrip(".,;")
    if not t:
        return False
    if t[0] == "{" and t[-1] == "}":
        return True
    if t[0] == "[" and t[-1] == "]" and not re.search(r"\]\(", t):
        return True
    if t[0] == "<" and t[-1] == ">" and not re.match(r"<[a-z][a-z0-9+.-]*:", t, re.I):
        return True
    words = re.findall(r"[A-Za-z]+", t)
    return bool(words) and all(w in _PLACEHOLDER_WORDS for w in words)


def find_adr_files(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Markdown files under ``folder`` (recursively, sorted) that may be ADRs, and those skipped
    with the reason: a link to a file already listed (``NAME/README.md`` → ``index.md``), or a
    second copy of the same text. Hidden folders and ``node_modules`` are not entered. Which of
    the others are decisions is :func:`classify`'s answer once they are read. Raises
    :class:`FileNotFoundError` when ``folder`` is not a folder."""
    if not folder.is_dir():
        raise FileNotFoundError(folder)
    found = [p for p in sorted(folder.rglob("*")) if p.suffix.lower() in (".md", ".markdown")
             and not any(part.startswith(".") or part == "node_modules" for part in p.relative_to(folder).parts)]
    keep: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    real: dict[Path, Path] = {}
    for p in found:  # plain files first, so that a link finds the file it names
        if not p.is_symlink() and p.is_file():
            real[p.resolve()] = p
    seen_text: dict[tuple[Path, str], Path] = {}
    for p in found:
        if not p.is_file():
            continue
        if p.is_symlink():
            target = real.get(p.resolve())
            if target is not None:
                skipped.append((p, f"a link to {target.relative_to(folder).as_posix()}, read once"))
                continue
        try:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            keep.append(p)  # read_adr reports it
            continue
        twin = seen_text.get((p.parent, digest))
        if twin is not None:
            skipped.append((p, f"the same text as {twin.name}, read once"))
            continue
        seen_text[(p.parent, digest)] = p
        keep.append(p)
    return keep, skipped


def classify(adr: AdrFile, alone: bool = False) -> str | None:
    """Why ``adr`` is not a decision (``None`` when it is one): a template (its title or most of
    its values are placeholders, :func:`is_placeholder`), or an index page: named like one
    (:data:`INDEX_NAMES`), beside other documents of the log (not ``alone`` in a folder of its
    own, as ``NAME/index.md`` is in a folder-per-decision layout), with no status and none of the
    sections of :data:`DECISION_SECTIONS`."""
    if is_placeholder(adr.title) or _mostly_placeholders(adr):
        return "a template (its title and values are placeholders), not a decision"
    if adr.path.name.lower() in INDEX_NAMES and not alone and not looks_like_decision(adr):
        return "an index page (beside the decisions, with no status and none of a decision's sections), not a decision"
    return None


def looks_like_decision(adr: AdrFile) -> bool:
    """Whether ``adr`` has a status or any section of :data:`DECISION_SECTIONS`."""
    return bool(adr.meta.get("status")) or any(s.name in DECISION_SECTIONS for s in adr.sections)


def _mostly_placeholders(adr: AdrFile) -> bool:
    """At least two values (metadata, first lines of sections, list items) and half or more of
    them placeholders."""
    values = [str(v) for k, v in adr.meta.items() if isinstance(v, str) and k in META_KEYS.values()]
    for s in adr.sections:
        lines = [ln.strip() for ln in s.lines if ln.strip()]
        values += [ln for ln in lines if re.match(r"^\s*[-*+]\s+", ln)] or lines[:1]
    values = [v for v in values if v.strip(" .…*-")]
    hits = sum(is_placeholder(v) or bool(re.search(r"\{[^{}]{3,}\}", v)) for v in values)
    return len(values) >= 2 and hits * 2 >= len(values)


def read_adr(path: Path, rel: str, log4brains: bool = False) -> AdrFile:
    """Parse one ADR file (any of the formats above). Raises :class:`UnicodeDecodeError` for a
    file that is not UTF-8 and :class:`ValueError` for one with no heading to take as its title
    or invalid front matter."""
    data = path.read_bytes()
    text = data.decode("utf-8").replace("\r\n", "\n").lstrip("\ufeff")
    meta: dict[str, Any] = {}
    meta_lines: dict[str, int] = {}
    fmt = ""
    offset = 1
    front = False
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0:
            try:
                loaded = yaml.safe_load(text[4:end])
            except yaml.YAMLError as exc:
                raise ValueError(f"front matter is not valid YAML ({exc.__class__.__name__}); fix it") from None
            if isinstance(loaded, dict):
                meta = {str(k).lower(): v for k, v in loaded.items()}
                for n, line in enumerate(text[4:end].split("\n"), 2):
                    key = line.split(":", 1)[0].strip().lower()
                    if key in meta and key not in meta_lines:
                        meta_lines[key] = n
                front = True
            offset = text[: end + 4].count("\n") + 2
            text = text[end + 4:].split("\n", 1)[1] if "\n" in text[end + 4:] else ""
            fmt = "madr-4" if "decision-makers" in meta else "madr-3"
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    title_level = 1 if any(_heading(lines, i, 1) for i in range(len(lines))) else 0
    sections: list[Section] = []
    title = ""
    preamble: list[str] = []
    fence = False
    for n, line in enumerate(lines, offset):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = _HEADING.match(line) if not fence else None
        if m and not title and (title_level == 0 or len(m.group(1)) == title_level):
            title = m.group(2).strip()
            continue
        if m and title:
            sections.append(Section(len(m.group(1)), m.group(2).strip(), [], n))
            continue
        if sections:
            sections[-1].lines.append(line)
        elif title:
            label, value = _meta_line(line)
            if label and label not in meta:
                meta[label] = value
                meta_lines[label] = n
                if label == "status" and re.match(r"^\s*[-*+]\s", line):
                    fmt = fmt or ("log4brains" if log4brains else "madr-2")
            else:
                preamble.append(line)
    if not title and isinstance(meta.get("title"), str):
        title = meta["title"].strip()
    if not title:
        raise ValueError("no heading to take as its title; an ADR starts with '# Title'")
    names = {s.name for s in sections}
    number = None
    m = re.match(r"^(\d+)-", path.name)
    if m and len(m.group(1)) <= 5:
        number = int(m.group(1))
    nm = _NUMBERED_TITLE.match(title)
    if not fmt:
        adr_tools = bool(nm) and "status" in names and ("date" in meta or "decision" in names)
        fmt = "adr-tools" if adr_tools else ("madr-2" if "considered options" in names else "markdown")
    if fmt == "madr-3" and "confirmation" in names:
        fmt = "madr-4"
    if nm and (fmt == "adr-tools" or (number is not None and int(nm.group(1)) == number)):
        number = number if number is not None else int(nm.group(1))
        title = nm.group(2).strip()
    return AdrFile(path, rel, fmt, title, meta, sections, "\n".join(preamble).strip(), number,
                   hashlib.sha256(data).hexdigest(), meta_lines, front)


def _heading(lines: list[str], i: int, level: int) -> bool:
    m = _HEADING.match(lines[i])
    if not m or len(m.group(1)) != level:
        return False
    fences = sum(1 for ln in lines[:i] if ln.lstrip().startswith(("```", "~~~")))
    return fences % 2 == 0


def _meta_line(line: str) -> tuple[str | None, str]:
    """``(metadata key, value)`` of a ``Key: value`` line under the title (:data:`META_KEYS`),
    else ``(None, "")``."""
    m = _META.match(line)
    if not m:
        return None, ""
    key = META_KEYS.get(" ".join(m.group(1).lower().split()))
    value = m.group(2).strip()
    value = re.sub(r"^(?:\*\*|__)\s*", "", value).strip()
    return (key, value) if key else (None, "")
