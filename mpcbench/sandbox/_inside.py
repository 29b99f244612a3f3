"""The code worker: runs inside the sandbox, standard library only. Never imported by the harness.

bwrap starts the interpreter with this file's text and a JSON config (`_bwrap.Plan.argv`):

    python -s -S -c STUB SOURCE '{"fd": 5, "rlimits": {...}, "max_arguments": 64512, "tools": [...]}'

The worker sets its resource limits, defines one function per tool, says hello on the channel
(file descriptor `fd`: length-prefixed JSON, 4-byte big-endian length) and then runs cells.
A cell ({"op": "run", "cell": n, "code": ...}) runs in one namespace kept from cell to cell;
its stdout and stderr go to the harness through a pipe, and when it ends the worker answers
{"op": "done", "cell": n}. A tool function sends {"op": "call", "id": k, "name": ..., "arguments":
{...}} and returns the "text" of the harness's {"op": "result", "id": k} answer, unchanged.

Written for Python 3.9+ (the system's interpreter runs it, whatever version the harness uses).
"""

import _thread
import ast
import builtins
import json
import linecache
import os
import resource
import signal
import struct
import sys
import traceback

_HEADER = struct.Struct(">I")
_dumps, _loads = json.dumps, json.loads      # bound once: a cell that patches json cannot break the channel
_PID = os.getpid()
_STDOUT, _STDERR = sys.stdout, sys.stderr
_STDLIB = os.path.dirname(os.__file__)
_SAVED_OUTPUT = os.dup(1)


class _Channel:
    """The worker's end of the channel. One reader at a time (the lock): the main loop while it
    waits for a cell, a tool function while it waits for its answer. Answers to calls nobody
    waits for (a cell may forge calls on the raw descriptor) are skipped by their id."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = _thread.allocate_lock()
        self.last_id = 0
        self.inbox = bytearray()                # bytes read past the last message

    def send(self, message):
        data = message.encode("ascii")          # json.dumps escapes everything else
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self.fd, view):]

    def recv(self):
        """The next message; one read of the descriptor for a message that arrived whole."""
        self._fill(_HEADER.size)
        size, = _HEADER.unpack_from(self.inbox)
        self._fill(_HEADER.size + size)
        data = bytes(self.inbox[_HEADER.size:_HEADER.size + size])
        del self.inbox[:_HEADER.size + size]
        return _loads(data.decode("ascii"))

    def _fill(self, size):
        while len(self.inbox) < size:
            chunk = os.read(self.fd, max(size - len(self.inbox), 1 << 16))
            if not chunk:
                raise EOFError("the harness closed the channel")
            self.inbox += chunk

    def call(self, name_json, arguments_json):
        """Send one tool call (its name and arguments already JSON) and wait for its text."""
        with self.lock:
            self.last_id += 1
            self.send(f'{{"op": "call", "id": {self.last_id}, "name": {name_json}, "arguments": {arguments_json}}}')
            while True:
                reply = self.recv()
                if reply.get("op") == "result" and reply.get("id") == self.last_id:
                    return reply["text"]

    def tell(self, message):
        """Send a message that expects no answer (hello, done), never inside another thread's call."""
        with self.lock:
            self.send(message)

    def next_cell(self):
        with self.lock:
            while True:
                message = self.recv()
                if message.get("op") == "run":
                    return message


def _tool_function(channel, name, params, doc, max_arguments):
    """An ordinary function that calls the harness's tool `name` and returns its text."""
    name_json = _dumps(name)

    def tool(*args, **kwargs):
        if os.getpid() != _PID:
            return f"error: {name}() can be called only from the worker process, not from a child process"
        if len(args) > len(params):
            return f"error: {name}() takes {len(params)} positional arguments but {len(args)} were given"
        arguments = dict(zip(params, args))
        for key, value in kwargs.items():
            if key in arguments:
                return f"error: {name}() got multiple values for argument '{key}'"
            arguments[key] = value
        try:
            arguments_json = _dumps(arguments)
        except (TypeError, ValueError, RecursionError) as exc:
            return f"error: the arguments of {name}() must be JSON values (str, int, float, bool, None, list, dict): {exc}"
        if len(arguments_json) > max_arguments:
            return (f"error: the arguments of {name}() are too long ({len(arguments_json):,} characters as JSON; "
                    f"at most {max_arguments:,})")
        return channel.call(name_json, arguments_json)
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    return tool


def _run_cell(code, number, namespace):
    """Run one cell like a notebook: statements, then the value of a final expression, if any."""
    filename = f"<cell {number}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    try:
        tree = ast.parse(code, filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, "exec"), namespace)
        if last is not None:
            value = eval(compile(last, filename, "eval"), namespace)
            if value is not None:
                print(repr(value))
    except BaseException as exc:  # noqa: BLE001 - the cell's error is its output, whatever it is
        if isinstance(exc, SystemExit) and os.getpid() != _PID:     # a forked child's sys.exit()
            os._exit(exc.code if isinstance(exc.code, int) else 1)
        _restore_output()
        _print_exception(exc)


def _restore_output():
    """Undo what a cell did to stdout and stderr (reassigned, closed, redirected)."""
    sys.stdout, sys.stderr = _STDOUT, _STDERR
    os.dup2(_SAVED_OUTPUT, 1)
    os.dup2(_SAVED_OUTPUT, 2)


def _print_exception(exc):
    """The traceback without the worker's own frames, the interpreter's paths made neutral."""
    report = traceback.TracebackException.from_exception(exc)
    seen = set()
    todo: list[traceback.TracebackException | None] = [report]
    while todo:
        item = todo.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        item.stack = traceback.StackSummary.from_list([f for f in item.stack if f.filename != "<worker>"])
        todo += [item.__cause__, item.__context__]
    text = "".join(report.format()).replace(_STDLIB + os.sep, "<stdlib>/")
    _STDERR.write(text)
    _STDERR.flush()


def _stop_leftovers():
    """Kill every other process in the sandbox and wait until they are gone; their count.

    The worker is the init of the sandbox's pid namespace, so every orphan becomes its child:
    once it has no child left, no process of the cell is left either."""
    stopped = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == _PID:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
            os.kill(int(entry), signal.SIGKILL)
            stopped += 1
        except (OSError, IndexError):
            pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return stopped


def main():
    config = _loads(sys.argv[2])
    for name, value in config["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    with open("/proc/self/oom_score_adj", "w") as f:    # under memory pressure, the sandbox goes first
        f.write("1000")
    channel = _Channel(config["fd"])
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    for spec in config["tools"]:
        namespace[spec["name"]] = _tool_function(channel, spec["name"], spec["params"], spec["doc"],
                                                          config["max_arguments"])
    channel.tell(_dumps({"op": "hello"}))
    while True:
        try:
            message = channel.next_cell()
        except EOFError:
            os._exit(0)
        _run_cell(message["code"], message["cell"], namespace)
        if os.getpid() != _PID:          # a child forked by the cell ran off its end
            os._exit(0)
        _restore_output()
        stopped = _stop_leftovers()
        if stopped:
            _STDERR.write(f"[stopped {stopped} process(es) this cell left running]\n")
        channel.tell(_dumps({"op": "done", "cell": message["cell"]}))


if __name__ == "__main__":
    main()
