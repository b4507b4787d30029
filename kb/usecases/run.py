"""Recording an attempt as it runs (``kb run -- CMD ARGS...``).

Two steps, each a function:

1. :func:`run_command` runs the command with its output streamed live (through a pseudo-terminal
   when kb's standard output is a terminal, so progress bars still draw; through pipes otherwise,
   standard output and error kept apart), in its own process group. On a terminal the command's
   group is made the foreground group, so Ctrl-C and Ctrl-Z reach the command as they would
   without kb; a SIGINT, SIGTERM, SIGHUP or SIGQUIT sent to kb itself is passed on to the
   command's group. What the command printed is read as it streams into an
   :class:`OutputCapture`: its SHA-256 and size, and its text with ANSI escape sequences and
   carriage-return redraws removed, bounded (the first :data:`HEAD_CHARS` and the last
   :data:`TAIL_CHARS` characters are kept, whatever the command prints).
2. :func:`draft_for_run` turns a finished :class:`RunResult` into a :class:`kb.usecases.log.AttemptDraft`
   (``kb log``'s): the output read by the import readers (:func:`kb.importers.read.read_output`:
   ``vllm bench serve``, ``bench_serving``, llama-bench, nccl-tests, trtllm-bench, aiperf,
   ``name value unit`` lines), the headline figure and the outcome against the campaign's
   baseline, the error headline of a failed run (matched against known blockers by
   :func:`kb.usecases.log.prepare_attempt`), an earlier failed attempt of the same command
   proposed as ``retry_of``, the command line, working folder, duration, exit status and the
   environment variables that matter (:data:`ENV_PREFIXES`). :func:`record_run` writes it through
   the store's write gate (redacted), as a draft unless asked for a reviewed record.

The exit status is the command's: its code, or 128 + n when a signal n ended it (a shell's
convention: 130 for SIGINT), whatever kb could or could not write.
"""

from __future__ import annotations

import codecs
import contextlib
import datetime as dt
import hashlib
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO

from kb.errortext import error_excerpt, error_headline
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Campaign, Component, Outcome
from kb.usecases.log import AttemptDraft, LogResult, prepare_attempt

ENV_PREFIXES = ("CUDA_", "NCCL_", "TORCH_", "PYTORCH_", "VLLM_", "SGLANG_", "SGL_", "FLASHINFER_", "TRITON_", "OMP_")
"""Environment variables recorded with a run: those of the libraries an inference run is tuned
through (CUDA, NCCL, PyTorch, vLLM, SGLang, FlashInfer, Triton, OpenMP)."""

HEAD_CHARS = 256 * 1024
"""Characters of the cleaned output kept from its start."""

TAIL_CHARS = 2 * 1024 * 1024
"""Characters of the cleaned output kept from its end (a benchmark prints its summary last)."""

EXCERPT_HEAD_LINES = 15
EXCERPT_TAIL_LINES = 40
"""Lines of the output quoted in the attempt's notes: the first and the last ones."""

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""Signals sent to kb that are passed on to the command's process group."""

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
"""ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, links) and two-byte escapes
(ECMA-48)."""


