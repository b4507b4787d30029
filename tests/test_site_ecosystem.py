"""kb in other people's habits: JSON twins and records.json, the SQLite export Datasette opens,
the Markdown tree Zensical and plain MkDocs build alike, kb as a guest in a host site (prefix),
Mermaid without a CDN and local images from records/assets (cases mermaid-in-decision-not-rendered
and local-image-in-decision)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from linkcheck import check_site

from kb.cli import cli
from kb.models import KINDS
from kb.pipeline import load_graph
from kb.site.pages import NAV, SCRIPTS

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "fixtures" / "campaign"
CASES = ROOT / "tests" / "fixtures" / "cases" / "records-and-site"
BIN = Path(sys.executable).parent
NO_BANNER = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def kb(*args: str, cwd: Path | None = None):
    old = Path.cwd()
    if cwd:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, list(args))
    finally:
        os.chdir(old)


def html_pages(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*.html")}


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """The campaign built by kb build (MkDocs with kb's plugin, kb's built-in configuration)."""
    tmp = tmp_path_factory.mktemp("plugin")
    res = kb("--records", str(CAMPAIGN), "build", "--strict", "-d", str(tmp / "site"), cwd=tmp)
    assert res.exit_code == 0, res.output
    return tmp / "site"


def test_every_record_has_a_json_twin_and_the_index_lists_them(plugin_site):
    kg = load_graph(CAMPAIGN)
    index = json.loads((plugin_site / "records.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in index["records"]] == sorted(kg.records.records)
    by_id = {r["id"]: r for r in index["records"]}
    for rid, rec in kg.records.records.items():
        twin = json.loads((plugin_site / rec.folder / f"{rid}.json").read_text(encoding="utf-8"))
        assert (twin["id"], twin["kind"], twin["record"]["title"]) == (rid, rec.kind, rec.title)
        assert by_id[rid]["kind"] == rec.kind and by_id[rid]["json"] == f"{rec.folder}/{rid}.json"
        # the YAML file ships beside the page too, byte for byte
        assert (plugin_site / rec.folder / f"{rid}.yaml").read_bytes() == (CAMPAIGN / rec.folder / f"{rid}.yaml").read_bytes()
    decision = next(r for r in index["records"] if r["kind"] == "decision")
    assert decision["status"] == "accepted" and decision["date"] == "2026-02-26"
    assert len(index["edges"]) == kg.g.number_of_edges()
    attempt = json.loads((plugin_site / "attempts" / "2026-02-19-baseline-tp8.json").read_text(encoding="utf-8"))
    assert attempt["links"]["out"]["uses_stack"] == ["cuda-12.8"]


def test_record_page_links_its_record_file_and_json(plugin_site):
    html = (plugin_site / "decisions" / "2026-02-26-upgrade-to-cuda-13" / "index.html").read_text(encoding="utf-8")
    assert 'class="kb-record-file" href="../2026-02-26-upgrade-to-cuda-13.yaml"' in html
    assert 'class="kb-record-json" href="../2026-02-26-upgrade-to-cuda-13.json"' in html


def test_sqlite_export_opens_in_sqlite_and_datasette(tmp_path):
    db = tmp_path / "kb.db"
    res = kb("--records", str(CAMPAIGN), "export", "--sqlite", str(db))
    assert res.exit_code == 0, res.output
    kg = load_graph(CAMPAIGN)
    con = sqlite3.connect(db)
    for folder, model in KINDS.items():
        rows = con.execute(f'SELECT id FROM "{folder}" ORDER BY id').fetchall()
        assert [r[0] for r in rows] == [r.id for r in kg.of_kind(model)]
    assert con.execute("SELECT COUNT(*) FROM edges").fetchone()[0] == kg.g.number_of_edges()
    assert con.execute("SELECT gpu_count, typeof(gpu_count) FROM platforms").fetchone() == (8, "integer")
    assert con.execute("SELECT value, unit FROM metrics WHERE attempt = '2026-02-19-baseline-tp8' "
                       "AND name = 'output_throughput'").fetchone() == (82.0, "tok/s")
    # every edge end is a record (the foreign keys hold)
    assert con.execute("SELECT COUNT(*) FROM edges WHERE target NOT IN (SELECT id FROM records)").fetchone()[0] == 0
    con.close()
    again = kb("--records", str(CAMPAIGN), "export", "--sqlite", str(db))
    assert again.exit_code == 1 and "already exists; pass --force" in again.stderr
    assert kb("--records", str(CAMPAIGN), "export", "--sqlite", str(db), "--force").exit_code == 0
    out = subprocess.run([str(BIN / "datasette"), "inspect", str(db)], capture_output=True, text=True, check=True)
    tables = json.loads(out.stdout)["kb"]["tables"]
    assert tables["attempts"]["count"] == len(kg.of_kind(KINDS["attempts"]))
    assert tables["edges"]["count"] == kg.g.number_of_edges()


def _recipe(export: Path, engine: str, tmp: Path) -> Path:
    """``cd DIR && <engine> build`` on a copy of the export (each engine writes ``site/``), with
    ``--strict`` so that a warning fails too; returns the site folder."""
    project = tmp / f"{export.name}-{engine}"
    shutil.copytree(export, project)
    out = subprocess.run([str(BIN / engine), "build", "--strict"], cwd=project, capture_output=True, text=True,
                         env=NO_BANNER)
    assert out.returncode == 0, out.stdout + out.stderr
    return project / "site"


def _rich_campaign(tmp: Path) -> Path:
    """The fixture campaign plus a decision whose context holds a Mermaid diagram, an image and a
    link to a data file of records/assets/ (the raw-HTML script, image and link kinds)."""
    records = tmp / "rich"
    shutil.copytree(CAMPAIGN, records)
    (records / "assets" / "runs").mkdir(parents=True)
    shutil.copy(CASES / "local-image-in-decision" / "docs" / "timeline.png", records / "assets" / "timeline.png")
    (records / "assets" / "runs" / "tp8.csv").write_text("concurrency,tok_s\n1,82.0\n", encoding="utf-8")
    (records / "decisions" / "2026-03-02-adopt-nccl.yaml").write_text(
        "title: Adopt NCCL 2.28\nstatus: proposed\ndate: 2026-03-02\ncontext: |\n"
        "  ```mermaid\n  graph LR\n    A[CUDA 12.8] --> B[CUDA 13]\n  ```\n\n"
        "  ![allreduce timeline](timeline.png)\n\n  The [raw data](runs/tp8.csv) of the baseline.\n"
        "considered_options:\n  - title: Adopt NCCL 2.28\n    evidence: [2026-02-19-baseline-tp8]\n"
        "outcome:\n  chosen: Adopt NCCL 2.28\n", encoding="utf-8")
    return records


def _generated_campaign(tmp: Path) -> Path:
    """150 generated attempts (bench/gen_campaign.py): paginated lists, older timeline pages,
    compare pages, diagrams with "more" boxes."""
    sys.path.insert(0, str(ROOT / "bench"))
    from gen_campaign import generate

    generate(tmp / "generated", 150, seed=3)
    return tmp / "generated"


CAMPAIGNS = {
    "shipped": lambda tmp: shutil.copytree(ROOT / "records", tmp / "shipped"),
    "rich": _rich_campaign,
    "generated": _generated_campaign,
}
"""The campaigns exported and built under both engines: the one kb ships in records/ (with the
catalog blockers it meets), the fixture campaign with a diagram, an image and a data file, and a
generated campaign large enough for paginated lists."""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Per campaign of :data:`CAMPAIGNS`, exported and built once: ``(records, export, {engine: site})``."""
    cache: dict[str, tuple[Path, Path, dict[str, Path]]] = {}

    def get(name: str) -> tuple[Path, Path, dict[str, Path]]:
        if name not in cache:
            tmp = tmp_path_factory.mktemp(name)
            records = Path(CAMPAIGNS[name](tmp))
            export = tmp / "kb-site"
            res = kb("--records", str(records), "export", "--markdown", str(export))
            assert res.exit_code == 0, res.output
            cache[name] = records, export, {e: _recipe(export, e, tmp) for e in ("mkdocs", "zensical")}
        return cache[name]

    return get


