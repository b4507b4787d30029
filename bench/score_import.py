"""Score `kb import` against the labelled corpus under tests/corpus/ (issue 10, deliverable 8).

    python bench/score_import.py [--corpus DIR] [--json] [--details] [--jobs N] [NAME ...]

Each log ``tests/corpus/NAME.EXT`` has a truth file ``NAME.truth.yaml`` listing the attempts a
person finds in it (see tests/corpus/README.md for the schema). For each truth file this script
writes a scratch records folder holding one platform and one campaign built from the truth's
``campaign:``, runs ``python -m kb --records SCRATCH import LOG --campaign ID --dry-run --json``
in a subprocess, and matches the drafts to the truth attempts:

- a draft matches a truth attempt whose ``where.lines`` range holds the first line of the draft's
  anchor (``file.jsonl:9``, ``notebook.md:27-33``, ``line 5``, ``lines 21-23``), or whose
  ``where.id`` occurs in the anchor (opencode part ids);
- one draft per truth attempt: when several truth attempts share a range (the arms of an A/B
  row), a draft goes first to one whose metric value it carries, then to the first one left;
  drafts left over count as false positives.

It prints, per log and overall: drafts, truth attempts, matched, precision, recall and, of the
matched attempts, the share with the right metric (a draft metric with the truth's name, or a
point of its series ``name[dim=value]``, and unit, whose value is within 0.5 %), the right outcome, the right error line (of failed truth
attempts that name one: the draft's ``error`` holds it after collapsing whitespace, or the
draft error's last exception line equals it), the right date, and (for information) the share
whose title or approach holds one of the truth's approach keywords. A kb crash on one log counts
as 0 drafts for that log and is reported; the other logs are scored. Exit status is always 0:
this measures, it does not judge. Targets (issue 10): recall ≥ 0.9, precision ≥ 0.85,
metric ≥ 0.9, outcome ≥ 0.85, error line ≥ 0.85.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "tests" / "corpus"
CORPUS = CORPORA / "dev"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's libyaml loader where PyYAML was built with it (several times quicker), else its Python one."""
HALVES = ("dev", "sealed")
if str(ROOT) not in sys.path:  # score this checkout's kb, installed or not (the subprocesses get PYTHONPATH too)
    sys.path.insert(0, str(ROOT))

FORMATS = ("claude", "codex", "opencode", "gemini", "aider", "specstory", "markdown", "claude-export",
           "vllm-bench", "sglang-bench", "llama-bench", "text")
"""Values a truth file's ``format`` may take: kb's reader names plus the result-file formats
(``text``: a raw tool output, such as a console capture)."""
KINDS = ("notebook", "results", "tool-output", "transcript", "transcript-recreated", "unrelated")
"""Values a truth file's ``kind`` may take (tests/corpus/README.md)."""
OUTCOMES = ("baseline", "improved", "regressed", "neutral", "failed", "inconclusive")
UNITS = ("tok/s", "req/s", "ms", "s", "us", "GB/s", "MiB/s", "TFLOPS", "it/s", "tokens", "x", "%", "GB", "GiB", "MB")
"""Units a truth metric may carry (kb spellings such as ``tokens/s``/``t/s``/``µs`` are
normalised to these before comparing). Memory sizes (GB, GiB, MB) and MiB/s were added with the
third sealed half, whose truth measures a largest allocation and a bandwidth as printed."""
TOLERANCE = 0.005
"""Relative tolerance for a metric value to count as right (0.5 %)."""
TARGETS = {"precision": 0.85, "recall": 0.85, "metric": 0.85, "outcome": 0.85, "error_line": 0.85, "date": 0.9}
"""Issue 22's targets for the overall figures of the sealed half (the dev half no lower)."""
SCRATCH_PLATFORM = "corpus-platform"
SCRATCH_CAMPAIGN = "corpus-campaign"

_UNIT_ALIASES = {"tokens/s": "tok/s", "token/s": "tok/s", "t/s": "tok/s", "tok/sec": "tok/s", "tps": "tok/s",
                 "µs": "us", "μs": "us", "usec": "us", "gb/s": "GB/s", "tflops": "TFLOPS", "tflop/s": "TFLOPS",
                 "it/s": "it/s", "req/sec": "req/s", "token": "tokens"}
