"""The machine kb runs on, as records: :class:`kb.capture.Capture` → :class:`Stack` / :class:`Platform`.

:mod:`kb.capture` probes the machine and returns plain dicts; this module adapts them to kb's
models, so that ``kb capture`` and ``kb log --capture`` write records ``kb check`` accepts:

* component names go through :func:`kb.versions.canonical_component`;
* a version that is not PEP 440 (a driver ``"535.104.05-server"``, a git hash) is not dropped and
  does not fail the record: it is kept in ``Component.source`` (``"reported as 535.104.05-server
  (not a PEP 440 version)"``) with ``version`` unset.

>>> from kb.capture import Capture
>>> comps = components_from_capture(Capture(components={"flashinfer-python": "0.6.4", "driver": "x-1"}))
>>> comps["flashinfer"].version, comps["driver"].version, comps["driver"].source
('0.6.4', None, 'reported as x-1 (not a PEP 440 version)')
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from kb.capture import Capture
from kb.errors import InvalidRecords, QueryError
from kb.models import Component, Platform, Stack
from kb.validation import option_problems
from kb.versions import canonical_component, parse_version

CAPTURE_WHERE = "kb capture"
"""The ``path`` of problems found in a capture (it is not a file yet)."""


def component_from_text(version: str, source: str | None = None) -> Component:
    """A :class:`Component` for a version string as a tool reported it.

    A PEP 440 version becomes ``version`` (local tags kept verbatim, ``2.10.0+cu128``); anything
    else is kept in ``source`` so no fact is lost. ``source`` (the command the fact came from)
    is kept for a valid version. Never raises.
    """
    try:
        parse_version(version)
    except ValueError:
        return Component(source=f"reported as {version} (not a PEP 440 version)")
    return Component(version=version, source=source)


def components_from_capture(cap: Capture, *, with_sources: bool = False) -> dict[str, Component]:
    """Every captured component as ``{canonical name: Component}`` (sorted by name).

    With ``with_sources`` each component's ``source`` names the command it came from
    (``"nvidia-smi"``, ``"torch probe (torch.__version__)"``).
    """
    out: dict[str, Component] = {}
    for name, version in sorted(cap.components.items()):
        src = cap.sources.get(name) if with_sources else None
        out[canonical_component(name)] = component_from_text(str(version), src)
    return out


def _validate(model: type[Stack] | type[Platform], data: dict[str, Any], record_id: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRecords(option_problems(exc, f"{CAPTURE_WHERE} ({model.kind} {record_id})")) from None


def stack_from_capture(cap: Capture, record_id: str, title: str, *, with_sources: bool = False) -> Stack:
    """A :class:`Stack` record of the captured components.

    ``captured`` keeps when and on what it was captured (``{"at": ISO 8601 UTC, "by": "kb
    capture", "host_facts": "2× NVIDIA H200 (NVLink, NV18), driver ..."}``); ``notes`` lists what
    could not be probed. Raises :class:`kb.errors.InvalidRecords` for a bad ``record_id`` or an
    empty ``title``.
    """
    data = cap.to_stack_dict(record_id, title, component_sources=False)
    data["components"] = components_from_capture(cap, with_sources=with_sources)
    return _validate(Stack, data, record_id)


def platform_from_capture(cap: Capture, record_id: str, title: str) -> Platform:
    """A :class:`Platform` record of the captured GPUs.

    Raises :class:`kb.errors.QueryError` when no GPU was found (the message carries
    :attr:`Capture.notes`, which say why), and :class:`kb.errors.InvalidRecords` when the capture
    lacks another fact a platform needs (``compute_capability``), naming the missing fields.
    """
    if not cap.platform.get("gpu"):
        why = "; ".join(cap.notes) or "no GPU listed"
        raise QueryError(f"no GPU found on this machine, so no platform record can be made ({why})")
    data = cap.to_platform_dict(record_id, title)
    return _validate(Platform, data, record_id)


def capture_summary(cap: Capture) -> list[str]:
    """Lines for stderr: one naming the machine, then one per note (what could not be probed, and why)."""
    return [f"captured: {cap.host_facts()}"] + [f"note: {n}" for n in cap.notes]


def default_titles(cap: Capture) -> tuple[str, str]:
    """Titles for a captured ``(stack, platform)``: ``"Stack captured 2026-03-01 on 2× NVIDIA H200"``
    and ``"2× NVIDIA H200 over NVLink"`` (``"this machine"`` when no GPU was found)."""
    p = cap.platform
    gpus = f"{p.get('gpu_count', 1)}× {p['gpu']}" if p.get("gpu") else "this machine"
    day = (cap.captured_at or "")[:10]
    stack = f"Stack captured {day} on {gpus}" if day else f"Stack captured on {gpus}"
    plat = gpus + (f" over {p['interconnect']}" if p.get("interconnect") else "")
    return stack, plat


def overrides_against(captured: dict[str, Component], base: dict[str, Component]) -> dict[str, Component]:
    """The captured components that differ from ``base`` (a stack's components): what an attempt
    on that stack must list as its own ``components``. A component is kept when ``base`` lacks it
    or has another version."""
    out = {}
    for name, comp in captured.items():
        have = base.get(name)
        if have is None or have.version != comp.version or (comp.version is None and have.source != comp.source):
            out[name] = comp
    return out
