"""What every reader returns, the number syntax they share, and :func:`read_output`, which runs
them in order over one output.

Shapes:

- :class:`Measure`: one figure as printed: ``text`` the number as written (``"2,156.98"`` is kept
  as ``"2156.98"``: digits only), ``unit`` a :data:`kb.models.UNITS` spelling, ``spread`` the
  reported spread as written (llama-bench's ``± 0.23``) or ``None``, ``line`` 1-based within the
  text read, ``generic`` when its label did not say which kind of figure of its unit it is
  (:func:`kb.importers.read.labels.qualifies`).
- :class:`RunReading`: one run an output holds: ``tool``, ``metrics`` (name → :class:`Measure`),
  ``settings`` (name → value as printed), ``lines`` (first, last; 1-based, inclusive), ``failed``
  and ``error`` (the headline of its own failure), ``documented`` (``False`` for figures read only
  from ``name value unit`` lines, which are worth less), ``invocation`` (runs of one invocation of
  the tool share it: the parameter combinations of one llama-bench table; each result block,
  table or report is an invocation of its own), ``role`` (``warmup`` for a pass the tool runs before
  it measures: the score stage leaves it out when the measured pass is there).
- :class:`Readout`: the runs of one output and the ``warnings`` (plain sentences, no file name:
  the caller knows where the output came from).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

NUMBER = r"(?:[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+)"
"""A number as benchmark tools and people print it: ``12``, ``2,156.98``, ``1.5e+03``, ``.5``."""

_NUMBER = re.compile(rf"^\s*({NUMBER})\s*$")


@dataclass(frozen=True)
class Measure:
    """One figure as printed (see the module docstring)."""

    text: str
    unit: str
    spread: str | None = None
    line: int | None = None
    generic: bool = False

    @property
    def value(self) -> float:
        """The figure as a float."""
        return float(self.text)


@dataclass
class RunReading:
    """One run read from an output (see the module docstring)."""

    tool: str
    metrics: dict[str, Measure] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    lines: tuple[int, int] = (1, 1)
    failed: bool = False
    error: str | None = None
    documented: bool = True
    invocation: int = 0
    role: str | None = None


@dataclass
class Readout:
    """The runs one output holds, in order, and what was recognised only in half."""

    runs: list[RunReading] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def extend(self, other: Readout) -> None:
        """Add ``other``'s runs and warnings after this one's (a warning already given once is not
        repeated: two readers may know the same excerpt)."""
        self.runs.extend(other.runs)
        self.warnings.extend(w for w in other.warnings if w not in self.warnings)


def number(text: str) -> str | None:
    """``text`` as a plain number string (thousands separators dropped), or ``None`` when it is
    not one number, or not a finite one.

    >>> number(" 2,156.98 "), number("1.5e+03"), number("12 tok/s"), number("nan")
    ('2156.98', '1.5e+03', None, None)
    """
    found = _NUMBER.match(text)
    if not found:
        return None
    plain = found.group(1).replace(",", "")
    return plain if math.isfinite(float(plain)) else None


def claimed(readout: Readout) -> set[int]:
    """The line numbers the runs of ``readout`` span."""
    return {n for run in readout.runs for n in range(run.lines[0], run.lines[1] + 1)}


def read_output(text: str, *, generic: bool = True) -> Readout:
    """Read one output with every reader, in the order of :mod:`kb.importers.read`: each
    documented reader reads the text whole and returns the runs it knows; the error reader adds a
    failure when no run was measured; the generic ``name value unit`` reader (``generic``) reads
    only the lines no other reader claimed. Never raises."""
    from kb.importers.read import (
        aiperf,
        errors,
        lines,
        llama_bench,
        nccl_tests,
        printed,
        sglang_bench,
        trtllm_bench,
        vllm_bench,
    )

    out = Readout()
    grouped = (llama_bench.read, nccl_tests.read)  # readers that say which runs one invocation gave
    offset = 0
    lowered = text.lower()
    for module in (vllm_bench, sglang_bench, llama_bench, nccl_tests, trtllm_bench, aiperf):
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
    from kb.importers.read import aiperf, llama_bench, nccl_tests, sglang_bench, trtllm_bench, vllm_bench

    lowered = text.lower()
    for module in (vllm_bench, sglang_bench, llama_bench, nccl_tests, trtllm_bench, aiperf):
        try:
            if any(marker in lowered for marker in module.MARKERS) and module.read(text).runs:
                return str(module.TOOL)
        except Exception:  # noqa: BLE001 - read_output reports it; here it only recognises nothing
            continue
    return None
