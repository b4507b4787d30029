"""``kb daemon`` under the conditions that broke it: a question whose reader does not read, a
daemon stopped or killed while one is answered, questions coming faster than the daemon idles,
a file that vanishes while the records load, and a client whose ``sys.path`` differs."""

from __future__ import annotations

import gc
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

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"
FAILED = "2026-02-23-nccl-tree"
sys.path.insert(0, str(ROOT / "bench"))
from gen_campaign import generate  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "getuid"), reason="Unix only: fork and Unix sockets")


@pytest.fixture
def runtime(monkeypatch):
    """A fresh short private folder for daemon sockets (Unix socket paths are limited to about 100 bytes)."""
    folder = tempfile.mkdtemp(prefix="kbd", dir="/tmp")
    monkeypatch.setenv("XDG_RUNTIME_DIR", folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def big(tmp_path, runtime):
    """A generated campaign whose ``kb graph`` (about 110 KB) is more than a pipe holds, and the
    environment of commands asking about it; every daemon serving it is stopped after."""
    generate(tmp_path / "records", 300)
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "KB_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("KB_DAEMON", None)
    yield tmp_path, env
    kb(tmp_path, env, "daemon", "stop")


def kb(cwd: Path, env: dict[str, str], *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kb", *args], cwd=cwd, env={**env, **extra},
                          capture_output=True, text=True, timeout=60)


def unread(cwd: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """Start ``kb ARGS`` with a stdout pipe, and read its first byte only: the answer has begun
    and waits, blocked, for a reader (as under ``kb graph | less``)."""
    proc = subprocess.Popen([sys.executable, "-m", "kb", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and os.read(proc.stdout.fileno(), 1) == b"f"
    return proc


def daemon_pid(cwd: Path, env: dict[str, str]) -> int:
    out = kb(cwd, env, "daemon", "status")
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split("pid ")[1].split(")")[0])


def answered(cwd: Path, env: dict[str, str]) -> int:
    out = kb(cwd, env, "daemon", "status")
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split("; ")[1].split()[0])


def test_an_answer_waiting_for_its_reader_holds_up_no_other_question(big):
    cwd, env = big
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    graph = kb(cwd, env, "graph", KB_DAEMON="off")
    alone = kb(cwd, env, "roots", KB_DAEMON="off")
    blocked = unread(cwd, env, "graph")
    try:
        before = answered(cwd, env)  # kb daemon status answers meanwhile
        via = kb(cwd, env, "roots")  # used to wait (here: time out) until the graph was read
        assert (via.returncode, via.stdout, via.stderr) == (alone.returncode, alone.stdout, alone.stderr)
        assert answered(cwd, env) == before + 1
    finally:
        rest, err = blocked.communicate(timeout=60)
    assert (blocked.returncode, "f" + rest.decode(), err.decode()) == (0, graph.stdout, graph.stderr)


def test_stop_or_kill_while_an_answer_waits_for_its_reader(big):
    cwd, env = big
    graph = kb(cwd, env, "graph", KB_DAEMON="off")
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    # killed: its answering child lives on until its reader reads; a new daemon starts at once
    first = unread(cwd, env, "graph")
    os.kill(daemon_pid(cwd, env), signal.SIGKILL)
    restarted = kb(cwd, env, "daemon", "start", "--idle", "1")
    first.communicate(timeout=60)
    assert restarted.returncode == 0, restarted.stderr
    assert "holds 334 records" in restarted.stderr
    # stopped: the socket goes at once (questions answer here), the answer begun still ends whole
    second = unread(cwd, env, "graph")
    stopped = kb(cwd, env, "daemon", "stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stderr
    assert not list(Path(env["XDG_RUNTIME_DIR"], "kb").glob("*.sock"))
    assert kb(cwd, env, "roots").stdout == kb(cwd, env, "roots", KB_DAEMON="off").stdout
    again = kb(cwd, env, "daemon", "start", "--idle", "1")
    assert again.returncode == 0 and "holds 334 records" in again.stderr, again.stderr
    rest, err = second.communicate(timeout=60)
    assert (second.returncode, "f" + rest.decode(), err.decode()) == (0, graph.stdout, graph.stderr)


def test_reloads_in_a_row_leave_no_more_garbage_than_a_few(tmp_path, monkeypatch):
    # questions after edits, each before the daemon idled long enough to collect: the garbage
    # of every old graph used to be frozen out of the collector's reach by the next load
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    state = server.Daemon("unused", 60)
    target = tmp_path / "records" / "attempts" / f"{FAILED}.yaml"
    text = target.read_text()
    frozen = []
    try:
        for i in range(12):
            target.write_text(text.replace("title: ", f"title: {i} ", 1))
            held = server.fresh(state, str(tmp_path), "records")
            assert held is not None and held.loaded.graph.get(FAILED).title.startswith(f"{i} ")
            while held.steps:
                server.prepare_step(held)
            del held
            frozen.append(gc.get_freeze_count())
    finally:
        gc.unfreeze()
    assert max(frozen[5:]) <= max(frozen[:5]) + 50, frozen  # it grew by about 350 objects a reload, without end


def test_a_file_gone_while_loading_and_back_after_is_loaded_again(tmp_path, monkeypatch):
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    from kb.store import memo

    target = tmp_path / "records" / "attempts" / f"{FAILED}.yaml"
    data = target.read_bytes()
    original = memo.tree_digest
    vanished: list[str] = []

    def digest_then_delete(folder, *args, **kwargs):
        digest = original(folder, *args, **kwargs)
        if not vanished:  # e.g. a git checkout between the daemon's hashing and its load
            vanished.append(str(target))
            target.unlink()
        return digest

    monkeypatch.setattr(memo, "tree_digest", digest_then_delete)
    state = server.Daemon("unused", 60)
    try:
        held = server.fresh(state, str(tmp_path), "records")
        assert held is not None and FAILED not in held.loaded.records.records
        target.write_bytes(data)  # back, the very bytes hashed
        again = server.fresh(state, str(tmp_path), "records")
        assert again is not None and FAILED in again.loaded.records.records
    finally:
        gc.unfreeze()


def test_a_client_whose_python_path_differs_is_not_answered_by_the_daemon(tmp_path, runtime, monkeypatch):
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    # a catalog inside a package found only through PYTHONPATH
    package = tmp_path / "extra" / "kbcatx"
    shutil.copytree(ROOT / "kb" / "catalogs" / "blackwell", package / "data")
    (package / "__init__.py").write_text("")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - kb:\n      catalogs: ['kbcatx:data']\n")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "KB_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("KB_DAEMON", None)
    try:
        assert kb(tmp_path, env, "daemon", "start", "--idle", "1").returncode == 0
        with_path = {**env, "PYTHONPATH": str(tmp_path / "extra")}
        before = answered(tmp_path, env)
        alone = kb(tmp_path, with_path, "check", KB_DAEMON="off")
        via = kb(tmp_path, with_path, "check")
        assert alone.returncode == 0 and "catalog kbcatx:data's" in alone.stdout
        assert (via.returncode, via.stdout, via.stderr) == (alone.returncode, alone.stdout, alone.stderr)
        assert answered(tmp_path, env) == before  # answered here: the daemon's Python finds no kbcatx
    finally:
        kb(tmp_path, env, "daemon", "stop")
    monkeypatch.setattr(relay, "_identity", None)
    mine = relay.code_identity()
    monkeypatch.setattr(relay, "_identity", None)
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path / "extra")])
    assert relay.code_identity() != mine


