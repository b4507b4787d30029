"""Writing kb's many look-alike pages without a Material render each: one render per page *shape*.

Material's ``main.html`` is most of a build's time (≈ 3 ms a page, the navigation, header and
footer rendered again for every page), yet kb's record pages (attempts, blockers, compare pairs,
decisions) differ from their neighbours in a few values only. For such a page MkDocs is left to do
everything it does (read it, run every plugin event, resolve and validate links, list it in the
sitemap, write the file), and only the template render is replaced:

1. the kb plugin marks an eligible page (:meth:`Shells.mark`) with ``template: kb-shell.html``, a
   template whose whole text calls :meth:`Shells.render` (:meth:`Shells.install` adds it to the
   theme's Jinja environment);
2. :meth:`Shells.render` renders ``main.html`` once per shape (the page's folder, its search meta,
   whether its HTML has an ``<h1>``, the kind of table of contents) for a *sentinel* page of that
   folder: title, HTML, first anchor and file name are marker strings
   (:data:`TITLE`, :data:`CONTENT`, :data:`ANCHOR`, :data:`NAME`) and the table of contents is cut
   out (it is rendered with Material's own ``partials/toc.html``, once per distinct set of
   entries); a folder takes shells from :data:`MIN_PAGES` pages on;
3. each page of that shape is the shell with the markers replaced by the page's own values, as
   Jinja writes them (the MkDocs environment does not autoescape, and the shell is accepted only
   if every marker reached the HTML unfiltered: a marker escaped, stripped or URL-encoded leaves
   its word ``KbShell…`` in the shell, which is then refused);
4. the first page of each shape is also rendered by ``main.html`` itself and compared; a shape
   whose shell gives other bytes is never used (its pages get ``main.html``).

Where a page cannot be proven equal this way, the whole site (or the page) takes Material's
render: :func:`unsupported` names the sites (a theme other than Material, a ``custom_dir`` that may
override templates, a plugin other than kb and search, which may add to a page's context), and a
page in the navigation, with an edit link, other metadata or an unusual file name is never marked.
``tests/test_site_shell.py`` builds the test campaign both ways and compares every file.
"""

from __future__ import annotations

import logging
import posixpath
import re
from typing import Any

log = logging.getLogger("mkdocs.plugins.kb")

TEMPLATE = "kb-shell.html"
"""The template name a marked page carries in its metadata (taken out again before rendering)."""

_WORD = "KbShell7f3"
TITLE = _WORD + "Title<&\"'>"
"""The sentinel page's title (``page.title`` and ``page.meta.title``)."""
CONTENT = _WORD + "Content<&\"'>"
"""The sentinel page's HTML (:data:`CONTENT_H1` when the page's own HTML has an ``<h1``)."""
CONTENT_H1 = CONTENT + "<h1>"
ANCHOR = _WORD + "Anchor"
"""The id of the sentinel page's first table-of-contents entry (Material's skip link)."""
NAME = _WORD + "Name"
"""The sentinel page's file name (its URL, canonical URL)."""
DIR = _WORD + "Dir"
"""The sentinel page's folder name, for the folders of a group (see :func:`plan`)."""
_TOC = "\x00kb-shell-toc\x00"
_SLOTS = re.compile("|".join(re.escape(s) for s in (_TOC, TITLE, CONTENT_H1, CONTENT, ANCHOR, NAME, DIR)))
_TOC_WORD = _WORD + "Toc"
_TOC_SLOTS = re.compile(re.escape(_TOC_WORD) + r"""(?:t(\d+)<&"'>|u(\d+))""")
_SAFE_NAME = re.compile(r"[A-Za-z0-9._-]+")
_TOC_SOURCE = '{% import "partials/language.html" as lang with context %}{% include "partials/toc.html" %}'
PLUGINS = frozenset({"kb", "search", "material/search", "kb-preview"})
"""Plugins known to leave a page's template context alone (``kb-preview`` is ``kb serve``'s)."""
TOC_CACHE = 512
"""Shapes of tables of contents kept as shells (:meth:`Shells._toc`), at most."""
MIN_PAGES = 8
"""A folder needs this many marked pages for its shell (two renders) to pay off."""


