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
@click.option("--now", "now_first", is_flag=True, help="Rank by the attempts each root cause still blocks on the current stack.")
@click.option("--catalog", "catalog", is_flag=False, flag_value="", default=None, metavar="[NAME]",
              help="Rank the catalogs' own root causes by the blockers each explains (a catalog's name: only it; "
                   "without catalogs in use, the catalogs shipped with kb).")
@pass_env
@kept_answer("roots", skip=lambda options: options["catalog"] is not None)
@handle_errors
def roots(env: Env, as_json: bool, limit: int | None, campaign: str | None, now_first: bool, catalog: str | None) -> None:
    """Root causes ranked by the attempts they blocked over the campaign's history.

    An attempt counts for a root cause through the blockers it names (and their causes) and
    through the catalog blockers its error matches by signature. Beside each: whether it still
    stands on each campaign's current stack (that of its latest attempt), its fixes, and a
    dispute when the records disagree on it. Catalog root causes no attempt met are one line at
    the end. --now ranks by what still blocks the current stack; with --catalog: the catalogs'
    root causes, ranked by the number of their blockers each explains.
    """
    from kb.queries import roots_report

    if catalog is not None:
        _catalog_roots(env, catalog or None, as_json, limit)
        return
    report = roots_report(env.graph(), campaign=campaign, limit=limit, now_first=now_first)
    if as_json:
        emit_json(report.to_dict())
        return
    if not report.roots:
        echo("no root causes recorded", err=True)
    from kb.render import roots_text

    text = roots_text(report)
    if text:
        echo(text)


@cli.command("next")
@click.option("--campaign", help="Only this campaign's next steps.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=None, help="Show only the first N steps.")
@click.option("--json", "as_json", is_flag=True, help="Print the steps as JSON (kind, target, reason, rank inputs).")
@pass_env
@kept_answer("next")
@handle_errors
def next_command(env: Env, campaign: str | None, limit: int | None, as_json: bool) -> None:
    """What to try next: retries worth making (with what the catalogs predict), credits to verify,
    baselines to measure, plans to start; ranked by the attempts each would unblock, then by the
    headroom to the campaign's target."""
    from kb.queries import next_steps

    steps = next_steps(env.graph(), campaign)[:limit]
    if as_json:
        emit_json([s.to_dict() for s in steps])
        return
    if not steps:
        echo("nothing to try next that the records point to: no blocked attempt is due a retry on the current stack, "
             "no credit waits to be verified, no measured attempt lacks a baseline on its stack and no accepted plan "
             "waits to start", err=True)
        return
    from kb.render import next_text

    echo(next_text(steps))


@cli.command()
@click.argument("text", required=False)
@click.option("--file", "path", type=click.Path(exists=True, dir_okay=False, allow_dash=True), default=None,
              help="Read the error text from this file ('-': standard input).")
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
@pass_env
@handle_errors
def match(env: Env, text: str | None, path: str | None, as_json: bool) -> None:
    """Which blockers an error matches, and which earlier attempts hit it (read-only).

    TEXT is the error (quote it); or --file PATH, or '-' / no TEXT with the error on standard
    input. Signatures of the campaign's blockers and of the catalogs it uses are matched; a short
    or generic one is a possible match. Nothing is written: `kb log` links what you record.
    """
    import sys

    from kb.errors import UsageError
    from kb.queries import match_error

    if text is not None and path is not None:
        raise UsageError("give the error as TEXT or --file, not both")
    if path is not None:
        with click.open_file(path, "rb") as fh:
            error = _decoded(fh.read())
    elif text is not None and text != "-":
        error = _cleaned(text)
    elif not sys.stdin.isatty() or text == "-":
        error = _decoded(sys.stdin.buffer.read())
    else:
        raise UsageError("give the error text: kb match 'KeyError: 12', kb match --file log.txt, or pipe it in")
    if not error.strip():
        raise UsageError("the error text is empty")
    res = match_error(env.graph(), error)
    if as_json:
        emit_json(res.to_dict())
        return
    from kb.render import match_text

    echo(match_text(res))


def _decoded(data: bytes) -> str:
    """An error text's bytes as text: UTF-16 when it starts with a UTF-16 byte order mark (what
    PowerShell's ``>`` writes), else UTF-8 (a BOM dropped), undecodable bytes replaced; terminal
    colour codes (ANSI CSI sequences, ``ESC [ 31 m``) removed; ``\r\n`` and a lone ``\r`` are line
    ends; every other control character (C0, DEL, C1) but tab becomes a space (a binary file prints
    nothing raw)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _cleaned(data.decode("utf-16", errors="replace"))
    return _cleaned(data.decode("utf-8-sig", errors="replace"))


def _cleaned(text: str) -> str:
    """``text`` with terminal colour codes removed, line ends made ``\n`` and other control
    characters but tab made spaces (see :func:`_decoded`)."""
    import re
    import unicodedata

    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", text).replace("\r\n", "\n").replace("\r", "\n")
    return "".join(c if c in "\t\n" or unicodedata.category(c) != "Cc" else " " for c in text)


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
    if ranked:
        from kb.render import catalog_roots_text

        echo(catalog_roots_text(ranked))


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
    from kb.render import why_text

    echo(why_text(res))


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
    from kb.render import unblocks_text

    echo(unblocks_text(res, show_all))


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


_ASKED = ("check", "roots", "why", "unblocks", "diff", "next", "match")
"""The read-only commands ``kb ask --stdin`` answers."""


@cli.command("ask")
@click.option("--stdin", "from_stdin", is_flag=True, required=True,
              help="Read one question a line from standard input (required: the only way to ask).")
@pass_env
def ask(env: Env, from_stdin: bool) -> None:
    """Answer many questions with the records loaded once: one question a line on standard input,
    the argv of a read-only command as a JSON list (``["roots", "-n", "3"]``, ``["why", "ID"]``,
    ``["unblocks", "cuda=13.0", "--from", "S"]``, ``["diff", "A", "B"]``, ``["next"]``,
    ``["match", "ERROR TEXT"]``, ``["check"]``); one
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
    if any(a in ("--help", "-h") for a in args):
        raise click.UsageError(f"kb ask answers questions, not --help: see 'kb {name} --help'")
    if name == "check":
        if args:
            raise click.UsageError("check takes no arguments here")
        if knowledge.problems:
            from kb.errors import InvalidRecords

            raise InvalidRecords(knowledge.problems)  # answered as exit 1 with every problem, as kb check exits
        return {"problems": [], "ok": True}
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
        from kb.queries import roots_report

        return roots_report(knowledge.graph, campaign=params["campaign"], limit=params["limit"],
                            now_first=params["now_first"]).to_dict()
    if name == "why":
        return knowledge.why(params["attempt"]).to_dict()
    if name == "next":
        from kb.queries import next_steps

        return [x.to_dict() for x in next_steps(knowledge.graph, params["campaign"])[:params["limit"]]]
    if name == "match":
        if not params.get("text") or params.get("path"):
            raise click.UsageError("match takes the error text as its argument here (no --file, no standard input)")
        from kb.queries import match_error

        return match_error(knowledge.graph, params["text"]).to_dict()
    if name == "unblocks":
        return knowledge.unblocks(list(params["change"]), to_stack=params["to_stack"], from_stack=params["from_stack"],
                                  campaign=params["campaign"]).to_dict()
    return knowledge.diff(params["a"], params["b"]).to_dict()
