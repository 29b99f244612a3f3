"""Working minutes: when people write messages (weekdays, 08:00-19:00 in the world's time zone).

A moment maps to its index among all working minutes (moments outside the hours map to the
next working minute), so that message times can be advanced and squeezed in working time and
every message still lands inside the hours.

    >>> at_work_index(work_index(dt.datetime(2026, 3, 7, 12, 0)))   # a Saturday
    datetime.datetime(2026, 3, 9, 8, 0)
"""

from __future__ import annotations

import datetime as dt

DAY_START = 8 * 60
DAY_MINUTES = 11 * 60            # 08:00-19:00
EPOCH = dt.date(2024, 1, 1)      # a Monday


def work_index(moment: dt.datetime) -> int:
    days = (moment.date() - EPOCH).days
    weeks, weekday = divmod(days, 7)
    if weekday >= 5:
        return (weeks * 5 + 5) * DAY_MINUTES
    minute = moment.hour * 60 + moment.minute - DAY_START
    return (weeks * 5 + weekday) * DAY_MINUTES + min(max(minute, 0), DAY_MINUTES)


def at_work_index(index: int) -> dt.datetime:
    day, minute = divmod(index, DAY_MINUTES)
    weeks, weekday = divmod(day, 5)
    date = EPOCH + dt.timedelta(days=weeks * 7 + weekday)
    return dt.datetime.combine(date, dt.time()) + dt.timedelta(minutes=DAY_START + minute)


def spread_before(indices: list[int], limit: int) -> list[int]:
    """Increasing indices squeezed into [indices[0], limit) keeping their order and their
    relative gaps, no two equal (when there is room for that)."""
    last = indices[-1]
    if last < limit:
        return indices
    first = min(indices[0], limit - len(indices))
    scale = (limit - 1 - first) / max(last - indices[0], 1)
    spread = [first + int((i - indices[0]) * scale) for i in indices]
    for i in range(1, len(spread)):
        spread[i] = max(spread[i], spread[i - 1] + 1)
    spread[-1] = min(spread[-1], limit - 1)
    for i in range(len(spread) - 2, -1, -1):
        spread[i] = min(spread[i], spread[i + 1] - 1)
    return spread
