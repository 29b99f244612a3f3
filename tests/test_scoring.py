"""Scores (docs/semantics.md, "The answer" and "Scoring") and failure causes: set scores and rank-aware scores on hand-made
keys; every cause computed by the grading views (sql/40_grading/) on a tiny build, with
candidates chosen from the constraint views so that each breaks a known constraint."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor

import polars as pl
import pytest


from mpcbench.episode.answers import Candidate, ParsedAnswer, parse_submission, parse_text_answer
from mpcbench.grading import scoring
from mpcbench.grading.scoring import GradedEpisode, Grader, TurnAnswer, gold_keys, score_episodes
from mpcbench.grading.keys import candidate_key, problem_kinds, score_keys
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval

A, B, C, D = (("2026-03-02T09:00", None), ("2026-03-02T09:15", None), ("2026-03-02T09:30", None),
              ("2026-03-02T10:00", None))


# --- keys and set scores ----------------------------------------------------------------------

def test_exact_match_and_set_scores():
    s = score_keys([A, B, C], [A, B, C])
    assert (s.precision, s.recall, s.f1, s.exact_match, s.first_correct, s.ndcg) == (1, 1, 1, True, True, 1)
    s = score_keys([A, D], [A, B, C])
    assert (s.n_correct, s.precision, s.recall) == (1, 0.5, 1 / 3) and math.isclose(s.f1, 0.4)
    assert not s.exact_match


def test_duplicates_count_once_and_empty_answers_score_zero():
    s = score_keys([A, A, B, C], [A, B, C])
    assert s.exact_match and s.precision == 1 and s.n_pred == 4 and s.n_distinct == 3
    s = score_keys([], [A, B])
    assert (s.precision, s.recall, s.f1, s.exact_match, s.first_correct, s.ndcg) == (0, 0, 0, False, False, 0)


def test_rank_aware_scores_see_the_order():
    right_order, reversed_order = score_keys([A, B, C], [A, B, C]), score_keys([C, B, A], [A, B, C])
    assert right_order.f1 == reversed_order.f1 == 1
    assert right_order.ndcg == 1 and reversed_order.ndcg < 1 and not reversed_order.first_correct
    late_first = score_keys([D, A, B], [A, B, C])
    early_miss = score_keys([A, B, D], [A, B, C])
    assert late_first.f1 == early_miss.f1 and late_first.ndcg < early_miss.ndcg


def test_level_3_keys_hold_the_room_and_flagged_candidates_never_match():
    ok = Candidate("2026-03-02T09:00", "R-1", "", None)
    assert candidate_key(3, ok, 1) == ("2026-03-02T09:00", "R-1") and candidate_key(2, ok, 1) == ("2026-03-02T09:00", None)
    offset = Candidate("2026-03-02T09:00", None, "", "has a UTC offset (Z); times are local wall clock")
    assert candidate_key(1, offset, 1) != candidate_key(1, offset, 2) != A
    assert problem_kinds(1, offset) == ["utc_offset"]
    assert problem_kinds(1, Candidate(None, None, "", "not a time")) == ["unreadable"]
    assert problem_kinds(3, Candidate("2026-03-02T09:05", None, "", "off the 15-minute grid; room_id is missing")) == \
        ["off_grid", "room_missing"]


# --- failure causes in SQL --------------------------------------------------------------------

def answer(keys, level) -> ParsedAnswer:
    text = json.dumps({"candidates": [{"start": s, **({"room_id": r} if level >= 3 else {})} for s, r in keys]})
    return parse_submission(text, level)


def score_one(con, instance_id, keys_or_answer, tools=(), level=None):
    level = level or int(instance_id[1])
    parsed = keys_or_answer if isinstance(keys_or_answer, ParsedAnswer) or keys_or_answer is None \
        else answer(keys_or_answer, level)
    calls = [{"turn": 1, "tool": t, "error": None} for t in tools]
    scored = score_episodes(con, [GradedEpisode(instance_id, 1, level, [TurnAnswer(1, parsed)], calls)])
    return scored.answers[0], scored.candidates, scored.failures


def fmt(ts) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M")


def single_violation(con, kind: str, level: int | None = None):
    """(instance_id, start) of a start that breaks exactly one constraint, of this kind."""
    rows = con.execute(
        "select v.instance_id, v.starts_at from int_violations as v join instances as i using (instance_id) "
        "where ($level is null or i.level = $level) group by all "
        "having count(*) = 1 and any_value(v.constraint_kind) = $kind order by all limit 1",
        {"kind": kind, "level": level}).fetchall()
    if not rows:
        pytest.skip(f"the tiny build has no start that breaks only {kind}")
    return rows[0][0], fmt(rows[0][1])


def test_an_exact_match_has_no_failure(con, golds):
    row, candidates, failures = score_one(con, "L2-0001", golds["L2-0001"], tools=["get_busy_intervals"])
    assert row["exact_match"] and row["failure_cause"] is None and failures == []
    assert all(c["in_gold"] and c["feasible"] and c["violations"] == [] for c in candidates)
    assert row["sources_required"] == ["calendar", "policy", "threads"] and row["sources_read"] == ["calendar"]
    assert math.isclose(row["source_coverage"], 1 / 3)


@pytest.mark.parametrize("kind, source, tools", [
    ("busy", "calendar", ["get_busy_intervals"]),
    ("working_hours", "policy", ["get_policy", "read_policy_doc"]),
    ("ban", "threads", ["read_thread"]),
])
def test_a_violation_names_its_rule_and_source_row_and_the_stage_follows_the_trace(con, golds, kind, source, tools):
    instance_id, start = single_violation(con, kind, level=2 if source == "threads" else None)
    keys = [(start, None)] + golds[instance_id][1:]
    never_read, candidates, failures = score_one(con, instance_id, keys, level=int(instance_id[1]))
    assert never_read["failure_cause"] == f"{source}:{kind}" and never_read["failure_stage"] == "acquisition"
    wrong = candidates[0]
    assert wrong["violations"] == [kind] and wrong["violation_sources"] == [source] and not wrong["feasible"]
    (failure,) = [f for f in failures if f["cause"] == "violation"]
    expected = con.execute("select constraint_id, source_table, source_row_id from int_violations "
                           "where instance_id = $i and starts_at = cast($s as timestamp)",
                           {"i": instance_id, "s": start}).fetchall()[0]
    assert (failure["constraint_id"], failure["source_table"], failure["source_row_id"]) == expected
    assert wrong["violation_rows"] == [f"{kind}:{expected[0]}@{expected[1]}.{expected[2]}"]
    assert never_read["failure_detail"].startswith("1 candidate; ") and expected[0] in never_read["failure_detail"]
    read, _, _ = score_one(con, instance_id, keys, tools=tools)
    assert read["failure_cause"] == f"{source}:{kind}" and read["failure_stage"] == "integration"


def test_a_tool_call_that_failed_reads_nothing(con, golds):
    instance_id, start = single_violation(con, "busy")
    keys = [(start, None)] + golds[instance_id][1:]
    level = int(instance_id[1])
    calls = [{"turn": 1, "tool": "get_busy_intervals", "error": "No person has person_id 'p-999'."}]
    scored = score_episodes(con, [GradedEpisode(instance_id, 1, level, [TurnAnswer(1, answer(keys, level))], calls)])
    assert scored.answers[0]["failure_stage"] == "acquisition" and scored.answers[0]["sources_read"] == []


def test_feasible_but_late_is_a_ranking_error(con, golds):
    late = con.execute("select c.starts_at from oracle_candidates as c join stg_instances as i using (instance_id) "
                       "where c.instance_id = 'L1-0001' and c.rank = i.n + 1").fetchall()[0][0]
    keys = golds["L1-0001"][:-1] + [(fmt(late), None)]
    row, candidates, _ = score_one(con, "L1-0001", keys)
    assert row["failure_cause"] == "ranking" and row["failure_stage"] == "integration"
    assert candidates[-1]["feasible"] and not candidates[-1]["in_gold"] and candidates[-1]["violations"] == []


def test_too_few_candidates_and_parse_failures(con, golds):
    row, _, _ = score_one(con, "L1-0002", golds["L1-0002"][:-1])
    assert row["failure_cause"] == "too_few_candidates" and row["recall"] < 1 and row["precision"] == 1
    for parsed in (None, parse_submission('{"candidates": [{"start": "soon"}]}', 1)):
        row, candidates, _ = score_one(con, "L1-0002", parsed)
        assert row["failure_cause"] == "parse_failure" and row["f1"] == 0 and not row["parse_ok"] and candidates == []


def test_invalid_candidates_are_the_answers_own_problems(con, golds):
    g = golds["L1-0003"]
    day = g[0][0][:10]
    text = json.dumps({"candidates": [{"start": f"{day}T09:05"}, {"start": "2020-01-01T09:00"},
                                      {"start": "yesterday"}]})
    row, candidates, failures = score_one(con, "L1-0003", parse_text_answer(text, 1))
    assert [c["violations"] for c in candidates] == [["off_grid"], ["out_of_window"], ["unreadable"]]
    assert row["failure_source"] == "answer" and row["failure_stage"] is None
    assert {f["constraint_kind"] for f in failures if f["cause"] == "violation"} == \
        {"off_grid", "out_of_window", "unreadable"}


def test_level_3_room_causes(con, golds):
    instance_id = "L3-0001"
    g = golds[instance_id]
    start = g[0][0]
    rooms = con.execute(
        "select r.room_id, f.room_id is not null as fits, "
        "exists (select 1 from stg_room_bookings as b where b.world_id = i.world_id and b.room_id = r.room_id "
        "        and b.starts_at < cast($s as timestamp) + interval '1' minute * i.duration_minutes "
        "        and cast($s as timestamp) < b.ends_at) as booked "
        "from stg_instances as i join stg_rooms as r on r.world_id = i.world_id "
        "left join int_room_static_fits as f on f.instance_id = i.instance_id and f.room_id = r.room_id "
        "where i.instance_id = $i order by r.room_id", {"i": instance_id, "s": start}).fetchall()
    expected = {}
    for room_id, fits, booked in rooms:
        if room_id == g[0][1]:
            continue
        kind = "room_booked" if booked else "room_unfit" if not fits else "room_tie_break"
        expected.setdefault(kind, room_id)
    expected["unknown_room"] = "NO-SUCH-ROOM"
    for kind, room_id in expected.items():
        row, candidates, _ = score_one(con, instance_id, [(start, room_id)] + g[1:])
        assert kind in candidates[0]["violations"], (kind, candidates[0])
        assert row["failure_source"] == "rooms" and not candidates[0]["in_gold"]
    missing_room = parse_text_answer(json.dumps([{"start": s} for s, _ in g]), 3)
    row, candidates, _ = score_one(con, instance_id, missing_room)
    assert all(c["violations"] == ["room_missing"] for c in candidates) and row["f1"] == 0


def test_acquisition_is_preferred_as_the_primary_cause(con, golds):
    busy_id, busy_start = single_violation(con, "busy", level=1)
    hours = con.execute("select starts_at from int_violations where instance_id = $i and constraint_kind = "
                        "'working_hours' order by starts_at limit 1", {"i": busy_id}).fetchall()[0][0]
    keys = [(busy_start, None), (fmt(hours), None)] + golds[busy_id][2:]
    row, _, failures = score_one(con, busy_id, keys, tools=["get_busy_intervals"])
    assert {f["stage"] for f in failures if f["cause"] == "violation"} == {"acquisition", "integration"}
    assert row["failure_cause"] == "policy:working_hours" and row["failure_stage"] == "acquisition"


def test_turns_are_scored_one_by_one(con, golds):
    g = golds["L1-0004"]
    episode = GradedEpisode("L1-0004", 1, 1, [TurnAnswer(1, answer(g[:-1], 1)), TurnAnswer(2, answer(g, 1))],
                      [{"turn": 2, "tool": "get_policy", "error": None}])
    scored = score_episodes(con, [episode])
    first, second = scored.answers
    assert (first["turn"], first["exact_match"], first["sources_read"]) == (1, False, [])
    assert (second["turn"], second["exact_match"], second["sources_read"]) == (2, True, ["policy"])
    assert scored.final()[("L1-0004", 1)]["turn"] == 2


def two_a_level(golds: dict) -> list[str]:
    """The first two instances of every level of the build, in order."""
    chosen = [i for i in sorted(golds) if int(i.split("-")[1]) <= 2]
    assert sorted({i[:2] for i in chosen}) == ["L1", "L2", "L3", "L4"] and len(chosen) == 8
    return chosen


def test_a_grader_reuses_its_cursors_across_calls_and_threads(con, golds):
    """The pooled cursors start every call with empty inputs: each answer scores as it does alone
    (two instances a level, one answered exactly and one not, each scored twice: 16 calls on 2
    cursors from 4 threads)."""
    episodes = [GradedEpisode(i, 1, int(i[1]), [TurnAnswer(1, answer(golds[i][:-1] if n % 2 else golds[i], int(i[1])))],
                        [{"turn": 1, "tool": "get_policy", "error": None}])
                for n, i in enumerate(two_a_level(golds))]
    alone = [score_episodes(con, [e]) for e in episodes]
    grader = Grader(con, size=2)
    try:
        with ThreadPoolExecutor(4) as pool:
            pooled = list(pool.map(lambda e: grader.score([e]), episodes + episodes))
        assert grader._made <= 2
    finally:
        grader.close()
    for a, b in zip(alone + alone, pooled):
        assert (a.answers, a.candidates, a.failures) == (b.answers, b.candidates, b.failures)
    assert {row.answers[0]["exact_match"] for row in pooled} == {True, False}


def test_a_grader_reads_an_instances_gold_once(con, golds, monkeypatch):
    """The gold keys are read at the first call that needs them and kept: later scorings of the
    same instances query none, and score as the oracle's keys say."""
    queried: list[list[str]] = []
    read = scoring._gold
    monkeypatch.setattr(scoring, "_gold", lambda cur, ids: queried.append(list(ids)) or read(cur, ids))
    ids = two_a_level(golds)
    grader = Grader(con, size=1)
    try:
        first = grader.gold_keys(ids[:4])
        scored = [grader.score([GradedEpisode(i, 1, int(i[1]), [TurnAnswer(1, answer(golds[i], int(i[1])))])])
                  for i in ids for _ in range(2)]
        assert grader.gold_keys(ids) == gold_keys(con, ids) == {i: golds[i] for i in ids}
    finally:
        grader.close()
    assert queried == [ids[:4], ids[4:5], ids[5:6], ids[6:7], ids[7:8], ids]   # the last: gold_keys(con, ...)
    assert first == {i: golds[i] for i in ids[:4]}
    assert all(s.answers[0]["exact_match"] for s in scored)


