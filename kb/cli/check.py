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
@pass_env
def check(env: Env, as_json: bool, strict: bool) -> None:
    """Validate every record and the references between them, then look for contradictions.

    Prints each problem as `path:line: field: message`, then a count; exits 1 if there is any.
    Findings (a success on a stack where a blocker of the same feature stands, a success citing
    a blocker, a fix credited to a component that did not change, resolutions claimed by
    decisions that are not accepted, unfilled TODO placeholders) print as
    `path:line: field: warning: message` and exit 0, unless --strict.
    """
    from kb.pipeline import load
    from kb.queries.findings import findings

    loaded = load(env.records)
    records, problems = loaded.records, loaded.problems
    warnings = [] if problems else [f.problem(loaded.graph) for f in findings(loaded.graph)]
    warnings.sort(key=lambda p: (p.path, p.line or 0, p.field, p.message))
    if as_json:
        emit_json({"records": len(records), "problems": [p.__dict__ for p in problems],
                   "warnings": [w.__dict__ for w in warnings]})
    else:
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