def plan(pages: list[str], others: list[str], nav_urls: list[str]) -> tuple[set[str], set[str]]:
    """Which pages take shells: ``(folders, groups)``.

    ``pages``: the source paths of the generated pages out of the navigation; ``others``: those
    of every other file of the site; ``nav_urls``: the URLs the navigation links. A *group* is a
    folder (``lists``) holding nothing but such pages, in subfolders, and no navigation URL leads
    into it: the theme links nothing inside it, so its subfolders' pages (``lists/a/2.md``,
    ``lists/b/index.md``) differ only in their folder's and file's names and share shells, index
    pages included. ``folders``: the folders whose pages are marked, those of a group or with
    :data:`MIN_PAGES` pages of their own.
    """
    parents = {posixpath.dirname(posixpath.dirname(p)) for p in pages} - {""}
    blocked: set[str] = set()
    for other in others:
        a = posixpath.dirname(other)
        while a:
            if a in parents:
                blocked.add(a)
            a = posixpath.dirname(a)
    for url in nav_urls:
        path = url.lstrip("/")
        blocked.update(p for p in parents if path == p or path.startswith(p + "/"))
    groups = parents - blocked
    counts: dict[str, int] = {}
    for p in pages:
        folder = posixpath.dirname(p)
        unit = posixpath.dirname(folder) if posixpath.dirname(folder) in groups else folder
        if unit != folder or posixpath.basename(p) != "index.md":
            counts[unit] = counts.get(unit, 0) + 1
    folders = set()
    for p in pages:
        folder = posixpath.dirname(p)
        unit = posixpath.dirname(folder) if posixpath.dirname(folder) in groups else folder
        if counts.get(unit, 0) >= MIN_PAGES:
            folders.add(folder)
    return folders, groups


def unsupported(config: Any) -> str | None:
    """Why the site's pages cannot take shells (``None`` when they can): the theme must be
    Material without a ``custom_dir`` and the plugins among :data:`PLUGINS`."""
    theme = config.theme
    if theme.name != "material":
        return f"theme {theme.name!r} is not Material"
    if theme.custom_dir:
        return f"theme custom_dir {theme.custom_dir!r} may override Material's templates"
    other = sorted(set(config.plugins) - PLUGINS)
    if other:
        return f"plugins {', '.join(other)} may change a page's template context"
    return None


