"""``kb check``: validate every record and reference."""

from __future__ import annotations

import sys

import click

from kb.cli.app import (
    Env,
    cli,
    emit_json,
    pass_env,
)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the problems and warnings as JSON.")
@click.option("--strict", is_flag=True, help="Treat warnings (contradictions, placeholders) as errors: exit 1.")
@click.option("-v", "--verbose", is_flag=True, help="List the editor and OS leftovers skipped (x.yaml~, Thumbs.db, ...).")
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
    """
    from pathlib import Path

    from kb.attachments import asset_problems
    from kb.pipeline import load
    from kb.queries.findings import findings
    from kb.store import list_assets

    if folder is not None:
        env.records = Path(folder)
    loaded = load(env.records)
    records, problems = loaded.records, loaded.problems
    problems = sorted(problems + asset_problems(records, list_assets(env.records)),
                      key=lambda p: (p.path, p.line or 0, p.field, p.message))
    warnings = [] if problems else [f.problem(loaded.graph) for f in findings(loaded.graph)]
    warnings.sort(key=lambda p: (p.path, p.line or 0, p.field, p.message))
    if as_json:
        emit_json({"records": len(records), "problems": [p.__dict__ for p in problems],
                   "warnings": [w.__dict__ for w in warnings],
                   "ignored": [{"path": path, "what": what} for path, what in records.ignored]})
    else:
        if verbose:
            for path, what in records.ignored:
                click.echo(f"ignored: {path} ({what})", err=True)
        elif records.ignored:
            n = len(records.ignored)
            click.echo(f"kb: skipped {n} editor/OS leftover file{'s' if n != 1 else ''} "
                       "(backups, swap files, Thumbs.db); 'kb check -v' lists them", err=True)
        for p in problems:
            click.echo(str(p))
        for w in warnings:
            click.echo(str(w))
        n, m = len(problems), len(warnings)
        said = f"; {m} warning{'s' if m != 1 else ''}" + (" (--strict: counted as errors)" if strict else "") if m else ""
        if n:
            click.echo(f"{n} problem{'s' if n != 1 else ''} in {env.records}", err=True)
        else:
            click.echo(f"{len(records)} records OK in {env.records}{said}", err=True)
    sys.exit(1 if problems or (strict and warnings) else 0)
