"""Naming a figure from the words of its label: the field's metric terms and unit spellings.

Used wherever a figure comes with a label a person or an unknown script wrote: a table header
(``Output tok/s``, ``TTFT (ms)``, ``pp512``), a ``name value unit`` line (``decode throughput:
41.2 tok/s``), a ``key=value`` pair whose key carries its unit (``median_us=69.3``). The terms are
the field's standard ones (vLLM's and SGLang's benchmark labels, llama-bench's test names,
nccl-tests' columns, MLPerf's TTFT/TPOT): output throughput is decode, generation, ``tg``, eval
(Spanish *salida*, German *Ausgabe*, French *sortie*); input throughput is prefill, prompt
processing, ``pp`` (*entrada*, *Eingabe*, *entrée*); a latency is named by its kind (TTFT, TPOT,
ITL, end-to-end) and statistic (mean, median, p99).

>>> unit_of("tokens/s"), unit_of("t/s"), unit_of("µs"), unit_of("GiB/s"), unit_of("furlongs")
('tok/s', 'tok/s', 'us', 'GB/s', None)
>>> name_for("Output tok/s", "tok/s"), name_for("Prompt processing", "tok/s"), name_for("Median TTFT", "ms")
('output_throughput', 'input_throughput', 'median_ttft')
>>> header_figure("TTFT (ms)"), header_figure("pp512"), header_figure("Config")
(('ttft', 'ms'), ('input_throughput', 'tok/s'), None)
"""

from __future__ import annotations

import re

SOURCES = {
    "vLLM and SGLang benchmark labels, llama-bench test names, nccl-tests columns (see the tool readers)": (),
}
"""Where the terms come from: the documented outputs the tool readers cite."""

UNITS: dict[str, str | None] = {
    "tok/s": "tok/s", "tokens/s": "tok/s", "token/s": "tok/s", "tokens/sec": "tok/s", "tok/sec": "tok/s",
    "t/s": "tok/s", "tps": "tok/s", "tokens per second": "tok/s", "tokens/second": "tok/s", "tk/s": "tok/s",
    "toks/s": "tok/s", "tokens/sec/user": "tok/s", "tok/s/user": "tok/s", "tps/user": "tok/s",
    "tokens-per-sec": "tok/s", "tokens-per-second": "tok/s",  # mlx_lm.generate: "Generation: 256 tokens, 71.8 tokens-per-sec"
    "tokens/seconde": "tok/s", "token/seconde": "tok/s", "tokens/sekunde": "tok/s", "token/sekunde": "tok/s",
    "tokens/segundo": "tok/s", "tokens/secondo": "tok/s",
    "req/s": "req/s", "requests/s": "req/s", "requests/sec": "req/s", "req/sec": "req/s", "rps": "req/s",
    "ms": "ms", "msec": "ms", "milliseconds": "ms",
    "s": "s", "sec": "s", "secs": "s", "seconds": "s", "秒": "s", "毫秒": "ms", "微秒": "us",
    "us": "us", "µs": "us", "μs": "us", "usec": "us", "microseconds": "us",
    "gb/s": "GB/s", "gib/s": "GB/s", "gbps": None, "gb/sec": "GB/s",
    "tflops": "TFLOPS", "tflop/s": "TFLOPS", "tflops/s": "TFLOPS",
    "it/s": "it/s", "its/s": "it/s", "iter/s": "it/s",
    "%": "%", "x": "x",
    "gib": "GiB", "gb": "GB", "mib": "MB", "mb": "MB",
}
"""Unit spellings (lower case) → the :data:`kb.models.UNITS` spelling (``None``: a unit kb does not
record, such as Gbps, which is bits)."""

_UNIT_IN_LABEL = re.compile(r"[\(\[]\s*([^()\[\]]{1,20}?)\s*[\)\]]\s*$")
_TEST = re.compile(r"^(pp|tg)\s*(\d+)$", re.I)
_PHASE_RATE = re.compile(r"^(pp|tg)\s*/\s*s(?:ec)?$", re.I)
_WORDS = re.compile(r"[a-z0-9]+")
_STAT = {"mean": "mean", "avg": "mean", "average": "mean", "median": "median", "med": "median", "p50": "p50",
         "p90": "p90", "p95": "p95", "p99": "p99", "p999": "p999", "max": "max", "min": "min", "std": "std",
         "peak": "peak"}
_LATENCY = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e_latency", "e2e": "e2e_latency",
            "tbt": "itl"}
_OUTPUT = {"output", "decode", "decoding", "generation", "gen", "generate", "generating", "tg", "eval", "completion",
           "salida", "ausgabe", "sortie", "generación", "generierung", "génération"}
_INPUT = {"prefill", "prompt", "input", "pp", "pp512", "ingest", "encode", "process", "processing", "entrada", "eingabe",
          "entrée"}
"""Words of the input (prompt) phase; ``Process`` as exllamav2 and TabbyAPI write it in their metrics line
(``Process: 0 cached tokens and 1843 new tokens at 702.4 T/s, Generate: 21.44 T/s``)."""
_TOTAL = {"total", "combined"}
"""Words that name a throughput of input and output tokens together (SGLang's ``Total token
throughput``); ``Overall Throughput`` (SGLang's ``bench_one_batch_server``) is one too, while a
bare ``overall: 62.3 tok/s`` sums up the run's own measure."""
_SUFFIX_UNITS = {"ms": "ms", "us": "us", "s": "s", "tflops": "TFLOPS", "gbps": None, "tps": "tok/s"}


def counts_passes(name: str) -> bool:
    """Whether a column's header names the passes of one measurement (``Run``, ``Trial``, ``Rep``,
    ``Iteration``; a numbering column, ``#``, counts items instead).

    >>> counts_passes("Trial"), counts_passes("#"), counts_passes("Batch")
    (True, False, False)
    """
    words = _WORDS.findall(name.lower())
    return bool(words) and words[0] in ("run", "runs", "iteration", "iter", "trial", "rep", "repeat", "repetition",
                                        "pass", "durchlauf", "lauf", "messung", "essai", "passage", "ejecucion",
                                        "corrida", "prova")


