"""What the reliability tests actually did, for the summary printed at the end of the run.

The adversarial corpus, the concurrency test and the kill tests record here what they tried;
``tests/conftest.py`` prints it (``pytest_terminal_summary``)::

    kb reliability: 99 kinds of bad input tried (86 rejected with a located message, 13 accepted),
    20 concurrent writers, 10 kills survived, 0 records lost

Counts only what ran: with ``-k`` selecting a few tests the numbers are smaller.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stats:
    """Counters of one test run. ``kinds``: case name → ``True`` if kb rejected it with a
    located message, ``False`` if it accepted it (a BOM, CRLF, a log with a truncated last line)."""

    kinds: dict[str, bool] = field(default_factory=dict)
    concurrent_writers: int = 0
    kills: int = 0
    records_lost: int = 0

    def tried(self, name: str, *, rejected: bool) -> None:
        """Record that the bad-input case ``name`` was run and passed."""
        self.kinds[name] = rejected

    def writers(self, n: int) -> None:
        """Record a run of ``n`` concurrent writers (the largest run is reported)."""
        self.concurrent_writers = max(self.concurrent_writers, n)

    def killed(self, lost: int = 0) -> None:
        """Record one writer killed with SIGKILL and checked afterwards; ``lost``: records it had
        reported written that were missing or invalid afterwards."""
        self.kills += 1
        self.records_lost += lost

    def lost(self, n: int) -> None:
        """Add ``n`` records that a test expected and did not find intact."""
        self.records_lost += n

    def summary(self) -> str | None:
        """The one-line summary, or ``None`` when no reliability test ran."""
        if not (self.kinds or self.concurrent_writers or self.kills):
            return None
        rejected = sum(self.kinds.values())
        return (f"kb reliability: {len(self.kinds)} kinds of bad input tried "
                f"({rejected} rejected with a located message, {len(self.kinds) - rejected} accepted), "
                f"{self.concurrent_writers} concurrent writers, {self.kills} kills survived, "
                f"{self.records_lost} records lost")


STATS = Stats()
"""The run's counters (one pytest process, one instance)."""
