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
from kb.cli.complete import complete_ids


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the ranking as JSON.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=None, help="Show only the first N root causes.")
@click.option("--campaign", help="Count only this campaign's attempts.")
@click.option("--catalog", "catalog", is_flag=False, flag_value="", default=None, metavar="[NAME]",
              help="Rank the catalogs' own root causes by the blockers each explains (a catalog's name: only it; "
                   "without catalogs in use, the catalogs shipped with kb).")
@pass_env
@handle_errors
def roots(env: Env, as_json: bool, limit: int | None, campaign: str | None, catalog: str | None) -> None:
    """Root causes ranked by what blocks each campaign's current stack, with the historical count beside it.

    The current stack is that of the campaign's latest attempt; a root cause counts an attempt
    now when it still stands there (directly or through the blockers it causes).
    With --catalog: the catalogs' root causes, ranked by the number of their blockers each explains.
    """
    from kb.queries import roots as rank_roots

    if catalog is not None:
        _catalog_roots(env, catalog or None, as_json, limit)
        return
    ranked = rank_roots(env.graph(), campaign=campaign)[:limit]
    if as_json:
        emit_json([r.to_dict() for r in ranked])
        return
    if not ranked:
        click.echo("no root causes recorded", err=True)
    for i, r in enumerate(ranked, 1):
        drafts = f", +{len(r.drafts)} draft{'s' if len(r.drafts) != 1 else ''}" if r.drafts else ""
        now = ", ".join(f"{state.replace('_', ' ')} on {cid}'s current stack" for cid, state in sorted(r.now.items()))
        click.echo(f"{i}. {r.id}  (blocks {len(r.current)} now; {len(r.attempts)} attempt"
                   f"{'s' if len(r.attempts) != 1 else ''} historically{drafts})")
        click.echo(f"   {r.title}")
        if now:
            click.echo(f"   {now}")
        click.echo(f"   fix: {r.fix}")
        if r.blockers:
            click.echo(f"   causes: {', '.join(r.blockers)}")
        if r.current:
            click.echo(f"   blocks now: {', '.join(r.current)}")
        if r.attempts:
            click.echo(f"   attempts: {', '.join(r.attempts)}")
        if r.drafts:
            click.echo(f"   drafts (not reviewed): {', '.join(r.drafts)}")


def _catalog_roots(env: Env, name: str | None, as_json: bool, limit: int | None) -> None:
    """``kb roots --catalog``: over the catalogs the campaigns use, else over the shipped ones."""
    from kb.catalog import shipped_catalog_graph
    from kb.queries import catalog_roots

    kg = env.graph() if env.records.is_dir() else None
    if kg is None or not kg.records.catalog_of:
        kg = shipped_catalog_graph()
    ranked = catalog_roots(kg, name)[:limit]
    if as_json:
        emit_json([r.to_dict() for r in ranked])
        return
    if not ranked:
        click.echo(f"no root causes in {'catalog ' + name if name else 'the catalogs'}", err=True)
    for i, r in enumerate(ranked, 1):
        click.echo(f"{i}. {r.id}  (explains {len(r.explains)} blocker{'s' if len(r.explains) != 1 else ''}"
                   f" of catalog {r.catalog})")
        click.echo(f"   {r.title}")


@cli.command()
@click.argument("attempt", shell_complete=complete_ids("attempt"))
@click.option("--json", "as_json", is_flag=True, help="Print the chains as JSON.")
@pass_env
@handle_errors
def why(env: Env, attempt: str, as_json: bool) -> None:
    """Why ATTEMPT came out as it did: each chain of blockers down to its root causes, with
    fixes; the stack change it ran after, every changed component, and which one the fix credits."""
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
            if link.fixed_by or link.is_root:
                click.echo(f"  {'  ' * depth}  {link.fix}")
            if link.workaround and link.fixed_by:
                click.echo(f"  {'  ' * depth}  workaround: {link.workaround}")
    if res.matches:
        click.echo(f"\n  the error text also matches: {', '.join(res.matches)}")
    if res.retries:
        click.echo(f"\n  re-runs: {', '.join(res.retries)}")
    if res.credit_text:
        c = res.credit or {}
        click.echo(f"\n  stack change since {c.get('before')}: {res.credit_text}")
    for f in res.findings:
        click.echo(f"\n  warning: {f}")


