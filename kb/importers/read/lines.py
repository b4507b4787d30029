"""Output no tool reader knows: figures from ``name value unit`` lines only.

A run's own script often prints its results one a line: ``throughput: 1234.5 tok/s``,
``decode 41.2 tokens/s``, ``TTFT (ms): 45.2``, ``median_us=69.3``. A line gives a figure when it is
*only* a label, a number and a unit (the unit in the label's parentheses or after the number; a
``key=value`` whose key ends in its unit), so that a sentence mentioning a number is never read.
Figures named by :mod:`.labels`. These runs are ``documented=False``: worth less than a tool's
own output.

>>> run = read("step 3/3 done\\nthroughput: 1,234.5 tok/s\\nTTFT (ms): 45.2\\nmedian_us=69.3 tflops=488.2").runs[0]
>>> {name: (m.text, m.unit) for name, m in run.metrics.items()}
{'output_throughput': ('1234.5', 'tok/s'), 'ttft': ('45.2', 'ms'), 'median_us': ('69.3', 'us'), 'tflops': ('488.2', 'TFLOPS')}
>>> read("We got about 40 tok/s after the change, which is nice.").runs
[]
"""

from __future__ import annotations

import re
import statistics

from kb.importers.read import errors, labels, prose
from kb.importers.read.base import NUMBER, Measure, Readout, RunReading, number

TOOL = "lines"
SOURCES: dict[str, tuple[str, ...]] = {"IPython documentation, built-in magic commands (%time)": ("CPU times:",)}
"""No documented output but IPython's ``%time`` lines: the shape of a line alone decides."""

_LABEL = r"[^\W\d_][\w./ =+&-]{0,48}?"  # a name starts with a letter, any script
_LINE_LABEL = r"(?:\d+[^\W\d_]|[^\W\d_])[\w./ =+&()-]{0,48}?"
"""A line's own label may also start with a configuration's name (``8bit  Prompt:``) and hold a
note in parentheses (``Q8_0 (stock) pp512:``)."""
_UNIT = r"(?:[A-Za-zµμ%/]+(?:/[A-Za-z]+)*(?:-per-[A-Za-z]+)?|毫秒|微秒|秒)"  # tokens-per-sec: mlx_lm.generate
_FULL_COLON = "\uff1a"
"""The full-width colon CJK text writes after a name."""
_LABEL_ONLY = re.compile(rf"^\s*[-*>]?\s*([^:\uff1a\d][^:\uff1a]{{0,48}}?)\s*[:\uff1a]\s*({NUMBER})\s*$")
"""``name: number`` whose name carries the unit (``tokens per second: 78.11``, ``平均每秒回复token数量: 78.11``)."""
_NAME_VALUE_UNIT = re.compile(rf"^\s*[-*>|]?\s*({_LINE_LABEL})\s*(?:[:=]\s*|\s+)({NUMBER})\s*({_UNIT})\s*[|]?\s*$")
_NAME_UNIT_VALUE = re.compile(rf"^\s*[-*>|]?\s*({_LABEL})\s*[\(\[]\s*({_UNIT})\s*[\)\]]\s*[:=|]?\s*({NUMBER})\s*[|]?\s*$")
_VALUE_UNIT = re.compile(rf"^\s*({NUMBER})\s*({_UNIT})\s*$")
_QUALIFIED = re.compile(rf"^\s*(?:({_LABEL})\s*[:=]\s*)?({NUMBER})\s*({_UNIT})\s+([a-z][a-z ]{{0,24}}?)\s*$")
"""One figure of a comma-separated line with the words that qualify it after the unit
(``38.7 tok/s per request``, ``619.2 tok/s total``)."""
_SCOPED = re.compile(rf"^\s*[-*>]?\s*([\w.+-]{{1,32}}(?: \d+)?):\s+({_LABEL})\s+({NUMBER})\s*({_UNIT})(?:\s{{2,}}.*)?$")
"""A figure of one part of a run (``test-clean: WER 1.15%   errors 27``): the part, then a name
value unit line; columns after two spaces are the part's other counts."""
_QUALIFIER = re.compile(r"\s+(?:\([^()]{1,40}\)|(?:over|across|of|from|in)\s+\d+\s+(?:runs?|passes|iterations?|trials?|"
                        r"requests?|prompts?|samples?|repeats?))\s*$")
