"""Attempts from benchmark result files (:mod:`kb.importers.formats.results`), read by their keys.

One attempt per run (a ``vllm-bench`` document, each ``sglang-bench`` line, a whole
``llama-bench`` file): metrics under kb's names (``output_throughput``, ``input_throughput``,
``total_throughput``, ``request_throughput`` in ``tok/s``/``req/s``; ``<stat>_ttft``,
``<stat>_tpot``, ``<stat>_itl``, ``<stat>_e2e_latency`` in ``ms``; ``acceptance_length`` in
``tokens``), figures as the file writes them. Runs of one file with the same dataset, lengths and
concurrency are one family (compared with each other; the first is the baseline). A llama-bench
file is one attempt with a series: ``output_throughput`` is the first ``tg`` test at depth 0,
``input_throughput`` the first ``pp`` test, every test also as ``<name>[test=<test>]``. The date is
the file's own (vLLM's ``date``, llama-bench's ``test_time``); SGLang's lines have none.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from kb.importers.events import Event, Session
from kb.importers.extract.measurements import SERIES_POINTS
from kb.importers.extract.model import Evidence, ExtractedAttempt, Extraction, Fact, Figure, locator_text, short_quote

_LATENCY_KEY = re.compile(r"^(mean|median|std|p\d+)_(ttft|tpot|itl|e2el|e2e_latency)_ms$")
_RATES = {"output_throughput": ("output_throughput", "tok/s"), "input_throughput": ("input_throughput", "tok/s"),
          "total_token_throughput": ("total_throughput", "tok/s"), "total_throughput": ("total_throughput", "tok/s"),
          "request_throughput": ("request_throughput", "req/s"), "accept_length": ("acceptance_length", "tokens")}


def extract_results(session: Session, out: Extraction) -> None:
    """Add the attempts of a result file's runs to ``out`` (see the module docstring)."""
    for event in session.events:
        records = event.attrs.get("records") or []
        if session.format == "llama-bench":
            attempt = _llama_bench(event, records, out)
        else:
            attempt = _serving(event, records[0], session.format) if records else None
        if attempt is not None:
            out.attempts.append(attempt)


def _number(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    text = str(value)
    return text if re.fullmatch(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text) else None


def _serving(event: Event, record: dict, fmt: str) -> ExtractedAttempt:
    where = locator_text(event.locator)
    tool = "vllm bench serve" if fmt == "vllm-bench" else "sglang bench_serving"
    concurrency = record.get("max_concurrency")
    label = record.get("model_id") or record.get("dataset_name") or ""
    title = f"{tool} {record.get('backend', '')} {label}, concurrency {concurrency if concurrency is not None else 'unlimited'}"
    title = " ".join(title.split())
    quote = short_quote(", ".join(f"{k}: {record[k]}" for k in ("backend", "model_id", "dataset_name", "max_concurrency",
                                                                "output_throughput") if k in record))
    attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=None)
    attempt.evidence.append(Evidence("approach", where, quote))
    for key, value in record.items():
        text = _number(value)
        if text is None:
            continue
        if key in _RATES:
            name, unit = _RATES[key]
        else:
            latency = _LATENCY_KEY.match(key)
            if not latency:
                continue
            kind = {"e2el": "e2e_latency"}.get(latency.group(2), latency.group(2))
            name, unit = f"{latency.group(1)}_{kind}", "ms"
        attempt.metrics.setdefault(name, Figure(name, text, unit, Evidence(f"metrics.{name}", where, f"{key}: {text}")))
    order = ["output_throughput", "total_throughput", "input_throughput"]
    attempt.metrics = {k: attempt.metrics[k] for k in sorted(attempt.metrics, key=lambda n: order.index(n) if n in order else 9)}
    stamp = re.fullmatch(r"(\d{4})(\d{2})(\d{2})-\d{6}", str(record.get("date", "")))
    if stamp:
        attempt.date = dt.date(int(stamp.group(1)), int(stamp.group(2)), int(stamp.group(3)))
        attempt.date_basis = f"dated {attempt.date.isoformat()} from the result file's own date ({record['date']}, local time)"
    if record.get("failed") and not record.get("completed"):
        attempt.outcome, attempt.explicit_outcome = "failed", True
        attempt.error = f"all {record['failed']} requests failed"
    attempt.family = "|".join(str(record.get(k)) for k in ("dataset_name", "random_input_len", "random_output_len",
                                                            "max_concurrency", "num_prompts"))
    attempt.key = f"{where}|{quote}"
    return attempt


def _llama_bench(event: Event, records: list[dict], out: Extraction) -> ExtractedAttempt | None:
    where = locator_text(event.locator)
    tests: list[tuple[str, str]] = []  # (test name, t/s as written)
    for record in records:
        if "avg_ts" in record:
            n_prompt, n_gen, depth = (int(record.get(k) or 0) for k in ("n_prompt", "n_gen", "n_depth"))
            test = f"pp{n_prompt}" if n_gen == 0 else f"tg{n_gen}" if n_prompt == 0 else f"pp{n_prompt}+tg{n_gen}"
            test += f" @ d{depth}" if depth else ""
            value = _number(record.get("avg_ts"))
        else:
            test = record.get("test", "")
            value = (re.match(r"\s*([\d.]+)", record.get("t/s", "")) or [None, None])[1]
        if value:
            tests.append((test, value))
    if not tests:
        return None
    first = records[0]
    model = first.get("model_type") or first.get("model") or "model"
    gpu = first.get("gpu_info")
    title = f"llama-bench {model}" + (f" on {gpu}" if gpu else "")
    quote = short_quote(event.text.splitlines()[0] if event.text else title)
    attempt = ExtractedAttempt(anchor=Evidence("attempt", where, quote), title=title, approach=title, date=None)
    attempt.evidence.append(Evidence("approach", where, quote))
    for name, prefix in (("output_throughput", "tg"), ("input_throughput", "pp")):
        found = [(t, v) for t, v in tests if t.startswith(prefix) and "+" not in t]
        plain = [(t, v) for t, v in found if "@" not in t] or found
        if plain:
            attempt.metrics[name] = Figure(name, plain[0][1], "tok/s", Evidence(f"metrics.{name}", where, f"{plain[0][0]}: {plain[0][1]} t/s"))
    if len(tests) > 1:
        for test, value in tests[:SERIES_POINTS]:
            name = f"{'input' if test.startswith('pp') else 'output'}_throughput[test={test}]"
            attempt.metrics.setdefault(name, Figure(name, value, "tok/s", Evidence(f"metrics.{name}", where, f"{test}: {value} t/s")))
    flags = []
    for key, flag in (("n_gpu_layers", "-ngl"), ("n_batch", "-b"), ("n_ubatch", "-ub"), ("flash_attn", "-fa")):
        if key in first and _number(first[key]) is not None:
            flags.append(f"{flag} {first[key]}")
    if "ngl" in first:
        flags.append(f"-ngl {first['ngl']}")
    attempt.flags = flags
    when = str(first.get("test_time", ""))
    if re.match(r"\d{4}-\d{2}-\d{2}", when):
        attempt.date = dt.date.fromisoformat(when[:10])
        attempt.date_basis = f"dated {attempt.date.isoformat()} from llama-bench's test_time ({when}, UTC)"
    if gpu:
        out.facts.append(Fact("platform", "gpu", str(gpu).replace("NVIDIA ", ""), Evidence("platform.gpu", where, f"gpu_info: {gpu}"), event.index))
        attempt.facts = [out.facts[-1]]
    attempt.family = f"llama-bench|{model}"
    attempt.key = f"{where}|{quote}"
    return attempt
