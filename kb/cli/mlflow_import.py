"""``kb import --format mlflow STORE``: draft attempts from the runs of MLflow tracking stores.
Called by :mod:`kb.cli.importing`; the conversion is :mod:`kb.importers.mlflow_runs`."""

from __future__ import annotations

from typing import Any

import click

from kb.cli.app import Env, emit_json


def import_mlflow_stores(env: Env, stores: list[str], *, campaign: str | None, dry_run: bool, as_json: bool,
                         experiments: list[str], ui_url: str | None) -> None:
    """Import every store in ``stores``; print a table per experiment (or JSON), warnings on
    stderr. A store that cannot be opened raises :class:`kb.errors.TrackingStoreError` (exit 1)
    before anything of it is written; the stores before it are imported."""
    from kb.importers.mlflow_runs import import_mlflow

    reports = []
    for location in stores:
        report = import_mlflow(env.records, location, campaign=campaign, dry_run=dry_run, experiments=experiments,
                               ui_url=ui_url, catalogs=env.catalogs)
        reports.append(report)
        for item in report.files:
            for warning in item.warnings:
                click.echo(f"warning: {item.file}: {warning}", err=True)
            if not item.matches_campaign and item.drafts:
                click.echo(f"warning: {item.file}: an experiment whose runs name neither the model nor the platform of "
                           f"campaign {report.campaign}; its drafts joined it only because it is the only campaign and "
                           "were not compared with its baseline: pass --campaign ID to confirm the campaign", err=True)
        if report.record_problems:
            click.echo(f"warning: {env.records} has {report.record_problems} invalid record(s); run 'kb check'", err=True)
        if not as_json:
            _print(location, report)
    redacted: dict[str, int] = {}
    for report in reports:
        for kind, n in report.redactions.items():
            redacted[kind] = redacted.get(kind, 0) + n
    click.echo("redacted: " + (", ".join(f"{k} {n}" for k, n in sorted(redacted.items())) or "nothing"), err=True)
    if as_json:
        emit_json([{"store": location, **r.to_dict()} for location, r in zip(stores, reports)])
    drafts = [d for r in reports for d in r.drafts]
    from kb.cli.app import say_import_counts

    say_import_counts(drafts, env.records, dry_run)
    if not drafts:
        click.echo("note: the store(s) hold no ended run to draft", err=True)


def _print(location: str, report: Any) -> None:
    """One table per experiment: state, id, outcome, headline figure, run."""
    for item in report.files:
        click.echo(f"{location} ({item.format}): {len(item.drafts)} run(s)")
        rows = [("STATE", "ID", "OUTCOME", "METRIC", "FROM")]
        for d in item.drafts:
            rec = d.record
            metric = ""
            if rec is not None and rec.metrics:
                name, m = next(iter(rec.metrics.items()))
                metric = f"{name} {m.display()}"
            rows.append((d.state, d.id, rec.outcome.value if rec else "", metric, d.anchor))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        if len(rows) > 1:
            for r in rows:
                click.echo("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        for d in item.drafts:
            for bid, catalog, fix in d.known:
                click.echo(f"  known blocker: {d.id} matches {bid} (catalog {catalog}): {fix}")
            for rid, why in d.duplicates:
                click.echo(f"  possible duplicate: {d.id} looks like {rid} ({why}); review before keeping both")
