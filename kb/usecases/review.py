"""``kb review``: drafts become reviewed records, are merged into the attempt they repeat, or are rejected.

A draft is an attempt record with ``status: draft`` (``kb import``, ``kb log --draft``), in
``attempts/`` like any attempt. What a person does with one, each a plain function here (the
terminal walk is :mod:`kb.cli.review`):

- :func:`accept_draft`: ``status: reviewed``, in place; the importer's request for review leaves
  its notes;
- :func:`start_edit` / :func:`finish_edit`: the draft's file is copied to an unfinished edit
  (:func:`kb.store.review.edit_path`), edited there, validated (every problem located
  ``file:line: field``), and only a valid edit replaces the draft; an edit that does not
  validate stays where it is, never lost;
- :func:`merge_candidates`, :func:`plan_merge`, :func:`apply_merge`: the draft's sources, metrics
  and notes join an existing attempt; a field the attempt leaves empty is filled, a field it
  holds is never overwritten unless the person takes the draft's value, and the draft's other
  value is kept in the notes; references to the draft then name the attempt, and the draft's
  file goes;
- :func:`reject_draft`: the reason and the passage the draft came from are kept
  (:mod:`kb.store.review`) so that ``kb import`` of the same log leaves it out; the file goes.

Every record written passes the store's write gate (:func:`kb.store.save_record`: redacted,
atomic); a file is removed only by :func:`kb.store.remove_record`, after what replaces it was
written, so an interrupted step leaves every file whole.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.draftnotes import DUPLICATE_NOTE, IMPORT_TAG, draft_confidence, reviewed_notes
from kb.errors import Problem, UsageError
from kb.graph import references
from kb.models import Attempt, Campaign, Record, Source
from kb.pipeline import Loaded, load
from kb.redact import Redactor
from kb.store import parse_record, remove_record, save_record
from kb.store.entries import read_regular
from kb.store.review import (
    Rejection,
    add_rejection,
    drop_edit,
    edit_path,
    keep_edit,
    read_edit,
)

# --------------------------------------------------------------------------- finding drafts


def load_drafts(root: str | Path, catalogs: list[str] | tuple[str, ...] = (), ids: tuple[str, ...] = ()
                ) -> tuple[Loaded, list[str]]:
    """Load the records under ``root`` and return them with the ids of their drafts, oldest
    first (by date, then id: a stable order). ``ids``: only these (each must be a draft).

    Raises :class:`kb.errors.UsageError` for an id in ``ids`` that is no attempt or no draft, and
    :class:`kb.errors.RecordError` when ``root`` is not a folder."""
    loaded = load(root, catalogs)
    drafts = sorted((a for a in loaded.records.of_kind(Attempt) if a.status == "draft"
                     and a.id not in loaded.records.catalog_of), key=lambda a: (a.date, a.id))
    if not ids:
        return loaded, [a.id for a in drafts]
    known = {a.id for a in drafts}
    for rid in ids:
        if rid not in known:
            found = loaded.records.get(rid)
            if isinstance(found, Attempt):
                raise UsageError(f"{rid}: already reviewed (status: {found.status}); nothing to review")
            close = difflib.get_close_matches(rid, sorted(known), n=1)
            raise UsageError(f"{rid}: no such draft" + (f" (did you mean {close[0]}?)" if close else "")
                             + ("; drafts: " + ", ".join(sorted(known)) if known and len(known) <= 8 else ""))
    return loaded, [a.id for a in drafts if a.id in set(ids)]


@dataclass
class DraftSummary:
    """What a reviewer sees of one draft. ``path``: its file as problems show it; ``metric``:
    the headline figure (``output_throughput 96.10 tok/s``) or ``None``; ``stack``: the stack
    id, else the components it names; ``error``: the error's headline line; ``source``: the log
    and locator it was drafted from (``claude-campaign.jsonl line 8 (claude, sha256 112eaa35f9b4)``);
    ``confidence``/``confidence_reason``: what the importer wrote (``None`` for a draft written
    by hand); ``inferred``: what kb added beyond what the log says (linked blockers, baseline,
    matched stack and platform, possible duplicates), one line each; ``problems``: what
    ``kb check`` reports for its file; ``pending_edit``: an unfinished edit kept for it."""

    id: str
    path: str
    title: str
    outcome: str
    metric: str | None
    stack: str | None
    platform: str | None
    error: str | None
    source: str | None
    confidence: float | None
    confidence_reason: str
    inferred: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    pending_edit: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {"id": self.id, "path": self.path, "title": self.title, "outcome": self.outcome, "metric": self.metric,
                "stack": self.stack, "platform": self.platform, "error": self.error, "source": self.source,
                "confidence": self.confidence, "confidence_reason": self.confidence_reason,
                "inferred": self.inferred, "problems": self.problems,
                "pending_edit": str(self.pending_edit) if self.pending_edit else None}


def headline_metric(loaded: Loaded, a: Attempt) -> str | None:
    """``name value unit`` of the attempt's figure for its campaign's headline metric, else of
    its first metric; ``None`` without metrics."""
    camp = loaded.graph.get(a.campaign)
    name = camp.metric.name if isinstance(camp, Campaign) and camp.metric.name in a.metrics else next(iter(a.metrics), None)
    return f"{name} {a.metrics[name].display()}" if name else None


def anchor_source(a: Attempt) -> Source | None:
    """The source an imported attempt was drafted from (field ``attempt``), else its first
    source with a file; ``None`` without one."""
    return next((s for s in a.source if s.field == "attempt"), None) or next((s for s in a.source if s.file), None)


def summarize(root: str | Path, loaded: Loaded, record_id: str) -> DraftSummary:
    """The :class:`DraftSummary` of draft ``record_id`` of ``loaded``."""
    from kb.errortext import error_headline
    from kb.queries import possible_duplicates

    kg = loaded.graph
    a = _attempt(loaded, record_id)
    origin = loaded.records.origins[a.id]
    src = anchor_source(a)
    where = None
    if src is not None:
        extra = ", ".join(x for x in (src.format, f"sha256 {src.sha256[:12]}" if src.sha256 else None) if x)
        where = " ".join(x for x in (src.file or src.url, src.locator) if x) + (f" ({extra})" if extra else "")
    conf = draft_confidence(a.notes)
    stack = a.stack or (", ".join(f"{k} {v.version}" for k, v in sorted(a.components.items()) if v.version) or None)
    inferred = []
    for b in a.blocked_by:
        found = kg.get(b)
        inferred.append(f"blocked by {b}" + (f" ({found.title})" if found is not None else ""))
    if a.baseline:
        inferred.append(f"compared with baseline {a.baseline}")
    if a.retry_of:
        inferred.append(f"a retry of {a.retry_of}")
    if any(s.field == "attempt" for s in a.source):  # imported: kb matched the stack and platform
        if a.stack:
            inferred.append(f"stack {a.stack} (the stack record whose components agree with the log)")
        if a.platform:
            inferred.append(f"platform {a.platform} (the platform record the log agrees with)")
    for rid, why in possible_duplicates(kg, a):
        inferred.append(f"possibly the same run as {rid} ({why}): [m]erge it there")
    problems = [str(p) for p in loaded.problems if p.path == origin.path]
    pending = edit_path(root, a.id)
    return DraftSummary(a.id, origin.path, a.title, a.outcome.value, headline_metric(loaded, a), stack, a.platform,
                        error_headline(a.error) if a.error else None, where, conf[0] if conf else None,
                        conf[1] if conf else "", inferred, problems, pending if pending.is_file() else None)


def _attempt(loaded: Loaded, record_id: str) -> Attempt:
    found = loaded.records.get(record_id)
    if not isinstance(found, Attempt):
        raise UsageError(f"{record_id}: no such attempt")
    return found


def _file(loaded: Loaded, record_id: str) -> Path:
    origin = loaded.records.origins[record_id]
    if origin.file is None:
        raise UsageError(f"{record_id}: not read from a file of this records folder; kb review changes only those")
    return origin.file


def _key_order(loaded: Loaded, record_id: str) -> list[str]:
    data = loaded.records.origins[record_id].doc.data
    return list(data) if isinstance(data, dict) else []


def _save(root: str | Path, loaded: Loaded, record: Record, file: Path | None = None) -> Path:
    """Write ``record`` over its own file (or ``file``) through the write gate, with the policy
    of a team's own records (``Redactor(personal=False)``: secrets go, what a person wrote
    otherwise stays; README, "Redaction")."""
    at = file or _file(loaded, record.id)
    return save_record(root, record, new=False, overwrite=True, at=at, key_order=_key_order(loaded, record.id),
                       redactor=Redactor(personal=False)).path


# --------------------------------------------------------------------------- accept


def accept_draft(root: str | Path, loaded: Loaded, record_id: str) -> Path:
    """Make draft ``record_id`` a reviewed record (``status: reviewed``), written over its own
    file through the write gate; return the path. Raises :class:`kb.errors.UsageError` when it
    is no draft, and the write gate's errors."""
    a = _attempt(loaded, record_id)
    if a.status != "draft":
        raise UsageError(f"{record_id}: already reviewed")
    return _save(root, loaded, a.model_copy(update={"status": "reviewed", "notes": reviewed_notes(a.notes)}))