def test_checks_only_scoring_judges_every_candidate_as_the_full_scoring_does(con, golds):
    """`explain=False` (what feedback asks for) leaves out the failures and their causes, nothing
    else: every answer's scores and every candidate's checks equal the full scoring's, on one
    pooled cursor taking both kinds of call in turn (four answers to two instances a level)."""
    def answers(instance_id: str) -> list[ParsedAnswer | None]:
        level, gold = int(instance_id[1]), golds[instance_id]
        night = [(start[:11] + "03:00", room) for start, room in gold[:1]]
        return [answer(gold, level), answer(gold[:-1], level), answer(night + gold[1:], level), None]
    episodes = [GradedEpisode(i, 1, int(i[1]), [TurnAnswer(t, a) for t, a in enumerate(answers(i), 1)],
                              [{"turn": 1, "tool": "get_policy", "error": None}]) for i in two_a_level(golds)]
    grader = Grader(con, size=1)
    try:
        for episode in episodes:
            full, checks = grader.score([episode]), grader.score([episode], explain=False)
            assert checks.failures == [] and {r["failure_cause"] for r in checks.answers} == {None}
            assert checks.candidates == full.candidates and checks.candidates
            scores = ("turn", "parse_ok", "n_pred", "n_correct", "n_gold", "f1", "exact_match", "over_submitted")
            assert [[r[k] for k in scores] for r in checks.answers] == [[r[k] for k in scores] for r in full.answers]
            assert grader.score([episode]).failures == full.failures   # the next full call explains again
    finally:
        grader.close()
    assert any(c["violations"] for c in full.candidates)


