"""Benchmark result files, read exactly by their documented keys (not guessed from text).

- ``vllm-bench``: the JSON document ``vllm bench serve --save-result`` writes (one object): run
  settings (``date`` ``YYYYMMDD-HHMMSS``, ``backend``, ``model_id``, ``num_prompts``,
  ``request_rate``, ``max_concurrency``) and results (``completed``, ``failed``,
  ``request_throughput``, ``output_throughput``, ``total_token_throughput``, and
  ``mean_/median_/std_/pNN_`` + ``ttft``/``tpot``/``itl``/``e2el`` + ``_ms``); the keys are those
  of vLLM's ``benchmarks/serve.py`` result dict.
- ``sglang-bench``: the JSONL file ``python -m sglang.bench_serving --output-file`` appends to,
  one object per run: ``backend``, ``dataset_name``, ``max_concurrency``, ``random_input_len``,
  ``random_output_len``, ``request_throughput``, ``input_throughput``, ``output_throughput``,
  ``mean_/median_/p99_`` + ``e2e_latency``/``ttft``/``tpot``/``itl`` + ``_ms``,
  ``concurrency``, ``accept_length`` (SGLang's ``bench_serving.py``).
- ``llama-bench``: ``llama-bench -o json`` (an array, one object per test; ``-o jsonl`` writes
  the same objects one a line: ``model_type``,
  ``gpu_info``, ``n_gpu_layers``, ``n_batch``, ``n_prompt``, ``n_gen``, ``n_depth``,
  ``test_time``, ``avg_ts``, ``stddev_ts``; a ``pp`` test has ``n_gen`` 0, a ``tg`` test
  ``n_prompt`` 0) or its default markdown table (``| model | size | params | backend | ngl |
  ... | test | t/s |``, ``pp512``, ``tg128``, ``pp512 @ d512``, ``120.60 ± 0.59``) (llama.cpp's
  ``tools/llama-bench``).

Each run becomes one ``text`` event whose ``attrs["records"]`` holds the parsed objects (numbers
as written: JSON floats are kept as their text) and whose locator spans its lines; a
llama-bench file is one event (one attempt with a series). Nothing here decides what an attempt
is: :mod:`kb.importers.extract.results` does.
"""

from __future__ import annotations

import json
import re

from kb.importers.events import Event, Locator
from kb.importers.formats._common import Reading, json_error_message, read_text


def read(reading: Reading) -> None:
    """Fill ``reading`` with one event per run of a result file of ``reading.format``."""
    text = read_text(reading)
    lines = text.splitlines()
    if reading.format == "sglang-bench" or (reading.format == "llama-bench" and text.lstrip().startswith("{")):
        if reading.format == "llama-bench":  # llama-bench -o jsonl: the lines are the tests of one run
            records = [json.loads(line, parse_float=str) for line in lines if line.strip().startswith("{")]
            end = len([line for line in lines if line.strip()]) or 1
            reading.events.append(_event(reading, 1, end, [r for r in records if isinstance(r, dict)], text))
            return
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line, parse_float=str, parse_constant=str)
            except json.JSONDecodeError as exc:
                reading.warn(lineno, f"not valid JSON ({exc.msg}, column {exc.colno}); line skipped")
                continue
            if isinstance(record, dict):
                reading.events.append(_event(reading, lineno, lineno, [record], line))
        return
    if reading.format == "llama-bench" and not text.lstrip().startswith("["):
        rows = _markdown_rows(lines)
        if rows:
            first, last = rows[0]["line"], rows[-1]["line"]
            reading.events.append(_event(reading, first - 2 if first > 2 else 1, last, rows,
                                         "\n".join(lines[first - 1:last])))
        return
    try:
        document = json.loads(text, parse_float=str, parse_constant=str)
    except json.JSONDecodeError as exc:
        raise reading.error(exc.lineno, json_error_message(exc, text)) from exc
    records = document if isinstance(document, list) else [document]
    records = [r for r in records if isinstance(r, dict)]
    if not records:
        raise reading.error(None, f"not a {reading.format} result: expected a JSON object (or an array of them)")
    end = len(lines)
    while end > 1 and not lines[end - 1].strip():
        end -= 1
    reading.events.append(_event(reading, 1, end, records, text))


def _event(reading: Reading, start: int, end: int, records: list[dict], text: str) -> Event:
    return Event("text", Locator(reading.name, line_start=start, line_end=end), text=text[:2000],
                 attrs={"records": records})


def _markdown_rows(lines: list[str]) -> list[dict]:
    """Rows of llama-bench's markdown table as dicts (header → cell) plus ``line``."""
    header: list[str] | None = None
    rows: list[dict] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip().startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            continue
        if len(cells) == len(header):
            rows.append({**dict(zip(header, cells)), "line": lineno})
    return rows
