"""``kb run -- CMD ARGS...``: run a command and record it as an attempt (:mod:`kb.usecases.run`)."""

from __future__ import annotations

import sys
from typing import Any

import click

from kb.cli.app import Env, cli, emit_json, pass_env, say_redacted


@cli.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-t", "--title", help="What was tried (default: the program and its arguments; for a Python "
                                   "interpreter, its script or -m module and their arguments).")
@click.option("-a", "--approach", help="How it was tried (default: 'Ran `CMD` with kb run.').")
@click.option("--baseline", "is_baseline", is_flag=True, help="This run is the reference others compare with.")
@click.option("--retry-of", "retry_of", help="The earlier attempt this run re-runs (default: the latest failed "
                                             "attempt of the same command, proposed).")
@click.option("-c", "--campaign", help="Campaign id (default: the only campaign).")
@click.option("-s", "--stack", help="Stack id the run used (default: the campaign's current stack).")
@click.option("--component", "components", multiple=True, metavar="NAME=VERSION",
              help="A component version over the stack, e.g. cuda=13.0 (repeatable).")
@click.option("--capture/--no-capture", default=True, show_default=True,
              help="Read the machine's stack after the run (as kb capture does).")
@click.option("--keep-output", is_flag=True, help="Keep the whole output (cleaned, redacted) under records/assets/runs/.")
@click.option("--notes", help="Notes (Markdown), before the output excerpt.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable; kb-run is always added).")
@click.option("--reviewed", is_flag=True, help="Write a reviewed record, not a draft.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {id, path, outcome, exit, reasons, matches} as JSON on stdout (the command's own output "
                   "then goes to stderr).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
@pass_env
def run(env: Env, title: str | None, approach: str | None, is_baseline: bool, retry_of: str | None,
        campaign: str | None, stack: str | None, components: tuple[str, ...], capture: bool, keep_output: bool,
        notes: str | None, tags: tuple[str, ...], reviewed: bool, as_json: bool, command: tuple[str, ...]) -> None:
    """Run CMD with its output streamed live and record it as a draft attempt.

    The exit status is CMD's (128+n when signal n ended it: 130 for Ctrl-C), whatever kb could
    write; a command that cannot start (127, 126) is not recorded. Standard output is CMD's own
    (kb says what it recorded on stderr). The output is read with the import readers (vllm bench serve, bench_serving,
    llama-bench, nccl-tests, trtllm-bench, aiperf, 'name value unit' lines): the headline figure,
    the outcome against the campaign's baseline, a failed run's error headline matched against
    the known blockers. The stack is captured after the run; the command line, working folder,
    duration and the CUDA_/NCCL_/TORCH_/PYTORCH_/VLLM_/SGLANG_/SGL_/FLASHINFER_/TRITON_/OMP_
    variables are recorded, all through the redaction policy. On a terminal the command runs on
    a pseudo-terminal (progress bars draw) and Ctrl-C reaches it; an interrupted run is recorded
    as inconclusive.

    \b
    Example:
      kb run --baseline -- python bench.py --tp 8
      kb run -t "EAGLE-3, 3 draft tokens" -- python -m sglang.bench_serving --num-prompts 200
    """
    import contextlib
    import tempfile

    from kb.errors import KbError
    from kb.usecases import run as runner

    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("give the command to run after --, e.g. kb run -- python bench.py")
    with contextlib.ExitStack() as stack_:
        spool = stack_.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8")) if keep_output else None
        result = runner.run_command(argv, keep=spool, stdout=sys.stderr.buffer if as_json else None)
        status = result.exit_status
        if result.error is not None:  # nothing ran: a typo is not an attempt
            click.echo(f"kb run: not recorded: {result.error}", err=True)
            sys.exit(status)
        try:
            written = _record(env, result, spool, runner.RunOptions(
                title=title, approach=approach, baseline=is_baseline, retry_of=retry_of, campaign=campaign,
                stack=stack, components=list(components), notes=notes, tags=list(tags), reviewed=reviewed),
                capture)
        except KbError as exc:  # the run's exit status is never lost to a problem of kb's
            for line in str(exc).splitlines() or [type(exc).__name__]:
                click.echo(f"kb run: not recorded: {line}", err=True)
            for p in getattr(exc, "problems", ()):
                click.echo(f"kb run: {p}", err=True)
            sys.exit(status)
        except Exception as exc:  # noqa: BLE001 - a bug of kb's must not cost the command's exit status either
            click.echo(f"kb run: not recorded: unexpected {type(exc).__name__}: {exc} (please report it)", err=True)
            sys.exit(status)
    res, verdict, said = written
    for reason in [*verdict.reasons, *said]:
        click.echo(f"kb run: {reason}", err=True)
    for m in res.matches:
        click.echo(f"kb run: error text {m.describe()} ({'linked' if m.linked else 'not linked'})", err=True)
    say_redacted("kb run", res.redactions)
    if as_json:
        emit_json({"id": res.attempt.id, "path": str(res.path), "outcome": res.attempt.outcome.value,
                   "exit": status, "reasons": [*verdict.reasons, *said],
                   "matches": [m.to_dict() for m in res.matches]})
    kind = "attempt" if reviewed else "draft attempt"
    click.echo(f"kb run: recorded {kind} {res.attempt.id} ({res.attempt.outcome.value}) in {res.path}; "
               f"exit status {status}", err=True)
    sys.exit(status)


def _record(env: Env, result: Any, spool: Any, options: Any, capture: bool) -> Any:
    """Capture the stack (when asked), keep the whole output (when spooled) and write the attempt."""
    from kb.usecases import run as runner
    from kb.usecases.log import load_for_writing

    kg, problems = load_for_writing(env.records, env.catalogs)
    if problems:
        click.echo(f"kb run: warning: {len(problems)} problem(s) in {env.records} (run 'kb check'); "
                   "references are checked against the valid records", err=True)
    if capture:
        from kb import capture as capture_mod
        from kb import machine

        cap = capture_mod.capture_machine(python=runner.interpreter_of(result.argv))
        options.captured = machine.components_from_capture(cap)
    if spool is not None:
        from kb.ids import slugify
        from kb.redact import Redactor
        from kb.store.assets import save_asset_text

        spool.seek(0)
        name = f"runs/{result.started:%Y%m%d-%H%M%S}-{slugify(runner.title_of(result.argv), fallback='run')[:40]}.log"
        path = save_asset_text(env.records, name, spool, Redactor())
        options.output_file = path.relative_to(env.records / "assets").as_posix()
    return runner.record_run(env.records, result, options, kg=kg)