def test_ctrl_c_while_answered_ends_as_the_command_ends_alone(big):
    cwd, env = big
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    ends = []
    for off in ("off", ""):
        proc = unread(cwd, {**env, "KB_DAEMON": off}, "graph")
        time.sleep(0.3)  # blocked writing (alone) or waiting for the daemon's reply
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
        ends.append((proc.returncode, err.decode()))
    assert ends[0] == (1, "\nAborted!\n")  # click's own words
    assert ends[1] == ends[0]  # was exit 130, nothing said
    assert kb(cwd, env, "roots").stdout == kb(cwd, env, "roots", KB_DAEMON="off").stdout


def test_a_system_that_does_not_tell_the_peer_still_gets_answers(monkeypatch):
    # macOS has no SO_PEERCRED: every connection used to be closed unanswered, so every question
    # failed ("ended without saying how the command ended")
    import socket

    state = server.Daemon("unused", 60)
    for told, answers in ((None, True), (os.getuid(), True), (os.getuid() + 1, False)):
        monkeypatch.setattr(server, "_peer_uid", lambda conn, told=told: told)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with mine:
            relay.send_request(mine, {"protocol": relay.PROTOCOL, "op": "status"})
            server.handle(state, theirs)
            try:
                reply = relay.read_reply(mine)
            except ConnectionResetError:  # closed unread
                reply = None
        assert (reply is not None and reply["pid"] == os.getpid()) is answers, told


