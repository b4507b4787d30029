"""Typed record models: platform, stack, campaign, attempt, blocker, decision.

Strict pydantic 2 models (``extra="forbid"``): an unknown key is an error, a version must be a
string, a constraint must be a PEP 440 specifier set. Cross-record rules (references, cycles) live
in :mod:`kb.references`; this module checks one record at a time.

Field names follow DESIGN.md and the field's terms (attempt, blocker, root cause, ADR/MADR,
stack, compute capability, output throughput).
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
import re
from enum import Enum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    field_validator,
    model_serializer,
    model_validator,
)

from kb.ids import WINDOWS_DEVICE_NAMES
from kb.versions import arch_of, canonical_component, parse_specifier, parse_version

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
            f"'{value}' is not a valid id: an id starts with a lowercase ASCII letter or digit, followed by "
            "up to 119 lowercase ASCII letters, digits, '-', '_' or '.' (no spaces, slashes, capitals or '..'), "
            "e.g. '2026-02-21-eagle3-speculation'"
        )
    if value.split(".")[0] in WINDOWS_DEVICE_NAMES:
        raise ValueError(
            f"'{value}' is not a valid id: '{value.split('.')[0]}' is a device name on Windows (CON, PRN, AUX, NUL, "
            f"COM1-COM9, LPT1-LPT9), so no file {value}.yaml can exist there; rename it, e.g. '{value}-record'")
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
            if re.match(r"^\s*[-+]?\.?(?:inf(?:inity)?|nan)\b", data, re.I):
                raise ValueError(f"'{data}': a metric must be a finite number (not NaN or infinity); write the "
                                 "measured value, or leave the metric out if the run measured none")
            if not m or not m.group(2):
                raise ValueError(
                    f"'{data}' is not a metric; write a number and a unit, e.g. '54.1 tok/s' or '30 ms'"
                )
            return {"value": float(m.group(1)), "unit": m.group(2).strip(), "text": m.group(1)}
        if isinstance(data, float) and not math.isfinite(data):
            raise ValueError(f"'{data}': a metric must be a finite number (not NaN or infinity); write the "
                             "measured value with its unit, or leave the metric out if the run measured none")
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
    """One stack component: a PEP 440 ``version`` (may be unknown, e.g. built from source),
    where it came from (``source``: ``built from source``, ``cu130 wheel index``, a URL) and the
    component it ships inside, if any (``bundled_in: torch``)."""

    version: VersionStr | None = None
    source: StrictStr | None = None
    bundled_in: StrictStr | None = None
    """The component this one ships inside (``torch`` for the NCCL and Triton of torch's wheels):
    its version changes whenever that component's does."""

    @field_validator("bundled_in")
    @classmethod
    def _canonical_bundler(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("bundled_in is empty; name the component this one ships inside (e.g. torch), "
                             "or remove the line")
        return canonical_component(v) if v else v

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        if isinstance(data, list):
            raise ValueError("a component is a version string (e.g. \"13.0\") or a mapping "
                             "{version: \"13.0\", source: ...}, not a list")
        return {"version": data} if isinstance(data, str) else data


Components = Annotated[dict[str, Component], BeforeValidator(_component_map)]
Requirement = Annotated[dict[str, SpecifierStr], BeforeValidator(_component_map)]


APPLICABILITY_KEYS = ("compute_capability", "interconnect", "gpu_count", "tensor_parallel_size")
"""The keys of ``applies_when`` that are not components."""


class Applicability(_Strict):
    """Where a blocker stands: a ``compute_capability`` specifier (``">=12.0,<13"``), an
    ``interconnect`` substring (``PCIe``), and component → specifier (``cuda: "<13"``).

    Written flat in YAML: ``applies_when: {compute_capability: ">=12.0", cuda: "<12.9"}``.
    An empty applicability holds everywhere.
    """

    compute_capability: SpecifierStr | None = None
    interconnect: StrictStr | None = None
    gpu_count: SpecifierStr | None = None
    """A specifier over the platform's GPU count (``">=2"``: a multi-GPU limit)."""
    tensor_parallel_size: SpecifierStr | None = None
    """A specifier over the run's tensor-parallel size (``">=4"``), read from the attempt's
    ``--tensor-parallel-size``/``--tp-size``/``--tp``/``-tp`` flag or its config; without an
    attempt, the platform's GPU count bounds it."""
    components: Requirement = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _flat(cls, data: Any) -> Any:
        if isinstance(data, dict) and "components" not in data:
            special = {k: data[k] for k in APPLICABILITY_KEYS if k in data}
            rest = {k: v for k, v in data.items() if k not in special}
            for key in rest:
                near = difflib.get_close_matches(str(key), list(APPLICABILITY_KEYS), n=1, cutoff=0.8)
                if near:
                    raise ValueError(f"'{key}' looks like a misspelt '{near[0]}' (other keys are components); "
                                     f"write '{near[0]}'")
            return {**special, "components": rest}
        return data


SCHEMA_VERSION = 2
"""The record shape this kb writes. 1 (a record without ``schema_version``): a ``fixed_by`` item
may be the shorthand ``{cuda: ">=13.0"}``. 2: kb writes every fix in full (``{kind: enables,
requires: {cuda: ">=13.0"}}``) and stamps ``schema_version: 2``; the shorthand still loads.
``kb migrate`` rewrites version-1 records (:mod:`kb.usecases.migrate`)."""


class Record(_Strict):
    """Fields every record may carry. ``id`` defaults to the file name without ``.yaml``;
    ``redacted`` says what kb's write gate redacted (kind → count); ``schema_version`` the
    record shape it was written in (:data:`SCHEMA_VERSION`; absent means 1)."""

    kind: ClassVar[str] = "record"
    folder: ClassVar[str] = ""

    schema_version: Annotated[StrictInt, Field(ge=1)] | None = None
    id: RecordId
    title: StrictStr = Field(min_length=1)
    source: Sources = Field(default_factory=list)
    notes: StrictStr | None = None
    tags: list[StrictStr] = Field(default_factory=list)
    redacted: dict[StrictStr, Annotated[int, Field(ge=1)]] = Field(default_factory=dict)
    """What the store's write gate replaced before writing, by kind (``secret``, ``host``,
    ``user``, ``email``) → count; never the values. Set by kb, not by hand."""

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, v: int | None) -> int | None:
        if v is not None and v > SCHEMA_VERSION:
            raise ValueError(f"schema_version {v} is newer than this kb reads (up to {SCHEMA_VERSION}): "
                             "upgrade kb, or write the record in version "
                             f"{SCHEMA_VERSION}'s shape")
        return v


# --------------------------------------------------------------------------- kinds


class Platform(Record):
    """Hardware: GPU model and count, compute capability (``"12.0"``), arch (``sm_120``),
    interconnect (``PCIe Gen5``, ``NVLink``), NVLink present or not, memory per GPU in GiB."""

    kind: ClassVar[str] = "platform"
    folder: ClassVar[str] = "platforms"

    gpu: StrictStr
    gpu_count: int = Field(ge=1, le=100_000)
    compute_capability: Annotated[StrictStr, Field(pattern=r"^\d+\.\d+$")]
    arch: Annotated[StrictStr, Field(pattern=r"^sm_\d+[a-z]?$")] | None = None
    interconnect: StrictStr | None = None
    nvlink: bool | None = None
    memory_gib: float | None = Field(default=None, gt=0, le=1_000_000)
    host: StrictStr | None = None

    @model_validator(mode="after")
    def _arch_matches(self) -> "Platform":
        if self.arch:
            expected = arch_of(self.compute_capability)
            if not self.arch.startswith(expected):
                raise ValueError(
                    f"arch '{self.arch}' does not match compute capability {self.compute_capability} "
                    f"(expected '{expected}')"
                )
        return self


class Stack(Record):
    """A named software stack: component → version, optionally ``base:`` another stack whose
    components this one inherits and overrides."""

    kind: ClassVar[str] = "stack"
    folder: ClassVar[str] = "stacks"

    base: RecordId | None = None
    components: Components = Field(default_factory=dict)
    captured: dict[str, StrictStr] | None = None

    @model_validator(mode="after")
    def _bundlers_exist(self) -> "Stack":
        from kb.versions import KNOWN_COMPONENTS

        for name, c in self.components.items():
            if c.bundled_in is None:
                continue
            if c.bundled_in == name:
                raise ValueError(f"@components.{name}.bundled_in: bundled_in names {name} itself; name the component it ships "
                                 "inside (torch's wheels bundle nccl and triton)")
            if c.bundled_in not in self.components and self.base is None:
                known = "" if c.bundled_in in KNOWN_COMPONENTS else " (nor one kb knows)"
                raise ValueError(f"@components.{name}.bundled_in: '{c.bundled_in}' is no component of this stack{known}; "
                                 f"add {c.bundled_in} to the stack, or fix the name")
        return self


class Direction(str, Enum):
    """Whether a higher or a lower value of the headline metric is better."""
    higher = "higher"
    lower = "lower"  # type: ignore[assignment]  # a member, not str.lower


class HeadlineMetric(_Strict):
    """The campaign's headline metric: ``name`` (``output_throughput``), ``unit``, ``direction``."""

    name: StrictStr
    unit: StrictStr
    direction: Direction = Direction.higher

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, v: str) -> str:
        return Metric._known_unit(v)