def test_exact_matches_scored_alone_skip_the_failures_and_lose_nothing(con, golds):
    """A call whose answers are all exact matches computes no failure causes (it has none): each
    exact answer scored alone, on a cursor whose last call explained misses, gets the same row and
    candidates as beside a miss, where the full causes are computed and name none of its keys."""
    ids = two_a_level(golds)
    exact = [GradedEpisode(i, 1, int(i[1]), [TurnAnswer(1, answer(golds[i], int(i[1])))],
                           [{"turn": 1, "tool": "get_policy", "error": None}]) for i in ids]
    miss = GradedEpisode(ids[0], 2, int(ids[0][1]), [TurnAnswer(1, answer(golds[ids[0]][:-1], int(ids[0][1])))])
    grader = Grader(con, size=1)
    try:
        beside = grader.score([*exact, miss])
        assert {(f["instance_id"], f["trial"]) for f in beside.failures} == {(ids[0], 2)}
        for episode in exact:
            alone = grader.score([episode])
            assert alone.failures == [] and alone.answers[0]["exact_match"]
            assert alone.answers == [r for r in beside.answers if r["instance_id"] == episode.instance_id and r["trial"] == 1]
            assert alone.candidates == [c for c in beside.candidates
                                        if c["instance_id"] == episode.instance_id and c["trial"] == 1]
            assert grader.score([miss]).failures == beside.failures   # the next miss is explained again
    finally:
        grader.close()


