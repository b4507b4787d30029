"""The ``kb daemon`` process (:mod:`kb.cli.daemon` starts and stops it): holds one records
folder loaded, checks before each question that the folder is still what it loaded, and answers in
a child forked for the question.

See :mod:`kb.cli.daemon` for what a user sees. Here: :func:`fresh` (the look at the folder and the
reload), :func:`answer` (the fork; the child takes the asking command's streams, folder,
environment and arguments and runs :func:`kb.cli.app.main`), :func:`handle` (one connection:
``run``, ``status`` or ``stop``; only from this user, by ``SO_PEERCRED``) and :func:`run_server`
(the loop; between questions it prepares the held graph: :func:`kb.queries.warm.preparation`).
"""

from __future__ import annotations

import gc
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.cli import relay
from kb.cli.app import Env, plugin_catalogs

PILE = 3
"""Most reloads whose garbage waits for a collection (0.3 s at 10,000 attempts; memory stays bounded)."""

POLL = 0.02
"""Seconds between looks at the answers being written (has one ended, has its asker gone)."""


@dataclass
class Held:
    """The records a daemon holds: ``key`` (the working folder, the records folder as given
    and the catalogs of ``./mkdocs.yml``: what :meth:`serves` compares), ``tree`` (the folder's
    :func:`~kb.store.memo.tree_digest` when loaded; ``None`` when a file changed during the load),
    ``stamp`` (a :class:`~kb.store.stamp.Stamp` known to match ``tree``), ``deps`` (``[folder,
    digest]`` of each catalog folder the records may read) and ``loaded`` (a :class:`kb.pipeline.Loaded`)."""

    key: tuple[str, str, tuple[str, ...]]
    tree: str | None
    stamp: Any
    deps: list[list[str]]
    loaded: Any
    seconds: float = 0.0
    steps: list[Any] = field(default_factory=list)
    """What is left of preparing ``loaded`` for questions (:func:`prepare_step`)."""

    def serves(self, env: Env) -> bool:
        """Whether ``env`` (a command's records folder, in the current working folder) asks about
        exactly these records."""
        return self.key == (os.getcwd(), str(env.records), env.catalogs)


@dataclass
class Daemon:
    """One daemon's state: its socket, what it holds, and counts for ``kb daemon status``."""

    path: str
    idle: float
    held: Held | None = None
    started: float = field(default_factory=time.time)
    answered: int = 0
    listener: socket.socket | None = None
    kept: Any = None
    """The records cache (:class:`kb.store.cache.RecordCache`) of the folder last loaded, kept
    in memory from one load to the next: a reload parses only the files that changed."""
    kept_for: Path | None = None
    """The real path of the folder :attr:`kept` belongs to."""
    garbage: int = 0
    """Reloads whose old graph's garbage waits (collected between questions, or at the :data:`PILE`-th)."""
    lock: Any = None
    """The socket's lock file (:func:`_bind`); each answering child closes it (one outliving a killed daemon blocked a start)."""
    running: dict[int, socket.socket] = field(default_factory=dict)
    """The answers being written: each child's pid and its asker's connection (:func:`reap`). Several
    run at once: one whose reader does not read (``kb graph | less``) holds up no other question."""


def fresh(daemon: Daemon, cwd: str, records_arg: str) -> Held | None:
    """What ``daemon`` holds for the records folder ``records_arg`` seen from ``cwd``, loaded
    again first when anything it was loaded from changed; ``None`` when there is no such folder
    (the command then says so itself). Changes the working folder to ``cwd``."""
    from kb.store.memo import tree_digest
    from kb.store.stamp import stamp

    os.chdir(cwd)
    records = Path(records_arg)
    if not records.is_dir():
        return None
    key = (os.getcwd(), str(records), plugin_catalogs(records))
    held = daemon.held if daemon.held is not None and daemon.held.key == key else None
    now = stamp(records)
    if held is not None and held.tree is not None and now.same(held.stamp) and _deps_same(held.deps):
        return held
    files: dict[str, bytes] = {}
    tree = tree_digest(records, files)
    if held is not None and held.tree == tree and _deps_same(held.deps):
        held.stamp = now
        return held
    daemon.held = held = None
    if daemon.garbage >= PILE:  # questions came faster than it idled: free that garbage before a load freezes it
        collect(daemon)
    daemon.garbage += 1
    real = records.resolve()
    if daemon.kept_for != real:
        from kb.store.cache import RecordCache, cache_path

        daemon.kept, daemon.kept_for = RecordCache(cache_path(records)), real
    daemon.held = load(key, records, files, tree, now, daemon.kept)
    return daemon.held


