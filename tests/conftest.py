"""Shared fixtures: the campaign records, and small records/ trees written from dicts."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN_RECORDS = ROOT / "tests" / "fixtures" / "campaign"
"""A frozen copy of the campaign's records (tests never read the live records/)."""
SHARED = ROOT.parent / "shared"

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
"""Bytecode is cached for the run, whatever the shell set: the suite starts hundreds of ``python -m
kb`` processes, and without a ``__pycache__`` each compiles every module it imports again (0.3-0.9 s
apiece here), and pytest rewrites every test module's asserts again in every worker."""

collect_ignore_glob = ["fixtures/*/*.py"]
"""Programs kept as fixtures (the GPU benchmarks kb run was tested with) are run on a GPU
machine, never imported by the suite's doctest collection."""


PROGRESS_EVERY_S = 25.0
"""Longest stretch without a new line of output: a run with few, slow tests (the browser tests
take up to about 20 s each, and ``-q`` prints their dots on one line) still shows it is alive."""


class _Progress:
    """A line ``… N tests done in T s; running <test>`` every :data:`PROGRESS_EVERY_S` of the
    run, written by a daemon thread (checking every second, so a slow test is reported while it
    runs) to the terminal pytest started on: a copy of the standard output taken while pytest's
    output capture is suspended (a test's own output stays captured)."""

    def __init__(self, config: pytest.Config):
        import threading
        import time

        self.config = config
        self.clock = time.monotonic
        self.start = self.last = self.clock()
        self.done = 0
        self.started: dict[str, float] = {}
        self.out: Any = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="kb-test-progress", daemon=True)

    def _watch(self) -> None:
        while not self.stop.wait(1.0):
            now = self.clock()
            if now - self.last >= PROGRESS_EVERY_S:
                self.out.write(f"\n… {self.done} tests done in {now - self.start:.0f} s; running {self.running}\n")
                self.out.flush()
                self.last = now

    @pytest.hookimpl(tryfirst=True)  # before pytest-xdist's loop, which runs the whole session
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=False)
        try:
            self.out = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace")
        finally:
            if capture is not None:
                capture.resume_global_capture()
        self.start = self.last = self.clock()
        self.thread.start()

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self.started[nodeid] = self.clock()

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.started.pop(nodeid, None)
        self.done += 1

    @property
    def running(self) -> str:
        """The test running longest (several run at once under pytest-xdist), or ``""``."""
        started = dict(self.started)
        return min(started, key=started.__getitem__) if started else ""

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(2.0)
        if self.out is not None:
            self.out.close()


def pytest_configure(config: pytest.Config) -> None:
    """Register :class:`_Progress` (once; not under xdist workers, whose output is not shown), and
    compile kb's modules once before the workers and the processes they start import them."""
    if not config.pluginmanager.has_plugin("kb-progress") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Progress(config), "kb-progress")
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(ROOT / "kb", quiet=1)


SLOW_FIRST = ("test_import_mlflow.py", "test_site_ecosystem.py", "test_publish.py", "test_break_round3.py",
              "test_browser.py", "test_browser_engineer.py", "test_policy_round_blind.py", "test_serve.py",
              "test_properties.py", "test_truth_properties.py", "test_site_shell.py", "test_bench.py")
"""Modules whose tests take 10 s or more each (``--durations`` of the suite): run first, so that
under pytest-xdist no worker starts one of them when the others have run out of work."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the tests of :data:`SLOW_FIRST` first (a stable sort: the order within each part stays)."""
    items.sort(key=lambda item: item.path.name not in SLOW_FIRST)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for ``-n auto``: two a core, at most eight. Many tests wait on processes they
    started (builds, servers, a browser), so a core keeps two workers busy; measured on two
    cores, four workers finish the suite in 7 min 13 s and two in 8 min 38 s."""
    return max(2, min(8, 2 * (os.cpu_count() or 1)))


@pytest.fixture(autouse=True, scope="session")
def _record_cache_outside_the_tree(tmp_path_factory: pytest.TempPathFactory):
    """The store's cache of validated records (kb.store.cache) goes to a folder of the test
    session, not beside tests/fixtures (kept for processes the tests start, too);
    tests/test_cache.py checks its default place."""
    if os.environ.get("KB_CACHE_DIR"):
        yield
        return
    os.environ["KB_CACHE_DIR"] = str(tmp_path_factory.mktemp("kb-cache"))
    try:
        yield
    finally:
        os.environ.pop("KB_CACHE_DIR", None)


@pytest.fixture
def campaign_copy(tmp_path: Path) -> Path:
    """A writable copy of the campaign's records/ tree."""
    dest = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, dest)
    return dest


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the campaign's records whose cache goes to its default place (``.kb-cache/``
    beside them), not to the session's cache folder."""
    monkeypatch.delenv("KB_CACHE_DIR", raising=False)
    monkeypatch.delenv("KB_CACHE", raising=False)
    root = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, root)
    return root


@pytest.fixture
def write_tree(tmp_path: Path) -> Callable[[dict[str, Any]], Path]:
    """Write ``{"attempts/x.yaml": {...} or "raw text"}`` under tmp_path/records; return the root."""

    def write(files: dict[str, Any]) -> Path:
        root = tmp_path / "records"
        root.mkdir(exist_ok=True)
        for rel, content in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            elif isinstance(content, str):
                p.write_text(content, encoding="utf-8")
            else:
                p.write_text(yaml.safe_dump(content, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return root

    return write


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stems of the record files the store parses from now on (not taken from a cache), in order."""
    from kb.store import read

    stems: list[str] = []
    real = read._parse_job

    def spy(data: bytes, job: Any) -> Any:
        stems.append(job.stem)
        return real(data, job)

    monkeypatch.setattr(read, "_parse_job", spy)
    return stems


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print what the reliability tests did (tests/reliability_stats.py), when any of them ran."""
    from reliability_stats import STATS

    line = STATS.summary()
    if line:
        terminalreporter.write_line(line)
