"""``kb schema``: the JSON Schema of each record kind, for editors and hooks."""

from __future__ import annotations

from pathlib import Path

import click

from kb.cli.app import cli, handle_errors
from kb.models import KIND_BY_NAME


@cli.command("schema")
@click.option("--kind", type=click.Choice(sorted(KIND_BY_NAME)), default=None,
              help="Only this kind (default: every kind).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write <kind>.schema.json files into this folder (e.g. schemas/) instead of printing.")
@handle_errors
def schema(kind: str | None, out_dir: str | None) -> None:
    """Print or write the JSON Schema of record files, generated from kb's models.

    Records kb writes start with `# yaml-language-server: $schema=../../schemas/<kind>.schema.json`,
    so an editor with yaml-language-server (VS Code's YAML extension, Neovim, Helix) completes
    and checks them once `kb schema --out schemas` has written the files beside records/.
    Set KB_SCHEMA_URL to point the modeline at published schemas instead.

    \b
    Examples:
      kb schema --kind decision
      kb schema --out schemas
    """
    from kb.schema import all_schemas, dump_schema, record_schema, schema_file_name
    from kb.store import write_text_atomic

    if out_dir is None:
        if kind is None:
            import json

            click.echo(json.dumps({k: record_schema(k) for k in sorted(KIND_BY_NAME)}, indent=2, ensure_ascii=False))
        else:
            click.echo(dump_schema(record_schema(kind)), nl=False)
        return
    files = all_schemas() if kind is None else {schema_file_name(kind): dump_schema(record_schema(kind))}
    for name, text in files.items():
        target = Path(out_dir) / name
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            click.echo(f"unchanged {target}", err=True)
            continue
        write_text_atomic(target, text, overwrite=True)
        click.echo(str(target))
