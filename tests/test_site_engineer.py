"""The site as an engineer uses it (issue 15): compare pages, stable decision identities, ADR
summaries, sortable tables, search for error text, the timeline, palette and tag links.

Reads the HTML of the campaign site built strictly with the repository's mkdocs.yml.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import CAMPAIGN_RECORDS, ROOT
from test_site import build_campaign, content, resolve, soup_of

from kb.pipeline import load_graph
from kb.queries.compare import compare_pairs
from kb.site.build import build_site
from kb.site.pages import render_site

E128 = "2026-02-21-eagle3-speculation"
E13 = "2026-02-27-eagle3-cuda13"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_campaign(tmp_path_factory.mktemp("engineer") / "site")


def _links(art, page: str) -> dict[str, str]:
    """Link text → resolved target file, for every link in the article."""
    return {a.get_text(" ", strip=True): resolve(page, a["href"]) for a in art.find_all("a", href=True)
            if not a["href"].startswith(("#", "http"))}


# --------------------------------------------------------------------------- compare


def test_the_eagle3_difference_is_two_clicks_from_home(site: Path) -> None:
    home = content(soup_of(site, "index.html"))
    # click 1: the best figure on the dashboard names its attempt
    best = next(a for a in home.find_all("a", href=True) if a.get_text(strip=True).startswith("EAGLE-3 speculative decoding on the CUDA 13"))
    attempt = resolve("index.html", best["href"])
    assert attempt == f"attempts/{E13}/index.html"
    # click 2: the attempt's summary links the comparison with the 54.1 tok/s run
    art = content(soup_of(site, attempt))
    summary = art.select_one("div.admonition.success")
    link = next(a for a in summary.find_all("a", href=True) if "54.1 tok/s" in a.get_text())
    page = resolve(attempt, link["href"])
    assert page == f"compare/{E128}--{E13}/index.html"
    cmp = content(soup_of(site, page))
    box = cmp.select_one("div.admonition.success")
    assert "Output throughput: 54.1 → 96.1 tok/s (+42, +77.6 %)" in box.get_text(" ", strip=True)
    text = cmp.get_text(" ", strip=True)
    assert "regressed" in text and "improved" in text
    rows = {tr.find("td").get_text(strip=True): [td.get_text(strip=True) for td in tr.find_all("td")]
            for tr in cmp.select("h2#stack-components ~ div table tbody tr, h2#stack-components + table tbody tr")}
    assert rows["cuda"] == ["cuda", "12.8.1", "13.0.1", "upgrade"]
    assert "--enable-flashinfer-allreduce-fusion" in text
    assert cmp.find(id="platform") is None  # nothing differs there: no empty section


def test_every_attempt_links_a_comparison_and_the_picker(site: Path) -> None:
    for page in sorted((site / "attempts").glob("*/index.html")):
        rel = str(page.relative_to(site))
        art = content(soup_of(site, rel))
        targets = [resolve(rel, a["href"]) for a in art.find_all("a", href=True)]
        assert any(t.startswith("compare/") and "--" in t for t in targets), rel
        assert any(a["href"].split("?")[0].endswith("compare/") and "?a=" in a["href"]
                   for a in art.find_all("a", href=True)), rel


def test_picker_data_and_page(site: Path) -> None:
    data = json.loads((site / "compare" / "attempts.json").read_text(encoding="utf-8"))
    a = data["attempts"][E13]
    assert a["metrics"]["output_throughput"] == [96.1, "tok/s"] and a["headline"] == "output_throughput"
    assert a["facts"]["components"]["cuda"] == "13.0.1"
    assert resolve("compare/index.html", a["url"]) == f"attempts/{E13}/index.html"
    assert resolve("compare/index.html", data["pairs"][f"{E128}--{E13}"]) == f"compare/{E128}--{E13}/index.html"
    art = content(soup_of(site, "compare/index.html"))
    assert art.select_one("#kb-picker select#kb-pick-a") is not None
    pairs = compare_pairs(load_graph(CAMPAIGN_RECORDS))
    assert len(data["pairs"]) == len([p for p in pairs if p.page]) < len(pairs)
    assert len(art.select("table tbody tr")) == len(pairs)  # pages and picker suggestions
    assert len(list((site / "compare").glob("*--*/index.html"))) == len(data["pairs"])
    # a suggestion without a page opens the picker with both attempts chosen
    attempt = content(soup_of(site, f"attempts/{E13}/index.html"))
    closest = next(a for a in attempt.find_all("a", href=True) if "closest earlier run" in a.get_text())
    assert closest["href"].endswith(f"compare/?a=2026-02-23-flashinfer-allreduce-fusion&b={E13}")


# --------------------------------------------------------------------------- stable identities

CASE = ROOT / "tests" / "fixtures" / "cases" / "records-and-site" / "adr-number-shifts-on-merge"
"""A frozen copy of the case from shared/cases (the tests never read shared/)."""


def _heading(site_dir: Path, page: str) -> tuple[str, str]:
    h1 = content(soup_of(site_dir, page)).h1
    return h1.get("id"), h1.get_text(strip=True).removesuffix("¶")


def test_decision_identity_survives_a_merge_of_two_branches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Case adr-number-shifts-on-merge: branch A adds "Adopt NCCL 2.28" (2026-03-02), branch B an
    older-dated "Coalesce allreduces" (2026-03-01); after the merge both keep URL, anchor, heading."""
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml: kb's built-in configuration (attr_list added by the plugin)
    nccl = "decisions/2026-03-02-adopt-nccl/index.html"
    coalesce = "decisions/2026-03-01-coalesce/index.html"

    def build(name: str, with_a: bool, with_b: bool) -> Path:
        root = tmp_path / name / "records" / "decisions"
        root.mkdir(parents=True)
        if with_a:
            shutil.copy(CASE / "records" / "decisions" / "2026-03-02-adopt-nccl.yaml", root)
        if with_b:
            shutil.copy(CASE / "branch-b-2026-03-01-coalesce.yaml", root / "2026-03-01-coalesce.yaml")
        return build_site(root.parent, site_dir=str(tmp_path / name / "site"), strict=True)

    branch_a, branch_b, merged = build("a", True, False), build("b", False, True), build("m", True, True)
    assert _heading(branch_a, nccl) == ("adr-2026-03-02-adopt-nccl", "Adopt NCCL 2.28")
    assert _heading(merged, nccl) == _heading(branch_a, nccl)
    assert _heading(branch_b, coalesce) == ("adr-2026-03-01-coalesce", "Coalesce allreduces")
    assert _heading(merged, coalesce) == _heading(branch_b, coalesce)
    for site_dir in (branch_a, branch_b, merged):  # no derived number anywhere that a merge could shift
        for page in site_dir.rglob("*.html"):
            assert not re.search(r"ADR-\d", page.read_text(encoding="utf-8")), page
    log = content(soup_of(merged, "decisions/index.html"))
    targets = [resolve("decisions/index.html", a["href"]) for a in log.select("table a[href]")]
    assert targets == [nccl, coalesce]  # newest first, each at its id's address


