"""The processes of a tree, from /proc: what bench/build.py and bench/scale.py measure memory over."""

from __future__ import annotations

import os
from pathlib import Path


def process_tree(root: int) -> set[int]:
    """A process and all its descendants alive now."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        children = [p for p, parent in parents.items() if parent == pid]
        tree.update(children)
        frontier += children
    return tree
