"""``kb import``: draft attempts from session logs."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import click

from kb.cli.app import (
    Env,
    cli,
    emit_json,
    handle_errors,
    pass_env,
    say_import_counts,
)
from kb.importers.events import FORMATS

IMPORT_FORMATS = ["auto", *FORMATS, "adr", "mlflow"]


@cli.command("import")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(IMPORT_FORMATS), default="auto", show_default=True,
              help="The logs' format (auto: detected from each file's name and first lines).")
@click.option("--campaign", help="The campaign the drafts join (needed when records/ holds several).")
@click.option("--dry-run", is_flag=True, help="Show the drafts as a table; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the drafts, decisions and redactions as JSON.")
@click.option("--all", "all_attempts", is_flag=True,
              help="Also write the possible attempts (scored below the confidence threshold; listed otherwise).")
@click.option("--redact-personal", is_flag=True,
              help="With --format adr: also replace names, e-mail addresses and hosts (an ADR log keeps them by default).")
@click.option("--hook", is_flag=True,
              help="Run as an agent's hook: read the hook's JSON on stdin and import the transcript it names; "
                   "always exits 0, what happened goes to the hook log (see kb hooks).")
@click.option("--experiment", "experiments", multiple=True, metavar="NAME",
              help="With --format mlflow: import only this experiment (its name or id; repeatable).")
@click.option("--ui-url", metavar="URL",
              help="With --format mlflow and a local store: the address 'mlflow ui' serves it at "
                   "(e.g. http://127.0.0.1:5000), so each attempt links its run page.")
@pass_env
@handle_errors
def import_(env: Env, paths: tuple[str, ...], fmt: str, campaign: str | None, dry_run: bool, as_json: bool,
            all_attempts: bool, redact_personal: bool, hook: bool, experiments: tuple[str, ...],
            ui_url: str | None) -> None:
    """Draft attempts from session logs (agent transcripts, lab notebooks, plan documents).

    With --format adr, PATHS are folders of existing ADRs (adr-tools, MADR 2-4, log4brains,
    hand-written records, a folder per decision), converted into decision records, with the date
    from each ADR or its git history and the images it links to copied; their secrets are replaced
    and the rest kept as written (--redact-personal replaces names, e-mail addresses and hosts
    too). With --format mlflow, PATHS are MLflow tracking stores (a mlruns/ folder, an mlflow.db
    file, or a tracking server's http(s):// address; it needs kb's mlflow extra): each ended run
    becomes a draft attempt (params as settings, metrics with the unit their names give, status
    FAILED as failed, its run's page as run_url). Otherwise each draft is an attempt with `status: draft`, every field citing the log line it came
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
      kb import --hook < payload.json      # as an agent's hook runs it
      kb import --format mlflow mlruns --ui-url http://127.0.0.1:5000
      kb import --format mlflow http://127.0.0.1:5000 --experiment eagle3-sweep
    """
    if hook:
        if paths or fmt in ("adr", "mlflow") or dry_run or as_json or all_attempts or experiments or ui_url:
            raise click.UsageError("--hook reads the transcript to import from the hook's JSON on stdin; "
                                   "pass no PATHS, and none of --dry-run, --json, --all, --format adr/mlflow")
        _run_hook(env, fmt, campaign)
        return
    if not paths:
        raise click.UsageError("Missing argument 'PATHS...': pass log files to import (or --hook in an agent's hook)")
    if fmt != "mlflow" and (experiments or ui_url):
        raise click.UsageError("--experiment and --ui-url apply to --format mlflow only")
    if fmt == "mlflow":
        if all_attempts or redact_personal:
            raise click.UsageError("--all and --redact-personal do not apply to --format mlflow (every ended run is "
                                   "drafted, and personal details are always redacted)")
        from kb.cli.mlflow_import import import_mlflow_stores

        import_mlflow_stores(env, list(paths), campaign=campaign, dry_run=dry_run, as_json=as_json,
                             experiments=list(experiments), ui_url=ui_url)
        return
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
    say_import_counts(taken, env.records, dry_run)
    if report.failed:
        sys.exit(1)


def _run_hook(env: Env, fmt: str, campaign: str | None) -> None:
    """``kb import --hook``: read the payload (with a timeout), import, say one line on stderr
    naming the log, exit 0 whatever happened (:func:`kb.usecases.hooks.run_hook`)."""
    try:
        from kb.usecases.hooks import read_payload, run_hook

        data, waited_out = read_payload(sys.stdin.buffer)  # click 8.5 deprecates get_binary_stream
        run = run_hook(env.records, data, waited_out=waited_out, format=fmt, campaign=campaign,
                       catalogs=env.catalogs)
        where = f" (log: {run.log})" if run.log else " (the hook log could not be written)"
        name = run.payload.transcript.name if run.payload else "hook payload"
        click.echo(f"kb: {name}: {run.state}: {run.message}{where}", err=True)
    except BaseException as exc:  # noqa: BLE001 - a hook never fails the agent, whatever happens
        with contextlib.suppress(BaseException):
            click.echo(f"kb: hook import failed: {type(exc).__name__}: {exc}", err=True)
    sys.exit(0)


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

