"""The one timestamp format of the benchmark (docs/semantics.md, "Time and the grid"): local wall-clock time,
`YYYY-MM-DDTHH:MM`, no seconds, no offset.

    >>> timestamp_text(dt.datetime(2026, 3, 2, 9, 15))
    '2026-03-02T09:15'
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

TIME_FORMAT = "%Y-%m-%dT%H:%M"


def timestamp_text(moment: dt.datetime) -> str:
    """A moment (naive: local wall-clock time) as the dataset, the tools and the scores write it
    (isoformat, a third of strftime's time: the generator writes hundreds of thousands)."""
    if moment.tzinfo is not None:
        raise ValueError(f"timestamp_text takes a naive local time, not {moment!r}")
    return moment.isoformat(timespec="minutes")


def zone_offset_minutes(world_zone: str, person_zone: str, first: dt.date, last: dt.date) -> int:
    """Minutes to add to a wall-clock time of `world_zone` to get `person_zone`'s wall clock,
    the same on every day from first to last; ValueError where a DST change makes it vary.

    >>> zone_offset_minutes("Europe/Berlin", "America/New_York", dt.date(2026, 4, 6), dt.date(2026, 5, 17))
    -360
    """
    offsets = set()
    day = first
    while day <= last:
        for hour in (0, 12):
            moment = dt.datetime.combine(day, dt.time(hour), tzinfo=zoneinfo.ZoneInfo(world_zone))
            there = moment.astimezone(zoneinfo.ZoneInfo(person_zone)).replace(tzinfo=None)
            offsets.add(int((there - moment.replace(tzinfo=None)).total_seconds() // 60))
        day += dt.timedelta(days=1)
    if len(offsets) != 1:
        raise ValueError(f"the offset of {person_zone} from {world_zone} changes between {first} and {last}")
    return offsets.pop()