def configuration_word(word: str) -> bool:
    """Whether a word that names a line or a row names a configuration by letters and digits
    together (``FP16``, ``8bit``, ``Q4_K_M``, ``tp2``) or a version (``v0.6.2``), rather than
    counting passes (``run3``, ``iter12``) or being a number alone.

    >>> [configuration_word(w) for w in ("FP16", "8bit", "v0.6.2", "run3", "12", "decode")]
    [True, True, True, False, False, False]
    """
    word = word.strip(":,()[]")
    letters = "".join(ch for ch in word if ch.isalpha())
    digits = any(ch.isdigit() for ch in word)
    if digits and re.fullmatch(r"v?\d+(?:\.\d+)+", word, re.I):
        return True
    return bool(letters) and digits and not counts_passes(letters) and not is_statistic(word)


def counting(words: list[str]) -> bool:
    """Whether words of one place in several lines count (``gpu0``, ``gpu1``, ``gpu2``; ``rank1``,
    ``rank2``): the same letters, numbers in a row from 0 or 1, as a program numbers its devices.

    >>> counting(["gpu0", "gpu1"]), counting(["8bit", "6bit", "4bit"]), counting(["FP16", "FP8"])
    (True, False, False)
    """
    letters = {"".join(ch for ch in w if not ch.isdigit()) for w in words}
    numbers = sorted(int(digits) for w in words if (digits := "".join(ch for ch in w if ch.isdigit())))
    return len(letters) == 1 and len(numbers) == len(words) and numbers[0] in (0, 1) and \
        numbers == list(range(numbers[0], numbers[0] + len(numbers)))


def repetitions(name: str, cells: list[str]) -> bool:
    """Whether a column counts the passes of one measurement (headed ``Run``, ``Iteration``,
    ``Trial``, ``Rep``, ``Pass``) or numbers the items it ran over (``#``, ``№``, ``No.``), its
    cells the numbers 1, 2, 3 ... (a warm-up note allowed). Within blocks of another setting the
    caller decides; rows that each name another configuration stay apart there.

    >>> repetitions("Run", ["1 (warmup)", "2", "3"]), repetitions("K", ["1", "2"]), repetitions("Run", ["a", "b"])
    (True, False, False)
    >>> repetitions("trial", ["1", "2", "3", "mean"])
    True
    """
    numbering = name.strip().strip("*_").strip().lower() in ("#", "№", "no", "no.", "nr", "nr.", "n°", "idx", "index")
    if not numbering and not counts_passes(name):
        return False
    while cells and central_statistic(cells[-1]):
        cells = cells[:-1]  # the passes' own mean or median, printed after them
    numbers = [re.match(r"\s*#?(\d+)", cell) for cell in cells]
    return bool(cells) and all(numbers) and [int(m.group(1)) for m in numbers if m] == list(range(1, len(cells) + 1))


_LOWER_IS_BETTER = frozenset({"wer", "cer", "perplexity", "loss", "error_rate"})
"""Figures of a unit where more is better (percent, a plain number) that are better lower: error
rates (word and character error rate), perplexity, a loss."""


def better_lower(name: str) -> bool:
    """Whether a figure named ``name`` (``wer``, ``wer[test-clean]``) is better lower although its
    unit (``%``) is not.

    >>> better_lower("wer[test-clean]"), better_lower("accuracy")
    (True, False)
    """
    return name.split("[", 1)[0] in _LOWER_IS_BETTER


def names_result(header: str) -> bool:
    """Whether a table header names the column where each row's result is written (``Outcome``,
    ``Result``, ``Status``, ``Verdict``), rather than a description (``Impact``, ``Why``).

    >>> names_result("Outcome"), names_result("**Result**"), names_result("Impact")
    (True, True, False)
    """
    words = _WORDS.findall(header.lower())
    return bool(words) and words[0] in ("outcome", "outcomes", "result", "results", "status", "verdict")


_TEST_CELL = re.compile(r"^(pp|tg)\s*\d+(?:\s*@\s*d\d+)?(?:\s*\+\s*(?:pp|tg)\d+)?$", re.I)


def unit_of_test(cell: str) -> str | None:
    """``tok/s`` when a cell is a llama-bench test (``pp512``, ``tg128 @ d4096``, ``pp512+tg128``),
    whose figures llama-bench prints in tokens per second (its ``t/s`` column); else ``None``.

    >>> unit_of_test("pp512 @ d1024"), unit_of_test("tg128"), unit_of_test("batch 8")
    ('tok/s', 'tok/s', None)
    """
    return "tok/s" if _TEST_CELL.match(cell.strip()) else None


def is_test_name(word: str) -> bool:
    """Whether ``word`` is a llama-bench test name (``pp512``, ``tg128``)."""
    return bool(_TEST.match(word.strip()))


def central_statistic(cell: str) -> bool:
    """Whether a cell names the mean or the median of the rows beside it (``mean``, ``**Avg**``).

    >>> central_statistic("mean"), central_statistic("**Median**"), central_statistic("p99")
    (True, True, False)
    """
    words = _WORDS.findall(cell.lower())
    return len(words) == 1 and _STAT.get(words[0]) in ("mean", "median")


def is_statistic(cell: str) -> bool:
    """Whether a cell names a statistic of a distribution (``Min``, ``P50``, ``Mean``, ``p99.9``):
    a table of such rows gives one distribution, not one run a row.

    >>> is_statistic("**P99**"), is_statistic("Max"), is_statistic("batch 8")
    (True, True, False)
    """
    words = _WORDS.findall(cell.lower())
    return len(words) == 1 and (words[0] in _STAT or bool(re.fullmatch(r"p\d+(?:\.\d+)?", words[0])))


def is_qualifier(word: str) -> bool:
    """Whether ``word`` only says which kind of figure a number is (``output``, ``decode``,
    ``prefill``, ``total``, ``TTFT``, ``median``, ``p99``): the words a results cell puts beside
    its unit, as in ``69.3 output tok/s`` or ``212 ms TTFT``.

    >>> is_qualifier("Decode"), is_qualifier("p99"), is_qualifier("GPUs")
    (True, True, False)
    """
    word = word.lower()
    return word in _OUTPUT or word in _INPUT or word in _TOTAL or word in _STAT or word in _LATENCY \
        or bool(_TEST.match(word))


