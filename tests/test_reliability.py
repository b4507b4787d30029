"""No data loss: concurrent writers, writers killed with SIGKILL, a full disk and a read-only
tree, and nothing written beyond what a command means to write (byte-for-byte).

Real processes where it matters: 20 concurrent ``python -m kb log`` processes; ``kb log`` and
``kb import`` killed with SIGKILL while they loop over writes (through ``kb.cli``, the same
code path as the command line); a real 64 KiB tmpfs (full, then read-only) mounted in a private
mount namespace (``unshare -rm``) when this machine allows it. The disk errors are also
simulated in-process (ENOSPC from the write, EROFS from the temporary file or the link).
"""

from __future__ import annotations

import errno
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT
from reliability_stats import STATS

from kb.atomic import TEMP_SUFFIX, sweep_temp_files
from kb.cli import cli
from kb.pipeline import load
from kb.store import load_records

ADV_BASE = Path(__file__).parent / "adversarial" / "base"
NOTEBOOK = Path(__file__).parent / "fixtures" / "logs" / "notebook.md"
KIND_FOLDERS = ("platforms", "stacks", "campaigns", "attempts", "blockers", "decisions")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}


def tree_hashes(root: Path) -> dict[str, str]:
    """Every file under ``root`` (relative path → sha256 of its bytes)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() or p.is_symlink()}


def temp_files(root: Path) -> list[Path]:
    return [p for d in KIND_FOLDERS if (root / d).is_dir() for p in (root / d).iterdir()
            if p.name.startswith(".") and p.name.endswith(TEMP_SUFFIX)]


def kb_check_ok(root: Path) -> None:
    problems = load(root).problems
    assert problems == [], [str(p) for p in problems]


# --------------------------------------------------------------------------- concurrency

N_WRITERS = 20


def test_20_concurrent_kb_log_processes_write_20_distinct_valid_records(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(ADV_BASE, root)
    before = tree_hashes(root)
    args = ["log", "-t", "Concurrent writer", "-a", "same title, same second", "-o", "improved",
            "-m", "output_throughput=60tok/s", "--date", "2026-03-01", "--no-interactive"]
    procs = [subprocess.Popen([sys.executable, "-m", "kb", "--records", str(root), *args], env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(N_WRITERS)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * N_WRITERS, [o[1] for o in outs]
    paths = [Path(o[0].strip()) for o in outs]
    assert len(set(paths)) == N_WRITERS and all(p.is_file() for p in paths)
    kb_check_ok(root)
    new = sorted(set(tree_hashes(root)) - set(before))
    assert len(new) == N_WRITERS and temp_files(root) == []
    ids = [Path(n).stem for n in new]
    assert len(set(ids)) == N_WRITERS
    assert set(ids) == {"2026-03-01-concurrent-writer"} | {f"2026-03-01-concurrent-writer-{i}" for i in range(2, 21)}
    assert {k: v for k, v in tree_hashes(root).items() if k in before} == before
    loaded = load_records(root).records
    STATS.lost(sum(1 for i in ids if loaded.get(i) is None))
    STATS.writers(N_WRITERS)


# --------------------------------------------------------------------------- SIGKILL

DRIVER = textwrap.dedent('''
    """Loop writes through kb's CLI until killed; print each written path once it is written."""
    import contextlib, io, sys
    from pathlib import Path
    from kb.cli import cli

    root, mode, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    # warm up (imports, caches) so that the kill lands among the writes, not in start-up
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        if mode == "log":
            cli.main(["--records", root, "log", "-t", "warm", "-a", "up", "-o", "improved", "--dry-run",
                      "--no-interactive"], prog_name="kb", standalone_mode=False)
        else:
            cli.main(["--records", root, "import", "--dry-run", sys.argv[4]], prog_name="kb", standalone_mode=False)
    print("ready", flush=True)
    for i in range(100):
        if mode == "log":
            args = ["--records", root, "log", "-t", "Killed writer", "-a", "loop", "-o", "improved",
                    "-m", "output_throughput=61tok/s", "--notes", "n" * 20000, "--no-interactive"]
        else:  # a fresh copy of the notebook each time: another sha256, so new drafts are written
            log = work / f"notebook-{i}.md"
            log.write_text(Path(sys.argv[4]).read_text() + f"\\n<!-- copy {i} -->\\n")
            args = ["--records", root, "import", str(log)]
        before = {p.name for p in (Path(root) / "attempts").iterdir()}
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.main(args, prog_name="kb", standalone_mode=False)
        for p in sorted((Path(root) / "attempts").iterdir()):
            if p.name not in before and not p.name.startswith("."):
                print(p, flush=True)
