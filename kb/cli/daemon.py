"""``kb daemon``: a process that keeps one records folder loaded and answers the questions
(``kb check``, ``roots``, ``why``, ``unblocks``, ``graph``) asked about it, so that a question at 10,000
attempts costs a look at the folder and the answer, not a load.

``kb daemon start`` loads the records and waits on a Unix socket (:func:`kb.cli.relay.socket_path`:
in a folder only this user may enter, named by the records folder and this kb's code). A question
relayed to it (:func:`kb.cli.relay.relay`) is answered in a child forked for it, which inherits
the loaded graph, takes the asking command's standard streams, working folder, environment and
arguments, and runs the very command ``kb`` would run (the same code, so the same output and exit
code); the daemon itself only loads. Before each answer the daemon makes sure the folder is still
what it loaded: the entries' status first (:func:`kb.store.stamp.stamp`, no file read), and when
that cannot tell, every record file's bytes (:func:`kb.store.memo.tree_digest`); the catalog
folders the records use are hashed too. Anything changed, the records are loaded again (from the
cache of validated records, so only edited files are parsed). Invalid records are answered as
``kb`` answers them: every problem, exit 1.

It stops after ``--idle`` minutes without a question (30 by default), on ``kb daemon stop``, or
on SIGTERM, and removes its socket. It holds the records in memory (about 230 MB at 10,000
attempts; ``kb daemon status`` says how much). Linux and other Unix systems only (file descriptors pass over Unix sockets).
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any

import click

from kb.cli import relay
from kb.cli.app import Env, cli, pass_env
from kb.cli.resident import Daemon, minutes_text, run_server


@cli.group()
def daemon() -> None:
    """Keep the records loaded in the background, so that kb check, roots, why, unblocks and
    graph answer at once (at 10,000 attempts: in about 0.2 s, and about a second after an edit).

    The daemon serves one records folder for the user who started it, answers with the very
    code of the kb that started it, and looks at the folder before every answer (an edit is
    loaded again first). It stops after --idle minutes without a question. KB_DAEMON=off makes a
    command answer in its own process.
    """


@daemon.command("start")
@click.option("--idle", type=click.FloatRange(min=0.05), default=30.0, show_default=True, metavar="MINUTES",
              help="Minutes without a question after which the daemon stops.")
@click.option("--foreground", is_flag=True, help="Serve from this process (Ctrl-C stops it) instead of the background.")
@pass_env
def start(env: Env, idle: float, foreground: bool) -> None:
    """Load the records and answer questions about them until stopped or idle."""
    from kb.cli.app import fail

    if not hasattr(socket, "AF_UNIX") or not hasattr(os, "fork"):
        fail("kb daemon needs Unix sockets and fork (Linux, macOS); questions still answer without it")
    if not env.records.is_dir():
        fail(f"no records folder at {env.records}; pass --records or create one with 'kb new campaign'")
    path = relay.socket_path(str(env.records), create=True)
    if path is None:
        fail(f"no private folder for the daemon's socket: {relay.socket_folder_path()} must be a folder owned by "
             "you with mode 0700 (fix or remove it, or set XDG_RUNTIME_DIR to such a folder)")
        return
    if _ask(path, "status") is not None:
        click.echo(f"kb daemon already serves {env.records} (kb daemon status shows it)", err=True)
        return
    state = Daemon(path, idle * 60)
    if foreground:
        run_server(state, str(env.records), lambda message: click.echo(f"kb daemon: {message}", err=True))
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the daemon's own process, tested through kb daemon status
        _detach(read_end, write_end, state, str(env.records))
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as f:
        message = f.read().decode("utf-8", "replace").strip()
    if not message.startswith("ok: "):
        fail(f"the daemon did not start: {message.removeprefix('error: ') or 'it ended without saying why'}")
    click.echo(message[4:], err=True)


def _detach(read_end: int, write_end: int, state: Daemon, records: str) -> None:  # pragma: no cover
    """In the first child: a new session, a second fork (the daemon is no child of the shell),
    standard streams on /dev/null, no other file of the starting process kept open (a pipe the
    caller waits on would never end); the daemon's ready line goes to ``write_end``."""
    try:
        os.close(read_end)
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        os.closerange(3, write_end)
        os.closerange(write_end + 1, max(os.sysconf("SC_OPEN_MAX"), 256))

        def ready(message: str) -> None:
            os.write(write_end, message.encode("utf-8", "replace") + b"\n")
            os.close(write_end)

        run_server(state, records, ready)
    finally:
        os._exit(0)


def _ask(path: str, op: str) -> dict[str, Any] | None:
    """The reply of the daemon on ``path`` to ``op`` (``status``, ``stop``); ``None`` when none answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    try:
        sock.connect(path)
        relay.send_request(sock, {"protocol": relay.PROTOCOL, "op": op})
        return relay.read_reply(sock)
    except OSError:
        return None
    finally:
        sock.close()


def _sockets(records: Path) -> list[str]:
    """The sockets of every daemon serving ``records`` (with this kb or another)."""
    folder = relay.socket_folder()
    if folder is None:
        return []
    tag = relay.records_tag(str(records))
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.startswith(tag + "-") and n.endswith(".sock"))


@daemon.command("status")
@pass_env
def show_status(env: Env) -> None:
    """Say which daemons serve the records (exit 1 when none does)."""
    from kb.cli.app import fail

    found = [s for s in (_ask(p, "status") for p in _sockets(env.records)) if s is not None]
    for s in found:
        up = (time.time() - s["started"]) / 60 if isinstance(s.get("started"), (int, float)) else 0
        click.echo(f"kb daemon (pid {s.get('pid')}): {s.get('count')} records of {s.get('records')}, loaded in "
                   f"{s.get('load_s')} s; {s.get('answered')} questions answered; up {up:.0f} min; "
                   f"{s.get('rss_mb')} MB; stops after {minutes_text(60 * s.get('idle_minutes', 0))} idle")
    if not found:
        fail(f"no kb daemon serves {env.records} ('kb daemon start' starts one)")


@daemon.command("stop")
@pass_env
def stop_daemon(env: Env) -> None:
    """Stop every daemon serving the records (nothing to stop is no error)."""
    stopped = [r for r in (_ask(p, "stop") for p in _sockets(env.records)) if r is not None]
    for r in stopped:
        click.echo(f"kb daemon (pid {r.get('stopped')}) stopped", err=True)
    deadline = time.monotonic() + 10
    while stopped and any(os.path.exists(p) for p in _sockets(env.records)) and time.monotonic() < deadline:
        time.sleep(0.02)  # until each has removed its socket: a start right after must not find it
    if not stopped:
        click.echo(f"no kb daemon serves {env.records}", err=True)