# --------------------------------------------------------------------------- ADR pages

ADR = "decisions/2026-02-26-upgrade-to-cuda-13/index.html"


def test_adr_page_opens_with_its_summary(site: Path) -> None:
    art = content(soup_of(site, ADR))
    box = art.select_one("div.admonition.success")
    assert box is not None and box.find_previous("h2") is None and box.find_previous("table") is None
    items = {li.get_text(" ", strip=True).split(":", 1)[0]: li for li in box.select("li")}
    assert box.select_one(".admonition-title").get_text(strip=True) == "Accepted on 2026-02-26"
    assert items["Decision"].get_text(" ", strip=True).startswith("Decision: Upgrade the software stack to CUDA 13")
    stack = items["Stack change"].get_text(" ", strip=True)
    assert "cuda 12.8.1 → 13.0.1" in stack and "torch 2.10.0+cu128 → 2.11.0.dev20260220+cu130" in stack
    effect = items["Effect on Output throughput"]
    assert "54.1 tok/s → 96.1 tok/s (+77.6 %)" in effect.get_text(" ", strip=True)
    targets = [resolve(ADR, a["href"]) for a in effect.find_all("a", href=True)]
    assert targets == [f"attempts/{E128}/index.html", f"attempts/{E13}/index.html",
                       f"compare/{E128}--{E13}/index.html"]
    assert "Resolves" in items


