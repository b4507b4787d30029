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
    ask = Script(["Retry fusion", "fuse allreduce", "improved", "cuda-13.0", "--tp 8 --enable-flashinfer-allreduce-fusion",
                  "output_throughput=91tok/s"])
    fill_attempt_draft(kg, draft, ask)
    assert (draft.title, draft.approach, draft.outcome, draft.stack) == ("Retry fusion", "fuse allreduce",
                                                                          "improved", "cuda-13.0")
    assert draft.flags == ["--tp 8 --enable-flashinfer-allreduce-fusion"]  # asked: neither flags nor a command given
    assert draft.campaign == "kimi-k25-eagle3-blackwell"
    assert "campaign: kimi-k25-eagle3-blackwell" in ask.said  # the only campaign is said, not asked
    assert draft.metrics == ["output_throughput=91tok/s"]
    assert any(line.startswith("kb log: --metric: 'output_throughput=fast'") for line in ask.said)


def test_matching_blockers_are_offered_for_linking():
    kg = load_graph(CAMPAIGN_RECORDS)
    draft = AttemptDraft(error="RuntimeError: No supported CUDA architectures found for major versions [9, 10]")
    ask = Script([True, "2026-02-23-flashinfer-allreduce-fusion"])
    confirm_matches(kg, draft, ask)
    assert draft.blocked_by == ["flashinfer-allreduce-fusion-jit-no-sm120"]
    # the blocker an earlier attempt met: which one does this re-run?
    assert ask.asked[-1] == "retry of (the earlier attempt this re-runs; - for none)"
    assert draft.retry_of == "2026-02-23-flashinfer-allreduce-fusion"


def test_retry_of_is_not_asked_when_given_or_when_no_earlier_attempt_met_the_blocker():
    kg = load_graph(CAMPAIGN_RECORDS)
    given = AttemptDraft(error="KeyError: 12", retry_of="2026-02-23-torch-symm-mem")
    ask = Script([True])
    confirm_matches(kg, given, ask)
    assert given.retry_of == "2026-02-23-torch-symm-mem" and len(ask.asked) == 1  # only the link was asked
    nothing = AttemptDraft(error="ValueError: nothing anyone met")
    ask = Script([])
    confirm_matches(kg, nothing, ask)
    assert nothing.retry_of is None and ask.asked == []
    declined = AttemptDraft(error="KeyError: 12")
    confirm_matches(kg, declined, Script([True, None]))
    assert declined.retry_of is None


def test_flags_are_not_asked_when_given():
    kg = load_graph(CAMPAIGN_RECORDS)
    draft = AttemptDraft(title="t", approach="a", outcome="failed", stack="cuda-13.0", flags=["--tp 8"],
                         error="RuntimeError: boom")
    ask = Script([])
    fill_attempt_draft(kg, draft, ask)
    assert not any(q.startswith("flags of the run") for q in ask.asked)


def test_kb_log_records_retry_of_and_refuses_an_unknown_one(campaign_copy):
    import yaml
    from click.testing import CliRunner

    from kb.cli import cli

    args = ["--records", str(campaign_copy), "log", "-t", "symm mem on cuda 13", "-o", "failed", "-a", "retry it",
            "-s", "cuda-13.0", "-e", "KeyError: 12", "--no-interactive"]
    ok = CliRunner().invoke(cli, [*args, "--retry-of", "2026-02-23-torch-symm-mem"])
    assert ok.exit_code == 0, ok.output
    data = yaml.safe_load(open(ok.stdout.strip(), encoding="utf-8"))
    assert data["retry_of"] == "2026-02-23-torch-symm-mem"
    bad = CliRunner().invoke(cli, [*args, "--retry-of", "2026-02-23-torch-symm"])
    assert bad.exit_code != 0 and "--retry-of" in bad.output and "unknown attempt '2026-02-23-torch-symm'" in bad.output
