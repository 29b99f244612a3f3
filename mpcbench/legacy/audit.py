"""`mpcbench judge-audit`: the legacy two-axis judge on episodes of MPCBench, whose answers the
SQL oracle scores exactly, so that the judge's scores can be checked against the truth.

    result = run_audit(AuditConfig(runs=(Path("build/runs/RUN"),), judge_models=("gpt-4o",)), Endpoint(...))

Each episode of a run (`runs.parquet` without infrastructure errors) becomes a legacy judge
input: the instance's prompt from the warehouse; answer requirements written from what the
instance's author knows (N, duration, window, participants, policy, project, room needs;
never the gold answer); the episode's tool calls with their full results (from the
transcript's tool messages where the agent was a model, else re-run on the same build, which
is deterministic: the run's content hash must match); the final answer (the candidates of the
last turn, as text); and the rationale (the agent's last words, if any). Every judge model
scores every episode `judge_trials` times (trial t sends seed + t - 1). The oracle's side comes
from the run: F1 and exact match from `runs.parquet`, the constraint kinds each candidate
breaks from `candidates.parquet`.

A judge model reads a bounded context. With `max_input_chars`, a judge input whose JSON text is
longer is cut by one rule (`fit`): every tool result (in raw_tool_calls and tool_trace alike)
is kept up to one common number of characters, the largest that brings the text under the
bound, and a cut result ends with "[... N more characters cut]"; the request, requirements,
answer and rationale are never cut. The scores table records each input's sent size and
whether it was cut. `constrained` asks the server for a reply of the judge's JSON shape
(`judge.reply_format`).

Written to `out`: judge_scores.parquet (one row per episode x judge x trial), judge_inputs/
and judge_results/ (the seed's JSON files), audit.json (options and figures), and
judge_audit.md with judge_audit.png (audit_report.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import duckdb
import polars as pl
from polars.datatypes import DataType, DataTypeClass

from .audit_report import write_report
from .backend import Call
from .judge import AXES, HEURISTIC, JUDGE_ATTEMPTS, judge, judge_result
from .layout import LEGACY_SQL_DIR, safe_name, write_json, write_parquet
from .models import Endpoint
from .pipeline import Progress
from .project import (JOURNAL, RUN_JSON, SUBMIT_TOOL_NAME, Environment, UserError, build_content_hash, connect,
                      read_journal)
from .run import trace_step
from .validate import problems

SCORES = "judge_scores.parquet"
SCORE_SCHEMA: dict[str, DataTypeClass | DataType] = {
    "run_id": pl.String, "instance_id": pl.String, "trial": pl.Int64, "level": pl.Int64, "agent": pl.String,
    "model": pl.String, "f1": pl.Float64, "exact_match": pl.Boolean, "breaks_constraint": pl.Boolean,
    "violations": pl.List(pl.String), "judge_model": pl.String, "judge_trial": pl.Int64,
    "judge_status": pl.String, "satisfaction": pl.Int64, "grounding": pl.Int64, "judge_error": pl.String,
    "input_chars": pl.Int64, "input_cut": pl.Boolean}


@dataclasses.dataclass
class AuditConfig:
    runs: tuple[Path, ...]
    judge_models: tuple[str, ...] = (HEURISTIC,)
    judge_trials: int = 1
    out: Path = Path("reports/judge_audit")
    db: Path | None = None               # default: the build each run names in run.json
    limit: int | None = None             # at most this many episodes (in run, instance, trial order)
    concurrency: int = 4
    attempts: int = JUDGE_ATTEMPTS
    max_input_chars: int | None = None   # cut longer judge inputs (see `fit`)
    constrained: bool = False            # send the judge reply's JSON Schema as response_format


@dataclasses.dataclass
class JudgedEpisode:
    run_id: str
    instance_id: str
    trial: int
    level: int
    agent: str
    model: str | None
    f1: float
    exact_match: bool
    violations: list[str]                # constraint kinds the final answer's candidates break
    judge_input: dict                    # as sent: cut to the bound by `fit`
    input_cut: bool = False


def requirements(spec: dict) -> list[str]:
    """The answer requirements an instance's author would write (no gold answer in them)."""
    n, level = spec["n"], spec["level"]
    out = [f"Proposes exactly {n} meeting start times for a {spec['duration_minutes']}-minute meeting, earliest first, "
           "each written YYYY-MM-DDTHH:MM.",
           f"Every start is on the 15-minute grid, on a day from {spec['window_start']} to {spec['window_end']}.",
           f"No proposed meeting overlaps a confirmed or tentative calendar event of any participant: "
           f"{', '.join(spec['participants'] or [])}.",
           f"Every proposed time follows scheduling policy {spec['policy_id']}: working hours, blackout windows, "
           "buffers, no-meeting weekdays, minimum notice and meetings-per-day caps."]
    if level >= 2:
        out.append(f"Respects the deadlines, bans and out-of-office notes in the threads of project {spec['project_id']}"
                   " (a later message overrides an earlier one)." if spec["project_id"] else
                   "Respects the deadlines, bans and out-of-office notes in the project threads.")
    if spec["has_room_requirement"] or level == 3:
        out.append("Each candidate names a room that is free then, holds every participant and meets the room needs; "
                   f"when several fit, the one chosen by the tie-break rule ({spec['tie_break'] or 'room_id'}).")
    out.append(f"The times are the {n} earliest that meet every requirement above.")
    return out


