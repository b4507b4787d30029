"""The site after `kb import`: drafts are marked as drafts, every field shows where it came from,
and nothing redacted reaches the published HTML. Also the Upgrade paths page."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from conftest import CAMPAIGN_RECORDS, ROOT

from kb.cli import cli
from kb.site.build import build_site

SAMPLES = ROOT.parent / "shared" / "samples"
LOGS = ROOT / "tests" / "fixtures" / "logs"


@pytest.fixture(scope="module")
def imported_site(tmp_path_factory) -> Path:
    import shutil

    tmp = tmp_path_factory.mktemp("imported")
    records = tmp / "records"
    shutil.copytree(CAMPAIGN_RECORDS, records)
    res = CliRunner().invoke(cli, ["--records", str(records), "import", str(LOGS / "claude-campaign.jsonl")])
    assert res.exit_code == 0, res.stderr
    return build_site(records, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp / "site"), strict=True)


def page(site: Path, rel: str) -> BeautifulSoup:
    return BeautifulSoup((site / rel / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_a_draft_page_says_it_is_a_draft_and_cites_each_field(imported_site):
    soup = page(imported_site, "attempts/2026-02-26-try-torch-symmetric-memory-allreduce")
    article = soup.select_one("article")
    assert article.select_one(".admonition.warning .admonition-title").get_text(strip=True) == "Draft"
    sources = [li.get_text(" ", strip=True) for li in article.find(id="sources").find_next("ul").find_all("li")]
    error_source = [s for s in sources if s.startswith("error")]
    assert error_source and "claude-campaign.jsonl" in error_source[0] and "line 9" in error_source[0]
    assert "KeyError: 12" in error_source[0]
    assert all("sha256 112eaa35f9b4" in s for s in sources if "claude-campaign.jsonl" in s)


def test_nothing_redacted_reaches_the_published_site(imported_site):
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in imported_site.rglob("*")
                     if p.is_file() and p.suffix in (".html", ".json", ".xml"))
    for secret in ("hf_Qm7rT2xVb9LpW4nZ8cK1dY6sA3fJ0gHeUo", "10.20.30.40", "/home/alex", "alex.moreau", "example.org"):
        assert secret not in text, secret


def test_reviewed_pages_carry_no_draft_warning(imported_site):
    soup = page(imported_site, "attempts/2026-02-23-torch-symm-mem")
    assert soup.select(".admonition.warning") == []


def test_upgrade_paths_page_says_what_each_version_resolves(tmp_path):
    site = build_site(CAMPAIGN_RECORDS, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    soup = page(site, "upgrades")
    sections = {h2.get_text(strip=True).rstrip("¶"): h2 for h2 in soup.select("article h2")}
    cuda128 = next(h for title, h in sections.items() if title.startswith("CUDA 12.8 stack"))
    rows = {tr.find("td").get_text(strip=True): [td.get_text(" ", strip=True) for td in tr.find_all("td")]
            for tr in cuda128.find_next("table").select("tbody tr")}
    assert set(rows) == {"cuda=13.0"}
    change, now, resolves, disables, introduces, retry, still = rows["cuda=13.0"]
    assert (now, resolves, disables, introduces, retry, still) == ("12.8.1", "4", "—", "—", "1", "3")
    # the change's own section names them: what it resolves, what is worth retrying
    section = soup.find(id="upgrades-cuda-12.8-1")
    assert section.get_text(strip=True).startswith("cuda=13.0 (now 12.8.1)")
    lists = {li.find("strong").get_text(strip=True): [x.get_text(" ", strip=True) for x in li.select("li")]
             for li in section.find_next_sibling("ul").find_all("li", recursive=False)}
    assert "SM120 not supported by the CUDA 12.8 software stack" in lists["Resolves:"]
    assert len(lists["Resolves:"]) == 4 and set(lists) == {"Resolves:", "Worth retrying:"}
    # EAGLE-3 was re-run on cuda-13.0 already (2026-02-27): only torch symmetric memory is left to retry
    assert lists["Worth retrying:"] == ["Torch symmetric-memory allreduce"]
    cuda13 = next(h for title, h in sections.items() if title.startswith("CUDA 13 stack"))
    # 13.0 is not an upgrade from 13.0.1: nothing to offer there
    assert "No single-component upgrade" in cuda13.find_next("p").find_next("p").get_text()


def test_dashboard_counts_drafts_apart(imported_site):
    soup = page(imported_site, "")
    table = soup.find(id="top-root-causes").find_next("table")
    first = [td.get_text(" ", strip=True) for td in table.select("tbody tr")[0].find_all("td")]
    assert first == ["SM120 not supported by the CUDA 12.8 software stack", "3 (+1 draft) in all; 0 now"]
    ep = [[td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in table.select("tbody tr")
          if "Expert parallelism" in tr.get_text()]
    assert ep == [["Expert parallelism with the FlashInfer A2A backend exhausts GPU memory", "1 in all; 1 now"]]


DRAFT_TITLES = {"Baseline throughput, cuda-graph-max-bs 128", "Try torch symmetric memory allreduce",
                "EAGLE-3 throughput on CUDA 13"}


def test_drafts_are_listed_apart_from_the_reviewed_attempts(imported_site):
    drafts = page(imported_site, "drafts")
    rows = [[td.get_text(" ", strip=True) for td in tr.find_all("td")]
            for tr in drafts.select("article table tbody tr")]
    assert rows == [
        ["EAGLE-3 throughput on CUDA 13", "▲ improved", "96.10 tok/s", "2026-02-27", "claude-campaign.jsonl line 17", "0.90"],
        ["Try torch symmetric memory allreduce", "✖ failed", "—", "2026-02-26", "claude-campaign.jsonl line 8", "0.85"],
        ["Baseline throughput, cuda-graph-max-bs 128", "◆ baseline", "89.52 tok/s", "2026-02-26",
         "claude-campaign.jsonl line 10", "0.90"]]
    assert drafts.select_one("article table a")["href"] == "../attempts/2026-02-27-eagle-3-throughput-on-cuda-13/"

    index = page(imported_site, "attempts")
    listed = {tr.find("td").get_text(strip=True) for tr in index.select("article table tbody tr")}
    assert len(listed) == 9 and not listed & DRAFT_TITLES
    intro = index.select_one("article p").get_text(" ", strip=True)
    assert intro == "Everything tried, newest first. 3 drafts await review, not counted here: Drafts ( kb review walks them)."
    assert index.select_one("article p a")["href"] == "../drafts/"

    home = page(imported_site, "")
    outcomes = {tr.find_all("td")[0].get_text(" ", strip=True): tr.find_all("td")[1].get_text(strip=True)
                for tr in home.find(id="attempts-by-outcome").find_next("table").select("tbody tr")}
    assert outcomes == {"◆ baseline": "1", "▲ improved": "2", "▼ regressed": "2", "✖ failed": "4"}
    chart = home.select_one(".kb-chart-box").get_text(" ", strip=True)
    assert "EAGLE-3 speculative decoding on the CUDA 13 stack" in chart and not any(t in chart for t in DRAFT_TITLES)
    heading = home.find(id="all-9-attempts")
    table = heading.find_next("table")
    assert not {tr.find("td").get_text(strip=True) for tr in table.select("tbody tr")} & DRAFT_TITLES
    assert table.find_next("p").get_text(" ", strip=True).startswith("3 drafts await review, not counted here: Drafts")