def _names(entries: list) -> set[str]:
    """The names of a list of mkdocs.yml entries (``"x"`` or ``{"x": {...}}``)."""
    return {e if isinstance(e, str) else next(iter(e)) for e in entries}


def test_export_writes_a_project_that_zensical_and_mkdocs_build_as_it_is(built):
    _, export, sites = built("shipped")
    assert sorted(p.name for p in export.iterdir()) == ["docs", "mkdocs.yml"]
    cfg = yaml.safe_load((export / "mkdocs.yml").read_text(encoding="utf-8"))
    assert (cfg["docs_dir"], cfg["site_dir"], cfg["theme"]["name"], cfg["theme"]["font"]) == ("docs", "site", "material", False)
    assert _names(cfg["plugins"]) == {"search"}  # no kb plugin: the pages are files
    assert _names(cfg["markdown_extensions"]) == {"admonition", "tables", "attr_list", "fenced_code", "toc"}
    assert cfg["extra_css"] == ["assets/kb.css"] and cfg["extra_javascript"] == list(SCRIPTS)
    assert [next(iter(e)) for e in cfg["nav"]] == [title for title, _ in NAV]
    for path in [*(next(iter(e.values())) for e in cfg["nav"]), *cfg["extra_css"], *cfg["extra_javascript"]]:
        assert (export / "docs" / path).is_file(), path
    # pages in the index-page layout, at the URLs kb's plugin gives them; the YAML file beside
    assert (export / "docs" / "attempts" / "2026-02-19-baseline-tp8" / "index.md").is_file()
    assert (export / "docs" / "attempts" / "2026-02-19-baseline-tp8.yaml").read_bytes() == \
        (ROOT / "records" / "attempts" / "2026-02-19-baseline-tp8.yaml").read_bytes()
    kg = load_graph(ROOT / "records")
    pages = html_pages(sites["mkdocs"])
    assert pages == html_pages(sites["zensical"])
    own = [r for r in kg.records.records.values() if r.id not in kg.records.catalog_of]
    assert len(own) == len(list((ROOT / "records").rglob("*.yaml")))
    for rec in own:
        page = f"{rec.folder}/{rec.id}/index.html"
        for site in sites.values():
            html = (site / page).read_text(encoding="utf-8")
            assert rec.title.replace("&", "&amp;") in html, (site.name, page)
            assert f'class="kb-record-file" href="../{rec.id}.yaml"' in html
    home = (sites["zensical"] / "index.html").read_text(encoding="utf-8")
    assert "kb-chart" in home  # the dashboard's chart, raw SVG, passes through Zensical too


