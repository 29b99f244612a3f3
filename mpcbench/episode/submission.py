"""A `submit_candidates` call, handled the same way by every agent loop that offers the tool
(the OpenAI agent, the MCP server, the Inspect task): parse the arguments, record the call in the
environment's trace like any tool call, and give the text the agent reads back.

    answer = submit_call(env, '{"candidates": [{"start": "2026-03-02T09:30"}]}', turn=1)
    env.trace[-1].result        # 'Submitted 1 candidate.'

Arguments that fail the JSON Schema give `answer.parse_ok == False` and an `error: ...` text
that asks for a fixed call.
"""

from __future__ import annotations

import json
import time

from .answers import SUBMIT_TOOL_NAME, ParsedAnswer, parse_submission
from .contract import Environment, ToolCall


def submitted_text(answer: ParsedAnswer) -> str:
    """What an agent reads back after a submission (an `error: ...` text when it is rejected)."""
    if not answer.parse_ok:
        return f"error: {answer.error}. Fix the arguments and call {SUBMIT_TOOL_NAME} again."
    n = len(answer.candidates)
    return f"Submitted {n} candidate{'s' if n != 1 else ''}."


def submit_call(env: Environment, arguments: str | dict | None, *, turn: int = 1) -> ParsedAnswer:
    """Parse a submission and record it in `env.trace`; the text read back is the trace's result."""
    started = time.perf_counter()
    answer = parse_submission({} if arguments is None else arguments, env.level)
    sent = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False, default=repr)
    env.trace.append(ToolCall(turn=turn, step=len(env.trace) + 1, tool=SUBMIT_TOOL_NAME, arguments=sent,
                              result=submitted_text(answer), latency_ms=(time.perf_counter() - started) * 1000,
                              error=None if answer.parse_ok else answer.error))
    return answer
