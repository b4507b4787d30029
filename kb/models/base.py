"""Shared parts of every record model: ids, dates, versions and specifiers, sources, metrics,
components, applicability, and the :class:`Record` base (see :mod:`kb.models`)."""


from __future__ import annotations

import datetime as dt
import difflib
import math
import re
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictStr,
    field_validator,
    model_validator,
)

from kb.versions import canonical_component, parse_specifier, parse_version

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,119}$")
"""Record ids: lowercase ASCII letters, digits, '.', '_', '-'; no path separators; ≤120 chars."""


def _check_id(value: str) -> str:
    odd = None if value.isascii() else next((c for c in value if ord(c) > 127), None)
    if odd is not None:
        import unicodedata

        name = unicodedata.name(odd, "unknown")
        raise ValueError(
            f"'{value}' is not a valid id: it contains U+{ord(odd):04X} ({name}), which only looks like an "
            "ASCII letter; ids use lowercase ASCII letters, digits, '-', '_' and '.'"
        )
    if not ID_RE.match(value) or ".." in value:
        raise ValueError(
            f"'{value}' is not a valid id: use lowercase ASCII letters, digits, '-', '_' and '.' "
            "(no spaces, slashes or '..'), e.g. '2026-02-21-eagle3-speculation'"
        )
    return value


def _check_version(value: str) -> str:
    parse_version(value)
    return value


def _check_specifier(value: str) -> str:
    parse_specifier(value)
    return value


def _date_not_number(value: Any) -> Any:
    """Refuse a number where a date is meant: pydantic would read ``0`` or ``20260221`` as a
    Unix time (1970-01-01 + seconds), silently giving a wrong date."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError(f"{value!r} is a number, not a date; write the date as YYYY-MM-DD, e.g. 2026-02-21")
    return value


Date = Annotated[dt.date, BeforeValidator(_date_not_number)]
"""A calendar date written ``YYYY-MM-DD`` (YAML reads it as a date); never a number."""

RecordId = Annotated[StrictStr, AfterValidator(_check_id)]
VersionStr = Annotated[StrictStr, AfterValidator(_check_version)]
SpecifierStr = Annotated[StrictStr, AfterValidator(_check_specifier)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, str_strip_whitespace=False, defer_build=True)


# --------------------------------------------------------------------------- shared parts


class Source(_Strict):
    """Where a fact came from: a file (seed, log) with a locator, or a URL / ``owner/repo#n``.

    ``locator`` is free-form but precise: ``msg 5256``, ``line 9``, ``lines 27-33``, a message uuid.
    ``sha256`` and ``format`` are set by importers for the log a draft came from (``size``: the
    file's length in bytes, when a log is cited rather than pasted: ``kb log --error-file``); ``field``
    names the record field the source supports (``error``, ``metrics.output_throughput``,
    ``stack.cuda``; ``attempt`` for the passage an imported attempt was drafted from). ``key``
    (importers, on the ``attempt`` source) identifies that passage whatever the log's bytes:
    ``claude:<session id>:<uuid>``, ``markdown:<file>:<digest of the passage's text>``, so a
    log that grew, or was saved with other line endings, is recognised.
    """

    file: StrictStr | None = None
    url: StrictStr | None = None
    locator: StrictStr | None = None
    quote: StrictStr | None = None
    sha256: StrictStr | None = None
    size: int | None = Field(default=None, ge=0)
    format: StrictStr | None = None
    field: StrictStr | None = None
    key: StrictStr | None = None
    summary: StrictStr | None = None
    """A one-line summary of what the source says, in the writer's own words (never copied text)."""

    @model_validator(mode="after")
    def _has_origin(self) -> "Source":
        if not (self.file or self.url):
            raise ValueError("a source needs 'file' (a seed or log file) or 'url' (a URL or owner/repo#123)")
        return self


def _listify(value: Any) -> Any:
    """Accept a single mapping where a list of them is expected."""
    return [value] if isinstance(value, dict) else value


Sources = Annotated[list[Source], BeforeValidator(_listify)]

UNITS: dict[str, str] = {
    "tok/s": "tokens per second (output throughput)",
    "req/s": "requests per second",
    "ms": "milliseconds",
    "s": "seconds",
    "us": "microseconds",
    "µs": "microseconds",
    "%": "percent",
    "x": "ratio",
    "tokens": "tokens (e.g. acceptance length)",
    "KB": "kilobytes",
    "MB": "megabytes",
    "GB": "gigabytes",
    "GiB": "gibibytes",
    "GB/s": "gigabytes per second (bandwidth, e.g. NCCL bus bandwidth)",
    "TFLOPS": "tera floating-point operations per second",
    "it/s": "iterations per second (e.g. diffusion steps)",
    "count": "a count",
}
"""Units a metric may carry; the unit is part of the metric, never implied."""

_METRIC_TEXT = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(\S.*)?$")


class Metric(_Strict):
    """One measured value: ``value`` (finite float, ≥ 0) in ``unit`` (one of :data:`UNITS`).

    ``text`` keeps the number as written (``89.52`` stays ``89.52``, ``82.0`` stays ``82.0``).
    Written in YAML either as ``"54.1 tok/s"`` or as ``{value: 54.1, unit: tok/s}``.
    """

    value: float
    unit: StrictStr
    text: StrictStr | None = None
    note: StrictStr | None = None
    spread: float | None = Field(default=None, ge=0)
    """The spread the run reported for it, in the same unit (llama-bench's ``± 0.23``, a stddev)."""

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        if isinstance(data, str):
            m = _METRIC_TEXT.match(data)
            if not m or not m.group(2):
                raise ValueError(
                    f"'{data}' is not a metric; write a number and a unit, e.g. '54.1 tok/s' or '30 ms'"
                )
            return {"value": float(m.group(1)), "unit": m.group(2).strip(), "text": m.group(1)}
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            raise ValueError(f"{data} has no unit; write it with its unit, e.g. '{data} tok/s' or '{data} ms'")
        if isinstance(data, dict) and isinstance(data.get("value"), (int, float)) and "text" not in data:
            data = {**data, "text": repr(data["value"]) if isinstance(data["value"], float) else str(data["value"])}
        return data

    @field_validator("value")
    @classmethod
    def _finite(cls, v: float) -> float:
        if math.isnan(v) or math.isinf(v):
            raise ValueError("a metric must be a finite number (not NaN or infinity)")
        if v < 0:
            raise ValueError(f"a metric must not be negative (got {v})")
        return v

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, v: str) -> str:
        if v not in UNITS:
            raise ValueError(f"unknown unit '{v}'; use one of: {', '.join(UNITS)}")
        return v

    def display(self) -> str:
        """``"54.1 tok/s"``: the number as written, then the unit."""
        return f"{self.text or format(self.value, 'g')} {self.unit}"


