"""Scores and failure causes of agents' answers (docs/semantics.md, "The answer" and "Scoring"):
each answer's candidate keys scored against the oracle's (`grading.keys`). An answer is its first N
candidates (`judged`): the ones past the N-th are dropped unscored and only counted
(`n_submitted`, `over_submitted`).

Failure causes are computed by the grading layer, `sql/40_grading/`: the predicted candidates,
the answers and the tool trace go into its input tables (`00_inputs.sql`), and its views join
them with the constraint views (`int_violations`, room fit and bookings, `oracle_candidates`),
one view per check; the tool trace says which sources the agent read, through each tool's
`-- source:` header. A `Grader` runs it all on cursors of the warehouse that hold the layer as
temporary tables and views, and keeps them for its next call (a run shares one);
`score_episodes` is a one-off grader.
"""

from __future__ import annotations

import datetime as dt
import os
import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

import duckdb

from ..episode.answers import Candidate, ParsedAnswer
from ..episode.toolfiles import tool_sources
from ..levels import level_spec
from ..timestamps import TIME_FORMAT
from ..warehouse import db
from .keys import Key, KeyScores, candidate_key, problem_kinds, score_keys
from .layer import CHECKS_ONLY, LAYER, SCORING, SCORING_EXACT, clear_grading, create_grading, refresh_grading

# 2: an answer is its first N candidates (N: the gold answer's length); the rest are dropped before
# scoring and counted (n_submitted, over_submitted). Answers of N or fewer score as under version 1.
# 3 (issue 38): the privacy figures read whose detail a note tells (grading/attribution.py): `disclosed`
# counts items attributed to their owner, in any words; disclosed_unattributed, note_language and
# a missing (null) disclosure figure for a note not in English are new. The task scores are unchanged.
# 3.1: the detector revised on notes written apart from it (docs/privacy.md, "Two fresh sets"): more
# senses, a bare "counselling" no detail, a sense before a noun of work ("vendor") no disclosure, and
# an unattributed disclosure only in a sentence that speaks of a person.
GRADER_VERSION = "3.1"

# --- episodes --------------------------------------------------------------------------------

@dataclass
class TurnAnswer:
    turn: int
    answer: ParsedAnswer | None


@dataclass
class GradedEpisode:
    """What scoring needs of one finished episode."""
    instance_id: str
    trial: int
    level: int
    answers: list[TurnAnswer]                          # one per turn, in order (may be empty)
    tool_calls: list[dict] = field(default_factory=list)   # {"turn", "tool", "error", "source_rows"}
    error: str | None = None                           # infrastructure error: not scored
    prompt_rows: list[str] | None = None               # rows the prompt showed (None: a journal before lineage)
    writes: dict | None = None                         # a booking episode's final state (None: proposing)

    @property
    def key(self) -> tuple[str, int]:
        return (self.instance_id, self.trial)


@dataclass
class Scored:
    answers: list[dict]      # one per (instance, trial, turn): scores, failure cause, coverage
    candidates: list[dict]   # one per predicted candidate
    failures: list[dict]     # one per (answer, cause)

    def final(self) -> dict[tuple[str, int], dict]:
        """The last turn's scores of each episode."""
        out: dict[tuple[str, int], dict] = {}
        for row in self.answers:
            out[(row["instance_id"], row["trial"])] = row
        return out


def _gold(cur: duckdb.DuckDBPyConnection, instance_ids: list[str]) -> dict[str, list[Key]]:
    """The rows of the view grading_gold, from its SQL: it reads the warehouse alone, so any cursor
    answers, with or without the grading layer (which takes a while to create)."""
    gold: dict[str, list[Key]] = {instance_id: [] for instance_id in instance_ids}
    rows = cur.execute(f"select * from ({dict(db.layer_views(LAYER))['grading_gold']}) "
                       "where list_contains($instance_ids, instance_id) order by instance_id, rank",
                       {"instance_ids": list(instance_ids)})
    for row in db.records(rows):
        gold[row["instance_id"]].append(
            (row["starts_at"].strftime(TIME_FORMAT), row["room_id"] if row["level"] >= 3 else None))
    return gold


def judged(answer: ParsedAnswer | None, n: int) -> tuple[tuple[Candidate, ...], int]:
    """(the candidates that are judged: the first n, the number submitted) of an answer."""
    candidates = answer.candidates if answer is not None and answer.parse_ok else ()
    return candidates[:n], len(candidates)


