"""``kb daemon``: questions answered by a process holding the records give byte for byte what the
command gives on its own, follow every edit, and fall back to the command's own process whenever
no daemon can answer."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from kb.cli import relay
from kb.cli import resident as server
from kb.store import stamp as stamp_mod
from kb.store.stamp import stamp

CAMPAIGN = Path(__file__).parent / "fixtures" / "campaign"
FAILED = "2026-02-23-nccl-tree"
QUESTIONS = [["check"], ["check", "--json"], ["check", "--strict"], ["roots"], ["roots", "-n", "1", "--json"], ["why", FAILED], ["why", FAILED, "--json"],
             ["unblocks", "cuda=13.0"], ["graph"], ["why", "no-such-attempt"]]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "getuid"), reason="Unix only: fork and Unix sockets")


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A copy of the campaign under ``tmp_path/records``, and an environment whose daemon
    sockets live in a fresh short folder (Unix socket paths are limited to about 100 bytes)."""
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    runtime = tempfile.mkdtemp(prefix="kbd", dir="/tmp")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "KB_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("KB_DAEMON", None)
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    yield tmp_path, env
    kb(tmp_path, env, "daemon", "stop")
    shutil.rmtree(runtime, ignore_errors=True)


def kb(cwd: Path, env: dict[str, str], *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m kb`` (the console script's entry point) in ``cwd``."""
    return subprocess.run([sys.executable, "-m", "kb", *args], cwd=cwd, env={**env, **extra},
                          capture_output=True, text=True, timeout=120)


def answered(cwd: Path, env: dict[str, str], records: str = "records") -> int:
    """How many questions the daemon serving ``records`` (from ``cwd``) says it answered."""
    out = kb(cwd, env, "--records", records, "daemon", "status")
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split("; ")[1].split()[0])


def same_as_alone(cwd: Path, env: dict[str, str], args: list[str]) -> None:
    """The daemon's answer to ``args`` is the command's own, exit code and both streams."""
    records = args[1] if args[0] == "--records" else "records"
    before = answered(cwd, env, records)
    via = kb(cwd, env, *args)
    alone = kb(cwd, env, *args, KB_DAEMON="off")
    assert (via.returncode, via.stdout, via.stderr) == (alone.returncode, alone.stdout, alone.stderr), args
    assert answered(cwd, env, records) == before + 1, f"{args} was not answered by the daemon"


def test_every_question_is_answered_as_the_command_answers_it(place):
    cwd, env = place
    started = kb(cwd, env, "daemon", "start", "--idle", "1")
    assert started.returncode == 0, started.stderr
    assert started.stderr.startswith("kb daemon (pid ")
    assert "holds 21 records of records" in started.stderr
    for args in QUESTIONS:
        same_as_alone(cwd, env, args)
    why = kb(cwd, env, "why", FAILED)
    assert why.returncode == 0 and why.stdout.startswith(f"{FAILED}: ")
    missing = kb(cwd, env, "why", "no-such-attempt")
    assert missing.returncode == 1 and "unknown attempt 'no-such-attempt'" in missing.stderr


def test_an_edit_is_answered_from_the_edited_records(place):
    cwd, env = place
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    target = cwd / "records" / "attempts" / f"{FAILED}.yaml"
    text = target.read_text()
    title = text.split("\n", 1)[0]
    assert title.startswith("title: ")
    # same size, right after the daemon looked: only the bytes tell the change
    first = kb(cwd, env, "why", FAILED).stdout
    target.write_text(text.replace(title, title[:-1] + ("X" if title[-1] != "X" else "Y"), 1))
    edited = kb(cwd, env, "why", FAILED)
    assert edited.stdout != first
    assert edited.stdout.splitlines()[0].startswith(f"{FAILED}: ") and title[-1] not in edited.stdout.splitlines()[0][-14:]
    same_as_alone(cwd, env, ["why", FAILED])
    # a broken record: every problem, exit 1, as the command reports it
    target.write_text(text.replace("outcome: ", "outcome: sideways-", 1))
    same_as_alone(cwd, env, ["roots"])
    same_as_alone(cwd, env, ["check"])
    assert kb(cwd, env, "roots").returncode == 1
    # a record added, then removed
    (cwd / "records" / "attempts" / "2026-03-01-copy.yaml").write_text(
        text.replace(title, "title: A copy", 1).replace(FAILED, "2026-03-01-copy"))
    target.write_text(text)
    same_as_alone(cwd, env, ["roots", "--json"])
    (cwd / "records" / "attempts" / "2026-03-01-copy.yaml").unlink()
    same_as_alone(cwd, env, ["roots", "--json"])


def test_the_working_folder_and_its_mkdocs_yml_are_the_askers(place):
    cwd, env = place
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    elsewhere = cwd / "elsewhere"
    elsewhere.mkdir()
    records = str(cwd / "records")
    same_as_alone(elsewhere, env, ["--records", records, "roots"])
    # the kb plugin's catalogs in ./mkdocs.yml are read from the asking command's folder
    (elsewhere / "mkdocs.yml").write_text(f"site_name: x\nplugins:\n  - kb:\n      records: {records}\n"
                                          "      catalogs: [blackwell]\n")
    same_as_alone(elsewhere, env, ["--records", records, "roots"])
    with_catalog = kb(elsewhere, env, "--records", records, "unblocks", "cuda=13.0")
    without = kb(cwd, env, "unblocks", "cuda=13.0")
    assert with_catalog.stdout != without.stdout


def test_no_daemon_stop_and_a_killed_daemon_leave_questions_answered_here(place):
    cwd, env = place
    alone = kb(cwd, env, "roots", KB_DAEMON="off")
    assert kb(cwd, env, "roots").stdout == alone.stdout  # no daemon yet
    none = kb(cwd, env, "daemon", "status")
    assert none.returncode == 1 and "no kb daemon serves records" in none.stderr
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    again = kb(cwd, env, "daemon", "start", "--idle", "1")
    assert again.returncode == 0 and "already serves records" in again.stderr
    pid = int(kb(cwd, env, "daemon", "status").stdout.split("pid ")[1].split(")")[0])
    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid)
    sockets = list(Path(env["XDG_RUNTIME_DIR"], "kb").glob("*.sock"))
    assert len(sockets) == 1  # left behind by the kill
    assert kb(cwd, env, "roots").stdout == alone.stdout
    restarted = kb(cwd, env, "daemon", "start", "--idle", "1")
    assert restarted.returncode == 0, restarted.stderr
    stopped = kb(cwd, env, "daemon", "stop")
    assert "stopped" in stopped.stderr
    assert not list(Path(env["XDG_RUNTIME_DIR"], "kb").glob("*.sock"))
    assert kb(cwd, env, "roots").stdout == alone.stdout


