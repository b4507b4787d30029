"""Compact search entries for kb's record pages, added to the site's search index.

Material's search plugin indexes a page by parsing its whole HTML, one entry per section, and the
browser (Material's search worker, lunr) builds its index from every word of every entry before it
answers the first query: at 10,000 attempts that was a 6.6 MB index of 18,000 entries and a first
answer after 3.6 s (case ``search-freeze-10k-records``). The MkDocs plugin marks the pages of
attempts, campaigns, stacks, blockers and decisions ``search: {exclude: true}`` (Material's plugin
then skips them without parsing) and adds what people search them for, built from the record
itself, one entry a page; the tables of attempts, charts and diagrams on those pages stay out.
An attempt's entry (:func:`attempt_entries`) is titled with its title and, when it failed with an
error, the error's line (``Torch symmetric-memory allreduce · KeyError: 12``: Material weighs a
title 1,000 times its text, so a search for the error line ranks the attempt first); its text
holds the approach, the versions the attempt sets itself (where it differs from its stack), how
it ran (environment, then the command line or flags) less what every attempt of its campaign runs
with, its tags, and the rest of the error. What every attempt of a campaign or stack shares
(campaign, platform, the stack and its versions, the flags and environment all its attempts run
with), its outcome word, its figures and what has entries of its own (blockers) stay out: the
browser builds its index from every word here, and the first search waits for it. A version
search finds the stack (whose page lists its attempts) and the attempts that override it; a
search for a flag all of a campaign's attempts run with finds the campaign (its entry says
"Every attempt runs with ..."), and a flag only some attempts run with finds those. At 10,000
attempts the stack's versions in every attempt entry were a fifth of the index's words (and a
query such as ``KeyError: 12`` matched ``12.8`` in the 5,000 entries of attempts on a CUDA 12.8
stack); the campaign's shared flags and environment, the outcome word and a ``Tags:`` label were
a quarter of what was left (Material's worker builds the index in a third less time; see
``bench/README.md``).

A blocker (:func:`blocker_entries`) has title; status and causes; description; how it is fixed and
the workaround; where it lives (component, flags); error signatures; upstream issues; tags. A
decision (:func:`decision_entries`) has title, status, context, the chosen option and rationale,
the other options, drivers and tags; a stack (:func:`stack_entries`) its components' versions; a
campaign (:func:`campaign_entries`) its goal, model, platform, metric and what all its attempts
run with. Tags are listed without a label.

Text is HTML-escaped, as Material's own entries are (its search results show entries as HTML).
Every value comes from a record that went through kb's write gate (redacted before it was
written) and is shown on its page too: the index holds nothing the pages do not.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from kb.atomic import write_text_atomic
from kb.graph import KnowledgeGraph
from kb.models import Attempt, Blocker, Campaign, Decision, Record, Stack
from kb.queries import describe_fix
from kb.queries.bearing import met_catalog_blockers

TEXT_LIMIT = 400
"""Characters kept of a long free-text field (approach, hypothesis) in an entry."""

ERROR_LINES, ERROR_LIMIT = 8, 600
"""Lines and characters of an error kept in its entry, besides its headline (the entry's title)."""

SHARED_TITLE_LIMIT = 160
"""Characters kept, in a campaign entry's title, of what every one of its attempts runs with."""

_TRACEBACK = "Traceback (most recent call last):"

TITLE_SEP = " · "
"""Between an attempt's title and its error line in the title of its search entry."""


def _clip(text: str, limit: int = TEXT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _p(*parts: str | None, sep: str = " · ") -> str:
    kept = [escape(p, quote=False) for p in parts if p]
    return f"<p>{sep.join(kept)}</p>" if kept else ""


def _tags(tags: list[str]) -> str:
    """The paragraph of an entry's tags, comma-separated and unlabelled (a ``Tags:`` label was one
    more word in every entry); ``""`` for none."""
    return _p(", ".join(tags)) if tags else ""


def _rest(line: str, heading: str) -> str:
    """``line`` less what the heading ``heading`` already holds of it: ``""`` for the headline
    itself; for a headline the heading clips (``…`` at its end), the line from the word the
    heading cuts, so every word of the line is in the title or the text."""
    if line == heading:
        return ""
    if heading.endswith("…") and line.startswith(heading[:-1]):
        cut = heading[:-1].rfind(" ")
        return line[cut + 1:] if cut >= 0 else line
    return line


def command_parts(a: Attempt) -> list[str]:
    """How attempt ``a`` ran, as the parts its search entry shows: its environment
    (``NCCL_ALGO=Ring``), then the words of its command line (or of its flags, when no command was
    kept), a flag and the value after it as one part (``--tp 8``), each part once, in order."""
    cfg = a.config
    words = (cfg.command or " ".join(cfg.flags)).split()
    parts = [f"{k}={v}" for k, v in cfg.env.items()]
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("-") and "=" not in w and i + 1 < len(words) and not words[i + 1].startswith("-"):
            parts.append(f"{w} {words[i + 1]}")
            i += 2
        else:
            parts.append(w)
            i += 1
    return list(dict.fromkeys(parts))


def shared_parts(kg: KnowledgeGraph) -> dict[str, list[str]]:
    """For each campaign of two or more attempts, the parts of :func:`command_parts` that every one
    of its attempts has (the same environment variable with the same value, the same flag with the
    same value, the same program), in the order of its first attempt: ``{campaign id: [part]}``;
    a campaign whose attempts share nothing maps to ``[]``."""
    by: dict[str, list[Attempt]] = {}
    for a in kg.of_kind(Attempt):
        by.setdefault(a.campaign, []).append(a)
    out: dict[str, list[str]] = {}
    for camp, attempts in by.items():
        if len(attempts) < 2:
            continue
        common = set(command_parts(attempts[0]))
        for a in attempts[1:]:
            common.intersection_update(command_parts(a))
            if not common:
                break
        out[camp] = [p for p in command_parts(attempts[0]) if p in common]
    return out


def attempt_entries(kg: KnowledgeGraph, a: Attempt, location: str, error_heading: str | None,
                    shared: frozenset[str] | set[str] = frozenset()) -> list[dict[str, Any]]:
    """The search entry of attempt ``a`` whose page is at ``location`` (site-relative URL):
    ``[{"location", "title", "text"}]``.

    The title is the attempt's, followed by ``error_heading`` (the text of the page's Error
    heading, ``KeyError: 12``) when given: Material weighs a title 1,000 times its text, so a
    search for the error line ranks the attempt first. The text holds the approach, the component
    versions the attempt sets itself (not its stack's: the stack has its own entry), how it ran
    (:func:`command_parts`) less the ``shared`` parts that every attempt of its campaign has (the
    campaign's entry holds those: :func:`shared_parts`), its tags, and the error's lines that the
    title does not hold (not its headline, blank lines or Python's ``Traceback`` line;
    :data:`ERROR_LINES` lines or :data:`ERROR_LIMIT` characters at most). The outcome word
    (``failed``, ``improved``), a ``Tags:`` label and the shared parts are left out: the browser
    builds its index from every word of every entry before the first answer, and these words were
    in nearly every attempt's entry."""
    versions = ", ".join(f"{k} {v.version}" for k, v in sorted(a.components.items()) if v.version)
    command = " ".join(p for p in command_parts(a) if p not in shared)
    body = ""
    if error_heading and a.error:
        lines = [_rest(ln.strip(), error_heading) for ln in a.error.strip().splitlines() if ln.strip() != _TRACEBACK]
        body = "\n".join([ln for ln in lines if ln][:ERROR_LINES])[:ERROR_LIMIT]
    text = "".join([
        _p(_clip(a.approach)),
        _p(versions or None),
        f"<p><code>{escape(_clip(command), quote=False)}</code></p>" if command else "",
        _tags(a.tags),
        f"<pre><code>{escape(body, quote=False)}</code></pre>" if body else "",
    ])
    title = f"{a.title}{TITLE_SEP}{error_heading}" if error_heading and a.error else a.title
    return [{"location": location, "title": escape(title, quote=False), "text": text}]


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
        _tags(b.tags),
    ])
    return [{"location": location, "title": escape(b.title, quote=False), "text": text}]


