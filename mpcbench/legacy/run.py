"""One agent on one task: the seed's run log, checked against `run_log_schema.json`.

    log = await run_task(con, task, "offline:scripted")
    log["tool_trace_steps"][0]      # 'Step 1: Calendar.list_events(start_date="2025-06-10", ...)'
    log["raw_tool_calls"][0]        # {"step", "tool_name", "arguments", "result" (in full), "error"}

The run log holds what the judge will see (the tool calls with their full results, the final
answer, the rationale) and what the scores table needs (steps, tokens, an endpoint error).
No wall-clock time goes in: the same agent on the same data writes the same bytes.
"""

from __future__ import annotations

import json

import duckdb

from .agents import MAX_STEPS, play
from .backend import Call, ToolBackend
from .models import Endpoint
from .project import UserError
from .validate import problems

ARGUMENT_CHARS = 60


def trace_step(call: Call) -> str:
    """The human-readable line of one call.

    >>> trace_step(Call(1, "Jira.get_issue", {"key": "AUR-101"}, "{}", None))
    'Step 1: Jira.get_issue(key="AUR-101")'
    """
    shown = []
    for name, value in call.arguments.items():
        text = json.dumps(value, ensure_ascii=False)
        shown.append(f"{name}={text if len(text) <= ARGUMENT_CHARS else text[:ARGUMENT_CHARS] + '...'}")
    return f"Step {call.step}: {call.tool_name}({', '.join(shown)})" + (" -> error" if call.error else "")


def raw_call(call: Call) -> dict:
    return {"step": call.step, "tool_name": call.tool_name, "arguments": call.arguments, "result": call.result,
            "error": call.error}


async def run_task(con: duckdb.DuckDBPyConnection, task: dict, agent_model: str, endpoint: Endpoint | None = None,
                   max_steps: int = MAX_STEPS) -> dict:
    """Play the task and return its run log (valid against the schema, or an error saying where not)."""
    try:
        backend = ToolBackend(con, task["scenario_id"])
    except KeyError as e:
        raise UserError(f"task {task['task_id']}: {e.args[0]}") from None
    with backend:
        answer = await play(agent_model, task, backend, endpoint, max_steps)
        trace = list(backend.trace)
    log = {"task_id": task["task_id"], "task_type": task["task_type"], "scenario_id": task["scenario_id"],
           "user_prompt": task["user_prompt"], "agent_model": agent_model,
           "tool_trace_steps": [trace_step(c) for c in trace], "raw_tool_calls": [raw_call(c) for c in trace],
           "final_answer": answer.final_answer, "rationale": answer.rationale,
           "answer_parse_ok": answer.answer_parse_ok, "steps": answer.steps, "prompt_tokens": answer.prompt_tokens,
           "completion_tokens": answer.completion_tokens, "error": answer.error}
    found = problems(log, "run_log")
    if found:
        raise UserError(f"the run log of {task['task_id']} with {agent_model} is not valid: {found[0]}")
    return log
