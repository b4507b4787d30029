"""`kb serve`: serves the site from a user's own mkdocs.yml (tags such as !!python/name included)
and rebuilds when a record changes."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import CAMPAIGN_RECORDS

USER_CONFIG = """\
site_name: my team's campaigns
theme:
  name: material
  font: false
plugins:
  - search
  - kb
markdown_extensions:
  - admonition
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
"""


STARTUP_S = 300
"""Generous deadlines (seconds), polled, never slept: the suite may share two cores with other work."""
CHANGE_S = 120


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, deadline: float) -> str:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError, TimeoutError):  # a read timeout while it rebuilds, too
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def test_kb_serve_uses_the_users_config_and_rebuilds_on_a_record_change(tmp_path):
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(USER_CONFIG, encoding="utf-8")
    shutil.copytree(CAMPAIGN_RECORDS, project / "campaign-records")
    port = _free_port()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "kb", "--records", "campaign-records", "serve",
                             "-a", f"127.0.0.1:{port}"], cwd=project, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    try:
        url = f"http://127.0.0.1:{port}/attempts/2026-02-23-nccl-tree/"
        page = _get(url, time.monotonic() + STARTUP_S)
        assert "NCCL Tree algorithm" in page and "my team&#39;s campaigns" in page
        record = project / "campaign-records" / "attempts" / "2026-02-23-nccl-tree.yaml"
        record.write_text(record.read_text(encoding="utf-8").replace("title: NCCL Tree algorithm",
                                                                     "title: NCCL Tree algorithm, renamed"),
                          encoding="utf-8")
        deadline = time.monotonic() + CHANGE_S
        while "NCCL Tree algorithm, renamed" not in _get(url, deadline):
            assert time.monotonic() < deadline, "the site was not rebuilt after the record changed"
            time.sleep(0.5)
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert "Traceback" not in out, out
    assert proc.returncode == 0, out  # SIGTERM stops it as Ctrl-C does
    assert [p.name for p in tmp.iterdir()] == []  # and its temporary site is gone


def test_kb_serve_on_a_taken_address_says_so_without_a_traceback(tmp_path):
    shutil.copytree(CAMPAIGN_RECORDS, tmp_path / "records")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "kb", "serve", "-a", f"127.0.0.1:{port}"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=STARTUP_S)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (f"kb: cannot serve on 127.0.0.1:{port}: Address already in use; stop what uses it or "
            f"pick another address, e.g. -a 127.0.0.1:{port + 1}") in proc.stderr


@pytest.mark.parametrize("addr", ["localhost", "127.0.0.1:http", ":8000", "127.0.0.1:0"])
def test_kb_serve_refuses_an_address_that_is_not_host_port(tmp_path, addr):
    from click.testing import CliRunner

    from kb.cli import cli

    r = CliRunner().invoke(cli, ["--records", str(CAMPAIGN_RECORDS), "serve", "-a", addr])
    assert r.exit_code == 2
    assert f"Invalid value for '-a' / '--dev-addr': '{addr}' is not HOST:PORT; write e.g. 127.0.0.1:8000" in r.output


# --------------------------------------------------------------------------- incremental preview

BROKEN = "records/decisions/2026-02-27-broken.yaml:1: invalid YAML"  # a one-line file: line 1


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _until(what: str, check, deadline: float):
    """Poll ``check()`` until it returns something true (returned), or fail at ``deadline``."""
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.2)


def test_a_broken_record_keeps_the_last_good_site_served_with_its_problem_shown(tmp_path):
    """Case serve-stalls-on-broken-record, replayed: a half-typed record never freezes the preview.

    Every page keeps being answered (the last good site) with a banner naming file, line and
    field; fixing the records clears it; then a title edit reaches its page and the attempts
    index while an unrelated attempt page is not written again."""
    project = tmp_path / "project"
    shutil.copytree(CAMPAIGN_RECORDS, project / "records")
    log_path = tmp_path / "serve.log"
    port = _free_port()
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "kb", "serve", "-a", f"127.0.0.1:{port}"], cwd=project,
                                stdout=log, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}/"
    try:
        page = _get(base + "decisions/", time.monotonic() + STARTUP_S)
        assert "Upgrade" in page and "kb-problems" not in page
        site = Path(re.search(r"kb: site built in [\d.]+ s, serving (\S+)", log_path.read_text()).group(1))
        # 1. the YAML slip of the case: answered at once, last good page, problem located
        broken = project / "records" / "decisions" / "2026-02-27-broken.yaml"
        broken.write_text("title: [broken\n", encoding="utf-8")
        page = _until("the banner", lambda: (p := _get(base + "decisions/", time.monotonic() + 30)) and BROKEN in p and p,
                      time.monotonic() + CHANGE_S)
        assert "Upgrade" in page  # the last good decision log, under the banner
        assert 'class="admonition failure kb-problems"' in page and "1 problem in the records" in page
        t0 = time.monotonic()
        with urllib.request.urlopen(base + "attempts/2026-02-23-nccl-tree/", timeout=30) as resp:  # not stalled
            other = resp.read().decode("utf-8")
        assert time.monotonic() - t0 < 30 and BROKEN in other and "NCCL Tree algorithm" in other
        # 2. a bad field value as well: file, line and field
        record = project / "records" / "attempts" / "2026-02-23-nccl-tree.yaml"
        good = record.read_text(encoding="utf-8")
        line = good.splitlines().index("outcome: failed") + 1
        record.write_text(good.replace("outcome: failed", "outcome: maybe"), encoding="utf-8")
        field = f"records/attempts/2026-02-23-nccl-tree.yaml:{line}: outcome: Input should be"
        page = _until("the field problem", lambda: (p := _get(base + "attempts/", time.monotonic() + 30)) and field in p and p,
                      time.monotonic() + CHANGE_S)
        assert "2 problems in the records" in page and BROKEN in page
        # 3. fixed: the banner goes
        broken.unlink()
        record.write_text(good, encoding="utf-8")
        _until("the banner cleared", lambda: "kb-problems" not in _get(base + "attempts/", time.monotonic() + 30),
               time.monotonic() + CHANGE_S)
        # 4. a title edit: its page and the attempts index show it; an unrelated page is not rewritten
        unrelated = site / "attempts" / "2026-02-19-baseline-tp8" / "index.html"
        before = unrelated.stat().st_mtime_ns
        record.write_text(good.replace("title: NCCL Tree algorithm", "title: NCCL Tree, edited"), encoding="utf-8")
        _until("the edited title on its page",
               lambda: "NCCL Tree, edited" in _get(base + "attempts/2026-02-23-nccl-tree/", time.monotonic() + 30),
               time.monotonic() + CHANGE_S)
        _until("the edited title on the attempts index",  # rebuilt right after the page itself
               lambda: "NCCL Tree, edited" in _get(base + "attempts/", time.monotonic() + 30), time.monotonic() + CHANGE_S)
        assert "NCCL Tree, edited" not in _get(base + "attempts/2026-02-19-baseline-tp8/", time.monotonic() + 30)
        assert unrelated.stat().st_mtime_ns == before
    finally:
        _stop(proc)
    out = log_path.read_text()
    assert "Traceback" not in out, out
    assert "still serving the last good site" in out
    # the edited page first, then the pages listing it
    first = re.findall(r"kb: 1 record changed \(2026-02-23-nccl-tree\): (.*) rebuilt in [\d.]+ s; the pages listing it follow", out)
    rest = re.findall(r"kb: 1 record changed \(2026-02-23-nccl-tree\); .* removed in [\d.]+ s \(.*?\): (.*)", out)
    assert first[-1] == "attempts/2026-02-23-nccl-tree.md"
    assert "attempts/index.md" in rest[-1] and "index.md" in rest[-1].split(", ")
    assert "2026-02-19-baseline-tp8" not in rest[-1]
    assert "rebuilding everything" not in out


def _preview(records: Path, where: Path, port: int = 8765):
    """A :class:`~kb.site.preview.Preview` after its first build (no server: nothing listens on ``port``)."""
    from kb.site.preview import Preview

    where.mkdir()
    p = Preview(records, None, f"127.0.0.1:{port}", where)
    p.full_build(first=True)
    return p


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


class _BuildLoop:
    """Stands for MkDocs' ``LiveReloadServer`` where the preview asks it for another build."""

    def __init__(self) -> None:
        self._rebuild_cond = threading.Condition()
        self._want_rebuild = False
        self.root = ""


