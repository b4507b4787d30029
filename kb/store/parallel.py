"""Parsing many record files at once on several CPU cores, ahead of a load.

Parsing and validating is most of a cold load (at 10,000 attempts about 1 s of a 2 s ``kb
check``, measured in ``bench/bench_scale.py``), and each file is parsed on its own. When a load
finds at least :data:`MIN_FILES` files without a cache entry, :func:`parse_ahead` forks worker
processes (POSIX ``fork``: the workers share the parent's memory, so nothing is sent to them);
each takes the files of its own run of cache shards (:func:`kb.store.cache.shard_of`; the
parent keeps a larger run, :func:`_owners`), reads, parses and validates them exactly as the load does, writes its
shards of the record cache, and sends back only the line maps of the files it parsed. The parent
parses its own share meanwhile, then reads the workers' shards back as any cache is read. The load
that follows then finds every file in the cache and runs exactly as after a warm start: same
records, same problems, same order.

Nothing is trusted that the load would not trust: a worker's entries are used only when their
SHA-256 matches the bytes the load reads, so a worker that failed, wrote nothing (read-only cache
folder) or saw another version of a file only costs time, and the load parses those files itself.

Used only where it is safe and pays: on Linux (``os.fork`` in a process with no other thread: a
thread holding a lock at the fork would leave the worker stuck), with ``SIGCHLD`` left to its
default (ignored, inherited from whatever started kb, the kernel reaps the workers itself and they
cannot be waited for), with the record cache on (the
workers hand their records over through it), two or more CPUs usable, and ``$KB_JOBS`` not set
to ``1``. ``$KB_JOBS`` sets the number of processes (parent included); the default is the number
of CPUs this process may use, at most :data:`MAX_WORKERS`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import signal
import sys
import threading
from typing import Any, Callable, Mapping, NamedTuple

from kb.store.cache import RecordCache, read_entries, shard_of, shard_path

MIN_FILES = 1_000
"""Fewest files without a cache entry for which workers are started: below it, parsing
(about 0.1 ms a file) costs less than starting a worker and reading its shards back."""

MAX_WORKERS = 4
"""Most processes used by default (parent included); ``$KB_JOBS`` may ask for more."""


class Job(NamedTuple):
    """One record file to load: its kind ``folder`` (``attempts``), the directory ``entry`` it
    was listed as, its path ``rel`` as shown in problems and its ``stem`` (the id). A named
    tuple: one is made per record file on every load (a frozen dataclass cost twice as much)."""

    folder: str
    entry: os.DirEntry[str]
    rel: str
    stem: str


Parsed = tuple[Any, Any, list[Any]]
"""What parsing one file gives: ``(record or None, kb.yamldoc.Document or None, problems)``."""


def workers(env: Mapping[str, str] | None = None) -> int:
    """Processes to parse with (parent included): ``$KB_JOBS`` when it is a positive integer,
    else the CPUs this process may use, at most :data:`MAX_WORKERS`; ``1`` where ``fork`` is not
    safe or not there (not Linux). A ``$KB_JOBS`` that is not a positive integer is ignored."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return 1
    asked = (os.environ if env is None else env).get("KB_JOBS", "").strip()
    if asked.isdecimal() and int(asked) > 0:  # not isdigit: int("²") raises
        return int(asked)
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


def parse_ahead(jobs: list[Job], cache: RecordCache, read: Callable[[Job], bytes],
                parse: Callable[[bytes, Job], Parsed]) -> dict[str, tuple[bytes, Any]]:
    """Parse the files of ``jobs`` that ``cache`` has no entry for, spread over :func:`workers`
    processes, and put what each gave into ``cache`` (see the module docstring).

    ``read(job)``: the file's bytes, raising :class:`kb.errors.RecordError` when it cannot be
    read (the load reports it; here the file is only skipped); ``parse(data, job)``: what
    parsing gives, never raising for bad text. Returns ``{rel: (sha256 digest, document)}`` for
    every file parsed here or by a worker (a worker's documents carry only their line maps):
    the load takes a record's line map from there when the digest is that of the bytes it read.
    Returns ``{}`` and does nothing when it would not pay or is not safe."""
    n = min(workers(), len(cache.old))  # a worker takes whole shards
    if (n < 2 or cache.path is None or threading.active_count() != 1
            or signal.getsignal(signal.SIGCHLD) != signal.SIG_DFL  # ignored or handled: waitpid fails
            or len(jobs) - sum(map(len, cache.old)) < MIN_FILES):
        return {}
    owner = _owners(len(cache.old), n)
    mine: list[list[Job]] = [[] for _ in range(n)]
    for job in jobs:
        mine[owner[shard_of(job.rel)]].append(job)
    started: list[tuple[int, int]] = []  # (pid, read end of its pipe) of each worker
    docs = {}
    error: BaseException | None = None
    try:
        for k in range(1, n):
            # SIGINT (Ctrl-C) is held back until the worker is set off and noted: one landing in
            # the worker before it is under way would raise KeyboardInterrupt there and run the
            # parent's code (its output), one in the parent before then would leave it unreaped
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                r, w = os.pipe()
            except OSError:  # out of file descriptors: the processes started do the work, the load the rest
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                break
            try:
                pid = os.fork()
            except OSError:
                pid = -1
            if pid == 0:  # the worker: never returns
                try:
                    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
                        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a Ctrl-C ends a worker at once, quietly
                    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                    os.close(r)
                    _work(mine[k], cache, read, parse, [s for s, o in enumerate(owner) if o == k], w)
                finally:
                    os._exit(1)
            os.close(w)
            if pid > 0:
                started.append((pid, r))
            else:
                os.close(r)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if pid < 0:
                break
        for job, digest, doc in _parse(mine[0], cache, read, parse):
            docs[job.rel] = (digest, doc)
    except BaseException as exc:  # noqa: BLE001 - Ctrl-C, or a failure: the workers are ended first, then it goes on up
        error = exc
    for pid, r in started:
        try:
            docs.update(_collect(cache, pid, r, end=error is not None))
        except BaseException as exc:  # noqa: BLE001 - a Ctrl-C while waiting: that worker was ended, so are the others
            error = error or exc
    if error is not None:
        raise error
    return docs


