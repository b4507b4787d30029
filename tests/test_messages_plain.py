"""Messages a person understands at once, and ids every file system accepts (issue 25): Unicode
normalisation named as such, YAML dates and timestamps in plain words, the real id rule, one
message for non-finite metrics, a one-line file's problem on line 1; titles in any script give
readable ids, Windows device names never become file names."""

from __future__ import annotations

import unicodedata

import pytest

from kb.ids import slugify
from kb.store import parse_record

ATTEMPT = "date: 2026-01-01\ncampaign: c\napproach: a\noutcome: neutral\n"


def _problems(text: str, folder: str = "attempts", stem: str = "x") -> list[str]:
    rec, _doc, problems = parse_record(text, f"records/{folder}/{stem}.yaml", folder, stem)
    assert rec is None, "expected the record to be refused"
    return [f"{p.line}: {p.field}: {p.message}" for p in problems]


def _one(text: str, **kw) -> str:
    got = _problems(text, **kw)
    assert len(got) == 1, got
    return got[0]


@pytest.mark.parametrize(("word", "form"), [("Café", "NFD"), ("Größe", "NFD"), ("Ångström", "NFD"), ("naïve", "NFD")])
def test_strings_that_differ_only_in_normalisation_are_named_as_such(word, form):
    chosen = unicodedata.normalize(form, word)
    option = unicodedata.normalize("NFC", word)
    assert chosen != option and chosen.encode() != option.encode()
    text = (f"title: t\ndate: 2026-01-01\nstatus: accepted\ncontext: c\nconsidered_options:\n  - title: {option}\n"
            f"outcome:\n  chosen: {chosen}\n")
    msg = _one(text, folder="decisions", stem="d")
    assert "look the same but are encoded differently (Unicode NFC vs NFD" in msg
    assert "is not one of" not in msg


@pytest.mark.parametrize(("text", "expected"), [
    (f"title: 2026-01-01T10:00:00+02:00\n{ATTEMPT}",
     "1: title: '2026-01-01T10:00:00+02:00' was read by YAML as a date and time, but title is text: quote it"),
    (f"title: 2026-03-04\n{ATTEMPT}", "1: title: '2026-03-04' was read by YAML as a date, but title is text"),
    (f"title: t\n{ATTEMPT}tags: [2026-01-01]\n", "6: tags.0: '2026-01-01' was read by YAML as a date, but tags item 0 is text"),
    (f"title: t\n{ATTEMPT}tags: [ok, 2026-01-01 10:00:00]\n", "6: tags.1: '2026-01-01 10:00:00' was read by YAML as a date and time"),
    (f"title: t\n{ATTEMPT}notes: 2026-01-01 10:00:00+25:00\n",
     "its time-zone offset is out of range: offsets run from -23:59 to +23:59"),
    (f"title: t\n{ATTEMPT}notes: 2026-02-30\n", "that month has no such day"),
    ("title: t\ndate: [2026-01-01]\ncampaign: c\napproach: a\noutcome: neutral\n",
     "2: date: '[2026-01-01]' is not a date; write it as YYYY-MM-DD"),
    ("title: t\ndate: 2026-01-01T10:00:00Z\ncampaign: c\napproach: a\noutcome: neutral\n",
     "2: date: '2026-01-01T10:00:00Z' is not a date; write it as YYYY-MM-DD"),
])
def test_yaml_dates_and_timestamps_get_plain_words(text, expected):
    msg = _one(text)
    assert expected in msg, msg
    assert "datetime" not in msg and "timedelta" not in msg


@pytest.mark.parametrize("value", [".inf tok/s", "-.inf tok/s", ".nan tok/s", "inf tok/s", "NaN tok/s", "Infinity ms",
                                   "{value: .nan, unit: tok/s}", "{value: .inf, unit: tok/s}", "1e999 tok/s"])
def test_a_non_finite_metric_gets_one_message(value):
    msg = _one(f"title: t\n{ATTEMPT}metrics: {{output_throughput: {value}}}\n")
    assert "a metric must be a finite number (not NaN or infinity)" in msg
    assert "e.g. '54.1 tok/s'" not in msg  # no advice the next check would refuse


@pytest.mark.parametrize(("bad", "rule"), [("_private", "starts with a lowercase ASCII letter or digit"),
                                           ("-dash", "starts with a lowercase ASCII letter or digit"),
                                           ("Capital", "no spaces, slashes, capitals"),
                                           ("a..b", "'..'")])