# --------------------------------------------------------------------------- edit


def start_edit(root: str | Path, loaded: Loaded, record_id: str) -> Path:
    """The file to open in an editor for draft ``record_id``: its unfinished edit when one is
    kept, else a copy of the draft's file made now (:func:`kb.store.review.keep_edit`)."""
    if read_edit(root, record_id) is None:
        keep_edit(root, record_id, read_regular(_file(loaded, record_id)).decode("utf-8"))
    return edit_path(root, record_id)


@dataclass
class EditResult:
    """What :func:`finish_edit` found: ``changed`` (the edit differs from the draft's file),
    ``record`` (the record saved, when the edit was valid and changed), ``path`` (the record's
    file), ``problems`` (``file:line: field: message`` of an edit that does not validate: it was
    kept at ``edit``)."""

    changed: bool
    record: Attempt | None
    path: Path | None
    problems: list[Problem]
    edit: Path


def finish_edit(root: str | Path, loaded: Loaded, record_id: str) -> EditResult:
    """Validate the edit of ``record_id`` (:func:`start_edit`) as the record file it will
    replace: the YAML, the model, and that every record it names exists. A valid, changed edit
    is written over the draft's file through the write gate and the edit removed; an unchanged
    one is removed; one with problems is kept, every problem located in the edit's file."""
    edit = edit_path(root, record_id)
    text = read_edit(root, record_id)
    original = _file(loaded, record_id)
    if text is None:
        raise UsageError(f"{record_id}: no edit in progress (start one with [e]dit)")
    if text == read_regular(original).decode("utf-8"):
        drop_edit(root, record_id)
        return EditResult(False, None, original, [], edit)
    shown = _shown(root, edit)
    record, doc, problems = parse_record(text, shown, Attempt.folder, record_id)
    if record is not None and doc is not None:
        problems = _reference_problems(loaded, record, doc, shown)
    if problems or not isinstance(record, Attempt):
        return EditResult(True, None, None, problems, edit)
    path = _save(root, loaded, record, original)
    drop_edit(root, record_id)
    return EditResult(True, record, path, [], edit)