def names_phase(label: str) -> bool:
    """Whether ``label`` names a phase or a kind of one run's figure (``prefill``, ``Gen``,
    ``total``, ``TTFT``, ``tg128``) rather than a configuration: columns qualified by such words
    (``Latency (prefill) | Latency (decode)``) are figures of one run.

    >>> names_phase("decode"), names_phase("Gen"), names_phase("Std"), names_phase("patched")
    (True, True, False, False)
    """
    words = _WORDS.findall(label.lower())
    return len(words) == 1 and is_qualifier(words[0]) and words[0] not in _STAT


def unit_of(text: str) -> str | None:
    """The kb spelling of a unit as written, or ``None`` when kb records no such unit."""
    return UNITS.get(text.strip().strip("()[]").strip().lower())


DIMENSIONS = (frozenset({"GiB", "GB", "MB"}), frozenset({"s", "ms", "us"}))
"""Units that measure one dimension (a size, a time): a column may print each cell in the unit its
size calls for (``ollama list``'s ``4.9 GB`` over ``274 MB``, a profiler's ``1.2s`` over ``873ms``)."""


def one_dimension(units: set[str]) -> bool:
    """Whether ``units`` (kb spellings) are one unit, or several of one :data:`DIMENSIONS`.

    >>> one_dimension({"GB", "MB"}), one_dimension({"ms"}), one_dimension({"GB", "ms"}), one_dimension(set())
    (True, True, False, False)
    """
    return len(units) == 1 or (len(units) > 1 and any(units <= dimension for dimension in DIMENSIONS))


def split_unit(label: str) -> tuple[str, str | None]:
    """``label`` without a trailing unit, and the unit: ``TTFT (ms)`` → ``("TTFT", "ms")``,
    ``Output tok/s`` → ``("Output", "tok/s")``, ``Config`` → ``("Config", None)``."""
    found = _UNIT_IN_LABEL.search(label)
    if found and unit_of(found.group(1)):
        return label[:found.start()].strip(), unit_of(found.group(1))
    words = label.split()
    for size in (3, 2, 1):
        if len(words) >= size and unit_of(" ".join(words[-size:])):
            return " ".join(words[:-size]), unit_of(" ".join(words[-size:]))
    return label.strip(), None


def name_for(label: str, unit: str) -> str:
    """The metric name a figure of ``unit`` takes from its ``label`` (see the module docstring);
    a label that names no known kind gives the unit's default (``output_throughput`` for tok/s,
    ``latency`` for ms/us/s, ``bandwidth`` for GB/s, ``tflops``, ``iterations``,
    ``request_throughput``)."""
    words = _WORDS.findall(label.lower().replace("time to first token", "ttft").replace("time per output token", "tpot")
                           .replace("inter token latency", "itl").replace("inter-token latency", "itl")
                           .replace("end-to-end", "e2e").replace("end to end", "e2e"))
    stat = next((_STAT[w] for w in words if w in _STAT), None)
    if unit in ("ms", "us", "s"):
        kind = next((_LATENCY[w] for w in words if w in _LATENCY), None)
        if kind is None and "time" in words and unit == "us":
            kind = "time"
        kind = kind or ("latency" if "latency" in words or unit != "s" else "time")
        return f"{stat}_{kind}" if stat and stat != "peak" else kind
    if unit == "tok/s":
        if "user" in words or {"per", "request"} <= set(words) or {"per", "seq"} <= set(words):
            return "per_user_output_throughput"
        if (set(words) & _TOTAL or {"overall", "throughput"} <= set(words)) and not set(words) & _OUTPUT:
            return "total_throughput"
        first_input = next((i for i, w in enumerate(words) if w in _INPUT), None)
        first_output = next((i for i, w in enumerate(words) if w in _OUTPUT), len(words))
        if first_input is not None and first_input < first_output:
            return "input_throughput"  # "(ollama) prompt eval rate": the prompt's evaluation
        if any(_TEST.match(w) for w in words):
            return "input_throughput" if any(w.startswith("pp") for w in words) else "output_throughput"
        return "peak_output_throughput" if stat == "peak" else "output_throughput"
    if unit == "GB/s":
        for word in ("busbw", "algbw"):
            if word in words:
                return word
        return "busbw" if "bus" in words else "bandwidth"
    if unit in ("GiB", "GB", "MB"):
        return "_".join(w for w in words if w not in ("gib", "gb", "mib", "mb")) or "memory"
    if unit == "%":
        quality = next((_QUALITY[w] for w in words if w in _QUALITY), None)
        if quality:
            return quality
    return {"TFLOPS": "tflops", "it/s": "iterations", "req/s": "request_throughput", "%": "percent",
            "x": "speedup"}.get(unit, "_".join(words) or "figure")


_QUALITY = {"wer": "wer", "cer": "cer", "accuracy": "accuracy", "acc": "accuracy", "exact": "exact_match",
            "em": "exact_match", "f1": "f1", "bleu": "bleu", "acceptance": "acceptance_rate", "accept": "acceptance_rate",
            "utilization": "utilization", "util": "utilization", "mfu": "mfu", "hit": "hit_rate"}
"""Quality and share figures written in percent, by the word that names them (word error rate,
accuracy, a speculative decoder's acceptance rate, model FLOPs utilisation, a cache's hit rate)."""

ANSWER_SCORES = frozenset({"accuracy", "exact_match", "f1", "bleu"})
"""Figures that score a run's answers (a benchmark's accuracy, exact match, F1, BLEU): one of 0 %
says the run answered nothing right, its output is wrong."""


def scores_answers(name: str) -> bool:
    """Whether a figure named ``name`` (``accuracy``, ``accuracy[gsm8k]``) scores a run's answers."""
    return name.split("[", 1)[0] in ANSWER_SCORES


