"""Prose: a paragraph, a list item, a table cell or a chat message, as Markdown writes it.

What the scoring stage needs from text: its plain form (emphasis, code backticks and link targets
dropped), its sentences and a short title, the figures it quotes (:func:`figures`: a number
followed by a unit kb records, named by the words just before it; ``from 54.1 to 96.1 tok/s``
and ``54.1 → 96.1 tok/s`` give both figures, the first as the one changed from), the code spans
and ``--flags`` it writes (signs of a configuration), and a signed percentage (``+9.1%``).

>>> [(f.name, f.text, f.unit, f.previous) for f in figures("EAGLE-3 went from 54.1 to 96.1 tok/s (+77.6%)")]
[('output_throughput', '96.1', 'tok/s', '54.1')]
>>> [(f.name, f.text) for f in figures("prefill **1,234 tokens/s**, decode 41.2 t/s; about 200 µs on PCIe")]
[('input_throughput', '1234'), ('output_throughput', '41.2'), ('latency', '200')]
>>> title_of("Now run the baseline again. Then try `--tp 4` with graphs.")
'Try --tp 4 with graphs'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.importers.read import labels
from kb.importers.read.base import NUMBER, decimal_points

SOURCES = {"CommonMark inline syntax (emphasis, code spans, links)": ()}
"""What the rules rest on."""

_UNIT_WORDS = "|".join(re.escape(u) for u in sorted((k for k, v in labels.UNITS.items() if v and v not in ("GiB", "GB", "MB")),
                                                     key=len, reverse=True)) + "|TFLOPs"
"""Every throughput, latency, bandwidth, rate and ratio spelling :data:`kb.importers.read.labels.UNITS`
knows (sizes aside: a figure in prose in GB is a model's size as often as a measurement), longest first."""
_KIND = r"(?:output|input|prompt|generated|generation|decode|decoding|prefill|total)"
"""A word between a figure and its unit that says which throughput it is (``3,480 output tok/s``)."""
_FIGURE = re.compile(rf"(?<![\w.,/])~?\s*({NUMBER})\s*(?:\*\*)?\s*(?:{_KIND}\s+)?({_UNIT_WORDS})(?![\w/])", re.I)
_FROM_TO = re.compile(rf"(?<![\w.,])({NUMBER})\s*(?:{_UNIT_WORDS})?\s*(?:\*\*)?\s*(?:→|->|=>|\bto\b)\s*(?:\*\*)?\s*~?({NUMBER})\s*(?:\*\*)?\s*({_UNIT_WORDS})(?![\w/])", re.I)
_SIGNED = re.compile(rf"(?<![\w.])([+\-−])\s?({NUMBER})\s?%")
_APPROXIMATE = re.compile(r"(?:[~≈]|\b(?:about|around|roughly|approximately|approx\.?|circa|nearly))\s*$", re.I)
_CLAUSE_END = re.compile(r"[,;:(\[|→⇒]|\.\s|—|–")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)|`")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_CODE = re.compile(r"`([^`\n]+)`")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LEAD = re.compile(r"^(?:now|next|then|so|first|finally|also|ok|okay)\b,?\s*", re.I)


@dataclass(frozen=True)
class ProseFigure:
    """A figure quoted in text: ``name`` (from :mod:`.labels`), ``text`` (digits as written),
    ``unit``, ``label`` (the words before it), ``start``/``end`` (its place in the text),
    ``previous`` (the figure it changed from, in ``from X to Y``), ``approximate`` (``~``) and
    ``spread`` (``41.62±0.43 tok/s``: the value is 41.62, its spread 0.43)."""

    name: str
    text: str
    unit: str
    label: str
    start: int
    end: int
    previous: str | None = None
    approximate: bool = False
    spread: str | None = None

    @property
    def generic(self) -> bool:
        """Whether its words do not say which kind of figure of its unit it is."""
        return not labels.qualifies(self.label, self.unit)


def plain(text: str) -> str:
    """``text`` without emphasis markers, code backticks and link targets."""
    return _EMPHASIS.sub("", _LINK.sub(r"\1", text)).strip()


def code_spans(text: str) -> list[str]:
    """The inline code spans of ``text``, in order."""
    return _CODE.findall(text)


def _label_before(text: str, at: int) -> str:
    """The words that name the figure at ``at``: those since the last clause break, or, for
    ``FA on: 41 tok/s``, the clause the colon ends; a phase the colon ends (``Process:``) comes
    before words that name none (``0 cached tokens and 2048 new tokens at``). At most six words."""
    head = text[:at]
    ends = [m for m in _CLAUSE_END.finditer(head)]
    start = ends[-1].end() if ends else 0
    words = plain(head[start:]).split()
    if ends and ends[-1].group(0) == ":" and not any(labels.is_qualifier(w.strip(",.")) for w in words):
        clause = head[:ends[-1].start()]
        breaks = [m.end() for m in _CLAUSE_END.finditer(clause) if m.group(0) not in "(["]
        named = plain(clause[breaks[-1] if breaks else 0:]).split()
        if not words:
            words = named
        elif len(named) <= 2 and any(labels.is_qualifier(w) for w in named):
            words = named + words[-(6 - len(named)):]  # "Process: 0 cached tokens and 2048 new tokens at"
    return " ".join(words[-6:])


_PLUS_MINUS = re.compile(rf"({NUMBER})\s*(?:±|\+/-|\+-)\s*$")


_COUNTED = frozenset({"tokens", "token", "new", "cached"})
"""Words after a number that make it a count of tokens, not a setting's value (``Process 1843 new
tokens at 640.7 T/s``, as exllamav2's metrics line writes)."""


def _measure_words(label: str) -> str:
    """The words of a figure's label that may name its measure: those after the last setting's
    value (``Ollama 0.6.2 prompt eval rate`` → ``prompt eval rate``), none when the label ends in
    one (``chunked prefill 4096``, ``--tp 8``); a llama-bench test such as ``pp512``, a
    statistic such as ``p99`` or a count of tokens (:data:`_COUNTED`) is no setting. A label
    without a setting is kept whole."""
    words = label.split()
    settings = [at for at, w in enumerate(words) if w.startswith("--") or (
        any(c.isdigit() for c in w) and not labels.is_test_name(w) and not labels.is_statistic(w)
        and (at + 1 >= len(words) or words[at + 1].lower() not in _COUNTED))]
    if not settings:
        return label
    return " ".join(words[settings[-1] + 1:])


def figures(text: str) -> list[ProseFigure]:
    """The figures ``text`` quotes, in order (see the module docstring); percentages and ratios
    (``%``, ``x``) are left out: they compare, they do not measure. Decimal commas (``77,6
    tok/s``) read as points (:func:`kb.importers.read.base.decimal_points`)."""
    text = decimal_points(text)
    found: list[ProseFigure] = []
    taken: list[tuple[int, int]] = []
    for match in _FROM_TO.finditer(text):
        unit = labels.unit_of(match.group(3))
        if unit is None or unit in ("%", "x"):
            continue
        label = _label_before(text, match.start())
        found.append(ProseFigure(labels.name_for(_measure_words(label), unit), match.group(2).replace(",", ""), unit, label,
                                 match.start(2), match.end(), previous=match.group(1).replace(",", "")))
        taken.append((match.start(), match.end()))
    for match in _FIGURE.finditer(text):
        if any(a <= match.start(1) < b for a, b in taken):
            continue
        before = text[max(0, match.start(1) - 2):match.start(1)]
        if len(before) == 2 and before[1] in "-–" and before[0].isdigit():
            continue  # the end of a range ("10-15 ms"): no one figure
        bound = text[max(0, match.start(1) - 16):match.start(1)].rstrip()
        if bound[-1:] in ("<", ">", "≤", "≥") or bound[-2:] in (">=", "<=") or _BOUND_WORDS.search(bound):
            continue  # a bound ("<1 µs", "Goal: >= 2,000 tok/s", "at least 40 tok/s"), not a measurement
        unit = labels.unit_of(match.group(2))
        if unit is None or unit in ("%", "x"):
            continue
        if unit == "s" and match.group(2).lower() not in ("s", "sec", "seconds"):
            continue
        value, spread, start = match.group(1).replace(",", ""), None, match.start(1)
        plus_minus = _PLUS_MINUS.search(text[max(0, start - 40):start])
        if plus_minus:  # "41.62±0.43 tok/s": the number before ± is the figure, the one after its spread
            value, spread, start = plus_minus.group(1).replace(",", ""), value, max(0, start - 40) + plus_minus.start(1)
        label = _label_before(text, start)
        kind = re.match(rf"\s*(?:\*\*)?\s*({_KIND})\s", text[match.end(1):match.start(2)] + " ", re.I)
        after = re.match(r"\s+([A-Za-z][\w-]*)", text[match.end():])
        if kind is None and after and unit == "tok/s" and labels.is_qualifier(after.group(1)):
            kind = after  # "193.46 t/s prefill", "9.46 t/s tg128": the word after the unit names the figure
        words = f"{_measure_words(label)} {kind.group(1)}".strip() if kind else _measure_words(label)
        found.append(ProseFigure(labels.name_for(words, unit), value, unit, label,
                                 start, match.end(), approximate="~" in match.group(0)[:2]
                                 or _APPROXIMATE.search(text[max(0, start - 16):start]) is not None, spread=spread))
    found.extend(f for f in _unit_in_label(text) if not any(o.start <= f.start < o.end for o in found))
    found.extend(f for f in _keyed(text) if not any(o.start <= f.start < o.end for o in found))
    found.sort(key=lambda f: f.start)
    return found


_BOUND_WORDS = re.compile(r"\b(?:at\s+least|at\s+most|no\s+more\s+than|no\s+less\s+than)$", re.I)

_KEYED = re.compile(rf"(?<![\w-])([A-Za-z][\w.]*)=({NUMBER})(?![\w.%/])")


def _keyed(text: str) -> list[ProseFigure]:
    """The rates of ``key=value`` pairs whose keys carry the unit (``tok_s=115.18``,
    ``out_tok_s=611.4``, ``req_s=2.35``: :func:`kb.importers.read.labels.key_figure`), as a script's
    result line prints them; other keys (``dur=``, ``timeout_s=``, ``--max-num-seqs=``) are settings
    as often as measures and are left to the figure's own unit."""
    found: list[ProseFigure] = []
    for match in _KEYED.finditer(text):
        named = labels.key_figure(match.group(1))
        if named and named[1] in labels.RATE_UNITS:
            found.append(ProseFigure(named[0], match.group(2).replace(",", ""), named[1], match.group(1),
                                     match.start(2), match.end()))
    return found


WORKED = re.compile(rf"^[\s*_>-]*([^\W\d_][^=:\n]{{0,40}}?)[\s*_]*=\s*{NUMBER}(?:\s*[*/×x+−-]\s*{NUMBER})+\s*=\s*({NUMBER})[\s*_.]*$")
"""``Tokens per Second = 4 * 256 * 1000 / 24750.0 = 41.37``: a figure worked out in the notes, its
name carrying the unit, the result after the last ``=``."""
_LABEL_NUMBER = re.compile(rf"^[\s*_>-]*([^\W\d_][^:\n]{{0,40}}?)[\s*_]*:[\s*_]*({NUMBER})[\s*_]*$")


def _unit_in_label(text: str) -> list[ProseFigure]:
    """The figures of ``name: number`` clauses (one a line, or separated by ``;``) whose names
    carry the unit (``Output tok/s: 4310.7``, ``TTFT (ms): 45``), as a script's result lines are
    pasted into a list; sizes and ratios aside, as for any figure in prose."""
    found: list[ProseFigure] = []
    at = 0
    for clause in re.split(r"(;|\n)", text):
        if clause not in (";", "\n"):
            match = _LABEL_NUMBER.match(clause) or WORKED.match(clause)
            unit = labels.unit_in_label(plain(match.group(1))) if match else None
            if match and unit and unit not in ("%", "x", "GiB", "GB", "MB"):
                label = plain(match.group(1)).strip()
                found.append(ProseFigure(labels.name_for(_measure_words(label), unit), match.group(2).replace(",", ""),
                                         unit, label, at + match.start(2), at + match.end(2)))
        at += len(clause)
    return found


_VERSION = re.compile(r"v?\d+(?:\.\d+)+[a-z]?\W*", re.I)


def is_version(word: str) -> bool:
    """Whether a word is a release's version (``0.4.7``, ``v2.1``, ``12.8``), maybe followed by
    punctuation; a bare number or a build number without dots (``b4500``) is not one.

    >>> [is_version(w) for w in ("0.4.7", "v2.1:", "[0005]", "2")]
    [True, True, False, False]
    """
    return bool(_VERSION.fullmatch(word))


def signed_percent(text: str) -> float | None:
    """The first signed percentage ``text`` writes (``+9.1%`` → 9.1, ``−12 %`` → -12.0), or ``None``."""
    match = _SIGNED.search(text)
    if not match:
        return None
    value = float(match.group(2).replace(",", ""))
    return -value if match.group(1) in "-−" else value


def sentences(text: str) -> list[str]:
    """The sentences of ``text``'s plain form."""
    return [s.strip() for s in _SENTENCE.split(plain(text)) if s.strip()]


def first_paragraph(text: str) -> str:
    """The first paragraph of ``text`` (up to its first blank line)."""
    return re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0].strip()


def title_of(text: str, limit: int = 80) -> str:
    """A title from a narration: its last sentence (the one just before a run says what runs),
    without a leading "Now"/"Next"/"Then", at most ``limit`` characters; ``""`` for no text."""
    parts = sentences(first_paragraph(text) if "\n\n" in text.strip() else text)
    title = (parts[-1] if parts else "").strip().rstrip(".:")
    title = _LEAD.sub("", _LEAD.sub("", title))
    title = title[:1].upper() + title[1:]
    if len(title) > limit:
        title = title[:limit].rsplit(" ", 1)[0]
    return title


def first_sentence(text: str, limit: int = 100) -> str:
    """The first sentence of ``text``'s plain form, at most ``limit`` characters."""
    parts = sentences(text)
    return (parts[0].rstrip(".:") if parts else "")[:limit].strip()


def words(text: str) -> list[str]:
    """The lower-case words of ``text`` (letters and digits)."""
    return re.findall(r"[a-z0-9][a-z0-9+.-]*", text.lower())


def shape(text: str) -> str:
    """``text`` with each number that stands apart from letters written as ``#``: two names of one
    shape differ only in the amounts they were run at (``asynchronous@1.00 req/sec`` and
    ``asynchronous@8.00 req/sec``; ``bs=8``, ``bs=64``); a number inside a name (``fp8``, ``Qwen3-8B``)
    stays.

    >>> shape("asynchronous@1.00 req/sec") == shape("asynchronous@16.00 req/sec"), shape("fp8") == shape("fp16")
    (True, False)
    >>> shape("1 user") == shape("16 users"), shape("4k ctx") == shape("32k ctx")
    (True, True)
    """
    return _PLURAL.sub(r"\1", _AMOUNT.sub("#", text.strip().lower()))


_PLURAL = re.compile(r"(# [a-z]{2,}?)s\b")
"""A plural ``s`` on the word right after an amount (``1 user``, ``16 users``: one word)."""

_AMOUNT = re.compile(r"(?<![a-z])\d+(?:[.,]\d+)*k?(?![a-z])")
"""A number standing apart from letters, a thousands ``k`` after it allowed (``4k ctx``)."""


def amount_value(amount: str) -> float:
    """An amount of :func:`amounts` as a number (``"2k"`` is 2000, ``"1,024"`` 1024).

    >>> amount_value("2k"), amount_value("1,024"), amount_value("0.5")
    (2000.0, 1024.0, 0.5)
    """
    scale = 1000.0 if amount.endswith("k") else 1.0
    return float(amount.rstrip("k").replace(",", "")) * scale


def amounts(text: str) -> list[str]:
    """The numbers of ``text`` that stand apart from letters (what :func:`shape` writes as ``#``).

    >>> amounts("max 32 tokens"), amounts("Qwen3-8B bs 16")
    (['32'], ['16'])
    """
    return _AMOUNT.findall(text.strip().lower())


def normalised(text: str) -> str:
    """``text`` lower-cased without spaces or punctuation, for matching names as people write
    them (``Kimi K2.5`` and ``Kimi-K2.5`` are ``kimik25``)."""
    return re.sub(r"[\W_]+", "", text.lower())


_FAILURE_WORDS = re.compile(r"\b(?:failed|fails|failure|crash(?:ed|es)?|segfault(?:ed)?|OOM|out of memory|aborted|"
                            r"hangs?|hung|timed out|does not (?:build|compile|load|start|run)|won't (?:build|start|load)|"
                            r"error(?=:))", re.I)
_NEGATORS = frozenset({"no", "not", "without", "never", "didn't", "doesn't", "won't", "nor", "nothing", "none",
                       "zero", "neither", "wasn't", "weren't", "isn't", "hasn't", "haven't"})
"""Words that say what follows them, within its clause, did not happen (``nothing errored or crashed``)."""
_LEAD_LABEL = re.compile(r"^\s*(?:[A-Za-z][\w ]{0,20}:\s+)")


def failure_clause(text: str) -> str | None:
    """The line of a note that says a try failed (``outcome: build failed while compiling
    kernel-cpu``), its label and Markdown removed, or ``None`` when no line says so.

    >>> failure_clause("- outcome: build failed while compiling `kernel-cpu`; option mismatch.")
    'build failed while compiling kernel-cpu; option mismatch'
    >>> failure_clause("compact decode was about 7.7 tok/s") is None
    True
    """
    for line in text.splitlines():
        clean = plain(line.strip().lstrip("-*+ ").strip())
        for found in _FAILURE_WORDS.finditer(clean):
            clause = re.split(r"[,;:.!?]|\bbut\b|\bthen\b", clean[:found.start()].lower())[-1]
            if any(w.strip("*_`") in _NEGATORS for w in clause.split()[-4:]):
                continue  # "no crash", "nothing errored or crashed": the line says it did not fail
            return _LEAD_LABEL.sub("", clean).strip().rstrip(".")
    return None


METRIC_LINE_WORDS = 8
"""At most this many words in a ``name: value`` line (``Output Throughput: 138.03 tok/s``)."""


def metric_line(text: str) -> bool:
    """Whether ``text`` is one ``name: value`` line of a measurement (``Latency: 0.51s``,
    ``Input Throughput: N/A``): a single line, a short name, a colon, at most one figure. A list
    of such lines under an item gives that item's figures."""
    stripped = plain(text).replace("\uff1a", ":")  # a full-width colon, as CJK text writes it
    if "\n" in stripped or ":" not in stripped or len(stripped.split()) > METRIC_LINE_WORDS:
        return False
    name, _, value = stripped.partition(":")
    return bool(name.strip()) and bool(value.strip()) and len(figures(stripped)) <= 1


def labelled_value(text: str) -> tuple[str, str] | None:
    """``(name, value)`` of a one-line ``name: value`` or ``name = value`` text (``Model:
    `deepseek-r1:7b```, ``model_name = mistral:7b``; markup and code backticks dropped, split at
    the first separator), or ``None`` for any other text."""
    stripped = plain(text)
    if "\n" in stripped or len(stripped.split()) > METRIC_LINE_WORDS:
        return None
    at = min((stripped.find(sep) for sep in ":=" if sep in stripped), default=-1)
    if at <= 0:
        return None
    name, value = stripped[:at].strip(), stripped[at + 1:].strip()
    return (name, value) if name and value else None