def _shown(root: str | Path, path: Path) -> str:
    """``path`` as problems show record files: from the records folder's name on."""
    root = Path(root)
    try:
        return (Path(root.name) / path.relative_to(root)).as_posix() if root.name else str(path)
    except ValueError:
        return str(path)


def _reference_problems(loaded: Loaded, record: Record, doc: Any, shown: str) -> list[Problem]:
    """The references of ``record`` (read from ``doc``, the file ``shown``) to records that do not
    exist or are of another kind, each located at its line."""
    from kb.graph import _KIND_NAMES, _closest

    out = []
    refs = list(references(record))
    if isinstance(record, Attempt) and record.retry_of:
        refs.append((("retry_of",), record.retry_of, Attempt, "retry_of"))
    for path, target, kind, _edge in refs:
        found = loaded.graph.get(target)
        if target == record.id:
            out.append(Problem(shown, doc.line_of(path), ".".join(map(str, path)), "an attempt cannot name itself"))
        elif not isinstance(found, kind):
            hint = _closest(target, [r.id for r in loaded.records.of_kind(kind)])  # as kb check words it
            out.append(Problem(shown, doc.line_of(path), ".".join(map(str, path)),
                               f"no {_KIND_NAMES.get(kind, kind.__name__.lower())} '{target}'"
                               + (hint or "; name an existing one or remove it")))
    return out


