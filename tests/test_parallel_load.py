"""Parsing on several cores (kb.store.parallel): the same records, problems, order and lines as
parsing in one process, whatever the workers do.

Each load runs in a fresh Python process (as ``kb`` does): workers are forked only in a process
without other threads, and the test process may have some."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kb.store.parallel import _owners, workers

ROOT = Path(__file__).resolve().parent.parent

# Loads records/ with parse_ahead's floor lowered to 1 file, counting the workers forked, and
# prints what the load found: record ids in order, every problem, the line of each record's
# title (from the line maps: parsed here, by a worker, or kept), the workers started and the
# files this process parsed itself.
LOAD = r"""
import json, os, sys
import kb.store.parallel as par
par.MIN_FILES = 1
forks = []
real_fork = os.fork
def counting_fork():
    pid = real_fork()
    if pid:
        forks.append(pid)
    return pid
os.fork = counting_fork
if os.environ.get("FAIL_WORKERS"):
    real_work = par._work
    def failing_work(jobs, cache, read, parse, shards, w):
        os._exit(3)
    par._work = failing_work
if os.environ.get("IGNORE_SIGCHLD"):  # as inherited from a launcher that ignores it
    import signal
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
if os.environ.get("FAIL_PIPE"):  # out of file descriptors from the FAIL_PIPE-th pipe on
    real_pipe = os.pipe
    pipes = []
    def failing_pipe():
        pipes.append(1)
        if len(pipes) >= int(os.environ["FAIL_PIPE"]):
            raise OSError(24, "Too many open files")
        return real_pipe()
    os.pipe = failing_pipe
if os.environ.get("INTERRUPT_WORKERS"):  # a Ctrl-C reaching each worker as it starts
    import signal
    # Python's own SIGINT handler, whatever the launcher left (a background job, some CI runners
    # start the suite with SIGINT ignored, and a process keeps an ignored signal ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    real_work = par._work
    def interrupted_work(*args):
        os.kill(os.getpid(), signal.SIGINT)
        real_work(*args)
    par._work = interrupted_work
import kb.store.read as read
parsed = []
real_parse = read._parse_job
def counting_parse(data, job):
    parsed.append(job.rel)
    return real_parse(data, job)
read._parse_job = counting_parse
from kb.store import load_records
loaded = load_records(sys.argv[1])
rs = loaded.records
print(json.dumps({
    "ids": list(rs.records),
    "problems": [[p.path, p.line, p.field, p.message] for p in loaded.problems],
    "title_lines": {rid: rs.origins[rid].line("title") for rid in rs.records},
    "forks": len(forks),
    "parsed_here": len(parsed),
}))
"""


def _load(records: Path, jobs: int, cache: Path, **extra: str) -> dict:
    env = {**os.environ, "KB_JOBS": str(jobs), "KB_CACHE_DIR": str(cache), **extra}
    done = subprocess.run([sys.executable, "-c", LOAD, str(records)], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated campaign of 60 attempts, plus files of every bad kind a load reports."""
    base = tmp_path_factory.mktemp("par")
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_campaign.py"), str(base / "records"), "60", "5"],
                   check=True, capture_output=True)
    records = base / "records"
    att = records / "attempts"
    (att / "bad-yaml.yaml").write_text("title: [unclosed\n")
    (att / "bad-field.yaml").write_text("title: x\ncampaign: nope\noutcome: maybe\n")
    (att / "latin1.yaml").write_bytes("title: caf\xe9\n".encode("latin-1"))
    (att / "empty.yaml").write_text("")
    first = sorted(att.glob("*.yaml"))[0]
    first.with_suffix(".yml").write_bytes(first.read_bytes())  # one id in two files
    return records


def test_workers_give_what_one_process_gives(campaign: Path, tmp_path: Path) -> None:
    serial = _load(campaign, 1, tmp_path / "c1")
    files = len(list(campaign.glob("*/*.y*ml")))
    assert serial["forks"] == 0 and serial["parsed_here"] == files
    assert len(serial["ids"]) > 60
    assert any("duplicate id" in p[3] for p in serial["problems"])
    assert any(p[0].endswith("latin1.yaml") and "not UTF-8" in p[3] for p in serial["problems"])
    assert any(p[0].endswith("bad-yaml.yaml") and p[3].startswith("invalid YAML") for p in serial["problems"])
    for jobs in (2, 3):
        par = _load(campaign, jobs, tmp_path / f"c{jobs}")
        assert par["forks"] == jobs - 1
        assert 0 < par["parsed_here"] < files * 0.8  # the workers parsed the rest
        assert par == {**serial, "forks": jobs - 1, "parsed_here": par["parsed_here"]}
        warm = _load(campaign, jobs, tmp_path / f"c{jobs}")  # every file cached now: nothing to fork for
        assert warm == {**serial, "forks": 0, "parsed_here": 0}


def test_failed_workers_cost_only_time(campaign: Path, tmp_path: Path) -> None:
    serial = _load(campaign, 1, tmp_path / "c1")
    failed = _load(campaign, 2, tmp_path / "c2", FAIL_WORKERS="1")
    assert failed == {**serial, "forks": 1}  # the parent parsed the worker's files itself
    assert _load(campaign, 1, tmp_path / "c2") == {**serial, "parsed_here": 0}  # and cached them all


