"""The legacy two-axis judge: a judge input built from a run log and its task, and a judge
that scores it, each 0-5 with a justification.

    judge_input = build_judge_input(run_log, task)
    result = await judge(judge_input, "gpt-4o", endpoint)     # or "offline:heuristic"
    result["answer_requirements_satisfaction"]["score"]        # 0..5, or None on a failure

The judge sees the judge input only (no tools, no agent or model name): the request, the
answer requirements, every recorded tool call with its full result, the final answer and the
rationale. A model judge's reply must be one JSON object valid against
`judge_reply_schema.json` (both axes, integer scores 0-5, non-empty justifications); any other
reply is sent back with the problem and its JSON path, up to `attempts` times, after which the
result is recorded as a `judge_failure` (so is an input longer than the judge's context: the
judge model's limit; an endpoint that fails: `infra_error`), never as a score. `constrained=True` also sends `reply_format()` as the request's `response_format`, so that
a server that supports it (OpenAI, llama.cpp's llama-server) can only sample a reply of that
shape: what a small model needs to answer in JSON at all.

`offline:heuristic` is a deterministic stand-in with no model, so that the pipeline runs with
no key. It reads like a careless judge: satisfaction is the share of requirements whose
backticked terms all appear in the final answer (requirements without any are taken as met
when the answer is not empty); grounding is the share of the answer's checkable facts (dates,
times, ticket keys, emails) found in the recorded tool results. Shares become scores as
floor(5 x share + 0.5).
"""

from __future__ import annotations

import json
import math
import re

from .archive import prompt_config
from .models import OFFLINE_PREFIX, Endpoint
from .project import InfrastructureError, ModelLimitError, UserError
from .validate import parse_reply, problems, schema

AXES = ("answer_requirements_satisfaction", "source_grounded_reasoning")
JUDGE_ATTEMPTS = 3
HEURISTIC = OFFLINE_PREFIX + "heuristic"
JUSTIFICATION_CHARS = 120      # a constrained reply's justifications stop there
_TERM = re.compile(r"`([^`]+)`")
_FACT = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b[A-Z][A-Z0-9]{1,9}-\d+\b|[\w.+-]+@[\w-]+\.[\w.]+")


def build_judge_input(run_log: dict, task: dict) -> dict:
    """The seed's judge input: the run log's request, trace, answer and rationale (verbatim), the
    task's answer requirements, and `tool_trace` (the calls with step indices)."""
    out = {"task_id": run_log["task_id"], "task_type": task.get("task_type", run_log["task_type"]),
           "user_prompt": run_log["user_prompt"], "answer_requirements": task["answer_requirements"],
           "tool_trace_steps": run_log["tool_trace_steps"], "raw_tool_calls": run_log["raw_tool_calls"],
           "tool_trace": [{"step_index": c["step"], "tool_name": c["tool_name"], "arguments": c["arguments"],
                           "result": c["result"]} for c in run_log["raw_tool_calls"]],
           "final_answer": run_log["final_answer"], "rationale": run_log["rationale"]}
    found = problems(out, "judge_input")
    if found:
        raise ValueError(f"the judge input of {run_log['task_id']} is not valid: {found[0]}")
    return out


def _score(share: float) -> int:
    return math.floor(5 * share + 0.5)


def heuristic(judge_input: dict) -> dict:
    """The offline judge's two axes (see the module docstring)."""
    answer = judge_input["final_answer"]
    low = answer.lower()
    checked = [(req, _TERM.findall(req)) for req in judge_input["answer_requirements"]]
    checkable = [(req, terms) for req, terms in checked if terms]
    if checkable:
        missing = [f"`{t}`" for _, terms in checkable for t in terms if t.lower() not in low]
        met = sum(all(t.lower() in low for t in terms) for _, terms in checkable)
        satisfaction = {"score": _score(met / len(checkable)),
                        "justification": f"{met} of {len(checkable)} requirements have all their terms in the answer"
                                         + (f"; missing {', '.join(dict.fromkeys(missing))}." if missing else ".")}
    else:
        satisfaction = {"score": 5 if answer.strip() else 0,
                        "justification": "No requirement names a checkable term; "
                                         + ("the answer is not empty." if answer.strip() else "the answer is empty.")}
    evidence = "\n".join(c["result"] for c in judge_input["raw_tool_calls"] if not c.get("error"))
    facts = list(dict.fromkeys(_FACT.findall(answer + "\n" + judge_input["rationale"])))
    if facts:
        unsupported = [f for f in facts if f not in evidence]
        grounding = {"score": _score((len(facts) - len(unsupported)) / len(facts)),
                     "justification": f"{len(facts) - len(unsupported)} of {len(facts)} checkable facts appear in the "
                                      "tool results" + (f"; not found: {', '.join(unsupported[:8])}." if unsupported else ".")}
    else:
        grounding = {"score": 3 if evidence else 0,
                     "justification": "The answer states no checkable fact; "
                                      + ("tools were used." if evidence else "no tool result backs it.")}
    return {AXES[0]: satisfaction, AXES[1]: grounding}