class OutputCapture:
    """What a command printed, read as it streams: ``size`` (bytes), ``sha256`` (hex digest of
    every byte, as printed), ``lines`` (lines of cleaned text), and the cleaned text, bounded
    (:meth:`text`). Cleaning drops ANSI escape sequences and keeps, of each line that carriage
    returns redraw (``\\r`` progress bars), what was drawn last. Memory stays under about
    :data:`HEAD_CHARS` + :data:`TAIL_CHARS` characters however much is printed."""

    def __init__(self, head_chars: int = HEAD_CHARS, tail_chars: int = TAIL_CHARS, spool: IO[str] | None = None) -> None:
        self.spool = spool
        """A text file every cleaned line is also written to (the full output, ``kb run --keep-output``)."""
        self.size = 0
        self.lines = 0
        self._sha = hashlib.sha256()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""
        self._head: list[str] = []
        self._head_left = head_chars
        self._tail: deque[str] = deque()
        self._tail_chars = 0
        self._tail_max = tail_chars
        self.cut = 0
        """Lines dropped between the head and the tail kept."""

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the bytes fed so far."""
        return self._sha.hexdigest()

    def feed(self, data: bytes) -> None:
        """Take the next ``data`` the command printed."""
        self.size += len(data)
        self._sha.update(data)
        text = self._partial + self._decoder.decode(data)
        parts = text.split("\n")
        self._partial = parts.pop()
        if len(self._partial) > self._tail_max:  # a line without end: keep its last redraw's tail
            self._partial = self._partial[-self._tail_max:]
        for line in parts:
            self._keep(line)

    def close(self) -> None:
        """End of the output: the last line, if it had no line break."""
        rest = self._partial + self._decoder.decode(b"", final=True)
        self._partial = ""
        if rest:
            self._keep(rest)

    def _keep(self, raw: str) -> None:
        line = clean_line(raw)
        self.lines += 1
        if self.spool is not None:
            self.spool.write(line + "\n")
        if self._head_left > 0:
            self._head.append(line)
            self._head_left -= len(line) + 1
            return
        self._tail.append(line)
        self._tail_chars += len(line) + 1
        while self._tail_chars > self._tail_max and len(self._tail) > 1:
            self._tail_chars -= len(self._tail.popleft()) + 1
            self.cut += 1

    def text(self) -> str:
        """The cleaned text kept: the head, a ``[… N lines cut …]`` line where lines were
        dropped, and the tail."""
        middle = [f"[… {self.cut} lines cut …]"] if self.cut else []
        return "\n".join([*self._head, *middle, *self._tail])


def clean_line(raw: str) -> str:
    """One line of terminal output as it last looked: ANSI escape sequences removed, and of a
    line that carriage returns redrew, the last drawing (a trailing ``\\r``, as in ``\\r\\n``
    line ends, is dropped first).

    >>> clean_line("\\x1b[32mok\\x1b[0m"), clean_line("10%\\r50%\\r100% done\\r")
    ('ok', '100% done')
    """
    line = _ANSI.sub("", raw).rstrip("\r")
    return line.rsplit("\r", 1)[-1]


@dataclass
class RunResult:
    """One finished run: ``argv``, ``cwd``, ``started`` (local time), ``duration_s`` (seconds,
    wall clock), ``returncode`` (the command's, negative −n when signal n ended it, as
    :mod:`subprocess` gives it), ``signal_sent`` (a signal kb received and passed on, or
    ``None``), ``output`` (:class:`OutputCapture`), ``env`` (the variables of
    :data:`ENV_PREFIXES`, name → value), and ``error`` (why the command could not start, e.g.
    not found, or ``None``)."""

    argv: list[str]
    cwd: str
    started: dt.datetime
    duration_s: float
    returncode: int
    output: OutputCapture
    signal_sent: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def exit_status(self) -> int:
        """What a shell reports for the command: its exit code, or 128 + n for signal n."""
        return 128 - self.returncode if self.returncode < 0 else self.returncode

    @property
    def interrupted(self) -> bool:
        """Whether the run was stopped by Ctrl-C or a signal rather than ending on its own:
        SIGINT, SIGTERM, SIGHUP or SIGQUIT ended it, it exited 130 (a program that catches
        SIGINT and exits as a shell would say), or kb passed it such a signal."""
        ended_by = -self.returncode if self.returncode < 0 else None
        return (self.signal_sent is not None or ended_by in {int(s) for s in FORWARDED}
                or self.returncode == 128 + signal.SIGINT)

    @property
    def command(self) -> str:
        """The command line, quoted as a POSIX shell would take it."""
        return shlex.join(self.argv)


def run_environment(environ: dict[str, str] | os._Environ[str] | None = None) -> dict[str, str]:
    """The variables of ``environ`` (default: this process's) whose names start with one of
    :data:`ENV_PREFIXES`, sorted by name."""
    environ = os.environ if environ is None else environ
    return {k: environ[k] for k in sorted(environ) if k.startswith(ENV_PREFIXES)}


def run_command(argv: list[str], *, use_pty: bool | None = None, stdout: BinaryIO | None = None,
                stderr: BinaryIO | None = None, keep: IO[str] | None = None) -> RunResult:
    """Run ``argv``, streaming its output to ``stdout``/``stderr`` (default: kb's own) and into
    an :class:`OutputCapture`, and return the :class:`RunResult` when it has ended.

    ``use_pty``: run it on a pseudo-terminal (its standard output and error both go there, as on a
    terminal); default: when kb's standard output is a terminal. ``keep``: a text file every
    cleaned line of the output is also written to (``kb run --keep-output``). The command runs in its own process
    group; see the module docstring for signals and the terminal. A command that cannot start
    (not found, not executable) gives exit status 127 or 126 and its ``error``; never raises for
    the command's own failure."""
    out = stdout if stdout is not None else sys.stdout.buffer
    err = stderr if stderr is not None else sys.stderr.buffer
    if use_pty is None:
        use_pty = _isatty(out)
    capture = OutputCapture(spool=keep)
    started, t0 = dt.datetime.now().astimezone(), time.monotonic()
    env = run_environment()
    cwd = os.getcwd()
    terminal = _foreground_terminal()
    master = slave = None
    if use_pty:
        import pty

        master, slave = pty.openpty()
        _copy_window_size(out, slave)
        _pass_output_through(slave)
    try:
        proc = subprocess.Popen(  # noqa: S603 - the user's own command line, run as asked
            argv, stdin=None, stdout=slave if use_pty else subprocess.PIPE,
            stderr=slave if use_pty else subprocess.PIPE, process_group=0,
            preexec_fn=(lambda: _take_terminal(terminal)) if terminal is not None else None)
    except OSError as exc:
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)
        code = 127 if isinstance(exc, FileNotFoundError) else 126
        capture.close()
        return RunResult(list(argv), cwd, started, time.monotonic() - t0, code, capture, env=env,
                         error=f"cannot run {argv[0]!r}: {exc.strerror or exc}")
    if slave is not None:
        os.close(slave)
    sent: list[int] = []
    previous = _forward_signals(proc, sent)
    try:
        if terminal is not None:
            _give_terminal(terminal, proc.pid)
        sources: dict[int, BinaryIO] = ({master: out} if master is not None else
                                        {proc.stdout.fileno(): out, proc.stderr.fileno(): err})  # type: ignore[union-attr]
        returncode = _pump(proc, sources, capture, terminal)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if terminal is not None:
            _give_terminal(terminal, os.getpgrp())
        if master is not None:
            os.close(master)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    capture.close()
    return RunResult(list(argv), cwd, started, time.monotonic() - t0, returncode, capture,
                     signal_sent=sent[0] if sent else None, env=env)


def _pump(proc: subprocess.Popen[bytes], sources: dict[int, BinaryIO], capture: OutputCapture,
          terminal: int | None) -> int:
    """Copy the command's output until it has ended and its output is drained; the returncode.
    Output still coming after the command ended (a child it left behind holds the pipe) is read
    for at most a second more."""
    sel = selectors.DefaultSelector()
    for fd in sources:
        sel.register(fd, selectors.EVENT_READ)
    ended_at: float | None = None
    returncode: int | None = None
    while sel.get_map():
        timeout = 0.1 if returncode is None else max(0.0, 1.0 - (time.monotonic() - (ended_at or 0.0)))
        events = sel.select(timeout)
        for key, _mask in events:
            fd = int(key.fd)
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the pseudo-terminal's other side is closed
                data = b""
            if not data:
                sel.unregister(fd)
                continue
            sink = sources[fd]
            with contextlib.suppress(OSError, ValueError):  # a closed terminal must not stop the run
                sink.write(data)
                sink.flush()
            capture.feed(data)
        if returncode is None:
            returncode = _poll(proc, terminal)
            if returncode is not None:
                ended_at = time.monotonic()
        elif not events:
            break
    sel.close()
    return returncode if returncode is not None else _wait(proc, terminal)


def _poll(proc: subprocess.Popen[bytes], terminal: int | None) -> int | None:
    """The command's returncode if it has ended; a command stopped by Ctrl-Z stops kb too (a
    shell's job control), and both go on together when continued."""
    try:
        pid, status = os.waitpid(proc.pid, os.WNOHANG | os.WUNTRACED)
    except ChildProcessError:
        return proc.returncode if proc.returncode is not None else 0
    if pid == 0:
        return None
    if os.WIFSTOPPED(status):
        if terminal is not None:
            _give_terminal(terminal, os.getpgrp())
        os.kill(os.getpid(), signal.SIGSTOP)  # the shell takes over; SIGCONT brings kb back here
        if terminal is not None:
            _give_terminal(terminal, proc.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGCONT)
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode


def _wait(proc: subprocess.Popen[bytes], terminal: int | None) -> int:
    while True:
        code = _poll(proc, terminal)
        if code is not None:
            return code
        time.sleep(0.05)


def _forward_signals(proc: subprocess.Popen[bytes], sent: list[int]) -> dict[int, Any]:
    """Install handlers passing :data:`FORWARDED` signals on to ``proc``'s process group (noting
    each in ``sent``); the previous handlers, to restore. A signal kb was started with ignored
    stays ignored (the command inherited that too, as any child does)."""
    def forward(signum: int, _frame: Any) -> None:
        sent.append(signum)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signum)

    previous: dict[int, Any] = {}
    for sig in FORWARDED:
        handler = signal.getsignal(sig)
        if handler == signal.SIG_IGN:
            continue  # kb was started with it ignored (nohup, a background job): so is the command
        previous[sig] = handler
        signal.signal(sig, forward)
    return previous


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _foreground_terminal() -> int | None:
    """kb's standard input when it is a terminal whose foreground process group is kb's: then
    the command's group gets the terminal for the run (``None`` otherwise: a background job, a
    pipe)."""
    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
            return fd
    except (AttributeError, ValueError, OSError):
        pass
    return None


