"""The booking task (`--task book`): the write tools and the overlay they write, every surface's
`--task`, the grade of the state an episode leaves, and the shortcuts that earn nothing."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json

import polars as pl
import pytest
from typer.testing import CliRunner

from mpcbench.agents.booking import confirmation
from mpcbench.agents.offline import ScriptedAgent
from mpcbench.agents.scripted import plan_task
from mpcbench.cli import app
from mpcbench.episode.codecs import NativeCodec, tool_call, tool_call_message
from mpcbench.episode.environment import Environment
from mpcbench.errors import UserError
from mpcbench.grading.booking import grade_booking
from mpcbench.grading.privacy import grade_privacy
from mpcbench.grading.scoring import GradedEpisode, Grader, TurnAnswer
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import RolloutPool, program_messages
from mpcbench.harness.runner import run_eval
from mpcbench.harness.session import open_external_run
from mpcbench.report.render import make_report

WRITES = {"create_event", "cancel_event", "reserve_room", "post_message", "finish"}


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _first(con, level: int) -> str:
    return con.execute("select instance_id from instances where level = $l order by position limit 1",
                       {"l": level}).fetchone()[0]


def _solved(env: Environment):
    """The scripted solver's task and its first candidate (the gold start, and room)."""
    task, found = plan_task(env)
    return task, found[0]


def _event(task, start: dt.datetime, room: str | None, **changes) -> dict:
    args = {"title": "Sync", "start": f"{start:%Y-%m-%dT%H:%M}", "duration_minutes": task.duration_min,
            "attendees": task.participants, **({"room_id": room} if room else {})}
    return {**args, **changes}


def _thread(env: Environment, task) -> str:
    return json.loads(env.call("list_threads", {"project_id": task.project_id}))["threads"][0]["thread_id"]


def _grade(con, env: Environment, trial: int = 1) -> dict:
    episode = GradedEpisode(env.instance_id, trial, env.level, [TurnAnswer(1, env.booked())], writes=env.writes.final)
    grader = Grader(con, size=1)
    try:
        return grade_booking(grader, [episode])[(env.instance_id, trial)]
    finally:
        grader.close()


def test_task_is_an_option_of_every_surface_and_book_needs_tools():
    assert EpisodeSpec().task == "propose"
    for refused in ({"mode": "context"}, {"protocol": "mint"}, {"max_turns": 2, "feedback": "rule"}):
        with pytest.raises(UserError, match="--task book"):
            EpisodeSpec(task="book", **refused).checked()
    with pytest.raises(UserError, match="must be one of"):
        EpisodeSpec(task="write").checked()
    for command in ("eval", "mcp", "serve-env"):
        result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
        assert "--task" in result.output, command


def test_write_tools_are_offered_only_when_booking(con):
    with Environment(con, _first(con, 3)) as env:
        assert not WRITES & {s.name for s in env.tools}
        assert "submit_candidates" in {t["function"]["name"] for t in NativeCodec().request(env)["tools"]}
    with Environment(con, _first(con, 3), task="book") as env:
        assert WRITES <= {s.name for s in env.tools}
        assert "submit_candidates" not in {t["function"]["name"] for t in NativeCodec().request(env)["tools"]}
        assert "create_event" in env.prompt and env.request in env.prompt
    with Environment(con, _first(con, 1), task="book") as env:   # no rooms, no threads at level 1
        assert {s.name for s in env.tools} & WRITES == {"create_event", "cancel_event", "finish"}


def test_the_read_tools_show_the_episodes_own_writes_and_no_other_episode_does(con):
    instance = _first(con, 3)
    with Environment(con, instance, task="book") as env, Environment(con, instance, task="book") as other:
        task, (start, room) = _solved(env)
        assert env.call("create_event", _event(task, start, room)).startswith("Booked bk-1")
        thread = _thread(env, task)
        env.call("post_message", {"thread_id": thread, "text": "Booked, see you."})
        day = {"start_date": f"{start:%Y-%m-%d}", "end_date": f"{start:%Y-%m-%d}"}
        for view in (env, other):
            events = json.loads(view.call("list_events", {"person_id": task.participants[0], **day}))["events"]
            booked = json.loads(view.call("get_room_availability", {"room_id": room, **day}))["booked"]
            mine = view is env
            assert any(e["event_id"] == "bk-1" for e in events) == mine
            assert any(b["start"] == f"{start:%Y-%m-%dT%H:%M}" for b in booked) == mine   # the gold room was free
            assert ("Booked, see you." in view.call("search_messages", {"query": "Booked, see you"})) == mine


