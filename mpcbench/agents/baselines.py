"""Baselines that need no model: what an agent gets without composing the sources.

- `calendar-only` reads the participants' calendars and nothing else, and answers the earliest
  on-grid starts where nobody is busy, inside assumed office hours (09:00-17:00; without the
  policy it cannot know better). Where the prompt does not state participants, duration or N
  (level 3) it assumes none, 60 minutes and 3, and it never reads the room system, so its
  level-3 candidates name no real room. By the necessity rule it cannot reach exact match at
  any level: the policy matters at every level (and the threads and rooms above level 1).
- `random` answers N distinct random on-grid starts of the window (any time of day), seeded
  by the instance id; at level 3 it picks random rooms from list_rooms.
"""

from __future__ import annotations

import datetime as dt
import random

from .base import AgentOutput, Environment
from .scripted import (DAY, GRID, Reader, ToolFailed, finish, overlaps, parse_markdown_table,
                       read_prompt, submission)

OFFICE_HOURS = (dt.time(9, 0), dt.time(17, 0))
DEFAULT_DURATION_MIN = 60
DEFAULT_N = 3
NO_ROOM = "unknown"


def grid_starts(days: list[dt.date]):
    for day in days:
        start = dt.datetime.combine(day, dt.time(0, 0))
        while start.date() == day:
            yield start
            start += GRID


class CalendarOnlyAgent:
    name = "calendar-only"

    async def run(self, env: Environment) -> AgentOutput:
        try:
            task = read_prompt(env.prompt, env.level)
            read = Reader(env)
            duration = dt.timedelta(minutes=task.duration_min or DEFAULT_DURATION_MIN)
            busy = [span for person in task.participants
                    for span in read.busy(person, task.window_start - DAY, task.window_end + DAY)]
            found = []
            for start in grid_starts(task.days()):
                end = start + duration
                opens, closes = (dt.datetime.combine(start.date(), t) for t in OFFICE_HOURS)
                if opens <= start and end <= closes and not any(overlaps(start, end, b, e) for b, e in busy):
                    found.append((start, NO_ROOM))
                    if len(found) == (task.n or DEFAULT_N):
                        break
            return finish(env, submission(env.level, found))
        except (ToolFailed, ValueError, KeyError) as exc:
            return AgentOutput(answer=None, steps=len(env.trace), error=f"calendar-only: {exc}")


class RandomAgent:
    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    async def run(self, env: Environment) -> AgentOutput:
        try:
            task = read_prompt(env.prompt, env.level)
            rng = random.Random(f"{self.seed}/{env.instance_id}")
            starts = list(grid_starts(task.days()))
            chosen = sorted(rng.sample(starts, min(task.n or DEFAULT_N, len(starts))))
            rooms = [NO_ROOM]
            if env.level == 3:
                rooms = [row["room_id"] for row in parse_markdown_table(Reader(env).text("list_rooms"))] or rooms
            return finish(env, submission(env.level, [(start, rng.choice(rooms)) for start in chosen]))
        except (ToolFailed, ValueError, KeyError) as exc:
            return AgentOutput(answer=None, steps=len(env.trace), error=f"random: {exc}")