def test_the_id_message_states_the_real_rule(bad, rule):
    from kb.models import Blocker

    with pytest.raises(ValueError, match="not a valid id") as exc:
        Blocker(id=bad, title="t")
    assert rule in str(exc.value)


@pytest.mark.parametrize("text", ["title: [unclosed", "title: 'unclosed", "{title: t", "title: t: u"])
def test_a_one_line_file_s_problem_is_on_line_1(text):
    got = _problems(text)
    assert got and all(p.startswith("1: ") for p in got), got


@pytest.mark.parametrize(("title", "slug"), [
    ("Ускорение allreduce на PCIe", "uskorenie-allreduce-na-pcie"),
    ("加速 allreduce", "jiasu-allreduce"),
    ("NCCL の調整", "nccl-nodiaozheng"),
    ("Ελληνικά 13.0", "ellinika-13.0"),
    ("تسريع الأداء", "tsry-l-d"),
    ("café crème", "cafe-creme"),
    ("CON", "con-record"), ("nul", "nul-record"), ("Com1", "com1-record"), ("LPT9", "lpt9-record"),
    ("aux power", "aux-power"),
])
def test_titles_in_any_script_give_readable_portable_ids(title, slug):
    assert slugify(title) == slug


@pytest.mark.parametrize("name", ["con", "prn", "aux", "nul", "com1", "com9", "lpt1", "lpt9", "con.backup"])
def test_a_windows_device_name_is_refused_as_an_id_with_the_way_out(name):
    msg = _one("title: t\n", folder="blockers", stem=name)
    assert "is a device name on Windows" in msg and f"'{name}-record'" in msg


@pytest.mark.parametrize("title", ["...", "!!!", "—", "   ?  "])
def test_a_title_with_nothing_readable_is_refused_where_it_was_given(tmp_path, title):
    import shutil
    from pathlib import Path

    from click.testing import CliRunner

    from kb.cli import cli

    root = tmp_path / "records"
    shutil.copytree(Path(__file__).resolve().parent.parent / "records", root)
    r = CliRunner().invoke(cli, ["--records", str(root), "log", "--title", title, "--campaign",
                                 "kimi-k25-eagle3-blackwell", "--approach", "x", "--outcome", "neutral", "--no-interactive"])
    assert r.exit_code != 0
    assert "--title: " in r.output and "has no letter or digit in any script" in r.output
    r = CliRunner().invoke(cli, ["--records", str(root), "new", "blocker", title])
    assert r.exit_code != 0 and "has no letter or digit in any script" in r.output


# --------------------------------------------------------------------------- duplicates across time zones

DUP_SCRIPT = """
import json, sys, datetime as dt
from kb.pipeline import load_graph
from kb.models import Attempt
from kb.queries import possible_duplicates
kg = load_graph(sys.argv[1])
draft = Attempt.model_validate(json.loads(sys.argv[2]))
print(json.dumps(possible_duplicates(kg, draft)))
"""


@pytest.mark.parametrize("tz", ["UTC", "Asia/Tokyo", "America/Los_Angeles", "Pacific/Kiritimati", "Etc/GMT+12"])
def test_duplicate_detection_gives_the_same_answer_whatever_the_machine_time_zone(tmp_path, tz):
    import json
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path / "records"
    shutil.copytree(Path(__file__).resolve().parent.parent / "records", root)
    # the run the team logged on its own day, 2026-02-19: the same figure, imported dated the 20th
    # (the log's offset put it past midnight), and one with another figure
    late = {"id": "2026-02-20-cuda-graph-max-bs-128-from-log", "title": "cuda graph bs 128 (from the log)",
            "campaign": "kimi-k25-eagle3-blackwell", "date": "2026-02-20",
            "approach": "Capture CUDA graphs only up to batch size 128, freeing memory for the KV cache.",
            "outcome": "improved",
            "metrics": {"output_throughput": "89.5 tok/s"}}
    other = {**late, "id": "2026-02-20-other", "metrics": {"output_throughput": "70.0 tok/s"}}
    far = {**late, "id": "2026-02-22-far", "date": "2026-02-22"}
    env = {**os.environ, "TZ": tz}
    answers = [json.loads(subprocess.run([sys.executable, "-c", DUP_SCRIPT, str(root), json.dumps(a)], env=env,
                                         capture_output=True, text=True, check=True).stdout) for a in (late, other, far)]
    assert answers[0] == [["2026-02-19-cuda-graph-max-bs-128",
                           "a day apart (time zones), same output_throughput 89.5 tok/s and approach"]]
    assert answers[1] == [] and answers[2] == []
