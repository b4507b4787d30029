"""``kb diff A B``: what differs between two attempts (flags, env, stack components, platform,
metrics with Δ and %, outcome, blockers)."""

from __future__ import annotations

import click

from kb.cli.app import Env, cli, emit_json, handle_errors, pass_env


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"


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
    click.echo(f"A  {d.a}  {d.date_a}  {d.title_a}")
    click.echo(f"B  {d.b}  {d.date_b}  {d.title_b}")
    click.echo("")
    if d.outcome[0] != d.outcome[1]:
        click.echo(f"outcome: {d.outcome[0]} → {d.outcome[1]}")
    else:
        click.echo(f"outcome: {d.outcome[0]} (both)")
    if d.metrics:
        click.echo("metrics:")
        for m in d.metrics:
            change = ""
            if m.delta is not None:
                change = f"  Δ {m.delta:+g}" + (f" ({m.pct:+.1f} %)" if m.pct is not None else "")
                if m.better is not None:
                    change += "  better" if m.better else "  worse"
            mark = "*" if m.headline else " "
            click.echo(f" {mark} {m.name}: {_fmt(m.a)} → {_fmt(m.b)} {m.unit}{change}")
    if d.stack[0] != d.stack[1]:
        click.echo(f"stack: {d.stack[0] or '—'} → {d.stack[1] or '—'}")
    for sec, changes in d.sections.items():
        same = f" ({d.same[sec]} the same)" if show_all else ""
        if not changes:
            if show_all:
                click.echo(f"{sec}: no difference{same}")
            continue
        click.echo(f"{sec}:{same}")
        for c in changes:
            if c.a is None:
                click.echo(f"  + {c.key} {c.b}".rstrip())
            elif c.b is None:
                click.echo(f"  - {c.key} {c.a}".rstrip())
            else:
                click.echo(f"  ~ {c.key}: {c.a or '(set)'} → {c.b or '(set)'}" + (f"  ({c.direction})" if c.direction else ""))
    if d.command != (None, None):
        click.echo(f"command:\n  A: {d.command[0] or '—'}\n  B: {d.command[1] or '—'}")
    bl = d.blockers
    if bl["only_a"] or bl["only_b"] or bl["both"]:
        click.echo("blockers:")
        for x in bl["only_a"]:
            click.echo(f"  - {x} (only A)")
        for x in bl["only_b"]:
            click.echo(f"  + {x} (only B)")
        for x in bl["both"]:
            click.echo(f"  = {x} (both)")
