"""The journal of a run (`journal.jsonl`): one JSON line per finished episode, flushed and
fsynced before the next is counted, so a killed run loses at most the episodes in flight.

A record holds everything needed to score the episode again or to replay it: its answers turn
by turn (the raw text each came from), its tool calls and its transcript. `read_journal` gives
the last record of each (instance_id, trial); `recorded_run` reads a whole run directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..episode.answers import SUBMIT_TOOL_NAME, answer_from_record, parse_submission
from ..episode.contract import AgentOutput
from ..errors import UserError
from ..grading.scoring import Episode, TurnAnswer


def read_journal(path: str | Path, *, repair: bool = False) -> dict[tuple[str, int], dict]:
    """The journal's records by (instance_id, trial), the last one of a key winning. A torn last
    line (a kill in the middle of a write) is skipped, and with `repair` cut off the file so the
    next append starts on a fresh line."""
    path = Path(path)
    if not path.exists():
        return {}
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if repair and end < len(data):
        with open(path, "r+b") as f:
            f.truncate(end)
    out: dict[tuple[str, int], dict] = {}
    for line in data[:end].splitlines():
        try:
            rec = json.loads(line)
            out[(rec["instance_id"], int(rec["trial"]))] = rec
        except (ValueError, KeyError, TypeError):
            continue
    return out


class Journal:
    def __init__(self, path: Path):
        self.path = path
        self._file = open(path, "ab")

    def append(self, record: dict) -> None:
        self._file.write((json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def read_run_json(path: Path) -> dict:
    """A run's run.json (or ablation.json); a one-line UserError when it is not readable JSON."""
    try:
        meta = json.loads(Path(path).read_text())
    except (ValueError, OSError) as e:
        raise UserError(f"{path} is not readable ({e}); is this a run directory?") from None
    if not isinstance(meta, dict):
        raise UserError(f"{path} is not a JSON object; is this a run directory?")
    return meta


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, path)


def final_raw(output: AgentOutput, level: int) -> str | None:
    """The raw text of the final answer: the submit_candidates arguments it came from, or the
    final text message."""
    answer = output.answer
    if answer is None:
        return None
    for message in reversed(output.transcript or []):
        if message.get("role") != "assistant":
            continue
        if answer.path == "text":
            if message.get("content") is not None and not message.get("tool_calls"):
                return message["content"]
            continue
        for call in reversed(message.get("tool_calls") or []):
            function = call.get("function") or {}
            if function.get("name") == SUBMIT_TOOL_NAME:
                raw = function.get("arguments")
                raw = raw if isinstance(raw, str) else json.dumps(raw)
                if parse_submission(raw, level) == answer:
                    return raw
    return None


def turn_answer(output: AgentOutput, level: int, turn: int, feedback: str | None = None) -> dict:
    """A turn's answer as the journal keeps it (taken when the turn ends: the raw text is found
    at the end of the transcript), with the feedback the harness gave on it."""
    answer = output.answer
    if answer is None:
        return {"turn": turn, "path": None, "raw": None, "parse_ok": False, "error": "no answer",
                "candidates": [], "feedback": feedback}
    return {"turn": turn, "path": answer.path, "raw": final_raw(output, level), "parse_ok": answer.parse_ok,
            "error": answer.error,
            "candidates": [{"start": c.start, "room_id": c.room_id, "raw": c.raw, "problem": c.problem}
                           for c in answer.candidates], "feedback": feedback}


def episode_record(*, instance_id: str, trial: int, level: int, agent: str, model: str | None, mode: str,
                   output: AgentOutput, answers: list[dict], trace: list, latency_s: float) -> dict:
    """One journal line: everything needed to score the episode again, or to replay it."""
    calls = [{"turn": c.turn, "step": c.step, "tool": c.tool, "arguments": c.arguments,
              "result_chars": len(c.result or ""), "latency_ms": round(c.latency_ms, 3), "error": c.error,
              "via": c.via, "cell": c.cell}
             for c in trace]
    return {"v": 1, "instance_id": instance_id, "trial": trial, "level": level, "agent": agent, "model": model,
            "mode": mode, "turns": len(answers), "steps": output.steps,
            "prompt_tokens": output.prompt_tokens, "completion_tokens": output.completion_tokens,
            "invalid_actions": output.invalid_actions, "latency_s": round(latency_s, 4), "error": output.error, "answers": answers, "tool_calls": calls,
            "transcript": output.transcript}


def episodes_from_journal(records: list[dict]) -> list[Episode]:
    out = []
    for rec in records:
        answers = [TurnAnswer(int(a.get("turn") or 1), answer_from_record(a, rec["level"]))
                   for a in rec.get("answers") or []]
        out.append(Episode(rec["instance_id"], int(rec["trial"]), int(rec["level"]),
                           answers or [TurnAnswer(1, None)],
                           [c for c in rec.get("tool_calls") or [] if c["tool"] != SUBMIT_TOOL_NAME],
                           rec.get("error")))
    return out


def recorded_run(run_dir: str | Path) -> tuple[dict, dict[tuple[str, int], dict]]:
    """(run.json, the journal's last record per (instance_id, trial)) of a recorded run."""
    run_dir = Path(run_dir)
    config_path = run_dir / "run.json"
    if not config_path.exists():
        raise UserError(f"{run_dir} holds no run.json: not a run directory")
    config = read_run_json(config_path)
    return config, read_journal(run_dir / "journal.jsonl")