def test_exported_pages_are_the_plugin_s_pages(tmp_path, plugin_site):
    res = kb("--records", str(CAMPAIGN), "export", "--markdown", str(tmp_path / "kb-site"))
    assert res.exit_code == 0, res.output
    assert f"`cd {tmp_path / 'kb-site'} && zensical build`" in res.stderr
    site = _recipe(tmp_path / "kb-site", "zensical", tmp_path)
    assert html_pages(site) == html_pages(plugin_site)


def test_export_refuses_to_replace_a_configuration_unless_asked(tmp_path):
    export = tmp_path / "kb-site"
    assert kb("--records", str(CAMPAIGN), "export", "--markdown", str(export)).exit_code == 0
    (export / "mkdocs.yml").write_text("site_name: mine\n", encoding="utf-8")
    again = kb("--records", str(CAMPAIGN), "export", "--markdown", str(export))
    assert again.exit_code == 1
    assert (f"{export / 'mkdocs.yml'}: already exists; pass --force to replace it with kb's configuration "
            f"and write kb's pages into {export / 'docs'} (other files are kept)") in again.stderr
    assert (export / "mkdocs.yml").read_text(encoding="utf-8") == "site_name: mine\n"
    (export / "notes.md").write_text("mine", encoding="utf-8")
    assert kb("--records", str(CAMPAIGN), "export", "--markdown", str(export), "--force").exit_code == 0
    assert yaml.safe_load((export / "mkdocs.yml").read_text(encoding="utf-8"))["docs_dir"] == "docs"
    assert (export / "notes.md").read_text(encoding="utf-8") == "mine"
    # a folder of other files, without a configuration
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.txt").write_text("a", encoding="utf-8")
    res = kb("--records", str(CAMPAIGN), "export", "--markdown", str(other))
    assert res.exit_code == 1 and f"{other}: not empty; pass --force" in res.stderr
    assert sorted(p.name for p in other.iterdir()) == ["a.txt"]
    # a zensical.toml would be read instead of kb's mkdocs.yml: refused even with --force
    (export / "zensical.toml").write_text("[project]\nsite_name = 'mine'\n", encoding="utf-8")
    for args in ([], ["--force"]):
        res = kb("--records", str(CAMPAIGN), "export", "--markdown", str(export), *args)
        assert res.exit_code == 1
        assert f"{export / 'zensical.toml'}: Zensical reads it before mkdocs.yml" in res.stderr


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_every_internal_link_resolves_under_mkdocs_and_zensical(built, name):
    records, _, sites = built(name)
    kg = load_graph(records)
    own = [r for r in kg.records.records.values() if r.id not in kg.records.catalog_of]
    for engine, site in sites.items():
        report = check_site(site)
        assert [str(b) for b in report.broken] == [], engine
        # not vacuous: many links, and every record page is linked and links its YAML file and JSON twin
        assert report.links >= 40 * len(own) and report.links > 800, (engine, report.links)
        for rec in own:
            for target in (f"{rec.folder}/{rec.id}/index.html", f"{rec.folder}/{rec.id}.yaml", f"{rec.folder}/{rec.id}.json"):
                assert target in report.targets, (engine, target)
        if name == "rich":
            assert {"assets/mermaid.min.js", "assets/kb-mermaid.js", "assets/records/timeline.png",
                    "assets/records/runs/tp8.csv"} <= report.targets, engine
        if name == "generated":
            assert {"lists/attempts/2/index.html", "lists/timeline-gen-campaign-000/3/index.html"} <= report.targets


