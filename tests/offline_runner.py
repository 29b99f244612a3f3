"""A minimal in-process runner of the offline agents for tests (no journal, no tables;
`mpcbench eval` is the real harness). Scores come from `mpcbench.grading.scoring`.

    rows = run_offline(con, "scripted", level=3)
    all(row["exact_match"] for row in rows)           # True
"""

from __future__ import annotations

import asyncio

from mpcbench.agents import make_agent
from mpcbench.episode.engine import play
from mpcbench.episode.environment import Environment
from mpcbench.episode.tools import HiddenFacts
from mpcbench.grading.scoring import gold_keys, quick_score


def run_offline(con, agent_name: str, level: int | None = None, instance_ids: list[str] | None = None,
                seed: int = 0) -> list[dict]:
    """Run an offline agent on instances (all of a level, or the given ids) and score each
    against the oracle: one dict per instance."""
    con = con.cursor()  # this run's own connection: runs may go side by side in threads
    if instance_ids is None:
        instance_ids = [row[0] for row in con.execute(
            "select instance_id from instances where $level is null or level = $level order by level, position",
            {"level": level}).fetchall()]
    gold = gold_keys(con, instance_ids)

    async def episodes() -> list[dict]:   # one after another on one event loop (not one loop and thread each)
        rows = []
        for instance_id in instance_ids:
            with Environment(con, instance_id) as env:
                agent = make_agent(agent_name, seed)   # one object per episode
                output = (await play(agent, env, hidden=HiddenFacts(env.data) if env.level == 4 else None)).out
                calls = [call for call in env.trace if call.tool != "submit_candidates"]
                answer = output.answer
                s = quick_score(env.level, answer, gold[instance_id])
                rows.append({"instance_id": instance_id, "level": env.level, "agent": agent_name,
                             "parse_ok": bool(answer and answer.parse_ok), "n_pred": s.n_pred,
                             "n_correct": s.n_correct, "precision": s.precision, "recall": s.recall, "f1": s.f1,
                             "exact_match": s.exact_match, "tool_calls": len(calls),
                             "tool_errors": sum(1 for call in calls if call.error),
                             "error": output.error or (answer.error if answer else None)})
        return rows

    rows = asyncio.run(episodes())
    con.close()
    return rows


def summarize(rows: list[dict]) -> list[dict]:
    """Mean F1 and EM rate per (agent, level)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["agent"], row["level"]), []).append(row)
    return [{"agent": agent, "level": level, "instances": len(group),
             "f1": sum(r["f1"] for r in group) / len(group),
             "em": sum(r["exact_match"] for r in group) / len(group),
             "tool_calls": sum(r["tool_calls"] for r in group) / len(group)}
            for (agent, level), group in sorted(groups.items())]