# --------------------------------------------------------------------------- merge


MERGE_CANDIDATES = 5
"""Attempts :func:`merge_candidates` offers."""


def merge_candidates(loaded: Loaded, record_id: str, n: int = MERGE_CANDIDATES) -> list[tuple[str, str]]:
    """The attempts draft ``record_id`` most likely repeats, best first, as ``(id, why)``: those
    :func:`kb.queries.possible_duplicates` names first, then by how alike the titles and
    approaches read, the same stack, the flags shared and the dates' distance; attempts of the
    same campaign only, reviewed ones before drafts at equal score."""
    from kb.queries import possible_duplicates

    kg = loaded.graph
    draft = _attempt(loaded, record_id)
    dupes = dict(possible_duplicates(kg, draft))
    flags = set(draft.config.flags)
    scored = []
    for other in kg.attempts_of(draft.campaign):
        if other.id == draft.id or other.id in loaded.records.catalog_of:
            continue
        why = []
        score = 0.0
        if other.id in dupes:
            score += 3
            why.append(dupes[other.id])
        title = difflib.SequenceMatcher(None, draft.title.lower(), other.title.lower()).ratio()
        approach = difflib.SequenceMatcher(None, draft.approach.lower(), other.approach.lower()).ratio()
        score += title + approach / 2
        if title >= 0.5:
            why.append(f"title {title:.0%} alike")
        if draft.stack and other.stack == draft.stack:
            score += 0.5
            why.append(f"same stack {draft.stack}")
        shared = flags & set(other.config.flags)
        if shared:
            score += len(shared) / max(len(flags), 1)
            why.append(f"{len(shared)} of {len(flags)} flags shared")
        days = abs((other.date - draft.date).days)
        score += 0.5 / (1 + days)
        if days == 0 and other.id not in dupes:
            why.append("same date")
        score += 0.01 if other.status == "reviewed" else 0
        scored.append((-score, other.id, "; ".join(why) or "same campaign"))
    scored.sort()
    return [(rid, why) for _s, rid, why in scored[:n]]


_SCALARS = ("title", "date", "campaign", "approach", "hypothesis", "platform", "stack", "outcome", "baseline",
            "retry_of", "error", "blocked_by")
_MAPS = (("components",), ("config", "env"), ("config", "settings"), ("metrics",))


@dataclass
class Conflict:
    """A field both hold with different values: its dotted ``field``, the attempt's value
    (``kept``) and the draft's (``offered``), as plain data."""

    field: str
    kept: Any
    offered: Any
    path: tuple[str, ...] = ()


