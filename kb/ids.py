"""Record ids: readable, stable and merge-safe (DESIGN.md, "Conventions").

An id is a slug of the title, prefixed with the date for dated records (attempts, decisions):
``2026-02-14-flashinfer-allreduce-fusion``. Never a global counter that two branches would both
take. When an id is taken, ``-2``, ``-3``, … is appended (:func:`suffixed`, :func:`free_id`);
every writer (``kb log``, ``kb new``, ``kb capture``, ``kb import``) makes ids here.

>>> slugify("Try CUDA 12.8.1"), slugify("Über-fast café")
('try-cuda-12.8.1', 'uber-fast-cafe')
>>> dated_id(__import__("datetime").date(2026, 2, 21), "EAGLE-3 speculation")
'2026-02-21-eagle-3-speculation'
>>> free_id("a", {"a", "a-2"})
'a-3'
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Container

SLUG_MAX = 60
"""Longest slug taken from a title (characters), cut at a word boundary."""

ID_MAX = 120
"""Longest id (characters); :data:`kb.models.ID_RE` allows no more."""


WINDOWS_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                                  *(f"lpt{i}" for i in range(1, 10))})
"""File names Windows reserves for devices, with any extension (Microsoft, "Naming Files, Paths,
and Namespaces"): ``con.yaml`` cannot be created there."""


def slugify(text: str, max_len: int = SLUG_MAX, fallback: str = "attempt") -> str:
    """A lowercase ASCII slug of ``text`` for an id: words joined by ``-``, transliterated to
    ASCII (``café`` → ``cafe``, ``Ускорение`` → ``uskorenie``, ``加速`` → ``jiasu``, by anyascii),
    dots kept between digits (``13.0``), at most ``max_len`` characters cut at a word boundary; a
    Windows device name (``con``, ``nul``, ``com1``) gets ``-record``.

    Returns ``fallback`` when nothing of ``text`` survives (a title of punctuation only).
    """
    from anyascii import anyascii

    # transliterated, not dropped: Cyrillic, Greek, Arabic, CJK titles keep a readable id
    # (anyascii, ISC licence; Unidecode is GPL); accents go by NFKD first (café → cafe)
    ascii_text = anyascii(unicodedata.normalize("NFKC", text)).lower()
    ascii_text = re.sub(r"(?<=\d)\.(?=\d)", "\0", ascii_text)  # keep 12.8, drop other dots
    words = [w.replace("\0", ".") for w in re.split(r"[^a-z0-9\0]+", ascii_text) if w.strip("\0")]
    slug = ""
    for w in words:
        nxt = f"{slug}-{w}" if slug else w
        if len(nxt) > max_len:
            slug = slug or w[:max_len]
            break
        slug = nxt
    slug = slug.strip(".-")
    if slug in WINDOWS_DEVICE_NAMES:
        slug = f"{slug}-record"  # a name Windows keeps for a device (con, nul, com1, ...)
    return slug or fallback


def dated_id(date: dt.date, title: str, fallback: str = "attempt") -> str:
    """``<YYYY-MM-DD>-<slug of title>``: the id of a dated record (attempt, decision)."""
    return f"{date.isoformat()}-{slugify(title, fallback=fallback)}"


def suffixed(base: str, n: int) -> str:
    """``base`` with ``-n`` appended (``n`` ≥ 2), shortened from the end of its slug so that the
    id stays within :data:`ID_MAX` characters."""
    suffix = f"-{n}"
    return base[: ID_MAX - len(suffix)].rstrip("-._") + suffix


def free_id(base: str, taken: Container[str], start: int = 2) -> str:
    """``base`` if it is not in ``taken``, else the first of ``base-2``, ``base-3``, … (from
    ``start``) that is not. The store's exclusive create is what finally decides (two writers at
    once); this only skips the ids already known to be taken."""
    if base not in taken:
        return base
    n = start
    while suffixed(base, n) in taken:
        n += 1
    return suffixed(base, n)
