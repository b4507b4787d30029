"""What notebooks and plans say about decisions and about what was *not* run.

The conventions FORMATS.md names for lab notebooks and plan documents ("Decision" or "Conclusion"
sections, lists of rejected knobs, "we will", to-do lists), and MADR's section names ("Decision
Outcome", "Considered Options"): a decision statement (:func:`decision`), a heading whose section
holds a decision (:func:`decision_heading`), a heading whose section lists what was not done or
is still to do (:func:`not_done_heading`: its items are options, never attempts), and a
paragraph listing rejected options (:func:`rejected`).

>>> decision("Decision: upgrade the stack to CUDA 13."), decision("We will keep --tp 8."), decision("It ran.")
(True, True, False)
>>> not_done_heading("Next steps"), not_done_heading("2026-02-23 — allreduce experiments")
(True, False)
>>> rejected("Rejected for now: installing DeepEP, MSCCL++, fewer NCCL channels.")
['installing DeepEP', 'MSCCL++', 'fewer NCCL channels']
"""

from __future__ import annotations

import re

SOURCES = {
    "FORMATS.md (lab notebooks and plan documents) and MADR's template (adr.github.io/madr)": (
        "Decision", "Conclusion", "Decision Outcome", "Considered Options", "Rejected", "Not tried", "Next steps"),
}
"""The conventions read."""

_DECISION = re.compile(r"^\s*(?:\*\*)?Decision(?:\*\*)?\s*:|\bwe(?:'ll| will| decided| have decided)\b|\bdecided to\b", re.I)
_DECISION_HEADING = re.compile(r"\b(Decision|Decided|Decision Outcome)\b", re.I)
_CONCLUSION = re.compile(r"^\s*(?:\*\*)?(?:Conclusion|Result)s?(?:\*\*)?\s*:", re.I)
_REJECTED = re.compile(r"^\s*(?:\*\*)?(?:Rejected|Not tried|Ruled out|Dropped)\b[^:]*:\s*(.+)$", re.I | re.S)
_NOT_DONE = re.compile(r"\b(?:not tried|alternatives?|next steps?|try next|would try|ideas?|todo|to do|to-do|backlog|"
                       r"rejected|ruled out|open questions?|future(?: work)?|plans?|roadmap|considered options|"
                       r"projected|projections?|estimated?|estimates|theoretical|what-if)\b", re.I)


def decision(text: str) -> bool:
    """Whether a paragraph states a decision."""
    return bool(_DECISION.search(text))


def decision_heading(title: str) -> bool:
    """Whether a heading opens a section that holds a decision."""
    return bool(_DECISION_HEADING.search(title))


def conclusion(text: str) -> bool:
    """Whether a paragraph is a section's conclusion (``Conclusion: keep --cuda-graph-max-bs 128``)."""
    return bool(_CONCLUSION.match(text))


_SUMMARY_HEADING = re.compile(r"\b(?:summary|summaries|results?|conclusions?|lessons?(?:\s+learned)?|takeaways?|tl;?dr|"
                              r"recap|findings|overview|wrap-?up|what\s+we\s+learned|outcomes?|verdict|"
                              r"resumen|resultados|conclusi[oó]n(?:es)?|zusammenfassung|ergebnisse?|fazit|"
                              r"r[ée]sum[ée]|r[ée]sultats?|riepilogo|sintesi|risultati|conclusioni)\b|まとめ|総括|总结|結論|结论", re.I)
"""Headings that sum up (in English, Spanish, German, French, Italian, Japanese and Chinese)."""


def summary_heading(title: str) -> bool:
    """Whether a heading opens a section that sums up runs given elsewhere (``Results``,
    ``Lessons learned``, ``TL;DR``): its figures repeat them.

    >>> summary_heading("## Lessons learned"), summary_heading("Evening (after reboot)")
    (True, False)
    """
    return bool(_SUMMARY_HEADING.search(title))


