"""The modes of an episode's environment by name (`--mode`).

    env = Environment(con, "L2-0007", make_mode("code", code_timeout_s=30))
"""

from __future__ import annotations

from .code import CodeMode
from .context import ContextMode
from .environment import Mode, ToolsMode

MODES = ("tools", "context", "code")


def make_mode(name: str, *, code_timeout_s: float = 30.0, answer_calls: bool = False) -> Mode:
    """A mode by name (`--mode`); `answer_calls`: context mode still answers tool calls (the offline
    agents, which are programs, not readers)."""
    if name == "context":
        return ContextMode(answer_calls=answer_calls)
    if name == "code":
        return CodeMode(timeout_s=code_timeout_s)
    if name == "tools":
        return ToolsMode()
    raise ValueError(f"no mode {name!r}; the modes are {', '.join(MODES)}")
