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
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
@click.option("-v", "--verbose", is_flag=True, help="List the editor and OS leftovers skipped (x.yaml~, Thumbs.db, ...).")
@click.argument("folder", required=False, type=click.Path(file_okay=False))
@pass_env
def check(env: Env, as_json: bool, verbose: bool, folder: str | None) -> None:
    """Validate every record and the references between them.

    Prints each problem as `path:line: field: message`, then a count. Exits 1 if there is any.
    Editor backups, swap files, merge leftovers and OS files in records/ are skipped with one
    notice; -v lists them. FOLDER, when given, is the records folder (as --records before the
    command; handy in a pre-commit hook's args).
    """
    from pathlib import Path

    from kb.pipeline import load

    if folder is not None:
        env.records = Path(folder)
    loaded = load(env.records)
    records, problems = loaded.records, loaded.problems
    from kb.attachments import asset_problems
    from kb.store import list_assets

    problems = sorted(problems + asset_problems(records, list_assets(env.records)),
                      key=lambda p: (p.path, p.line or 0, p.field, p.message))
    if as_json:
        emit_json({"records": len(records), "problems": [p.__dict__ for p in problems],
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
        n = len(problems)
        if n:
            click.echo(f"{n} problem{'s' if n != 1 else ''} in {env.records}", err=True)
        else:
            click.echo(f"{len(records)} records OK in {env.records}", err=True)
    sys.exit(1 if problems else 0)
