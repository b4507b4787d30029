"""``kb new platform|stack|campaign|decision|blocker``: write a new record."""

from __future__ import annotations

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
from kb.errors import InvalidRecords


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
    from kb.usecases.new import write_new

    saved = write_new(env.records, record, kg)
    record, path = saved.record, saved.path
    say_redacted(f"kb new {record.kind}", saved.redactions)
    if as_json:
        emit_json({"id": record.id, "kind": record.kind, "path": str(path), "redacted": dict(saved.redactions)})
    else:
        click.echo(str(path))
    click.echo(f"wrote {record.kind} {record.id}" + (f": {hint}" if hint else ""), err=True)


def _title(title: tuple[str, ...]) -> str:
    text = " ".join(title).strip()
    if not text:
        raise click.UsageError("TITLE is empty")
    return text


def _dry_run(env: Env, record: Any, kg: Any) -> None:
    """Print ``record`` as the YAML ``kb new`` would write (redacted), under a comment naming its
    file (with the id a real run would take: suffixed when taken)."""
    print_record(record, env.records, kg.records.records if kg is not None else ())


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
        _dry_run(env, record, kg)
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
    from kb.usecases import log as logbook
    from kb.usecases import new as newrecords

    text = _title(title)
    kg, _problems = logbook.load_for_writing(env.records, env.catalogs)
    _finish_new(env, lambda: newrecords.new_platform(text, gpu=gpu, gpu_count=gpu_count,
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
    from kb.usecases import log as logbook
    from kb.usecases import new as newrecords

    text = _title(title)
    kg, _problems = logbook.load_for_writing(env.records, env.catalogs)
    notes = []
    for item in components:
        try:
            _name, comp = logbook.parse_component(item, source_fallback=True)
        except ValueError:
            continue
        if comp.version is None:
            notes.append(f"--component {item}: '{comp.source}' is not a PEP 440 version; kept as the component's source")
    _finish_new(env, lambda: newrecords.new_stack(kg, text, base=base, components=list(components)),
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
    from kb.usecases import log as logbook
    from kb.usecases import new as newrecords

    text = _title(title)
    kg, _problems = logbook.load_for_writing(env.records, env.catalogs)
    hint = None if baseline else ("no baseline yet: log the reference run (kb log --outcome baseline ...), "
                                  "then set 'baseline:' in the campaign")
    _finish_new(env, lambda: newrecords.new_campaign(kg, text, model=model, platform=platform, stack=stack,
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
    from kb.queries import parse_change
    from kb.usecases import log as logbook
    from kb.usecases import new as newrecords

    text = " ".join(title).strip()
    if not text:
        raise click.UsageError("TITLE is empty")
    try:
        day = logbook.parse_date(date) if date else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--date") from None
    kg, _problems = logbook.load_for_writing(env.records, env.catalogs)
    try:
        if upgrade or to_stack or from_stack:
            change = parse_change([item for u in upgrade for item in u.replace(",", " ").split()])
            record = newrecords.decision_from_upgrade(kg, text, change, from_stack=from_stack, to_stack=to_stack,
                                                   campaign=campaign, date=day)
        else:
            if campaign:
                logbook.check_reference(kg, "campaign", campaign)
            record = newrecords.new_decision(text, date=day, campaign=campaign)
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
    from kb.usecases import log as logbook
    from kb.usecases import new as newrecords

    text = " ".join(title).strip()
    if not text:
        raise click.UsageError("TITLE is empty")
    kg, _problems = logbook.load_for_writing(env.records, env.catalogs)
    try:
        record = newrecords.new_blocker(text)
    except InvalidRecords as exc:
        _problems_exit(exc, "the blocker")
        return
    _write_new(env, record, kg, as_json)
