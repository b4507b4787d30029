"""Hands a question to a running ``kb daemon`` (:mod:`kb.cli.daemon`), which keeps the records loaded.

``kb check``, ``kb roots``, ``kb why``, ``kb unblocks`` and ``kb graph`` first look for a daemon serving their
records folder with this very kb (:func:`socket_path`). When one answers, the command's
arguments, working folder and environment go to it over a Unix socket together with the
command's own standard input, output and error (passed as file descriptors, ``SCM_RIGHTS``), so
the answer is written by the daemon straight to the terminal or pipe the command was given; the
exit code comes back. When none answers, or the daemon says it cannot, the command runs here as
it always does: the daemon only saves time. ``KB_DAEMON=off`` never asks one.

This module runs before anything else of the command and imports only the standard library's
light parts: a question a daemon answers costs this process about 30 ms.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any

QUERIES = frozenset({"check", "roots", "why", "unblocks", "graph"})
"""The commands a daemon answers: they read the records and write none (``kb check`` keeps its
report and line maps in the cache folder, as it does on its own)."""

PROTOCOL = 2
"""The version of the messages: a request; the daemon's ``taken`` (or ``local``: answer it
yourself); the command's one byte ``g`` (go) with its standard input, output and error attached
(``SCM_RIGHTS``); the daemon's ``exit`` code. A daemon refuses another."""

REQUEST_LIMIT = 4 << 20
"""Largest request a daemon accepts (bytes): arguments and environment."""

OFF_VALUES = frozenset({"0", "off", "false", "no"})
"""Values of ``$KB_DAEMON`` that keep every command in its own process."""


def records_of(args: list[str]) -> str | None:
    """The records folder a command line (``sys.argv[1:]``) asks a question about, or ``None``
    when it is not one of :data:`QUERIES` or its group options are not simply ``--records X``
    (anything unusual runs in the command's own process, which parses it fully). The folder is
    ``--records``, else ``$KB_RECORDS``, else ``records``, as the ``kb`` group reads it."""
    records = os.environ.get("KB_RECORDS", "records")
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "--records" and i + 1 < len(args):
            records, i = args[i + 1], i + 2
        elif args[i].startswith("--records="):
            records, i = args[i].partition("=")[2], i + 1
        else:
            return None
    return records if i < len(args) and args[i] in QUERIES and records else None


_identity: str | None = None