_ANCHOR_LINES = re.compile(r"(?:^|[:\s])(?:lines?\s+)?(\d+)(?:\s*-\s*(\d+))?\s*$")
_METRIC_TEXT = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(\S.*)?$")
_EXCEPTION_LINE = re.compile(r"^\s*[\w.]*(?:Error|Exception|Warning|Failure|Unsupported|Interrupt)\b[^\n]*:")


def norm_unit(unit: str | None) -> str | None:
    """``unit`` in the corpus spelling (``tokens/s`` → ``tok/s``, ``µs`` → ``us``); None stays None."""
    if unit is None:
        return None
    u = unit.strip()
    return _UNIT_ALIASES.get(u, _UNIT_ALIASES.get(u.lower(), u))


def collapse(text: str) -> str:
    """``text`` with every run of whitespace made one space, ends stripped."""
    return re.sub(r"\s+", " ", text).strip()


# --------------------------------------------------------------------------- truth files

@dataclass
class Truth:
    """One truth file: ``path`` (the .truth.yaml), ``log`` (file name next to it), ``format``,
    ``origin``, ``campaign`` (dict: model, gpu, gpu_count, compute_capability, metric, unit,
    direction) and ``attempts`` (dicts as written: where, approach, outcome, metric, error, date)."""

    path: Path
    log: str
    format: str
    origin: str
    campaign: dict[str, Any]
    attempts: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)
    """The whole truth file as read (``kind``, ``origin_repo``, ``recreated_from``, ...)."""

    @property
    def log_path(self) -> Path:
        return self.path.parent / self.log


def load_truths(corpus: Path = CORPUS, names: list[str] | None = None) -> list[Truth]:
    """Every ``*.truth.yaml`` under ``corpus`` (sorted by name), optionally only those whose log
    is named in ``names`` (its file name, its truth file's stem, or the file name up to a dot). Raises ValueError naming the file when one is not a mapping."""
    truths = []
    for path in sorted(corpus.glob("*.truth.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER)
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping with log, format, campaign, attempts")
        truth = Truth(path, str(data.get("log", "")), str(data.get("format", "")), str(data.get("origin", "")),
                      data.get("campaign") or {}, data.get("attempts") or [], data)
        stem = path.name[: -len(".truth.yaml")]
        if names and not any(n in (truth.log, stem) or truth.log.startswith(n + ".") for n in names):
            continue
        truths.append(truth)
    return truths


def validate_truth(truth: Truth) -> list[str]:
    """Problems with one truth file, each naming the file (and attempt) and what is expected:
    the log exists; the format, outcomes and units come from the lists above; line ranges lie
    within the log; ids occur in it; approach has 1-3 lowercase keywords; failed attempts that
    carry a metric are not allowed to lack an outcome. Empty list when the file is sound."""
    where = truth.path.name
    problems = []
    if not truth.log_path.is_file():
        return [f"{where}: log {truth.log!r} not found next to the truth file"]
    raw = truth.log_path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    nlines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if len(raw) > 64 * 1024:
        problems.append(f"{where}: log is {len(raw)} bytes; corpus logs stay at or under 64 KB")
    if truth.format not in FORMATS:
        problems.append(f"{where}: format {truth.format!r} is not one of {', '.join(FORMATS)}")
    for key in ("model", "gpu", "gpu_count", "compute_capability", "metric", "unit", "direction"):
        if key not in truth.campaign:
            problems.append(f"{where}: campaign lacks {key!r}")
    kind = truth.meta.get("kind")
    if kind is not None and kind not in KINDS:
        problems.append(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    if kind is not None and not truth.meta.get("origin_repo"):
        problems.append(f"{where}: origin_repo (owner/name of the public repository) is missing")
    if not truth.attempts and kind != "unrelated":
        problems.append(f"{where}: no attempts listed (only a log of kind 'unrelated' has none)")
    for i, att in enumerate(truth.attempts, 1):
        at = f"{where}: attempt {i}"
        w = att.get("where") or {}
        if "lines" in w:
            lines = w["lines"]
            if not (isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) for n in lines)
                    and 1 <= lines[0] <= lines[1] <= nlines):
                problems.append(f"{at}: where.lines {lines!r} must be [first, last] within 1..{nlines}")
        elif "id" in w:
            if str(w["id"]) not in text:
                problems.append(f"{at}: where.id {w['id']!r} does not occur in {truth.log}")
        else:
            problems.append(f"{at}: where needs lines: [first, last] or id: ...")
        for extra in att.get("also") or []:
            if not (isinstance(extra, list) and len(extra) == 2 and all(isinstance(n, int) for n in extra)
                    and 1 <= extra[0] <= extra[1] <= nlines):
                problems.append(f"{at}: also {extra!r} must be a list of [first, last] ranges within 1..{nlines}")
        approach = att.get("approach")
        if not (isinstance(approach, list) and 1 <= len(approach) <= 3
                and all(isinstance(a, str) and a == a.lower() and a for a in approach)):
            problems.append(f"{at}: approach must be 1-3 lowercase keywords, got {approach!r}")
        if att.get("outcome") not in OUTCOMES:
            problems.append(f"{at}: outcome {att.get('outcome')!r} is not one of {', '.join(OUTCOMES)}")
        metric = att.get("metric")
        if metric is not None:
            if not (isinstance(metric, dict) and isinstance(metric.get("name"), str)
                    and isinstance(metric.get("value"), (int, float)) and metric.get("unit") in UNITS):
                problems.append(f"{at}: metric needs name, a numeric value and a unit among {', '.join(UNITS)}")
        if att.get("outcome") == "failed" and "error" in att and not str(att["error"]).strip():
            problems.append(f"{at}: error is empty")
        if "date" in att and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(att["date"])):
            problems.append(f"{at}: date {att['date']!r} must be YYYY-MM-DD")
    return problems


