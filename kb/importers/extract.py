"""Step 2 of import: draft attempts, stack facts and decisions out of a read :class:`Session`.

:func:`extract` is pure: it reads events and returns an :class:`Extraction`; it neither
redacts (:mod:`kb.redact`) nor writes (:mod:`kb.importers.drafts`).
:func:`extract_windows` does the same for a log read window by window
(:func:`kb.importers.readers.iter_windows`), with the same result. Every value it
keeps carries :class:`Evidence`: the field it supports, a locator (``line 9``, ``lines
27-33``, ``msg_a1/prt_a1b``) and a short quote, as written. Figures are kept as written
(``89.52`` stays ``89.52``).

Rules (evidence per FORMATS.md, "What an attempt is made of"):

Chat transcripts (claude, codex, opencode, gemini, aider, specstory)
    *An attempt is a run*: a tool call whose command launches a server or a benchmark
    (``sglang.launch_server``, ``bench_serving``, ``vllm serve``, ``trtllm-serve``,
    ``torchrun``, ``all_reduce_perf``, ...) or whose output holds a benchmark figure. Probes
    (``nvidia-smi``, ``nvcc``, ``python -c "import torch; ..."``, ``pip``) give stack facts,
    not attempts; other commands (a backup, an edit) give nothing.
    *approach*: the assistant text since the previous tool call (else the last user text,
    else the tool's description, else the command); *title*: the tool's description, else
    the first sentence of the approach. *config*: flags and ``NAME=value`` env of the command
    (``--tp 8`` → ``"--tp 8"``), plus flags written in that text (``--speculative-algorithm
    EAGLE3``). *metrics*: benchmark lines of the result (:data:`BENCH_METRICS`); failing
    that, ``N tok/s`` in the next assistant text. *error*: when the result is an error
    (``is_error``, a non-zero exit) or holds a traceback and no figure: the traceback (from
    ``Traceback`` to its last line), else the error lines, else the output's tail.
Markdown notebooks and plans
    A table with a throughput (``tok/s``) or ``Outcome`` column: one attempt per row (title
    and approach from the ``Approach``/``Config`` column, metrics from ``tok/s``/``TTFT``/...
    columns, outcome from ``Outcome``, error or cause from ``Error``/``cause``, a
    ``vs baseline`` gain). A dated section without such a table: one attempt per paragraph
    giving ``N tok/s``. ``Rejected ...:`` paragraphs list options, not attempts;
    ``Conclusion:`` paragraphs become notes of their section's attempts (or a decision
    statement if the section has none); a heading or paragraph saying ``Decision`` is a
    decision statement. Stack and platform facts come from the preamble (``Stack until
    2026-02-26: CUDA toolkit 12.8.1, driver 590.48.01, ...``, ``8× RTX PRO 6000 (compute
    capability 12.0), PCIe Gen5, no NVLink``); a fact ``until`` a date applies to attempts
    dated before it.
Stack facts (any format, from tool output)
    ``nvidia-smi``: ``Driver Version`` → ``driver``, ``CUDA Version`` → ``cuda-driver`` (the
    newest CUDA the driver supports); ``nvcc``: ``Build cuda_12.8.r12.8/...`` or ``release
    12.8`` → ``cuda`` (the toolkit); a ``print(torch.__version__, torch.version.cuda,
    torch.cuda.get_device_capability(0), torch.cuda.device_count(), flashinfer.__version__)``
    probe → ``torch``, ``torch-cuda``, platform ``compute_capability``, platform
    ``gpu_count``, ``flashinfer``; ``pip show``/``pip freeze``/``pip list`` → the components
    of :data:`KNOWN_COMPONENTS`; ``NCCL version 2.27.3`` → ``nccl``. An attempt gets the
    latest value of each fact observed before it.
Outcome
    ``failed`` when there is an error; a table's ``Outcome`` column as written; ``baseline``
    when the run says it measures the baseline (``Re-measuring the baseline``, a description
    starting ``Baseline``) or a ``vs baseline`` cell is empty; else the headline metric is
    compared with the reference (the latest baseline or improved attempt, at first the
    campaign's baseline): ``improved``, ``regressed`` or ``neutral``; ``inconclusive`` when
    there is no figure to compare.
Decisions
    A text starting ``Decision:``, a ``Decision`` heading's section, or a text saying ``we
    will``/``we decided``/``decided to``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kb.importers.events import Event, Locator, Session

QUOTE_CHARS = 200
"""Longest quote kept as evidence (longer ones are cut with ``…``)."""

ERROR_CHARS = 2000
"""Longest error text kept (the end is kept: the exception line is last)."""

KNOWN_COMPONENTS = {
    "torch": "torch", "flashinfer-python": "flashinfer", "flashinfer": "flashinfer",
    "sglang": "sglang", "sgl-kernel": "sgl-kernel", "sgl_kernel": "sgl-kernel", "vllm": "vllm",
    "triton": "triton", "transformers": "transformers", "xformers": "xformers",
    "flash-attn": "flash-attn", "flash_attn": "flash-attn", "tensorrt-llm": "tensorrt-llm",
    "tensorrt_llm": "tensorrt-llm", "nvidia-nccl-cu12": "nccl", "nvidia-nccl-cu13": "nccl",
    "deep-ep": "deep-ep", "deep_ep": "deep-ep", "cuda-python": "cuda-python",
}
"""Package names (as pip writes them) → stack component; other packages are not stack facts."""

BENCH_METRICS: list[tuple[re.Pattern[str], str, str | None]] = [
    (re.compile(r"^\s*(Output token throughput|Output throughput)\s*\(tok/s\)\s*:\s*([\d.]+)", re.I | re.M), "output_throughput", "tok/s"),
    (re.compile(r"^\s*Total [Tt]oken throughput\s*\(tok/s\)\s*:\s*([\d.]+)", re.M), "total_throughput", "tok/s"),
    (re.compile(r"^\s*Input token throughput\s*\(tok/s\)\s*:\s*([\d.]+)", re.I | re.M), "input_throughput", "tok/s"),
    (re.compile(r"^\s*Request throughput\s*\(req/s\)\s*:\s*([\d.]+)", re.I | re.M), "request_throughput", "req/s"),
    (re.compile(r"^\s*(Mean|Median|P\d+)\s+(TTFT|TPOT|ITL|E2E Latency|E2EL)\s*\((ms|s)\)\s*:\s*([\d.]+)", re.I | re.M), "", None),
    (re.compile(r"^\s*(?:Mean\s+)?(?:Accept|Acceptance)(?:ed)?\s+length\s*:\s*([\d.]+)", re.I | re.M), "acceptance_length", "tokens"),
]
"""Benchmark result lines (sglang/vLLM ``bench_serving``): pattern, metric name, unit."""

_RUN = re.compile(
    r"launch_server|bench_serving|bench_one_batch|bench_offline|\bvllm\s+(?:serve|bench)|vllm\.entrypoints"
    r"|benchmark_\w+\.py|trtllm-(?:serve|bench)|\btorchrun\b|\bmpirun\b|all_reduce_perf|\bbench(?:mark)?\.(?:py|sh)\b"
    r"|^\s*/run\b|\blaunch\.sh\b"
)
_TOK_S = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:\*\*)?\s*tok/s")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?:(?:=|\s+)([A-Z0-9][\w.:/+-]*|\d[\w.]*|/[\w./-]+))?")
_ENV = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$")
_BASELINE_WORDS = re.compile(r"\b(?:re-?measur\w*|measur\w*|establish\w*|record\w*)\s+(?:the\s+|a\s+|our\s+|today's\s+)?baseline\b", re.I)
_TRACEBACK = "Traceback (most recent call last)"
_ERROR_LINE = re.compile(r"(?:\b\w*(?:Error|Exception)\b|\berror:|NCCL WARN|CUDA error|out of memory|FAILED|Segmentation fault|core dumped)")
_NOISE_LINE = re.compile(r"^\s*(?:exit[ _]code:?\s*-?\d+|wall time:.*|command:.*|error:\s*\(none\)|signal:.*|process group pgid:.*|background pids:.*)\s*$", re.I)
_DECISION = re.compile(r"^\s*(?:\*\*)?Decision(?:\*\*)?\s*:|\bwe(?:'ll| will| decided| have decided)\b|\bdecided to\b", re.I)
_CONCLUSION = re.compile(r"^\s*(?:\*\*)?(?:Conclusion|Result)(?:\*\*)?\s*:", re.I)
_REJECTED = re.compile(r"^\s*(?:\*\*)?(?:Rejected|Not tried|Ruled out|Dropped)\b[^:]*:\s*(.+)$", re.I | re.S)
_DATE_PREFIX = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*(?:[—–:-]+\s*)?")
_UNTIL = re.compile(r"\b(?:until|before)\s+(\d{4}-\d{2}-\d{2})", re.I)

_PROSE_STACK = [
    (re.compile(r"\bCUDA toolkit\s+v?(\d+\.\d+(?:\.\d+)?)", re.I), "cuda"),
    (re.compile(r"\bdriver\s+(?:version\s+)?(\d{3}\.\d+(?:\.\d+)?)", re.I), "driver"),
    (re.compile(r"\btorch\s+v?(\d+\.\d+(?:\.\d+)?(?:\.dev\d+)?(?:\+\w+)?)", re.I), "torch"),
    (re.compile(r"\bflashinfer(?:-python)?\s+v?(\d+\.\d+(?:\.\d+)?(?:(?:\.post|rc|\.dev)\d+)?)", re.I), "flashinfer"),
    (re.compile(r"\bsgl-kernel\s+v?(\d+\.\d+(?:\.\d+)?)", re.I), "sgl-kernel"),
    (re.compile(r"\bsglang\s+v?(\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)", re.I), "sglang"),
    (re.compile(r"\bvllm\s+v?(\d+\.\d+(?:\.\d+)?(?:rc\d+)?(?:\.dev\d+)?)", re.I), "vllm"),
    (re.compile(r"\bNCCL\s+v?(\d+\.\d+\.\d+)", re.I), "nccl"),
]
_PROSE_PLATFORM = [
    (re.compile(r"\b(\d+)\s*[×x]\s*(?:NVIDIA\s+)?([A-Z][\w -]*?(?:GPU|H100|H200|B200|A100|Blackwell|Hopper|Ada|L40S?|\d{4}))\b"), "gpu"),
    (re.compile(r"\bcompute capability\s+(\d+\.\d+)", re.I), "compute_capability"),
    (re.compile(r"\b(PCIe\s+Gen\s*\d|NVLink\s*\d*|NVSwitch)\b", re.I), "interconnect"),
    (re.compile(r"\b(no|without)\s+NVLink\b", re.I), "nvlink"),
]


# --------------------------------------------------------------------------- result shapes


@dataclass
class Evidence:
    """Where one extracted value came from: the ``field`` it supports (``approach``,
    ``config``, ``error``, ``outcome``, ``metrics.output_throughput``, ``stack.cuda``,
    ``platform.gpu_count``, ``attempt`` for the anchor of an attempt, ``decision``,
    ``option``), a ``locator`` in the file (``line 9``, ``lines 27-33``, ``msg_a1/prt_a1b``)
    and a short ``quote`` as written."""

    field: str
    locator: str
    quote: str


@dataclass
class Fact:
    """A stack or platform fact: ``scope`` ``stack`` (``name`` a component: ``cuda``,
    ``cuda-driver``, ``driver``, ``torch``, ``torch-cuda``, ...) or ``platform`` (``gpu``,
    ``gpu_count``, ``compute_capability``, ``interconnect``, ``nvlink``); ``value`` as written;
    ``until``: the fact holds for attempts dated before this date only; ``position``: the
    index of the event it was read from (facts apply to later attempts)."""

    scope: str
    name: str
    value: str
    evidence: Evidence
    position: int = 0
    until: dt.date | None = None


@dataclass
class Figure:
    """A metric as written: ``name`` (``output_throughput``, ``median_ttft``, ...), ``text``
    (``"89.52"``), ``unit`` (a unit of :data:`kb.models.UNITS`)."""

    name: str
    text: str
    unit: str
    evidence: Evidence


@dataclass
class ExtractedAttempt:
    """One draft attempt before it becomes a record (see :mod:`kb.importers.drafts`).

    ``anchor`` locates the attempt itself (the tool call, the table row, the paragraph) and
    identifies it across imports. ``outcome`` is a :class:`kb.models.Outcome` value.
    ``reference`` is the index (in :attr:`Extraction.attempts`) of the attempt it was compared
    with, ``-1`` for the campaign's baseline, ``None`` for none.
    """

    anchor: Evidence
    title: str
    approach: str
    date: dt.date | None
    outcome: str = "inconclusive"
    command: str | None = None
    flags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, Figure] = field(default_factory=dict)
    error: str | None = None
    cause: str | None = None
    notes: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    reference: int | None = None
    explicit_outcome: bool = False


@dataclass
class Statement:
    """A decision statement or a considered (rejected) option, with its evidence."""

    kind: str
    text: str
    evidence: Evidence


@dataclass
class Headline:
    """The campaign's headline metric for comparisons: ``name`` (``output_throughput``),
    ``direction`` (``higher``/``lower``), and the campaign's baseline ``value`` if known."""

    name: str = "output_throughput"
    direction: str = "higher"
    value: float | None = None


