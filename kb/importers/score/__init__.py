"""Stage 3 of import, *score*: segments and what the readers made of them become attempts.

:func:`score` reads the segments of a log (:mod:`kb.importers.segment`) one at a time, keeping
only what later steps need (candidates, facts, statements), so that a long transcript is scored
in bounded memory:

1. *candidates*: a run or an output the readers measured (:mod:`.runs`), a results-table row or
   arm (:mod:`.tables`), a note quoting a figure (:mod:`.notes`); sections of what was not done
   give options instead, decision sections and statements give decisions;
2. *restatements* (:mod:`.restate`): a candidate repeating one already drafted links to it;
3. *outcomes* (:mod:`.outcomes`): from figures against the group's baseline, beyond the noise;
4. *confidence*: each attempt carries its candidate's confidence and the reason; those below
   :data:`THRESHOLD` are *possible* attempts (listed, written only when asked);
5. *context*: each attempt takes the latest stack and platform facts seen before it in its own
   section or the sections above it (never another section's), and the date of its event, of its
   heading, of the last short dated line above it, of the document, or of the file's name.

A log that shows no inference or benchmarking at all (no run of a known benchmark tool, no stack
probe, no GPU named, no throughput, bandwidth, TFLOPS or it/s figure) yields no attempts, and
:attr:`~kb.importers.model.Extraction.about_inference` says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable

from kb.importers.events import Session
from kb.importers.model import (
    Evidence,
    ExtractedAttempt,
    Extraction,
    Fact,
    Headline,
    Statement,
    locator_text,
    run_date,
    short_quote,
)
from kb.importers.read import cells, dates, labels, prose, stack, statements
from kb.importers.read import commands as shell
from kb.importers.read import errors as error_output
from kb.importers.score import repeats
from kb.importers.score.candidate import (
    MEMORY_UNITS,
    Candidate,
    fail_if_served_nothing,
    family_key,
    headline_name,
    rate_in_words,
)
from kb.importers.score.notes import note_candidates
from kb.importers.score.outcomes import decide
from kb.importers.score.restate import link
from kb.importers.score.runs import run_candidates, variant_candidate
from kb.importers.score.tables import table_candidates
from kb.importers.segment import DOCUMENT_FORMATS, RESULT_FORMATS, Segment, segments

THRESHOLD = 0.5
"""Candidates at or above this confidence are drafted; those below are listed as possible attempts."""

RESULT_NOTE = 0.55
"""The confidence of a section's ``Result:`` paragraph that is the only result the section gives."""

INFERENCE_UNITS = frozenset({"tok/s", "TFLOPS", "it/s", "GB/s"})
"""Units whose figures alone show inference or benchmarking work (a millisecond or a request per
second may be a web server's)."""

INFERENCE_FIGURES = ("ttft", "tpot", "itl", "acceptance_length", "wer", "cer", "accuracy", "exact_match", "bleu")
"""Figure names (their ending: ``median_ttft``) only inference measures: time to first token, time
per output token, inter-token latency, speculative acceptance length, and the quality a model's
outputs are scored by (word and character error rate, accuracy, exact match, BLEU)."""

_ABOVE = 4
"""Notes kept as the text above the next table: those of its own section name the unit of its
number columns when the header does not (``Number = aggregate output tok/s``), nearest first."""

_DATED_LINE_WORDS = 12
"""A note line (or a line's first sentence) of at most this many words that holds a date dates what
follows it (``Date: 2025-12-11``, ``Week of 2024-10-07. Procurement wants ...``), as does a line of
any length that says its runs were made on a date (:func:`kb.importers.read.dates.runs_date`)."""


