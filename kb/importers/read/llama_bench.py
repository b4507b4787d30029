"""llama.cpp's ``llama-bench``: its default markdown table, and ``-o csv``, ``-o json``, ``-o jsonl``.

Facts (llama.cpp ``tools/llama-bench/README.md`` and ``llama-bench.cpp``): each row or object is one
*test* of one parameter combination; ``pp512`` is prompt processing of 512 tokens (``n_gen`` 0),
``tg128`` generation of 128 (``n_prompt`` 0), ``pp512+tg128`` both, ``@ d4096`` a context depth
(``n_depth``); older builds print ``pp 512``/``tg 128``. ``t/s`` is ``avg ± stddev`` over the
repetitions. The markdown table is followed by ``build: <commit> (<number>)``; CUDA builds print
``ggml_cuda_init`` and ``Device N: ...`` lines above it.

One run per parameter combination (every column but ``test`` and ``t/s``; every key but the test's
and its timings): each test becomes a metric, ``input_throughput[test=pp512]``,
``output_throughput[test=tg128]``, ``total_throughput[test=pp512+tg128]``, with its ± as the
spread; the settings are the combination's columns (``type_k``/``type_v`` as ``ctk``/``ctv``,
``n_gpu_layers`` as ``ngl``, ``flash_attn`` as ``fa``) and ``build``. Every table in a capture is
read; a table whose header has ``test`` but no ``t/s`` column is warned about.

>>> table = '''| model | size | params | backend | ngl | test | t/s |
... | --- | ---: | ---: | --- | --: | ---: | ---: |
... | llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp512 | 16634.04 ± 97.98 |
... | llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | tg128 | 278.95 ± 0.23 |
...
... build: 233d773d0 (6413)'''
>>> run = read(table).runs[0]
>>> run.metrics["output_throughput[test=tg128]"], run.settings["ngl"], run.settings["build"]
(Measure(text='278.95', unit='tok/s', spread='0.23', line=4, generic=False), '99', '233d773d0 (6413)')
"""

from __future__ import annotations

import csv
import io
import json
import re

from kb.importers.read.base import NUMBER, Measure, Readout, RunReading, number

TOOL = "llama-bench"
SOURCES = {
    "ggml-org/llama.cpp tools/llama-bench/README.md (table, csv, json and jsonl examples)": (
        "ggml_cuda_init", "compute capability", "build"),
}
"""The documentation of the output this reader knows."""

MARKERS = ("t/s", "avg_ts", "build_commit")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""

_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_TS = re.compile(rf"^\s*\**({NUMBER})\**\s*(?:±\s*({NUMBER}))?\s*$")
_BUILD = re.compile(r"^\s*build:\s*([0-9a-f]{6,40})\s*\((\d+)\)")
_TEST = re.compile(r"^(pp|tg)\s*(\d+)(?:\s*\+\s*tg\s*(\d+))?(\s*@\s*d\s*\d+)?$")
_SETTING_NAMES = {"type_k": "ctk", "type_v": "ctv", "n_gpu_layers": "ngl", "flash_attn": "fa", "n_threads": "threads",
                  "model_type": "model", "model_size": "size", "model_n_params": "params", "backends": "backend"}
_TEST_KEYS = {"n_prompt", "n_gen", "n_depth", "test_time", "avg_ns", "stddev_ns", "avg_ts", "stddev_ts", "samples_ns",
              "samples_ts", "test"}
_RECORD_KEYS = ("avg_ts", "n_prompt", "n_gen")
_MEASURED = re.compile(r"^(?:avg|stddev|samples)_")
_MODEL_DESC = re.compile(r"^(\S+ (?:\d+x)?(?:\d+(?:\.\d+)?|\?)[KMBT](?:\.A\d+(?:\.\d+)?[KMBT])?)\s+\S.*$")
"""llama.cpp's model description, ``<arch> <size> <file type>`` (``llama_model_desc``: ``llama 8B
Q4_K - Medium``): the arch and size name the model, the file type its quantization; ``base_model``
is the first two, so that quantizations of one model compare."""


def _measured_key(key: str) -> bool:
    """Whether a record key is a measurement of the test (``avg_ts``, ``stddev_ns``, and the
    ``avg_*``/``stddev_*``/``samples_*`` keys forks add) or the test itself, not a setting."""
    return key in _TEST_KEYS or bool(_MEASURED.match(key))
_UNKEPT = {"samples_ns", "samples_ts"}


def read(text: str) -> Readout:
    """The runs of llama-bench in ``text`` (see the module docstring)."""
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        return _records(text)
    if stripped.startswith(("build_commit", '"build_commit"')):
        return _csv(text)
    out = _tables(text)
    if not out.runs:
        out.extend(_records_after_log(text))
    return out


