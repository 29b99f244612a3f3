"""What a level-4 world adds to the level-3 one: each person's home time zone and working hours
there, and recurring (weekly) events with exceptions (a cancelled or moved occurrence).

    hours = person_hours(config, people)     # {person_id: {"timezone", "working_hours"}}
    series = event_series(config, people)    # [{"series_id", ..., "exceptions": [...]}]

Both draw from their own seeded generators, so levels 1-3 (which never call them) are unchanged.
The grid stays in the world's (the organiser's) zone; `zone_offset_minutes` is how far a
person's wall clock is from it, and must not change inside the world's horizon.
"""

from __future__ import annotations

import datetime as dt
import random

from ..timestamps import timestamp_text, zone_offset_minutes
from .ids import id_key, opaque_id
from .wording import wording_for


def _rng(config, purpose: str) -> random.Random:
    return random.Random(f"{config.seed}/{config.level}/{purpose}")


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def person_hours(config, people: list[dict]) -> dict[str, dict]:
    """Each person's home zone (the world's, or `[zones] other` for a share of them) and their
    working hours in it: a start on the config's grid and a length."""
    spec = config.zones
    rng = _rng(config, "zones")
    found = {}
    for person in people:
        away = rng.random() < spec["other_share"]
        zone = spec["other"] if away else config.timezone
        low, high, step = (spec["other_start"] if away else spec["home_start"])
        start = _minutes(low) + step * rng.randint(0, (_minutes(high) - _minutes(low)) // step)
        length = rng.choice(spec["minutes"])
        found[person["person_id"]] = {"timezone": zone,
                                      "working_hours": {"start": _clock(start), "end": _clock(start + length)}}
    return found


def event_series(config, people: list[dict], days: list[dt.date]) -> list[dict]:
    """Weekly series over the horizon: per person `[series] per_person` of them, each starting in
    the first week; a share of series has one occurrence cancelled and one moved."""
    spec = config.series
    rng = _rng(config, "series")
    key = id_key(config, "series")
    weeks = len(days) // 7
    found: list[dict] = []
    for person in people:
        for _ in range(rng.randint(*spec["per_person"])):
            first_day = days[rng.randint(0, 4)]                      # a weekday of the first week
            minutes = rng.choice(spec["durations"])
            start = dt.datetime.combine(first_day, dt.time()) + dt.timedelta(
                minutes=_minutes(spec["day_start"]) + 15 * rng.randint(0, (_minutes(spec["day_end"]) - _minutes(spec["day_start"]) - minutes) // 15))
            status = "tentative" if rng.random() < spec["tentative_share"] else "confirmed"
            series = {
                "series_id": f"ser-{opaque_id(key, len(found))}",
                "person_id": person["person_id"],
                "start": timestamp_text(start),
                "end": timestamp_text(start + dt.timedelta(minutes=minutes)),
                "every_days": 7,
                "occurrences": weeks,
                "status": status,
                "title": wording_for(config).pick(rng, "series_titles"),
                "exceptions": [],
            }
            if rng.random() < spec["exception_share"]:
                cancelled, moved = rng.sample(range(weeks), 2)
                when = start + dt.timedelta(days=7 * cancelled)
                series["exceptions"].append({"original_start": timestamp_text(when), "action": "cancelled",
                                             "start": None, "end": None})
                when = start + dt.timedelta(days=7 * moved)
                to = when + dt.timedelta(days=rng.choice((0, 0, 1)), minutes=rng.choice((-120, -60, 60, 120, 180)))
                series["exceptions"].append({"original_start": timestamp_text(when), "action": "moved",
                                             "start": timestamp_text(to),
                                             "end": timestamp_text(to + dt.timedelta(minutes=minutes))})
                series["exceptions"].sort(key=lambda x: x["original_start"])
            found.append(series)
    return found



def to_world_clock(config, people: list[dict], events: list[dict], series: list[dict]) -> None:
    """Calendars are drawn in each person's own day (07:30-18:30 there) and stored on the world's
    clock: a person `offset` minutes behind has every event and occurrence moved `-offset` later."""
    last = config.start_date + dt.timedelta(days=config.days - 1)
    shift = {p["person_id"]: -zone_offset_minutes(config.timezone, p["timezone"], config.start_date, last)
             for p in people}

    def moved(text: str | None, minutes: int) -> str | None:
        return text and timestamp_text(dt.datetime.fromisoformat(text) + dt.timedelta(minutes=minutes))

    for event in events:
        minutes = shift[event["person_id"]]
        event["start"], event["end"] = moved(event["start"], minutes), moved(event["end"], minutes)
    for s in series:
        minutes = shift[s["person_id"]]
        s["start"], s["end"] = moved(s["start"], minutes), moved(s["end"], minutes)
        for x in s["exceptions"]:
            for key in ("original_start", "start", "end"):
                x[key] = moved(x[key], minutes)