@dataclass
class Extraction:
    """What :func:`extract` found in one session: attempts in order, every fact, decision
    statements, rejected options. ``file``/``format``/``sha256`` identify the source."""

    file: str
    format: str
    sha256: str
    tool_version: str | None
    attempts: list[ExtractedAttempt] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    decisions: list[Statement] = field(default_factory=list)
    options: list[Statement] = field(default_factory=list)


# --------------------------------------------------------------------------- entry point


def extract(session: Session, headline: Headline | None = None) -> Extraction:
    """Extract draft attempts, facts, decisions and options from ``session``.

    ``headline`` (the campaign's headline metric and baseline) decides outcomes by comparison;
    without it, output throughput, higher is better, no baseline value. Never raises for odd
    content: what it cannot read it leaves out.
    """
    return extract_windows([session], headline)


def extract_windows(windows: Iterable[Session], headline: Headline | None = None) -> Extraction:
    """Extract from a log read as consecutive windows (:func:`kb.importers.readers.iter_windows`),
    one window at a time: what a chat extraction carries from one window to the next is only
    its running state (the latest stack facts, the last person's message and date, assistant
    text not yet followed by a tool call, a run waiting for a figure in prose), so memory is
    bounded by a window plus what is extracted. Windows cut where ``iter_windows`` cuts them
    (every call with its result) give the same :class:`Extraction` as :func:`extract` of the
    whole session. The source fields (``file``, ``format``, ``sha256``, ``tool_version``) are
    those of the last window. A Markdown document comes as one window.

    ``headline`` as for :func:`extract`; outcomes are decided once every window is read.
    Raises what iterating ``windows`` raises (a :class:`kb.importers.LogFormatError`); an
    empty iterable gives ``ValueError``.
    """
    headline = headline or Headline()
    out: Extraction | None = None
    chat: _ChatState | None = None
    last: Session | None = None
    for window in windows:
        if out is None:
            out = Extraction(window.path.name, window.format, window.sha256, window.tool_version)
            chat = _ChatState(out) if window.format != "markdown" else None
        if chat is None:
            _extract_document(window, out)
        else:
            chat.feed(window)
        last = window
    if out is None or last is None:
        raise ValueError("extract_windows needs at least one window")
    out.file, out.format, out.sha256, out.tool_version = (last.path.name, last.format, last.sha256,
                                                          last.tool_version)
    _decide_outcomes(out, headline)
    return out


