"""Candidates from runs and outputs: what a command printed, read by the tool readers.

- A tool's own output (:mod:`kb.importers.read`) measured something: one candidate per command
  (all the invocations a command printed are one sweep: their figures are the points of one
  attempt, named by the settings that vary), or, for an output without a command, one per
  invocation. Confidence 0.9.
- No figure, and the run failed (a non-zero exit, the source's error flag, or a failure the error
  reader recognises in the output): a failed candidate whose error is the headline of its own
  output. Confidence 0.85 with a recognised failure, 0.6 for an exit status alone of a program
  that is not one that only inspects, moves files or installs; nothing for those, except a failed
  install a document shows with its error, and an error block a document shows in a section of
  its own without a command (0.55 each).
- Only ``name value unit`` lines: a candidate at 0.6 (0.45 when the command only inspects files:
  ``cat results.txt`` shows a figure, it does not make one).
- A known benchmark program that printed nothing readable: a candidate without figures at 0.5.
"""

from __future__ import annotations

from kb.importers.events import Locator
from kb.importers.formats import console
from kb.importers.model import Evidence, Figure, Headline, locator_text, short_quote
from kb.importers.read import RunReading, cells, labels, prose, read_output, statements
from kb.importers.read import commands as shell
from kb.importers.read import errors as error_output
from kb.importers.read.base import number
from kb.importers.score.candidate import Candidate, better, fail_if_served_nothing, family_key, headline_name, served_nothing
from kb.importers.segment import Segment

INSTALL_FAILED = 0.55
"""The confidence of a failed ``pip install`` that a document (not a transcript) shows with its
error: a notebook writes down the installs its try failed at, while an agent's session is full of
installs it retries at once."""

SHOWN_ERROR = 0.55
"""The confidence of an error block a document shows without its command (``**Error:**`` and a
traceback under ``### 2. FlashInfer JIT on SM120``): the section's try, which failed."""

_SERVING = ("vllm-bench", "sglang-bench")
"""The tools whose result lines share their labels (:mod:`kb.importers.read.serving`)."""