class Campaign(Record):
    """A goal: model, platform, headline metric and its direction, baseline and target values.

    ``baseline`` is ``None`` until the first reference run is measured (a campaign is started
    before anything has run); pages then say there is no baseline yet and show no deltas."""

    kind: ClassVar[str] = "campaign"
    folder: ClassVar[str] = "campaigns"

    model: StrictStr
    platform: RecordId
    stack: RecordId | None = None
    metric: HeadlineMetric
    baseline: Metric | None = None
    baseline_attempt: RecordId | None = None
    target: Metric | None = None
    result: Metric | None = None
    started: Date | None = None
    catalogs: list[StrictStr] = Field(default_factory=list)
    """Catalogs of shared blockers the campaign uses: a name shipped with kb (``blackwell``, the
    folder ``kb/catalogs/blackwell``) or a folder path relative to the records folder."""
    status: Literal["active", "done", "paused", "abandoned"] = "active"
    goal: StrictStr | None = None
    noise: float | None = Field(default=None, ge=0, le=100)
    """The run-to-run noise of the headline metric, in percent: a change within it is neutral, not
    an improvement or a regression (``kb import`` uses 2 % when unset and a run reports no spread)."""


class Outcome(str, Enum):
    """What an attempt came to. ``baseline`` is the reference measurement others compare to."""

    baseline = "baseline"
    improved = "improved"
    regressed = "regressed"
    neutral = "neutral"
    failed = "failed"
    inconclusive = "inconclusive"


