"""Compact search entries for kb's attempt and blocker pages, added to the site's search index.

Material's search plugin indexes a page by parsing its whole HTML, one entry per section: at 10,000
attempts that is 12+ s of a build and an index that freezes the browser (case
``search-freeze-10k-records``). The MkDocs plugin marks attempt and blocker pages ``search: {exclude:
true}`` (Material's plugin then skips them without parsing) and adds what people search them for,
built from the record itself. An attempt (:func:`attempt_entries`) has two entries:

* the page entry: title; approach; outcome and headline metric; the versions of its stack's
  components; command, flags and environment; tags. What every attempt of a campaign or stack
  shares (campaign, platform, stack title) and what has entries of its own (blockers) stay out:
  the browser builds its index from every word here, and the first search waits for it;
* the error entry (``…#error``, the page's Error section): titled like that section,
  ``Error: KeyError: 12``, so a search for the error line ranks the attempt first (Material
  weighs a title 1,000 times its text), with the first lines of the error as text.

A blocker (:func:`blocker_entries`) has one: title; status and causes; description; how it is
fixed and the workaround; where it lives (component, flags); error signatures; upstream issues;
tags. Its page's diagram and attempt tables stay out: the attempts have entries of their own.

Text is HTML-escaped, as Material's own entries are (its search results show entries as HTML).
Every value comes from a record that went through kb's write gate (redacted before it was
written) and is shown on the attempt page too: the index holds nothing the pages do not.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from kb.atomic import write_text_atomic
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Record
from kb.queries import describe_fix

TEXT_LIMIT = 400
"""Characters kept of a long free-text field (approach, hypothesis) in an entry."""

ERROR_LINES, ERROR_LIMIT = 12, 800
"""Lines and characters of an error kept in its entry (the headline is in the title)."""


def _clip(text: str, limit: int = TEXT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _p(*parts: str | None, sep: str = " · ") -> str:
    kept = [escape(p, quote=False) for p in parts if p]
    return f"<p>{sep.join(kept)}</p>" if kept else ""


def attempt_entries(kg: KnowledgeGraph, a: Attempt, location: str, error_heading: str | None) -> list[dict[str, Any]]:
    """The search entries of attempt ``a`` whose page is at ``location`` (site-relative URL):
    ``[{"location", "title", "text"}, …]``, the page first, then its Error section when
    ``error_heading`` (the text of the page's Error heading) is given."""
    camp = kg.get(a.campaign)
    metric = a.metrics.get(camp.metric.name) if isinstance(camp, Campaign) else None
    versions = ", ".join(f"{k} {v.version}" for k, v in sorted(kg.attempt_components(a).items()) if v.version)
    cfg = a.config
    command = " ".join([*(f"{k}={v}" for k, v in cfg.env.items()), *([cfg.command] if cfg.command else cfg.flags)])
    text = "".join([
        _p(_clip(a.approach)),
        _p(a.outcome.value, metric.display() if metric else None, versions or None),
        f"<p><code>{escape(_clip(command), quote=False)}</code></p>" if command else "",
        _p("Tags: " + ", ".join(a.tags) if a.tags else None),
    ])
    entries = [{"location": location, "title": escape(a.title, quote=False), "text": text}]
    if error_heading and a.error:
        lines = a.error.strip().splitlines()[:ERROR_LINES]
        body = "\n".join(lines)[:ERROR_LIMIT]
        entries.append({"location": f"{location}#error", "title": escape(f"Error: {error_heading}", quote=False),
                        "text": f"<pre><code>{escape(body, quote=False)}</code></pre>"})
    return entries


def blocker_entries(kg: KnowledgeGraph, b: Blocker, location: str) -> list[dict[str, Any]]:
    """The search entry of blocker ``b`` whose page is at ``location``: ``[{"location",
    "title", "text"}]``."""
    causes = [getattr(kg.get(c), "title", c) for c in b.caused_by]
    lives = [f"component {b.component}" if b.component else None, *(f"flag {f}" for f in b.flags)]
    text = "".join([
        _p(f"Status: {b.status}", "Root cause" if not b.caused_by else "Caused by " + "; ".join(causes)),
        _p(_clip(b.description) if b.description else None),
        _p(_clip(describe_fix(b, kg))),
        _p(f"Workaround: {_clip(b.workaround)}" if b.workaround else None),
        _p(*lives),
        f"<pre><code>{escape(chr(10).join(b.signatures), quote=False)}</code></pre>" if b.signatures else "",
        _p("Upstream: " + ", ".join(b.upstream) if b.upstream else None),
        _p("Tags: " + ", ".join(b.tags) if b.tags else None),
    ])
    return [{"location": location, "title": escape(b.title, quote=False), "text": text}]


def search_entries(kg: KnowledgeGraph, url_of: Callable[[Record], str | None],
                   error_heading: Callable[[Attempt], str | None]) -> list[dict[str, Any]]:
    """Entries for every attempt, then every blocker, whose page has a URL (``url_of``; ``None``
    skips the record), in the graph's order of each kind."""
    out: list[dict[str, Any]] = []
    for a in kg.of_kind(Attempt):
        url = url_of(a)
        if url is not None:
            out.extend(attempt_entries(kg, a, url, error_heading(a)))
    for b in kg.of_kind(Blocker):
        url = url_of(b)
        if url is not None:
            out.extend(blocker_entries(kg, b, url))
    return out


def add_to_index(index: Path, docs: list[dict[str, Any]]) -> bool:
    """Append ``docs`` to the search index file ``index`` (``{"config", "docs": [...]}``, as
    Material's and MkDocs' search plugins write it), atomically. Returns ``False`` (and writes
    nothing) when there is no index there. Raises :class:`ValueError` naming the file when it is
    not such an index."""
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except json.JSONDecodeError as exc:
        raise ValueError(f"{index}: not a search index ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
        raise ValueError(f"{index}: not a search index (no 'docs' list)")
    data["docs"].extend(docs)
    write_text_atomic(index, json.dumps(data, ensure_ascii=False, separators=(",", ":")), overwrite=True)
    return True
