"""``kb export``: the records as a SQLite database, or the site's pages as a Markdown tree."""

from __future__ import annotations

import click

from kb.cli.app import Env, cli, emit_json, handle_errors, pass_env


@cli.command("export")
@click.option("--sqlite", "sqlite_file", type=click.Path(dir_okay=False), default=None,
              help="Write a SQLite database (one table per kind, records, edges, metrics, components) and "
                   "Datasette's metadata beside it (NAME.metadata.json).")
@click.option("--markdown", "markdown_dir", type=click.Path(file_okay=False), default=None,
              help="Write DIR/mkdocs.yml and kb's pages under DIR/docs/: then `cd DIR && zensical build` "
                   "(or `mkdocs build`) builds the site.")
@click.option("--force", is_flag=True, help="Replace an existing database, or write into a non-empty folder (replacing its mkdocs.yml).")
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@pass_env
@handle_errors
def export(env: Env, sqlite_file: str | None, markdown_dir: str | None, force: bool, as_json: bool) -> None:
    """Export the records for other tools.

    \b
    Examples:
      kb export --sqlite kb.db && datasette kb.db -m kb.metadata.json
      kb export --markdown kb-site && cd kb-site && zensical build
    """
    if not sqlite_file and not markdown_dir:
        raise click.UsageError("say what to export: --sqlite FILE and/or --markdown DIR")
    kg = env.graph()
    result: dict[str, object] = {}
    if sqlite_file:
        from kb.sqlite_export import metadata_path, write_sqlite

        counts = write_sqlite(kg, sqlite_file, overwrite=force)
        meta = str(metadata_path(sqlite_file))
        result["sqlite"] = {"file": sqlite_file, "metadata": meta, "tables": counts}
        click.echo(f"wrote {sqlite_file}: " + ", ".join(f"{t} {n}" for t, n in counts.items()), err=True)
        click.echo(f"wrote {meta}: open both with 'datasette {sqlite_file} -m {meta}'", err=True)
    if markdown_dir:
        from kb.site.export import export_markdown

        written = export_markdown(kg, env.records, markdown_dir, overwrite=force)
        result["markdown"] = {"dir": markdown_dir, "files": len(written)}
        click.echo(f"wrote {len(written)} files under {markdown_dir}/: build the site with "
                   f"`cd {markdown_dir} && zensical build` (or `mkdocs build`)", err=True)
    if as_json:
        emit_json(result)
