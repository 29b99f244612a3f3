"""Code mode: one `python` tool whose cells call the level's data tools as functions.

    env = CodeEnvironment(ToolEnvironment(con, "L2-0007"), timeout_s=30)
    env.tools                                  # [python]: one argument, `code`
    env.call("python", {"code": "print(get_current_time())"})   # the cell's output
    env.close()                                # the sandbox is gone

Each episode owns one sandboxed, persistent Python worker (`mpcbench.sandbox.CodeWorker`,
started at the first cell): state is kept from cell to cell, and every data tool of the level is
a function with the native tool's name and arguments that returns exactly the text the native
call returns. Those calls run through the inner ToolEnvironment (validated the same way) and
are traced like native calls, with `via="code"` and `cell` = the number of the cell that made
them; the `python` call itself is traced after them (`via="native"`, the same `cell`), with the
cell's output as its result. At most `max_tool_calls` calls from code per episode.
"""

from __future__ import annotations

import json
import time

from ..sandbox import CodeWorker, ToolFunction
from .answers import SUBMIT_TOOL_NAME
from .contract import ToolCall, ToolSpec
from .tools import ToolEnvironment

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


def tool_functions(env: ToolEnvironment) -> list[ToolFunction]:
    """The level's data tools as functions of the worker."""
    return [ToolFunction(spec.name, spec.parameters, spec.description) for spec in env.tools]


class CodeEnvironment:
    """An environment for code mode (implements episode.contract.Environment)."""

    def __init__(self, inner: ToolEnvironment, *, timeout_s: float = 30.0,
                 max_tool_calls: int = MAX_CODE_TOOL_CALLS):
        self.inner = inner
        self.instance_id, self.level = inner.instance_id, inner.level
        self.prompt, self.request = inner.prompt, inner.request
        self.tools: list[ToolSpec] = [PYTHON_SPEC]
        self.functions = inner.tools                  # what the cells can call
        self.hidden_facts = inner.hidden_facts        # level 4: the scripted solver's data (not a tool)
        self.trace = inner.trace
        self.cells = 0
        self._turn = 1
        self.worker = CodeWorker(tool_functions(inner), self._call_from_code, timeout_s=timeout_s,
                                 max_tool_calls=max_tool_calls)

    def _call_from_code(self, name: str, arguments: dict) -> str:
        return self.inner.call(name, arguments, turn=self._turn, via="code", cell=self.cells)

    def call(self, name: str, arguments: str | dict | None = None, *, turn: int = 1) -> str:
        if name == PYTHON_TOOL:
            code, error = _code_argument(arguments)
            if error is None:
                return self.run_cell(code, turn=turn, arguments=arguments)
        else:
            error = (f"there is no tool named {str(name)[:60]!r} here: call the data tools as functions inside "
                     f"`{PYTHON_TOOL}`" + ("" if name == SUBMIT_TOOL_NAME else f"; answer with {SUBMIT_TOOL_NAME}"))
        sent = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, default=repr)
        self.trace.append(ToolCall(turn=turn, step=len(self.trace) + 1, tool=str(name)[:200], arguments=sent,
                                   result=f"error: {error}", latency_ms=0.0, error=error))
        return f"error: {error}"

    def run_cell(self, code: str, *, turn: int = 1, arguments: str | dict | None = None) -> str:
        """Run one cell and trace it; the output the agent reads."""
        self.cells += 1
        self._turn = turn
        started = time.perf_counter()
        result = self.worker.run_cell(code)
        sent = arguments if isinstance(arguments, str) else json.dumps({"code": code}, ensure_ascii=False)
        self.trace.append(ToolCall(turn=turn, step=len(self.trace) + 1, tool=PYTHON_TOOL, arguments=sent,
                                   result=result.output, latency_ms=(time.perf_counter() - started) * 1000,
                                   error="timeout" if result.timed_out else None, via="native", cell=self.cells))
        return result.output

    def close(self) -> None:
        try:
            self.worker.close()
        finally:
            self.inner.close()


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
