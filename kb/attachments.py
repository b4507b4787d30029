"""Files that record text links to: images and documents under ``records/assets/``.

Record fields written in Markdown (context, notes, descriptions) may show an image or link a file
kept beside the records: ``![allreduce timeline](timeline.png)`` names ``records/assets/timeline.png``.
The site publishes those files with the pages (:mod:`kb.site.tree`); a link to a file that is
not there is a located problem (``kb check``, and a warning that fails ``kb build --strict``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Iterator

from kb.errors import Problem
from kb.store import ASSETS_FOLDER, RecordSet

_LOCAL_EXT = re.compile(r"\.[A-Za-z0-9]{1,5}$")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
"""An inline code span (CommonMark: a run of backticks closed by a run of the same length)."""
_MD_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def local_target(url: str) -> str | None:
    """The ``records/assets/`` path a link or image ``url`` names, or ``None`` when it is remote,
    absolute, an anchor, or a page (``.md``/``.html``).

    >>> local_target("timeline.png"), local_target("./nccl/plot.svg"), local_target("https://x/y.png")
    ('timeline.png', 'nccl/plot.svg', None)
    >>> local_target("../attempts/a.md"), local_target("#ctx"), local_target("/abs.png")
    (None, None, None)
    """
    if not url or url.startswith(("#", "/", "\\")) or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
        return None
    path = url.split("#", 1)[0].split("?", 1)[0]
    while path.startswith("./"):
        path = path[2:]
    if (not path or ".." in path.split("/") or not _LOCAL_EXT.search(path)
            or path.lower().endswith((".md", ".html", ".htm"))):
        return None
    return path


def linked_files(text: str) -> Iterator[tuple[str, bool]]:
    """``(records/assets path, is_image)`` for each local image or file link in Markdown ``text``.

    >>> list(linked_files("see ![t](timeline.png) and [log](logs/run.txt) and [x](https://a/b.png)"))
    [('timeline.png', True), ('logs/run.txt', False)]

    Code is not a link: fenced blocks and inline code spans are skipped.

    >>> list(linked_files("write `![t](plot.png)` to show ![p](plot.png)"))
    [('plot.png', True)]
    """
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in _MD_LINK.finditer(_CODE_SPAN.sub("", line)):
            target = local_target(m.group(3))
            if target is not None:
                yield target, m.group(1) == "!"


def _strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, path + (i,))


def asset_problems(records: RecordSet, assets: set[str] | dict[str, Any]) -> list[Problem]:
    """A :class:`Problem` at the field's line for every local image or file a record's text links
    to that is not in ``assets`` (the paths under ``records/assets/``); its message names that
    folder as the record's path does (``records/assets/timeline.png``)."""
    problems = []
    for rid, rec in sorted(records.records.items()):
        try:
            if not records.may_hold(rid, "]("):
                continue  # no text of it can hold a link (JSON escapes none of these characters): skip the walk
        except ValueError:  # pragma: no cover - a value JSON cannot carry: walk it as before
            pass
        data = rec.model_dump(mode="python", by_alias=True, exclude_none=True)
        for path, text in _strings(data):
            if "](" not in text:
                continue
            for target, is_image in linked_files(text):
                if target not in assets:
                    what = "image" if is_image else "linked file"
                    # the folder as the record's path shows it (records/attempts/x.yaml → records/assets)
                    where = (PurePosixPath(records.origins[rid].path).parent.parent / ASSETS_FOLDER).as_posix()
                    problems.append(records.problem(rid, path, f"{what} '{target}' not found in {where}/: "
                                                               f"add it as {where}/{target} or fix the link"))
    return problems