def test_infrastructure_errors_are_not_scored(con, golds):
    scored = score_episodes(con, [GradedEpisode("L1-0001", 1, 1, [TurnAnswer(1, None)], [], error="timeout: no response")])
    assert scored.answers == [] and scored.candidates == [] and scored.failures == []


def test_every_wrong_candidate_of_the_baselines_is_explained(db_path, tmp_path):
    """The grader's invariants over the baselines' answers: a gold candidate breaks nothing; a
    readable in-window candidate is feasible iff it breaks nothing; no miss is unexplained."""
    for agent in ("random", "calendar-only"):
        run = run_eval(EvalConfig(agent=agent, db=str(db_path), out=str(tmp_path / agent)))
        candidates = pl.read_parquet(run.run_dir / "candidates.parquet")
        failures = pl.read_parquet(run.run_dir / "failures.parquet")
        assert candidates.height > 0
        assert candidates.filter(pl.col("in_gold") & (pl.col("violations").list.len() > 0)).height == 0
        clean = candidates.filter(~pl.col("violation_sources").list.contains("answer"))
        assert clean.filter(pl.col("feasible") == (pl.col("violations").list.len() > 0)).height == 0
        assert "unexplained" not in failures["cause"].to_list()
        runs = pl.read_parquet(run.run_dir / "runs.parquet")
        assert runs.filter(~pl.col("exact_match") & pl.col("failure_cause").is_null()).height == 0


