"""One sandboxed, persistent Python worker per episode; its tool calls answered by the harness.

    >>> tools = [ToolFunction("echo", {"type": "object", "properties": {"text": {"type": "string"}}})]
    >>> with CodeWorker(tools, lambda name, args: args["text"].upper()) as worker:  # doctest: +SKIP
    ...     worker.run_cell("x = echo('hi')\\nprint(x)").output
    'HI\\n'

The harness talks to the worker over a socket pair (`_channel.py`; the worker's end is
`_inside.py`) and reads the cell's stdout and stderr from one pipe, keeping only the head it will show:
whatever a cell prints, the harness holds at most about 4 x `max_output_chars` bytes. A cell
that runs past `timeout_s`, kills its worker, or writes anything but well-formed messages to
the channel ends with the whole sandbox killed; the next cell starts a fresh worker, and the
output says so. Nothing here raises for what a cell does.

bwrap is told to die with its parent (`--die-with-parent`, PR_SET_PDEATHSIG), and on Linux the
parent is the thread that started it: every sandbox is therefore started from one thread that
lives as long as the process (`_SPAWNER`). A worker lives until `close()`, whichever thread
created or restarted it and whether or not that thread still runs, and no longer than the
harness process, however that ends (SIGKILL included).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from typing import Callable, NamedTuple

from ._bwrap import INSTALL_HINT, Limits, SandboxUnavailable, refusal, sandbox_plan
from ._channel import MAX_MESSAGE_BYTES, Channel, argument_problem
from ._messages import CappedOutput, notice

START_TIMEOUT_S = 15.0             # for the worker's hello (the machine may be busy)
# the one thread that starts every sandbox: it ends only with the process (see the docstring)
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mpcbench-sandbox-spawner")


@dataclass(frozen=True)
class ToolFunction:
    """A data tool as a function in the worker: its name and JSON-Schema arguments (OpenAI
    function format; positional arguments follow the order of `properties`)."""
    name: str
    parameters: dict
    description: str = ""


class ToolCall(NamedTuple):
    """One tool call made from a cell, in order."""
    name: str
    arguments: dict
    result: str
    latency_ms: float


@dataclass(frozen=True)
class CellResult:
    output: str                         # what the agent reads: capped, never empty
    tool_calls: list[ToolCall] = field(default_factory=list)
    timed_out: bool = False
    restarted: bool = False             # the worker was killed; the next cell gets a fresh one


class CodeWorker:
    """A sandboxed Python worker whose tools call `call_tool(name, arguments) -> text`.

    call_tool validates and answers every call of a declared tool (bad arguments: an
    "error: ..." text). Calls of other names, arguments nested deeper than any tool takes or
    not valid Unicode, and calls past `max_tool_calls` over the episode are answered here and
    never reach it; `max_tool_calls=None` lifts the cap (the trace then holds whatever a cell
    sends). One thread at a time. Raises SandboxUnavailable (one line: why, what to install)
    if no sandbox can start."""

    def __init__(self, tools: list[ToolFunction], call_tool: Callable[[str, dict], str], *,
                 timeout_s: float = 30.0, max_output_chars: int = 2000,
                 max_tool_calls: int | None = 1000, limits: Limits = Limits()):
        self._tools = {tool.name: tool for tool in tools}
        self._call_tool = call_tool
        self.timeout_s = timeout_s
        self.max_output_chars = max_output_chars
        self.max_tool_calls = max_tool_calls
        self.limits = limits
        self.tool_calls_made = 0        # over the episode, restarts included
        self._cells = 0
        self._proc: subprocess.Popen | None = None
        self._closed = False
        self._start()

    # -- lifecycle -------------------------------------------------------------------------

    def _start(self) -> None:
        plan = sandbox_plan()
        host, child = socket.socketpair()
        out_r, out_w = os.pipe()
        config = json.dumps({"fd": child.fileno(), "rlimits": self.limits.rlimits(),
                             "max_arguments": MAX_MESSAGE_BYTES - 1024,       # room for the rest of the call
                             "tools": [_tool_config(tool) for tool in self._tools.values()]})
        argv, user = plan.argv(self.limits, config), plan.user()

        def spawn() -> subprocess.Popen:
            return subprocess.Popen(argv, executable=plan.bwrap, env={}, stdin=subprocess.DEVNULL, stdout=out_w,
                                    stderr=out_w, pass_fds=(child.fileno(),), process_group=0, **user)

        try:
            proc = _SPAWNER.submit(spawn).result()
        except OSError as exc:
            host.close()
            os.close(out_r)
            raise SandboxUnavailable(f"code sandbox: cannot run {plan.bwrap} ({exc.strerror}); "
                                     f"{INSTALL_HINT}") from None
        finally:
            child.close()
            os.close(out_w)
        self._proc, self._channel, self._out = proc, Channel(host), out_r
        self._init_pidfd = None
        os.set_blocking(out_r, False)
        output = CappedOutput(200)
        first = self._pump(None, output, [], time.monotonic() + START_TIMEOUT_S)
        if first != "hello":
            self._stop()
            lines = output.head.decode("utf-8", errors="replace").strip().splitlines()
            said = [line for line in lines if line.startswith("bwrap:")] or lines[-1:]
            raise SandboxUnavailable(refusal(said[0] if said else f"the worker did not start ({first})"))
        self._init_pidfd = _init_pidfd(proc.pid)

    def _stop(self) -> None:
        """Kill the sandbox and wait until every process in it is gone. The worker is the
        init of the sandbox's pid namespace: killing it kills the rest, and bwrap, which waits
        for it, reaps it and exits (killing bwrap first would leave it to the host's init)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        pidfd, self._init_pidfd = self._init_pidfd, None
        try:
            if pidfd is not None:
                _kill(lambda: signal.pidfd_send_signal(pidfd, signal.SIGKILL))
                proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        finally:
            _kill(lambda: os.killpg(proc.pid, signal.SIGKILL))
            proc.wait()
            if pidfd is not None:
                os.close(pidfd)
            self._channel.close()
            os.close(self._out)

    def close(self) -> None:
        """Kill the sandbox; when this returns, no process of it is left."""
        self._closed = True
        self._stop()

    def __enter__(self) -> CodeWorker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- cells -----------------------------------------------------------------------------

    def run_cell(self, code: str) -> CellResult:
        """Run one cell; never raises for what the cell does (only if call_tool raises)."""
        if self._closed:
            raise RuntimeError("this CodeWorker is closed")
        if self._proc is None:
            self._start()
        self._cells += 1
        output = CappedOutput(self.max_output_chars)
        calls: list[ToolCall] = []
        self._channel.send({"op": "run", "cell": self._cells, "code": code})
        outcome = self._pump(self._cells, output, calls, time.monotonic() + self.timeout_s)
        said = None
        if outcome != "done":
            returncode = _exit_status(self._proc) if outcome == "died" and self._proc is not None else None
            self._stop()
            said = notice(outcome, returncode, self.timeout_s, self.limits)
        text = output.text()
        if said:
            text = f"{text.rstrip(chr(10))}\n{said}" if text else said
        return CellResult(output=text or "[no output]", tool_calls=calls,
                          timed_out=outcome == "timeout", restarted=said is not None)

    def _pump(self, cell: int | None, output: CappedOutput, calls: list[ToolCall], deadline: float) -> str:
        """Move bytes until the cell is done (or, for cell None, the worker says hello):
        'done', 'hello', 'timeout', 'died' (the channel closed) or 'broken'. Never blocks
        past the deadline, whatever the worker does or does not read."""
        channel = self._channel
        with selectors.DefaultSelector() as selector:
            selector.register(self._out, selectors.EVENT_READ, "out")
            registered = selectors.EVENT_READ
            selector.register(channel.sock, registered, "channel")
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return "timeout"
                events = selectors.EVENT_READ | (selectors.EVENT_WRITE if channel.outbox else 0)
                if events != registered:
                    selector.modify(channel.sock, events, "channel")
                    registered = events
                for key, mask in selector.select(left):
                    if key.data == "out":
                        if not self._read_output(output):
                            selector.unregister(self._out)
                        continue
                    if mask & selectors.EVENT_WRITE and not channel.flush():
                        return self._died(output)
                    if not mask & selectors.EVENT_READ:
                        continue
                    if not channel.receive():
                        return self._died(output)
                    while (message := channel.next_message()) is not None:
                        if not isinstance(message, dict):
                            return "broken"
                        op = message.get("op")
                        if op == "call" and cell is not None and self._answer(message, calls):
                            if channel.flooded():
                                return "broken"
                            continue
                        if op == "hello" and cell is None:
                            return "hello"
                        if op == "done" and cell is not None and message.get("cell") == cell:
                            self._drain(output, deadline)
                            return "done"
                        return "broken"

    def _died(self, output: CappedOutput) -> str:
        self._drain(output, time.monotonic() + 1.0)
        return "died"

    def _answer(self, message: dict, calls: list[ToolCall]) -> bool:
        """Answer one tool call; False if the message is not a well-formed call."""
        key, name, arguments = message.get("id"), message.get("name"), message.get("arguments")
        if type(key) is not int or not isinstance(name, str) or not isinstance(arguments, dict):
            return False
        if self.max_tool_calls is not None and self.tool_calls_made >= self.max_tool_calls:
            self._channel.send({"op": "result", "id": key, "text": f"error: the tool-call budget of {self.max_tool_calls} "
                                                                  "calls is spent; no more tool calls in this episode"})
            return True
        started = time.perf_counter()
        if name not in self._tools:
            text = f"error: there is no tool named {name[:80]!r}; the tools are: {', '.join(self._tools)}"
        elif (problem := argument_problem(arguments)) is not None:
            text = f"error: {problem}"
        else:
            try:
                text = self._call_tool(name, arguments)
            except BaseException:
                self._stop()               # the worker waits for an answer that will not come
                raise
        calls.append(ToolCall(name, arguments, text, (time.perf_counter() - started) * 1000))
        self.tool_calls_made += 1
        self._channel.send({"op": "result", "id": key, "text": text})
        return True

    def _read_output(self, output: CappedOutput) -> bool:
        """Read what is ready on the output pipe; False at end of file."""
        try:
            data = os.read(self._out, 1 << 16)
        except BlockingIOError:
            return True
        output.feed(data)
        return bool(data)

    def _drain(self, output: CappedOutput, deadline: float) -> None:
        """Read what the cell wrote before it ended (already in the pipe), without waiting."""
        while time.monotonic() < deadline:
            try:
                data = os.read(self._out, 1 << 16)
            except BlockingIOError:
                return
            if not data:
                return
            output.feed(data)


def _tool_config(tool: ToolFunction) -> dict:
    params = list(tool.parameters.get("properties", {}))
    return {"name": tool.name, "params": params,
            "doc": f"{tool.name}({', '.join(params)})\n\n{tool.description}".strip()}


def _kill(send: Callable[[], None]) -> None:
    try:
        send()
    except ProcessLookupError:
        pass


def _init_pidfd(bwrap_pid: int) -> int | None:
    """A pidfd on the sandbox's init, the worker (bwrap's child), or None if there is none."""
    try:
        with open(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children") as f:
            return os.pidfd_open(int(f.read().split()[0]))
    except (OSError, ValueError, IndexError):
        return None


def _exit_status(proc: subprocess.Popen) -> int | None:
    """bwrap's exit status once the worker's channel closed (the worker's own), or None if
    the sandbox is still running (the cell closed the channel itself)."""
    try:
        return proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        return None


@cache
def sandbox_status() -> tuple[bool, str]:
    """(True, "bubblewrap ...") when a sandboxed worker starts and runs a cell, else (False, why)."""
    try:
        with CodeWorker([], lambda name, arguments: "", timeout_s=20) as worker:
            result = worker.run_cell("print(6 * 7)")
    except SandboxUnavailable as exc:
        return False, str(exc)
    if result.output != "42\n":
        return False, f"code sandbox: a test cell printed {result.output[:100]!r}, not 42"
    plan = sandbox_plan()
    return True, f"bubblewrap {plan.bwrap} running {plan.python}"
