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
@pass_env
def check(env: Env, as_json: bool) -> None:
    """Validate every record and the references between them.

    Prints each problem as `path:line: field: message`, then a count. Exits 1 if there is any.
    """
    from kb.pipeline import load

    loaded = load(env.records)
    records, problems = loaded.records, loaded.problems
    if as_json:
        emit_json({"records": len(records), "problems": [p.__dict__ for p in problems]})
    else:
        for p in problems:
            click.echo(str(p))
        n = len(problems)
        if n:
            click.echo(f"{n} problem{'s' if n != 1 else ''} in {env.records}", err=True)
        else:
            click.echo(f"{len(records)} records OK in {env.records}", err=True)
    sys.exit(1 if problems else 0)