def test_adr_deciders_are_never_transcript_roles(site: Path) -> None:
    # the campaign's decision was imported with deciders [user, assistant]: no person is named
    art = content(soup_of(site, ADR))
    headers = [th.get_text(strip=True) for th in art.find("table").find_all("th")]
    assert "Deciders" not in headers
    assert "assistant" not in art.get_text(" ")


def test_minimal_adr_leaves_empty_sections_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "records" / "decisions"
    root.mkdir(parents=True)
    shutil.copy(CASE / "records" / "decisions" / "2026-03-02-adopt-nccl.yaml", root)
    monkeypatch.chdir(tmp_path)
    out = build_site(root.parent, site_dir=str(tmp_path / "site"), strict=True)
    art = content(soup_of(out, "decisions/2026-03-02-adopt-nccl/index.html"))
    heads = [h.get_text(strip=True).removesuffix("¶") for h in art.find_all(["h2", "h3"])]
    assert heads == ["Context and Problem Statement", "Considered Options", "Decision Outcome"]
    for table in art.find_all("table"):
        assert table.select("tbody tr td"), "an empty table"
    for p in art.find_all(["p", "li"]):
        assert p.get_text(strip=True), "an empty paragraph or item"
    summary = art.select_one("div.admonition.success").get_text(" ", strip=True)
    assert "Decision: Adopt NCCL 2.28" in summary and "Effect" not in summary


# --------------------------------------------------------------------------- timeline, palette, tags

TIMELINE = "timeline/kimi-k25-eagle3-blackwell/index.html"


def test_timeline_lists_attempts_and_decisions_in_order_with_stack_changes(site: Path) -> None:
    art = content(soup_of(site, TIMELINE))
    days = [h.get_text(strip=True).removesuffix("¶") for h in art.find_all("h2")]
    assert days == ["2026-02-19", "2026-02-21", "2026-02-23", "2026-02-26", "2026-02-27"]
    items = [li for li in art.select("ul > li") if li.find_parent("li") is None]
    assert len(items) == 10  # 9 attempts and 1 decision
    day = {d: h.find_next("ul").get_text(" ", strip=True) for d, h in zip(days, art.find_all("h2"))}
    assert day["2026-02-26"].startswith("Decision Upgrade the software stack to CUDA 13")
    assert "96.1 tok/s ★ new best" in day["2026-02-27"] and "cuda 12.8.1 → 13.0.1" in day["2026-02-27"]
    assert "54.1 tok/s" in day["2026-02-21"] and "★" not in day["2026-02-21"]
    assert "89.5 tok/s ★ new best" in day["2026-02-19"]
    home = content(soup_of(site, "index.html"))
    assert TIMELINE in {resolve("index.html", a["href"]) for a in home.find_all("a", href=True)}


def test_palette_toggle_offers_light_and_dark(site: Path) -> None:
    soup = soup_of(site, "index.html")
    form = soup.select_one('form[data-md-component="palette"]')
    schemes = [i.get("data-md-color-scheme") for i in form.select("input")]
    assert schemes == ["default", "slate"]
    assert [lbl.get("title") for lbl in form.select("label")] == ["Switch to dark mode", "Switch to light mode"]


def test_record_tags_link_to_their_section_of_the_tags_page(site: Path) -> None:
    page = f"attempts/{E13}/index.html"
    art = content(soup_of(site, page))
    tags = art.find("strong", string="Tags:").find_parent("p").find_all("a")
    assert [a.get_text() for a in tags] == ["eagle3", "speculative-decoding", "cuda-13"]
    tag_page = content(soup_of(site, "tags/index.html"))
    for a in tags:
        path, _, anchor = a["href"].partition("#")
        assert resolve(page, path) == "tags/index.html"
        section = tag_page.find(id=anchor)
        assert section is not None and section.get_text(strip=True).removesuffix("¶") == a.get_text()
    assert "EAGLE-3 speculative decoding on the CUDA 13 stack" in tag_page.find(id="tag-cuda-13").find_next("ul").get_text()
    decision = content(soup_of(site, ADR)).find("strong", string="Tags:").find_parent("p")
    assert [a.get_text() for a in decision.find_all("a")] == ["cuda-13", "sm120"]


# --------------------------------------------------------------------------- search