_SPREAD_WORDS = frozenset({"std", "stddev", "stdev", "sd", "sigma", "deviation", "err", "error", "variance", "jitter"})


def names_spread(header: str) -> bool:
    """Whether a column header names the spread of a figure (``stddev_ts``, ``Std (ms)``, ``±``).

    >>> names_spread("stddev_ts"), names_spread("avg_ts"), names_spread("±"), names_spread("Decode (\N{GREEK SMALL LETTER SIGMA})")
    (True, False, True, True)
    """
    words = set(_WORDS.findall(header.lower().replace("_", " ")))
    return bool(words & _SPREAD_WORDS) or header.strip() in ("±", "+/-", "+-") or "\N{GREEK SMALL LETTER SIGMA}" in header


def qualifies(label: str, unit: str) -> bool:
    """Whether ``label`` says which kind of ``unit`` figure it is (for tok/s: prompt or generation,
    total, per user; any label for other units, whose default name is unambiguous). An unqualified
    ``tok/s`` figure is the campaign's own metric when that is in tok/s (the scoring stage renames
    it).

    >>> qualifies("decode", "tok/s"), qualifies("avg", "tok/s"), qualifies("", "ms")
    (True, False, True)
    """
    if unit != "tok/s":
        return True
    words = set(_WORDS.findall(label.lower()))
    return bool(words & (_OUTPUT | _INPUT | {"total", "user", "request", "requests"})) or any(_TEST.match(w) for w in words)


_PER_STEP = re.compile(r"^(ms|us|µs|s|sec)\s*/\s*(step|token|tok|it|iter|iteration|batch|image|sample|frame)s?$", re.I)
"""A time per unit of work as a column header (``ms/step``, ``ms/token``, ``s/it``)."""


RATE_UNITS = frozenset({"tok/s", "req/s", "it/s", "TFLOPS", "GB/s"})
"""The units of rates (throughputs, bandwidths, compute): what a run measures, never a size or a count."""

_LEADING_UNITS = RATE_UNITS | {"ms", "us"}
_CONNECTORS = frozenset({"de", "of", "der", "du", "des", "di"})
"""Units a header may give before the words that name its figure (``tok/s output``, ``tokens/s
salida``): rates and short times, whose spellings are no words of their own. The words after
the unit must say which kind of figure it is (``output``, ``salida``, ``p99``), with connectors
between (``de``, ``of``): ``t/s master`` names a configuration, an arm."""


def header_figure(header: str) -> tuple[str, str] | None:
    """``(name, unit)`` of a table column whose header names a figure (a unit in it, before or after
    its words, a llama-bench test such as ``pp512``/``tg128``, or a metric term with its implied
    unit: TTFT in ms); ``None`` for a column of settings or text."""
    label, unit = split_unit(header.replace("**", "").replace("`", "").strip().rstrip(":").strip())
    lead = label.split()
    if unit is None and 2 <= len(lead) <= 4 and unit_of(lead[0]) in _LEADING_UNITS and \
            all(is_qualifier(word) or word.lower() in _CONNECTORS for word in lead[1:]) and \
            any(is_qualifier(word) for word in lead[1:]):  # kinds of figure, not a configuration (``t/s master``)
        return name_for(" ".join(lead[1:]), unit_of(lead[0]) or ""), unit_of(lead[0]) or ""  # "tok/s output", "tokens/s salida"
    if unit is None and "_" in label and " " not in label.strip():
        parts = label.strip().split("_")
        if len(parts) >= 2 and unit_of(f"{parts[-2]}/{parts[-1]}"):  # output_tok_s, tok_s
            rate = unit_of(f"{parts[-2]}/{parts[-1]}") or ""
            return name_for(" ".join(parts[:-2]), rate), rate
        head, _, tail = label.strip().rpartition("_")
        if head and unit_of(tail):  # avg_pred_t/s
            return name_for(head.replace("_", " "), unit_of(tail) or ""), unit_of(tail) or ""
        keyed = key_figure(label.strip())  # a CSV header such as avg_ts or latency_ms
        if keyed:
            return keyed
    if unit is None and label.strip().lower().endswith("tps") and (key_figure(label.strip()) or ("", ""))[1] == "tok/s":
        return key_figure(label.strip())  # "gentps", "prompttps"
    per = _PER_STEP.match(label.strip())
    if unit is None and per and unit_of(per.group(1)) in ("ms", "us", "s"):  # ms/step, ms/token, s/it
        return f"{per.group(2).lower().rstrip('s')}_latency", unit_of(per.group(1)) or ""
    phase = _PHASE_RATE.match(label.strip())
    if unit is None and phase:  # "PP/s", "TG/s": llama.cpp's prompt-processing and text-generation phases, per second
        return ("input_throughput" if phase.group(1).lower() == "pp" else "output_throughput"), "tok/s"
    test = _TEST.match(label.strip())
    if unit is None and test:
        return ("input_throughput" if test.group(1).lower() == "pp" else "output_throughput"), "tok/s"
    if unit is None:
        words = _WORDS.findall(label.lower())
        if words and words[-1] in ("ttft", "tpot", "itl") and len(words) <= 2:
            return name_for(label, "ms"), "ms"
        if words and words[-1] in ("busbw", "algbw"):
            return words[-1], "GB/s"
        return None
    if unit in ("%", "x"):
        return None  # a share or a ratio compares runs; it measures none
    return name_for(label, unit), unit


def qualified_figure(header: str, statistics: bool = False) -> tuple[str, str, str] | None:
    """``(name, unit, qualifier)`` of a header that names a figure and then, in brackets, what it
    was measured under (``Prompt tok/s (Std)`` → ``("input_throughput", "tok/s", "Std")``,
    ``TTFT ms [eager]``); ``None`` when the bracketed part is a unit, or a statistic (``TTFT (p99)``
    names another figure) unless ``statistics``, or the rest names no figure.

    >>> qualified_figure("Gen tok/s (patched)"), qualified_figure("TTFT ms [eager]")
    (('output_throughput', 'tok/s', 'patched'), ('ttft', 'ms', 'eager'))
    >>> qualified_figure("TTFT (ms)"), qualified_figure("Latency (p99)"), qualified_figure("Model (8B)")
    (None, None, None)
    """
    found = _UNIT_IN_LABEL.search(header.replace("**", "").strip())
    if not found or unit_of(found.group(1)) or not _WORDS.search(found.group(1).lower()) or \
            (is_statistic(found.group(1)) and not statistics):
        return None
    figure = header_figure(header.replace("**", "").strip()[:found.start()])
    return (figure[0], figure[1], found.group(1).strip()) if figure else None


