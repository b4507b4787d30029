"""Re-created ADR logs with their truth: lay one out (a git repository replaying its history when
it has one), import it with ``kb import --format adr``, run ``kb check``, and compare every decision
with what its ``truth.yaml`` says (used by ``test_import_adr_holdout.py`` and ``test_import_adr_logs.py``).

A log's folder holds ``log/`` (the tree as a checkout would have it) and ``truth.yaml``:

* ``folder``: the ADR folder inside ``log/`` that is imported;
* ``git``: whether ``log/`` is a git work tree; ``history`` lists its commits in order, each with a
  ``date`` (author and committer date) and any of ``add`` (paths, or ``{path then: path in log/}``
  for a file added under another name), ``move`` (``{old: new}``, files or folders, ``git mv``) and
  ``touch`` (files that get one more line); ``untracked`` files are left out of every commit;
* ``symlinks``: ``{link: target}`` made in the tree (``README.md`` → ``index.md``);
* ``skipped``: files of the folder that are not decisions;
* ``decisions``: for each decision file (relative to the folder) the facts a right import has:
  ``status``, ``date`` (``today`` for the import day), ``date_from`` (``document``, ``git`` or
  ``assumed``), ``status_from`` (``document`` unless ``assumed``), ``verbatim`` (a status kept as
  written), ``supersedes`` (decision files), and where given ``title``, ``chosen``, ``options``
  (how many) and ``deciders``;
* ``images``: how many image files the import copies.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from kb.cli import cli

FIXTURES = Path(__file__).parent / "fixtures" / "adr"

FIELDS = ("status", "date", "date_from", "status_from", "verbatim", "supersedes", "title", "chosen", "options",
          "deciders")


def _git(repo: Path, *args: str, date: str | None = None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.org",
                "GIT_COMMITTER_NAME": "Test Author", "GIT_COMMITTER_EMAIL": "author@example.org",
                "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)})
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def lay_out(fixture: Path, dest: Path) -> Path:
    """Write the log of ``fixture`` under ``dest`` (a git repository when its truth says so, its
    history replayed with the dates given); returns the ADR folder to import."""
    truth = yaml.safe_load((fixture / "truth.yaml").read_text(encoding="utf-8"))
    src = fixture / "log"
    dest.mkdir(parents=True, exist_ok=True)
    if not truth.get("git"):
        shutil.copytree(src, dest, dirs_exist_ok=True)
    else:
        _git(dest, "init", "-q", "-b", "main")
        for n, commit in enumerate(truth.get("history", [])):
            date = str(commit["date"])
            add = commit.get("add") or {}
            for then, now in (add.items() if isinstance(add, dict) else ((p, p) for p in add)):
                target = dest / then
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / now, target)
                _git(dest, "add", then)
            for old, new in (commit.get("move") or {}).items():
                (dest / new).parent.mkdir(parents=True, exist_ok=True)
                _git(dest, "mv", old, new)
            for path in commit.get("touch") or []:
                with open(dest / path, "a", encoding="utf-8") as fh:
                    fh.write("\n")
                _git(dest, "add", path)
            _git(dest, "commit", "-q", "-m", f"change {n}", date=date)
        for path in truth.get("untracked") or []:
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / path, dest / path)
        for p in src.rglob("*"):  # what the history did not add (the checkout must hold every file)
            rel = p.relative_to(src)
            if p.is_file() and not (dest / rel).exists():
                raise AssertionError(f"{fixture.name}: {rel} is in log/ but neither in history nor untracked")
    for link, target in (truth.get("symlinks") or {}).items():
        os.symlink(target, dest / link)
    return dest / truth["folder"]


@dataclass
class Outcome:
    """What importing one log gave: the import's and the check's results, the JSON report, the
    records by decision file, and the facts that differ from the truth (``misses``: one line each)."""

    truth: dict[str, Any]
    imported: Any
    checked: Any
    report: dict[str, Any]
    records: dict[str, dict[str, Any]]
    results: dict[str, dict[str, Any]]
    misses: list[str] = field(default_factory=list)
    right: dict[str, int] = field(default_factory=dict)
    asked: dict[str, int] = field(default_factory=dict)
    decisions_right: int = 0

    def score(self) -> str:
        """``"9/9 decisions right (status 9/9, date 9/9, ...)"``."""
        parts = ", ".join(f"{k} {self.right[k]}/{self.asked[k]}" for k in FIELDS if self.asked.get(k))
        return f"{self.decisions_right}/{len(self.truth['decisions'])} decisions right ({parts})"


def run_log(fixture: Path, tmp: Path, today: dt.date | None = None) -> Outcome:
    """Lay out ``fixture`` under ``tmp``, import its folder into ``tmp/records``, check, and compare."""
    truth = yaml.safe_load((fixture / "truth.yaml").read_text(encoding="utf-8"))
    folder = lay_out(fixture, tmp / "checkout")
    records_dir = tmp / "records"
    runner = CliRunner()
    imported = runner.invoke(cli, ["--records", str(records_dir), "import", "--format", "adr", "--json", str(folder)])
    checked = runner.invoke(cli, ["--records", str(records_dir), "check"])
    try:
        report = json.loads(imported.stdout)[0]
    except (ValueError, IndexError):
        report = {"results": [], "skipped": []}
    results = {str(Path(r["file"]).relative_to(folder)): r for r in report["results"]}
    records: dict[str, dict[str, Any]] = {}
    for p in sorted((records_dir / "decisions").glob("*.yaml")) if (records_dir / "decisions").is_dir() else []:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
        data["_id"] = p.stem
        for s in data.get("source") or []:
            if s.get("file") and not s.get("field"):
                records[str(Path(s["file"]).relative_to(folder))] = data
    out = Outcome(truth, imported, checked, report, records, results)
    ids = {f: r["_id"] for f, r in records.items()}
    today = today or dt.date.today()
    for name, facts in truth["decisions"].items():
        rec, res = records.get(name), results.get(name, {})
        if rec is None:
            out.misses.append(f"{name}: not imported ({res.get('state', 'no result')}: {res.get('problems')})")
            for k in facts:
                out.asked[k] = out.asked.get(k, 0) + 1
            continue
        want = {"status_from": "document", "supersedes": [], **facts}
        got = {
            "status": rec.get("status"),
            "date": str(rec.get("date")),
            "date_from": res.get("date_from"),
            "status_from": res.get("status_from"),
            "supersedes": sorted(rec.get("supersedes") or []),
            "title": rec.get("title"),
            "chosen": (rec.get("outcome") or {}).get("chosen"),
            "options": len(rec.get("considered_options") or []),
            "deciders": rec.get("deciders") or [],
        }
        want["date"] = str(today if facts.get("date") == "today" else facts.get("date"))
        want["supersedes"] = sorted(ids.get(f, f"<{f} not imported>") for f in want["supersedes"])
        ok = True
        for k in FIELDS:
            if k not in want:
                continue
            out.asked[k] = out.asked.get(k, 0) + 1
            if k == "verbatim":
                hit = want[k] in (res.get("status_text") or "") and want[k] in json.dumps(rec, default=str)
                good, seen = hit, res.get("status_text")
            else:
                good, seen = got[k] == want[k], got[k]
            if good:
                out.right[k] = out.right.get(k, 0) + 1
            else:
                ok = False
                out.misses.append(f"{name}: {k} is {seen!r}, not {want[k]!r}")
        out.decisions_right += ok
    extra = sorted(set(records) - set(truth["decisions"]))
    out.misses += [f"{name}: imported, but it is not a decision" for name in extra]
    return out


def copied_images(records_dir: Path) -> list[str]:
    """The files under ``records/assets/`` (relative paths)."""
    base = records_dir / "assets"
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