"""What a summary line may say after its unit about how it was summarised (``82.3 tok/s (mean of
passes 2-5)``, ``41.7 tok/s over 3 runs``); the figure is still the line's own."""
_IN_PARENS = re.compile(rf"\(\s*({NUMBER})\s*({_UNIT})\s*\)")
"""A figure in parentheses (``(115.915 tokens/sec)``), as a client script's status line prints several."""
_IPYTHON_TIME = "CPU times:"
"""The first line IPython's ``%time``/``%%time`` magic prints (``CPU times: user 91.5 ms, sys: 47 ms,
total: 139 ms``, then ``Wall time: 14.3 s``; IPython documentation, built-in magic commands)."""
_KEY_VALUE = re.compile(rf"(?<![\w.])([A-Za-z][A-Za-z0-9_]*)=({NUMBER})(?![\w.])")
_PAIR = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z0-9_]*)=([^\s,;=]+)")


def read(text: str, skip: set[int] | frozenset[int] = frozenset()) -> Readout:
    """Figures of an unknown output: a JSON document's keys that carry their unit (see
    :func:`read_json`), else the ``name value unit`` lines (see :func:`read_lines`)."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        found = read_json(stripped)
        if found.runs:
            return found
    return read_lines(text, skip)


def read_json(text: str) -> Readout:
    """One run from a JSON document no tool reader knows: every key, at any depth, whose name
    carries its unit (``tokens_per_second``, ``latency_ms``) gives a figure named by the key's
    words (``summary.tokens_per_second`` → ``output_throughput``); scalar values under other
    keys of the first two levels are the run's settings (at most 30)."""
    import json

    try:
        document = json.loads(text, parse_float=str)
    except ValueError:
        return Readout()
    run = RunReading(TOOL, documented=False, lines=(1, text.count("\n") + 1))

    def walk(value: object, path: list[str]) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, path + [str(key)])
            return
        if isinstance(value, list) or not path or isinstance(value, bool) or value is None:
            return
        named = labels.key_figure(path[-1])
        plain = number(str(value))
        if named and plain is not None:
            run.metrics.setdefault(named[0], Measure(plain, named[1], line=1,
                                                     generic=not labels.qualifies(" ".join(path), named[1])))
        elif len(path) <= 2 and len(run.settings) < 30 and len(str(value)) <= 80:
            run.settings.setdefault(path[-1], str(value))

    walk(document, [])
    return Readout([run]) if run.metrics else Readout()


