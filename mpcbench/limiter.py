"""How many model calls are in flight at once: a limit that adapts to what the server can take
(AIMD, as TCP does). A local model server with one slot queues what it cannot serve, and every
queued call then waits past its timeout; the limit halves on such a timeout (when other calls
were in flight) and on an HTTP 429, and grows by one after as many successes in a row as the
limit. One decrease per window: a call that began before the last decrease cannot lower the limit
again, so a burst of timeouts from one crowded moment halves it once.

    limit = AdaptiveLimit(8, note=print)
    async with limit.slot() as ticket:        # waits while `limit.limit` calls are in flight
        ...                                   # ticket.others: calls in flight beside this one (start or end)
    limit.overloaded(ticket, "a call timed out")   # halves (once per window) and notes it
    limit.succeeded()
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator, Callable


@dataclass
class Ticket:
    epoch: int        # the limit's window when the call got its slot
    others: int = 0   # calls in flight beside this one when it began or when it ended, whichever were more


class AdaptiveLimit:
    def __init__(self, maximum: int, start: int | None = None, note: Callable[[str], None] | None = None):
        self.maximum = max(1, maximum)
        self.limit = max(1, min(self.maximum, start or self.maximum))
        self.in_flight = 0
        self.epoch = 0
        self.streak = 0
        self.note = note or (lambda message: None)
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Ticket]:
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1
        # the calls already in flight are ahead of this one in a one-slot server's queue: it may
        # time out waiting for them after they have all ended, and it still waited in the queue
        ticket = Ticket(self.epoch, self.in_flight - 1)
        try:
            yield ticket
        finally:
            ticket.others = max(ticket.others, self.in_flight - 1)
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    def overloaded(self, ticket: Ticket, what: str) -> None:
        """Halve the limit, unless it is 1 or this call began before the last decrease."""
        if ticket.epoch != self.epoch or self.limit == 1:
            return
        before, self.limit = self.limit, self.limit // 2
        self.epoch, self.streak = self.epoch + 1, 0
        self.note(f"{what} with {ticket.others + 1} model calls in flight (the server queues what it cannot "
                  f"serve): model calls now run at most {self.limit} at a time, not {before}; "
                  f"pass --concurrency {self.limit} or give the server more parallel slots")

    def succeeded(self) -> None:
        """A run of `limit` successes adds one back, up to the maximum."""
        self.streak += 1
        if self.streak >= self.limit and self.limit < self.maximum:
            self.limit, self.streak = self.limit + 1, 0
