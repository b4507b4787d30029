"""Failed runs: whether a tool result is a failure, and the error *headline* a person would quote.

A result is a failure when the source says so (``is_error``, an ``error`` state, a non-zero exit
code) or, with no figure printed, when its output holds a Python traceback, an out-of-memory
line, an ``NCCL error``/``NCCL failure`` line, a ``CUDA error`` or an exception line
(``ValueError: ...``, log prefixes removed).

The headline (:func:`error_headline`) is one line, log prefixes removed (``(VllmWorker rank=6
pid=3121) ERROR 03-22 10:31:52 [multiproc_executor.py:470]``), picked in this order:

1. the most specific cause: an out-of-memory line (``torch.OutOfMemoryError: CUDA out of
   memory...``, ``cudaMalloc failed: out of memory``), an ``NCCL error``/``NCCL failure`` line,
   a ``CUDA error`` line, a compiler's ``fatal`` line (``nvcc fatal : Unsupported gpu
   architecture 'compute_120a'``, ``fatal error: x.hpp: file not found``); the first one printed (a later ``RuntimeError: Engine core
   initialization failed`` only reports it);
2. the last exception line of a traceback (``KeyError: 12``, ``torch._dynamo.exc.Unsupported:
   ...``);
3. the first line saying ``Error``/``error:``/``ERROR``/``failed``/``Failed``;
4. the output's last line.

Wrapper lines of the agents (``Exit code 1``, ``Wall time``, ``Command:``, ``Add the output to
the chat?``) are never a headline.
"""

from __future__ import annotations

import re

from kb.importers.extract.model import ERROR_CHARS

TRACEBACK = "Traceback (most recent call last)"

_NOISE_LINE = re.compile(
    r"^\s*(?:exit[ _]code:?\s*-?\d+|wall time:.*|command:.*|error:\s*\(none\)|signal:.*|process group pgid:.*"
    r"|background pids:.*|stdout:|stderr:|output:|add the output to the chat\?.*|-{5,}|={5,}|exit\s+-?\d+)\s*$", re.I)
_LEVEL = r"(?:ERROR|WARNING|WARN|INFO|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d\s+\[[^\]]*\]\s*"
_PREFIX = re.compile(rf"^\s*(?:\([^)]{{1,80}}\)\s*(?:{_LEVEL})?|{_LEVEL})")
_SPECIFIC = re.compile(r"OutOfMemoryError|out of memory|\bOOM\b|NCCL error|NCCL failure|CUDA error|cudaError\w*|illegal memory access"
                       r"|\bfatal\b", re.I)
_EXCEPTION = re.compile(r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Za-z_]*(?:Error|Exception|Exit|Interrupt|Unsupported|Warning)\b)(?::.*)?$")
_ERRORISH = re.compile(r"\bError\b|\berror:|\bERROR\b|\bfailed\b|\bFailed\b|\bFAILED\b|^FAIL\b|Segmentation fault|core dumped|NCCL WARN")
_SIGNAL = re.compile(r"OutOfMemoryError|out of memory|NCCL error|NCCL failure|CUDA error|Segmentation fault|core dumped"
                     r"|\bfatal\b|^\S*make(?:\[\d+\])?: \*\*\*.*Error \d+", re.M)


def is_failure(is_error: bool | None, exit_code: int | None, output: str, has_figures: bool) -> bool:
    """Whether a tool result reports a failed run (see the module docstring)."""
    if is_error or exit_code not in (None, 0):
        return True
    if has_figures:
        return False
    if TRACEBACK in output or _SIGNAL.search(output):
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


def error_headline(output: str) -> str:
    """The one line that says what went wrong in ``output`` (see the module docstring);
    ``"(no output)"`` when there is nothing to quote."""
    lines = [line.strip() for line in clean_lines(output)]
    lines = [line for line in lines if not line.startswith(("File \"", "^", "~"))]
    if not lines:
        return "(no output)"
    for line in lines:
        if _SPECIFIC.search(line) and not line.lower().startswith(("warning", "hint")):
            return _cap(line)
    exceptions = [line for line in lines if _EXCEPTION.match(line) and ":" in line]
    if exceptions:
        return _cap(exceptions[-1])
    for line in lines:
        if _ERRORISH.search(line):
            return _cap(line)
    return _cap(lines[-1])


def error_detail(output: str) -> str:
    """The error's context for the record's notes: the traceback (from ``Traceback`` to its
    end) when there is one, else the last lines; at most ``ERROR_CHARS`` characters (the end
    is kept)."""
    text = "\n".join(clean_lines(output))
    if TRACEBACK in text:
        text = text[text.index(TRACEBACK):]
    else:
        text = "\n".join(text.splitlines()[-8:])
    text = text.strip() or "(no output)"
    return text if len(text) <= ERROR_CHARS else "…" + text[-(ERROR_CHARS - 1):]


def _cap(line: str, limit: int = 400) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"