def test_search_splits_error_text_but_keeps_versions_whole(site: Path) -> None:
    from kb.site.config import SEARCH_SEPARATOR

    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    sep = re.compile(index["config"]["separator"])
    assert index["config"]["separator"] == SEARCH_SEPARATOR  # mkdocs.yml and kb's default agree
    assert [w for w in sep.split("KeyError: 12") if w] == ["KeyError", "12"]
    assert [w for w in sep.split("torch 2.10.0+cu128, cuda=12.8.1 NCCL_ALGO") if w] == \
        ["torch", "2.10.0+cu128", "cuda", "12.8.1", "NCCL_ALGO"]
    # the error line is in the title of its attempt's entry (search weighs titles 1000×)
    titles = [d["title"] for d in index["docs"] if d["location"].startswith("attempts/2026-02-23-torch-symm-mem/")]
    assert titles == ["Torch symmetric-memory allreduce · KeyError: 12"]
    # compare pages repeat their attempts' facts: kept out of search
    assert [d["location"] for d in index["docs"] if d["location"].startswith("compare/") and not d["location"].startswith("compare/#")] == ["compare/"]  # the picker


# --------------------------------------------------------------------------- chart and diagrams

def _svg(markdown: str, cls: str):
    return BeautifulSoup(markdown, "html.parser").select_one(f"svg.{cls}")


def _min_text_px(svg) -> float:
    """The smallest text size (px) of ``svg`` drawn at its minimum width (``--kb-min-width``)."""
    width = float(re.search(r"--kb-min-width:(\d+)px", svg["style"]).group(1))
    scale = width / float(svg["viewbox"].split()[2])
    return min(float(t["font-size"]) for t in svg.find_all("text")) * scale


def test_chart_axis_from_zero_with_values_on_best_and_baseline(site: Path) -> None:
    svg = content(soup_of(site, "index.html")).select_one("svg.kb-chart")
    ticks = [float(t.get_text()) for t in svg.select("text.kb-tick")]
    assert ticks[0] == 0
    assert sorted(t.get_text() for t in svg.select("text.kb-value")) == ["82", "96.1"]
    assert _min_text_px(svg) >= 11
    assert svg.select("g.kb-gap") == []  # no long gap in this campaign


def test_chart_compresses_and_marks_a_long_gap(campaign_copy: Path) -> None:
    late = campaign_copy / "attempts" / "2026-06-01-late-rerun.yaml"
    late.write_text((campaign_copy / "attempts" / f"{E13}.yaml").read_text(encoding="utf-8")
                    .replace("date: 2026-02-27", "date: 2026-06-01"), encoding="utf-8")
    svg = _svg(render_site(load_graph(campaign_copy))["index.md"], "kb-chart")
    gaps = svg.select("g.kb-gap")
    assert len(gaps) == 1 and gaps[0].find("text").get_text() == "+94 d"
    xs = {t.get_text(): float(t["x"]) for t in svg.select("text.kb-date")}
    # the eight days of February keep most of the width instead of a sliver at the left
    assert xs["2026-02-27"] - xs["2026-02-19"] > 0.6 * (xs["2026-06-01"] - xs["2026-02-19"])


def test_diagram_styles_fixed_blockers_and_has_a_legend(site: Path) -> None:
    art = content(soup_of(site, "blockers/index.html"))
    svg = art.select_one("svg.kb-diagram")
    fixed = svg.select("g.kb-node.kb-fixed")
    assert {g.find("title").get_text() for g in fixed} >= {"SM120 not supported by the CUDA 12.8 software stack"}
    assert all(g.find("rect").get("stroke-dasharray") == "7 4" for g in fixed)
    opened = svg.select("g.kb-node.kb-open")
    assert opened and all(g.find("rect").get("stroke-dasharray") is None for g in opened)
    assert any(t.get_text().startswith("✓ ") for g in fixed for t in g.find_all("text"))
    legend = art.select_one("ul.kb-legend").get_text(" ", strip=True)
    for entry in ("attempt", "root cause", "open: solid border", "✓ fixed: dashed border"):
        assert entry in legend
    assert _min_text_px(svg) >= 11