def _records_after_log(text: str) -> Readout:
    """``-o json`` captured with its standard error: the backend's start-up lines (``ggml_cuda_init:
    found 1 ROCm devices:``) before the array. The records from the first line that opens JSON."""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        if line.strip().startswith(("[", "{")):
            found = _records("\n".join(lines[at:]))
            for run in found.runs:
                run.lines = (run.lines[0] + at, run.lines[1] + at)
            return found
    return Readout()


def test_metric(test: str) -> str | None:
    """The metric a test cell names: ``pp512`` → ``input_throughput[test=pp512]``, ``tg 128`` →
    ``output_throughput[test=tg 128]``, ``pp512+tg128`` → ``total_throughput[...]``; ``None`` for
    a cell that is no llama-bench test."""
    found = _TEST.match(test.strip())
    if not found:
        return None
    name = "total_throughput" if found.group(3) else ("input_throughput" if found.group(1) == "pp" else "output_throughput")
    return f"{name}[test={test.strip()}]"


def _tables(text: str) -> Readout:
    out = Readout()
    lines = text.splitlines()
    i = 0
    tables = 0
    while i < len(lines):
        header = _cells(lines[i])
        if header is None or i + 1 >= len(lines) or not _RULE.match(lines[i + 1]):
            i += 1
            continue
        if "test" not in header:
            if "t/s" in header and ({"n_prompt", "n_gen"} & set(header)):
                out.warnings.append(f"the llama-bench table at line {i + 1} has no test column (n_prompt/n_gen "
                                    "instead, an early layout); skipped")
            i += 2
            continue
        if "t/s" not in header:
            out.warnings.append(f"the llama-bench table at line {i + 1} has a test column but no t/s column; skipped")
            i += 2
            continue
        first = i + 1
        i += 2
        rows: list[tuple[dict[str, str], int]] = []
        while i < len(lines):
            cells = _cells(lines[i])
            if cells is None or len(cells) != len(header):
                break
            rows.append((dict(zip(header, cells)), i + 1))
            i += 1
        build = _build_after(lines, i)
        measures = _measure_columns(header, [row for row, _ in rows])
        runs = _group(rows, lambda row: row.get("test", ""), lambda row: row.get("t/s", ""), header, measures)
        for run in runs:
            run.invocation = tables
            if build:
                run.settings["build"] = build
        tables += 1
        if not rows:
            out.warnings.append(f"the llama-bench table at line {first} has a header and no rows (the run stopped?)")
            runs = [RunReading(TOOL, lines=(first, first + 1), failed=True, invocation=tables - 1)]
        elif not runs:
            out.warnings.append(f"the llama-bench table at line {first} has rows kb could not read")
        if runs:
            runs[0].lines = (min(first, runs[0].lines[0]), runs[0].lines[1])
        out.runs.extend(runs)
    return out


def _cells(line: str) -> list[str] | None:
    found = _ROW.match(line)
    if not found:
        return None
    return [cell.strip() for cell in found.group(1).split("|")]


def _build_after(lines: list[str], at: int) -> str | None:
    for line in lines[at:at + 3]:
        found = _BUILD.match(line)
        if found:
            return f"{found.group(1)} ({found.group(2)})"
    return None


_MEASURE_HEADER = re.compile(r"(?:\bt/s|\((?:ms|s|us)\))$")
_SPREAD_CELL = re.compile(rf"^\s*{NUMBER}\s*±\s*{NUMBER}\s*$")
_HEADER_UNIT = re.compile(r"\s*\((ms|s|us)\)$")


def _measure_columns(header: list[str], rows: list[dict[str, str]]) -> dict[str, str]:
    """The columns besides ``t/s`` that hold figures, not settings, with their unit: a header that
    ends in ``t/s`` or a time unit in parentheses, or cells that are all ``avg ± stddev`` or empty.
    llama-benchy (a llama-bench-style tool for OpenAI-compatible servers; its README on PyPI) prints
    ``peak t/s``, ``ttfr (ms)``, ``est_ppt (ms)`` and ``e2e_ttft (ms)`` beside ``t/s``; a run's
    settings must not include them, or each test row would be a run of its own."""
    found = {}
    for column in header:
        if column in ("test", "t/s"):
            continue
        values = [row.get(column, "") for row in rows if row.get(column, "")]
        unit = _HEADER_UNIT.search(column)
        if _MEASURE_HEADER.search(column) or (values and all(_SPREAD_CELL.match(v) for v in values)):
            found[column] = "tok/s" if column.endswith("t/s") else (unit.group(1) if unit else "")
    return found


