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


def _checked(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """A ``click.prompt`` value_proc: kb's and ValueError messages make click ask again."""

    def proc(value: str) -> Any:
        try:
            return parse(value)
        except (ValueError, KbError) as exc:
            raise click.UsageError(str(exc)) from None

    return proc


_NONE = "-"
"""The answer that leaves an optional reference empty at a prompt (never a valid id)."""


def _ask_choice(text: str, ids: list[str], *, optional: bool = False, default: str | None = None,
                show_choices: bool = True) -> str | None:
    choices = ids + ([_NONE] if optional else [])
    answer = click.prompt(text, type=click.Choice(choices), default=default or (_NONE if optional else None),
                          show_choices=show_choices and len(choices) <= 15, err=True)
    return None if answer == _NONE else answer


def _prompt_log(kg: Any, draft: Any) -> None:
    """Ask, on a terminal, for what ``draft`` lacks or holds wrong; each answer is checked at once."""
    from kb import logbook
    from kb.models import Attempt, Blocker, Campaign, Outcome, Platform, Stack
    from kb.queries import default_from_stack

    def report(flag: str, exc: Exception) -> None:
        click.echo(f"kb log: {flag}: {exc}", err=True)

    for key in ("campaign", "platform", "stack", "baseline"):
        value = getattr(draft, key)
        if value:
            try:
                logbook.check_reference(kg, key, value)
            except KbError as exc:
                report(logbook.REFERENCE_FIELDS[key][1], exc)
                setattr(draft, key, None)
                if key != "campaign":
                    cls = logbook.REFERENCE_FIELDS[key][0]
                    setattr(draft, key, _ask_choice(key, [r.id for r in kg.of_kind(cls)], optional=True,
                                                    show_choices=cls is not Attempt))
    if draft.date:
        try:
            logbook.parse_date(draft.date)
        except ValueError as exc:
            report("--date", exc)
            draft.date = click.prompt("date", default="today", value_proc=_checked(logbook.parse_date), err=True)
    if not (draft.title or "").strip():
        draft.title = click.prompt("title", value_proc=_checked(_non_empty), err=True)
    if not draft.campaign:
        ids = [c.id for c in kg.of_kind(Campaign)]
        if len(ids) == 1:  # nothing to choose: say which, do not ask
            draft.campaign = ids[0]
            click.echo(f"campaign: {ids[0]}", err=True)
        elif ids:
            draft.campaign = _ask_choice("campaign", ids, default=logbook.default_campaign(kg))
    if not (draft.approach or "").strip():
        draft.approach = click.prompt("approach (what was tried)", value_proc=_checked(_non_empty), err=True)
    outcomes = [o.value for o in Outcome]
    if draft.outcome not in outcomes:
        if draft.outcome:
            report("--outcome", ValueError(f"'{draft.outcome}' is not an outcome"))
        draft.outcome = _ask_choice("outcome", outcomes)
    if not (draft.stack or draft.components or draft.captured):
        stacks = [s.id for s in kg.of_kind(Stack)]
        if stacks:
            draft.stack = _ask_choice("stack", stacks, optional=True, default=default_from_stack(kg, draft.campaign))
    if draft.platform is None and not kg.get(draft.campaign or ""):
        plats = [p.id for p in kg.of_kind(Platform)]
        if plats:
            draft.platform = _ask_choice("platform", plats, optional=True)
    units = logbook.headline_units(kg, draft.campaign)
    draft.components = _reask_items(draft.components, "--component", "component (NAME=VERSION)", logbook.parse_component)
    draft.env = _reask_items(draft.env, "--env", "environment variable (KEY=VALUE)", logbook.parse_env)
    draft.metrics = _reask_items(draft.metrics, "--metric", "metric (NAME=VALUE UNIT)",
                                 lambda t: logbook.parse_metric(t, units))
    blockers = [b.id for b in kg.of_kind(Blocker)]
    kept = []
    for b in draft.blocked_by:
        if isinstance(kg.get(b), Blocker):
            kept.append(b)
        else:
            report("--blocked-by", ValueError(f"unknown blocker '{b}'"))
            again = _ask_choice("blocked by", blockers, optional=True) if blockers else None
            if again:
                kept.append(again)
    draft.blocked_by = kept
    (name, unit), = units.items() if units else ((None, None),)
    if name and draft.outcome != "failed" and not any(m.partition("=")[0].strip() == name for m in draft.metrics):
        answer = click.prompt(f"{name} in {unit} (empty to skip)", default="", show_default=False, err=True,
                              value_proc=_checked(lambda t: t and logbook.parse_metric(f"{name}={t}", units) and t))
        if answer:
            draft.metrics.append(f"{name}={answer}")
    if draft.outcome == "failed" and not (draft.error or draft.error_file or draft.blocked_by):
        draft.error = click.prompt("error text (empty if there is none)", default="", show_default=False, err=True) or None
        if not draft.error and blockers:
            b = _ask_choice("blocked by", blockers)
            draft.blocked_by = [b] if b else []


def _non_empty(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text.strip()


def _reask_items(items: list[str], flag: str, label: str, parse: Callable[[str], Any]) -> list[str]:
    """Keep the items that parse; for each that does not, say why and ask for it again (empty drops it)."""
    out = []
    for item in items:
        try:
            parse(item)
            out.append(item)
            continue
        except (ValueError, KbError) as exc:
            click.echo(f"kb log: {flag}: {exc}", err=True)
        again = click.prompt(f"{label}, empty to drop it", default="", show_default=False, err=True,
                             value_proc=_checked(lambda t: t and parse(t) and t))
        if again:
            out.append(again)
    return out


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
@click.option("-e", "--error", help="The error text.")
@click.option("--error-file", type=click.Path(dir_okay=False), help="A file holding the error text (a log).")
@click.option("-b", "--blocked-by", "blocked_by", multiple=True, metavar="BLOCKER", help="A blocker id (repeatable).")
@click.option("--link-matches", is_flag=True, help="Link the known blockers whose signatures match the error.")
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
        command: str | None, metrics: tuple[str, ...], baseline: str | None, error: str | None,
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
    from kb import logbook

    if error is not None and error_file is not None:
        raise click.UsageError("give --error or --error-file, not both")
    kg, problems = logbook.load_for_writing(env.records)
    if problems:
        click.echo(f"kb log: warning: {len(problems)} problem(s) in {env.records} (run 'kb check'); "
                   "references are checked against the valid records", err=True)
    draft = logbook.AttemptDraft(
        title=title, approach=approach, outcome=outcome, campaign=campaign, date=date, hypothesis=hypothesis,
        platform=platform, stack=stack, components=list(components), flags=list(flags), env=list(env_vars),
        command=command, metrics=list(metrics), baseline=baseline, error=error, error_file=error_file,
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
        _prompt_log(kg, draft)
        error_text = draft.error if draft.error is not None else (
            logbook.read_error_file(draft.error_file) if draft.error_file else None)
        if not link_matches:
            for m in logbook.match_blockers(kg, error_text, draft.blocked_by):
                if not m.linked and click.confirm(f"{m.describe()}. Link it into blocked_by?", default=True, err=True):
                    draft.blocked_by.append(m.id)
    try:
        if dry_run:
            attempt, matches = logbook.prepare_attempt(kg, draft, link_matches=link_matches)
            print_record(attempt)
            for m in matches:
                how = "would be linked" if m.linked else "not linked; --link-matches links it"
                click.echo(f"kb log: error text {m.describe()} ({how})", err=True)
            return
        res = logbook.log_attempt(env.records, draft, kg=kg, link_matches=link_matches)
    except InvalidRecords as exc:
        _problems_exit(exc, "the attempt")
        return
    for m in res.matches:
        how = "linked" if m.linked else "not linked; --link-matches links it"
        click.echo(f"kb log: error text {m.describe()} ({how})", err=True)
    say_redacted("kb log", res.redactions)
    if as_json:
        emit_json(res.to_dict())
    else:
        click.echo(str(res.path))
    click.echo(f"logged attempt {res.attempt.id}", err=True)
