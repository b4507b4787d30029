"""kb check reports a file's own problems and its bad references in one run, paths as given: variants
written by a helper who had not seen the fix (all passed at their first run)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "campaign"
LINE_RE = re.compile(r"^(?P<path>\S+?\.ya?ml)(?::(?P<line>\d+))?: (?P<rest>.*)$")

A_BASE = "attempts/2026-02-19-baseline-tp8.yaml"
A_FUSION = "attempts/2026-02-23-flashinfer-allreduce-fusion.yaml"
S13 = "stacks/cuda-13.0.yaml"
CAMP = "campaigns/kimi-k25-eagle3-blackwell.yaml"
DEC = "decisions/2026-02-26-upgrade-to-cuda-13.yaml"
B_SM120 = "blockers/sm120-unsupported-by-cuda-12.8-stack.yaml"
B_SYMM = "blockers/torch-symm-mem-no-capability-12.yaml"
B_EP = "blockers/ep-a2a-gpu-memory-exhausted.yaml"


def make(tmp_path, where="records"):
    dest = tmp_path / where
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(FIXTURE, dest)
    return dest


def edit(records, rel, old, new):
    p = records / rel
    text = p.read_text()
    assert old in text, (rel, old)
    p.write_text(text.replace(old, new, 1))


def line_of(records, rel, needle):
    for i, line in enumerate((records / rel).read_text().splitlines(), 1):
        if line.startswith(needle):
            return i
    raise AssertionError(needle)


def kb(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "kb", *args], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(FIXTURE.parents[2])},
                          capture_output=True, text=True)


def problems(res):
    out = []
    for line in (res.stdout + res.stderr).splitlines():
        m = LINE_RE.match(line.strip())
        if m:
            rest = m["rest"]
            field = rest.split(": ", 1)[0] if ": " in rest else ""
            out.append((m["path"], m["line"], field, rest, line))
    return out


def base_field(field):
    return re.split(r"[.\[]", field, maxsplit=1)[0]


def pairs(res, prefix="records"):
    got = set()
    for path, _line, field, _rest, raw in problems(res):
        assert os.path.normpath(path).startswith(os.path.normpath(prefix) + os.sep), raw
        rel = os.path.relpath(os.path.normpath(path), os.path.normpath(prefix))
        got.add((rel, base_field(field)))
    return got


def show(res):
    return f"rc={res.returncode}\nSTDOUT:\n{res.stdout}\nSTDERR:\n{res.stderr}"


def test_stack_bad_component_and_unknown_base(tmp_path):
    r = make(tmp_path)
    edit(r, S13, "base: cuda-12.8", "base: cuda-77")
    edit(r, S13, '  cuda: "13.0.1"', "  cuda: [13, 0]")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    assert pairs(res) == {(S13, "components"), (S13, "base")}, show(res)
    lines = {(p, f): (ln, rest) for p, ln, f, rest, _ in problems(res)}
    ln, rest = lines[("records/" + S13, "base")]
    assert ln == str(line_of(r, S13, "base:")), show(res)
    assert "unknown" in rest and "cuda-77" in rest, show(res)


def test_campaign_missing_field_and_unknown_platform(tmp_path):
    r = make(tmp_path)
    edit(r, CAMP, "model: Kimi-K2.5 INT4 (1T-parameter MoE, 61 layers)\n", "")
    edit(r, CAMP, "platform: rtx-pro-6000-blackwell-x8", "platform: no-such-platform")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    # attempts/decision naming the (broken) campaign must not be reported as unknown
    assert pairs(res) == {(CAMP, "model"), (CAMP, "platform")}, show(res)
    for _p, ln, f, rest, _ in problems(res):
        if f == "platform":
            assert ln == str(line_of(r, CAMP, "platform:")), show(res)
            assert "unknown" in rest, show(res)


def test_attempt_unknown_key_and_wrong_kind_baseline(tmp_path):
    r = make(tmp_path)
    edit(r, A_FUSION, "baseline: 2026-02-21-eagle3-speculation", "baseline: pcie-bus-contention\ncolour: red")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    assert pairs(res) == {(A_FUSION, "colour"), (A_FUSION, "baseline")}, show(res)
    for _p, ln, f, _rest, _ in problems(res):
        if f == "baseline":
            assert ln == str(line_of(r, A_FUSION, "baseline:")), show(res)
        if f == "colour":
            assert ln == str(line_of(r, A_FUSION, "colour:")), show(res)


def test_decision_bad_date_and_unknown_supersedes(tmp_path):
    r = make(tmp_path)
    edit(r, DEC, "date: 2026-02-26", "date: not-a-date\nsupersedes: [2025-01-01-no-such-decision]")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    assert pairs(res) == {(DEC, "date"), (DEC, "supersedes")}, show(res)


def test_invalid_yaml_referenced_by_another_invalid_file(tmp_path):
    r = make(tmp_path)
    # sm120 blocker: broken YAML syntax. It is referenced by two blockers' caused_by and the decision's resolves.
    (r / B_SM120).write_text("title: [unclosed\n  description: : :\n")
    # torch-symm-mem blocker references it AND has its own schema error
    edit(r, B_SYMM, "status: fixed", "status: fixed\nsevurity: high")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    paths = [os.path.relpath(p, "records") for p, *_ in problems(res)]
    assert paths.count(B_SM120) == 1, show(res)
    assert (B_SYMM, "sevurity") in pairs(res), show(res)
    assert set(paths) == {B_SM120, B_SYMM}, show(res)
    assert "sm120-unsupported-by-cuda-12.8-stack" not in "".join(
        raw for p, ln, f, rest, raw in problems(res) if p != "records/" + B_SM120), show(res)


def test_malformed_reference_reported_once(tmp_path):
    r = make(tmp_path)
    edit(r, A_BASE, "stack: cuda-12.8", "stack: 'Not A Valid Id!!'")
    edit(r, A_BASE, "outcome: baseline", "outcome: baseline\nblocked_by: ['ALSO BAD ID']")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    fields = [base_field(f) for p, ln, f, *_ in problems(res)]
    assert fields.count("stack") == 1, show(res)
    assert fields.count("blocked_by") == 1, show(res)
    assert pairs(res) == {(A_BASE, "stack"), (A_BASE, "blocked_by")}, show(res)


def test_blocker_bad_status_and_wrong_kind_caused_by(tmp_path):
    r = make(tmp_path)
    edit(r, B_EP, "workaround:", "status: kaput\ncaused_by: [2026-02-23-nccl-tree]\nworkaround:")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    assert pairs(res) == {(B_EP, "status"), (B_EP, "caused_by")}, show(res)


def test_decision_unknown_key_and_campaign_wrong_kind(tmp_path):
    r = make(tmp_path)
    edit(r, DEC, "campaign: kimi-k25-eagle3-blackwell", "campaign: cuda-13.0\nowner: bob")
    res = kb(tmp_path, "check", "records")
    assert res.returncode != 0, show(res)
    assert pairs(res) == {(DEC, "campaign"), (DEC, "owner")}, show(res)


@pytest.mark.parametrize("given,where", [
    ("./data/records", "data/records"),
    ("data/records/", "data/records"),
    ("a/b/c/records", "a/b/c/records"),
])
def test_relative_path_forms(tmp_path, given, where):
    r = make(tmp_path, where)
    edit(r, S13, "base: cuda-12.8", "base: cuda-77\nflavour: x")
    res = kb(tmp_path, "check", given)
    assert res.returncode != 0, show(res)
    assert pairs(res, prefix=where) == {(S13, "base"), (S13, "flavour")}, show(res)
    for p, _ln, _f, _rest, raw in problems(res):
        assert not os.path.isabs(p), raw
        assert p.startswith(given.rstrip("/").removeprefix("./")) or p.startswith(given.rstrip("/")), raw


def test_records_option_relative(tmp_path):
    r = make(tmp_path, "x/records")
    edit(r, CAMP, "baseline_attempt: 2026-02-19-baseline-tp8", "baseline_attempt: 2026-01-01-nope")
    edit(r, CAMP, "status: done", "status: finished")
    res = kb(tmp_path, "--records", "./x/records", "check")
    assert res.returncode != 0, show(res)
    assert pairs(res, prefix="x/records") == {(CAMP, "baseline_attempt"), (CAMP, "status")}, show(res)
    for p, *_ in problems(res):
        assert p.startswith(("x/records/", "./x/records/")), p
