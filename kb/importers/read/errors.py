"""A failed run's own output: whether it reports a failure, and the error *headline* a person
would quote.

Facts read (each tool's documented error output): Python's traceback (``Traceback (most recent
call last):`` ... ``KeyError: 12``; the last line names the exception), PyTorch's
``torch.OutOfMemoryError: CUDA out of memory``, the CUDA runtime's ``CUDA error: ...`` strings,
NCCL's ``NCCL error`` / ``NCCL WARN`` lines and nccl-tests' ``Test NCCL failure``, the ROCm runtime's
``HSA_STATUS_ERROR_*`` and ``hipError*`` codes, ggml's ``GGML_ASSERT`` and ``ggml_abort``, C++'s
``terminate called after throwing``, nvcc's and gcc's
``fatal`` lines and ``file:line: error:`` diagnostics, CMake's ``CMake Error at``, make's
``*** [...] Error N``, the shell's ``Segmentation fault`` / ``core dumped``
/ ``Killed``; and the wrapper lines agents put around an output (Codex's ``Exit code: N`` and
``Wall time:``, Aider's ``Add the output to the chat?``), which are never a headline.

The headline (:func:`error_headline`) is one line, log prefixes removed (``(VllmWorker rank=6
pid=3121) ERROR 03-22 10:31:52 [multiproc_executor.py:470]``), picked in this order:

1. the most specific cause: an out-of-memory line, an NCCL error or failure line, a CUDA error
   line, a compiler's ``fatal`` line; the first one printed (a later ``RuntimeError: Engine core
   initialization failed`` only reports it), an exception's own line before a logger's line that
   reports the same cause (``torch.OutOfMemoryError: CUDA out of memory ...`` over ``ERROR ...
   CUDA out of memory``);
2. the last exception line of a traceback (``KeyError: 12``);
3. the first line logged at error level (``ERROR``, ``CRITICAL``, ``FATAL``), its log prefix removed;
4. the first line with ``Error``/``error:``/``ERROR``/``failed``/``FAILED``;
5. the output's last line.

:func:`read` gives one failed :class:`~kb.importers.read.base.RunReading` when the output holds a
failure signal (a traceback, an exception line, or one of the specific causes), with its headline;
whether a run *failed* also depends on its exit status, which the caller knows.
"""

from __future__ import annotations

import re

from kb.importers.read.base import Readout, RunReading

TOOL = "error"
SOURCES = {
    "Python traceback module (the traceback header and exception line)": ("Traceback (most recent call last)",),
    "CUDA runtime and PyTorch error strings": ("CUDA out of memory", "CUDA error", "illegal memory access"),
    "NCCL and nccl-tests error lines": ("NCCL error", "NCCL failure", "NCCL WARN", "Test NCCL failure"),
    "CMake's configure errors and GCC/Clang/nvcc diagnostics (file:line: error: ..., file(line): error: ...)": (
        "CMake Error at",),
    "agents' wrappers around tool output (Codex exec output, Aider /run)": ("Wall time", "Exit code",
                                                                             "Add the output to the chat?"),
}
"""The documentation of the output this reader knows."""

ERROR_CHARS = 2000
"""Longest error detail kept (the end is kept: the exception line is last)."""

TRACEBACK = "Traceback (most recent call last)"
_NOISE_LINE = re.compile(
    r"^\s*(?:exit[ _]code:?\s*-?\d+|wall time:.*|command:.*|error:\s*\(none\)|signal:.*|process group pgid:.*"
    r"|background pids:.*|stdout:|stderr:|output:|add the output to the chat\?.*|-{5,}|={5,}|exit\s+-?\d+)\s*$", re.I)
_LEVEL = r"(?:ERROR|WARNING|WARN|INFO|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d\s+\[[^\]]*\]\s*"
_PREFIX = re.compile(rf"^\s*(?:\([^)]{{1,80}}\)\s*(?:{_LEVEL})?|{_LEVEL})")
_ERROR_LEVEL = re.compile(r"^\s*(?:\([^)]{1,80}\)\s*)?(?:\[[^\]]{1,40}\]\s*)?(?:ERROR|CRITICAL|FATAL)\b[\s:]")
"""A log line at error level, as Python's logging, vLLM's and SGLang's loggers print it
(``(EngineCore_0 pid=1321) ERROR 09-06 03:10:08 [core.py:700] EngineCore failed to start.``)."""
_SPECIFIC = re.compile(r"OutOfMemoryError|out of memory|\bOOM\b|NCCL error|NCCL failure|CUDA error|cudaError\w*|illegal memory access"
                       r"|HSA_STATUS_ERROR\w*|hipError\w+|\bHIP error\b|\bROCm error\b|GGML_ASSERT|\bfatal\b"
                       r"|^\S+?(?:\(\d+\)|:\d+(?::\d+)?):\s+error\b|^CMake Error\b", re.I)
