"""Error signatures: blockers whose signatures occur in an error text, and attempts a new one may
repeat (the headline of an error text is :func:`kb.errortext.error_headline`)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import asdict, dataclass
from typing import Any

from kb.errortext import error_headline
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign
from kb.queries.index import index


def possible_duplicates(kg: KnowledgeGraph, attempt: Attempt) -> list[tuple[str, str]]:
    """Existing attempts that ``attempt`` (not yet in ``kg``) may repeat: same campaign and date,
    and the same figure for the campaign's headline metric, the same error headline, or a
    close title with the same outcome; or a calendar day apart with the same figure and a close
    approach (one run dated by two time zones: the import dates a run in the log's own offset,
    a person by their own day). Returns ``[(attempt id, reason)]`` sorted by id; used to flag an
    imported draft of a run someone already recorded by hand. Depends on no machine setting
    (``TZ``): only on the records' dates.
    """
    import difflib

    camp = kg.get(attempt.campaign)
    metric = camp.metric.name if isinstance(camp, Campaign) else None
    mine = attempt.metrics.get(metric) if metric else None
    my_error = error_headline(attempt.error or "")
    out = []
    day = dt.timedelta(days=1)
    for other in (*_same_day(kg).get((attempt.campaign, attempt.date - day), ()),
                  *_same_day(kg).get((attempt.campaign, attempt.date + day), ())):
        # a calendar day apart: the same run dated in two time zones (late evening in Tokyo is
        # the morning before in California) when its figure and approach agree
        theirs = other.metrics.get(metric) if metric else None
        if (other.id != attempt.id and mine is not None and theirs is not None and mine.value == theirs.value
                and mine.unit == theirs.unit and difflib.SequenceMatcher(
                    None, attempt.approach.lower(), other.approach.lower()).ratio() >= 0.6):
            out.append((other.id, f"a day apart (time zones), same {metric} {theirs.display()} and approach"))
    for other in _same_day(kg).get((attempt.campaign, attempt.date), ()):
        if other.id == attempt.id:
            continue
        theirs = other.metrics.get(metric) if metric else None
        if mine is not None and theirs is not None and mine.value == theirs.value:
            out.append((other.id, f"same date and {metric} {theirs.display()}"))
        elif my_error and my_error == error_headline(other.error or ""):
            out.append((other.id, f"same date and error ({my_error[:60]})"))
        elif other.outcome == attempt.outcome and difflib.SequenceMatcher(
                None, attempt.title.lower(), other.title.lower()).ratio() >= 0.6:
            out.append((other.id, "same date, outcome and a similar title"))
    return sorted(out)


def _same_day(kg: KnowledgeGraph) -> dict[tuple[str, object], list[Attempt]]:
    """``(campaign, date)`` → the graph's attempts of that campaign and day, sorted by id (once
    per graph: an import checks each of its drafts against them)."""
    def build() -> dict[tuple[str, object], list[Attempt]]:
        out: dict[tuple[str, object], list[Attempt]] = {}
        for a in kg.of_kind(Attempt):
            out.setdefault((a.campaign, a.date), []).append(a)
        return out
    return index(kg).memo("signatures.same_day", build)


GENERIC_SIGNATURES = frozenset({
    "cuda out of memory", "out of memory", "outofmemoryerror", "torch.outofmemoryerror", "cuda error",
    "nccl error", "runtimeerror", "segmentation fault", "killed", "timeout", "timed out", "assertionerror",
    "connection refused", "illegal memory access", "an illegal memory access was encountered", "core dumped",
    "valueerror", "keyerror", "importerror", "modulenotfounderror", "traceback (most recent call last)",
    "no kernel image is available for execution on the device", "cuda error: no kernel image is available",
    "invalid device function", "unhandled cuda error", "misaligned address",
})
"""Signatures (lower case, whitespace collapsed, without ``/``) that any failure of their kind
matches: a match on one of these alone is a "possible match", never linked."""


def is_generic(signature: str) -> bool:
    """Whether ``signature`` is one of :data:`GENERIC_SIGNATURES` (case and whitespace ignored).

    >>> is_generic("CUDA  out of memory"), is_generic("KeyError: 12")
    (True, False)
    """
    return " ".join(signature.lower().strip("/").split()) in GENERIC_SIGNATURES


_WORD = re.compile(r"\w")


def literal_in(signature: str, text: str) -> bool:
    """Whether the literal ``signature`` occurs in ``text`` (both with whitespace already
    collapsed) as a whole: where the signature starts or ends with a letter or digit, the text
    around that occurrence must not continue the word, so ``KeyError: 12`` is not found in
    ``KeyError: 120`` and ``libcudart.so.12`` not in ``libcudart.so.125``.

    >>> literal_in("KeyError: 12", "KeyError: 12"), literal_in("KeyError: 12", "x KeyError: 120")
    (True, False)
    >>> literal_in("KeyError: 12", "KeyError: 120 then KeyError: 12.")
    True
    """
    if not signature:
        return False
    head = bool(_WORD.match(signature[0]))
    tail = bool(_WORD.match(signature[-1]))
    start = text.find(signature)
    while start != -1:
        end = start + len(signature)
        if (not head or start == 0 or not _WORD.match(text[start - 1])) and \
                (not tail or end == len(text) or not _WORD.match(text[end])):
            return True
        start = text.find(signature, start + 1)
    return False


def _signature_matches(signature: str, text: str) -> bool:
    """Whether one signature matches ``text``: ``/regex/`` searched with :mod:`re`, else a
    literal found whole (:func:`literal_in`) with runs of whitespace collapsed on both sides."""
    if len(signature) > 2 and signature.startswith("/") and signature.endswith("/"):
        return _regex_matches(signature, text)
    return literal_in(" ".join(signature.split()), " ".join(text.split()))


REGEX_LINE_CHARS = 2000
"""Characters of each line a ``/regex/`` signature is searched in: a signature names an error
line, and searching a pattern that backtracks (``/.*out of memory/``) through a 5 MB one-line log
took minutes; bounded per line it takes milliseconds."""


def _regex_matches(signature: str, text: str) -> bool:
    """Whether the ``/regex/`` ``signature`` matches one line of ``text`` (each line's first
    :data:`REGEX_LINE_CHARS` characters); an invalid pattern matches nothing (``kb check``
    reports it)."""
    try:
        pattern = re.compile(signature[1:-1])
    except re.error:
        return False
    return any(pattern.search(line[:REGEX_LINE_CHARS]) is not None for line in text.splitlines())


def match_signatures(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """Ids of blockers with a signature found in ``error_text`` (sorted).

    A signature is a literal substring, compared with runs of whitespace collapsed and found
    whole (:func:`literal_in`: ``KeyError: 12`` is not in ``KeyError: 120``); one written
    ``/.../`` is a Python regular expression.
    """
    if not error_text:
        return []
    literals, patterns = index(kg).signatures
    norm = " ".join(error_text.split())  # once per text, not once per signature
    hits = {bid for sig, bid in literals if sig in norm and literal_in(sig, norm)}
    hits.update(bid for sig, bid in patterns if bid not in hits and _regex_matches(sig, error_text))
    return sorted(hits)


SPECIFIC_LENGTH = 16
"""A literal signature this long (characters, whitespace collapsed) names one failure; a shorter
one (``KeyError: 12``) may name several and is specific only when nothing else matches."""


def _matching(b: Blocker, text: str) -> list[str]:
    return [s for s in b.signatures if _signature_matches(s, text)]


def match_text(b: Blocker, text: str) -> list[str]:
    """The signatures of blocker ``b`` that ``text`` matches (as :func:`match_signatures` matches)."""
    return _matching(b, text)


def specific_matches(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """The matches of :func:`match_signatures` specific enough to link without asking.

    First, a blocker matched only by generic signatures (:data:`GENERIC_SIGNATURES`, ``CUDA out
    of memory``) is never linked, and a catalog blocker matched only by signatures that also
    match a campaign's own blocker gives way to it (the own one is linked, the catalog's still
    reported). Of what is left: the only match; else those matched by a regex or by a literal
    signature of at least :data:`SPECIFIC_LENGTH` characters that no other match's signature
    contains and lengthens."""
    found = match_signatures(kg, error_text)
    sigs = {bid: [s for s in _matching(b, error_text) if not is_generic(s)]
            for bid in found if isinstance(b := kg.get(bid), Blocker)}
    sigs = {bid: ss for bid, ss in sigs.items() if ss}
    norm = {bid: [" ".join(s.split()) for s in ss] for bid, ss in sigs.items()}
    catalog = kg.records.catalog_of
    own = {s for bid, ss in norm.items() if bid not in catalog for s in ss}
    norm = {bid: ss for bid, ss in norm.items() if bid not in catalog or not set(ss) <= own}
    if len(norm) <= 1:
        return sorted(norm)
    out = []
    for bid in sorted(norm):
        mine = norm[bid]
        if not any((s.startswith("/") and s.endswith("/")) or len(s) >= SPECIFIC_LENGTH for s in mine):
            continue
        others = [s for o, ss in norm.items() if o != bid for s in ss]
        if all(any(s in o and s != o for o in others) for s in mine):
            continue  # every signature of it is part of a longer one that matched too
        out.append(bid)
    return out


def catalog_matches(kg: KnowledgeGraph, error_text: str) -> list[str]:
    """Ids of catalog blockers (:mod:`kb.catalog`) that ``error_text`` matches by a signature that is
    not generic (:func:`is_generic`), sorted: how ``kb roots`` links an attempt to what the catalog
    knows of its failure, whatever the campaign's own records name. A short literal
    (``KeyError: 12``) counts here even when a campaign blocker has it too: the catalog's record
    and the campaign's then describe the same failure."""
    catalog = kg.records.catalog_of
    if not catalog or not error_text:
        return []
    out = []
    for bid in match_signatures(kg, error_text):
        b = kg.get(bid)
        if bid in catalog and isinstance(b, Blocker) and any(not is_generic(s) for s in _matching(b, error_text)):
            out.append(bid)
    return out


