"""kb hands MkDocs HTML for its own pages (kb.site.tohtml) and its own search entries (kb.site.search).

The converter must give what MkDocs' Markdown (admonition, tables, toc with permalinks, attr_list,
fenced_code) gives for every page kb writes: the same heading ids, table of contents, text, element
structure and links. The built site must keep Material's markup (admonitions, headerlinks, the
sidebar TOC), links as URLs, and a search index where an attempt is two compact entries.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import markdown
import pytest
from bs4 import BeautifulSoup
from conftest import CAMPAIGN_RECORDS
from mkdocs.utils import meta
from test_site import SYMM, UNTRUSTED_RECORDS, build_campaign, build_untrusted, content, soup_of

from kb.pipeline import load_graph
from kb.site.pages import render_site
from kb.site.tohtml import TocOptions, first_title, render_page

PYMD_EXTENSIONS = ["admonition", "tables", "toc", "attr_list", "fenced_code"]


def _python_markdown(text: str) -> tuple[str, list[dict[str, Any]]]:
    md = markdown.Markdown(extensions=PYMD_EXTENSIONS, extension_configs={"toc": {"permalink": True}})
    return md.convert(text), md.toc_tokens  # type: ignore[attr-defined]


def _shape(html: str) -> dict[str, Any]:
    """What a reader and Material see of a page: heading ids, element sequence with classes,
    link targets, visible text."""
    soup = BeautifulSoup(html, "html.parser")
    return {
        "ids": [h.get("id") for h in soup.find_all(re.compile(r"^h[1-6]$"))],
        "tags": [(t.name, tuple(t.get("class") or ())) for t in soup.find_all(True)],
        # markdown-it percent-encodes what Python-Markdown leaves as written (both are inert)
        "hrefs": [unquote(a.get("href")) for a in soup.find_all("a")],
        "text": " ".join(soup.get_text(" ").split()),
    }


def _toc(tokens: list[dict[str, Any]]) -> list[Any]:
    """Nested (level, id, name, children); names compared as the text they show (Python-Markdown
    keeps kb's character references, ``&#45;``, where the converter writes the characters)."""
    return [(t["level"], t["id"], html.unescape(t["name"]), _toc(t["children"])) for t in tokens]


def _pages(records: Path) -> dict[str, str]:
    return render_site(load_graph(records))


@pytest.fixture(scope="module")
def untrusted_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import yaml

    root = tmp_path_factory.mktemp("untrusted-md") / "records"
    for rel, data in UNTRUSTED_RECORDS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return root


# --------------------------------------------------------------------------- the converter


@pytest.mark.parametrize("which", ["campaign", "untrusted"])
def test_every_kb_page_converts_as_python_markdown_does(which: str, untrusted_records: Path) -> None:
    pages = _pages(CAMPAIGN_RECORDS if which == "campaign" else untrusted_records)
    assert len(pages) >= (40 if which == "campaign" else 14)
    for src, text in pages.items():
        body, _meta = meta.get_data(text)
        expected_html, expected_toc = _python_markdown(body)
        got = render_page(body, toc=TocOptions(permalink=True))
        assert got is not None, f"{src}: kb's converter refused a page kb wrote"
        assert _shape(got.html) == _shape(expected_html), src
        assert _toc(got.toc) == _toc(expected_toc), src


def test_heading_ids_follow_toc_and_attr_list() -> None:
    page = render_page("# Title\n\n## Setup\n\n## Setup\n\n## Error: KeyError&#58; 12 { #error }\n\n## Error\n",
                       toc=TocOptions(permalink=True))
    assert page is not None
    soup = BeautifulSoup(page.html, "html.parser")
    assert [h["id"] for h in soup.find_all(["h1", "h2"])] == ["title", "setup", "setup_1", "error", "error_1"]
    error = soup.find(id="error")
    assert error.get_text() == "Error: KeyError: 12¶"
    link = error.find("a", class_="headerlink")
    assert link["href"] == "#error" and link["title"] == "Permanent link"
    assert [(t["id"], [c["id"] for c in t["children"]]) for t in page.toc] == \
        [("title", ["setup", "setup_1", "error", "error_1"])]
    assert page.title == "Title"
    assert page.ids == {"title", "setup", "setup_1", "error", "error_1"}


def test_admonition_markup_is_materials() -> None:
    page = render_page('!!! failure "Failed: 3 tok/s"\n\n    - **Tried:** x\n    - **Error:** <code>E</code>\n\n'
                       '!!! note\n    body\n\nafter\n')
    assert page is not None
    soup = BeautifulSoup(page.html, "html.parser")
    boxes = soup.select("div.admonition")
    assert [b["class"] for b in boxes] == [["admonition", "failure"], ["admonition", "note"]]
    assert boxes[0].select_one("p.admonition-title").get_text() == "Failed: 3 tok/s"
    assert [li.get_text() for li in boxes[0].select("ul > li")] == ["Tried: x", "Error: E"]
    assert boxes[1].select_one("p.admonition-title").get_text() == "Note"
    assert soup.find_all("p")[-1].get_text() == "after" and soup.find_all("p")[-1].parent.name == "[document]"


def test_raw_html_blocks_pass_through_and_links_are_resolved() -> None:
    seen: list[str] = []

    def link(url: str) -> str:
        seen.append(url)
        return "RESOLVED/" + url

    text = ('<div class="kb-md">\n<p>a</p>\n\n<pre><code>## not a heading\n\n[x](y.md)</code></pre>\n</div>\n\n'
            "See [the blocker](../blockers/b.md#fix) and ``` inline.\n\n```text\n<script>x</script>\n```\n")
    page = render_page(text, link=link)
    assert page is not None
    assert '<pre><code>## not a heading\n\n[x](y.md)</code></pre>' in page.html  # left as kb wrote it
    assert seen == ["../blockers/b.md#fix"]
    assert '<a href="RESOLVED/../blockers/b.md#fix">the blocker</a>' in page.html
    assert "&lt;script&gt;x&lt;/script&gt;" in page.html and "<script>" not in page.html
    assert page.toc == []


@pytest.mark.parametrize("text", ["# T\n\n```text\nnever closed\n", "# T\n\n<div>\nnever closed\n",
                                  "# T\n\nsome text\n<div>inside a paragraph</div>\n", "!!!nonsense here!\n"])
def test_markdown_outside_kbs_dialect_is_left_to_mkdocs(text: str) -> None:
    assert render_page(text) is None


def test_first_title_is_the_h1_text() -> None:
    assert first_title("\n# Torch symmetric&#45;memory { #x }\n\ntext") == "Torch symmetric-memory"
    assert first_title("# A &#60;b&#62; c\n") == "A &lt;b&gt; c"
    assert first_title("## Not a title\n") is None


# --------------------------------------------------------------------------- the built site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_campaign(tmp_path_factory.mktemp("html-site") / "site")


def test_attempt_page_keeps_materials_markup_toc_and_urls(site: Path) -> None:
    soup = soup_of(site, SYMM)
    art = content(soup)
    h1 = art.find("h1")
    assert h1["id"] == "torch-symmetric-memory-allreduce"
    assert h1.get_text().removesuffix("¶") == "Torch symmetric-memory allreduce"
    assert art.select_one("div.admonition.failure > p.admonition-title").get_text() == "Failed"
    assert art.select_one("h2#error > a.headerlink")["href"] == "#error"
    toc = [(a.get_text(strip=True), a["href"]) for a in soup.select("nav.md-nav--secondary a.md-nav__link")]
    assert toc == [("Setup", "#setup"), ("Error: KeyError: 12", "#error"),
                   ("Cited as evidence by", "#cited-as-evidence-by"), ("Sources", "#sources")]
    hrefs = [a["href"] for a in art.find_all("a")]
    assert "../../blockers/sm120-unsupported-by-cuda-12.8-stack/" in hrefs
    assert not [h for h in hrefs if ".md" in h], "a link to a Markdown source was left unresolved"
    assert soup.title.get_text().startswith("Torch symmetric-memory allreduce")


def test_search_index_has_compact_attempt_entries(site: Path) -> None:
    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    mine = [d for d in docs if d["location"].startswith("attempts/2026-02-23-torch-symm-mem/")]
    assert [(d["location"], d["title"]) for d in mine] == [
        ("attempts/2026-02-23-torch-symm-mem/", "Torch symmetric-memory allreduce · KeyError: 12"),
    ]
    page = mine[0]
    assert page["text"] == (
        "<p>Replace NCCL's allreduce with torch symmetric memory for small messages.</p>"
        # no outcome word, no versions (its stack's are in the stack's entry); not --tp 8, which
        # every attempt of the campaign runs with (the campaign's entry has it)
        "<p><code>--cuda-graph-max-bs 128 --speculative-algorithm EAGLE3 --enable-torch-symm-mem</code></p>"
        "<p>allreduce</p>")  # the one-line error is in the title; no campaign ("Kimi"); no "Tags:" label
    baseline = next(d for d in docs if d["location"] == "attempts/2026-02-19-baseline-tp8/")
    assert "82.0" not in baseline["text"] and "tok/s" not in baseline["text"]  # its figure: not searched for
    attempts = {p.stem for p in (CAMPAIGN_RECORDS / "attempts").glob("*.yaml")}
    pages = [d for d in docs if re.fullmatch(r"attempts/[^/#]+/", d["location"])]
    assert sorted(d["location"].split("/")[1] for d in pages) == sorted(attempts)  # each once
    assert not [d for d in docs if re.match(r"compare/[^/#]+/", d["location"])]  # pair pages are out
    blocker = [d for d in docs if d["location"].startswith("blockers/torch-symm-mem-no-capability-12/")]
    assert [(d["location"], d["title"]) for d in blocker] == [
        ("blockers/torch-symm-mem-no-capability-12/", "Torch symmetric memory has no size table entry for compute capability 12")]
    for expected in ("Status: fixed", "Caused by SM120 not supported by the CUDA 12.8 software stack",
                     "<pre><code>KeyError: 12</code></pre>", "Workaround: Leave --enable-torch-symm-mem off"):
        assert expected in blocker[0]["text"], expected


def test_an_attempt_entry_holds_only_the_versions_it_sets_itself() -> None:
    """An attempt's entry names the versions where it differs from its stack, not the stack's own
    (the stack's entry has them, and its page lists its attempts)."""
    from kb.models import Component
    from kb.site.search import attempt_entries

    kg = load_graph(CAMPAIGN_RECORDS)
    a = kg.get("2026-02-23-torch-symm-mem")
    assert attempt_entries(kg, a, "x/", None)[0]["text"].startswith("<p>Replace NCCL's allreduce")
    assert "failed" not in attempt_entries(kg, a, "x/", None)[0]["text"]  # the outcome word is left out
    patched = a.model_copy(update={"components": {"flashinfer": Component(version="0.6.17"), "nccl": Component()}})
    assert "<p>flashinfer 0.6.17</p>" in attempt_entries(kg, patched, "x/", None)[0]["text"]


def test_an_attempt_entry_leaves_what_its_whole_campaign_runs_with_to_the_campaign() -> None:
    """How an attempt ran is split into parts (an environment variable, a flag with its value, a
    program word); the parts every attempt of its campaign has go to the campaign's entry, the
    rest stay in the attempt's, each once."""
    from kb.models import Config
    from kb.site.search import attempt_entries, campaign_entries, command_parts, shared_parts

    kg = load_graph(CAMPAIGN_RECORDS)
    a = kg.get("2026-02-23-nccl-tree")
    assert command_parts(a) == ["NCCL_ALGO=Tree", "--tp 8", "--cuda-graph-max-bs 128", "--speculative-algorithm EAGLE3"]
    cmd = a.model_copy(update={"config": Config(
        command="/usr/bin/python3 -m sglang.launch_server --tp 8 --disable-radix-cache --port=30000 --tp 8",
        flags=["--ignored 1"], env={"NCCL_DEBUG": "INFO"})})
    assert command_parts(cmd) == ["NCCL_DEBUG=INFO", "/usr/bin/python3", "-m sglang.launch_server", "--tp 8",
                                  "--disable-radix-cache", "--port=30000"]  # the command, not the flags
    # --tp 8 is in all nine attempts; --cuda-graph-max-bs 128 not in the baseline's (512)
    assert shared_parts(kg) == {"kimi-k25-eagle3-blackwell": ["--tp 8"]}
    text = attempt_entries(kg, a, "x/", "incompatible with CUDA graphs", frozenset({"--tp 8"}))[0]["text"]
    assert "<p><code>NCCL_ALGO=Tree --cuda-graph-max-bs 128 --speculative-algorithm EAGLE3</code></p>" in text
    alone = attempt_entries(kg, a, "x/", None)[0]["text"]  # nothing shared given: every part
    assert "<code>NCCL_ALGO=Tree --tp 8 --cuda-graph-max-bs 128 --speculative-algorithm EAGLE3</code>" in alone
    c = kg.get("kimi-k25-eagle3-blackwell")
    plain = campaign_entries(kg, c, "c/")[0]
    assert "Every attempt" not in plain["text"] and plain["title"] == c.title
    entry = campaign_entries(kg, c, "c/", ["--tp 8", "NCCL_X=1"])[0]
    assert "<p>Every attempt runs with <code>--tp 8 NCCL_X=1</code></p>" in entry["text"]
    assert entry["title"] == f"{c.title} · every attempt: --tp 8 NCCL_X=1"
    many = [f"--flag-{i} {i}" for i in range(40)]  # the title keeps 160 characters of them, the text all
    entry = campaign_entries(kg, c, "c/", many)[0]
    assert entry["title"].endswith("…") and len(entry["title"]) == len(c.title) + len(" · every attempt: ") + 160
    assert "--flag-39 39</code>" in entry["text"]


def test_shared_flags_stay_in_the_attempts_when_their_campaign_has_no_entry() -> None:
    """What every attempt of a campaign runs with leaves their entries only for the campaign's
    entry: where the campaign has no page (``url_of`` gives ``None``), the attempts keep it."""
    from kb.models import Attempt, Campaign
    from kb.site.search import search_entries

    kg = load_graph(CAMPAIGN_RECORDS)

    def texts(url_of):
        docs = search_entries(kg, url_of, lambda a: None)
        return {d["location"]: d["text"] for d in docs}

    with_campaign = texts(lambda r: f"{r.id}/" if isinstance(r, (Attempt, Campaign)) else None)
    without = texts(lambda r: f"{r.id}/" if isinstance(r, Attempt) else None)
    assert "<code>NCCL_ALGO=Tree --cuda-graph-max-bs 128 --speculative-algorithm EAGLE3</code>" in with_campaign["2026-02-23-nccl-tree/"]
    assert "--tp 8" not in with_campaign["2026-02-23-nccl-tree/"]
    assert "Every attempt runs with <code>--tp 8</code>" in with_campaign["kimi-k25-eagle3-blackwell/"]
    assert "<code>NCCL_ALGO=Tree --tp 8 --cuda-graph-max-bs 128 --speculative-algorithm EAGLE3</code>" in without["2026-02-23-nccl-tree/"]
    assert len(without) == 9 and all("--tp 8" in t for t in without.values())


def test_search_index_has_one_entry_per_record_page(site: Path) -> None:
    """Attempt, blocker, campaign, stack and decision pages have one kb entry each (Material's
    plugin made one per section, tables and chart text included). 20 of the test site's 69 entries
    are kb's: 9 attempts, 7 blockers, 1 decision, 2 stacks, 1 campaign (the home dashboard's Next
    panel, the Catalogs page and the upgrade paths' one section per change are among Material's
    entries)."""
    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    assert len(docs) == 69
    assert [d["title"] for d in docs if d["location"].startswith("upgrades/#upgrades-")] == ["cuda=13.0 (now 12.8.1)"]
    records = [d["location"] for d in docs if re.match(r"(attempts|blockers|decisions|stacks|campaigns)/[^#]+", d["location"])]
    assert len(records) == 20
    assert [r for r in records if "#" in r] == []
    assert [d["title"] for d in docs if " · " in d["title"]] == [
        "Expert parallelism with the FlashInfer A2A backend · assertion error, then CUDA out of memory",
        "FlashInfer allreduce fusion · RuntimeError: No supported CUDA architectures found for major versions [9, 10]",
        "NCCL Tree algorithm · incompatible with CUDA graphs", "Torch symmetric-memory allreduce · KeyError: 12",
        # the campaign's title is followed by what all its attempts run with
        "Kimi-K2.5 INT4 with EAGLE-3 on 8× RTX PRO 6000 Blackwell · every attempt: --tp 8"]
    by = {d["location"]: d for d in docs}
    decision = by["decisions/2026-02-26-upgrade-to-cuda-13/"]
    assert decision["title"] == "Upgrade the software stack to CUDA 13"
    for expected in ("<p>Status: accepted · 2026-02-26</p>", "EAGLE-3 speculation ran at 54.1 tok/s",
                     "Chosen option: Upgrade the software stack to CUDA 13", "Also considered: Install DeepEP; Install MSCCL++",
                     "Drivers: Make EAGLE-3 speculation faster than the 89.5 tok/s baseline."):
        assert expected in decision["text"], expected
    assert by["stacks/cuda-12.8/"]["text"] == (
        "<p>cuda 12.8.1, cuda-driver 13.1, driver 590.48.01, flashinfer 0.6.4, torch 2.10.0+cu128, "
        "vllm 0.16.0rc2.dev344</p><p>cuda-12.8</p>")
    assert by["stacks/cuda-13.0/"]["text"].startswith("<p>Based on CUDA 12.8 stack (toolkit 12.8.1, torch 2.10 cu128)</p>")
    campaign = by["campaigns/kimi-k25-eagle3-blackwell/"]
    assert "Model: Kimi-K2.5 INT4" in campaign["text"] and "Status: " in campaign["text"]
    # the flag all nine attempts run with is in the campaign's entry, not in theirs
    assert "<p>Every attempt runs with <code>--tp 8</code></p>" in campaign["text"]
    assert not [d["location"] for d in docs if d["location"].startswith("attempts/") and "--tp 8" in d["text"]]
    # the chart's SVG text (its title, axis labels, point labels) is on the home page but not in the index
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "per attempt over time" in home and "data-search-exclude" in home
    assert not [d["location"] for d in docs if "per attempt over time" in d["text"]]
    # nor the attempt tables of the campaign and stack pages
    assert not [d["location"] for d in docs if "Torch symmetric-memory allreduce" in d["text"] and "/" in d["location"]
                and d["location"].split("/")[0] in ("campaigns", "stacks", "decisions")]


def test_untrusted_text_stays_text_in_search_entries(write_tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = build_untrusted(write_tree, tmp_path, monkeypatch)
    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    mine = [d for d in docs if d["location"].startswith("attempts/2026-01-01-evil-attempt/")]
    assert len(mine) == 1
    for d in mine:
        assert "<script" not in d["title"] + d["text"] and "<img" not in d["title"] + d["text"]
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in mine[0]["title"]
    # the error's headline (in the title) and its other lines (in the text) stay text too
    assert mine[0]["title"].endswith(" · KeyError: &lt;img src=x onerror=window.__pwned=1&gt;")
    assert "<pre><code>Traceback\n&lt;script&gt;window.__pwned=1&lt;/script&gt;\n" in mine[0]["text"]
