"""The legacy agents: a model behind an OpenAI-compatible endpoint, and two offline ones.

    answer = await play("offline:scripted", task, backend)            # no endpoint
    answer = await play("gpt-4o-mini", task, backend, endpoint)       # the tool loop

- The model agent gets the agent system message of `prompt_config.json`, the task's
  user_prompt and every legacy tool, runs each tool call of each reply, and ends with a reply
  without tool calls that holds {"final_answer", "rationale"} as JSON (read leniently; a reply
  that is not that JSON is kept as the answer, with answer_parse_ok false).
- `offline:scripted` calls the task's expected_tool_sequence and writes its answer from what
  the tools returned, item by item: an upper reference that proves the tasks answerable from
  the tools (it knows which calls to make, not what they return).
- `offline:bad` calls no tool and answers with confident, made-up facts: what a judge must
  catch.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re

from .archive import prompt_config
from .backend import ToolBackend, find_tool
from .models import OFFLINE_PREFIX, Endpoint
from .project import InfrastructureError, ModelLimitError, UserError
from .validate import parse_reply

OFFLINE_AGENTS = ("scripted", "bad")
MAX_STEPS = 20
RESULT_CHARS = 1500      # how much of a text result the scripted agent quotes
ITEM_FIELDS = ("key", "title", "summary", "subject", "name", "start", "end", "ts", "date", "status", "priority",
               "assignee", "due_date", "organizer", "attendees", "location", "author", "sender", "text", "body",
               "latest_snippet", "description", "comments")
_ADDRESSEE = re.compile(r"\b(?:reply to|to) ([A-Z][a-z]+)\b")
_CAPITALIZED = re.compile(r"\b([A-Z][a-z]+)\b")


@dataclasses.dataclass
class Answer:
    final_answer: str
    rationale: str
    answer_parse_ok: bool
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None         # an endpoint failure (infrastructure), not the model's fault


async def play(agent_model: str, task: dict, backend: ToolBackend, endpoint: Endpoint | None = None,
               max_steps: int = MAX_STEPS) -> Answer:
    """Run one agent on one task over the backend (whose trace records every call)."""
    if agent_model == OFFLINE_PREFIX + "scripted":
        return await asyncio.to_thread(scripted, task, backend)
    if agent_model == OFFLINE_PREFIX + "bad":
        return bad(task)
    if agent_model.startswith(OFFLINE_PREFIX):
        raise UserError(f"no offline agent {agent_model!r}; there are: "
                         + ", ".join(OFFLINE_PREFIX + name for name in OFFLINE_AGENTS))
    if endpoint is None:
        raise UserError(f"{agent_model} is a model on an endpoint; give an Endpoint")
    return await tool_loop(agent_model, task, backend, endpoint, max_steps)


async def tool_loop(model: str, task: dict, backend: ToolBackend, endpoint: Endpoint, max_steps: int) -> Answer:
    client = endpoint.client(model)
    messages = [{"role": "system", "content": prompt_config()["evaluation"]["agent"]["system_message"]},
                {"role": "user", "content": task["user_prompt"]}]
    tools = [spec.openai() for spec in backend.tools]
    out = Answer("", "", False)
    while out.steps < max_steps:
        try:
            result = await client.complete({"messages": messages, "tools": tools, **endpoint.sampling()})
        except InfrastructureError as e:
            out.error = f"{e.kind}: {e.message}"
            return out
        except ModelLimitError:   # the model's own limit: it ends with what it answered, scored
            return out
        out.steps += 1
        out.prompt_tokens += result.usage.get("prompt_tokens", 0)
        out.completion_tokens += result.usage.get("completion_tokens", 0)
        messages.append(result.message)
        calls = result.message.get("tool_calls") or []
        if not calls:
            text = result.message.get("content") or ""
            data, _ = parse_reply(text)
            if data is not None and isinstance(data.get("final_answer"), str):
                rationale = data.get("rationale")
                out.final_answer, out.answer_parse_ok = data["final_answer"], True
                out.rationale = rationale if isinstance(rationale, str) else json.dumps(rationale or "")
            else:
                out.final_answer = text
            return out
        for call in calls:
            function = call.get("function") or {}
            text = await asyncio.to_thread(backend.call, function.get("name") or "", function.get("arguments") or "")
            messages.append({"role": "tool", "tool_call_id": call.get("id") or "", "content": text})
    out.rationale = f"(stopped after {max_steps} model calls without a final answer)"
    return out


# --- offline agents --------------------------------------------------------------------------

def _value(value) -> str:
    if isinstance(value, list):
        return "; ".join(_value(v) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k}: {_value(v)}" for k, v in value.items())
    return str(value)


def _lines(result: str, items_key: str | None) -> list[str]:
    """What the scripted agent quotes from one tool result: a line per item of a JSON result
    (the list under `items_key`, else the one object), else the text itself (a table, a file),
    cut at RESULT_CHARS."""
    try:
        data = json.loads(result)
    except ValueError:
        return [result[:RESULT_CHARS]]
    items = data.get(items_key, []) if items_key else [data]
    return ["- " + " | ".join(f"{k}: {_value(item[k])}" for k in ITEM_FIELDS if item.get(k) not in (None, "", []))
            for item in items]


def _addressee(prompt: str, evidence: str) -> str | None:
    named = _ADDRESSEE.search(prompt)
    if named:
        return named.group(1)
    return next((word for word in _CAPITALIZED.findall(prompt) if f"{word} " in evidence), None)


def scripted(task: dict, backend: ToolBackend) -> Answer:
    used, lines = [], []
    for step in task.get("expected_tool_sequence", []):
        result = backend.call(step["tool"], step["arguments"])
        if result.startswith("error:"):
            used.append(f"{step['tool']} failed ({result[7:80]})")
            continue
        tool = find_tool(step["tool"])   # one the backend has: the call succeeded
        quoted = _lines(result, tool.items if tool else None)
        used.append(f"{step['tool']} ({len(quoted)} item{'s' if len(quoted) != 1 else ''})")
        lines += [f"From {step['tool']}:", *quoted, ""]
    body = "\n".join(lines).strip() or "The sources hold nothing on this."
    kind = task["task_type"]
    if kind == "email_reply":
        name = _addressee(task["user_prompt"], "\n".join(call.result for call in backend.trace))
        text = f"Hi {name or 'there'},\n\nHere is where things stand, from our records:\n\n{body}\n\nBest regards"
    elif kind == "document_generation":
        text = f"# {task['user_prompt'].split(':')[0].rstrip('.')}\n\n{body}"
    else:
        text = f"Plan, from the sources:\n\n{body}"
    return Answer(text, "Answered from these tool results, quoted item by item: " + "; ".join(used) + ".", True,
                  steps=len(backend.trace))


BAD_ANSWERS = {
    "planning": "Plan: everything is on track. The meeting is on 2025-01-06 at 09:00 and there are no open blockers.",
    "email_reply": "Hi,\n\nThanks for your note. Everything is confirmed for 2025-01-06 at 09:00 and ticket OPS-1 is closed.\n\nBest regards",
    "document_generation": "# Status\n\nAll workstreams are green. The next review is on 2025-01-06 at 09:00; OPS-1 is closed.",
}


def bad(task: dict) -> Answer:
    return Answer(BAD_ANSWERS[task["task_type"]], "I answered from general knowledge without checking any source.", True)