def not_done_heading(title: str) -> bool:
    """Whether a heading opens a section of what was not done or is still to do, or of figures that
    were projected or estimated rather than measured."""
    return bool(_NOT_DONE.search(title))


_HARDWARE_HEADING = re.compile(r"^\W*(?:the\s+|our\s+)?(?:hardware(?:\s+(?:and|&)\s+software)?(?:\s+specs?)?|specs?|"
                               r"specifications?|gpu\s+specs?|test\s*(?:machine|system|bed|rig|box)|system|machine|"
                               r"environment|platform)\W*$", re.I)


def hardware_heading(title: str) -> bool:
    """Whether a heading opens a section that describes the hardware or the environment (``Hardware``,
    ``Specs``, ``Test machine``): a table there lists what the machines are, not runs on them.

    >>> hardware_heading("## Hardware"), hardware_heading("GPU specs"), hardware_heading("Hardware results")
    (True, True, False)
    """
    return bool(_HARDWARE_HEADING.match(title.strip()))


_PUBLISHED = frozenset({"published", "claimed", "reported", "official", "vendor", "advertised", "paper", "datasheet",
                        "theoretical", "quoted", "upstream's"})


def names_published(header: str) -> bool:
    """Whether a column header says its figures are someone else's (``Published``, ``Vendor claim``,
    ``Paper``, ``Theoretical``): next to a column of one's own runs, its cells are no runs.

    >>> names_published("Published"), names_published("Vendor claim (tok/s)"), names_published("Mine")
    (True, True, False)
    """
    return any(w in _PUBLISHED for w in re.findall(r"[a-z']+", header.lower()))


_GOALS = frozenset({"target", "targets", "goal", "goals", "expected", "required", "budget"})


def names_unmeasured(header: str) -> bool:
    """Whether a column header says its figures were not measured by this log's runs: someone
    else's (:func:`names_published`) or a goal (``Target (us)``, ``Goal``, ``Expected tok/s``,
    ``Latency budget``). A table whose every figure column is such holds no run.

    >>> names_unmeasured("Target (us)"), names_unmeasured("Latency budget (ms)"), names_unmeasured("After (us)")
    (True, True, False)
    """
    return names_published(header) or any(w in _GOALS for w in re.findall(r"[a-z']+", header.lower()))


def rejected(text: str) -> list[str] | None:
    """The options a ``Rejected ...: a, b, c`` paragraph lists, or ``None`` for any other text."""
    found = _REJECTED.match(text)
    if not found:
        return None
    parts = re.split(r",\s*(?:and\s+|or\s+)?|;\s*", found.group(1).strip().rstrip("."))
    return [" ".join(p.split()) for p in parts if p.strip()]


_REFERENCE = re.compile(r"\b(?:for reference|as (?:a )?reference|reference only|for comparison|just to compare)\b", re.I)


def reference_only(narration: str, label: str) -> bool:
    """Whether the narration says an arm is printed only as a reference (``BF16 is printed for
    reference only``): a sentence that says so names one of the arm's words (three letters or
    more). Such an arm is not an attempt.

    >>> reference_only("Running both FP8 paths; BF16 is printed for reference only.", "torch-bf16")
    True
    """
    words = {w for w in re.split(r"[\W_]+", label.lower()) if len(w) >= 3}
    for sentence in re.split(r"(?<=[.;!?])\s+", narration):
        if _REFERENCE.search(sentence) and words & set(re.split(r"[\W_]+", sentence.lower())):
            return True
    return False


_REFERENCE_LEAD = re.compile(r"\b(?:reference\s+(?:points?|numbers|figures|results)|for\s+reference|prior\s+(?:art|results|work)|"
                             r"published|reported\s+(?:numbers|figures|results)|what\s+others\s+\w+|upstream\s+numbers|"
                             r"claimed|from\s+the\s+(?:paper|docs|blog|literature))\b", re.I)
