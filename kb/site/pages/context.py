"""What every page builder shares: links between pages, the Jinja environment, common cells.

Page context is computed in Python; the Jinja templates under ``kb/site/templates/`` only lay it out.
Every ``{{ value }}`` is escaped by :func:`kb.site.text.inline` unless it is
:class:`~markupsafe.Markup` built by a page builder.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import jinja2
from markupsafe import Markup

from kb.graph import KnowledgeGraph
from kb.ids import free_id, slugify
from kb.models import METRIC_NAMES, Attempt, Outcome, Record
from kb.queries import RootCause, RootsReport, roots_report
from kb.queries.bearing import published_ids
from kb.queries.compare import compare_pairs
from kb.site.pages.lists import ROWS, ListRegistry
from kb.site.pages.reverse import ReverseLinks, by_date, reverse_links
from kb.site.pages.shared import OUTCOME_ICONS, headline, page_of, upstream_url
from kb.site.text import code_block, inline, join, markdown_block, mono

NAV = [
    ("Home", "index.md"),
    ("Campaigns", "campaigns/index.md"),
    ("Attempts", "attempts/index.md"),
    ("Root causes", "blockers/index.md"),
    ("Decisions", "decisions/index.md"),
    ("Timeline", "timeline/index.md"),
    ("Compare", "compare/index.md"),
    ("Upgrade paths", "upgrades.md"),
    ("Stacks", "stacks/index.md"),
    ("Platforms", "platforms/index.md"),
    ("Tags", "tags.md"),
    ("Catalogs", "catalogs.md"),
]
"""The site navigation: sections and index pages only, never one entry per record (a nav with
every record makes each page carry the whole list and the build quadratic)."""


@lru_cache(maxsize=1 << 16)
def _reldir(folder: str, start: str) -> str:
    return posixpath.relpath(folder or ".", start or ".")


def relpath(target: str, start: str) -> str:
    """``posixpath.relpath(target, start)`` for normalised paths, computed once per pair of folders
    (a 10,000-attempt site makes a few hundred thousand links between a few dozen folders).

    >>> relpath("attempts/a.md", "blockers"), relpath("attempts/a.md", "attempts"), relpath("tags.md", "")
    ('../attempts/a.md', 'a.md', 'tags.md')
    """
    folder, _, name = target.rpartition("/")
    if name in ("", ".", "..") or start == target or start.startswith(target + "/"):
        return posixpath.relpath(target or ".", start or ".")
    up = _reldir(folder, start)
    return name if up == "." else f"{up}/{name}"


def index_source(src: str) -> str:
    """The source path of page ``src`` in the index-page layout: a page that is not an index
    page becomes the ``index.md`` of a folder of its name; an index page stays (so the mapping
    is idempotent). Under MkDocs' directory URLs the page keeps its URL.

    In that layout every page's source folder is its URL's folder, so a relative link written in
    raw HTML means the same file to every engine: MkDocs leaves such a link as it is (the browser
    resolves it against the page's URL; mkdocs/mkdocs#3618) while Zensical resolves it against the
    source file (zensical/zensical#258, since 0.0.60 at least). Markdown links are resolved
    against the source file by both.

    >>> index_source("attempts/a.md"), index_source("attempts/index.md"), index_source("index.md")
    ('attempts/a/index.md', 'attempts/index.md', 'index.md')
    >>> index_source(index_source("upgrades.md"))
    'upgrades/index.md'
    """
    if src == "index.md" or src.endswith("/index.md"):
        return src
    return src[:-3] + "/index.md"


def url_of(src: str, directory_urls: bool) -> str:
    if not directory_urls:
        return src[:-3] + ".html"
    if src == "index.md" or src.endswith("/index.md"):
        return src[: -len("index.md")]
    return src[:-3] + "/"


@dataclass
class Ctx:
    """What page builders share: the graph, the URL style, the reverse links (computed once per
    render, :mod:`kb.site.pages.reverse`) and the registry of paginated lists the pages link to
    (:mod:`kb.site.pages.lists`)."""

    kg: KnowledgeGraph
    directory_urls: bool = True
    lists: ListRegistry = field(default_factory=ListRegistry)
    index_pages: bool = False
    """Whether pages are written in the index-page layout (:func:`index_source`): the builders
    keep naming pages by their usual source (``attempts/<id>.md``), and every link between pages
    is computed from :meth:`source`."""

    def source(self, src: str) -> str:
        """Where page ``src`` is written: ``src``, or :func:`index_source` of it in the
        index-page layout."""
        return index_source(src) if self.index_pages else src

    @cached_property
    def rev(self) -> ReverseLinks:
        """Reverse links of the whole graph, built once."""
        return reverse_links(self.kg)

    @cached_property
    def published(self) -> set[str]:
        """Ids of the records that get a page: the campaign's own and the catalog records bearing
        on it (:func:`kb.queries.bearing.published_ids`)."""
        return published_ids(self.kg)

    @cached_property
    def _published_of_kind(self) -> dict[type, list]:
        return {}

    def of_kind(self, cls: type) -> list:
        """Records of one model class that get a page (:attr:`published`), sorted by id
        (computed once per render)."""
        out = self._published_of_kind.get(cls)
        if out is None:
            out = self._published_of_kind[cls] = [r for r in self.rev.of_kind(cls) if r.id in self.published]
        return out

    @cached_property
    def small(self) -> bool:
        """Whether the site has at most :data:`~kb.site.pages.lists.ROWS` attempts: then every
        page shows all it lists (upgrade cells, tags, suggested comparisons), as before lists."""
        return len(self.of_kind(Attempt)) <= ROWS

    def list_link(self, src_from: str, key: str, title: str, items: list, label: str,
                  columns: str = "attempts", intro: str = "") -> Markup:
        """Register the paginated list ``key`` of ``items`` (:meth:`ListRegistry.add`) and return a
        Markdown link to its first page from page ``src_from``, showing ``label``."""
        return self.link_to(src_from, self.lists.add(key, title, items, columns, intro), label)

    def list_href(self, src_from: str, key: str, title: str, items: list, columns: str = "attempts") -> str:
        """Like :meth:`list_link`, but the final URL (for raw HTML such as SVG)."""
        return self.href(src_from, self.lists.add(key, title, items, columns))

    def link(self, src_from: str, record: Record | None, rid: str = "") -> Markup:
        """A Markdown link from page ``src_from`` to ``record``'s page, titled with its title (a
        catalog record's followed by ``(catalog NAME)``); a catalog record without a page of its own (it does not bear on the campaign) is its
        title, marked as from the catalog, linked to its first upstream thread when it has one."""
        if record is None:
            return inline(rid)
        if record.id not in self.published:
            return self.catalog_mention(record)
        target = self.md_target(src_from, page_of(record))
        catalog = self.kg.records.catalog_of.get(record.id)
        if catalog:  # a catalog record with a page: marked as from the catalog wherever it is named
            return Markup(f"[{inline(record.title)} (catalog {inline(catalog)})]({target})")
        return Markup(f"[{inline(record.title)}]({target})")

    def catalog_mention(self, record: Record) -> Markup:
        """A catalog record named on a page without a page of its own: ``title (catalog
        blackwell)``, linked to its first upstream issue or pull request when it has one."""
        catalog = self.kg.records.catalog_of.get(record.id, "")
        text = Markup(f"{inline(record.title)} (catalog {inline(catalog)})")
        upstream = getattr(record, "upstream", None) or []
        if upstream:
            return Markup(f"[{text}]({upstream_url(upstream[0])})")
        return text

    def href(self, src_from: str, src_to: str) -> str:
        """A final URL (for raw HTML such as SVG) from ``src_from``'s page to ``src_to``'s."""
        a = url_of(self.source(src_from), self.directory_urls)
        b = url_of(self.source(src_to), self.directory_urls)
        base = (a if self.directory_urls else posixpath.dirname(a)).rstrip("/") or "."
        rel = relpath(b.rstrip("/") or ".", base)
        return rel + "/" if (b == "" or b.endswith("/")) else rel

    def md_target(self, src_from: str, src_to: str) -> str:
        """The target of a Markdown link from page ``src_from`` to the page ``src_to``: the source
        path relative to ``src_from``'s folder (``../compare/index.md``), which MkDocs turns into
        the page's URL under either ``use_directory_urls`` (a query string after it is kept)."""
        return relpath(self.source(src_to), posixpath.dirname(self.source(src_from)))

    def link_to(self, src_from: str, src_to: str, text: str) -> Markup:
        """A Markdown link from page ``src_from`` to the generated page ``src_to``, showing ``text``."""
        return Markup(f"[{inline(text)}]({self.md_target(src_from, src_to)})")

    @cached_property
    def roots_report(self) -> RootsReport:
        """:func:`kb.queries.roots_report` over every campaign: the rows of the home page and of
        the Root causes page (the same as ``kb roots``), and the catalog roots no attempt met."""
        return roots_report(self.kg)

    @property
    def roots(self) -> list[RootCause]:
        """The ranked root causes of :attr:`roots_report`."""
        return self.roots_report.roots

    @cached_property
    def tag_anchors(self) -> dict[str, str]:
        """Each tag → the anchor of its section on the tags page (``tag-<slug>``; a slug shared by
        two spellings gets a number)."""
        out: dict[str, str] = {}
        taken: set[str] = set()
        for t in sorted(self.rev.tagged):
            anchor = free_id("tag-" + slugify(t, fallback="x"), taken)
            taken.add(anchor)
            out[t] = anchor
        return out

    def tag_links(self, src_from: str, tags: list[str]) -> list[Markup]:
        """Links from page ``src_from`` to each tag's section of the tags page."""
        target = self.md_target(src_from, "tags.md")
        return [Markup(f"[{inline(t)}]({target}#{self.tag_anchors[t]})") for t in tags]

    @cached_property
    def pairs(self):
        """The attempt pairs published as compare pages (:func:`kb.queries.compare.compare_pairs`)."""
        return compare_pairs(self.kg)

    @cached_property
    def pairs_of(self) -> dict[str, list]:
        """Each attempt id → the published pairs it is part of, in :attr:`pairs` order."""
        out: dict[str, list] = {}
        for p in self.pairs:
            out.setdefault(p.a, []).append(p)
            if p.b != p.a:
                out.setdefault(p.b, []).append(p)
        return out


def _env() -> jinja2.Environment:
    def finalize(value: Any) -> Any:
        if value is None:
            return ""
        return value if isinstance(value, Markup) else inline(value)

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kb.site", "templates"),
        autoescape=False,  # noqa: S701 - the templates write Markdown, whose text kb.site.text escapes itself
        finalize=finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        # kb's templates are package files: never re-checked on disk while a build runs (with
        # auto_reload every include stat()ed its file again, ~20,000 times at 1,000 attempts)
        auto_reload=False,
    )
    env.filters["md"] = markdown_block
    env.filters["code"] = code_block
    env.filters["mono"] = mono
    env.filters["join"] = join
    return env


_ENV = _env()


def render(template: str, **context: Any) -> str:
    return tidy_markdown(_ENV.get_template(template).render(**context))


def tidy_markdown(text: str) -> str:
    """Blank lines where Markdown needs them (before headings, tables and admonitions, after
    lists) and never more than one in a row; fenced code is left untouched."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence is not None:
            out.append(line)
            if stripped.startswith(fence) and stripped.strip("`") == "":
                fence = None
            continue
        if stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        prev = out[-1] if out else ""
        starts_block = (line.startswith(("#", "!!!", "<div", "```"))
                        or (line.startswith("|") and not prev.startswith("|"))
                        or (prev.startswith(("- ", "|")) and line and not line.startswith((prev[0], " "))))
        if starts_block and prev.strip():
            out.append("")
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line.rstrip())
    return "\n".join(out).strip("\n") + "\n"


def metric_name(name: str) -> str:
    """Display name of a metric (``output_throughput`` → ``Output throughput``)."""
    return METRIC_NAMES.get(name, name.replace("_", " "))


def delta(value: float, ref: float, higher: bool) -> str:
    if ref == 0:
        return ""
    pct = (value - ref) / ref * 100
    return f"{pct:+.1f} %"


# --------------------------------------------------------------------------- pages


def outcome_cell(outcome: Outcome | str) -> Markup:
    name = outcome.value if isinstance(outcome, Outcome) else outcome
    return Markup(f'{OUTCOME_ICONS.get(name, "")} {inline(name)}')


def attempt_row(c: Ctx, src: str, a: Attempt) -> dict[str, Any]:
    m = headline(c.kg, a)
    return {
        "date": a.date.isoformat(),
        "link": c.link(src, a),
        "outcome": outcome_cell(a.outcome),
        "metric": m.display() if m else "—",
        "blocked_by": Markup(", ".join(c.link(src, c.kg.get(b), b) for b in a.blocked_by)) or "—",
        "draft": a.status == "draft",
    }


def shown(items: list, *, last: bool = False) -> list:
    """``items`` when they fit in a page's table (at most :data:`~kb.site.pages.lists.ROWS`), else
    the first (or with ``last``, the last) ``ROWS`` of them; the page then links to their list."""
    if len(items) <= ROWS:
        return items
    return items[-ROWS:] if last else items[:ROWS]


def latest(attempts: list[Attempt]) -> list[Attempt]:
    """``attempts`` as they are when they fit in a page's table (at most
    :data:`~kb.site.pages.lists.ROWS`), else the newest ``ROWS`` of them, oldest first."""
    if len(attempts) <= ROWS:
        return attempts
    return by_date(attempts)[-ROWS:]


_RECORD_WORD = re.compile(r"\b([a-z0-9][a-z0-9_]*(?:[.\-][a-z0-9_]+)+)\b")
"""A word that may be a record id: a slug of two parts or more (``sm120-unsupported``,
``cuda-13.0``, ``2026-02-26-upgrade-to-cuda-13``); :func:`with_titles` looks each up."""


def with_titles(c: Ctx, src: str, text: str) -> Markup:
    """``text`` (a sentence of kb's queries, which name records by id: ``kb check``'s findings, a
    blocker's missing requirements such as ``cause arch-allowlist-omits-sm12x (no known fix)``)
    as inline Markdown on page ``src`` with each record id it names replaced by the link to that
    record, shown by its title (:meth:`Ctx.link`); other words stay as they are, escaped
    (:func:`kb.site.text.inline`)."""
    out: list[Markup] = []
    at = 0
    for m in _RECORD_WORD.finditer(text):
        record = c.kg.get(m.group(1))
        if record is not None:
            out += [_plain(text[at:m.start()]), c.link(src, record)]
            at = m.end()
    out.append(_plain(text[at:]))
    return Markup("").join(out)


def _plain(text: str) -> Markup:
    """:func:`kb.site.text.inline` keeping one space where ``text`` begins or ends with blanks
    (it sits between links).

    >>> str(_plain(" is resolved, but ")), str(_plain("")), str(_plain(" (no known fix)"))
    (' is resolved, but ', '', ' &#40;no known fix&#41;')
    """
    if not text:
        return Markup("")
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    return Markup(lead) + inline(text) + Markup(trail)


def plural(n: int, word: str) -> str:
    """``"1 attempt"``, ``"3 attempts"``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def with_drafts(reviewed: int, drafts: int) -> str:
    """``"3"``, or ``"3 (+6 drafts)"`` when unreviewed drafts are blocked too."""
    return f"{reviewed} (+{drafts} draft{'s' if drafts != 1 else ''})" if drafts else str(reviewed)


def sources(r: Record) -> list[dict[str, Any]]:
    """The record's sources for display, in order, without repeats, each with the field it
    supports (``error``, ``stack.cuda``) when the importer said so."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for s in r.source:
        key = (s.file, s.url, s.locator, s.quote, s.field)
        if key in seen:
            continue
        seen.add(key)
        out.append({"file": s.file, "url": s.url, "locator": s.locator, "quote": s.quote, "format": s.format,
                    "sha256": s.sha256[:12] if s.sha256 else None, "size": s.size, "field": s.field,
                    "summary": s.summary})
    return out


def components_table(c: Ctx, comps: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": k, "version": v.version or "—", "source": v.source or ""} for k, v in sorted(comps.items())]