_EXCEPTION = re.compile(r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Za-z_]*(?:Error|Exception|Exit|Interrupt|Unsupported|Warning)\b)(?::.*)?$")
_ERRORISH = re.compile(r"\bError\b|\berror:|\bERROR\b|\bfailed\b|\bFailed\b|\bFAILED\b|^FAIL\b|Segmentation fault|core dumped|NCCL WARN")
_SIGNAL = re.compile(r"OutOfMemoryError|out of memory|NCCL error|NCCL failure|CUDA error|Segmentation fault|core dumped"
                     r"|HSA_STATUS_ERROR|hipError|\bHIP error\b|\bROCm error\b|GGML_ASSERT|ggml_abort|terminate called after"
                     r"|\bfatal\b|^\S*make(?:\[\d+\])?: \*\*\*.*Error \d+"
                     r"|^CMake Error\b|^\S+?(?:\(\d+\)|:\d+(?::\d+)?):\s+(?:fatal\s+)?error\b", re.M)


EXCEPTION_WORDS = ("Error", "Exception", "Exit", "Interrupt", "Unsupported", "Warning")
"""The endings of the exception names :func:`exception_line` knows: a line holding none of them is no
exception's headline (a cheap test before the pattern)."""


def exception_line(line: str) -> bool:
    """Whether ``line`` is an exception's headline (``torch.OutOfMemoryError: CUDA out of memory.
    Tried to allocate 2.00 GiB``): the sizes and counts it quotes are no measurements of a run.

    >>> exception_line("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"), exception_line("decode: 41 tok/s")
    (True, False)
    """
    return bool(_EXCEPTION.match(line))


def is_failure(is_error: bool | None, exit_code: int | None, output: str, has_figures: bool) -> bool:
    """Whether a tool result reports a failed run (see the module docstring)."""
    if is_error or exit_code not in (None, 0):
        return True
    if has_figures:
        return False
    if TRACEBACK in output or _SIGNAL.search(output):
        return True
    if any(_ERROR_LEVEL.match(line) for line in output.splitlines()):
        return True
    return any(_EXCEPTION.match(line) and ":" in line and "Warning" not in line.split(":")[0] for line in clean_lines(output))


def clean_lines(output: str) -> list[str]:
    """The output's lines without agent wrapper lines, ``Output:`` prefixes and log prefixes."""
    lines = []
    for line in output.splitlines():
        if _NOISE_LINE.match(line):
            continue
        line = re.sub(r"^\s*Output:\s?", "", line)
        line = _PREFIX.sub("", line, count=1)
        if line.strip():
            lines.append(line.rstrip())
    return lines


def error_headline(output: str, printed_only: bool = False) -> str:
    """The one line that says what went wrong in ``output`` (see the module docstring);
    ``"(no output)"`` when there is nothing to quote. With ``printed_only``, only a line that is
    an error (a known failure, an exception, a logger's ERROR line), else ``""``: no line that
    merely mentions failing, nor the last line for want of one."""
    lines = [line.strip() for line in clean_lines(output)]
    lines = [line for line in lines if not line.startswith(("File \"", "^", "~"))]
    if not lines:
        return "" if printed_only else "(no output)"
    specific = [line for line in lines if _SPECIFIC.search(line) and not line.lower().startswith(("warning", "hint"))]
    if specific:  # the exception's own line over a logger's line that reports the same cause
        return _cap(next((line for line in specific if _EXCEPTION.match(line) and not _ERROR_LEVEL.match(line)), specific[0]))
    exceptions = [line for line in lines if _EXCEPTION.match(line) and ":" in line]
    if exceptions:
        return _cap(exceptions[-1])
    logged = [_PREFIX.sub("", line, count=1).strip() for line in output.splitlines() if _ERROR_LEVEL.match(line)]
    if logged and logged[0]:
        return _cap(logged[0])
    if printed_only:
        return ""
    for line in lines:
        if _ERRORISH.search(line):
            return _cap(line)
    return _cap(lines[-1])


_SPAN = re.compile(r"`([^`\n]+)`")


def quoted_error(text: str, spans_only: bool = False) -> str | None:
    """The printed error a note quotes (``crashed: `RuntimeError: CUDA error: ...` ``): the first
    inline code span, else line (not with ``spans_only``), that is an exception line (``Name:
    message``); ``None`` when the note quotes none (its own words then say how the try failed)."""
    spans = _SPAN.findall(text)
    for candidate in [*spans, *([] if spans_only else text.splitlines())]:
        line = candidate.strip().lstrip("-*+ ").strip().strip("`")
        if (_EXCEPTION.match(line) and ":" in line) or _DOTTED_EXCEPTION.match(line):
            return _cap(line)
    if spans_only:  # a code span that is a failure line of its own (`NCCL WARN Cuda failure 700 ...`)
        return next((_cap(span.strip()) for span in spans
                     if len(span.split()) >= 3 and (_SIGNAL.search(span) or "NCCL WARN" in span)), None)
    return None


_DOTTED_EXCEPTION = re.compile(r"^(?:[a-z_]\w*\.)+[A-Z][A-Za-z0-9]+: \S")
"""An exception named by its module path, whatever its class is called
(``triton.runtime.errors.OutOfResources: out of resource: shared memory``)."""


