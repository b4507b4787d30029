"""Versions, specifiers and component names, only through :mod:`packaging` (PEP 440).

Versions are strings in records (``"2.10"`` is not ``2.1``) and keep local tags verbatim
(``"2.10.0+cu128"``); comparisons go through :class:`packaging.version.Version`, which ignores
the local tag when a specifier has none, as PEP 440 says.

>>> satisfies("13.0", ">=13").ok
True
>>> satisfies("2.7.0+cu128", ">=2.7.0").ok
True
>>> v = satisfies("2.11.0.dev20260220+cu130", ">=2.11")
>>> v.ok, v.note
(False, '2.11.0.dev20260220+cu130 is a pre-release, which >=2.11 excludes')
>>> satisfies("2.11.0.dev20260220+cu130", ">=2.11.0.dev0").ok
True
>>> canonical_component("flashinfer_python")
'flashinfer'
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

# Distribution names that mean the same component as a shorter, commonly used name.
# Source: the PyPI distribution names (flashinfer-python, sgl-kernel, nvidia-nccl-cu12/cu13).
_ALIASES = {
    "flashinfer-python": "flashinfer",
    "pytorch": "torch",
    "cuda-toolkit": "cuda",
    "nvidia-nccl-cu12": "nccl",
    "nvidia-nccl-cu13": "nccl",
    "nvidia-driver": "driver",
}


def canonical_component(name: str) -> str:
    """Canonical component name: PEP 503 normalised, then aliased (``flashinfer-python`` → ``flashinfer``)."""
    norm = canonicalize_name(name.strip())
    return _ALIASES.get(norm, norm)


def parse_version(text: str) -> Version:
    """Parse a PEP 440 version; raises ``ValueError`` naming the text and the expected form."""
    try:
        return Version(text)
    except InvalidVersion:
        raise ValueError(
            f"'{text}' is not a PEP 440 version (expected e.g. '12.8.1', '2.10.0+cu128', '2.11.0.dev20260220')"
        ) from None


def parse_specifier(text: str) -> SpecifierSet:
    """Parse a PEP 440 specifier set such as ``">=13.0"`` or ``">=12.9,<14"``.

    A bare version (``"13.0"``) is not a specifier; raises ``ValueError`` suggesting ``>=13.0``.
    """
    text = text.strip()
    if not text:
        raise ValueError("empty specifier; expected e.g. '>=13.0'")
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        hint = f"; did you mean '>={text}' or '=={text}'?" if _is_version(text) else ""
        raise ValueError(
            f"'{text}' is not a PEP 440 specifier set (expected e.g. '>=13.0', '<12.9', '>=0.6.17,<0.7'){hint}"
        ) from None


def _is_version(text: str) -> bool:
    try:
        Version(text)
        return True
    except InvalidVersion:
        return False


@dataclass(frozen=True)
class Verdict:
    """Result of checking one version against one specifier set.

    ``ok``: whether it holds; ``note``: why, when a pre-release or an unparseable version decided it.
    """

    ok: bool
    note: str = ""


def satisfies(version: str | None, spec: str) -> Verdict:
    """Whether component ``version`` satisfies PEP 440 specifier set ``spec``.

    A missing version (``None``) or one that is not PEP 440 never satisfies. ``version`` is what
    a stack *has installed*, so a pre-release is compared like any other version: PEP 440 says
    tools should "accept already installed pre-releases for all version specifiers" (a torch
    nightly ``2.11.0.dev...`` satisfies ``>=2.7.0``). The comparison is made explicitly with
    ``prereleases=True`` because :mod:`packaging` changed its default (before 25.0 a bare
    ``contains`` refused pre-releases, from 25.0 it admits them), and kb must not answer
    differently with the version installed.

    ``note`` says when a pre-release decided the answer: the release it precedes would have been
    answered otherwise (``2.11.0.dev1`` fails ``>=2.11``, which ``2.11.0`` passes), or the
    specifier names a pre-release itself (``>=2.11.0.dev0``).

    Raises ``ValueError`` when ``spec`` is not a specifier set.

    >>> satisfies("2.11.0.dev20260220+cu130", ">=2.7.0")
    Verdict(ok=True, note='')
    >>> satisfies("2.11.0.dev1", "<2.11").ok  # PEP 440: <V never admits V's own pre-releases
    False
    """
    sset = parse_specifier(spec)
    if version is None:
        return Verdict(False, "version unknown")
    try:
        v = Version(version)
    except InvalidVersion:
        return Verdict(False, f"'{version}' is not a PEP 440 version")
    ok = sset.contains(v, prereleases=True)
    if not v.is_prerelease:
        return Verdict(ok)
    release = Version(v.base_version)
    release_ok = sset.contains(release, prereleases=True)
    if not ok and release_ok:
        return Verdict(False, f"{version} is a pre-release, which {spec} excludes")
    if ok and not release_ok:
        return Verdict(True, f"{version} is a pre-release, which {spec} admits (its release {release} would not)")
    if ok and sset.prereleases:
        return Verdict(True, f"{version} is a pre-release, admitted because {spec} names one")
    return Verdict(ok)