def test_the_call_cache_carries_no_read_into_a_booking_episode_and_no_write_out(con):
    """A propose episode's reads are kept (episode.tools.CALL_CACHE); a booking episode reads its
    own writes over them, and a propose episode after it reads the warehouse as it is."""
    instance = _first(con, 3)
    with Environment(con, instance, task="book") as env:
        task, (start, room) = _solved(env)
    day = {"room_id": room, "start_date": f"{start:%Y-%m-%d}", "end_date": f"{start:%Y-%m-%d}"}
    with Environment(con, instance) as before:
        free = before.call("get_room_availability", day)
    with Environment(con, instance, task="book") as env:
        assert env.call("create_event", _event(task, start, room)).startswith("Booked bk-1")
        assert env.call("get_room_availability", day) != free
    with Environment(con, instance) as after:
        assert after.call("get_room_availability", day) == free


def test_invalid_writes_are_errors_the_agent_can_fix(con):
    with Environment(con, _first(con, 3), task="book") as env:
        task, (start, room) = _solved(env)
        taken = con.execute("select room_id, starts_at from room_bookings b join instances i using (world_id) "
                            "where i.instance_id = $i and b.starts_at::date between i.window_start and i.window_end "
                            "order by b.starts_at limit 1", {"i": env.instance_id}).fetchone()
        errors = {
            "unknown person": _event(task, start, room, attendees=["p-000000"]),
            "outside the window": _event(task, start - dt.timedelta(days=30), room),
            "unknown room": _event(task, start, "Z-999"),
            "room taken": _event(task, taken[1], taken[0]),
            "end and duration": _event(task, start, room, end=f"{start:%Y-%m-%dT%H:%M}"),
        }
        for why, args in errors.items():
            assert env.call("create_event", args).startswith("error:"), why
        assert env.writes.final == {"events": [], "messages": []}
        env.call("create_event", _event(task, start, room))
        assert "overlaps your booking bk-1" in env.call("create_event", _event(task, start, None))
        someone_elses = con.execute("select event_id from events where world_id = $w limit 1",
                                    {"w": env.data.world_id}).fetchone()[0]
        assert env.call("cancel_event", {"event_id": someone_elses}).startswith("error:")
        assert env.call("post_message", {"thread_id": "T-nope", "text": "hi"}).startswith("error:")
        assert env.call("cancel_event", {"event_id": "bk-1"}) == "Cancelled bk-1."
        assert env.call("cancel_event", {"event_id": "bk-1"}).startswith("error:")   # once only


def test_the_right_booking_succeeds_and_each_shortcut_fails(con):
    instance = _first(con, 3)

    def booked(*writes) -> dict:
        with Environment(con, instance, task="book") as env:
            task, (start, room) = _solved(env)
            for write in writes:
                write(env, task, start, room)
            return _grade(con, env)

    def right(env, task, start, room):
        env.call("create_event", _event(task, start, room))

    def confirm(env, task, start, room):
        env.call("post_message", {"thread_id": _thread(env, task), "text": confirmation(start, room)})

    assert booked(right, confirm)["task_success"]
    missing = booked(right)
    assert missing["booked_start_ok"] and not missing["confirmation_ok"] and not missing["task_success"]

    def many_then_cancel(env, task, start, room):   # book every slot of the window, keep the gold one
        for k in range(1, 6):
            env.call("create_event", _event(task, start + dt.timedelta(hours=k), None))
        right(env, task, start, room)
        for k in range(1, 6):
            env.call("cancel_event", {"event_id": f"bk-{k}"})
    shortcut = booked(many_then_cancel, confirm)
    assert shortcut["booked_start_ok"] and shortcut["extra_writes"] == 5 and not shortcut["task_success"]

    def extra_attendee(env, task, start, room):
        other = con.execute("select person_id from people where world_id = $w and person_id <> all($p) limit 1",
                            {"w": env.data.world_id, "p": task.participants}).fetchone()[0]
        env.call("create_event", _event(task, start, room, attendees=[*task.participants, other]))
    assert not booked(extra_attendee, confirm)["attendees_ok"]

    def in_another_name(env, task, start, room):   # someone else instead of a participant
        other = con.execute("select person_id from people where world_id = $w and person_id <> all($p) limit 1",
                            {"w": env.data.world_id, "p": task.participants}).fetchone()[0]
        env.call("create_event", _event(task, start, room, attendees=[other, *task.participants[1:]]))
    assert not booked(in_another_name, confirm)["task_success"]

    def later(env, task, start, room):
        env.call("create_event", _event(task, start + dt.timedelta(minutes=15), None))
    wrong = booked(later, confirm)
    assert not wrong["booked_start_ok"] and not wrong["room_ok"] and not wrong["confirmation_ok"]

    def twice(env, task, start, room):
        confirm(env, task, start, room)
        confirm(env, task, start, room)
    assert booked(right, twice)["extra_writes"] == 1