def _take_terminal(fd: int) -> None:
    """In the command's process, before it starts: make its own group the terminal's
    foreground (also done by kb after the start; whichever comes first wins the race)."""
    _give_terminal(fd, os.getpgrp())


def _give_terminal(fd: int, pgrp: int) -> None:
    """Make ``pgrp`` the foreground group of terminal ``fd`` (SIGTTOU ignored meanwhile: a
    background group may not otherwise change it)."""
    old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, pgrp)
    finally:
        signal.signal(signal.SIGTTOU, old)


def _pass_output_through(fd: int) -> None:
    """Turn off output processing on the pseudo-terminal ``fd`` (``\n`` → ``\r\n``): the
    command's bytes reach kb as written, and kb's own terminal translates them once."""
    try:
        import termios

        attrs = termios.tcgetattr(fd)
        attrs[1] &= ~termios.OPOST
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except (OSError, ImportError):
        pass


def _copy_window_size(stream: Any, fd: int) -> None:
    """Give the pseudo-terminal ``fd`` the window size of the terminal behind ``stream``."""
    try:
        import fcntl
        import termios

        size = fcntl.ioctl(stream.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, size)
    except (OSError, AttributeError, ValueError):
        pass


# --------------------------------------------------------------------------- the attempt


@dataclass
class RunVerdict:
    """What kb made of a run, for the attempt and for the person: ``outcome`` (an
    :class:`kb.models.Outcome` value), ``metrics`` (``name=value unit`` strings for
    :class:`kb.usecases.log.AttemptDraft`), ``headline`` (the headline figure's name or ``None``),
    ``error`` (the excerpt of a failed run's output, or ``None``), ``reasons`` (one plain
    sentence per decision made)."""

    outcome: str
    metrics: list[str] = field(default_factory=list)
    headline: str | None = None
    error: str | None = None
    reasons: list[str] = field(default_factory=list)