_RATIO_WORDS = frozenset({"ratio", "speedup", "gain", "delta", "diff", "difference", "change", "uplift", "improvement",
                          "relative", "vs", "δ"})


def names_ratio(header: str) -> bool:
    """Whether a column header names a comparison of other columns (``Gen ratio``, ``Speedup``,
    ``Δ``, ``vs base``): its numbers, written with or without an ``x``, are derived, not measured.

    >>> names_ratio("Gen ratio"), names_ratio("Δ TPOT"), names_ratio("Gen tok/s")
    (True, True, False)
    """
    return any(w in _RATIO_WORDS for w in re.findall(r"[a-zδ]+", header.lower().replace("-", "")))


def header_words(header: str) -> list[str]:
    """A header's words as written, split at spaces and underscores, brackets taken off
    (``Prompt tok/s (Std)`` → ``["Prompt", "tok/s", "Std"]``, ``prompt_seconds`` → two words).

    >>> header_words("TTFT before (ms)"), header_words("gen_seconds")
    (['TTFT', 'before', 'ms'], ['gen', 'seconds'])
    """
    return [w for w in (part.strip("()[]") for part in re.split(r"[\s_]+", header)) if w]


_DEPLOYMENT = frozenset({"gpu", "gpus", "tp", "pp", "ep", "dp", "node", "nodes", "card", "cards", "device", "devices",
                         "shard", "shards", "rank", "ranks", "chip", "chips", "xpu", "npu", "npus", "instances",
                         "replicas", "world"})


def names_deployment(name: str) -> bool:
    """Whether a swept name counts what a run was deployed on (``GPU``, ``TP``, ``nodes``,
    ``shards``): each amount is a separate launch of the server or job, so a table over such
    amounts holds a run per cell, where one over a load (concurrency, batch, length) holds the
    points of one run.

    >>> names_deployment("GPUs"), names_deployment("tp"), names_deployment("bs"), names_deployment("c")
    (True, True, False, False)
    >>> names_deployment("TP1"), names_deployment("8xGPU"), names_deployment("conc4")
    (True, True, False)
    """
    return any(w.strip("x") in _DEPLOYMENT for w in _WORDS.findall(re.sub(r"\d+", " ", name.lower())))


_PER = {"tokens": "tok/s", "token": "tok/s", "tok": "tok/s", "toks": "tok/s", "requests": "req/s", "request": "req/s",
        "req": "req/s", "reqs": "req/s", "iterations": "it/s", "iters": "it/s", "it": "it/s", "gb": "GB/s",
        "gib": "GB/s"}
_SECOND = {"second", "sec", "s"}
_RATE_KEYS = {"tps": "tok/s", "toks": "tok/s", "ts": "tok/s", "rps": "req/s", "qps": "req/s", "tflops": "TFLOPS",
              "gbps": None}
"""Key suffixes that are rates (``ts`` as llama-bench writes tokens per second: ``avg_ts``)."""


def key_figure(key: str) -> tuple[str, str] | None:
    """``(name, unit)`` of a ``key=value`` or JSON key that carries its unit (``median_us`` →
    ``("median_us", "us")``, ``tflops_per_sec`` → ``("tflops_per_sec", "TFLOPS")``, ``peer_bw_GBps`` →
    GB/s, ``tokens_per_second``
    → ``("output_throughput", "tok/s")``, ``decode_tps`` → ``("output_throughput", "tok/s")``),
    else ``None``.

    >>> key_figure("median_us"), key_figure("tokens_per_second"), key_figure("prefill_tok_per_s"), key_figure("count")
    (('median_us', 'us'), ('output_throughput', 'tok/s'), ('input_throughput', 'tok/s'), None)
    >>> key_figure("gentps"), key_figure("prompttps"), key_figure("tok_s"), key_figure("req_s")
    (('output_throughput', 'tok/s'), ('input_throughput', 'tok/s'), ('output_throughput', 'tok/s'), ('request_throughput', 'req/s'))
    """
    original = [p for p in re.split(r"[_\-.\s/]+", key) if p]
    parts = [p.lower() for p in original]
    if not parts:
        return None
    if original[-1] in ("GBps", "GBs", "GiBps"):  # gigabytes per second (Gbps, lower-case b, is bits)
        return key, "GB/s"
    if parts[0] == "tflops" or parts[-1] == "tflops":
        return (key if len(parts) > 1 else "tflops"), "TFLOPS"
    if parts[-1] in ("busbw", "algbw"):
        return parts[-1], "GB/s"
    if len(parts) >= 3 and parts[-2] == "per" and parts[-1] in _SECOND and parts[-3] in _PER:
        unit = _PER[parts[-3]]
        return name_for(" ".join(parts[:-3] + [parts[-3]]), unit), unit
    if len(parts) >= 2 and parts[-1] in _SECOND and parts[-2] in _PER:  # tok_s, gen_tok_s: a count per second
        unit = _PER[parts[-2]]
        return name_for(" ".join(parts[:-1]), unit), unit
    if parts[-1] in _RATE_KEYS:
        rate = _RATE_KEYS[parts[-1]]
        return (name_for(" ".join(parts[:-1]), rate), rate) if rate else None
    glued = next((w for w in (_OUTPUT | _INPUT) if parts[-1] == w + "tps"), None)
    if glued:  # "gentps", "prompttps": a phase and tokens per second written as one word
        return name_for(" ".join([*parts[:-1], glued]), "tok/s"), "tok/s"
    if len(parts) >= 2 and parts[-1] in _SUFFIX_UNITS and _SUFFIX_UNITS[parts[-1]]:
        return key, _SUFFIX_UNITS[parts[-1]] or ""
    return None


