"""``kb diff A B``: what differs between two attempts (flags, env, stack components, platform,
metrics with Δ and %, outcome, blockers)."""

from __future__ import annotations

import click

from kb.cli.app import Env, cli, emit_json, handle_errors, pass_env


@cli.command()
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("--all", "show_all", is_flag=True, help="Also count the keys that are the same.")
@pass_env
@handle_errors
def diff(env: Env, a: str, b: str, as_json: bool, show_all: bool) -> None:
    """Compare attempt A (the reference) with attempt B: only what differs is printed.

    \b
    Example:
      kb diff 2026-02-21-eagle3-speculation 2026-02-27-eagle3-cuda13
    """
    from kb.queries import diff_attempts

    d = diff_attempts(env.graph(), a, b)
    if as_json:
        emit_json(d.to_dict())
        return
    from kb.render import diff_text

    click.echo(diff_text(d, show_all))
