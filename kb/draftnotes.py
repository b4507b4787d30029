"""What kb writes into a draft attempt's notes, and reads back: the importer writes these
sentences (:mod:`kb.importers.drafts`), ``kb review`` drops those only a draft needs once it is
reviewed or merged (:mod:`kb.usecases.review`), and the site shows a draft's confidence
(:mod:`kb.site.pages.drafts`). One module, light to import, so that the three agree.

>>> draft_confidence(confidence_note(0.85, "sglang-bench output"))
(0.85, 'sglang-bench output')
>>> draft_confidence(confidence_note(0.4, "")), draft_confidence("written by hand")
((0.4, ''), None)
"""

from __future__ import annotations

import re

IMPORT_TAG = "imported"
"""Tag every imported draft carries."""

REVIEW_HINT = "Check each field against its source, then set `status: reviewed`."
"""The sentence of a draft's notes that asks for its review (``kb review`` drops it on accept)."""

DUPLICATE_NOTE = "Possibly a duplicate of an attempt already recorded:"
"""The paragraph of a draft's notes that names the attempts it may repeat (a list follows it, to
the end of the notes)."""

_CONFIDENCE = re.compile(r"^Confidence (\d(?:\.\d+)?)(?:: (.*?))?\.$", re.MULTILINE)


def confidence_note(confidence: float, reason: str) -> str:
    """The line of a draft's notes giving the importer's confidence (0-1, two decimals) and why:
    ``Confidence 0.85: a failed run (its output reports the failure).``"""
    return f"Confidence {confidence:.2f}: {reason}." if reason else f"Confidence {confidence:.2f}."


def draft_confidence(notes: str | None) -> tuple[float, str] | None:
    """The confidence and its reason that :func:`confidence_note` wrote into ``notes`` (the
    first such line), or ``None`` (a draft written by hand)."""
    m = _CONFIDENCE.search(notes or "")
    return (float(m.group(1)), m.group(2) or "") if m else None


def reviewed_notes(notes: str | None) -> str | None:
    """A draft's notes once it is reviewed: the request to check each field and set ``status:
    reviewed`` (:data:`REVIEW_HINT`) removed; ``None`` when nothing is left.

    >>> reviewed_notes("Drafted by `kb import` from a.md (markdown). " + REVIEW_HINT + "\\n\\nConfidence 0.90.\\n")
    'Drafted by `kb import` from a.md (markdown).\\n\\nConfidence 0.90.\\n'
    """
    if not notes:
        return notes
    return notes.replace(" " + REVIEW_HINT, "").replace(REVIEW_HINT, "") or None
