"""kb.site: build the site (``mkdocs build --strict``) and read the HTML a user gets.

The campaign site is built once per module from records/ with the repository's mkdocs.yml; the
untrusted site from a records tree whose every text field holds HTML, script or Markdown tricks
(``UNTRUSTED_RECORDS``, also used by the browser tests).
"""

from __future__ import annotations

import itertools
import json
import math
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup
from conftest import CAMPAIGN_RECORDS

from kb.errors import InvalidRecords
from kb.site.build import build_site
from kb.site.charts import nice_ticks

ROOT = Path(__file__).resolve().parent.parent
RECORDS = CAMPAIGN_RECORDS
ADR = "decisions/2026-02-26-upgrade-to-cuda-13/index.html"
SM120 = "blockers/sm120-unsupported-by-cuda-12.8-stack/index.html"
SYMM = "attempts/2026-02-23-torch-symm-mem/index.html"

# --------------------------------------------------------------------------- untrusted records

EVIL = "http://evil.example"
SCRIPT = "<script>window.__pwned=1</script>"
IMG = "<img src=x onerror=window.__pwned=1>"
JS_LINK = "[click](javascript:window.__pwned=1)"
MD_IMG = f"![]({EVIL}/x.png)"
RAW_HTML = f'<div onclick="window.__pwned=1"><iframe src="{EVIL}/frame"></iframe></div>'
ATTR = "{: onclick=window.__pwned=1 }"
TITLE_BREAK = "</title></textarea><script>window.__pwned=1</script> &lt;img src=x onerror=window.__pwned=1&gt;"
ALL = f"{SCRIPT} {IMG} {JS_LINK} {MD_IMG} {ATTR} <a href=javascript:alert(1)>a</a> {TITLE_BREAK}"
NOTES = f"""# heading {SCRIPT}

{RAW_HTML}

{SCRIPT}

Text with {IMG} and {JS_LINK} and {MD_IMG} and <svg onload=window.__pwned=1></svg>

[ref link][r] {ATTR}
{{: onclick="window.__pwned=1" }}

[r]: javascript:window.__pwned=1

<style>body {{ background: url({EVIL}/bg.png) }}</style>
"""


def _t(name: str) -> str:
    return f"{name} {ALL}"


UNTRUSTED_RECORDS: dict[str, Any] = {
    "platforms/evil-gpu.yaml": {
        "title": _t("Platform"), "gpu": _t("GPU"), "gpu_count": 2, "compute_capability": "12.0",
        "interconnect": _t("PCIe"), "host": _t("host"), "notes": NOTES, "tags": [SCRIPT, IMG],
    },
    "stacks/evil-stack.yaml": {
        "title": _t("Stack"), "components": {"cuda": "12.8", "torch": {"version": "2.10", "source": _t("src")}},
        "notes": NOTES,
    },
    "campaigns/evil-campaign.yaml": {
        "title": _t("Campaign"), "model": _t("model"), "platform": "evil-gpu", "stack": "evil-stack",
        "metric": {"name": "output_throughput", "unit": "tok/s"}, "baseline": "10 tok/s",
        "target": {"value": 20, "unit": "tok/s", "note": _t("target note")}, "goal": NOTES, "notes": NOTES,
    },
    "attempts/2026-01-01-evil-attempt.yaml": {
        "title": _t("Attempt"), "date": "2026-01-01", "campaign": "evil-campaign", "approach": _t("approach"),
        "hypothesis": _t("hypothesis"), "platform": "evil-gpu", "stack": "evil-stack",
        "components": {"flashinfer": {"version": "0.6", "source": _t("wheel")}},
        "config": {"command": f"python -m x '{SCRIPT}'", "env": {"X": IMG}},
        "outcome": "failed", "error": f"Traceback\n{SCRIPT}\n```\n{RAW_HTML}\n````\nKeyError: {IMG}",
        "blocked_by": ["evil-blocker"], "notes": NOTES, "tags": [SCRIPT, JS_LINK, "a{: onclick=x }"],
        "source": [{"file": _t("file"), "locator": _t("line"), "quote": _t("quote")},
                   {"url": f"javascript:window.__pwned=1 {SCRIPT}"}],
        "status": "draft",
    },
    "attempts/2026-01-02-evil-measured.yaml": {
        "title": _t("Measured"), "date": "2026-01-02", "campaign": "evil-campaign", "approach": NOTES,
        "outcome": "improved", "baseline": "2026-01-01-evil-attempt",
        "metrics": {"output_throughput": {"value": 12.5, "unit": "tok/s", "note": _t("metric note")}},
        "blocked_by": ["evil-root"],
    },
    "blockers/evil-blocker.yaml": {
        "title": _t("Blocker"), "caused_by": ["evil-root"], "signatures": [SCRIPT, IMG, "/<script>.*/"],
        "workaround": _t("workaround"), "description": NOTES, "notes": NOTES,
        "upstream": ["https://github.com/o/r/issues/1?q=\"><script>window.__pwned=1</script>"],
    },
    "blockers/evil-root.yaml": {
        "title": _t("Root"), "fixed_by": [{"cuda": ">=13.0"}], "workaround": _t("workaround"),
        "applies_when": {"interconnect": _t("PCIe")}, "description": NOTES,
    },
    "decisions/2026-01-03-evil-decision.yaml": {
        "title": _t("Decision"), "status": "accepted", "date": "2026-01-03", "deciders": [SCRIPT, IMG],
        "campaign": "evil-campaign", "context": NOTES, "decision_drivers": [_t("driver")],
        "considered_options": [
            {"title": _t("Option A"), "description": _t("desc"), "pros": [_t("pro")], "cons": [_t("con")],
             "evidence": ["2026-01-01-evil-attempt", "2026-01-02-evil-measured"]},
            {"title": _t("Option B")},
        ],
        "outcome": {"chosen": _t("Option A"), "rationale": NOTES},
        "plan": [_t("step")], "consequences": {"good": [_t("good")], "bad": [_t("bad")], "neutral": [_t("n")]},
        "resolves": ["evil-root"], "notes": NOTES,
        "stack_change": {"from": "evil-stack", "components": {"cuda": {"version": "13.0", "source": _t("s")}}},
    },
}