def _measure_name(column: str, metric: str) -> str:
    """The metric name of a measure column's figure for one test (``peak t/s`` of ``tg128`` →
    ``peak_output_throughput[test=tg128]``, ``ttfr (ms)`` → ``ttfr[test=pp2048]``)."""
    test = metric[metric.index("["):] if "[" in metric else ""
    if column.endswith("t/s"):
        word = re.sub(r"\W+", "_", column[:-3].strip()).strip("_").lower()
        return f"{word + '_' if word else ''}{metric.split('[', 1)[0]}{test}"
    return re.sub(r"\W+", "_", _HEADER_UNIT.sub("", column)).strip("_").lower() + test


def _group(rows: list[tuple[dict[str, str], int]], test_of, ts_of, columns: list[str],
           measures: dict[str, str] | None = None) -> list[RunReading]:
    """One run per combination of the columns other than the test and its figures (``measures``:
    the columns of other figures, by :func:`_measure_columns`, kept as metrics of each test)."""
    runs: dict[tuple, RunReading] = {}
    measures = measures or {}
    for row, line in rows:
        metric = test_metric(test_of(row))
        figure = _TS.match(ts_of(row))
        if metric is None or figure is None:
            continue
        settings = {_SETTING_NAMES.get(k, k): v for k, v in row.items()
                    if k not in ("test", "t/s") and k not in measures and not _measured_key(k)}
        key = tuple(sorted(settings.items()))
        run = runs.get(key)
        if run is None:
            described = _MODEL_DESC.match(settings.get("model", ""))
            if described:
                settings["base_model"] = described.group(1)
            run = runs[key] = RunReading(TOOL, settings=settings, lines=(line, line))
        run.lines = (run.lines[0], line)
        run.metrics[metric] = Measure(figure.group(1).replace(",", ""), "tok/s", spread=figure.group(2), line=line)
        for column, unit in measures.items():
            other = _TS.match(row.get(column, ""))
            if other is not None and unit:
                run.metrics[_measure_name(column, metric)] = Measure(other.group(1).replace(",", ""), unit,
                                                                     spread=other.group(2), line=line)
    return list(runs.values())


def _record_test(record: dict) -> str:
    prompt, gen, depth = (int(float(number(str(record.get(k) or 0)) or 0)) for k in ("n_prompt", "n_gen", "n_depth"))
    test = f"pp{prompt}+tg{gen}" if prompt and gen else (f"pp{prompt}" if prompt else f"tg{gen}")
    return test + (f" @ d{depth}" if depth else "")


def _record_rows(records: list[tuple[dict, int]]) -> list[RunReading]:
    rows = []
    for record, line in records:
        if not all(key in record for key in _RECORD_KEYS):
            continue
        row = {k: _scalar(v) for k, v in record.items() if k not in _UNKEPT and not isinstance(v, (list, dict))}
        row["test"] = _record_test(record)
        spread = record.get("stddev_ts")
        avg = number(str(record.get("avg_ts")))
        row["t/s"] = f"{avg} ± {number(str(spread))}" if spread is not None and avg else (avg or "")
        commit, build_number = record.get("build_commit"), record.get("build_number")
        if commit:
            row["build"] = f"{commit} ({build_number})" if build_number is not None else str(commit)
        rows.append((row, line))
    return _group(rows, lambda row: row["test"], lambda row: row["t/s"], [])