class _State:
    """What scoring keeps while the segments stream by."""

    def __init__(self, out: Extraction, headline: Headline, chat: bool) -> None:
        self.out = out
        self.headline = headline
        self.chat = chat
        self.candidates: list[Candidate] = []
        self.facts: list[tuple[Fact, tuple[str, ...]]] = []
        self.running_date: tuple[dt.date, str] | None = None
        self.first_date: tuple[dt.date, str] | None = None
        self.dates: dict[int, tuple[dt.date, str]] = {}
        self.pending: Candidate | None = None
        self.failures: list[Candidate] = []
        self.inference = False
        self.errors: list[tuple[int, tuple[str, ...], str, str]] = []  # (ordinal, path, headline, locator)
        self.recent: list[tuple[tuple[str, ...], str]] = []  # the last notes: (path, text), at most _ABOVE
        self.references: set[str] = set()  # names the notes call the reference
        self.decision_section: Segment | None = None  # the heading of the decision section we are in
        self.conclusions: list[tuple[tuple[str, ...], Segment]] = []  # "Conclusion: ..." notes, by section
        self.results: list[tuple[Segment, Candidate]] = []  # the candidates of such notes that quote figures
        self.known_flags: set[str] = set()  # --flags the log writes anywhere (a table cell's "name value" is one)
        self.families: dict[str, Candidate] = {}  # a transcript's last attempt of each program and model
        self.edits: list[str] = []  # files edited since the last run
        self.server: str | None = None  # the command of a server started in the background

    def warn(self, segment: Segment, message: str) -> None:
        where = segment.first_line
        self.out.warnings.append(f"{self.out.file}:{where}: {message}" if where else f"{self.out.file}: {message}")

    def fact(self, found: stack.StackFact, segment: Segment) -> None:
        where = segment.output_locator or segment.locator  # a transcript's fact is where its output is
        fact = Fact(found.scope, found.name, found.value,
                    Evidence(f"{found.scope}.{found.name}", locator_text(where), short_quote(found.quote)),
                    segment.ordinal, found.until)
        self.out.facts.append(fact)
        self.facts.append((fact, segment.path))
        self.inference = True

    def feed(self, segment: Segment) -> None:
        if segment.kind == "heading":
            if stack.mentions_gpu(segment.text):
                self.inference = True
            self.decision_section = segment if statements.decision_heading(segment.text) else (
                self.decision_section if self.decision_section is not None
                and self.decision_section.text in segment.path else None)
            if segment.when is None:
                found = dates.find_date(segment.text)
                if found:
                    self._date(found, f"the heading \"{short_quote(segment.text, 60)}\"")
            elif not self.chat:  # a dated heading: the sections after it without a date of their own are of its day or later
                self._date(segment.when.date(), f"the heading \"{short_quote(segment.text, 60)}\" above")
            return
        if segment.kind == "edit":
            self.edits.append(segment.text.rsplit("/", 1)[-1])
            return
        not_done = any(statements.not_done_heading(title) for title in segment.path)
        deciding = any(statements.decision_heading(title) for title in segment.path)
        if segment.kind == "note":
            self._note(segment, not_done, deciding)
            return
        if segment.kind in ("run", "output"):
            for fact in stack.output_facts(segment.command, segment.output or ""):
                self.fact(fact, segment)
            if segment.when is None and not self.chat:
                printed = dates.find_date("\n".join((segment.output or "").splitlines()[:100]))
                if printed:
                    self._date(printed, "the date the output prints")
            found_candidates = run_candidates(segment, self.headline, self.warn)
            backgrounded = bool(segment.command and (shell.backgrounded(segment.command) or (
                not self.chat and shell.starts_server(segment.command))))  # a server a document starts, then measures
            if segment.command and (backgrounded or (self.chat and shell.runs_in_background(segment.output or ""))) \
                    and not any(c.failed or (c.figures and not backgrounded) for c in found_candidates):
                self.server = segment.command  # a server the next runs measure (its start-up log is no run)
                return
            if self.chat and not found_candidates and segment.command:
                family = _family(segment.command)
                variant = variant_candidate(segment) if family in self.families else None
                found_candidates = [variant] if variant else []
            if stack.mentions_gpu((segment.command or "") + "\n" + (segment.output or "")[:20000]):
                self.inference = True
        elif segment.kind == "table":
            above = [text for path, text in self.recent if path == segment.path]  # the section's text above the table
            units = [u for text in reversed(above) for u in labels.units_named(text)]
            units += labels.units_named(segment.path[-1]) if segment.path else []
            defined = {term: unit for text in above for term, unit in labels.units_defined(text).items()}
            found_candidates = [] if not_done else table_candidates(segment, units, defined)
            lead = above[-1] if above else ""
            if lead and statements.attributed(lead) and not prose.figures(lead):
                # the paragraph right above says whose figures the table holds ("copied from the vendor's
                # blog post; we have not run these"), quoting none of its own
                for candidate in found_candidates:
                    candidate.confidence = min(candidate.confidence, THRESHOLD - 0.15)
                    candidate.reason += "; the text right above the table gives its figures as someone else's"
            elif segment.path and statements.hardware_heading(segment.path[-1]):
                for candidate in found_candidates:  # "## Hardware": what the machines are, not runs on them
                    candidate.confidence = min(candidate.confidence, THRESHOLD - 0.15)
                    candidate.reason += "; the table is in a section that describes the hardware"
            if stack.mentions_gpu(segment.text[:4000]):
                self.inference = True
            self.recent = (self.recent + [(segment.path, "")])[-_ABOVE:]  # the next table has this one right above it
        else:
            return
        if segment.command:
            self.known_flags |= {flag.split(" ")[0] for flag in shell.command_config(segment.command)[0]}
        for candidate in found_candidates:
            self._add(candidate, segment)

    def _note(self, segment: Segment, not_done: bool, deciding: bool) -> None:
        text = segment.text
        self._judge_output(segment)
        self.recent = (self.recent + [(segment.path, text)])[-_ABOVE:]
        self.known_flags |= {flag.split(" ")[0] for flag in shell.text_flags(text)}
        if not self.chat:
            self.references |= statements.named_references(prose.plain(text))
        lines = text.strip().splitlines()
        quoted = [text] if lines and error_output.exception_line(lines[0].lstrip("> ").strip()) else []
        for span in prose.code_spans(text) + quoted:  # a code span, or a quoted printout (``> torch.OutOfMemoryError:``)
            failure = error_output.read(span)
            if failure.runs and failure.runs[0].error:
                self.errors.append((segment.ordinal, segment.path, failure.runs[0].error, locator_text(segment.locator)))
        if segment.role in (None, "assistant", "user"):
            if deciding and self.decision_section is not None and not segment.attrs.get("task"):
                heading = self.decision_section
                if self.out.decisions and self.out.decisions[-1].evidence.locator == locator_text(heading.locator):
                    decision = self.out.decisions[-1]
                    decision.text = f"{decision.text}\n\n{text.strip()}"
                else:
                    self.out.decisions.append(Statement("decision", text.strip(), Evidence(
                        "decision", locator_text(heading.locator), short_quote(text))))
                return
            if statements.decision(text):
                self.out.decisions.append(Statement("decision", text.strip(), Evidence(
                    "decision", locator_text(segment.locator), short_quote(text))))
        if not self.chat and statements.conclusion(text):
            self.conclusions.append((segment.path, segment))
            if prose.figures(text):  # "**Result: clean.** 9.46 t/s tg128": the section's result, if nothing else gives one
                self.results.extend((segment, c) for c in note_candidates(segment, self.chat))
            return
        options = statements.rejected(text)
        if options:
            for option in options:
                self.out.options.append(Statement("option", option, Evidence(
                    "option", locator_text(segment.locator), short_quote(text))))
            return
        for found in stack.prose_facts(text) if not self.chat or segment.role == "user" else ():
            self.fact(found, segment)
        if stack.mentions_gpu(text):
            self.inference = True
        if not self.chat:
            for line in text.splitlines():
                head = line if len(line.split()) <= _DATED_LINE_WORDS else prose.first_sentence(line, 400)
                when = (dates.find_date(head) if len(head.split()) <= _DATED_LINE_WORDS else None) or dates.runs_date(line) \
                    or dates.opening_date(prose.plain(line))
                if when:
                    self._date(when, f"the line \"{short_quote(line, 60)}\"")
                    break
        if not_done:
            if segment.attrs.get("item"):
                self.out.options.append(Statement("option", prose.plain(text), Evidence(
                    "option", locator_text(segment.locator), short_quote(text))))
            return
        found_candidates = note_candidates(segment, self.chat)
        if self.chat and found_candidates and self.pending is not None and segment.role == "assistant":
            held = self.pending
            held.figures = {**found_candidates[0].figures}
            held.reason += "; its figures from the narration that follows"
            held.evidence_list.append(Evidence("metrics", locator_text(segment.locator), short_quote(text)))
            self.pending = None
            return
        for candidate in found_candidates:
            self._add(candidate, segment)

    def _judge_output(self, segment: Segment) -> None:
        """A note right after a run that says the run's output was wrong (``the completions are
        garbage``) fails that run, whatever its figures: the one candidate the segment just before
        it gave, in the same section (a block of several runs leaves open which one it means)."""
        if segment.role == "user" or not self.candidates or self.candidates[-1].ordinal != segment.ordinal - 1:
            return
        last = [c for c in self.candidates[-2:] if c.ordinal == segment.ordinal - 1]
        if len(last) != 1 or prose.figures(segment.text):
            return
        said = error_output.wrong_output(prose.plain(segment.text))
        if said is None:
            return
        if len(last) != 1 or last[0].path != segment.path or not (last[0].command or last[0].evidence == "tool") \
                or last[0].checked:
            return  # (a run whose own check passed stands: the prose speaks of another)
        run = last[0]
        if self.chat and prose.first_paragraph(segment.text).strip() and \
                prose.first_paragraph(segment.text).strip() in run.approach:
            return  # the agent's words before the call (its narration), not a verdict on what it printed
        run.failed = True
        run.error = run.error or said  # a failed record names what went wrong: here the log's own words
        run.notes.append(f"The log says its output was wrong: {said}")
        run.evidence_list.append(Evidence("outcome", locator_text(segment.locator), short_quote(said)))

    def _date(self, when: dt.date, basis: str) -> None:
        self.running_date = (when, f"dated {when.isoformat()} from {basis}")
        if self.first_date is None:
            self.first_date = self.running_date

    def _add(self, candidate: Candidate, segment: Segment) -> None:
        _name_generic(candidate, self.headline)
        zero = next((f for n, f in candidate.figures.items() if labels.scores_answers(n) and f.value == 0), None)
        if zero is not None and not candidate.failed:  # "gsm8k accuracy 0 %": fast, but every answer wrong
            candidate.failed = True
            candidate.notes.append(f"Its {zero.name} is {zero.text} {zero.unit}: no answer right.")
        fail_if_served_nothing(candidate)  # "tok_s=0.00": no token came out
        if candidate.figures and any(f.unit in INFERENCE_UNITS or f.name.split("[")[0].endswith(INFERENCE_FIGURES)
                                     for f in candidate.figures.values()):
            self.inference = True
        if candidate.tool or (candidate.command and shell.model_of(candidate.flags)):
            self.inference = True  # a benchmark tool's run, or a run given a model to serve or measure
        if candidate.failed and candidate.error:
            self.failures.append(candidate)
            if candidate.evidence == "failure":
                self.errors.append((candidate.ordinal, candidate.path, candidate.error, locator_text(candidate.locator)))
        if self.running_date is not None and candidate.when is None:
            self.dates[id(candidate)] = self.running_date
        self.candidates.append(candidate)
        if self.chat and segment.kind == "run":
            self.pending = candidate if not candidate.figures and not candidate.failed else None
            if self.server and candidate.command:
                _with_server(candidate, self.server)
            if candidate.family:
                _note_changes(candidate, self.families.get(candidate.family), self.edits)
                self.families[candidate.family] = candidate
            self.edits = []