# --------------------------------------------------------------------------- running kb

def write_scratch_records(root: Path, campaign: dict[str, Any]) -> str:
    """Write ``root/platforms`` and ``root/campaigns`` with one platform and one campaign from a
    truth's ``campaign:``; return the campaign id. A headline unit kb does not know yet (kb's
    ``UNITS``) falls back to ``output_throughput`` in tok/s so that the records stay valid."""
    from kb.models import UNITS as KB_UNITS  # the kb under test decides which units are valid

    metric, unit = str(campaign.get("metric", "output_throughput")), str(campaign.get("unit", "tok/s"))
    if unit not in KB_UNITS:
        metric, unit = "output_throughput", "tok/s"
    cc = str(campaign.get("compute_capability", "9.0"))
    if not re.fullmatch(r"\d+\.\d+", cc):
        cc = "9.0"  # a log of no GPU (kind unrelated) or of one without a compute capability
    direction = str(campaign.get("direction", "higher"))
    campaign = {**campaign, "direction": direction if direction in ("higher", "lower") else "higher",
                "gpu_count": max(int(campaign.get("gpu_count") or 1), 1) if str(campaign.get("gpu_count", 1)).isdigit() else 1}
    (root / "platforms").mkdir(parents=True, exist_ok=True)
    (root / "campaigns").mkdir(parents=True, exist_ok=True)
    platform = {"title": f"{campaign.get('gpu_count', 1)}x {campaign.get('gpu', 'GPU')}",
                "gpu": str(campaign.get("gpu", "GPU")), "gpu_count": int(campaign.get("gpu_count", 1)),
                "compute_capability": cc, "arch": "sm_" + cc.replace(".", "")}
    camp = {"title": f"{campaign.get('model', 'model')} (corpus)", "model": str(campaign.get("model", "model")),
            "platform": SCRATCH_PLATFORM,
            "metric": {"name": metric, "unit": unit, "direction": str(campaign.get("direction", "higher"))}}
    (root / "platforms" / f"{SCRATCH_PLATFORM}.yaml").write_text(yaml.safe_dump(platform, sort_keys=False), encoding="utf-8")
    (root / "campaigns" / f"{SCRATCH_CAMPAIGN}.yaml").write_text(yaml.safe_dump(camp, sort_keys=False), encoding="utf-8")
    return SCRATCH_CAMPAIGN


