"""The ``kb`` command group and what every command shares: the records folder, JSON output and
the one map from kb's errors to exit codes.

Each command parses its options, calls one kb function and formats the result. Results go to
stdout (``--json`` where there is a result), progress and warnings to stderr. Exit codes: 0 on
success, 1 on invalid records or a failed query, 2 on bad usage (click's own).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, TypeGuard

import click

from kb import DISTRIBUTION
from kb.errors import InvalidOptions, InvalidRecords, KbError, UsageError

RECORDS_HELP = "The records folder (default: ./records, or $KB_RECORDS)."


class Env:
    """What every command shares: the records folder and helpers to load the graph."""

    def __init__(self, records: str):
        self.records = Path(records)
        self._catalogs: tuple[str, ...] | None = None
        self.prefetched: Any = None
        """The record files' bytes read ahead by :func:`kept_answer` (a :class:`kb.store.Prefetched`),
        which :meth:`graph` loads from instead of reading the files again."""
        self.last_graph: Any = None
        """The graph :meth:`graph` returned last (``None`` before)."""

    @property
    def catalogs(self) -> tuple[str, ...]:
        """The catalogs the kb plugin adds in ``./mkdocs.yml`` for this records folder
        (:func:`plugin_catalogs`), so that commands read what the site shows; ``()`` without one."""
        if self._catalogs is None:
            self._catalogs = plugin_catalogs(self.records)
        return self._catalogs

    def graph(self):
        """Load, check and link the records (raises InvalidRecords with every problem).

        A command's process ends soon after its query, and what this loads (about a million
        objects at 10,000 attempts) all stays alive until then: the cyclic garbage collector is
        paused while loading and the loaded objects are then frozen out of its reach
        (:func:`gc.freeze`), so that it never walks them again (at 10,000 attempts its first
        passes over them cost about 0.4 s of CPU). Objects made afterwards are collected as usual."""
        import gc

        from kb.pipeline import load_graph

        was_on = gc.isenabled()
        gc.disable()
        try:
            self.last_graph = load_graph(self.records, list(self.catalogs), prefetched=self.prefetched)
            return self.last_graph
        finally:
            gc.freeze()
            if was_on:
                gc.enable()


pass_env = click.make_pass_decorator(Env)

def plugin_catalogs(records: Path, config: Path = Path("mkdocs.yml")) -> tuple[str, ...]:
    """The ``catalogs`` option of the kb plugin in ``config`` (``./mkdocs.yml``, the file ``kb build``
    uses by default) when that plugin's ``records`` folder (relative to the file, default
    ``records``) is ``records``: the catalogs the site adds to those its campaigns list, which
    ``kb check`` and the queries read too. ``()`` when there is no such file, no kb plugin, another
    records folder, or a file that does not parse (``kb build`` reports that one itself).

    Tags such as ``!!python/name:`` (common in Material sites) are read as nothing."""
    if not config.is_file():
        return ()
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    try:
        doc = yaml.load(config.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 - a SafeLoader
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ()
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    for item in plugins if isinstance(plugins, list) else []:
        options = item.get("kb") if isinstance(item, dict) else None
        if not isinstance(options, dict):
            continue
        folder = options.get("records", "records")
        if not isinstance(folder, str) or not _same_folder(config.parent / folder, records):
            return ()
        names = options.get("catalogs") or []
        return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()
    return ()


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


EXIT_CODES: tuple[tuple[type[KbError], int], ...] = ((UsageError, 2), (KbError, 1))
"""The one map from kb's errors to exit codes, first match wins: a usage error (bad options, an
unknown id given as an option, which includes :class:`kb.errors.InvalidOptions`) exits 2; invalid
records, a failed query, a failed write exit 1. click's own usage errors exit 2 too."""


def exit_code(exc: KbError) -> int:
    """The exit code of ``exc`` by :data:`EXIT_CODES`."""
    return next(code for cls, code in EXIT_CODES if isinstance(exc, cls))


def fail(message: str, code: int = 1) -> None:
    """Print ``message`` on stderr and exit with ``code``."""
    click.echo(f"kb: {message}", err=True)
    sys.exit(code)


