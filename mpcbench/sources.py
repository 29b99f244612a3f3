"""The sources an instance's constraints come from, in their one order: the order verdicts,
failure causes and reports list them in (`levels.Level.sources` and the SQL table
`level_sources` say which level requires which).

    >>> SOURCES
    ('calendar', 'policy', 'threads', 'rooms')
    >>> LEVELS
    (1, 2, 3, 4)
"""

from .levels import LEVELS

SOURCES = ("calendar", "policy", "threads", "rooms")
__all__ = ["LEVELS", "SOURCES"]