def test_diagram_marks_a_blocker_only_disabled_upstream_apart_from_a_fixed_one(campaign_copy: Path) -> None:
    """status: fixed with only a 'disables' fix (the crash became a clean refusal, the feature
    stays off) is drawn ⊘ with its own legend entry, not ✓ fixed; with an 'enables' fix beside it,
    ✓ fixed."""
    b = campaign_copy / "blockers" / "nccl-tree-incompatible-with-cuda-graphs.yaml"
    base = b.read_text(encoding="utf-8")
    b.write_text(base + "status: fixed\nfixed_by:\n  - kind: disables\n    pr: sgl-project/sglang#1\n", encoding="utf-8")
    svg = _svg(render_site(load_graph(campaign_copy))["blockers/index.md"], "kb-diagram")
    node = svg.select_one("g.kb-node.kb-disabled")
    assert node.find("title").get_text() == "NCCL Tree algorithm incompatible with CUDA graphs"
    assert node.find("rect").get("stroke-dasharray") == "7 2 2 2"
    assert any(t.get_text().startswith("⊘ ") for t in node.find_all("text"))
    md = render_site(load_graph(campaign_copy))["blockers/index.md"]
    assert "⊘ only disabled upstream (the feature stays off): dash-dot border" in md
    b.write_text(base + "status: fixed\nfixed_by:\n  - kind: disables\n    pr: sgl-project/sglang#1\n"
                 "  - kind: enables\n    release: sglang 0.6.0\n", encoding="utf-8")
    svg = _svg(render_site(load_graph(campaign_copy))["blockers/index.md"], "kb-diagram")
    assert not svg.select("g.kb-node.kb-disabled")
    assert "NCCL Tree algorithm incompatible with CUDA graphs" in {
        g.find("title").get_text() for g in svg.select("g.kb-node.kb-fixed")}


def test_diagram_marks_a_blocker_introduced_by_a_version(campaign_copy: Path) -> None:
    b = campaign_copy / "blockers" / "nccl-tree-incompatible-with-cuda-graphs.yaml"
    b.write_text(b.read_text(encoding="utf-8") + "applies_when:\n  components:\n    nccl: \">=2.28\"\n", encoding="utf-8")
    md = render_site(load_graph(campaign_copy))["blockers/index.md"]
    svg = _svg(md, "kb-diagram")
    node = svg.select_one("g.kb-node.kb-introduced")
    assert node.find("title").get_text() == "NCCL Tree algorithm incompatible with CUDA graphs"
    assert node.find("rect")["stroke-dasharray"] == "2 3" and node.find("text").get_text().startswith("⚠ ")
    assert "⚠ introduced by a version: dotted border" in BeautifulSoup(md, "html.parser").select_one("ul.kb-legend").get_text()


# --------------------------------------------------------------------------- scripts and untrusted text


def test_scripts_are_served_from_the_site_with_the_licence(site: Path) -> None:
    for name in ("tablesort.min.js", "tablesort.number.min.js", "kb.js", "tablesort.LICENSE.txt"):
        assert (site / "assets" / "kb" / name).is_file(), name
    assert "Permission is hereby granted" in (site / "assets" / "kb" / "tablesort.LICENSE.txt").read_text(encoding="utf-8")
    for page in ("index.html", f"attempts/{E13}/index.html", "compare/index.html"):
        srcs = [s["src"] for s in soup_of(site, page).find_all("script", src=True)]
        ours = [s for s in srcs if "assets/kb/" in s]
        assert [s.rsplit("/", 1)[1] for s in ours] == ["tablesort.min.js", "tablesort.number.min.js", "kb.js"]
        for s in ours:
            assert (site / resolve(page, s)).is_file(), s


def test_untrusted_titles_stay_text_on_compare_and_timeline_pages(write_tree, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from test_site import SCRIPT, build_untrusted

    out = build_untrusted(write_tree, tmp_path, monkeypatch)
    pages = [p for p in ("compare/2026-01-01-evil-attempt--2026-01-02-evil-measured/index.html",
                         "timeline/evil-campaign/index.html", "compare/index.html")]
    for page in pages:
        soup = soup_of(out, page)
        art = content(soup)
        assert art.find_all(["script", "iframe", "img", "style"]) == [], page
        for el in soup.find_all(True):
            assert not any(k.lower().startswith("on") for k in el.attrs), page
            for k in ("href", "src"):
                assert not str(el.get(k, "")).strip().lower().startswith(("javascript:", "data:")), page
    assert SCRIPT in content(soup_of(out, pages[0])).get_text(" ")
    data = json.loads((out / "compare" / "attempts.json").read_text(encoding="utf-8"))
    assert SCRIPT in data["attempts"]["2026-01-01-evil-attempt"]["title"]  # data, set with textContent by kb.js