def run_candidates(segment: Segment, headline: Headline, warn, passes: bool = True) -> list[Candidate]:
    """The candidates of one ``run`` or ``output`` segment (see the module docstring). ``warn``
    (``warn(segment, message)``) receives what a reader recognised only in half. An output of no
    command that a script printed pass after pass (``passes``: :func:`kb.importers.formats.console.iterations`)
    gives one candidate per pass that measured or failed, when at least two did."""
    if passes and segment.kind in ("output", "run") and segment.output_at is not None:
        split = _passes(segment, headline, warn)
        if split:
            return split
    text = segment.output or ""
    command = segment.command
    readout = read_output(text) if text.strip() else None
    for message in readout.warnings if readout else ():
        warn(segment, message)
    tool = shell.benchmark_tool(command) if command else None
    program = shell.program_of(command) if command else None
    flags, env = shell.command_config(command) if command else ([], {})
    runs = readout.runs if readout else []
    measured = [run for run in runs if run.documented and run.metrics and run.tool != error_output.TOOL]
    if any(run.role != "warmup" for run in measured):
        measured = [run for run in measured if run.role != "warmup"]  # the tool's warm-up pass measures nothing kept
    generic = [run for run in runs if not run.documented and run.metrics]
    failures = [run for run in runs if run.failed and not run.metrics]
    exit_failed = segment.exit_code not in (None, 0) or bool(segment.is_error)
    base = _base(segment, command, flags, env, tool, program)
    base.checked = bool(text.strip()) and error_output.check_passed(text)
    if not measured and generic and len(generic) > 1 and (program or tool or segment.kind == "output"):
        measured = generic  # a printed table's rows or columns: as a tool's runs, at lower confidence
    if measured:
        if segment.kind == "run" or len({run.invocation for run in measured}) == 1:
            groups = _arms(measured, command)
        else:
            groups = [group for n in dict.fromkeys(r.invocation for r in measured)
                      for group in _arms([run for run in measured if run.invocation == n], command)]
        found = []
        for position, group in enumerate(groups):
            candidate = _copy(base, position)
            documented = group[0].documented
            candidate.evidence, candidate.confidence = ("tool", 0.9) if documented else ("lines", 0.65)
            read_by = group[0].tool
            if tool in _SERVING and read_by in _SERVING and not group[0].settings.get("backend"):
                read_by = tool  # a result excerpt both serving benchmarks print alike: the command says whose
            candidate.tool = read_by if documented else tool
            candidate.reason = f"{read_by} output" if documented else "a table the run printed"
            arm = _arm_label(group, measured)
            if arm and statements.reference_only(" ".join(n.text for n in segment.narration), arm):
                continue  # an arm the narration prints only for reference
            if arm:
                candidate.arm_of_output = True
                candidate.marked = statements.names_reference(arm)
                candidate.label = arm
                candidate.title = f"{arm} ({candidate.title})" if candidate.title else arm
                candidate.key = f"{candidate.key}|{arm}"
                candidate.reason += f" (one of the {len(groups)} configurations it compares)"
            _take_runs(candidate, group, segment, headline)
            if segment.output_at is not None and (segment.kind == "output" or len(groups) > 1):
                candidate.locator = _lines_locator(segment, group[0].lines[0], group[-1].lines[1])
            verdict = error_output.check_failed(text) if not documented else None
            if verdict:  # its own correctness check failed: wrong output, whatever the figures say
                candidate.failed, candidate.error = True, verdict
            found.append(candidate)
        return found
    if generic and not exit_failed and not _failed_after(text, generic, failures):
        failures = []  # it printed its figures: a warning or a late error line does not undo them
    if failures or exit_failed:
        own = [run for run in failures if run.tool != error_output.TOOL]
        signal = (own or failures)[0] if (own or failures) else None
        if signal is not None and signal.tool != error_output.TOOL:
            tool = tool or signal.tool  # a benchmark tool's own report of its failure: it was run
        installing = bool(command and shell.installs(command)) and segment.role is None and signal is not None
        shown = segment.kind == "output" and not command and segment.role is None and signal is not None
        if not program and not tool and not installing and not shown:
            return []  # a probe, an inspection or an install that failed: no run was tried
        candidate = base
        if shown and segment.path:
            candidate.title = segment.path[-1]  # the section says what was tried; its block, how it ended
        candidate.evidence, candidate.failed = "failure", True
        candidate.error = (signal.error if signal and signal.error else error_output.error_headline(text)) or None
        detail = error_output.error_detail(text) if text.strip() else None
        candidate.error_detail = detail if detail and detail != candidate.error else None
        if signal is not None and shown:
            candidate.confidence = SHOWN_ERROR
            candidate.reason = "an error a document shows in its section (no command with it)"
        elif signal is not None and not (program or tool):  # a document shows the install its try failed at
            candidate.confidence = INSTALL_FAILED
            candidate.reason = "a failed install a document shows with its error"
        elif signal is not None:
            candidate.confidence = 0.85 if (program or tool) else 0.65
            candidate.reason = "a failed run (its output reports the failure)"
        else:
            candidate.confidence = 0.6
            candidate.reason = "a failed run (exit status only)"
        if segment.output_locator is not None or segment.kind == "output":
            where = segment.output_locator or segment.locator
            candidate.evidence_list.append(Evidence("error", locator_text(where), short_quote(candidate.error or "")))
            status = f"exit code {segment.exit_code}" if segment.exit_code not in (None, 0) else (
                "is_error: true" if segment.is_error else short_quote(candidate.error or ""))
            candidate.evidence_list.append(Evidence("outcome", locator_text(where), status))
        return [candidate]
    if generic:
        candidate = base
        verdict = error_output.check_failed(text)
        if verdict:  # its own correctness check failed: wrong output, whatever the figures say
            candidate.failed, candidate.error = True, verdict
        candidate.evidence = "lines"
        candidate.confidence = 0.6 if (program or tool or segment.kind == "output") else 0.45
        candidate.reason = "figures printed as name value unit lines (no tool reader knows this output)"
        _take_runs(candidate, generic, segment, headline)
        if served_nothing(candidate) is not None:  # "tok_s=0.00" after a traceback: that is its error
            fail_if_served_nothing(candidate, error_output.error_headline(text, printed_only=True) or None)
        return [candidate]
    if tool and segment.kind == "run" and text.strip():
        candidate = base
        candidate.evidence, candidate.confidence = "lines", 0.5
        candidate.reason = f"a {tool} run whose output printed no figure kb reads"
        return [candidate]
    return []


def _failed_after(text: str, generic: list[RunReading], failures: list[RunReading]) -> bool:
    """Whether the output ends in the failure it reports: its error headline comes after every
    figure it printed (a reference line, then the build error that stopped the run), so the
    figures were not the run's."""
    if not failures:
        return False
    at = error_output.headline_line(text)
    last = max((m.line or 0 for run in generic for m in run.metrics.values()), default=0)
    return at is not None and last > 0 and at > last


