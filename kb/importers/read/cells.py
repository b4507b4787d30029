"""One table cell, as people fill results tables: a figure (``89.5``, ``**1,234 tok/s**``,
``16634.04 ± 97.98``, ``~90``), a mark (``✅``, ``❌ garbage``, ``OOM``, ``failed``), a difference
(``+9.1%``, ``−3.2``, ``1.4x``), or nothing yet (``—``, ``TBD``, ``pending``, ``N/A``).

>>> cell_figure("**16,634.04 ± 97.98**"), cell_figure("38 (PCIe contention)"), cell_figure("tp8")
(('16634.04', None, '97.98'), ('38', None, None), None)
>>> cell_figure("54.1 tok/s"), mark("❌ garbage output"), mark("✅"), mark("OOM at 32k"), mark("96.1")
(('54.1', 'tok/s', None), 'fail', 'pass', 'fail', None)
>>> is_delta("+9.1%"), is_delta("1.35x"), is_delta("82.0"), is_blank("TBD"), is_blank("—")
(True, True, False, True, True)
>>> without_mark("Failed - same error")
'same error'
"""

from __future__ import annotations

import re

from kb.importers.read import errors, labels
from kb.importers.read.base import NUMBER

SOURCES = {"GitHub-flavoured Markdown tables as results tables are written (marks, dashes, emphasis)": ()}
"""What the rules rest on."""

_FIGURE = re.compile(rf"^[\s*_~≈]*({NUMBER})_*\s*(?:±\s*({NUMBER}))?\s*([A-Za-zµμ/%]+(?:/[A-Za-z]+)?)?(?:[^\w(\[]|_)*(?:[(\[].*)?$")
_DELTA = re.compile(rf"^[\s*_(]*(?:[+\-−]\s*{NUMBER}\s*%?|{NUMBER}\s*%|{NUMBER}\s*[x×])[\s*_)]*(?:\(.*\))?\s*$", re.I)
_BLANK = frozenset({"", "-", "—", "–", "n/a", "na", "tbd", "pending", "?", "...", "…", "todo", "wip", "tba", "none",
                    "not run", "skipped", "x"})
_FAIL_MARKS = ("❌", "✗", "✘", "⛔", "🚫", "💥", "🔴")
_PASS_MARKS = ("✅", "✓", "✔", "☑", "🟢")
_STRONG_FAIL = frozenset({"fail", "failed", "fails", "failure", "crash", "crashed", "crashes", "oom", "segfault",
                          "segfaulted", "broken", "abort", "aborted", "killed", "garbage", "gibberish", "nan"})
_WEAK_FAIL = frozenset({"error", "errored", "timeout", "hang", "hangs", "hung", "unsupported", "incompatible"})
_PASS_WORDS = frozenset({"ok", "pass", "passed", "works", "working", "success", "succeeded", "yes", "stable"})
_OUTCOME_WORDS = {
    "improved": {"improved", "improvement", "winner", "win", "wins", "best", "faster", "better", "fastest", "gain"},
    "regressed": {"regressed", "regression", "slower", "worse", "slowest", "loss"},
    "neutral": {"neutral", "same", "unchanged", "flat", "tie", "tied", "equal"},
    "baseline": {"baseline", "reference"},
    "failed": _STRONG_FAIL,
}
_SUMMARY = frozenset({"total", "totals", "sum", "average", "avg", "mean", "overall", "difference", "diff", "delta",
                      "change", "target", "goal", "expected", "gain", "improvement", "speedup", "ratio", "net"})


_LEADING_NUMBER = re.compile(rf"^[\s*_~≈]*({NUMBER})_*\s+(.*?)[\s*_]*$")


def _qualified(cell: str) -> tuple[str, str, str] | None:
    """``(number, unit, qualifier)`` of a cell of a number, a unit and one or two words naming the
    figure's kind before or after the unit (``69.3 output tok/s``, ``212 ms TTFT``)."""
    found = _LEADING_NUMBER.match(cell)
    if not found:
        return None
    words = found.group(2).split()
    if not 2 <= len(words) <= 3:
        return None
    for at, word in enumerate(words):
        unit = labels.unit_of(word)
        rest = words[:at] + words[at + 1:]
        if unit and all(labels.is_qualifier(w) for w in rest):
            return found.group(1).replace(",", ""), unit, " ".join(rest)
    return None


def qualifier(cell: str) -> str:
    """The words of a figure cell that say which kind of figure it is, ``""`` when it has none:
    ``69.3 output tok/s`` → ``"output"``, ``212 ms TTFT`` → ``"TTFT"`` (see :func:`cell_figure`)."""
    found = _qualified(cell.strip())
    return found[2] if found else ""


_SPACE_GROUPED = re.compile(r"^[*_]*\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,])")


