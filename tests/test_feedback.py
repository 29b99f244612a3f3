"""Multi-turn feedback, context mode and the ablation (the MINT protocol): the real openai client
against tests/fake_openai.py, and the offline agents."""

from __future__ import annotations

import asyncio
import json
import re
import shutil

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, altered_copy, instances, submit
from fake_openai import FakeOpenAI, reply_text, reply_tool_calls
from mpcbench.agents import make_agent
from mpcbench.cli import app
from mpcbench.episode.answers import parse_submission
from mpcbench.episode import context
from mpcbench.episode.context import ContextMode
from mpcbench.episode.engine import play
from mpcbench.episode.environment import Environment
from mpcbench.errors import UserError
from mpcbench.grading.feedback import KIND_TEXT, FeedbackGiver
from mpcbench.harness.ablation import run_ablation
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.warehouse import db

SECRET = "sk-test-feedback-7d1e"


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def fast(**kw) -> dict:
    return {"agent": "openai", "model": "fake-model", "timeout_s": 2, "max_retries": 1, "backoff_base_s": 0.01,
            "max_steps": 4, "concurrency": 4, **kw}


def shifted(keys: list[tuple], minutes: int = 15) -> list[tuple]:
    """The gold keys moved by some minutes: on the grid, in the window, and (almost always) wrong."""
    import datetime as dt
    out = []
    for start, room in keys:
        t = dt.datetime.fromisoformat(start) + dt.timedelta(minutes=minutes)
        out.append((t.strftime("%Y-%m-%dT%H:%M"), room))
    return out


def runs(run_dir) -> dict[str, dict]:
    return {r["instance_id"]: r for r in pl.read_parquet(run_dir / "runs.parquet").to_dicts()}


# --- the harness's turns ---------------------------------------------------------------------

def test_a_model_that_fixes_its_answer_after_feedback_and_one_that_never_does(db_path, golds, tmp_path, key):
    wrong = {i: shifted(g, 15) for i, g in golds.items()}
    prompts = {i: p for i, _, p in instances(db_path)}
    scripts = {"L1-0001": [submit(wrong["L1-0001"], 1), submit(golds["L1-0001"], 1)],   # fixes it in turn 2
               "L2-0001": [submit(wrong["L2-0001"], 2)],                                 # never does
               "L3-0001": [submit(golds["L3-0001"], 3)]}                                 # right at once
    with FakeOpenAI(PerInstance(db_path, scripts)) as srv:
        result = run_eval(EvalConfig(base_url=srv.base_url, db=str(db_path), out=str(tmp_path / "r"),
                                     instance_ids=tuple(scripts), max_turns=3, feedback="rule", **fast()))
        requests = list(srv.requests)
    rows = runs(result.run_dir)
    assert rows["L1-0001"]["solved_turn"] == 2 and rows["L1-0001"]["exact_match"] and rows["L1-0001"]["turns"] == 2
    assert rows["L2-0001"]["solved_turn"] is None and rows["L2-0001"]["turns"] == 3 and not rows["L2-0001"]["exact_match"]
    assert rows["L3-0001"]["solved_turn"] == 1 and rows["L3-0001"]["turns"] == 1
    turns = pl.read_parquet(result.run_dir / "turns.parquet").sort("instance_id", "turn")
    fixed = turns.filter(pl.col("instance_id") == "L1-0001").to_dicts()
    assert [t["exact_match"] for t in fixed] == [False, True]
    assert fixed[0]["feedback_text"].startswith("Your answer is not correct yet") and fixed[1]["feedback_text"] is None
    # the feedback reached the model as the last message of its next request
    second = next(r for r in requests if any(m.get("content") == fixed[0]["feedback_text"] for m in r.messages))
    assert second.messages[-1] == {"role": "user", "content": fixed[0]["feedback_text"]}
    never = [r for r in requests if r.messages[1]["content"] == prompts["L2-0001"]]
    assert len(never) == 3 and sum(1 for m in never[-1].messages if m["role"] == "user") == 3


