"""The pre-commit hook definition and the GitHub Actions example: valid, and doing what they say."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"


def test_pre_commit_manifest_is_valid_and_runs_kb_check(tmp_path):
    from pre_commit.clientlib import load_manifest

    [hook] = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert hook["id"] == "kb-check" and hook["language"] == "python" and hook["pass_filenames"] is False
    import re

    files = re.compile(hook["files"])
    assert files.search("records/attempts/x.yaml") and files.search("kb/records/decisions/d.yaml")
    assert not files.search("docs/index.md")
    # run the hook's entry as pre-commit does (entry + args, no file names), in a host repository
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    argv = shlex.split(hook["entry"]) + hook["args"]
    kb = [sys.executable, "-m", "kb"] + argv[1:]
    ok = subprocess.run(kb, cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    (tmp_path / "records" / "attempts" / "bad.yaml").write_text("title: [\n", encoding="utf-8")
    (tmp_path / "records" / "attempts" / "bad.yaml~").write_text("junk", encoding="utf-8")
    bad = subprocess.run(kb, cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stdout.startswith("records/attempts/bad.yaml:1: invalid YAML")
    # args: [path] points the hook at records kept elsewhere
    moved = tmp_path / "kbdata"
    (tmp_path / "records").rename(moved)
    (moved / "attempts" / "bad.yaml").unlink()
    res = subprocess.run(kb + ["kbdata"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "records OK in kbdata" in res.stderr


def test_github_pages_example_checks_then_publishes():
    wf = yaml.safe_load((ROOT / "examples" / "ci" / "github-pages.yml").read_text(encoding="utf-8"))
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    runs = [s["run"] for s in build["steps"] if "run" in s]
    assert runs.index("kb --records records check") < runs.index("kb --records records build --strict --site-dir site")
    [checkout] = [s for s in build["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert checkout["with"]["fetch-depth"] == 0  # full history for last-updated dates
    [upload] = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "site"
    assert deploy["needs"] == "build" and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"] for s in deploy["steps"]] == ["actions/deploy-pages@v4"]
    assert wf["permissions"] == {"contents": "read"}
