"""The sources an instance's constraints come from, in their one order: the order verdicts,
failure causes and reports list them in (the SQL table `level_sources` says which level
requires which).

    >>> SOURCES
    ('calendar', 'policy', 'threads', 'rooms')
    >>> LEVELS
    (1, 2, 3, 4)
"""

SOURCES = ("calendar", "policy", "threads", "rooms")
LEVELS = (1, 2, 3, 4)   # the benchmark's levels; level 4 is the held-harder one
