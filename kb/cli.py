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
        """Load, check and link the records (raises InvalidRecords with every problem)."""
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


class KbGroup(click.Group):
    """kb's command group: refuses arguments that are not valid UTF-8 before any command runs.

    On POSIX, Python hands undecodable argv bytes over as lone surrogates (U+DC80 to U+DCFF); left
    alone they surface later as an obscure validation error or a crash when written out.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for i, arg in enumerate(args):
            bad = next((c for c in arg if "\ud800" <= c <= "\udfff"), None)
            if bad is not None:
                shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                byte = f" (byte 0x{ord(bad) - 0xDC00:02x})" if 0xDC80 <= ord(bad) <= 0xDCFF else ""
                raise click.UsageError(f"argument {i + 1} '{shown}' is not valid UTF-8{byte}; "
                                       "pass text in UTF-8 (check the terminal's or the script's encoding)", ctx)
        return super().parse_args(ctx, args)


@click.group(cls=KbGroup, context_settings={"help_option_names": ["-h", "--help"]})
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

    from kb.errors import QueryError

    try:
        parsed = parse_change(list(change))
    except QueryError as exc:
        raise click.UsageError(str(exc)) from None
    res = compute(env.graph(), parsed, to_stack=to_stack, from_stack=from_stack, campaign=campaign)
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


def _mkdocs_logging(verbose: bool, level: int | None = None) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.handlers[:] = [handler]
    logger.setLevel(level if level is not None else (logging.DEBUG if verbose else logging.WARNING))
    logger.propagate = False


@cli.command()
@click.option("-f", "--config-file", type=click.Path(dir_okay=False), default=None,
              help="mkdocs.yml to use (default: ./mkdocs.yml, or kb's built-in site configuration).")
@click.option("-d", "--site-dir", type=click.Path(file_okay=False), default=None, help="Where to write the site (default: site/).")
@click.option("--strict", is_flag=True, help="Fail on MkDocs warnings too (broken links, ...).")
@click.option("-v", "--verbose", is_flag=True, help="Show MkDocs' progress.")
@click.option("--json", "as_json", is_flag=True, help="Print {site, pages} as JSON.")
@pass_env
@handle_errors
def build(env: Env, config_file: str | None, site_dir: str | None, strict: bool, verbose: bool, as_json: bool) -> None:
    """Publish the records as a Material for MkDocs site (site/ by default)."""
    from kb.site.build import build_site

    _mkdocs_logging(verbose)
    out = build_site(env.records, config_file=config_file, site_dir=site_dir, strict=strict)
    click.echo(f"site written to {out}/ (browse it with 'kb serve', or 'python -m http.server -d {out}': "
               "its search needs a web server)", err=True)
    if as_json:
        emit_json({"site": str(out), "pages": sum(1 for _ in out.rglob("*.html"))})
    else:
        click.echo(str(out))


@cli.command()
@click.option("-f", "--config-file", type=click.Path(dir_okay=False), default=None, help="mkdocs.yml to use.")
@click.option("-a", "--dev-addr", default="127.0.0.1:8000", show_default=True, help="Address to serve on.")
@pass_env
@handle_errors
def serve(env: Env, config_file: str | None, dev_addr: str) -> None:
    """Serve the site locally and rebuild when a record changes."""
    from kb.site.build import serve_site

    _mkdocs_logging(False, logging.INFO)
    serve_site(env.records, config_file=config_file, dev_addr=dev_addr)


# --------------------------------------------------------------------------- kb log, kb capture, kb new


def _problems_exit(exc: InvalidRecords, what: str) -> None:
    """Print every problem of ``exc`` and exit 1, saying nothing was written."""
    for p in exc.problems:
        click.echo(str(p), err=True)
    n = len(exc.problems)
    fail(f"{n} problem{'s' if n != 1 else ''} in {what}; nothing written")


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
            from kb.store import dump_record

            attempt = logbook.build_attempt(kg, draft)
            click.echo(f"# records/attempts/{attempt.id}.yaml (dry run: not written)")
            click.echo(dump_record(attempt), nl=False)
            return
        res = logbook.log_attempt(env.records, draft, kg=kg, link_matches=link_matches)
    except InvalidRecords as exc:
        _problems_exit(exc, "the attempt")
        return
    for m in res.matches:
        how = "linked" if m.linked else "not linked; --link-matches links it"
        click.echo(f"kb log: error text {m.describe()} ({how})", err=True)
    if as_json:
        emit_json(res.to_dict())
    else:
        click.echo(str(res.path))
    click.echo(f"logged attempt {res.attempt.id}", err=True)


@cli.command("capture")
@click.option("--write", "write_id", metavar="ID", help="Write the record as records/stacks/ID.yaml (platforms/ with --platform).")
@click.option("--title", help="The record's title (default: what was captured, and when).")
@click.option("--platform", "as_platform", is_flag=True, help="The platform record (GPUs, interconnect) instead of the stack.")
@click.option("--sources", is_flag=True, help="Keep in each component the command its version came from.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds each probe may run.")
@click.option("--json", "as_json", is_flag=True, help="Print {kind, id, path, record, notes} as JSON.")
@pass_env
@handle_errors
def capture(env: Env, write_id: str | None, title: str | None, as_platform: bool, sources: bool,
            timeout: float, as_json: bool) -> None:
    """Read this machine's software stack (or platform) and print it as a record, or write it.

    Probes nvidia-smi, nvcc (also outside PATH), torch and the Python packages that matter; each
    probe is optional and bounded in time, and what could not be probed is said on stderr.
    """
    from kb import capture as capture_mod
    from kb import machine
    from kb.store import dump_record, write_record

    cap = capture_mod.capture_machine(timeout_s=timeout)
    for line in machine.capture_summary(cap):
        click.echo(f"kb capture: {line}", err=True)
    stack_title, platform_title = machine.default_titles(cap)
    rid = write_id or f"captured-{(cap.captured_at or '')[:10] or 'stack'}"
    try:
        if as_platform:
            record = machine.platform_from_capture(cap, rid, title or platform_title)
        else:
            record = machine.stack_from_capture(cap, rid, title or stack_title, with_sources=sources)
    except InvalidRecords as exc:
        _problems_exit(exc, f"the captured {'platform' if as_platform else 'stack'}")
        return
    path = write_record(env.records, record) if write_id else None
    if as_json:
        from kb.store import record_to_data

        emit_json({"kind": record.kind, "id": record.id, "path": str(path) if path else None,
                   "record": record_to_data(record), "notes": cap.notes})
    elif path:
        click.echo(str(path))
    else:
        click.echo(dump_record(record), nl=False)
    if path:
        click.echo(f"wrote {record.kind} {record.id}", err=True)


@cli.group("new")
def new() -> None:
    """Write a new record: a platform, a stack or a campaign (to start one), or a skeleton to
    fill in: a decision (ADR, MADR sections) or a blocker.

    \b
    Start a campaign (no GPU needed):
      kb new platform "8x RTX PRO 6000" --gpu "NVIDIA RTX PRO 6000" --count 8 --compute-capability 12.0
      kb new stack "CUDA 12.8" --component cuda=12.8 --component torch=2.9.1
      kb new campaign "Llama 70B on RTX PRO" --model "Llama-3.1-70B FP8" --platform 8x-rtx-pro-6000
    """


def _write_new(env: Env, record: Any, kg: Any, as_json: bool,
               hint: str = "fill in its TODOs, then run 'kb check'") -> None:
    from kb.logbook import write_new

    record, path = write_new(env.records, record, kg)
    if as_json:
        emit_json({"id": record.id, "kind": record.kind, "path": str(path)})
    else:
        click.echo(str(path))
    click.echo(f"wrote {record.kind} {record.id}" + (f": {hint}" if hint else ""), err=True)


def _title(title: tuple[str, ...]) -> str:
    text = " ".join(title).strip()
    if not text:
        raise click.UsageError("TITLE is empty")
    return text


def _dry_run(record: Any) -> None:
    """Print ``record`` as the YAML ``kb new`` would write, under a comment naming its file."""
    from kb.store import dump_record

    click.echo(f"# records/{record.folder}/{record.id}.yaml (dry run: not written)")
    click.echo(dump_record(record), nl=False)


def _finish_new(env: Env, build: Callable[[], Any], kg: Any, what: str, dry_run: bool, as_json: bool,
                hint: str | None = None, notes: tuple[str, ...] | list[str] = ()) -> None:
    """Build the record (exit 1 naming each bad option), say ``notes`` on stderr, then print it
    (``--dry-run``) or write it."""
    try:
        record = build()
    except InvalidRecords as exc:
        _problems_exit(exc, what)
        return
    for note in notes:
        click.echo(f"kb new {record.kind}: {note}", err=True)
    if dry_run:
        _dry_run(record)
        return
    _write_new(env, record, kg, as_json, hint="" if hint is None else hint)


_DRY_RUN = click.option("-n", "--dry-run", is_flag=True, help="Print the record instead of writing it.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print {id, kind, path} as JSON.")


@new.command("platform")
@click.argument("title", nargs=-1, required=True)
@click.option("--gpu", required=True, help="The GPU model, e.g. 'NVIDIA RTX PRO 6000 Blackwell'.")
@click.option("--count", "gpu_count", type=int, required=True, help="How many GPUs.")
@click.option("--compute-capability", "compute_capability", required=True, metavar="MAJOR.MINOR",
              help="e.g. 12.0 (the arch, sm_120, is derived from it).")
@click.option("--interconnect", help="e.g. 'PCIe Gen5' or 'NVLink'.")
@click.option("--nvlink/--no-nvlink", default=None, help="Whether the GPUs are linked by NVLink.")
@click.option("--memory-gib", "memory_gib", type=float, help="Memory per GPU in GiB, e.g. 96.")
@_DRY_RUN
@_JSON
@pass_env
@handle_errors
def new_platform(env: Env, title: tuple[str, ...], gpu: str, gpu_count: int, compute_capability: str,
                 interconnect: str | None, nvlink: bool | None, memory_gib: float | None,
                 dry_run: bool, as_json: bool) -> None:
    """Write a platform record titled TITLE (id: its slug) and print its path.

    For a machine kb does not run on; on the machine itself `kb capture --platform` reads it.

    \b
    Example:
      kb new platform 8x RTX PRO 6000 --gpu "NVIDIA RTX PRO 6000 Blackwell" --count 8 \\
        --compute-capability 12.0 --interconnect "PCIe Gen5" --no-nvlink --memory-gib 96
    """
    from kb import logbook

    text = _title(title)
    kg, _problems = logbook.load_for_writing(env.records)
    _finish_new(env, lambda: logbook.new_platform(text, gpu=gpu, gpu_count=gpu_count,
                                                  compute_capability=compute_capability,
                                                  interconnect=interconnect, nvlink=nvlink, memory_gib=memory_gib),
                kg, "the platform", dry_run, as_json)


@new.command("stack")
@click.argument("title", nargs=-1, required=True)
@click.option("--base", help="A stack this one inherits components from and overrides.")
@click.option("--component", "components", multiple=True, metavar="NAME=VERSION",
              help="A component, e.g. cuda=13.0; a value that is not a version (sglang='built from source') "
                   "is kept as its source (repeatable).")
@_DRY_RUN
@_JSON
@pass_env
@handle_errors
def new_stack(env: Env, title: tuple[str, ...], base: str | None, components: tuple[str, ...],
              dry_run: bool, as_json: bool) -> None:
    """Write a stack record titled TITLE (id: its slug) and print its path.

    \b
    Examples:
      kb new stack CUDA 12.8 --component cuda=12.8 --component torch=2.9.1+cu128 --component sglang=0.5.8
      kb new stack CUDA 13.0 --base cuda-12.8 --component cuda=13.0 --component torch=2.10.0+cu130
    """
    from kb import logbook

    text = _title(title)
    kg, _problems = logbook.load_for_writing(env.records)
    notes = []
    for item in components:
        try:
            _name, comp = logbook.parse_component(item, source_fallback=True)
        except ValueError:
            continue
        if comp.version is None:
            notes.append(f"--component {item}: '{comp.source}' is not a PEP 440 version; kept as the component's source")
    _finish_new(env, lambda: logbook.new_stack(kg, text, base=base, components=list(components)),
                kg, "the stack", dry_run, as_json, notes=notes)


@new.command("campaign")
@click.argument("title", nargs=-1, required=True)
@click.option("--model", required=True, help="The model served, e.g. 'Llama-3.1-70B FP8'.")
@click.option("--platform", required=True, help="The platform id (kb new platform).")
@click.option("--stack", help="The stack id the campaign starts from (kb new stack).")
@click.option("--metric", default="output_throughput", show_default=True, help="The headline metric.")
@click.option("--unit", default="tok/s", show_default=True, help="The headline metric's unit.")
@click.option("--direction", type=click.Choice(["higher", "lower"]), default="higher", show_default=True,
              help="Which way is better.")
@click.option("--baseline", help="The baseline figure, e.g. '82 tok/s' (default: none until measured).")
@click.option("--target", help="The target figure, e.g. '100 tok/s'.")
@click.option("--goal", help="What the campaign is after, in a sentence or two (Markdown).")
@click.option("--started", help="YYYY-MM-DD (default: today).")
@_DRY_RUN
@_JSON
@pass_env
@handle_errors
def new_campaign(env: Env, title: tuple[str, ...], model: str, platform: str, stack: str | None, metric: str,
                 unit: str, direction: str, baseline: str | None, target: str | None, goal: str | None,
                 started: str | None, dry_run: bool, as_json: bool) -> None:
    """Write an active campaign titled TITLE (id: its slug) and print its path.

    Without --baseline the campaign has no baseline yet: log the reference run with
    `kb log --outcome baseline ...`, then set `baseline:` in the campaign record.

    \b
    Example:
      kb new campaign Llama 70B on RTX PRO --model "Llama-3.1-70B FP8" --platform 8x-rtx-pro-6000 \\
        --stack cuda-12.8 --target "100 tok/s"
    """
    from kb import logbook

    text = _title(title)
    kg, _problems = logbook.load_for_writing(env.records)
    hint = None if baseline else ("no baseline yet: log the reference run (kb log --outcome baseline ...), "
                                  "then set 'baseline:' in the campaign")
    _finish_new(env, lambda: logbook.new_campaign(kg, text, model=model, platform=platform, stack=stack,
                                                  metric=metric, unit=unit, direction=direction, baseline=baseline,
                                                  target=target, goal=goal, started=started),
                kg, "the campaign", dry_run, as_json, hint=hint)


@new.command("decision")
@click.argument("title", nargs=-1, required=True)
@click.option("--from-upgrade", "upgrade", multiple=True, metavar="NAME=VERSION",
              help="Draft the context from what this change unblocks, e.g. cuda=13.0 (repeatable).")
@click.option("--from", "from_stack", help="The stack the upgrade starts from (default: the latest attempt's).")
@click.option("--to", "to_stack", help="A whole target stack instead of, or under, --from-upgrade.")
@click.option("--campaign", help="The campaign the decision belongs to.")
@click.option("--date", help="YYYY-MM-DD (default: today).")
@click.option("--json", "as_json", is_flag=True, help="Print {id, kind, path} as JSON.")
@pass_env
@handle_errors
def new_decision(env: Env, title: tuple[str, ...], upgrade: tuple[str, ...], from_stack: str | None,
                 to_stack: str | None, campaign: str | None, date: str | None, as_json: bool) -> None:
    """Write a proposed decision titled TITLE (MADR sections) and print its path.

    \b
    Examples:
      kb new decision Adopt NCCL 2.28
      kb new decision --from-upgrade cuda=13.0 --from cuda-12.8 Upgrade to CUDA 13
    """
    from kb import logbook
    from kb.queries import parse_change

    text = " ".join(title).strip()
    if not text:
        raise click.UsageError("TITLE is empty")
    try:
        day = logbook.parse_date(date) if date else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--date") from None
    kg, _problems = logbook.load_for_writing(env.records)
    try:
        if upgrade or to_stack or from_stack:
            change = parse_change([item for u in upgrade for item in u.replace(",", " ").split()])
            record = logbook.decision_from_upgrade(kg, text, change, from_stack=from_stack, to_stack=to_stack,
                                                   campaign=campaign, date=day)
        else:
            if campaign:
                logbook.check_reference(kg, "campaign", campaign)
            record = logbook.new_decision(text, date=day, campaign=campaign)
    except InvalidRecords as exc:
        _problems_exit(exc, "the decision")
        return
    _write_new(env, record, kg, as_json)


@new.command("blocker")
@click.argument("title", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print {id, kind, path} as JSON.")
@pass_env
@handle_errors
def new_blocker(env: Env, title: tuple[str, ...], as_json: bool) -> None:
    """Write an open blocker titled TITLE and print its path."""
    from kb import logbook

    text = " ".join(title).strip()
    if not text:
        raise click.UsageError("TITLE is empty")
    kg, _problems = logbook.load_for_writing(env.records)
    try:
        record = logbook.new_blocker(text)
    except InvalidRecords as exc:
        _problems_exit(exc, "the blocker")
        return
    _write_new(env, record, kg, as_json)


# --------------------------------------------------------------------------- kb import

IMPORT_FORMATS = ["auto", "claude", "codex", "opencode", "gemini", "aider", "specstory", "markdown"]


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(IMPORT_FORMATS), default="auto", show_default=True,
              help="The logs' format (auto: detected from each file's name and first lines).")
@click.option("--campaign", help="The campaign the drafts join (needed when records/ holds several).")
@click.option("--dry-run", is_flag=True, help="Show the drafts as a table; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the drafts, decisions and redactions as JSON.")
@pass_env
@handle_errors
def import_(env: Env, paths: tuple[str, ...], fmt: str, campaign: str | None, dry_run: bool, as_json: bool) -> None:
    """Draft attempts from session logs (agent transcripts, lab notebooks, plan documents).

    Each draft is an attempt with `status: draft`, every field citing the log line it came
    from; secrets, user names, e-mail addresses and hosts are redacted first. Importing the
    same log again adds nothing; reviewed records are never touched.

    \b
    Examples:
      kb import ~/.claude/projects/-srv-kimi/7d1c2a9e.jsonl --dry-run
      kb import notebook.md --campaign kimi-k25-eagle3-blackwell
    """
    from kb.errors import UsageError
    from kb.importers.drafts import import_logs

    try:
        report = import_logs(env.records, list(paths), format=fmt, campaign=campaign, dry_run=dry_run)
    except UsageError as exc:
        fail(str(exc), 2)
        return
    for item in report.files:
        for warning in item.warnings:
            click.echo(f"warning: {warning}", err=True)
        if item.error:
            click.echo(f"error: {item.error}", err=True)
    if report.record_problems:
        click.echo(f"warning: {env.records} has {report.record_problems} invalid record(s); run 'kb check'", err=True)
    redacted = ", ".join(f"{kind} {n}" for kind, n in sorted(report.redactions.items()))
    click.echo(f"redacted: {redacted or 'nothing'}", err=True)
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_import(report)
    counts = {s: sum(1 for d in report.drafts if d.state == s) for s in ("new", "written", "exists")}
    if dry_run:
        click.echo(f"dry run: {counts['new']} draft(s) would be written, {counts['exists']} already imported; "
                   "nothing written", err=True)
    else:
        click.echo(f"{counts['written']} draft(s) written to {env.records}/attempts, "
                   f"{counts['exists']} already imported", err=True)
    if report.failed:
        sys.exit(1)


def _print_import(report: Any) -> None:
    """The import as a table per file: state, id, outcome, headline figure, blockers, locator."""
    for item in report.files:
        if item.error:
            continue
        click.echo(f"{item.file} ({item.format}, sha256 {item.sha256[:12]}): {len(item.drafts)} attempt(s), "
                   f"{len(item.decisions)} decision statement(s), {len(item.options)} option(s)")
        rows = [("STATE", "ID", "OUTCOME", "METRIC", "BLOCKED BY", "FROM")]
        for d in item.drafts:
            rec = d.record
            metric = ""
            if rec is not None and rec.metrics:
                name, m = next(iter(rec.metrics.items()))
                metric = f"{name} {m.display()}"
            rows.append((d.state, d.id, rec.outcome.value if rec else "", metric,
                         ", ".join(d.blocked_by), d.anchor))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        if len(rows) > 1:
            for r in rows:
                click.echo("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        for d in item.drafts:
            for rid, why in d.duplicates:
                click.echo(f"  possible duplicate: {d.id} looks like {rid} ({why}); review before keeping both")
        for s in item.decisions:
            click.echo(f"  decision ({s.evidence.locator}): {s.evidence.quote}")
        for s in item.options:
            click.echo(f"  option ({s.evidence.locator}): {s.text}")


def main() -> None:
    """Entry point of the ``kb`` console script and ``python -m kb``."""
    cli(prog_name="kb")