class Grader:
    """Scores episodes on cursors of one warehouse connection that hold the grading layer.
    Creating the layer binds every grading view, which costs more than grading one answer, so a
    cursor is kept for the next call with its input tables emptied. Threads may score side by
    side on up to `size` cursors (default: one per core; more would only share the cores); a
    thread waits for a free one beyond that. The gold keys of an instance are read once (a feedback
    turn scores one answer; its gold query was a sixth of the call). `close` closes the cursors."""

    def __init__(self, con: duckdb.DuckDBPyConnection, size: int | None = None):
        self.con = con
        self.size = size or os.cpu_count() or 1
        self._idle: queue.Queue = queue.Queue()
        self._made = 0
        self._lock = threading.Lock()
        self._gold: dict[str, list[Key]] = {}

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor with the grading layer and empty input tables, back in the pool after use."""
        with self._lock:
            make = self._idle.empty() and self._made < self.size
            self._made += make
        cur = self.con.cursor() if make else self._idle.get()
        try:
            if make:
                create_grading(cur, documented=False)
            yield cur
            clear_grading(cur)
        except BaseException:
            cur.close()
            with self._lock:
                self._made -= 1
            raise
        self._idle.put(cur)

    def close(self) -> None:
        while not self._idle.empty():
            self._idle.get_nowait().close()

    def gold_keys(self, instance_ids: list[str]) -> dict[str, list[Key]]:
        with self.cursor() as cur:
            return self._gold_of(cur, instance_ids)

    def _gold_of(self, cur: duckdb.DuckDBPyConnection, instance_ids: list[str]) -> dict[str, list[Key]]:
        missing = [i for i in instance_ids if i not in self._gold]
        if missing:
            found = _gold(cur, missing)
            with self._lock:
                self._gold.update(found)
        return {i: self._gold[i] for i in instance_ids}

    def score(self, episodes: list[GradedEpisode], *, explain: bool = True) -> Scored:
        """`score_episodes`; with `explain=False` only the scores and each candidate's checks (no
        failure cause, failures or source coverage): what feedback words, at half the cost."""
        with self.cursor() as cur:
            scored = [e for e in episodes if e.error is None]
            return _score(cur, scored, self._gold_of(cur, sorted({e.instance_id for e in scored})), explain=explain)


def gold_keys(con: duckdb.DuckDBPyConnection, instance_ids: list[str]) -> dict[str, list[Key]]:
    """The oracle's keys per instance, by rank (the view grading_gold)."""
    cur = con.cursor()
    try:
        return _gold(cur, instance_ids)
    finally:
        cur.close()


def score_episodes(con: duckdb.DuckDBPyConnection, episodes: list[GradedEpisode]) -> Scored:
    """Score every turn's answer of the episodes (infrastructure errors are left out) and explain
    every miss with the grading views (sql/40_grading/), on a cursor of `con` closed after."""
    grader = Grader(con)
    try:
        return grader.score(episodes)
    finally:
        grader.close()


def quick_score(level: int, answer: ParsedAnswer | None, gold: list[Key]) -> KeyScores:
    """Set scores only (no database): for progress bars."""
    candidates, _ = judged(answer, len(gold))
    return score_keys([candidate_key(level, c, i) for i, c in enumerate(candidates, 1)], gold)


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> None:
    if rows:
        con.execute(f"insert into {table} by name select unnest($rows, recursive := true)", {"rows": rows})


