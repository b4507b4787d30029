"""The adversarial corpus (tests/adversarial/): every bad input gets a located message and a
non-zero exit, never a traceback; what kb accepts (a BOM, CRLF) loads to the same record.

Cases live in ``tests/adversarial/cases.yaml`` (see its header); inputs in ``inputs/``, the valid
tree each case is added to in ``base/``, and the exact output kb must give in
``expected/<case>.txt``. After a deliberate change of a message, regenerate the expected files
with ``KB_UPDATE_ADVERSARIAL=1 pytest tests/test_adversarial.py`` and review the diff.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from reliability_stats import STATS

from kb.cli import cli
from kb.store import load_records

HERE = Path(__file__).parent / "adversarial"
INPUTS = HERE / "inputs"
EXPECTED = HERE / "expected"
CASES: list[dict[str, Any]] = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))
UPDATE = bool(os.environ.get("KB_UPDATE_ADVERSARIAL"))

WHOLE_FILE = {"empty-file", "comment-only-file", "field-of-50-mb", "symlink-outside-records", "unknown-folder",
              "record-outside-kind-folder", "wrong-file-extension", "folder-named-like-a-record"}
"""Record cases whose problem is the file as a whole: the message names the file, with no line."""


def _generate(name: str) -> str:
    if name == "deep-flow":  # libyaml's composer recursed once per level and crashed here
        return "title: t\nx: " + "[" * 100_000 + "]" * 100_000 + "\n"
    if name == "deep-block":
        return "title: t\n" + "".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v\n"
    if name == "field-50mb":
        return "title: t\nnotes: " + "x" * (50 * 1024 * 1024) + "\n"
    raise ValueError(f"unknown generator {name}")


def build_tree(tmp: Path, files: dict[str, Any] | None) -> Path:
    """Copy base/ to ``tmp/records`` and add the case's files; return the records root."""
    root = tmp / "records"
    shutil.copytree(HERE / "base", root)
    for rel, src in (files or {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(src, dict) and "generate" in src:
            target.write_text(_generate(src["generate"]), encoding="utf-8")
        elif isinstance(src, dict) and "symlink_outside" in src:
            outside = tmp / "outside" / "x.yaml"
            outside.parent.mkdir()
            shutil.copy(INPUTS / src["symlink_outside"], outside)
            target.symlink_to(outside)
        else:
            shutil.copy(INPUTS / src, target)
    return root


def _subst(text: str, tmp: Path) -> str:
    return text.replace("{inputs}", str(INPUTS)).replace("{tmp}", str(tmp))


def _normalise(output: str, tmp: Path) -> list[str]:
    """Output lines with the run's own paths and today's date replaced by placeholders."""
    out = output.replace(str(INPUTS), "{inputs}").replace(str(tmp), "{tmp}")
    out = out.replace(dt.date.today().isoformat(), "{today}")
    return out.splitlines()


def _args(case: dict[str, Any], root: Path, tmp: Path) -> list[str]:
    if case["layer"] == "record":
        return ["--records", str(root), "check"]
    args = [_subst(str(a), tmp) for a in case["args"]]
    return args if args[0] == "--records" else ["--records", str(root), *args]


def _run_subprocess(args: list[str], cwd: Path) -> tuple[int, str]:
    argv = [os.fsencode(a) for a in [sys.executable, "-m", "kb", *args]]
    proc = subprocess.run(argv, capture_output=True, cwd=cwd, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    return proc.returncode, proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")


def _expected(name: str, lines: list[str]) -> list[str]:
    path = EXPECTED / f"{name}.txt"
    if UPDATE:
        EXPECTED.mkdir(exist_ok=True)
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert path.exists(), f"no expected output for {name}: run with KB_UPDATE_ADVERSARIAL=1 and review it"
    return path.read_text(encoding="utf-8").splitlines()


REJECTED = [c for c in CASES if c["layer"] != "accept" and c.get("exit", 1) != 0]
ACCEPTED_LOGS = [c for c in CASES if c["layer"] == "import" and c.get("exit") == 0]
ACCEPTED_FILES = [c for c in CASES if c["layer"] == "accept"]


def test_the_corpus_has_at_least_40_kinds_and_every_input_is_used():
    assert len(CASES) >= 40 and len({c["name"] for c in CASES}) == len(CASES)
    assert all(c["layer"] in ("record", "accept", "cli", "import") for c in CASES)
    used = {src for c in CASES for src in (c.get("files") or {}).values() if isinstance(src, str)}
    used |= {src["symlink_outside"] for c in CASES for src in (c.get("files") or {}).values()
             if isinstance(src, dict) and "symlink_outside" in src}
    used |= {m for c in CASES for a in c.get("args", []) for m in re.findall(r"\{inputs\}/([^\s\"]+)", str(a))}
    assert sorted(p.name for p in INPUTS.iterdir()) == sorted(used)
    if not UPDATE:
        assert sorted(p.stem for p in EXPECTED.iterdir()) == sorted(c["name"] for c in REJECTED + ACCEPTED_LOGS)


@pytest.mark.parametrize("case", REJECTED, ids=[c["name"] for c in REJECTED])
def test_bad_input_gets_a_located_message_and_a_non_zero_exit(tmp_path, case):
    root = build_tree(tmp_path, case.get("files"))
    args = _args(case, root, tmp_path)
    want_exit = 1 if case["layer"] == "record" else case["exit"]
    result = CliRunner().invoke(cli, args, prog_name="kb")
    assert "Traceback" not in result.output and not isinstance(result.exception, (AssertionError, TypeError,
                                                                                    KeyError, IndexError, AttributeError))
    assert result.exit_code == want_exit, result.output
    lines = _normalise(result.output, tmp_path)
    expected = _expected(case["name"], lines)
    if case["layer"] == "record":
        assert lines[:-1] == expected[:-1] and lines[-1].endswith(" in {tmp}/records"), lines
        for line in lines[:-1]:  # every problem names its file, and its line unless it is the whole file
            pattern = r"^records/[^:]+: " if case["name"] in WHOLE_FILE else r"^records/[^:]+:\d+: "
            assert re.match(pattern, line), line
    else:
        assert lines == expected
        assert any(line.startswith(("kb", "Error:", "error:", "records/")) for line in lines), lines
    if case.get("subprocess"):
        code, output = _run_subprocess(args, tmp_path)
        assert "Traceback" not in output and code == want_exit, output[-2000:]
        assert sorted(_normalise(output, tmp_path)) == sorted(expected), output[-2000:]
    STATS.tried(case["name"], rejected=True)


@pytest.mark.parametrize("case", ACCEPTED_LOGS, ids=[c["name"] for c in ACCEPTED_LOGS])
def test_logs_read_with_located_warnings(tmp_path, case):
    """Logs kb reads despite a bad line (a session killed mid-write, a record type it does not
    know): each skipped line is a ``file:line`` warning, the rest is imported, exit 0."""
    root = build_tree(tmp_path, None)
    result = CliRunner().invoke(cli, _args(case, root, tmp_path), prog_name="kb")
    assert "Traceback" not in result.output and result.exception is None, result.output
    assert result.exit_code == 0
    lines = _normalise(result.output, tmp_path)
    assert lines == _expected(case["name"], lines)
    assert any(re.match(r"^warning: [^:]+:\d+: ", line) for line in lines), lines
    STATS.tried(case["name"], rejected=False)


def _record_data(root: Path, rid: str) -> dict[str, Any]:
    res = load_records(root)
    assert res.problems == [], res.problems
    return res.records.get(rid).model_dump(exclude={"id"})


@pytest.mark.parametrize("case", ACCEPTED_FILES, ids=[c["name"] for c in ACCEPTED_FILES])
def test_bom_and_line_endings_load_as_the_plain_file(tmp_path, case):
    """A BOM, CRLF, lone CR and mixed line endings are valid YAML editors write: the record
    loads equal to the same text saved plainly (attempts/a.yaml of base/)."""
    root = build_tree(tmp_path, case["files"])
    result = CliRunner().invoke(cli, ["--records", str(root), "check"])
    assert result.exit_code == 0, result.output
    assert _record_data(root, "x") == _record_data(root, "a")
    STATS.tried(case["name"], rejected=False)


def test_deep_nesting_does_not_crash_the_interpreter(tmp_path):
    """100,000 nested '[' once crashed libyaml's composer (a segfault, not an exception); the
    event pre-scan in kb.yamldoc refuses the nesting before composing."""
    from kb.yamldoc import MAX_DEPTH, parse_document

    text = _generate("deep-flow")
    with pytest.raises(Exception) as info:
        parse_document(text, "records/attempts/x.yaml")
    assert str(info.value) == (f"records/attempts/x.yaml:2: nesting deeper than {MAX_DEPTH} levels; "
                               "records are shallow")