def cell_figure(cell: str) -> tuple[str, str | None, str | None] | None:
    """``(number, unit or None, spread or None)`` when the cell *is* a figure (a number, maybe
    bold, with a unit and a ``±`` spread, maybe followed by a note in parentheses, maybe with
    words beside its unit that name its kind, as in ``69.3 output tok/s``: :func:`qualifier`);
    ``None`` for any other cell (a setting such as ``tp8``, a sentence, a difference).

    >>> cell_figure("69.26 output tok/s"), cell_figure("212 ms TTFT"), cell_figure("4 GPUs used")
    (('69.26', 'tok/s', None), ('212', 'ms', None), None)
    >>> cell_figure("6 840"), cell_figure("12\u202f345 tok/s")
    (('6840', None, None), ('12345', 'tok/s', None))
    """
    if is_delta(cell) and not _FIGURE.match(cell.replace("+", "", 0)):
        return None
    text = cell.strip()
    if text[:1] in "+−" or (text[:1] == "-" and text[1:2].isdigit()):
        return None
    grouped = _SPACE_GROUPED.match(text)
    if grouped:  # "6 840", "12 345 tok/s": thousands grouped by spaces, as French and SI write them
        text = re.sub(r"[ \u00a0\u202f]", "", grouped.group(0)) + text[grouped.end():]
    qualified = _qualified(text)
    if qualified is not None:
        return (qualified[0], qualified[1], None) if qualified[1] not in ("%", "x") else None
    found = _FIGURE.match(text)
    if not found:
        return None
    unit_text = found.group(3)
    unit = labels.unit_of(unit_text) if unit_text else None
    if unit_text and unit is None:
        return None  # "3.56 GiB", "8 GPUs": a setting, not a figure of the run
    if unit in ("%", "x"):
        return None
    return found.group(1).replace(",", ""), unit, found.group(2).replace(",", "") if found.group(2) else None


def mark(cell: str) -> str | None:
    """``"pass"`` or ``"fail"`` when the cell marks a run's result (an emoji mark, or a short cell
    of a word such as ``OOM``, ``failed``, ``crash``, ``ok``: at most two words, or four with a
    number, as in ``OOM at 32k``), else ``None``: a sentence that mentions a timeout is no mark."""
    text = cell.strip()
    if any(m in text for m in _FAIL_MARKS):
        return "fail"
    if any(m in text for m in _PASS_MARKS):
        return "pass"
    words = re.findall(r"[a-z]+", text.lower())
    if not words or len(words) > 6:
        return None
    short = len(words) <= 2 or (len(words) <= 4 and any(c.isdigit() for c in text))
    if words[0] in _STRONG_FAIL or (short and any(w in _STRONG_FAIL | _WEAK_FAIL for w in words)):
        return "fail"
    if errors.wrong_output(text):
        return "fail"  # "repeated tokens (the the the)": the run's output was wrong
    if short and words[0] in _PASS_WORDS:
        return "pass"
    return None


def fail_marked(text: str) -> str | None:
    """The words after a failure mark in a note (``92.1 tok/s ❌ garbage output`` → ``garbage
    output``), or ``None`` when the note carries no failure mark (an emoji cross)."""
    for sign in _FAIL_MARKS:
        if sign in text:
            after = text.split(sign, 1)[1].strip(" *_:—–-")
            return after.splitlines()[0].strip() if after else sign
    return None


def outcome_word(cell: str) -> str | None:
    """The outcome a short cell states in words (``Winner`` → ``improved``, ``slower`` →
    ``regressed``, ``same`` → ``neutral``), or ``None``: a tie-breaker for a run whose figures
    cannot decide.

    >>> outcome_word("Winner"), outcome_word("regressed"), outcome_word("≈ same"), outcome_word("tp8")
    ('improved', 'regressed', 'neutral', None)
    """
    words = re.findall(r"[a-z]+(?:-[a-z]+)*", cell.lower())  # "same-model" is no "same"
    if not words or len(words) > 4:
        return None
    for outcome, terms in _OUTCOME_WORDS.items():
        if words[0] in terms or (len(words) <= 2 and any(w in terms for w in words)):
            return outcome
    return None


_FORMULA = re.compile(r"\d\s*[×*/+−-]\s*\d[\d.,]*\s*(?:[a-zA-Z%/]+\s*)?=\s*[*_~≈]*\s*[\d.]")


def is_formula(cell: str) -> bool:
    """Whether a cell works a result out (``5.4 × 14.0 = **75 ms**``): a derived figure, no measure.

    >>> is_formula("5.4 × 14.0 = **75 ms**"), is_formula("2048 (default)")
    (True, False)
    """
    return bool(_FORMULA.search(cell))


_ANNOTATION = frozenset({"status", "state", "notes", "note", "comment", "comments", "remarks", "verdict", "assessment",
                         "health", "severity", "viable", "ok"})


def annotates(header: str) -> bool:
    """Whether a column header names an annotation of each row (``Status``, ``Notes``, ``Verdict``)
    rather than a configuration compared: its marks judge the row beside them.

    >>> annotates("Status"), annotates("API v2 (After)")
    (True, False)
    """
    words = re.findall(r"[a-z]+", header.lower())
    return bool(words) and all(w in _ANNOTATION for w in words)


