"""``kb import``: draft attempts from session logs."""

from __future__ import annotations

import sys
from typing import Any

import click

from kb.cli.app import (
    Env,
    cli,
    emit_json,
    handle_errors,
    pass_env,
)
from kb.importers.events import FORMATS

IMPORT_FORMATS = ["auto", *FORMATS, "adr"]


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(IMPORT_FORMATS), default="auto", show_default=True,
              help="The logs' format (auto: detected from each file's name and first lines).")
@click.option("--campaign", help="The campaign the drafts join (needed when records/ holds several).")
@click.option("--dry-run", is_flag=True, help="Show the drafts as a table; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the drafts, decisions and redactions as JSON.")
@click.option("--all", "all_attempts", is_flag=True,
              help="Also write the possible attempts (scored below the confidence threshold; listed otherwise).")
@click.option("--redact-personal", is_flag=True,
              help="With --format adr: also replace names, e-mail addresses and hosts (an ADR log keeps them by default).")
@pass_env
@handle_errors
def import_(env: Env, paths: tuple[str, ...], fmt: str, campaign: str | None, dry_run: bool, as_json: bool,
            all_attempts: bool, redact_personal: bool) -> None:
    """Draft attempts from session logs (agent transcripts, lab notebooks, plan documents).

    With --format adr, PATHS are folders of existing ADRs (adr-tools, MADR 2-4, log4brains),
    converted into decision records; their secrets are replaced and the rest kept as written
    (--redact-personal replaces names, e-mail addresses and hosts too). Otherwise each draft is an attempt with `status: draft`, every field citing the log line it came
    from; secrets, user names, e-mail addresses and hosts are redacted first. Importing the
    same log again adds nothing, nor a draft rejected in `kb review`; reviewed records are
    never touched. Each draft carries a
    confidence (0-1) and why; those below 0.5 are listed as possible attempts and written only with
    --all.

    \b
    Examples:
      kb import ~/.claude/projects/-srv-kimi/7d1c2a9e.jsonl --dry-run
      kb import notebook.md --campaign kimi-k25-eagle3-blackwell
      kb import --format adr doc/adr --dry-run
    """
    if fmt == "adr":
        from kb.cli.adr_import import import_adr_folders

        import_adr_folders(env, list(paths), dry_run, as_json, redact_personal)
        return
    import os

    folder = next((p for p in paths if os.path.isdir(p)), None)
    if folder is not None:
        raise click.BadParameter(f"'{folder}' is a folder; pass log files, or --format adr for a folder of ADRs",
                                 param_hint="PATHS")
    from kb.cli.progress import progress
    from kb.importers.drafts import import_logs

    report = import_logs(env.records, list(paths), format=fmt, campaign=campaign, dry_run=dry_run, catalogs=env.catalogs,
                         progress=progress, all_attempts=all_attempts)
    for item in report.files:
        for warning in item.warnings:
            click.echo(f"warning: {warning}", err=True)
        if item.error:
            click.echo(f"error: {item.error}", err=True)
        elif not item.about_inference and not item.drafts:
            click.echo(f"note: {item.file} shows no inference or benchmark work (no benchmark tool run, no "
                       "throughput or latency figure, no GPU or stack named); nothing to draft from it", err=True)
        elif not item.matches_campaign and item.drafts:
            click.echo(f"warning: {item.file} names neither the model nor the platform of campaign "
                       f"{report.campaign}; its drafts joined it only because it is the only campaign and were "
                       "not compared with its baseline: pass --campaign ID to confirm the campaign", err=True)
    if report.record_problems:
        click.echo(f"warning: {env.records} has {report.record_problems} invalid record(s); run 'kb check'", err=True)
    redacted = ", ".join(f"{kind} {n}" for kind, n in sorted(report.redactions.items()))
    click.echo(f"redacted: {redacted or 'nothing'}", err=True)
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_import(report)
    taken = report.drafts + [d for f in report.files for d in f.possible if d.state != "possible"]  # --all
    counts = {s: sum(1 for d in taken if d.state == s) for s in ("new", "written", "exists", "rejected")}
    rejected = (f", {counts['rejected']} rejected in review (left out; kb review keeps them in "
                f"{env.records}/review/rejected.yaml)") if counts["rejected"] else ""
    if dry_run:
        click.echo(f"dry run: {counts['new']} draft(s) would be written, {counts['exists']} already imported"
                   f"{rejected}; nothing written", err=True)
    else:
        click.echo(f"{counts['written']} draft(s) written to {env.records}/attempts, "
                   f"{counts['exists']} already imported{rejected}", err=True)
    if report.failed:
        sys.exit(1)


def _print_import(report: Any) -> None:
    """The import as a table per file: state, id, outcome, headline figure, confidence, blockers,
    locator; then the possible attempts left out, known blockers, duplicates, decisions."""
    for item in report.files:
        if item.error:
            continue
        click.echo(f"{item.file} ({item.format}, sha256 {item.sha256[:12]}): {len(item.drafts)} attempt(s), "
                   f"{len(item.decisions)} decision statement(s), {len(item.options)} option(s)")
        rows = [("STATE", "ID", "OUTCOME", "METRIC", "CONF", "BLOCKED BY", "FROM")]
        for d in item.drafts + [p for p in item.possible if p.state != "possible"]:
            rec = d.record
            metric = ""
            if rec is not None and rec.metrics:
                name, m = next(iter(rec.metrics.items()))
                metric = f"{name} {m.display()}"
            rows.append((d.state, d.id, rec.outcome.value if rec else "", metric, f"{d.confidence:.2f}",
                         ", ".join(d.blocked_by), d.anchor))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        if len(rows) > 1:
            for r in rows:
                click.echo("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        for d in item.drafts:
            if d.state == "rejected":
                click.echo(f"  rejected in review: {d.id} ({d.anchor}): {d.rejected}")
            for bid, catalog, fix in d.known:
                click.echo(f"  known blocker: {d.id} matches {bid} (catalog {catalog}): {fix}")
            for rid, why in d.duplicates:
                click.echo(f"  possible duplicate: {d.id} looks like {rid} ({why}); review before keeping both")
        possible = [d for d in item.possible if d.state == "possible"]
        for d in possible:
            rec = d.record
            click.echo(f"  possible attempt: {d.id} ({d.anchor}, confidence {d.confidence:.2f}: {d.reason})"
                       + (f" {rec.outcome.value}" if rec is not None else ""))
        if possible:
            click.echo(f"  {len(possible)} possible attempt(s) not drafted; kb import --all writes them too")
        for s in item.decisions:
            click.echo(f"  decision ({s.evidence.locator}): {s.evidence.quote}")
        for s in item.options:
            click.echo(f"  option ({s.evidence.locator}): {s.text}")