def test_the_link_checker_finds_what_zensical_breaks_in_the_plugin_layout(tmp_path):
    """The checker against the cause it guards: kb's pages in the plugin's layout
    (``attempts/<id>.md``), whose raw-HTML links Zensical resolves against the source file."""
    from kb.site.tree import site_tree

    kg = load_graph(CAMPAIGN)
    docs = tmp_path / "p" / "docs"
    files = {rid: o.file for rid, o in kg.records.origins.items() if o.file}
    for rel, content in site_tree(kg, {}, files).items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    (tmp_path / "p" / "mkdocs.yml").write_text("site_name: kb\nmarkdown_extensions: [attr_list]\n", encoding="utf-8")
    out = subprocess.run([str(BIN / "zensical"), "build"], cwd=tmp_path / "p", capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    broken = check_site(tmp_path / "p" / "site").broken
    on_page = {(b.tag, b.value, b.resolved) for b in broken if b.page == "attempts/2026-02-19-baseline-tp8/index.html"}
    assert on_page == {("a", "../../2026-02-19-baseline-tp8.yaml", "2026-02-19-baseline-tp8.yaml"),
                       ("a", "../../2026-02-19-baseline-tp8.json", "2026-02-19-baseline-tp8.json")}


HOST_CONFIG = """site_name: Handbook
theme:
  name: material
  font: false
nav:
  - Home: index.md
  - Decisions: decisions/index.md
  - Tags: tags.md
  - Knowledge base: kb/index.md
plugins:
  - search
  - kb:
      records: records
      prefix: kb
      repo_url: https://git.example.org/team/handbook
"""


def _host(tmp_path: Path, config: str) -> Path:
    host = tmp_path / "host"
    (host / "docs" / "decisions").mkdir(parents=True)
    shutil.copytree(CAMPAIGN, host / "records")
    (host / "docs" / "index.md").write_text("# Team handbook\n\nSee the [knowledge base](kb/index.md).\n", encoding="utf-8")
    (host / "docs" / "decisions" / "index.md").write_text("# Our own decisions\n", encoding="utf-8")
    (host / "docs" / "tags.md").write_text("# Handbook tags\n", encoding="utf-8")
    (host / "mkdocs.yml").write_text(config, encoding="utf-8")
    return host


def test_a_good_guest_in_a_host_site_with_its_own_index_and_nav(tmp_path):
    host = _host(tmp_path, HOST_CONFIG)
    out = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=host, capture_output=True, text=True, env=NO_BANNER)
    assert out.returncode == 0, out.stderr
    site = host / "site"
    assert "Team handbook" in (site / "index.html").read_text(encoding="utf-8")
    assert "Our own decisions" in (site / "decisions" / "index.html").read_text(encoding="utf-8")
    assert "Handbook tags" in (site / "tags" / "index.html").read_text(encoding="utf-8")
    assert (site / "kb" / "index.html").is_file() and (site / "kb" / "records.json").is_file()
    page = (site / "kb" / "decisions" / "2026-02-26-upgrade-to-cuda-13" / "index.html").read_text(encoding="utf-8")
    assert ('href="https://git.example.org/team/handbook/edit/main/records/decisions/2026-02-26-upgrade-to-cuda-13.yaml"'
            in page)
    assert 'href="../../assets/kb.css"' in page  # kb's stylesheet, under the prefix
    nav_html = (site / "index.html").read_text(encoding="utf-8")
    assert "Knowledge base" in nav_html