def test_a_free_fitting_room_that_the_tie_break_does_not_pick(con, golds):
    rows = con.execute(
        "select a.instance_id, a.rank, f.room_id from oracle_answers as a "
        "join stg_instances as i using (instance_id) "
        "join int_room_static_fits as f on f.instance_id = a.instance_id and f.room_id <> a.room_id "
        "where i.level = 3 and not exists (select 1 from stg_room_bookings as b where b.world_id = i.world_id "
        "    and b.room_id = f.room_id and b.starts_at < a.starts_at + interval '1' minute * i.duration_minutes "
        "    and a.starts_at < b.ends_at) order by all limit 1").fetchall()
    if not rows:
        pytest.skip("no gold start of the tiny build has a second free fitting room")
    instance_id, rank, other = rows[0]
    keys = list(golds[instance_id])
    keys[rank - 1] = (keys[rank - 1][0], other)
    row, candidates, failures = score_one(con, instance_id, keys)
    assert candidates[rank - 1]["violations"] == ["room_tie_break"] and not candidates[rank - 1]["feasible"]
    (failure,) = [f for f in failures if f["cause"] == "violation"]
    assert failure["source_row_id"] == golds[instance_id][rank - 1][1]  # names the room it should have been
    assert row["failure_cause"] == "rooms:room_tie_break"


# --- an answer is N long ---------------------------------------------------------------------

def later_grid_starts(gold: list[tuple], count: int) -> list[tuple]:
    """`count` on-grid keys after the last gold start (wrong: not in the gold answer)."""
    import datetime as dt
    last = dt.datetime.fromisoformat(max(s for s, _ in gold))
    room = gold[0][1]
    return [((last + dt.timedelta(minutes=15 * k)).strftime("%Y-%m-%dT%H:%M"), room) for k in range(1, count + 1)]


@pytest.mark.parametrize("instance_id", ["L1-0001", "L2-0001", "L3-0001"])
def test_candidates_past_the_nth_are_dropped_unscored_and_counted(con, golds, instance_id):
    gold = golds[instance_id]
    n = len(gold)
    row, candidates, _ = score_one(con, instance_id, gold + later_grid_starts(gold, 7))
    assert row["exact_match"] and row["precision"] == 1 and row["n_pred"] == n
    assert (row["n_submitted"], row["over_submitted"]) == (n + 7, True)
    assert [c["position"] for c in candidates] == list(range(1, n + 1))   # the extra ones are not judged
    # the gold answer after a wrong first candidate: the N-th gold key is cut off, F1 drops
    row, candidates, _ = score_one(con, instance_id, later_grid_starts(gold, 1) + gold)
    assert not row["exact_match"] and row["n_correct"] == n - 1 and row["n_submitted"] == n + 1
    assert all(c["start"] != gold[-1][0] for c in candidates)


def test_answers_of_n_or_fewer_score_as_before(con, golds):
    gold = golds["L2-0001"]
    for keys in (gold, gold[:1], later_grid_starts(gold, len(gold)), gold[1:] + later_grid_starts(gold, 1)):
        row, _, _ = score_one(con, "L2-0001", keys)
        plain = score_keys(keys, gold)
        assert (row["n_pred"], row["n_correct"], row["f1"], row["exact_match"]) == \
            (plain.n_pred, plain.n_correct, plain.f1, plain.exact_match)
        assert row["n_submitted"] == len(keys) and not row["over_submitted"]