def score(windows: Iterable[Session], headline: Headline | None = None) -> Extraction:
    """The attempts, possible attempts, facts and statements of a log read as consecutive windows
    (:func:`kb.importers.sessions.iter_windows`); see the module docstring. ``headline`` is the
    campaign's metric, direction, baseline value and noise (default: output throughput, higher
    is better, 2 %). Raises what iterating ``windows`` raises (:class:`kb.importers.LogFormatError`);
    an empty iterable gives ``ValueError``."""
    headline = headline or Headline()
    state: _State | None = None
    last: Session | None = None

    def stream() -> Iterable[Session]:
        nonlocal state, last
        for window in windows:
            if state is None:
                out = Extraction(window.path.name, window.format, window.sha256, window.tool_version)
                state = _State(out, headline, window.format not in DOCUMENT_FORMATS + RESULT_FORMATS)
            if headline.terms:
                _look_for_terms(window, headline, state.out)
            last = window
            yield window

    for segment in segments(stream()):
        assert state is not None
        state.feed(segment)
    if state is None or last is None:
        raise ValueError("score needs at least one window")
    out = state.out
    out.file, out.format, out.sha256, out.tool_version = last.path.name, last.format, last.sha256, last.tool_version
    out.session_id = last.session_id
    out.matches_campaign = _matches(out, headline)
    out.about_inference = state.inference
    _fill_errors(state)
    _mark_named_references(state)
    _mark_reference_sections(state)
    _cell_flags(state)
    _demote_commentary(state.candidates)
    _demote_sizes(state.candidates)
    _lead_tables(state.candidates)
    _demote_side_figures(state.candidates, headline)
    _demote_recurring_references(state.candidates, headline)
    _demote_failure_mentions(state.candidates)
    _section_results(state)
    attempts = link(repeats.merge(state.candidates), headline)
    if not state.inference:
        attempts = []
    drafted = [c for c in attempts if c.confidence >= THRESHOLD]
    possible = [c for c in attempts if c.confidence < THRESHOLD]
    campaign_value = headline.value if out.matches_campaign else None
    verdicts = decide(drafted, headline, campaign_value)
    file_date = dates.file_date(out.file)
    keys: dict[str, int] = {}
    out.attempts = [_attempt(c, state, verdicts.get(i, ("inconclusive", None)), file_date, keys)
                    for i, c in enumerate(drafted)]
    possible_verdicts = decide(possible, headline, None)
    out.possible = [_attempt(c, state, possible_verdicts.get(i, ("inconclusive", None)), file_date, keys, offset=False)
                    for i, c in enumerate(possible)]
    _distinct_titles(out.attempts)
    _attach_conclusions(state, drafted, out)
    return out


