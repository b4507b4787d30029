"""Pages that stay small at any campaign size (kb issue 13; cases root-diagram-unbounded and
search-freeze-10k-records), and reverse links computed once per render.

Sizes are small here (600 attempts); what is asserted is structure: bounded diagrams and tables,
counts that link to lists holding exactly the records counted, every record reachable through
the paginated lists, and a small campaign rendered as before. Timings live in
bench/bench_scale.py."""

from __future__ import annotations

import json
import posixpath
import re
import sys
from html import unescape
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from gen_campaign import generate  # noqa: E402

from kb.models import Attempt, Blocker, Campaign, Decision, Stack  # noqa: E402
from kb.pipeline import load_graph  # noqa: E402
from kb.queries.compare import compare_pairs  # noqa: E402
from kb.site.charts import DIAGRAM_ROW_PX  # noqa: E402
from kb.site.pages import render_site  # noqa: E402
from kb.site.pages.blocker import DIAGRAM_ATTEMPTS, DIAGRAM_ROWS, ROOTS_IN_DIAGRAM  # noqa: E402
from kb.site.pages.campaign import CHART_PERIODS  # noqa: E402
from kb.site.pages.indexes import TAG_SHOWN  # noqa: E402
from kb.site.pages.lists import PER_PAGE, ROWS, SEARCH_EXCLUDE  # noqa: E402
from kb.site.pages.reverse import reverse_links  # noqa: E402
from kb.site.pages.timeline import TIMELINE_PAGE  # noqa: E402