@pytest.mark.parametrize("server", [False, True], ids=["alone", "served"])
def test_incremental_rebuilds_give_the_pages_a_full_build_gives(tmp_path, monkeypatch, server):
    """After each kind of record edit the incremental rebuild leaves every kb page (Markdown and
    the HTML of the rebuilt ones) as a fresh full build of the same records makes it, and sends
    only the pages whose content changed through MkDocs. Served, it does so in two builds: the
    edited record's page, then (the server asked for another build) the pages listing it."""
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml here: kb's built-in configuration
    records = tmp_path / "records"
    shutil.copytree(CAMPAIGN_RECORDS, records)
    p = _preview(records, tmp_path / "live")
    loop = p.server = _BuildLoop() if server else None
    site = p.site_dir
    attempts = records / "attempts"
    edits = [
        # text only: the page and the pages linking it
        ("title", lambda: _edit(attempts / "2026-02-23-nccl-tree.yaml", "title: NCCL Tree algorithm",
                                "title: NCCL Tree, renamed")),
        # structural: outcome and blockers move counts, the root-cause pages, the dashboard
        ("outcome", lambda: _edit(attempts / "2026-02-23-nccl-tree.yaml", "outcome: failed", "outcome: inconclusive")),
        ("blocked_by", lambda: _edit(attempts / "2026-02-23-nccl-tree.yaml", "  - nccl-tree-incompatible-with-cuda-graphs",
                                     "  - pcie-bus-contention")),
        # a stack and a date: which attempts re-run which (kb why's retries and credit) may move
        ("stack", lambda: _edit(attempts / "2026-02-23-flashinfer-allreduce-fusion.yaml", "stack: cuda-12.8",
                                "stack: cuda-13.0")),
        ("date", lambda: _edit(attempts / "2026-02-23-flashinfer-allreduce-fusion.yaml", "date: 2026-02-23",
                               "date: 2026-02-28")),
        # an attempt added, then deleted
        ("added", lambda: (attempts / "2026-02-28-nccl-ring.yaml").write_text(
            (attempts / "2026-02-23-nccl-tree.yaml").read_text(encoding="utf-8")
            .replace("title: NCCL Tree, renamed", "title: NCCL Ring").replace("date: 2026-02-23", "date: 2026-02-28"),
            encoding="utf-8")),
        ("deleted", lambda: (attempts / "2026-02-28-nccl-ring.yaml").unlink()),
        # another kind: every page is rendered again, the changed ones rebuilt
        ("blocker", lambda: _edit(records / "blockers" / "pcie-bus-contention.yaml", "title: ", "title: Renamed, ")),
    ]
    for n, (what, change) in enumerate(edits):
        unrelated = site / "attempts" / "2026-02-19-baseline-tp8" / "index.html"
        before = unrelated.stat().st_mtime_ns
        before_pages = dict(p.site.pages)
        change()
        rebuilt = p.rebuild_records()
        if loop is not None and loop._want_rebuild:  # the second build, as the server runs it
            assert what != "deleted" and len(rebuilt) == 1, (what, rebuilt)  # the edited record's own page
            loop._want_rebuild = False
            rebuilt = rebuilt + p.rebuild_records()
            assert not loop._want_rebuild
        assert p.site_dir == site and not p.problems, what  # incremental, not a full build
        fresh = _preview(records, tmp_path / f"fresh-{n}")
        assert p.site.pages == fresh.site.pages, what
        for src in rebuilt:
            html = src[:-3] + "/index.html" if not src.endswith("index.md") else src[:-2] + "html"
            assert (site / html).read_text() == (fresh.site_dir / html).read_text(), (what, src)
        assert set(rebuilt) == {s for s in fresh.site.pages if fresh.site.pages[s] != before_pages.get(s)}, what
        if what in ("title", "outcome", "blocked_by"):
            assert "attempts/2026-02-23-nccl-tree.md" in rebuilt and "attempts/index.md" in rebuilt, what
            assert "attempts/2026-02-19-baseline-tp8.md" not in rebuilt, what
            assert unrelated.stat().st_mtime_ns == before, what
        # the served search follows: a deleted record's page is not found, an added or edited one is
        docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
        ring = [d for d in docs if d["location"].startswith("attempts/2026-02-28-nccl-ring/")]
        assert bool(ring) is (what == "added"), (what, ring)
        if what == "title":
            assert any(d["title"].startswith("NCCL Tree, renamed") for d in docs
                       if d["location"].startswith("attempts/2026-02-23-nccl-tree/"))
            assert not any(d["title"].startswith("NCCL Tree algorithm") for d in docs
                           if d["location"].startswith("attempts/2026-02-23-nccl-tree/"))
        for rel in ("records.json", "compare/attempts.json", "attempts/2026-02-23-nccl-tree.json",
                    "attempts/2026-02-23-nccl-tree.yaml", "blockers/pcie-bus-contention.json"):
            assert (site / rel).read_bytes() == (fresh.site_dir / rel).read_bytes(), (what, rel)
    # a comment only: no page changes, the published record file does
    record = attempts / "2026-02-23-nccl-tree.yaml"
    record.write_text("# reviewed again\n" + record.read_text(encoding="utf-8"), encoding="utf-8")
    assert p.rebuild_records() == []
    assert (site / "attempts" / "2026-02-23-nccl-tree.yaml").read_bytes() == record.read_bytes()
    assert not (site / "attempts" / "2026-02-28-nccl-ring").exists()
    assert not (site / "attempts" / "2026-02-28-nccl-ring.json").exists()