def read_lines(text: str, skip: set[int] | frozenset[int] = frozenset()) -> Readout:
    """One run holding every ``name value unit`` figure of ``text`` outside the lines ``skip``
    (1-based), or nothing when there is none. A name seen twice keeps its last value (progress lines
    come first, the summary last); lines of
    ``key=value`` pairs that differ in some keys (``NCCL_ALGO=Ring bytes=4096 median_us=50.4``) also
    give each figure as a point named by those keys (``median_us[NCCL_ALGO=Ring,bytes=4096]``)."""
    run = RunReading(TOOL, documented=False)
    lines_seen: list[int] = []
    rows: list[tuple[int, dict[str, str], list[tuple[str, str, str, bool]]]] = []
    parts: dict[str, list[tuple[str, str]]] = {}  # the figures of named parts of the run (``rep 1: ...``)
    labelled: list[tuple[int, str, str, Measure]] = []  # (line, label, figure name, figure) of each figure line
    for number_, line in enumerate(text.splitlines(), 1):
        if number_ in skip or len(line) > 200:
            continue
        if any(word in line for word in errors.EXCEPTION_WORDS) and errors.exception_line(line):
            continue  # an exception's message quotes sizes (Tried to allocate 2.00 GiB): it measures nothing
        line, spreads = _spreads(line) if "±" in line or "+/-" in line or "+-" in line else (line, {})
        found = _figures(line)
        pairs = dict(_PAIR.findall(line))
        if found and len(pairs) > len(found):  # a key=value row: its other keys say which point it is
            rows.append((number_, {k: v for k, v in pairs.items() if k not in {n for n, *_ in found}}, found))
        scoped = _SCOPED.match(line) if not found else None
        if scoped:
            unit, value = labels.unit_of(scoped.group(4)), number(scoped.group(3))
            if unit and value is not None:
                name = labels.name_for(scoped.group(2), unit)
                generic = not labels.qualifies(scoped.group(2), unit)
                run.metrics.setdefault(name, Measure(value, unit, line=number_, generic=generic))  # the first part stands for the run
                run.metrics[f"{name}[{scoped.group(1)}]"] = Measure(value, unit, line=number_, generic=generic)
                parts.setdefault(name, []).append((scoped.group(1), value))
                lines_seen.append(number_)
        if not found and not scoped:
            found = _label_only(line)
        for name, value, unit, generic in found:
            label = line.replace(_FULL_COLON, ":").split(":")[0].strip()
            labelled.append((number_, label, name, Measure(value, unit, spreads.get(value), line=number_, generic=generic)))
            if name in run.metrics and name.endswith("throughput") and "[" not in name and labels.names_extreme(label):
                name = f"{name}[{label}]"  # "max tok/s" beside the mean: a side figure
            run.metrics[name] = Measure(value, unit, spreads.get(value), line=number_, generic=generic)  # the last: a summary ends a log
            lines_seen.append(number_)
    for name, passes in parts.items():  # "rep 1: ...", "rep 2: ...": passes of one run, whose figure is their mean
        stems = {labels.repetition_stem(part) for part, _ in passes}
        if len(passes) >= 2 and len(stems) == 1 and None not in stems:
            values = [float(v) for _, v in passes]
            places = max(len(v.split(".", 1)[1]) if "." in v else 0 for _, v in passes)
            first = run.metrics[name]
            run.metrics[name] = Measure(f"{statistics.fmean(values):.{places}f}", first.unit,
                                        f"{statistics.stdev(values):.{places}f}", line=first.line, generic=first.generic)
    varying = [key for key in dict.fromkeys(k for _, dims, _ in rows for k in dims)
               if len({dims.get(key) for _, dims, _ in rows}) > 1]
    if len(rows) > 1 and varying:
        for number_, dims, found in rows:
            point = ",".join(f"{key}={dims.get(key, '')}" for key in varying)
            for name, value, unit, generic in found:
                run.metrics[f"{name}[{point}]"] = Measure(value, unit, line=number_, generic=generic)
    out = Readout()
    arms = _arms(labelled)
    if arms:
        out.runs.extend(arms)
    elif run.metrics:
        run.lines = (min(lines_seen), max(lines_seen))
        out.runs.append(run)
    return out


