"""What each level of the benchmark has: one row per level, read wherever code depends on the level.

    >>> level_spec(3).rooms, level_spec(3).calendar_tool
    (True, 'list_events')
    >>> level_spec(2).sources
    ('calendar', 'policy', 'threads')
    >>> LEVELS
    (1, 2, 3, 4)

Standard library only: code mode ships this module into the sandbox with the scripted solver
(agents/code_solver.py). tests/test_levels.py checks the rows against the SQL seed
`level_sources` and the `-- levels:` headers of sql/tools/*.sql.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    number: int
    calendar_tool: str        # get_busy_intervals (busy spans only) or list_events (titles and statuses)
    policy_docs: bool         # policies are handbook documents to read, not get_policy's structured rules
    threads: bool             # the request has a project whose threads add constraints
    request_in_threads: bool  # participants, duration, N, policy and tie-break are said in the threads, not the request
    people_by_name: bool      # people are named, never given by id; first names are shared
    rooms: bool               # each candidate books a room: answers carry a room_id
    tagged: bool              # facts carry [[tags]]; else prose only, and the offline agents read hidden facts
    zones_and_series: bool    # time zones, working hours and recurring series
    owner_decides: bool       # only the project owner's messages set or change the requirements

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources whose constraints the level's instances have, in `sources.SOURCES` order."""
        return ("calendar", "policy") + ("threads",) * self.threads + ("rooms",) * self.rooms


_TABLE = (
    Level(1, calendar_tool="get_busy_intervals", policy_docs=False, threads=False, request_in_threads=False,
          people_by_name=False, rooms=False, tagged=True, zones_and_series=False, owner_decides=False),
    Level(2, calendar_tool="list_events", policy_docs=True, threads=True, request_in_threads=False,
          people_by_name=False, rooms=False, tagged=True, zones_and_series=False, owner_decides=False),
    Level(3, calendar_tool="list_events", policy_docs=True, threads=True, request_in_threads=True,
          people_by_name=True, rooms=True, tagged=True, zones_and_series=False, owner_decides=False),
    Level(4, calendar_tool="list_events", policy_docs=True, threads=True, request_in_threads=True,
          people_by_name=True, rooms=True, tagged=False, zones_and_series=True, owner_decides=True),
)
LEVEL = {level.number: level for level in _TABLE}
LEVELS = tuple(LEVEL)   # the benchmark's levels; level 4 is the held-harder one
LEVEL_NAMES = ", ".join(map(str, LEVELS))   # as messages list them: "1, 2, 3, 4"


def level_spec(number: int) -> Level:
    """The row of a level; ValueError for a number that is no level."""
    try:
        return LEVEL[number]
    except (KeyError, TypeError):
        raise ValueError(f"no level {number!r}; the levels are {', '.join(map(str, LEVELS))}") from None
