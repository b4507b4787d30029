"""Measurements: benchmark result lines in tool output and figures written in prose."""

from __future__ import annotations

import re

from kb.importers.events import Event
from kb.importers.extract.model import Evidence, ExtractedAttempt, Figure, locator_text, short_quote, _sentence_around

BENCH_METRICS: list[tuple[re.Pattern[str], str, str | None]] = [
    (re.compile(r"^\s*(Output token throughput|Output throughput)\s*\(tok/s\)\s*:\s*([\d.]+)", re.I | re.M), "output_throughput", "tok/s"),
    (re.compile(r"^\s*Total [Tt]oken throughput\s*\(tok/s\)\s*:\s*([\d.]+)", re.M), "total_throughput", "tok/s"),
    (re.compile(r"^\s*Input token throughput\s*\(tok/s\)\s*:\s*([\d.]+)", re.I | re.M), "input_throughput", "tok/s"),
    (re.compile(r"^\s*Request throughput\s*\(req/s\)\s*:\s*([\d.]+)", re.I | re.M), "request_throughput", "req/s"),
    (re.compile(r"^\s*(Mean|Median|P\d+)\s+(TTFT|TPOT|ITL|E2E Latency|E2EL)\s*\((ms|s)\)\s*:\s*([\d.]+)", re.I | re.M), "", None),
    (re.compile(r"^\s*(?:Mean\s+)?(?:Accept|Acceptance)(?:ed)?\s+length\s*:\s*([\d.]+)", re.I | re.M), "acceptance_length", "tokens"),
]
"""Benchmark result lines (sglang/vLLM ``bench_serving``): pattern, metric name, unit."""


_TOK_S = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:\*\*)?\s*tok/s")


def _bench_figures(output: str, result: Event) -> dict[str, Figure]:
    figures: dict[str, Figure] = {}
    where = locator_text(result.locator)
    for pattern, name, unit in BENCH_METRICS:
        for match in pattern.finditer(output):
            if name:
                metric, value, metric_unit = name, match.groups()[-1], unit or ""
            else:
                stat, what, metric_unit, value = match.groups()
                what = {"E2E LATENCY": "e2e_latency", "E2EL": "e2e_latency"}.get(what.upper(), what.lower())
                metric = f"{stat.lower()}_{what}"
            if metric in figures or not re.fullmatch(r"\d+(?:\.\d+)?", value):
                continue
            figures[metric] = Figure(metric, value, metric_unit, Evidence(f"metrics.{metric}", where, short_quote(match.group(0))))
    if "output_throughput" not in figures:  # "Output token throughput (tok/s): 54.10" in a one-line result
        match = re.search(r"throughput[^\n:]*\(tok/s\)\s*:\s*(\d+(?:\.\d+)?)", output, re.I)
        if match:
            figures["output_throughput"] = Figure("output_throughput", match.group(1), "tok/s",
                                                  Evidence("metrics.output_throughput", where, short_quote(match.group(0))))
    return figures


def _prose_figure(attempt: ExtractedAttempt, event: Event) -> None:
    match = _TOK_S.search(event.text)
    if match:
        attempt.metrics["output_throughput"] = Figure(
            "output_throughput", match.group(1), "tok/s",
            Evidence("metrics.output_throughput", locator_text(event.locator), short_quote(_sentence_around(event.text, match.start()))))
