"""Publishing is atomic (issue 25): ``kb build``, ``mkdocs build`` with the plugin and ``kb export
--markdown`` write beside the old folder and swap the new one in whole, so a kill, a full disk or a
failed ``--strict`` build leaves the previous site byte for byte (against a sha256 manifest) or the
new one complete; ``kb export --sqlite`` leaves no litter that later exports keep, and its file
gets the umask's mode."""

from __future__ import annotations

import errno
import hashlib
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS, ROOT

from kb.cli import cli
from kb.errors import KbError
from kb.publish import staging_for, swap_in, sweep_leftovers


def manifest(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder``, by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml here: kb's built-in configuration
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # the same bytes from two builds
    shutil.copytree(CAMPAIGN_RECORDS, tmp_path / "records")
    return tmp_path


def _build(project: Path, *extra: str):
    return CliRunner().invoke(cli, ["--records", str(project / "records"), "build", "--site-dir",
                                    str(project / "site"), *extra])


def _leftovers(project: Path) -> list[str]:
    return sorted(p.name for p in project.iterdir() if ".kb-new-" in p.name or ".kb-old-" in p.name)


def test_a_rebuild_replaces_the_site_whole_and_leaves_nothing_beside_it(project):
    assert _build(project).exit_code == 0
    (project / "site" / "stale.html").write_text("from an older build")
    assert _build(project).exit_code == 0
    assert not (project / "site" / "stale.html").exists()  # the old folder went, not merged into
    assert _leftovers(project) == []


def test_a_full_disk_mid_build_leaves_the_old_site_byte_for_byte(project, monkeypatch):
    assert _build(project).exit_code == 0
    before = manifest(project / "site")
    from kb.site import plugin as kb_plugin

    pages = {"n": 0}
    real = kb_plugin.KbPlugin.on_post_page

    def full_disk(self, output, page, config):
        pages["n"] += 1
        if pages["n"] == 7:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, output, page, config)

    monkeypatch.setattr(kb_plugin.KbPlugin, "on_post_page", full_disk)
    r = _build(project)
    assert r.exit_code == 1
    assert "No space left on device" in r.output and f"the site at {project / 'site'} is unchanged" in r.output
    assert manifest(project / "site") == before
    assert _leftovers(project) == []


def test_a_strict_build_that_fails_leaves_the_old_site(project):
    (project / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (project / "docs").mkdir()
    assert _build(project, "--strict").exit_code == 0
    before = manifest(project / "site")
    (project / "docs" / "notes.md").write_text("# Notes\n\nSee [the plan](plan.md).\n")  # a broken link: a warning
    r = _build(project, "--strict")
    assert r.exit_code != 0, r.output
    assert f"the site at {project / 'site'} is unchanged" in r.output
    assert manifest(project / "site") == before
    assert _leftovers(project) == []
    assert _build(project).exit_code == 0  # without --strict the warning does not stop it: the new site is in
    assert manifest(project / "site") != before and (project / "site" / "notes" / "index.html").is_file()


def test_mkdocs_build_with_the_plugin_publishes_atomically_too(project):
    (project / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (project / "docs").mkdir()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = [sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(project / "site")]
    assert subprocess.run(run, cwd=project, env=env, capture_output=True, timeout=300).returncode == 0
    (project / "site" / "stale.html").write_text("old")
    assert subprocess.run(run, cwd=project, env=env, capture_output=True, timeout=300).returncode == 0
    assert not (project / "site" / "stale.html").exists() and (project / "site" / "index.html").is_file()
    assert _leftovers(project) == []


def test_twenty_kills_at_random_moments_leave_the_old_site_or_the_new_one_whole(project):
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1767225600", "KB_CACHE": "off"}
    cmd = [sys.executable, "-m", "kb", "--records", str(project / "records"), "build", "--site-dir", str(project / "site")]
    t0 = time.monotonic()
    assert subprocess.run(cmd, cwd=project, env=env, capture_output=True, timeout=300).returncode == 0
    took = time.monotonic() - t0
    old = manifest(project / "site")
    # the new version: one more attempt, so that old and new differ
    src = CAMPAIGN_RECORDS / "attempts" / "2026-02-23-nccl-tree.yaml"
    (project / "records" / "attempts" / "2026-03-09-nccl-ring.yaml").write_text(
        src.read_text(encoding="utf-8").replace("date: 2026-02-23", "date: 2026-03-09"), encoding="utf-8")
    ref = project / "ref"
    t0 = time.monotonic()
    assert subprocess.run([*cmd[:-1], str(ref)], cwd=project, env=env, capture_output=True, timeout=300).returncode == 0
    took = min(took, time.monotonic() - t0)  # the quicker of two builds: the suite's other workers slow some down
    new = manifest(ref)
    assert new != old
    kept = project / "old-site"
    shutil.copytree(project / "site", kept)
    rng = random.Random(25)
    outcomes = {"old": 0, "new": 0}
    for _ in range(20):
        p = subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, took * 0.9))  # a moment inside the build (a few may still see it end)
        p.send_signal(signal.SIGKILL)
        p.wait()
        now = manifest(project / "site")
        assert now in (old, new), "a kill left a site that is neither the old one nor the new one"
        outcomes["old" if now == old else "new"] += 1
        if now == new:  # the build had finished: start the next kill from the old site again
            shutil.rmtree(project / "site")
            shutil.copytree(kept, project / "site")
    assert outcomes["old"] >= 5, outcomes  # kills land mid-build: the test is not only of finished builds
    assert subprocess.run(cmd, cwd=project, env=env, capture_output=True, timeout=300).returncode == 0
    assert manifest(project / "site") == new
    assert _leftovers(project) == []  # what the killed builds left was swept by the next one


