"""Hostile cells: each attack is contained, the episode goes on (or the worker restarts with a
message) and this process, the harness, survives. Limits are small so the suite stays fast."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
from pathlib import Path

import duckdb
import pytest

from mpcbench.sandbox import Limits
from sandboxkit import QUICK, ToolHost, needs_sandbox, pid_namespace, processes_in, wait_until, worker

pytestmark = needs_sandbox
SECRET = "sk-test-secret"
LIBRARY_DIRS = {"lib", "lib64", "lib32", "libx32", "bin", "sbin"}    # the loader's directories and symlinks


@pytest.fixture
def secret_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def alive_after(w, value="still here") -> bool:
    """The worker kept its state through whatever the previous cell did."""
    return w.run_cell("print(marker)").output == f"{value}\n"


def test_no_network_to_the_host_or_outside():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    with worker(None) as w:
        w.run_cell("marker = 'still here'")
        local = w.run_cell(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)")
        outside = w.run_cell("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)")
        dns = w.run_cell("import socket\nsocket.getaddrinfo('pypi.org', 443)")
        ifaces = w.run_cell("import socket\nprint(sorted(n for _, n in socket.if_nameindex()))")
        assert alive_after(w)
    with pytest.raises(BlockingIOError):
        listener.accept()                         # nothing ever reached the host's listener
    listener.close()
    assert local.output.rstrip().endswith("ConnectionRefusedError: [Errno 111] Connection refused")
    assert outside.output.rstrip().endswith("OSError: [Errno 101] Network is unreachable")
    assert "socket.gaierror" in dns.output
    assert ifaces.output == "['lo']\n"


def test_host_files_are_invisible(tmp_path, secret_env):
    warehouse = tmp_path / "mpcbench.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute("create table gold as select 'GOLD-ANSWER-42' as answer")
    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text('{"secret": "RUN-DIR-CONTENT"}')
    home = [Path.home()] if Path.home() != Path("/tmp") else []    # a HOME of /tmp names the scratch dir
    paths = [warehouse, run_dir / "run.json", run_dir, *home, "/root", "/home", "/etc/passwd", "/etc/hostname",
             Path(sys.prefix), Path(__file__).resolve().parent.parent, "/usr/lib/python3/dist-packages",
             "/usr/local/lib", "/var", "/sys/class/net"]
    with worker(None) as w:
        seen = w.run_cell(f"import os\nfor p in {[str(p) for p in paths]!r}:\n    print(os.path.exists(p))")
        opened = w.run_cell(f"open({str(warehouse)!r}, 'rb').read(16)")
        listing = w.run_cell("import os\nprint(sorted(os.listdir('/')))\nprint(sorted(os.listdir('/usr')))\n"
                             "print(sorted(os.listdir(os.path.expanduser('~'))))")
        written = w.run_cell("open('/usr/lib/x', 'w')")
        mounts = w.run_cell("print(open('/proc/self/mountinfo').read())")
    assert seen.output == "False\n" * len(paths)
    assert "FileNotFoundError" in opened.output
    root, usr, home_dir = (eval(line) for line in listing.output.splitlines())
    assert {"dev", "proc", "tmp", "usr"} <= set(root) <= {"dev", "proc", "tmp", "usr", *LIBRARY_DIRS}
    assert set(usr) <= {"bin", "share", "local", *LIBRARY_DIRS} and home_dir == []
    assert "Read-only file system" in written.output
    for leak in ("GOLD-ANSWER-42", "RUN-DIR-CONTENT", str(tmp_path), "/root", "/work", ".venv"):
        assert leak not in mounts.output


def test_no_environment_variable_of_the_harness_leaks(secret_env):
    assert os.environ["OPENAI_API_KEY"] == SECRET
    with worker(None) as w:
        cells = [w.run_cell(code) for code in (
            "import os\nprint(sorted(os.environ))",
            "print(open('/proc/self/environ').read())",
            "print(open('/proc/1/environ').read())",
            "import os\nfor p in os.listdir('/proc'):\n    if p.isdigit():\n"
            "        print(p, open(f'/proc/{p}/environ').read(), open(f'/proc/{p}/cmdline').read()[:80])",
            "import os\nprint(os.readlink('/proc/1/exe'), os.getppid())")]
    assert cells[0].output == ("['HOME', 'LC_CTYPE', 'PATH', 'PWD', 'PYTHONDONTWRITEBYTECODE', 'PYTHONHASHSEED', "
                               "'PYTHONNOUSERSITE', 'TMPDIR', 'TZ']\n")
    for cell in cells:
        assert SECRET not in cell.output and "OPENAI" not in cell.output
    assert cells[4].output == "/usr/bin/python3.11 0\n" or cells[4].output.endswith(" 0\n")


def test_site_packages_and_duckdb_cannot_be_imported():
    with worker(None) as w:
        plain = w.run_cell("import duckdb")
        forced = w.run_cell(f"import sys\nsys.path += {[sys.prefix + '/lib', *sys.path]!r}\nimport duckdb")
        stdlib = w.run_cell("import datetime, zoneinfo, itertools, json, re, collections, math, sqlite3\n"
                            "print(datetime.datetime(2026, 3, 4, 9, tzinfo=zoneinfo.ZoneInfo('Europe/Berlin')).utcoffset())")
    assert plain.output.rstrip().endswith("ModuleNotFoundError: No module named 'duckdb'")
    assert forced.output.rstrip().endswith("ModuleNotFoundError: No module named 'duckdb'")
    assert stdlib.output == "1:00:00\n"


def test_subprocess_os_system_and_ctypes_stay_inside():
    with worker(None) as w:
        w.run_cell("marker = 'still here'")
        r = w.run_cell(textwrap.dedent("""\
            import ctypes, os, subprocess, sys
            try:
                subprocess.run(['ls', '/'])
            except FileNotFoundError as e:
                print('ls:', e.strerror)
            print('system:', os.system('cat /etc/passwd'))
            child = subprocess.run([sys.executable, '-c', 'import os; print(os.getuid(), sorted(os.listdir("/tmp")))'],
                                   capture_output=True, text=True)
            print('python child:', child.stdout.strip())
            libc = ctypes.CDLL(None)
            print('libc system:', libc.system(b'id'))
            print('unshare user ns:', libc.unshare(0x10000000), ctypes.get_errno())
            """))
        assert alive_after(w)
        crash = w.run_cell("import ctypes\nctypes.string_at(0)")
        after = w.run_cell("print('fresh')")
    lines = r.output.splitlines()
    assert lines[0] == "ls: No such file or directory"
    assert lines[1] == "system: 32512"            # 127 << 8: there is no shell
    assert lines[2] == "python child: 65534 []"      # a Python runs, as uid 65534, in the same sandbox
    assert lines[3] == "libc system: 32512"
    assert lines[4].startswith("unshare user ns: -1")
    assert crash.restarted and not crash.timed_out
    assert crash.output == ("[the worker was killed (SIGSEGV); the Python worker was restarted: variables, "
                            "imports and files from earlier cells are lost]")
    assert after.output == "fresh\n"


def test_a_fork_bomb_meets_the_process_limit():
    # 1 s a cell: the bomb's processes spin on refused forks on every core until the timeout (the
    # counting cell takes milliseconds)
    with worker(None, timeout_s=1.0) as w:
        w.run_cell("marker = 'still here'")
        counted = w.run_cell(textwrap.dedent("""\
            import os, time
            n = 0
            try:
                for _ in range(1000):
                    if os.fork() == 0:
                        time.sleep(60)
                        os._exit(0)
                    n += 1
            except OSError as e:
                print('refused after', n, type(e).__name__)
            """))
        assert alive_after(w)
        bomb = w.run_cell("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass")
        after = w.run_cell("print('fresh')")
    refused, stopped = counted.output.splitlines()
    n = int(refused.split()[2])
    assert 0 < n < QUICK.processes and refused.endswith("BlockingIOError")
    assert stopped == f"[stopped {n} process(es) this cell left running]"
    assert bomb.timed_out and bomb.restarted
    assert after.output == "fresh\n"


def test_memory_cpu_time_and_wall_time_are_bounded():
    # 1 s a cell: the sleep and the loop below wait it out; the other cells take milliseconds
    with worker(None, timeout_s=1.0) as w:
        w.run_cell("marker = 'still here'")
        oom = w.run_cell("print(open('/proc/self/oom_score_adj').read().strip())")
        big = w.run_cell("b = bytearray(8 << 30)")
        big_list = w.run_cell("x = [0] * (1 << 30)")
        assert alive_after(w)
        sleep = w.run_cell("import time\ntime.sleep(1e6)")
        loop = w.run_cell("while True:\n    pass")
    assert oom.output == "1000\n"                    # the OOM killer's first choice, not the harness
    assert big.output.rstrip().endswith("MemoryError") and big_list.output.rstrip().endswith("MemoryError")
    assert sleep.timed_out and sleep.restarted and loop.timed_out and loop.restarted
    with worker(None, timeout_s=10.0, limits=Limits(cpu_seconds=1)) as w:
        cpu = w.run_cell("while True:\n    pass")
    assert not cpu.timed_out and cpu.restarted
    assert cpu.output.startswith("[the worker was killed (SIGKILL), as at its CPU-time limit of 1 s; "
                                 "the Python worker was restarted")


def test_a_flood_of_output_is_read_in_bounded_memory():
    with worker(None, timeout_s=20.0) as w:
        w.run_cell("marker = 'still here'")
        tracemalloc.start()
        flood = w.run_cell("import sys\nsys.stdout.write('x' * (100 << 20))\nprint('end')")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert alive_after(w)
    assert flood.output == "x" * 2000 + "\n[output truncated: showing the first 2,000 characters of 104,857,604 bytes]"
    assert peak < 4 << 20                          # the harness kept a head, not 100 MB


def test_the_scratch_disk_is_size_limited():
    with worker(None) as w:
        w.run_cell("marker = 'still here'")
        one = w.run_cell("open('/tmp/big', 'wb').write(b'0' * (16 << 20))")
        many = w.run_cell("import os\nfor i in range(100):\n    open(f'/tmp/f{i}', 'wb').write(b'0' * (3 << 20))")
        assert alive_after(w)
        fine = w.run_cell("import os\nfor f in os.listdir('/tmp'): os.remove('/tmp/' + f)\n"
                          "open('/tmp/ok.txt', 'w').write('kept')\nprint(open('ok.txt').read())")
    assert one.output.rstrip().endswith("OSError: [Errno 27] File too large")
    assert many.output.rstrip().endswith("OSError: [Errno 28] No space left on device")
    assert fine.output == "kept\n"


def test_killing_the_parent_or_pid_1_hurts_nothing_outside():
    sentinel = subprocess.Popen(["sleep", "60"], **({"user": 65534} if os.geteuid() == 0 else {}))
    try:
        with worker(None) as w:
            w.run_cell("marker = 'still here'")
            r = w.run_cell(textwrap.dedent(f"""\
                import os, signal
                for target, sig in [(os.getppid(), 9), (1, 9), (1, signal.SIGTERM), (-1, 9), ({sentinel.pid}, 9)]:
                    try:
                        os.kill(target, sig)
                        print(target, 'sent')
                    except OSError as e:
                        print(target, type(e).__name__)
                """))
            assert alive_after(w)
        assert sentinel.poll() is None                # a host process of the same uid was out of reach
    finally:
        sentinel.kill()
        sentinel.wait()
    assert f"{sentinel.pid} ProcessLookupError" in r.output


def test_unbounded_recursion():
    with worker(None) as w:
        w.run_cell("marker = 'still here'")
        plain = w.run_cell("def f(n):\n    return f(n + 1)\nf(0)")
        assert alive_after(w)
        deep = w.run_cell("import sys\nsys.setrecursionlimit(10 ** 8)\ndef g(n):\n    return list(map(g, [n + 1]))\ng(0)")
        after = w.run_cell("print('fresh')")
    assert plain.output.rstrip().endswith("RecursionError: maximum recursion depth exceeded")
    assert "[Previous line repeated" in plain.output and len(plain.output) <= 2100
    assert deep.restarted and "SIGSEGV" in deep.output
    assert after.output == "fresh\n"


def test_forged_and_oversized_channel_messages():
    host = ToolHost()
    forge = ("import json, os, struct, sys\nfd = json.loads(sys.argv[2])['fd']\n"
             "def frame(b):\n    os.write(fd, struct.pack('>I', len(b)) + b)\n")
    with worker(host) as w:
        w.run_cell("marker = 'still here'")
        unknown = w.run_cell(forge + "frame(json.dumps({'op': 'call', 'id': 7, 'name': 'drop_tables', 'arguments': {}}).encode())\n"
                             "size, = struct.unpack('>I', os.read(fd, 4))\nprint(json.loads(os.read(fd, size))['text'])")
        assert alive_after(w)
        # each cell then sleeps for 10 minutes: a harness that did not stop it at the bad frame
        # would wait for the cell's 5 s time limit (timed_out) or longer
        cases = {"garbage": "frame(b'not json at all')",
                 "oversized": "os.write(fd, struct.pack('>I', 1 << 30) + b'x' * 1000)\nimport time; time.sleep(600)",
                 "wrong shape": "frame(json.dumps({'op': 'done', 'cell': 999}).encode())\nimport time; time.sleep(600)",
                 "raw bytes": "os.write(fd, bytes(range(255, -1, -1)) * 12)\nimport time; time.sleep(600)",
                 "nested": "frame(b'[' * 30000 + b']' * 30000)\nimport time; time.sleep(600)",
                 "no id": "frame(json.dumps({'op': 'call', 'name': 'echo', 'arguments': {}}).encode())\n"
                          "import time; time.sleep(600)",
                 "closed": "os.close(fd)\nimport time; time.sleep(600)"}
        results = {}
        for name, code in cases.items():
            w.run_cell("marker = 'still here'")
            started = time.monotonic()
            results[name] = (w.run_cell(forge + code), time.monotonic() - started)
            assert w.run_cell("print('fresh')").output == "fresh\n"
    assert unknown.output.startswith("error: there is no tool named 'drop_tables'; the tools are: ")
    assert host.calls == []                         # the unknown name never reached call_tool
    for name, (r, elapsed) in results.items():
        assert r.restarted and not r.timed_out, name
        # generous, for a loaded machine: the cell was cut at the bad frame (its restart included),
        # never left to its 600 s sleep; not timed_out above says it was not the time limit either
        assert elapsed < 60, name
        expected = "the cell closed the tool channel" if name == "closed" else \
            "the cell wrote malformed data to the tool channel"
        assert r.output == f"[{expected}; the Python worker was restarted: variables, imports and files from earlier cells are lost]"


FLOOD = ("import json, os, struct, sys\nfd = json.loads(sys.argv[2])['fd']\n"
         "call = json.dumps({'op': 'call', 'id': 1, 'name': 'echo', 'arguments': {'text': 'x' * 4000}}).encode()\n"
         "for _ in range(20000):\n    os.write(fd, struct.pack('>I', len(call)) + call)\nprint('sent')")


def test_calls_whose_answers_are_never_read_cannot_flood_the_harness():
    with worker(ToolHost(), timeout_s=20.0) as w:           # the default budget: 1,000 calls
        w.run_cell("marker = 'still here'")
        budgeted = w.run_cell(FLOOD)
        assert alive_after(w)                            # the unread answers were skipped
        assert w.run_cell("print(echo('x'))").output.startswith("error: the tool-call budget of 1000")
    assert budgeted.output == "sent\n" and len(budgeted.tool_calls) == 1000
    with worker(ToolHost(), timeout_s=20.0, max_tool_calls=None) as w:
        tracemalloc.start()
        unbounded = w.run_cell(FLOOD)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert w.run_cell("print('fresh')").output == "fresh\n"
    assert unbounded.restarted and "malformed data to the tool channel" in unbounded.output
    assert peak < 64 << 20          # 16 MiB of unread answers and the calls so far, not 80 MB and growing


def test_children_left_running_are_stopped_and_nothing_survives_close():
    with worker(None, timeout_s=1.5) as w:
        namespace = pid_namespace(w)
        spawn = w.run_cell("import subprocess, sys\n"
                           "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\nprint(p.pid)")
        gone = w.run_cell(f"import os\ntry:\n    os.kill({spawn.output.split()[0]}, 0)\nexcept ProcessLookupError:\n    print('gone')")
        w.run_cell("import os, time\nif os.fork() == 0:\n    time.sleep(600)\ntime.sleep(600)")   # killed by the timeout
        namespace_2 = pid_namespace(w)
        w.run_cell("import threading, os, time\n"
                   "threading.Thread(target=lambda: (time.sleep(0.2), os.fork(), time.sleep(600))).start()")
        assert wait_until(lambda: len(processes_in(namespace_2)) == 2)   # the worker and its thread's child
    assert spawn.output.endswith("[stopped 1 process(es) this cell left running]\n")
    assert gone.output == "gone\n"
    assert processes_in(namespace) == [] and processes_in(namespace_2) == []


def test_a_worker_outlives_the_threads_that_started_and_restarted_it():
    """bwrap dies with the thread that forked it (PDEATHSIG): sandboxes are forked by one thread
    that lives as long as the process, so a thread pool's short-lived threads cannot kill them."""
    box = {}
    started = threading.Thread(target=lambda: box.update(w=worker(None, timeout_s=5)))
    started.start()
    started.join()
    with box["w"] as w:
        time.sleep(0.2)
        assert w.run_cell("x = 41\nprint(x + 1)").output == "42\n"
        crash = w.run_cell("import os\nos._exit(3)")
        restarted = threading.Thread(target=lambda: box.update(cell=w.run_cell("y = 7")))   # the restart
        restarted.start()
        restarted.join()
        time.sleep(0.2)
        assert w.run_cell("print(y)").output == "7\n"
    assert crash.restarted and not box["cell"].restarted


def test_the_sandbox_dies_with_the_harness(tmp_path):
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(f"""\
        import sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from sandboxkit import pid_namespace, worker
        w = worker(None, timeout_s=30)
        print(pid_namespace(w), flush=True)
        w.run_cell("import os, time\\nif os.fork() == 0:\\n    time.sleep(600)\\ntime.sleep(600)")
        """))
    harness = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    namespace = harness.stdout.readline().strip()
    assert namespace.startswith("pid:[") and wait_until(lambda: len(processes_in(namespace)) == 2)
    harness.send_signal(signal.SIGKILL)
    harness.wait()
    assert wait_until(lambda: processes_in(namespace) == [])