def test_binary_feedback_says_only_that_it_is_wrong_and_count_names_no_start(con, golds):
    answer = parse_submission(json.dumps({"candidates": [{"start": s} for s, _ in shifted(golds["L1-0002"])]}), 1)
    binary = asyncio.run(FeedbackGiver(con, "binary").give("L1-0002", 1, answer, turn=1, max_turns=2))
    count = asyncio.run(FeedbackGiver(con, "rule", "count").give("L1-0002", 1, answer, turn=1, max_turns=2))
    which = asyncio.run(FeedbackGiver(con, "rule", "which").give("L1-0002", 1, answer, turn=1, max_turns=2))
    assert binary.startswith("Your answer is not correct.") and not re.search(r"\d{4}-\d{2}-\d{2}T", binary)
    assert re.search(r"\d+ of your \d+ candidates", count) and not re.search(r"\d{4}-\d{2}-\d{2}T", count)
    assert re.search(r"^- \d{4}-\d{2}-\d{2}T\d{2}:\d{2}$", which, re.MULTILINE)
    right = parse_submission(json.dumps({"candidates": [{"start": s} for s, _ in golds["L1-0002"]]}), 1)
    assert asyncio.run(FeedbackGiver(con, "rule").give("L1-0002", 1, right, turn=1, max_turns=2)) is None
    assert asyncio.run(FeedbackGiver(con, "rule").give("L1-0002", 1, answer, turn=2, max_turns=2)) is None


@pytest.mark.parametrize("instance_id", ["L1-0002", "L3-0002", "L4-0002"])
def test_feedback_judges_only_the_first_n_and_keeps_level_3_n_hidden(con, golds, instance_id):
    level, gold = int(instance_id[1]), golds[instance_id]
    n = len(gold)
    wrong = shifted(gold, 15 * 97)                          # a day and 15 minutes later: wrong
    sent = wrong[:1] + gold[1:] + shifted(gold, 15 * 193)  # N judged, N more dropped unread
    items = [{"start": s, **({"room_id": r} if level >= 3 else {})} for s, r in sent]
    answer = parse_submission(json.dumps({"candidates": items}), level)
    text = FeedbackGiver(con, "rule", "why").facts(instance_id, level, answer)
    assert wrong[0][0] in text and not any(s in text for s, _ in sent[n:])  # the dropped ones are never judged
    if level >= 3:
        assert "more candidates than the project asks for" in text
        said = "\n".join(line for line in text.splitlines() if not line.startswith("- "))  # not its own candidates
        assert not re.search(rf"\b({n}|{2 * n})\b", said), said
    else:
        assert f"You submitted {2 * n} candidates, but the request asks for {n}" in text


def test_rule_feedback_names_the_broken_constraint_and_no_gold_slot(con, db_path, golds):
    """Every wrong candidate of the calendar-only baseline, on every instance: the feedback names
    each constraint the violation views find, and never a gold start the agent did not send."""
    checked = 0
    for instance_id, level, _ in instances(db_path):
        with Environment(con, instance_id) as env:
            answer = asyncio.run(play(make_agent("calendar-only"), env)).out.answer
        giver = FeedbackGiver(con, "rule", "why")
        text = giver.facts(instance_id, level, answer)
        if text is None:
            continue
        sent = {c.start for c in answer.candidates}
        for start, room in golds[instance_id]:
            if start not in sent:
                assert start not in text, (instance_id, start)
            if room is not None:
                assert f"{start} in room {room}" not in text
        kinds = {k for (k,) in con.execute(
            "select distinct constraint_kind from int_violations where instance_id = $i and list_contains($s, "
            "strftime(starts_at, '%Y-%m-%dT%H:%M'))", {"i": instance_id, "s": sorted(sent)}).fetchall()}
        for kind in kinds:
            assert KIND_TEXT[kind] in text, (instance_id, kind)
        checked += 1
    assert checked >= 8


