"""The record kinds: platform, stack, campaign, attempt, blocker (with its fixes), decision, and
:data:`KINDS`, the folder → model map (see :mod:`kb.models`)."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    StrictStr,
    field_validator,
    model_serializer,
    model_validator,
)

from kb.models.base import (
    Applicability,
    Components,
    Date,
    Metric,
    Record,
    RecordId,
    Requirement,
    _Strict,
)
from kb.versions import arch_of, canonical_component

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
    error: StrictStr | None = None
    blocked_by: list[RecordId] = Field(default_factory=list)
    status: Literal["draft", "reviewed"] = "reviewed"

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

_FIX_KEYS = ("kind", "requires", "release", "pr", "reverted", "flag", "advice", "note")


def _fix_shorthand(value: Any) -> Any:
    """A ``fixed_by`` item written as the old shorthand, a mapping component → specifier that
    must hold together, is an ``enables`` fix: ``{cuda: ">=13.0"}`` →
    ``{kind: enables, requires: {cuda: ">=13.0"}}``. A mapping naming any of the fix's own keys
    (``kind``, ``requires``, ``release``, ...) is a full fix object."""
    if isinstance(value, dict) and not any(str(k) in _FIX_KEYS for k in value):
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
    description: StrictStr | None = None

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

    @model_validator(mode="after")
    def _chosen_is_an_option(self) -> "Decision":
        titles = [o.title for o in self.considered_options]
        if self.outcome.chosen not in titles:
            raise ValueError(
                f"outcome.chosen '{self.outcome.chosen}' is not one of the considered options: "
                + ", ".join(repr(t) for t in titles)
            )
        return self

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