def judge_run(kg: KnowledgeGraph, run: RunResult, campaign: str | None, *, baseline: bool = False) -> RunVerdict:
    """The outcome and figures of ``run`` for ``campaign`` (see the module docstring).

    - interrupted (:attr:`RunResult.interrupted`) → ``inconclusive``;
    - a non-zero exit → ``failed``, with the output's error headline first in the excerpt;
    - ``baseline`` → ``baseline``;
    - else the headline figure read from the output (the campaign's headline metric when the
      output has it) compared with the campaign's baseline value: beyond the campaign's noise
      (2 % when it gives none) in its direction → ``improved`` or ``regressed``, within →
      ``neutral``; no figure, or no baseline of that metric and unit → ``inconclusive``.
    """
    from kb.importers.model import Headline
    from kb.importers.read import read_output
    from kb.importers.score.candidate import headline_name

    camp = kg.get(campaign) if campaign else None
    camp = camp if isinstance(camp, Campaign) else None
    headline = (Headline(camp.metric.name, camp.metric.direction.value, unit=camp.metric.unit,
                         noise=camp.noise if camp.noise is not None else 2.0) if camp is not None else Headline())
    text = run.output.text()
    readout = read_output(text) if text.strip() else None
    measured = [r for r in readout.runs if r.metrics] if readout is not None else []
    verdict = RunVerdict("inconclusive")
    if measured:
        last = measured[-1]
        verdict.headline = headline_name(last.metrics, headline)  # type: ignore[arg-type]
        names = ([verdict.headline] if verdict.headline else []) + [n for n in last.metrics if n != verdict.headline]
        verdict.metrics = [f"{n}={last.metrics[n].text} {last.metrics[n].unit}".rstrip() for n in names]
        if len(measured) > 1:
            verdict.reasons.append(f"the output holds {len(measured)} measured runs ({last.tool}); the last is recorded")
    seconds = f"{run.duration_s:.1f} s"
    if run.interrupted:
        how = signal.Signals(run.signal_sent).name if run.signal_sent else (
            signal.Signals(-run.returncode).name if run.returncode < 0 else f"exit {run.returncode}")
        verdict.outcome = "inconclusive"
        verdict.reasons.append(f"interrupted ({how}) after {seconds}: inconclusive")
        return verdict
    if run.returncode != 0:
        verdict.outcome = Outcome.failed.value
        verdict.error = failure_excerpt(run, readout)
        verdict.reasons.append(f"exit status {run.exit_status} after {seconds}: failed"
                               + (f" ({error_headline(verdict.error)})" if verdict.error else ""))
        return verdict
    if baseline:
        verdict.outcome = Outcome.baseline.value
        verdict.reasons.append("--baseline: this run is the reference others compare with")
        return verdict
    if not verdict.headline:
        verdict.reasons.append("no figure read from the output (none of kb's readers knows it): inconclusive")
        return verdict
    figure = measured[-1].metrics[verdict.headline]
    value, unit = figure.value, figure.unit
    reference = _baseline_value(kg, camp, verdict.headline, unit)
    if reference is None:
        verdict.reasons.append(f"{verdict.headline} {value:g} {unit} read, but the campaign has no baseline of "
                               f"{verdict.headline} in {unit} to compare with (a reference run: kb run --baseline): "
                               "inconclusive")
        return verdict
    ref_value, ref_from = reference
    from kb.importers.score.candidate import better

    direction = better(unit, headline, verdict.headline)
    change = (value - ref_value) / ref_value * 100 if ref_value else 0.0
    gain = change if direction == "higher" else -change
    noise = headline.noise
    verdict.outcome = ("improved" if gain > noise else "regressed" if gain < -noise else "neutral")
    verdict.reasons.append(f"{verdict.headline} {value:g} {unit} against {ref_value:g} {unit} ({ref_from}): "
                           f"{change:+.1f} %, {direction} is better, noise {noise:g} %: {verdict.outcome}")
    return verdict