def test_the_scripted_agent_gains_nothing_and_the_feedback_reading_baseline_improves(db_path, tmp_path):
    """One instance a level (the runs' fixed costs dominate; the claims hold per instance)."""
    scripted = run_eval(EvalConfig(agent="scripted", db=str(db_path), out=str(tmp_path / "s"), max_turns=4,
                                   feedback="rule", instances=1))
    assert sorted(s["level"] for s in scripted.summary) == [1, 2, 3, 4]
    assert all(s["em_rate"] == 1.0 for s in scripted.summary)
    assert set(pl.read_parquet(scripted.run_dir / "turns.parquet")["turn"]) == {1}
    base = run_eval(EvalConfig(agent="calendar-only", db=str(db_path), out=str(tmp_path / "c"), max_turns=4,
                               feedback="rule", levels=(1, 2), instances=1))
    first = pl.read_parquet(base.run_dir / "turns.parquet").filter(pl.col("turn") == 1)["f1"].mean()
    final = pl.read_parquet(base.run_dir / "runs.parquet")["f1"].mean()
    assert final > first + 0.1
    # with feedback that names no candidate it has nothing to act on
    blind = run_eval(EvalConfig(agent="calendar-only", db=str(db_path), out=str(tmp_path / "b"), max_turns=4,
                                feedback="rule", feedback_detail="count", levels=(1, 2), instances=1))
    assert pl.read_parquet(blind.run_dir / "runs.parquet")["f1"].mean() == pytest.approx(first)


def test_llm_feedback_rewrites_the_facts_through_the_same_endpoint(db_path, golds, tmp_path, key):
    def script(req):
        if req.body["model"] == "critic":
            assert "Your answer is not correct yet" in req.messages[-1]["content"]
            return reply_text("Two of your times clash with the policy's lunch break; look again.")
        asked = sum(1 for m in req.messages if m["role"] == "user")
        return submit(shifted(golds["L1-0003"]) if asked == 1 else golds["L1-0003"], 1)
    with FakeOpenAI(script) as srv:
        result = run_eval(EvalConfig(base_url=srv.base_url, db=str(db_path), out=str(tmp_path / "l"),
                                     instance_ids=("L1-0003",), max_turns=2, feedback="llm",
                                     feedback_model="critic", **fast()))
    turn = pl.read_parquet(result.run_dir / "turns.parquet").sort("turn").to_dicts()
    assert turn[0]["feedback_text"].startswith("Two of your times clash") and turn[1]["exact_match"]
    assert (result.run_dir / "feedback_cache.jsonl").exists()
    # replay: the recorded run again, offline, with the same feedback from the cache
    replay = run_eval(EvalConfig(agent="replay", replay_from=str(result.run_dir), db=str(db_path),
                                 out=str(tmp_path / "replay")))
    again = pl.read_parquet(replay.run_dir / "turns.parquet").sort("turn").to_dicts()
    assert [t["feedback_text"] for t in again] == [t["feedback_text"] for t in turn]


def test_bad_turn_and_feedback_options_are_clear_errors(db_path, tmp_path):
    for kw, says in (({"max_turns": 3}, "go together"), ({"feedback": "rule"}, "go together"),
                     ({"feedback": "loud", "max_turns": 2}, "--feedback must be"),
                     ({"feedback": "llm", "max_turns": 2}, "--feedback-model"),
                     ({"mode": "paste"}, "--mode must be")):
        with pytest.raises(UserError, match=says):
            run_eval(EvalConfig(agent="scripted", db=str(db_path), out=str(tmp_path / "x"), **kw))
    result = CliRunner().invoke(app, ["eval", "--db", str(db_path), "--max-turns", "2", "--out", str(tmp_path / "y")])
    assert result.exit_code == 2 and "go together" in result.output


# --- context mode ----------------------------------------------------------------------------

