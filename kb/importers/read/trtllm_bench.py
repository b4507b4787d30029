"""TensorRT-LLM's ``trtllm-bench`` (``throughput`` and ``latency``) report.

Facts (NVIDIA/TensorRT-LLM ``tensorrt_llm/bench/dataclasses/reporting.py`` and
``docs/source/performance/perf-benchmarking.md``): the report is a series of sections, each under
a banner of ``=`` lines with a ``= TITLE`` line (``ENGINE DETAILS`` or ``PYTORCH BACKEND``,
``WORLD + RUNTIME INFORMATION``, ``REQUEST DETAILS``, ``PERFORMANCE OVERVIEW``, ...), one
``Label (unit): value`` a line; latency breakdowns print ``[Latency] P50 : 123.4`` lines. Older
releases print ``Token Throughput (tokens/sec)`` for the output throughput, newer ones ``Total
Output Throughput (tokens/sec)`` beside ``Total Token Throughput``.

One run per report (a ``PERFORMANCE OVERVIEW`` section): its figures named as kb names them
(:data:`LABELS`; ``[Latency] P90`` → ``p90_e2e_latency``, ``[TTFT] AVERAGE`` → ``mean_ttft``) and its
settings (model, versions, dtypes, TP/PP/EP sizes, batch and token limits, request counts and
lengths). A report without a performance section is warned about and gives no run.

>>> text = "= PERFORMANCE OVERVIEW\\nRequest Throughput (req/sec):  43.2089\\nTotal Output Throughput (tokens/sec): 5530.7382"
>>> read(text).runs[0].metrics["output_throughput"].text
'5530.7382'
"""

from __future__ import annotations

import re

from kb.importers.read.base import Measure, Readout, RunReading, number

TOOL = "trtllm-bench"
SOURCES = {
    "NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py (report sections and labels)": (
        "PERFORMANCE OVERVIEW", "ENGINE DETAILS", "PYTORCH BACKEND", "WORLD + RUNTIME INFORMATION", "REQUEST DETAILS",
        "Request Throughput (req/sec)", "Total Output Throughput (tokens/sec)", "Total Token Throughput (tokens/sec)",
        "Token Throughput (tokens/sec)", "Total Latency (ms)", "Average request latency (ms)",
        "Per User Output Throughput", "Per GPU Output Throughput (tps/gpu)", "Number of requests",
        "Number of concurrent requests", "Average Input Length (tokens)", "Average Output Length (tokens)",
        "Max Runtime Batch Size", "Max Runtime Tokens", "KV Cache Dtype", "KV Memory Percentage",
        "Scheduling Policy", "Issue Rate (req/sec)", "Average time-to-first-token", "Average time-per-output-token",
        "Request Latency Breakdown"),
}
"""The documentation of the output this reader knows."""

_SECTION = re.compile(r"^\s*=\s+([A-Z][A-Z +/&-]+?)\s*$")
_LINE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")
_PERCENTILE = re.compile(r"^\s*\[(Latency|TTFT|TPOT|GEN_TPS|ITL)\]\s+(P\d+(?:\.\d+)?|MINIMUM|MAXIMUM|AVERAGE|MEAN|MEDIAN)\s*:\s*(\S+)")
_STAT = {"minimum": "min", "maximum": "max", "average": "mean", "mean": "mean", "median": "median"}
_GROUP = {"latency": ("e2e_latency", "ms"), "ttft": ("ttft", "ms"), "tpot": ("tpot", "ms"), "itl": ("itl", "ms"),
          "gen_tps": ("per_user_output_throughput", "tok/s")}

LABELS: dict[str, tuple[str, str | None]] = {
    "request throughput (req/sec)": ("request_throughput", "req/s"),
    "total output throughput (tokens/sec)": ("output_throughput", "tok/s"),
    "token throughput (tokens/sec)": ("output_throughput", "tok/s"),
    "total token throughput (tokens/sec)": ("total_throughput", "tok/s"),
    "total latency (ms)": ("total_latency", "ms"),
    "average request latency (ms)": ("mean_e2e_latency", "ms"),
    "per user output throughput [w/ ctx] (tps/user)": ("per_user_output_throughput", "tok/s"),
    "per user output throughput (tps/user)": ("per_user_output_throughput", "tok/s"),
    "per user output speed [1/tpot] (tps/user)": ("per_user_output_speed", "tok/s"),
    "per gpu output throughput (tps/gpu)": ("per_gpu_output_throughput", "tok/s"),
    "average time-to-first-token [ttft] (ms)": ("mean_ttft", "ms"),
    "average time-per-output-token [tpot] (ms)": ("mean_tpot", "ms"),
    "issue rate (req/sec)": ("issue_rate", None),
    "model": ("model", None),
    "model path": ("model_path", None),
    "tensorrt llm version": ("version", None),
    "tensorrt-llm version": ("version", None),
    "dtype": ("dtype", None),
    "kv cache dtype": ("kv_cache_dtype", None),
    "quantization": ("quantization", None),
    "max sequence length": ("max_seq_len", None),
    "tp size": ("tp", None),
    "pp size": ("pp", None),
    "ep size": ("ep", None),
    "max runtime batch size": ("max_batch_size", None),
    "max runtime tokens": ("max_num_tokens", None),
    "scheduling policy": ("scheduling_policy", None),
    "kv memory percentage": ("kv_memory_percentage", None),
    "number of requests": ("num_requests", None),
    "number of concurrent requests": ("concurrency", None),
    "average input length (tokens)": ("input_len", None),
    "average output length (tokens)": ("output_len", None),
}
"""Report labels (lower case, spaces collapsed) → (name, unit); a ``None`` unit makes a setting."""


def read(text: str) -> Readout:
    """The runs of ``trtllm-bench`` in ``text`` (see the module docstring)."""
    out = Readout()
    lines = text.splitlines()
    run: RunReading | None = None
    settings: dict[str, str] = {}
    section = ""
    first = 0
    for number_, raw in enumerate(lines, 1):
        heading = _SECTION.match(raw)
        if heading:
            section = heading.group(1).strip()
            if not first:
                first = number_
            if section.endswith("BACKEND"):
                settings["backend"] = section.rsplit(" ", 1)[0].lower()
            if section == "PERFORMANCE OVERVIEW":
                run = RunReading(TOOL, settings=settings, lines=(first, number_))
                out.runs.append(run)
                settings, first = {}, 0
            continue
        if not section:
            continue
        found = _PERCENTILE.match(raw)
        if found and run is not None:
            group, unit = _GROUP[found.group(1).lower()]
            stat = found.group(2).lower()
            value = number(found.group(3))
            if value is not None:
                run.metrics[f"{_STAT.get(stat, stat)}_{group}"] = Measure(value, unit, line=number_)
                run.lines = (run.lines[0], number_)
            continue
        found = _LINE.match(raw)
        if not found:
            continue
        label = " ".join(found.group(1).lower().split())
        if label not in LABELS:
            continue
        name, unit = LABELS[label]
        target = run.settings if run is not None else settings
        if unit is None:
            target[name] = found.group(2)
        elif run is not None and (value := number(found.group(2).split()[0])) is not None:
            run.metrics[name] = Measure(value, unit, line=number_)
        if run is not None:
            run.lines = (run.lines[0], number_)
    if settings and not out.runs and any(key in settings for key in ("tp", "num_requests", "max_batch_size")):
        out.warnings.append("a trtllm-bench report without its PERFORMANCE OVERVIEW section (cut off?); no figure read")
    return out
