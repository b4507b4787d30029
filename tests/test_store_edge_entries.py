"""Odd file-system entries under records/ (kb.store.entries, kb.store.listing): a symlink loop, a
FIFO, socket or device file under a record's name, a name that is not UTF-8. Each is one problem
naming the entry, what is wrong and the fix; every other record still loads; nothing is opened
that could hang, and nothing raises. ``kb check`` runs in a subprocess with a timeout, so that a
hang fails a test instead of blocking the suite; in-process calls run under an alarm."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from kb.errors import Problem
from kb.store import list_assets, load_records
from kb.store.listing import record_files
from kb.store.memo import listing_digest, memo_path, tree_digest

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"

LOOP = ("symlink loop: following the link leads back to a link, never to a file; "
        "remove the link loop or point the link at a real file")
FIFO = "is a FIFO, not a regular file; record files must be regular files; remove the FIFO"
SOCKET = "is a socket, not a regular file; record files must be regular files; remove the socket"
DEVICE_LINK = ("the link leads to a character device, not a regular file; record files must be regular files; "
               "remove the link")
NOT_UTF8 = "file name is not valid UTF-8 (byte 0xff); kb cannot show or store it: rename it in UTF-8"
DANGLING = "the link leads to nothing (gone.yaml does not exist); point it at a record file or remove the link"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform == "win32",
                                reason="FIFOs, sockets and POSIX symlinks are made only on POSIX systems")


class Hung(BaseException):
    """Raised by the alarm of :func:`_deadline`: not an ``OSError`` (the folder walk catches
    those) nor an ``Exception``, so no handler in kb swallows it."""


@contextlib.contextmanager
def _deadline(seconds: int = 20) -> Iterator[None]:
    """Fail instead of hanging: an ``open()`` of a FIFO is interrupted by the alarm, which rings
    again every second until the block ends."""
    def fire(signum, frame):  # noqa: ANN001
        raise Hung(f"still running after {seconds} s: something opened a FIFO")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _campaign(tmp_path: Path) -> Path:
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def _ids(root: Path) -> set[str]:
    return {p.name.rsplit(".", 1)[0] for folder in root.iterdir() if folder.is_dir() for p in folder.glob("*.yaml")}


def _self_loop(root: Path) -> list[tuple[str, str]]:
    os.symlink("loop.yaml", root / "attempts" / "loop.yaml")
    return [("records/attempts/loop.yaml", LOOP)]


def _two_loop(root: Path) -> list[tuple[str, str]]:
    os.symlink("b.yaml", root / "attempts" / "a.yaml")
    os.symlink("a.yaml", root / "attempts" / "b.yml")
    os.symlink("b.yml", root / "attempts" / "b.yaml")
    return [("records/attempts/a.yaml", LOOP), ("records/attempts/b.yaml", LOOP), ("records/attempts/b.yml", LOOP)]


def _top_loop(root: Path) -> list[tuple[str, str]]:
    os.symlink("self", root / "self")
    return [("records/self", LOOP)]


def _folder_back_up(root: Path) -> list[tuple[str, str]]:
    os.symlink("..", root / "attempts" / "up", target_is_directory=True)
    return [("records/attempts/up",
             "a folder inside a kind folder is not read; records are files <id>.yaml: move its records up")]


def _fifo(root: Path) -> list[tuple[str, str]]:
    os.mkfifo(root / "attempts" / "x.yaml")
    os.mkfifo(root / "attempts" / ".hidden.yaml")  # hidden: skipped, never opened either
    return [("records/attempts/x.yaml", FIFO)]


def _socket(root: Path) -> list[tuple[str, str]]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(root / "blockers" / "s.yml"))
    except OSError as exc:  # a path longer than sun_path (108 bytes) under a deep tmp folder
        pytest.skip(f"cannot bind a UNIX socket there: {exc}")
    finally:
        s.close()  # the socket file stays
    return [("records/blockers/s.yml", SOCKET)]


def _device_link(root: Path) -> list[tuple[str, str]]:
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null to link to")
    os.symlink("/dev/null", root / "attempts" / "null.yaml")
    return [("records/attempts/null.yaml", DEVICE_LINK)]


def _not_utf8(root: Path) -> list[tuple[str, str]]:
    data = (CAMPAIGN / "attempts" / "2026-02-23-nccl-tree.yaml").read_bytes()
    data = b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"id:"))
    try:
        fd = os.open(os.fsencode(root / "attempts") + b"/\xffbad.yaml", os.O_CREAT | os.O_WRONLY, 0o644)
    except OSError as exc:  # e.g. a file system that holds names as Unicode (macOS APFS, some mounts)
        pytest.skip(f"this file system refuses a name that is not UTF-8: {exc}")
    os.write(fd, data)
    os.close(fd)
    return [("records/attempts/\\xffbad.yaml", NOT_UTF8)]


def _dangling(root: Path) -> list[tuple[str, str]]:
    os.symlink("gone.yaml", root / "decisions" / "lost.yaml")
    return [("records/decisions/lost.yaml", DANGLING)]


CASES: dict[str, Callable[[Path], list[tuple[str, str]]]] = {
    "self-loop": _self_loop, "two-link-loop": _two_loop, "top-level-loop": _top_loop,
    "folder-link-back-up": _folder_back_up, "fifo": _fifo, "socket": _socket, "device-link": _device_link,
    "not-utf8-name": _not_utf8, "dangling-link": _dangling,
}


def _bounded(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 60) -> subprocess.CompletedProcess[str]:
    """Run ``args`` in a session of its own; past ``timeout`` seconds kill the whole session (a
    forked worker would keep the output pipe open after its parent is killed) and fail."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{' '.join(args)} still running after {timeout} s (a FIFO opened?)")
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _kb(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _bounded([sys.executable, "-m", "kb", *args], cwd, {**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("case", list(CASES))
def test_the_entry_is_one_problem_and_the_rest_loads(case: str, tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    expected = CASES[case](root)
    with _deadline():
        loaded = load_records(root)
    assert [(p.path, p.line, p.field, p.message) for p in loaded.problems] == [(path, None, "", msg)
                                                                             for path, msg in expected]
    assert set(loaded.records.records) == _ids(CAMPAIGN)  # every record of the campaign still loads
    assert all(str(p).isprintable() for p in loaded.problems)  # no lone surrogate left in a path


@pytest.mark.parametrize("case", list(CASES))
def test_kb_check_lists_the_problem_cold_and_warm(case: str, tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    expected = CASES[case](root)
    lines = [str(Problem(path, None, "", msg)) for path, msg in expected]
    n = len(expected)
    for run in ("cold", "warm"):  # the second check is answered from the memo (kb.store.memo)
        memo_file = memo_path(root, "check")
        assert memo_file is not None and memo_file.is_file() == (run == "warm")
        done = _kb(tmp_path, "check")
        assert (run, done.returncode, done.stdout) == (run, 1, "".join(f"{line}\n" for line in lines)), done.stderr
        assert done.stderr == f"{n} problem{'s' if n != 1 else ''} in records\n"
    report = json.loads(_kb(tmp_path, "check", "--json").stdout)
    assert [(p["path"], p["message"]) for p in report["problems"]] == expected
    assert report["records"] == len(_ids(CAMPAIGN))


def test_a_fifo_replaced_by_a_record_is_seen_by_the_warm_check(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    fifo = root / "attempts" / "2026-03-01-retry.yaml"
    os.mkfifo(fifo)
    assert _kb(tmp_path, "check").returncode == 1
    assert _kb(tmp_path, "check").returncode == 1
    fifo.unlink()
    shutil.copy(CAMPAIGN / "attempts" / "2026-02-23-nccl-tree.yaml", fifo)
    text = fifo.read_text(encoding="utf-8").replace("id: 2026-02-23-nccl-tree", "id: 2026-03-01-retry")
    fifo.write_text(text, encoding="utf-8")
    done = _kb(tmp_path, "check")
    assert (done.returncode, done.stdout + done.stderr) == (0, f"{len(_ids(CAMPAIGN)) + 1} records OK in records\n")


def test_the_folder_digest_never_opens_a_fifo_and_sees_it_replaced(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    os.symlink("loop.yaml", root / "attempts" / "loop.yaml")
    os.symlink("..", root / "attempts" / "up", target_is_directory=True)
    fifo = root / "attempts" / "x.yaml"
    os.mkfifo(fifo)
    kept: dict[str, bytes] = {}
    with _deadline():
        with_fifo = tree_digest(root, kept)
        names = listing_digest(root)
        assert tree_digest(root) == with_fifo  # the same entries hash the same
    assert str(fifo) not in kept and len(kept) == len(_ids(CAMPAIGN))
    fifo.unlink()
    fifo.write_bytes(b"")  # an empty regular file where the FIFO was
    with _deadline():
        assert tree_digest(root) != with_fifo
        assert listing_digest(root) != names  # a listing sees a file's type, not only its name


def test_record_files_leaves_the_odd_entries_out(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    _self_loop(root)
    _fifo(root)
    with _deadline():
        found = sorted(p.name for _, p in record_files(root))
    assert found == sorted(p.name for p in CAMPAIGN.glob("*/*.yaml"))


def test_odd_assets_are_reported_and_left_out(tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    assets = root / "assets"
    assets.mkdir()
    (assets / "plot.png").write_bytes(b"\x89PNG")
    os.mkfifo(assets / "f.png")
    os.symlink("loop.png", assets / "loop.png")
    os.symlink("..", assets / "up", target_is_directory=True)  # a link back up: not entered
    with _deadline():
        loaded = load_records(root)
        listed = list_assets(root)
    assert [(p.path, p.message) for p in loaded.problems] == [
        ("records/assets/f.png", "is a FIFO, not a regular file; asset files must be regular files; remove the FIFO"),
        ("records/assets/loop.png", LOOP)]
    assert list(listed) == ["plot.png"]


def test_parallel_load_reports_the_odd_entries_as_one_process_does(tmp_path: Path) -> None:
    """The forked cold load (kb.store.parallel, floor lowered as in test_parallel_load) never
    opens the FIFO and gives the same records and problems as a load in one process."""
    root = _campaign(tmp_path)
    expected = _fifo(root) + _self_loop(root) + _two_loop(root)
    script = ("import json, os, sys\nimport kb.store.parallel as par\npar.MIN_FILES = 1\nforks = []\n"
              "real = os.fork\ndef fork():\n    pid = real()\n    if pid: forks.append(pid)\n    return pid\n"
              "os.fork = fork\nfrom kb.store import load_records\nr = load_records(sys.argv[1])\n"
              "print(json.dumps({'ids': sorted(r.records.records), 'forks': len(forks),"
              " 'problems': [[p.path, p.message] for p in r.problems]}))\n")
    out = []
    for jobs in ("3", "1"):
        env = {**os.environ, "KB_JOBS": jobs, "KB_CACHE_DIR": str(tmp_path / f"cache{jobs}"), "PYTHONPATH": str(ROOT)}
        done = _bounded([sys.executable, "-c", script, str(root)], ROOT, env)
        assert done.returncode == 0, done.stderr
        out.append(json.loads(done.stdout))
    parallel, single = out
    assert parallel["forks"] == 2 and single["forks"] == 0
    assert parallel["ids"] == single["ids"] == sorted(_ids(CAMPAIGN))
    assert sorted(map(tuple, parallel["problems"])) == sorted(map(tuple, single["problems"])) == sorted(expected)


@pytest.mark.parametrize("command", [["roots"], ["why", "2026-02-23-nccl-tree"],
                                     ["diff", "2026-02-21-eagle3-speculation", "2026-02-27-eagle3-cuda13"],
                                     ["build", "-d", "site"]])
def test_other_commands_refuse_with_the_problem_and_never_hang(command: list[str], tmp_path: Path) -> None:
    root = _campaign(tmp_path)
    _fifo(root)
    _self_loop(root)
    for _ in range(2):  # queries keep answers in a memo: the second run must refuse too
        done = _kb(tmp_path, *command)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        output = done.stdout + done.stderr
        assert f"records/attempts/x.yaml: {FIFO}" in output and f"records/attempts/loop.yaml: {LOOP}" in output


def test_the_serve_watcher_stats_without_opening(tmp_path: Path) -> None:
    from kb.site.preview import _files_under, _stats

    root = _campaign(tmp_path)
    _fifo(root)
    _self_loop(root)
    os.symlink("..", root / "attempts" / "up", target_is_directory=True)
    with _deadline():
        stats = _stats(_files_under(str(root)))
    assert str(root / "attempts" / "x.yaml") in stats  # a FIFO is stat'ed (a change is seen), not opened
    assert str(root / "attempts" / "loop.yaml") not in stats  # a loop cannot be stat'ed: left out, no error


def test_a_loop_or_fifo_takes_its_id_for_the_write_gate(tmp_path: Path) -> None:
    """The dry run (free_id) skips a name a loop or FIFO holds, as the write does (its exclusive
    link fails there): both give the next id."""
    from kb.store import create_record, free_id, load_records

    root = _campaign(tmp_path)
    record = load_records(root).records.records["2026-02-23-nccl-tree"]
    fresh = record.model_copy(update={"id": "2026-03-02-retry"})
    os.symlink("2026-03-02-retry.yaml", root / "attempts" / "2026-03-02-retry.yaml")
    os.mkfifo(root / "attempts" / "2026-03-02-retry-2.yaml")
    with _deadline():
        assert free_id(root, fresh) == "2026-03-02-retry-3"
        written, path = create_record(root, fresh)
    assert (written.id, path) == ("2026-03-02-retry-3", root / "attempts" / "2026-03-02-retry-3.yaml")