def reply_format() -> dict:
    """The `response_format` of a constrained judge request: judge_reply_schema.json's two axes
    (no other key), each justification at most JUSTIFICATION_CHARS characters.

    >>> fmt = reply_format()["json_schema"]["schema"]
    >>> fmt["required"], fmt["properties"][AXES[0]]["properties"]["justification"]["maxLength"]
    (['answer_requirements_satisfaction', 'source_grounded_reasoning'], 120)
    """
    axis = schema("judge_reply")["$defs"]["axis"]
    justification = {**axis["properties"]["justification"], "maxLength": JUSTIFICATION_CHARS}
    axis = {**axis, "properties": {**axis["properties"], "justification": justification}}
    reply = {"type": "object", "properties": {name: axis for name in AXES}, "required": list(AXES),
             "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "judge_reply", "strict": True, "schema": reply}}


def _outcome(status: str, axes: dict | None, attempts: int, error: str | None) -> dict:
    return {"status": status, AXES[0]: axes[AXES[0]] if axes else None, AXES[1]: axes[AXES[1]] if axes else None,
            "attempts": attempts, "error": error}


async def judge(judge_input: dict, judge_model: str, endpoint: Endpoint | None = None, *,
                attempts: int = JUDGE_ATTEMPTS, trial: int = 1, constrained: bool = False) -> dict:
    """The judge's outcome: {status, both axes (or None), attempts, error}. `trial` > 1 asks again
    with another seed (how stable is the judge?); `constrained` sends `reply_format()`."""
    if judge_model == HEURISTIC:
        return _outcome("ok", heuristic(judge_input), 0, None)
    if judge_model.startswith(OFFLINE_PREFIX):
        raise UserError(f"no offline judge {judge_model!r}; there is {HEURISTIC}")
    if endpoint is None:
        raise UserError(f"{judge_model} is a model on an endpoint; give an Endpoint")
    client = endpoint.client(judge_model)
    messages = [{"role": "system", "content": prompt_config()["evaluation"]["judge"]["system_prompt"]},
                {"role": "user", "content": json.dumps(judge_input, ensure_ascii=False)}]
    problem = None
    extra = {"response_format": reply_format()} if constrained else {}
    for attempt in range(1, attempts + 1):
        try:
            result = await client.complete({"messages": messages, **endpoint.sampling(trial - 1), **extra})
        except InfrastructureError as e:
            return _outcome("infra_error", None, attempt, f"{e.kind}: {e.message}")
        except ModelLimitError as e:   # the judge model's own limit (its context): the judge failed
            return _outcome("judge_failure", None, attempt, f"{e.cause}: {e.message}")
        text = result.message.get("content") or ""
        data, problem = parse_reply(text)
        if data is not None:
            found = problems(data, "judge_reply")
            problem = found[0] if found else None
        if data is not None and problem is None:
            return _outcome("ok", {axis: {"score": data[axis]["score"], "justification": data[axis]["justification"]}
                                   for axis in AXES}, attempt, None)
        messages += [{"role": "assistant", "content": text},
                     {"role": "user", "content": f"Your reply was rejected: {problem}. Reply again with the whole "
                                                 "JSON object only, as the system message describes."}]
    return _outcome("judge_failure", None, attempts, f"invalid judge output after {attempts} attempts: {problem}")


def judge_result(task_id: str, agent_model: str, judge_model: str, outcome: dict) -> dict:
    """The judge result file (valid against `judge_result_schema.json`)."""
    out = {"task_id": task_id, "agent_model": agent_model, "judge_model": judge_model, **outcome}
    found = problems(out, "judge_result")
    if found:
        raise ValueError(f"the judge result of {task_id} is not valid: {found[0]}")
    return out