''')


def _kill_once(root: Path, mode: str, delay_s: float, work: Path) -> tuple[list[Path], int]:
    """Start the driver, wait for it to be ready, let it write for ``delay_s``, SIGKILL it.
    Returns the paths it reported written and its pid."""
    driver = work / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(driver), str(root), mode, str(work), str(NOTEBOOK)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    if first != "ready":
        proc.kill()
        pytest.fail(f"the driver did not start: {first!r} {proc.communicate(timeout=60)[1][-2000:]}")
    time.sleep(delay_s)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, err
    return [Path(line) for line in out.splitlines() if line.strip()], proc.pid


@pytest.mark.parametrize("mode,kills", [("log", 6), ("import", 4)])
def test_a_writer_killed_at_a_random_point_leaves_no_partial_file(campaign_copy, tmp_path, mode, kills):
    """Each kill lands somewhere in a loop of writes (random delay 0-300 ms after start-up,
    seeded): afterwards every record it reported is intact, `kb check` passes, and the only
    leftovers are hidden temporary files of the dead pid, which the store's sweep removes."""
    root = campaign_copy
    rng = random.Random(f"kb-kill-{mode}")
    original = tree_hashes(root)
    reported: list[Path] = []
    for n in range(kills):
        work = tmp_path / f"work-{n}"
        work.mkdir()
        written, pid = _kill_once(root, mode, rng.uniform(0.0, 0.3), work)
        reported += written
        kb_check_ok(root)  # no partial or corrupt record: everything present loads and links
        loaded = load_records(root).records
        lost = [p for p in reported if not p.is_file() or loaded.get(p.stem) is None]
        stray = temp_files(root)
        assert all(f".{pid}." in p.name for p in stray), stray  # only the killed writer's
        assert sorted(sweep_temp_files(root / "attempts")) == sorted(stray)
        assert temp_files(root) == []
        # what was there before the kills is untouched
        assert {k: v for k, v in tree_hashes(root).items() if k in original} == original
        STATS.killed(lost=len(lost))
        assert lost == []


def test_the_store_sweeps_temp_files_of_dead_writers_only(tmp_path):
    from kb.models import Blocker
    from kb.store import write_record

    folder = tmp_path / "blockers"
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = folder / f".old.{dead_pid}.abc123{TEMP_SUFFIX}"
    live = folder / f".new.{os.getppid()}.def456{TEMP_SUFFIX}"  # a live process (pytest's parent)
    other = folder / ".notes.swp"
    for p in (stale, live, other):
        p.write_text("partial", encoding="utf-8")
    write_record(tmp_path, Blocker(id="x", title="A blocker"))
    assert sorted(p.name for p in folder.iterdir()) == sorted([live.name, other.name, "x.yaml"])
    assert load_records(tmp_path).problems == []  # hidden files are never read as records


# --------------------------------------------------------------------------- disk full, read-only

LOG_ARGS = ["log", "-t", "Disk trouble", "-a", "x", "-o", "improved", "-m", "output_throughput=1tok/s",
            "--date", "2026-03-02", "--no-interactive"]


def _enospc_on_write(monkeypatch):
    real = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, _text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.fh, name)

    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Full(real(fd, *a, **k)))


def _erofs_on_create(monkeypatch):
    import tempfile

    def refuse(*_a, **_k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)


def _erofs_on_link(monkeypatch):
    def refuse(*_a, **_k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(os, "link", refuse)


@pytest.mark.parametrize("fault,reason,hint", [
    (_enospc_on_write, "No space left on device", "free some space"),
    (_erofs_on_create, "Read-only file system", "the file system is mounted read-only"),
    (_erofs_on_link, "Read-only file system", "the file system is mounted read-only"),
], ids=["enospc-write", "erofs-tempfile", "erofs-link"])
def test_disk_errors_give_a_clear_write_error_and_change_nothing(tmp_path, monkeypatch, fault, reason, hint):
    """Simulated in-process (tests run as root, so chmod would not stop a write)."""
    root = tmp_path / "records"
    shutil.copytree(ADV_BASE, root)
    before = tree_hashes(root)
    fault(monkeypatch)
    for args in (LOG_ARGS, ["new", "blocker", "Disk trouble"]):
        result = CliRunner().invoke(cli, ["--records", str(root), *args], prog_name="kb")
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith(f"kb: {root}/") and f": cannot write ({reason}); nothing was changed: {hint}" in last
    monkeypatch.undo()
    assert tree_hashes(root) == before


def _namespaces_work() -> str | None:
    if not shutil.which("unshare") or not shutil.which("mount"):
        return "unshare or mount is not installed"
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d"],
                           capture_output=True, text=True)
    return None if probe.returncode == 0 else f"cannot mount a tmpfs in a private namespace: {probe.stderr.strip()}"


REAL_FS = textwrap.dedent('''
    set -u
    D="$1"; SRC="$2"; MODE="$3"; shift 3
    mount -t tmpfs -o size=64k tmpfs "$D" || exit 90
    cp -r "$SRC" "$D/records"
    if [ "$MODE" = full ]; then dd if=/dev/zero of="$D/filler" bs=1024 2>/dev/null; fi
    if [ "$MODE" = readonly ]; then mount -o remount,ro "$D" || exit 91; fi
    (cd "$D/records" && find . -type f | sort | xargs sha256sum) > "$D/../before.txt"
    "$@"; echo "rc=$?"
    (cd "$D/records" && find . -type f | sort | xargs sha256sum) > "$D/../after.txt"
    "$PYTHON" -m kb --records "$D/records" check; echo "check=$?"
