"""``kb build`` and ``kb serve``: run MkDocs with kb's plugin on a records folder.

With a ``mkdocs.yml`` (given, or in the current folder) MkDocs reads it as usual and kb's plugin
is pointed at the records folder; without one, kb uses its built-in configuration (Material
theme, offline fonts, search, the kb plugin) in a temporary folder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml

from kb.errors import KbError
from kb.pipeline import load_graph
from kb.site.config import DEFAULT_CONFIG


class BuildError(KbError):
    """MkDocs could not build the site (its message says why)."""


def _load_config(records: Path, config_file: str | None, site_dir: str | None, strict: bool,
                 tmp: Path, **extra: Any) -> Any:
    from mkdocs.config import load_config

    records = records.resolve()
    if config_file is None and Path("mkdocs.yml").is_file():
        config_file = "mkdocs.yml"
    if config_file is None:
        docs = tmp / "docs"
        docs.mkdir()
        data = {**DEFAULT_CONFIG, "docs_dir": str(docs)}
        cfg_path = tmp / "mkdocs.yml"
        cfg_path.write_text(yaml.safe_dump(data), encoding="utf-8")
        config_file = str(cfg_path)
        site_dir = site_dir or str(Path("site").resolve())
    kwargs: dict[str, Any] = {"strict": strict, **extra}
    if site_dir:
        kwargs["site_dir"] = str(Path(site_dir).resolve())
    try:
        cfg = load_config(config_file=config_file, **kwargs)
    except Exception as exc:  # noqa: BLE001 - mkdocs raises ConfigurationError / Abort (click exceptions)
        raise BuildError(f"{config_file}: {getattr(exc, 'message', exc)}") from None
    plugin = cfg.plugins.get("kb")
    if plugin is None:
        raise BuildError(f"{config_file}: the kb plugin is not enabled; add '- kb' under 'plugins:'")
    plugin.config.records = str(records)
    return cfg


def build_site(records: str | Path, *, config_file: str | None = None, site_dir: str | None = None,
               strict: bool = False) -> Path:
    """Check ``records`` then build the site; returns the site folder.

    The records are loaded once (:func:`kb.pipeline.load_graph`, with the plugin's catalogs) and
    handed to the plugin, which would otherwise load them again. Raises
    :class:`kb.errors.InvalidRecords` (with every problem) before MkDocs runs when a record is
    invalid, and :class:`BuildError` when MkDocs fails (``--strict`` warnings included). The
    site is written beside the old one and swapped in whole once it is complete
    (:mod:`kb.publish`): a failure, a kill or a full disk leaves the old site as it was.
    """
    import gc

    from mkdocs.commands.build import build

    from kb.staleness import today

    today()  # a bad KB_TODAY is a usage error (exit 2) before anything is built, as for kb check

    with tempfile.TemporaryDirectory(prefix="kb-build-") as tmp:
        cfg = _load_config(Path(records), config_file, site_dir, strict, Path(tmp))
        plugin = cfg.plugins["kb"]
        # fail with kb check's messages before MkDocs starts, and let the plugin reuse the graph
        plugin.preloaded = (Path(records).resolve(), load_graph(records, list(plugin.config.catalogs)))
        plugin.release_graph = True
        plugin.atomic = True  # written beside the old site, swapped in whole (kb.publish)
        target = Path(cfg.site_dir)
        # what is loaded so far (modules, MkDocs' configuration, the records) lives through the
        # build: out of the cyclic collector's reach, its full passes walk only what the build
        # makes; given back to it afterwards (a caller that builds again frees the old graph)
        gc.freeze()
        try:
            build(cfg)
        except BaseException as exc:
            plugin.finish(cfg, ok=False)
            if not isinstance(exc, Exception):
                raise  # KeyboardInterrupt, SystemExit: the old site is left as it was
            raise BuildError(f"site build failed: {getattr(exc, 'message', None) or exc}; "
                             f"the site at {target} is unchanged") from None
        finally:
            gc.unfreeze()
        return plugin.finish(cfg, ok=True) or Path(cfg.site_dir)


RECORDS_ENV = "KB_SITE_RECORDS"
"""Environment variable through which ``kb serve`` points the plugin at a records folder:
``mkdocs serve`` re-reads its configuration on every rebuild, so the folder cannot be set on a
loaded configuration as :func:`build_site` does."""


def serve_site(records: str | Path, *, config_file: str | None = None, dev_addr: str = "127.0.0.1:8000") -> None:
    """Serve the site with MkDocs' live-reloading server until interrupted.

    The user's mkdocs.yml is used as it is (it may hold tags such as ``!!python/name``); the
    records folder reaches kb's plugin through :data:`RECORDS_ENV`. Raises
    :class:`kb.errors.InvalidRecords` before serving when a record is invalid, and
    :class:`BuildError` when MkDocs fails.
    """
    import os

    from mkdocs.commands.serve import serve

    load_graph(records)
    records = Path(records).resolve()
    with tempfile.TemporaryDirectory(prefix="kb-serve-") as tmp:
        cfg_file = config_file
        if cfg_file is None and not Path("mkdocs.yml").is_file():
            _load_config(records, None, None, False, Path(tmp))  # writes tmp/mkdocs.yml
            cfg_file = str(Path(tmp) / "mkdocs.yml")
        cfg_file = cfg_file or "mkdocs.yml"
        previous = os.environ.get(RECORDS_ENV)
        os.environ[RECORDS_ENV] = str(records)
        try:
            serve(config_file=cfg_file, dev_addr=dev_addr)
        except Exception as exc:  # noqa: BLE001 - the server's error, whatever its class: one message
            raise BuildError(f"serve failed: {getattr(exc, 'message', None) or exc}") from None
        finally:
            if previous is None:
                os.environ.pop(RECORDS_ENV, None)
            else:
                os.environ[RECORDS_ENV] = previous
