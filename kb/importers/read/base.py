"""What every reader returns and the number syntax they share (the readers import it; it imports
none of them: :mod:`.run` runs them in order over one output).

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


_DECIMAL_COMMA = re.compile(r"(?<![\w.,])(\d+),(\d{1,2})(?![\w,])")


def decimal_points(text: str) -> str:
    """``text`` with each decimal comma written as a point (``77,6 tok/s`` → ``77.6 tok/s``,
    ``0,74 s`` → ``0.74 s``), as French, German, Spanish and most of Europe write decimals; the
    length is kept, so places in the text stay. A comma before three digits stays a thousands
    separator (``1,234``).

    >>> decimal_points("77,6 tok/s, 0,74 s, 1,234 tokens, 14:02:11,304")
    '77.6 tok/s, 0.74 s, 1,234 tokens, 14:02:11,304'
    """
    return _DECIMAL_COMMA.sub(r"\1.\2", text) if "," in text else text


def claimed(readout: Readout) -> set[int]:
    """The line numbers the runs of ``readout`` span."""
    return {n for run in readout.runs for n in range(run.lines[0], run.lines[1] + 1)}
