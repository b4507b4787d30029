"""kb's own errors. The core raises these; only the CLI and the MkDocs plugin translate them.

The tree::

    KbError                      base of everything kb raises on purpose
    ├── RecordError              one located problem in one record file (path, line, field)
    ├── InvalidRecords           a collection of RecordError, raised once after collecting them all
    ├── RecordExists             a write would overwrite an existing record
    ├── WriteError               a record could not be written (disk full, read-only tree, ...)
    ├── QueryError               a query could not be answered (unknown id, bad change spec, ...)
    ├── LogFormatError           a session log could not be read (path, line)
    ├── ConfigError              an agent's settings file kb was asked to edit is not what its
    │                            documentation describes (path, line, key); nothing written
    ├── TrackingStoreError       an experiment tracker's store could not be opened or read
    └── UsageError               a request kb cannot carry out as asked (which campaign?)
        └── InvalidOptions       the values given to a command (kb log, kb new) do not make a
                                 valid record; also an InvalidRecords, holding every problem

Exit codes (the CLI's one map, :data:`kb.cli.app.EXIT_CODES`): a UsageError (bad options,
unknown ids given as options) exits 2; invalid records, failed queries and failed writes exit 1.

Every message names what was expected and how to fix it, so a person can act on it without
reading kb's source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class KbError(Exception):
    """Base class of the errors kb raises on purpose (never a bare traceback for bad input)."""


@dataclass(eq=True, frozen=True)
class Problem:
    """One located problem: ``path:line: field: message``.

    ``path`` is shown as given (relative to the records root when the store produced it);
    ``line`` is 1-based, or ``None`` when the problem has no single line (a missing file);
    ``field`` is a dotted path inside the record (``metrics.output_throughput.value``), or ``""``
    for a whole-file problem.
    """

    path: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class RecordError(KbError):
    """A single located problem in a record file; ``problem`` carries the location."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


class InvalidRecords(KbError):
    """Raised once after every record was read, holding every problem found (never the first only).

    ``problems`` is a list of :class:`Problem`, sorted by path and line.
    """

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.path, p.line or 0, p.field, p.message))
        n = len(self.problems)
        super().__init__(f"{n} problem{'s' if n != 1 else ''} in records")


class RecordExists(KbError):
    """A write would replace an existing record; kb never overwrites without being asked."""

    def __init__(self, path: Path):
        super().__init__(f"{path}: already exists; kb does not overwrite records (pick another id)")
        self.path = path


class WriteError(KbError):
    """Writing a record failed (no space, read-only tree, permissions); nothing was changed."""


class QueryError(KbError):
    """A query could not be answered: an unknown id, a malformed change, an unknown stack."""


class LogFormatError(KbError):
    """A session log could not be read at all (empty, not UTF-8, unknown format).

    ``path`` and ``line`` locate the problem (``line`` may be ``None``).
    """

    def __init__(self, path: str | Path, line: int | None, message: str):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.line = line
        self.message = message


class TrackingStoreError(KbError):
    """An experiment tracker's store (an MLflow ``mlruns/`` folder, ``mlflow.db``, a tracking
    server) could not be opened or read; the message names the location and how to fix it."""


class UsageError(KbError):
    """A request that cannot be carried out as given: an unknown campaign, several campaigns
    and none chosen. The CLI exits 2 for it, as for bad usage; the message says what to pass."""


class InvalidOptions(InvalidRecords, UsageError):
    """The options given to a command that writes a record (``kb log``, ``kb new``) do not make a
    valid record: ``problems`` name each option (``kb log: --campaign: unknown campaign 'x'``).
    Nothing was written. A usage error (exit 2), holding every problem like :class:`InvalidRecords`."""


class ConfigError(KbError):
    """An agent's configuration file that kb was asked to edit (``.claude/settings.json``,
    ``.codex/hooks.json``) cannot be read as its tool documents it: not JSON, or a key of the wrong
    type. ``problem`` locates it (path, line, key); the message says how to fix it and that nothing
    was written."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem
