"""The Drafts page: attempts not reviewed yet, apart from the records.

A draft (``status: draft``: drafted by ``kb import``, or logged with ``kb log --draft``) is a
proposal until a person reviews it (``kb review``). The attempt tables, the dashboards' charts,
outcome counts and best figures show reviewed attempts only, and root causes count drafts apart
(``3 (+1 draft)``, :func:`kb.queries.roots`); the drafts are listed here, each with the log and
line it came from and the importer's confidence, and linked from the Attempts page and each
dashboard. A draft keeps its own page, marked as a draft.
"""

from __future__ import annotations

from markupsafe import Markup

from kb.draftnotes import draft_confidence
from kb.models import Attempt
from kb.site.pages.context import ROWS, Ctx, attempt_row, plural, render
from kb.site.pages.lists import SEARCH_EXCLUDE
from kb.site.pages.reverse import newest_first
from kb.site.text import inline

DRAFTS_PAGE = "drafts.md"
"""Source path of the Drafts page (beside the other pages kb makes, never a record's: a record page is
``<folder>/<id>.md``)."""


def is_draft(a: Attempt) -> bool:
    """Whether ``a`` awaits review (``status: draft``)."""
    return a.status == "draft"


def reviewed(attempts: list[Attempt]) -> list[Attempt]:
    """``attempts`` without the drafts, in their order."""
    return [a for a in attempts if not is_draft(a)]


def drafts_line(c: Ctx, src: str, drafts: list[Attempt]) -> Markup | None:
    """``2 drafts await review, not counted here: [Drafts](...) (kb review)``, linked from page
    ``src``; ``None`` without drafts."""
    if not drafts:
        return None
    verb = "awaits" if len(drafts) == 1 else "await"
    return Markup(f"{inline(plural(len(drafts), 'draft'))} {verb} review, not counted here: "
                  f"{c.link_to(src, DRAFTS_PAGE, 'Drafts')} (`kb review` walks them).")


def render_drafts(c: Ctx) -> str:
    """The Drafts page: every draft newest first (at most :data:`~kb.site.pages.lists.ROWS`, all of
    them in a paginated list beyond), with its outcome, headline figure, date, the source it was
    drafted from and the importer's confidence. Kept out of the search index as the lists are
    (:data:`~kb.site.pages.lists.SEARCH_EXCLUDE`): a draft is found by its own page."""
    src = DRAFTS_PAGE
    drafts = newest_first([a for a in c.of_kind(Attempt) if is_draft(a)])
    rows = []
    for a in drafts[:ROWS]:
        anchor = next((s for s in a.source if s.field == "attempt"), None)
        conf = draft_confidence(a.notes)
        where = " ".join(x for x in ((anchor.file or anchor.url), anchor.locator) if x) if anchor else ""
        rows.append({**attempt_row(c, src, a), "draft": False, "source": where or "—",
                     "confidence": f"{conf[0]:.2f}" if conf else "—"})
    more = (c.list_link(src, "drafts", "All drafts", drafts, f"All {len(drafts)} drafts, newest first")
            if len(drafts) > ROWS else None)
    return SEARCH_EXCLUDE + render("drafts.md.j2", rows=rows, n=len(drafts), more=more,
                                   attempts=c.link_to(src, "attempts/index.md", "Attempts"))