def decision_entries(kg: KnowledgeGraph, d: Decision, location: str) -> list[dict[str, Any]]:
    """The search entry of decision ``d`` whose page is at ``location``: ``[{"location", "title",
    "text"}]``: status and date; the context; the chosen option and its rationale; the other
    options considered; the drivers; tags. One entry for the page, where Material's plugin made
    one per section (six to eight); its tables of evidence stay out."""
    chosen = d.outcome.chosen
    others = [o.title for o in d.considered_options if o.title != chosen]
    text = "".join([
        _p(f"Status: {d.status}", d.date.isoformat()),
        _p(_clip(d.context)),
        _p(f"Chosen option: {chosen}", _clip(d.outcome.rationale) if d.outcome.rationale else None, sep=". "),
        _p("Also considered: " + "; ".join(others) if others else None),
        _p("Drivers: " + _clip("; ".join(d.decision_drivers)) if d.decision_drivers else None),
        _tags(d.tags),
    ])
    return [{"location": location, "title": escape(d.title, quote=False), "text": text}]


def stack_entries(kg: KnowledgeGraph, s: Stack, location: str) -> list[dict[str, Any]]:
    """The search entry of stack ``s`` whose page is at ``location``: ``[{"location", "title",
    "text"}]``: the stack it builds on and its components' versions (inherited ones resolved);
    tags. Its page's table of attempts stays out (the attempts have entries of their own)."""
    base = kg.get(s.base) if s.base else None
    versions = ", ".join(f"{k} {v.version}" for k, v in sorted(kg.stack_components(s.id).items()) if v.version)
    text = "".join([
        _p(f"Based on {base.title if base is not None else s.base}" if s.base else None),
        _p(versions or None),
        _tags(s.tags),
    ])
    return [{"location": location, "title": escape(s.title, quote=False), "text": text}]