def _section_results(state: _State) -> None:
    """A ``Result:`` paragraph that quotes figures is the attempt of its section when no run, row
    or other note of that section gave one (a campaign log's entry: what ran, then its result); it
    stays a note of the section's attempts otherwise (:func:`_attach_conclusions`)."""
    sections = {c.path for c in state.candidates}
    taken = set()
    for segment, candidate in state.results:
        if segment.path in sections:
            continue
        taken.add(id(segment))
        candidate.confidence = max(candidate.confidence, RESULT_NOTE)
        candidate.reason = "the result paragraph of its section (no run or row there gives one)"
        state.candidates.append(candidate)
    state.candidates.sort(key=lambda c: (c.ordinal, c.sub))
    state.conclusions = [(path, segment) for path, segment in state.conclusions if id(segment) not in taken]


def _attach_conclusions(state: _State, drafted: list[Candidate], out: Extraction) -> None:
    """A section's ``Conclusion:`` paragraph is a note of each attempt of that section; a section
    with no attempt makes it a decision statement."""
    for path, segment in state.conclusions:
        mine = [a for c, a in zip(drafted, out.attempts) if c.path == path]
        for attempt in mine:
            attempt.notes.append(segment.text.strip())
            attempt.evidence.append(Evidence("notes", locator_text(segment.locator), short_quote(segment.text)))
        if not mine:
            out.decisions.append(Statement("decision", segment.text.strip(), Evidence(
                "decision", locator_text(segment.locator), short_quote(segment.text))))