def _baseline_value(kg: KnowledgeGraph, camp: Campaign | None, name: str, unit: str) -> tuple[float, str] | None:
    """The campaign's reference value of metric ``name`` in ``unit`` and where it comes from:
    the latest attempt of the campaign whose outcome is ``baseline`` (reviewed, or recorded by
    ``kb run --baseline``) with that metric, so that a new reference run is what later runs
    compare with; else the campaign's ``baseline`` figure when it is that metric, else its
    ``baseline_attempt``'s figure. Latest: by date, then by the start time ``kb run`` notes."""
    if camp is None:
        return None
    runs = [a for a in kg.attempts_of(camp.id)
            if a.outcome.value == "baseline" and (a.status != "draft" or "kb-run" in a.tags)]
    runs = [a for a in runs if (m := a.metrics.get(name)) is not None and m.unit == unit]
    if runs:
        latest = max(runs, key=lambda a: (a.date, _started(a), a.id))
        return latest.metrics[name].value, f"the latest baseline run, {latest.id}"
    if camp.baseline is not None and camp.metric.name == name and camp.baseline.unit == unit:
        return camp.baseline.value, f"the baseline figure of campaign {camp.id}"
    ref = kg.get(camp.baseline_attempt) if camp.baseline_attempt else None
    if isinstance(ref, Attempt):
        metric = ref.metrics.get(name)
        if metric is not None and metric.unit == unit:
            return metric.value, f"baseline attempt {ref.id}"
    return None


