"""Step 2 of import: draft attempts, stack facts and decisions out of a read :class:`Session`.

:func:`extract` is pure: it reads events and returns an :class:`Extraction`; it neither
redacts (:mod:`kb.redact`) nor writes (:mod:`kb.importers.drafts`).
:func:`extract_windows` does the same for a log read window by window
(:func:`kb.importers.readers.iter_windows`), with the same result. Every value it
keeps carries :class:`Evidence`: the field it supports, a locator (``line 9``, ``lines
27-33``, ``msg_a1/prt_a1b``) and a short quote, as written. Figures are kept as written
(``89.52`` stays ``89.52``).

Modules: :mod:`.model` (result shapes, text helpers), :mod:`.chat` (runs in agent transcripts),
:mod:`.documents` (notebooks and plans), :mod:`.measurements` (figures), :mod:`.config` (flags and
env), :mod:`.facts` (stack and platform facts), :mod:`.outcomes` (decisions, outcomes).

Rules (evidence per FORMATS.md, "What an attempt is made of"):

Chat transcripts (claude, codex, opencode, gemini, aider, specstory, claude-export)
    *An attempt is a run*, whatever the script is called (:mod:`.chat`): a shell call whose
    output reports a measurement (:mod:`.measurements`: summary lines, ``key=value``, printed
    tables, figures with a unit; a sweep is one attempt with a series) or that fails while
    running a program (:mod:`.failures`: ``is_error``, a non-zero exit, a traceback, an OOM,
    ``NCCL error`` or ``CUDA error`` line; ``error`` is the headline, ``error_detail`` the
    traceback), or that launches a server or benchmark. Probes give stack facts; ``ls``,
    ``cat``, ``pip`` alone give nothing. *approach*: the narration since the previous call (else
    the last user text, else the tool's description, else the command) and what changed since
    the family's previous run. *config*: flags and ``NAME=value`` env of the command, plus
    flags written in the narration. Without a figure, ``N tok/s`` in the next assistant text.
Markdown notebooks and plans (:mod:`.documents`, :mod:`.tables`)
    Table rows (units in any header spelling or in the sentence above, several metric columns
    kept apart, A/B tables whose columns are the arms, outcome and Δ cells as written, section
    and total rows skipped); runs written as list items under dated headings; dated paragraphs
    giving a figure. ``Rejected ...:`` paragraphs and ``Not tried``/``Alternatives`` sections
    list options, not attempts; ``Conclusion:`` paragraphs become notes of their section's
    attempts (or a decision statement if the section has none); a heading or paragraph saying
    ``Decision`` is a decision statement. Stack and platform facts come from the preamble, only
    for what ran; a fact ``until`` a date applies to attempts dated before it; a preamble
    ``Date:`` dates undated sections.
Benchmark result files (:mod:`.results`)
    vLLM ``--save-result`` JSON, SGLang ``--output-file`` JSONL, llama-bench JSON or markdown,
    read by their keys.
Stack facts (any format, from tool output; read by the parsers ``kb capture`` uses, :mod:`kb.toolout`)
    ``nvidia-smi``: ``Driver Version`` → ``driver``, ``CUDA Version`` → ``cuda-driver`` (the
    newest CUDA the driver supports); ``nvcc --version`` → ``cuda`` (the toolkit, nvcc's full
    version: ``release 13.0, V13.0.88`` → ``13.0.88``; a lone ``Build cuda_12.8.r12.8`` → ``12.8``);
    kb's torch probe, or a ``print(torch.__version__, torch.version.cuda,
    torch.cuda.get_device_capability(0), torch.cuda.device_count(), flashinfer.__version__)``
    probe → ``torch``, ``torch-cuda``, platform ``compute_capability``, platform
    ``gpu_count``, ``flashinfer``; ``pip show``/``pip freeze``/``pip list`` → the components
    of :data:`kb.versions.COMPONENTS`; ``NCCL version 2.27.3`` → ``nccl``. An attempt gets the
    latest value of each fact observed before it.
Outcome (:func:`.outcomes._decide_outcomes`)
    An outcome the log states wins (a failure, an ``Outcome`` or Δ cell, ``baseline`` words, a
    signed ``+31.6 %``, ``from X to Y``); else the attempt is compared, on the same metric, unit
    and direction, with the latest baseline of its family (the same program and
    model in a transcript, the document in a notebook, one A/B row); the first measured attempt
    of a family is its baseline, unless the log is the campaign's and the campaign has a
    baseline value: then that is the reference.
Decisions
    A text starting ``Decision:``, a ``Decision`` heading's section, or a text saying ``we
    will``/``we decided``/``decided to``.
"""

