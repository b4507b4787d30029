"""Shell completion of record ids (click's ``shell_complete``), for ``kb why <TAB>`` and friends.

Completion runs ``kb`` with ``_KB_COMPLETE=<shell>_complete`` set; it must answer fast and never
fail, so it reads the records quietly and offers nothing when they cannot be read.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from click.shell_completion import CompletionItem


def _records_dir(ctx: Any) -> str:
    root = ctx.find_root()
    value = root.params.get("records") if root is not None else None
    return value or os.environ.get("KB_RECORDS", "records")


def complete_ids(kind: str | None = None) -> Callable[[Any, Any, str], list[CompletionItem]]:
    """A ``shell_complete`` callback offering the ids of records of ``kind`` (``attempt``,
    ``stack``, ...; every kind when ``None``) that start with what was typed, titles as help."""

    def complete(ctx: Any, param: Any, incomplete: str) -> list[CompletionItem]:
        try:
            from kb.store import load_records

            records = load_records(_records_dir(ctx)).records.records
        except Exception:  # noqa: BLE001 - completion must never print a traceback into the shell
            return []
        return [CompletionItem(rid, help=rec.title) for rid, rec in sorted(records.items())
                if rid.startswith(incomplete) and (kind is None or rec.kind == kind)]

    return complete
