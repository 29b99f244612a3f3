"""Equal difficulty of the public `dev` split and private `test` splits (not a test; run by hand).

    python bench/splits.py                           # 100 instances a level, two test secrets
    python bench/splits.py --instances 30 --secrets a,b,c
    python bench/splits.py --levels 4 --instances 50
    python bench/splits.py --smoke                   # seconds, for CI: level 1, 2 instances, one secret

Builds `dev` and one `test` split per secret, then compares per level, with percentile
bootstrap 95 % intervals of the mean: the scripted solver's effort (tool calls, characters read),
the calendar-only baseline's F1, the feasible starts (`n_feasible`) and, per constraint kind, the
in-hours starts it kills. The bootstrap resamples whole policies (a world
draws its own 8-15 policies, and instances that share a policy are not independent draws of the
split's distribution), so the intervals carry the policy draw's variance too. Prints a Markdown
table; docs/warehouse.md ("Equal difficulty of the splits") quotes a run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from mpcbench.agents import make_agent
from mpcbench.episode.engine import play
from mpcbench.episode.environment import Environment
from mpcbench.episode.tools import HiddenFacts
from mpcbench.grading.scoring import gold_keys, quick_score
from mpcbench.report.stats import bootstrap_ci, mean
from mpcbench.sources import LEVELS
from mpcbench.warehouse import build, db

KILLED_PER_KIND = """
    select v.instance_id, v.constraint_kind, count(distinct v.starts_at) as killed
    from int_violations v join int_framed_grid g using (instance_id, starts_at)
    group by all
"""


def agent_figures(con, agent_name: str) -> dict[str, dict]:
    """Per instance: tool calls, characters read and F1 of one offline agent."""
    ids = [i for (i,) in con.execute("select instance_id from instances order by level, position").fetchall()]
    gold = gold_keys(con, ids)
    figures = {}
    for instance_id in ids:
        with Environment(con, instance_id) as env:
            hidden = HiddenFacts(env.data) if env.level == 4 else None
            output = asyncio.run(play(make_agent(agent_name, 0), env, hidden=hidden)).out
            reads = [c for c in env.trace if c.tool != "submit_candidates"]
            score = quick_score(env.level, output.answer, gold[instance_id])
            figures[instance_id] = {"calls": len(reads), "chars": sum(len(c.result) for c in reads),
                                    "f1": score.f1, "em": float(score.exact_match)}
    return figures


Figures = dict[tuple[int, str], list[tuple[float, str]]]


def split_figures(path: Path) -> Figures:
    """(level, metric) -> one (value, policy id) per instance."""
    con = db.connect(path, read_only=True)
    levels = dict(con.execute("select instance_id, level from instances").fetchall())
    policies = dict(con.execute("select instance_id, policy_id from stg_instances").fetchall())
    values: Figures = {}

    def add(instance_id: str, metric: str, value: float) -> None:
        values.setdefault((levels[instance_id], metric), []).append((value, policies[instance_id]))

    for instance_id, f in agent_figures(con, "scripted").items():
        add(instance_id, "scripted tool calls", f["calls"])
        add(instance_id, "scripted characters read", f["chars"])
        add(instance_id, "scripted EM", f["em"])
    for instance_id, f in agent_figures(con, "calendar-only").items():
        add(instance_id, "calendar-only F1", f["f1"])
    for instance_id, n in con.execute("select instance_id, n_feasible from oracle_summary").fetchall():
        add(instance_id, "n_feasible", n)
    killed = {(i, k): n for i, k, n in con.execute(KILLED_PER_KIND).fetchall()}
    kinds = sorted({k for _, k in killed})
    for instance_id in levels:
        for kind in kinds:
            add(instance_id, f"starts killed: {kind}", killed.get((instance_id, kind), 0))
    con.close()
    return values


def cell(pairs: list[tuple[float, str]]) -> str:
    values, clusters = [v for v, _ in pairs], [c for _, c in pairs]
    lo, hi = bootstrap_ci(values, clusters)
    return f"{mean(values):.2f} [{lo:.2f}, {hi:.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--levels", default=",".join(map(str, LEVELS)))
    parser.add_argument("--secrets", default="bench-secret-1,bench-secret-2")
    parser.add_argument("--out", type=Path, help="Also write the table to this Markdown file.")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): level 1, 2 instances a level and "
                             "one test secret (unless given); its figures mean nothing")
    args = parser.parse_args()
    if args.smoke:
        for name, value in {"instances": 2, "levels": "1", "secrets": "bench-secret-1"}.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    secrets = args.secrets.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        names = ["dev"] + [f"test ({s})" for s in secrets]
        paths = [Path(tmp) / f"{i}.duckdb" for i in range(len(names))]
        levels = tuple(int(level) for level in args.levels.split(","))
        build.build(paths[0], levels, args.instances, jobs=os.cpu_count() or 1)
        for path, secret in zip(paths[1:], secrets):
            build.build(path, levels, args.instances, jobs=os.cpu_count() or 1, split="test", secret=secret)
        figures = [split_figures(p) for p in paths]
    keys = sorted(set().union(*figures), key=lambda k: (k[0], not k[1].startswith("scripted"), k[1]))
    lines = [f"{args.instances} instances a level; mean [bootstrap 95 % interval, policies resampled]", "",
             "| level | metric | " + " | ".join(names) + " |",
             "| --- | --- | " + " | ".join("---" for _ in names) + " |"]
    for level, metric in keys:
        cells = [cell(f[(level, metric)]) if (level, metric) in f else "—" for f in figures]
        lines.append(f"| {level} | {metric} | " + " | ".join(cells) + " |")
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
