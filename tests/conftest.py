"""Shared fixtures: the campaign records, and small records/ trees written from dicts."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN_RECORDS = ROOT / "tests" / "fixtures" / "campaign"
"""A frozen copy of the campaign's records (tests never read the live records/)."""
SHARED = ROOT.parent / "shared"


@pytest.fixture(autouse=True, scope="session")
def _record_cache_outside_the_tree(tmp_path_factory: pytest.TempPathFactory):
    """The store's cache of validated records (kb.store.cache) goes to a folder of the test
    session, not beside tests/fixtures (kept for processes the tests start, too);
    tests/test_cache.py checks its default place."""
    import os

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