from __future__ import annotations

from collections.abc import Iterable

from kb.importers.events import Session
from kb.importers.extract.chat import _ChatState
from kb.importers.extract.documents import _extract_document
from kb.importers.extract.measurements import BENCH_METRICS
from kb.importers.extract.model import (
    ERROR_CHARS,
    QUOTE_CHARS,
    Evidence,
    ExtractedAttempt,
    Extraction,
    Fact,
    Figure,
    Headline,
    Statement,
    as_dict,
    locator_text,
    normalised,
    short_quote,
)
from kb.importers.extract.outcomes import _decide_outcomes
from kb.importers.extract.results import extract_results

DOCUMENT_FORMATS = ("markdown",)
"""Formats read as documents (tables, sections, lists), not as chats."""

RESULT_FORMATS = ("vllm-bench", "sglang-bench", "llama-bench")
"""Benchmark result files, read by :mod:`.results`."""

__all__ = ["BENCH_METRICS", "ERROR_CHARS", "QUOTE_CHARS", "Evidence", "ExtractedAttempt", "Extraction", "Fact",
           "Figure", "Headline", "Statement", "as_dict", "extract", "extract_windows", "locator_text", "short_quote"]


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
            chat = _ChatState(out) if window.format not in DOCUMENT_FORMATS + RESULT_FORMATS else None
        if headline.terms:
            _look_for_terms(window, headline, out)
        if window.format in RESULT_FORMATS:
            extract_results(window, out)
        elif chat is None:
            _extract_document(window, out)
        else:
            chat.feed(window)
        last = window
    if out is None or last is None:
        raise ValueError("extract_windows needs at least one window")
    out.file, out.format, out.sha256, out.tool_version = (last.path.name, last.format, last.sha256,
                                                          last.tool_version)
    out.session_id = last.session_id
    out.matches_campaign = _matches(out, headline)
    _decide_outcomes(out, headline)
    _distinct_titles(out)
    return out


def _look_for_terms(window: Session, headline: Headline, out: Extraction) -> None:
    """Note which of the campaign's terms the window's texts name."""
    wanted = {normalised(t): t for t in headline.terms if normalised(t)}
    for event in window.events:
        if len(out.terms_seen) == len(wanted):
            return
        text = normalised(event.text[:200_000] + " " + str(event.tool_input or "")[:20_000])
        for key, term in wanted.items():
            if key in text:
                out.terms_seen.add(term)


def _matches(out: Extraction, headline: Headline) -> bool:
    """Whether the log is the campaign's: it names the model (a term) and no other GPU."""
    if not headline.terms:
        return True
    if not out.terms_seen:
        return False
    if headline.gpu:
        gpus = [f.value for f in out.facts if f.scope == "platform" and f.name == "gpu"]
        wanted = normalised(headline.gpu.replace("NVIDIA", ""))
        if gpus and not any(normalised(g) in wanted or wanted in normalised(g) for g in gpus):
            return False
    return True


def _distinct_titles(out: Extraction) -> None:
    """Make titles distinct: a title shared by several attempts gets what sets each apart
    (its flags and env that differ from the others', else its first figure, else its place)."""
    by_title: dict[str, list[ExtractedAttempt]] = {}
    for attempt in out.attempts:
        by_title.setdefault(attempt.title, []).append(attempt)
    for title, group in by_title.items():
        if len(group) < 2:
            continue
        common = set.intersection(*(set(a.flags) | {f"{k}={v}" for k, v in a.env.items()} for a in group))
        for attempt in group:
            own = [f for f in attempt.flags + [f"{k}={v}" for k, v in attempt.env.items()] if f not in common]
            if own:
                extra = " ".join(own)
            elif attempt.outcome == "failed":
                extra = "failed"
            else:
                figure = next((f for n, f in attempt.metrics.items() if "[" not in n), None)
                extra = f"{figure.text} {figure.unit}" if figure else attempt.anchor.locator
            attempt.title = f"{title} ({extra[:60]})"
