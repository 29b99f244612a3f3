"""Ctrl-C at any moment of a command: exit status 130 and one line, never a traceback.

Three stages, each with its own handling of SIGINT:

- starting (`mpcbench.__main__`, before the command line's libraries are imported, which takes
  seconds on a busy machine): its handler prints that nothing was saved and exits;
- running (`watch`, installed once the CLI is loaded): the handler notes the press and raises
  KeyboardInterrupt as Python's own does. Whatever then surfaces, a KeyboardInterrupt or an
  error it caused on the way (DuckDB reports an interrupted query as its own error), is the
  interrupt (`is_interrupt`): the command says what was saved and exits 130 (cli.Commands).
  An event loop (`run_async`) is handled as asyncio handles it instead: the press cancels the
  main task, every task's cleanup runs, and KeyboardInterrupt is raised after (raised inside one
  task, it would leave the others' errors, or a coroutine never awaited, to be printed at exit);
- leaving: once the line is said, a second press must not add a traceback (`leaving`).
"""

from __future__ import annotations

import asyncio
import signal
import warnings
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar
from types import FrameType

EXIT_STATUS = 130
WHILE_STARTING = "interrupted while starting; nothing was saved"   # a press before a command runs
_pressed = False
T = TypeVar("T")


def _note_and_raise(signum: int, frame: FrameType | None) -> None:
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


def watch() -> None:
    """From now on a press is noted, then raised as KeyboardInterrupt (main thread only)."""
    signal.signal(signal.SIGINT, _note_and_raise)


def _note(signum: int, frame: FrameType | None) -> None:
    global _pressed
    _pressed = True


def run_async(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`asyncio.run(make())`, where Ctrl-C cancels the main task (as asyncio's own handling does:
    every task's cleanup runs) and is raised as KeyboardInterrupt once the loop is closed. While
    the loop is made and closed a press is only noted: nothing is left half built, and no
    coroutine is made before the loop that runs it exists."""
    before = signal.signal(signal.SIGINT, _note)
    try:
        with asyncio.Runner() as runner:
            loop = runner.get_loop()
            task = loop.create_task(make())

            def cancel(signum: int, frame: FrameType | None) -> None:
                _note(signum, frame)
                task.cancel()
                loop.call_soon_threadsafe(lambda: None)   # wakes the loop

            signal.signal(signal.SIGINT, cancel)
            if _pressed:
                task.cancel()
            try:
                result = loop.run_until_complete(task)
            except asyncio.CancelledError:
                if not _pressed:
                    raise
            finally:
                signal.signal(signal.SIGINT, _note)
        if _pressed:
            raise KeyboardInterrupt
        return result
    finally:
        signal.signal(signal.SIGINT, before)


def is_interrupt(error: BaseException) -> bool:
    """Whether `error` is Ctrl-C or what it caused: a KeyboardInterrupt, or any error raised
    after a press (DuckDB's interrupted query, a closed connection, ...)."""
    return _pressed or isinstance(error, KeyboardInterrupt)


def leaving() -> None:
    """The one line is being said, or the command is over: later presses are ignored, so none
    adds a traceback or changes the exit status. After a press, a library's coroutine that the
    press cancelled before it started (an HTTP client's connection attempt) is not reported as
    never awaited when Python collects it at exit: it would follow the one line."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _pressed:
        warnings.filterwarnings("ignore", r"coroutine .* was never awaited", RuntimeWarning)