def variant_candidate(segment: Segment) -> Candidate | None:
    """A run of a program the transcript already ran (its *family*) that printed nothing kb reads
    and did not fail: a variant tried (``NCCL_P2P_DISABLE=1`` and the same check), an attempt whose
    outcome the figures cannot give."""
    command = segment.command
    program = shell.program_of(command) if command else None
    if not command or not program or not (segment.output or "").strip() or shell.only_builds(command):
        return None  # a build that worked measured nothing: the run after it is the try
    flags, env = shell.command_config(command)
    candidate = _base(segment, command, flags, env, shell.benchmark_tool(command), program)
    candidate.evidence, candidate.confidence = "lines", 0.5
    candidate.reason = "a run of a program tried before, whose output printed no figure kb reads"
    candidate.checked = error_output.check_passed(segment.output or "")
    return candidate


def _arms(runs: list[RunReading], command: str | None) -> list[list[RunReading]]:
    """The runs one output printed, as attempts: a sweep (runs that differ only in numbers, in a
    workload such as a dataset's category, or in words the command itself asked for, such as
    ``--categories coding,qa``) is one attempt; runs
    that differ in a word the command did not name (the backends or kernels a benchmark compares)
    are one attempt per such word."""
    if len(runs) < 2:
        return [runs]
    keys = list(dict.fromkeys(k for run in runs for k in run.settings))
    asked = set(prose.words(command or ""))
    for key in keys:
        values = [run.settings.get(key, "") for run in runs]
        distinct = list(dict.fromkeys(values))
        if len(distinct) < 2 or all(number(v) is not None or cells.measured(v) for v in distinct if v):
            continue
        if len({prose.shape(v) for v in distinct}) == 1 and "#" in prose.shape(distinct[0]):
            continue  # "asynchronous@1.00 req/sec" ... "@8.00 req/sec": one name over the numbers swept
        if labels.workload_key(key) or all(set(prose.words(v)) <= asked for v in distinct if v):
            continue  # a workload the run was measured over (a dataset's categories), not configurations
        return [[run for run in runs if run.settings.get(key, "") == value] for value in distinct]
    return [runs]


def _arm_label(group: list[RunReading], runs: list[RunReading]) -> str | None:
    """The words that set one arm apart from the others printed with it, or ``None`` for a sweep."""
    if len(group) == len(runs):
        return None
    own = group[0].settings
    return ", ".join(v for k, v in own.items() if all(r.settings.get(k) == v for r in group)
                     and any(r.settings.get(k) != v for r in runs)) or None


def _passes(segment: Segment, headline: Headline, warn) -> list[Candidate]:
    from dataclasses import replace

    text = segment.output or ""
    pieces = console.iterations(text)
    if len(pieces) < 2:
        return []
    lines = text.splitlines()
    whole = read_output(text)
    documented = [run for run in whole.runs if run.documented and run.metrics]
    if len({run.invocation for run in documented}) >= len(pieces):
        return []
    if any(sum(1 for first, _last in pieces if run.lines[0] <= first <= run.lines[1]) >= 2 for run in documented):
        return []  # a tool's one run whose levels look like passes (perf_analyzer's `Request concurrency: N`)
    if any(len({run.invocation for run in documented if first <= run.lines[0] <= last}) >= 2 for first, last in pieces):
        return []  # a "pass" holding two of a tool's runs: the banners are sections of the capture, not its runs
    found: list[Candidate] = []
    for first, last in pieces:
        start = (segment.output_at or 1) + first - 1
        piece = replace(segment, output="\n".join(lines[first - 1:last]), output_at=start,
                        locator=Locator(segment.locator.file, line_start=start, line_end=start + last - first))
        head = lines[first - 1]
        if statements.names_warmup(head):
            continue  # "=== WARMUP (10 users) ===": a pass run to be thrown away, not measured
        made = run_candidates(piece, headline, warn, passes=False)
        inner = shell.command_in(head)  # "Running: python3 bench.py --arch x": the pass's own command
        named_pass = console.banner(head) or prose.plain(head).strip()  # "=== base | cfg=a.yaml ===": the pass's name
        for candidate in made:
            candidate.locator = piece.locator
            candidate.settings = {**dict(shell.pairs(head)), **candidate.settings}
            named = _model_named_by(head)
            if named:
                candidate.settings["model"] = named  # "model_name = mistral:7b": the pass's model
            if inner:
                flags, env = shell.command_config(inner)
                known = {f.split(" ")[0] for f in candidate.flags}
                candidate.flags = candidate.flags + [f for f in flags if f.split(" ")[0] not in known]
                candidate.env = {**env, **candidate.env}
            candidate.title = (shell.command_title(inner) if inner else named_pass[:80]) or candidate.title
            candidate.marked = candidate.marked or statements.names_reference(named_pass, first=3)
            candidate.key = candidate.key or piece.output or ""
            candidate.quote = short_quote(head)
            candidate.reason += " (one pass of a script's loop)"
        found.extend(made)
    if sum(1 for c in found if c.figures) >= 2:  # a pass that measured nothing and did not fail is no run
        found = [c for c in found if c.figures or c.failed]
    found = _without_restatements(found)
    return found if len(found) >= 2 else []


