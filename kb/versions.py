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

import re
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

COMPONENTS: dict[str, tuple[str, ...]] = {
    "cuda": (),
    "cuda-driver": (),
    "driver": (),
    "torch": ("torch",),
    "torch-cuda": (),
    "triton": ("triton", "pytorch-triton"),
    "flashinfer": ("flashinfer-python", "flashinfer"),
    "sglang": ("sglang",),
    "sgl-kernel": ("sgl-kernel",),
    "vllm": ("vllm",),
    "nccl": ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"),
    "transformers": ("transformers",),
    "xformers": ("xformers",),
    "flash-attn": ("flash-attn",),
    "tensorrt-llm": ("tensorrt-llm",),
    "deep-ep": ("deep-ep",),
    "deep-gemm": ("deep-gemm",),
    "mscclpp": ("mscclpp",),
    "bitsandbytes": ("bitsandbytes",),
    "cuda-python": ("cuda-python",),
}
"""The one component table: component name → the Python distributions (PyPI names, PEP 503
normalised; the first installed one wins) that provide it. ``cuda`` is the toolkit (nvcc),
``cuda-driver`` the newest CUDA the driver supports (nvidia-smi's "CUDA Version"), ``torch-cuda``
the CUDA torch was built with (``torch.version.cuda``). Components with no distribution are
read from tool output, not from packages.

Source: the PyPI names of each project (``flashinfer-python`` is FlashInfer's wheel;
``pytorch-triton`` is the nightly index's Triton; ``nvidia-nccl-cuXX`` is the NCCL wheel torch
depends on)."""

CAPTURED_COMPONENTS: tuple[str, ...] = ("torch", "triton", "flashinfer", "sglang", "sgl-kernel", "vllm", "nccl")
"""Components ``kb capture`` reads from the installed Python distributions."""

_ALIASES: dict[str, str] = {
    **{dist: comp for comp, dists in COMPONENTS.items() for dist in dists if dist != comp},
    "pytorch": "torch",
    "cuda-toolkit": "cuda",
    "nvidia-driver": "driver",
    "deepep": "deep-ep",
    "deepgemm": "deep-gemm",
    "flash-attention": "flash-attn",
}
"""Other names of a component (a distribution name, a common spelling) → the component."""

KNOWN_COMPONENTS: tuple[str, ...] = tuple(COMPONENTS)
"""Component names kb knows without any stack naming them."""

BUNDLED_IN: dict[str, str] = {"nccl": "torch", "triton": "torch"}
"""Components that a stack has through another one even when it records no version of them:
PyTorch's Linux wheels on PyPI depend on the ``nvidia-nccl-cu*`` and ``triton`` distributions and
load those (``torch.cuda.nccl.version()``, ``triton.__version__``), so a stack with torch runs an
NCCL and a Triton of torch's choosing. A stack may also say so itself: ``nccl: {version: 2.27.3,
bundled_in: torch}``."""


def component_for_package(name: str) -> str | None:
    """The component a Python distribution provides (``flashinfer-python`` → ``flashinfer``,
    ``nvidia-nccl-cu13`` → ``nccl``), or ``None`` for a package that is no stack component.

    >>> component_for_package("sgl_kernel"), component_for_package("numpy")
    ('sgl-kernel', None)
    """
    norm = canonicalize_name(name.strip())
    for comp, dists in COMPONENTS.items():
        if norm in dists:
            return comp
    return None


def components_from_packages(packages: dict[str, str] | Any,
                             wanted: tuple[str, ...] = CAPTURED_COMPONENTS) -> tuple[dict[str, str], dict[str, str]]:
    """Pick the ``wanted`` components out of ``{distribution name: version}`` (e.g. from
    :func:`kb.toolout.parse_pip_freeze` or :mod:`importlib.metadata`).

    Returns ``(components, distributions)``: ``{"torch": "2.11.0", "nccl": "2.28.9", ...}`` and, for
    each component found, the distribution it was read from (``{"nccl": "nvidia-nccl-cu13"}``).
    Names are matched after PEP 503 normalisation; :data:`COMPONENTS` says which distribution
    provides which component, first one found winning.
    """
    normal: dict[str, str] = {str(canonicalize_name(k)): v for k, v in packages.items()}
    components: dict[str, str] = {}
    distributions: dict[str, str] = {}
    for component in wanted:
        for dist in COMPONENTS.get(component, ()):
            if dist in normal:
                components[component] = normal[dist]
                distributions[component] = dist
                break
    return components, distributions


_CC = re.compile(r"^\s*(\d+)\.(\d+)\s*$")


def arch_of(compute_capability: str) -> str:
    """The CUDA arch of a compute capability, as nvcc's ``-arch`` spells it: ``"12.0"`` →
    ``"sm_120"``, ``"9.0"`` → ``"sm_90"``. Raises ``ValueError`` when it is not ``MAJOR.MINOR``.

    Source: NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities" (sm_XY for X.Y).

    >>> arch_of("12.0"), arch_of("9.0")
    ('sm_120', 'sm_90')
    """
    m = _CC.match(compute_capability or "")
    if not m:
        raise ValueError(f"'{compute_capability}' is not a compute capability; write MAJOR.MINOR, "
                         "e.g. 12.0 (Blackwell RTX PRO), 9.0 (H100/H200), 8.0 (A100)")
    return f"sm_{m.group(1)}{m.group(2)}"


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
        local = _LOCAL_LABEL.match(text)
        if local:
            raise ValueError(_local_label_message(text, local)) from None
        hint = f"; did you mean '>={text}' or '=={text}'?" if _is_version(text) else ""
        raise ValueError(
            f"'{text}' is not a PEP 440 specifier set (expected e.g. '>=13.0', '<12.9', '>=0.6.17,<0.7'){hint}"
        ) from None


_LOCAL_LABEL = re.compile(r"^\s*(~=|>=|<=|>|<|===)\s*([^+,\s]+)\+([A-Za-z0-9.]+)\s*$")
_CU_LABEL = re.compile(r"^cu(\d+)(\d)$")


def _local_label_message(text: str, m: re.Match[str]) -> str:
    """The message for a local label under an ordering operator (``>=2.10.0+cu130``): PEP 440
    allows local labels only with ``==`` and ``!=``; a ``cuXYZ`` label is a CUDA requirement that
    belongs in its own component (source: PEP 440, "Local version identifiers"; the confusion is
    reported in pypa/packaging#661)."""
    op, version, label = m.groups()
    msg = (f"'{text}': local version labels (+{label}) are only allowed with == and !=; "
           f"write '{op}{version}'")
    cu = _CU_LABEL.match(label)
    if cu:
        msg += f" and put the CUDA requirement in cuda: '>={cu.group(1)}.{cu.group(2)}'"
    return msg


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