def _attempt(c: Candidate, state: _State, verdict: tuple[str, int | None], file_date: dt.date | None,
             keys: dict[str, int], offset: bool = True) -> ExtractedAttempt:
    """One candidate as an :class:`ExtractedAttempt`, with its date, facts, key and outcome."""
    outcome, reference = verdict
    date, basis = None, None
    if c.when is not None:
        date, basis = run_date(c.when)
        if c.dated_by:
            basis = f"dated {date.isoformat()} from {c.dated_by}"
        elif c.when.tzinfo is None and c.path:
            heading = next((t for t in reversed(c.path) if dates.find_date(t)), c.path[-1])
            basis = f"dated {date.isoformat()} from the heading \"{short_quote(heading, 60)}\""
    elif id(c) in state.dates:
        date, basis = state.dates[id(c)]
    elif state.first_date is not None:
        date, basis = state.first_date
    elif file_date is not None:
        date, basis = file_date, f"dated {file_date.isoformat()} from the log's file name"
    if c.source_id:  # the source's own id of the call: stable whatever the log's bytes around it
        digest = c.source_id + (f"|{c.label}" if c.arm or (c.label and c.label != c.title and c.sub) else "")
    else:
        text = c.key or c.quote or locator_text(c.locator)
        digest = hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]
    keys[digest] = keys.get(digest, 0) + 1
    key = digest if keys[digest] == 1 else f"{digest}#{keys[digest]}"  # the same text twice: two passages
    name = headline_name(c.figures, state.headline) if c.figures else None
    evidence = list(c.evidence_list)
    if outcome == "failed" and c.error and not any(e.field == "error" for e in evidence):
        evidence.append(Evidence("error", locator_text(c.locator), short_quote(c.error)))
    ordered = {**({name: c.figures[name]} if name else {}),
               **{k: v for k, v in c.figures.items() if "[" not in k}, **c.figures}
    attempt = ExtractedAttempt(
        anchor=Evidence("attempt", locator_text(c.locator), c.quote or short_quote(c.title)),
        title=(c.title or c.label or (c.path[-1] if c.path else "") or "Imported attempt")[:100],
        approach=(c.approach or c.title or "")[:2000], date=date, outcome=outcome, command=c.command,
        flags=c.flags, env=c.env, metrics=ordered, error=c.error, cause=c.cause, notes=list(c.notes), evidence=evidence,
        facts=_facts_for(c, state, date), reference=reference if offset else None, explicit_outcome=True,
        key=key, family=c.family, error_detail=c.error_detail, change=c.change, date_basis=basis,
        settings=c.settings, confidence=round(c.confidence, 2), reason=c.reason, restated=c.restated, headline=name,
    )
    section = dates.without_date(c.path[-1]) if c.path else ""
    if section and c.evidence in ("row", "item", "note", "tool", "lines") and section not in attempt.title:
        attempt.approach = f"{section}: {attempt.approach}" if attempt.approach else section
    return attempt


