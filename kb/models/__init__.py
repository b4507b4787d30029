"""Typed record models: platform, stack, campaign, attempt, blocker, decision.

Strict pydantic 2 models (``extra="forbid"``): an unknown key is an error, a version must be a
string, a constraint must be a PEP 440 specifier set. Cross-record rules (references, cycles) live
in :mod:`kb.references`; this module checks one record at a time.

Field names follow DESIGN.md and the field's terms (attempt, blocker, root cause, ADR/MADR,
stack, compute capability, output throughput).
"""

from kb.models.base import (
    ID_RE,
    METRIC_NAMES,
    UNITS,
    Applicability,
    Component,
    Components,
    Date,
    Metric,
    Record,
    RecordId,
    Requirement,
    Source,
    Sources,
    SpecifierStr,
    VersionStr,
)
from kb.models.kinds import (
    DECISION_STATUSES,
    FIX_KINDS,
    KIND_BY_NAME,
    KINDS,
    Attempt,
    Blocker,
    Campaign,
    Config,
    Consequences,
    Decision,
    DecisionOutcome,
    Direction,
    Fix,
    HeadlineMetric,
    Option,
    Outcome,
    Platform,
    Stack,
    StackChange,
)

__all__ = [
    "DECISION_STATUSES", "FIX_KINDS", "ID_RE", "KINDS", "KIND_BY_NAME", "METRIC_NAMES", "UNITS", "Applicability",
    "Attempt", "Blocker", "Campaign", "Component", "Components", "Config", "Consequences", "Date", "Decision",
    "DecisionOutcome", "Direction", "Fix", "HeadlineMetric", "Metric", "Option", "Outcome", "Platform", "Record",
    "RecordId", "Requirement", "Source", "Sources", "SpecifierStr", "Stack", "StackChange", "VersionStr",
]