@dataclass
class Match:
    """A blocker an error text matches: ``blocker`` and its ``title``, ``source`` (``"campaign"`` or
    ``"catalog NAME"``), the ``signatures`` of it found in the text, ``specific`` (whether
    :func:`specific_matches` would link it without asking), ``same_as``: for a catalog blocker that is
    not specific only because a campaign blocker has the same signature, that blocker (the
    catalog's record of the same failure); else ``None`` (a possible match when not specific); its
    ``fix`` in words (:func:`kb.queries.fixtext.describe_fix`) and the ``attempts`` that hit it before
    (those naming it in ``blocked_by`` or whose error matches one of those signatures, newest first)."""

    blocker: str
    title: str
    source: str
    signatures: list[str]
    specific: bool
    fix: str
    attempts: list[str]
    same_as: str | None = None


@dataclass
class MatchResult:
    """What :func:`match_error` answers for one error text: its ``headline``
    (:func:`kb.errortext.error_headline`), every :class:`Match` (specific ones first, then by
    source, campaign first, then id), and ``same_error``: attempts whose error has the same
    headline, newest first."""

    headline: str
    matches: list[Match]
    same_error: list[str]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return asdict(self)


def match_error(kg: KnowledgeGraph, error_text: str) -> MatchResult:
    """Which blockers of the campaign and of the catalogs in use ``error_text`` matches by signature
    (:func:`match_signatures`), which earlier attempts hit each, and which printed the same headline:
    ``kb match``, read-only. Raises nothing for any text (an empty one matches nothing)."""
    from kb.queries.fixtext import describe_fix

    headline = error_headline(error_text)
    linked = set(specific_matches(kg, error_text))
    attempts = sorted(kg.of_kind(Attempt), key=lambda a: (a.date, a.id), reverse=True)
    out = []
    found = match_signatures(kg, error_text)
    catalog = kg.records.catalog_of
    own_sigs = {bid: {" ".join(s.split()) for s in _matching(b, error_text) if not is_generic(s)}
                for bid in found if bid not in catalog and isinstance(b := kg.get(bid), Blocker)}
    for bid in found:
        b = kg.get(bid)
        if not isinstance(b, Blocker):
            continue
        sigs = _matching(b, error_text)
        specific_sigs = [s for s in sigs if not is_generic(s)]
        hit = [a.id for a in attempts if bid in a.blocked_by
               or (a.error and any(_signature_matches(s, a.error) for s in specific_sigs))]
        name = catalog.get(bid)
        mine = {" ".join(x.split()) for x in specific_sigs}
        same_as = (next((o for o, ss in sorted(own_sigs.items()) if mine and mine <= ss), None)
                   if name and bid not in linked else None)
        out.append(Match(bid, b.title, f"catalog {name}" if name else "campaign", sigs, bid in linked,
                         describe_fix(b, kg), hit, same_as))
    out.sort(key=lambda m: (not m.specific, m.source != "campaign", m.source, m.blocker))
    same = [a.id for a in attempts if headline and a.error and error_headline(a.error) == headline]
    return MatchResult(headline, out, same)