def _family(command: str) -> str | None:
    program = shell.program_of(command)
    if not program:
        return None
    return family_key(program, shell.model_of(shell.command_config(command)[0]))


def _with_server(candidate: Candidate, server: str) -> None:
    """A run against a server started in the background: the server's environment and flags are part
    of what was tried (``SGLANG_SUPPORT_CUTLASS_BLOCK_FP8=1``), noted with its command."""
    flags, env = shell.command_config(server)
    candidate.env = {**env, **candidate.env}
    mine = {f.split(" ")[0] for f in candidate.flags}
    candidate.flags = candidate.flags + [f for f in flags if f.split(" ")[0] not in mine]
    candidate.notes.append(f"Measured against the server started with: `{server[:300]}`")


def _note_changes(candidate: Candidate, before: Candidate | None, edits: list[str]) -> None:
    """Add to the approach what changed since the family's previous run: flags and env set, changed
    or dropped, files edited, packages installed in the same command."""
    changes: list[str] = []
    if before is not None:
        old = {f.split(" ")[0].split("=")[0]: f for f in before.flags}
        new = {f.split(" ")[0].split("=")[0]: f for f in candidate.flags}
        for name, flag in new.items():
            if name not in old:
                changes.append(f"added {flag}")
            elif old[name] != flag:
                changes.append(f"{old[name]} → {flag}")
        changes += [f"dropped {old[name]}" for name in old if name not in new]
        for name, value in candidate.env.items():
            if before.env.get(name) != value:
                changes.append(f"{name}={value}")
        changes += [f"unset {name}" for name in before.env if name not in candidate.env]
    changes += [f"edited {name}" for name in dict.fromkeys(edits)]
    changes += [f"installed {spec}" for spec in shell.installs(candidate.command or "")]
    if changes:
        candidate.approach = (candidate.approach + "\n\n" if candidate.approach else "") + \
            "Changed since the previous run: " + "; ".join(changes) + "."


def _cell_flags(state: _State) -> None:
    """A results row that writes its settings as ``tp8, cuda-graph-max-bs 128`` gets the flags they
    stand for (``--tp 8``; ``--cuda-graph-max-bs 128`` when the log writes that flag somewhere)."""
    for candidate in state.candidates:
        if candidate.evidence == "row" and not candidate.flags and candidate.label:
            flags, env = shell.cell_config(candidate.label, state.known_flags)
            candidate.flags, candidate.env = flags, {**env, **candidate.env}


def _mark_named_references(state: _State) -> None:
    """Mark as its group's reference a row or arm whose label is a name the notes call the
    baseline, reference or default (``FlashInfer is the default here``)."""
    if not state.references:
        return
    for candidate in state.candidates:
        words = set(prose.words(candidate.label))
        if candidate.evidence in ("row", "tool", "lines") and words and words <= state.references | {"-", "+"}:
            candidate.marked = True


def _mark_reference_sections(state: _State) -> None:
    """Mark the rows of a table whose section heading says it holds the reference runs
    (``Direct MLX Performance (Baseline)``): each is the baseline of its model and workload."""
    for candidate in state.candidates:
        if candidate.evidence == "row" and candidate.path and statements.reference_heading(prose.plain(candidate.path[-1])):
            candidate.marked = candidate.reference_section = True


def _name_generic(candidate: Candidate, headline: Headline) -> None:
    """A figure named from its unit alone (``avg_ts``, a column ``t/s``) is the campaign's own
    metric when that is in the same unit: it takes the campaign's metric name."""
    for name, figure in list(candidate.figures.items()):
        if not figure.generic or headline.unit != figure.unit or name.split("[", 1)[0] == headline.name:
            continue
        renamed = headline.name + name[len(name.split("[", 1)[0]):]
        if renamed in candidate.figures:
            continue
        figure.name = renamed
        candidate.figures = {renamed if k == name else k: v for k, v in candidate.figures.items()}


SIDE_PENALTY = 0.15
"""How much less a note is worth when none of its figures is in the campaign's headline unit."""

COMMENTARY_PENALTY = 0.2
"""How much less a note is worth when its section holds a run's output or a results table: there,
prose mostly comments on or restates what they measured."""


def _lead_tables(candidates: list[Candidate]) -> None:
    """A labelled result line above a table of its section (prose between it and the table aside),
    in the unit of the table's rows (``Baseline: 31.5 tok/s without X`` over a grid of the runs
    with X): the run the table's rows are compared with, so it joins their group, first."""
    for position, candidate in enumerate(candidates):
        if not candidate.labelled or not candidate.figures:
            continue
        unit = next(iter(candidate.figures.values())).unit
        after = next((c for c in candidates[position + 1:] if c.ordinal > candidate.ordinal
                      and not (c.evidence in ("note", "item") and not c.labelled)), None)  # prose between is commentary
        if after is None or after.path != candidate.path or not after.group.startswith("table:"):
            continue
        if any(f.unit == unit for f in after.figures.values()):
            candidate.group = after.group