def test_a_list_page_comes_with_the_page_that_registers_it_and_every_page_of_its_lists():
    from kb.site.incremental import pages_mentioning, with_lists

    pages = {"stacks/s1.md": "[all 230 attempts](../lists/stack-s1/index.md)",
             "lists/stack-s1/index.md": "a-1 [next](2.md)", "lists/stack-s1/2.md": "a-7", "lists/stack-s1/3.md": "a-9",
             "lists/tag-t/index.md": "a-7", "tags.md": "[t](lists/tag-t/index.md) [u](lists/tag-u/index.md)",
             "lists/tag-u/index.md": "a-2", "attempts/a-7.md": "# a-7", "attempts/a-70.md": "# a-70"}
    assert pages_mentioning(pages, ["a-7"]) == {"lists/stack-s1/2.md", "lists/tag-t/index.md", "attempts/a-7.md",
                                                "attempts/a-70.md"}  # a longer id too: a render more, never a miss
    assert with_lists(pages, {"lists/stack-s1/2.md", "attempts/a-7.md"}) == {
        "lists/stack-s1/2.md", "attempts/a-7.md", "stacks/s1.md", "lists/stack-s1/index.md", "lists/stack-s1/3.md"}
    assert with_lists(pages, {"lists/tag-t/index.md"}) == {"lists/tag-t/index.md", "tags.md", "lists/tag-u/index.md"}
    assert with_lists(pages, {"attempts/a-7.md"}) == {"attempts/a-7.md"}


