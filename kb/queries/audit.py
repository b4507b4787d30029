"""How current a catalog is: each catalog record's last check against its sources, what it
verified, and which of its signatures were read off code rather than seen in a report.

A record is *stale* when its ``checked`` date is more than :data:`STALE_AFTER_DAYS` days before
``today`` (or it has none): upstream projects ship fixes every few weeks, so a quarter-old
statement of "no fix" is a guess (issue 24: 2 of 22 records checked were stale).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from kb.graph import KnowledgeGraph
from kb.models import Blocker
from kb.staleness import STALE_AFTER_DAYS, TODAY_ENV, today

__all__ = ["STALE_AFTER_DAYS", "TODAY_ENV", "AuditRow", "audit_table", "catalog_audit", "stale_records", "today"]


@dataclass
class AuditRow:
    """One catalog record's audit: ``id``, ``catalog`` name, ``title``, whether it is a root
    cause, its upstream ``status``, ``checked`` date (``None``: never), ``age_days`` since then
    (``None`` without a date), ``stale`` (:data:`STALE_AFTER_DAYS`), ``verified`` lines,
    ``inferred_signatures`` and the first ``source`` URL."""

    id: str
    catalog: str
    title: str
    root: bool
    status: str
    checked: dt.date | None
    age_days: int | None
    stale: bool
    verified: list[str] = field(default_factory=list)
    inferred_signatures: list[str] = field(default_factory=list)
    source: str | None = None


def catalog_audit(kg: KnowledgeGraph, on: dt.date) -> list[AuditRow]:
    """Every catalog blocker of ``kg`` as an :class:`AuditRow`, judged on date ``on``, sorted by
    catalog, then root causes first, then id."""
    out = []
    for b in kg.of_kind(Blocker):
        name = kg.records.catalog_of.get(b.id)
        if name is None:
            continue
        age = (on - b.checked).days if b.checked else None
        url = next((s.url for s in b.source if s.url), None)
        out.append(AuditRow(b.id, name, b.title, b.is_root, b.status, b.checked, age,
                            age is None or age > STALE_AFTER_DAYS, list(b.verified), list(b.inferred_signatures), url))
    return sorted(out, key=lambda r: (r.catalog, not r.root, r.id))


def stale_records(kg: KnowledgeGraph, on: dt.date) -> list[AuditRow]:
    """The catalog records of ``kg`` whose check is older than :data:`STALE_AFTER_DAYS` on
    ``on`` (or missing), oldest first."""
    rows = [r for r in catalog_audit(kg, on) if r.stale]
    return sorted(rows, key=lambda r: (r.checked or dt.date.min, r.id))


AUDIT_START = "<!-- audit table: written from the records by kb.queries.audit.audit_table; edit the records -->"
AUDIT_END = "<!-- end of audit table -->"
"""The markers around the audit table in a catalog's ``CATALOG.md``."""


def audit_table(rows: list[AuditRow]) -> str:
    """The audit table of a catalog document as Markdown, between :data:`AUDIT_START` and
    :data:`AUDIT_END`: one row per record (``record | verified facts | checked | source``), in
    the order of ``rows``; pipes and newlines in the facts are escaped."""
    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    out = [AUDIT_START, "", "| record | verified facts | checked | source |", "|---|---|---|---|"]
    for r in rows:
        facts = "; ".join(cell(v) for v in r.verified) or "not re-checked"
        if r.inferred_signatures:
            facts += "; inferred from code: " + ", ".join(f"`{cell(s)}`" for s in r.inferred_signatures)
        out.append(f"| `{r.id}` | {facts} | {r.checked.isoformat() if r.checked else 'never'} | {r.source or '—'} |")
    return "\n".join([*out, "", AUDIT_END])
