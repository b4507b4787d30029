"""Catalogs: folders of blockers (and the stacks and platforms they need) that belong to no
campaign and are shared by several, such as the Blackwell catalog shipped with kb
(``kb/catalogs/blackwell``, built from public upstream issues).

A campaign lists the catalogs it uses (``catalogs: [blackwell]``). A name is a catalog shipped
with kb (the folder ``kb/catalogs/<name>`` installed with the package), else a folder path,
relative to the records folder when not absolute. :func:`merge_catalogs` reads each one with
the store's loader and adds its records to the campaign's, so that every query, the signature
matching and the site span them. Ids stay unique across the records and every catalog: a clash
is a located problem. A catalog never lives inside the records folder, so kb's writers, which
write only there, never write into a catalog; and the write gate refuses a records folder that is
a catalog (a shipped one, or a folder holding ``CATALOG.md``: :func:`kb.store.write.catalog_folder_reason`).
"""

from __future__ import annotations

from pathlib import Path

from kb.errors import Problem
from kb.models import Campaign
from kb.store import RecordSet, load_records

SHIPPED = Path(__file__).resolve().parent / "catalogs"
"""The folder of the catalogs shipped with kb (package data): one sub-folder per catalog."""


def shipped_catalogs() -> list[str]:
    """Names of the catalogs shipped with kb, sorted (``["blackwell"]``)."""
    return sorted(p.name for p in SHIPPED.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def resolve_catalog(name: str, records_root: str | Path) -> Path | None:
    """The folder of catalog ``name``: a shipped catalog of that name, else the folder ``name``
    (relative to ``records_root`` unless absolute); ``None`` when neither exists."""
    if "/" not in name and "\\" not in name and (SHIPPED / name).is_dir():
        return SHIPPED / name
    path = Path(name)
    path = path if path.is_absolute() else Path(records_root) / path
    return path if path.is_dir() else None


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
                problems.append(records.problem(camp.id, ("catalogs", i),
                                                f"unknown catalog '{name}': no catalog of that name ships with kb "
                                                f"(shipped: {', '.join(shipped_catalogs()) or 'none'}) and no folder "
                                                f"{name} next to the records; fix the name or the path"))
                continue
            if _inside(path, Path(root)):
                problems.append(records.problem(camp.id, ("catalogs", i),
                                                f"catalog '{name}' lies inside the records folder; catalogs are read-only "
                                                "to kb's writers, so keep it in a folder of its own next to records/"))
                continue
            seen[name] = path
    for i, name in enumerate(extra):
        if name in seen:
            continue
        path = resolve_catalog(name, root)
        if path is None or _inside(path, Path(root)):
            why = "is unknown" if path is None else "lies inside the records folder"
            problems.append(Problem(extra_where, None, f"plugins.kb.catalogs.{i}",
                                    f"catalog '{name}' {why}; name a shipped catalog ({', '.join(shipped_catalogs())}) "
                                    "or a folder next to the records"))
            continue
        seen[name] = path
    for n, (name, path) in enumerate(seen.items()):
        loaded = load_records(path, cache_for=root)
        problems.extend(loaded.problems)
        records.sources.update((f"catalog {n} {path.resolve()}/{rel}", digest)
                               for rel, digest in loaded.records.sources.items())
        for rid, rec in sorted(loaded.records.records.items()):
            origin = loaded.records.origins[rid]
            if rid in records.records:
                owner = records.catalog_of.get(rid)
                where = f"catalog {owner}" if owner else f"the records ({records.origins[rid].path})"
                problems.append(Problem(origin.path, origin.line(), "id",
                                        f"id '{rid}' is also used in {where}; ids are unique across a campaign's records "
                                        f"and its catalogs: rename one (this record of catalog {name} is not loaded)"))
                continue
            records.records[rid] = rec
            # the catalog's file by its absolute path: the site ships it beside the page, and a
            # catalog lives outside the records folder that other paths are relative to
            records.origins[rid] = origin.moved(str((path.parent / origin.path).resolve()))
            records.catalog_of[rid] = name
    return problems


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
