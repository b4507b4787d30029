"""Pages written from shells (kb.site.shell) are byte for byte what Material's main.html writes.

Each site is built twice, with shells and with every page through Material's ``main.html``
(``KbPlugin.shell_pages = False``), and every file of the two sites is compared: kb's own
configuration, the repository's, a host site with kb under a prefix (its own nav, site_url,
features, file URLs, links from its pages into kb's), and records whose text tries to break out
of its markup. A site shells cannot be proven for (a theme ``custom_dir``) takes Material's render.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import CAMPAIGN_RECORDS
from test_site import ROOT, TITLE_BREAK, UNTRUSTED_RECORDS

from kb.site import shell
from kb.site.build import build_site
from kb.site.plugin import KbPlugin


@pytest.fixture
def every_folder(monkeypatch: pytest.MonkeyPatch) -> list[shell.Shells]:
    """Shells for every folder, however few its pages; the shells each build made."""
    monkeypatch.setattr(shell, "MIN_PAGES", 1)
    made: list[shell.Shells] = []
    install = shell.Shells.install.__func__  # type: ignore[attr-defined]

    def keep(cls: Any, config: Any, env: Any, groups: Any = None) -> shell.Shells:
        s = install(cls, config, env, groups)
        made.append(s)
        return s

    monkeypatch.setattr(shell.Shells, "install", classmethod(keep))
    return made


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _both(build: Callable[[Path], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          made: list[shell.Shells]) -> tuple[dict[str, bytes], set[str]]:
    """Build with shells and without; assert every file equal; return the files and the pages
    written from shells."""
    fast = _files(build(tmp_path / "fast"))
    assert len(made) == 1, "the build installed no shells"
    written = made[0].written
    assert not made[0].refused
    monkeypatch.setattr(KbPlugin, "shell_pages", False)
    slow = _files(build(tmp_path / "slow"))
    assert len(made) == 1, "shells were installed while turned off"
    assert sorted(fast) == sorted(slow)
    differ = [name for name in fast if fast[name] != slow[name]]
    assert differ == []
    return fast, written


def test_the_campaign_site_is_the_same_with_shells(tmp_path, monkeypatch, every_folder) -> None:
    def build(site: Path) -> Path:
        return build_site(CAMPAIGN_RECORDS, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(site), strict=True)

    files, written = _both(build, tmp_path, monkeypatch, every_folder)
    attempts = {p.stem for p in (CAMPAIGN_RECORDS / "attempts").glob("*.yaml")}
    blockers = {p.stem for p in (CAMPAIGN_RECORDS / "blockers").glob("*.yaml")}
    assert {f"attempts/{a}.md" for a in attempts} | {f"blockers/{b}.md" for b in blockers} <= written
    assert any(src.startswith("compare/") for src in written)
    assert not {"index.md", "attempts/index.md", "blockers/index.md"} & written  # in the nav: main.html
    page = files["attempts/2026-02-23-torch-symm-mem/index.html"].decode()
    assert "<title>Torch symmetric-memory allreduce - kb" in page
    assert 'href="#setup" class="md-nav__link"' in page  # the page's own toc, not the sentinel's
    assert shell.ANCHOR not in page and "KbShell" not in page
    # tables of contents come from toc shells (one toc.html render per shape), each proven once
    tocs = every_folder[0].toc_shells
    assert tocs and None not in tocs.values()
    assert len(tocs) < len(written)


def test_a_host_site_with_prefix_site_url_and_file_urls_is_the_same(tmp_path, monkeypatch, every_folder) -> None:
    host = tmp_path / "host"
    (host / "docs").mkdir(parents=True)
    shutil.copytree(CAMPAIGN_RECORDS, host / "records")
    (host / "docs" / "index.md").write_text(
        "# Handbook\n\nSee [the allreduce attempt](kb/attempts/2026-02-23-torch-symm-mem.md#error).\n", encoding="utf-8")
    (host / "mkdocs.yml").write_text("""site_name: Handbook & <co>