def locator_text(locator: Locator) -> str:
    """``line 9``, ``lines 27-33``, ``msg_a1/prt_a1b``: a locator without its file name."""
    if locator.line is not None:
        return f"line {locator.line}"
    if locator.line_start is not None:
        end = locator.line_end or locator.line_start
        return f"line {locator.line_start}" if end == locator.line_start else f"lines {locator.line_start}-{end}"
    ids = "/".join(i for i in (locator.message_id, locator.part_id) if i)
    return ids or locator.file


def short_quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` stripped, on one line (newlines as `` / ``), cut to ``limit`` characters."""
    text = " / ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --------------------------------------------------------------------------- chats


class _ChatState:
    """A chat extraction in progress: :meth:`feed` it the windows of a session in order."""

    def __init__(self, out: Extraction) -> None:
        self.out = out
        self.context: list[Event] = []  # assistant texts since the last tool call
        self.last_user: Event | None = None
        self.last_date: dt.date | None = None
        self.pending_prose: ExtractedAttempt | None = None  # a run without a figure, waiting for prose
        self.latest: dict[tuple[str, str], Fact] = {}  # the latest fact per (scope, name) so far

    def feed(self, session: Session) -> None:
        out = self.out
        for event in session.events:
            if event.timestamp is not None:
                self.last_date = event.timestamp.date()
            if event.kind == "text" and event.role in ("assistant", "user"):
                _decision_in(event, out)
                if event.role == "user" and event.text.lstrip().startswith("/"):
                    continue  # an Aider command such as "/run ...": the call itself, not a request
                if event.role == "user":
                    self.last_user = event
                    self.context = []
                    self.pending_prose = None
                else:
                    self.context.append(event)
                    if self.pending_prose is not None:
                        _prose_figure(self.pending_prose, event)
                        self.pending_prose = None
                continue
            if event.kind != "tool_call":
                continue
            command = _command_of(event)
            result = session.result_for(event)
            output = result.text if result is not None else ""
            if result is not None:
                for fact in _output_facts(command, output, result, event.index):
                    out.facts.append(fact)
                    self.latest[(fact.scope, fact.name)] = fact
            figures = _bench_figures(output, result) if result is not None else {}
            if command is None or not (_RUN.search(command) or figures):
                self.context = []
                continue
            attempt = _chat_attempt(event, result, command, figures, self.context, self.last_user,
                                    self.last_date)
            attempt.facts = list(self.latest.values())
            out.attempts.append(attempt)
            self.pending_prose = attempt if "output_throughput" not in attempt.metrics and not attempt.error else None
            self.context = []


def _command_of(event: Event) -> str | None:
    data = event.tool_input
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return data.strip() or None
    if not isinstance(data, dict):
        return None
    command = data.get("command", data.get("cmd"))
    if isinstance(command, list):
        parts = [str(p) for p in command]
        if len(parts) >= 3 and parts[0] in ("bash", "sh", "zsh") and parts[1] in ("-lc", "-c"):
            return parts[2]
        return shlex.join(parts)
    return command if isinstance(command, str) and command.strip() else None


def _chat_attempt(call: Event, result: Event | None, command: str,
                  figures: dict[str, Figure], context: list[Event], last_user: Event | None,
                  last_date: dt.date | None) -> ExtractedAttempt:
    description = call.tool_input.get("description") if isinstance(call.tool_input, dict) else None
    description = description if isinstance(description, str) and description.strip() else None
    texts = [e for e in context if e.text.strip()]
    if texts:
        approach_event = texts[-1] if len(texts) == 1 else None
        approach = "\n\n".join(_first_paragraph(e.text) for e in texts)
        approach_locator = locator_text((approach_event or texts[0]).locator)
    elif last_user is not None and last_user.text.strip():
        approach, approach_locator = _first_paragraph(last_user.text), locator_text(last_user.locator)
    else:
        approach, approach_locator = description or command, locator_text(call.locator)
    title = description or _title_of(approach)
    when = call.timestamp or (result.timestamp if result is not None else None)
    attempt = ExtractedAttempt(
        anchor=Evidence("attempt", locator_text(call.locator), short_quote(description or command)),
        title=title, approach=approach.strip(), date=when.date() if when else last_date, command=command,
    )
    attempt.evidence.append(Evidence("approach", approach_locator, short_quote(approach)))
    flags, env = _command_config(command)
    for text_event in texts + ([last_user] if last_user is not None and not texts else []):
        for flag in _text_flags(text_event.text):
            if not any(f.split(" ")[0] == flag.split(" ")[0] for f in flags):
                flags.append(flag)
    attempt.flags, attempt.env = flags, env
    if flags or env:
        attempt.evidence.append(Evidence("config", locator_text(call.locator), short_quote(command)))
    if result is not None:
        attempt.metrics = figures
        if _is_failure(result, figures):
            attempt.error = _error_text(result.text)
            attempt.evidence.append(Evidence("error", locator_text(result.locator), short_quote(attempt.error.splitlines()[-1])))
            attempt.outcome, attempt.explicit_outcome = "failed", True
            attempt.evidence.append(Evidence("outcome", locator_text(result.locator), _outcome_quote(result)))
    if attempt.outcome != "failed" and (_BASELINE_WORDS.search(approach) or (description or "").lower().startswith("baseline")):
        attempt.outcome, attempt.explicit_outcome = "baseline", True
        attempt.evidence.append(Evidence("outcome", approach_locator if _BASELINE_WORDS.search(approach) else locator_text(call.locator),
                                         short_quote(_BASELINE_WORDS.search(approach).group(0) if _BASELINE_WORDS.search(approach) else description or "")))
    return attempt


def _outcome_quote(result: Event) -> str:
    if result.is_error:
        return "is_error: true" if result.exit_code is None else f"exit code {result.exit_code}"
    if result.exit_code:
        return f"exit code {result.exit_code}"
    return short_quote(_error_text(result.text).splitlines()[-1])


def _is_failure(result: Event, figures: dict[str, Figure]) -> bool:
    if result.is_error or (result.exit_code not in (None, 0)):
        return True
    return not figures and (_TRACEBACK in result.text)


def _error_text(output: str) -> str:
    """The error in a tool's output: the traceback (from ``Traceback`` to its end), else the
    error lines, else the last lines; wrapper lines (``Exit code 1``, ``Wall time``,
    ``Command:``) removed, ``Output:`` prefixes dropped."""
    lines = []
    for line in output.splitlines():
        if _NOISE_LINE.match(line):
            continue
        lines.append(re.sub(r"^\s*Output:\s?", "", line))
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    text = "\n".join(lines)
    if _TRACEBACK in text:
        text = text[text.index(_TRACEBACK):]
    else:
        errors = [line for line in lines if _ERROR_LINE.search(line)]
        text = "\n".join(errors[-5:]) if errors else "\n".join(lines[-5:])
    text = text.strip() or output.strip() or "(no output)"
    return text if len(text) <= ERROR_CHARS else "…" + text[-(ERROR_CHARS - 1):]


def _prose_figure(attempt: ExtractedAttempt, event: Event) -> None:
    match = _TOK_S.search(event.text)
    if match:
        attempt.metrics["output_throughput"] = Figure(
            "output_throughput", match.group(1), "tok/s",
            Evidence("metrics.output_throughput", locator_text(event.locator), short_quote(_sentence_around(event.text, match.start()))))


def _bench_figures(output: str, result: Event) -> dict[str, Figure]:
    figures: dict[str, Figure] = {}
    where = locator_text(result.locator)
    for pattern, name, unit in BENCH_METRICS:
        for match in pattern.finditer(output):
            if name:
                metric, value, metric_unit = name, match.groups()[-1], unit or ""
            else:
                stat, what, metric_unit, value = match.groups()
                what = {"E2E LATENCY": "e2e_latency", "E2EL": "e2e_latency"}.get(what.upper(), what.lower())
                metric = f"{stat.lower()}_{what}"
            if metric in figures or not re.fullmatch(r"\d+(?:\.\d+)?", value):
                continue
            figures[metric] = Figure(metric, value, metric_unit, Evidence(f"metrics.{metric}", where, short_quote(match.group(0))))
    if "output_throughput" not in figures:  # "Output token throughput (tok/s): 54.10" in a one-line result
        match = re.search(r"throughput[^\n:]*\(tok/s\)\s*:\s*(\d+(?:\.\d+)?)", output, re.I)
        if match:
            figures["output_throughput"] = Figure("output_throughput", match.group(1), "tok/s",
                                                  Evidence("metrics.output_throughput", where, short_quote(match.group(0))))
    return figures


# --------------------------------------------------------------------------- config


def _command_config(command: str) -> tuple[list[str], dict[str, str]]:
    """Flags (``"--tp 8"``, ``"--enable-torch-symm-mem"``) and ``NAME=value`` env of a shell
    command; quoted inner commands (``ssh host '...'``, ``bash -c '...'``) are opened."""
    flags: list[str] = []
    env: dict[str, str] = {}
    for tokens in _segments(command):
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token == "export" or token == "env":
                i += 1
                continue
            match = _ENV.match(token)
            if match and not flags:
                env[match.group(1)] = match.group(2)
            elif token.startswith("--") and len(token) > 2:
                if "=" in token:
                    flags.append(token)
                elif i + 1 < len(tokens) and not tokens[i + 1].startswith("-") and tokens[i + 1] not in ("|", ">", "<"):
                    flags.append(f"{token} {tokens[i + 1]}")
                    i += 1
                else:
                    flags.append(token)
            i += 1
    return flags, env


def _segments(command: str, depth: int = 0) -> list[list[str]]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = command.split()
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token and set(token) <= set(";&|"):
            segments.append([])
        elif " " in token and depth < 3 and ("--" in token or "=" in token):
            segments.extend(_segments(token, depth + 1))
            segments.append([])
        else:
            segments[-1].append(token)
    return [s for s in segments if s and not _is_probe(s)]


def _is_probe(tokens: list[str]) -> bool:
    head = " ".join(tokens[:3])
    return bool(re.search(r"\b(nvidia-smi|nvcc|pip|uv pip|wc|tail|head|cat|ls|cd|grep)\b", head)) and not _RUN.search(" ".join(tokens))


def _text_flags(text: str) -> list[str]:
    """``--flag VALUE`` written in prose or code spans; a value counts only when it looks like
    one (a number, an upper-case name, a path), so ``--cuda-graph-max-bs from 512`` gives
    the flag alone."""
    flags = []
    for match in _FLAG.finditer(text):
        flag = match.group(1) + (f" {match.group(2)}" if match.group(2) else "")
        flag = flag.rstrip(".,;:")
        if flag not in flags:
            flags.append(flag)
    return flags


# --------------------------------------------------------------------------- facts


def _output_facts(command: str | None, output: str, result: Event, position: int) -> list[Fact]:
    facts: list[Fact] = []
    where = locator_text(result.locator)

    def add(scope: str, name: str, value: str, quote: str) -> None:
        facts.append(Fact(scope, name, value, Evidence(f"{scope}.{name}", where, short_quote(quote)), position))

    for line in output.splitlines():
        match = re.search(r"Driver Version:\s*([\d.]+)", line)
        if match:
            add("stack", "driver", match.group(1), line)
        match = re.search(r"CUDA Version:\s*([\d.]+)", line)
        if match:
            add("stack", "cuda-driver", match.group(1), line)
        match = re.search(r"Build cuda_(\d+\.\d+)\.r\d+\.\d+/compiler", line) or re.search(
            r"Cuda compilation tools, release (\d+\.\d+)", line)
        if match:
            add("stack", "cuda", match.group(1), line)
        match = re.search(r"\bNCCL version\s+(\d+\.\d+\.\d+)", line)
        if match:
            add("stack", "nccl", match.group(1), line)
    if command and re.search(r"\bpip\b", command):
        facts.extend(_pip_facts(command, output, where, position))
    if command and "print(" in command and "__version__" in command or (command and "device_count" in command):
        facts.extend(_print_facts(command, output, where, position))
    return facts


def _pip_facts(command: str, output: str, where: str, position: int) -> list[Fact]:
    facts = []
    name = None
    for line in output.splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;]+)\s*$", line) or (
            re.match(r"^([A-Za-z0-9_.-]+)\s+(\d[^\s]*)\s*$", line) if re.search(r"\bpip\s+list\b", command) else None)
        if match:
            pkg, version = match.groups()
        else:
            shown = re.match(r"^Name:\s*(\S+)", line)
            if shown:
                name = shown.group(1)
                continue
            version_line = re.match(r"^Version:\s*(\S+)", line)
            if not (version_line and name):
                continue
            pkg, version = name, version_line.group(1)
        component = KNOWN_COMPONENTS.get(pkg.lower())
        if component:
            facts.append(Fact("stack", component, version, Evidence(f"stack.{component}", where, short_quote(line)), position))
    return facts


_PRINT_ARG = re.compile(r"print\((.*)\)", re.S)


def _print_facts(command: str, output: str, where: str, position: int) -> list[Fact]:
    """Facts from ``python -c "...; print(torch.__version__, torch.version.cuda, ...)"``:
    the printed expressions are matched, in order, with the tokens of the output line that
    has as many (``(12, 0)`` counts as one)."""
    match = _PRINT_ARG.search(command)
    if not match:
        return []
    expressions = _split_args(match.group(1))
    lines = [line for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        tokens = re.findall(r"\([^)]*\)|\S+", line)
        if len(tokens) != len(expressions):
            continue
        facts = []
        for expression, token in zip(expressions, tokens):
            fact = _expression_fact(expression.strip(), token, line, where, position)
            if fact:
                facts.append(fact)
        if facts:
            return facts
    return []


def _split_args(text: str) -> list[str]:
    args, depth, current = [], 0, ""
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            args.append(current)
            current = ""
        else:
            current += char
    return [a for a in args + [current] if a.strip()]


def _expression_fact(expression: str, token: str, line: str, where: str, position: int) -> Fact | None:
    def fact(scope: str, name: str, value: str) -> Fact:
        return Fact(scope, name, value, Evidence(f"{scope}.{name}", where, short_quote(line)), position)

    if expression == "torch.version.cuda":
        return fact("stack", "torch-cuda", token) if re.fullmatch(r"\d+\.\d+", token) else None
    if "get_device_capability" in expression:
        cap = re.fullmatch(r"\((\d+),\s*(\d+)\)", token)
        return fact("platform", "compute_capability", f"{cap.group(1)}.{cap.group(2)}") if cap else None
    if "device_count" in expression:
        return fact("platform", "gpu_count", token) if token.isdigit() else None
    if "get_device_name" in expression:
        return None
    module = re.fullmatch(r"([A-Za-z_][\w]*)\.__version__", expression)
    if module and re.match(r"^\d", token):
        component = KNOWN_COMPONENTS.get(module.group(1).lower(), module.group(1).lower().replace("_", "-"))
        return fact("stack", component, token)
    return None


def _facts_before(facts: list[Fact], position: int, date: dt.date | None = None) -> list[Fact]:
    """The latest fact of each (scope, name) observed before ``position`` and holding on ``date``."""
    latest: dict[tuple[str, str], Fact] = {}
    for fact in facts:
        if fact.position > position:
            continue
        if fact.until is not None and (date is None or date >= fact.until):
            continue
        latest[(fact.scope, fact.name)] = fact
    return list(latest.values())


# --------------------------------------------------------------------------- documents


def _extract_document(session: Session, out: Extraction) -> None:
    events = session.events
    headings = [e for e in events if e.kind == "heading"]
    first_dated = next((h.index for h in headings if h.timestamp is not None), len(events))
    lines = _source_lines(session)
    # preamble facts
    for event in events:
        if event.kind in ("text", "list_item") and (event.index < first_dated or re.match(r"^\s*(Stack|Platform|Environment|Hardware)\b", event.text)):
            out.facts.extend(_prose_facts(event))
    # sections: events grouped under their innermost heading
    sections: list[tuple[Event | None, list[Event]]] = [(None, [])]
    for event in events:
        if event.kind == "heading":
            sections.append((event, []))
        else:
            sections[-1][1].append(event)
    for heading, body in sections:
        date = _heading_date(headings, heading)
        title = _DATE_PREFIX.sub("", heading.text).strip() if heading is not None else ""
        is_decision = heading is not None and re.search(r"\b(Decision|Decided)\b", heading.text, re.I)
        if is_decision:
            texts = [e.text for e in body if e.kind in ("text", "list_item")]
            if texts:
                out.decisions.append(Statement("decision", "\n\n".join(texts),
                                               Evidence("decision", locator_text(heading.locator), short_quote(texts[0]))))
        start = len(out.attempts)
        for event in body:
            if event.kind == "table" and event.table is not None:
                _table_attempts(event, date, lines, out)
        has_table_attempts = len(out.attempts) > start
        conclusions: list[Event] = []
        others: list[Event] = []
        for event in body:
            if event.kind not in ("text", "list_item"):
                continue
            rejected = _REJECTED.match(event.text)
            if rejected:
                for option in _split_options(rejected.group(1)):
                    out.options.append(Statement("option", option, Evidence("option", locator_text(event.locator), short_quote(event.text))))
                continue
            if heading is not None and re.search(r"\b(Rejected|Not tried|Ruled out)\b", heading.text, re.I) and event.kind == "list_item":
                out.options.append(Statement("option", event.text.strip(), Evidence("option", locator_text(event.locator), short_quote(event.text))))
                continue
            if is_decision:
                continue
            if _DECISION.search(event.text):
                out.decisions.append(Statement("decision", event.text.strip(), Evidence("decision", locator_text(event.locator), short_quote(event.text))))
                continue
            if _CONCLUSION.match(event.text):
                conclusions.append(event)
                continue
            if date is not None and not has_table_attempts and event.kind == "text" and _TOK_S.search(event.text):
                out.attempts.append(_prose_attempt(event, title, date))
                continue
            others.append(event)
        new = out.attempts[start:]
        for event in conclusions:
            if new:
                for attempt in new:
                    attempt.notes.append(event.text.strip())
                    attempt.evidence.append(Evidence("notes", locator_text(event.locator), short_quote(event.text)))
            else:
                out.decisions.append(Statement("decision", event.text.strip(), Evidence("decision", locator_text(event.locator), short_quote(event.text))))
        if len(new) == 1:
            for event in others:
                new[0].notes.append(event.text.strip())
                new[0].evidence.append(Evidence("notes", locator_text(event.locator), short_quote(event.text)))
        known_flags = {m.group(1) for e in body for m in _FLAG.finditer(e.text)}
        for attempt in new:
            attempt.facts = _facts_before(out.facts, len(events), attempt.date)
            if not attempt.flags and not attempt.env:
                attempt.flags, attempt.env = _cell_config(attempt.title, known_flags)
                if attempt.flags or attempt.env:
                    attempt.evidence.append(Evidence("config", attempt.anchor.locator, attempt.anchor.quote))


def _source_lines(session: Session) -> dict[int, str]:
    """Line number → source text of every table line (for row quotes)."""
    texts: dict[int, str] = {}
    for event in session.events:
        if event.kind == "table" and event.locator.line_start:
            for offset, line in enumerate(event.text.splitlines()):
                texts[event.locator.line_start + offset] = line
    return texts


def _heading_date(headings: list[Event], heading: Event | None) -> dt.date | None:
    if heading is None:
        return None
    if heading.timestamp is not None:
        return heading.timestamp.date()
    # a sub-heading takes the date of the dated heading above it
    for other in reversed(headings[: headings.index(heading)]):
        if other.timestamp is not None and (other.level or 0) < (heading.level or 0):
            return other.timestamp.date()
    return None


def _prose_facts(event: Event) -> list[Fact]:
    facts = []
    until_match = _UNTIL.search(event.text)
    until = dt.date.fromisoformat(until_match.group(1)) if until_match else None
    where = locator_text(event.locator)
    for sentence in re.split(r"(?<=[.;])\s+", event.text):
        for pattern, name in _PROSE_STACK:
            for match in pattern.finditer(sentence):
                facts.append(Fact("stack", name, match.group(1), Evidence(f"stack.{name}", where, short_quote(match.group(0))), event.index, until))
        for pattern, name in _PROSE_PLATFORM:
            for match in pattern.finditer(sentence):
                if name == "gpu":
                    facts.append(Fact("platform", "gpu_count", match.group(1), Evidence("platform.gpu_count", where, short_quote(match.group(0))), event.index))
                    facts.append(Fact("platform", "gpu", match.group(2).strip(), Evidence("platform.gpu", where, short_quote(match.group(0))), event.index))
                elif name == "nvlink":
                    facts.append(Fact("platform", "nvlink", "false", Evidence("platform.nvlink", where, short_quote(match.group(0))), event.index))
                elif name == "interconnect" and re.match(r"nvlink", match.group(1), re.I) and re.search(
                        r"\b(no|without)\s+NVLink", sentence, re.I):
                    continue  # "no NVLink" is not an interconnect
                else:
                    facts.append(Fact("platform", name, match.group(1), Evidence(f"platform.{name}", where, short_quote(match.group(0))), event.index))
    return facts


_TITLE_COLUMNS = ("approach", "config", "configuration", "experiment", "run", "change", "setting", "variant", "what")
_OUTCOMES = {"failed": "failed", "fail": "failed", "error": "failed", "crashed": "failed", "improved": "improved",
             "regressed": "regressed", "regression": "regressed", "slower": "regressed", "neutral": "neutral",
             "no change": "neutral", "baseline": "baseline", "inconclusive": "inconclusive"}
_COLUMN_METRICS = [
    (re.compile(r"tok/s|throughput", re.I), "output_throughput", "tok/s"),
    (re.compile(r"\bTTFT\b", re.I), "ttft", "ms"),
    (re.compile(r"\bTPOT\b", re.I), "tpot", "ms"),
    (re.compile(r"\bITL\b", re.I), "itl", "ms"),
    (re.compile(r"accept", re.I), "acceptance_length", "tokens"),
]
_EMPTY_CELLS = {"", "—", "–", "-", "n/a", "na", "none", "?"}


def _table_attempts(event: Event, date: dt.date | None, lines: dict[int, str], out: Extraction) -> None:
    table = event.table
    assert table is not None
    headers = table.headers
    lowered = {h: h.lower() for h in headers}
    metric_cols = []
    for header in headers:
        for pattern, name, unit in _COLUMN_METRICS:
            if pattern.search(header):
                unit_match = re.search(r"\((ms|s|tok/s|tokens|%)\)", header)
                metric_cols.append((header, name, unit_match.group(1) if unit_match else unit))
                break
    outcome_col = next((h for h in headers if lowered[h].strip() in ("outcome", "result", "status")), None)
    gain_col = next((h for h in headers if re.search(r"vs\.? baseline|gain|Δ|delta|change vs", h, re.I)), None)
    if not (any(n == "output_throughput" for _, n, _ in metric_cols) or outcome_col):
        return
    title_col = next((h for h in headers if lowered[h].strip() in _TITLE_COLUMNS), headers[0])
    error_col = next((h for h in headers if re.search(r"error|cause|reason|why", h, re.I)), None)
    for row in table.rows:
        title = _plain(row.cells.get(title_col, ""))
        if not title:
            continue
        quote = short_quote(lines.get(row.line, " | ".join(row.cells.values())))
        where = f"line {row.line}"
        attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=date)
        attempt.evidence.append(Evidence("approach", where, quote))
        for header, name, unit in metric_cols:
            value = re.match(r"^\**\s*(\d+(?:\.\d+)?)", row.cells.get(header, "").strip())
            if value:
                attempt.metrics[name] = Figure(name, value.group(1), unit, Evidence(f"metrics.{name}", where, quote))
        cell = _plain(row.cells.get(outcome_col, "")).lower() if outcome_col else ""
        if cell in _OUTCOMES:
            attempt.outcome, attempt.explicit_outcome = _OUTCOMES[cell], True
            attempt.evidence.append(Evidence("outcome", where, quote))
        if gain_col:
            gain = row.cells.get(gain_col, "").strip()
            gain_value = re.match(r"^\+?\s*(\d+(?:\.\d+)?)\s*%$", gain)
            if gain_value:
                attempt.metrics["gain_vs_baseline"] = Figure("gain_vs_baseline", gain_value.group(1), "%",
                                                             Evidence("metrics.gain_vs_baseline", where, quote))
            elif gain.lower() in _EMPTY_CELLS and not attempt.explicit_outcome:
                attempt.outcome, attempt.explicit_outcome = "baseline", True
                attempt.evidence.append(Evidence("outcome", where, quote))
            elif gain:
                attempt.notes.append(f"{gain_col}: {gain}")
        if error_col:
            text = _plain(row.cells.get(error_col, ""))
            if text.lower() not in _EMPTY_CELLS:
                if attempt.outcome == "failed":
                    attempt.error = text
                    attempt.evidence.append(Evidence("error", where, quote))
                else:
                    attempt.cause = text
                    attempt.notes.append(f"{error_col}: {text}")
        if attempt.outcome == "failed" and not attempt.error:
            attempt.error = f"{title}: failed"
        flags = _text_flags(row.cells.get(title_col, ""))
        env = dict(m.groups() for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)=([^\s,`]+)", row.cells.get(title_col, "")))
        attempt.flags, attempt.env = flags, env
        out.attempts.append(attempt)


