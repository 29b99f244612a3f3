"""Shared pieces of the sandbox tests: a tiny tool host, quick limits, and a look at which host
processes live in a sandbox's pid namespace."""

from __future__ import annotations

import json
import os
import time

import pytest

from mpcbench.sandbox import CodeWorker, Limits, ToolFunction, sandbox_status

SANDBOX_OK, SANDBOX_WHY = sandbox_status()
needs_sandbox = pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox on this machine: {SANDBOX_WHY}")

BUSY = ToolFunction("get_busy_intervals", {
    "type": "object",
    "properties": {"person_id": {"type": "string"}, "start": {"type": "string"}, "end": {"type": "string"}},
    "required": ["person_id", "start", "end"]}, "When one person is busy.")
ECHO = ToolFunction("echo", {"type": "object", "properties": {"text": {"type": "string"}}})
TOOLS = [BUSY, ECHO]
QUICK = Limits(cpu_seconds=20, processes=16, file_bytes=4 << 20, scratch_bytes=8 << 20)


class ToolHost:
    """call_tool for the tests: validates like the harness's tool environment, records calls."""

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, name: str, arguments: dict) -> str:
        self.calls.append((name, arguments))
        if name == "echo":
            return str(arguments.get("text"))
        unknown = set(arguments) - {"person_id", "start", "end"}
        if unknown:
            return f"error: unknown argument(s) {sorted(unknown)}"
        if arguments.get("person_id") != "P1":
            return f"error: No person has person_id {arguments.get('person_id')}."
        return json.dumps({"person_id": "P1", "busy": [{"start": arguments["start"] + "T09:00",
                                                        "end": arguments["start"] + "T10:00"}]})


def worker(host: ToolHost | None = None, **options) -> CodeWorker:
    options.setdefault("timeout_s", 5.0)
    options.setdefault("limits", QUICK)
    return CodeWorker(TOOLS, host or ToolHost(), **options)


def pid_namespace(w: CodeWorker) -> str:
    """The worker's pid namespace, as the host names it (pid:[inode])."""
    return w.run_cell("import os\nprint(os.readlink('/proc/self/ns/pid'))").output.strip()


def host_pid_namespace(w: CodeWorker) -> str:
    """The worker's pid namespace, read from the host (no cell is run): that of bwrap's child."""
    bwrap = w._proc.pid
    with open(f"/proc/{bwrap}/task/{bwrap}/children") as f:
        return os.readlink(f"/proc/{f.read().split()[0]}/ns/pid")


def processes_in(namespace: str) -> list[int]:
    """Host pids of every process (zombies included) in that pid namespace."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/ns/pid") == namespace:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def wait_until(predicate, timeout_s: float = 5.0) -> bool:
    """Poll until predicate() is true (the machine may be busy); its last value."""
    deadline = time.monotonic() + timeout_s
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    return predicate()
