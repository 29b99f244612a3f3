"""The level-4 checks and the rules docs/dataset.md ("Import") settles that a schema cannot say:
an exception names one occurrence of its series, and at most once; a person's working hours end
after they start; a message states each tag type at most once. Each problem is one line with
its file, line and JSON path, like every other check (`checks`).
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from ..timestamps import zone_offset_minutes
from .rows import horizon_days
from .validate import dict_items, parse_moment, schema_pattern, short, text_at


class Checker(Protocol):
    """What these checks use of `checks.Checker` (a protocol, so that neither module imports the other)."""
    data: dict

    def error(self, path: str, message: str) -> None: ...
    def moment(self, path: str, text: str | None, kind: str = "timestamp") -> dt.datetime | None: ...
    def interval(self, path: str, item: dict) -> None: ...
    def known(self, path: str, value: str | None, ids: set[str], what: str, world_id: str = "") -> None: ...
    def unique(self, items: list[tuple[str, str | None]], what: str) -> set[str]: ...


def check_level4(checker: Checker, person_ids: set[str], series: list[tuple[int, dict]]) -> None:
    """Series (ids, people, intervals, exceptions), each person's working hours, and each
    person's zone, whose offset from the world's zone must not change inside the horizon."""
    checker.unique([(f"series[{i}].series_id", text_at(s, "series_id")) for i, s in series], "series_id")
    for i, s in series:
        checker.known(f"series[{i}].person_id", text_at(s, "person_id"), person_ids, "person")
        checker.interval(f"series[{i}]", s)
        check_exceptions(checker, i, s)
    check_working_hours(checker)
    data = checker.data
    try:
        first, last = horizon_days(data)
    except (KeyError, TypeError, ValueError):   # a bad timestamp, reported above
        return
    for i, person in dict_items(data.get("people")):
        zone = text_at(person, "timezone")
        if zone is None or not isinstance(data.get("timezone"), str):
            continue
        try:
            zone_offset_minutes(data["timezone"], zone, first, last)
        except (ValueError, KeyError) as exc:   # an unknown zone, or a DST change inside the horizon
            checker.error(f"people[{i}].timezone", f"{short(zone)}: {exc}")


def occurrence_starts(series: dict, first: dt.datetime) -> set[dt.datetime]:
    """The original starts of a series' occurrences: the first moved by k * every_days days."""
    every, count = series.get("every_days"), series.get("occurrences")
    if not isinstance(every, int) or not isinstance(count, int) or isinstance(every, bool) or count > 100_000:
        return set()
    return {first + dt.timedelta(days=every * k) for k in range(max(count, 0))}


def check_exceptions(checker: Checker, i: int, series: dict) -> None:
    """Each exception names an occurrence of its series by `original_start`, and no two name the
    same one (`event_series_exceptions` has the key (series_id, original_start))."""
    first = parse_moment(text_at(series, "start"))[0]   # a bad start is reported with the series
    starts = occurrence_starts(series, first) if first else set()
    named: dict[dt.datetime, int] = {}
    for j, x in dict_items(series.get("exceptions")):
        path = f"series[{i}].exceptions[{j}]"
        original = checker.moment(f"{path}.original_start", text_at(x, "original_start"))
        if x.get("action") == "moved":
            checker.interval(path, x)
        if original is None:
            continue
        if original in named:
            checker.error(f"{path}.original_start", f"{x['original_start']}: a second exception for the same "
                          f"occurrence (the first is exceptions[{named[original]}]); an occurrence has at most one")
            continue
        named[original] = j
        if first and starts and original not in starts:
            checker.error(f"{path}.original_start", f"{x['original_start']} is not the start of an occurrence of "
                          f"series {short(text_at(series, 'series_id'))} (its first is {series['start']}, then every "
                          f"{series['every_days']} days, {series['occurrences']} in all)")


def check_working_hours(checker: Checker) -> None:
    """A person's working hours end after they start, on their own clock (as a policy's do)."""
    clock = schema_pattern("clock")
    for i, person in dict_items(checker.data.get("people")):
        hours = person.get("working_hours")
        start, end = text_at(hours, "start"), text_at(hours, "end")
        if start and end and clock.search(start) and clock.search(end) and end <= start:
            checker.error(f"people[{i}].working_hours.end", f"{end} is not after start {start} "
                          "(working hours do not cross midnight)")


def check_tag_types_once(checker: Checker, path: str, message: dict) -> None:
    """A message states each tag type at most once: which of two would count is not defined."""
    first: dict[str, int] = {}
    for k, tag in dict_items(message.get("tags")):
        kind = text_at(tag, "type")
        if kind is None:
            continue
        if kind in first:
            checker.error(f"{path}.tags[{k}].type", f"a second {short(kind)} tag in message "
                          f"{short(text_at(message, 'message_id'))} (the first is tags[{first[kind]}]); "
                          "a message states each tag type at most once")
        else:
            first[kind] = k