_NAMED_UNIT = re.compile(r"(?<![\w/])(" + "|".join(
    re.escape(u) for u in sorted((k for k, v in UNITS.items() if v and v not in ("GiB", "GB", "MB", "%", "x") and k not in ("s", "sec")),
                                 key=len, reverse=True)) + r")(?![\w/])", re.I)
"""Every unit spelling of :data:`UNITS` a caption may name (sizes, shares, ratios and a bare ``s``
aside: those name no table's figures)."""


def units_named(text: str) -> list[str]:
    """The units a caption or a sentence above a table names (``All figures are steps per second
    (it/s)`` → ``["it/s"]``), in kb's spelling, first named first.

    >>> units_named("All figures are UNet steps per second (it/s), batch 1.")
    ['it/s']
    """
    found = []
    for match in _NAMED_UNIT.finditer(text):
        unit = unit_of(match.group(1))
        if unit and unit not in found:
            found.append(unit)
    return found


_DEFINED = re.compile(r"[\"“'`]([^\"”'`]{1,40})[\"”'`]\s+(?:is|are|=|means)\s+([^;.]{1,120})", re.I)


def units_defined(text: str) -> dict[str, str]:
    """``{term: unit}`` for the column names a sentence defines with their unit (``"throughput" is
    output tokens per second; "p50 latency" is the median request latency in seconds``), terms
    lower-cased; ``{}`` when it defines none.

    >>> units_defined('"throughput" is output tokens per second; "p50 latency" is the median latency in seconds.')
    {'throughput': 'tok/s', 'p50 latency': 's'}
    """
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(" ".join(text.split())):  # a paragraph's line breaks are spaces
        clause = match.group(2)
        # units_named leaves out a bare "seconds" and sizes, which a definition may name
        named = units_named(clause) or [u for w in re.findall(r"[a-z]+", clause.lower())
                                        if (u := unit_of(w)) in ("s", "GB", "GiB", "MB")]
        if named:
            found[match.group(1).strip().lower()] = named[0]
    return found


def bracketed_unit(text: str) -> str | None:
    """The unit written in parentheses in a header (``E2E latency (s) by prompt length`` → ``s``), in
    kb's spelling; ``None`` when no parenthesised part is a unit.

    >>> bracketed_unit("E2E latency (s) by prompt length"), bracketed_unit("Model (8B)")
    ('s', None)
    """
    for inner in _BRACKETED.findall(text):
        unit = unit_of(inner.strip())
        if unit:
            return unit
    return None


_BRACKETED = re.compile(r"\(([^()]{1,12})\)")


_METRIC_TERMS = frozenset({"throughput", "latency", "speed", "ttft", "tpot", "itl", "tbt", "time", "bandwidth", "busbw",
                           "algbw", "tflops", "rate", "tok", "tokens", "toks", "prefill", "decode", "generation", "gen",
                           "prompt", "e2e", "e2el", "duration", "qps", "rps", "tps", "fps", "its", "perf", "performance",
                           "score", "p50", "p90", "p95", "p99", "median", "mean", "avg", "average", "speedup", "memory",
                           "vram", "utilization", "util", "power", "accuracy", "acceptance", "goodput", "wall",
                           "elapsed", "runtime", "step", "steps", "iterations", "samples", "images", "requests",
                           "min", "max", "std", "stddev", "minimum", "maximum"})
"""Words by which a column header names a measured quantity rather than a configuration."""


def names_measure(header: str) -> bool:
    """Whether a table header names a measured quantity (``Throughput``, ``TTFT``, ``Speed``) rather
    than a configuration compared (``nightly + compile``, ``FA on``).

    >>> names_measure("Throughput"), names_measure("nightly + compile"), names_measure("pp512")
    (True, False, True)
    >>> names_measure("--max-num-batched-tokens")
    False
    """
    if header.strip().startswith("--"):
        return False  # a command-line flag: the setting a row tried
    words = _WORDS.findall(header.lower())
    return any(w in _METRIC_TERMS or w in _INPUT or w in _OUTPUT or _TEST.match(w) for w in words) or \
        header_figure(header) is not None


_WORKLOAD = (
    ({"rate", "request", "requests", "req", "qps", "rps", "arrival", "s"}, "request_rate"),
    ({"isl"}, "input_len"),
    ({"osl"}, "output_len"),
    ({"dataset", "workload", "category", "task", "sample", "samples", "prompt", "prompts", "input", "inputs",
      "file", "clip", "utterance", "image", "audio", "example", "query", "question", "case"}, "dataset_name"),
    ({"model", "checkpoint", "modelo", "modell", "modèle", "modello"}, "model"),
    ({"depth", "context", "ctx", "kv", "n"}, "context_depth"),
)
"""Words by which a setting names the workload a run was measured under (the request rate, the
input and output lengths, the dataset, the model, the KV-cache depth llama-bench measures at:
``-d``/``n_depth``) rather than a knob tried: runs are compared only
under the same workload. Concurrency, prompt counts and batch sizes are knobs as often as they are
workloads, so they do not separate runs."""

WORKLOAD_SETTINGS = frozenset({"request_rate", "random_input_len", "random_output_len", "input_len", "output_len",
                               "sharegpt_output_len", "dataset_name", "model"})
"""Settings the tool readers name that describe the workload."""


_MODEL_SHAPE = re.compile(r"/|\.gguf\b|\.safetensors\b|(?<![\w.])\d+(?:\.\d+)?\s*[bBmMkK](?![\w])|"
                          r"(?<![\w.])[a-zA-Z]\d+(?:\.\d+)?[bB](?![\w])|\b[A-Za-z]+-?\d+(?:\.\d+)?-?[bB]\b")


