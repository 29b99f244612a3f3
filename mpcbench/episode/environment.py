"""The environment of one episode: everything an agent may read, and the one way to call it.

    env = Environment(con, "L2-0007")                       # mode "tools"; or ContextMode(), CodeMode()
    env.prompt        # what the agent is told first (in context mode: with every source)
    env.tools         # the tools offered: the level's catalog, none (context) or `python` (code)
    env.call("list_threads", {"project_id": "P-01"}, turn=1)   # the text the agent reads, traced
    env.close()

What an agent may read: `instance_id`, `level`, `n_given` (N where the prompt states it, levels
1-2), `task` (`propose`, or `book`: the write tools of `episode.booking` too, and `booked()` the
state they left as an answer), `request` (the instance prompt alone), `prompt` (with the booking
task's words after the request), `tools`, `functions` (the level's data
tools: offered in tools mode, callable from cells in code mode), `trace` (every call, as
tool_calls.parquet stores it, each with the raw rows it returned: `ToolCall.source_rows`) and
`prompt_rows` (the raw rows the prompt itself shows: context mode's sources). Nothing else:
the level-4 hidden facts are not part of it (see `episode.tools.HiddenFacts`).

The modes are strategies of this one class, not wrappers: each says what the prompt holds, which
tools are offered, what a call does and what closing releases (`ToolsMode`, `ContextMode` in
`episode.context`, `CodeMode` in `episode.code`; `episode.modes.make_mode` by name). Every mode reads the same data tools and traces
their calls the same way. A call the agent can fix gives an `error: ...` text (traced with its
error); a failure of ours raises `HarnessError` out of `call` and ends the episode.
"""

from __future__ import annotations

import json
import time
from typing import Protocol

import duckdb

from ..errors import HarnessError
from .booking import Overlay, booked_answer
from .contract import ToolCall, ToolSpec
from .prompts import booking_request
from .toolfiles import ToolError
from .tools import DataTools

TASKS = ("propose", "book")


class Mode(Protocol):
    """How an episode offers the sources (tools, context or code)."""
    name: str

    def open(self, env: Environment) -> None:
        """Set `env.prompt` and `env.tools` (and start what the mode needs)."""

    def call(self, env: Environment, name: str, arguments: str | dict | None, turn: int) -> str:
        """The text of a call of an offered tool (or an error text), traced in `env.trace`."""
        ...

    def close(self) -> None:
        """Release what `open` started."""


class ToolsMode:
    """The level's data tools, offered as tools."""
    name = "tools"

    def open(self, env: Environment) -> None:
        env.tools = env.functions

    def call(self, env: Environment, name: str, arguments: str | dict | None, turn: int) -> str:
        return env.call_data(name, arguments, turn=turn)

    def close(self) -> None:
        pass


class Environment:
    """One episode's environment (see the module docstring); a context manager that closes it."""

    def __init__(self, con: duckdb.DuckDBPyConnection, instance_id: str, mode: Mode | None = None,
                 task: str = "propose"):
        if task not in TASKS:
            raise ValueError(f"no task {task!r}; the tasks are {', '.join(TASKS)}")
        self.data = DataTools(con, instance_id)
        self.instance_id, self.level, self.n_given = instance_id, self.data.level, self.data.n_given
        self.task = task
        self.request: str = self.data.prompt
        self.prompt: str = self.request if task == "propose" else booking_request(self.request, self.level)
        self.writes: Overlay | None = None   # the booking task's write tools and their overlay
        try:
            self.writes = Overlay(self.data) if task == "book" else None
        except BaseException:
            self.data.close()
            raise
        self.functions: list[ToolSpec] = self.data.specs + (self.writes.specs if self.writes else [])
        self.tools: list[ToolSpec] = []
        self.trace: list[ToolCall] = []
        self.prompt_rows: tuple[str, ...] = ()   # the raw rows the prompt shows (context mode)
        self.mode: Mode = mode or ToolsMode()
        try:
            self.mode.open(self)
        except BaseException:
            self.data.close()
            raise

    def call(self, name: str, arguments: str | dict | None = None, *, turn: int = 1) -> str:
        """Call an offered tool: its text, or `error: ...` for a call the agent can fix (never
        raised); HarnessError for a failure of ours."""
        return self.mode.call(self, name, arguments, turn)

    def call_data(self, name: str, arguments: str | dict | None = None, *, turn: int = 1, via: str = "native",
                  cell: int | None = None) -> str:
        """Run one of the level's data tools and trace it (`via="code"`: a cell called it)."""
        started = time.perf_counter()
        failure = None
        rows: tuple[str, ...] = ()
        try:
            if self.writes is not None and self.writes.offers(name):
                text, error = self.writes.run(name, arguments), None
            else:
                (text, rows), error = self.data.run_traced(name, arguments), None
        except ToolError as exc:
            error = str(exc)
            text = f"error: {error}"
        except HarnessError as exc:   # traced, then the episode ends: the agent never reads it
            failure, error = exc, f"harness_error: {exc}"
            text = ""
        self.trace.append(ToolCall(turn=turn, step=len(self.trace) + 1, tool=str(name)[:200],
                                   arguments=sent_text(arguments), result=text,
                                   latency_ms=(time.perf_counter() - started) * 1000, error=error, via=via, cell=cell,
                                   source_rows=rows))
        if failure is not None:
            raise failure
        return text

    def booked(self):
        """The booking task's answer: what the episode booked and posted (None for proposing)."""
        return None if self.writes is None else booked_answer(self.writes.final)

    def refuse(self, name: str, arguments: str | dict | None, error: str, *, turn: int) -> str:
        """Trace a call of a tool this mode does not offer; the error text the agent reads."""
        self.trace.append(ToolCall(turn=turn, step=len(self.trace) + 1, tool=str(name)[:200],
                                   arguments=sent_text(arguments), result=f"error: {error}", latency_ms=0.0,
                                   error=error))
        return f"error: {error}"

    def close(self) -> None:
        try:
            self.mode.close()
        finally:
            self.data.close()

    def __enter__(self) -> Environment:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def sent_text(arguments: str | dict | None) -> str:
    """The arguments as the trace keeps them: the JSON text the agent sent."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps({} if arguments is None else arguments, ensure_ascii=False, default=repr)
