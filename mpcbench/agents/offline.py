"""The offline agents' shape: a program of the episode engine (`episode.engine.Program`) that
computes its candidates through `env.call`; and the scripted solver (`agents/scripted.py`) as one.
In a booking episode they book the first candidate instead (`agents/booking.py`).

    await play(ScriptedAgent(), env, hidden=HiddenFacts(env.data))   # level 4 needs the hidden facts
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod

from ..episode.environment import Environment
from .booking import book
from .scripted import Hidden, plan, plan_task, read_prompt, submission


class OfflineAgent(ABC):
    """An offline agent that computes the candidates of a turn through `env.call` (`feedback` is
    None on the first turn): a program of the episode engine (`episode.engine.Program`). One
    object serves one episode. An agent that reads no feedback answers every later turn as it
    answered the first."""

    name = "offline"

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        found = self.answer(env, feedback)
        if env.task == "book":   # the first start, for the people the prompt names; no thread read, no confirmation
            book(env, read_prompt(env.request, env.level), found, confirm=False)
            return {}
        return submission(env.level, found)

    @abstractmethod
    def answer(self, env: Environment, feedback: str | None) -> list[tuple[dt.datetime, str | None]]:
        """The candidates of this turn, earliest first."""


class ScriptedAgent:
    """The scripted solver as a program of the episode engine; level 4 needs the hidden facts."""

    name = "scripted"

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        if env.task == "book":
            task, found = plan_task(env, hidden)
            book(env, task, found)
            return {}
        if feedback is None:
            self.found = plan(env, hidden)
        return submission(env.level, self.found)  # it is right the first time: feedback has nothing to add
