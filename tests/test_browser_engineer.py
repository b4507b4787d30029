"""Every page kind in a real browser at a laptop's and a phone's size (issue 15).

Debian's Chromium driven by Playwright (see :mod:`test_browser` for how it is launched and how
requests leaving 127.0.0.1 are refused), at 1366×900 and 390×844. For each page kind: the page
never scrolls sideways as a whole, chart and diagram text is at least 11 px on the phone, the
first column of a wide table stays in view when the table is scrolled, a screenshot is saved under
``test-artifacts/screenshots/`` and axe-core (the copy shipped by the ``axe-playwright-python``
package, injected from disk: no CDN) finds no serious or critical accessibility violation.
Then the interactive parts: sorting and filtering tables, the compare picker, the palette toggle,
and the two clicks from the home page to the difference between the 54.1 and 96.1 tok/s runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from test_browser import ARGS, CHROMIUM, SHOTS, Server, _no_browser  # noqa: F401
from test_site import ADR, SM120, SYMM, build_campaign

E128 = "2026-02-21-eagle3-speculation"
E13 = "2026-02-27-eagle3-cuda13"

PAGE_KINDS = {
    "home": "",
    "campaign": "campaigns/kimi-k25-eagle3-blackwell/",
    "attempts": "attempts/",
    "attempt-failed": SYMM,
    "attempt-improved": f"attempts/{E13}/",
    "root-causes": "blockers/",
    "root-cause": SM120,
    "blocker": "blockers/torch-symm-mem-no-capability-12/",
    "decisions": "decisions/",
    "adr": ADR,
    "timelines": "timeline/",
    "timeline": "timeline/kimi-k25-eagle3-blackwell/",
    "compare-picker": f"compare/?a={E128}&b={E13}",
    "compare": f"compare/{E128}--{E13}/",
    "upgrades": "upgrades/",
    "stacks": "stacks/",
    "stack": "stacks/cuda-13.0/",
    "platforms": "platforms/",
    "platform": "platforms/rtx-pro-6000-blackwell-x8/",
    "campaigns": "campaigns/",
    "tags": "tags/",
}
"""One page of every kind the site has (index pages, record pages, compare, timeline)."""

SIZES = {"laptop": (1366, 900), "phone": (390, 844)}


def _axe_script() -> Path:
    try:
        import axe_playwright_python
    except ImportError:
        pytest.fail("axe-playwright-python is not installed (pip install -e '.[test]')")
    return Path(axe_playwright_python.__file__).parent / "axe.min.js"


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = Server(build_campaign(tmp_path_factory.mktemp("engineer-browser") / "site"))
    yield server.url
    server.close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
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


def _open(chromium: Any, size: str) -> tuple[Any, Any, list[str]]:
    """A page of the given size whose requests to any host but 127.0.0.1 are refused and listed."""
    width, height = SIZES[size]
    context = chromium.new_context(viewport={"width": width, "height": height}, service_workers="block")
    context.set_default_timeout(15_000)
    outside: list[str] = []

    def route(r: Any) -> None:
        url = r.request.url
        if url.startswith(("data:", "blob:")) or urlsplit(url).hostname == "127.0.0.1":
            r.continue_()
        else:
            outside.append(url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("dialog", lambda d: d.dismiss())
    return context, page, outside


_LAYOUT = """() => {
  const out = {overflow: document.documentElement.scrollWidth - window.innerWidth, small: [], hidden: []};
  for (const svg of document.querySelectorAll('article svg.kb-chart, article svg.kb-diagram')) {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    for (const t of svg.querySelectorAll('text')) {
      const px = parseFloat(t.getAttribute('font-size')) * scale;
      if (px < 10.95) out.small.push(`${svg.className.baseVal}: ${t.textContent} at ${px.toFixed(1)} px`);
    }
  }
  for (const wrap of document.querySelectorAll('article .md-typeset__scrollwrap, article .md-typeset__table')) {
    wrap.scrollLeft = wrap.scrollWidth;
  }
  for (const table of document.querySelectorAll('article table')) {
    // the key column: the first that is not a rank (a right-aligned first column scrolls away)
    const row = table.querySelector('tbody tr:not([hidden])');
    const cell = row && [...row.cells].find(td => !/right/.test(td.getAttribute('style') || '') && td.getAttribute('align') !== 'right');
    if (!cell) continue;
    const r = cell.getBoundingClientRect();
    const box = (table.closest('.md-typeset__scrollwrap') || table.parentElement).getBoundingClientRect();
    if (r.left < box.left - 1 || r.right > box.right + 1)
      out.hidden.push(`${table.querySelector('th').textContent}: first column at ${r.left}-${r.right}, box ${box.left}-${box.right}`);
  }
  return out;
}"""


def _axe(page: Any, script: Path) -> list[str]:
    """Serious and critical axe-core violations on the page (WCAG 2.x A and AA rules)."""
    page.add_script_tag(path=str(script))
    result = page.evaluate("""async () => {
      const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}});
      return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`);
    }""")
    return result


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_kind_fits_reads_and_passes_axe(chromium: Any, site_url: str, size: str) -> None:
    context, page, outside = _open(chromium, size)
    script = _axe_script()
    problems: list[str] = []
    try:
        for kind, path in PAGE_KINDS.items():
            response = page.goto(site_url + path)
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(_shot_path(f"{kind}-{size}")), full_page=True)
            layout = page.evaluate(_LAYOUT)
            if layout["overflow"] > 1:
                problems.append(f"{kind}: the page scrolls sideways by {layout['overflow']} px")
            if size == "phone":
                problems += [f"{kind}: {x}" for x in layout["small"]]
            problems += [f"{kind}: key column hidden: {x}" for x in layout["hidden"]]
            problems += [f"{kind}: axe: {x}" for x in _axe(page, script)]
    finally:
        context.close()
    assert not outside, outside
    assert not problems, "\n".join(problems)
    assert len(list(SHOTS.glob(f"*-{size}.png"))) >= len(PAGE_KINDS)


def _shot_path(name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / f"{name}.png"


def test_dark_palette_passes_axe_too(chromium: Any, site_url: str) -> None:
    context, page, outside = _open(chromium, "laptop")
    try:
        page.goto(site_url + PAGE_KINDS["compare"])
        assert page.locator("body").get_attribute("data-md-color-scheme") == "default"
        page.locator("label[title='Switch to dark mode']").click()
        assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        page.goto(site_url + PAGE_KINDS["root-cause"])  # the choice is kept across pages
        assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        page.screenshot(path=str(_shot_path("root-cause-dark-laptop")), full_page=True)
        assert _axe(page, _axe_script()) == []
    finally:
        context.close()
    assert not outside


def test_two_clicks_from_home_to_the_eagle3_difference(chromium: Any, site_url: str) -> None:
    context, page, _ = _open(chromium, "phone")
    try:
        page.goto(site_url)
        page.locator("article a", has_text="EAGLE-3 speculative decoding on the CUDA 13 stack").first.click()
        page.wait_for_url(re.compile(f"/attempts/{E13}/"))
        page.locator("article .admonition.success a", has_text="54.1 tok/s").click()
        page.wait_for_url(re.compile(f"/compare/{E128}--{E13}/"))
        title = page.locator("article .admonition.success .admonition-title").inner_text()
        assert title == "Output throughput: 54.1 → 96.1 tok/s (+42, +77.6 %)"
        page.screenshot(path=str(_shot_path("compare-two-clicks-phone")), full_page=True)
    finally:
        context.close()


def _column(page: Any, table: Any, header: str) -> list[str]:
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    i = headers.index(header)
    return [r.locator("td").nth(i).inner_text().strip() for r in table.locator("tbody tr:visible").all()]


def test_attempt_table_sorts_by_figure_and_filters(chromium: Any, site_url: str) -> None:
    context, page, _ = _open(chromium, "laptop")
    try:
        page.goto(site_url + "attempts/")
        table = page.locator("article table").first
        header = table.locator("thead th", has_text="Output")
        header.click()
        values = _column(page, table, "Output")
        assert values[-1] == "96.1 tok/s" and values.index("54.1 tok/s") < values.index("82.0 tok/s")
        header.click()
        assert header.get_attribute("aria-sort") == "descending"
        assert _column(page, table, "Output")[:3] == ["96.1 tok/s", "89.5 tok/s", "82.0 tok/s"]
        table.locator("thead th", has_text="Attempt").click()
        names = _column(page, table, "Attempt")
        assert names == sorted(names, key=str.lower)
        box = page.get_by_label("Filter rows")
        box.fill("failed")
        assert len(_column(page, table, "Outcome")) == 4
        assert set(_column(page, table, "Outcome")) == {"✖ failed"}
        assert page.locator(".kb-filter-count").inner_text() == "4 of 9 rows"
        box.fill("failed torch")
        assert _column(page, table, "Attempt") == ["Torch symmetric-memory allreduce"]
        box.fill("")
        assert len(_column(page, table, "Attempt")) == 9
    finally:
        context.close()


def test_compare_picker_compares_any_two_attempts(chromium: Any, site_url: str) -> None:
    context, page, _ = _open(chromium, "laptop")
    try:
        page.goto(site_url + PAGE_KINDS["compare-picker"])
        out = page.locator("#kb-pick-out")
        out.locator("table").first.wait_for()
        metrics = out.locator("table").first
        row = metrics.locator("tbody tr").first.locator("td").all_inner_texts()
        assert row == ["Output throughput (headline)", "54.1", "96.1", "tok/s", "+42 ✔ better", "+77.6 %"]
        assert out.get_by_text("This pair has a page of its own").is_visible()
        page.locator("#kb-pick-b").select_option("2026-02-23-nccl-tree")
        assert "b=2026-02-23-nccl-tree" in page.url
        env = out.locator("h2", has_text="Environment").locator("xpath=following-sibling::div[1]//table")
        assert env.locator("tbody tr td").all_inner_texts() == ["NCCL_ALGO", "—", "Tree"]
        assert "Blockers" in out.inner_text()
    finally:
        context.close()