def test_context_mode_holds_every_required_source(con, db_path):
    """The first two instances of each level (one world a level; level 1's two policies): a
    level-4 prompt takes about 0.4 s to assemble."""
    for instance_id, level, _ in instances(db_path):
        if int(instance_id[-4:]) > 2:
            continue
        req = db.records(con.execute(
            "select world_id, policy_id, project_id from stg_instances where instance_id = $i", {"i": instance_id}))[0]
        participants = [p for (p,) in con.execute(
            "select person_id from requirement_participants where instance_id = $i", {"i": instance_id}).fetchall()]
        (request,) = con.execute("select prompt from instances where instance_id = $i", {"i": instance_id}).fetchone()
        with Environment(con, instance_id, ContextMode()) as env:
            prompt = env.prompt
            assert env.tools == [] and prompt.startswith(request) and env.request == request
        calendar = "get_busy_intervals" if level == 1 else "list_events"
        assert participants
        for person in participants:
            assert f'### {calendar} {{"person_id": "{person}"' in prompt
            if level == 4:   # each participant's series and home zone and hours
                assert f'### list_recurring_events {{"person_id": "{person}"}}' in prompt
                assert f'### get_working_hours {{"person_id": "{person}"}}' in prompt
        if level == 1:
            assert f'### get_policy {{"policy_id": "{req["policy_id"]}"}}' in prompt
            continue
        if level < 4:   # level 4's handbook states the rules in prose only
            assert f"policy={req['policy_id']}" in prompt   # the policy's rule tags, inside the handbook
        assert req["policy_id"] in prompt
        binds = {"w": req["world_id"], "p": req["project_id"]}
        threads = [t for (t,) in con.execute(
            "select thread_id from threads where world_id = $w and project_id = $p", binds).fetchall()]
        assert threads and all(f'### read_thread {{"thread_id": "{t}", "page": 1}}' in prompt for t in threads)
        texts = [m for (m,) in con.execute(
            "select m.text from messages as m join threads as t on t.world_id = m.world_id "
            "and t.thread_id = m.thread_id where m.world_id = $w and t.project_id = $p", binds).fetchall()]
        assert texts and all(text in prompt for text in texts)
        if level >= 3:
            rooms = [r for (r,) in con.execute("select room_id from rooms where world_id = $w",
                                               {"w": req["world_id"]}).fetchall()]
            assert rooms and all(f'### get_room_availability {{"room_id": "{r}"' in prompt for r in rooms)


def test_a_context_prompt_is_made_once_per_build_file_until_the_file_changes(db_path, tmp_path, monkeypatch):
    """context.context_prompt keeps an instance's prompt for the process, keyed by the read-only
    build file's identity: asked again it reads no source; the file changed, it is made anew."""
    monkeypatch.setattr(context, "_PROMPTS", {})     # what earlier tests of this process made
    made: list[str] = []
    real = context.context_sections
    monkeypatch.setattr(context, "context_sections", lambda env: (made.append(env.instance_id), real(env))[1])
    path = tmp_path / "b.duckdb"
    shutil.copy(db_path, path)

    def prompt() -> tuple[str, tuple[str, ...]]:
        con = db.connect(path, read_only=True)
        try:
            with Environment(con, "L2-0001", ContextMode()) as env:
                return env.prompt, env.prompt_rows
        finally:
            con.close()
    first = prompt()
    assert prompt() == first and first[1]
    assert made == ["L2-0001"]
    altered_copy(db_path, path, "update instances set prompt = prompt || ' (changed)' where instance_id = 'L2-0001'")
    changed = prompt()
    assert made == ["L2-0001"] * 2 and "(changed)" in changed[0] and changed[0] != first[0]


def test_context_mode_offers_the_model_no_tool_and_refuses_a_call(db_path, golds, tmp_path, key):
    scripts = {"L2-0002": [reply_tool_calls([("list_threads", {"project_id": "x"})]),
                           submit(golds["L2-0002"], 2)]}
    with FakeOpenAI(PerInstance(db_path, scripts)) as srv:
        result = run_eval(EvalConfig(base_url=srv.base_url, db=str(db_path), out=str(tmp_path / "ctx"),
                                     instance_ids=("L2-0002",), mode="context", **fast()))
        requests = list(srv.requests)
    assert [t["function"]["name"] for t in requests[0].body["tools"]] == ["submit_candidates"]
    assert "# The internal sources" in requests[0].messages[1]["content"]
    calls = pl.read_parquet(result.run_dir / "tool_calls.parquet").to_dicts()
    assert calls[0]["tool"] == "list_threads" and "no tools are offered" in calls[0]["error"]
    row = runs(result.run_dir)["L2-0002"]
    assert row["exact_match"] and row["mode"] == "context" and row["prompt_tokens"] > 5000


# --- the ablation ----------------------------------------------------------------------------