def test_an_idle_daemon_stops_and_removes_its_socket(place):
    cwd, env = place
    assert kb(cwd, env, "daemon", "start", "--idle", "0.05").returncode == 0  # 3 seconds
    deadline = time.monotonic() + 30
    while list(Path(env["XDG_RUNTIME_DIR"], "kb").glob("*.sock")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not list(Path(env["XDG_RUNTIME_DIR"], "kb").glob("*.sock"))


def test_a_socket_folder_others_may_enter_is_never_used(place):
    cwd, env = place
    folder = Path(env["XDG_RUNTIME_DIR"], "kb")
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    started = kb(cwd, env, "daemon", "start", "--idle", "1")
    assert started.returncode == 1
    assert f"{folder} must be a folder owned by you with mode 0700" in started.stderr
    assert relay.socket_folder() is None
    assert relay.relay(["roots"]) is None


def test_records_of_reads_only_plain_question_lines(monkeypatch):
    monkeypatch.delenv("KB_RECORDS", raising=False)
    assert relay.records_of(["roots"]) == "records"
    assert relay.records_of(["--records", "r2", "why", "x"]) == "r2"
    assert relay.records_of(["--records=r3", "unblocks", "cuda=13.0"]) == "r3"
    assert relay.records_of(["check"]) == "records"
    assert relay.records_of(["log", "-t", "x"]) is None
    assert relay.records_of(["build"]) is None
    assert relay.records_of(["--version"]) is None
    assert relay.records_of(["--records"]) is None
    assert relay.records_of(["--records", "", "roots"]) is None
    monkeypatch.setenv("KB_RECORDS", "elsewhere")
    assert relay.records_of(["graph"]) == "elsewhere"
    monkeypatch.setenv("KB_DAEMON", "off")
    assert relay.relay(["roots"]) is None


def test_a_stamp_changes_with_every_kind_of_change(tmp_path):
    root = tmp_path / "records"
    (root / "attempts").mkdir(parents=True)
    f = root / "attempts" / "a.yaml"
    f.write_text("title: a\n")
    first = stamp(root)
    assert not first.settled  # just written
    assert stamp(root).entries == first.entries
    time.sleep(0.02)
    f.write_text("title: b\n")  # same size
    assert stamp(root).entries != first.entries
    second = stamp(root)
    (root / "attempts" / "notes.txt").write_text("x")
    assert stamp(root).entries != second.entries
    third = stamp(root)
    (root / "attempts" / "link.yaml").symlink_to("a.yaml")
    assert stamp(root).entries != third.entries


def test_a_settled_stamp_spares_the_hashing_and_an_unsettled_one_never_does(tmp_path, monkeypatch):
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    hashed: list[str] = []
    from kb.store import memo

    original = memo.tree_digest

    def spy(folder, *args, **kwargs):
        hashed.append(str(folder))
        return original(folder, *args, **kwargs)

    monkeypatch.setattr(memo, "tree_digest", spy)
    state = server.Daemon("unused", 60)
    held = server.fresh(state, str(tmp_path), "records")
    assert held is not None and len(held.loaded.records) == 21 and hashed == ["records"]
    assert not held.stamp.settled  # the copy was just written
    assert server.fresh(state, str(tmp_path), "records") is held
    assert hashed == ["records", "records"]  # unsettled: the bytes were read again
    monkeypatch.setattr(stamp_mod, "SETTLE_NS", 0)
    time.sleep(0.02)
    assert server.fresh(state, str(tmp_path), "records") is held
    assert server.fresh(state, str(tmp_path), "records") is held
    assert hashed == ["records"] * 3  # settled: the entries alone told nothing changed
    target = tmp_path / "records" / "attempts" / f"{FAILED}.yaml"
    time.sleep(0.05)
    target.write_text(target.read_text().replace("title: ", "title: Z", 1))
    edited = server.fresh(state, str(tmp_path), "records")
    assert edited is not held and hashed == ["records"] * 4
    assert edited.loaded.graph.get(FAILED).title.startswith("Z")


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def test_a_kept_records_cache_parses_only_what_changed_and_reads_no_cache_file(tmp_path, monkeypatch, parsed):
    from kb.store import cache as cache_mod
    from kb.store import read
    from kb.store.cache import RecordCache, cache_path

    shutil.copytree(CAMPAIGN, tmp_path / "records")
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "records"
    kept = RecordCache(cache_path(root))
    first = read.load_records(root, kept=kept)
    assert len(parsed) == 21 and not first.problems
    monkeypatch.setattr(cache_mod, "read_entries", lambda path: pytest.fail(f"read {path}"))
    target = root / "attempts" / f"{FAILED}.yaml"
    target.write_text(target.read_text().replace("title: ", "title: Kept ", 1))
    parsed.clear()
    second = read.load_records(root, kept=kept)
    assert parsed == [FAILED]
    assert second.records.get(FAILED).title.startswith("Kept ")
    assert list(second.records.records) == list(first.records.records)
    (root / "attempts" / f"{FAILED}.yaml").unlink()
    parsed.clear()
    third = read.load_records(root, kept=kept)
    assert parsed == [] and FAILED not in third.records.records


def test_every_preparation_step_runs_and_keeps_what_the_questions_read():
    # the daemon drops a failing step silently (it only saves time): a broken step must fail here
    from kb.models import Campaign
    from kb.pipeline import load
    from kb.queries import findings_of, roots, unblocks
    from kb.queries.warm import preparation

    kg = load(CAMPAIGN).graph
    before = ([r.to_dict() for r in roots(load(CAMPAIGN).graph)], findings_of(load(CAMPAIGN).graph, FAILED))
    steps = preparation(kg)
    assert len(steps) == 3
    for step in steps:
        step()
    campaign = kg.of_kind(Campaign)[0].id
    assert kg.memoized(("current_stack", campaign)) and kg.memoized(("roots.now", campaign))
    assert kg.memoized("queries.findings")
    assert ([r.to_dict() for r in roots(kg)], findings_of(kg, FAILED)) == before
    assert unblocks(kg, {"cuda": "13.0"}).to_dict() == unblocks(load(CAMPAIGN).graph, {"cuda": "13.0"}).to_dict()