def answer_text(answer: dict | None, level: int) -> str:
    """The final answer as the judge reads it."""
    if not answer or not answer.get("candidates"):
        return (answer or {}).get("raw") or "(no answer)"
    lines = [f"{i}. {c.get('start') or c.get('raw')}" + (f" in room {c['room_id']}" if level == 3 and c.get("room_id") else "")
             for i, c in enumerate(answer["candidates"], 1)]
    return "Proposed meeting times, earliest first:\n" + "\n".join(lines)


def _recorded_calls(record: dict) -> list[dict] | None:
    """The data-tool calls of a model's transcript with their results (None: none there)."""
    results = {m.get("tool_call_id"): m.get("content") or "" for m in record.get("transcript") or []
               if m.get("role") == "tool"}
    if not results:
        return None
    calls = []
    for message in record["transcript"]:
        for call in message.get("tool_calls") or [] if message.get("role") == "assistant" else []:
            function = call.get("function") or {}
            if function.get("name") != SUBMIT_TOOL_NAME and call.get("id") in results:
                calls.append((function.get("name") or "", function.get("arguments") or "", results[call["id"]]))
    # an offline agent's transcript holds only its submissions: its data calls are run again
    return [_raw_call(i, *call) for i, call in enumerate(calls, 1)] if calls else None


def _raw_call(step: int, tool: str, arguments: str, result: str) -> dict:
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        args = None
    return {"step": step, "tool_name": tool, "arguments": args if isinstance(args, dict) else {"_raw": arguments},
            "result": result, "error": result[7:] if result.startswith("error: ") else None}


def _rerun_calls(con: duckdb.DuckDBPyConnection, record: dict) -> list[dict]:
    """The journal's tool calls, re-run on the same build to get their results back."""
    recorded = [c for c in record.get("tool_calls") or [] if c["tool"] != SUBMIT_TOOL_NAME]
    with Environment(con, record["instance_id"]) as env:
        return [_raw_call(i, c["tool"], c["arguments"], env.call(c["tool"], c["arguments"]))
                for i, c in enumerate(recorded, 1)]


def _rationale(record: dict) -> str:
    for message in reversed(record.get("transcript") or []):
        if message.get("role") == "assistant" and message.get("content") and message.get("tool_calls"):
            return message["content"]
    return ""