def _scalar(value: object) -> str:
    """A JSON value as llama-bench wrote it (``true``, ``false``, numbers as written)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def _records(text: str) -> Readout:
    out = Readout()
    try:
        document = json.loads(text, parse_float=str)
        last = text.rstrip().count("\n") + 1
        records = [(item, 1) for item in (document if isinstance(document, list) else [document]) if isinstance(item, dict)]
    except ValueError:
        document, records, last = None, [], 1
        for line_number, line in enumerate(text.splitlines(), 1):
            try:
                item = json.loads(line, parse_float=str)
            except ValueError:
                if line.lstrip().startswith("{") and '"build_commit"' in line:
                    out.warnings.append(f"llama-bench record at line {line_number} is not valid JSON; skipped")
                continue
            if isinstance(item, dict):
                records.append((item, line_number))
                last = line_number
    if isinstance(document, dict) and not _is_record(document):
        return _wrapped(document, out)
    if not any(_is_record(record) for record, _ in records):
        return out
    out.runs = _record_rows(records)
    if len(records) == 1 and records[0][1] == 1 and out.runs:
        out.runs[0].lines = (1, last)
    return out


def _is_record(value: object) -> bool:
    return isinstance(value, dict) and all(key in value for key in _RECORD_KEYS)


def _wrapped(document: dict, out: Readout) -> Readout:
    """llama-bench's JSON arrays nested in a harness's own object (``{"default": {"raw_output":
    [...]}, "scx_flash": {...}}``): one group of runs per key, the key as setting ``scheduler``; an
    entry without records (``{"error": "Command timed out"}``) is warned about."""
    for key, entry in document.items():
        arrays = [v for v in entry.values() if isinstance(v, list) and any(_is_record(r) for r in v)] \
            if isinstance(entry, dict) else []
        if not arrays:
            if isinstance(entry, dict):
                out.warnings.append(f"the entry {key!r} holds no llama-bench records"
                                    + (f" ({entry.get('error')})" if entry.get("error") else ""))
            continue
        for run in _record_rows([(r, 1) for r in arrays[0] if _is_record(r)]):
            run.settings["scheduler"] = str(key)
            out.runs.append(run)
    return out


_NUMERIC = re.compile(r"^(n_|avg_|stddev_|model_size|model_n_params|build_number|main_gpu)")
_FLAGS = {"cuda", "opencl", "vulkan", "kompute", "metal", "sycl", "rpc", "gpu_blas", "blas", "no_kv_offload", "use_mmap",
          "embeddings", "cpu_strict", "flash_attn", "repack", "no_host", "no_op_offload", "use_direct_io", "f16_kv",
          "mul_mat_q"}
_TEXT = {"cpu_info", "gpu_info", "model_filename", "model_type", "backends", "type_k", "type_v", "split_mode", "devices"}


def _plausible(key: str, value: str) -> bool:
    """Whether ``value`` looks like a value of llama-bench's column ``key``."""
    if key in _FLAGS:
        return value.lower() in ("0", "1", "true", "false", "-1")
    if key in _TEXT:
        return bool(re.search(r"[A-Za-z]", value)) and value.lower() not in ("true", "false")
    if key == "test_time":
        return bool(re.match(r"\d{4}-\d{2}-\d{2}", value))
    if _NUMERIC.match(key):
        return number(value) is not None
    return True


def _realigned(header: list[str], row: list[str], tail_at: int) -> dict[str, str]:
    """A row with a field more or fewer than the header, mapped with the header's first ``p``
    columns from the left and the rest from the right end, for the ``p`` under which most values
    look like their columns' (a flag is 0 or 1, a CPU name has letters, a count is a number); the
    gap lies before ``tail_at``, the first of the test's own columns, which always end the row."""
    best, best_score = None, -1
    d = len(row) - len(header)
    for p in range(max(0, min(len(header), len(row), tail_at + min(d, 0))) + 1):
        if d >= 0:  # a field more in the row: drop d values at p
            mapped = dict(zip(header[:p], row[:p])) | dict(zip(header[p:], row[p + d:]))
        else:  # a column more in the header: leave -d columns at p without a value
            mapped = dict(zip(header[:p], row[:p])) | dict(zip(header[p - d:], row[p:]))
        score = sum(_plausible(k, v) for k, v in mapped.items())
        if score >= best_score:  # ties: the gap as far right as it can be (a column added or dropped late)
            best, best_score = mapped, score
    return best or dict(zip(header, row))


def _csv(text: str) -> Readout:
    """``-o csv``: one row a test. A row with more or fewer fields than the header (a column added
    or dropped in one of them) is read with the settings aligned from the left and the test and its
    timings from the right end, and warned about; a row cut off (an unterminated quote) gives a run
    of its settings only."""
    out = Readout()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "avg_ts" not in rows[0]:
        return out
    header = rows[0]
    tail = [k for k in header if k in _TEST_KEYS or k in ("n_prompt", "n_gen", "n_depth")]
    tail_at = min(header.index(k) for k in tail) if tail else len(header)
    records = []
    uneven = 0
    for number_, row in enumerate(rows[1:], 2):
        if len(row) == len(header):
            records.append((dict(zip(header, row)), number_))
            continue
        uneven += 1
        width = len(header) - tail_at
        if len(row) >= width + 1 and all(number(v) is not None for v in row[-4:]):
            records.append((_realigned(header, row, tail_at), number_))
        else:
            partial = dict(zip(header, row))
            run = RunReading(TOOL, settings={k: v for k, v in partial.items() if k not in _TEST_KEYS}, lines=(number_, number_))
            out.runs.append(run)
    out.runs = _record_rows(records) + out.runs
    if uneven:
        out.warnings.append(f"{uneven} llama-bench CSV row(s) do not have the header's {len(header)} fields; "
                            "read with the timings aligned from the right end")
    return out