def _prose_attempt(event: Event, title: str, date: dt.date | None) -> ExtractedAttempt:
    match = _TOK_S.search(event.text)
    assert match is not None
    where = locator_text(event.locator)
    quote = short_quote(_sentence_around(event.text, match.start()))
    attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title or _first_sentence(event.text),
                               approach=" ".join(_plain(_first_paragraph(event.text)).split()), date=date)
    attempt.evidence.append(Evidence("approach", where, short_quote(event.text)))
    attempt.metrics["output_throughput"] = Figure("output_throughput", match.group(1), "tok/s",
                                                  Evidence("metrics.output_throughput", where, quote))
    attempt.flags = _text_flags(event.text)
    attempt.env = dict(m.groups() for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)=([^\s,`]+)", event.text))
    if attempt.flags or attempt.env:
        attempt.evidence.append(Evidence("config", where, quote))
    return attempt


def _cell_config(cell: str, known_flags: set[str]) -> tuple[list[str], dict[str, str]]:
    """Config from a table cell such as ``tp8, cuda-graph-max-bs 128``: ``tpN`` → ``--tp N``;
    ``name value`` → ``--name value`` when the document writes ``--name`` somewhere."""
    flags: list[str] = []
    env: dict[str, str] = {}
    for item in re.split(r",\s*", _plain(cell)):
        item = item.strip()
        tp = re.fullmatch(r"tp\s*(\d+)", item, re.I)
        if tp:
            flags.append(f"--tp {tp.group(1)}")
            continue
        pair = re.fullmatch(r"([a-z][a-z0-9-]+)\s+(\S+)", item)
        if pair and f"--{pair.group(1)}" in known_flags:
            flags.append(f"--{pair.group(1)} {pair.group(2)}")
            continue
        var = re.fullmatch(r"([A-Z][A-Z0-9_]+)=(\S+)", item)
        if var:
            env[var.group(1)] = var.group(2)
    return flags, env


def _split_options(text: str) -> list[str]:
    text = text.strip().rstrip(".")
    parts = re.split(r",\s*(?:and\s+|or\s+)?|;\s*", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


# --------------------------------------------------------------------------- decisions, outcomes


def _decision_in(event: Event, out: Extraction) -> None:
    for paragraph in re.split(r"\n\s*\n", event.text):
        if _DECISION.search(paragraph):
            out.decisions.append(Statement("decision", paragraph.strip(),
                                           Evidence("decision", locator_text(event.locator), short_quote(paragraph))))
            return


def _decide_outcomes(out: Extraction, headline: Headline) -> None:
    """Outcomes by comparison with the reference (see the module docstring)."""
    reference: tuple[float, int] | None = (headline.value, -1) if headline.value is not None else None
    for position, attempt in enumerate(out.attempts):
        figure = attempt.metrics.get(headline.name)
        value = float(figure.text) if figure else None
        if not attempt.explicit_outcome and value is not None and reference is not None:
            better = value > reference[0] if headline.direction == "higher" else value < reference[0]
            worse = value < reference[0] if headline.direction == "higher" else value > reference[0]
            attempt.outcome = "improved" if better else "regressed" if worse else "neutral"
            attempt.reference = reference[1]
        elif attempt.outcome in ("regressed", "improved", "neutral") and reference is not None:
            attempt.reference = reference[1]
        if value is not None and attempt.outcome in ("baseline", "improved"):
            reference = (value, position)


# --------------------------------------------------------------------------- text helpers


def _first_paragraph(text: str) -> str:
    return re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0].strip()


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.!?:])\s", _plain(text).strip(), maxsplit=1)[0].rstrip(".:")
    return sentence[:100].strip() or "Imported attempt"


def _title_of(text: str) -> str:
    """A title from an approach: its last sentence (the one just before a run usually says
    what runs), without a leading "Now"/"Next", at most 80 characters."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", _plain(text).strip()) if s.strip()]
    title = (sentences[-1] if sentences else "").strip().rstrip(".:")
    title = re.sub(r"^(?:now|next|then|so)\b,?\s*", "", title, flags=re.I)
    title = title[:1].upper() + title[1:]
    if len(title) > 80:
        title = title[:80].rsplit(" ", 1)[0]
    return title or "Imported attempt"


def _sentence_around(text: str, position: int) -> str:
    start = max(text.rfind(". ", 0, position) + 2, text.rfind("\n", 0, position) + 1, 0)
    end_candidates = [i for i in (text.find(". ", position), text.find("\n", position)) if i >= 0]
    end = min(end_candidates) + 1 if end_candidates else len(text)
    return text[start:end].strip()


def _plain(text: str) -> str:
    """Cell or paragraph text without Markdown emphasis and code backticks."""
    return re.sub(r"\*\*|__|`", "", text).strip()


def as_dict(value: Any) -> Any:
    """An extraction (or any part of it) as plain JSON-ready data (dates as ISO strings)."""
    from dataclasses import asdict, is_dataclass

    if is_dataclass(value) and not isinstance(value, type):
        return as_dict(asdict(value))
    if isinstance(value, dict):
        return {k: as_dict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_dict(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
