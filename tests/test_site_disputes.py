"""The site shows a dispute wherever it says a blocker is fixed: the Root causes table and the
blocker's own page, for the live campaign (records/, which uses the blackwell catalog) and for the
campaign written blind for `kb roots` (tests/test_roots_blind.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from test_roots_blind import FILES, ROOT_CUDA, TOOLCHAIN

from kb.site.build import build_site

ROOT = Path(__file__).resolve().parent.parent


def article(site: Path, page: str):
    return BeautifulSoup((site / page).read_text(encoding="utf-8"), "html.parser").select_one("article.md-content__inner")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(ROOT / "records", config_file=str(ROOT / "mkdocs.yml"),
                      site_dir=str(tmp_path_factory.mktemp("live") / "site"), strict=True)


def test_the_root_causes_table_names_the_dispute_in_titles(live):
    art = article(live, "blockers/index.html")
    head = [th.get_text(strip=True) for th in art.find("table").find("thead").find_all("th")]
    assert head[1] == "Root cause, its fix and what disputes it"
    # the dispute sits under the root cause's title, in its cell
    rows = {tr.find_all("td")[1].find("a").get_text(" ", strip=True):
            " ".join(n.get_text(" ", strip=True) for n in tr.find_all("td")[1].select("span.kb-disputed"))
            for tr in art.find("table").find("tbody").find_all("tr")}
    assert rows["SM120 not supported by the CUDA 12.8 software stack"].startswith(
        "Disputed: An architecture allow-list or capability-keyed table leaves out 12.x (catalog blackwell) "
        "still stands on cuda-13.0")
    assert "says fixed by cuda>=13.0" in rows["An architecture allow-list or capability-keyed table leaves out 12.x (catalog blackwell)"]
    assert "met no attempt here" in art.get_text(" ", strip=True)


def test_a_blocker_page_names_the_catalog_record_that_still_stands(live):
    art = article(live, "blockers/flashinfer-allreduce-fusion-jit-no-sm120/index.html")
    boxes = [d.get_text(" ", strip=True) for d in art.select("div.admonition.warning") if "Disputed" in d.get_text()]
    assert any("FlashInfer TRT-LLM allreduce fusion refuses to build on SM12x" in b and "still stands on cuda-13.0" in b
               and "flashinfer>=0.6.17" in b for b in boxes), boxes


def test_the_blind_campaign_shows_its_dispute_on_the_root_page(tmp_path, write_tree):
    root = write_tree(FILES)
    site = build_site(root, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
    art = article(site, f"blockers/{ROOT_CUDA}/index.html")
    boxes = [d.get_text(" ", strip=True) for d in art.select("div.admonition.warning") if "Disputed" in d.get_text()]
    assert any(f"({TOOLCHAIN})" in b and "still stands on" in b for b in boxes), boxes


def test_the_home_dashboard_names_the_dispute_beside_its_root(live):
    art = article(live, "index.html")
    table = art.find(id="top-root-causes").find_next("table")
    head = [th.get_text(strip=True) for th in table.find("thead").find_all("th")]
    assert head == ["Root cause", "Attempts blocked", "Disputed"]
    rows = {tr.find_all("td")[0].get_text(" ", strip=True): tr.find_all("td")[-1].get_text(" ", strip=True)
            for tr in table.find("tbody").find_all("tr")}
    assert rows["SM120 not supported by the CUDA 12.8 software stack"] == (
        "An architecture allow-list or capability-keyed table leaves out 12.x (catalog blackwell) still stands on cuda-13.0")


def test_each_relative_figure_names_what_it_is_relative_to(live):
    home = article(live, "index.html").get_text(" ", strip=True)
    assert "best 96.1 tok/s (+17.2 % vs the campaign baseline" in home
    run = article(live, "attempts/2026-02-27-eagle3-cuda13/index.html").get_text(" ", strip=True)
    assert "+7.4 % vs 89.5 tok/s" in run  # against the attempt it names as its baseline, linked beside it


def test_the_search_index_holds_only_the_catalog_blockers_the_campaign_met(live):
    import json

    from kb.pipeline import load
    from kb.queries.bearing import bearing_records, met_catalog_blockers

    kg = load(ROOT / "records").graph
    catalog = kg.records.catalog_of
    met = met_catalog_blockers(kg)
    published = {b for b in bearing_records(kg) if b in catalog and kg.get(b).kind == "blocker"}
    assert met == published  # a catalog blocker gets a campaign page only when met (or disputing)
    assert {"flashinfer-allreduce-fusion-sm12x-gate", "sglang-symm-mem-size-table-keyerror-12",
            "arch-allowlist-omits-sm12x"} <= met
    docs = json.loads((live / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    located = {d["location"].split("/")[1] for d in docs if d["location"].startswith("blockers/")}
    assert not (set(catalog) - met) & located
    assert met <= located


def test_the_dashboard_has_a_next_panel_with_the_first_steps(live):
    art = article(live, "index.html")
    items = [li.get_text(" ", strip=True) for li in art.find(id="next").find_next("ol").find_all("li")]
    assert len(items) == 3
    assert items[0].startswith("Verify the credit of 2026-02-26-upgrade-to-cuda-13")
    assert items[1].startswith("Retry 2026-02-23-torch-symm-mem on cuda-13.0")
    assert "the catalog predicts it still fails" in items[1]
    assert items[2].startswith("Measure a baseline on cuda-13.0")


def test_the_upgrade_paths_page_names_the_disputes_of_what_an_upgrade_resolves(live):
    art = article(live, "upgrades/index.html")
    rows = {tr.find_all("td")[0].get_text(strip=True): tr.find_all("td")[2].get_text(" ", strip=True)
            for tr in art.find("table").find("tbody").find_all("tr")}
    assert rows["cuda=13.0"] == "4 (disputed: 2)"
    # the row links its change's section, which names the blockers and holds the disputes
    link = art.find("table").find("tbody").find("a", string=None, href="#upgrades-cuda-12.8-2")
    assert link is not None and link.get_text(strip=True) == "cuda=13.0"
    section = art.find(id="upgrades-cuda-12.8-2")
    assert section.get_text(" ", strip=True).startswith("cuda=13.0 (now 12.8.1)")
    [box] = [d for d in section.find_next_siblings("div", class_="warning", limit=1)]
    assert box.find(class_="admonition-title").get_text(strip=True) == "Disputed by a catalog"
    items = [li.get_text(" ", strip=True) for li in box.find_all("li")]
    assert len(items) == 2
    assert items[0].startswith("FlashInfer allreduce-fusion JIT finds no supported architecture on SM120 "
                               "is resolved here (its causes are resolved), but catalog blackwell's FlashInfer TRT-LLM "
                               "allreduce fusion refuses to build on SM12x")
    assert items[0].endswith("still stands: needs flashinfer>=0.6.17")
    assert "Torch symmetric memory has no size table entry for compute capability 12" in items[1]
    # a requirement on a cause names the cause by its title, not its id
    assert items[1].endswith("still stands: needs cause An architecture allow-list or capability-keyed table leaves out "
                             "12.x (catalog blackwell) (no known fix)")
    assert "arch-allowlist-omits-sm12x" not in section.parent.get_text()


def test_the_upgrade_paths_page_counts_only_the_blockers_met_here(live):
    text = article(live, "upgrades/index.html").get_text(" ", strip=True)
    import re

    m = re.search(r"(\d+) blockers? stands? on this stack \(on the platform of campaign kimi-k25-eagle3-blackwell\), "
                  r"and (\d+) catalog blockers that no attempt met", text)
    assert m, text[:600]
    assert int(m.group(1)) < 15 < int(m.group(2))


def test_an_attempt_page_names_both_baselines_with_the_numbers_the_other_pages_use(live):
    art = article(live, "attempts/2026-02-27-eagle3-cuda13/index.html")
    text = art.get_text(" ", strip=True)
    assert "+7.4 % vs 89.5 tok/s ( Lower --cuda-graph-max-bs from 512 to 128 ); +17.2 % vs the campaign baseline (82 tok/s)" in text
    home = article(live, "index.html").get_text(" ", strip=True)
    assert "+17.2 % vs the campaign baseline" in home


def test_the_catalogs_page_lists_every_catalog_record_with_its_audit(live):
    import datetime as dt

    import yaml

    art = article(live, "catalogs/index.html")
    rows = art.find("table").find("tbody").find_all("tr")
    files = sorted((ROOT / "kb" / "catalogs" / "blackwell" / "blockers").glob("*.yaml"))
    assert len(rows) == len(files)
    met = [tr for tr in rows if tr.find_all("td")[-1].get_text(strip=True) == "yes"]
    assert {tr.find_all("td")[0].get_text(" ", strip=True) for tr in met} >= {
        "An architecture allow-list or capability-keyed table leaves out 12.x (catalog blackwell)",
        "FlashInfer TRT-LLM allreduce fusion refuses to build on SM12x (catalog blackwell)"}
    dates = {tr.find_all("td")[3].get_text(strip=True)[:10] for tr in rows}
    assert dates == {yaml.safe_load(f.read_text())["checked"].isoformat() for f in files}
    assert all(dt.date.fromisoformat(d) for d in dates)


def test_a_catalog_blocker_no_attempt_met_gets_no_campaign_page_but_a_catalog_row(live):
    assert not (live / "blockers" / "bitsandbytes-no-cuda128-binary").exists()
    roots = article(live, "blockers/index.html").get_text(" ", strip=True)
    assert "bitsandbytes" not in roots
    assert "bitsandbytes releases before 0.45.3" in article(live, "catalogs/index.html").get_text(" ", strip=True)


def test_the_adr_page_shows_each_dispute_of_what_it_resolves_in_titles(live):
    art = article(live, "decisions/2026-02-26-upgrade-to-cuda-13/index.html")
    text = art.get_text(" ", strip=True)
    assert ("Resolves: SM120 not supported by the CUDA 12.8 software stack (disputed by a catalog: see Decision "
            "Outcome below)") in text
    [box] = [d for d in art.select("div.admonition.warning")
             if d.find(class_="admonition-title").get_text(strip=True) == "Disputed by a catalog"]
    # one box, in the Decision Outcome's Resolves, after the Context: the page opens with its summary
    assert box.find_previous("h3").get("id") == "resolves"
    assert box.find_previous("h2").get_text(strip=True).startswith("Decision Outcome")
    items = sorted(li.get_text(" ", strip=True) for li in box.find_all("li"))
    assert len(items) == 2
    assert items[0] == ("FlashInfer allreduce-fusion JIT finds no supported architecture on SM120 is resolved here, but "
                        "FlashInfer TRT-LLM allreduce fusion refuses to build on SM12x (catalog blackwell) (same error "
                        "signature) still stands on CUDA 13 stack (toolkit 13.0.1, torch 2.11 nightly cu130) : needs "
                        "flashinfer>=0.6.17")
    assert items[1].startswith("Torch symmetric memory has no size table entry for compute capability 12 is resolved here")
    assert items[1].endswith("needs cause An architecture allow-list or capability-keyed table leaves out 12.x (catalog "
                             "blackwell) (no known fix)")
    # records by title, never by id
    for rid in ("cuda-13.0", "flashinfer-allreduce-fusion-sm12x-gate", "arch-allowlist-omits-sm12x"):
        assert rid not in box.get_text(" ")
    # the same dispute is not repeated as a raw warning with ids
    assert not any("credits the stack change with fixing" in d.get_text() for d in art.select("div.admonition"))


def test_check_warnings_end_with_the_command_that_explains_them(tmp_path):
    import shutil

    from click.testing import CliRunner

    from kb.cli import cli

    shutil.copytree(ROOT / "records", tmp_path / "records")
    out = CliRunner().invoke(cli, ["--records", str(tmp_path / "records"), "check"]).output
    warnings = [line for line in out.splitlines() if ": warning: " in line]
    assert len(warnings) == 3
    ends = sorted(w.rsplit("[explained by: ", 1)[1] for w in warnings)
    here = f"kb --records {tmp_path / 'records'} "  # the command reads the folder that was checked
    assert ends == [f"{here}unblocks --from cuda-12.8 --to cuda-13.0]"] * 2 + [f"{here}why 2026-02-27-eagle3-cuda13]"], warnings