def _without_restatements(found: list[Candidate]) -> list[Candidate]:
    """The passes less those whose every figure an earlier pass already printed (a closing
    ``=== summary ===`` pass that tabulates the runs above): a summary, not a run. It takes two
    figures other than zero, all printed before, to tell a summary from a run that came out alike."""
    kept: list[Candidate] = []
    seen: set[tuple[str, float]] = set()
    for candidate in found:
        own = {(f.unit, f.value) for f in candidate.figures.values()}
        if not (len({v for v in own if v[1]}) >= 2 and own <= seen and not candidate.failed):
            kept.append(candidate)
        seen |= own
    return kept


def _base(segment: Segment, command: str | None, flags: list[str], env: dict[str, str], tool: str | None,
          program: str | None) -> Candidate:
    narration = [n for n in segment.narration if n.text.strip()]
    description = segment.attrs.get("description")
    approach = "\n\n".join(prose.first_paragraph(n.text) for n in narration) if narration else (description or "")
    said = " ".join(n.text for n in narration)
    for flag in shell.text_flags(said):
        if not any(f.split(" ")[0] == flag.split(" ")[0] for f in flags):
            flags.append(flag)
    title = ""
    if isinstance(description, str) and len(description.split()) >= 3:
        title = description
    elif narration and ((segment.role is not None and narration[-1].role == "assistant") or not command):
        title = prose.title_of(narration[-1].text)  # an agent says what it runs; a person's request or a notebook's prose may not
    if not title and command:
        title = shell.command_title(command)
    if not title and segment.path:
        title = segment.path[-1]
    model = shell.model_of(flags, command)
    named = _named_model(narration) if model is None and segment.role is None else None  # a document's label
    model = model or named
    candidate = Candidate("lines", segment.locator, segment.ordinal, command=command, flags=flags, env=env,
                          approach=approach.strip() or (command or ""), title=title, when=segment.when,
                          path=segment.path, quote=short_quote(description or command or segment.text or ""),
                          key=segment.key or "", tool=tool, source_id=segment.key,
                          family=family_key(program, model) if program else None, transcript=segment.role is not None)
    if model and labels.names_model(model):
        candidate.settings["model"] = model  # a label above the output, or the tool's own argument
    if narration:
        candidate.evidence_list.append(Evidence("approach", locator_text(narration[0].locator), short_quote(approach)))
    called = statements.calls_baseline(" ".join(prose.plain(n.text) for n in narration) + " " + (description or ""))
    if called:
        candidate.marked = True
        candidate.evidence_list.append(Evidence("outcome", locator_text(narration[0].locator if narration else
                                                                         segment.locator), short_quote(called)))
    if flags or env:
        candidate.evidence_list.append(Evidence("config", locator_text(segment.locator), short_quote(command or "")))
    return candidate


def _named_model(narration: list[Segment]) -> str | None:
    """The model a one-line label just above an output names: each such block is a run of it."""
    return _model_named_by(narration[-1].text) if narration else None


def _model_named_by(line: str) -> str | None:
    """The model a ``name: value`` / ``name = value`` line names (``Model: `deepseek-r1:7b```,
    ``model_name = mistral:7b``), when its name is a model's and its value names one."""
    found = prose.labelled_value(line)
    if found and labels.workload_key(found[0]) == "model" and labels.names_model(found[1]):
        return found[1]
    return None


def _copy(base: Candidate, sub: int) -> Candidate:
    from dataclasses import replace

    return replace(base, sub=sub, flags=list(base.flags), env=dict(base.env), evidence_list=list(base.evidence_list),
                   figures={}, settings={})