_ATTRIBUTED = re.compile(r"(?:'s|’s)\s+(?:[\w-]+\s+){0,2}(?:blog|paper|report|docs|documentation|article|announcement|"
                         r"numbers|figures|results|model\s+card|leaderboard|slides|talk)\b|"
                         r"\b(?:paper|report|blog|docs|documentation|article|model\s+card)\s+(?:quotes|reports|claims|says|"
                         r"lists|shows|cites)\b|\b(?:quotes|claims|advertises|cites)\b|"
                         r"\b(?:data\s?sheets?|spec\s?sheets?|not\s+measured|unmeasured)\b", re.I)


REFERENCE_WORDS = frozenset({"baseline", "base", "default", "defaults", "stock", "before", "reference", "ref", "vanilla",
                             "original", "unoptimized", "unoptimised", "naive", "upstream", "referenz", "référence",
                             "referencia", "riferimento", "referência", "basislinie"})
"""Words by which a row or arm calls itself the reference its group is compared with (a tie-breaker:
without one the first measured row is the baseline), in English and a few other languages."""
REFERENCE_MARKS = ("参考", "基准", "基線", "基线", "リファレンス", "ベースライン", "基準")
"""The same in scripts written without spaces between words (Chinese, Japanese)."""


def names_reference(text: str, first: int | None = None) -> bool:
    """Whether a row's, arm's or note's words (its ``first`` words, when given) call it the
    reference: one of :data:`REFERENCE_WORDS` (``8192 (default)``, ``baseline TP8``).

    >>> names_reference("8192 (default)"), names_reference("EAGLE-3 steps=3")
    (True, False)
    """
    from kb.importers.read.prose import words

    head = text if first is None else " ".join(text.split()[:first])
    return any(w in REFERENCE_WORDS for w in words(text)[:first]) or any(mark in head for mark in REFERENCE_MARKS)


_AGAINST = frozenset({"vs", "versus", "than", "over", "against", "to", "relative", "from", "beyond", "and", "then", "after"})
"""Words by which a heading's reference word is what the section is compared with (``Speed-up over
baseline``) or one of several things it holds (``baseline and graph batch size``, ``before/after``)."""


def reference_heading(heading: str) -> bool:
    """Whether a section heading says its section holds the reference runs (``Direct MLX
    Performance (Baseline)``, ``Baseline: stock vLLM``, ``Before tuning``), not a comparison with
    them (``Speed-up vs baseline``) nor the baseline and what was tried next (``baseline and graph
    batch size``).

    >>> reference_heading("Direct MLX Library Performance (Baseline)"), reference_heading("Gain over the baseline")
    (True, False)
    >>> reference_heading("Decode patch: before/after on the A6000")
    False
    """
    from kb.importers.read.prose import words

    said = words(heading)
    if not any(w in REFERENCE_WORDS for w in said):
        return any(mark in heading for mark in REFERENCE_MARKS)
    return not any(w in _AGAINST for w in said)


def introduces_references(lead: str | None) -> bool:
    """Whether the paragraph before a list says its items are references, not runs (``Reference
    points before we start:``, ``Published numbers:``): a lead-in that ends with a colon and names
    reference, published or claimed figures.

    >>> introduces_references("Reference points before we start:"), introduces_references("What we ran:")
    (True, False)
    """
    text = (lead or "").strip()
    return text.endswith(":") and bool(_REFERENCE_LEAD.search(text))


def attributed(text: str) -> bool:
    """Whether a note gives its figure as someone else's (``SGLang's blog: 1,850 tok/s``, ``the
    tech report quotes 20 tok/s``): a publication named with a possessive, or a verb of quoting;
    or as no measurement at all (a datasheet's figures, ``not measured``).

    >>> attributed("The DeepSeek-V3 tech report quotes 20 tok/s per user."), attributed("FA on: 41 tok/s")
    (True, False)
    >>> attributed("The card, from its datasheet (not measured):")
    True
    """
    return bool(_ATTRIBUTED.search(text))


