"""Queries over the knowledge graph: pure functions, results as dataclasses (``to_dict`` for JSON).

* :mod:`~kb.queries.resolution` — what a blocker is under a stack (resolved, only disabled, not
  applicable, standing); attempts' flags; a campaign's current stack.
* :mod:`~kb.queries.fixes` — one fix in words and as data; :mod:`~kb.queries.fixtext` — how a
  blocker is fixed, in words (:func:`describe_fix`, the one place), with the credit's hedge.
* :mod:`~kb.queries.roots` — root causes ranked by the attempts they blocked over the history
  (catalog links by signature, disputes), with what still stands now.
* :mod:`~kb.queries.nextsteps` — what to try next (``kb next``): retries, credits to verify,
  baselines to measure, plans to start, ranked by the attempts each would unblock.
* :mod:`~kb.queries.unblocks` — what a stack change resolves, disables, introduces; retries.
* :mod:`~kb.queries.credit` — retries of attempts; what a stack change is credited with, and
  whether that credit is confounded by other components that changed with it.
* :mod:`~kb.queries.why` — the chain from an attempt to its root causes, with the credit.
* :mod:`~kb.queries.findings` — contradictions and unfinished records (``kb check`` warnings).
* :mod:`~kb.queries.upgrades` — upgrade paths: candidate versions from the fixes' specifiers.
* :mod:`~kb.queries.signatures` — error headlines, signature matching, possible duplicates.
* :mod:`~kb.queries.compare` — what differs between two attempts (``kb diff``, the compare pages).
* :mod:`~kb.queries.index` — per-graph indexes the others share, built once per graph; the
  reverse links a page per record needs (:func:`citing_decisions`, :func:`resolving_decisions`).

Layering: graph → these modules → CLI, site, importers. No module here imports presentation code.
"""

from kb.queries.compare import AttemptDiff, diff_attempts
from kb.queries.credit import (
    Credit,
    attempt_credit,
    credit_sentence,
    decision_credit,
    retried,
    retries_of,
)
from kb.queries.findings import Finding, findings, findings_of
from kb.queries.fixes import fix_phrase, requirement_text
from kb.queries.fixtext import describe_fix
from kb.queries.index import citing_decisions, resolving_decisions
from kb.queries.nextsteps import NextStep, next_steps
from kb.queries.resolution import (
    BlockerStatus,
    attempt_flags,
    current_stack,
    resolve_blockers,
)
from kb.queries.roots import CatalogRoot, RootCause, RootsReport, catalog_roots, roots, roots_report
from kb.queries.signatures import Match, MatchResult, match_error, match_signatures, possible_duplicates
from kb.queries.unblocks import (
    DoneRetry,
    RetryCandidate,
    StillBlocked,
    UnblocksResult,
    default_from_stack,
    last_metric,
    parse_change,
    scope,
    unblocks,
)
from kb.queries.upgrades import candidate_versions, upgrade_candidates, upgrade_paths
from kb.queries.why import ChainLink, WhyResult, why

__all__ = [
    "AttemptDiff",
    "BlockerStatus",
    "CatalogRoot",
    "ChainLink",
    "Credit",
    "DoneRetry",
    "Finding",
    "Match",
    "MatchResult",
    "NextStep",
    "RetryCandidate",
    "RootCause",
    "RootsReport",
    "StillBlocked",
    "UnblocksResult",
    "WhyResult",
    "attempt_credit",
    "attempt_flags",
    "candidate_versions",
    "catalog_roots",
    "citing_decisions",
    "credit_sentence",
    "current_stack",
    "decision_credit",
    "default_from_stack",
    "describe_fix",
    "diff_attempts",
    "findings",
    "findings_of",
    "fix_phrase",
    "last_metric",
    "match_error",
    "match_signatures",
    "next_steps",
    "parse_change",
    "possible_duplicates",
    "requirement_text",
    "resolve_blockers",
    "resolving_decisions",
    "retried",
    "retries_of",
    "roots",
    "roots_report",
    "scope",
    "unblocks",
    "upgrade_candidates",
    "upgrade_paths",
    "why",
]