''')


@pytest.mark.parametrize("mode,reason", [("full", "No space left on device"), ("readonly", "Read-only file system")])
def test_real_full_and_read_only_tmpfs(tmp_path, mode, reason):
    """A real 64 KiB tmpfs, filled up or remounted read-only, in a private mount namespace."""
    why_not = _namespaces_work()
    if why_not:
        pytest.skip(why_not)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = tmp_path / "fs.sh"
    script.write_text(REAL_FS, encoding="utf-8")
    proc = subprocess.run(["unshare", "-rm", "sh", str(script), str(mnt), str(ADV_BASE), mode,
                           sys.executable, "-m", "kb", "--records", str(mnt / "records"), *LOG_ARGS],
                          capture_output=True, text=True, env={**ENV, "PYTHON": sys.executable}, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in out, out
    assert "rc=1" in out and "check=0" in out, out
    assert f"/attempts/2026-03-02-disk-trouble.yaml: cannot write ({reason}); nothing was changed" in out, out
    before, after = (tmp_path / "before.txt").read_text(), (tmp_path / "after.txt").read_text()
    assert before == after and before.count("\n") == 6  # the six records, byte for byte, nothing added


# --------------------------------------------------------------------------- byte-for-byte


def _fake_capture(monkeypatch):
    from kb.capture import Capture

    cap = Capture(components={"cuda": "13.0.48", "torch": "2.10.0+cu130"}, captured_at="2026-03-03T10:00:00Z")
    monkeypatch.setattr("kb.capture.capture_machine", lambda *a, **k: cap)


WRITERS = {
    "log": ["log", "-t", "Byte check", "-a", "x", "-o", "improved", "-m", "output_throughput=70tok/s",
            "--date", "2026-03-03", "--no-interactive"],
    "new-decision": ["new", "decision", "--date", "2026-03-03", "Adopt", "NCCL", "2.28"],
    "new-blocker": ["new", "blocker", "Byte", "check", "blocker"],
    "capture": ["capture", "--write", "byte-check-stack"],
    "import": ["import", str(NOTEBOOK)],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_writing_command_changes_nothing_but_what_it_writes(campaign_copy, monkeypatch, command):
    _fake_capture(monkeypatch)
    before = tree_hashes(campaign_copy.parent)  # the whole tree around records/, not only records/
    result = CliRunner().invoke(cli, ["--records", str(campaign_copy), *WRITERS[command]], prog_name="kb")
    assert result.exit_code == 0, result.output
    after = tree_hashes(campaign_copy.parent)
    added = sorted(set(after) - set(before))
    assert added, "the command wrote something"
    assert all(a.startswith("records/") and a.endswith(".yaml") for a in added), added
    assert {k: after.get(k) for k in before} == before  # nothing changed, nothing removed
    kb_check_ok(campaign_copy)
