"""The one timestamp format of the benchmark (DESIGN.md section 2): local wall-clock time,
`YYYY-MM-DDTHH:MM`, no seconds, no offset.

    >>> timestamp_text(dt.datetime(2026, 3, 2, 9, 15))
    '2026-03-02T09:15'
"""

from __future__ import annotations

import datetime as dt

TIME_FORMAT = "%Y-%m-%dT%H:%M"


def timestamp_text(moment: dt.datetime) -> str:
    """A moment as the dataset, the tools and the scores write it."""
    return moment.strftime(TIME_FORMAT)
