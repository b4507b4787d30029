"""kb log's questions without a terminal: a scripted Asker drives kb.prompting."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conftest import CAMPAIGN_RECORDS

from kb.pipeline import load_graph
from kb.prompting import confirm_matches, fill_attempt_draft
from kb.usecases.log import AttemptDraft


class Script:
    """Answers questions from a list, refusing (like a person retyping) what ``parse`` refuses."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.said: list[str] = []
        self.asked: list[str] = []

    def _next(self, label: str) -> Any:
        self.asked.append(label)
        return self.answers.pop(0)

    def text(self, label: str, *, parse: Callable[[str], Any] | None = None, optional: bool = False,
             default: str | None = None) -> str | None:
        while True:
            value = self._next(label)
            if optional and not value:
                return None
            try:
                if parse:
                    parse(value)
                return value
            except ValueError as exc:
                self.said.append(str(exc))

    def choice(self, label: str, ids: list[str], *, optional: bool = False, default: str | None = None,
               show_choices: bool = True) -> str | None:
        value = self._next(label)
        assert value in ids or (optional and value is None)
        return value

    def confirm(self, question: str, default: bool = True) -> bool:
        return bool(self._next(question))

    def say(self, line: str) -> None:
        self.said.append(line)


def test_missing_fields_are_asked_and_a_bad_metric_is_asked_again():
    kg = load_graph(CAMPAIGN_RECORDS)
    draft = AttemptDraft(metrics=["output_throughput=fast"])
    ask = Script(["Retry fusion", "fuse allreduce", "improved", "cuda-13.0", "output_throughput=91tok/s"])
    fill_attempt_draft(kg, draft, ask)
    assert (draft.title, draft.approach, draft.outcome, draft.stack) == ("Retry fusion", "fuse allreduce",
                                                                          "improved", "cuda-13.0")
    assert draft.campaign == "kimi-k25-eagle3-blackwell"
    assert "campaign: kimi-k25-eagle3-blackwell" in ask.said  # the only campaign is said, not asked
    assert draft.metrics == ["output_throughput=91tok/s"]
    assert any(line.startswith("kb log: --metric: 'output_throughput=fast'") for line in ask.said)


def test_matching_blockers_are_offered_for_linking():
    kg = load_graph(CAMPAIGN_RECORDS)
    draft = AttemptDraft(error="RuntimeError: No supported CUDA architectures found for major versions [9, 10]")
    confirm_matches(kg, draft, Script([True]))
    assert draft.blocked_by == ["flashinfer-allreduce-fusion-jit-no-sm120"]