def _deps_same(deps: list[list[str]]) -> bool:
    from kb.store.memo import tree_digest

    return all(tree_digest(Path(folder)) == digest for folder, digest in deps)


def load(key: tuple[str, str, tuple[str, ...]], records: Path, files: dict[str, bytes], tree: str, now: Any,
         kept: Any = None) -> Held:
    """Load the records (from ``files``, the bytes hashed to ``tree``; through the records cache
    ``kept`` when given), keeping them out of the garbage collector's walks (:func:`gc.freeze`,
    as a command does; :func:`collect` frees what the last load left, between questions)."""
    from kb.pipeline import catalog_folders
    from kb.pipeline import load as load_records
    from kb.store import Prefetched
    from kb.store.memo import tree_digest
    from kb.store.stamp import stamp

    gc.disable()
    t0 = time.perf_counter()
    try:
        prefetched = Prefetched(files)
        loaded = load_records(records, list(key[2]), prefetched=prefetched, kept=kept)
    finally:
        gc.freeze()
        gc.enable()
    deps = [[str(d.resolve()), tree_digest(d)] for d in catalog_folders(loaded.records, records, key[2])]
    # exact: every record loaded came from the bytes hashed, and no entry came or went meanwhile
    exact = prefetched.missed == 0 and stamp(records).entries == now.entries
    held = Held(key, tree if exact else None, now if exact else None, deps, loaded, time.perf_counter() - t0)
    if not loaded.problems:
        from kb.queries.warm import preparation

        held.steps = preparation(loaded.graph)
    return held


def collect(daemon: Daemon) -> None:
    """Free the cyclic garbage the last reload left (the old graph's), then keep everything
    alive out of the collector's walks again (about 0.3 s at 10,000 attempts: run between
    questions)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    daemon.garbage = 0


def prepare_step(held: Held) -> None:
    """Run the next step of preparing ``held`` (:func:`kb.queries.warm.preparation`), keeping
    what it builds out of the garbage collector's walks; a step that fails drops the rest (they
    only save time: the questions build what they need themselves)."""
    step = held.steps.pop(0)
    gc.disable()
    try:
        step()
    except Exception:  # noqa: BLE001 - preparing only saves time
        held.steps.clear()
    finally:
        gc.freeze()
        gc.enable()


def answer(daemon: Daemon, conn: socket.socket, request: dict[str, Any]) -> int | None:
    """Start the command of ``request`` in a forked child writing to the asker's streams (sent with
    its go: :func:`_go`); its pid (:func:`reap` waits for it), or ``None`` when the asker gave up."""
    try:
        held = fresh(daemon, request["cwd"], request["records"])
    except OSError:
        raise  # the working folder is gone: the command answers (and says so) itself
    except Exception:  # noqa: BLE001 - the child then loads as a command does, and reports what it finds
        daemon.held = held = None
    fds = _go(conn)
    if fds is None:
        return None
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; its output is what the tests compare
            _child(daemon, conn, request, fds, held)
    finally:
        for fd in fds:
            os.close(fd)
    return pid


def reap(daemon: Daemon) -> None:
    """Reply to the command of each answer that ended (its exit code: 128 + the signal when one
    ended it), and end (SIGKILL) each answer whose command went away (its connection closed)."""
    for pid, conn in list(daemon.running.items()):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 1 << 8
        if not done:
            if not _gone(conn):
                continue
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        del daemon.running[pid]
        if done:
            daemon.answered += 1
            _reply(conn, {"exit": os.waitstatus_to_exitcode(status) if os.WIFEXITED(status)
                          else 128 + os.WTERMSIG(status)})
        conn.close()


def _go(conn: socket.socket) -> list[int] | None:
    """The asker's standard input, output and error, sent with its go (one byte ``g``) once told
    its question was taken; ``None`` when it left to answer it itself (:data:`kb.cli.relay.TAKEN_S`):
    a daemon that never takes a question (stopped) holds no pipe of the command open."""
    try:
        conn.settimeout(30)
        data, fds, _flags, _addr = socket.recv_fds(conn, 1, 3)
        conn.settimeout(None)
    except OSError:
        return None
    if data == b"g" and len(fds) == 3:
        return fds
    for fd in fds:
        os.close(fd)
    return None


def _gone(conn: socket.socket) -> bool:
    """Whether the asking command closed its end of ``conn`` (it sends nothing after its request)."""
    try:
        return bool(select.select([conn], [], [], 0)[0]) and not conn.recv(1, socket.MSG_PEEK)
    except OSError:
        return True


def drain(daemon: Daemon) -> None:
    """Once stopped (its socket gone): wait for the answers being written to end, each asking
    command still told its exit code. A second SIGTERM or SIGINT ends the daemon at once."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    while daemon.running:
        select.select(list(daemon.running.values()), [], [], POLL)
        reap(daemon)


