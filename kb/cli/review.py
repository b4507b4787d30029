"""``kb review``: walk the drafts one by one on a terminal (the steps: :mod:`kb.usecases.review`)."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import click

from kb.cli.app import Env, cli, emit_json, handle_errors, pass_env
from kb.cli.complete import complete_ids

KEYS = "[a]ccept  [e]dit  [m]erge  [r]eject  [s]kip  [q]uit"


@cli.command("review")
@click.argument("ids", nargs=-1, shell_complete=complete_ids("attempt"))
@click.option("--list", "list_only", is_flag=True,
              help="List the drafts with what kb inferred; change nothing (needs no terminal).")
@click.option("--json", "as_json", is_flag=True, help="With --list: the drafts as JSON.")
@pass_env
@handle_errors
def review(env: Env, ids: tuple[str, ...], list_only: bool, as_json: bool) -> None:
    """Review the draft attempts (from kb import, kb log --draft) one by one, oldest first.

    For each draft: its title, outcome, headline figure, stack, error, the log and line it came
    from, its confidence and what kb inferred; then a key:

    \b
      a  accept: it becomes a reviewed record (status: reviewed)
      e  edit it in $EDITOR (else $VISUAL, else vi); it is checked when the editor exits,
         and an edit that does not validate is kept, never lost
      m  merge it into the attempt it repeats: the draft's sources, metrics and notes join
         that attempt, which keeps its own values unless you take the draft's
      r  reject it, with a reason: kept in records/review/rejected.yaml, so that
         importing the same log again leaves it out
      s  skip it for now;  q  quit (Ctrl-C too: what is done stays done)

    IDS: review only these drafts. Needs a terminal; --list shows the drafts anywhere.

    \b
    Examples:
      kb review
      kb review --list --json
      EDITOR="code -w" kb review 2026-02-26-try-torch-symmetric-memory-allreduce
    """
    from kb.usecases import review as uc

    loaded, todo = uc.load_drafts(env.records, list(env.catalogs), ids)
    if loaded.problems:
        click.echo(f"warning: {env.records} has {len(loaded.problems)} problem(s) (a draft whose file does not load "
                   "is not offered); run 'kb check'", err=True)
    if list_only:
        views = [uc.summarize(env.records, loaded, rid) for rid in todo]
        if as_json:
            emit_json([v.to_dict() for v in views])
        else:
            for n, view in enumerate(views, 1):
                _show(view, n, len(views))
            click.echo(f"{len(views)} draft(s) to review", err=True)
        return
    if as_json:
        raise click.UsageError("--json goes with --list (the review itself is interactive)")
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        click.echo("kb review: asks a key for each draft, and stdin or stdout is not a terminal. Run it in a "
                   "terminal; 'kb review --list' lists the drafts anywhere (--json for a script), and a draft is "
                   "also reviewed by editing its file (set status: reviewed).", err=True)
        sys.exit(2)
    if not todo:
        click.echo(f"no drafts to review in {env.records}/attempts")
        return
    done: Counter[str] = Counter()
    try:
        _walk(env, loaded, todo, done)
    except KeyboardInterrupt:
        click.echo("\ninterrupted: " + _tally(done) + "; every file is whole (each step is written at once)")
        sys.exit(130)
    click.echo(_tally(done))


def _tally(done: Counter[str]) -> str:
    parts = [f"{done[k]} {k}" for k in ("accepted", "edited", "merged", "rejected", "skipped") if done[k]]
    return "reviewed: " + (", ".join(parts) if parts else "nothing changed")


def _walk(env: Env, loaded: Any, todo: list[str], done: Counter[str]) -> None:
    """Ask about each draft of ``todo`` in turn, until the last or [q]uit (the records are loaded
    again after each change)."""
    from kb.pipeline import load
    from kb.usecases import review as uc

    stale = False
    for n, rid in enumerate(todo, 1):
        if stale:
            loaded, stale = load(env.records, list(env.catalogs)), False
        current = loaded.records.get(rid)
        if current is None or getattr(current, "status", None) != "draft":
            continue  # merged, rejected or accepted meanwhile (by another draft's step or another process)
        while True:
            _show(uc.summarize(env.records, loaded, rid), n, len(todo))
            key = _key(KEYS + " ? ", "aemrsq")
            if key == "q":
                return
            if key == "s":
                done["skipped"] += 1
                break
            if key == "a":
                with _whole():
                    path = uc.accept_draft(env.records, loaded, rid)
                click.echo(f"accepted: {path} (status: reviewed)")
                done["accepted"] += 1
                stale = True
                break
            if key == "r":
                if _reject(env, loaded, rid):
                    done["rejected"] += 1
                    stale = True
                    break
                continue
            if key == "m":
                if _merge(env, loaded, rid):
                    done["merged"] += 1
                    stale = True
                    break
                continue
            outcome = _edit(env, loaded, rid)
            if outcome == "skip":
                done["skipped"] += 1
                break
            if outcome in ("saved", "accepted"):
                done["edited"] += 1
                loaded = load(env.records, list(env.catalogs))
                if outcome == "accepted":
                    click.echo("accepted: the edit set status: reviewed")
                    done["accepted"] += 1
                    break


def _show(view: Any, n: int, total: int) -> None:
    """Print a draft's summary."""
    click.echo("")
    click.secho(f"Draft {n} of {total}: {view.id}", bold=True)
    rows = [("title", view.title), ("outcome", view.outcome), ("metric", view.metric or "none"),
            ("stack", (view.stack or "not matched") + (f" on {view.platform}" if view.platform else "")),
            ("error", view.error), ("from", view.source),
            ("confidence", f"{view.confidence:.2f}" + (f": {view.confidence_reason}" if view.confidence_reason else "")
             if view.confidence is not None else None),
            ("file", view.path)]
    for name, value in rows:
        if value:
            click.echo(f"  {name:<11} {value}")
    if view.inferred:
        click.echo("  kb inferred:")
        for line in view.inferred:
            click.echo(f"    - {line}")
    for p in view.problems:
        click.echo(f"  problem: {p}")
    if view.pending_edit:
        click.echo(f"  unfinished edit: {view.pending_edit} ([e]dit goes on from it)")


