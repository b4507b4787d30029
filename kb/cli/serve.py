"""``kb serve``: preview the site locally; a record edit rebuilds only the pages it changes."""

from __future__ import annotations

import logging

import click

from kb.cli.app import Env, cli, handle_errors, pass_env
from kb.cli.site import _mkdocs_logging


@cli.command()
@click.option("-f", "--config-file", type=click.Path(dir_okay=False), default=None, help="mkdocs.yml to use.")
@click.option("-a", "--dev-addr", default="127.0.0.1:8000", show_default=True, help="Address to serve on.")
@pass_env
@handle_errors
def serve(env: Env, config_file: str | None, dev_addr: str) -> None:
    """Serve the site locally and rebuild what a record change changes.

    A record with a problem never stops the preview: the last good site stays served, with the
    problem (file, line, field) in a banner on every page until it is fixed.
    """
    from kb.site.preview import serve_preview

    _mkdocs_logging(False, logging.INFO)
    serve_preview(env.records, config_file=config_file, dev_addr=dev_addr)
