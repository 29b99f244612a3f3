"""Shared pieces of the legacy-benchmark tests: a warehouse with both archive scenarios loaded
from the mock provider, and a fake OpenAI-compatible model that plays a judge or a generator."""

from __future__ import annotations

import json

from fake_openai import RecordedRequest, reply_text
from mpcbench.legacy import warehouse
from mpcbench.legacy.archive import scenario_ids

AXES = ("answer_requirements_satisfaction", "source_grounded_reasoning")


def mock_warehouse():
    """An in-memory legacy warehouse with every archive scenario's mock data."""
    con = warehouse.connect(None)
    warehouse.create(con)
    for scenario_id in scenario_ids():
        warehouse.load(con, scenario_id, warehouse.mock_sources(scenario_id))
    return con


def judge_reply(satisfaction, grounding=3, justification="ok"):
    """A judge's reply text (scores may be anything: the test decides what is invalid)."""
    return reply_text(json.dumps({AXES[0]: {"score": satisfaction, "justification": justification},
                                  AXES[1]: {"score": grounding, "justification": justification}}))


def judge_input_of(req: RecordedRequest) -> dict:
    """The judge input a judge request carries (its first user message)."""
    return json.loads(next(m["content"] for m in req.messages if m["role"] == "user"))


def files_under(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