def _child(daemon: Daemon, conn: socket.socket, request: dict[str, Any], fds: list[int],
           held: Held | None) -> None:  # pragma: no cover - runs in the forked child
    code = 70
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for other in (daemon.listener, daemon.lock, *daemon.running.values()):
            if other is not None:
                other.close()
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        (out_enc, out_err), (err_enc, err_err) = request["streams"]
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=out_enc)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding=out_enc, errors=out_err,
                                      line_buffering=os.isatty(1))
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding=err_enc, errors=err_err,
                                      line_buffering=True)
        from kb.cli import app

        app.HELD = held
        code = _run(request["argv"])
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _run(argv: list[str]) -> int:  # pragma: no cover - runs in the forked child
    """Run ``kb`` with ``argv`` as :func:`kb.cli.app.main` does; its exit code."""
    import traceback

    from kb.cli.app import main

    try:
        main(argv)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BaseException:  # noqa: BLE001 - reported as Python reports it, as the command would
        traceback.print_exc()
        return 1
    return 0


def _valid_run(request: dict[str, Any]) -> bool:
    env, streams = request.get("env"), request.get("streams")
    return (isinstance(request.get("argv"), list) and all(isinstance(a, str) for a in request["argv"])
            and isinstance(request.get("cwd"), str) and isinstance(request.get("records"), str)
            and isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
            and isinstance(streams, list) and len(streams) == 2
            and all(isinstance(s, list) and len(s) == 2 and all(isinstance(x, str) for x in s) for s in streams))


def _peer_uid(conn: socket.socket) -> int | None:
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                              struct.calcsize("3i")))
    except (OSError, AttributeError):
        return None
    return uid


class _Stop(Exception):
    """``kb daemon stop`` was asked."""


def handle(daemon: Daemon, conn: socket.socket) -> None:
    """Answer one connection: a question (``op: run``), ``status`` or ``stop`` (raises
    :class:`_Stop` after replying). A connection from another user (``SO_PEERCRED`` where told;
    the socket's folder is private), or a message that is not a request, is closed unanswered."""
    conn.settimeout(10)
    fds: list[int] = []
    try:
        if _peer_uid(conn) not in (None, os.getuid()):  # None: not told (no SO_PEERCRED); the folder is private
            return
        request, fds = relay.read_request(conn)
        if request is None:
            return
        conn.settimeout(None)
        op = request.get("op")
        if op == "stop":
            _reply(conn, {"stopped": os.getpid()})
            raise _Stop
        if op == "status":
            _reply(conn, status(daemon))
            return
        if op != "run" or not _valid_run(request):
            _reply(conn, {"local": True})
            return
        _reply(conn, {"taken": True})
        try:
            pid = answer(daemon, conn, request)
        except OSError:
            _reply(conn, {"local": True})  # e.g. the working folder is gone: the command says so itself
            return
        if pid is not None:
            daemon.running[pid] = conn  # replied to by reap once the child ends
    except (OSError, ValueError):
        return
    finally:
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        if conn not in daemon.running.values():
            conn.close()


def _reply(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(message).encode("ascii") + b"\n")
    except OSError:
        pass