class Config(_Strict):
    """How the attempt ran: command-line ``flags`` (``["--tp", "8"]`` or ``["--tp 8"]``),
    environment variables ``env`` (``NCCL_ALGO: Tree``), the ``command`` if one was kept, and the
    run's ``settings`` as its benchmark printed them (``max_concurrency: "64"``, ``request_rate:
    inf``, ``failed_requests: "0"``; llama-bench's ``ngl``, ``fa``, ``ctk``, ``build``)."""

    command: StrictStr | None = None
    flags: list[StrictStr] = Field(default_factory=list)
    env: dict[str, StrictStr] = Field(default_factory=dict)
    settings: dict[str, StrictStr] = Field(default_factory=dict)


class Attempt(Record):
    """One thing tried: approach, stack, outcome, metrics, error text and what blocked it."""

    kind: ClassVar[str] = "attempt"
    folder: ClassVar[str] = "attempts"

    date: Date
    campaign: RecordId
    approach: StrictStr
    hypothesis: StrictStr | None = None
    platform: RecordId | None = None
    stack: RecordId | None = None
    components: Components = Field(default_factory=dict)
    config: Config = Field(default_factory=Config)
    outcome: Outcome
    metrics: dict[str, Metric] = Field(default_factory=dict)
    baseline: RecordId | None = None
    retry_of: RecordId | None = None
    """An earlier attempt this one re-runs (typically after a stack change resolved its blockers)."""
    run_url: StrictStr | None = Field(default=None, json_schema_extra={
        "pattern": r"^https?://[^\s/]+[^\s]*$", "description": "The run's page in an experiment tracker (an http(s) URL)."})
    """The page of the run in an experiment tracker that recorded this attempt: an ``http(s)`` URL,
    e.g. an MLflow run, ``http://127.0.0.1:5000/#/experiments/1/runs/<run id>``."""
    error: StrictStr | None = None
    blocked_by: list[RecordId] = Field(default_factory=list)
    status: Literal["draft", "reviewed"] = "reviewed"

    @field_validator("run_url")
    @classmethod
    def _web_address(cls, v: str | None) -> str | None:
        if v is None:
            return v
        from urllib.parse import urlsplit

        parts = urlsplit(v)
        if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in v):
            raise ValueError(f"'{v}' is not an http(s) URL (no spaces); write the run's page as the tracker shows it, "
                             "e.g. 'http://127.0.0.1:5000/#/experiments/1/runs/<run id>', or remove run_url")
        return v

    @model_validator(mode="after")
    def _failed_has_cause(self) -> "Attempt":
        if self.outcome == Outcome.failed and not (self.error or self.blocked_by):
            raise ValueError("a failed attempt needs 'error' (the error text) or 'blocked_by' (blocker ids)")
        return self