def _key(prompt: str, allowed: str) -> str:
    """One key press among ``allowed`` (echoed); Ctrl-C raises KeyboardInterrupt, Ctrl-D quits."""
    click.echo(prompt, nl=False)
    while True:
        ch = _getchar().lower()
        if ch in ("\x04", ""):  # Ctrl-D, or the terminal closed
            ch = "q" if "q" in allowed else allowed[-1]
        if ch in allowed:
            click.echo(ch)
            return ch


def _getchar() -> str:
    """One key from the terminal, without Enter. The terminal goes to cbreak mode at once
    (``TCSANOW``): keys typed ahead are kept (click's raw mode flushes them), and Ctrl-C stays a
    SIGINT (Python's KeyboardInterrupt). The key is waited for in short ``select`` rounds, so a
    Ctrl-C that comes just before the read is still acted on at once (a read already blocked
    would not see it). Elsewhere (Windows) click's own."""
    try:
        import select
        import termios
        import tty
    except ImportError:  # pragma: no cover - Windows
        return click.getchar()
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        while not select.select([fd], [], [], 0.2)[0]:
            pass  # between rounds Python runs a pending SIGINT's handler
        data = os.read(fd, 32)
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, old)
    return data.decode("utf-8", "replace")[:1]


def _line(prompt: str) -> str:
    """A line typed by the user, with line editing and Tab completion where Python has readline
    (Ctrl-D: empty; Ctrl-C: KeyboardInterrupt)."""
    try:
        return input(prompt)
    except EOFError:
        click.echo("")
        return ""


@contextlib.contextmanager
def _whole() -> Iterator[None]:
    """Hold Ctrl-C back while a step writes its files, then raise it: a step is done entirely or
    not at all, whatever the moment of the key."""
    caught: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except ValueError:  # not the main thread: nothing to hold back
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _reject(env: Env, loaded: Any, rid: str) -> bool:
    from kb.errors import UsageError
    from kb.usecases import review as uc

    reason = _line("reason (kept, so that a re-import leaves it out; empty: back): ").strip()
    if not reason:
        return False
    try:
        with _whole():
            res = uc.reject_draft(env.records, loaded, rid, reason)
    except UsageError as exc:
        click.echo(f"not rejected: {exc}")
        return False
    for other in res.cleared:
        click.echo(f"  {other}: no longer names it (noted in its notes)")
    click.echo(f"rejected: removed {res.removed}; the reason is kept in {res.rejections}")
    return True