def test_ablation_runs_four_configurations_on_the_same_instances(db_path, tmp_path):
    results = run_ablation(EvalConfig(agent="calendar-only", db=str(db_path), out=str(tmp_path / "abl"),
                                      levels=(1, 2), instances=1))
    manifest = json.loads((tmp_path / "abl" / "ablation.json").read_text())
    assert [c["name"] for c in manifest["configs"]] == ["baseline", "tools-only", "feedback-only", "full"]
    assert [(c["mode"], c["feedback"], c["max_turns"]) for c in manifest["configs"]] == [
        ("context", "none", 1), ("tools", "none", 1), ("context", "rule", 3), ("tools", "rule", 3)]
    episodes = {name: sorted(runs(r.run_dir)) for name, r in results}
    assert len({tuple(v) for v in episodes.values()}) == 1
    f1 = {name: pl.read_parquet(r.run_dir / "runs.parquet")["f1"].mean() for name, r in results}
    assert f1["full"] > f1["tools-only"] and f1["feedback-only"] > f1["baseline"]
    meta = json.loads((results[3][1].run_dir / "run.json").read_text())
    assert meta["ablation"] == {"group": "abl", "config": "full"} and meta["options"]["feedback"] == "rule"


def test_cli_ablation_writes_one_directory_and_prints_each_configuration(db_path, tmp_path):
    out = tmp_path / "cli-abl"
    result = CliRunner().invoke(app, ["eval", "--agent", "calendar-only", "--ablation", "--levels", "1",
                                      "--instances", "1", "--db", str(db_path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert all(f"Run {name}" in result.output for name in ("baseline", "tools-only", "feedback-only", "full"))
    assert sorted(p.name for p in out.iterdir()) == ["ablation.json", "baseline", "feedback-only", "full",
                                                     "tools-only"]
    again = CliRunner().invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert again.exit_code == 0, again.output
    assert "## Ablation" in (tmp_path / "rep" / "report.md").read_text()


def test_mint_feedback_names_mints_way_to_answer_and_never_submit_candidates(con, db_path, golds, tmp_path, key):
    """MINT has no submit_candidates tool: every kind of feedback, on a wrong and on an unreadable
    answer, tells the agent to answer inside <solution> tags; the native protocol's names the tool."""
    wrong = parse_submission(json.dumps({"candidates": [{"start": s} for s, _ in shifted(golds["L1-0002"])]}), 1)
    unreadable = parse_submission("no json here", 1)
    for answer in (wrong, unreadable):
        for kind, detail in (("binary", "why"), ("rule", "count"), ("rule", "why")):
            mint = asyncio.run(FeedbackGiver(con, kind, detail, protocol="mint").give("L1-0002", 1, answer, turn=1,
                                                                                        max_turns=2))
            native = asyncio.run(FeedbackGiver(con, kind, detail).give("L1-0002", 1, answer, turn=1, max_turns=2))
            assert "submit_candidates" not in mint and "<solution>" in mint, mint
            assert "submit_candidates" in native and "<solution>" not in native, native
    # and through eval: a MINT run's feedback turns (context mode: no sandbox needed)
    bad = f"<solution>{json.dumps({'candidates': [{'start': s} for s, _ in shifted(golds['L1-0002'])]})}</solution>"
    script = PerInstance(db_path, {"L1-0002": [reply_text(bad), reply_text(bad)]})
    script.by_prompt = {f"Task:\n{p}": i for p, i in script.by_prompt.items()}
    with FakeOpenAI(script) as srv:
        result = run_eval(EvalConfig(agent="openai", model="fake", base_url=srv.base_url, db=str(db_path), levels=(1,),
                                     instance_ids=("L1-0002",), protocol="mint", mode="context", max_turns=2,
                                     feedback="rule", max_retries=0, out=str(tmp_path / "mint")))
    journal = json.loads((result.run_dir / "journal.jsonl").read_text().splitlines()[0])
    feedback = [m["content"] for m in journal["transcript"][2:] if m["role"] == "user"]
    assert feedback and all("submit_candidates" not in text for text in feedback)
    assert any("answer inside <solution> tags again" in text for text in feedback)