def test_the_daemon_keeps_no_file_of_the_command_that_started_it(tmp_path, runtime):
    import select

    shutil.copytree(CAMPAIGN, tmp_path / "records")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "KB_CACHE_DIR": str(tmp_path / "cache")}
    read_end, write_end = os.pipe()
    try:
        started = subprocess.run([sys.executable, "-m", "kb", "daemon", "start", "--idle", "1"], cwd=tmp_path, env=env,
                                 pass_fds=[write_end], capture_output=True, text=True, timeout=60)
        os.close(write_end)
        assert started.returncode == 0, started.stderr
        # a caller reading a pipe the starting command had (as a shell's $(...) of a script
        # does) sees it end; the daemon used to hold it open for its whole life
        assert select.select([read_end], [], [], 10)[0] and os.read(read_end, 1) == b""
    finally:
        os.close(read_end)
        kb(tmp_path, env, "daemon", "stop")


def test_a_kept_records_cache_spares_reparsing_with_the_cache_off(tmp_path, monkeypatch, parsed):
    # a daemon started with KB_CACHE=off parsed every record again at each reload (0.9 s instead
    # of 0.1 s at 3,000 attempts): the kept cache held nothing when it had no folder to save to
    from kb.store import read
    from kb.store.cache import RecordCache, cache_path

    shutil.copytree(CAMPAIGN, tmp_path / "records")
    monkeypatch.setenv("KB_CACHE", "off")
    root = tmp_path / "records"
    kept = RecordCache(cache_path(root))
    assert kept.path is None
    read.load_records(root, kept=kept)
    assert len(parsed) == 21
    target = root / "attempts" / f"{FAILED}.yaml"
    target.write_text(target.read_text().replace("title: ", "title: Kept ", 1))
    parsed.clear()
    second = read.load_records(root, kept=kept)
    assert parsed == [FAILED] and second.records.get(FAILED).title.startswith("Kept ")
    assert not list(tmp_path.rglob("*.pickle"))  # still nothing written
    parsed.clear()
    read.load_records(root, cache_for=None)  # a command with the cache off parses everything, as before
    assert len(parsed) == 21


def test_a_question_whose_asker_left_before_it_was_taken_is_not_answered(tmp_path, monkeypatch):
    # Ctrl-C while the daemon was busy (a long reload, or stopped): the command ended, yet the
    # daemon then took the question from its queue and wrote the answer to the command's output
    import socket

    shutil.copytree(CAMPAIGN, tmp_path / "records")
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    state = server.Daemon("unused", 60)
    read_end, write_end = os.pipe()
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    request = {"protocol": relay.PROTOCOL, "op": "run", "argv": ["roots"], "cwd": str(tmp_path), "records": "records",
               "env": dict(os.environ), "streams": [["utf-8", "strict"], ["utf-8", "backslashreplace"]]}
    relay.send_request(mine, request, [write_end, write_end, write_end])
    mine.close()  # the asking command is gone
    os.close(write_end)
    try:
        server.handle(state, theirs)
        assert not state.running
        assert os.read(read_end, 1 << 16) == b""  # nothing written; every copy of the output closed
    finally:
        for pid in list(state.running):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(read_end)
        gc.unfreeze()


def test_a_stopped_daemon_never_holds_a_question_and_never_answers_it_late(big):
    # SIGSTOP (or Ctrl-Z on kb daemon start --foreground): the question used to wait for ever
    cwd, env = big
    assert kb(cwd, env, "daemon", "start", "--idle", "1").returncode == 0
    before = answered(cwd, env)
    alone = kb(cwd, env, "roots", "-n", "2", KB_DAEMON="off")
    pid = daemon_pid(cwd, env)
    os.kill(pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        waited = kb(cwd, env, "roots", "-n", "2", KB_DAEMON_WAIT="1")
        assert time.monotonic() - t0 < 30
    finally:
        os.kill(pid, signal.SIGCONT)
    assert (waited.returncode, waited.stdout, waited.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert answered(cwd, env) == before  # the question it found on waking was left: its asker had answered it
    via = kb(cwd, env, "roots", "-n", "2")
    assert via.stdout == alone.stdout and answered(cwd, env) == before + 1
