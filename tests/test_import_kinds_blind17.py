"""Blind variants of the error headline (tests/fixtures/kinds/blind17/: eight failed runs' console
output and the headline each must give, written by a helper who had not read kb/importers/): when a
logger's line and a Python exception line report the same specific cause, the exception's own line is
the headline; a cause printed only by a logger keeps that line, its prefix removed; a later generic
``RuntimeError: Engine core initialization failed`` loses to the specific one. On the rule before
cb846b8, 1 of the 8 was wrong (the logger line printed before the traceback won)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kb.importers.read import errors

BLIND = Path(__file__).resolve().parent / "fixtures" / "kinds" / "blind17"
EXPECTED = yaml.safe_load((BLIND / "expected.yaml").read_text(encoding="utf-8"))


def test_the_set_is_whole():
    assert sorted(EXPECTED) == [f"e{n}.txt" for n in range(1, 9)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_error_headline(name):
    assert errors.error_headline((BLIND / name).read_text(encoding="utf-8")) == EXPECTED[name]