def test_default_layout_keeps_the_hosts_index_under_strict(tmp_path):
    host = _host(tmp_path, HOST_CONFIG.replace("      prefix: kb\n", "").replace("kb/index.md", "upgrades.md"))
    (host / "docs" / "decisions" / "index.md").unlink()
    (host / "docs" / "tags.md").unlink()
    (host / "docs" / "index.md").write_text("# Team handbook\n\nSee the [upgrade paths](upgrades.md).\n", encoding="utf-8")
    (host / "mkdocs.yml").write_text((host / "mkdocs.yml").read_text().replace("  - Tags: tags.md\n", ""), encoding="utf-8")
    out = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=host, capture_output=True, text=True, env=NO_BANNER)
    assert out.returncode == 0, out.stderr
    assert "Team handbook" in (host / "site" / "index.html").read_text(encoding="utf-8")


def _case(tmp_path: Path, name: str) -> Path:
    shutil.copytree(CASES / name, tmp_path / name)
    return tmp_path / name


def test_mermaid_in_a_decision_becomes_a_diagram_without_a_cdn(tmp_path):
    case = _case(tmp_path, "mermaid-in-decision-not-rendered")
    res = kb("--records", "records", "build", "-d", "site", cwd=case)
    assert res.exit_code == 0, res.output
    page = case / "site" / "decisions" / "2026-03-02-adopt-nccl" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert "language-mermaid" not in html
    assert '<pre class="kb-mermaid">graph LR\n  A[CUDA 12.8] --&gt; B[CUDA 13]\n</pre>' in html
    assert '<script src="../../assets/mermaid.min.js"></script>' in html
    assert (page.parent / "../../assets/mermaid.min.js").resolve().stat().st_size > 1_000_000
    assert (case / "site" / "assets" / "mermaid.LICENSE.txt").read_text(encoding="utf-8").startswith("The MIT License")
    assert "unpkg" not in html and "cdn.jsdelivr" not in html
    # pages without a diagram do not load Mermaid
    assert "mermaid.min.js" not in (case / "site" / "index.html").read_text(encoding="utf-8")