def run_kb(truth: Truth, timeout: float = 120.0, in_process: bool = False) -> tuple[dict[str, Any] | None, str | None]:
    """Run ``kb import LOG --campaign ID --dry-run --json`` on one truth's log in a scratch records
    folder: as ``python -m kb`` in a subprocess, or (``in_process``, for the test suite, which
    cannot spend a Python start-up per log) through the same click command in this process.
    Returns (the parsed JSON report, None) or (None, a one-line reason) when kb crashed, timed
    out or printed no JSON. A file-level error inside the report is returned with it."""
    with tempfile.TemporaryDirectory(prefix="kb-corpus-") as tmp:
        records = Path(tmp) / "records"
        campaign = write_scratch_records(records, truth.campaign)
        args = ["--records", str(records), "import", str(truth.log_path), "--campaign", campaign, "--dry-run", "--json"]
        if in_process:
            from click.testing import CliRunner

            from kb.cli import cli

            result = CliRunner().invoke(cli, args, catch_exceptions=True)
            stdout, stderr, code = result.stdout, result.stderr if result.stderr_bytes is not None else "", result.exit_code
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                stderr += f"\n{type(result.exception).__name__}: {result.exception}"
        else:
            try:
                proc = subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True,
                                      timeout=timeout, cwd=tmp, env={**os.environ, "PYTHONPATH": str(ROOT)})
            except subprocess.TimeoutExpired:
                return None, f"kb import timed out after {timeout:.0f} s"
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        lines = [ln for ln in (stderr or "").strip().splitlines() if ln.strip()]
        return None, f"kb exited {code}: {lines[-1] if lines else 'no output'}"
    errors = [f["error"] for f in report.get("files", []) if f.get("error")]
    return report, ("; ".join(errors) if errors else None)


# --------------------------------------------------------------------------- matching

def anchor_lines(anchor: str) -> tuple[int, int] | None:
    """(first, last) line of a draft anchor such as ``log.jsonl:9``, ``notes.md:27-33``,
    ``line 5`` or ``lines 21-23``; None for id anchors (``export.json#msg_1/prt_2``)."""
    if "#" in anchor:
        return None
    found = _ANCHOR_LINES.search(anchor)
    if not found:
        return None
    first = int(found.group(1))
    return first, int(found.group(2) or first)


def parse_metric(value: Any) -> tuple[float, str | None] | None:
    """A draft metric (``"89.52 tok/s"`` or ``{value, unit}``) as (value, normalised unit)."""
    if isinstance(value, dict) and isinstance(value.get("value"), (int, float)):
        return float(value["value"]), norm_unit(value.get("unit"))
    if isinstance(value, (int, float)):
        return float(value), None
    if isinstance(value, str):
        found = _METRIC_TEXT.match(value)
        if found:
            return float(found.group(1)), norm_unit(found.group(2))
    return None


def close(a: float, b: float) -> bool:
    """True when ``a`` is within :data:`TOLERANCE` of ``b`` (relative to ``b``)."""
    return abs(a - b) <= TOLERANCE * max(abs(b), 1e-12)


def metric_right(record: dict[str, Any], truth_metric: dict[str, Any]) -> bool:
    """Whether the draft record has a metric with the truth's name and unit and a value within
    0.5 %. A sweep's points count under their series names (``median_us[size=4096]``)."""
    name = truth_metric["name"]
    metrics = record.get("metrics") or {}
    candidates = [v for k, v in metrics.items() if k == name or k.startswith(name + "[")]
    for got in candidates:
        parsed = parse_metric(got)
        if parsed and parsed[1] == norm_unit(truth_metric["unit"]) and close(parsed[0], float(truth_metric["value"])):
            return True
    return False


def carries_value(record: dict[str, Any], value: float) -> bool:
    """Whether any metric of the draft has ``value`` (within 0.5 %), whatever its name."""
    for got in (record.get("metrics") or {}).values():
        parsed = parse_metric(got)
        if parsed and close(parsed[0], value):
            return True
    return False


_PLACEHOLDER = re.compile(r"<(?:secret|host|user|email)>")


def _token_re(token: str) -> re.Pattern[str]:
    """A draft token as a pattern: kb's redaction placeholders (``<host>``, ``<user>``,
    ``<secret>``, ``<email>``) stand for any run of non-space characters."""
    parts = _PLACEHOLDER.split(token)
    return re.compile(r"\S*".join(re.escape(p) for p in parts))


def holds(draft_text: str, truth_text: str, whole: bool = False) -> bool:
    """Whether ``truth_text`` occurs in ``draft_text`` (or equals it, ``whole``) after collapsing
    whitespace, where a redaction placeholder in the draft matches whatever the log had there
    (the truth keeps the log's text; kb redacts hosts, users and secrets before drafting)."""
    d, t = collapse(draft_text).split(" "), collapse(truth_text).split(" ")
    if t == [""] or len(t) > len(d) or (whole and len(t) != len(d)):
        return False
    for i in ([0] if whole else range(len(d) - len(t) + 1)):
        if all(_token_holds(d[i + j], want, edge_start=(j == 0 and not whole), edge_end=(j == len(t) - 1 and not whole))
               for j, want in enumerate(t)):
            return True
    return False