METRIC_NAMES = {
    "output_throughput": "Output throughput",
    "ttft": "TTFT",
    "median_ttft": "Median TTFT",
    "tpot": "TPOT",
    "median_tpot": "Median TPOT",
    "itl": "ITL",
    "acceptance_length": "Acceptance length",
    "request_throughput": "Request throughput",
}
"""Display names for the metric names the field uses; other names are shown as written."""


def _component_map(value: Any) -> Any:
    """Canonical component names; two keys naming one component (``torch`` and ``Torch``,
    ``flashinfer`` and ``flashinfer-python``) are an error, not a silent overwrite."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        first: dict[str, str] = {}
        for k, v in value.items():
            name = canonical_component(str(k))
            if name in first:
                raise ValueError(f"'{first[name]}' and '{k}' name the same component ({name}); keep one")
            first[name] = str(k)
            out[name] = v
        return out
    return value


class Component(_Strict):
    """One stack component: a PEP 440 ``version`` (may be unknown, e.g. built from source) and
    where it came from (``source``: ``built from source``, ``cu130 wheel index``, a URL)."""

    version: VersionStr | None = None
    source: StrictStr | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        if isinstance(data, list):
            raise ValueError("a component is a version string (e.g. \"13.0\") or a mapping "
                             "{version: \"13.0\", source: ...}, not a list")
        return {"version": data} if isinstance(data, str) else data


Components = Annotated[dict[str, Component], BeforeValidator(_component_map)]
Requirement = Annotated[dict[str, SpecifierStr], BeforeValidator(_component_map)]


class Applicability(_Strict):
    """Where a blocker stands: a ``compute_capability`` specifier (``">=12.0,<13"``), an
    ``interconnect`` substring (``PCIe``), and component → specifier (``cuda: "<13"``).

    Written flat in YAML: ``applies_when: {compute_capability: ">=12.0", cuda: "<12.9"}``.
    An empty applicability holds everywhere.
    """

    compute_capability: SpecifierStr | None = None
    interconnect: StrictStr | None = None
    components: Requirement = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _flat(cls, data: Any) -> Any:
        if isinstance(data, dict) and "components" not in data:
            special = {k: data[k] for k in ("compute_capability", "interconnect") if k in data}
            rest = {k: v for k, v in data.items() if k not in special}
            for key in rest:
                near = difflib.get_close_matches(str(key), ["compute_capability", "interconnect"], n=1, cutoff=0.8)
                if near:
                    raise ValueError(f"'{key}' looks like a misspelt '{near[0]}' (other keys are components); "
                                     f"write '{near[0]}'")
            return {**special, "components": rest}
        return data


class Record(_Strict):
    """Fields every record may carry. ``id`` defaults to the file name without ``.yaml``;
    ``redacted`` says what kb's write gate redacted (kind → count)."""

    kind: ClassVar[str] = "record"
    folder: ClassVar[str] = ""

    id: RecordId
    title: StrictStr = Field(min_length=1)
    source: Sources = Field(default_factory=list)
    notes: StrictStr | None = None
    tags: list[StrictStr] = Field(default_factory=list)
    redacted: dict[StrictStr, Annotated[int, Field(ge=1)]] = Field(default_factory=dict)
    """What the store's write gate replaced before writing, by kind (``secret``, ``host``,
    ``user``, ``email``) → count; never the values. Set by kb, not by hand."""