def test_local_image_is_shown_from_records_assets(tmp_path):
    case = _case(tmp_path, "local-image-in-decision")
    (case / "records" / "assets").mkdir()
    shutil.move(case / "docs" / "timeline.png", case / "records" / "assets" / "timeline.png")
    assert kb("--records", "records", "check", cwd=case).exit_code == 0
    res = kb("--records", "records", "build", "--strict", "-f", "mkdocs.yml", "-d", "site", cwd=case)
    assert res.exit_code == 0, res.output
    page = case / "site" / "decisions" / "2026-03-02-adopt-nccl" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert '<img src="../../assets/records/timeline.png" alt="allreduce timeline" loading="lazy">' in html
    assert (page.parent / "../../assets/records/timeline.png").resolve().read_bytes() == \
        (case / "records" / "assets" / "timeline.png").read_bytes()


def test_missing_local_image_is_a_located_problem(tmp_path):
    case = _case(tmp_path, "local-image-in-decision")
    res = kb("--records", "records", "check", cwd=case)
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        "records/decisions/2026-03-02-adopt-nccl.yaml:4: context: image 'timeline.png' not found in records/assets/: "
        "add it as records/assets/timeline.png or fix the link"]
    strict = kb("--records", "records", "build", "--strict", "-f", "mkdocs.yml", "-d", "site", cwd=case)
    assert strict.exit_code == 1
    assert "image 'timeline.png' not found" in strict.stderr
    loose = kb("--records", "records", "build", "-f", "mkdocs.yml", "-d", "site2", cwd=case)
    assert loose.exit_code == 0


def test_mermaid_diagram_draws_in_a_browser_offline(tmp_path):
    """Chromium (Debian's, via Playwright) opens the decision page served locally: the bundled
    Mermaid turns the fence into an SVG, and no request leaves 127.0.0.1."""
    import functools
    import http.server
    import threading
    from urllib.parse import urlsplit

    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("/usr/bin/chromium is missing (CI=true: install it with 'apt-get install chromium')")
        pytest.skip("/usr/bin/chromium is missing; install it with 'apt-get install chromium' to run this test")
    from playwright.sync_api import sync_playwright

    case = _case(tmp_path, "mermaid-in-decision-not-rendered")
    assert kb("--records", "records", "build", "-d", "site", cwd=case).exit_code == 0

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the base class's signature
            """No access log."""

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(case / "site")))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    outside: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()

            def route(r):
                if urlsplit(r.request.url).hostname == "127.0.0.1" or r.request.url.startswith(("data:", "blob:")):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()

            page.route("**/*", route)
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/decisions/2026-03-02-adopt-nccl/")
            page.wait_for_selector("pre.kb-mermaid svg", timeout=20_000)
            labels = page.locator("pre.kb-mermaid svg").text_content() or ""
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert "CUDA 12.8" in labels and "CUDA 13" in labels
    assert outside == []


# Guest pages keep the host's place: on a kb page out of the nav (an attempt, a root cause), the
# host's tab that holds kb is active and the sidebar opens kb's section, in hosts whose nav comes
# from mkdocs.yml, from awesome-nav's .nav.yml, or from MkDocs itself (no nav at all).

ATTEMPT = "kb/attempts/2026-02-19-baseline-tp8/index.html"
ROOT_CAUSE = "kb/blockers/sm120-unsupported-by-cuda-12.8-stack/index.html"
KB_SECTION = ["Knowledge base", "Campaigns", "Attempts", "Root causes", "Decisions", "Timeline", "Compare",
              "Upgrade paths", "Stacks", "Platforms", "Tags", "Catalogs"]
