"""``kb capture``: read this machine's stack or platform as a record."""

from __future__ import annotations

import click

from kb.cli.app import (
    Env,
    _problems_exit,
    cli,
    emit_json,
    handle_errors,
    pass_env,
    say_redacted,
)
from kb.errors import InvalidRecords, UsageError
from kb.models import Record


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
    from kb.store import dump_record, redact_record, save_record

    cap = capture_mod.capture_machine(timeout_s=timeout)
    for line in machine.capture_summary(cap):
        click.echo(f"kb capture: {line}", err=True)
    stack_title, platform_title = machine.default_titles(cap)
    rid = write_id or f"captured-{(cap.captured_at or '')[:10] or 'stack'}"
    record: Record
    try:
        if as_platform:
            record = machine.platform_from_capture(cap, rid, title or platform_title)
        else:
            record = machine.stack_from_capture(cap, rid, title or stack_title, with_sources=sources)
    except InvalidRecords as exc:
        _problems_exit(exc, f"the captured {'platform' if as_platform else 'stack'}")
        return
    path = None
    if write_id:
        _refuse_taken_id(env, write_id, record.kind)
        saved = save_record(env.records, record, new=False)
        record, path = saved.record, saved.path
        say_redacted("kb capture", saved.redactions)
    else:
        record, _counts = redact_record(record)
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


def _refuse_taken_id(env: Env, rid: str, kind: str) -> None:
    """Refuse ``--write ID`` when ``rid`` is already a record of another kind than ``kind`` or of
    a catalog the campaigns use (ids are unique across kinds and catalogs; the write gate's file
    check sees only the one folder, and refuses a record of the same kind itself). Raises
    :class:`UsageError`."""
    from kb.pipeline import load

    if not env.records.is_dir():
        return
    records = load(env.records, list(env.catalogs)).records
    if rid not in records.records:
        return
    catalog = records.catalog_of.get(rid)
    if not catalog and records.records[rid].kind == kind:
        return
    owner = f"a {records.records[rid].kind} of catalog {catalog}" if catalog else f"a {records.records[rid].kind} ({records.origins[rid].path})"
    raise UsageError(f"--write {rid}: that id is already {owner}; ids are unique across a campaign's records "
                     "and its catalogs: pick another id")