def campaign_entries(kg: KnowledgeGraph, c: Campaign, location: str, shared: list[str] | None = None) -> list[dict[str, Any]]:
    """The search entry of campaign ``c`` whose page is at ``location``: ``[{"location", "title",
    "text"}]``: goal, model, platform, starting stack, headline metric, status; what every one of
    its attempts runs with (``shared``, from :func:`shared_parts`; all of it: it left the entries
    of the campaign's attempts), also after its title
    (``Kimi K2.5 · every attempt: --tp 8``, clipped to :data:`SHARED_TITLE_LIMIT` characters): a
    search for such a flag then ranks the campaign, whose page lists its attempts, above the
    attempts whose titles hold one of its words (Material weighs a title 1,000 times its text);
    tags. Its chart, tables of attempts and blockers stay out."""
    platform, stack = kg.get(c.platform), kg.get(c.stack) if c.stack else None
    text = "".join([
        _p(_clip(c.goal) if c.goal else None),
        _p(f"Model: {c.model}", f"Platform: {getattr(platform, 'title', c.platform)}",
           f"Stack: {getattr(stack, 'title', c.stack)}" if c.stack else None),
        _p(f"{c.metric.name} ({c.metric.unit}, {c.metric.direction.value} is better)", f"Status: {c.status}"),
        f"<p>Every attempt runs with <code>{escape(' '.join(shared), quote=False)}</code></p>" if shared else "",
        _tags(c.tags),
    ])
    title = f"{c.title}{TITLE_SEP}every attempt: {_clip(' '.join(shared), SHARED_TITLE_LIMIT)}" if shared else c.title
    return [{"location": location, "title": escape(title, quote=False), "text": text}]


_ENTRIES: list[tuple[type, Callable[..., list[dict[str, Any]]]]] = [
    (Stack, stack_entries), (Blocker, blocker_entries), (Decision, decision_entries)]
"""The kinds besides attempts and campaigns that get kb's entries, in the order they are added,
and their makers."""


def search_entries(kg: KnowledgeGraph, url_of: Callable[[Record], str | None],
                   error_heading: Callable[[Attempt], str | None]) -> list[dict[str, Any]]:
    """Entries for every attempt, then every campaign, stack, blocker and decision, whose page
    has a URL (``url_of``; ``None`` skips the record), in the graph's order of each kind; of the
    catalogs' blockers only those an attempt met or that dispute a record
    (:func:`kb.queries.bearing.met_catalog_blockers`): a search for ``KeyError: 12`` on a
    campaign's site ranked a catalog blocker no attempt met, full of ``12``s, above the attempt. What
    every attempt of a campaign runs with (:func:`shared_parts`) is in the campaign's entry, not
    in each attempt's."""
    campaigns = [(c, url_of(c)) for c in kg.of_kind(Campaign)]
    # a campaign without a page (or a record) keeps its attempts' shared parts in their entries
    common = shared_parts(kg)
    shared = {c.id: common[c.id] for c, url in campaigns if url is not None and common.get(c.id)}
    moved = {k: frozenset(v) for k, v in shared.items()}
    out: list[dict[str, Any]] = []
    for a in kg.of_kind(Attempt):
        url = url_of(a)
        if url is not None:
            out.extend(attempt_entries(kg, a, url, error_heading(a), moved.get(a.campaign, frozenset())))
    for c, url in campaigns:
        if url is not None:
            out.extend(campaign_entries(kg, c, url, shared.get(c.id)))
    catalog = kg.records.catalog_of
    met = met_catalog_blockers(kg) if catalog else set()
    for kind, make in _ENTRIES:
        for r in kg.of_kind(kind):
            url = url_of(r)
            if url is None or (kind is Blocker and r.id in catalog and r.id not in met):
                continue  # a catalog blocker no attempt met and no record disputes: its page, no entry
            out.extend(make(kg, r, url))
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
