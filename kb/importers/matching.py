"""Matching drafts to what the records hold: the passages already imported (stable keys), the
campaign a log belongs to, the blockers an error matches (specific signatures only), and the
existing stack and platform the facts of a log agree with. Used by :mod:`kb.importers.drafts`."""

from __future__ import annotations

import hashlib
from typing import Any

from kb.importers.model import ExtractedAttempt, Extraction, Fact
from kb.models import Attempt, Campaign, Platform, Stack
from kb.queries.signatures import is_generic
from kb.store import RecordSet


def _existing_sources(records: RecordSet) -> dict[tuple[str, str], str]:
    """Keys of the passages attempts were drafted from → the attempt's id: ``("key", key)`` for
    the stable key of an imported attempt's anchor (:func:`passage_key`), and ``(sha256,
    locator)`` of every source (anchors first), as drafts written before keys were recorded
    are identified."""
    found: dict[tuple[str, str], str] = {}
    for attempt in records.of_kind(Attempt):
        for source in sorted(attempt.source, key=lambda s: s.field != "attempt"):
            if source.key and source.field == "attempt":
                found.setdefault(("key", source.key), attempt.id)
            if source.sha256 and source.locator:
                found.setdefault((source.sha256, source.locator), attempt.id)
    return found


def passage_key(x: Extraction, attempt: ExtractedAttempt) -> str:
    """The identity of the passage an attempt was drafted from, the same however the log's bytes
    change around it: ``<format>:<session id or file name>:<event key>``. The event key
    (:attr:`ExtractedAttempt.key`, set by the scoring stage) is a digest of the event's own content
    (a call's id where the source has one) with the occurrence number of that content within the
    log, so two runs of the same text are two passages, and an edit above a run, or a resumed
    transcript, keeps every earlier run's key."""
    session = x.session_id or x.file
    event = attempt.key or hashlib.sha256(" ".join(attempt.anchor.quote.split()).encode("utf-8")).hexdigest()[:16]
    return f"{x.format}:{session}:{event}"


def campaign_terms(camp: Campaign) -> tuple[str, ...]:
    """Words a log names the campaign's model by: the model as written up to a parenthesis
    (``Kimi-K2.5 INT4``) and its first word (``Kimi-K2.5``), without an ``org/`` prefix."""
    model = camp.model.split("(", 1)[0].strip()
    model = model.rsplit("/", 1)[-1]
    terms = [model]
    first = model.split()[0] if model.split() else ""
    if len(first) >= 4 and first != model:
        terms.append(first)
    return tuple(t for t in terms if t)


def specific_blockers(kg: Any, text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Blockers whose signatures match ``text`` (an error headline and its detail), by the rule
    ``kb log`` links with (:func:`kb.queries.signatures.specific_matches`): those it links and
    that match by a specific signature (``KeyError: 12``, ``No supported CUDA architectures found
    for major versions [9, 10]``) go to ``blocked_by``; the other matches come back as
    ``(id, signature)`` possible matches: matched only by a generic signature
    (:data:`kb.queries.signatures.GENERIC_SIGNATURES`, e.g. ``CUDA out of memory``), or a catalog blocker matching the
    same text as the campaign's own blocker, or one of several matches none of which is specific."""
    from kb.models import Blocker
    from kb.queries import match_signatures
    from kb.queries.signatures import specific_matches

    if not text:
        return [], []
    linked = set(specific_matches(kg, text))
    specific: list[str] = []
    possible: list[tuple[str, str]] = []
    for blocker_id in match_signatures(kg, text):
        blocker = kg.get(blocker_id)
        signatures = blocker.signatures if isinstance(blocker, Blocker) else []
        matched = [s for s in signatures if match_signatures_one(s, text)]
        if not matched:
            continue
        generic = all(is_generic(s) for s in matched)
        if blocker_id in linked and not generic:
            specific.append(blocker_id)
        else:
            possible.append((blocker_id, matched[0]))
    return specific, possible


def match_signatures_one(signature: str, text: str) -> bool:
    """Whether one blocker signature matches ``text`` (the rule of :func:`kb.queries.match_signatures`)."""
    from kb.queries.signatures import _signature_matches

    return _signature_matches(signature, text)


def _consistent(seen: str, recorded: str) -> bool:
    """A version seen in a log agrees with a recorded one: equal, or a release prefix of it
    (``12.8`` seen by ``nvcc`` agrees with toolkit ``12.8.1``)."""
    return seen == recorded or recorded.startswith(seen + ".") or recorded.startswith(seen + "+")


def _match_stack(kg: Any, facts: list[Fact]) -> tuple[str | None, dict[str, str]]:
    """The one existing stack every stack fact agrees with (at least two agreeing), and the
    facts it does not hold (attempt-level ``components``); without such a stack, no stack
    and every fact as a component."""
    from kb.versions import parse_version

    seen: dict[str, str] = {}
    for fact in facts:
        try:
            parse_version(fact.value)
        except ValueError:
            continue
        seen[fact.name] = fact.value
    best: list[tuple[int, str]] = []
    for stack in kg.of_kind(Stack):
        comps = kg.stack_components(stack.id)
        agree, conflict = 0, False
        for name, value in seen.items():
            target = comps.get("cuda" if name == "torch-cuda" else name)
            if target is None or target.version is None:
                continue
            if _consistent(value, target.version):
                agree += 1
            else:
                conflict = True
        if not conflict and agree >= 2:
            best.append((agree, stack.id))
    best.sort(reverse=True)
    if best and (len(best) == 1 or best[0][0] > best[1][0]):
        stack_id = best[0][1]
        comps = kg.stack_components(stack_id)
        return stack_id, {n: v for n, v in seen.items() if n not in comps and n != "torch-cuda"}
    return None, seen


def _match_platform(kg: Any, facts: list[Fact]) -> tuple[str | None, list[Fact]]:
    """The one existing platform every platform fact agrees with, or ``None`` and the facts."""
    if not facts:
        return None, []
    found = []
    for platform in kg.of_kind(Platform):
        agree, conflict = 0, False
        for fact in facts:
            if fact.name == "compute_capability":
                ok = fact.value == platform.compute_capability
            elif fact.name == "gpu_count":
                ok = fact.value == str(platform.gpu_count)
            elif fact.name == "nvlink":
                ok = platform.nvlink is None or str(platform.nvlink).lower() == fact.value
            elif fact.name == "interconnect":
                ok = platform.interconnect is None or fact.value.lower().replace(" ", "") in platform.interconnect.lower().replace(" ", "")
            elif fact.name == "gpu":
                ok = fact.value.lower() in platform.gpu.lower() or platform.gpu.lower() in fact.value.lower()
            else:
                continue
            agree += ok
            conflict = conflict or not ok
        if agree and not conflict:
            found.append(platform.id)
    if len(found) == 1:
        return found[0], []
    return None, facts
