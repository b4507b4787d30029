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

_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_TS = re.compile(rf"^\s*\**({NUMBER})\**\s*(?:±\s*({NUMBER}))?\s*$")
_BUILD = re.compile(r"^\s*build:\s*([0-9a-f]{6,40})\s*\((\d+)\)")
_TEST = re.compile(r"^(pp|tg)\s*(\d+)(?:\s*\+\s*tg\s*(\d+))?(\s*@\s*d\s*\d+)?$")
_SETTING_NAMES = {"type_k": "ctk", "type_v": "ctv", "n_gpu_layers": "ngl", "flash_attn": "fa", "n_threads": "threads",
                  "model_type": "model", "model_size": "size", "model_n_params": "params", "backends": "backend"}
_TEST_KEYS = {"n_prompt", "n_gen", "n_depth", "test_time", "avg_ns", "stddev_ns", "avg_ts", "stddev_ts", "samples_ns",
              "samples_ts", "test"}
_RECORD_KEYS = ("avg_ts", "n_prompt", "n_gen")
_UNKEPT = {"build_commit", "build_number", "cpu_info", "model_filename", "gpu_info", "cuda", "vulkan", "kompute",
           "metal", "sycl", "rpc", "gpu_blas", "blas", "cpu_mask", "cpu_strict", "poll", "tensor_split", "main_gpu",
           "no_kv_offload", "use_mmap", "embeddings", "split_mode", "devices", "tensor_buft_overrides",
           "n_cpu_moe", "no_op_offload"}


def read(text: str) -> Readout:
    """The runs of llama-bench in ``text`` (see the module docstring)."""
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        return _records(text)
    if stripped.startswith(("build_commit", '"build_commit"')):
        return _csv(text)
    return _tables(text)


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
        if header is None or "test" not in header or i + 1 >= len(lines) or not _RULE.match(lines[i + 1]):
            i += 1
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
        runs = _group(rows, lambda row: row.get("test", ""), lambda row: row.get("t/s", ""), header)
        for run in runs:
            run.invocation = tables
            if build:
                run.settings["build"] = build
        tables += 1
        if not runs and rows:
            out.warnings.append(f"the llama-bench table at line {first} has rows kb could not read")
        out.runs.extend(runs)
        if rows and not runs:
            continue
        if runs:
            runs[0].lines = (min(first, runs[0].lines[0]), runs[0].lines[1])
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


def _group(rows: list[tuple[dict[str, str], int]], test_of, ts_of, columns: list[str]) -> list[RunReading]:
    """One run per combination of the columns other than the test and its figures."""
    runs: dict[tuple, RunReading] = {}
    for row, line in rows:
        metric = test_metric(test_of(row))
        figure = _TS.match(ts_of(row))
        if metric is None or figure is None:
            continue
        settings = {_SETTING_NAMES.get(k, k): v for k, v in row.items() if k not in ("test", "t/s") and k not in _TEST_KEYS}
        key = tuple(sorted(settings.items()))
        run = runs.get(key)
        if run is None:
            run = runs[key] = RunReading(TOOL, settings=settings, lines=(line, line))
        run.lines = (run.lines[0], line)
        run.metrics[metric] = Measure(figure.group(1).replace(",", ""), "tok/s", spread=figure.group(2), line=line)
    return list(runs.values())


def _record_test(record: dict) -> str:
    prompt, gen, depth = (int(float(str(record.get(k) or 0))) for k in ("n_prompt", "n_gen", "n_depth"))
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
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _records(text: str) -> Readout:
    out = Readout()
    try:
        document = json.loads(text, parse_float=str)
        items = document if isinstance(document, list) else [document]
        records = [(item, 1) for item in items if isinstance(item, dict)]
        last = text.rstrip().count("\n") + 1
    except ValueError:
        records, last = [], 1
        for line_number, line in enumerate(text.splitlines(), 1):
            try:
                item = json.loads(line, parse_float=str)
            except ValueError:
                continue
            if isinstance(item, dict):
                records.append((item, line_number))
                last = line_number
    if not any(all(key in record for key in _RECORD_KEYS) for record, _ in records):
        return out
    out.runs = _record_rows(records)
    if len(records) == 1 and records[0][1] == 1 and out.runs:
        out.runs[0].lines = (1, last)
    return out


def _csv(text: str) -> Readout:
    out = Readout()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "avg_ts" not in rows[0]:
        return out
    header = rows[0]
    records = [(dict(zip(header, row)), number_) for number_, row in enumerate(rows[1:], 2) if len(row) == len(header)]
    skipped = len(rows) - 1 - len(records)
    out.runs = _record_rows(records)
    if skipped:
        out.warnings.append(f"{skipped} llama-bench CSV row(s) do not have the header's {len(header)} fields; skipped")
    return out