def test_a_failed_full_build_keeps_the_last_good_site_served_with_its_error_shown(tmp_path, monkeypatch):
    """A change outside the records (here mkdocs.yml broken) runs MkDocs' full build into the
    other folder; when it fails, the folder served and its pages stay, the error goes to the
    banner; fixed, the next full build is served and the banner goes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    config = tmp_path / "mkdocs.yml"
    config.write_text(USER_CONFIG, encoding="utf-8")
    shutil.copytree(CAMPAIGN_RECORDS, tmp_path / "records")
    p = _preview(tmp_path / "records", tmp_path / "live")
    first = p.site_dir
    page = first / "attempts" / "2026-02-23-nccl-tree" / "index.html"
    assert "NCCL Tree algorithm" in page.read_text(encoding="utf-8")
    config.write_text(USER_CONFIG + "theme: [unclosed\n", encoding="utf-8")
    p.rebuild()
    assert p.site_dir == first and page.is_file()
    assert len(p.problems) == 1 and p.problems[0].startswith("the site could not be rebuilt: ")
    assert p.full_pending
    config.write_text(USER_CONFIG.replace("my team's campaigns", "our campaigns"), encoding="utf-8")
    p.rebuild()
    assert p.problems == [] and not p.full_pending and p.site_dir != first and not first.exists()
    assert "our campaigns" in (p.site_dir / "attempts" / "2026-02-23-nccl-tree" / "index.html").read_text(encoding="utf-8")


def test_incremental_rebuilds_of_a_generated_campaign_give_the_pages_a_full_build_gives(tmp_path, monkeypatch):
    """The same equality on a seeded campaign of 60 attempts (bench/gen_campaign.py: blocker
    chains, decisions, stacks; more rows than a page shows, so paginated lists where the site
    has them): a title edit, an outcome edit and an added attempt, served in two builds."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from gen_campaign import generate

    monkeypatch.chdir(tmp_path)
    records = tmp_path / "records"
    generate(records, 60, seed=5)
    p = _preview(records, tmp_path / "live")
    loop = p.server = _BuildLoop()
    attempts = sorted((records / "attempts").iterdir())
    middle, failed = attempts[30], next(a for a in attempts if "outcome: failed" in a.read_text(encoding="utf-8"))
    first_line = middle.read_text(encoding="utf-8").splitlines()[0]
    edits = [("title", lambda: _edit(middle, first_line, "title: Edited in the preview")),
             ("outcome", lambda: _edit(failed, "outcome: failed", "outcome: inconclusive")),
             ("added", lambda: (records / "attempts" / "2026-12-31-one-more.yaml").write_text(
                 middle.read_text(encoding="utf-8").replace("title: Edited in the preview", "title: One more"),
                 encoding="utf-8"))]
    for n, (what, change) in enumerate(edits):
        before_pages = dict(p.site.pages)
        change()
        rebuilt = p.rebuild_records()
        assert loop._want_rebuild and len(rebuilt) == 1, what
        loop._want_rebuild = False
        rebuilt += p.rebuild_records()
        fresh = _preview(records, tmp_path / f"fresh-{n}")
        assert p.site.pages == fresh.site.pages, what
        assert set(rebuilt) == {s for s in fresh.site.pages if fresh.site.pages[s] != before_pages.get(s)}, what
