"""Code mode: one `python` tool whose cells call the level's data tools as functions.

    env = Environment(con, "L2-0007", CodeMode(timeout_s=30))
    env.tools                                  # [python]: one argument, `code`
    env.call("python", {"code": "print(get_current_time())"})   # the cell's output
    env.close()                                # the sandbox is gone

Each episode owns one sandboxed, persistent Python worker (`mpcbench.sandbox.CodeWorker`,
started at the first cell): state is kept from cell to cell, and every data tool of the level is
a function with the native tool's name and arguments that returns exactly the text the native
call returns. Those calls run through the environment's data tools (validated the same way) and
are traced like native calls, with `via="code"` and `cell` = the number of the cell that made
them; the `python` call itself is traced after them (`via="native"`, the same `cell`), with the
cell's output as its result. At most `max_tool_calls` calls from code per episode.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from ..sandbox import CodeWorker, ToolFunction
from .contract import ToolCall, ToolSpec

if TYPE_CHECKING:
    from .environment import Environment

PYTHON_TOOL = "python"
PYTHON_SPEC = ToolSpec(
    PYTHON_TOOL,
    "Run Python code in a persistent sandboxed interpreter (variables, imports and definitions are kept "
    "from call to call; standard library only; no network, no files but /tmp). Every data tool is "
    "already defined in it as a function with the tool's name and arguments that returns the tool's "
    "text, e.g. get_busy_intervals(person_id='p-004', start_date='2026-03-02', end_date='2026-03-06'). "
    "Returns what the code prints (and the value of a last expression), cut at 2,000 characters.",
    {"type": "object", "properties": {"code": {"type": "string", "description": "Python source to run"}},
     "required": ["code"], "additionalProperties": False})
MAX_CODE_TOOL_CALLS = 1000


def tool_functions(specs: list[ToolSpec]) -> list[ToolFunction]:
    """The level's data tools as functions of the worker."""
    return [ToolFunction(spec.name, spec.parameters, spec.description) for spec in specs]


class CodeMode:
    """Code mode (a strategy of `episode.environment.Environment`): one `python` tool; the worker
    starts at the first cell."""
    name = "code"

    def __init__(self, *, timeout_s: float = 30.0, max_tool_calls: int = MAX_CODE_TOOL_CALLS):
        self.timeout_s, self.max_tool_calls = timeout_s, max_tool_calls
        self.cells = 0
        self.worker: CodeWorker | None = None
        self._turn = 1                       # the turn of the cell running now (its tool calls' turn)

    def open(self, env: Environment) -> None:
        env.tools = [PYTHON_SPEC]

        def call_from_code(name: str, arguments: dict) -> str:
            return env.call_data(name, arguments, turn=self._turn, via="code", cell=self.cells)

        self.worker = CodeWorker(tool_functions(env.functions), call_from_code, timeout_s=self.timeout_s,
                                 max_tool_calls=self.max_tool_calls)

    def call(self, env: Environment, name: str, arguments: str | dict | None, turn: int) -> str:
        if name == PYTHON_TOOL:
            code, error = _code_argument(arguments)
            if error is None:
                return self.run_cell(env, code, turn=turn, arguments=arguments)
        else:
            error = (f"there is no tool named {str(name)[:60]!r} here: call the data tools as functions inside "
                     f"`{PYTHON_TOOL}`")
        return env.refuse(name, arguments, error, turn=turn)

    def run_cell(self, env: Environment, code: str, *, turn: int = 1, arguments: str | dict | None = None) -> str:
        """Run one cell and trace it; the output the agent reads."""
        assert self.worker is not None, "open() starts the worker"
        self.cells += 1
        self._turn = turn
        started = time.perf_counter()
        result = self.worker.run_cell(code)
        sent = arguments if isinstance(arguments, str) else json.dumps({"code": code}, ensure_ascii=False)
        env.trace.append(ToolCall(turn=turn, step=len(env.trace) + 1, tool=PYTHON_TOOL, arguments=sent,
                                  result=result.output, latency_ms=(time.perf_counter() - started) * 1000,
                                  error="timeout" if result.timed_out else None, via="native", cell=self.cells))
        return result.output

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


def _code_argument(arguments: str | dict | None) -> tuple[str, str | None]:
    """(code, None) or ("", the error text)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return "", f"the arguments of {PYTHON_TOOL} are not JSON; send {{\"code\": \"...\"}}"
    if not isinstance(arguments, dict) or not isinstance(arguments.get("code"), str) or set(arguments) != {"code"}:
        return "", f"{PYTHON_TOOL} takes one argument, code (a string)"
    return arguments["code"], None
