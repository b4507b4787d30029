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


@pytest.fixture
def campaign_copy(tmp_path: Path) -> Path:
    """A writable copy of the campaign's records/ tree."""
    dest = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, dest)
    return dest


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


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print what the reliability tests did (tests/reliability_stats.py), when any of them ran."""
    from reliability_stats import STATS

    line = STATS.summary()
    if line:
        terminalreporter.write_line(line)