GUEST = "  - kb:\n      records: records\n      prefix: kb\n"
REDIRECTS = "  - redirects:\n      redirect_maps:\n        old-baseline.md: kb/attempts/2026-02-19-baseline-tp8.md\n"
THEME = "theme:\n  name: material\n  font: false\n  features: [navigation.tabs, navigation.sections]\n"
PLAIN_NAV = "nav:\n  - Home: index.md\n  - Guide: guide.md\n  - Knowledge base: kb/index.md\n"
NESTED_NAV = "nav:\n  - Home: index.md\n  - Reference:\n      - Guide: guide.md\n      - Knowledge base: kb/index.md\n  - Tags: tags.md\n"


def _guest_site(tmp_path: Path, config: str, files: dict[str, str] | None = None) -> Path:
    """A host site (a home, a guide, kb's records under records/) with ``config`` as mkdocs.yml
    and ``files`` under docs/, built with ``mkdocs build --strict``; returns its site folder."""
    host = tmp_path / "host"
    (host / "docs").mkdir(parents=True)
    shutil.copytree(CAMPAIGN, host / "records")
    pages = {"index.md": "# Team handbook\n\nSee the [knowledge base](kb/index.md).\n", "guide.md": "# Guide\n", **(files or {})}
    for name, text in pages.items():
        (host / "docs" / name).write_text(text, encoding="utf-8")
    (host / "mkdocs.yml").write_text("site_name: Handbook\n" + config, encoding="utf-8")
    env = {**NO_BANNER, "DISABLE_MKDOCS_2_WARNING": "true"}
    out = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=host, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return host / "site"


def _entry_title(li: Any) -> str:
    """The title of a sidebar entry: its link (the current page's, beside its toc label), or a
    section's label."""
    link = li.select_one(":scope > a") or li.select_one(":scope > label, :scope > div.md-nav__container > a")
    assert link is not None
    return link.get_text(" ", strip=True)


