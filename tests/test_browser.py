"""The site as a user opens it: Debian's chromium, driven by Playwright, on a site served locally.

The campaign site and a site built from hostile records are each served from 127.0.0.1 on a free
port. Every request the browser makes is recorded (and any to another host is aborted, then
reported as a failure), every JavaScript dialog fails the test, and screenshots land in
``test-artifacts/screenshots/``.

Playwright never downloads a browser here: it launches ``/usr/bin/chromium`` (``apt-get install
chromium``). Without it the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
import yaml
from test_site import (  # noqa: F401
    ADR,
    SM120,
    SYMM,
    UNTRUSTED_RECORDS,
    build_campaign,
    build_untrusted,
)

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "test-artifacts" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
IN_CI = os.environ.get("CI", "").lower() == "true"


def _no_browser(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: the browser tests must run; install it with 'apt-get install chromium')")
    pytest.skip(f"{reason}; install it with 'apt-get install chromium' to run the browser tests")


# --------------------------------------------------------------------------- serving


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No access log: keep the test output readable."""


class Server:
    """A static file server for ``root`` on 127.0.0.1 and a free port, in a daemon thread."""

    def __init__(self, root: Path) -> None:
        handler = functools.partial(_Quiet, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def campaign_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The campaign site (repository mkdocs.yml, strict build), served locally."""
    server = Server(build_campaign(tmp_path_factory.mktemp("campaign-site") / "site"))
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site ``kb build`` makes from the repository's own records/ (with the catalogs the
    campaign uses), served locally: what a user of this repository reads."""
    from kb.site.build import build_site

    site = build_site(ROOT / "records", config_file=str(ROOT / "mkdocs.yml"),
                      site_dir=str(tmp_path_factory.mktemp("live-site") / "site"), strict=True)
    server = Server(site)
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def untrusted_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site built from :data:`test_site.UNTRUSTED_RECORDS`, served locally."""
    tmp = tmp_path_factory.mktemp("untrusted")

    def write_tree(files: dict[str, Any]) -> Path:
        root = tmp / "records"
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return root

    with pytest.MonkeyPatch.context() as mp:
        site = build_untrusted(write_tree, tmp, mp)
    server = Server(site)
    yield server.url
    server.close()


# --------------------------------------------------------------------------- the browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium, launched by Playwright (never a downloaded browser)."""
    if not CHROMIUM.exists():
        _no_browser(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


REQUESTS: list[str] = []
"""Every URL the browser requested during this module (pages, assets, the search worker's)."""


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (1280×900) whose requests are recorded; a request to any host other than
    127.0.0.1 is aborted and fails the test, and so does any JavaScript dialog."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    context.set_default_timeout(15_000)
    outside: list[str] = []
    dialogs: list[str] = []

    def on_request(request: Any) -> None:
        REQUESTS.append(request.url)

    def route(route: Any) -> None:
        host = urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.on("request", on_request)
    context.route("**/*", route)
    p = context.new_page()
    p.on("dialog", lambda d: (dialogs.append(f"{d.type}: {d.message}"), d.dismiss()))
    yield p
    context.close()
    assert not outside, f"requests left 127.0.0.1: {outside}"
    assert not dialogs, f"a script opened dialogs: {dialogs}"


def _shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.screenshot(path=str(SHOTS / f"{name}-first-screen.png"))
    return path


# --------------------------------------------------------------------------- the campaign site


def test_search_for_an_error_reaches_the_attempt(page: Any, campaign_url: str) -> None:
    page.goto(campaign_url)
    box = page.locator("input.md-search__input")
    box.click()  # Material's search box in the header (the desktop layout shows it)
    box.type("KeyError: 12", delay=20)
    first = page.locator("li.md-search-result__item > a").first
    first.wait_for(state="visible")
    page.wait_for_timeout(500)  # the results of the last keystroke
    # the attempt carrying exactly this error ranks first (not every page with 12.8 in it)
    result = page.locator("li.md-search-result__item > a").first
    assert "attempts/2026-02-23-torch-symm-mem/" in result.get_attribute("href")
    result.click()
    page.wait_for_url(re.compile(r"/attempts/2026-02-23-torch-symm-mem/"))
    assert page.locator("article h1").first.inner_text().removesuffix("¶") == "Torch symmetric-memory allreduce"
    assert "KeyError: 12" in page.locator("article .admonition.failure").inner_text()
    assert any(u.endswith("search/search_index.json") for u in REQUESTS), "search did not load its index locally"


def _results(page: Any, query: str) -> list[str]:
    """Type ``query`` into Material's search box; the result links (``href``s, articles and their
    sections in the order shown) once the results of the last keystroke are in."""
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("")
    box.type(query, delay=20)
    page.locator("li.md-search-result__item > a").first.wait_for(state="visible")
    page.wait_for_timeout(500)
    return [a.get_attribute("href") for a in page.locator("li.md-search-result__item a").all()]


@pytest.mark.parametrize(("query", "first", "also"), [
    # a decision by its title and by an option it weighed (its text)
    ("Upgrade the software stack", "decisions/2026-02-26-upgrade-to-cuda-13/", []),
    ("Install DeepEP", "decisions/2026-02-26-upgrade-to-cuda-13/", []),
    # an attempt by its error (ranked first), its blocker by the error signature
    ("CUDA out of memory", "attempts/2026-02-23-ep-flashinfer-a2a/", ["blockers/ep-a2a-gpu-memory-exhausted/"]),
    ("No supported CUDA architectures", "attempts/2026-02-23-flashinfer-allreduce-fusion/",
     ["blockers/flashinfer-allreduce-fusion-jit-no-sm120/"]),
    # an attempt by a flag, by an environment variable, by its approach
    ("enable-flashinfer-allreduce-fusion", "attempts/2026-02-23-flashinfer-allreduce-fusion/", []),
    ("NCCL_ALGO Tree", "blockers/nccl-tree-incompatible-with-cuda-graphs/", ["attempts/2026-02-23-nccl-tree/"]),
    ("trained drafter", "attempts/2026-02-21-eagle3-speculation/", []),
    # a flag every attempt of the campaign runs with: the campaign (its page lists the attempts)
    ("--tp 8", "campaigns/kimi-k25-eagle3-blackwell/", []),
    # a stack by a version (its page lists the attempts run on it)
    ("torch 2.11.0", "stacks/cuda-13.0/", []),
])
def test_search_finds_records_by_what_people_search_for(page: Any, campaign_url: str, query: str, first: str,
                                                         also: list[str]) -> None:
    page.goto(campaign_url)
    hrefs = _results(page, query)
    assert first in hrefs[0], hrefs
    for want in also:
        assert any(want in h for h in hrefs), (want, hrefs)


@pytest.mark.parametrize(("query", "first"), [
    ("KeyError: 12", "attempts/2026-02-23-torch-symm-mem/"),
    ("No supported CUDA architectures found for major versions [9, 10]", "attempts/2026-02-23-flashinfer-allreduce-fusion/"),
    ("assertion error and OOM", "attempts/2026-02-23-ep-flashinfer-a2a/"),
])
def test_on_the_live_site_an_exact_error_finds_the_attempt_that_raised_it_first(page: Any, live_url: str, query: str,
                                                                                   first: str) -> None:
    """On the site built from records/ (catalogs included), a search for an error an attempt raised
    ranks that attempt first, ahead of catalog records that no attempt met."""
    page.goto(live_url)
    hrefs = _results(page, query)
    assert first in hrefs[0], hrefs


def test_root_cause_page_shows_the_diagram(page: Any, campaign_url: str) -> None:
    response = page.goto(campaign_url + SM120.removesuffix("index.html"))
    assert response.status == 200
    svg = page.locator("article svg.kb-diagram")
    svg.wait_for(state="visible")
    box = svg.bounding_box()
    assert box["width"] > 400 and box["height"] > 100
    assert svg.locator("g.kb-node").count() >= 5
    assert svg.locator("g.kb-root, g.kb-node rect[stroke-width='2.5']").count() >= 1
    node = svg.locator("a", has=page.locator("title", has_text="Torch symmetric-memory allreduce")).first
    with page.expect_navigation() as nav:
        node.click()
    assert nav.value.status == 200 and "/attempts/2026-02-23-torch-symm-mem/" in page.url


def test_adr_page_status_options_and_working_evidence_links(page: Any, campaign_url: str) -> None:
    adr_url = campaign_url + ADR.removesuffix("index.html")
    page.goto(adr_url)
    article = page.locator("article")
    assert article.locator("table").first.locator("td").first.inner_text() == "accepted"
    options = page.locator("#considered-options + ol > li")
    assert options.count() == 7
    evidence = article.locator("table:has(th:text-is('Attempt')) td a")
    n = evidence.count()
    assert n >= 7
    for i in range(n):
        link = page.locator("article table:has(th:text-is('Attempt')) td a").nth(i)
        link.scroll_into_view_if_needed()
        with page.expect_navigation() as nav:
            link.click()
        assert nav.value.status == 200, page.url
        assert "/attempts/" in page.url
        page.goto(adr_url)
    text = article.inner_text()
    assert "54.1" in text and "96.1" in text


@pytest.mark.parametrize("site", ["campaign_url", "live_url"])
def test_every_internal_link_answers(page: Any, site: str, request: pytest.FixtureRequest) -> None:
    """Crawl from the home page through every <a href> (SVG links included) and every asset, on
    the fixture site and on the site built from the repository's own records/."""
    campaign_url = request.getfixturevalue(site)
    seen: set[str] = set()
    todo = deque([campaign_url])
    broken: list[str] = []
    pages = 0
    while todo:
        url = todo.popleft()
        if url in seen:
            continue
        seen.add(url)
        path = urlsplit(url).path
        if path.endswith(("/", ".html")):
            response = page.goto(url)
            pages += 1
            if response is None or response.status >= 400:
                broken.append(f"{url}: {response and response.status}")
                continue
            found = page.evaluate("""() => [
                ...[...document.querySelectorAll('a')].map(a => a.getAttribute('href')
                    || a.getAttribute('xlink:href')).filter(Boolean)
                    .map(h => new URL(h, document.baseURI).href),
                ...[...document.querySelectorAll('link[href]')].map(l => l.href),
                ...[...document.querySelectorAll('script[src], img[src]')].map(e => e.src),
            ]""")
            for link in found:
                link = urldefrag(link).url
                if link.startswith(campaign_url) and link not in seen:
                    todo.append(link)
        else:
            response = page.request.get(url)
            if response.status >= 400:
                broken.append(f"{url}: {response.status}")
    assert not broken, broken
    assert pages >= 30


def test_screenshots_of_dashboard_attempt_and_adr(page: Any, campaign_url: str) -> None:
    for name, path in (("dashboard", ""), ("attempt", SYMM), ("adr", ADR),
                       ("attempt-improved", "attempts/2026-02-27-eagle3-cuda13/"),
                       ("root-cause", SM120)):
        page.goto(campaign_url + path.removesuffix("index.html"))
        page.wait_for_load_state("networkidle")
        shot = _shot(page, name)
        assert shot.stat().st_size > 10_000
    # the attempt's one-screen answer fits in the first screen
    page.goto(campaign_url + SYMM.removesuffix("index.html"))
    box = page.locator("article .admonition.failure").bounding_box()
    assert box["y"] + box["height"] <= 900
    # the chart is in the dashboard's first screen and fully inside the content column
    page.goto(campaign_url)
    chart = page.locator("article svg.kb-chart").first.bounding_box()
    column = page.locator("article").bounding_box()
    assert chart["x"] >= column["x"] and chart["x"] + chart["width"] <= column["x"] + column["width"] + 1


def test_no_request_left_localhost() -> None:
    """Over the whole module (pages, assets, fonts, search worker): nothing but 127.0.0.1."""
    if not REQUESTS:
        (pytest.fail if IN_CI else pytest.skip)("no browser test ran")
    outside = [u for u in REQUESTS if not u.startswith(("http://127.0.0.1:", "data:", "blob:"))]
    assert not outside, outside


# --------------------------------------------------------------------------- untrusted text


UNTRUSTED_PAGES = ["", "attempts/2026-01-01-evil-attempt/", "attempts/2026-01-02-evil-measured/",
                   "blockers/evil-blocker/", "blockers/evil-root/", "blockers/", "decisions/2026-01-03-evil-decision/",
                   "decisions/", "stacks/evil-stack/", "platforms/evil-gpu/", "campaigns/evil-campaign/",
                   "tags/", "upgrades/", "attempts/"]

_LIVE = """() => {
  const bad = [];
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.attributes) {
      const v = a.value.trim().toLowerCase();
      if (a.name.startsWith('on')) bad.push(`${e.tagName} ${a.name}`);
      if (['href', 'src', 'xlink:href', 'action'].includes(a.name) && /^(javascript|vbscript|data):/.test(v))
        bad.push(`${e.tagName} ${a.name}=${v}`);
    }
  }
  for (const s of document.querySelectorAll('script')) if (s.textContent.includes('__pwned')) bad.push('script');
  for (const e of document.querySelectorAll('article img, article iframe, article object, article embed, article style'))
    bad.push(e.tagName);
  return bad;
}"""


def test_untrusted_text_runs_no_script(page: Any, untrusted_url: str) -> None:
    for path in UNTRUSTED_PAGES:
        response = page.goto(untrusted_url + path)
        assert response.status == 200, path  # goto waits for "load": images have failed by then
        assert page.evaluate("typeof window.__pwned") == "undefined", path
        assert page.evaluate(_LIVE) == [], path
        # click every link and point the mouse at the text, as a reader would
        for el in page.locator("article h1, article .admonition li, article td").all()[:20]:
            el.hover()
        assert page.evaluate("typeof window.__pwned") == "undefined", path
    page.goto(untrusted_url + "attempts/2026-01-01-evil-attempt/")
    title = page.title()
    assert "<script>window.__pwned=1</script>" in title  # shown as text in the tab, not run
    text = page.locator("article").inner_text()
    assert "<script>window.__pwned=1</script>" in text and "javascript:window.__pwned=1" in text
    _shot(page, "untrusted-attempt")


def test_untrusted_text_is_inert_in_search_results(page: Any, untrusted_url: str) -> None:
    page.goto(untrusted_url)
    box = page.locator("input.md-search__input")
    box.click()
    box.type("Attempt", delay=20)
    page.locator("li.md-search-result__item").first.wait_for(state="visible")
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate(_LIVE) == []
    assert page.locator(".md-search-result img, .md-search-result script").count() == 0


def test_untrusted_links_do_not_run_script(page: Any, untrusted_url: str) -> None:
    """Click every link in the attempt's article: each goes to a page of the site or nowhere."""
    page.goto(untrusted_url + "attempts/2026-01-01-evil-attempt/")
    hrefs = page.evaluate("() => [...document.querySelectorAll('article a[href]')].map(a => a.getAttribute('href'))")
    assert hrefs
    for href in hrefs:
        assert not href.strip().lower().startswith(("javascript:", "data:", "vbscript:")), href


def test_on_the_live_site_the_catalogs_page_lists_every_record_and_sorts(page: Any, live_url: str) -> None:
    files = sorted((ROOT / "kb" / "catalogs" / "blackwell" / "blockers").glob("*.yaml"))
    response = page.goto(live_url + "catalogs/")
    assert response is not None and response.status == 200
    table = page.locator("article table").first
    rows = table.locator("tbody tr")
    assert rows.count() == len(files)
    met = [rows.nth(i) for i in range(rows.count()) if rows.nth(i).locator("td").last.inner_text().strip() == "yes"]
    assert 1 <= len(met) < len(files)
    for row in met:  # a record met here has a page of its own on the site, and it answers
        href = row.locator("td a").first.get_attribute("href")
        assert href and not href.startswith("http"), href
        assert page.request.get(urljoin(page.url, href)).status == 200
    header = table.locator("th", has_text="Record")
    titles = sorted(rows.nth(i).locator("td").first.inner_text().strip().lower() for i in range(rows.count()))
    header.click()  # tablesort sorts the column, then the other way round
    one = rows.first.locator("td").first.inner_text().strip().lower()
    header.click()
    other = rows.first.locator("td").first.inner_text().strip().lower()
    assert {one, other} == {titles[0], titles[-1]}, (one, other)


def test_on_the_live_site_the_upgrade_paths_show_their_disputes(page: Any, live_url: str) -> None:
    page.goto(live_url + "upgrades/")
    box = page.locator("article div.admonition.warning", has_text="Disputed by a catalog").first
    box.wait_for(state="visible")
    items = box.locator("li")
    assert items.count() >= 1
    for i in range(items.count()):
        for link in items.nth(i).locator("a").all():
            href = link.get_attribute("href")
            if href and not href.startswith("http"):
                assert page.request.get(urljoin(page.url, href)).status == 200, href


# --------------------------------------------------------------------------- layout on real widths


LAYOUT_SIZES = {"laptop": (1366, 900), "phone": (390, 844)}
LAYOUT_PAGES = {"upgrades": "upgrades/", "root-causes": "blockers/", "adr": ADR.removesuffix("index.html")}

_TABLES = """() => {
  const lines = (el) => {  // an element's lines: its height over its line height
    const cs = getComputedStyle(el);
    const lh = parseFloat(cs.lineHeight) || parseFloat(cs.fontSize) * 1.2;
    return Math.round(el.getBoundingClientRect().height / lh);
  };
  const out = {clipped: [], overflowing: [], scrolling: [], titles: [], rank: []};
  for (const table of document.querySelectorAll('article table')) {
    const name = table.querySelector('th').textContent.trim();
    for (const th of table.querySelectorAll('thead th'))
      if (th.scrollWidth > th.clientWidth + 1) out.clipped.push(`${name}: ${th.textContent.trim()}`);
    const wrap = table.closest('.md-typeset__scrollwrap');
    const box = wrap || table.parentElement;
    if (table.getBoundingClientRect().width > box.clientWidth + 1) {
      out.scrolling.push(name);
      if (!wrap || !['auto', 'scroll'].includes(getComputedStyle(wrap).overflowX)) out.overflowing.push(name);
    }
    for (const a of table.querySelectorAll('tbody td a'))
      out.titles.push([a.textContent.trim(), lines(a)]);
    const first = table.querySelector('thead th');
    if (/right/.test(first.getAttribute('style') || ''))
      out.rank.push([name, first.getBoundingClientRect().width / box.clientWidth]);
  }
  for (const a of document.querySelectorAll('article li a')) out.titles.push([a.textContent.trim(), lines(a)]);
  return out;
}"""


def _sized(browser: Any, size: str) -> tuple[Any, Any]:
    width, height = LAYOUT_SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
    context.set_default_timeout(15_000)
    context.route("**/*", lambda r: r.continue_() if urlsplit(r.request.url).hostname == "127.0.0.1"
                  or r.request.url.startswith(("data:", "blob:")) else r.abort())
    return context, context.new_page()


@pytest.mark.parametrize("size", list(LAYOUT_SIZES))
@pytest.mark.parametrize("site", ["campaign_url", "live_url"])
def test_wide_tables_keep_their_columns_and_titles_readable(browser: Any, site: str, size: str,
                                                            request: pytest.FixtureRequest) -> None:
    """Upgrade paths, root causes and the ADR at a laptop's and a phone's width: no header cell is
    cut; a table wider than the content scrolls in Material's wrapper, and on a laptop none needs
    to; on a laptop no record title in a table or a list runs over three lines; a rank column
    ("#") stays as narrow as its figures."""
    url = request.getfixturevalue(site)
    context, page = _sized(browser, size)
    problems: list[str] = []
    try:
        for kind, path in LAYOUT_PAGES.items():
            page.goto(url + path)
            page.wait_for_load_state("networkidle")
            _shot(page, f"layout-{kind}-{'live' if site == 'live_url' else 'campaign'}-{size}")
            got = page.evaluate(_TABLES)
            problems += [f"{kind}: header cut: {x}" for x in got["clipped"]]
            problems += [f"{kind}: table wider than the content without a scroll box: {x}" for x in got["overflowing"]]
            if size == "laptop":
                problems += [f"{kind}: table scrolls sideways on a laptop: {x}" for x in got["scrolling"]]
                problems += [f"{kind}: title over three lines ({n}): {t}" for t, n in got["titles"] if n > 3]
            problems += [f"{kind}: rank column takes {share:.0%} of {name}" for name, share in got["rank"] if share > 0.15]
            assert got["titles"], kind  # the pages name records: the measure ran
    finally:
        context.close()
    assert not problems, "\n".join(problems)


def test_the_upgrade_paths_table_holds_figures_and_links_each_changes_titles(browser: Any, live_url: str) -> None:
    context, page = _sized(browser, "laptop")
    try:
        page.goto(live_url + "upgrades/")
        table = page.locator("article table").first
        headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
        assert headers == ["Change", "Now", "Resolves", "Only disables", "Introduces", "Worth retrying", "Still standing"]
        last = table.locator("thead th").last.bounding_box()
        box = page.locator("article").bounding_box()
        assert last["x"] + last["width"] <= box["x"] + box["width"] + 1  # "Still standing" in full, in view
        row = table.locator("tbody tr", has=page.locator("td:first-child", has_text="cuda=13.0"))
        assert row.locator("td").nth(2).inner_text().strip() == "4 (disputed: 2)"
        row.locator("td a").first.click()
        assert page.url.endswith("#upgrades-cuda-12.8-2")
        section = page.locator("#upgrades-cuda-12\\.8-2")
        assert section.inner_text().startswith("cuda=13.0 (now 12.8.1)")
        resolves = section.locator("xpath=following-sibling::ul[1]/li[1]//li")
        assert "SM120 not supported by the CUDA 12.8 software stack" in resolves.all_inner_texts()
    finally:
        context.close()


@pytest.mark.parametrize("size", list(LAYOUT_SIZES))
def test_the_adr_opens_with_its_summary_and_its_warnings_name_records_by_title(browser: Any, live_url: str,
                                                                               size: str) -> None:
    """The ADR's first box is its summary and its Context follows; the catalog's disputes come
    after the Context, in one warning box whose records are links shown by title, no raw id."""
    context, page = _sized(browser, size)
    try:
        page.goto(live_url + ADR.removesuffix("index.html"))
        page.wait_for_load_state("networkidle")
        _shot(page, f"layout-adr-warnings-{size}")
        got = page.evaluate("""() => {
          const article = document.querySelector('article');
          const boxes = [...article.querySelectorAll('.admonition')];
          const context = [...article.querySelectorAll('h2')].find(h => h.textContent.startsWith('Context'));
          const after = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
          return {
            first: boxes[0].querySelector('.admonition-title').textContent.trim(),
            warnings: boxes.filter(b => b.classList.contains('warning')).map(b => ({
              title: b.querySelector('.admonition-title').textContent.trim(),
              afterContext: after(context, b),
              text: b.textContent,
              links: [...b.querySelectorAll('a')].map(a => [a.textContent.trim(), a.getAttribute('href')]),
            })),
            beforeContext: boxes.filter(b => after(b, context)).length,
          };
        }""")
    finally:
        context.close()
    assert got["first"] == "Accepted on 2026-02-26"
    assert got["beforeContext"] == 1  # the summary alone
    [warning] = got["warnings"]
    assert warning["title"] == "Disputed by a catalog" and warning["afterContext"]
    titles = [t for t, _href in warning["links"]]
    assert "SGLang torch symmetric-memory allreduce looks up capability 12 in a table keyed by 9 and 10 (catalog blackwell)" in titles
    assert "An architecture allow-list or capability-keyed table leaves out 12.x (catalog blackwell)" in titles
    for _title, href in warning["links"]:
        rid = href.rstrip("/").rsplit("/", 1)[-1]
        assert rid not in warning["text"], rid  # the record is named by its title only