def names_model(value: str) -> bool:
    """Whether a setting's value may name a model: any name but one that starts with a digit and
    gives no parameter count, hub id or weights file (``3090-only``, ``4090-with-draft``: a
    scenario named for its GPU). Names such as ``medium``, ``GLM-4.6``, ``Qwen2.5-7B`` pass.

    >>> [names_model(v) for v in ("meta-llama/Llama-3.1-8B", "medium", "3090-only", "70b", "Q4_K_M.gguf", "")]
    [True, True, False, True, True, False]
    """
    text = (value or "").strip()
    return bool(text) and (not text[:1].isdigit() or bool(_MODEL_SHAPE.search(text)))


_QUANT = re.compile(r"(?<![a-z0-9])(?:bf16|fp16|f16|fp32|f32|fp8|fp4|nvfp4|mxfp4|int8|int4|w8a8|w4a16|w8a16|awq|gptq|"
                    r"exl2|gguf|q[2-8](?:_[a-z0-9]+)*|[0-9]bit|ct2|mlx|quantized|dynamic)(?![a-z0-9])")


def base_model(name: str) -> str:
    """A model's name without its hub owner, quantization and format marks, lower-cased, so that
    the same model in two precisions is one model (``openai/whisper-large-v3`` and
    ``whisper-large-v3-ct2-int8`` → ``whisper-large-v3``): a precision is what such runs compare.

    >>> base_model("whisper-large-v3-ct2-int8") == base_model("Whisper-Large-v3-ct2-fp16")
    True
    >>> base_model("Qwen/Qwen3-8B-AWQ"), base_model("llama-3-70b.Q4_K_M.gguf"), base_model("Llama-3-8B (BF16 reference)")
    ('qwen3-8b', 'llama-3-70b', 'llama-3-8b')
    """
    name = re.sub(r"\s*\([^()]*\)", "", name)  # "Llama-3.1-8B (BF16 reference)": a note on the name
    text = _QUANT.sub("", name.strip().lower().rstrip("/").rsplit("/", 1)[-1])
    return re.sub(r"[-_.]{2,}", "-", text).strip("-_. ")


def workload(settings: dict[str, str], flags: list[str] = (), columns: bool = False) -> dict[str, str]:  # type: ignore[assignment]
    """The workload part of a run's settings (names of :data:`WORKLOAD_SETTINGS`; with
    ``columns``, any name :func:`workload_key` maps, as a table's headers are) and of its
    ``--flag value`` flags (``--request-rate 5`` → ``request_rate: 5``)."""
    found: dict[str, str] = {}
    for name, value in settings.items():
        key = workload_key(name) if columns else (name if name in WORKLOAD_SETTINGS else None)
        if key == "model" and not names_model(value):
            continue  # a column headed "model" that holds a scenario's label ("3090-only"): a configuration
        if key == "dataset_name" and model_file(value):
            key = "model"  # a column of checkpoint files: the model each row ran
        if key and value:
            found[key] = value.strip()
    for flag in flags:
        name, _, value = flag.partition(" ")
        name, _, inline = name.partition("=")
        key = workload_key(name.lstrip("-"))
        if key and (value or inline):
            found.setdefault(key, (value or inline).strip())
    return found


MODEL_FILES = (".gguf", ".safetensors", ".onnx", ".engine", ".plan", ".pt", ".pth", ".ggml", ".mlmodel", ".tflite")
"""Extensions of model checkpoint files (GGUF, safetensors, ONNX, TensorRT engines and plans,
PyTorch, legacy GGML, Core ML, TensorFlow Lite): a file that holds weights, not a workload."""


def model_file(cell: str) -> bool:
    """Whether a cell names a model checkpoint file (``mistral-7b-q4_k_m.gguf``, maybe with a note
    after it).

    >>> model_file("`mistral-7b-v0.3-q8_0.gguf`"), model_file("prompts.jsonl")
    (True, False)
    """
    head = re.sub(r"\s*\(.*$", "", cell.strip()).strip("`*_ ").lower()
    return head.endswith(MODEL_FILES) and " " not in head


def workload_key(name: str) -> str | None:
    """The workload a setting's name (a column header, a flag, a reader's setting) describes
    (``request-rate`` → ``request_rate``, ``Batch Size`` → ``batch_size``), or ``None`` for a knob.

    >>> workload_key("request-rate"), workload_key("--random-input-len"), workload_key("Backend")
    ('request_rate', 'random_input_len', None)
    """
    snake = name.strip().lstrip("-").lower().replace("-", "_")
    if snake in WORKLOAD_SETTINGS:
        return snake
    words = set(_WORDS.findall(name.lower().replace("_", " ").replace("-", " ")))
    if not words or words & {"throughput", "latency", "ttft", "tpot", "speed", "time", "duration", "total", "successful",
                             "failed", "completed", "peak", "avg", "mean", "median"}:
        return None
    if words & {"length", "len"} and len(words) == 2:  # "Input length", "output_len": a request's lengths
        if words & {"input", "prompt", "in", "isl"}:
            return "input_len"
        if words & {"output", "generation", "gen", "out", "osl"}:
            return "output_len"
    for terms, key in _WORKLOAD:
        extra = {"name", "id", "size"} if key == "model" else {"name", "id"}  # "Model Size": 0.5B-4bit, 7B-4bit
        if words & terms and words <= terms | extra and (key != "request_rate" or words & {"rate", "qps", "rps"}) \
                and (key != "context_depth" or "depth" in words):
            return key
    return None


_PARAMETERS = re.compile(r"(?<![\w.])(?:[\w.-]*[A-Za-z][\w.-]*[-_ ])?\d+(?:\.\d+)?[bB](?![\w])(?:[-_][\w.-]+)?|"
                         r"(?<![\w./])[\w.-]+/[\w.-]*\d[\w.-]*")


_WORKLOAD_MODEL_WORDS = next(terms for terms, key in _WORKLOAD if key == "model")


