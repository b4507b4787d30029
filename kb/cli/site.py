"""``kb build`` and ``kb serve``: publish the records as a site."""

from __future__ import annotations

import logging
import sys

import click

from kb.cli.app import (
    Env,
    cli,
    emit_json,
    handle_errors,
    pass_env,
)


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


def _host_port(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``--dev-addr`` as MkDocs takes it, ``HOST:PORT`` with a numeric port (a bad one is a usage
    error here, not MkDocs' configuration error about a temporary mkdocs.yml)."""
    host, sep, port = value.rpartition(":")
    if not (sep and host and port.isdigit() and 0 < int(port) < 65536):
        raise click.BadParameter(f"'{value}' is not HOST:PORT; write e.g. 127.0.0.1:8000 or 0.0.0.0:8080")
    return value


@cli.command()
@click.option("-f", "--config-file", type=click.Path(dir_okay=False), default=None, help="mkdocs.yml to use.")
@click.option("-a", "--dev-addr", default="127.0.0.1:8000", show_default=True, callback=_host_port,
              metavar="HOST:PORT", help="Address to serve on.")
@pass_env
@handle_errors
def serve(env: Env, config_file: str | None, dev_addr: str) -> None:
    """Serve the site locally and rebuild what a record change changes.

    A record with a problem never stops the preview: the last good site stays served, with the
    problem (file, line, field) in a banner on every page until it is fixed. Ctrl-C, SIGTERM and
    SIGHUP stop it and remove its temporary copy of the site.
    """
    import signal

    from kb.site.preview import serve_preview

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt  # as Ctrl-C does: the server shuts down and its temporary site is removed

    _mkdocs_logging(False, logging.INFO)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig}
    try:
        serve_preview(env.records, config_file=config_file, dev_addr=dev_addr)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
