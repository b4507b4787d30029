"""Running the readers over one output, in order (:func:`read_output`), and telling which
tool's documented output a text holds (:func:`recognises`)."""

from __future__ import annotations

from kb.importers.read.base import Readout, RunReading, claimed


def read_output(text: str, *, generic: bool = True) -> Readout:
    """Read one output with every reader, in the order of :mod:`kb.importers.read`: each
    documented reader reads the text whole and returns the runs it knows; the error reader adds a
    failure when no run was measured; the generic ``name value unit`` reader (``generic``) reads
    only the lines no other reader claimed. Never raises."""
    from kb.importers.read import (
        aiperf,
        errors,
        go_bench,
        lines,
        llama_bench,
        nccl_tests,
        perf_analyzer,
        printed,
        sglang_bench,
        torch_profiler,
        trtllm_bench,
        vllm_bench,
    )

    out = Readout()
    grouped = (llama_bench.read, nccl_tests.read, go_bench.read)  # readers that say which runs one invocation gave
    offset = 0
    lowered = text.lower()
    for module in (vllm_bench, sglang_bench, llama_bench, nccl_tests, trtllm_bench, aiperf, go_bench, torch_profiler,
                   perf_analyzer):
        if not any(marker in lowered for marker in module.MARKERS):
            continue  # none of the words its output always holds: nothing for it to read
        reader = module.read
        try:
            found = reader(text)
        except Exception as exc:  # a reader's bug must not cost the log: say so, read on  # noqa: BLE001
            out.warnings.append(f"the {module.TOOL} reader failed on this output ({type(exc).__name__}: {exc}); "
                                "please report it")
            continue
        taken = claimed(out)
        found.runs = [run for run in found.runs if not set(range(run.lines[0], run.lines[1] + 1)) & taken]
        for position, run in enumerate(found.runs):
            run.invocation = offset + (run.invocation if reader in grouped else position)
        offset = max((run.invocation + 1 for run in found.runs), default=offset)
        out.extend(found)
    failure = errors.read(text)
    if failure.runs and not any(run.metrics for run in out.runs):
        out.extend(failure)
    if generic and not any(run.metrics for run in out.runs):
        found = printed.read(text)
        measured = Readout([run for run in out.runs if run.tool != errors.TOOL])
        summary = lines.read(text, skip=claimed(measured) | claimed(found)) if found.runs else Readout()
        if found.runs and _summarises(summary, found):
            out.extend(_detailed(summary.runs[0], found))
        elif found.runs:
            out.extend(found)
        else:
            out.extend(lines.read(text, skip=claimed(measured)))
    out.runs.sort(key=lambda run: run.lines)
    return out


def _summarises(summary: Readout, tables: Readout) -> bool:
    """Whether ``name value unit`` lines outside the printed tables give a figure in a unit the
    tables' rows give too (``overall: 62.3 tok/s`` above per-file rows, ``decode: 82.3 tok/s (mean
    of passes 2-5)`` above a pass table): the output's own summary of those rows."""
    if not summary.runs:
        return False
    units = {m.unit for m in summary.runs[0].metrics.values()}
    return any(m.unit in units for run in tables.runs for m in run.metrics.values())


def _detailed(run: RunReading, tables: Readout) -> Readout:
    """One run: the summary's figures, with the rows it sums up as points named by each row's
    settings (``output_throughput[file=a.wav]``)."""
    for row in tables.runs:
        point = ",".join(f"{k}={v}" for k, v in row.settings.items()) or f"line={row.lines[0]}"
        for name, measure in row.metrics.items():
            run.metrics.setdefault(f"{name}[{point}]", measure)
    run.lines = (min([run.lines[0]] + [r.lines[0] for r in tables.runs]),
                 max([run.lines[1]] + [r.lines[1] for r in tables.runs]))
    return Readout([run], tables.warnings)


def recognises(text: str) -> str | None:
    """The tool whose documented output ``text`` holds (``"nccl-tests"``, ...), or ``None``: how
    a file of raw output is told from a Markdown notebook."""
    from kb.importers.read import (
        aiperf,
        go_bench,
        llama_bench,
        nccl_tests,
        perf_analyzer,
        sglang_bench,
        torch_profiler,
        trtllm_bench,
        vllm_bench,
    )

    lowered = text.lower()
    for module in (vllm_bench, sglang_bench, llama_bench, nccl_tests, trtllm_bench, aiperf, go_bench, torch_profiler,
                   perf_analyzer):
        try:
            if any(marker in lowered for marker in module.MARKERS) and module.read(text).runs:
                return str(module.TOOL)
        except Exception:  # noqa: BLE001, S112 - read_output reports it; here it only recognises nothing
            continue
    return None
