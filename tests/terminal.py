"""A process on a pseudo-terminal, for tests of kb's interactive commands (`kb log`, `kb review`)."""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import termios
import time


def _own_terminal() -> None:
    """In the child, after its new session began: make the pseudo-terminal (its stdin) the
    session's controlling terminal, so that Ctrl-C typed there is a SIGINT, as on a real one."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A process attached to a pseudo-terminal; :meth:`expect` reads until a text appears,
    :meth:`send` types a line, :meth:`press` types keys without Enter."""

    def __init__(self, args: list[str], cwd: str, env: dict[str, str] | None = None):
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, close_fds=True,
                                     env={**os.environ, "COLUMNS": "200", "TERM": "dumb", **(env or {})},
                                     start_new_session=True, preexec_fn=_own_terminal)
        os.close(slave)
        self.seen = ""
        self.pos = 0

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Read until ``text`` appears after the end of the previous match (as pexpect does, so
        that a prompt shown twice is waited for twice); return everything seen so far."""
        deadline = time.monotonic() + timeout
        while text not in self.seen[self.pos:]:
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting for {text!r}; screen so far:\n{self.seen}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the process closed the terminal
                    chunk = b""
                if not chunk:
                    assert text in self.seen, f"process ended before {text!r}:\n{self.seen}"
                self.seen += chunk.decode("utf-8", "replace")
        self.pos = self.seen.index(text, self.pos) + len(text)
        return self.seen

    def wait_blocked(self, timeout: float = 10.0) -> None:
        """Wait until the process sleeps in the kernel (Linux: state ``S`` in ``/proc``), i.e. it
        waits for input. A SIGINT sent while it is still on its way to the read would set
        Python's flag too late for that read, which then blocks (a race of any blocking read);
        a person never types that fast."""
        stat = f"/proc/{self.proc.pid}/stat"
        deadline = time.monotonic() + timeout
        while os.path.exists(stat) and time.monotonic() < deadline:
            with open(stat, encoding="ascii") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "S":
                    return
            time.sleep(0.02)

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        """Wait for the process to end (killed after 30 s) and return its exit status."""
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            os.close(self.master)