def build_untrusted(write_tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Build the untrusted records with kb's built-in configuration (no mkdocs.yml); the site folder."""
    records = write_tree(UNTRUSTED_RECORDS)
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml here: kb's default config
    return build_site(records, site_dir=str(tmp_path / "site"), strict=True)


def build_campaign(site_dir: Path) -> Path:
    """Build the campaign's records with the repository's mkdocs.yml, strictly; the site folder."""
    return build_site(RECORDS, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(site_dir), strict=True)


# --------------------------------------------------------------------------- fixtures and helpers


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The campaign site, built with ``strict=True`` (any MkDocs warning fails the build)."""
    return build_campaign(tmp_path_factory.mktemp("campaign") / "site")


def soup_of(site: Path, page: str) -> BeautifulSoup:
    return BeautifulSoup((site / page).read_text(encoding="utf-8"), "html.parser")


def content(soup: BeautifulSoup) -> Any:
    """The page's article (Material's ``.md-content``), without navigation and header."""
    return soup.select_one("article.md-content__inner")


def resolve(page: str, href: str) -> str:
    """The site-relative file a relative ``href`` on ``page`` points to (``.../index.html``)."""
    path = urlsplit(href).path
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    if href.endswith("/") or path == "" or not posixpath.splitext(target)[1]:
        target = posixpath.join(target, "index.html")
    return target.lstrip("./") if target.startswith("./") else target


def html_pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))


# --------------------------------------------------------------------------- the campaign site


def test_campaign_site_builds_strict_with_every_record_page(site: Path) -> None:
    for kind in ("attempts", "blockers", "decisions", "stacks", "platforms", "campaigns"):
        for record in (RECORDS / kind).glob("*.yaml"):
            assert (site / kind / record.stem / "index.html").is_file(), record
    assert (site / "search" / "search_index.json").is_file()


def test_adr_page_status_options_evidence_and_figures(site: Path) -> None:
    soup = soup_of(site, ADR)
    art = content(soup)
    assert art.h1.get_text(strip=True).startswith("Upgrade the software stack to CUDA 13")
    assert art.h1["id"] == "adr-2026-02-26-upgrade-to-cuda-13"
    meta = art.find("table")
    headers = [th.get_text(strip=True) for th in meta.find_all("th")]
    cells = [td.get_text(strip=True) for td in meta.find_all("td")]
    assert cells[headers.index("Status")] == "accepted"

    considered = art.find(id="considered-options").find_next("ol")
    options = [li.get_text(" ", strip=True) for li in considered.find_all("li", recursive=False)]
    assert len(options) == 7
    assert options[-1] == "Upgrade the software stack to CUDA 13 (chosen)"

    evidence = [a["href"] for table in art.find_all("table")
                if [th.get_text(strip=True) for th in table.find_all("th")][:1] == ["Attempt"]
                for a in table.select("td a")]
    assert evidence, "no evidence table"
    for href in evidence:
        target = resolve(ADR, href)
        assert target.startswith("attempts/") and (site / target).is_file(), href
    cited = {resolve(ADR, h).split("/")[1] for h in evidence}
    assert {"2026-02-23-torch-symm-mem", "2026-02-27-eagle3-cuda13"} <= cited

    text = art.get_text(" ", strip=True)
    assert "54.1" in text and "96.1" in text


def test_root_causes_rank_by_the_attempts_blocked_over_the_history(site: Path) -> None:
    art = content(soup_of(site, "blockers/index.html"))
    # each row: rank, the root cause's title (its fix under it), attempts blocked, blocking now
    rows = [[td.get_text(" ", strip=True) if i != 1 else td.find("a").get_text(" ", strip=True)
             for i, td in enumerate(tr.find_all("td"))] for tr in art.find("table").find("tbody").find_all("tr")]
    # SM120 blocked 3 attempts, though the campaign's current stack (cuda-13.0) resolves it: 0 now
    assert rows[0][:4] == ["1", "SM120 not supported by the CUDA 12.8 software stack", "3", "0"]
    assert rows[1][:4] == ["2", "Expert parallelism with the FlashInfer A2A backend exhausts GPU memory", "1", "1"]
    fix = art.find("table").find("tbody").find("tr").select_one("span.kb-note.kb-fix").get_text(" ", strip=True)
    assert fix.startswith("fixed by cuda>=13.0 (credited, not verified:")
    assert fix.endswith("changed with cuda in Upgrade the software stack to CUDA 13 )")  # the decision by its title
    link = art.find("table").find("tbody").find_all("tr")[0].find("a")
    assert resolve("blockers/index.html", link["href"]) == SM120


def test_nav_lists_sections_not_records(site: Path) -> None:
    nav = soup_of(site, SYMM).select_one("nav.md-nav--primary")
    links = [a["href"] for a in nav.select("a.md-nav__link[href]")]
    targets = {resolve(SYMM, h) for h in links}
    assert len(links) <= 12
    assert "attempts/index.html" in targets and "blockers/index.html" in targets
    assert not any(re.match(r"(attempts|blockers|decisions)/[^/]+/index\.html$", t)
                   and not t.endswith("s/index.html") for t in targets), targets


def test_attempt_page_answers_in_one_summary(site: Path) -> None:
    art = content(soup_of(site, SYMM))
    box = art.select_one("div.admonition.failure")
    assert box is not None, "the summary admonition is missing"
    text = box.get_text(" ", strip=True)
    for expected in ("Failed", "Tried:", "Replace NCCL", "Stack:", "CUDA 12.8", "Error:", "KeyError: 12",
                     "Why it failed:", "SM120 not supported", "(root cause)", "What would fix it:", "cuda>=13.0"):
        assert expected in text, expected
    # the summary comes before every section of the page
    assert box.find_previous("h2") is None

    improved = content(soup_of(site, "attempts/2026-02-27-eagle3-cuda13/index.html"))
    box = improved.select_one("div.admonition.success")
    assert "96.1 tok/s" in box.get_text(" ", strip=True)


def test_no_table_has_an_empty_header(site: Path) -> None:
    for page in html_pages(site):
        art = content(soup_of(site, page))
        if art is None:
            continue
        for thead in art.select("table thead"):
            assert any(th.get_text(strip=True) for th in thead.find_all("th")), page


def test_pages_load_nothing_from_other_hosts(site: Path) -> None:
    for page in html_pages(site):
        soup = soup_of(site, page)
        for tag, attr in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
                          ("source", "src"), ("video", "src"), ("audio", "src")):
            for el in soup.find_all(tag):
                url = el.get(attr)
                if url and (tag != "link" or set(el.get("rel", [])) & {"stylesheet", "preload", "icon",
                                                                       "modulepreload", "prefetch"}):
                    assert not urlsplit(url).scheme and not url.startswith("//"), f"{page}: {tag} {url}"
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?(https?:)?//", css.read_text(encoding="utf-8")), css
    assert "fonts.googleapis" not in (site / "index.html").read_text(encoding="utf-8")


def test_search_index_holds_the_error_text(site: Path) -> None:
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    hits = [d["location"] for d in index["docs"] if "KeyError: 12" in d["title"] + d["text"]]
    assert any(h.startswith("attempts/2026-02-23-torch-symm-mem/") for h in hits), hits


def test_root_cause_page_has_the_diagram(site: Path) -> None:
    art = content(soup_of(site, SM120))
    svg = art.select_one("svg.kb-diagram")
    assert svg is not None and svg.get("role") == "group" and svg.get("aria-label") and svg.find("title") is not None
    nodes = svg.select("g.kb-node")
    assert any("Torch symmetric-memory allreduce" in n.get_text() for n in nodes)
    for a in svg.find_all("a"):
        assert (site / resolve(SM120, a["href"])).is_file(), a["href"]


# --------------------------------------------------------------------------- charts


def _chart(site: Path, page: str = "index.html") -> Any:
    svg = content(soup_of(site, page)).select_one("svg.kb-chart")
    assert svg is not None
    return svg


def test_chart_has_a_point_per_attempt_baseline_and_failed_markers(site: Path) -> None:
    attempts = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in (RECORDS / "attempts").glob("*.yaml")]
    measured = [a for a in attempts if "output_throughput" in a.get("metrics", {})]
    failed_without = [a for a in attempts if a["outcome"] == "failed" and "output_throughput" not in a.get("metrics", {})]
    for page in ("index.html", "campaigns/kimi-k25-eagle3-blackwell/index.html"):
        svg = _chart(site, page)
        assert svg.get("role") == "group" and svg.get("aria-label") and svg.find("title").get_text().startswith("Output throughput")
        points = svg.select("g.kb-point")
        assert len(points) == len(measured) + len(failed_without)
        assert len(svg.select("g.kb-point circle")) == len(measured)
        assert len(svg.select("g.kb-failed")) == len(failed_without) == 4
        assert len(svg.select("g.kb-failed path")) == len(failed_without)  # crosses, not dots
        assert svg.select_one("line.kb-baseline") is not None
        assert svg.select_one("line.kb-target") is None  # the campaign sets no target
        assert all(p.find("title") for p in points)
        assert all(a.get("aria-label") for a in svg.find_all("a"))
        labels = [p.find("title").get_text() for p in points]
        assert any(t.startswith("EAGLE-3 speculative decoding on the CUDA 13 stack: 96.1 tok/s") for t in labels)
        for a in svg.find_all("a"):
            assert (site / resolve(page, a["href"])).is_file(), a["href"]


def test_chart_ticks_are_nice_and_points_inside_the_plot(site: Path) -> None:
    svg = _chart(site)
    ticks = [float(t.get_text()) for t in svg.select("text.kb-tick")]
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1
    step = steps.pop()
    assert step / 10 ** math.floor(math.log10(step)) in (1, 2, 2.5, 5)
    grid = [float(line["y1"]) for line in svg.select("line.kb-grid")]
    top, bottom = min(grid), max(grid)
    x0, x1 = float(svg.select_one("line.kb-grid")["x1"]), float(svg.select_one("line.kb-grid")["x2"])
    for c in svg.select("g.kb-point circle"):
        assert top + 5 <= float(c["cy"]) <= bottom - 5
        assert x0 + 5 <= float(c["cx"]) <= x1 - 5
    assert svg.select("g.kb-point circle")
    width = float(svg["viewbox"].split()[2])
    dates = svg.select("text.kb-date")
    assert dates[-1].get_text() == "2026-02-27"
    assert float(dates[-1]["x"]) + 40 <= width  # the last label is not clipped


def test_chart_draws_a_target_when_the_campaign_has_one(campaign_copy: Path, tmp_path: Path) -> None:
    camp = campaign_copy / "campaigns" / "kimi-k25-eagle3-blackwell.yaml"
    camp.write_text(camp.read_text(encoding="utf-8") + "target: 100 tok/s\n", encoding="utf-8")
    out = build_site(campaign_copy, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "s"), strict=True)
    svg = _chart(out)
    assert svg.select_one("line.kb-target") is not None
    assert "target 100" in svg.get_text()


@pytest.mark.parametrize(("lo", "hi"), [(33.5, 99.9), (0, 1), (0.0012, 0.0019), (1000, 1234), (-3, 7), (5, 5)])
def test_nice_ticks_cover_the_range(lo: float, hi: float) -> None:
    ticks = nice_ticks(lo, hi)
    assert ticks[0] <= lo and ticks[-1] >= hi and 4 <= len(ticks) <= 8


# --------------------------------------------------------------------------- failures


def test_invalid_record_fails_the_build_with_file_and_line(campaign_copy: Path, tmp_path: Path) -> None:
    bad = campaign_copy / "attempts" / "2026-02-23-nccl-tree.yaml"
    bad.write_text(bad.read_text(encoding="utf-8") + "outcom: failed\n", encoding="utf-8")
    line = len(bad.read_text(encoding="utf-8").splitlines())
    with pytest.raises(InvalidRecords) as exc:
        build_site(campaign_copy, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "s"))
    shown = [str(p) for p in exc.value.problems]
    assert any(re.search(rf"(^|/)attempts/2026-02-23-nccl-tree.yaml:{line}: outcom: unknown key", s) and "outcom" in s for s in shown), shown
    assert not (tmp_path / "s" / "index.html").exists()


def test_plain_mkdocs_build_reports_the_invalid_record(campaign_copy: Path, tmp_path: Path) -> None:
    """``mkdocs build`` (the plugin, without kb build in front) aborts with file:line too."""
    bad = campaign_copy / "blockers" / "pcie-bus-contention.yaml"
    bad.write_text(bad.read_text(encoding="utf-8") + "status: maybe\n", encoding="utf-8")
    cfg = tmp_path / "mkdocs.yml"
    (tmp_path / "docs").mkdir()
    cfg.write_text(yaml.safe_dump({"site_name": "t", "theme": {"name": "material", "font": False},
                                   "plugins": ["search", {"kb": {"records": str(campaign_copy)}}]}), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(cfg), "-d",
                          str(tmp_path / "s")], check=False, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert re.search(r"blockers/pcie-bus-contention\.yaml:\d+: status", run.stderr), run.stderr


# --------------------------------------------------------------------------- untrusted text


def test_untrusted_text_renders_as_text(write_tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = build_untrusted(write_tree, tmp_path, monkeypatch)
    pages = [p for p in html_pages(out) if p.split("/")[0] in
             {"attempts", "blockers", "decisions", "stacks", "platforms", "campaigns"} or p in ("index.html", "tags/index.html")]
    assert len(pages) >= 14
    for page in pages:
        raw = (out / page).read_text(encoding="utf-8")
        soup = BeautifulSoup(raw, "html.parser")
        art = content(soup)
        # no live markup carries a payload anywhere in the file (<title> and <head> included)
        assert not any("__pwned" in (sc.string or "") or "evil" in sc.get("src", "") for sc in soup.find_all("script")), page
        assert "</title><script" not in raw.replace("</title></textarea><script", ""), page
        assert art.find_all(["script", "iframe", "style", "object", "embed"]) == [], page
        assert art.find_all("img") == [], page
        assert "evil.example" not in " ".join(str(x.get("src", "")) for x in soup.find_all(True)), page
        for el in soup.find_all(True):
            for k, v in el.attrs.items():
                assert not k.lower().startswith("on"), f"{page}: <{el.name} {k}={v}>"
                if k in ("href", "src", "xlink:href", "action", "formaction"):
                    assert not str(v).strip().lower().startswith(("javascript:", "vbscript:", "data:")), f"{page}: {k}={v}"
        # the payloads are still there, as text a reader can see
        if page.startswith("attempts/2026-01-01"):
            text = art.get_text(" ")
            assert SCRIPT in text and "onerror=window.__pwned=1" in text and "javascript:window.__pwned=1" in text


@pytest.mark.parametrize("status, finding", [
    ("proposed", "status is proposed, so its resolves ( SM120 not supported by the CUDA 12.8 software stack ) resolve nothing"),
    ("rejected", "status is rejected, so its resolves ( SM120 not supported by the CUDA 12.8 software stack ) resolve nothing"),
])
def test_an_adr_names_its_record_checks_by_title_under_its_decision_outcome(campaign_copy: Path, tmp_path: Path,
                                                                          status: str, finding: str) -> None:
    """A record check about an ADR (``kb check``'s finding, which names records by id) is one
    warning box after the Context, under Decision Outcome, each record a link shown by its title;
    the summary at the top says it is there."""
    adr = campaign_copy / "decisions" / "2026-02-26-upgrade-to-cuda-13.yaml"
    adr.write_text(adr.read_text(encoding="utf-8").replace("status: accepted", f"status: {status}", 1), encoding="utf-8")
    site = build_site(campaign_copy, config_file=str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
    art = content(soup_of(site, ADR))
    summary = art.select_one("div.admonition").get_text(" ", strip=True)
    assert "Record check: 1 contradiction or unfinished field: see Decision Outcome below" in summary
    [box] = [d for d in art.select("div.admonition.warning")
             if d.find(class_="admonition-title").get_text(strip=True) == "Contradiction or unfinished record"]
    assert box.find_previous("h2").get_text(strip=True).startswith("Decision Outcome")
    [item] = [li.get_text(" ", strip=True) for li in box.find_all("li")]
    assert item.startswith(finding)
    assert "sm120-unsupported-by-cuda-12.8-stack" not in box.get_text()
    link = box.find("a")
    assert resolve(ADR, link["href"]) == SM120
