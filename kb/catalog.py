"""Catalogs: folders of blockers (and the stacks and platforms they need) that belong to no
campaign and are shared by several, such as the Blackwell catalog shipped with kb
(``kb/catalogs/blackwell``, built from public upstream issues).

A campaign lists the catalogs it uses (``catalogs: [blackwell]``). A name is a catalog shipped
with kb (the folder ``kb/catalogs/<name>`` installed with the package), an installed package's
data folder (``acme_kb:catalogs/team``), else a folder path, relative to the records folder when
not absolute. :func:`merge_catalogs` reads each one with
the store's loader and adds its records to the campaign's, so that every query, the signature
matching and the site span them. Ids stay unique across the records and every catalog: a clash
is a located problem. A catalog never lives inside the records folder, so kb's writers, which
write only there, never write into a catalog; and the write gate refuses a records folder that is
a catalog (a shipped one, or a folder holding ``CATALOG.md``: :func:`kb.store.write.catalog_folder_reason`).
"""

from __future__ import annotations

import re
from pathlib import Path

from kb.errors import Problem
from kb.models import Campaign
from kb.store import RecordSet, load_records
from kb.store.write import SHIPPED_CATALOGS as SHIPPED  # the one definition: the write gate refuses it


def shipped_catalogs() -> list[str]:
    """Names of the catalogs shipped with kb, sorted (``["blackwell"]``)."""
    return sorted(p.name for p in SHIPPED.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


_PACKAGE_FORM = re.compile(r"^(?P<pkg>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*):(?P<sub>[^:]*)$")


def _package_folder(name: str) -> Path | None:
    """The folder ``sub`` inside installed package ``pkg`` for a name ``pkg:sub`` (a package's
    data folder, found without importing the package); ``None`` for any other name or a package
    that is not installed. A one-letter "package" is a drive letter (``C:\\x``), not this form."""
    m = _PACKAGE_FORM.match(name)
    if m is None or len(m.group("pkg")) < 2:
        return None
    import importlib.util

    try:
        spec = importlib.util.find_spec(m.group("pkg"))
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(places[0]) / m.group("sub") if places else None


def catalog_places(name: str, records_root: str | Path) -> list[Path]:
    """Every folder catalog ``name`` could be read from, in the order tried: a shipped catalog of
    that name, an installed package's data folder (``package:folder``), the folder ``name``
    (relative to ``records_root`` unless absolute). Existing or not (what a kept result depends on)."""
    out = [SHIPPED / name] if "/" not in name and "\\" not in name else []
    pkg = _package_folder(name)
    if pkg is not None:
        return out + [pkg]
    path = Path(name)
    return out + [path if path.is_absolute() else Path(records_root) / path]


def resolve_catalog(name: str, records_root: str | Path) -> Path | None:
    """The folder of catalog ``name``: the first of :func:`catalog_places` that is a folder
    (a shipped catalog, a package's data folder ``package:folder``, or a folder path relative
    to ``records_root`` unless absolute); ``None`` when none is."""
    return next((p for p in catalog_places(name, records_root) if p.is_dir()), None)


def _not_found(name: str, root: str | Path) -> str:
    """Why catalog ``name`` resolves to no folder: not shipped, and no folder at that path (or a
    file there), with where it was looked for."""
    path = catalog_places(name, root)[-1]
    shipped = ", ".join(shipped_catalogs()) or "none"
    if path.exists():
        return (f"catalog '{name}' is not a folder ({path.resolve()} is a file); a catalog is a folder holding "
                f"blockers/ (and stacks/, platforms/) and a CATALOG.md: name that folder, or a shipped catalog ({shipped})")
    return (f"unknown catalog '{name}': no catalog of that name ships with kb (shipped: {shipped}) and no folder "
            f"{path.resolve()}; fix the name or the path")


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def merge_catalogs(records: RecordSet, root: str | Path, extra: list[str] | tuple[str, ...] = (),
                   extra_where: str = "mkdocs.yml") -> list[Problem]:
    """Add to ``records`` (in place) the records of every catalog its campaigns list, then of
    ``extra`` (the kb plugin's ``catalogs`` option, problems located at ``extra_where``), in the
    order first listed; ``records.catalog_of`` maps each added id to its catalog's name.

    Returns the problems: an unknown catalog or one inside the records folder (located at the
    campaign's ``catalogs`` item), the catalog's own invalid records (located in the catalog),
    and ids that clash with a record or with another catalog (located at the record that is
    dropped: the campaign's own record wins over a catalog's, an earlier catalog over a later).
    """
    problems: list[Problem] = []
    seen: dict[str, Path] = {}
    for camp in records.of_kind(Campaign):
        for i, name in enumerate(camp.catalogs):
            if name in seen:
                continue
            path = resolve_catalog(name, root)
            if path is None:
                problems.append(records.problem(camp.id, ("catalogs", i), _not_found(name, root)))
                continue
            if _inside(path, Path(root)):
                problems.append(records.problem(camp.id, ("catalogs", i),
                                                f"catalog '{name}' lies inside the records folder; catalogs are read-only "
                                                "to kb's writers, so keep it in a folder of its own next to records/"))
                continue
            if path.resolve() in {p.resolve() for p in seen.values()}:
                continue  # the same folder under another name (blackwell, kb:catalogs/blackwell)
            seen[name] = path
    for i, name in enumerate(extra):
        if name in seen:
            continue
        path = resolve_catalog(name, root)
        if path is None or _inside(path, Path(root)):
            why = (_not_found(name, root) if path is None else
                   f"catalog '{name}' lies inside the records folder; keep it in a folder of its own next to records/")
            problems.append(Problem(extra_where, None, f"plugins.kb.catalogs.{i}", why))
            continue
        if path.resolve() not in {p.resolve() for p in seen.values()}:
            seen[name] = path
    for n, (name, path) in enumerate(seen.items()):
        loaded = load_records(path, cache_for=root)
        problems.extend(loaded.problems)
        records.sources.update((f"catalog {n} {path.resolve()}/{rel}", digest)
                               for rel, digest in loaded.records.sources.items())
        for rid, rec in sorted(loaded.records.records.items()):
            origin = loaded.records.origins[rid]
            here = str((path.parent / origin.path).resolve())
            if rid in records.records:
                owner = records.catalog_of.get(rid)
                mine = records.origins[rid]
                records.shadowed.setdefault(name, set()).add(rid)
                unchecked = _referring(loaded.records, rid)
                n_ref = len(unchecked)
                also = (f"; {n_ref} record{'s' if n_ref != 1 else ''} of catalog {name} refer{'' if n_ref != 1 else 's'} "
                        f"to it and {'are' if n_ref != 1 else 'is'} checked against it once it loads" if unchecked else "")
                if owner:  # two catalogs: located at the later one's record, which is dropped
                    problems.append(Problem(here, origin.line(), "id",
                                            f"id '{rid}' is also used in catalog {owner} ({mine.path}); ids are unique "
                                            f"across a campaign's records and its catalogs: rename one (this record of "
                                            f"catalog {name} is not loaded{also})"))
                else:  # the campaign's own record: located there, the one a person can rename
                    problems.append(Problem(mine.path, mine.line(), "id",
                                            f"id '{rid}' is also the id of a record of catalog {name} ({here}); ids are "
                                            "unique across a campaign's records and its catalogs, and catalogs are "
                                            f"read-only: rename this record (the catalog's {rid} is not loaded{also})"))
                continue
            records.records[rid] = rec
            # the catalog's file by its absolute path: the site ships it beside the page, and a
            # catalog lives outside the records folder that other paths are relative to
            records.origins[rid] = origin.moved(here)
            records.catalog_of[rid] = name
    return problems


def _referring(records: RecordSet, rid: str) -> list[str]:
    """The ids of ``records`` that refer to ``rid`` (any reference field), sorted."""
    from kb.graph import references

    return sorted(r.id for r in records.records.values() if any(t == rid for _p, t, _k, _e in references(r)))


def shipped_catalog_graph():
    """The graph of every catalog shipped with kb, on its own (for ``kb roots --catalog`` where
    no campaign lists one). Raises :class:`kb.errors.InvalidRecords` if a shipped catalog is invalid."""
    from kb.errors import InvalidRecords
    from kb.graph import build_graph, check_references

    records = RecordSet()
    problems: list[Problem] = []
    for name in shipped_catalogs():
        loaded = load_records(SHIPPED / name)
        problems.extend(loaded.problems)
        for rid, rec in loaded.records.records.items():
            if rid not in records.records:
                records.records[rid] = rec
                records.origins[rid] = loaded.records.origins[rid]
                records.catalog_of[rid] = name
    problems += check_references(records)
    if problems:
        raise InvalidRecords(problems)
    return build_graph(records)
