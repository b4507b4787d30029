"""The scaffolding of the test modules that score a folder of blind logs whole
(``tests/test_import_kinds_blind15.py`` and later): each log of the folder is one test, asserting
that every attempt of its truth file is found, no draft is extra, and every headline, outcome and
error line is right; the logs kb still gets wrong in part are strict expected failures, each with
the reason its module gives."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def score_import():
    """``bench/score_import.py`` as a module (loaded once per process)."""
    if "score_import" not in sys.modules:
        spec = importlib.util.spec_from_file_location("score_import", ROOT / "bench" / "score_import.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["score_import"] = module
        spec.loader.exec_module(module)
    return sys.modules["score_import"]


@functools.cache
def _scores(folder: Path) -> dict:
    return {s.log: s for s in score_import().score_corpus(folder, in_process=True)}


def read_whole_test(name: str, wrong: dict[str, str]):
    """A test function, parametrized over the logs of ``tests/fixtures/kinds/<name>/`` that have a
    truth file, asserting each is read whole (see the module docstring); a log named in ``wrong`` is
    a strict expected failure for the reason given."""
    folder = Path(__file__).resolve().parent / "fixtures" / "kinds" / name
    truths = {t.log: t for t in score_import().load_truths(folder)}
    unknown = set(wrong) - set(truths)
    assert not unknown, f"expected failures name logs {folder} does not hold: {sorted(unknown)}"

    @pytest.mark.parametrize("log", sorted(truths), ids=sorted(truths))
    def test_blind_log_is_read_whole(log, request):
        if log in wrong:
            request.applymarker(pytest.mark.xfail(reason=wrong[log], strict=True))
        score, truth = _scores(folder)[log], truths[log]
        assert score.error is None
        assert (score.drafts, score.matched) == (len(truth.attempts), len(truth.attempts))
        assert all(score.metric) and all(score.outcome) and all(score.error_line), (score.metric, score.outcome,
                                                                                    score.error_line)

    return test_blind_log_is_read_whole