_SUSPECT = re.compile(
    r"(?i)secret|token|passw|api[_-]?key|access[_-]?key|private key|credential|auth|bearer|-----BEGIN|://[^/\s]*@"
    r"|\b(?:hf|gh[pousr]|github_pat|sk|xox[a-z]|glpat|npm)[-_]|AKIA|ASIA|eyJ|[A-Za-z0-9/+]{40}")
"""Text that may hold a secret: only such text is given to the redactor (most of what kb prints
holds none, and the redactor's detect-secrets scan costs a few milliseconds a line)."""


class RedactingStream:
    """A text stream that writes what it is given with its secrets replaced
    (:func:`kb.redact.redact_secrets`: personal details are kept, it is the user's own
    terminal); everything else (``isatty``, ``encoding``, ``flush``, ``buffer``) is the wrapped
    stream's."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        if isinstance(text, str) and _SUSPECT.search(text):
            from kb.redact import redact_secrets

            text = redact_secrets(text)
        return self._stream.write(text)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def as_given(problem: Any, records: Path | None = None) -> Any:
    """``problem`` (a :class:`kb.errors.Problem`) with its path under the records folder as the
    user gave it: kb names a record file from the records folder's name (``records/attempts/x.yaml``);
    when the folder was given as another relative path (``kb check data/records``, a pre-commit
    hook's ``args``), the path starts with that instead, so an editor or terminal opens the file
    from where the command ran. Absolute folders and other paths (a catalog's) are left as they are.
    ``records``: the folder (default: the current command's, when there is one)."""
    if records is None:
        ctx = click.get_current_context(silent=True)
        env = ctx.find_object(Env) if ctx is not None else None
        if env is None:
            return problem
        records = env.records
    name, given = records.name, records.as_posix()
    if not name or records.is_absolute() or given == name or not problem.path.startswith(name + "/"):
        return problem
    import dataclasses

    return dataclasses.replace(problem, path=given + problem.path[len(name):])


def report_error(exc: KbError) -> None:
    """Print ``exc`` (each problem on its own line for invalid records or options) and exit
    with its code (:func:`exit_code`); never a traceback for bad input."""
    if isinstance(exc, InvalidOptions):
        for p in exc.problems:
            click.echo(str(p), err=True)
        n = len(exc.problems)
        fail(f"{n} problem{'s' if n != 1 else ''} in the options; nothing written", exit_code(exc))
    if isinstance(exc, InvalidRecords):
        for p in exc.problems:
            click.echo(str(as_given(p)), err=True)
        fail(f"{exc}; run 'kb check' after fixing them", exit_code(exc))
    fail(str(exc), exit_code(exc))


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Report kb's own errors as :func:`report_error` does (the group does it too; this
    decorator keeps a command's errors reported when it is invoked on its own)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KbError as exc:
            report_error(exc)

    return wrapper


def say_redacted(command: str, counts: Any) -> None:
    """Say on stderr what the write gate redacted (``kb log: redacted before writing: token 1``),
    kinds and counts only, never the values; nothing when nothing was."""
    if counts:
        what = ", ".join(f"{k} {n}" for k, n in sorted(dict(counts).items()))
        click.echo(f"{command}: redacted before writing: {what} (the record lists them under 'redacted')", err=True)


def say_import_counts(drafts: Any, records: Any, dry_run: bool) -> None:
    """The closing line of an import on stderr: drafts written (or that would be), already
    imported, and rejected in ``kb review`` (``drafts``: :class:`kb.importers.drafts.Draft`)."""
    counts = {s: sum(1 for d in drafts if d.state == s) for s in ("new", "written", "exists", "rejected")}
    rejected = (f", {counts['rejected']} rejected in review (left out; kb review keeps them in "
                f"{records}/review/rejected.yaml)") if counts["rejected"] else ""
    if dry_run:
        click.echo(f"dry run: {counts['new']} draft(s) would be written, {counts['exists']} already imported"
                   f"{rejected}; nothing written", err=True)
    else:
        click.echo(f"{counts['written']} draft(s) written to {records}/attempts, "
                   f"{counts['exists']} already imported{rejected}", err=True)


def print_record(record: Any, root: Any = None, taken: Any = ()) -> None:
    """Print ``record`` as the YAML the write gate would write (redacted), under a comment naming
    its file: what ``--dry-run`` shows. With ``root`` (the records folder) the id is the one a
    real run would take there (suffixed ``-2``, … past a taken id or file: :func:`kb.store.free_id`)."""
    from kb.store import dump_record, free_id, redact_record

    clean, _counts = redact_record(record)
    if root is not None:
        clean = clean.model_copy(update={"id": free_id(root, clean, taken)})
    click.echo(f"# records/{clean.folder}/{clean.id}.yaml (dry run: not written)")
    click.echo(dump_record(clean), nl=False)


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout (through :func:`echo`)."""
    echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


_recording: list[list[Any]] | None = None
"""What :func:`echo` printed since :func:`kept_answer` started recording: ``[text, err, nl]`` items."""


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """``click.echo(message, err=err, nl=nl)``, also recorded when a :func:`kept_answer`
    command is being answered (its answer is what it printed this way)."""
    click.echo(message, err=err, nl=nl)
    if _recording is not None:
        _recording.append([message, err, nl])


def _is_answer(kept: Any) -> TypeGuard[list[list[Any]]]:
    return isinstance(kept, list) and all(
        isinstance(i, list) and len(i) == 3 and isinstance(i[0], str) and type(i[1]) is bool and type(i[2]) is bool
        for i in kept)


def kept_answer(name: str, skip: Callable[[dict[str, Any]], bool] = lambda kwargs: False
                ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Keep a query command's answer by content: a decorator (under ``pass_env``) for a command
    ``fn(env, **options)`` that prints only through :func:`echo`/:func:`emit_json`, loads only
    through ``env.graph()`` and has no other input.

    Before running it, the records folder is hashed (:func:`kb.store.memo.tree_digest`, every
    record file's bytes, kept in memory). When an answer to the same ``name`` and options was kept
    for that very content, the same catalog folders and this kb (:func:`kb.store.memo.recall_answer`),
    it is printed again without loading anything. Otherwise the command runs, loading the records
    from the bytes just hashed (:class:`kb.store.Prefetched`), and what it printed is kept
    (:func:`kb.store.memo.remember_answer`) only when it succeeded and every record it loaded came
    from those bytes and the folder's listing is still the same (so an edit, a file added or
    removed meanwhile is never kept under the old content). A failed
    query (an exception, ``sys.exit``) keeps nothing. ``skip(options)`` true: run it plainly
    (an answer that depends on more than the records, e.g. the shipped catalogs)."""
    import functools

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(env: Env, **kwargs: Any) -> Any:
            from kb.store.memo import ANSWERS, memo_path

            if skip(kwargs) or not env.records.is_dir() or memo_path(env.records, ANSWERS) is None:
                return fn(env, **kwargs)
            return _answer(name, fn, env, kwargs)

        return wrapper

    return decorate


def _answer(name: str, fn: Callable[..., Any], env: Env, kwargs: dict[str, Any]) -> None:
    global _recording
    from kb.store.memo import listing_digest, recall_answer, remember_answer, tree_digest

    key = json.dumps([name, kwargs, *([list(env.catalogs)] if env.catalogs else [])], sort_keys=True, ensure_ascii=False)
    files: dict[str, bytes] = {}
    listing: list[str] = []
    tree = tree_digest(env.records, files, listing)
    kept = recall_answer(env.records, tree, key)
    if _is_answer(kept):
        for message, err, nl in kept:
            click.echo(message, err=err, nl=nl)
        return
    from kb.pipeline import catalog_folders
    from kb.store import Prefetched

    env.prefetched = prefetched = Prefetched(files)
    env.last_graph = None
    lines: list[list[Any]] = []
    _recording = lines
    try:
        fn(env, **kwargs)
    finally:
        _recording = None
        env.prefetched = None
    kg = env.last_graph
    if kg is not None and prefetched.missed == 0:
        remember_answer(env.records, tree, listing_digest(listing=listing), key, lines,
                        catalog_folders(kg.records, env.records, env.catalogs))


class KbGroup(click.Group):
    """kb's command group: refuses arguments that are not valid UTF-8 before any command runs.

    On POSIX, Python hands undecodable argv bytes over as lone surrogates (U+DC80 to U+DCFF); left
    alone they surface later as an obscure validation error or a crash when written out.
    """

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, importing its module first (:data:`COMMANDS`); a name no
        module is known for imports them all (a command added elsewhere is still found)."""
        if cmd_name not in self.commands:
            module = COMMANDS.get(cmd_name)
            if module is not None:
                import importlib

                importlib.import_module(module)
            if cmd_name not in self.commands:
                load_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command (all their modules imported: for help and completion)."""
        load_commands()
        return super().list_commands(ctx)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run kb with every message it prints passed through the secrets redactor
        (:class:`RedactingStream` on stdout and stderr: click's usage errors, kb's warnings and
        errors, progress), so that a secret given on the command line or read from a file is
        never echoed back (issue 25)."""
        out, err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = RedactingStream(out), RedactingStream(err)
        try:
            return super().main(*args, **kwargs)
        finally:
            sys.stdout, sys.stderr = out, err

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; kb's own errors are reported by :func:`report_error`."""
        try:
            return super().invoke(ctx)
        except KbError as exc:
            report_error(exc)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for i, arg in enumerate(args):
            bad = next((c for c in arg if "\ud800" <= c <= "\udfff"), None)
            if bad is not None:
                shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                byte = f" (byte 0x{ord(bad) - 0xDC00:02x})" if 0xDC80 <= ord(bad) <= 0xDCFF else ""
                raise click.UsageError(f"argument {i + 1} '{shown}' is not valid UTF-8{byte}; "
                                       "pass text in UTF-8 (check the terminal's or the script's encoding)", ctx)
        return super().parse_args(ctx, args)


@click.group(cls=KbGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DISTRIBUTION, prog_name="kb")
@click.option("--records", "records", default=lambda: os.environ.get("KB_RECORDS", "records"),
              show_default="records", type=click.Path(file_okay=False), help=RECORDS_HELP)
@click.pass_context
def cli(ctx: click.Context, records: str) -> None:
    """kb: attempts, blockers, root causes and decisions of GPU inference tuning campaigns.

    Records are YAML files under records/ (one folder per kind). Start with `kb check`, then
    `kb roots`, `kb why ATTEMPT`, `kb unblocks cuda=13.0`, and `kb build` for the site.
    """
    ctx.obj = Env(records)


def _problems_exit(exc: InvalidRecords, what: str) -> None:
    """Print every problem of ``exc`` and exit with its code (:func:`exit_code`: 2 for bad
    options, 1 for an invalid record), saying nothing was written."""
    for p in exc.problems:
        click.echo(str(as_given(p)), err=True)
    n = len(exc.problems)
    fail(f"{n} problem{'s' if n != 1 else ''} in {what}; nothing written", exit_code(exc))


COMMANDS = {
    "check": "kb.cli.check", "roots": "kb.cli.ask", "why": "kb.cli.ask", "unblocks": "kb.cli.ask",
    "graph": "kb.cli.ask", "ask": "kb.cli.ask", "match": "kb.cli.ask", "next": "kb.cli.ask", "diff": "kb.cli.diff", "build": "kb.cli.site", "serve": "kb.cli.site",
    "log": "kb.cli.log", "capture": "kb.cli.capture", "new": "kb.cli.new", "import": "kb.cli.importing",
    "schema": "kb.cli.schema", "export": "kb.cli.export", "migrate": "kb.cli.check", "run": "kb.cli.run",
    "hooks": "kb.cli.hooks",
    "review": "kb.cli.review",
}
"""Command name → the module that defines it (imported when the command runs). A module added
without an entry here is still found: an unknown name imports every module of :data:`MODULES`."""

MODULES = ("kb.cli.ask", "kb.cli.capture", "kb.cli.check", "kb.cli.diff", "kb.cli.export",
           "kb.cli.importing", "kb.cli.log", "kb.cli.new", "kb.cli.run", "kb.cli.schema", "kb.cli.site",
           "kb.cli.hooks", "kb.cli.review")
"""Every module that registers commands on :func:`cli`."""


def load_commands() -> None:
    """Import every command module (:data:`MODULES`), registering all commands on :func:`cli`."""
    import importlib

    for module in MODULES:
        importlib.import_module(module)


def main(args: list[str] | None = None) -> None:
    """Run ``kb`` with ``args`` (default ``sys.argv[1:]``) in this process; exits (:class:`SystemExit`)
    with the command's code."""
    cli.main(args=args, prog_name="kb")
