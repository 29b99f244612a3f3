"""Agents, and a minimal offline runner until `mpcbench eval` lands.

    >>> rows = run_offline(con, "scripted", level=3)
    >>> all(row["exact_match"] for row in rows)
    True
"""

from __future__ import annotations

import asyncio

OFFLINE_AGENTS = ("scripted", "calendar-only", "random")


def make_agent(name: str, seed: int = 0):
    """An offline agent by name (see OFFLINE_AGENTS)."""
    from .baselines import CalendarOnlyAgent, RandomAgent
    from .scripted import ScriptedAgent
    if name == "scripted":
        return ScriptedAgent()
    if name == "calendar-only":
        return CalendarOnlyAgent()
    if name == "random":
        return RandomAgent(seed)
    raise ValueError(f"no offline agent {name!r}; choose one of {', '.join(OFFLINE_AGENTS)}")


def score(predicted: list[tuple[str | None, str | None]], gold: list[tuple[str, str | None]]) -> dict:
    """Precision, recall and F1 of predicted candidate keys against the gold keys; exact match
    iff the two sets are equal. A key with start None (unreadable) is predicted but never right."""
    pred, want = set(predicted), set(gold)
    correct = len(pred & want)
    precision = correct / len(pred) if pred else 0.0
    recall = correct / len(want) if want else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"n_pred": len(predicted), "n_correct": correct, "precision": precision, "recall": recall,
            "f1": f1, "exact_match": pred == want}


def gold_keys(con, instance_ids: list[str]) -> dict[str, list[tuple[str, str | None]]]:
    """The oracle's candidate keys per instance: (start, room_id at level 3 else None)."""
    rows = con.execute(
        "select a.instance_id, a.starts_at, case when i.level = 3 then a.room_id end "
        "from oracle_answers as a join instances as i on i.instance_id = a.instance_id "
        "where list_contains($ids, a.instance_id) order by a.instance_id, a.rank", {"ids": instance_ids}).fetchall()
    gold: dict[str, list] = {instance_id: [] for instance_id in instance_ids}
    for instance_id, start, room in rows:
        gold[instance_id].append((start.strftime("%Y-%m-%dT%H:%M"), room))
    return gold


def run_offline(con, agent_name: str, level: int | None = None, instance_ids: list[str] | None = None,
                seed: int = 0) -> list[dict]:
    """Run an offline agent on instances (all of a level, or the given ids) and score each
    against the oracle: one dict per instance."""
    from ..tools import ToolEnvironment
    agent = make_agent(agent_name, seed)
    con = con.cursor()  # this run's own connection: runs may go side by side in threads
    if instance_ids is None:
        instance_ids = [row[0] for row in con.execute(
            "select instance_id from instances where $level is null or level = $level order by level, position",
            {"level": level}).fetchall()]
    gold = gold_keys(con, instance_ids)
    rows = []
    for instance_id in instance_ids:
        with ToolEnvironment(con, instance_id) as env:
            output = asyncio.run(agent.run(env))
            answer = output.answer
            predicted = [] if answer is None else [
                (c.start, c.room_id if env.level == 3 else None) for c in answer.candidates]
            result = score(predicted, gold[instance_id])
            rows.append({"instance_id": instance_id, "level": env.level, "agent": agent_name,
                         "parse_ok": bool(answer and answer.parse_ok), **result,
                         "tool_calls": len(env.trace),
                         "tool_errors": sum(1 for call in env.trace if call.error),
                         "error": output.error or (answer.error if answer else None)})
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