def _token_holds(got: str, want: str, edge_start: bool, edge_end: bool) -> bool:
    """One token: ``want`` equals ``got`` (placeholders in ``got`` match any non-space run); at
    the start of the truth text ``want`` may be a suffix of ``got``, at its end a prefix."""
    if _token_re(got).fullmatch(want):
        return True
    parts = _PLACEHOLDER.split(got)
    if edge_start and edge_end:
        return want in got or any(len(p) >= 3 and p in want for p in parts)
    if edge_start:  # ``want`` must end the token: compare with the literal text after the last placeholder
        return got.endswith(want) if len(parts) == 1 else want.endswith(parts[-1])
    if edge_end:  # ``want`` must start the token
        return got.startswith(want) if len(parts) == 1 else want.startswith(parts[0])
    return False


def error_right(record: dict[str, Any], truth_error: str) -> bool:
    """Whether the draft's ``error`` holds the truth error line (whitespace collapsed, redaction
    placeholders matching what they replaced), or the draft error's last exception-looking line
    equals it."""
    got = record.get("error")
    if not isinstance(got, str) or not got.strip():
        return False
    if holds(got, truth_error):
        return True
    exception_lines = [ln for ln in got.splitlines() if _EXCEPTION_LINE.match(ln)]
    return bool(exception_lines) and holds(exception_lines[-1], truth_error, whole=True)


def _candidates(truth: Truth, anchor: str) -> list[int]:
    """Truth attempts a draft anchored at ``anchor`` may be: those whose ``where`` range, or one
    of whose ``also`` ranges (restatements), holds the anchor's first line; or whose ``where.id``
    occurs in it. Attempts whose own range holds it come first."""
    lines = anchor_lines(anchor)
    found, restated = [], []
    for i, att in enumerate(truth.attempts):
        where = att.get("where") or {}
        if "id" in where and str(where["id"]) in anchor:
            found.append(i)
        elif "lines" in where and lines is not None and where["lines"][0] <= lines[0] <= where["lines"][1]:
            found.append(i)
        elif lines is not None and any(a <= lines[0] <= b for a, b in att.get("also") or []):
            restated.append(i)
    return found + restated


@dataclass
class LogScore:
    """What one log scored. ``pairs``: (truth attempt index, draft dict) for each match;
    ``extra``: drafts that matched no truth attempt; ``missed``: truth attempt indices without a
    draft; ``error``: kb's crash or file error, if any."""

    log: str
    format: str
    drafts: int = 0
    truth: int = 0
    matched: int = 0
    metric: list[bool] = field(default_factory=list)
    outcome: list[bool] = field(default_factory=list)
    error_line: list[bool] = field(default_factory=list)
    date: list[bool] = field(default_factory=list)
    approach: list[bool] = field(default_factory=list)
    pairs: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)
    error: str | None = None
    possible: int = 0
    missed_possible: int = 0

    def row(self) -> dict[str, Any]:
        """The per-log figures as plain data (shares are None where nothing was counted)."""
        return {"log": self.log, "format": self.format, "drafts": self.drafts, "truth": self.truth,
                "matched": self.matched, "possible": self.possible, "missed_possible": self.missed_possible,
                "wrong_figure": self.metric.count(False), "precision": ratio(self.matched, self.drafts),
                "recall": ratio(self.matched, self.truth), "metric": share(self.metric),
                "outcome": share(self.outcome), "error_line": share(self.error_line), "date": share(self.date),
                "approach": share(self.approach), "kb_error": self.error}


def ratio(a: int, b: int) -> float | None:
    """a / b, or None when b is 0."""
    return a / b if b else None


def share_of(values: list[float]) -> float | None:
    """The mean of ``values``; None when empty."""
    return sum(values) / len(values) if values else None


def share(flags: list[bool]) -> float | None:
    """The share of True in ``flags``; None when empty."""
    return sum(flags) / len(flags) if flags else None


