"""Everyday comfort: progress only on a terminal, shell completion of record ids, last-updated
dates from git."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

from kb.cli.progress import progress, wants_progress
from kb.store import last_changed

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_only_on_a_terminal(monkeypatch):
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    assert not wants_progress()
    assert list(progress([1, 2, 3], "reading ADRs")) == [1, 2, 3]
    assert plain.getvalue() == ""
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert wants_progress()
    assert list(progress([1, 2, 3], "reading ADRs")) == [1, 2, 3]
    assert "reading ADRs" in tty.getvalue() and "3/3" in tty.getvalue()


def _complete(words: str, cword: int, cwd: Path) -> list[str]:
    env = {"COMP_WORDS": words, "COMP_CWORD": str(cword), "_KB_COMPLETE": "bash_complete", "PATH": str(Path(sys.executable).parent)}
    out = subprocess.run([sys.executable, "-m", "kb"], env=env, cwd=cwd, capture_output=True, text=True)
    assert out.stderr == ""
    return [line.split(",", 1)[1] if "," in line else line for line in out.stdout.splitlines() if line]


def test_completion_offers_record_ids(tmp_path):
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    assert _complete("kb why 2026-02-19", 2, tmp_path) == ["2026-02-19-baseline-tp8", "2026-02-19-cuda-graph-max-bs-128"]
    assert _complete("kb unblocks --to cu", 3, tmp_path) == ["cuda-12.8", "cuda-13.0"]
    assert "2026-02-19-baseline-tp8" not in _complete("kb unblocks --to ", 3, tmp_path)
    assert "check" in _complete("kb ch", 1, tmp_path)
    # a broken records folder offers nothing and prints no traceback
    (tmp_path / "records" / "attempts" / "x.yaml").write_text("title: [", encoding="utf-8")
    assert _complete("kb why 2026-02-19", 2, tmp_path) == ["2026-02-19-baseline-tp8", "2026-02-19-cuda-graph-max-bs-128"]
    assert _complete("kb --records nowhere why 2", 4, tmp_path) == []


def test_last_changed_reads_git_history(tmp_path):
    root = tmp_path / "repo" / "records"
    shutil.copytree(CAMPAIGN, root)
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "-C", str(tmp_path / "repo")]
    subprocess.run(git[:-2] + ["init", "-q", str(tmp_path / "repo")], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    env = {"GIT_COMMITTER_DATE": "2026-03-01T12:00:00", "GIT_AUTHOR_DATE": "2026-03-01T12:00:00", "PATH": "/usr/bin:/bin"}
    subprocess.run(git + ["commit", "-qm", "first"], check=True, env=env)
    (root / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml").write_text(
        (root / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml").read_text() + "tags: [later]\n")
    env2 = {**env, "GIT_COMMITTER_DATE": "2026-03-05T12:00:00", "GIT_AUTHOR_DATE": "2026-03-05T12:00:00"}
    subprocess.run(git + ["commit", "-qam", "second"], check=True, env=env2)
    dates = last_changed(root)
    assert dates["decisions/2026-02-26-upgrade-to-cuda-13.yaml"].isoformat() == "2026-03-05"
    assert dates["attempts/2026-02-19-baseline-tp8.yaml"].isoformat() == "2026-03-01"
    assert last_changed(tmp_path / "nowhere") == {}


def test_build_draws_progress_only_on_a_terminal(tmp_path, monkeypatch):
    from kb.site.build import build_site

    monkeypatch.chdir(tmp_path)
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    build_site(CAMPAIGN, site_dir=str(tmp_path / "site"))
    assert "kb: writing pages" in tty.getvalue()
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    build_site(CAMPAIGN, site_dir=str(tmp_path / "site2"))
    assert "writing pages" not in plain.getvalue()