PARENT_WEIGHT = 1.5
"""The parent's share of the shards against a worker's 1. A worker also pickles and writes its
shards and its line maps, and the parent then reads those shards back (about a fifth of what
parsing them cost); with this weight both end about together (measured at 10,000 attempts on
2 cores: 1.2 left the parent waiting 0.12 s, 1.5 about 0.02 s)."""


def _owners(shards: int, n: int) -> list[int]:
    """Which process takes each shard (0: the parent, 1 to ``n - 1``: the workers), in runs:
    the parent the first ``PARENT_WEIGHT / (PARENT_WEIGHT + n - 1)`` of them, the rest shared
    evenly. ``_owners(32, 2)`` gives 19 shards to the parent and 13 to the worker."""
    first = round(shards * PARENT_WEIGHT / (PARENT_WEIGHT + n - 1))
    rest = shards - first
    return [0] * first + [1 + (i * (n - 1)) // rest for i in range(rest)]


def _parse(jobs: list[Job], cache: RecordCache, read: Callable[[Job], bytes],
           parse: Callable[[bytes, Job], Parsed]) -> Any:
    """Yield ``(job, digest, document)`` for each file of ``jobs`` parsed (no cache entry for
    its bytes), after putting what it gave into ``cache``; files that cannot be read are left
    to the load."""
    from kb.errors import RecordError

    sha256 = hashlib.sha256
    for job in jobs:
        try:
            data = read(job)
        except RecordError:
            continue
        digest = sha256(data).digest()
        if cache.get(job.rel, digest) is not None:
            continue
        record, doc, found = parse(data, job)
        cache.put(job.rel, digest, record, found)
        yield job, digest, doc


def _work(jobs: list[Job], cache: RecordCache, read: Callable[[Job], bytes],
          parse: Callable[[bytes, Job], Parsed], shards: list[int], w: int) -> None:
    """A worker's whole life: parse ``jobs``, write ``shards`` of the cache, send the parent
    ``(shards written, {rel: (digest, line map)})`` pickled on the pipe ``w``, and exit without
    running the parent's exit handlers or flushing its buffers (``os._exit``): 0 when all of it
    was done, 1 on any error (the parent then parses what is missing itself)."""
    code = 1
    try:
        lines = {job.rel: (digest, doc.lines) for job, digest, doc in _parse(jobs, cache, read, parse)
                 if doc is not None}
        written = cache.save(shards)
        payload = pickle.dumps((written, lines), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(payload)
        while view:
            view = view[os.write(w, view):]
        code = 0
    except BaseException:  # noqa: BLE001, S110 - anything at all: the parent falls back to parsing
        pass
    finally:
        os._exit(code)


def _collect(cache: RecordCache, pid: int, r: int, end: bool = False) -> dict[str, tuple[bytes, Any]]:
    """Wait for the worker ``pid`` (its pipe's read end ``r``), read back the shards it wrote
    into ``cache``'s entries and return its line maps as documents; ``{}`` when it failed. With
    ``end`` (the load was interrupted), or when interrupted here, the worker is killed instead of
    waited for; either way its pipe is closed and it is reaped (no zombie left)."""
    from kb.store.lines import _NoGlobals
    from kb.yamldoc import Document

    chunks = []
    finished = False
    try:
        while not end and (chunk := os.read(r, 1 << 20)):
            chunks.append(chunk)
        finished = not end
    finally:
        os.close(r)
        if not finished:  # not wanted any more, or interrupted while reading: killed, not waited for
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not finished or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return {}
    try:
        written, lines = _NoGlobals(io.BytesIO(b"".join(chunks))).load()
    except Exception:  # noqa: BLE001 - a worker that sent something else: parse its files here
        return {}
    if cache.path is None:
        return {}
    for n in written:
        cache.old[n] = read_entries(shard_path(cache.path, n))
    return {rel: (digest, Document(None, m)) for rel, (digest, m) in lines.items()}