def _retry_line(a) -> str:
    return f"  ↻ {a.id}: {a.title} (was {a.outcome}" + (f", {a.last_metric})" if a.last_metric else ")")


@cli.command()
@click.argument("change", nargs=-1)
@click.option("--to", "to_stack", shell_complete=complete_ids("stack"),
              help="A whole target stack (id) instead of, or under, component changes.")
@click.option("--from", "from_stack", shell_complete=complete_ids("stack"),
              help="The stack to start from (default: the campaign's current stack).")
@click.option("--campaign", shell_complete=complete_ids("campaign"),
              help="The campaign whose platform, stack and attempts to reason from.")
@click.option("--all", "show_all", is_flag=True, help="List every blocker that still stands, not only a count.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@pass_env
@handle_errors
def unblocks(env: Env, change: tuple[str, ...], to_stack: str | None, from_stack: str | None,
             campaign: str | None, show_all: bool, as_json: bool) -> None:
    """What a stack change does: CHANGE is component=version (several allowed), the version to
    move to (not a specifier: write cuda=13.0, not cuda>=13.0).

    Reports what it resolves, what it only disables (crash gone, feature still off), what it
    introduces, the retries worth making and those already made; what still stands is folded
    (--all lists it).

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
    where = f"platform {res.platform} ({res.platform_title})" if res.platform else "no platform (platform rules not checked)"
    click.echo(f"reasoned for {where}" + (f", campaign {res.campaign}" if res.campaign else "")
               + f", stack {res.from_stack or '(none)'}" + (f" → {res.to_stack}" if res.to_stack else ""))
    click.echo(f"\nresolved ({len(res.resolved)}):")
    for r in res.resolved:
        click.echo(f"  ✓ {r['id']}: {r['title']}  [{r['by']}]")
    if not res.resolved:
        click.echo("  nothing")
    if res.disabled:
        click.echo(f"\nonly disabled, the feature still off ({len(res.disabled)}):")
        for r in res.disabled:
            need = f"; to enable it: {' and '.join(r['missing'])}" if r["missing"] else ""
            click.echo(f"  ◐ {r['id']}: {r['title']}  [{r['by']}{need}]")
    click.echo(f"\nintroduced ({len(res.introduced)}):")
    for r in res.introduced:
        fix = f"; needs {' and '.join(r['missing'])}" if r["missing"] else ""
        click.echo(f"  ⚠ {r['id']}: {r['title']}  [{r['reason']}{fix}]")
    if not res.introduced:
        click.echo("  nothing")
    click.echo(f"\nworth retrying ({len(res.retry)}):")
    for a in res.retry:
        click.echo(_retry_line(a))
    if not res.retry:
        click.echo("  nothing")
    if res.retry_would_hit:
        click.echo(f"\nretries that would hit an introduced blocker ({len(res.retry_would_hit)}):")
        for a in res.retry_would_hit:
            click.echo(_retry_line(a) + f" — would hit {', '.join(a.would_hit)}")
    if res.retried:
        click.echo(f"\nalready retried ({len(res.retried)}):")
        for d in res.retried:
            click.echo(f"  ✔ {d.of}: retried {d.date} on {d.stack or 'its stack'} as {d.id}: {d.outcome}"
                       + (f", {d.last_metric}" if d.last_metric else ""))
    n_still = len(res.still_blocked)
    others = (f"; {len(res.other_still_blocked)} more that no attempt of the campaign met"
              if res.other_still_blocked else "")
    if show_all:
        click.echo(f"\nstill blocked ({n_still}{others}):")
        for s in res.still_blocked + res.other_still_blocked:
            need = " and ".join(s.missing)
            line = f"  ✗ {s.id}: " + (f"needs {need}" if need != "no known fix" else "no known fix")
            if s.workaround and need == "no known fix":
                line += f" (workaround: {s.workaround})"
            if s.advice:
                line += f" [{'; '.join(s.advice)}]"
            click.echo(line)
    else:
        ids = f": {', '.join(s.id for s in res.still_blocked)}" if res.still_blocked else ""
        click.echo(f"\nstill blocked ({n_still}{others}; --all lists them with what each needs){ids}")
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