@dataclass
class MergePlan:
    """What merging draft ``draft`` into attempt ``target`` does: the draft's ``sources`` the
    attempt lacks; ``filled``: ``(field, value)`` the attempt leaves empty and takes from the
    draft (its new metrics among them); ``conflicts``; ``tags`` added; the ``referrers`` whose
    references to the draft will name the attempt (``(record id, field)``)."""

    draft: Attempt
    target: Attempt
    sources: list[Source]
    filled: list[tuple[str, Any]]
    conflicts: list[Conflict]
    tags: list[str]
    referrers: list[tuple[str, str]]
    _fill_paths: list[tuple[str, ...]] = field(default_factory=list, repr=False)


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    cur: Any = data
    for p in path:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(p)
    return cur


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    cur = data
    for p in path[:-1]:
        cur = cur.setdefault(p, {})
    cur[path[-1]] = value


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def _same(path: tuple[str, ...], a: Any, b: Any) -> bool:
    """Whether two values of the field at ``path`` say the same: a metric by value and unit (``96.1``
    and ``96.10``), a component by version, anything else by equality."""
    if path[0] == "metrics" and isinstance(a, dict) and isinstance(b, dict):
        return bool(a.get("value") == b.get("value") and a.get("unit") == b.get("unit"))
    if path[0] == "components" and isinstance(a, dict) and isinstance(b, dict):
        return bool(a.get("version") == b.get("version"))
    return bool(a == b)


def _slots(draft: dict[str, Any], target: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [(f,) for f in _SCALARS] + [("config", "command"), ("config", "flags")]
    for base in _MAPS:
        keys = list(_get(draft, base) or {})
        out += [(*base, k) for k in keys]
    return out


def plan_merge(loaded: Loaded, record_id: str, target_id: str) -> MergePlan:
    """What merging draft ``record_id`` into attempt ``target_id`` would do (nothing written).

    Raises :class:`kb.errors.UsageError` when ``target_id`` is no attempt of these records, is
    the draft itself, or comes from a catalog."""
    draft = _attempt(loaded, record_id)
    found = loaded.records.get(target_id)
    if not isinstance(found, Attempt) or target_id in loaded.records.catalog_of:
        close = difflib.get_close_matches(target_id, [a.id for a in loaded.records.of_kind(Attempt)], n=1)
        raise UsageError(f"{target_id}: no such attempt" + (f" (did you mean {close[0]}?)" if close else ""))
    if target_id == record_id:
        raise UsageError(f"{target_id}: a draft cannot be merged into itself")
    target = found
    d, t = _plain(draft), _plain(target)
    filled, fill_paths, conflicts = [], [], []
    for path in _slots(d, t):
        offered, kept = _get(d, path), _get(t, path)
        if _empty(offered) or (path[-1] in ("baseline", "retry_of") and offered == target.id):
            continue
        if _empty(kept):
            filled.append((".".join(path), offered))
            fill_paths.append(path)
        elif not _same(path, kept, offered):
            conflicts.append(Conflict(".".join(path), kept, offered, path))
    sources = [s for s in draft.source if s not in target.source]
    tags = [tag for tag in draft.tags if tag not in target.tags and tag != IMPORT_TAG]
    referrers = [(r.id, f) for r, f in _referrers(loaded, record_id) if r.id != target.id]
    return MergePlan(draft, target, sources, filled, conflicts, tags, referrers, fill_paths)


def _plain(a: Attempt) -> dict[str, Any]:
    return a.model_dump(mode="python", by_alias=True, exclude_none=True)


def _referrers(loaded: Loaded, record_id: str) -> list[tuple[Record, str]]:
    """Every record naming ``record_id``, with the dotted field that names it (one pair each)."""
    out = []
    for rec in loaded.records.records.values():
        if rec.id == record_id or rec.id in loaded.records.catalog_of:
            continue
        refs = [(path, target) for path, target, _k, _e in references(rec)]
        if isinstance(rec, Attempt) and rec.retry_of:
            refs.append((("retry_of",), rec.retry_of))
        out += [(rec, ".".join(map(str, path))) for path, target in refs if target == record_id]
    return out


def _shown_value(value: Any) -> str:
    if isinstance(value, dict) and "value" in value and "unit" in value:
        return f"{value.get('text') or format(value['value'], 'g')} {value['unit']}"
    if isinstance(value, dict) and set(value) >= {"version"}:
        return str(value["version"])
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value.value) if hasattr(value, "value") and not isinstance(value, (int, float)) else str(value)


