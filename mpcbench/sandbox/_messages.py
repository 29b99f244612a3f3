"""What the agent reads: a cell's output, capped, and the notice when its worker was stopped."""

from __future__ import annotations

import signal

from ._bwrap import Limits

LOST = "variables, imports and files from earlier cells are lost"


class CappedOutput:
    """The head of a cell's output, bounded while it is read, and how much there was."""

    def __init__(self, max_chars: int):
        self.max_chars, self.keep = max_chars, 4 * max_chars + 4
        self.head, self.total = bytearray(), 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        if len(self.head) < self.keep:
            self.head += data[:self.keep - len(self.head)]

    def text(self) -> str:
        text = self.head.decode("utf-8", errors="replace")
        if len(text) <= self.max_chars and self.total == len(self.head):
            return text
        return (f"{text[:self.max_chars]}\n[output truncated: showing the first {self.max_chars:,} "
                f"characters of {self.total:,} bytes]")


def notice(outcome: str, returncode: int | None, timeout_s: float, limits: Limits) -> str:
    """What the agent reads when its worker was stopped or died during a cell."""
    if outcome == "timeout":
        why = f"the cell ran past the {timeout_s:g} s time limit and was stopped"
    elif outcome == "broken":
        why = "the cell wrote malformed data to the tool channel"
    elif returncode is None:
        why = "the cell closed the tool channel"
    elif returncode == 128 + signal.SIGKILL:
        why = f"the worker was killed (SIGKILL), as at its CPU-time limit of {limits.cpu_seconds} s"
    elif returncode > 128 and returncode - 128 in signal.valid_signals():
        why = f"the worker was killed ({signal.Signals(returncode - 128).name})"
    else:
        why = f"the worker exited (status {returncode})"
    return f"[{why}; the Python worker was restarted: {LOST}]"
