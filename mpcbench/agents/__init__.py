"""Agents: the offline ones (`scripted`, `everyday`, `calendar-only`, `random`, and for the privacy track
`leaky` and `over-reader`), the `openai` agent and the
replay of a recorded run. An offline agent is a program (`episode.engine.Program`), the others
are policies (`episode.engine.Policy`); `mpcbench eval` (the harness) runs them.

    >>> type(make_agent("scripted")).__name__
    'ScriptedAgent'
"""

from __future__ import annotations

from .baselines import CalendarOnlyAgent, RandomAgent
from .everyday import EverydayAgent
from .privacy import LeakyAgent, OverReaderAgent
from .offline import ScriptedAgent

OFFLINE_AGENTS = ("scripted", "everyday", "calendar-only", "random", "leaky", "over-reader")


def make_agent(name: str, seed: int = 0):
    """An offline agent by name (see OFFLINE_AGENTS)."""
    if name == "scripted":
        return ScriptedAgent()
    if name == "everyday":
        return EverydayAgent()
    if name == "calendar-only":
        return CalendarOnlyAgent()
    if name == "random":
        return RandomAgent(seed)
    if name == "leaky":
        return LeakyAgent()
    if name == "over-reader":
        return OverReaderAgent()
    raise ValueError(f"no offline agent {name!r}; choose one of {', '.join(OFFLINE_AGENTS)}")