_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*](?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d*,)")
"""A group holding ``+``/``*`` that is itself repeated: the shape of catastrophic backtracking
(``(a+)+$`` takes seconds on 30 characters with Python's ``re``)."""


FIX_KINDS = ("enables", "disables", "workaround", "build_option", "hardware_gap")
"""Kinds of fix (DESIGN.md, "What the model must be able to say"): ``enables`` the feature;
``disables`` it cleanly (a crash becomes a refusal, the feature stays off); a ``workaround`` (a flag,
an env variable); a ``build_option`` (``TORCH_CUDA_ARCH_LIST=12.0``); a ``hardware_gap`` (no upgrade
fixes it: switch backend)."""

FIX_KEYS = ("kind", "requires", "release", "pr", "reverted", "flag", "advice", "note")
"""The keys of a fix written in full (a mapping naming none of them is the shorthand)."""


def _fix_shorthand(value: Any) -> Any:
    """A ``fixed_by`` item written as the old shorthand, a mapping component → specifier that
    must hold together, is an ``enables`` fix: ``{cuda: ">=13.0"}`` →
    ``{kind: enables, requires: {cuda: ">=13.0"}}``. A mapping naming any of the fix's own keys
    (``kind``, ``requires``, ``release``, ...) is a full fix object."""
    if isinstance(value, dict) and not any(str(k) in FIX_KEYS for k in value):
        return {"kind": "enables", "requires": value}
    return value


class Fix(_Strict):
    """One way a blocker is fixed, or worked around.

    ``kind``: one of :data:`FIX_KINDS`. ``requires``: component → PEP 440 specifier that must all
    hold together (a co-requirement is not a fix alone); omitted for ``workaround`` and
    ``hardware_gap``, and for an ``enables``/``disables`` fix whose release is not known yet (it
    then names its ``pr`` or a ``note``, and no stack can be shown to hold it). ``release``: the upstream release that ships it
    (``"0.6.17"``); ``pr``: ``owner/repo#n``; ``reverted``: the fix was taken back upstream (it then
    fixes nothing); ``flag``: the flag or ``KEY=VALUE`` a workaround or build option sets;
    ``advice``: what to do instead (``"switch backend to NCCL"``); ``note``: anything else.

    Written either in full or as the shorthand ``{cuda: ">=13.0"}`` (an ``enables`` fix).
    """

    kind: Literal["enables", "disables", "workaround", "build_option", "hardware_gap"] = "enables"
    requires: Requirement = Field(default_factory=dict)
    release: StrictStr | None = None
    pr: StrictStr | None = None
    reverted: bool = False
    flag: StrictStr | None = None
    advice: StrictStr | None = None
    note: StrictStr | None = None

    @model_validator(mode="after")
    def _shape(self) -> "Fix":
        if self.kind in ("enables", "disables") and not (self.requires or self.pr or self.release or self.note):
            raise ValueError(f"a fix of kind '{self.kind}' needs 'requires' (component → specifier, e.g. "
                             "{cuda: '>=13.0'}), or, when no release is known yet, its 'pr' or a 'note'; "
                             "for a flag or env setting use kind: workaround")
        if self.kind in ("workaround", "hardware_gap") and self.requires:
            raise ValueError(f"a fix of kind '{self.kind}' takes no 'requires' (no version fixes it); "
                             "use kind: enables or disables for a version fix")
        if self.kind in ("workaround", "build_option") and not (self.flag or self.note or self.advice):
            raise ValueError(f"a fix of kind '{self.kind}' needs 'flag' (the flag or KEY=VALUE to set) or a 'note'")
        if self.pr and not re.match(r"^[\w.-]+/[\w.-]+#\d+$", self.pr):
            raise ValueError(f"pr '{self.pr}' is not 'owner/repo#123'")
        return self

    @property
    def is_version_fix(self) -> bool:
        """Whether a version change can make this fix hold (``enables``/``disables``, not reverted)."""
        return self.kind in ("enables", "disables") and not self.reverted and bool(self.requires)

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> Any:
        data = handler(self)
        if (self.kind == "enables" and not self.reverted
                and not any((self.release, self.pr, self.flag, self.advice, self.note))):
            return data["requires"] if isinstance(data, dict) and "requires" in data else data
        return data


