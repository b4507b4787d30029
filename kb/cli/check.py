"""``kb check``: validate every record and reference."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any, TypeGuard

import click

from kb.cli.app import (
    Env,
    cli,
    emit_json,
    handle_errors,
    pass_env,
)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the problems and warnings as JSON.")
@click.option("--strict", is_flag=True, help="Treat warnings (contradictions, placeholders) as errors: exit 1.")
@click.option("-v", "--verbose", is_flag=True, help="List the editor and OS leftovers skipped (x.yaml~, Thumbs.db, ...), each warning that a blocker's line stands for, and the catalog records last checked more than 90 days ago (today is $KB_TODAY when set).")
@click.argument("folder", required=False, type=click.Path(file_okay=False))
@pass_env
def check(env: Env, as_json: bool, strict: bool, verbose: bool, folder: str | None) -> None:
    """Validate every record and the references between them, then look for contradictions.

    Prints each problem as `path:line: field: message`, then a count; exits 1 if there is any.
    Findings (a success on a stack where a blocker of the same feature stands, a success citing
    a blocker, a fix credited to a component that did not change, resolutions claimed by
    decisions that are not accepted, unfilled TODO placeholders) print as
    `path:line: field: warning: message` and exit 0, unless --strict. Editor backups, swap
    files, merge leftovers and OS files in records/ are skipped with one notice; -v lists them.
    FOLDER, when given, is the records folder (as --records before the command; handy in a
    pre-commit hook's args).

    What a check found is kept with the SHA-256 of every record file (kb.store.memo, in the
    store's cache folder): when no file, catalog or kb itself changed, the same report is given
    again without loading the records.
    """
    from pathlib import Path

    from kb.store.memo import listing_digest, recall, remember, tree_digest

    if folder is not None:
        env.records = Path(folder)
    # the folder is hashed once, its record files' bytes kept: compared with the memo's digest,
    # then (on a miss) loaded from those very bytes (not read twice); the listing is compared
    # again before the report is kept under this digest
    files: dict[str, bytes] = {}
    listing: list[str] = []
    tree = _key(tree_digest(env.records, files, listing), env.catalogs) if env.records.is_dir() else ""
    recalled = recall(env.records, "check", tree) if tree else None
    if _is_report(recalled):
        report = recalled
    else:
        from kb.store import Prefetched

        prefetched = Prefetched(files)
        import gc

        # a check builds objects that all stay alive until it ends (records, graph, findings): the
        # cyclic collector would walk them again and again for nothing (15 % of a cold check at
        # 3,000 attempts, peak memory unchanged); reference counting still frees the rest. What is
        # left is frozen out of its reach before it resumes (its first full pass over a 10,000-attempt
        # check's leftovers cost 0.45 s)
        was_on = gc.isenabled()
        gc.disable()
        try:
            report, deps = _check(env.records, prefetched, env.catalogs)
        finally:
            gc.freeze()
            if was_on:
                gc.enable()
        if tree:
            remember(env.records, "check", report, deps, tree,
                     listing_digest(listing=listing) if prefetched.missed == 0 else None)
    _print(report, env.records, as_json, strict, verbose)


def _key(tree: str, catalogs: tuple[str, ...]) -> str:
    """The memo key of a check: the folder's digest, and the site's catalogs (./mkdocs.yml), which
    are part of what was checked."""
    if not catalogs:
        return tree
    import json

    return tree + " " + json.dumps(list(catalogs), ensure_ascii=False)


def _check(root: Any, prefetched: Any = None, catalogs: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[Any]]:
    """Load and check the records under ``root``: the report (JSON-able: the count of records,
    every problem and warning as ``[path, line, field, message]``, the leftovers skipped) and the
    catalog folders read. ``prefetched``: the record files' bytes read beforehand
    (:class:`kb.store.Prefetched`); ``catalogs``: the kb plugin's in ``./mkdocs.yml``."""
    from kb.pipeline import load

    return _report(load(root, list(catalogs), prefetched=prefetched), root, catalogs)


def _report(loaded: Any, root: Any, catalogs: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[Any]]:
    """The report and catalog folders of :func:`_check` for the records ``loaded`` (a
    :class:`kb.pipeline.Loaded` of ``root`` with ``catalogs``)."""
    from kb.attachments import asset_problems
    from kb.pipeline import catalog_folders
    from kb.queries.findings import findings, grouped
    from kb.store import list_assets
    from kb.store.lines import save_line_maps

    records, problems = loaded.records, loaded.problems
    records.keep_json = True  # asked of every record twice: for links to assets, for placeholders
    problems = sorted(problems + asset_problems(records, list_assets(root)),
                      key=lambda p: (p.path, p.line or 0, p.field, p.message))
    found = [] if problems else findings(loaded.graph)
    located = sorted(((f.problem(loaded.graph), f) for f in found),
                     key=lambda pf: (pf[0].path, pf[0].line or 0, pf[0].field, pf[0].message))
    warnings = [w for w, _f in located]
    at = {id(f): i for i, (_w, f) in enumerate(located)}
    groups = [[*_row(g.problem(loaded.graph)), [at[id(f)] for f in g.members]] for g in grouped(found)]
    save_line_maps(records.origins)  # every line asked for is kept: the next check parses only what changed
    report = {"records": len(records),
              "problems": [_row(p) for p in problems],
              "warnings": [_row(w) for w in warnings],
              "groups": groups,
              "ignored": [[path, what] for path, what in records.ignored],
              "checked": _catalog_checks(loaded.graph) if loaded.graph is not None else [],
              "kinds": dict(sorted(Counter(f.kind for f in found).items()))}
    return report, catalog_folders(records, root, catalogs)


def _catalog_checks(kg: Any) -> list[list[str]]:
    """``[id, catalog, checked date or ""]`` of every catalog blocker: staleness is judged when
    the report is printed (:mod:`kb.queries.audit`), so a kept report stays true on a later day."""
    from kb.models import Blocker

    catalog = kg.records.catalog_of
    return [[b.id, catalog[b.id], b.checked.isoformat() if b.checked else ""]
            for b in kg.of_kind(Blocker) if b.id in catalog]


def _stale(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The catalog records of ``report`` checked more than :data:`kb.staleness.STALE_AFTER_DAYS`
    days before today (:func:`kb.staleness.today`), or never, oldest first."""
    import datetime as dt

    from kb.staleness import STALE_AFTER_DAYS, today

    now = today()
    out = []
    for rid, catalog, checked in report["checked"]:
        age = (now - dt.date.fromisoformat(checked)).days if checked else None
        if age is None or age > STALE_AFTER_DAYS or age < 0:  # a check dated in the future is a typo
            out.append({"id": rid, "catalog": catalog, "checked": checked or None, "age_days": age})
    return sorted(out, key=lambda r: (r["checked"] or "", r["id"]))


def _row(p: Any) -> list[Any]:
    """A :class:`kb.errors.Problem` as the report keeps it: ``[path, line, field, message]``."""
    return [p.path, p.line, p.field, p.message]


def _is_report(report: Any) -> TypeGuard[dict[str, Any]]:
    """Whether ``report`` has the shape :func:`_check` gives (a memo is believed only then)."""
    def located(items: Any) -> bool:
        return isinstance(items, list) and all(
            isinstance(i, list) and len(i) == 4 and isinstance(i[0], str) and (i[1] is None or type(i[1]) is int)
            and isinstance(i[2], str) and isinstance(i[3], str) for i in items)

    def groups(items: Any, n: int) -> bool:
        return isinstance(items, list) and all(
            isinstance(g, list) and len(g) == 5 and located([g[:4]]) and isinstance(g[4], list)
            and all(type(i) is int and 0 <= i < n for i in g[4]) for g in items)

    return (isinstance(report, dict) and type(report.get("records")) is int and located(report.get("problems"))
            and located(report.get("warnings")) and groups(report.get("groups"), len(report["warnings"]))
            and isinstance(report.get("ignored"), list)
            and isinstance(report.get("kinds"), dict)
            and all(isinstance(k, str) and type(v) is int for k, v in report["kinds"].items())
            and isinstance(report.get("checked"), list)
            and all(isinstance(i, list) and len(i) == 3 and all(isinstance(x, str) for x in i) for i in report["checked"])
            and all(isinstance(i, list) and len(i) == 2 and all(isinstance(x, str) for x in i) for i in report["ignored"]))


def _shown_warnings(report: dict[str, Any], warnings: list[Any], verbose: bool, folder: Any = None) -> tuple[list[Any], int]:
    """The warnings a text report prints, in path and line order, and how many of them were
    folded into group lines: with ``verbose`` every warning; else each group of the report
    (:func:`kb.queries.findings.grouped`: many attempts at odds with one blocker) stands as one
    line for its members, its path under ``folder`` as given (:func:`kb.cli.app.as_given`)."""
    from kb.cli.app import as_given
    from kb.errors import Problem

    if verbose or not report["groups"]:
        return warnings, 0
    folded = {i for g in report["groups"] for i in g[4]}
    shown = [w for i, w in enumerate(warnings) if i not in folded] + [as_given(Problem(*g[:4]), folder) for g in report["groups"]]
    shown.sort(key=lambda p: (p.path, p.line or 0, p.field, p.message))
    return shown, len(folded)


def _print(report: dict[str, Any], records_path: Any, as_json: bool, strict: bool, verbose: bool) -> None:
    from pathlib import Path

    from kb.cli.app import as_given
    from kb.errors import Problem

    folder = Path(records_path)
    problems = [as_given(Problem(*p), folder) for p in report["problems"]]
    warnings = [as_given(Problem(*w), folder) for w in report["warnings"]]
    ignored = [tuple(i) for i in report["ignored"]]
    if as_json:
        emit_json({"records": report["records"], "problems": [p.__dict__ for p in problems],
                   "warnings": [w.__dict__ for w in warnings],
                   "groups": [{**as_given(Problem(*g[:4]), folder).__dict__, "warnings": g[4]} for g in report["groups"]],
                   "ignored": [{"path": path, "what": what} for path, what in ignored],
                   "stale": _stale(report), "kinds": report["kinds"]})
    else:
        if verbose:
            for path, what in ignored:
                click.echo(f"ignored: {path} ({what})", err=True)
        elif ignored:
            n = len(ignored)
            click.echo(f"kb: skipped {n} editor/OS leftover file{'s' if n != 1 else ''} "
                       "(backups, swap files, Thumbs.db); 'kb check -v' lists them", err=True)
        stale = _stale(report)
        if stale:
            from kb.staleness import STALE_AFTER_DAYS

            if verbose:
                for r in stale:
                    when = (("checked " + r["checked"] + (f", {r['age_days']} days ago" if r["age_days"] >= 0
                                                          else ", a date in the future: fix it"))
                            if r["checked"] else "never checked")
                    click.echo(f"stale: catalog {r['catalog']}: {r['id']}: {when}; re-check it against its sources "
                               "and update its checked and verified fields", err=True)
            else:
                k = len(stale)
                future = " (or on a date in the future)" if any((r["age_days"] or 0) < 0 for r in stale) else ""
                click.echo(f"kb: {k} catalog record{'s were' if k != 1 else ' was'} last checked more than "
                           f"{STALE_AFTER_DAYS} days ago{future}; 'kb check -v' lists "
                           f"{'them' if k != 1 else 'it'}", err=True)
        shown, folded = _shown_warnings(report, warnings, verbose, folder)
        located = [str(p) for p in problems] + [str(w) for w in shown]

        if Path(records_path).resolve() != Path("records").resolve():  # the explaining command reads this folder
            located = [line.replace("[explained by: kb ", f"[explained by: kb --records {records_path} ")
                       for line in located]
        if located:  # one write for them all (a 10,000-attempt campaign has thousands of warnings)
            click.echo("\n".join(located))
        n, m = len(problems), len(warnings)
        said = f"; {m} warning{'s' if m != 1 else ''}" + (" (--strict: counted as errors)" if strict else "") if m else ""
        if m and len(report["kinds"]) > 1:
            said += " (" + ", ".join(f"{k} {n}" for k, n in report["kinds"].items()) + ")"
        if folded:
            k = len(report["groups"])
            said += (f" ({folded} of them shown as {k} line{'s' if k != 1 else ''} at the blocker{'s' if k != 1 else ''} "
                     "many attempts are at odds with; -v lists each)")
        if n:
            click.echo(f"{n} problem{'s' if n != 1 else ''} in {records_path}", err=True)
        else:
            click.echo(f"{report['records']} records OK in {records_path}{said}", err=True)
    sys.exit(1 if problems or (strict and warnings) else 0)


@cli.command("migrate")
@click.option("--write", "write", is_flag=True,
              help="Rewrite the records (without it, only show what would change).")
@click.option("--diff", "show_diff", is_flag=True, help="Show each file's change as a unified diff.")
@pass_env
@handle_errors
def migrate(env: Env, write: bool, show_diff: bool) -> None:
    """Rewrite records written in an older shape to the one this kb writes.

    Without --write it is a dry run: it lists each record to rewrite and why, and changes
    nothing. Old records load as they are, so migrating is never required; it makes the files say
    what kb would write today. Each file is rewritten whole through kb's write gate (comments in
    it are not kept: the dry run names the files that have some). Catalogs are never migrated.

    \b
    Examples:
      kb migrate --diff
      kb migrate --write
    """
    from kb.models import SCHEMA_VERSION
    from kb.usecases.migrate import apply_migration, plan_migration

    def records(n: int) -> str:
        return f"{n} record{'s' if n != 1 else ''}"

    plan = plan_migration(env.records)
    for line in plan.unreadable:
        click.echo(f"skipped (does not load): {line}", err=True)
    skipped = (f"; {len(plan.unreadable)} file{'s' if len(plan.unreadable) != 1 else ''} skipped: fix "
               f"{'them' if len(plan.unreadable) != 1 else 'it'} ('kb check' says how), then run kb migrate again"
               if plan.unreadable else "")
    for m in plan.todo:
        note = " (its comments will not be kept)" if m.drops_comments else ""
        click.echo(f"{m.path}: {'; '.join(m.changes)}{note}")
        if show_diff:
            click.echo(m.diff(), nl=False)
    if not plan.todo:
        click.echo(f"nothing to migrate: {records(plan.current)} already in schema version {SCHEMA_VERSION}{skipped}")
        sys.exit(1 if plan.unreadable else 0)
    if not write:
        click.echo(f"\n{records(len(plan.todo))} would be rewritten to schema version {SCHEMA_VERSION} "
                   f"({plan.current} already are); nothing was written: run kb migrate --write{skipped}")
        sys.exit(1 if plan.unreadable else 0)
    written = apply_migration(env.records, plan)
    click.echo(f"\nrewrote {records(len(written))} to schema version {SCHEMA_VERSION}{skipped}")
    sys.exit(1 if plan.unreadable else 0)