_STARTED = re.compile(r"^Recorded by kb run: .*?, started (\S+) in ", re.M)


def _started(attempt: Attempt) -> str:
    """When ``kb run`` started the run ``attempt`` records (ISO 8601, from the notes it wrote:
    :func:`_notes`), or ``""``."""
    found = _STARTED.search(attempt.notes or "")
    return found.group(1) if found else ""


def failure_excerpt(run: RunResult, readout: Any = None) -> str:
    """The excerpt of a failed run's output kept as the attempt's ``error``
    (:func:`kb.errortext.error_excerpt`); the start failure's message when it could not start;
    the exit status alone when it printed nothing."""
    if run.error:
        return run.error
    text = run.output.text().strip()
    if not text:
        return f"exit status {run.exit_status} (no output)"
    failed = [r for r in (readout.runs if readout is not None else []) if r.failed and r.error]
    excerpt = error_excerpt(text)
    if failed and failed[-1].error not in excerpt:
        excerpt = failed[-1].error + "\n" + excerpt
    return excerpt


def output_excerpt(run: RunResult) -> str:
    """The first :data:`EXCERPT_HEAD_LINES` and last :data:`EXCERPT_TAIL_LINES` lines of the
    cleaned output, with a ``[… N lines cut …]`` line between when lines were left out."""
    lines = run.output.text().splitlines()
    keep = EXCERPT_HEAD_LINES + EXCERPT_TAIL_LINES
    if len(lines) <= keep:
        return "\n".join(lines)
    cut = run.output.lines - keep
    return "\n".join([*lines[:EXCERPT_HEAD_LINES], f"[… {cut} lines cut …]", *lines[-EXCERPT_TAIL_LINES:]])