def _place(site: Path, page: str) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """What Material marks on ``page``: the active tabs' titles, each open section of the sidebar
    (its title → the titles of its own entries) and the titles of the active entries that are
    pages (links, not sections)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / page).read_text(encoding="utf-8"), "html.parser")
    tabs = [li.get_text(" ", strip=True) for li in soup.select("li.md-tabs__item--active")]
    primary = soup.select_one("nav.md-nav--primary")
    assert primary is not None
    sections = {}
    for li in primary.select("li.md-nav__item--nested.md-nav__item--active"):
        label = li.select_one(":scope > label.md-nav__link, :scope > div.md-nav__container > a")
        assert label is not None
        sections[label.get_text(" ", strip=True)] = [_entry_title(item) for item in li.select(":scope > nav > ul > li")]
    entries = [li.get_text(" ", strip=True) for li in primary.select("li.md-nav__item--active:not(.md-nav__item--nested)")]
    return tabs, sections, entries


@pytest.mark.parametrize("name, config, files, tab, outer", [
    ("plain nav", THEME + PLAIN_NAV + "plugins:\n  - search\n" + GUEST, {}, "Knowledge base", None),
    ("tabs, tags and redirects, kb first", THEME + NESTED_NAV + "plugins:\n  - search\n  - tags\n" + GUEST + REDIRECTS,
     {"tags.md": "# Tags\n\n<!-- material/tags -->\n", "guide.md": "---\ntags: [howto]\n---\n# Guide\n"}, "Reference", "Reference"),
    ("tabs, tags and redirects, redirects first", THEME + NESTED_NAV + "plugins:\n  - search\n  - tags\n" + REDIRECTS + GUEST,
     {"tags.md": "# Tags\n\n<!-- material/tags -->\n", "guide.md": "---\ntags: [howto]\n---\n# Guide\n"}, "Reference", "Reference"),
    ("awesome-nav", THEME + "plugins:\n  - search\n  - awesome-nav\n" + GUEST,
     {".nav.yml": "nav:\n  - index.md\n  - guide.md\n  - Knowledge base: kb\n"}, "Knowledge base", None),
    ("no nav", THEME + "plugins:\n  - search\n" + GUEST, {}, "Kb", None),
], ids=["plain-nav", "tags-redirects-kb-first", "tags-redirects-redirects-first", "awesome-nav", "no-nav"])
def test_a_guest_page_shows_the_hosts_tab_and_kbs_section(tmp_path, name, config, files, tab, outer):
    site = _guest_site(tmp_path, config, files)
    for page, entry in ((ATTEMPT, "Attempts"), (ROOT_CAUSE, "Root causes")):
        tabs, sections, entries = _place(site, page)
        assert tabs == [tab], (name, page)
        kb_section = "Knowledge base" if tab != "Kb" else "Kb"
        assert sections[kb_section] == KB_SECTION, (name, page)
        assert sorted(sections) == sorted({kb_section, outer or kb_section})
        assert entries == [entry]  # the index page of the page's kind, highlighted
    # the host's own pages keep their place; kb's dashboard is its section's current page
    tabs, sections, _ = _place(site, "index.html")
    assert tabs == ["Home" if name != "awesome-nav" and name != "no nav" else "Team handbook"]
    assert sections == {}
    tabs, sections, _ = _place(site, "kb/index.html")
    assert tabs == [tab] and sections[kb_section] == KB_SECTION
    if "redirects" in name:  # in either order of plugins:, a redirect reaches a kb page
        redirect = (site / "old-baseline" / "index.html").read_text(encoding="utf-8")
        assert '<meta http-equiv="refresh" content="0; url=../kb/attempts/2026-02-19-baseline-tp8/">' in redirect
        assert (site / "kb" / "attempts" / "2026-02-19-baseline-tp8" / "index.html").is_file()
        assert "howto" in (site / "tags" / "index.html").read_text(encoding="utf-8")


def test_a_host_that_lists_kbs_pages_itself_keeps_its_own_list(tmp_path):
    nav = ("nav:\n  - Home: index.md\n  - Knowledge base:\n      - Overview: kb/index.md\n"
           "      - Failures: kb/blockers/index.md\n  - Guide: guide.md\n")
    site = _guest_site(tmp_path, THEME + nav + "plugins:\n  - search\n" + GUEST)
    tabs, sections, entries = _place(site, ROOT_CAUSE)
    assert (tabs, sections, entries) == (["Knowledge base"], {"Knowledge base": ["Overview", "Failures"]}, ["Failures"])
    # a page whose index the host left out takes kb's home as its place
    tabs, sections, entries = _place(site, ATTEMPT)
    assert (tabs, sections, entries) == (["Knowledge base"], {"Knowledge base": ["Overview", "Failures"]}, ["Overview"])


def test_kb_alone_with_tabs_marks_the_tab_of_the_pages_kind(tmp_path):
    (tmp_path / "docs").mkdir()
    shutil.copytree(CAMPAIGN, tmp_path / "records")
    (tmp_path / "mkdocs.yml").write_text("site_name: kb\n" + THEME + "plugins:\n  - search\n  - kb:\n      records: records\n",
                                         encoding="utf-8")
    out = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=tmp_path, capture_output=True, text=True, env=NO_BANNER)
    assert out.returncode == 0, out.stderr
    for page, tab in ((ATTEMPT, "Attempts"), (ROOT_CAUSE, "Root causes"), ("kb/stacks/cuda-13.0/index.html", "Stacks")):
        tabs, sections, entries = _place(tmp_path / "site", page.removeprefix("kb/"))
        assert (tabs, sections, entries) == ([tab], {}, [tab])