def code_identity() -> str:
    """32 hex digits naming this kb as a daemon must match it: Python's version and executable,
    kb's folder, the import path past its first entry (``$PYTHONPATH``, site folders: what else
    imports, and catalogs named ``package:folder``, are found through), the path, size and
    modification time of each of kb's ``.py`` files, and the installed distributions
    (``*.dist-info`` names, which carry versions) on ``sys.path``. Reads no file (about 2 ms); a kb
    edited or upgraded, or run with another ``$PYTHONPATH``, gets another identity, hence another
    daemon. The first entry (the console script's folder, or the working folder under ``python -m``)
    is left out, so that both ways of running kb share a daemon."""
    global _identity
    if _identity is None:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256(f"{PROTOCOL}\0{sys.version}\0{sys.executable}\0{package}".encode("utf-8", "surrogateescape"))
        h.update("\0".join(["", *(os.path.abspath(p) if os.path.isdir(p) else p for p in sys.path[1:])]).encode("utf-8", "surrogateescape"))
        for folder, dirs, files in os.walk(package):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    try:
                        st = os.stat(path)
                        h.update(f"\0{path}\0{st.st_size}\0{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
                    except OSError:
                        h.update(f"\0{path}\0!".encode("utf-8", "surrogateescape"))
        for entry in sys.path:
            if entry.endswith(("site-packages", "dist-packages")):
                try:
                    names = sorted(n for n in os.listdir(entry) if n.endswith(".dist-info"))
                except OSError:
                    continue
                h.update("\0".join([entry, *names]).encode("utf-8", "surrogateescape"))
        _identity = h.hexdigest()[:32]
    return _identity


def socket_folder(create: bool = False) -> str | None:
    """The folder of this user's daemon sockets: ``$XDG_RUNTIME_DIR/kb``, else ``$TMPDIR`` (or
    ``/tmp``) ``/kb-<uid>``; ``None`` when it is missing (and not ``create``d), or is not a real
    folder owned by this user that nobody else may enter (then no daemon is used or started: a
    socket there could belong to someone else). Created with mode 0700 when ``create``."""
    if not hasattr(os, "getuid"):
        return None
    folder = socket_folder_path()
    try:
        if create and not os.path.lexists(folder):
            os.mkdir(folder, 0o700)
        st = os.lstat(folder)
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder


def socket_folder_path() -> str:
    """Where :func:`socket_folder` looks, unchecked: ``$XDG_RUNTIME_DIR/kb`` when that folder
    exists, else ``$TMPDIR`` (or ``/tmp``) ``/kb-<uid>``."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "kb")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"kb-{os.getuid()}")  # noqa: S108 - checked by the caller


def records_tag(records: str) -> str:
    """16 hex digits naming the records folder ``records`` (its real path) among the sockets."""
    return hashlib.sha256(os.fsencode(os.path.realpath(records))).hexdigest()[:16]


def socket_path(records: str, create: bool = False) -> str | None:
    """The socket of the daemon serving ``records`` with this kb: ``<folder>/<records tag>-<first
    16 of the code identity>.sock`` in :func:`socket_folder` (``None`` where there is none)."""
    folder = socket_folder(create)
    return None if folder is None else os.path.join(folder, f"{records_tag(records)}-{code_identity()[:16]}.sock")


def send_request(sock: Any, message: dict[str, Any], fds: list[int] | None = None) -> None:
    """Send ``message`` (JSON) on the connected Unix socket ``sock``, 8 bytes of length first, with
    ``fds`` attached to the first byte. Raises :class:`OSError` as the socket does."""
    import socket

    data = json.dumps(message).encode("ascii")
    payload = len(data).to_bytes(8, "big") + data
    sent = socket.send_fds(sock, [payload], fds) if fds else sock.send(payload)
    if sent < len(payload):
        sock.sendall(payload[sent:])


def read_request(conn: Any) -> tuple[dict[str, Any] | None, list[int]]:
    """The request :func:`send_request` sent on ``conn`` (a daemon's end) and the file descriptors
    sent with it; ``(None, fds)`` for a message that is not one (longer than :data:`REQUEST_LIMIT`,
    not JSON, cut short, another :data:`PROTOCOL`). Raises :class:`OSError` as the socket does."""
    import socket

    data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
    if len(data) < 8:
        return None, fds
    size = int.from_bytes(data[:8], "big")
    if size > REQUEST_LIMIT:
        return None, fds
    body = data[8:]
    while len(body) < size:
        chunk = conn.recv(min(65536, size - len(body)))
        if not chunk:
            return None, fds
        body += chunk
    try:
        request = json.loads(body)
    except ValueError:
        return None, fds
    return (request if isinstance(request, dict) and request.get("protocol") == PROTOCOL else None), fds


def read_reply(sock: Any, pending: bytearray | None = None) -> dict[str, Any] | None:
    """The next one-line JSON reply read from ``sock`` (a dict), or ``None`` when the connection
    ended first or the line is not such a reply. ``pending``: bytes read past the last line,
    kept there between calls. Raises :class:`OSError` (:class:`TimeoutError` too) as the socket does."""
    data = pending if pending is not None else bytearray()
    while b"\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    line, _, rest = bytes(data).partition(b"\n")
    data[:] = rest
    try:
        reply = json.loads(line)
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


TAKEN_S = 10.0
"""Seconds a command waits for a daemon to take its question (a daemon busy loading a large
campaign, or stopped with SIGSTOP, does not): past that the command answers it itself, and the
daemon, told nothing more, never answers it. ``$KB_DAEMON_WAIT`` overrides it."""


def _taken_s() -> float:
    try:
        return max(0.01, float(os.environ.get("KB_DAEMON_WAIT", "") or TAKEN_S))
    except ValueError:
        return TAKEN_S


def relay(args: list[str]) -> int | None:
    """Have a running daemon answer the command line ``args`` (``sys.argv[1:]``): its exit code,
    or ``None`` when this process must answer it itself (not a question, ``$KB_DAEMON`` off, no
    daemon for these records and this kb, or the daemon declined before writing anything).

    A daemon that does not take the question within :data:`TAKEN_S` is left (the question is
    answered here). Once told to go, the daemon writes to this process's output itself; if it
    ends without saying how the command ended, this says so on stderr and returns 1 (running the
    question again here could print part of an answer twice). Ctrl-C while waiting ends the
    answer in the daemon too, and says ``Aborted!`` and returns 1 as the command does alone."""
    if os.environ.get("KB_DAEMON", "").strip().lower() in OFF_VALUES:
        return None
    records = records_of(args)
    if records is None:
        return None
    path = socket_path(records)
    if path is None or not os.path.exists(path):
        return None
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    streams = [[getattr(s, "encoding", None) or "utf-8", getattr(s, "errors", None) or "strict"]
               for s in (sys.stdout, sys.stderr)]
    try:
        try:
            sock.connect(path)
            send_request(sock, {"protocol": PROTOCOL, "op": "run", "argv": args, "cwd": os.getcwd(),
                                "records": records, "env": dict(os.environ), "streams": streams})
        except OSError:
            return None  # nobody listening (a stale socket), or it went away before taking the question
        pending = bytearray()
        try:
            sock.settimeout(_taken_s())
            taken = read_reply(sock, pending)
            if taken is None or taken.get("taken") is not True:
                return None  # declined (or gone) before anything was written: answered here
            socket.send_fds(sock, [b"g"], [0, 1, 2])  # go, with the streams: the daemon writes the answer, this waits
            sock.settimeout(None)
        except OSError:
            return None  # not taken in time: answered here; the daemon, never told to go, writes nothing
        try:
            reply = read_reply(sock, pending)
        except OSError:
            reply = None
    except KeyboardInterrupt:  # said and coded as the command itself says it (click): a blank line, then Aborted!
        print("\nAborted!", file=sys.stderr)
        return 1
    finally:
        sock.close()
    if reply is not None and reply.get("local") is True:
        return None
    code = reply.get("exit") if reply is not None else None
    if type(code) is not int:
        print("kb: the kb daemon ended without saying how the command ended; "
              "run it again (KB_DAEMON=off runs it without the daemon)", file=sys.stderr)
        return 1
    return code
