"""The offline agents' shape: a program of the episode engine (`episode.engine.Program`) that
computes its candidates through `env.call`; and the scripted solver (`agents/scripted.py`) as one.

    await play(ScriptedAgent(), env, hidden=HiddenFacts(env.data))   # level 4 needs the hidden facts
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod

from ..episode.environment import Environment
from .scripted import Hidden, plan, submission


class OfflineAgent(ABC):
    """An offline agent that computes the candidates of a turn through `env.call` (`feedback` is
    None on the first turn): a program of the episode engine (`episode.engine.Program`). One
    object serves one episode. An agent that reads no feedback answers every later turn as it
    answered the first."""

    name = "offline"

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        return submission(env.level, self.answer(env, feedback))

    @abstractmethod
    def answer(self, env: Environment, feedback: str | None) -> list[tuple[dt.datetime, str | None]]:
        """The candidates of this turn, earliest first."""


class ScriptedAgent:
    """The scripted solver as a program of the episode engine; level 4 needs the hidden facts."""

    name = "scripted"

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        if feedback is None:
            self.found = plan(env, hidden)
        return submission(env.level, self.found)  # it is right the first time: feedback has nothing to add
