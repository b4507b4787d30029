"""vLLM's serving benchmark: ``vllm bench serve`` (and ``benchmarks/benchmark_serving.py`` before
it), its printed result block and the JSON ``--save-result`` writes.

One run per result block (or saved object): its figures (throughputs, ``<stat>_<ttft|tpot|itl|
e2e_latency>``, duration, acceptance for speculative decoding) and settings (successful and
failed requests, concurrency, request rate, burstiness, token totals, the workload arguments of
an echoed ``Namespace(...)``, and any ``--metadata`` pairs of a saved result). A block of vLLM's
has no ``Backend:`` line (SGLang's has: :mod:`.sglang_bench`). A block with no throughput line,
or cut off before its closing rule, is kept with a warning; a run of 0 successful requests has
failed.

>>> out = read("============ Serving Benchmark Result ============\\nSuccessful requests: 10\\n"
...            "Output token throughput (tok/s): 2156.98\\nMedian TTFT (ms): 29.86\\n" + "=" * 50)
>>> run = out.runs[0]
>>> run.metrics["output_throughput"].text, run.metrics["median_ttft"].unit, run.settings
('2156.98', 'ms', {'successful_requests': '10'})
"""

from __future__ import annotations

import re

from kb.importers.read import serving
from kb.importers.read.base import Readout

TOOL = "vllm-bench"
_UNITLESS_STAT = re.compile(r"^(mean|median|std|p\d+)_(ttft|tpot|itl|e2el)$")
SOURCES = {key: value for key, value in serving.SOURCES.items() if key.startswith("vllm-project")}
"""The documentation of the output this reader knows (see :mod:`.serving`)."""

MARKERS = ("serving benchmark result", "ttft", "tpot", "itl", "e2el", "output_throughput", "throughput")
"""Words (lower case) one of which any output this reader knows holds: a cheap test before it reads."""


SETTING_KEYS: dict[str, str] = {"max_concurrent_requests": "peak_concurrent_requests"}
"""Saved-result setting keys named as vLLM's result block labels them (``Peak concurrent requests``)."""


def read(text: str) -> Readout:
    """The runs of vLLM's serving benchmark in ``text`` (see the module docstring)."""
    out = Readout()
    records, partial = serving.json_records(text)
    if records:
        for record, first, last in records:
            if _is_vllm_record(record):
                run = serving.record_run(TOOL, record, first, last)
                for key, name in SETTING_KEYS.items():
                    if key in run.settings:
                        run.settings[name] = run.settings.pop(key)
                out.runs.append(run)
                if run.failed:
                    out.warnings.append(f"the saved vLLM result at line {first} has no successful request "
                                        f"({run.settings.get('failed', '?')} failed); its zeros are no measurement")
                loose = [k for k in record if _UNITLESS_STAT.match(k)]
                if loose:
                    out.warnings.append("a saved vLLM result has latency keys without a unit (" + ", ".join(loose[:3])
                                        + "); they are not read")
        if partial and out.runs:
            out.warnings.append("a saved vLLM result is cut off; only its complete lines were read")
        return out
    lines = text.splitlines()
    start = 0
    for block in serving.blocks(lines):
        if any(label.lower() == "backend" for label, _, _ in block.entries):
            start = block.last
            continue  # SGLang's block
        settings = serving.preamble_settings(block.preamble(lines, start)) if block.banner else {}
        run = serving.block_run(TOOL, block, settings)
        start = block.last
        if not block.banner:
            out.warnings.append(serving.excerpt_warning(block))
        elif not any(name.endswith("_throughput") for name in run.metrics):
            out.warnings.append(f"a vLLM result block at line {block.first} has no throughput line; "
                                "its other figures are kept")
        elif not block.closed:
            out.warnings.append(f"the vLLM result block at line {block.first} is cut off before its closing rule; "
                                "figures after line " + str(block.last) + " may be missing")
        out.runs.append(run)
    for line in serving.cut_banners(lines):
        out.warnings.append(f"a result block's banner at line {line} is cut short; what followed it is missing")
    return out


def _is_vllm_record(record: dict) -> bool:
    """A saved result of vLLM's: its own keys (``date``, ``model_id``, ``total_token_throughput``,
    ``endpoint_type``), not SGLang's ``total_output_tokens_retokenized``."""
    if "output_throughput" not in record and "completed" not in record:
        return False
    if "total_output_tokens_retokenized" in record:
        return False
    return any(key in record for key in ("model_id", "tokenizer_id", "date", "total_token_throughput", "endpoint_type"))