def option_flags(argv: list[str]) -> list[str]:
    """The options of a command line as ``kb log --flag`` takes them: each ``-x``/``--name``
    with the value that follows it when that is not an option itself (``--tp 8``,
    ``--enable-x``, ``--dtype=fp8``), in order; the program and positional arguments left out.

    >>> option_flags(["python", "bench.py", "--tp", "8", "--enable-x", "--dtype=fp8", "-n", "3"])
    ['--tp 8', '--enable-x', '--dtype=fp8', '-n 3']
    """
    flags: list[str] = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("-") and arg not in ("-", "--") and not _is_number(arg):
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if "=" not in arg and nxt is not None and (not nxt.startswith("-") or _is_number(nxt)):
                flags.append(f"{arg} {nxt}")
                i += 2
                continue
            flags.append(arg)
        i += 1
    return flags


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def earlier_failure(kg: KnowledgeGraph, command: str, campaign: str | None) -> Attempt | None:
    """The latest failed attempt of ``campaign`` that ran the very same ``command`` (its
    ``config.command``): what a new run of it retries."""
    same = [a for a in kg.of_kind(Attempt) if a.outcome.value == "failed" and a.config.command == command
            and (campaign is None or a.campaign == campaign)]
    return max(same, key=lambda a: (a.date, a.id)) if same else None


@dataclass
class RunOptions:
    """What ``kb run`` was asked besides the command: ``title``, ``approach``, ``baseline``
    (this run is the reference), ``retry_of`` (an attempt id), ``campaign``, ``stack``,
    ``components`` (``kb log --component`` texts), ``captured`` (components read from the machine,
    :func:`kb.machine.components_from_capture`), ``notes``, ``tags``, ``reviewed`` (write a
    reviewed record, not a draft), ``output_file`` (the name under ``records/assets/`` of the
    full output kept, or ``None``)."""

    title: str | None = None
    approach: str | None = None
    baseline: bool = False
    retry_of: str | None = None
    campaign: str | None = None
    stack: str | None = None
    components: list[str] = field(default_factory=list)
    captured: dict[str, Component] = field(default_factory=dict)
    notes: str | None = None
    tags: list[str] = field(default_factory=list)
    reviewed: bool = False
    output_file: str | None = None


def draft_for_run(kg: KnowledgeGraph, run: RunResult, options: RunOptions) -> tuple[AttemptDraft, RunVerdict, list[str]]:
    """The :class:`kb.usecases.log.AttemptDraft` of ``run``, its :class:`RunVerdict`, and the
    source entries' text reasons (``retry_of`` proposed, stack used). Raises nothing for the
    run's own failure; the draft's references are checked when it is built."""
    from kb.usecases.log import default_campaign

    campaign = options.campaign or default_campaign(kg)
    verdict = judge_run(kg, run, campaign, baseline=options.baseline)
    said: list[str] = []
    retry_of = options.retry_of
    if retry_of is None and not options.baseline:
        before = earlier_failure(kg, run.command, campaign)
        if before is not None:
            retry_of = before.id
            said.append(f"retry_of {before.id}: it ran the same command and failed ({before.date})")
    from kb.queries import default_from_stack

    stack = options.stack or (default_from_stack(kg, campaign) if campaign else None)
    captured = dict(options.captured)
    if stack and kg.get(stack) is not None and captured:
        from kb.machine import overrides_against

        captured = overrides_against(captured, kg.stack_components(stack))
    if stack:
        said.append(f"stack {stack}" + (f", with {len(captured)} captured component(s) that differ from it"
                                         if captured else ""))
    title = options.title or title_of(run.argv)
    notes = _notes(run, options)
    draft = AttemptDraft(
        title=title, approach=options.approach or f"Ran `{run.command}` with kb run.",
        outcome=verdict.outcome, campaign=campaign, date=run.started.date(), stack=stack,
        components=list(options.components), captured=captured, flags=option_flags(run.argv),
        env=[f"{k}={v}" for k, v in run.env.items()], command=run.command, metrics=verdict.metrics,
        baseline=None, retry_of=retry_of, error=verdict.error, notes=notes,
        tags=list(dict.fromkeys(["kb-run", *options.tags])), status="reviewed" if options.reviewed else "draft")
    return draft, verdict, said


