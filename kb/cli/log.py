"""``kb log``: record an attempt (prompting on a terminal for what is missing)."""

from __future__ import annotations

import sys
from typing import Any, Callable

import click

from kb.cli.app import (
    Env,
    _problems_exit,
    cli,
    emit_json,
    handle_errors,
    pass_env,
    print_record,
    say_redacted,
)
from kb.errors import InvalidRecords, KbError


class ClickAsker:
    """:class:`kb.prompting.Asker` on the terminal through click (questions and notes on stderr;
    an answer that does not parse is refused and asked again)."""

    NONE = "-"
    """The answer that leaves an optional choice empty (never a valid id)."""

    def text(self, label: str, *, parse: Callable[[str], Any] | None = None, optional: bool = False,
             default: str | None = None) -> str | None:
        def proc(value: str) -> Any:
            if optional and not value:
                return value
            try:
                return parse(value) and value if parse else value
            except (ValueError, KbError) as exc:
                raise click.UsageError(str(exc)) from None

        answer = click.prompt(label, default="" if optional else default, show_default=not optional, err=True,
                              value_proc=proc)
        return answer or None

    def choice(self, label: str, ids: list[str], *, optional: bool = False, default: str | None = None,
               show_choices: bool = True) -> str | None:
        choices = ids + ([self.NONE] if optional else [])
        answer = click.prompt(label, type=click.Choice(choices), default=default or (self.NONE if optional else None),
                              show_choices=show_choices and len(choices) <= 15, err=True)
        return None if answer == self.NONE else answer

    def confirm(self, question: str, default: bool = True) -> bool:
        return click.confirm(question, default=default, err=True)

    def say(self, line: str) -> None:
        click.echo(line, err=True)


def _not_linked(match: Any, link_matches: bool) -> str:
    """Why a match was not linked: the records rule it out, not asked to, or too generic to
    link without a person."""
    if match.where_fixed:
        return f"not linked: {match.where_fixed}; add -b {match.id} if the run met it all the same"
    if not link_matches:
        return "not linked; --link-matches links it"
    return (f"not linked: too generic, or the campaign's own blocker matches the same text; "
            f"add -b {match.id} if it is this one")


@cli.command("log")
@click.option("-t", "--title", help="What was tried, in a few words (the id is made from it).")
@click.option("-a", "--approach", help="How it was tried.")
@click.option("-o", "--outcome", help="baseline, improved, regressed, neutral, failed or inconclusive.")
@click.option("-c", "--campaign", help="Campaign id (default: the only campaign).")
@click.option("--date", help="YYYY-MM-DD, 'today' or 'yesterday' (default: today).")
@click.option("--hypothesis", help="Why it should have worked.")
@click.option("--platform", help="Platform id (default: the campaign's).")
@click.option("-s", "--stack", help="Stack id the attempt ran on.")
@click.option("--component", "components", multiple=True, metavar="NAME=VERSION",
              help="A component version over the stack, e.g. cuda=13.0 (repeatable).")
@click.option("--capture", is_flag=True, help="Read the component versions from this machine (kb capture).")
@click.option("--flag", "flags", multiple=True, metavar="FLAG", help="A command-line flag of the run, e.g. '--tp 8' (repeatable).")
@click.option("--env", "env_vars", multiple=True, metavar="KEY=VALUE", help="An environment variable of the run (repeatable).")
@click.option("--command", "command", help="The command line that ran.")
@click.option("-m", "--metric", "metrics", multiple=True, metavar="NAME=VALUE[UNIT]",
              help="A measurement, e.g. output_throughput=54.1tok/s or verify_time=30ms (repeatable).")
@click.option("--baseline", help="The attempt this one compares to.")
@click.option("--retry-of", "retry_of", help="The earlier attempt this one re-runs (asked on a terminal when the error "
                                             "matches a blocker an earlier attempt met).")
@click.option("-e", "--error", help="The error text.")
@click.option("--error-file", type=click.Path(dir_okay=False), help="A file holding the error text (a log).")
@click.option("-b", "--blocked-by", "blocked_by", multiple=True, metavar="BLOCKER", help="A blocker id (repeatable).")
@click.option("--link-matches", is_flag=True,
              help="Link the known blockers whose signatures match the error specifically (a generic match is only reported).")
@click.option("--notes", help="Notes (Markdown).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--draft", "is_draft", is_flag=True, help="Mark the attempt as a draft to review.")
@click.option("--interactive/--no-interactive", default=None,
              help="Prompt for what is missing (default: when stdin is a terminal).")