def status(daemon: Daemon) -> dict[str, Any]:
    """What ``kb daemon status`` shows: process id, records folder and count, load time (s),
    questions answered, start time and resident memory (MB)."""
    held = daemon.held
    try:
        with open("/proc/self/statm") as f:
            rss_mb = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        rss_mb = 0.0
    return {"pid": os.getpid(), "records": held.key[1] if held else None, "cwd": held.key[0] if held else None,
            "count": len(held.loaded.records) if held else 0, "load_s": round(held.seconds, 2) if held else None,
            "answered": daemon.answered, "started": daemon.started, "idle_minutes": daemon.idle / 60,
            "rss_mb": round(rss_mb)}


class AlreadyRunning(Exception):
    """Another daemon holds the lock of this socket (it runs, or is starting)."""


def _bind(path: str) -> tuple[socket.socket, Any]:
    """Listen on the Unix socket ``path`` (mode 0600) while holding ``path + '.lock'``
    (:func:`fcntl.flock`, released when the process ends): a stale socket left by a killed
    daemon is replaced; raises :class:`AlreadyRunning` when the lock is held, :class:`OSError`
    when the socket cannot be made."""
    import fcntl

    lock = open(path + ".lock", "a")  # noqa: SIM115 - held for the daemon's life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise AlreadyRunning(path) from None
    if os.path.lexists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(16)
    return listener, lock


def run_server(daemon: Daemon, records: str, ready: Any) -> None:
    """Serve ``daemon`` until it is stopped or idle: bind, load ``records`` (from the working
    folder), call ``ready(message)`` with one line saying so (or why it could not start), then
    take connections one at a time (:func:`handle`), several answers being written at once
    (:func:`reap`). Removes the socket when it ends, then lets the answers begun end (:func:`drain`)."""
    try:
        listener, lock = _bind(daemon.path)
    except AlreadyRunning:
        ready(f"error: a kb daemon already serves {records} (kb daemon status shows it)")
        return
    except OSError as exc:
        ready(f"error: cannot listen on {daemon.path}: {exc.strerror or exc}")
        return
    daemon.listener, daemon.lock = listener, lock
    mine = os.stat(daemon.path).st_ino

    def stop(_signum: int, _frame: Any) -> None:
        raise _Stop

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        import kb.cli.ask  # noqa: F401 - imported once here rather than in every answering child
        import kb.queries  # noqa: F401

        t0 = time.perf_counter()
        held = fresh(daemon, os.getcwd(), records)
        count = len(held.loaded.records) if held else 0
        problems = len(held.loaded.problems) if held else 0
        ready(f"ok: kb daemon (pid {os.getpid()}) holds {count} records of {records}"
              + (f" ({problems} problems; questions report them)" if problems else "")
              + f", loaded in {time.perf_counter() - t0:.1f} s; it stops after {minutes_text(daemon.idle)} "
              "without a question, or on kb daemon stop")
        del held  # the daemon's own reference only: a reload must leave this graph to the collector
        last = time.monotonic()
        while True:
            busy = bool(daemon.running)
            steps = daemon.held is not None and bool(daemon.held.steps)
            wait = POLL if busy else 0 if steps or daemon.garbage else max(0.0, last + daemon.idle - time.monotonic())
            readable = select.select([listener, *daemon.running.values()], [], [], wait)[0]
            if busy:
                reap(daemon)
                last = time.monotonic()
            if listener in readable:
                conn, _ = listener.accept()
                handle(daemon, conn)
                last = time.monotonic()
            elif busy:
                continue  # preparing and collecting wait until no answer is being written
            elif daemon.held is not None and steps:
                prepare_step(daemon.held)  # between questions: one waiting is answered first
            elif daemon.garbage:
                collect(daemon)
            else:
                break  # idle
    except _Stop:
        pass
    finally:
        listener.close()
        try:
            if os.stat(daemon.path).st_ino == mine:
                os.unlink(daemon.path)
        except OSError:
            pass
        lock.close()  # a daemon may start at once, while the answers begun here end
        drain(daemon)


def minutes_text(seconds: float) -> str:
    """``seconds`` as minutes in words: ``1 minute``, ``2.5 minutes``."""
    minutes = seconds / 60
    return f"{minutes:g} minute{'' if minutes == 1 else 's'}"