def _arms(labelled: list[tuple[int, str, str, Measure]]) -> list[RunReading]:
    """One run per configuration when the figure lines name it before the measure (``8bit
    Prompt: 188.5 tokens-per-sec`` over ``8bit Generation: 10.6 tokens-per-sec``, then ``4bit
    ...``): a measure printed on several lines whose labels differ only in the words before the
    words they share, each such prefix naming a configuration (letters and digits together, or a
    version: ``8bit``, ``fp16``, ``v0.6.2``), not counting (``step 3``, ``gpu0``/``gpu1``, ``run 2``).
    ``[]`` for any other lines (one run: a name seen twice keeps its last value)."""
    by_name: dict[str, list[tuple[int, str]]] = {}
    for number_, label, name, _ in labelled:
        by_name.setdefault(name, []).append((number_, label))
    repeated = [entries for entries in by_name.values() if len(entries) >= 2]
    if not repeated:
        return []
    prefix_of: dict[int, str] = {}
    for entries in repeated:
        words = [label.split() for _, label in entries]
        shared = 0
        while shared < min(len(w) for w in words) and len({tuple(w[len(w) - shared - 1:]) for w in words}) == 1:
            shared += 1
        prefixes = [" ".join(w[:len(w) - shared]) for w in words]
        if shared == 0 or len(set(prefixes)) != len(prefixes) or not all(prefixes):
            return []
        for (number_, _), prefix in zip(entries, prefixes):
            prefix_of[number_] = prefix
    names = list(dict.fromkeys(prefix_of[n] for n, *_ in labelled if n in prefix_of))
    firsts = [name.split()[0] for name in names]
    if len(names) < 2 or not all(labels.configuration_word(word) for word in firsts) or labels.counting(firsts):
        return []
    runs = []
    for arm in names:
        run = RunReading(TOOL, settings={"row": arm}, documented=False)
        taken = [(n, name, m) for n, _, name, m in labelled if prefix_of.get(n) == arm]
        for _, name, measure in taken:
            run.metrics[name] = measure
        run.lines = (min(n for n, *_ in taken), max(n for n, *_ in taken))
        runs.append(run)
    return runs


_SPREAD = re.compile(rf"({NUMBER})\s*(?:±|\+/-|\+-)\s*({NUMBER})")
"""A value with its spread (``896.45 ± 45.97``, ``12.3 +/- 0.8``)."""


def _spreads(line: str) -> tuple[str, dict[str, str]]:
    """``line`` with each ``value ± spread`` written as the value alone, and value → spread."""
    spreads: dict[str, str] = {}

    def keep(match: re.Match[str]) -> str:
        spreads[match.group(1).replace(",", "")] = match.group(2).replace(",", "")
        return match.group(1)

    return _SPREAD.sub(keep, line), spreads


def _label_only(line: str) -> list[tuple[str, str, str, bool]]:
    """The figure of a ``name: number`` line whose name carries its unit (:data:`_LABEL_ONLY`), or
    of a worked ``name = arithmetic = result`` line (:data:`kb.importers.read.prose.WORKED`)."""
    found = _LABEL_ONLY.match(line) or prose.WORKED.match(line)
    if not found:
        return []
    unit, value = labels.unit_in_label(found.group(1)), number(found.group(2))
    if not unit or value is None or (unit in ("x", "%") and found.re is prose.WORKED):
        return []
    label = found.group(1)
    return [(labels.name_for(label, unit), value, unit, not labels.qualifies(label, unit))]


_KEYED_PAIR = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*)=(\S+)")
"""A ``key=value`` pair of a result line, its value as printed (``dur=2.37s``, ``tok_s=112.61``)."""
_VALUE_WITH_UNIT = re.compile(rf"^({NUMBER})([A-Za-z/µ]+)$")


def _keyed_line(line: str) -> list[tuple[str, str, str, bool]]:
    """The figures of a line of ``key=value`` pairs (``pp_tok_s=5312.44 tg_tok_s=112.61
    dur=2.37s``), each pair read alone: a bare number by the unit its key carries
    (:func:`kb.importers.read.labels.key_figure`), a number with a unit by that unit and its key.
    ``[]`` for a line with fewer than two pairs (it is read as a sentence is)."""
    pairs = _KEYED_PAIR.findall(line)
    if len(pairs) < 2:
        return []
    figures: list[tuple[str, str, str, bool]] = []
    for key, raw in pairs:
        raw = raw.rstrip(",;")
        value = number(raw)
        named = labels.key_figure(key) if value is not None else None
        if named and value is not None:
            figures.append((named[0], value, named[1], not labels.qualifies(key.replace("_", " "), named[1])))
            continue
        suffixed = _VALUE_WITH_UNIT.match(raw)
        unit = labels.unit_of(suffixed.group(2)) if suffixed else None
        if suffixed and unit and unit not in ("%", "x"):
            label = key.replace("_", " ")
            figures.append((labels.name_for(label, unit), number(suffixed.group(1)) or suffixed.group(1), unit,
                            not labels.qualifies(label, unit)))
    return figures


