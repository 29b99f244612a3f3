"""The first request of an episode, and the prompt budget.

    request = first_request(con, "L4-0001", EpisodeSpec(mode="code", protocol="mint"))
    system_chars(request)      # 9,603: the system message, MINT's worked example included
    schema_chars(request)      # the tool schemas of the native protocol (compact JSON)
    request_chars(request)     # the whole request as the endpoint reads it

A model's **scaffolding** is what it is given besides the task: its system message (instructions,
the scheduling rules, MINT's tool functions and worked example) and, in the native protocol, the
tool schemas sent beside it. Together they are at most `PROMPT_BUDGET` characters at every level,
mode and protocol, with the privacy norm stated or not, so that a small model's context has room
for the task and the episode; the task's own data (all of it, in context mode, by design) is not
scaffolding. docs/mint.md holds `scaffolding_table`, and tests/test_prompt_budget.py checks the
two are equal and the budget kept.
"""

from __future__ import annotations

import json

import duckdb

from ..agents.openai_agent import AgentOptions
from ..episode.modes import MODES
from ..sources import LEVELS
from .episode_spec import EpisodeSpec

PROMPT_BUDGET = 12_500
PROTOCOLS = ("native", "mint")


def compact(value: object) -> str:
    """JSON as an OpenAI client sends it: compact separators, UTF-8 text."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def first_request(con: duckdb.DuckDBPyConnection, instance_id: str, spec: EpisodeSpec = EpisodeSpec(),
                  options: AgentOptions | None = None) -> dict:
    """The first request an `openai` run sends for the instance (the model's name aside)."""
    env = spec.environment(con, instance_id)
    try:
        codec = spec.codec()
        messages = codec.opening(env, max_steps=spec.max_steps, max_proposals=spec.max_turns)
        return (options or AgentOptions()).request(messages, codec.request(env))
    finally:
        env.close()


def system_chars(request: dict) -> int:
    """Characters of the system message."""
    return sum(len(m["content"]) for m in request["messages"] if m["role"] == "system")


def schema_chars(request: dict) -> int:
    """Characters of the tool schemas, compact JSON (0 without tools)."""
    return len(compact(request["tools"])) if "tools" in request else 0


def request_chars(request: dict, model: str = "") -> int:
    """Characters of the whole request body as the endpoint reads it."""
    return len(compact({"model": model, **request}))


def scaffolding_table(con: duckdb.DuckDBPyConnection, *, privacy: bool = False) -> list[tuple[int, str, str, int, int]]:
    """(level, mode, protocol, system message characters, tool schema characters) of every
    combination a run can have, on each level's first instance (the same for every instance of a
    level); `privacy`: with the privacy norm stated (--privacy-instructions on)."""
    rows = []
    for level in LEVELS:
        found = con.execute("select instance_id from instances where level = $level order by position limit 1",
                            {"level": level}).fetchone()
        if found is None:
            continue
        for mode in MODES:
            for protocol in PROTOCOLS:
                if (mode, protocol) == ("tools", "mint"):
                    continue  # a run of it runs code: --protocol mint implies --mode code
                request = first_request(con, found[0], EpisodeSpec(mode=mode, protocol=protocol,
                                                                   privacy_instructions="on" if privacy else "off"))
                rows.append((level, mode, protocol, system_chars(request), schema_chars(request)))
    return rows
