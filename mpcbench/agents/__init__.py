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

# the offline agents, registered here alone: each by its class's `name`
_PROGRAMS = (ScriptedAgent, EverydayAgent, CalendarOnlyAgent, RandomAgent, LeakyAgent, OverReaderAgent)
OFFLINE_AGENTS = tuple(program.name for program in _PROGRAMS)


def make_agent(name: str, seed: int = 0):
    """An offline agent by name (see OFFLINE_AGENTS); `seed` for the random one."""
    for program in _PROGRAMS:
        if program.name == name:
            return program(seed) if program is RandomAgent else program()
    raise ValueError(f"no offline agent {name!r}; choose one of {', '.join(OFFLINE_AGENTS)}")
