"""``kb import --format adr DIR``: decision records from an existing ADR log (adr-tools, MADR 2-4,
log4brains, hand-written records, a folder per decision). Called by :mod:`kb.cli.importing`; the conversion is :mod:`kb.importers.adr`."""

from __future__ import annotations

import sys

import click

from kb.cli.app import Env, emit_json, fail


def import_adr_folders(env: Env, folders: list[str], dry_run: bool, as_json: bool, redact_personal: bool = False) -> None:
    """Import every ADR folder in ``folders``; print a table (or JSON), warnings on stderr.
    Exits 1 when a file could not be converted (the others are still written)."""
    from kb.cli.progress import progress
    from kb.importers.adr import import_adrs

    failed = 0
    reports = []
    for folder in folders:
        try:
            report = import_adrs(env.records, folder, dry_run=dry_run, progress=progress, redact_personal=redact_personal)
        except FileNotFoundError:
            fail(f"{folder}: not a folder; --format adr reads a folder of ADR files (e.g. doc/adr)", 2)
            return
        reports.append(report)
        for r in report.results:
            for w in r.warnings if r.state != "exists" else ():
                click.echo(f"warning: {w}", err=True)
            for p in r.problems:
                click.echo(f"error: {p}", err=True)
        for path, why in report.skipped:
            click.echo(f"skipped: {path} ({why})", err=True)
        failed += sum(1 for r in report.results if r.state == "failed")
        if not as_json:
            rows = [("STATE", "ID", "FORMAT", "FROM")] + [(r.state, r.id, r.format, r.file) for r in report.results]
            widths = [max(len(row[i]) for row in rows) for i in range(4)]
            for row in rows:
                click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    if as_json:
        emit_json([r.to_dict() for r in reports])
    counts: dict[str, int] = {}
    for report in reports:
        for r in report.results:
            counts[r.state] = counts.get(r.state, 0) + 1
    summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items())) or "no ADR files found"
    warned = sum(len(r.warnings) for report in reports for r in report.results if r.state != "exists")
    redacted: dict[str, int] = {}
    for report in reports:
        for kind, n in report.redactions.items():
            redacted[kind] = redacted.get(kind, 0) + n
    if redacted:
        click.echo("redacted: " + ", ".join(f"{k} {n}" for k, n in sorted(redacted.items())), err=True)
    tally: dict[str, int] = {}
    for report in reports:
        for kind, n in report.tally.items():
            tally[kind] = tally.get(kind, 0) + n
    if tally:  # what was assumed or taken from elsewhere than the ADR's text, each also a warning above
        click.echo("of the decisions: " + ", ".join(f"{kind} {n}" for kind, n in sorted(tally.items())), err=True)
    click.echo(f"{'dry run: ' if dry_run else ''}{summary}; {warned} warning(s) (what had no field is kept in "
               f"each record's notes){'; nothing written' if dry_run else ''}", err=True)
    if failed:
        sys.exit(1)