def error_detail(output: str) -> str:
    """The error's context for the record's notes: the traceback (from ``Traceback`` to its
    end) when there is one, else the last lines; at most ``ERROR_CHARS`` characters (the end
    is kept)."""
    text = "\n".join(clean_lines(output))
    text = text[text.index(TRACEBACK):] if TRACEBACK in text else "\n".join(text.splitlines()[-8:])
    text = text.strip() or "(no output)"
    return text if len(text) <= ERROR_CHARS else "…" + text[-(ERROR_CHARS - 1):]


def _cap(line: str, limit: int = 400) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def read(text: str) -> Readout:
    """One failed run when ``text`` holds a failure signal (see the module docstring), else nothing."""
    out = Readout()
    if not is_failure(None, None, text, has_figures=False):
        return out
    lines = text.splitlines()
    out.runs.append(RunReading(TOOL, lines=(1, max(len(lines), 1)), failed=True, error=error_headline(text),
                               documented=True))
    return out


_CHECK_FAILED = re.compile(r"^\s*(?:[\w .:/=+-]{0,60}?(?:err(?:or)?|check|correct(?:ness)?|verif\w*|match\w*|valid\w*|"
                           r"accuracy)\b[^\n]{0,60}?)[\s:(\[]*(?:FAIL|FAILED|MISMATCH)[)\]!.]*\s*$", re.I | re.M)
"""A correctness check's verdict line that says it failed (``max abs err: 3.1e+01 (FAIL)``,
``Correctness check: FAILED``, ``verify: MISMATCH``)."""


def check_failed(text: str) -> str | None:
    """The line of ``text`` where a run's own correctness check reports a failure (its output is
    wrong, whatever its speed), or ``None``.

    >>> check_failed("kernel: 1.2 ms\\nmax abs err: 3.1e+01 (FAIL)"), check_failed("Correctness check: PASSED")
    ('max abs err: 3.1e+01 (FAIL)', None)
    """
    found = _CHECK_FAILED.search(text) or _DEGENERATE.search(text)
    return found.group(0).strip() if found else None


_CHECK_PASSED = re.compile(r"^\s*(?:(?:[\w .:/=+-]{0,60}?\b(?:check|correct(?:ness)?|verif\w*|valid\w*)\b[^\n]{0,40}?"
                           r"[\s:(\[]*(?:PASS|PASSED|OK)\b)|(?:OK|PASS(?:ED)?)\b:?[^\n]{0,80}\bmatch(?:es|ed)?\b)", re.M)
"""A correctness check's verdict line that says it passed (``Correctness check: PASSED``, ``OK: 16/16
responses match``)."""


def check_passed(text: str) -> bool:
    """Whether a run's own correctness check reports that its output is right.

    >>> check_passed("checking 16 prompts...\\nOK: 16/16 responses match"), check_passed("decode: 41 tok/s")
    (True, False)
    """
    if "match" not in text and "PASS" not in text and "OK" not in text:
        return False  # none of the words a passing check prints: no pattern to run over a long output
    return bool(_CHECK_PASSED.search(text)) and check_failed(text) is None


_DEGENERATE = re.compile(r"""^[^\n'"]{0,40}['"]\s*(?:([^\w\s])\1{7,}|(\w+)(?:\s+\2){5,})\s*['"]?\s*$""", re.M)
"""A completion a run printed that is one character or one word over and over (``sample[0]:
'!!!!!!!!!!'``, ``"the the the the the the"``): degenerate output, the run's result is wrong."""


_WRONG_OUTPUT = re.compile(
    r"\b(?:garbage|gibberish|nonsense|unusable|corrupt(?:ed)?|garbled|incoherent|repeat(?:s|ed|ing)? (?:the same )?tokens?|"
    r"repetitive|degenerate[sd]?|basura|sin sentido|charabia|n'importe quoi|unbrauchbar|Kauderwelsch|Müll|乱码|胡言乱语|"
    r"(?:accuracy|exact[ _]match|pass@1|score)\s*(?:of|=|:)?\s*0(?:\.0+)?\s*%)(?![\w-])",
    re.I)
_NEGATION = re.compile(r"\b(?:no|not|without|never|nor|sin|pas de|kein(?:e|en)?|ohne|没有|不是)\W+(?:\w+\W+)?$", re.I)


def wrong_output(text: str) -> str | None:
    """The sentence of a note that says a run's output was wrong (``the completions are garbage``,
    ``la salida es basura``, ``returns the same token over and over`` as ``repeated tokens``), or
    ``None``; a negated mention (``no garbage, no repeated tokens``) says the opposite.

    >>> wrong_output("Fast, but the completions are garbage: it returns Province Province."), wrong_output("fine, no garbage")
    ('Fast, but the completions are garbage: it returns Province Province.', None)
    """
    for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
        for found in _WRONG_OUTPUT.finditer(sentence):
            if not _NEGATION.search(sentence[:found.start()]):
                return _cap(" ".join(sentence.split()))
    return None


def headline_line(output: str) -> int | None:
    """The 1-based line of ``output`` that holds its error headline (:func:`error_headline`), or
    ``None`` when no line holds it."""
    headline = error_headline(output)
    for number, line in enumerate(output.splitlines(), 1):
        if headline and headline in line:
            return number
    return None