def judge_input(con, record: dict, spec: dict) -> dict:
    calls = _recorded_calls(record)
    if calls is None:
        calls = _rerun_calls(con, record)
    out = {"task_id": record["instance_id"], "task_type": "planning", "user_prompt": spec["prompt"],
           "answer_requirements": requirements(spec),
           "tool_trace_steps": [trace_step(Call(c["step"], c["tool_name"], c["arguments"], c["result"], c["error"]))
                                for c in calls],
           "raw_tool_calls": calls,
           "tool_trace": [{"step_index": c["step"], "tool_name": c["tool_name"], "arguments": c["arguments"],
                           "result": c["result"]} for c in calls],
           "final_answer": answer_text((record.get("answers") or [None])[-1], record["level"]),
           "rationale": _rationale(record)}
    found = problems(out, "judge_input")
    if found:
        raise UserError(f"the judge input of {record['instance_id']} is not valid: {found[0]}")
    return out


def _cut(text: str, keep: int) -> str:
    return text if len(text) <= keep else f"{text[:keep]} [... {len(text) - keep} more characters cut]"


def _with_results_cut(judge_input: dict, keep: int) -> dict:
    return {**judge_input,
            "raw_tool_calls": [{**c, "result": _cut(c["result"], keep)} for c in judge_input["raw_tool_calls"]],
            "tool_trace": [{**c, "result": _cut(c["result"], keep)} for c in judge_input["tool_trace"]]}


def fit(judge_input: dict, max_chars: int | None) -> tuple[dict, bool]:
    """The judge input whose JSON text is at most max_chars long (or as short as cutting tool
    results can make it), and whether anything was cut: every tool result keeps at most the same
    number of characters, the largest number that fits.

    >>> calls = [{"step": 1, "tool_name": "t", "arguments": {}, "result": "x" * 500, "error": None}]
    >>> ji = {"user_prompt": "p", "raw_tool_calls": calls, "tool_trace": calls}
    >>> cut, was_cut = fit(ji, 600)
    >>> was_cut, len(json.dumps(cut, ensure_ascii=False)) <= 600, cut["tool_trace"][0]["result"].endswith(" cut]")
    (True, True, True)
    >>> fit(ji, None) == (ji, False)
    True
    """
    size = lambda d: len(json.dumps(d, ensure_ascii=False))  # noqa: E731
    if max_chars is None or size(judge_input) <= max_chars:
        return judge_input, False
    low, high = 0, max((len(c["result"]) for c in judge_input["raw_tool_calls"]), default=0)
    while low < high:  # the largest `keep` whose input fits
        keep = (low + high + 1) // 2
        low, high = (keep, high) if size(_with_results_cut(judge_input, keep)) <= max_chars else (low, keep - 1)
    return _with_results_cut(judge_input, low), True


def load_episodes(run_dir: Path, db: Path | None) -> list[JudgedEpisode]:
    """Every scored episode of one run directory, as a judge input with the oracle's verdict."""
    for name in (RUN_JSON, "runs.parquet", "candidates.parquet", JOURNAL):
        if not (run_dir / name).exists():
            raise UserError(f"{run_dir} is not a finished run directory: {name} is missing")
    meta = json.loads((run_dir / RUN_JSON).read_text())
    db = Path(db or meta["build"]["db"])
    if not db.exists():
        raise UserError(f"{db} (the build of {run_dir}) does not exist; pass --db")
    runs = pl.read_parquet(run_dir / "runs.parquet").filter(pl.col("error").is_null())
    last = pl.read_parquet(run_dir / "candidates.parquet").filter(
        pl.col("turn") == pl.col("turn").max().over("instance_id", "trial"))
    broken: dict[tuple, set] = {}
    for c in last.select("instance_id", "trial", "violations").to_dicts():
        broken.setdefault((c["instance_id"], c["trial"]), set()).update(c["violations"] or [])
    journal = read_journal(run_dir / JOURNAL)
    con = connect(db, read_only=True)
    try:
        if build_content_hash(con) != meta["build"]["content_sha256"]:
            raise UserError(f"{db} is not the build {run_dir} ran on (content hash differs); pass its --db")
        ids = sorted(set(runs["instance_id"]))
        specs = {s["instance_id"]: s for s in _records(con.execute(
            (LEGACY_SQL_DIR / "queries" / "audit_task_specs.sql").read_text(), {"instance_ids": ids}))}
        return [JudgedEpisode(run_id=r["run_id"], instance_id=r["instance_id"], trial=r["trial"], level=r["level"],
                        agent=r["agent"], model=r["model"], f1=r["f1"], exact_match=r["exact_match"],
                        violations=sorted(broken.get((r["instance_id"], r["trial"]), set())),
                        judge_input=judge_input(con, journal[(r["instance_id"], r["trial"])], specs[r["instance_id"]]))
                for r in runs.sort("instance_id", "trial").to_dicts()]
    finally:
        con.close()


