"""The ``kb`` command: one verb each, thin over the library.

Each command parses its options, calls one kb function and formats the result. Results go to
stdout (``--json`` where there is a result), progress and warnings to stderr. Exit codes: 0 on
success, 1 on invalid records or a failed query, 2 on bad usage (click's own).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from kb import __version__
from kb.errors import InvalidRecords, KbError

RECORDS_HELP = "The records folder (default: ./records, or $KB_RECORDS)."


class Env:
    """What every command shares: the records folder and helpers to load the graph."""

    def __init__(self, records: str):
        self.records = Path(records)

    def graph(self):
        from kb.graph import load_graph

        return load_graph(self.records)


pass_env = click.make_pass_decorator(Env)


def fail(message: str, code: int = 1) -> None:
    """Print ``message`` on stderr and exit with ``code``."""
    click.echo(f"kb: {message}", err=True)
    sys.exit(code)


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn kb's own errors into messages and exit 1 (never a traceback for bad input)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InvalidRecords as exc:
            for p in exc.problems:
                click.echo(str(p), err=True)
            fail(f"{exc}; run 'kb check' after fixing them")
        except KbError as exc:
            fail(str(exc))

    return wrapper


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kb")
@click.option("--records", "records", default=lambda: os.environ.get("KB_RECORDS", "records"),
              show_default="records", type=click.Path(file_okay=False), help=RECORDS_HELP)
@click.pass_context
def cli(ctx: click.Context, records: str) -> None:
    """kb: attempts, blockers, root causes and decisions of GPU inference tuning campaigns.

    Records are YAML files under records/ (one folder per kind). Start with `kb check`, then
    `kb roots`, `kb why ATTEMPT`, `kb unblocks cuda=13.0`, and `kb build` for the site.
    """
    ctx.obj = Env(records)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
@pass_env
def check(env: Env, as_json: bool) -> None:
    """Validate every record and the references between them.

    Prints each problem as `path:line: field: message`, then a count. Exits 1 if there is any.
    """
    from kb.graph import check_records

    try:
        records, problems = check_records(env.records)
    except KbError as exc:
        fail(str(exc))
        return
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
        click.echo(f"{i}. {r.id}  ({len(r.attempts)} attempt{'s' if len(r.attempts) != 1 else ''} blocked)")
        click.echo(f"   {r.title}")
        click.echo(f"   fix: {fix}" + (f"; workaround: {r.workaround}" if r.workaround and not r.fixed_by else ""))
        if r.blockers:
            click.echo(f"   causes: {', '.join(r.blockers)}")
        if r.attempts:
            click.echo(f"   attempts: {', '.join(r.attempts)}")


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

    res = compute(env.graph(), parse_change(list(change)), to_stack=to_stack, from_stack=from_stack,
                  campaign=campaign)
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
        need = "; ".join(s.missing)
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


def _mkdocs_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.DEBUG if verbose else logging.WARNING)
    logger.propagate = False


@cli.command()
@click.option("-f", "--config-file", type=click.Path(dir_okay=False), default=None,
              help="mkdocs.yml to use (default: ./mkdocs.yml, or kb's built-in site configuration).")
@click.option("-d", "--site-dir", type=click.Path(file_okay=False), default=None, help="Where to write the site (default: site/).")
@click.option("--strict", is_flag=True, help="Fail on MkDocs warnings too (broken links, ...).")
@click.option("-v", "--verbose", is_flag=True, help="Show MkDocs' progress.")
@pass_env
@handle_errors
def build(env: Env, config_file: str | None, site_dir: str | None, strict: bool, verbose: bool) -> None:
    """Publish the records as a Material for MkDocs site (site/ by default)."""
    from kb.site.build import build_site

    _mkdocs_logging(verbose)
    out = build_site(env.records, config_file=config_file, site_dir=site_dir, strict=strict)
    click.echo(f"site written to {out}/ (open {out}/index.html, or run 'kb serve')", err=True)
    click.echo(str(out))


@cli.command()
@click.option("-f", "--config-file", type=click.Path(dir_okay=False), default=None, help="mkdocs.yml to use.")
@click.option("-a", "--dev-addr", default="127.0.0.1:8000", show_default=True, help="Address to serve on.")
@pass_env
@handle_errors
def serve(env: Env, config_file: str | None, dev_addr: str) -> None:
    """Serve the site locally and rebuild when a record changes."""
    from kb.site.build import serve_site

    _mkdocs_logging(True)
    serve_site(env.records, config_file=config_file, dev_addr=dev_addr)


def main() -> None:
    """Entry point of the ``kb`` console script and ``python -m kb``."""
    cli(prog_name="kb")
