"""Existing ADR logs → decision records: ``kb import --format adr DIR``.

Formats read (their shapes, as their templates define them; nothing of their text is kept here):

* **adr-tools** (Michael Nygard's form, ``doc/adr/0001-....md``): ``# 1. Title``, a ``Date:``
  line, sections ``Status`` (a word, plus link lines such as ``Supersedes [2. X](0002-x.md)`` or
  ``Superseded by [...]``), ``Context``, ``Decision``, ``Consequences``.
* **MADR 2** and **log4brains** (``yyyymmdd-slug.md``, a ``.log4brains.yml`` above): bullet
  metadata under the title (``* Status:``, ``* Deciders:``, ``* Date:``, log4brains' ``- Tags:``),
  ``Technical Story:``, sections ``Context and Problem Statement``, ``Decision Drivers``,
  ``Considered Options``, ``Decision Outcome`` (``Chosen option: "X", because ...``, ``###
  Positive/Negative Consequences``), ``Pros and Cons of the Options``, ``Links``.
* **MADR 3 and 4**: YAML front matter (``status``, ``date``, ``deciders`` in 3,
  ``decision-makers`` in 4, ``consulted``, ``informed``), ``### Consequences`` with ``Good,
  because`` / ``Bad, because`` / ``Neutral, because`` items, ``Validation`` (3) or ``###
  Confirmation`` (4), ``More Information``.

Nothing is dropped silently: what has no place in a decision record (consulted, informed,
validation, unknown sections, link kinds other than supersede) is kept in the record's ``notes``
under its own heading, and each such move is a warning in the report. Records are written
through the store (atomic, never overwriting); a file already imported (same sha256 in a
decision's ``source``) is reported as ``exists`` and not written again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from pydantic import ValidationError

from kb.ids import dated_id, free_id
from kb.importers.adrfile import AdrFile, Section, find_adr_files, read_adr
from kb.models import Decision
from kb.redact import Redactor
from kb.store import RecordSet, create_record, load_records, record_to_data
from kb.validation import located_problems

STATUSES = {"proposed", "accepted", "rejected", "deprecated", "superseded"}
_STATUS_ALIASES = {"draft": "proposed", "approved": "accepted", "decided": "accepted", "declined": "rejected",
                   "obsolete": "deprecated", "replaced": "superseded", "pending": "proposed"}

_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
_SUPERSEDE = re.compile(r"^(supersedes|superseded by)\b[:\s]*(.*)$", re.I)
_CHOSEN = re.compile(r"^Chosen option:\s*(.+?)(?:,?\s+because\b[,:]?\s*(.*))?$", re.I | re.S)
_ARGUMENT = re.compile(r"^(Good|Bad|Neutral),?\s+because\b[,:]?\s*(.*)$", re.I | re.S)
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass
class AdrResult:
    """What became of one ADR file: ``state`` is ``new`` (dry run), ``written``, ``exists``
    (already imported as ``id``) or ``failed`` (``problems`` say why); ``warnings`` name what was
    moved to notes or guessed."""

    file: str
    format: str
    id: str
    state: str
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    record: Decision | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        data: dict[str, Any] = {"file": self.file, "format": self.format, "id": self.id, "state": self.state,
                                "warnings": self.warnings, "problems": self.problems}
        if self.record is not None:
            data["record"] = {k: (v.isoformat() if isinstance(v, dt.date) else v)
                              for k, v in record_to_data(self.record).items()}
        return data


@dataclass
class AdrReport:
    """The result of :func:`import_adrs`: one :class:`AdrResult` per ADR file, the files skipped
    (``(path, why)``) and what was redacted (kind → count)."""

    dry_run: bool
    results: list[AdrResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {"dry_run": self.dry_run, "results": [r.to_dict() for r in self.results],
                "skipped": [{"file": f, "why": w} for f, w in self.skipped],
                "redactions": dict(sorted(self.redactions.items())),
                "counts": dict(Counter(r.state for r in self.results))}


# --------------------------------------------------------------------------- mapping


def _bullets(text: str) -> list[str]:
    """List items of ``text`` (continuation lines joined), without template ellipses."""
    items: list[str] = []
    for line in text.split("\n"):
        m = _BULLET.match(line)
        if m:
            items.append(m.group(1).strip())
        elif items and line.startswith(("  ", "\t")) and line.strip():
            items[-1] += " " + line.strip()
    return [i for i in items if i.strip(" .…") != ""]


def _non_bullet(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not _BULLET.match(line)).strip()


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    m = _DATE.search(str(value or ""))
    if m:
        try:
            return dt.date.fromisoformat(m.group(1))
        except ValueError:
            return None
    return None


def _people(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value or "").strip().strip("[]{}")
    return [p.strip() for p in re.split(r",|;|\band\b", text) if p.strip()]


def _targets(text: str) -> list[str]:
    """Link targets (file names) or ``ADR-0005``-style references in ``text``."""
    found = [posix.rsplit("/", 1)[-1] for _label, posix in _LINK.findall(text)]
    found += re.findall(r"\bADR[-\s]?(\d+)\b", _LINK.sub("", text), re.I)
    return found


class _Mapper:
    """Turns one :class:`AdrFile` into decision record data, collecting warnings."""

    def __init__(self, adr: AdrFile, resolve: dict[str, str]):
        self.adr = adr
        self.resolve = resolve
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.supersedes: list[str] = []
        self.superseded_by: list[str] = []

    def warn_kept(self, what: str, body: str, heading: str | None = None) -> None:
        self.warnings.append(f"{self.adr.rel}: {what} has no field in a kb decision: kept in notes")
        self.notes.append(f"**{heading or what}**\n\n{body}".strip())

    def link(self, kind: str, text: str, line_text: str) -> None:
        targets = [self.resolve.get(t.lower()) or self.resolve.get(str(int(t)) if t.isdigit() else "") for t in _targets(text)]
        if not targets or None in targets:
            self.warn_kept(f"link '{line_text.strip()}' (target not among the imported ADRs)", line_text.strip())
            return
        (self.supersedes if kind == "supersedes" else self.superseded_by).extend(t for t in targets if t)

    def status(self, raw: Any) -> str:
        text = str(raw or "").strip()
        lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
        word = re.sub(r"[^a-z]", " ", lines[0].lower()).split()[0] if lines and re.search(r"[a-z]", lines[0].lower()) else ""
        for ln in lines:
            m = _SUPERSEDE.match(ln)
            if m:
                self.link("supersedes" if m.group(1).lower() == "supersedes" else "superseded_by", m.group(2), ln)
            elif ln is not lines[0]:
                self.warn_kept(f"status line '{ln}'", ln)
        if word in STATUSES:
            return word
        if word in _STATUS_ALIASES:
            self.warnings.append(f"{self.adr.rel}: status '{lines[0]}' read as '{_STATUS_ALIASES[word]}'")
            return _STATUS_ALIASES[word]
        if word == "supersedes":
            return "accepted"
        self.warnings.append(f"{self.adr.rel}: status '{text or '(none)'}' is not one of {', '.join(sorted(STATUSES))}: "
                             "recorded as 'proposed', the original kept in notes")
        self.notes.append(f"**Original status**\n\n{text or '(none)'}")
        return "proposed"

    def build(self) -> dict[str, Any]:
        adr = self.adr
        meta = adr.meta
        data: dict[str, Any] = {"title": adr.title}
        status_text = meta.get("status")
        sections = list(adr.sections)
        for s in sections:
            if s.level == 2 and s.title.lower() == "status":
                status_text = s.text
        data["status"] = self.status(status_text)
        if self.superseded_by and data["status"] != "superseded":
            self.warnings.append(f"{adr.rel}: status '{data['status']}' but a 'superseded by' link: recorded as 'superseded'")
            data["status"] = "superseded"
        data["date"] = adr.date
        if adr.date_warning:
            self.warnings.append(adr.date_warning)
        deciders = meta.get("decision-makers", meta.get("deciders"))
        if deciders:
            data["deciders"] = _people(deciders)
        for key in ("consulted", "informed"):
            if meta.get(key):
                self.warn_kept(key.capitalize(), ", ".join(_people(meta[key])))
        if meta.get("tags"):
            tags = meta["tags"] if isinstance(meta["tags"], list) else re.split(r"[\s,]+", str(meta["tags"]))
            data["tags"] = [str(t).strip() for t in tags if str(t).strip()]
        for key in sorted(set(meta) - {"status", "date", "deciders", "decision-makers", "consulted", "informed", "tags"}):
            self.warn_kept(f"metadata '{key}'", str(meta[key]))
        if adr.preamble:
            label = "Technical Story" if adr.preamble.lower().startswith("technical story") else "Text before the first section"
            self.warn_kept(label, adr.preamble)
        self._sections(sections, data)
        if self.supersedes:
            data["supersedes"] = list(dict.fromkeys(self.supersedes))
        data["source"] = [{"file": adr.rel, "format": adr.format, "sha256": adr.sha256,
                           "locator": f"ADR {adr.number}" if adr.number is not None else "whole file"}]
        if self.notes:
            data["notes"] = "\n\n".join(self.notes)
        return data

    def _sections(self, sections: list[Section], data: dict[str, Any]) -> None:
        options: dict[str, dict[str, Any]] = {}
        chosen: str | None = None
        rationale: list[str] = []
        decision_text = ""
        consequences: dict[str, list[str]] = {"good": [], "bad": [], "neutral": []}
        parent = ""
        for s in sections:
            name = s.title.lower().rstrip(":")
            if s.level <= 2:
                parent = name
            if s.level <= 2 and name == "status":
                continue
            if name in ("context and problem statement", "context", "context and problem"):
                data["context"] = s.text
            elif name == "decision drivers":
                data["decision_drivers"] = _bullets(s.text)
            elif name in ("considered options", "options considered"):
                for title in _bullets(s.text):
                    options.setdefault(title.strip("\"'"), {"title": title.strip("\"'")})
            elif name == "decision outcome":
                first, _, rest = s.text.partition("\n\n")
                m = _CHOSEN.match(" ".join(first.split()))
                if m:
                    chosen = m.group(1).strip().strip("\"'“”")
                    rationale.append((m.group(2) or "").strip())
                    rationale.append(rest.strip())
                else:
                    rationale.append(s.text)
            elif name == "decision":
                decision_text = s.text
            elif name in ("consequences", "positive consequences", "negative consequences"):
                self._consequences(s, name, consequences)
            elif parent == "pros and cons of the options" and s.level >= 3:
                opt = options.setdefault(s.title.strip("\"'"), {"title": s.title.strip("\"'")})
                desc = []
                for item in _bullets(s.text):
                    m = _ARGUMENT.match(item)
                    if m and m.group(1).lower() == "good":
                        opt.setdefault("pros", []).append(m.group(2).strip())
                    elif m and m.group(1).lower() == "bad":
                        opt.setdefault("cons", []).append(m.group(2).strip())
                    else:
                        desc.append(f"- {item}")
                body = "\n".join(x for x in [_non_bullet(s.text), "\n".join(desc)] if x)
                if body:
                    opt["description"] = body
            elif name == "pros and cons of the options":
                if s.text:
                    self.warn_kept("Pros and Cons of the Options (introduction)", s.text)
            elif name == "links":
                for item in _bullets(s.text):
                    m = _SUPERSEDE.match(item)
                    if m:
                        self.link("supersedes" if m.group(1).lower() == "supersedes" else "superseded_by", m.group(2), item)
                    else:
                        self.warn_kept(f"link '{item}'", item)
            elif name == "more information":
                if s.text:
                    self.notes.append(f"**{s.title}**\n\n{s.text}")
            elif s.text or s.level <= 2:
                self.warn_kept(f"Section '{s.title}'", s.text, s.title)
        if "context" not in data:
            self.warnings.append(f"{self.adr.rel}: no context section: context left empty")
            data["context"] = ""
        if decision_text:  # adr-tools: the decision is the one option taken
            options.setdefault(self.adr.title, {"title": self.adr.title, "description": decision_text})
            chosen = chosen or self.adr.title
        if chosen is not None:
            match = next((t for t in options if t.lower() == chosen.lower()), None)
            if match is None:
                match = next((t for t in options if chosen.lower() in t.lower() or t.lower() in chosen.lower()), None)
            if match is None:
                options[chosen] = {"title": chosen}
                if len(options) > 1:
                    self.warnings.append(f"{self.adr.rel}: chosen option '{chosen}' is not among the considered options: added")
                match = chosen
            chosen = match
        elif options:
            chosen = next(iter(options))
            self.warnings.append(f"{self.adr.rel}: no 'Chosen option:' line: recorded '{chosen}' (the first option) as chosen; check it")
        else:
            options[self.adr.title] = {"title": self.adr.title}
            chosen = self.adr.title
            self.warnings.append(f"{self.adr.rel}: no options and no decision section: the title is recorded as the only option")
        data["considered_options"] = list(options.values())
        why = "\n\n".join(r for r in rationale if r)
        data["outcome"] = {"chosen": chosen, **({"rationale": why} if why else {})}
        if any(consequences.values()):
            data["consequences"] = {k: v for k, v in consequences.items() if v}

    def _consequences(self, s: Section, name: str, out: dict[str, list[str]]) -> None:
        default = {"positive consequences": "good", "negative consequences": "bad"}.get(name, "neutral")
        items = _bullets(s.text)
        prose = _non_bullet(s.text)
        for item in items:
            m = _ARGUMENT.match(item)
            out[m.group(1).lower() if m else default].append(m.group(2).strip() if m else item)
        if prose:
            out[default].append(prose)


# --------------------------------------------------------------------------- pipeline


def import_adrs(root: str | Path, folder: str | Path, *, dry_run: bool = False,
                progress: Callable[[list[Path], str], Iterable[Path]] | None = None,
                redact_personal: bool = False) -> AdrReport:
    """Convert every ADR under ``folder`` into a decision record under ``root``.

    An ADR log is the team's own document: its secrets are replaced, what it says otherwise is
    kept (names, e-mail addresses, hosts, address plans), unless ``redact_personal``.

    Returns an :class:`AdrReport`; a file that cannot be read or mapped fails alone
    (``state == "failed"``). Raises :class:`FileNotFoundError` when ``folder`` is not a folder.
    Written records go through :func:`kb.store.create_record` (atomic, never overwriting).
    ``progress(paths, label)``, when given, wraps the files as they are read (a progress bar).
    """
    root, folder = Path(root), Path(folder)
    report = AdrReport(dry_run=dry_run)
    paths, skipped = find_adr_files(folder)
    report.skipped = [(str(p), why) for p, why in skipped]
    log4brains = any((d / ".log4brains.yml").is_file() for d in [folder, *folder.resolve().parents])
    records = load_records(root).records if root.is_dir() else RecordSet()
    imported = {s.sha256: d.id for d in records.of_kind(Decision) for s in d.source if s.sha256}
    taken: set[str] = set(records.records)
    adrs: list[AdrFile] = []
    for p in (progress(paths, "reading ADRs") if progress else paths):
        rel = str(p)
        try:
            adr = read_adr(p, rel, log4brains or bool(re.match(r"^\d{8}-", p.name)))
        except UnicodeDecodeError as exc:
            line = exc.object[: exc.start].count(b"\n") + 1
            report.results.append(AdrResult(rel, "?", "", "failed", problems=[
                f"{rel}:{line}: not UTF-8 (byte 0x{exc.object[exc.start]:02x}); save the file as UTF-8"]))
            continue
        except (ValueError, OSError) as exc:
            report.results.append(AdrResult(rel, "?", "", "failed", problems=[f"{rel}: {exc}"]))
            continue
        adr.date, adr.date_warning = _adr_date(adr)
        if adr.sha256 in imported:
            adr.id = imported[adr.sha256]
        else:
            adr.id = free_id(dated_id(adr.date, adr.title, fallback="decision"), taken)
            taken.add(adr.id)
        adrs.append(adr)
    resolve: dict[str, str] = {}
    for adr in adrs:
        resolve[adr.path.name.lower()] = adr.id
        resolve[adr.path.stem.lower()] = adr.id
        if adr.number is not None:
            resolve[str(adr.number)] = adr.id
    mapped: dict[str, tuple[AdrFile, _Mapper, dict[str, Any]]] = {}
    for adr in adrs:
        mapper = _Mapper(adr, resolve)
        mapped[adr.id] = (adr, mapper, mapper.build())
    for adr, mapper, _data in mapped.values():  # "superseded by B" on A is "B supersedes A"
        for newer in mapper.superseded_by:
            if newer in mapped:
                sup = mapped[newer][2].setdefault("supersedes", [])
                if adr.id not in sup:
                    sup.append(adr.id)
    _retire_only_by_accepted(mapped)
    redactor = Redactor(personal=redact_personal)  # a team's own decision log: only secrets go (README, "Redaction")
    for adr, mapper, data in mapped.values():
        result = AdrResult(adr.rel, adr.format, adr.id, "exists" if adr.sha256 in imported else "new", mapper.warnings)
        report.results.append(result)
        if result.state == "exists":
            continue
        data = _redact(data, redactor)
        try:
            record = Decision.model_validate({**data, "id": adr.id})
        except ValidationError as exc:
            result.state = "failed"
            result.problems = [str(p) for p in located_problems(exc, Decision, adr.rel)]
            continue
        result.record = record
        result.id = record.id
        if not dry_run:
            record, _path = create_record(root, record, taken=set(records.records) - {record.id}, redactor=redactor)
            result.record, result.id, result.state = record, record.id, "written"
    report.redactions = redactor.counts
    return report


def _retire_only_by_accepted(mapped: dict[str, tuple[AdrFile, _Mapper, dict[str, Any]]]) -> None:
    """The records' supersession rules (:data:`kb.graph.RETIRING`) applied to an imported log:
    a rejected ADR supersedes nothing (its links are dropped, kept in its notes); an ADR marked
    superseded only by proposed (draft) ones still stands: recorded as accepted, its original
    status kept in its notes. Each change is a warning of the ADR changed."""
    from kb.graph import RETIRING

    listers: dict[str, list[str]] = {}
    for rid, (_adr, _mapper, data) in mapped.items():
        for t in data.get("supersedes", []):
            listers.setdefault(t, []).append(rid)
    for rid, (_adr, mapper, data) in mapped.items():
        by = listers.get(rid, [])
        if data["status"] != "superseded" or not by or any(mapped[b][2]["status"] in RETIRING for b in by):
            continue
        pending = ", ".join(f"{b} ({mapped[b][2]['status']})" for b in by)
        mapper.warnings.append(f"{mapper.adr.rel}: superseded by {pending}, never accepted: a decision stands until "
                               "the one replacing it is accepted; recorded as 'accepted', the original status kept in notes")
        _add_note(data, f"**Original status**\n\nsuperseded (by {pending})")
        data["status"] = "accepted"
    for _adr, mapper, data in mapped.values():
        if data["status"] == "rejected" and data.get("supersedes"):
            gone = data.pop("supersedes")
            mapper.warnings.append(f"{mapper.adr.rel}: status 'rejected' but it supersedes {', '.join(gone)}: a rejected "
                                   "decision supersedes nothing; the links are kept in notes")
            _add_note(data, "**Would have superseded**\n\n" + "\n".join(f"- {g}" for g in gone))


def _add_note(data: dict[str, Any], text: str) -> None:
    data["notes"] = f"{data['notes']}\n\n{text}" if data.get("notes") else text


def _adr_date(adr: AdrFile) -> tuple[dt.date, str | None]:
    """The ADR's date: its metadata, else a ``yyyymmdd-`` file name (log4brains), else the
    file's modification date, with a warning saying so."""
    date = _date(adr.meta.get("date"))
    if date is not None:
        return date, None
    m = re.match(r"^(\d{4})(\d{2})(\d{2})-", adr.path.name)
    date = _date(f"{m.group(1)}-{m.group(2)}-{m.group(3)}") if m else None
    if date is not None:
        return date, None
    date = dt.date.fromtimestamp(adr.path.stat().st_mtime)
    return date, f"{adr.rel}: no date: used the file's modification date {date.isoformat()}"


def _redact(value: Any, redactor: Redactor, key: str = "") -> Any:
    if isinstance(value, str):
        return value if key in ("sha256", "format") else redactor.redact_value(key, value)
    if isinstance(value, list):
        return [_redact(v, redactor, key) for v in value]
    if isinstance(value, dict):
        return {k: _redact(v, redactor, k) for k, v in value.items()}
    return value