def test_a_kill_between_the_two_renames_of_the_fallback_is_repaired(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "a").write_text("old")
    aside = tmp_path / ".site.kb-old-999999"  # what a killed fallback swap leaves: the old site aside
    os.rename(site, aside)
    sweep_leftovers(site)
    assert (site / "a").read_text() == "old" and not aside.exists()


def test_a_refused_swap_keeps_the_old_folder(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "a").write_text("old")
    staging = staging_for(site)
    (staging / "a").write_text("new")
    import kb.publish as publish

    monkeypatch.setattr(publish, "_exchange", lambda a, b: (_ for _ in ()).throw(OSError(errno.EACCES, "denied")))
    with pytest.raises(KbError, match="the old one is unchanged"):
        swap_in(staging, site)
    assert (site / "a").read_text() == "old"


def test_export_markdown_swaps_the_tree_in_and_keeps_the_folder_s_other_files(project, monkeypatch):
    out = project / "kb-site"
    (out / "docs").mkdir(parents=True)
    (out / "docs" / "own.md").write_text("a page of the user's own")
    args = ["--records", str(project / "records"), "export", "--markdown", str(out), "--force"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    before = manifest(out)
    assert {"docs/own.md", "docs/index.md", "mkdocs.yml"} <= set(before)
    import kb.site.export as export

    real = export.write_bytes_atomic
    calls = {"n": 0}

    def full(target, data, **kw):
        calls["n"] += 1
        if calls["n"] == 20:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(target, data, **kw)

    monkeypatch.setattr(export, "write_bytes_atomic", full)
    r = CliRunner().invoke(cli, args)
    assert r.exit_code != 0
    assert manifest(out) == before
    assert _leftovers(project) == []


def test_a_killed_sqlite_export_leaves_no_litter_the_next_keeps_and_the_mode_follows_the_umask(project):
    db = project / "kb.db"
    (project / f".kb.{999999}.abcd1234.tmp").write_bytes(b"half a database")  # a killed export's file
    old = os.umask(0o027)
    try:
        r = CliRunner().invoke(cli, ["--records", str(project / "records"), "export", "--sqlite", str(db)])
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(db.stat().st_mode) == 0o640
    assert [p.name for p in project.iterdir() if p.name.endswith(".tmp")] == []