def test_a_confirmation_that_tells_a_secret_is_counted(con):
    instance = _first(con, 2)
    with Environment(con, instance, task="book") as env:
        task, (start, room) = _solved(env)
        name, phrase = con.execute(
            "select p.name, s.phrase from sensitive_items s join people p using (world_id, person_id) "
            "where s.world_id = $w and list_contains($ids, s.person_id) order by s.item_id limit 1",
            {"w": env.data.world_id, "ids": task.participants}).fetchone()
        env.call("create_event", _event(task, start, room))
        env.call("post_message", {"thread_id": _thread(env, task),
                                  "text": f"{confirmation(start, room)} {name} moved {phrase} for it."})
        episode = GradedEpisode(env.instance_id, 1, env.level, [TurnAnswer(1, env.booked())], writes=env.writes.final)
    grader = Grader(con, size=1)
    try:
        figures = grade_privacy(grader, [episode]).figures[(instance, 1)]
    finally:
        grader.close()
    assert figures["disclosed"] >= 1


def test_eval_books_right_with_the_scripted_agent_and_leaves_the_warehouse_as_it_was(db_path, tmp_path):
    before = _sha(db_path)
    scripted = run_eval(EvalConfig(agent="scripted", task="book", db=str(db_path), out=str(tmp_path / "s")))
    calendar = run_eval(EvalConfig(agent="calendar-only", task="book", db=str(db_path), out=str(tmp_path / "c")))
    assert _sha(db_path) == before
    runs = pl.read_parquet(scripted.run_dir / "runs.parquet")
    assert runs["task"].to_list() == ["book"] * len(runs)
    assert runs["task_success"].all() and runs["extra_writes"].sum() == 0 and runs["confirmation_disclosed"].sum() == 0
    assert runs["failure_cause"].is_null().all()   # one booking is no "too few candidates"
    baseline = pl.read_parquet(calendar.run_dir / "runs.parquet")
    assert baseline["task_success"].cast(pl.Float64).mean() <= 0.5
    journal = [json.loads(line) for line in (scripted.run_dir / "journal.jsonl").read_text().splitlines()]
    assert all(r["task"] == "book" and len(r["writes"]["events"]) == 1 for r in journal)
    proposing = run_eval(EvalConfig(agent="scripted", db=str(db_path), levels=(1,), out=str(tmp_path / "p")))
    plain = pl.read_parquet(proposing.run_dir / "runs.parquet")
    assert plain["task"].to_list() == ["propose"] * len(plain) and plain["task_success"].is_null().all()
    # the report: a booking run alone, and beside a proposing one; F1 rows only for proposing
    alone = (make_report([scripted.run_dir], tmp_path / "r1") / "report.md").read_text()
    assert "## Booking task" in alone and "| Level 1 | scripted | " not in alone.split("## Booking task")[0]
    both = (make_report([scripted.run_dir, proposing.run_dir], tmp_path / "r2") / "report.md").read_text()
    results = both.split("## Results")[1].split("## ")[0]
    assert "(p)" in results and "(s)" not in results and "| Level 2 |" not in results


def test_an_mcp_agent_books_and_finishes_with_tool_calls_only(db_path, con, tmp_path):
    instance = _first(con, 2)
    run = open_external_run(EvalConfig(agent="mcp", task="book", db=str(db_path), instance_ids=(instance,),
                                       levels=(2,), out=str(tmp_path / "mcp")))
    try:
        names = {entry["function"]["name"] for entry in run.tool_entries()}
        assert "finish" in names and "submit_candidates" not in names
        with Environment(con, instance, task="book") as env:   # the scripted solver's own reading
            task, (start, room) = _solved(env)
            thread = _thread(env, task)
        assert run.call("create_event", _event(task, start, room))[0].startswith("Booked bk-1")
        run.call("post_message", {"thread_id": thread, "text": confirmation(start, room)})
        text, is_error = run.call("finish", {})
        assert not is_error and "Recorded for" in text and run.task() is None
    finally:
        run.close()
    runs = pl.read_parquet(tmp_path / "mcp" / "runs.parquet")
    assert runs["task_success"].to_list() == [True]


def test_the_training_reward_is_evals_task_success(db_path, con):
    pool = RolloutPool(db_path, EpisodeSpec(task="book"))
    try:
        for level in (1, 3):
            instance = _first(con, level)
            rollout = pool.open(instance)
            for message in program_messages(con, ScriptedAgent(), instance, task="book"):
                asyncio.run(rollout.reply(message))
            result = pool.finish(rollout)
            assert result.reward == result.metrics["task_success"] == 1.0, (instance, result.metrics)
            rollout = pool.open(instance)   # books the right start for one participant too few
            with Environment(con, instance, task="book") as env:
                task, (start, room) = _solved(env)
            call = tool_call("create_event", _event(task, start, room, attendees=task.participants[:1]), "c1")
            asyncio.run(rollout.reply(tool_call_message(call, tool_call("finish", {}, "c2"))))
            result = pool.finish(rollout)
            assert result.reward == 0.0 and result.metrics["booked_start_ok"] == 1.0
    finally:
        pool.close()