def score_log(truth: Truth, report: dict[str, Any] | None, error: str | None = None) -> LogScore:
    """Match the drafts of one kb report (None: kb crashed, 0 drafts) to ``truth``'s attempts and
    count the right metrics, outcomes, error lines and dates of the matched ones."""
    drafts = [d for f in (report or {}).get("files", []) for d in f.get("drafts", [])]
    score = LogScore(truth.log, truth.format, drafts=len(drafts), truth=len(truth.attempts), error=error)
    taken: dict[int, dict[str, Any]] = {}
    pending = []
    for draft in drafts:  # first pass: a draft goes to a candidate whose figure it carries
        record = draft.get("record") or {}
        cands = [i for i in _candidates(truth, str(draft.get("anchor", ""))) if i not in taken]
        valued = [i for i in cands if (truth.attempts[i].get("metric") or {}).get("value") is not None
                  and carries_value(record, float(truth.attempts[i]["metric"]["value"]))]
        if valued:
            taken[valued[0]] = draft
        else:
            pending.append(draft)
    for draft in pending:  # second pass: the first candidate left
        cands = [i for i in _candidates(truth, str(draft.get("anchor", ""))) if i not in taken]
        if cands:
            taken[cands[0]] = draft
        else:
            score.extra.append(draft)
    possible = [d for f in (report or {}).get("files", []) for d in f.get("possible", [])]
    score.possible = len(possible)
    possible_hits = {i for d in possible for i in _candidates(truth, str(d.get("anchor", "")))}
    for i, att in enumerate(truth.attempts):
        draft = taken.get(i)
        if draft is None:
            score.missed.append(i)
            score.missed_possible += i in possible_hits
            continue
        record = draft.get("record") or {}
        score.matched += 1
        score.pairs.append((i, draft))
        if att.get("metric"):
            score.metric.append(metric_right(record, att["metric"]))
        score.outcome.append(record.get("outcome") == att.get("outcome"))
        if att.get("outcome") == "failed" and att.get("error"):
            score.error_line.append(error_right(record, str(att["error"])))
        if att.get("date"):
            score.date.append(str(record.get("date")) == str(att["date"]))
        if att.get("approach"):
            said = f"{record.get('title', '')} {record.get('approach', '')}".lower()
            score.approach.append(any(str(word).lower() in said for word in att["approach"]))
    return score


def score_corpus(corpus: Path = CORPUS, names: list[str] | None = None, jobs: int | None = None,
                 in_process: bool = False) -> list[LogScore]:
    """Run kb on every truth file's log and score each: in subprocesses, ``jobs`` at a time
    (default: the CPU count), or one after another in this process (``in_process``)."""
    truths = load_truths(corpus, names)

    def one(truth: Truth) -> LogScore:
        report, error = run_kb(truth, in_process=in_process)
        return score_log(truth, report, error)

    if in_process:
        return [one(truth) for truth in truths]
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
        return list(pool.map(one, truths))


def summary(scores: list[LogScore]) -> dict[str, Any]:
    """Overall figures: drafts, truth, matched, precision, recall, and the shares of right metric,
    outcome, error line and date over all matched attempts (None where nothing was counted)."""
    drafts = sum(s.drafts for s in scores)
    truth = sum(s.truth for s in scores)
    matched = sum(s.matched for s in scores)

    def pooled(attr: str) -> float | None:
        return share([flag for s in scores for flag in getattr(s, attr)])

    def counted(attr: str) -> list[int]:
        flags = [flag for s in scores for flag in getattr(s, attr)]
        return [sum(flags), len(flags)]

    per_log = [s.row() for s in scores]
    return {"logs": len(scores), "drafts": drafts, "truth": truth, "matched": matched,
            "missed": truth - matched, "wrong_figure": sum(s.metric.count(False) for s in scores),
            "possible": sum(s.possible for s in scores), "missed_but_possible": sum(s.missed_possible for s in scores),
            "precision": ratio(matched, drafts), "recall": ratio(matched, truth),
            "macro_precision": share_of([r["precision"] for r in per_log if r["precision"] is not None]),
            "macro_recall": share_of([r["recall"] for r in per_log if r["recall"] is not None]),
            "metric": pooled("metric"), "outcome": pooled("outcome"), "error_line": pooled("error_line"),
            "date": pooled("date"), "approach": pooled("approach"),
            "counts": {k: counted(k) for k in ("metric", "outcome", "error_line", "date", "approach")},
            "kb_errors": [f"{s.log}: {s.error}" for s in scores if s.error], "targets": TARGETS}


# --------------------------------------------------------------------------- printing