def _merge(env: Env, loaded: Any, rid: str) -> bool:
    """Ask for the attempt to merge into and each conflict; merge. ``False``: nothing merged."""
    from kb.errors import UsageError
    from kb.models import Attempt
    from kb.usecases import review as uc

    candidates = uc.merge_candidates(loaded, rid)
    if candidates:
        click.echo("The closest attempts:")
        for i, (cid, why) in enumerate(candidates, 1):
            click.echo(f"  {i}. {cid}  {loaded.records.get(cid).title}  ({why})")
    ids = sorted(a.id for a in loaded.records.of_kind(Attempt) if a.id != rid)
    while True:
        with _completion(ids):
            answer = _line("merge into (a number above, or an attempt id, Tab completes; empty: back): ").strip()
        if not answer:
            return False
        target = candidates[int(answer) - 1][0] if answer.isdigit() and 0 < int(answer) <= len(candidates) else answer
        try:
            plan = uc.plan_merge(loaded, rid, target)
            break
        except UsageError as exc:
            click.echo(str(exc))
    click.echo(f"merging {rid} into {target}:")
    if plan.sources:
        click.echo(f"  adds {len(plan.sources)} source(s)")
    for name, value in plan.filled:
        click.echo(f"  adds {name}: {uc.shown_value(value)}")
    if plan.tags:
        click.echo(f"  adds tags: {', '.join(plan.tags)}")
    take = set()
    for c in plan.conflicts:
        click.echo(f"  {c.field} differs:")
        click.echo(f"    attempt: {uc.shown_value(c.kept)}")
        click.echo(f"    draft:   {uc.shown_value(c.offered)}")
        key = _key("    [k]eep the attempt's (the draft's goes to its notes)  [t]ake the draft's  [c]ancel the merge ? ",
                   "ktc")
        if key == "c":
            click.echo("merge cancelled; nothing written")
            return False
        if key == "t":
            take.add(c.field)
    for other, f in plan.referrers:
        click.echo(f"  {other}: its {f} will name {target}")
    with _whole():
        res = uc.apply_merge(env.records, loaded, plan, take)
    click.echo(f"merged into {res.path}; removed the draft {res.removed}")
    return True


@contextlib.contextmanager
def _completion(words: list[str]) -> Iterator[None]:
    """Tab completion of ``words`` for :func:`input` while inside (readline, where Python has it)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - a Python without readline: no completion
        yield
        return

    def complete(text: str, state: int) -> str | None:
        found = [w for w in words if w.startswith(text)]
        return found[state] if state < len(found) else None

    old, delims = readline.get_completer(), readline.get_completer_delims()
    readline.set_completer(complete)
    readline.set_completer_delims(" \t")
    readline.parse_and_bind("tab: complete")
    try:
        yield
    finally:
        readline.set_completer(old)
        readline.set_completer_delims(delims)


def editor_command() -> list[str]:
    """The editor to run: ``$EDITOR``, else ``$VISUAL``, else ``vi``, split as a shell would
    (``code -w``, ``emacs -nw``)."""
    return shlex.split(os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi")


def _edit(env: Env, loaded: Any, rid: str) -> str:
    """Edit the draft until it validates or the user gives up: ``saved``, ``accepted`` (the edit
    set ``status: reviewed``), ``unchanged``, ``skip`` (the edit kept), ``back``."""
    from kb.usecases import review as uc

    path = uc.start_edit(env.records, loaded, rid)
    while True:
        argv = [*editor_command(), str(path)]
        try:
            # Ctrl-C belongs to the editor while it runs; a handler (not SIG_IGN, which the editor
            # would inherit) keeps kb from dying under it
            previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
            try:
                code = subprocess.call(argv)  # noqa: S603 - the user's own editor, on a file kb names
            finally:
                signal.signal(signal.SIGINT, previous)
        except OSError as exc:
            click.echo(f"cannot run the editor {argv[0]!r} ({exc.strerror or exc}); set $EDITOR (e.g. EDITOR=nano). "
                       f"The copy stays at {path}")
            return "back"
        if code != 0:
            click.echo(f"the editor exited with status {code}; checking the file as it is")
        with _whole():
            res = uc.finish_edit(env.records, loaded, rid)
        if not res.changed:
            click.echo("no change")
            return "unchanged"
        if not res.problems and res.record is not None:
            click.echo(f"saved: {res.path}")
            return "accepted" if res.record.status == "reviewed" else "saved"
        for p in res.problems:
            click.echo(f"  {p}")
        n = len(res.problems)
        click.echo(f"{n} problem{'s' if n != 1 else ''}; the draft is unchanged and your edit is kept in {res.edit}")
        if _key("[e]dit again  [s]kip this draft (kb review offers the edit next time) ? ", "es") == "s":
            return "skip"