class Shells:
    """The shells of one build and the pages written from them.

    ``config``: the MkDocs configuration; ``env``: the theme's Jinja environment (see
    :meth:`install`). ``written``: source paths of the pages written from a shell;
    ``refused``: shape keys whose shell was not exact (their pages get ``main.html``).
    """

    def __init__(self, config: Any, env: Any, groups: set[str] | None = None) -> None:
        self.config = config
        self.groups = groups or set()
        self.main = env.get_template("main.html")
        self.toc = env.from_string(_TOC_SOURCE)
        self.shells: dict[tuple[Any, ...], list[str] | None] = {}
        self.checked: set[tuple[Any, ...]] = set()
        self.written: set[str] = set()
        self.refused: set[tuple[Any, ...]] = set()
        self.toc_shells: dict[tuple[Any, ...], list[Any] | None] = {}

    @classmethod
    def install(cls, config: Any, env: Any, groups: set[str] | None = None) -> Shells:
        """Add :data:`TEMPLATE` (and the function it calls) to ``env``; returns the new shells
        (``groups``: see :func:`plan`)."""
        import jinja2

        shells = cls(config, env, groups)
        env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({TEMPLATE: "{{ kb_shell_page() }}"}), env.loader])

        @jinja2.pass_context
        def kb_shell_page(context: Any) -> Any:
            return shells.render(context)

        env.globals["kb_shell_page"] = kb_shell_page
        return shells

    @staticmethod
    def mark(page: Any, index: bool = False) -> bool:
        """Mark ``page`` for a shell (set its template) when it can take one: out of the
        navigation (it may still have a parent there, :mod:`kb.site.navigation`), not an index page (unless ``index``: in a group, see :func:`plan`), a plain
        file name, no metadata but ``search`` and the title kb pins; returns whether it was
        marked."""
        meta = page.meta
        if ((page.file.name == "index" and not index) or page.is_homepage
                or not page.file.inclusion.is_not_in_nav() or not _SAFE_NAME.fullmatch(page.file.name)
                or not set(meta) <= {"title", "search"}):
            return False
        meta["template"] = TEMPLATE
        return True

    def render(self, context: Any) -> Any:
        """The page of ``context`` (a Jinja context of MkDocs' ``_build_page``) as ``main.html``
        would render it, from its shape's shell where there is one. Returns a ``Markup`` string."""
        from markupsafe import Markup

        values = context.parent
        page = values["page"]
        page.meta.pop("template", None)
        key = self._key(page, values.get("nav"))
        if key is None:
            return Markup(self.main.render(values))
        shell = self.shells.get(key, ...)
        if shell is ...:
            shell = self.shells[key] = self._shell(key, values)
        if shell is None:
            return Markup(self.main.render(values))
        first = next(iter(page.toc), None)
        slot = {_TOC: self._toc(page.toc, values), TITLE: page.meta["title"], CONTENT: page.content,
                CONTENT_H1: page.content, ANCHOR: first.id if first is not None else "",
                NAME: page.file.name, DIR: posixpath.basename(posixpath.dirname(page.file.src_uri))}
        out = "".join(slot.get(part, part) if i % 2 else part for i, part in enumerate(shell))
        if key not in self.checked:
            self.checked.add(key)
            real = self.main.render(values)
            if real != out:
                log.debug("kb: the shell of %s differs from main.html; its pages take main.html", key)
                self.shells[key] = None
                self.refused.add(key)
                return Markup(real)
        self.written.add(page.file.src_uri)
        return Markup(out)

    def _toc(self, toc: Any, values: dict[str, Any]) -> str:
        """Material's ``partials/toc.html`` for ``toc`` (a page's table of contents).

        ``toc.html`` reads of its entries the ids, the titles, the first entry's level and the
        nesting (the typeset plugin, which adds a field, is not among :data:`PLUGINS`), and writes
        a leaf entry's title and URL as they are. So it is rendered once per *toc shape*
        (:func:`_toc_shape`: the nesting, the levels, and the titles of entries with children,
        which it filters) for sentinel entries, and each page's entries are put in its slots;
        the first page of each shape is also rendered for real and compared (a shape whose toc
        shell gives other bytes, or whose markers did not reach the HTML unfiltered, is rendered
        for each page)."""
        shape = _toc_shape(toc)
        shell = self.toc_shells.get(shape, ...)
        if shell is ...:
            if len(self.toc_shells) >= TOC_CACHE:
                self.toc_shells.clear()
            shell = self.toc_shells[shape] = self._toc_shell(toc, values)
            if shell is not None:
                out = _fill_toc(shell, toc)
                if out != self.toc.render(values):
                    log.debug("kb: the toc shell of shape %r differs from toc.html", shape)
                    self.toc_shells[shape] = None
                    return self.toc.render(values)
                return out
        if shell is None:
            return self.toc.render(values)
        return _fill_toc(shell, toc)

    def _toc_shell(self, toc: Any, values: dict[str, Any]) -> list[str] | None:
        """``toc.html`` rendered for sentinel entries of ``toc``'s shape, split at its slots:
        ``[text, slot, text, …]``, each slot ``("t" or "u", entry number)`` (a leaf entry's title,
        an entry's id in its URL); ``None`` when a marker did not reach the HTML as it was."""
        import copy

        from mkdocs.structure.toc import AnchorLink, TableOfContents

        count = 0

        def sentinel(items: Any, top: bool = False) -> list[Any]:
            nonlocal count
            out = []
            for k, item in enumerate(items):
                n = count
                count += 1
                unread = top and k == 0 and item.level == 1  # toc.html lists its children alone
                title = item.title if item.children and not unread else f"{_TOC_WORD}t{n}<&\"'>"
                link = AnchorLink(title, f"{_TOC_WORD}u{n}", item.level)
                link.children = sentinel(item.children)
                out.append(link)
            return out

        page = copy.copy(values["page"])
        page.toc = TableOfContents(sentinel(toc, top=True))
        html = self.toc.render({**values, "page": page})
        parts = _TOC_SLOTS.split(html)
        if any(_TOC_WORD.lower() in p.lower() for p in parts[::3]):
            return None
        shell: list[Any] = [parts[0]]
        for i in range(1, len(parts), 3):
            title, url = parts[i], parts[i + 1]
            shell += [("t", int(title)) if title is not None else ("u", int(url)), parts[i + 2]]
        return shell

    def _key(self, page: Any, nav: Any) -> tuple[Any, ...] | None:
        """The shape of ``page`` (``None``: no shell can be proven for it); ``nav``: the site's
        navigation, whose entries marked active (:mod:`kb.site.navigation`) and the page's
        parent there are part of the shape."""
        meta = page.meta
        if (page.previous_page is not None or page.next_page is not None
                or page.edit_url or not set(meta) <= {"title", "search"} or meta.get("title") != page.title
                or not isinstance(page.title, str) or page.content is None):
            return None
        folder = posixpath.dirname(page.file.src_uri)
        parent = posixpath.dirname(folder)
        grouped = parent in self.groups and _SAFE_NAME.fullmatch(posixpath.basename(folder)) is not None
        index = page.file.name == "index"
        if index and not grouped:
            return None
        first = next(iter(page.toc), None)
        toc = "" if first is None else ("1c" if first.children else "1") if first.level == 1 else "n"
        marks = (id(page.parent), tuple(i for i, p in enumerate(getattr(nav, "pages", None) or []) if p.active))
        return (parent if grouped else folder, grouped, index, repr(meta.get("search")), "<h1" in page.content, toc, marks)

    def _shell(self, key: tuple[Any, ...], values: dict[str, Any]) -> list[str] | None:
        """Render the sentinel page of shape ``key`` with ``values`` (the real page's template
        context); returns the shell as ``[text, slot, text, slot, …, text]``, or ``None`` when a
        marker was filtered on its way into the HTML or the table of contents is not found once."""
        from mkdocs.structure.files import File
        from mkdocs.structure.pages import Page
        from mkdocs.structure.toc import AnchorLink, TableOfContents

        place, grouped, index, _search, h1, toc, _marks = key
        real = values["page"]
        name = ("index" if index else NAME) + ".md"
        src = posixpath.join(place, DIR, name) if grouped else posixpath.join(place, name)
        f = File.generated(self.config, src, content="", inclusion=real.file.inclusion)
        sentinel = Page(None, f, self.config)
        sentinel.markdown = ""
        sentinel.meta = {**real.meta, "title": TITLE}
        sentinel._title_from_render = TITLE
        sentinel.content = CONTENT_H1 if h1 else CONTENT
        items = []
        if toc:
            first = AnchorLink(TITLE, ANCHOR, 1 if toc in ("1", "1c") else 2)
            if toc == "1c":
                first.children.append(AnchorLink(TITLE, ANCHOR + "Child", 2))
            items.append(first)
        sentinel.toc = TableOfContents(items)
        sentinel.parent = real.parent  # the same place in the navigation
        sentinel.active = True
        ctx = {**values, "page": sentinel}
        html = self.main.render(ctx)
        region = self.toc.render(ctx)
        if html.count(region) != 1:
            return None
        parts = _SLOTS.split(html.replace(region, _TOC))
        slots = _SLOTS.findall(html.replace(region, _TOC))
        if any(_WORD.lower() in p.lower() for p in parts):
            return None
        shell: list[str] = [parts[0]]
        for slot, text in zip(slots, parts[1:]):
            shell += [slot, text]
        return shell


def _toc_shape(items: Any, top: bool = True) -> tuple[Any, ...]:
    """The shape of a table of contents (see :meth:`Shells._toc`): per entry its level, its title
    when it has children (``toc-item.html`` filters that one) and the shape of its children. The
    title of a first entry of level 1 is left out: ``toc.html`` lists its children instead of it."""
    return tuple((i.level, None if not i.children or (top and n == 0 and i.level == 1) else i.title,
                  _toc_shape(i.children, False)) for n, i in enumerate(items))


def _toc_values(items: Any, out: list[Any]) -> list[Any]:
    """The entries of a table of contents in the order :meth:`Shells._toc_shell` numbers them."""
    for i in items:
        out.append(i)
        _toc_values(i.children, out)
    return out


def _fill_toc(shell: list[Any], toc: Any) -> str:
    """A toc shell with the entries of ``toc`` (of the shell's shape) in its slots."""
    entries = _toc_values(toc, [])
    out = []
    for i, part in enumerate(shell):
        if i % 2:
            kind, n = part
            out.append(str(entries[n].title if kind == "t" else entries[n].id))  # as Jinja writes a value
        else:
            out.append(part)
    return "".join(out)
