"""The questions: ``kb roots``, ``kb why``, ``kb unblocks``, ``kb graph``."""

from __future__ import annotations

import click

from kb.cli.app import (
    Env,
    cli,
    emit_json,
    handle_errors,
    pass_env,
)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the ranking as JSON.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=None, help="Show only the first N root causes.")
@pass_env
@handle_errors
def roots(env: Env, as_json: bool, limit: int | None) -> None:
    """Root causes ranked by the attempts they block, directly or through the blockers they cause."""
    from kb.queries import roots as rank_roots

    ranked = rank_roots(env.graph())[:limit]
    if as_json:
        emit_json([r.to_dict() for r in ranked])
        return
    if not ranked:
        click.echo("no root causes recorded", err=True)
    for i, r in enumerate(ranked, 1):
        fix = " or ".join(", ".join(f"{k}{v}" for k, v in alt.items()) for alt in r.fixed_by) or "no known fix"
        drafts = f", +{len(r.drafts)} draft{'s' if len(r.drafts) != 1 else ''}" if r.drafts else ""
        click.echo(f"{i}. {r.id}  ({len(r.attempts)} attempt{'s' if len(r.attempts) != 1 else ''} blocked{drafts})")
        click.echo(f"   {r.title}")
        click.echo(f"   fix: {fix}" + (f"; workaround: {r.workaround}" if r.workaround and not r.fixed_by else ""))
        if r.blockers:
            click.echo(f"   causes: {', '.join(r.blockers)}")
        if r.attempts:
            click.echo(f"   attempts: {', '.join(r.attempts)}")
        if r.drafts:
            click.echo(f"   drafts (not reviewed): {', '.join(r.drafts)}")


@cli.command()
@click.argument("attempt")
@click.option("--json", "as_json", is_flag=True, help="Print the chains as JSON.")
@pass_env
@handle_errors
def why(env: Env, attempt: str, as_json: bool) -> None:
    """Why ATTEMPT failed: each chain of blockers down to its root causes, with fixes."""
    from kb.queries import why as explain

    res = explain(env.graph(), attempt)
    if as_json:
        emit_json(res.to_dict())
        return
    click.echo(f"{res.attempt}: {res.title} ({res.outcome})")
    if res.error:
        click.echo(f"  error: {res.error.strip().splitlines()[-1]}")
    if not res.chains:
        click.echo("  no blocker recorded for this attempt")
    for chain in res.chains:
        click.echo("")
        for depth, link in enumerate(chain):
            tag = " [root cause]" if link.is_root else ""
            click.echo(f"  {'  ' * depth}→ {link.id}{tag}: {link.title}")
            fixes = " or ".join(", ".join(f"{k}{v}" for k, v in alt.items()) for alt in link.fixed_by)
            if fixes:
                click.echo(f"  {'  ' * depth}  fixed by {fixes}")
            elif link.is_root:
                click.echo(f"  {'  ' * depth}  no known fix")
            if link.workaround:
                click.echo(f"  {'  ' * depth}  workaround: {link.workaround}")
    if res.matches:
        click.echo(f"\n  the error text also matches: {', '.join(res.matches)}")


@cli.command()
@click.argument("change", nargs=-1)
@click.option("--to", "to_stack", help="A whole target stack (id) instead of, or under, component changes.")
@click.option("--from", "from_stack", help="The stack to start from (default: the latest attempt's).")
@click.option("--campaign", help="Restrict the default --from stack and the platform to this campaign.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@pass_env
@handle_errors
def unblocks(env: Env, change: tuple[str, ...], to_stack: str | None, from_stack: str | None,
             campaign: str | None, as_json: bool) -> None:
    """What a stack change would unblock: CHANGE is component=version (several allowed).

    \b
    Examples:
      kb unblocks cuda=13.0
      kb unblocks cuda=13.0 flashinfer=0.6.17 --from cuda-12.8
      kb unblocks --from cuda-12.8 --to cuda-13.0
    """
    from kb.queries import parse_change
    from kb.queries import unblocks as compute

    res = compute(env.graph(), parse_change(list(change)), to_stack=to_stack, from_stack=from_stack, campaign=campaign)
    if as_json:
        emit_json(res.to_dict())
        return
    what = " ".join(f"{k}={v}" for k, v in res.change.items()) or "(no component changes)"
    click.echo(f"change: {what}" + (f" (from stack {res.from_stack})" if res.from_stack else ""))
    click.echo(f"\nresolved ({len(res.resolved)}):")
    for r in res.resolved:
        click.echo(f"  ✓ {r['id']}: {r['title']}  [{r['by']}]")
    if not res.resolved:
        click.echo("  nothing")
    click.echo(f"\nworth retrying ({len(res.retry)}):")
    for a in res.retry:
        click.echo(f"  ↻ {a.id}: {a.title} (was {a.outcome}" + (f", {a.last_metric})" if a.last_metric else ")"))
    if not res.retry:
        click.echo("  nothing")
    click.echo(f"\nstill blocked ({len(res.still_blocked)}):")
    for s in res.still_blocked:
        need = " and ".join(s.missing)
        line = f"  ✗ {s.id}: " + (f"needs {need}" if need != "no known fix" else "no known fix")
        if s.workaround and need == "no known fix":
            line += f" (workaround: {s.workaround})"
        click.echo(line)
    for n in res.notes:
        click.echo(f"\nnote: {n}")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["mermaid", "dot", "json"]), default="mermaid",
              show_default=True, help="Output format.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@pass_env
@handle_errors
def graph(env: Env, fmt: str, as_json: bool) -> None:
    """Print the graph of records and typed references (Mermaid, Graphviz DOT or JSON)."""
    from kb import export

    kg = env.graph()
    if as_json or fmt == "json":
        emit_json(export.to_json(kg))
    elif fmt == "dot":
        click.echo(export.to_dot(kg))
    else:
        click.echo(export.to_mermaid(kg))
