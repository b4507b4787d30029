"""The ``kb`` command: one verb each, thin over the library.

Each command parses its options, calls one kb function and formats the result. Results go to
stdout (``--json`` where there is a result), progress and warnings to stderr. Exit codes, the same
for every command (:func:`kb.cli.app.handle_errors`): 0 on success, 1 on invalid records or a
failed query, 2 on bad usage.

One module per verb or group of verbs: :mod:`~kb.cli.check` (check, migrate), :mod:`~kb.cli.ask` (roots, why,
unblocks, graph), :mod:`~kb.cli.diff`, :mod:`~kb.cli.site` (build, serve), :mod:`~kb.cli.log`,
:mod:`~kb.cli.capture`, :mod:`~kb.cli.new`, :mod:`~kb.cli.importing`, :mod:`~kb.cli.schema`,
:mod:`~kb.cli.export`, :mod:`~kb.cli.hooks`.

The command modules are imported when their command runs (:data:`kb.cli.app.COMMANDS`), so that
``kb check`` does not pay for importing the importers, the site or the capture probes. Asking
this package for ``cli`` imports them all (every command registered, as a library user expects);
``main`` (the console script) stays lazy.
"""

from typing import Any

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point of the ``kb`` console script and ``python -m kb`` (:func:`kb.cli.app.main`)."""
    from kb.cli.app import main as run

    run()


def __getattr__(name: str) -> Any:
    import importlib

    app = importlib.import_module("kb.cli.app")
    if name == "cli":
        app.load_commands()
        return app.cli
    raise AttributeError(f"module 'kb.cli' has no attribute {name!r}")