_CITATION = re.compile(r"(?<![\w/])[A-Za-z][\w.-]*#\d+\b|github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+")


def cites_thread(text: str) -> bool:
    """Whether a note cites an issue or pull request (``sglang#5012``, a GitHub issue link): an
    error it quotes there is the thread's, reported by someone else.

    >>> cites_thread("A related error is reported upstream in sglang#5012:"), cites_thread("Run #3 crashed")
    (True, False)
    """
    return bool(_CITATION.search(text))


_NAMES_REFERENCE = re.compile(r"\b(?:baseline|reference|default|stock|compared (?:to|with|against))\b", re.I)


_ATTRIBUTIVE = re.compile(r"\b(?:default|stock)\b[*_`\s]+(?!(?:run|runs|config|configuration|setup|build|settings?)\b)"
                          r"(?=[A-Za-z])", re.I)
"""``default`` or ``stock`` before a noun that is no run (``default kernels``, ``stock clocks``):
it describes the noun, it names no reference run."""


def named_references(text: str) -> set[str]:
    """The names a note designates as the reference runs are compared with (``FlashInfer is the
    default here, so it is the reference in every table`` → ``{"flashinfer"}``): the capitalised or
    digit-bearing words of a sentence that says baseline, reference or default, lower-cased.

    >>> sorted(named_references("FlashInfer is the default here, so it is the reference in every table."))
    ['flashinfer']
    """
    found: set[str] = set()
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        if not _NAMES_REFERENCE.search(_ATTRIBUTIVE.sub("", sentence)):
            continue  # "vLLM's default kernels came out ahead", "the default recommendation": no run named the reference
        for word in re.findall(r"[A-Za-z][\w.+-]*", sentence):
            if (word[0].isupper() and len(word) > 2 and word.lower() not in _COMMON) or any(c.isdigit() for c in word):
                found.add(word.lower().rstrip("."))
    return found


_COMMON = frozenset({"the", "this", "that", "these", "those", "baseline", "reference", "default", "stock", "all", "every",
                     "each", "here", "we", "our", "it", "its", "for", "and", "but", "so", "with", "against", "compared",
                     "runs", "run", "table", "tables", "results", "note", "values", "figures", "numbers"})


_CALLS_BASELINE = re.compile(r"\b(?:re-?measur\w*|measur\w*|establish\w*|record\w*|run\w*|get\w*|tak\w*)\s+"
                             r"(?:the\s+|a\s+|our\s+|today's\s+|a\s+fresh\s+)?baseline\b|"
                             r"^\s*baseline\b(?!\s+(?:is\s+|was\s+)?(?:done|finished|complete\w*|in\b|measured|recorded))",
                             re.I)


def calls_baseline(text: str) -> str | None:
    """The words by which an agent says the run it is about to start measures the baseline
    (``Measure the baseline first``, ``Baseline: ...``), or ``None``.

    >>> calls_baseline("Now measure the baseline with --tp 8."), calls_baseline("Compare it with the baseline.")
    ('measure the baseline', None)
    >>> calls_baseline("Baseline done. Now with the draft model.") is None  # the run before it was the baseline
    True
    """
    found = _CALLS_BASELINE.search(text.strip())
    return found.group(0).strip() if found else None


_WARMUP = re.compile(r"\bwarm[\s_-]?up\b", re.I)


def names_warmup(text: str) -> bool:
    """Whether a pass's name says it is a warm-up (``=== WARMUP (10 users) ===``, ``warm-up``): a
    pass run to be thrown away, not measured.

    >>> names_warmup("=== WARMUP (10 users) ==="), names_warmup(":: warm_up ::"), names_warmup("run 2")
    (True, True, False)
    """
    return bool(_WARMUP.search(text))