def shown_value(value: Any) -> str:
    """A field's value as one line of text (a metric ``96.10 tok/s``, a list ``a, b``, a date ``2026-02-27``)."""
    return " ".join(_shown_value(value).split())


def merged_notes(plan: MergePlan, kept: list[Conflict], today: dt.date) -> str:
    """The attempt's notes after the merge: its own, then a paragraph naming the draft and where
    it came from, the draft's values it kept its own over (``kept``), and the draft's notes less
    what only a draft needs (the request for review, the list of possible duplicates)."""
    d = plan.draft
    src = anchor_source(d)
    origin = f" (drafted from {src.file or src.url}{' ' + src.locator if src.locator else ''})" if src else ""
    parts = [f"Merged from draft `{d.id}`{origin} in `kb review` on {today.isoformat()}."]
    if kept:
        parts.append("The draft differed; this attempt's values were kept: "
                     + "; ".join(f"{c.field}: the draft had \"{shown_value(c.offered)}\"" for c in kept) + ".")
    notes = reviewed_notes(d.notes) or ""
    if DUPLICATE_NOTE in notes:  # the list that follows it runs to the end of the notes
        notes = notes.split(DUPLICATE_NOTE, 1)[0]
    notes = re.sub(r"\n{3,}", "\n\n", notes).strip()
    if notes:
        parts.append("The draft's notes:\n\n" + "\n".join(("> " + ln) if ln else ">" for ln in notes.splitlines()))
    own = (plan.target.notes or "").rstrip()
    return (own + "\n\n" if own else "") + "\n\n".join(parts) + "\n"


@dataclass
class MergeResult:
    """What :func:`apply_merge` wrote: the attempt's ``path``, the ``redirected`` records (their
    references to the draft now name the attempt) and the draft file ``removed``."""

    path: Path
    redirected: list[str]
    removed: Path


def apply_merge(root: str | Path, loaded: Loaded, plan: MergePlan, take: Collection[str] = (),
                today: dt.date | None = None) -> MergeResult:
    """Merge as ``plan`` says, taking the draft's value for the conflicting fields named in
    ``take`` (dotted, as :attr:`Conflict.field`) and keeping the attempt's elsewhere: the
    attempt is written first, then each record that named the draft, and only then is the
    draft's file removed (an interruption in between leaves the draft in place, and merging it
    again adds nothing twice). Raises the write gate's errors and
    :class:`kb.errors.InvalidRecords` when the merged attempt would not validate."""
    today = today or dt.date.today()
    data = _plain(plan.target)
    d = _plain(plan.draft)
    for slot in plan._fill_paths:
        _set(data, slot, _get(d, slot))
    kept = []
    for c in plan.conflicts:
        if c.field in take:
            _set(data, c.path, c.offered)
        else:
            kept.append(c)
    data["source"] = [s.model_dump(mode="python", exclude_none=True) for s in plan.target.source + plan.sources]
    data["tags"] = list(plan.target.tags) + plan.tags
    data["notes"] = merged_notes(plan, kept, today)
    data.pop("redacted", None)  # the write gate counts the placeholders again
    for name in ("baseline", "retry_of"):
        if data.get(name) == plan.draft.id:
            data[name] = None  # the attempt would name itself
    merged = _validated(Attempt, data, loaded, plan.target.id)
    path = _save(root, loaded, merged)
    redirected = []
    for rec, _f in _referrers(loaded, plan.draft.id):
        if rec.id == plan.target.id:
            continue
        _save(root, loaded, _renamed(rec, plan.draft.id, plan.target.id, loaded))
        redirected.append(rec.id)
    removed = remove_record(root, plan.draft, at=_file(loaded, plan.draft.id))
    return MergeResult(path, sorted(set(redirected)), removed)