def _demote_commentary(candidates: list[Candidate]) -> None:
    """Lower the confidence of notes in sections that hold stronger evidence (see
    :data:`COMMENTARY_PENALTY`)."""
    strong = {c.path for c in candidates if c.strength >= 3 and (c.figures or c.command)  # an error block alone is no run's output
              and not sizes_only(c)}
    for candidate in candidates:
        if candidate.evidence in ("item", "note") and candidate.path in strong and not candidate.labelled and \
                not candidate.stopped and not candidate.ran:
            candidate.confidence -= COMMENTARY_PENALTY  # (the error a try stopped with is no comment on a run)
            candidate.reason += "; beside a run's output or a results table in its section"


SIZE_CONFIDENCE = 0.3
"""The confidence of a candidate whose only figures are sizes: a possible attempt at most."""


def sizes_only(candidate: Candidate) -> bool:
    """Whether every figure of a candidate is the size of something (``Size on disk | 4.2 GB``,
    ``ollama ps``'s ``SIZE 8.1 GB``, ``file size``): a checkpoint's or a file's size, which no run
    measures, unlike the memory a run used (``peak VRAM``, ``memory``)."""
    return bool(candidate.figures) and not candidate.failed and all(
        f.unit in MEMORY_UNITS and any(w in ("size", "disk") for w in f.name.split("[", 1)[0].split("_"))
        for f in candidate.figures.values()) and not rate_in_words(candidate)
    # a row that gives its rate beside the size, as a range (``~15-17 tokens/sec``) or in a column
    # headed by its unit (``| t/s |``), still measured a run



def _demote_sizes(candidates: list[Candidate]) -> None:
    """Make a candidate whose only figures are sizes (:func:`sizes_only`) a possible attempt."""
    for candidate in candidates:
        if sizes_only(candidate) and candidate.confidence > SIZE_CONFIDENCE:
            candidate.confidence = SIZE_CONFIDENCE
            candidate.reason += "; its only figures are sizes (of a checkpoint, a file), which no run measures"


def _demote_failure_mentions(candidates: list[Candidate]) -> None:
    """A list item that only says something failed is worth less where a results row or a run's
    output already records failures: there it mostly comments on them."""
    if not any(c.failed and c.strength >= 3 for c in candidates):
        return
    for candidate in candidates:
        if candidate.evidence == "item" and candidate.failed and not candidate.figures:
            candidate.confidence -= COMMENTARY_PENALTY
            candidate.reason += "; failures are recorded by stronger evidence in the log"


def _demote_side_figures(candidates: list[Candidate], headline: Headline) -> None:
    """Lower the confidence of a note whose figures are all in units other than the campaign's
    headline unit (a build time, a spec sheet's bandwidth beside a throughput campaign): such a
    figure is seldom what a run was for."""
    if not headline.unit or not any(f.unit == headline.unit for c in candidates for f in c.figures.values()):
        return  # a log that measures nothing in the campaign's unit: its own figures are what it measured
    for candidate in candidates:
        if candidate.evidence in ("item", "note") and candidate.figures and \
                all(f.unit != headline.unit for f in candidate.figures.values()):
            candidate.confidence -= SIDE_PENALTY
            candidate.reason += f"; no figure in the campaign's unit ({headline.unit})"


REFERENCE_RECURRENCE = 3
"""How many outputs must print the same arm with the same figure (within the noise) for it to be
the benchmark's reference (cuBLAS beside each hand-written kernel), not a run tried."""


def _demote_recurring_references(candidates: list[Candidate], headline: Headline) -> None:
    """An arm that output after output prints beside the run, under the same label and with the
    same headline figure (within the noise), is the reference the benchmark measures each time:
    listed as a possible attempt, not drafted. Needs :data:`REFERENCE_RECURRENCE` outputs, each
    with another arm beside it."""
    by_label: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        if candidate.arm_of_output and candidate.label and candidate.figures:
            by_label.setdefault(prose.normalised(candidate.label.split(" (")[0]), []).append(candidate)
    noise = headline.noise / 100
    for group in by_label.values():
        segments = {c.ordinal for c in group}
        if len(segments) < REFERENCE_RECURRENCE:
            continue
        name = headline_name(group[0].figures, headline)
        values = [c.figures[name].value for c in group if name and name in c.figures]
        if len(values) != len(group) or not values:
            continue
        middle = sorted(values)[len(values) // 2]
        if middle <= 0 or any(abs(v - middle) / middle > noise for v in values):
            continue
        beside = {c.ordinal for c in candidates if c.arm_of_output and c.ordinal in segments and c not in group}
        if beside != segments:
            continue
        for candidate in group:
            candidate.confidence = min(candidate.confidence, THRESHOLD - 0.1)
            candidate.marked = True
            candidate.reason += (f"; the same figure under the same label in {len(segments)} outputs: "
                                 "the benchmark's reference, printed beside each run")


def _fill_errors(state: _State) -> None:
    """Give a failed candidate without an error of its own (a row marked ❌) its own words when they
    say what failed; the error given before it when they point back (``same error``, ``see
    above``); else the error printed nearest to it in its own section (a traceback above, a quoted
    exception below); failing that, the words of the row itself."""
    ordered = sorted(state.candidates, key=lambda c: (c.ordinal, c.sub))
    for position, candidate in enumerate(ordered):
        if not candidate.failed or candidate.error:
            continue
        near = [e for e in state.errors if e[1] == candidate.path and e[0] != candidate.ordinal]
        earlier = next((c for c in reversed(ordered[:position]) if c.failed and c.error), None)
        if candidate.fallback_error and not cells.refers_back(candidate.fallback_error):
            candidate.error = candidate.fallback_error  # the row says what failed in its own words
        elif candidate.fallback_error and earlier is not None:
            candidate.error = earlier.error  # "same error", "see above": the failure given before it
            candidate.notes.append(f"Error: the row says {candidate.fallback_error!r}; this is the error given "
                                   f"before it, at {locator_text(earlier.locator)}.")
        elif near:
            _, _, error, where = min(near, key=lambda e: (abs(e[0] - candidate.ordinal), e[0] > candidate.ordinal))
            candidate.error = error
            candidate.notes.append(f"Error: the one the log prints at {where}, in the same section.")
        else:
            candidate.error = candidate.fallback_error or candidate.failure_note or prose.plain(candidate.quote) or \
                "failed (the log prints no error)"


def _facts_for(c: Candidate, state: _State, date: dt.date | None) -> list[Fact]:
    """The latest fact of each kind seen before ``c`` in its own section or a section above it,
    holding on its date."""
    latest: dict[tuple[str, str], Fact] = {}
    for fact, path in state.facts:
        if fact.position > c.ordinal or path != c.path[:len(path)]:
            continue
        if fact.until is not None and (date is None or date >= fact.until):
            continue
        latest[(fact.scope, fact.name)] = fact
    return list(latest.values())


def _look_for_terms(window: Session, headline: Headline, out: Extraction) -> None:
    """Note which of the campaign's terms the window's texts name."""
    wanted = {prose.normalised(t): t for t in headline.terms if prose.normalised(t)}
    for event in window.events:
        if len(out.terms_seen) == len(wanted):
            return
        text = prose.normalised(event.text[:200_000] + " " + str(event.tool_input or "")[:20_000])
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
        wanted = prose.normalised(headline.gpu.replace("NVIDIA", ""))
        if gpus and not any(prose.normalised(g) in wanted or wanted in prose.normalised(g) for g in gpus):
            return False
    return True


def _distinct_titles(attempts: list[ExtractedAttempt]) -> None:
    """Make titles distinct: a title shared by several attempts gets what sets each apart (its
    flags, env and settings that differ from the others', else its headline figure, else its place)."""
    by_title: dict[str, list[ExtractedAttempt]] = {}
    for attempt in attempts:
        by_title.setdefault(attempt.title, []).append(attempt)
    for title, group in by_title.items():
        if len(group) < 2:
            continue

        def marks(a: ExtractedAttempt) -> list[str]:
            return a.flags + [f"{k}={v}" for k, v in a.env.items()] + [f"{k}={v}" for k, v in a.settings.items()]

        common = set.intersection(*(set(marks(a)) for a in group))
        for attempt in group:
            own = [m for m in marks(attempt) if m not in common]
            if own:
                extra = " ".join(own)
            elif attempt.outcome == "failed":
                extra = "failed"
            elif attempt.headline and attempt.headline in attempt.metrics:
                figure = attempt.metrics[attempt.headline]
                extra = f"{figure.text} {figure.unit}"
            else:
                extra = attempt.anchor.locator
            attempt.title = f"{title} ({extra[:60]})"


def score_session(session: Session, headline: Headline | None = None) -> Extraction:
    """:func:`score` of a session read whole (:func:`kb.importers.sessions.read_session`)."""
    return score([session], headline)
