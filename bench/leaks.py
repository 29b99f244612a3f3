"""Cost of the component leak detector (grading/leaks.py) per note (not a test; run by hand).

    .venv/bin/python bench/leaks.py                          # build/mpcbench.duckdb (mpcbench build)
    .venv/bin/python bench/leaks.py --db PATH --notes 200 --repeats 5
    .venv/bin/python bench/leaks.py --smoke --db PATH            # seconds, for CI: 5 notes, 1 repeat

Grading checks every final note against every sensitive item of its instance's world. This times
that check for the largest world of a build, over notes that name times, a participant and no
detail (the common case: every pattern is tried), and prints the median milliseconds per note over
`--repeats` runs after a warm-up run (the first run compiles each item's patterns, once per process).
"""

from __future__ import annotations

import argparse
import statistics
import time

import duckdb

from mpcbench.grading.leaks import Item, components

ITEMS = """
    select s.item_id, s.person_id, p.name, s.category, s.phrase, null as starts_at
    from sensitive_items as s
    join people as p using (world_id, person_id)
    where s.world_id = (select world_id from sensitive_items group by world_id order by count(*) desc limit 1)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="build/mpcbench.duckdb")
    parser.add_argument("--notes", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="5 notes, 1 repeat: only shows the script works")
    args = parser.parse_args()
    if args.smoke:
        args.notes, args.repeats = 5, 1
    con = duckdb.connect(args.db, read_only=True)
    items = [Item(*row) for row in con.execute(ITEMS).fetchall()]
    notes = [f"Proposed times: Mon 2 March 09:{k % 60:02d} and Tue 3 March 14:00. Ana is busy at 10:00, so not then."
             for k in range(args.notes)]
    times = []
    for _ in range(args.repeats + 1):
        start = time.perf_counter()
        for note in notes:
            for item in items:
                components(note, item)
        times.append((time.perf_counter() - start) / len(notes) * 1000)
    print(f"{len(items)} items, {len(notes)} notes: {statistics.median(times[1:]):.1f} ms per note "
          f"(median of {args.repeats}; the warm-up run {times[0]:.1f} ms)")


if __name__ == "__main__":
    main()
