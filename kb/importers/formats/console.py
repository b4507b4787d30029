"""Shell sessions pasted as text: where a command starts and its output ends.

A terminal capture (a fenced block of a notebook, a raw ``.log``/``.txt`` file) shows each command
after a prompt: ``$ cmd``, ``❯ cmd``, ``% cmd`` (zsh), ``user@host:~/dir$ cmd``, ``(venv) $ cmd``,
``root@host:/# cmd`` (a bare ``# `` is a comment, as nccl-tests prints its header), ``PS C:\\> cmd``. :func:`split` cuts the text at those
prompts into :class:`Step` s (the command, the output lines up to the next prompt, and their
line numbers); a text without prompts is one step with no command. :func:`is_shell` tells a
fence language that holds commands to run (``bash``, ``sh``, ``shell``, ``zsh``, ``console``,
``powershell``), and :func:`commands_only` whether a block is commands without output.

>>> [(s.command, s.output) for s in split("$ nvidia-smi -L\\nGPU 0: NVIDIA H100\\n$ echo hi\\nhi")]
[('nvidia-smi -L', 'GPU 0: NVIDIA H100'), ('echo hi', 'hi')]
>>> split("no prompt here\\n42")[0].command is None
True
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession", "powershell",
                             "ps1", "fish", "cmd", "terminal"})
"""Fence languages of shell commands (GitHub linguist's names for them)."""

_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)\s*)?(?:(?:[\w.-]+@[\w.-]+)?:?[~/][^\s$#]*\s*)?(?:\$|❯|➜|%)\s+(\S.*)$"
    r"|^\s*(?:[\w.-]+@[\w.-]+)[:\s][^$#]*[$#]\s+(\S.*)$"
    r"|^\s*PS [A-Z]:\\[^>]*>\s+(\S.*)$")
_LOG_LINE = re.compile(r"^(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)(?::|\s+(?:\d\d[-/]\d\d|\[|\d{4}-))")
"""A logger's line (vLLM's ``INFO 05-14 10:18:52 [file.py:12] ...``, uvicorn's ``INFO:  ...``)."""
_CONTINUED = re.compile(r"\\\s*$")
_COMMENT = re.compile(r"^\s*#")


@dataclass
class Step:
    """One command of a shell session: ``command`` (``None`` for text before any prompt, or a text
    with none), its ``output`` (lines joined), and the 1-based ``first``/``last`` line of the step
    within the text (``output_first`` where the output starts)."""

    command: str | None
    output: str
    first: int
    last: int
    output_first: int


def prompt_command(line: str) -> str | None:
    """The command after a prompt on ``line``, or ``None`` when the line has no prompt, or when what
    follows the prompt is a log line a background process printed there (``$ INFO 05-14 10:18:52
    [api_server.py:1287] ...``: a server started with ``&`` writes over the next prompt)."""
    found = _PROMPT.match(line)
    if not found:
        return None
    command = next(group for group in found.groups() if group is not None).strip()
    return None if _LOG_LINE.match(command) else command


def split(text: str) -> list[Step]:
    """The steps of a shell session (see the module docstring); a backslash at a line's end
    continues its command on the next line."""
    lines = text.splitlines()
    steps: list[Step] = []
    current: Step | None = None
    output: list[str] = []
    i = 0
    while i < len(lines):
        command = prompt_command(lines[i])
        if command is None:
            if current is None:
                current = Step(None, "", i + 1, i + 1, i + 1)
            output.append(lines[i])
            current.last = i + 1
            i += 1
            continue
        if current is not None:
            current.output = "\n".join(output).strip("\n")
            steps.append(current)
        first = i + 1
        while _CONTINUED.search(command) and i + 1 < len(lines):
            i += 1
            command = _CONTINUED.sub("", command) + " " + lines[i].strip()
        current = Step(command.strip(), "", first, i + 1, i + 2)
        output = []
        i += 1
    if current is not None:
        current.output = "\n".join(output).strip("\n")
        steps.append(current)
    return [step for step in steps if step.command is not None or step.output.strip()] or [Step(None, "", 1, 1, 1)]


def is_shell(language: str | None) -> bool:
    """Whether a fence's language names a shell."""
    return bool(language) and language.strip().lower().split()[0] in SHELL_LANGUAGES


def commands_only(text: str) -> list[str]:
    """The commands of a block that holds only commands (comment lines and blank lines aside;
    backslash continuations joined), or ``[]`` when some line is not a command: a line of
    output, a table row, a number."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        if not line.strip() or (_COMMENT.match(line) and not pending):
            continue
        stripped = line.strip()
        command = prompt_command(line) or stripped
        if not pending and (command[:1] in "|+-=[{(<" or command[:1].isdigit()):
            return []
        pending = f"{pending} {command}".strip() if pending else command
        if _CONTINUED.search(pending):
            pending = _CONTINUED.sub("", pending).strip()
            continue
        commands.append(pending)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


_DIGITS = re.compile(r"\d+")
_RULE_LINE = re.compile(r"^[\s=#*_~+|-]*$")


_BANNER = re.compile(r"^\s*([^\w\s])\1+\s*(\S.*?\w.*?)\s*([^\w\s])\3+\s*$")
"""A banner a script prints to open a pass: a run of one mark, words, a run of one mark
(``=== exp-off | cfg=base.yaml ===``, ``--- batch 8 ---``, ``>>> tp2 <<<``, ``:::: warmup ::::``)."""
_LABELLED = re.compile(r"^([A-Za-z_][\w .-]{0,30}?)\s*([=:])\s*\S.*$")
"""A ``name = value`` or ``name: value`` line: its shape is its name (the value is what each pass sets)."""


def banner(line: str) -> str | None:
    """What a banner line says between its frames (``=== base | cfg=a.yaml ===`` → ``base | cfg=a.yaml``),
    or ``None`` for another line.

    >>> banner("=== base | cfg=a.yaml ==="), banner(">>> tp2 <<<"), banner("a == b"), banner("[tp2] ok=5 (x)")
    ('base | cfg=a.yaml', 'tp2', None, None)
    """
    found = _BANNER.match(line)
    return found.group(2) if found else None


def iterations(text: str, min_gap: int = 3) -> list[tuple[int, int]]:
    """Where a script that loops over settings starts each pass, in a capture of its output with
    no prompts: the 1-based ``(first, last)`` line ranges that begin at each occurrence of the line
    shape that repeats most (digits masked: ``Processing config 1/62: ISL=128`` and ``Processing
    config 2/62: ISL=128`` are one shape, and a ``name = value`` line's shape is its name; of shapes that repeat as often, one whose lines differ
    from pass to pass, as a header naming its pass does, then the earliest), when it repeats at
    least twice at least ``min_gap`` lines apart; the lines before the first pass are left out. ``[]`` when no shape repeats so.

    >>> iterations("start\\n== run 1 ==\\na\\nb\\nc\\n== run 2 ==\\nd\\ne\\nf")
    [(2, 5), (6, 9)]
    """
    lines = text.splitlines()
    places: dict[str, list[int]] = {}
    values: dict[str, set[str]] = {}  # the values a "name = value" shape takes: one value names no pass
    counts = Counter(line.strip() for line in lines)
    banners: set[str] = set()
    for number, line in enumerate(lines, 1):
        if len(line.strip()) < 8 or _RULE_LINE.match(line) or line.lstrip().startswith("|") or _LOG_LINE.match(line.strip()):
            continue  # a logger's lines repeat in any output: they mark no pass
        frames = _BANNER.match(line)
        labelled = _LABELLED.match(line.strip())  # "model_name = mistral:7b": the same header, whatever it names
        if frames and counts[line.strip()] == 1:  # "=== exp-off | cfg=a.yaml ===": one shape, whatever each pass is called
            framed = f"{frames.group(1) * 3} * {frames.group(3) * 3}"  # (a banner printed alike each time, "=== DONE ===", is not a pass's name)
            banners.add(framed)
            places.setdefault(framed, []).append(number)  # and its own shape too ("== run 0 =="), whichever repeats more
        shape = f"{labelled.group(1)}{labelled.group(2)}*" if labelled else _DIGITS.sub("0", line.strip())
        places.setdefault(shape, []).append(number)
        if labelled:
            values.setdefault(shape, set()).add(" ".join(line.strip()[labelled.end(2):].split()))
    best: list[int] = []
    best_key: tuple[int, bool, int] = (0, False, 0)
    for shape, found in places.items():
        gap = 2 if shape in banners else min_gap  # a banner and one result line make a pass
        if shape in banners and len(found) < 3:
            continue  # two banners of different words may be one program's two sections: three make a loop
        if len(found) < 2 or any(b - a < gap for a, b in itertools.pairwise(found)) or \
                (shape in values and len(values[shape]) < 2):
            continue
        names_pass = len({lines[n - 1].strip() for n in found}) > 1  # "=== batch 8 ===", not the same loop line each time
        key = (len(found), names_pass, -found[0])
        if key > best_key:
            best, best_key = found, key
    if not best:
        return []
    ends = [b - 1 for b in best[1:]] + [len(lines)]
    return list(zip(best, ends))
