"""``kb log`` never links, by default, a matched blocker that the records say the new attempt
cannot have met (its stack resolves it, it does not apply there, or the run's tensor-parallel size
is outside it): that link is the contradiction ``kb check`` reports (issue 24, item 4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from click.testing import CliRunner

from kb.cli import cli
from kb.pipeline import load_graph
from kb.prompting import confirm_matches
from kb.usecases import log as logbook

ROOT = Path(__file__).resolve().parent.parent
FUSION = "No supported CUDA architectures found for major versions [9, 10]"
BASE = ["--campaign", "kimi-k25-eagle3-blackwell", "--approach", "retry", "--outcome", "failed"]


def _records(tmp_path: Path) -> Path:
    dst = tmp_path / "records"
    shutil.copytree(ROOT / "records", dst)
    return dst


def test_a_match_the_stack_resolves_is_reported_not_linked(tmp_path):
    root = _records(tmp_path)
    res = CliRunner().invoke(cli, ["--records", str(root), "log", "--title", "fusion again", *BASE, "--stack", "cuda-13.0",
                                   "--error", FUSION, "--link-matches", "--date", "2026-03-01", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    by_id = {m["id"]: m for m in data["matches"]}
    own = by_id["flashinfer-allreduce-fusion-jit-no-sm120"]
    assert own["linked"] is False
    assert own["where_fixed"] == "stack cuda-13.0 resolves it (its causes are resolved)"
    written = yaml.safe_load(Path(data["path"]).read_text())
    assert "flashinfer-allreduce-fusion-jit-no-sm120" not in written.get("blocked_by", [])
    check = CliRunner().invoke(cli, ["--records", str(root), "check", "--json"])
    assert "blocked-where-fixed" not in check.stdout


def test_on_the_stack_where_it_stands_the_same_match_is_linked(tmp_path):
    root = _records(tmp_path)
    res = CliRunner().invoke(cli, ["--records", str(root), "log", "--title", "fusion on 12.8", *BASE, "--stack", "cuda-12.8",
                                   "--error", FUSION, "--link-matches", "--date", "2026-03-01", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    own = {m["id"]: m for m in data["matches"]}["flashinfer-allreduce-fusion-jit-no-sm120"]
    assert own["linked"] is True and "where_fixed" not in own


class _Asker:
    def __init__(self):
        self.questions: list[tuple[str, bool]] = []
        self.said: list[str] = []
        self.choices: list[tuple[str, list[str]]] = []

    def confirm(self, question: str, default: bool = True) -> bool:
        self.questions.append((question, default))
        return default

    def say(self, text: str) -> None:
        self.said.append(text)

    def choice(self, label, choices, optional=False, default=None):
        self.choices.append((label, list(choices)))
        return None


def test_the_prompt_asks_link_it_anyway_with_no_as_the_default(tmp_path):
    kg = load_graph(ROOT / "records", ["blackwell"])
    draft = logbook.AttemptDraft(title="fusion again", campaign="kimi-k25-eagle3-blackwell", approach="retry",
                                 outcome="failed", stack="cuda-13.0", error=FUSION, date="2026-03-01")
    ask = _Asker()
    confirm_matches(kg, draft, ask)
    asked = dict(ask.questions)
    [(q, default)] = [(q, d) for q, d in asked.items() if "flashinfer-allreduce-fusion-jit-no-sm120" in q]
    assert q.endswith("but stack cuda-13.0 resolves it (its causes are resolved). Link it into blocked_by anyway?")
    assert default is False
    assert "flashinfer-allreduce-fusion-jit-no-sm120" not in draft.blocked_by
    # the match still leads to the question which earlier attempt this one re-runs
    assert any("2026-02-23-flashinfer-allreduce-fusion" in line for line in ask.said), ask.said
    assert ask.choices and "2026-02-23-flashinfer-allreduce-fusion" in ask.choices[0][1]
    assert draft.retry_of is None  # none chosen