class Blocker(Record):
    """A failure cause. ``caused_by`` lists parent blockers; a blocker with none is a root cause.

    ``fixed_by`` is a list of :class:`Fix` alternatives (the shorthand ``{cuda: ">=13.0"}`` is an
    ``enables`` fix). ``applies_when`` restricts where it stands: component → specifier, plus
    ``compute_capability`` (a specifier over e.g. ``12.0``) and ``interconnect`` (substring match);
    a blocker that a change *introduces* is one whose ``applies_when`` starts to hold
    (``{cuda: ">=13.0"}``). ``component`` is the canonical component the blocker lives in: a stack
    without it is not concerned. ``flags`` are the flags or ``KEY=VALUE`` env settings that turn
    the failing feature on (``--enable-torch-symm-mem``). ``checked`` is when the facts were last
    checked against their sources. ``status``: open, fixed (upstream), wontfix (upstream said so).
    """

    kind: ClassVar[str] = "blocker"
    folder: ClassVar[str] = "blockers"

    caused_by: list[RecordId] = Field(default_factory=list)
    component: StrictStr | None = None
    flags: list[StrictStr] = Field(default_factory=list)
    applies_when: Applicability = Field(default_factory=lambda: Applicability())
    fixed_by: list[Annotated[Fix, BeforeValidator(_fix_shorthand)]] = Field(default_factory=list)
    signatures: list[Annotated[StrictStr, Field(min_length=3)]] = Field(default_factory=list)
    upstream: list[StrictStr] = Field(default_factory=list)
    workaround: StrictStr | None = None
    status: Literal["open", "fixed", "wontfix"] = "open"
    checked: Date | None = None
    verified: list[StrictStr] = Field(default_factory=list)
    """What the last check confirmed against the sources, one short line per fact
    (``"fix first in the v0.6.17 tag"``); empty when nothing was re-checked."""
    inferred_signatures: list[StrictStr] = Field(default_factory=list)
    """Those of ``signatures`` that were read off the source code rather than seen printed in a
    report (each must also be listed in ``signatures``)."""
    description: StrictStr | None = None

    @model_validator(mode="after")
    def _inferred_are_signatures(self) -> "Blocker":
        stray = [s for s in self.inferred_signatures if s not in self.signatures]
        if stray:
            raise ValueError(f"inferred_signatures lists {stray[0]!r}, which is not among 'signatures'; "
                             "an inferred signature must also be written under signatures")
        return self

    @field_validator("component")
    @classmethod
    def _canonical(cls, v: str | None) -> str | None:
        return canonical_component(v) if v else v

    @field_validator("fixed_by", mode="before")
    @classmethod
    def _non_empty(cls, v: Any) -> Any:
        if isinstance(v, list):
            for i, alt in enumerate(v):
                if isinstance(alt, dict) and not alt:
                    raise ValueError(
                        f"alternative {i} is empty; each alternative names at least one component, "
                        "e.g. {cuda: '>=13.0'} (remove it if there is no known fix)"
                    )
        return v

    @field_validator("signatures")
    @classmethod
    def _regex_signatures(cls, v: list[str]) -> list[str]:
        for sig in v:
            if len(sig) > 2 and sig.startswith("/") and sig.endswith("/"):
                try:
                    re.compile(sig[1:-1])
                except re.error as exc:
                    raise ValueError(f"'{sig}' is not a valid regular expression ({exc}); fix it, "
                                     "or write the text without the enclosing slashes to match it literally") from None
                if _NESTED_QUANTIFIER.search(sig[1:-1]):
                    raise ValueError(f"'{sig}' repeats a group that itself repeats (like (a+)+): matching it can take "
                                     "exponential time on a long error text; drop the inner or the outer repetition")
        return v

    @field_validator("upstream")
    @classmethod
    def _upstream(cls, v: list[str]) -> list[str]:
        for ref in v:
            if not (re.match(r"^[\w.-]+/[\w.-]+#\d+$", ref) or ref.startswith(("http://", "https://"))):
                raise ValueError(f"'{ref}' is not 'owner/repo#123' or an http(s) URL")
        return v

    @property
    def is_root(self) -> bool:
        """A blocker with no ``caused_by`` is a root cause."""
        return not self.caused_by