def _validated(model: type[Record], data: dict[str, Any], loaded: Loaded, record_id: str) -> Any:
    from pydantic import ValidationError

    from kb.errors import InvalidRecords
    from kb.validation import located_problems

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRecords(located_problems(exc, model, loaded.records.origins[record_id].path)) from None


def _renamed(rec: Record, old: str, new: str | None, loaded: Loaded) -> Record:
    """``rec`` with each reference to ``old`` naming ``new`` instead (``None``: the reference
    dropped: a scalar emptied, a list item removed)."""
    data = rec.model_dump(mode="python", by_alias=True, exclude_none=True)
    refs = [path for path, target, _k, _e in references(rec) if target == old]
    if isinstance(rec, Attempt) and rec.retry_of == old:
        refs.append(("retry_of",))
    for path in sorted(refs, key=lambda p: [str(x) for x in p], reverse=True):  # list items from the end
        cur: Any = data
        for p in path[:-1]:
            cur = cur[p]
        if new is None and isinstance(cur, list):
            del cur[path[-1]]
        elif new is None:
            cur.pop(path[-1], None)
        elif isinstance(cur, list) and new in cur:
            del cur[path[-1]]  # it names the attempt already
        else:
            cur[path[-1]] = new
    return _validated(type(rec), data, loaded, rec.id)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- reject


@dataclass
class RejectResult:
    """What :func:`reject_draft` did: the ``rejection`` kept (in ``rejections``, the file), the
    drafts whose baseline or retry reference to it was dropped (``cleared``), the file ``removed``."""

    rejection: Rejection
    rejections: Path
    cleared: list[str]
    removed: Path


def reject_draft(root: str | Path, loaded: Loaded, record_id: str, reason: str,
                 today: dt.date | None = None) -> RejectResult:
    """Reject draft ``record_id`` for ``reason``: keep the reason and the passage it was drafted
    from (:func:`kb.store.review.add_rejection`; ``kb import`` then leaves that passage out),
    drop the references other drafts make to it (each such draft gets a line in its notes), then
    remove its file.

    Raises :class:`kb.errors.UsageError` for an empty reason, for a record that is no draft, and
    when a reviewed record (or a campaign, a decision) names the draft: that record must stop
    naming it first (nothing is written then)."""
    reason = " ".join(reason.split())
    if not reason:
        raise UsageError("a rejection needs a reason (it is kept, so that a re-import can say why it leaves the draft out)")
    a = _attempt(loaded, record_id)
    if a.status != "draft":
        raise UsageError(f"{record_id}: a reviewed attempt is not rejected in review; delete its file if it must go")
    referrers = _referrers(loaded, record_id)
    held = [(r, f) for r, f in referrers if not (isinstance(r, Attempt) and r.status == "draft"
                                                 and f in ("baseline", "retry_of"))]
    if held:
        raise UsageError(f"{record_id} is named by " + ", ".join(f"{r.id} ({f})" for r, f in held)
                         + "; change those first (or [m]erge the draft into the attempt it repeats, which "
                           "points them there)")
    today = today or dt.date.today()
    secrets = Redactor(personal=False)
    src = next((s for s in a.source if s.field == "attempt"), None)
    rejection = Rejection(id=a.id, reason=secrets.redact(reason), date=today, title=a.title,
                          file=src.file if src else None, sha256=src.sha256 if src else None,
                          locator=src.locator if src else None, key=src.key if src else None)
    kept = add_rejection(root, rejection)
    cleared = []
    for rec, f in referrers:
        updated = _renamed(rec, record_id, None, loaded)
        line = f"Its {f} was draft `{record_id}`, rejected in `kb review` on {today.isoformat()}: {rejection.reason}"
        updated = updated.model_copy(update={"notes": ((updated.notes or "").rstrip() + "\n\n" + line + "\n").lstrip()})
        _save(root, loaded, updated)
        cleared.append(rec.id)
    removed = remove_record(root, a, at=_file(loaded, record_id))
    return RejectResult(rejection, kept, sorted(set(cleared)), removed)
