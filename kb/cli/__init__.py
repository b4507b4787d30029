"""The ``kb`` command: one verb each, thin over the library.

Each command parses its options, calls one kb function and formats the result. Results go to
stdout (``--json`` where there is a result), progress and warnings to stderr. Exit codes, the same
for every command (:func:`kb.cli.app.handle_errors`): 0 on success, 1 on invalid records or a
failed query, 2 on bad usage.

One module per verb or group of verbs: :mod:`~kb.cli.check`, :mod:`~kb.cli.ask` (roots, why,
unblocks, graph), :mod:`~kb.cli.diff`, :mod:`~kb.cli.site` (build, serve), :mod:`~kb.cli.log`,
:mod:`~kb.cli.capture`, :mod:`~kb.cli.new`, :mod:`~kb.cli.importing`, :mod:`~kb.cli.schema`,
:mod:`~kb.cli.export`.
"""

from kb.cli import ask, capture, check, diff, export, importing, log, new, schema, site  # noqa: F401  (registers the commands)
from kb.cli.app import cli, main

__all__ = ["cli", "main"]
