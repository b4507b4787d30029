"""One fix in words and as data: :func:`fix_phrase` (its kind and provenance), :func:`fix_json`,
a blocker's own fixes (:func:`own_fixes_text`). How a blocker is fixed over the graph, through its
causes and with the credit's hedge, is :func:`kb.queries.fixtext.describe_fix`.

>>> from kb.models import Blocker
>>> own_fixes_text(Blocker(id="b", title="t", fixed_by=[{"cuda": ">=13.0"}]))
'fixed by cuda>=13.0'
"""

from __future__ import annotations

from typing import Any

from kb.models import Blocker, Fix


def fix_json(fix: Fix) -> dict[str, Any]:
    """``fix.model_dump(mode="json")``, written out: an ``enables`` fix that is not reverted and
    names only ``requires`` is its requirement (``{"cuda": ">=13.0"}``, the shorthand it may be
    written as), any other the dict of every field (``None`` included). A new dict each call.

    Built by hand because :class:`kb.models.Fix`'s models build their serializer only when first
    used (``defer_build``): about 50 ms in a ``kb roots`` or ``kb why`` that dumps a few fixes.
    ``tests/test_query_index.py`` checks it against ``model_dump`` for every kind of fix."""
    if fix.kind == "enables" and not fix.reverted and not (fix.release or fix.pr or fix.flag or fix.advice
                                                            or fix.note):
        return dict(fix.requires)
    return {"kind": fix.kind, "requires": dict(fix.requires), "release": fix.release, "pr": fix.pr,
            "reverted": fix.reverted, "flag": fix.flag, "advice": fix.advice, "note": fix.note}


def requirement_text(requires: dict[str, str]) -> str:
    """``{flashinfer: ">=0.6.17", cuda: ">=12.9"}`` → ``"flashinfer>=0.6.17, cuda>=12.9"``."""
    return ", ".join(f"{name}{spec}" for name, spec in requires.items())


def _provenance(fix: Fix) -> str:
    bits = [f"release {fix.release}" if fix.release else "", fix.pr or ""]
    return "; ".join(b for b in bits if b)


def fix_phrase(fix: Fix, notes: bool = True) -> str:
    """One fix in words, with its kind and provenance:

    * enables: ``cuda>=13.0`` (``cuda>=13.0 (release 13.0; NVIDIA/x#1)``)
    * disables: ``torch>=2.11 only disables the feature (the crash becomes a clean refusal)``
    * workaround: ``workaround: TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas``
    * build option: ``build option: TORCH_CUDA_ARCH_LIST=12.0``
    * hardware gap: ``no upgrade fixes it: a hardware gap; switch backend``

    A reverted fix says so (``..., reverted upstream``). ``advice`` follows after ``;``, then
    ``note`` unless ``notes`` is false (summaries leave notes to the blocker's page).
    """
    prov = _provenance(fix)
    if fix.kind in ("enables", "disables") and not fix.requires:
        text = ("fixed upstream" if fix.kind == "enables"
                else "disabled upstream (the crash becomes a clean refusal, the feature stays off)")
        text += ", in no known release yet" if not fix.release else ""
    elif fix.kind == "enables":
        text = requirement_text(fix.requires)
    elif fix.kind == "disables":
        text = f"{requirement_text(fix.requires)} only disables the feature (the crash becomes a clean refusal)"
    elif fix.kind == "workaround":
        text = f"workaround: {fix.flag or fix.note}" if fix.flag or fix.note else "workaround"
    elif fix.kind == "build_option":
        text = f"build option: {fix.flag or fix.note}" if fix.flag or fix.note else "build option"
        if fix.requires:
            text += f" (with {requirement_text(fix.requires)})"
    else:
        text = "no upgrade fixes it: a hardware gap"
    if prov:
        text += f" ({prov})"
    if fix.reverted:
        text += ", reverted upstream (fixes nothing now)"
    note = fix.note if notes and (fix.kind not in ("workaround", "build_option") or fix.flag) else None
    extra = [x.rstrip(".") for x in (fix.advice, note) if x]
    if extra:
        text += "; " + "; ".join(extra)
    return text


def own_fixes_text(blocker: Blocker) -> str | None:
    """The blocker's own fixes in words, or ``None`` when it has no live version fix, no
    workaround fix and no hardware-gap entry."""
    enables = [f for f in blocker.fixed_by if f.kind == "enables" and not f.reverted and f.requires]
    disables = [f for f in blocker.fixed_by if f.kind == "disables" and not f.reverted and f.requires]
    others = [f for f in blocker.fixed_by if f not in enables and f not in disables]
    parts = []
    if enables:
        parts.append("fixed by " + " or ".join(fix_phrase(f, notes=False) for f in enables))
    parts.extend(fix_phrase(f, notes=False) for f in disables)
    parts.extend(fix_phrase(f, notes=False) for f in others)
    return "; ".join(parts) if parts else None


def has_own_fix(blocker: Blocker) -> bool:
    """Whether ``blocker`` has a version fix of its own that is not reverted (``enables`` or
    ``disables``); without one, it is resolved when all its causes are."""
    return any(f.is_version_fix for f in blocker.fixed_by)
