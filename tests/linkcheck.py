"""A link checker for built sites: every internal ``href`` and ``src`` of every HTML page must
name a file of the site.

A link is resolved as a browser resolves it against the page's URL (the page's path under the
site folder): a directory URL (``../x/``) means its ``index.html``, a root-relative path
(``/assets/x.css``) the site's root. Left out: fragment-only links (``#top``), links with a
scheme or a host (``https:``, ``mailto:``, ``data:``, ``//cdn``), and empty values. The query
and fragment of a checked link are dropped. A link that climbs above the site's root is broken.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

ATTRIBUTES = ("href", "src", "xlink:href")
"""What is checked on every element: links (``<a>``, ``<link>``, SVG's ``<a>`` in both of its
spellings) and embedded files (``<img>``, ``<script>``)."""


@dataclass
class Broken:
    """One link that names no file: the page (path under the site), the element, the attribute,
    the value as written and the path it resolved to."""

    page: str
    tag: str
    attribute: str
    value: str
    resolved: str

    def __str__(self) -> str:
        return f"{self.page}: <{self.tag} {self.attribute}={self.value!r}> -> {self.resolved} (missing)"


@dataclass
class Report:
    """What :func:`check_site` found: how many pages and internal links it checked, the targets
    of the links it checked (resolved paths, for asserting that given files were linked), and the
    broken links."""

    pages: int = 0
    links: int = 0
    targets: set[str] = field(default_factory=set)
    broken: list[Broken] = field(default_factory=list)


def internal_path(value: str) -> str | None:
    """The path part of an internal link, or ``None`` for a link left out (see the module).

    >>> internal_path("../a/"), internal_path("x.yaml?raw=1#l2"), internal_path("#top")
    ('../a/', 'x.yaml', None)
    >>> internal_path("https://github.com/x"), internal_path("mailto:a@b"), internal_path("//cdn/x.js")
    (None, None, None)
    """
    value = value.strip()
    if not value or value.startswith("#"):
        return None
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return None
    return unquote(parts.path) if parts.path else None


def resolve(page: str, path: str) -> str:
    """The file a link's ``path`` names from ``page`` (both relative to the site's root);
    ``..`` at the start of the result means above the root.

    >>> resolve("attempts/a/index.html", "../b/"), resolve("index.html", "assets/kb.css")
    ('attempts/b/index.html', 'assets/kb.css')
    >>> resolve("attempts/a/index.html", "/tags/"), resolve("a/index.html", "../../../x")
    ('tags/index.html', '../../x')
    """
    joined = path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(page), path)
    target = posixpath.normpath(joined)
    if path.endswith("/") or target == ".":
        target = posixpath.join(target, "index.html") if target != "." else "index.html"
    return target


def check_site(site: Path) -> Report:
    """Check every ``*.html`` under ``site`` (see the module); a target that is a folder counts
    when it holds an ``index.html``."""
    report = Report()
    for page_file in sorted(site.rglob("*.html")):
        page = page_file.relative_to(site).as_posix()
        report.pages += 1
        soup = BeautifulSoup(page_file.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.find_all(True):
            for attribute in ATTRIBUTES:
                value = tag.get(attribute)
                if not isinstance(value, str):
                    continue
                path = internal_path(value)
                if path is None:
                    continue
                report.links += 1
                target = resolve(page, path)
                report.targets.add(target)
                file = site / target
                if file.is_dir():
                    file = file / "index.html"
                if target.startswith("../") or target == ".." or not file.is_file():
                    report.broken.append(Broken(page, tag.name, attribute, value, target))
    return report
