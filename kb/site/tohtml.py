"""kb's generated Markdown to HTML without Python-Markdown: the HTML handoff of the MkDocs plugin.

kb writes its pages in a small, fixed Markdown dialect (:mod:`kb.site.pages`): headings (some with
an attribute-list id, ``## Error: … { #error }``), Material admonitions (``!!! failure "Failed"``
with a 4-space indented body), pipe tables, lists, fenced code, and raw HTML blocks that kb itself
built (charts, diagrams, rendered notes, the record footer). Python-Markdown converts such a page
in 3-6 ms (35 s of a 1,000-attempt build) and markdown-it-py in 2-4 ms, against ~2.8 ms for
MkDocs and Material to build a whole minimal page. markdown-it-pyrs (markdown-it's Rust port, by
markdown-it-py's maintainer) converts it in ~0.4 ms. (cmark-gfm through ``cmarkgfm`` takes
~0.15 ms but its extension API leaks each parse tree and output: ~25 KB a page, 250 MB at 10,000
attempts.) :func:`render_page` splits off what CommonMark does not know (admonitions, raw HTML
blocks, heading attribute lists), has markdown-it-pyrs convert the rest, and gives the HTML
that MkDocs with ``admonition``, ``tables``, ``toc``, ``attr_list`` and ``fenced_code`` would:

* heading ids: an attribute-list id (``{ #error }``) is kept; every other heading gets
  Python-Markdown's ``toc`` slug of its text (its own ``slugify`` and ``unique``, so ``_1``
  suffixes match), and a permalink (``<a class="headerlink" …>``) when the site's ``toc`` has one;
* the table of contents tokens (``level``, ``id``, ``name``, ``children``) that MkDocs turns into
  ``page.toc``;
* admonitions: ``<div class="admonition KIND"><p class="admonition-title">TITLE</p>…</div>``;
* raw HTML blocks (a block-level tag at the start of a line, up to its closing tag) pass through
  unchanged and are not searched for headings or links, as in Python-Markdown;
* links and images in Markdown go through the ``link`` callback (the plugin resolves ``.md``
  targets against MkDocs' files as MkDocs' own link processor does).

Record text reaches the Markdown already escaped (:mod:`kb.site.text`), so no raw HTML in it is live
here either. A page using anything outside that dialect is not guessed at: :func:`render_page`
returns ``None`` and the plugin leaves the page to MkDocs' Markdown.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markdown.extensions.toc import nest_toc_tokens, slugify, strip_tags, unique
from markdown.util import BLOCK_LEVEL_ELEMENTS
from markdown_it_pyrs import MarkdownIt

_ADMONITION = re.compile(r'^!!! ?([\w\-]+(?: +[\w\-]+)*)(?: +"(.*?)")? *$')
_RAW_OPEN = re.compile(r"^<([a-zA-Z][a-zA-Z0-9-]*)(?=[\s>/])")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_HEADING_ATTR = re.compile(r"[ \t]*\{[ \t]*:?[ \t]*#([^\s}]+)[ \t]*\}[ \t]*$")
_HEADING_HTML = re.compile(r"<h([1-6])>(.*?)</h\1>", re.S)
_LINK_ATTR = re.compile(r'(<a href="|<img src=")([^"]*)"')
_NEEDS_ESCAPE = re.compile(r"[&<>\"']")
_BLOCK_TAGS = frozenset(BLOCK_LEVEL_ELEMENTS)
_VOID = frozenset({"hr", "br", "img", "input", "meta", "link", "col", "area", "base", "embed", "source",
                   "track", "wbr", "param"})
_MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")
"""CommonMark with tables; raw inline HTML is kept (kb's own ``<code>``, ``<a class>``: record
text is escaped before it reaches the Markdown)."""


def _convert(text: str) -> str:
    return _MD.render(text)


@dataclass
class TocOptions:
    """The ``toc`` extension's settings that shape headings: ``permalink`` (``False``, ``True`` for
    ``&para;``, or the link's text), ``permalink_title``, ``permalink_class``, ``slugify``
    (``(text, separator) -> slug``), ``separator``, ``toc_depth`` (the deepest level listed)."""

    permalink: bool | str = False
    permalink_title: str = "Permanent link"
    permalink_class: str = "headerlink"
    slugify: Callable[[str, str], str] = slugify
    separator: str = "-"
    toc_depth: int = 6

    @classmethod
    def from_mdx(cls, config: dict[str, Any] | None) -> TocOptions:
        """From MkDocs' ``mdx_configs['toc']`` (missing keys keep Python-Markdown's defaults)."""
        c = config or {}
        depth = c.get("toc_depth", 6)
        return cls(permalink=c.get("permalink", False), permalink_title=c.get("permalink_title", "Permanent link"),
                   permalink_class=c.get("permalink_class", "headerlink"), slugify=c.get("slugify", slugify),
                   separator=c.get("separator", "-"),
                   toc_depth=int(str(depth).split("-")[-1]) if depth else 6)


@dataclass
class Rendered:
    """One page: ``html`` (the article body), ``toc`` (Python-Markdown's nested toc tokens, for
    :func:`mkdocs.structure.toc.get_toc`), ``ids`` (every heading id), ``title`` (the first
    ``<h1>``'s text as HTML, or ``None``)."""

    html: str
    toc: list[dict[str, Any]]
    ids: set[str] = field(default_factory=set)
    title: str | None = None


class Unsupported(Exception):
    """The page uses Markdown outside kb's dialect (the plugin then leaves it to MkDocs)."""


class _Page:
    """The state of one conversion: heading ids taken, toc tokens, the link callback."""

    def __init__(self, toc: TocOptions, link: Callable[[str], str] | None, explicit: set[str]) -> None:
        self.opts = toc
        self.link = link
        self.used: set[str] = set(explicit)
        self.counters: dict[str, int] = {}
        self.tokens: list[dict[str, Any]] = []
        self.ids: set[str] = set()
        self.title: str | None = None
        if toc.permalink in (False, None):
            self.permalink = None
        else:
            text = "&para;" if toc.permalink is True else htmllib.escape(str(toc.permalink))
            title = f' title="{htmllib.escape(toc.permalink_title)}"' if toc.permalink_title else ""
            self.permalink = f'<a class="{htmllib.escape(toc.permalink_class)}" href="#{{}}"{title}>{text}</a>'

    # ------------------------------------------------------------------ blocks

    def blocks(self, lines: list[str]) -> str:
        """HTML of ``lines``: admonitions and raw HTML split off, the rest through markdown-it-pyrs."""
        out: list[str] = []
        pending: list[str] = []
        explicit: list[str | None] = []  # the attribute-list id of each heading in ``pending``
        fence: str | None = None
        i, n = 0, len(lines)
        while i < n:
            line = lines[i]
            if fence is not None:
                pending.append(line)
                stripped = line.strip()
                if stripped.startswith(fence) and not stripped.strip(fence[0]):
                    fence = None
                i += 1
                continue
            first = line[:1]
            if first == "!" and line.startswith("!!!"):
                m = _ADMONITION.match(line)
                if m is None:
                    raise Unsupported(f"not an admonition: {line[:60]!r}")
                self._flush(pending, explicit, out)
                i = self._admonition(lines, i, m, out)
                continue
            if first == "<":
                rm = _RAW_OPEN.match(line)
                if rm and rm.group(1).lower() in _BLOCK_TAGS:
                    if pending and pending[-1].strip():
                        raise Unsupported(f"raw HTML block inside a paragraph: {line[:60]!r}")
                    self._flush(pending, explicit, out)
                    i = self._raw(lines, i, rm.group(1).lower(), out)
                    continue
            elif first == "#" or (first == " " and _HEADING_LINE.match(line)):
                if _HEADING_LINE.match(line):
                    am = _HEADING_ATTR.search(line)
                    explicit.append(am.group(1) if am else None)
                    if am:
                        line = line[: am.start()]
            elif first in ("`", "~", " ") and _FENCE.match(line):
                fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            pending.append(line)
            i += 1
        if fence is not None:
            raise Unsupported("unclosed code fence")
        self._flush(pending, explicit, out)
        return "\n".join(x for x in out if x)

    def _admonition(self, lines: list[str], i: int, m: re.Match[str], out: list[str]) -> int:
        kind, title = m.group(1), m.group(2)
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            line = lines[j]
            if line.startswith("    "):
                body.append(line[4:])
            elif line.startswith("\t"):
                body.append(line[1:])
            elif not line.strip():
                body.append("")
            else:
                break
            j += 1
        while body and not body[-1].strip():
            body.pop()
        klass = " ".join(kind.lower().split())
        if title is None:
            title = kind.split()[0].capitalize()
        head = ""
        if title:
            inner = _convert(title).strip()
            if inner.startswith("<p>") and inner.endswith("</p>"):
                inner = inner[3:-4]
            head = f'<p class="admonition-title">{inner}</p>\n'
        out.append(f'<div class="admonition {klass}">\n{head}{self.blocks(body)}\n</div>')
        return j

    @staticmethod
    def _raw(lines: list[str], i: int, tag: str, out: list[str]) -> int:
        if tag in _VOID:
            out.append(lines[i])
            return i + 1
        opener = re.compile(rf"<{tag}(?=[\s>/])", re.I)
        closer = re.compile(rf"</{tag}\s*>", re.I)
        depth = 0
        j = i
        while j < len(lines):
            depth += len(opener.findall(lines[j])) - len(closer.findall(lines[j]))
            j += 1
            if depth <= 0:
                break
        if depth > 0:
            raise Unsupported(f"raw HTML block <{tag}> is never closed")
        out.append("\n".join(lines[i:j]))
        return j

    def _flush(self, pending: list[str], explicit: list[str | None], out: list[str]) -> None:
        if not any(x.strip() for x in pending):
            pending.clear()
            explicit.clear()
            return
        html = _convert("\n".join(pending))
        pending.clear()
        if self.link is not None and ("<a href" in html or "<img src" in html):
            html = _LINK_ATTR.sub(self._link, html)
        if "<h" in html:
            ids = iter(explicit)

            def heading(m: re.Match[str]) -> str:
                try:
                    given = next(ids)
                except StopIteration:
                    raise Unsupported("a heading not on a line of its own") from None
                return self._heading(int(m.group(1)), m.group(2), given)

            html = _HEADING_HTML.sub(heading, html)
            if next(ids, "none left") != "none left":
                raise Unsupported("a heading line that is not a heading")
        elif explicit:
            raise Unsupported("a heading line that is not a heading")
        explicit.clear()
        out.append(html.rstrip("\n"))

    def _link(self, m: re.Match[str]) -> str:
        """One ``href``/``src`` of markdown-it's output through the link callback (unescaped
        for it, escaped again after)."""
        assert self.link is not None
        url = m.group(2)
        out = self.link(htmllib.unescape(url) if "&" in url else url)
        return f'{m.group(1)}{htmllib.escape(out) if _NEEDS_ESCAPE.search(out) else out}"'

    # ------------------------------------------------------------------ headings

    def _heading(self, level: int, inner: str, given: str | None) -> str:
        inner = inner.strip()
        name = strip_tags(inner)
        ident = given or unique(self.opts.slugify(htmllib.unescape(name), self.opts.separator), self.used, self.counters)
        self.ids.add(ident)
        if level == 1 and self.title is None:
            self.title = name
        if level <= self.opts.toc_depth:
            self.tokens.append({"level": level, "id": ident, "name": name, "html": inner, "data-toc-label": ""})
        link = self.permalink.format(ident) if self.permalink else ""
        return f'<h{level} id="{ident}">{inner}{link}</h{level}>'


_EXPLICIT_IDS = re.compile(r"^ {0,3}#{1,6}[ \t].*?\{[ \t]*:?[ \t]*#([^\s}]+)[ \t]*\}[ \t]*$", re.M)


def first_title(text: str) -> str | None:
    """The page title MkDocs takes from a page that starts with an ``<h1>``: its text as HTML,
    tags stripped (``"Torch symmetric-memory allreduce"``), or ``None`` when the first block is
    not a level-1 heading. Converts that one line only."""
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith("# "):
            return None
        am = _HEADING_ATTR.search(line)
        m = _HEADING_HTML.search(_convert(line[: am.start()] if am else line))
        return strip_tags(m.group(2).strip()) if m and m.group(1) == "1" else None
    return None


def render_page(text: str, *, toc: TocOptions | None = None,
                link: Callable[[str], str] | None = None) -> Rendered | None:
    """Convert one of kb's generated Markdown pages (without front matter) to HTML.

    ``toc``: the site's ``toc`` settings (:meth:`TocOptions.from_mdx`); ``link``: called with
    each Markdown link's or image's target (unescaped), returns the URL to write. Returns
    :class:`Rendered`, or ``None`` when the page uses Markdown outside kb's dialect (an
    admonition line that is not one, an unclosed fence or raw HTML block, a raw HTML block inside
    a paragraph), which the caller then converts the usual way.
    """
    page = _Page(toc or TocOptions(), link, set(_EXPLICIT_IDS.findall(text)))
    try:
        body = page.blocks(text.splitlines())
    except Unsupported:
        return None
    return Rendered(html=body, toc=nest_toc_tokens(page.tokens), ids=page.ids | page.used, title=page.title)