def test_no_workers_when_sigchld_is_ignored(campaign: Path, tmp_path: Path) -> None:
    """With SIGCHLD ignored (inherited from the process that started kb) the kernel reaps
    children itself and waitpid fails (ECHILD): the load runs in one process."""
    serial = _load(campaign, 1, tmp_path / "c1")
    assert _load(campaign, 3, tmp_path / "c3", IGNORE_SIGCHLD="1") == serial


def test_no_pipe_left_costs_only_time(campaign: Path, tmp_path: Path) -> None:
    """A pipe that cannot be made (out of file descriptors) starts no more workers; the load
    goes on with those started (here one of two) and gives what one process gives."""
    serial = _load(campaign, 1, tmp_path / "c1")
    par = _load(campaign, 3, tmp_path / "c3", FAIL_PIPE="2")
    assert par == {**serial, "forks": 1, "parsed_here": par["parsed_here"]}


def test_interrupted_workers_end_quietly(campaign: Path, tmp_path: Path) -> None:
    """A Ctrl-C (SIGINT) that reaches a worker before it is under way ends it at once without a
    word: no KeyboardInterrupt traceback, no 'Aborted!', none of the parent's code run in it."""
    serial = _load(campaign, 1, tmp_path / "c1")
    env = {**os.environ, "KB_JOBS": "3", "KB_CACHE_DIR": str(tmp_path / "c3"), "INTERRUPT_WORKERS": "1"}
    done = subprocess.run([sys.executable, "-c", LOAD, str(campaign)], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=True)
    assert done.stderr == ""
    assert json.loads(done.stdout) == {**serial, "forks": 2}  # the parent parsed the workers' files itself


# A load interrupted (KeyboardInterrupt) while the parent parses its own share, in a process that
# goes on after it (an interactive session): prints the child processes and pipe ends it holds after.
INTERRUPTED = r"""
import json, os, sys
import kb.store.parallel as par
par.MIN_FILES = 1
import kb.store.read as read
parent = os.getpid()
real_parse = read._parse_job
calls = []
def interrupted_parse(data, job):
    if os.getpid() == parent:
        calls.append(job.rel)
        if len(calls) == 3:
            raise KeyboardInterrupt
    return real_parse(data, job)
read._parse_job = interrupted_parse
from kb.store import load_records
fds = set(os.listdir("/proc/self/fd"))
interrupted = False
try:
    load_records(sys.argv[1])
except KeyboardInterrupt:
    interrupted = True  # it went on up to the caller
try:
    left = os.waitpid(-1, os.WNOHANG) != (0, 0)  # a child that has exited (a zombie) or not yet
except ChildProcessError:
    left = False
print(json.dumps({"interrupted": interrupted, "children_left": left,
                  "fds_left": len(set(os.listdir("/proc/self/fd")) - fds)}))
"""


def test_interrupted_load_leaves_no_worker(campaign: Path, tmp_path: Path) -> None:
    """A load interrupted in the parent ends and reaps its workers and closes their pipes before
    the KeyboardInterrupt goes on up: nothing left running, no zombie, no file descriptor."""
    env = {**os.environ, "KB_JOBS": "3", "KB_CACHE_DIR": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-c", INTERRUPTED, str(campaign)], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=True)
    assert json.loads(done.stdout) == {"interrupted": True, "children_left": False, "fds_left": 0}
    assert done.stderr == ""


def test_worker_sees_an_edit_made_after_it_parsed(campaign: Path, tmp_path: Path) -> None:
    """A worker's entry is used only for the bytes the load reads: a file edited after the
    workers parsed it is parsed again by the load (here: the cache written by workers, then an
    edit, then a load in one process)."""
    _load(campaign, 2, tmp_path / "c")
    target = sorted((campaign / "attempts").glob("*.yaml"))[5]
    text = target.read_text()
    try:
        target.write_text(text.replace("title:", "title: Edited", 1))
        again = _load(campaign, 1, tmp_path / "c")
        fresh = _load(campaign, 1, tmp_path / "fresh")
        assert again == {**fresh, "parsed_here": 1}
    finally:
        target.write_text(text)


def test_workers_from_the_environment() -> None:
    assert workers({"KB_JOBS": "3"}) == (3 if sys.platform == "linux" else 1)
    assert workers({"KB_JOBS": "1"}) == 1
    default = workers({})
    assert workers({"KB_JOBS": "zero"}) == default == workers({"KB_JOBS": "0"})
    assert workers({"KB_JOBS": "²"}) == default  # a digit int() refuses: ignored, not a crash
    assert 1 <= default <= 4


def test_shards_are_shared_out_whole() -> None:
    for n in (2, 3, 4, 8):
        owners = _owners(32, n)
        assert len(owners) == 32 and set(owners) == set(range(n))
        assert owners == sorted(owners)  # runs: each process takes neighbouring shards
    assert _owners(32, 2).count(0) == 19