def _lines_locator(segment: Segment, first: int, last: int) -> Locator:
    """The file lines of lines ``first``..``last`` of the segment's output (the segment's own
    locator when the output is not located by lines)."""
    if segment.output_at is None:
        return segment.locator
    start = segment.output_at + first - 1
    return Locator(segment.locator.file, line_start=start, line_end=segment.output_at + last - 1)


def _take_runs(candidate: Candidate, runs: list[RunReading], segment: Segment, headline: Headline) -> None:
    """Put the figures and settings of one or more runs into ``candidate``: one run as it is;
    several (a sweep) as points named by the settings that vary, plus each name's best point under
    the plain name."""
    where = segment.output_locator or segment.locator
    lines = (segment.output or "").splitlines()

    def figure(name: str, measure, run: RunReading) -> Figure:
        line = measure.line or run.lines[0]
        quote = lines[line - 1] if 0 < line <= len(lines) else ""
        locator = locator_text(_lines_locator(segment, line, line)) if segment.output_at else locator_text(where)
        return Figure(name, measure.text, measure.unit, Evidence(f"metrics.{name}", locator, short_quote(quote)),
                      measure.spread, measure.generic)

    if len(runs) == 1:
        run = runs[0]
        candidate.figures = {name: figure(name, m, run) for name, m in run.metrics.items()}
        candidate.settings = {**candidate.settings, **run.settings}  # a label above the output may name the model
        candidate.workload = labels.workload(candidate.settings, candidate.flags)
    else:
        keys = list(dict.fromkeys(k for run in runs for k in run.settings))
        varying = [k for k in keys if len({run.settings.get(k) for run in runs}) > 1]
        candidate.settings = {**candidate.settings,
                              **{k: runs[0].settings[k] for k in keys if k not in varying and k in runs[0].settings}}
        for run in runs:
            point = ",".join(f"{k}={run.settings.get(k, '')}" for k in varying) or f"run={runs.index(run) + 1}"
            for name, measure in run.metrics.items():
                base, _, inner = name.partition("[")
                named = f"{base}[{inner[:-1]},{point}]" if inner else f"{base}[{point}]"
                candidate.figures[named] = figure(named, measure, run)
        _best_points(candidate, runs, varying)
        candidate.workload = {k: v for k, v in labels.workload(candidate.settings, candidate.flags).items()
                              if k not in varying}
    _plain_names(candidate, headline)
    if any(run.failed for run in runs):
        candidate.failed = True
        candidate.error = next((run.error for run in runs if run.error), None)


def _best_points(candidate: Candidate, runs: list[RunReading], varying: list[str]) -> None:
    """For a sweep, the figures of one run also under their plain names: the run with the largest
    value of the first number the sweep varies (the largest size, batch or context), else the first
    run (a sweep over a dataset's categories)."""
    numeric = [k for k in varying if all(number(run.settings.get(k, "")) is not None for run in runs)]
    chosen = max(runs, key=lambda run: float(number(run.settings[numeric[0]]) or 0)) if numeric else runs[0]
    point = ",".join(f"{k}={chosen.settings.get(k, '')}" for k in varying)
    for name in list(candidate.figures):
        base, _, inner = name.partition("[")
        if inner[:-1].endswith(point) and base not in candidate.figures:
            fig = candidate.figures[name]
            candidate.figures[base] = Figure(base, fig.text, fig.unit, fig.evidence, fig.spread, fig.generic)


def _plain_names(candidate: Candidate, headline: Headline) -> None:
    """Give a figure known only by its points its plain name too: the point of the largest swept
    number (nccl-tests' largest message size), else the best point (llama-bench's
    ``output_throughput[test=tg128]`` of several tests)."""
    bases: dict[str, list[Figure]] = {}
    for name, fig in candidate.figures.items():
        if "[" in name:
            bases.setdefault(name.split("[", 1)[0], []).append(fig)
    for base, points in bases.items():
        if base in candidate.figures:
            continue
        swept = [number(f.name.split("=", 1)[1].rstrip("]")) if "=" in f.name else None for f in points]
        if all(v is not None for v in swept):  # the largest size, batch or context of the sweep
            chosen = points[max(range(len(points)), key=lambda i: float(swept[i] or 0))]
        else:
            direction = better(points[0].unit, headline, base)
            chosen = max(points, key=lambda f: f.value) if direction == "higher" else min(points, key=lambda f: f.value)
        candidate.figures[base] = Figure(base, chosen.text, chosen.unit, chosen.evidence, chosen.spread, chosen.generic)
    headline_figure = headline_name(candidate.figures, headline)
    if headline_figure:
        candidate.label = candidate.label or headline_figure