@click.option("-n", "--dry-run", is_flag=True, help="Print the record instead of writing it.")
@click.option("--json", "as_json", is_flag=True, help="Print {id, path, matches} as JSON.")
@pass_env
@handle_errors
def log(env: Env, title: str | None, approach: str | None, outcome: str | None, campaign: str | None,
        date: str | None, hypothesis: str | None, platform: str | None, stack: str | None,
        components: tuple[str, ...], capture: bool, flags: tuple[str, ...], env_vars: tuple[str, ...],
        command: str | None, metrics: tuple[str, ...], baseline: str | None, retry_of: str | None, error: str | None,
        error_file: str | None, blocked_by: tuple[str, ...], link_matches: bool, notes: str | None,
        tags: tuple[str, ...], is_draft: bool, interactive: bool | None, dry_run: bool, as_json: bool) -> None:
    """Record a new attempt under records/attempts/ (prints its path; the id on stderr).

    The id is YYYY-MM-DD-<slug of the title>, suffixed -2, -3, ... when taken; nothing is ever
    overwritten. On a terminal, what is missing is asked for. The error text is matched against
    the known blockers' signatures; --link-matches links the matches into blocked_by.

    \b
    Example:
      kb log -t "FlashInfer allreduce fusion" -o failed -a "fuse allreduce+RMSNorm" \\
        --stack cuda-12.8 --flag --enable-flashinfer-allreduce-fusion \\
        --error "No supported CUDA architectures found for major versions [9, 10]" --link-matches
    """
    from kb.usecases import log as logbook

    if error is not None and error_file is not None:
        raise click.UsageError("give --error or --error-file, not both")
    if not dry_run:
        from kb.store.write import refuse_catalog

        refuse_catalog(env.records)  # before any question is asked
    kg, problems = logbook.load_for_writing(env.records, env.catalogs)
    if problems:
        click.echo(f"kb log: warning: {len(problems)} problem(s) in {env.records} (run 'kb check'); "
                   "references are checked against the valid records", err=True)
    draft = logbook.AttemptDraft(
        title=title, approach=approach, outcome=outcome, campaign=campaign, date=date, hypothesis=hypothesis,
        platform=platform, stack=stack, components=list(components), flags=list(flags), env=list(env_vars),
        command=command, metrics=list(metrics), baseline=baseline, retry_of=retry_of, error=error, error_file=error_file,
        blocked_by=list(blocked_by), notes=notes, tags=list(tags), status="draft" if is_draft else "reviewed")
    if capture:
        from kb import capture as capture_mod
        from kb import machine

        cap = capture_mod.capture_machine()
        for line in machine.capture_summary(cap):
            click.echo(f"kb log: {line}", err=True)
        captured = machine.components_from_capture(cap)
        if stack and kg.get(stack) is not None:
            captured = machine.overrides_against(captured, kg.stack_components(stack))
        draft.captured = captured
    if interactive is None:
        interactive = sys.stdin.isatty()
    if interactive:
        from kb.prompting import confirm_matches, fill_attempt_draft

        fill_attempt_draft(kg, draft, ClickAsker())
        if not link_matches:
            confirm_matches(kg, draft, ClickAsker())
    try:
        if dry_run:
            attempt, matches = logbook.prepare_attempt(kg, draft, link_matches=link_matches)
            print_record(attempt, env.records, kg.records.records)
            if not attempt.stack and not attempt.components:
                _say_no_stack(kg, draft)
            for m in matches:
                how = "would be linked" if m.linked else _not_linked(m, link_matches)
                click.echo(f"kb log: error text {m.describe()} ({how})", err=True)
            return
        res = logbook.log_attempt(env.records, draft, kg=kg, link_matches=link_matches)
    except InvalidRecords as exc:
        _problems_exit(exc, "the attempt")
        return
    for m in res.matches:
        how = "linked" if m.linked else _not_linked(m, link_matches)
        click.echo(f"kb log: error text {m.describe()} ({how})", err=True)
    say_redacted("kb log", res.redactions)
    if not res.attempt.stack and not res.attempt.components:
        _say_no_stack(kg, draft)
    if as_json:
        emit_json(res.to_dict())
    else:
        click.echo(str(res.path))
    click.echo(f"logged attempt {res.attempt.id}", err=True)


def _say_no_stack(kg: Any, draft: Any) -> None:
    """Say on stderr that the attempt just logged records no stack (no ``--stack``,
    ``--component`` or ``--capture`` given, none chosen at the prompt), and how to give it one."""
    from kb.queries import default_from_stack
    from kb.usecases import log as logbook

    current = default_from_stack(kg, draft.campaign or logbook.default_campaign(kg))
    offer = f"the campaign's current stack is {current}: pass --stack {current}" if current else "pass --stack ID"
    click.echo(f"kb log: no stack given, so the attempt records none ({offer}, --component NAME=VERSION "
               "or --capture)", err=True)