def _figures(line: str) -> list[tuple[str, str, str, bool]]:
    """``(name, value, unit, generic)`` of each figure a line gives (``± spread`` set aside: see
    :func:`_spreads`)."""
    keyed = _keyed_line(line)
    if keyed:
        return keyed
    found = _NAME_UNIT_VALUE.match(line)
    if found:
        unit = labels.unit_of(found.group(2))
        value = number(found.group(3))
        if unit and value is not None:
            return [(labels.name_for(found.group(1), unit), value, unit, not labels.qualifies(found.group(1), unit))]
    bare = _QUALIFIER.sub("", line)
    found = _NAME_VALUE_UNIT.match(bare) if bare != line else _NAME_VALUE_UNIT.match(line)
    if found:
        unit = labels.unit_of(found.group(3))
        value = number(found.group(2))
        label_end = found.group(1).split()[-1] if found.group(1).split() else ""
        led = found.group(1)[:1].isdigit() and not any(labels.is_qualifier(w) for w in re.findall(r"[^\W\d_]+", found.group(1)))
        # ("2x L40S 48GB": a label led by a number names the measure after it, as "8bit Prompt:" does)
        if unit and value is not None and not led and (not label_end[-1:].isdigit() or labels.is_test_name(label_end)):
            return [(labels.name_for(found.group(1), unit), value, unit, not labels.qualifies(found.group(1), unit))]
    grouped = [(number(v), labels.unit_of(u)) for v, u in _IN_PARENS.findall(line)]
    if len(grouped) >= 2 and not _IN_PARENS.sub("", line).strip(" .:-|")[-1:].isdigit():
        # "<stream complete> (14.278 sec) (1655 tokens) (115.915 tokens/sec)": a status line's figures
        return [(labels.name_for("", unit), value, unit, True) for value, unit in grouped if unit and value is not None]
    if line.lstrip().startswith(_IPYTHON_TIME):
        return []  # IPython's %time: the process's CPU time, not the run's latency ("Wall time" is read)
    figures = []
    parts = [p for p in re.split(r"[,;]\s+", line) if p.strip()]
    if len(parts) > 1:  # "prefill 7340.2 t/s, 3.1 req/s": several figures, each with its words
        for part in parts:
            found = _NAME_VALUE_UNIT.match(part) or _VALUE_UNIT.match(part) or _QUALIFIED.match(part)
            if not found:
                continue
            if found.re is _QUALIFIED:
                label, value_text, unit_text = f"{found.group(1) or ''} {found.group(4)}".strip(), found.group(2), found.group(3)
            elif found.re is _NAME_VALUE_UNIT:
                label, value_text, unit_text = found.group(1), found.group(2), found.group(3)
            else:  # "Generation: 256 tokens, 71.8 tokens-per-sec": the line's name names a bare part
                label, value_text, unit_text = line.split(":", 1)[0].strip() if ":" in parts[0] else "", found.group(1), \
                    found.group(2)
            unit, value = labels.unit_of(unit_text), number(value_text)
            if unit and value is not None:
                figures.append((labels.name_for(label, unit), value, unit, not labels.qualifies(label, unit)))
        if figures:
            return figures
    for key, value in _KEY_VALUE.findall(line):
        named = labels.key_figure(key)
        plain = number(value)
        if named and plain is not None:
            figures.append((named[0], plain, named[1], not labels.qualifies(key.replace("_", " "), named[1])))
    return figures