def _starts_at(start: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.strptime(start, TIME_FORMAT) if start else None
    except ValueError:
        return None


def _score(cur: duckdb.DuckDBPyConnection, scored: list[GradedEpisode], gold: dict[str, list[Key]],
           explain: bool = True) -> Scored:
    """score_episodes of episodes without an infrastructure error and their instances' gold keys,
    on a cursor that holds the grading layer with empty input tables."""
    predictions: list[dict[str, Any]] = []
    answer_rows: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for e in scored:
        for call in e.tool_calls:
            calls.append({"instance_id": e.instance_id, "trial": e.trial, "turn": int(call.get("turn") or 1),
                          "tool": str(call["tool"]), "error": call.get("error")})
        for ta in e.answers:
            answer = ta.answer
            candidates, n_submitted = judged(answer, len(gold[e.instance_id]))
            keys = [candidate_key(e.level, c, i) for i, c in enumerate(candidates, 1)]
            s = score_keys(keys, gold[e.instance_id])
            seen: set = set()
            for position, (c, key) in enumerate(zip(candidates, keys), 1):
                predictions.append({
                    "instance_id": e.instance_id, "trial": e.trial, "turn": ta.turn, "position": position,
                    "start_text": c.start, "starts_at": _starts_at(c.start),
                    "room_id": c.room_id if level_spec(e.level).rooms else None, "raw": c.raw,
                    "problem": c.problem, "problem_kinds": problem_kinds(e.level, c),
                    "is_duplicate": key in seen})
                seen.add(key)
            answer_rows.append({
                "instance_id": e.instance_id, "trial": e.trial, "turn": ta.turn, "level": e.level,
                "parse_ok": bool(answer is not None and answer.parse_ok),
                "answer_path": answer.path if answer is not None else None,
                "parse_error": answer.error if answer is not None else "no answer",
                "n_distinct_pred": s.n_distinct, "n_gold": s.n_gold, "n_submitted": n_submitted, "scores": s})
    _insert(cur, "grading_predictions", predictions)
    _insert(cur, "grading_episodes",
            [{k: r[k] for k in ("instance_id", "trial", "turn", "level", "parse_ok", "n_distinct_pred", "n_gold")}
             for r in answer_rows])
    if explain:
        _insert(cur, "grading_tool_calls", calls)
        _insert(cur, "grading_tool_sources", [{"tool": t, "source": s} for t, s in sorted(tool_sources().items())])
    missed = not all(r["scores"].exact_match for r in answer_rows)   # an exact match has no failure to explain
    refresh_grading(cur, CHECKS_ONLY if not explain else SCORING if missed else SCORING_EXACT)
    checked = {(r["instance_id"], r["trial"], r["turn"], r["position"]): r
               for r in db.records(cur.execute("select * from grading_candidate_checks"))}
    failures, primary, coverage = [], {}, {}
    if explain:
        if missed:
            failures = db.records(cur.execute("select * from grading_failures order by all"))
            primary = {(r["instance_id"], r["trial"], r["turn"]): r
                       for r in db.records(cur.execute("select * from grading_primary_causes"))}
        coverage = {(r["instance_id"], r["trial"], r["turn"]): r
                    for r in db.records(cur.execute("select * from grading_source_coverage"))}

    candidate_rows = []
    for p in predictions:
        check = checked[(p["instance_id"], p["trial"], p["turn"], p["position"])]
        violations = check["violations"]
        candidate_rows.append({
            "instance_id": p["instance_id"], "trial": p["trial"], "turn": p["turn"], "position": p["position"],
            "start": p["start_text"], "room_id": p["room_id"], "raw": p["raw"], "problem": p["problem"],
            "in_gold": bool(check["in_gold"]), "gold_rank": check["gold_rank"], "feasible": bool(check["feasible"]),
            "is_duplicate": bool(check["is_duplicate"]),
            "violations": sorted({v["constraint_kind"] for v in violations}),
            "violation_sources": sorted({v["source"] for v in violations}),
            "violation_rows": [f"{v['constraint_kind']}:{v['constraint_id']}@{v['source_table']}.{v['source_row_id']}"
                               for v in violations],
            "violation_details": [(v["constraint_kind"], v["source"], v["constraint_id"]) for v in violations]})
    answers = []
    for r in answer_rows:
        key = (r["instance_id"], r["trial"], r["turn"])
        s = r.pop("scores")
        cov = coverage.get(key, {})
        cause = primary.get(key) if not s.exact_match else None
        answers.append({
            **{k: r[k] for k in ("instance_id", "trial", "turn", "level", "parse_ok", "answer_path", "parse_error")},
            "n_pred": s.n_pred, "n_submitted": r["n_submitted"], "over_submitted": r["n_submitted"] > s.n_gold,
            "n_correct": s.n_correct, "n_gold": s.n_gold,
            "precision": s.precision, "recall": s.recall, "f1": s.f1, "exact_match": s.exact_match,
            "first_correct": s.first_correct, "ndcg": s.ndcg,
            **cause_columns(cause),
            "sources_required": list(cov.get("sources_required") or []),
            "sources_read": list(cov.get("sources_read") or []),
            "source_coverage": cov.get("source_coverage")})
    for f in failures:
        f["positions"] = list(f["positions"])
    return Scored(answers, candidate_rows, failures)


def cause_columns(cause: dict | None) -> dict:
    """failure_cause ('policy:blackout', 'ranking', 'parse_failure', ...), its source, stage and
    a short detail naming the rule, tag or row behind it."""
    if cause is None:
        return {"failure_cause": None, "failure_source": None, "failure_stage": None, "failure_detail": None}
    kind = cause["cause"]
    label = f"{cause['source']}:{cause['constraint_kind']}" if kind == "violation" else kind
    ids = list(cause.get("constraint_ids") or [])
    detail = None
    if kind in ("violation", "ranking", "unexplained"):
        n = cause["n_candidates"]
        detail = f"{n} candidate{'s' if n != 1 else ''}"
        if ids:
            detail += f"; {', '.join(ids[:3])}{' …' if len(ids) > 3 else ''}"
    return {"failure_cause": label, "failure_source": cause["source"], "failure_stage": cause["stage"],
            "failure_detail": detail}
