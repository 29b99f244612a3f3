"""The result tables of a run, computed from its journal alone (`finalize`, which `mpcbench
rescore` also runs):

    runs.parquet        one row per (instance, trial): scores, failure cause, tokens, errors
    turns.parquet       one row per answer turn, with the feedback given after it
    candidates.parquet  one row per predicted candidate, checked against the oracle
    tool_calls.parquet  one row per tool call (submit_candidates included)
    failures.parquet    one row per (answer, failure cause), naming the constraint and source row
    disclosures.parquet one row per sensitive item a final note discloses (the privacy track)
                        or, with --privacy-judge, the judge says it discloses
    run.json            updated with the status, the grader's and the dataset's versions and a summary per level
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import duckdb
import polars as pl

from ..dataset.version import warehouse_dataset_version
from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.code import PYTHON_TOOL
from ..episode.record import HARNESS_ERROR, count_episodes, error_kind, is_harness_error, unscored
from ..episode.toolfiles import tool_sources
from ..grading.booking import grade_booking
from ..grading.privacy import DISCLOSURE_COLUMNS, JUDGE_COLUMN, grade_privacy
from ..grading.scoring import GRADER_VERSION, Grader, Scored, cause_columns
from ..model_limits import CAUSES as MODEL_LIMITS
from .config import JOURNAL, RUN_JSON
from .privacy_judge import run_judge
from .cost import episode_cost
from .journal import episodes_from_journal, read_journal, write_json
from .provenance import build_content_hash, sql_hash
from .reference import load_reference
from .summary import summarize


S, I, F, B, L = pl.String, pl.Int64, pl.Float64, pl.Boolean, pl.List(pl.String)  # noqa: E741 - short column types keep the schemas readable
RUNS_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "agent": S, "model": S, "mode": S, "trial": I, "turns": I,
    "steps": I, "end": S, "parse_ok": B, "answer_path": S, "parse_error": S, "n_pred": I, "n_submitted": I,
    "over_submitted": B, "n_correct": I, "n_gold": I,
    "precision": F, "recall": F, "f1": F, "exact_match": B, "first_correct": B, "ndcg": F,
    "failure_cause": S, "failure_source": S, "failure_stage": S, "failure_detail": S,
    "sources_required": L, "sources_read": L, "source_coverage": F,
    "max_turns": I, "feedback": S, "solved_turn": I,
    "tool_calls": I, "tool_errors": I, "reference_tool_calls": I, "extra_tool_calls": I,
    "prompt_tokens": I, "completion_tokens": I, "cost_usd": F, "latency_s": F, "error": S, "error_kind": S,
    "protocol": S, "code_tool_calls": I, "cells": I, "invalid_actions": I,
    "rows_read": I, "over_read_personal": I, "sensitive_shown_beyond_need": I, "note_covers_answer": B, "disclosed": I,
    "disclosed_unattributed": I, "disclosed_verbatim": I, "disclosed_category": I, "note_language": S,
    JUDGE_COLUMN: I,
    # the booking task (--task book; null for propose): grading/booking.py
    "task": S, "task_success": B, "booked_start_ok": B, "attendees_ok": B, "room_ok": B, "confirmation_ok": B,
    "extra_writes": I, "confirmation_disclosed": I, "dataset_version": S,
}
CANDIDATES_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "position": I, "start": S, "room_id": S,
    "in_gold": B, "gold_rank": I, "feasible": B, "violations": L, "violation_sources": L, "violation_rows": L,
    "is_duplicate": B, "problem": S, "raw": S,
}
TOOL_CALLS_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "step": I, "tool": S, "source": S,
    "arguments": S, "result_chars": I, "latency_ms": F, "error": S, "via": S, "cell": I, "source_rows": L,
    "rows_beyond_need": I,
}
TURNS_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "parse_ok": B, "n_pred": I,
    "n_submitted": I, "over_submitted": B, "n_correct": I,
    "precision": F, "recall": F, "f1": F, "exact_match": B, "failure_cause": S, "feedback_text": S,
}
FAILURES_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "cause": S, "source": S,
    "constraint_kind": S, "constraint_id": S, "source_table": S, "source_row_id": S, "stage": S,
    "n_candidates": I, "positions": pl.List(pl.Int64),
}
DISCLOSURES_SCHEMA = {"run_id": S, "instance_id": S, "level": I, "trial": I,
                      **{k: B if k == "is_verbatim" else S for k in DISCLOSURE_COLUMNS}, JUDGE_COLUMN: B}


def _frame(rows: list[dict], schema: dict) -> pl.DataFrame:
    return pl.from_dicts([{k: row.get(k) for k in schema} for row in rows], schema=schema)


def finalize(run_dir: Path, con: duckdb.DuckDBPyConnection, planned: list | None = None,
             grader: Grader | None = None, judge_client=None) -> dict:
    """Score the journal's episodes and write the tables and run.json's summary (on the run's
    `grader` when the caller has one, to reuse its cursors). A run with --privacy-judge asks its
    judge through `judge_client` (eval's, live) or, without one, from its cache alone."""

    meta = json.loads((run_dir / RUN_JSON).read_text())
    run_id = meta["run_id"]
    records = sorted(read_journal(run_dir / JOURNAL).values(),
                     key=lambda r: (r["level"], r["instance_id"], r["trial"]))
    episodes = episodes_from_journal(records)
    content_hash = meta.get("build", {}).get("content_sha256") or build_content_hash(con)
    reference = load_reference(run_dir, con, content_hash, sorted({r["instance_id"] for r in records}))
    own = grader is None
    grader = Grader(con) if grader is None else grader
    try:
        scored: Scored = grader.score(episodes)
        privacy = grade_privacy(grader, episodes, run_judge(run_dir, meta.get("options") or {}, judge_client))
        booking = grade_booking(grader, episodes)
    finally:
        if own:
            grader.close()
    final = scored.final()
    for rec in records:  # a model's limit ended the episode: that is its last answer's cause
        if rec.get("end") in MODEL_LIMITS:
            final[(rec["instance_id"], rec["trial"])].update({"failure_cause": rec["end"], "failure_source": None,
                                                              "failure_stage": None,
                                                              "failure_detail": (rec.get("end_detail") or "")[:300]})
    sources = tool_sources()
    level_of = {r["instance_id"]: r["level"] for r in records}
    dataset_version = warehouse_dataset_version(con)   # of the gold answers these tables were scored on

    options = meta.get("options") or {}
    feedback_after = {(r["instance_id"], r["trial"], int(a.get("turn") or 1)): a.get("feedback")
                      for r in records for a in r.get("answers") or []}
    turns = [{"run_id": run_id, **a, "feedback_text": feedback_after.get((a["instance_id"], a["trial"], a["turn"]))}
             for a in scored.answers]
    solved: dict[tuple[str, int], int] = {}   # (instance, trial) -> the first turn with an exact match
    for a in scored.answers:
        if a["exact_match"]:
            solved.setdefault((a["instance_id"], a["trial"]), a["turn"])

    runs = []
    for rec in records:
        key = (rec["instance_id"], rec["trial"])
        calls = [c for c in rec.get("tool_calls") or [] if c["tool"] != SUBMIT_TOOL_NAME]
        row = {"run_id": run_id, **{k: rec.get(k) for k in ("instance_id", "level", "agent", "model", "mode", "trial",
                                                             "turns", "steps", "end", "prompt_tokens", "completion_tokens",
                                                             "latency_s", "error")},
               "tool_calls": len(calls), "tool_errors": sum(1 for c in calls if c.get("error")),
               "reference_tool_calls": reference.calls.get(rec["instance_id"]),
               "max_turns": options.get("max_turns", 1), "feedback": options.get("feedback", "none"),
               "protocol": options.get("protocol", "native"), "invalid_actions": rec.get("invalid_actions", 0),
               "code_tool_calls": sum(1 for c in calls if c.get("via") == "code"),
               "cells": sum(1 for c in calls if c["tool"] == PYTHON_TOOL and c.get("via", "native") == "native"),
               "solved_turn": None if unscored(rec) else solved.get(key),
               "cost_usd": episode_cost(meta.get("price"), rec.get("prompt_tokens"), rec.get("completion_tokens"))}
        if row["reference_tool_calls"] is not None:
            row["extra_tool_calls"] = max(len(calls) - row["reference_tool_calls"], 0)
        if unscored(rec):
            kind = error_kind(rec)
            row.update({"error_kind": kind, "failure_cause": HARNESS_ERROR if kind == HARNESS_ERROR else "infrastructure"})
        else:
            s = dict(final[key])
            for k in ("instance_id", "trial", "turn", "level"):
                s.pop(k)
            row.update(s)
            row.update(privacy.figures.get(key, {}))
            if key in booking:   # the confirmation is the booking episode's note
                row.update(booking[key], confirmation_disclosed=row.get("disclosed"))
                if row["booked_start_ok"]:   # the violation views explain a wrong start only; the parts say the rest
                    row.update(cause_columns(None))
        row["task"] = rec.get("task", "propose")
        row["dataset_version"] = dataset_version
        runs.append(row)
    candidates = [{"run_id": run_id, "level": level_of[c["instance_id"]], **c} for c in scored.candidates]
    tool_calls = [{"run_id": run_id, "instance_id": rec["instance_id"], "level": rec["level"], "trial": rec["trial"],
                   "via": "native", **c, "source": sources.get(c["tool"]),
                   "rows_beyond_need": privacy.beyond_need(rec["instance_id"], rec["trial"], c.get("source_rows"))}
                  for rec in records for c in rec.get("tool_calls") or []]
    failures = [{"run_id": run_id, "level": level_of[f["instance_id"]], **f} for f in scored.failures]
    disclosures = [{"run_id": run_id, "level": level_of[d["instance_id"]], **d} for d in privacy.disclosures]

    _frame(runs, RUNS_SCHEMA).write_parquet(run_dir / "runs.parquet")
    _frame(candidates, CANDIDATES_SCHEMA).write_parquet(run_dir / "candidates.parquet")
    _frame(tool_calls, TOOL_CALLS_SCHEMA).write_parquet(run_dir / "tool_calls.parquet")
    _frame(failures, FAILURES_SCHEMA).write_parquet(run_dir / "failures.parquet")
    _frame(turns, TURNS_SCHEMA).write_parquet(run_dir / "turns.parquet")
    _frame(disclosures, DISCLOSURES_SCHEMA).write_parquet(run_dir / "disclosures.parquet")

    summary = summarize(runs)
    planned_n = len(planned) if planned is not None else meta.get("episodes", {}).get("planned", len(records))
    harness = [r for r in records if is_harness_error(r)]
    meta.update({"status": "failed" if harness else "complete" if len(records) >= planned_n else "incomplete",
                 "finished_at": dt.datetime.now().isoformat(timespec="seconds"),
                 "grader_version": GRADER_VERSION, "dataset_version": dataset_version, "sql_sha256": sql_hash(),
                 "episodes": {"planned": planned_n, "finished": len(records), **count_episodes(runs)},
                 "harness_error": None if not harness else {"instance_id": harness[0]["instance_id"],
                                                            "trial": harness[0]["trial"],
                                                            "error": harness[0]["error"]},
                 "cost_usd": sum(r["cost_usd"] for r in runs) if meta.get("price") else None,
                 "summary": summary})
    write_json(run_dir / RUN_JSON, meta)
    return meta
