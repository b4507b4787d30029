"""The questions: ``kb roots``, ``kb why``, ``kb unblocks``, ``kb graph``, and ``kb ask --stdin``
(many of them over records loaded once)."""

from __future__ import annotations

import json

import click

from kb.cli.app import (
    Env,
    cli,
    echo,
    emit_json,
    handle_errors,
    kept_answer,
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
@kept_answer("roots", skip=lambda options: options["catalog"] is not None)
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
    ranked = rank_roots(env.graph(), campaign=campaign, limit=limit)
    if as_json:
        emit_json([r.to_dict() for r in ranked])
        return
    if not ranked:
        echo("no root causes recorded", err=True)
    for i, r in enumerate(ranked, 1):
        drafts = f", +{len(r.drafts)} draft{'s' if len(r.drafts) != 1 else ''}" if r.drafts else ""
        now = ", ".join(f"{state.replace('_', ' ')} on {cid}'s current stack" for cid, state in sorted(r.now.items()))
        echo(f"{i}. {r.id}  (blocks {len(r.current)} now; {len(r.attempts)} attempt"
                   f"{'s' if len(r.attempts) != 1 else ''} historically{drafts})")
        echo(f"   {r.title}")
        if now:
            echo(f"   {now}")
        echo(f"   fix: {r.fix}")
        if r.blockers:
            echo(f"   causes: {', '.join(r.blockers)}")
        if r.current:
            echo(f"   blocks now: {', '.join(r.current)}")
        if r.attempts:
            echo(f"   attempts: {', '.join(r.attempts)}")
        if r.drafts:
            echo(f"   drafts (not reviewed): {', '.join(r.drafts)}")


def _catalog_roots(env: Env, name: str | None, as_json: bool, limit: int | None) -> None:
    """``kb roots --catalog``: over the catalogs the campaigns use, else over the shipped ones."""
    from kb.catalog import shipped_catalog_graph
    from kb.queries import catalog_roots

    kg = env.graph() if env.records.is_dir() else None
    if kg is None or not kg.records.catalog_of:
        kg = shipped_catalog_graph()
    known = sorted(set(kg.records.catalog_of.values()))
    if name is not None and name not in known:
        from kb.errors import UsageError

        raise UsageError(f"unknown catalog '{name}': the catalogs in use are {', '.join(known)}; "
                         "give one of them, or --catalog alone for all")
    ranked = catalog_roots(kg, name)[:limit]
    if as_json:
        emit_json([r.to_dict() for r in ranked])
        return
    if not ranked:
        echo(f"no root causes in {'catalog ' + name if name else 'the catalogs'}", err=True)
    for i, r in enumerate(ranked, 1):
        echo(f"{i}. {r.id}  (explains {len(r.explains)} blocker{'s' if len(r.explains) != 1 else ''}"
                   f" of catalog {r.catalog})")
        echo(f"   {r.title}")


@cli.command()
@click.argument("attempt", shell_complete=complete_ids("attempt"))
@click.option("--json", "as_json", is_flag=True, help="Print the chains as JSON.")
@pass_env
@kept_answer("why")
@handle_errors
def why(env: Env, attempt: str, as_json: bool) -> None:
    """Why ATTEMPT came out as it did: each chain of blockers down to its root causes, with
    fixes; the stack change it ran after, every changed component, and which one the fix credits."""
    from kb.queries import why as explain

    res = explain(env.graph(), attempt)
    if as_json:
        emit_json(res.to_dict())
        return
    echo(f"{res.attempt}: {res.title} ({res.outcome})")
    if res.error:
        echo(f"  error: {res.error.strip().splitlines()[-1]}")
    if not res.chains:
        echo("  no blocker recorded for this attempt")
    for chain in res.chains:
        echo("")
        for depth, link in enumerate(chain):
            tag = " [root cause]" if link.is_root else ""
            echo(f"  {'  ' * depth}→ {link.id}{tag}: {link.title}")
            if link.fixed_by or link.is_root:
                echo(f"  {'  ' * depth}  {link.fix}")
            if link.workaround and link.fixed_by:
                echo(f"  {'  ' * depth}  workaround: {link.workaround}")
    if res.matches:
        echo(f"\n  the error text also matches: {', '.join(res.matches)}")
    if res.retries:
        echo(f"\n  re-runs: {', '.join(res.retries)}")
    if res.credit_text:
        c = res.credit or {}
        echo(f"\n  stack change since {c.get('before')}: {res.credit_text}")
    for f in res.findings:
        echo(f"\n  warning: {f}")


def _retry_line(a) -> str:
    line = f"  ↻ {a.id}: {a.title} (was {a.outcome}" + (f", {a.last_metric})" if a.last_metric else ")")
    if a.disputed:
        line += f" — the catalog disagrees: {', '.join(a.disputed)} still stands"
    by_why: dict[str, list[str]] = {}
    for bid, why in sorted(a.may_hit.items()):
        by_why.setdefault(why, []).append(bid)
    for why, ids in by_why.items():
        line += f" — may hit {', '.join(ids)} ({why})"
    return line


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
@kept_answer("unblocks")
@handle_errors
def unblocks(env: Env, change: tuple[str, ...], to_stack: str | None, from_stack: str | None,
             campaign: str | None, show_all: bool, as_json: bool) -> None:
    """What a stack change does: CHANGE is component=version (several allowed), the version to
    move to (not a specifier: write cuda=13.0, not cuda>=13.0).

    Reports what it resolves, what it only disables (crash gone, feature still off), what it
    introduces, the retries worth making and those already made; where a catalog's record of
    the same failure disagrees with what it resolves; an introduced blocker a retry "would hit"
    only when kb can confirm it on the stack, else "may hit" with why; what still stands is
    folded (--all lists it).

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
    echo(f"change: {what}" + (f" (from stack {res.from_stack})" if res.from_stack else ""))
    where = f"platform {res.platform} ({res.platform_title})" if res.platform else "no platform (platform rules not checked)"
    echo(f"reasoned for {where}" + (f", campaign {res.campaign}" if res.campaign else "")
               + f", stack {res.from_stack or '(none)'}" + (f" → {res.to_stack}" if res.to_stack else ""))
    echo(f"\nresolved ({len(res.resolved)}):")
    for r in res.resolved:
        echo(f"  ✓ {r['id']}: {r['title']}  [{r['by']}]")
    if not res.resolved:
        echo("  nothing")
    if res.disputed:
        echo(f"\nresolved here, but the catalog disagrees ({len(res.disputed)}):")
        for disp in res.disputed:
            echo(f"  ≠ {disp['own']} [{disp['by']}]: {_dispute_text(disp)}")
    if res.disabled:
        echo(f"\nonly disabled, the feature still off ({len(res.disabled)}):")
        for r in res.disabled:
            need = f"; to enable it: {' and '.join(r['missing'])}" if r["missing"] else ""
            echo(f"  ◐ {r['id']}: {r['title']}  [{r['by']}{need}]")
    echo(f"\nintroduced ({len(res.introduced)}):")
    for r in res.introduced:
        fix = f"; needs {' and '.join(r['missing'])}" if r["missing"] else ""
        doubt = f" (may not be met: {r['doubt']})" if r.get("doubt") else ""
        echo(f"  ⚠ {r['id']}: {r['title']}  [{r['reason']}{fix}]{doubt}")
    if not res.introduced:
        echo("  nothing")
    echo(f"\nworth retrying ({len(res.retry)}):")
    for a in res.retry:
        echo(_retry_line(a))
    if not res.retry:
        echo("  nothing")
    if res.retry_would_hit:
        echo(f"\nretries that would hit an introduced blocker, its conditions confirmed on the stack ({len(res.retry_would_hit)}):")
        for a in res.retry_would_hit:
            echo(_retry_line(a) + f" — would hit {', '.join(a.would_hit)}")
    if res.retried:
        echo(f"\nalready retried ({len(res.retried)}):")
        for d in res.retried:
            echo(f"  ✔ {d.of}: retried {d.date} on {d.stack or 'its stack'} as {d.id}: {d.outcome}"
                       + (f", {d.last_metric}" if d.last_metric else ""))
    n_still = len(res.still_blocked)
    others = (f"; {len(res.other_still_blocked)} more that no attempt of the campaign met"
              if res.other_still_blocked else "")
    if show_all:
        echo(f"\nstill blocked ({n_still}{others}):")
        for s in res.still_blocked + res.other_still_blocked:
            need = " and ".join(s.missing)
            line = f"  ✗ {s.id}: " + (f"needs {need}" if need != "no known fix" else "no known fix")
            if s.workaround and need == "no known fix":
                line += f" (workaround: {s.workaround})"
            if s.advice:
                line += f" [{'; '.join(s.advice)}]"
            echo(line)
    else:
        ids = f": {', '.join(s.id for s in res.still_blocked)}" if res.still_blocked else ""
        echo(f"\nstill blocked ({n_still}{others}; --all lists them with what each needs){ids}")
    for n in res.notes:
        echo(f"\nnote: {n}")


def _dispute_text(d: dict) -> str:
    from kb.queries.counterparts import Dispute

    return Dispute(**d).sentence()


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


_ASKED = ("check", "roots", "why", "unblocks", "diff")
"""The read-only commands ``kb ask --stdin`` answers."""


@cli.command("ask")
@click.option("--stdin", "from_stdin", is_flag=True, required=True,
              help="Read one question a line from standard input (required: the only way to ask).")
@pass_env
def ask(env: Env, from_stdin: bool) -> None:
    """Answer many questions with the records loaded once: one question a line on standard input,
    the argv of a read-only command as a JSON list (``["roots", "-n", "3"]``, ``["why", "ID"]``,
    ``["unblocks", "cuda=13.0", "--from", "S"]``, ``["diff", "A", "B"]``, ``["check"]``); one
    JSON object a line out: ``{"exit": N, "result": ..., "problems": [...]}``, ``result`` being what
    the command's ``--json`` prints. An error answers that line and the next is read; records
    changed meanwhile are loaded again before the next answer (:meth:`kb.api.Knowledge.refresh`).

    \b
    Example:
      printf '%s\\n' '["roots", "-n", "2"]' '["why", "2026-02-23-nccl-tree"]' | kb ask --stdin
    """
    import sys

    from kb.api import Knowledge
    from kb.cli.app import exit_code
    from kb.errors import InvalidRecords, KbError

    knowledge = Knowledge(env.records, env.catalogs)
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            try:
                argv = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number}: not JSON ({exc.msg}); a question is a JSON list such as "
                                 '["why", "ATTEMPT-ID"]') from None
            if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
                raise ValueError(f"line {number}: a question is a JSON list of strings, the command and its arguments")
            knowledge.refresh()
            answer = {"exit": 0, "result": _answer_of(knowledge, argv), "problems": []}
        except InvalidRecords as exc:
            answer = {"exit": exit_code(exc), "result": None, "problems": [str(p) for p in exc.problems]}
        except KbError as exc:
            answer = {"exit": exit_code(exc), "result": None, "problems": [str(exc)]}
        except (ValueError, click.ClickException) as exc:
            message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
            answer = {"exit": 2, "result": None, "problems": [message]}
        click.echo(json.dumps(answer, ensure_ascii=False, default=str))
        sys.stdout.flush()


def _answer_of(knowledge, argv: list[str]):
    """The ``--json`` result of one question: ``argv`` parsed by the command's own options."""
    name, args = argv[0], argv[1:]
    if name not in _ASKED:
        raise click.UsageError(f"'{name}' is not a question kb ask answers; ask one of {', '.join(_ASKED)}")
    if name == "check":
        if args:
            raise click.UsageError("check takes no arguments here")
        return {"problems": [str(p) for p in knowledge.problems], "ok": not knowledge.problems}
    command = cli.commands.get(name)
    if command is None:
        from kb.cli.app import load_commands

        load_commands()
        command = cli.commands[name]
    with command.make_context(name, list(args), resilient_parsing=False) as ctx:
        params = ctx.params
    if name == "roots":
        if params.get("catalog") is not None:
            raise click.UsageError("roots --catalog is not asked through kb ask")
        return [r.to_dict() for r in knowledge.roots(campaign=params["campaign"], limit=params["limit"])]
    if name == "why":
        return knowledge.why(params["attempt"]).to_dict()
    if name == "unblocks":
        return knowledge.unblocks(list(params["change"]), to_stack=params["to_stack"], from_stack=params["from_stack"],
                                  campaign=params["campaign"]).to_dict()
    return knowledge.diff(params["a"], params["b"]).to_dict()