def is_summary(cell: str) -> bool:
    """Whether a row's label says it sums up other rows or states a goal (``Total``, ``Average``,
    ``Difference``, ``Target``): such a row is no run.

    >>> is_summary("**Total debugging time**"), is_summary("Vllm TP=1")
    (True, False)
    """
    words = re.findall(r"[a-z]+", cell.lower())
    return bool(words) and words[0] in _SUMMARY


def without_mark(cell: str) -> str:
    """A mark cell's words after its verdict (``Failed - same error`` → ``same error``), or the cell."""
    text = re.sub(r"^[\s*_]*(?:[❌✗✘⛔🚫💥🔴✅✓✔☑🟢]|\b(?:" + "|".join(sorted(_STRONG_FAIL)) + r")\b)[\s*_:—–-]*", "",
                  cell.strip(), flags=re.I)
    return text.strip(" *_") or cell.strip(" *_")



def is_delta(cell: str) -> bool:
    """Whether the cell is a difference or ratio (``+9.1%``, ``−3.2``, ``1.35x``, ``12%``)."""
    return bool(_DELTA.match(cell.replace("**", "")))


def is_blank(cell: str) -> bool:
    """Whether the cell holds nothing measured yet (``—``, ``TBD``, ``pending``, ``N/A``)."""
    return cell.replace("*", "").replace("_", " ").strip().lower() in _BLANK


_BACK = frozenset({"same", "above", "previous", "again", "ditto", "earlier", "before", "likewise", "idem"})


def refers_back(text: str) -> bool:
    """Whether a cell's words point at an error given elsewhere (``same error``, ``as above``)
    instead of saying one.

    >>> refers_back("same error"), refers_back("incompatible with CUDA graphs")
    (True, False)
    """
    words = re.findall(r"[a-z]+", text.lower())
    return bool(words) and len(words) <= 4 and any(w in _BACK for w in words)


_MEASURED = re.compile(r"[~<>≈]?\s*\d[\d.,]*\s*(x|×|%|[A-Za-zµμ/]{1,8})?")


def measured(cell: str) -> bool:
    """Whether a cell is a number, maybe with a unit, a ratio or a share after it (``0.11x``,
    ``3.6s``, ``<1%``): something measured, never a configuration's name (``fp16``, ``tp8``).

    >>> [measured(c) for c in ("0.11x", "3.6s", "<1%", "fp16", "tp8", "8bit", "64KB")]
    [True, True, True, False, False, False, True]
    """
    found = _MEASURED.fullmatch(cell.strip())
    if not found:
        return False
    return (found.group(1) or "").lower() not in _WIDTHS  # "8bit", "4.65bpw": a quantization's name


_WIDTHS = frozenset({"bit", "bits", "bpw"})
"""Suffixes that make a number a quantization's width (``8bit``, ``4.65bpw``, as MLX and exllamav2
name their checkpoints): a configuration's name, not a measurement."""


def whole_number(cell: str) -> bool:
    """Whether a cell is a whole number and nothing else (``512``, ``16``): a knob's value as often as a count."""
    return bool(re.fullmatch(r"\d+", cell.strip()))


def decimal(cell: str) -> bool:
    """Whether a cell is a number with decimals, maybe emphasised or noted (``34.2``, ``**83.6**``,
    ``_83.62_ (fastest)``): how a measurement is written.

    >>> [decimal(c) for c in ("34.2", "**83.6**", "_83.62_ (fastest)", "512", "fp16")]
    [True, True, True, False, False]
    """
    return bool(re.fullmatch(r"[*_~]*\d+[.,]\d+[*_]*(?:\s*\(.*\))?", cell.strip()))


_SWITCH_WORDS = frozenset({"on", "off", "true", "false", "yes", "no", "enabled", "disabled", "enable", "disable"})


def switch_state(cell: str) -> bool:
    """Whether a cell is a knob's state: on or off (``on``, ``off``, ``true``, ``disabled``, a pass
    or fail mark standing for yes and no) or a bare number (``0``, ``2``, ``2048``), as a flag's
    or a threshold's column of a factorial table holds them; never a name (``Qwen3-8B``, ``fp16``).

    >>> [switch_state(c) for c in ("off", "**on**", "2", "✅", "Qwen3-8B", "fp16")]
    [True, True, True, True, False, False]
    """
    plain = cell.strip().strip("*_`").strip().lower()
    return plain in _SWITCH_WORDS or whole_number(plain) or decimal(plain) or plain in _FAIL_MARKS or plain in _PASS_MARKS


def file_name(cell: str) -> bool:
    """Whether a cell is a file's name (``rapport.txt``, ``jfk.wav``, ``prompts/a.jsonl``): what a
    run was measured on, not a setting.

    >>> [file_name(c) for c in ("rapport.txt", "jfk.wav", "Q4_K_M", "v0.11.0", "1.5")]
    [True, True, False, False, False]
    """
    return bool(re.fullmatch(r"[\w./-]*[A-Za-z_-][\w-]*\.[A-Za-z][A-Za-z0-9]{1,4}", cell.strip()))
