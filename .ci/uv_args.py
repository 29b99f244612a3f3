"""Print, one a line, the `uv pip install` options that give uv what pip's configuration on this
machine gives pip (`pip config list`: its own files and PIP_* variables): the local wheel folders
(find-links), the extra indexes, the index, the constraint files. uv reads none of pip's
configuration; without them it would miss the wheels on disk (PyTorch's CPU build among them) and
resolve another set. A machine without pip configuration prints nothing."""

from __future__ import annotations

import shlex
import subprocess
import sys

OPTIONS = {"find-links": "--find-links", "extra-index-url": "--extra-index-url", "index-url": "--index-url",
           "constraint": "--constraints"}

listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
found: dict[str, list[str]] = {}
for line in listed.splitlines():
    key, _, value = line.partition("=")
    option = OPTIONS.get(key.rsplit(".", 1)[-1])
    if option:
        for item in " ".join(shlex.split(value)).split():
            if item not in found.setdefault(option, []):
                found[option].append(item)
for option, items in found.items():
    for item in (items[-1:] if option == "--index-url" else items):
        print(option)
        print(item)