def interpreter_of(argv: list[str]) -> str | None:
    """The Python interpreter ``argv`` runs (its path on ``$PATH`` when named bare), or ``None``
    when the command is not a Python interpreter: the one whose packages (torch, vLLM, …) the
    stack capture reads, which need not be kb's own."""
    import shutil

    if not argv or not re.fullmatch(r"python[\d.]*", Path(argv[0]).name):
        return None
    return shutil.which(argv[0])


def title_of(argv: list[str]) -> str:
    """A title from the command line: the program's name and its arguments, at most 80
    characters; a Python interpreter's script or ``-m`` module stands for the program.

    >>> title_of(["/usr/bin/python3", "bench.py", "--tp", "8"]), title_of(["python", "-m", "sglang.bench_serving", "-n", "5"])
    ('bench.py --tp 8', 'sglang.bench_serving -n 5')
    >>> title_of(["python3", "-c", "import torch; print(1)"])
    'python3 -c'
    """
    words = [Path(argv[0]).name, *argv[1:]] if argv else ["run"]
    if re.fullmatch(r"python[\d.]*", words[0]) and len(words) > 1:
        if words[1] == "-m" and len(words) > 2:
            words = words[2:]
        elif words[1] == "-c":
            words = words[:2]
        elif not words[1].startswith("-"):
            words = words[1:]  # `python bench.py --x` is a run of bench.py
    title = shlex.join(words)
    return title if len(title) <= 80 else title[:79] + "…"


def _notes(run: RunResult, options: RunOptions) -> str:
    """The attempt's notes: how the run went and an excerpt of its output."""
    head = (f"Recorded by kb run: exit status {run.exit_status} after {run.duration_s:.1f} s, started "
            f"{run.started.isoformat(timespec='seconds')} in {run.cwd}. Output: {run.output.size} bytes, "
            f"{run.output.lines} lines, sha256 {run.output.sha256}"
            + (f", kept in full as assets/{options.output_file}" if options.output_file else "") + ".")
    parts = [options.notes.strip()] if options.notes and options.notes.strip() else []
    excerpt = output_excerpt(run)
    parts.append(head + ("\n\n```text\n" + excerpt.replace("```", "``\u200b`") + "\n```" if excerpt.strip() else ""))
    return "\n\n".join(parts) + "\n"


def record_run(root: str | Path, run: RunResult, options: RunOptions, *,
               kg: KnowledgeGraph | None = None) -> tuple[LogResult, RunVerdict, list[str]]:
    """Write the attempt of ``run`` under ``root`` through the write gate (redacted; a draft
    unless ``options.reviewed``), with the known blockers its error matches linked; returns the
    :class:`kb.usecases.log.LogResult`, the :class:`RunVerdict` and what was proposed. Raises
    :class:`kb.errors.InvalidOptions` for bad options (nothing written) and
    :class:`kb.errors.WriteError` when the disk refuses."""
    from kb.store import save_record
    from kb.usecases.log import load_for_writing

    if kg is None:
        kg, _problems = load_for_writing(root)
    draft, verdict, said = draft_for_run(kg, run, options)
    attempt, matches = prepare_attempt(kg, draft, link_matches=verdict.outcome == Outcome.failed.value)
    source = {"file": f"assets/{options.output_file}" if options.output_file else "kb run output (not kept)",
              "sha256": run.output.sha256, "size": run.output.size, "field": "attempt",
              "locator": f"stdout and stderr, {run.output.lines} lines",
              "summary": f"output of `{run.command}`, exit status {run.exit_status} after {run.duration_s:.1f} s"}
    data = attempt.model_dump(by_alias=True, exclude_none=True)
    data["source"] = [*data.get("source", []), source]
    saved = save_record(root, Attempt.model_validate(data), taken=kg.records.records)
    assert isinstance(saved.record, Attempt)
    return LogResult(saved.record, saved.path, matches, dict(saved.redactions)), verdict, said

