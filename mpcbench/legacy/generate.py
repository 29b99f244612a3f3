"""`legacy generate`: a scenario becomes a world state, then six sources, each checked against its
schema, written under `build/legacy/data/<scenario>/` all at once or not at all.

    generate("product_launch", "mock", Layout())                            # no model
    generate("product_launch", "replay", Layout())                          # the archive's recording
    generate("product_launch", "openai", Layout(), endpoint=Endpoint(base_url=...))

Providers:
- `openai`: the data-generation model of `model_config.json` (or `model=`) on an
  OpenAI-compatible endpoint. Step 1 sends the scenario, step 2 the world state, each with the
  step's system prompt from `prompt_config.json` and the JSON Schema the reply must match. A
  reply that is not one JSON object, breaks the schema, or breaks a reference (see
  validate.py) is sent back with the problem and its JSON path, up to `attempts` times; then
  the generation fails with one line naming the scenario, the source and the path, and
  nothing is written.
- `replay`: the same requests, answered only from the archive's recorded replies
  (`archive/recorded/<scenario>.llm_cache.jsonl`); no network.
- `mock`: mock.py, deterministic, no model.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from .archive import load_scenario, model_config, prompt_config, recorded_cache
from .layout import SOURCES, STEPS, Layout, replace_dir
from .mock import source, world_state
from .models import Endpoint
from .project import InfrastructureError, ModelLimitError, UserError
from .validate import parse_reply, problems, schema

PROVIDERS = ("openai", "replay", "mock")
ATTEMPTS = 3


class GenerationError(UserError):
    """A generation step that produced no valid artifact; the message names scenario, source and path."""


def generate(scenario_id: str, provider: str, layout: Layout, *, endpoint: Endpoint | None = None,
             model: str | None = None, attempts: int = ATTEMPTS) -> Path:
    """Generate every artifact of a scenario and write them (all, or nothing); the directory."""
    if provider not in PROVIDERS:
        raise UserError(f"--provider must be one of {', '.join(PROVIDERS)}, not {provider!r}")
    scenario = load_scenario(scenario_id)
    if provider == "mock":
        state = world_state(scenario)
        artifacts = {"world_state": state, **{name: source(state, name) for name in SOURCES}}
    else:
        if provider == "replay":
            recording = recorded_cache(scenario_id)
            if not recording.exists():
                raise UserError(f"no recorded generation for {scenario_id} ({recording})")
            endpoint = Endpoint(cache=recording, replay=True)
        elif endpoint is None:
            endpoint = Endpoint(cache=layout.cache)
        artifacts = asyncio.run(_generate_llm(scenario, endpoint, model or model_config()["data_generation_model"],
                                              attempts))
    for step in STEPS:  # the mock provider's output is checked like a model's
        found = problems(artifacts[step], step)
        if found:
            raise GenerationError(f"scenario {scenario_id}, source {step}: {found[0]}")
    return replace_dir(layout.data(scenario_id), {f"{step}.json": artifacts[step] for step in STEPS})


def _compact(data) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def request_messages(step: str, payload: dict) -> list[dict]:
    """The first request of a step: its system prompt, then what it expands and the reply's schema."""
    what = "Scenario" if step == "world_state" else "World state"
    return [{"role": "system", "content": prompt_config()["generator"][step]["system_prompt"]},
            {"role": "user", "content": f"{what}:\n{_compact(payload)}\n\nJSON Schema of your reply:\n{_compact(schema(step))}"}]


async def _generate_llm(scenario: dict, endpoint: Endpoint, model: str, attempts: int) -> dict:
    try:
        state = await _step(scenario["scenario_id"], "world_state", scenario, endpoint, model, attempts)
        out = {"world_state": state}
        for name in SOURCES:
            out[name] = await _step(scenario["scenario_id"], name, state, endpoint, model, attempts)
        return out
    finally:
        await endpoint.aclose()


async def _step(scenario_id: str, step: str, payload: dict, endpoint: Endpoint, model: str, attempts: int) -> dict:
    """One model call per attempt until the reply is valid; GenerationError after the last."""
    client = endpoint.client(model)
    messages = request_messages(step, payload)
    problem = None
    for attempt in range(1, attempts + 1):
        try:
            result = await client.complete({"messages": messages, **endpoint.sampling()})
        except ModelLimitError as e:
            raise GenerationError(f"scenario {scenario_id}, source {step}: the model refused on attempt {attempt}: "
                                  f"{e.cause}: {e.message}") from None
        except InfrastructureError as e:
            hint = (" (the recording holds no reply to this request: the scenario or the prompts changed since "
                    "it was recorded)") if e.kind == "replay_miss" else ""
            raise GenerationError(f"scenario {scenario_id}, source {step}: the model endpoint failed on attempt "
                                  f"{attempt}: {e.kind}: {e.message}{hint}") from None
        text = result.message.get("content") or ""
        data, problem = parse_reply(text)
        if data is not None:
            found = problems(data, step)
            problem = found[0] if found else None
        if data is not None and problem is None:
            return data
        messages = [*messages, {"role": "assistant", "content": text},
                    {"role": "user", "content": f"Your reply was rejected: {problem}. Reply again with the whole "
                                                "corrected JSON object only."}]
    raise GenerationError(f"scenario {scenario_id}, source {step}: {problem} (still invalid after {attempts} attempts)")
