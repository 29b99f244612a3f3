"""The journal of a run (`journal.jsonl`): one JSON line per finished episode, flushed and
fsynced before the next is counted, so a killed run loses at most the episodes in flight.

A record (written by `episode.engine.episode_record`) holds everything needed to score the
episode again or to replay it: its answers turn by turn (the raw text each came from), its tool
calls, its transcript and, after a harness error, the traceback. `read_journal` gives
the last record of each (instance_id, trial); `recorded_run` reads a whole run directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..episode.answers import SUBMIT_TOOL_NAME, answer_from_record
from ..errors import UserError
from ..grading.scoring import GradedEpisode, TurnAnswer


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


def episodes_from_journal(records: list[dict]) -> list[GradedEpisode]:
    out = []
    for rec in records:
        answers = [TurnAnswer(int(a.get("turn") or 1), answer_from_record(a, rec["level"]))
                   for a in rec.get("answers") or []]
        out.append(GradedEpisode(rec["instance_id"], int(rec["trial"]), int(rec["level"]),
                           answers or [TurnAnswer(1, None)],
                           [c for c in rec.get("tool_calls") or [] if c["tool"] != SUBMIT_TOOL_NAME],
                           rec.get("error"), rec.get("prompt_rows"), rec.get("writes")))
    return out


def recorded_run(run_dir: str | Path) -> tuple[dict, dict[tuple[str, int], dict]]:
    """(run.json, the journal's last record per (instance_id, trial)) of a recorded run."""
    run_dir = Path(run_dir)
    config_path = run_dir / "run.json"
    if not config_path.exists():
        raise UserError(f"{run_dir} holds no run.json: not a run directory")
    config = read_run_json(config_path)
    return config, read_journal(run_dir / "journal.jsonl")