def _records(cursor) -> list[dict]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def run_audit(config: AuditConfig, endpoint: Endpoint, progress: Progress | None = None) -> Path:
    """Judge every episode of the runs and write the audit to config.out; the report's path."""
    if not config.runs or not config.judge_models or config.judge_trials < 1:
        raise UserError("judge-audit needs at least one run, one judge model and one trial")
    episodes = [e for run in config.runs for e in load_episodes(Path(run), config.db)][:config.limit]
    if not episodes:
        raise UserError("the runs hold no scored episode")
    out = Path(config.out)
    for e in episodes:
        e.judge_input, e.input_cut = fit(e.judge_input, config.max_input_chars)
        write_json(out / "judge_inputs" / f"{_episode_name(e)}.json", e.judge_input)
    progress = progress or Progress()
    progress.start(len(episodes) * len(config.judge_models) * config.judge_trials)
    rows = asyncio.run(_judge_all(episodes, config, endpoint, out, progress))
    frame = pl.DataFrame(rows, schema=SCORE_SCHEMA, orient="row").sort("run_id", "instance_id", "trial", "judge_model",
                                                                       "judge_trial")
    write_parquet(out / SCORES, frame)
    return write_report(frame, out, {"runs": [str(r) for r in config.runs], "judge_models": list(config.judge_models),
                                     "judge_trials": config.judge_trials, "episodes": len(episodes),
                                     "attempts": config.attempts, "max_input_chars": config.max_input_chars,
                                     "constrained": config.constrained, "endpoint": endpoint.public()})


def _episode_name(e: JudgedEpisode) -> str:
    return f"{safe_name(e.run_id)}__{e.instance_id}__t{e.trial}"


async def _judge_all(episodes: list[JudgedEpisode], config: AuditConfig, endpoint: Endpoint, out: Path,
                     progress: Progress) -> list[tuple]:
    limit = asyncio.Semaphore(config.concurrency)

    async def one(e: JudgedEpisode, judge_model: str, trial: int) -> tuple:
        async with limit:
            outcome = await judge(e.judge_input, judge_model, endpoint, attempts=config.attempts, trial=trial,
                                  constrained=config.constrained)
        write_json(out / "judge_results" / f"{_episode_name(e)}__judge-{safe_name(judge_model)}__r{trial}.json",
                   judge_result(e.instance_id, e.model or e.agent, judge_model, outcome))
        progress.advance(f"{e.instance_id} · {judge_model}")
        scores = [outcome[axis]["score"] if outcome[axis] else None for axis in AXES]
        return (e.run_id, e.instance_id, e.trial, e.level, e.agent, e.model, e.f1, e.exact_match, bool(e.violations),
                e.violations, judge_model, trial, outcome["status"], *scores, outcome["error"],
                len(json.dumps(e.judge_input, ensure_ascii=False)), e.input_cut)

    try:
        return await asyncio.gather(*(one(e, j, t) for e in episodes for j in config.judge_models
                                      for t in range(1, config.judge_trials + 1)))
    finally:
        await endpoint.aclose()