def heading_model(heading: str) -> str:
    """The model a section heading names by its parameter count or hub id (``0.5B Model`` →
    ``0.5B``, ``Qwen2.5-7B-Instruct results`` → ``Qwen2.5-7B-Instruct``, ``meta-llama/Llama-3.1-8B``),
    or ``""``: the model of the runs in that section that name none themselves.

    >>> heading_model("0.5B Model"), heading_model("Results on Qwen2.5-7B-Instruct"), heading_model("Batch 8 results")
    ('0.5B', 'Qwen2.5-7B-Instruct', '')
    """
    found = _PARAMETERS.search(heading or "")
    if not found:
        return ""
    name = found.group(0).strip()
    head, _, last = name.rpartition("-")
    return head if head and last.lower() in _WORKLOAD_MODEL_WORDS else name  # "8B-Modell": the 8B


_REPETITION = re.compile(r"^(.*?)[\s_\-#.(]*(?<![A-Za-z])(?:run|rep|repeat|repetition|trial|iter|iteration|pass|sample|seed)"
                         r"[\s_\-#.]*\d+\)?$", re.IGNORECASE)


def repetition_stem(label: str) -> str | None:
    """The configuration a label names when it is one repetition of it (``original_run1``,
    ``FA on (trial 2)``, ``Run 3``) → ``original``, ``FA on``, ``""``; ``None`` for a label that
    names no repetition. Benchmark reports list repeated runs of one configuration this way and
    then give their mean: the repetitions are one measurement.

    >>> repetition_stem("original_interactive_run1"), repetition_stem("Run 3"), repetition_stem("tp2")
    ('original_interactive', '', None)
    """
    found = _REPETITION.match(label.strip().strip("`*_ :"))
    return found.group(1).strip(" _-#.(").lower() if found else None


_LOAD_WORDS = frozenset({"concurrency", "conc", "concurrent", "clients", "users", "rps", "qps", "rate", "parallel",
                         "streams", "并发"})
"""Words by which a setting names the load put on a server (vLLM's and SGLang's ``--max-concurrency``
and ``--request-rate``, a load generator's clients or users): a level runs are measured at, unlike an
engine knob such as a batch or micro-batch size."""


def names_load(header: str) -> bool:
    """Whether a column header names the load a run was measured under (``concurrency``, ``QPS``,
    ``request rate``, ``并发 (concurrency)``), not a knob (``ubatch``, ``batch size``).

    >>> names_load("Concurrency"), names_load("并发 (concurrency)"), names_load("ubatch"), names_load("bs")
    (True, True, False, False)
    """
    lowered = header.lower()
    return bool(set(_WORDS.findall(lowered)) & _LOAD_WORDS) or "并发" in lowered


def names_workload_axis(header: str) -> bool:
    """Whether a column of numbers a script swept names what each run was measured under (a load, or
    a length: ``promptlen``, ``ctx``, ``seq_len``, ``message size``, ``depth``), not a knob of the
    configuration being tuned (``ubatch``, ``threads``).

    >>> [names_workload_axis(h) for h in ("promptlen", "ctx", "Concurrency", "ubatch", "threads")]
    [True, True, True, False, False]
    """
    return names_load(header) or bool(_AXIS.search(header.lower()))


_AXIS = re.compile(r"len|ctx|context|prompt|seq|depth|size|token")


_MEASURE_AXIS = frozenset({"metric", "metrics", "measure", "measures", "measurement", "measurements", "quantity",
                           "kpi", "kpis", "statistic", "statistics", "indicator"})


def names_measure_axis(header: str) -> bool:
    """Whether a first column's header says that its rows are measures (``| Metric | Before | After |``,
    ``| Measurement | Value |``): the table is read by column, each other column one configuration.

    >>> [names_measure_axis(h) for h in ("Metric", "**Measurement**", "Metric name", "Model", "Source")]
    [True, True, True, False, False]
    """
    words = _WORDS.findall(header.lower())
    return bool(words) and words[0] in _MEASURE_AXIS and len(words) <= 2


_SERIES = re.compile(r"^([^\W\d_]+)[\s#]*(\d+)$")


def series_number(label: str) -> int | None:
    """The number of a label that is one word and a number (``Request 7``, ``Prompt #3``,
    ``GPU 0``), or ``None``: a series of such labels numbers the samples of one measurement.

    >>> series_number("Request 7"), series_number("Prompt #3"), series_number("tp2"), series_number("fp16 run")
    (7, 3, 2, None)
    """
    found = _SERIES.match(label.strip().strip("`*_ :."))
    return int(found.group(2)) if found else None


def series_stem(label: str) -> str | None:
    """The word of a :func:`series_number` label, lower-cased (``Request 7`` → ``request``)."""
    found = _SERIES.match(label.strip().strip("`*_ :."))
    return found.group(1).lower() if found else None


_LABEL_RATE = re.compile(r"tokens?\s*(?:per|/|each)\s*(?:second|sec|s)\b|每秒.{0,12}token|token.{0,12}每秒|tokens?/秒", re.I)
_LABEL_REQUESTS = re.compile(r"requests?\s*(?:per|/)\s*(?:second|sec|s)\b|每秒.{0,6}请求", re.I)
_EXTREME = re.compile(r"\b(?:min|max|minimum|maximum|fastest|slowest|lowest|highest|best|worst)\b|最", re.I)


def unit_in_label(label: str) -> str | None:
    """The unit a ``name: value`` line's name gives when the value is a bare number (``tokens per
    second: 78.11``, ``平均每秒回复token数量: 78.11``, ``Latency (ms): 45``), or ``None``.

    >>> unit_in_label("tokens per second"), unit_in_label("平均每秒回复token数量"), unit_in_label("TTFT (ms)"), unit_in_label("count")
    ('tok/s', 'tok/s', 'ms', None)
    """
    if _LABEL_RATE.search(label):
        return "tok/s"
    if _LABEL_REQUESTS.search(label):
        return "req/s"
    return split_unit(label)[1]


def names_extreme(label: str) -> bool:
    """Whether a figure's name says it is the smallest or largest of several (``Max tok/s``,
    ``最少每秒回复token数量``): a side figure of the run, not its headline.

    >>> names_extreme("最多每秒回复token数量"), names_extreme("Max throughput"), names_extreme("平均每秒回复token数量")
    (True, True, False)
    """
    return bool(_EXTREME.search(label))