site_url: https://docs.example.org/handbook/
repo_url: https://git.example.org/team/handbook
edit_uri: edit/main/docs/
use_directory_urls: false
theme:
  name: material
  font: false
  features: [navigation.tabs, navigation.sections, navigation.path, navigation.footer, content.action.edit,
             toc.follow, navigation.top, navigation.instant]
nav:
  - Home: index.md
  - Knowledge base: kb/index.md
plugins:
  - search
  - kb:
      records: records
      prefix: kb
validation:
  anchors: warn
""", encoding="utf-8")

    def build(site: Path) -> Path:
        # strict: with file URLs too, kb's links to the compare picker name its source page
        return build_site(host / "records", config_file=str(host / "mkdocs.yml"), site_dir=str(site), strict=True)

    files, written = _both(build, tmp_path, monkeypatch, every_folder)
    assert "kb/attempts/2026-02-23-torch-symm-mem.md" in written
    page = files["kb/attempts/2026-02-23-torch-symm-mem.html"].decode()
    assert '<link rel="canonical" href="https://docs.example.org/handbook/kb/attempts/2026-02-23-torch-symm-mem.html">' in page
    assert 'href="../compare/index.html?a=2026-02-23-torch-symm-mem"' in page  # the picker, as a file URL
    sitemap = files["sitemap.xml"].decode()
    assert "https://docs.example.org/handbook/kb/attempts/2026-02-23-torch-symm-mem.html" in sitemap


def test_untrusted_text_is_written_as_material_writes_it(write_tree, tmp_path, monkeypatch, every_folder) -> None:
    records = write_tree(UNTRUSTED_RECORDS)
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml here: kb's default configuration

    def build(site: Path) -> Path:
        return build_site(records, site_dir=str(site), strict=True)

    files, written = _both(build, tmp_path, monkeypatch, every_folder)
    assert any(src.startswith("attempts/") for src in written)
    for name, data in files.items():
        if name.endswith(".html"):
            assert "<script>window.__pwned=1</script>" not in data.decode(), name
    assert TITLE_BREAK  # the records' titles carry it (see test_site.UNTRUSTED_RECORDS)


@pytest.mark.parametrize("plugins, late", [("  - search\n", True), ("  - search\n  - offline\n", False)])
def test_record_pages_are_converted_after_the_search_plugin_only_among_known_plugins(
        tmp_path, monkeypatch, plugins: str, late: bool) -> None:
    """Material's search reads nothing of a record page but scans its HTML: with kb and search
    alone, record pages are converted after it (the same site); with another plugin, before."""
    from material.plugins.search.plugin import SearchPlugin

    plugin: list[KbPlugin] = []
    events: list[tuple[str, str]] = []
    convert, search = KbPlugin._convert, SearchPlugin.on_page_context

    def kb_spy(self: KbPlugin, context: Any, page: Any, config: Any, nav: Any) -> Any:
        plugin.append(self)
        events.append(("kb", page.file.src_uri))
        return convert(self, context, page, config, nav)

    def search_spy(self: Any, context: Any, *, page: Any, config: Any, nav: Any) -> Any:
        events.append(("search", page.file.src_uri))
        return search(self, context, page=page, config=config, nav=nav)

    monkeypatch.setattr(KbPlugin, "_convert", kb_spy)
    monkeypatch.setattr(SearchPlugin, "on_page_context", search_spy)
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme:\n  name: material\n  font: false\nplugins:\n"
                                         + plugins + "  - kb:\n      records: " + str(CAMPAIGN_RECORDS) + "\n",
                                         encoding="utf-8")
    site = build_site(CAMPAIGN_RECORDS, config_file=str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    kb = plugin[0]
    attempt = "attempts/2026-02-23-torch-symm-mem.md"
    assert attempt in kb.excluded
    assert kb.late == (kb.excluded if late else set())
    order = [who for who, src in events if src == attempt]
    assert order == (["search", "kb"] if late else ["kb", "search"])
    assert [who for who, src in events if src == "attempts/index.md"] == ["kb", "search"]  # indexed by Material
    # offline writes file URLs
    name = "2026-02-23-torch-symm-mem/index.html" if late else "2026-02-23-torch-symm-mem.html"
    html = (site / "attempts" / name).read_text(encoding="utf-8")
    assert 'id="setup"' in html  # converted either way
    index = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "attempts/2026-02-23-torch-symm-mem" in index  # kb's own entry for it


def test_a_theme_custom_dir_takes_materials_render(tmp_path, monkeypatch, every_folder) -> None:
    host = tmp_path / "host"
    (host / "docs").mkdir(parents=True)
    (host / "overrides").mkdir()
    (host / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}{% block content %}<p class="own">{{ page.file.src_uri }}</p>{{ super() }}{% endblock %}\n',
        encoding="utf-8")
    (host / "mkdocs.yml").write_text("site_name: own\ntheme:\n  name: material\n  font: false\n  custom_dir: overrides\n"
                                     "plugins:\n  - kb:\n      records: " + str(CAMPAIGN_RECORDS) + "\n", encoding="utf-8")
    assert shell.unsupported(type("C", (), {"theme": type("T", (), {"name": "material", "custom_dir": "x"})(),
                                            "plugins": {}})()) == "theme custom_dir 'x' may override Material's templates"
    site = build_site(CAMPAIGN_RECORDS, config_file=str(host / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    assert every_folder == []  # no shells: every page through the override
    page = (site / "attempts" / "2026-02-23-torch-symm-mem" / "index.html").read_text(encoding="utf-8")
    assert '<p class="own">attempts/2026-02-23-torch-symm-mem.md</p>' in page


def test_a_generated_campaign_with_paginated_lists_is_the_same(tmp_path, monkeypatch, every_folder) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from gen_campaign import generate

    records = tmp_path / "records"
    generate(records, 300, seed=13)
    monkeypatch.setattr(shell, "MIN_PAGES", 8)  # the real threshold: lists/ is one group

    def build(site: Path) -> Path:
        return build_site(records, site_dir=str(site), strict=True)

    monkeypatch.chdir(tmp_path)
    files, written = _both(build, tmp_path, monkeypatch, every_folder)
    lists = {name for name in files if name.startswith("lists/") and name.endswith("index.html")}
    assert len(lists) > 50
    assert {f"{name[:-len('/index.html')]}.md" for name in lists if name.count("/") == 3} <= written  # lists/<key>/<n>
    assert {f"{name[:-len('index.html')]}index.md" for name in lists if name.count("/") == 2} <= written  # lists/<key>/
    assert len(every_folder[0].shells) <= 8  # one shell per kind of page, not per folder


def test_a_folder_of_subfolders_with_nothing_else_shares_shells(monkeypatch) -> None:
    monkeypatch.setattr(shell, "MIN_PAGES", 3)
    pages = ["lists/a/index.md", "lists/a/2.md", "lists/b/index.md", "attempts/x.md", "attempts/y.md",
             "kb/c/1.md", "kb/c/2.md", "docs/d/1.md", "docs/d/2.md"]
    others = ["index.md", "attempts/index.md", "attempts/x.json", "kb/index.md", "docs/d/x.png"]
    folders, groups = shell.plan(pages, others, ["attempts/", "lists-of-mine/"])
    # kb/ holds the host's kb/index.md and docs/ a picture: their subfolders keep their own shells
    assert groups == {"lists"}
    assert folders == {"lists/a", "lists/b"}  # 3 pages in the group; 2 in each other folder
    assert shell.plan(pages, others, ["/lists/b/"])[1] == set()  # the navigation leads into it


def test_a_toc_shape_keeps_what_toc_html_reads_and_fills_each_pages_entries() -> None:
    from mkdocs.structure.toc import AnchorLink

    def entry(title: str, ident: str, level: int, *children: AnchorLink) -> AnchorLink:
        link = AnchorLink(title, ident, level)
        link.children = list(children)
        return link

    toc = [entry("Page &amp; title", "page", 1, entry("Setup", "setup", 2),
                 entry("Error: <code>KeyError</code>", "error", 2, entry("Trace", "trace", 3)))]
    other = [entry("Another page", "x", 1, entry("Notes", "notes", 2),
                   entry("Error: <code>KeyError</code>", "error", 2, entry("Stack", "stack-1", 3)))]
    # the h1's title is not read (toc.html lists its children); a parent's title is (filtered)
    assert shell._toc_shape(toc) == ((1, None, ((2, None, ()), (2, "Error: <code>KeyError</code>", ((3, None, ()),)))),)
    assert shell._toc_shape(other) == shell._toc_shape(toc)
    assert shell._toc_shape([entry("A", "a", 2, entry("B", "b", 3))]) == ((2, "A", ((3, None, ()),)),)
    # a shell: text, then (slot kind, entry number) in toc order (0: the h1, 1: setup, ...)
    filled = shell._fill_toc(["<a href=\"#", ("u", 1), "\">", ("t", 1), "</a><a href=\"#", ("u", 3), "\">",
                              ("t", 3), "</a>"], other)
    assert filled == '<a href="#notes">Notes</a><a href="#stack-1">Stack</a>'


@pytest.mark.parametrize("title, used", [("{{ t.title }}", True), ("{{ t.title | e }}", False)])
def test_a_toc_shell_whose_markers_are_filtered_is_not_used(monkeypatch, title: str, used: bool) -> None:
    import types

    import jinja2
    from mkdocs.structure.toc import AnchorLink

    monkeypatch.setattr(shell, "_TOC_SOURCE", '{% for t in page.toc %}<a href="{{ t.url }}">' + title + "</a>{% endfor %}")
    shells = shell.Shells(None, jinja2.Environment(loader=jinja2.DictLoader({"main.html": ""})))
    pages = [[AnchorLink("A &amp; <b>", "a", 2), AnchorLink("B", "b-1", 2)], [AnchorLink("C", "c", 2), AnchorLink("D", "d", 2)]]
    got = [shells._toc(toc, {"page": types.SimpleNamespace(toc=toc)}) for toc in pages]
    if used:
        assert got == ['<a href="#a">A &amp; <b></a><a href="#b-1">B</a>', '<a href="#c">C</a><a href="#d">D</a>']
        assert list(shells.toc_shells.values())[0] is not None
    else:  # the escaped marker is seen: every page takes the template's own render
        assert got == ['<a href="#a">A &amp;amp; &lt;b&gt;</a><a href="#b-1">B</a>', '<a href="#c">C</a><a href="#d">D</a>']
        assert list(shells.toc_shells.values()) == [None]


def test_unknown_plugins_and_other_themes_are_refused() -> None:
    def config(theme: str, plugins: list[str]) -> Any:
        return type("C", (), {"theme": type("T", (), {"name": theme, "custom_dir": None})(), "plugins": dict.fromkeys(plugins)})()

    assert shell.unsupported(config("material", ["search", "kb", "kb-preview"])) is None
    assert shell.unsupported(config("mkdocs", ["kb"])) == "theme 'mkdocs' is not Material"
    assert shell.unsupported(config("material", ["kb", "macros"])) == "plugins macros may change a page's template context"


# --------------------------------------------------------------------------- memory: one page at a time


def test_twins_read_the_edge_tables_as_the_networkx_graph_has_them() -> None:
    from kb.pipeline import load_graph
    from kb.twins import INDEX, iter_twins, twin_path

    kg = load_graph(CAMPAIGN_RECORDS)
    twins = dict(iter_twins(kg))
    import json

    for rid, rec in kg.records.records.items():
        links = json.loads(twins[twin_path(rec)])["links"]
        out: dict[str, list[str]] = {}
        for _u, v, k in sorted(kg.g.out_edges(rid, keys=True)):
            out.setdefault(k, []).append(v)
        into: dict[str, list[str]] = {}
        for u, _v, k in sorted(kg.g.in_edges(rid, keys=True)):
            into.setdefault(k, []).append(u)
        assert links == {"out": out, "in": into}, rid
    edges = json.loads(twins[INDEX])["edges"]
    assert [(e["source"], e["target"], e["type"]) for e in edges] == sorted(kg.g.edges(keys=True))
    assert any(links for links in edges)


def test_the_tree_keeps_pages_as_utf8_and_forgets_the_graphs_caches_only_when_asked() -> None:
    from kb.pipeline import load_graph
    from kb.site.pages import render_site
    from kb.site.tree import site_tree

    kg = load_graph(CAMPAIGN_RECORDS)
    pages = render_site(kg)
    tree = site_tree(kg, {}, {})
    assert kg.memoized("queries.index")  # kept: the caller may still ask the graph
    attempt = "attempts/2026-02-23-torch-symm-mem.md"
    assert isinstance(tree[attempt], bytes)
    assert tree[attempt].decode("utf-8") == pages[attempt]  # no record files given: no footer
    site_tree(kg, {}, {}, forget=True)
    assert not kg.memoized("queries.index")  # the pages' query tables; the twins ask only for edges


@pytest.mark.parametrize("data", [
    {"a": [], "b": {}, "c": [1, 2.5, -0.0, 1e300, True, False, None, "é\"\\\n\u2028\x00"], "d": {"e": [{"f": 1}]}},
    [[[]], {}, ""],
    "text",
    7,
    {"k": float("nan")},  # json.dumps' NaN
    {1: "a key that is not a string"},
    {"t": (1, 2)},  # a tuple, written as a list
    {"f": float("-inf")},
])
def test_twin_json_is_written_as_json_dumps_writes_it(data: Any) -> None:
    import json

    from kb.twins import _dumps

    assert _dumps(data) == json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def test_every_twin_of_the_campaign_is_json_dumps_text() -> None:
    import json

    from kb.pipeline import load_graph
    from kb.twins import INDEX, index, iter_twins, twin, twin_path

    kg = load_graph(CAMPAIGN_RECORDS)
    twins = dict(iter_twins(kg))
    for rec in kg.records.records.values():
        assert twins[twin_path(rec)] == json.dumps(twin(kg, rec), indent=1, ensure_ascii=False) + "\n"
    assert twins[INDEX] == json.dumps(index(kg), indent=1, ensure_ascii=False) + "\n"
    assert '"links": {\n  "out": {' in twins[twin_path(next(iter(kg.records.records.values())))]


@pytest.mark.parametrize("directory_urls", [True, False])
def test_links_answered_again_from_a_folder_are_relative_to_each_page(directory_urls: bool) -> None:
    import types

    from mkdocs.structure.files import File, Files

    from kb.site.plugin import _Links

    files = Files([File(p, "/docs", "/site", directory_urls)
                   for p in ["attempts/a.md", "attempts/b.md", "attempts/index.md", "blockers/x.md"]])
    links = _Links(files)

    def page(src: str) -> Any:
        return types.SimpleNamespace(file=files.get_file_from_path(src))

    a, b, index = page("attempts/a.md"), page("attempts/b.md"), page("attempts/index.md")
    x, own = "../blockers/x.md#error", "a.md#setup"
    seen: list[dict[Any, dict[str, str]]] = [{}, {}, {}, {}]
    got = [links.resolve(a, seen[0], x), links.resolve(b, seen[1], x), links.resolve(index, seen[2], x),
           links.resolve(b, seen[3], own), links.resolve(a, seen[3], own)]
    if directory_urls:
        assert got == ["../../blockers/x/#error", "../../blockers/x/#error", "../blockers/x/#error",
                       "../a/#setup", "./#setup"]
    else:
        assert got == ["../blockers/x.html#error"] * 3 + ["a.html#setup", "a.html#setup"]
    target = files.get_file_from_path("blockers/x.md")
    assert seen[1] == {target: {"error": x}}  # the anchor is noted for the second page too
    assert seen[3] == {a.file: {"setup": own}}
