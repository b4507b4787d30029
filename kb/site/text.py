"""Making record text safe in generated Markdown pages.

Record fields and imported log text are untrusted: they may hold HTML, ``<script>``, ``onerror=``
attributes, ``javascript:`` links, Markdown link and image tricks, or attribute-list syntax. Every
value reaches a page through one of these functions:

* :func:`inline` — one line of plain text: HTML-escaped and with every Markdown-significant
  character written as a numeric character reference, so neither Python-Markdown (MkDocs) nor
  Zensical gives it meaning.
* :func:`code_block` — verbatim text (error output) in a fenced block longer than any backtick run
  inside it.
* :func:`markdown_block` — a field meant as Markdown (notes, context): rendered by markdown-it-py
  with raw HTML disabled, unsafe link schemes refused (markdown-it's ``validateLink``), and images
  shown as links instead of being fetched (no request leaves the site).

The Jinja environment of :mod:`kb.site.pages` applies :func:`inline` to every ``{{ value }}`` that
is not already :class:`markupsafe.Markup`, so a template cannot forget to escape.
"""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markupsafe import Markup

from kb.attachments import local_target

_MD_SPECIAL = frozenset("\\`*_{}[]()#+-!|~^=<>&:\"'$")
_REFS = {c: f"&#{ord(c)};" for c in _MD_SPECIAL}
_HOLD = "\ue000"
"""A private-use character that stands for ``&`` while ``#`` is written as a reference."""


def inline(value: object) -> Markup:
    """``value`` as inert inline Markdown: newlines folded to spaces, special characters as
    numeric character references (``[`` → ``&#91;``). Returns :class:`Markup` (already safe)."""
    return Markup(_references(" ".join(str(value).split())))


def _references(text: str) -> str:
    """Every character of :data:`_MD_SPECIAL` in ``text`` as its numeric character reference.

    One ``str.replace`` per special character present (a character-by-character join took
    ~10x as long, and this runs for every value on every page): ``&`` and ``#`` first, since
    the references themselves hold them (``&`` waits as :data:`_HOLD` while ``#`` is replaced;
    text already holding that character takes the character-by-character way).
    """
    present = _MD_SPECIAL.intersection(text)
    if not present:
        return text
    if "&" in present:
        if "#" in present:
            if _HOLD in text:
                return "".join([_REFS.get(c, c) for c in text])
            text = text.replace("&", _HOLD).replace("#", "&#35;").replace(_HOLD, "&#38;")
        else:
            text = text.replace("&", "&#38;")
    elif "#" in present:
        text = text.replace("#", "&#35;")
    for c in present:
        if c != "&" and c != "#":
            text = text.replace(c, _REFS[c])
    return text


def mono(value: object) -> Markup:
    """``value`` as inline code: an HTML ``<code>`` element around :func:`inline` text (a Markdown
    code span would show the character references literally)."""
    return Markup(f"<code>{inline(value)}</code>")


def join(items: object, sep: str = "") -> Markup:
    """Join ``items`` with ``sep``, escaping with :func:`inline` each item that is not Markup."""
    return Markup(_references(sep)).join(
        x if isinstance(x, Markup) else inline(x) for x in items  # type: ignore[attr-defined]
    )


def code_block(text: str, lang: str = "text") -> Markup:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text.replace("\r\n", "\n").rstrip("\n")
    return Markup(f"{fence} {lang}\n{body}\n{fence}")


def _md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.enable("strikethrough")

    def image(self, tokens, idx, options, env):
        tok = tokens[idx]
        src = tok.attrGet("src") or ""
        alt = escape(tok.content or "image")
        local = local_target(src)
        if local is not None:  # a file of records/assets/: shown, from the site itself
            return f'<img src="{ASSET_SCHEME}{escape(local)}" alt="{alt}" loading="lazy">'
        return f'<a href="{escape(src)}" rel="nofollow noopener">[image: {alt}]</a>'

    def link_open(self, tokens, idx, options, env):
        local = local_target(tokens[idx].attrGet("href") or "")
        if local is not None:
            tokens[idx].attrSet("href", ASSET_SCHEME + local)
        tokens[idx].attrSet("rel", "nofollow noopener")
        return self.renderToken(tokens, idx, options, env)

    default_fence = md.renderer.rules["fence"]  # type: ignore[attr-defined]  # RendererHTML has rules

    def fence(self, tokens, idx, options, env):
        tok = tokens[idx]
        if tok.info.strip().split(" ")[0].lower() == "mermaid":
            return f'<pre class="{MERMAID_CLASS}">{escape(tok.content)}</pre>\n'
        return default_fence(tokens, idx, options, env)

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("fence", fence)
    return md


MERMAID_CLASS = "kb-mermaid"
"""Class of the ``<pre>`` holding a Mermaid diagram's source. kb's own script draws them (see
:mod:`kb.site.tree`); Material's would fetch Mermaid from a CDN for its ``mermaid`` class."""

ASSET_SCHEME = "kb-asset:"
"""Placeholder scheme of links to files under ``records/assets/``; :mod:`kb.site.tree` rewrites
it into a path relative to each page once the page's place in the site is known."""

_MARKDOWN = _md()


def markdown_block(text: str | None) -> Markup:
    """Markdown ``text`` rendered to safe HTML inside a ``<div class="kb-md">`` raw block.

    Headings inside are demoted by two levels (``#`` → ``<h3>``) so they sit under the page's own
    sections. Returns ``Markup("")`` for empty text.
    """
    if not text or not text.strip():
        return Markup("")
    html = _MARKDOWN.render(text)
    html = re.sub(r"<(/?)h([1-6])>", lambda m: f"<{m.group(1)}h{min(int(m.group(2)) + 2, 6)}>", html)
    return Markup(f'<div class="kb-md">\n{html.strip()}\n</div>')