def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def table(scores: list[LogScore]) -> str:
    """The per-log table and the overall line, as Markdown."""
    head = ("| log | format | drafts | truth | matched | precision | recall | metric | outcome | error line | date | approach |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = [head]
    for s in scores:
        r = s.row()
        rows.append(f"| {r['log']} | {r['format']} | {r['drafts']} | {r['truth']} | {r['matched']} | "
                    f"{_fmt(r['precision'])} | {_fmt(r['recall'])} | {_fmt(r['metric'])} | {_fmt(r['outcome'])} | "
                    f"{_fmt(r['error_line'])} | {_fmt(r['date'])} | {_fmt(r['approach'])} |")
    o = summary(scores)
    rows.append(f"| **overall** ({o['logs']} logs) | | {o['drafts']} | {o['truth']} | {o['matched']} | "
                f"{_fmt(o['precision'])} | {_fmt(o['recall'])} | {_fmt(o['metric'])} | {_fmt(o['outcome'])} | "
                f"{_fmt(o['error_line'])} | {_fmt(o['date'])} | {_fmt(o['approach'])} |")
    return "\n".join(rows)


def details(truths: list[Truth], scores: list[LogScore]) -> str:
    """Per log: each truth attempt with what its draft got wrong (or MISSED), then extra drafts."""
    out = []
    for truth, s in zip(truths, scores):
        out.append(f"\n## {s.log}" + (f"  (kb: {s.error})" if s.error else ""))
        by_index = dict(s.pairs)
        for i, att in enumerate(truth.attempts):
            where = att.get("where")
            draft = by_index.get(i)
            want = f"{att.get('outcome')} {att.get('metric') or ''} {att.get('error') or ''}".strip()
            if draft is None:
                out.append(f"  MISSED  {where} {att.get('approach')} want {want}")
                continue
            rec = draft.get("record") or {}
            got = f"{rec.get('outcome')} {rec.get('metrics') or ''} {str(rec.get('error') or '')[:80]!r} {rec.get('date')}"
            out.append(f"  match   {where} <- {draft.get('anchor')} {rec.get('title', '')[:50]!r}\n"
                       f"          want {want} {att.get('date', '')}\n          got  {got}")
        for draft in s.extra:
            rec = draft.get("record") or {}
            out.append(f"  EXTRA   {draft.get('anchor')} {rec.get('title', '')[:60]!r} {rec.get('outcome')} {rec.get('metrics')}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table (or JSON); exit 0, or 2 when kb's dependencies are missing."""
    try:
        import detect_secrets  # noqa: F401  (kb imports it lazily; without it every import fails)

        import kb.pipeline  # noqa: F401
    except ImportError as exc:
        print(f"score_import: kb cannot be imported ({exc}); install it first: pip install -e .", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="only these logs (file name or stem)")
    parser.add_argument("--half", choices=HALVES, default="dev",
                        help="the corpus half to score (tests/corpus/<half>); the sealed half is scored once (bench/README.md)")
    parser.add_argument("--corpus", type=Path, default=None, help="another folder of logs and truth files")
    parser.add_argument("--json", action="store_true", help="print {logs: [...], overall: {...}} as JSON")
    parser.add_argument("--details", action="store_true", help="also list each attempt's match and the extra drafts")
    parser.add_argument("--jobs", type=int, default=None, help="imports run at once (default: CPU count)")
    parser.add_argument("--validate", action="store_true",
                        help="only check the truth files (runs no kb); exit 1 when one has a problem")
    args = parser.parse_args(argv)
    args.corpus = args.corpus or CORPORA / args.half
    if args.validate:
        found = [p for t in load_truths(args.corpus, args.names or None) for p in validate_truth(t)]
        print("\n".join(found) if found else "truth files OK")
        return 1 if found else 0
    truths = load_truths(args.corpus, args.names or None)
    scores = score_corpus(args.corpus, args.names or None, args.jobs)
    if args.json:
        print(json.dumps({"logs": [s.row() for s in scores], "overall": summary(scores)}, indent=2))
        return 0
    print(table(scores))
    overall = summary(scores)
    for line in overall["kb_errors"]:
        print(f"kb error: {line}")
    print(f"missed {overall['missed']} (of which {overall['missed_but_possible']} listed as possible attempts), "
          f"found with a wrong figure {overall['wrong_figure']}, possible attempts {overall['possible']}; "
          f"per-log mean precision {_fmt(overall['macro_precision'])}, recall {_fmt(overall['macro_recall'])}")
    print("targets: " + ", ".join(f"{k} >= {v}" for k, v in TARGETS.items()))
    if args.details:
        print(details(truths, scores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
