"""Replay of a recorded run, offline (`mpcbench eval --agent replay --from RUN`).

Two ways, chosen by what the recorded run was:

- a run of the `openai` agent is re-run with the same agent options against the run's response
  cache (`llm_cache.jsonl`, keyed by request hash) in replay-only mode: every request must be
  one the run made, so the replay needs no key and no network, and a request the run never made
  (because a tool now answers differently, or the prompt changed) ends that episode as a
  `replay_miss` infrastructure error;
- any other agent is replayed from its journal (`TrajectoryReplayAgent`): the recorded tool
  calls are made again through the environment, in order, and the recorded final answer is
  parsed again.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..answers import ParsedAnswer, parse_submission, parse_text_answer
from .base import AgentOutput, Environment


def answer_from_record(answer: dict | None, level: int) -> ParsedAnswer | None:
    """A journal answer ({"path", "raw", "candidates", ...}) parsed again from its raw text; one
    with no raw text is rebuilt from its stored candidates."""
    from ..answers import Candidate

    if not answer or answer.get("path") is None:
        return None
    raw, path = answer.get("raw"), answer.get("path")
    if raw is not None and path == "tool":
        return parse_submission(raw, level)
    if raw is not None and path == "text":
        return parse_text_answer(raw, level)
    candidates = tuple(Candidate(c.get("start"), c.get("room_id"), c.get("raw") or "", c.get("problem"))
                       for c in answer.get("candidates") or [])
    return ParsedAnswer(candidates, bool(answer.get("parse_ok")), path or "tool", answer.get("error"))


class TrajectoryReplayAgent:
    """Replays one recorded episode (a journal record) through a fresh environment."""

    name = "replay"

    def __init__(self, record: dict):
        self.record = record

    async def run(self, env: Environment) -> AgentOutput:
        rec = self.record
        self.out = AgentOutput(answer=None, steps=int(rec.get("steps") or 0),
                               prompt_tokens=int(rec.get("prompt_tokens") or 0),
                               completion_tokens=int(rec.get("completion_tokens") or 0),
                               error=rec.get("error"), transcript=list(rec.get("transcript") or []))
        return self._turn(env, 1)

    async def follow_up(self, env: Environment, feedback: str, turn: int) -> AgentOutput:
        return self._turn(env, turn)

    def _turn(self, env: Environment, turn: int) -> AgentOutput:
        """The recorded tool calls of this turn, made again, and the recorded answer parsed again."""
        for call in self.record.get("tool_calls") or []:
            if call["tool"] != "submit_candidates" and int(call.get("turn") or 1) == turn:
                env.call(call["tool"], call["arguments"], turn=turn)
        answers = {int(a.get("turn") or 1): a for a in self.record.get("answers") or []}
        self.out.answer = answer_from_record(answers.get(turn), env.level)
        self.out.turns = turn
        return self.out


def recorded_run(run_dir: str | Path) -> tuple[dict, dict[tuple[str, int], dict]]:
    """(run.json, the journal's last record per (instance_id, trial)) of a recorded run."""
    run_dir = Path(run_dir)
    config_path = run_dir / "run.json"
    if not config_path.exists():
        raise FileNotFoundError(f"{run_dir} holds no run.json: not a run directory")
    config = json.loads(config_path.read_text())
    from ..eval import read_journal  # eval imports agents; import late
    return config, read_journal(run_dir / "journal.jsonl")
