"""The sources an instance's constraints come from, in their one order: the order verdicts,
failure causes and reports list them in (the SQL table `level_sources` says which level
requires which).

    >>> SOURCES
    ('calendar', 'policy', 'threads', 'rooms')
"""

SOURCES = ("calendar", "policy", "threads", "rooms")
