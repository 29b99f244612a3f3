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
import re
from collections.abc import Iterator

from ..episode.environment import Environment
from ..levels import level_spec
from .offline import OfflineAgent
from .scripted import DAY, GRID, Reader, overlaps, parse_markdown_table, read_prompt

_LISTED = re.compile(r"^- (\d{4}-\d{2}-\d{2}T\d{2}:\d{2})", re.MULTILINE)

OFFICE_HOURS = (dt.time(9, 0), dt.time(17, 0))
DEFAULT_DURATION_MIN = 60
DEFAULT_N = 3
NO_ROOM = "unknown"


def grid_starts(days: list[dt.date]) -> Iterator[dt.datetime]:
    for day in days:
        start = dt.datetime.combine(day, dt.time(0, 0))
        while start.date() == day:
            yield start
            start += GRID


class CalendarOnlyAgent(OfflineAgent):
    """Also the baseline that reads feedback: a later turn drops every start the feedback names
    as wrong and moves on to the next free ones (feedback that names none changes nothing)."""
    name = "calendar-only"

    def answer(self, env: Environment, feedback: str | None) -> list[tuple[dt.datetime, str | None]]:
        if feedback is None:
            task = read_prompt(env.request, env.level)
            read = Reader(env)
            self.task, self.ruled_out = task, set()
            self.busy = [span for person in task.participants
                         for span in read.busy(person, task.window_start - DAY, task.window_end + DAY)]
        else:
            self.ruled_out |= named_starts(feedback)
        task = self.task
        duration = dt.timedelta(minutes=task.duration_min or DEFAULT_DURATION_MIN)
        found: list[tuple[dt.datetime, str | None]] = []
        for start in grid_starts(task.days()):
            end = start + duration
            opens, closes = (dt.datetime.combine(start.date(), t) for t in OFFICE_HOURS)
            if (opens <= start and end <= closes and start not in self.ruled_out
                    and not any(overlaps(start, end, b, e) for b, e in self.busy)):
                found.append((start, NO_ROOM))
                if len(found) == (task.n or DEFAULT_N):
                    break
        return found


def named_starts(feedback: str) -> set[dt.datetime]:
    """The starts a feedback text lists as wrong (its "- YYYY-MM-DDTHH:MM..." lines)."""
    return {dt.datetime.strptime(m, "%Y-%m-%dT%H:%M") for m in _LISTED.findall(feedback)}


class RandomAgent(OfflineAgent):
    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def answer(self, env: Environment, feedback: str | None) -> list[tuple[dt.datetime, str | None]]:
        if feedback is None:
            task = read_prompt(env.request, env.level)
            rng = random.Random(f"{self.seed}/{env.instance_id}")
            starts = list(grid_starts(task.days()))
            chosen = sorted(rng.sample(starts, min(task.n or DEFAULT_N, len(starts))))
            rooms = [NO_ROOM]
            if level_spec(env.level).rooms:
                rooms = [row["room_id"] for row in parse_markdown_table(Reader(env).text("list_rooms"))] or rooms
            self.found: list[tuple[dt.datetime, str | None]] = [(start, rng.choice(rooms)) for start in chosen]
        return self.found
