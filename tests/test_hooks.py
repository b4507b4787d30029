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


# ---------------------------------------------------------------------------------------------
# One run reports everything: a record that fails validation still has its references checked,
# and paths are printed under the records folder as it was given.

def _campaign(tmp_path: Path, folder: str = "records") -> Path:
    root = tmp_path / folder
    shutil.copytree(CAMPAIGN, root)
    return root


def _kb(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kb", *args], cwd=cwd, capture_output=True, text=True)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _lines(res: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in res.stdout.splitlines() if line]


def test_an_invalid_attempts_bad_references_are_reported_in_the_same_run(tmp_path):
    root = _campaign(tmp_path)
    f = root / "attempts" / "2026-02-19-baseline-tp8.yaml"
    _edit(f, "outcome: baseline", "outcome: bogus")            # a schema error (line 9)
    _edit(f, "stack: cuda-12.8", "stack: cuda-12.9")           # an unknown stack (line 6)
    _edit(f, "campaign: kimi-k25-eagle3-blackwell", "campaign: cuda-13.0")  # a stack where a campaign goes
    res = _kb(tmp_path, "check")
    assert res.returncode == 1
    assert _lines(res) == [
        "records/attempts/2026-02-19-baseline-tp8.yaml:3: campaign: 'cuda-13.0' is a stack, but campaign must name a campaign",
        "records/attempts/2026-02-19-baseline-tp8.yaml:6: stack: unknown stack 'cuda-12.9'; did you mean 'cuda-12.8'?",
        "records/attempts/2026-02-19-baseline-tp8.yaml:9: outcome: Input should be 'baseline', 'improved', 'regressed', "
        "'neutral', 'failed' or 'inconclusive' (got 'bogus')",
    ]
    assert res.stderr.strip().endswith("3 problems in records")


def test_list_references_of_invalid_blockers_and_decisions_are_checked_too(tmp_path):
    root = _campaign(tmp_path)
    blocker = root / "blockers" / "pcie-bus-contention.yaml"
    _edit(blocker, "applies_when:", "applies_when: [")  # invalid YAML: nothing else can be read
    other = root / "blockers" / "torch-symm-mem-no-capability-12.yaml"
    text = other.read_text(encoding="utf-8")
    assert "caused_by:" in text  # a block list on the next lines
    other.write_text(text.replace("caused_by:", "severity: 7\ncaused_by:\n  - sm120-unsupported-by-cuda-12.8-stak\nold_cause:", 1),
                     encoding="utf-8")
    line = other.read_text(encoding="utf-8").splitlines().index("  - sm120-unsupported-by-cuda-12.8-stak") + 1
    decision = root / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml"
    _edit(decision, "status: accepted", "status: agreed")
    _edit(decision, "resolves:\n  - sm120-unsupported-by-cuda-12.8-stack\n",
          "resolves:\n  - sm120-unsupported-by-cuda-12.8-stack\n  - no-such-blocker\n")
    res = _kb(tmp_path, "check")
    out = _lines(res)
    assert res.returncode == 1
    assert [x for x in out if x.startswith("records/blockers/pcie-bus-contention.yaml:")][0].split(": ")[1] == "invalid YAML"
    caused = [x for x in out if x.split(": ")[1].startswith("caused_by")]
    assert caused == [f"records/blockers/torch-symm-mem-no-capability-12.yaml:{line}: caused_by.0: unknown blocker "
                      "'sm120-unsupported-by-cuda-12.8-stak'; did you mean 'sm120-unsupported-by-cuda-12.8-stack'?"], out
    assert [x for x in out if x.split(": ")[1].startswith("resolves")] == [
        "records/decisions/2026-02-26-upgrade-to-cuda-13.yaml:89: resolves.1: unknown blocker 'no-such-blocker'"], out
    assert any(x.startswith("records/decisions/2026-02-26-upgrade-to-cuda-13.yaml:") and ": status: " in x for x in out), out


def test_a_reference_field_that_is_itself_invalid_is_reported_once(tmp_path):
    root = _campaign(tmp_path)
    f = root / "attempts" / "2026-02-19-baseline-tp8.yaml"
    _edit(f, "outcome: baseline", "outcome: bogus")
    text = f.read_text(encoding="utf-8")
    f.write_text(text + "blocked_by: pcie-bus-contention\n", encoding="utf-8")  # a string where a list goes
    res = _kb(tmp_path, "check")
    fields = [line.split(": ")[1] for line in _lines(res)]
    assert sorted(fields) == ["blocked_by", "outcome"], res.stdout
    # a reference to a record whose own file is broken is not reported again as unknown
    _edit(f, "blocked_by: pcie-bus-contention", "blocked_by: [pcie-bus-contention]")
    blocker = root / "blockers" / "pcie-bus-contention.yaml"
    _edit(blocker, "title: PCIe bus", "title: [PCIe bus")
    res = _kb(tmp_path, "check")
    assert [line.split(":")[0] for line in _lines(res)] == ["records/attempts/2026-02-19-baseline-tp8.yaml",
                                                           "records/blockers/pcie-bus-contention.yaml"], res.stdout


def test_paths_are_printed_under_the_records_folder_as_given(tmp_path):
    root = _campaign(tmp_path, "data/records")
    f = root / "attempts" / "2026-02-19-baseline-tp8.yaml"
    _edit(f, "stack: cuda-12.8", "stack: cuda-12.9")
    for args in (["check", "data/records"], ["--records", "data/records", "check"], ["--records", "data/records/", "check"]):
        res = _kb(tmp_path, *args)
        assert _lines(res) == ["data/records/attempts/2026-02-19-baseline-tp8.yaml:6: stack: unknown stack 'cuda-12.9'; "
                               "did you mean 'cuda-12.8'?"], (args, res.stdout)
    import json

    res = _kb(tmp_path, "check", "--json", "data/records")
    assert [p["path"] for p in json.loads(res.stdout)["problems"]] == ["data/records/attempts/2026-02-19-baseline-tp8.yaml"]
    # a query on invalid records names the same paths
    res = _kb(tmp_path, "--records", "data/records", "roots")
    assert res.returncode == 1
    assert res.stderr.startswith("data/records/attempts/2026-02-19-baseline-tp8.yaml:6: stack: unknown stack"), res.stderr
    # an absolute folder keeps the short form (relative to the folder's parent)
    res = _kb(tmp_path, "check", str(root))
    assert _lines(res)[0].startswith("records/attempts/2026-02-19-baseline-tp8.yaml:6:")


def test_pre_commit_reports_every_problem_in_one_run_with_the_paths_given(tmp_path):
    """A real pre-commit run in a git repository whose records live in data/records: the hook
    kb ships (its entry and file pattern) with ``args: [data/records]``."""
    from pre_commit.clientlib import load_manifest

    [hook] = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    repo = tmp_path / "repo"
    root = _campaign(repo, "data/records")
    f = root / "attempts" / "2026-02-19-baseline-tp8.yaml"
    _edit(f, "outcome: baseline", "outcome: bogus")
    _edit(f, "stack: cuda-12.8", "stack: cuda-12.9")
    entry = shlex.join([sys.executable, "-m", "kb", *shlex.split(hook["entry"])[1:]])
    config = {"repos": [{"repo": "local", "hooks": [{
        "id": hook["id"], "name": hook["name"], "entry": entry, "language": "system", "files": hook["files"],
        "pass_filenames": hook["pass_filenames"], "require_serial": True, "args": ["data/records"]}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "PRE_COMMIT_HOME": str(tmp_path / "pc-cache")}
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    res = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=repo, capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 1, res.stdout + res.stderr
    located = [line for line in res.stdout.splitlines() if line.startswith("data/records/")]
    assert located == [
        "data/records/attempts/2026-02-19-baseline-tp8.yaml:6: stack: unknown stack 'cuda-12.9'; did you mean 'cuda-12.8'?",
        "data/records/attempts/2026-02-19-baseline-tp8.yaml:9: outcome: Input should be 'baseline', 'improved', 'regressed', "
        "'neutral', 'failed' or 'inconclusive' (got 'bogus')",
    ], res.stdout


def test_the_distribution_is_kb_campaign_and_ci_smoke_tests_its_wheel():
    """The name ``kb`` on PyPI is another project's: kb installs as ``kb-campaign`` with the
    command ``kb`` and the MkDocs plugin ``kb``; CI builds the wheel and runs it in a fresh venv."""
    from importlib.metadata import distribution

    import kb

    dist = distribution(kb.DISTRIBUTION)
    assert dist.metadata["Name"] == "kb-campaign" and dist.version == kb.__version__
    points = {(e.group, e.name): e.value for e in dist.entry_points}
    assert points[("console_scripts", "kb")] == "kb.cli:main"
    assert points[("mkdocs.plugins", "kb")] == "kb.site.plugin:KbPlugin"
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "bash .ci/wheel-smoke" in run and run.index("bash .ci/wheel-smoke") < len(run) - 1
    smoke = (ROOT / ".ci" / "wheel-smoke").read_text(encoding="utf-8")
    assert "python -m venv" in smoke and "pip wheel" in smoke and "-e" not in smoke.split()
    wf = (ROOT / "examples" / "ci" / "github-pages.yml").read_text(encoding="utf-8")
    assert '"kb-campaign @ git+https://' in wf
    res = subprocess.run([sys.executable, "-m", "kb", "--version"], capture_output=True, text=True)
    assert res.stdout.strip() == f"kb, version {kb.__version__}"