ATTEMPT_ID = re.compile(r"(\d{4}-\d\d-\d\d-gen-attempt-\d+)")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A 600-attempt campaign: three root causes, each behind a couple of hundred attempts."""
    root = tmp_path_factory.mktemp("big") / "records"
    generate(root, 600, seed=3)
    kg = load_graph(root)
    return root, kg, render_site(kg)


def _svg(md: str, cls: str) -> str:
    m = re.search(rf'<svg class="{cls}".*?</svg>', md, re.S)
    assert m, cls
    return m.group(0)


def _nodes(svg: str) -> list[tuple[str, str]]:
    """(href, title) of every box of a cause diagram."""
    return re.findall(r'<a href="([^"]*)"><g class="kb-node[^"]*">\s*<title>([^<]*)</title>', svg)


def _height(svg: str) -> float:
    return float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))


def _list_pages(pages: dict[str, str], first: str) -> list[str]:
    """Every page of the list whose first page is ``first`` (``lists/<key>/index.md``)."""
    key = first.split("/")[1]
    out = [first]
    k = 2
    while f"lists/{key}/{k}.md" in pages:
        out.append(f"lists/{key}/{k}.md")
        k += 1
    return out


def _list_of(pages: dict[str, str], src: str, href: str) -> str:
    """The source of the list page an SVG ``href`` on page ``src`` points at (directory URLs)."""
    base = src[:-3] if not src.endswith("index.md") else src[: -len("index.md")]
    target = posixpath.normpath(posixpath.join(base, href)) + "/index.md"
    assert target in pages, (src, href)
    return target


def _listed_ids(pages: dict[str, str], first: str) -> list[str]:
    """Attempt (or record) ids in the rows of every page of a list, in order."""
    ids = []
    for src in _list_pages(pages, first):
        ids += re.findall(r'<tr><td>(?:\d{4}-\d\d-\d\d</td><td>)?<a href="[^"]*?([^"/]+)/">', pages[src])
    return ids


def test_a_root_cause_diagram_is_capped_and_its_counts_link_to_exactly_those_attempts(big):
    _root, kg, pages = big
    rev = reverse_links(kg)
    root = max((b for b in kg.of_kind(Blocker) if b.is_root), key=lambda b: len(rev.blocked_all.get(b.id, [])))
    assert len(rev.blocked_all[root.id]) > 100  # the case: hundreds of attempts behind one root
    src = f"blockers/{root.id}.md"
    svg = _svg(pages[src], "kb-diagram")
    assert _height(svg) <= DIAGRAM_ROWS * DIAGRAM_ROW_PX + 20 < 2000  # about two screens
    nodes = _nodes(svg)
    assert not any("attempts/" in href for href, _t in nodes)  # no box per attempt
    counted = [(href, title) for href, title in nodes if re.fullmatch(r"\d+ attempts", title)]
    children = rev.children[root.id]
    assert len(counted) == len(children)  # one count per blocker it causes (all drawn: fewer than 10)
    for href, title in counted:
        first = _list_of(pages, src, href)
        key = first.split("/")[1]
        blocker = key[len("blocker-"):]
        expected = sorted(a.id for a in rev.blocked_all[blocker])
        assert int(title.split()[0]) == len(expected)
        assert sorted(_listed_ids(pages, first)) == expected
    # the root-causes page: one box per root and one counting its attempts, nothing per attempt
    index = _nodes(_svg(pages["blockers/index.md"], "kb-diagram"))
    roots = [b for b in kg.of_kind(Blocker) if b.is_root]
    assert len(roots) <= ROOTS_IN_DIAGRAM
    assert sorted(t for _h, t in index) == sorted(
        [b.title for b in roots] + [f"{len(rev.blocked_all[b.id])} attempts" for b in roots])
    assert not any("attempts/" in href for href, _t in index)


def test_a_blocker_with_many_direct_attempts_gets_an_and_n_more_box(tmp_path):
    root = tmp_path / "records"
    generate(root, 60, seed=1)
    blocker = sorted((root / "blockers").glob("gen-blocker-l3-*.yaml"))[0].stem
    for i in range(30):
        (root / "attempts" / f"2026-05-01-many-{i:03d}.yaml").write_text(
            f"title: Many {i}\ndate: 2026-05-01\ncampaign: gen-campaign-000\napproach: x\noutcome: failed\n"
            f"blocked_by: [{blocker}]\n")
    kg = load_graph(root)
    pages = render_site(kg)
    direct = reverse_links(kg).blocked_direct[blocker]
    src = f"blockers/{blocker}.md"
    nodes = _nodes(_svg(pages[src], "kb-diagram"))
    more = [(h, t) for h, t in nodes if t.startswith("and ")]
    assert more == [(f"../../lists/blocker-{blocker}-direct/", f"and {len(direct) - DIAGRAM_ATTEMPTS} more attempts")]
    drawn = {h.split("/")[-2] for h, _t in nodes if "/attempts/" in h}
    newest = sorted(direct, key=lambda a: (a.date, a.id))[-DIAGRAM_ATTEMPTS:]
    assert drawn == {a.id for a in newest}
    assert sorted(_listed_ids(pages, f"lists/blocker-{blocker}-direct/index.md")) == sorted(a.id for a in direct)


def test_no_page_but_the_lists_grows_with_the_campaign(big):
    _root, kg, pages = big
    n = len(kg.of_kind(Attempt))
    for src, md in pages.items():
        links = len(set(ATTEMPT_ID.findall(md)))
        if src.startswith("lists/"):
            assert md.startswith(SEARCH_EXCLUDE), src
            assert md.count("<tr><td>") <= PER_PAGE, src
            assert links <= (2 * PER_PAGE if src.startswith("lists/compare/") else max(PER_PAGE, TIMELINE_PAGE)), src
        elif "kb-chart" in md:  # a dashboard: its table, and two marks per chart period at most
            assert links <= ROWS + 2 * CHART_PERIODS, (src, links)
        else:  # a blocker: two tables of ROWS and the drawn attempts; the tags page: a few per tag
            bound = TAG_SHOWN * md.count("\n## ") if src == "tags.md" else 2 * ROWS + DIAGRAM_ATTEMPTS
            assert links <= bound, (src, links)
        assert len(md) < 120_000, (src, len(md))
    # every attempt is reachable from the attempts index, through its paginated list
    first = "lists/attempts/index.md"
    assert "../lists/attempts/index.md" in pages["attempts/index.md"]
    listed = _listed_ids(pages, first)
    assert sorted(listed) == sorted(a.id for a in kg.of_kind(Attempt))
    assert len(_list_pages(pages, first)) == -(-n // PER_PAGE)
    assert listed == [a.id for a in sorted(kg.of_kind(Attempt), key=lambda a: (a.date, a.id), reverse=True)]


def test_the_dashboard_chart_aggregates_by_period_and_keeps_the_best(big):
    _root, kg, pages = big
    (camp,) = kg.of_kind(Campaign)
    md = pages[f"campaigns/{camp.id}.md"]
    chart = _svg(md, "kb-chart")
    marks = re.findall(r"<title>([^<]*)</title>", chart)
    assert len(marks) <= 2 * CHART_PERIODS + 1
    best = max((a for a in kg.of_kind(Attempt) if "output_throughput" in a.metrics),
               key=lambda a: a.metrics["output_throughput"].value)
    assert f"/{best.id}/" in chart  # the campaign's best run is a mark of its period
    assert "failed attempts, 2026-" in chart
    failed = sorted(a.id for a in kg.of_kind(Attempt) if a.outcome.value == "failed")
    assert sorted(_listed_ids(pages, f"lists/campaign-{camp.id}-failed/index.md")) == failed
    heading = re.search(r"^### Latest (\d+) of (\d+) attempts$", md, re.M)
    assert heading and heading.groups() == (str(ROWS), "600")
    assert sorted(_listed_ids(pages, f"lists/campaign-{camp.id}/index.md")) == sorted(
        a.id for a in kg.of_kind(Attempt))


def test_a_long_timeline_is_paged_and_holds_every_attempt_once(big):
    _root, kg, pages = big
    (camp,) = kg.of_kind(Campaign)
    main = unescape(pages[f"timeline/{camp.id}.md"])
    archive = sorted((s for s in pages if s.startswith(f"lists/timeline-{camp.id}/")),
                     key=lambda s: int(s.rsplit("/", 1)[1][:-3]))
    per_page = [ATTEMPT_ID.findall(main)] + [ATTEMPT_ID.findall(pages[s]) for s in archive]
    assert len(per_page[0]) == ROWS and all(len(ids) <= TIMELINE_PAGE for ids in per_page[1:])
    everything = [x for ids in per_page for x in ids]
    assert sorted(everything) == sorted(a.id for a in kg.of_kind(Attempt))  # each exactly once
    newest = max(a.date for a in kg.of_kind(Attempt)).isoformat()
    assert f"## {newest}" in main and "## 2026-01-01" in unescape(pages[archive[-1]])
    assert "600 attempts in all" in main and f"of {len(archive) + 1})" in pages[archive[0]]
    months = re.findall(r"^\| (2026-\d\d) \| (\d+) \|", main, re.M)
    assert sum(int(n) for _m, n in months) == 600 and len(months) == 10


def test_tags_compare_index_and_decision_log_link_to_lists_of_exactly_their_records(big):
    _root, kg, pages = big
    rev = reverse_links(kg)
    tags = unescape(pages["tags.md"])
    for tag, records in rev.tagged.items():
        if len(records) > TAG_SHOWN:
            key = re.search(rf"\[all {len(records)} tagged {re.escape(tag)}\]\(lists/([^/]+)/index.md\)", tags).group(1)
            assert _listed_ids(pages, f"lists/{key}/index.md") == [r.id for r in records]
    pairs = compare_pairs(kg)
    index = pages["compare/index.md"]
    assert index.count("| [compare](") == ROWS  # the newest pairs, page or picker link
    listed = sum(pages[s].count("<tr><td>") for s in _list_pages(pages, "lists/compare/index.md"))
    assert listed == len(pairs) > ROWS
    assert len(kg.of_kind(Decision)) == 30 and "lists/decisions" not in pages["decisions/index.md"]


def test_reverse_links_match_a_scan_of_every_record(big):
    _root, kg, _pages = big
    rev = reverse_links(kg)
    for a in kg.of_kind(Attempt):
        assert rev.citing.get(a.id, []) == [d for d in kg.of_kind(Decision) if a.id in d.evidence]
    for s in kg.of_kind(Stack):
        assert {a.id for a in rev.attempts_of.get(s.id, [])} == {a.id for a in kg.of_kind(Attempt) if a.stack == s.id}
        assert rev.derived.get(s.id, []) == [x for x in kg.of_kind(Stack) if x.base == s.id]
    for b in kg.of_kind(Blocker):
        expect = {a.id for a in kg.of_kind(Attempt) if b.id in kg.causes_closure(a.blocked_by)}
        assert {a.id for a in rev.blocked_all.get(b.id, [])} == expect
        assert rev.children.get(b.id, []) == kg.into(b.id, "caused_by")
        assert rev.resolved_by.get(b.id, []) == [d for d in kg.of_kind(Decision) if b.id in d.resolves]
    assert sum(len(v) for v in rev.citing.values()) == sum(len(d.evidence) for d in kg.of_kind(Decision))
    for camp in [*kg.of_kind(Campaign), None]:
        cid = camp.id if camp else None
        assert rev.decisions_of.get(cid, []) == [d for d in kg.of_kind(Decision) if d.campaign == cid]


def test_a_small_campaign_looks_as_before(tmp_path):
    """30 attempts: no list pages, every attempt in the tables, diagrams drawn in full."""
    root = tmp_path / "records"
    generate(root, 30, seed=2)
    kg = load_graph(root)
    pages = render_site(kg)
    assert not [s for s in pages if s.startswith("lists/")]
    camp = pages["campaigns/gen-campaign-000.md"]
    assert "### All 30 attempts" in camp and len(set(ATTEMPT_ID.findall(camp))) == 30
    assert len(set(ATTEMPT_ID.findall(pages["attempts/index.md"]))) == 30
    timeline = pages["timeline/gen-campaign-000.md"]
    assert len(ATTEMPT_ID.findall(timeline)) == 30 and "kb-pager" not in timeline
    rev = reverse_links(kg)
    blocked = {a.id for a in kg.of_kind(Attempt) if a.blocked_by}
    index = _nodes(_svg(pages["blockers/index.md"], "kb-diagram"))
    assert len(index) == len(kg.of_kind(Blocker)) + len(blocked)  # one box per blocker and attempt
    for b in kg.of_kind(Blocker):
        nodes = _nodes(_svg(pages[f"blockers/{b.id}.md"], "kb-diagram"))
        assert not [t for _h, t in nodes if re.fullmatch(r"\d+ attempts|and .*", t)]
        drawn = {h.split("/")[-2] for h, _t in nodes if "/attempts/" in h}
        assert drawn == {a.id for a in rev.blocked_all.get(b.id, [])}


def test_lists_are_out_of_the_search_index_and_their_links_resolve(tmp_path):
    from kb.site.build import build_site

    root = tmp_path / "records"
    generate(root, 150, seed=2)
    site = build_site(root, site_dir=str(tmp_path / "site"), strict=True)
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    assert not [d["location"] for d in docs if d["location"].startswith("lists/")]
    lists = sorted((site / "lists").rglob("index.html"))
    assert (site / "lists" / "attempts" / "2" / "index.html") in lists
    for page in lists:
        html = page.read_text(encoding="utf-8")
        article = html[html.index("<article"): html.index("</article>")]
        for href in re.findall(r'href="([^"#?]+)"', article):
            if "://" in href or href.startswith(("mailto:", "/")):
                continue
            target = (page.parent / href).resolve()
            assert (target / "index.html").is_file() or target.is_file(), (page, href)
    # what people search for is still there: an attempt's title
    a = sorted((root / "attempts").glob("*.yaml"))[0]
    title = re.search(r"^title: (.*)$", a.read_text(), re.M).group(1)
    assert any(d["location"] == f"attempts/{a.stem}/" and d["title"] == title for d in docs)


def test_timeline_pages_keep_days_whole_unless_one_day_is_too_long():
    from kb.site.pages.timeline import _paginate

    def day(date: str, attempts: int, decisions: int = 0) -> dict:
        return {"date": date, "entries": [{"decision": True, "n": i} for i in range(decisions)]
                + [{"decision": False, "n": i} for i in range(attempts)]}

    days = [day("2026-01-01", 30), day("2026-01-02", 0, decisions=1), day("2026-01-03", 250), day("2026-01-04", 20),
            day("2026-01-05", 15)]
    pages = _paginate(days, 40, 100)
    shape = [[(d["date"], sum(not e["decision"] for e in d["entries"])) for d in p] for p in pages]
    assert shape == [
        [("2026-01-04", 20), ("2026-01-05", 15)],  # newest first page: 35 of at most 40, whole days
        [("2026-01-03", 100)],                     # the long day cut into pages of 100, newest part first
        [("2026-01-03", 100)],
        [("2026-01-01", 30), ("2026-01-02", 0), ("2026-01-03", 50)],  # its oldest part and the days before
    ]
    entries = [e["n"] for p in pages[::-1] for d in p if d["date"] == "2026-01-03" for e in d["entries"]]
    assert entries == list(range(250))  # every entry once, in order
    assert _paginate([], 40, 100) == [[]]


def test_the_home_page_summarises_beyond_three_campaigns(tmp_path):
    root = tmp_path / "records"
    generate(root, 60, seed=1)
    text = (root / "campaigns" / "gen-campaign-000.yaml").read_text()
    for i in (1, 2, 3):
        (root / "campaigns" / f"gen-campaign-00{i}.yaml").write_text(text.replace("Generated campaign 0", f"Extra {i}"))
    moved = sorted((root / "attempts").glob("*.yaml"))[:5]
    for p in moved:  # five attempts move to campaign 1, all measured or failed as generated
        p.write_text(p.read_text().replace("campaign: gen-campaign-000", "campaign: gen-campaign-001"))
    kg = load_graph(root)
    home = render_site(kg)["index.md"]
    assert "kb-chart" not in home and "### " not in home  # no dashboard here: each campaign's page has it
    rows = re.findall(r"^\| \[([^\]]+)\]\(campaigns/[^)]+\) \| (\d+) \| (\d+) \|", home, re.M)
    failed = sum(1 for p in moved if "outcome: failed" in p.read_text())
    assert rows == [("Generated campaign 0", "55", str(sum(1 for a in kg.of_kind(Attempt)
                                                              if a.campaign == "gen-campaign-000"
                                                              and a.outcome.value == "failed"))),
                    ("Extra 1", "5", str(failed)), ("Extra 2", "0", "0"), ("Extra 3", "0", "0")]


def test_relpath_equals_posixpath_relpath():
    from kb.site.pages.context import relpath

    paths = ["", ".", "index.md", "tags.md", "attempts/a.md", "attempts/index.md", "lists/x/2.md", "lists/x/index.md",
             "timeline/c.md", "attempts/a", "lists/x", "a/b/c/d.md"]
    folders = ["", ".", "attempts", "attempts/a", "lists/x", "lists/x/2", "lists", "a/b", "timeline/c"]
    for target in paths:
        for start in folders:
            assert relpath(target, start) == posixpath.relpath(target or ".", start or "."), (target, start)