class Option(_Strict):
    """A considered option in an ADR: title, description, pros, cons, evidence (attempt ids)."""

    title: StrictStr = Field(min_length=1)
    description: StrictStr | None = None
    pros: list[StrictStr] = Field(default_factory=list)
    cons: list[StrictStr] = Field(default_factory=list)
    evidence: list[RecordId] = Field(default_factory=list)


class DecisionOutcome(_Strict):
    """MADR "Decision Outcome": the chosen option (its title) and why."""

    chosen: StrictStr
    rationale: StrictStr | None = None


class Consequences(_Strict):
    """MADR consequences: good, bad (risks), neutral."""

    good: list[StrictStr] = Field(default_factory=list)
    bad: list[StrictStr] = Field(default_factory=list)
    neutral: list[StrictStr] = Field(default_factory=list)


class StackChange(_Strict):
    """The stack change a decision makes: ``from`` stack, ``to`` stack, component versions."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    from_: RecordId | None = Field(default=None, alias="from")
    to: RecordId | None = None
    components: Components = Field(default_factory=dict)


DECISION_STATUSES = ("proposed", "accepted", "rejected", "deprecated", "superseded")


class Decision(Record):
    """An Architecture Decision Record in MADR's shape."""

    kind: ClassVar[str] = "decision"
    folder: ClassVar[str] = "decisions"

    status: Literal["proposed", "accepted", "rejected", "deprecated", "superseded"]
    date: Date
    deciders: list[StrictStr] = Field(default_factory=list)
    campaign: RecordId | None = None
    context: StrictStr
    decision_drivers: list[StrictStr] = Field(default_factory=list)
    considered_options: list[Option] = Field(min_length=1)
    outcome: DecisionOutcome
    plan: list[StrictStr] = Field(default_factory=list)
    consequences: Consequences = Field(default_factory=Consequences)
    resolves: list[RecordId] = Field(default_factory=list)
    supersedes: list[RecordId] = Field(default_factory=list)
    stack_change: StackChange | None = None

    @field_validator("outcome")
    @classmethod
    def _chosen_is_an_option(cls, outcome: "DecisionOutcome", info: Any) -> "DecisionOutcome":
        options = info.data.get("considered_options")
        if options is None:  # the options did not validate: their own problem is reported
            return outcome
        titles = [o.title for o in options]
        chosen = outcome.chosen
        if chosen not in titles:
            import unicodedata

            same = [t for t in titles if unicodedata.normalize("NFC", t) == unicodedata.normalize("NFC", chosen)]
            if same:
                raise ValueError(
                    f"outcome.chosen '{chosen}' and the option '{same[0]}' look the same but are encoded "
                    "differently (Unicode NFC vs NFD: an accented letter written as one character in one and as a "
                    "letter plus a combining accent in the other); retype one of them so that both match")
            raise ValueError(
                f"outcome.chosen '{chosen}' is not one of the considered options: "
                + ", ".join(repr(t) for t in titles)
            )
        return outcome

    @property
    def evidence(self) -> list[str]:
        """Every attempt id cited by any option, in order, without repeats."""
        seen: dict[str, None] = {}
        for o in self.considered_options:
            for a in o.evidence:
                seen.setdefault(a, None)
        return list(seen)


KINDS: dict[str, type[Record]] = {
    m.folder: m for m in (Platform, Stack, Campaign, Attempt, Blocker, Decision)
}
"""Folder under ``records/`` → model class."""

KIND_BY_NAME: dict[str, type[Record]] = {m.kind: m for m in KINDS.values()}


__all__ = [
    "DECISION_STATUSES", "FIX_KINDS", "ID_RE", "KINDS", "KIND_BY_NAME", "METRIC_NAMES", "UNITS", "Applicability",
    "Attempt", "Blocker", "Campaign", "Component", "Components", "Config", "Consequences", "Date", "Decision",
    "DecisionOutcome", "Direction", "Fix", "HeadlineMetric", "Metric", "Option", "Outcome", "Platform", "Record",
    "RecordId", "Requirement", "Source", "Sources", "SpecifierStr", "Stack", "StackChange", "VersionStr",
]
