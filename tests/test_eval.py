"""`mpcbench eval` end to end: the real openai client over real HTTP against the scripted server
in tests/fake_openai.py, which misbehaves in every way the harness must survive; plus resume
after kill -9, replay, rescore, the CLI, and a check that the key reaches no file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, altered_copy, instances, submission, submit
from fake_openai import FakeOpenAI, empty_choices, hang, raw, reply_text, reply_tool_calls, status
from mpcbench.cli import app
from mpcbench.episode.toolfiles import tool_sources
from mpcbench.errors import UserError
from mpcbench.grading import scoring
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.journal import read_journal
from mpcbench.harness import reference
from mpcbench.harness.provenance import build_content_hash
from mpcbench.harness.rescore import rescore
from mpcbench.harness.runner import run_eval
from mpcbench.warehouse import db

SECRET = "sk-test-DO-NOT-LEAK-4f1c9e"
ROOT = Path(__file__).resolve().parent.parent
TIMING = {"runs": ["latency_s", "run_id"], "candidates": ["run_id"], "tool_calls": ["latency_ms", "run_id"],
          "failures": ["run_id"]}


def fast(**kw) -> dict:
    return {"timeout_s": 0.4, "max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.5, "max_steps": 4,
            "concurrency": 4, **kw}


def tables(run_dir: Path, drop_timing: bool = True) -> dict[str, pl.DataFrame]:
    out = {}
    for name, timing in TIMING.items():
        frame = pl.read_parquet(run_dir / f"{name}.parquet")
        out[name] = frame.drop(timing) if drop_timing else frame
    return out


def assert_same_tables(a: Path, b: Path, drop_timing: bool = True) -> None:
    ta, tb = tables(a, drop_timing), tables(b, drop_timing)
    for name in TIMING:
        assert ta[name].columns == tb[name].columns and ta[name].height == tb[name].height, name
        differ = [c for c in ta[name].columns if not ta[name][c].equals(tb[name][c])]
        assert not differ, (name, {c: (ta[name][c].to_list(), tb[name][c].to_list()) for c in differ})


def by_instance(run_dir: Path) -> dict[str, dict]:
    return {r["instance_id"]: r for r in pl.read_parquet(run_dir / "runs.parquet").to_dicts()}


def no_secret_in(*dirs: Path) -> None:
    for d in dirs:
        for path in d.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path


# --- one run against an endpoint that misbehaves in every way ------------------------------------

@pytest.fixture(scope="module")
def misbehaving_run(db_path, golds, con, tmp_path_factory):
    """16 episodes, each meeting a different fault (see SCRIPTS below)."""
    bad_args = {"candidates": [{"start": "tomorrow 9am"}]}
    g = golds
    third, fourth = g["L3-0003"], g["L4-0003"]
    (person,) = con.execute("select min(person_id) from requirement_participants where instance_id = 'L4-0001'").fetchone()
    scripts = {
        # parallel tool calls, then the right answer
        "L1-0001": [reply_tool_calls([("get_current_time", {}), ("list_policies", {})]), submit(g["L1-0001"], 1)],
        # 429 with Retry-After, then the right answer
        "L1-0002": [status(429, retry_after=0.3), submit(g["L1-0002"], 1)],
        # 500 and 503, then the right answer
        "L1-0003": [status(500), status(503), submit(g["L1-0003"], 1)],
        # never answers: the step limit ends it as a parse failure
        "L1-0004": [reply_tool_calls([("get_current_time", {})])],
        # a hang past the timeout, then the right answer
        "L2-0001": [hang(3), submit(g["L2-0001"], 2)],
        # an undecodable body, every time: an infrastructure error
        "L2-0002": [raw("<html>502 Bad Gateway</html>")],
        # bad submit arguments, an unknown tool, bad tool arguments; then it fixes its answer
        "L2-0003": [reply_tool_calls([("submit_candidates", bad_args)]),
                    reply_tool_calls([("book_room", {"room": "A-1"}),
                                      ("list_events", {"person_id": "p-001", "start_date": "March 3",
                                                              "end_date": "2026-03-04"})]),
                    submit(g["L2-0003"], 2)],
        # an empty choices list, every time
        "L2-0004": [empty_choices()],
        # a plain-text answer in a code fence, with a space for T and seconds
        "L3-0001": [reply_text("Here are the slots:\n```json\n" + json.dumps(
            {"candidates": [{"start": s.replace("T", " ") + ":00", "room_id": r} for s, r in g["L3-0001"]]})
            + "\n```\nLet me know!")],
        # 500 every time
        "L3-0002": [status(500)],
        # a wrong room on the first candidate, read nothing: an acquisition miss
        "L3-0003": [submit([(third[0][0], "NO-SUCH-ROOM")] + third[1:], 3)],
        # arguments that are not JSON, then the right answer
        "L3-0004": [reply_tool_calls([("submit_candidates", '{"candidates": [{"start": ')]),
                    submit(g["L3-0004"], 3)],
        # the level-4 tools in parallel (a participant's series, and zone and hours), then the right answer
        "L4-0001": [reply_tool_calls([("list_recurring_events", {"person_id": person}),
                                      ("get_working_hours", {"person_id": person})]), submit(g["L4-0001"], 4)],
        # a plain-text answer with rooms, in a code fence
        "L4-0002": [reply_text("```json\n" + json.dumps(submission(g["L4-0002"], 4)) + "\n```")],
        # a wrong room on the first candidate, read nothing: an acquisition miss
        "L4-0003": [submit([(fourth[0][0], "NO-SUCH-ROOM")] + fourth[1:], 4)],
        # starts without rooms (the schema wants them at level 4), then the right answer
        "L4-0004": [submit(g["L4-0004"], 1), submit(g["L4-0004"], 4)],
    }
    script = PerInstance(db_path, scripts)
    out = tmp_path_factory.mktemp("runs") / "misbehaving"
    with pytest.MonkeyPatch.context() as env, FakeOpenAI(script) as srv:   # the key is restored after
        env.setenv("OPENAI_API_KEY", SECRET)
        result = run_eval(EvalConfig(agent="openai", model="fake-model", base_url=srv.base_url, db=str(db_path),
                                     out=str(out), **fast()))
        requests = list(srv.requests)
    return result, requests, script


def test_every_episode_gets_one_row_and_faults_end_as_infrastructure_errors(misbehaving_run):
    result, _, _ = misbehaving_run
    rows = by_instance(result.run_dir)
    assert len(rows) == 16 and result.ran == 16
    infra = {i: r["error_kind"] for i, r in rows.items() if r["error"]}
    assert infra == {"L2-0002": "bad_response", "L2-0004": "bad_response", "L3-0002": "server_error"}
    for i in infra:
        assert rows[i]["f1"] is None and rows[i]["exact_match"] is None and rows[i]["failure_cause"] == "infrastructure"
    exact = {i for i, r in rows.items() if r["exact_match"]}
    assert exact == {"L1-0001", "L1-0002", "L1-0003", "L2-0001", "L2-0003", "L3-0001", "L3-0004",
                     "L4-0001", "L4-0002", "L4-0004"}
    level2 = next(s for s in result.summary if s["level"] == 2)
    assert level2["scored"] == 2 and level2["infrastructure_errors"] == 2 and level2["mean_f1"] == 1.0


def test_answers_paths_step_limit_and_wrong_room(misbehaving_run):
    rows = by_instance(misbehaving_run[0].run_dir)
    assert rows["L3-0001"]["answer_path"] == "text" and rows["L1-0001"]["answer_path"] == "tool"
    assert rows["L4-0002"]["answer_path"] == "text" and rows["L4-0001"]["answer_path"] == "tool"
    limit = rows["L1-0004"]
    assert limit["steps"] == 4 and not limit["parse_ok"] and limit["failure_cause"] == "parse_failure"
    for wrong in (rows["L3-0003"], rows["L4-0003"]):
        assert not wrong["exact_match"] and wrong["failure_cause"] == "rooms:unknown_room"
        assert wrong["failure_stage"] == "acquisition" and wrong["n_correct"] == wrong["n_gold"] - 1
    assert all(rows[i]["prompt_tokens"] > 0 and rows[i]["completion_tokens"] > 0 for i in ("L1-0001", "L3-0001"))
    assert rows["L1-0002"]["latency_s"] >= 0.3  # Retry-After was honoured


def test_tool_calls_are_traced_with_their_errors(misbehaving_run):
    calls = pl.read_parquet(misbehaving_run[0].run_dir / "tool_calls.parquet")
    first = calls.filter(pl.col("instance_id") == "L1-0001").sort("step")
    assert first["tool"].to_list() == ["get_current_time", "list_policies", "submit_candidates"]
    assert first["error"].to_list() == [None, None, None]
    fixed = calls.filter(pl.col("instance_id") == "L2-0003").sort("step")
    assert fixed["tool"].to_list() == ["submit_candidates", "book_room", "list_events", "submit_candidates"]
    errors = fixed["error"].to_list()
    assert "must be YYYY-MM-DDTHH:MM" in errors[0] and "no tool named" in errors[1] and "date" in errors[2]
    assert errors[3] is None
    not_json = calls.filter((pl.col("instance_id") == "L3-0004") & pl.col("error").is_not_null())
    assert "not valid JSON" in not_json["error"][0]
    level4 = calls.filter(pl.col("instance_id") == "L4-0001").sort("step")
    assert level4["tool"].to_list() == ["list_recurring_events", "get_working_hours", "submit_candidates"]
    assert level4["error"].to_list() == [None, None, None]
    no_rooms = calls.filter(pl.col("instance_id") == "L4-0004").sort("step")
    assert no_rooms["tool"].to_list() == ["submit_candidates", "submit_candidates"]
    assert "room_id is required" in no_rooms["error"][0] and no_rooms["error"][1] is None


def test_requests_carry_tools_options_and_every_tool_result(misbehaving_run, db_path, golds):
    _, requests, _ = misbehaving_run
    by_prompt = {prompt: i for i, _, prompt in instances(db_path)}
    l1 = [r for r in requests if by_prompt.get(r.messages[1]["content"]) == "L1-0001"]
    body = l1[0].body
    assert body["model"] == "fake-model" and body["temperature"] == 0 and body["seed"] == 0
    assert body["tool_choice"] == "auto" and "parallel_tool_calls" not in body
    names = [t["function"]["name"] for t in body["tools"]]
    assert names[-1] == "submit_candidates" and "get_policy" in names and "read_thread" not in names
    # the answer is N long: said in the system prompt, and maxItems = N where the prompt gives N
    assert "cut to its first N candidates" in body["messages"][0]["content"]
    assert body["tools"][-1]["function"]["parameters"]["properties"]["candidates"]["maxItems"] == \
        len(golds["L1-0001"])
    for hidden in ("L3-0004", "L4-0004"):   # levels 3-4 keep N hidden
        later = [r for r in requests if by_prompt.get(r.messages[1]["content"]) == hidden]
        assert "cut to its first N candidates" in later[0].body["messages"][0]["content"]
        assert "maxItems" not in later[0].body["tools"][-1]["function"]["parameters"]["properties"]["candidates"]
    l4 = [r for r in requests if by_prompt.get(r.messages[1]["content"]) == "L4-0001"]
    assert {"list_recurring_events", "get_working_hours"} <= {t["function"]["name"] for t in l4[0].body["tools"]}
    assert l1[0].headers["authorization"] == f"Bearer {SECRET}"
    second = l1[1].messages
    calls = second[2]["tool_calls"]
    results = [m for m in second if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == [c["id"] for c in calls]
    # the schema error went back to the model as a tool result it could act on
    l2 = [r for r in requests if by_prompt.get(r.messages[1]["content"]) == "L2-0003"]
    assert l2[1].messages[-1]["role"] == "tool" and l2[1].messages[-1]["content"].startswith("error:")


def test_no_key_reaches_any_file(misbehaving_run):
    run_dir = misbehaving_run[0].run_dir
    no_secret_in(run_dir)
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["base_url_host"].startswith("127.0.0.1:") and "http" not in json.dumps(meta["options"])
    assert meta["api_key_env"] == "OPENAI_API_KEY"
    assert {"content_sha256", "info"} <= set(meta["build"]) and meta["grader_version"] == scoring.GRADER_VERSION
    assert meta["status"] == "complete" and meta["episodes"]["infrastructure_errors"] == 3


def test_replay_reruns_the_recorded_run_offline(misbehaving_run, db_path, tmp_path, monkeypatch):
    source = misbehaving_run[0].run_dir
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # no key, no server: the cache only
    result = run_eval(EvalConfig(agent="replay", replay_from=str(source), db=str(db_path),
                                 out=str(tmp_path / "replay")))
    before, after = by_instance(source), by_instance(result.run_dir)
    assert before.keys() == after.keys()
    for i, row in before.items():
        if row["error"]:  # never answered, so never cached
            assert after[i]["error_kind"] == "replay_miss"
        else:
            for column in ("f1", "exact_match", "failure_cause", "n_pred", "steps", "prompt_tokens", "tool_calls"):
                assert after[i][column] == row[column], (i, column)
    calls = lambda d: pl.read_parquet(d / "tool_calls.parquet").select("instance_id", "step", "tool", "arguments")  # noqa: E731
    ok = [i for i, r in before.items() if not r["error"]]
    assert calls(source).filter(pl.col("instance_id").is_in(ok)).equals(
        calls(result.run_dir).filter(pl.col("instance_id").is_in(ok)))


# --- resume ---------------------------------------------------------------------------------

def slow_model(db_path, golds, delay_s: float = 0.15):
    """A stateless model, as a real one is: it reads the clock first, then submits the gold
    answer; what it says depends only on the conversation it is sent. It answers after
    `behave.pace["delay_s"]` (slow, so that a run can be killed midway; set it to 0 once that
    is done)."""
    by_prompt = PerInstance(db_path, {}).by_prompt

    def behave(req):
        instance_id = by_prompt[req.messages[1]["content"]]
        if not any(m.get("role") == "tool" for m in req.messages):
            return reply_tool_calls([("get_current_time", {})], delay_s=behave.pace["delay_s"])
        return reply_tool_calls([("submit_candidates", submission(golds[instance_id], int(instance_id[1])))],
                                delay_s=behave.pace["delay_s"])
    behave.pace = {"delay_s": delay_s}
    return behave


def test_resume_after_kill_9_finishes_without_duplicates(db_path, golds, tmp_path, monkeypatch):
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(ROOT)}
    model = slow_model(db_path, golds)
    with FakeOpenAI(model) as srv:
        killed = tmp_path / "killed"
        args = [sys.executable, "-m", "mpcbench", "eval", "--agent", "openai", "--model", "fake-model",
                "--base-url", srv.base_url, "--db", str(db_path), "--out", str(killed), "--concurrency", "2"]
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        journal = killed / "journal.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 3:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done_before = len(read_journal(journal))
        assert 3 <= done_before < len(golds) and not (killed / "runs.parquet").exists()
        model.pace["delay_s"] = 0.0            # killed midway: the runs below need not wait

        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        resumed = run_eval(EvalConfig(out=str(killed), base_url=srv.base_url, concurrency=4), resume=True)
        again = run_eval(EvalConfig(out=str(killed), base_url=srv.base_url), resume=True)
        with FakeOpenAI(slow_model(db_path, golds, delay_s=0.0)) as fresh:  # never interrupted
            whole = run_eval(EvalConfig(agent="openai", model="fake-model", base_url=fresh.base_url,
                                        db=str(db_path), out=str(tmp_path / "whole"), concurrency=12))
    assert resumed.ran == len(golds) - done_before and again.ran == 0
    lines = journal.read_bytes().splitlines()
    keys = [(json.loads(line)["instance_id"], json.loads(line)["trial"]) for line in lines]
    assert len(keys) == len(golds) == len(set(keys))
    assert_same_tables(killed, whole.run_dir)
    no_secret_in(killed)


def test_resume_after_a_torn_journal_line(db_path, tmp_path):
    full = run_eval(EvalConfig(agent="scripted", db=str(db_path), out=str(tmp_path / "full")))
    torn = tmp_path / "torn"
    shutil.copytree(full.run_dir, torn)
    for name in ("runs.parquet", "candidates.parquet", "tool_calls.parquet", "failures.parquet"):
        (torn / name).unlink()
    data = (torn / "journal.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    (torn / "journal.jsonl").write_bytes(b"".join(lines[:8]) + lines[8][:40])  # 8 whole, one torn
    resumed = run_eval(EvalConfig(out=str(torn)), resume=True)
    assert resumed.ran == len(lines) - 8
    assert len((torn / "journal.jsonl").read_bytes().splitlines()) == len(lines) == len(instances(db_path))
    assert_same_tables(torn, full.run_dir)


def test_resume_refuses_another_endpoint_and_existing_runs(db_path, tmp_path):
    run = run_eval(EvalConfig(agent="scripted", db=str(db_path), levels=(1,), out=str(tmp_path / "a")))
    with pytest.raises(UserError, match="already holds a run"):
        run_eval(EvalConfig(agent="scripted", db=str(db_path), out=str(run.run_dir)))
    with pytest.raises(UserError, match="no run.json"):
        run_eval(EvalConfig(out=str(tmp_path / "nothing")), resume=True)
    meta = json.loads((run.run_dir / "run.json").read_text())
    meta["options"]["base_url_host"] = "example.com"
    (run.run_dir / "run.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="pass its --base-url again"):
        run_eval(EvalConfig(out=str(run.run_dir)), resume=True)


# --- rescore and the CLI ----------------------------------------------------------------------

def test_rescore_recomputes_identical_tables_and_follows_grader_changes(db_path, tmp_path, monkeypatch):
    run = run_eval(EvalConfig(agent="calendar-only", db=str(db_path), out=str(tmp_path / "cal")))
    before = tables(run.run_dir, drop_timing=False)
    rescore(run.run_dir)
    assert all(before[name].equals(tables(run.run_dir, drop_timing=False)[name]) for name in TIMING)

    monkeypatch.setattr(scoring, "GRADER_VERSION", "test-grader")
    monkeypatch.setattr("mpcbench.harness.tables.GRADER_VERSION", "test-grader")
    without_calendar = {k: v for k, v in tool_sources().items() if v != "calendar"}
    monkeypatch.setattr(scoring, "tool_sources", lambda: without_calendar)
    rescore(run.run_dir)
    after = pl.read_parquet(run.run_dir / "runs.parquet")
    assert not any("calendar" in read for read in after["sources_read"].to_list())
    assert before["runs"]["f1"].equals(after["f1"])
    assert json.loads((run.run_dir / "run.json").read_text())["grader_version"] == "test-grader"


def test_rescore_refuses_a_different_build(db_path, tmp_path):
    run = run_eval(EvalConfig(agent="random", db=str(db_path), levels=(2,), out=str(tmp_path / "r")))
    meta = json.loads((run.run_dir / "run.json").read_text())
    meta["build"]["content_sha256"] = "0" * 64
    (run.run_dir / "run.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="content hash differs"):
        rescore(run.run_dir)
    rescore(run.run_dir, force=True)


def test_a_build_changed_in_place_gets_a_new_content_hash(db_path, tmp_path):
    """The hash of a read-only build file is kept for the process (provenance.build_content_hash):
    a row changed in the file, then opened again, changes the hash; the file as it was keeps it."""
    path = tmp_path / "b.duckdb"
    shutil.copy(db_path, path)

    def content_hash() -> str:
        con = db.connect(path, read_only=True)
        try:
            return build_content_hash(con)
        finally:
            con.close()
    before = content_hash()
    assert content_hash() == before
    altered_copy(db_path, path, "update people set name = name || ' Jr' where person_id = (select min(person_id) from people)")
    changed = content_hash()
    assert changed != before
    shutil.copy(db_path, path)
    assert content_hash() == before


def test_the_scripted_reference_is_solved_once_per_build_in_a_process(db_path, tmp_path, monkeypatch):
    """Two runs over the same instances of one build write the same reference_calls.json, the
    second without solving any instance again; a run over another build solves its own."""
    solved: list[str] = []
    real = reference.scripted_reference
    monkeypatch.setattr(reference, "_SOLVED", {})    # what earlier tests of this process solved
    monkeypatch.setattr(reference, "scripted_reference",
                        lambda con, ids: (solved.extend(ids), real(con, ids))[1])
    other = altered_copy(db_path, tmp_path / "other.duckdb", "delete from events where event_id = (select min(event_id) from events)")
    runs = [run_eval(EvalConfig(agent=agent, db=str(path), levels=(1,), out=str(tmp_path / name))).run_dir
            for agent, path, name in (("random", db_path, "a"), ("calendar-only", db_path, "b"), ("random", other, "c"))]
    files = [json.loads((run / "reference_calls.json").read_text()) for run in runs]
    assert files[0] == files[1] and len(files[0]["calls"]) == 4
    assert files[2]["build_sha256"] != files[0]["build_sha256"] and files[2]["calls"].keys() == files[0]["calls"].keys()
    assert sorted(solved) == sorted(2 * list(files[0]["calls"]))    # the first run's and the other build's


def test_cli_eval_resume_and_rescore(db_path, tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli"
    result = runner.invoke(app, ["eval", "--agent", "scripted", "--db", str(db_path), "--levels", "1,3",
                                 "--instances", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "4 episodes" in result.output and str(out) in result.output.replace("\n", "")
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs["instance_id"].to_list() == ["L1-0001", "L1-0002", "L3-0001", "L3-0002"]
    assert runs["exact_match"].all()
    again = runner.invoke(app, ["eval", "--db", str(db_path), "--out", str(out)])
    assert again.exit_code == 1 and "--resume" in again.output
    resumed = runner.invoke(app, ["eval", "--resume", "--out", str(out)])
    assert resumed.exit_code == 0 and "0 run now" in resumed.output
    redone = runner.invoke(app, ["eval", "--agent", "random", "--db", str(db_path), "--levels", "2", "--instances", "1",
                                 "--out", str(out), "--overwrite"])
    assert redone.exit_code == 0 and "1 episodes" in redone.output
    assert pl.read_parquet(out / "runs.parquet")["agent"].to_list() == ["random"]
    rescored = runner.invoke(app, ["rescore", str(out)])
    assert rescored.exit_code == 0 and "Rescored" in rescored.output
    bad = runner.invoke(app, ["eval", "--agent", "openai", "--db", str(db_path), "--out", str(tmp_path / "x")])
    assert bad.exit_code == 1 and "--model" in bad.output


def crashed_run(db_path, out: Path, monkeypatch):
    """A scripted run of level 1 whose solver crashes on L1-0002: a harness error there."""
    from mpcbench.agents import offline   # the scripted agent's module, where it calls the solver

    original = offline.plan

    def flaky(env, hidden=None):
        if env.instance_id == "L1-0002":
            raise RuntimeError("boom: the solver")
        return original(env, hidden)

    with monkeypatch.context() as patch:
        patch.setattr(offline, "plan", flaky)
        return run_eval(EvalConfig(agent="scripted", db=str(db_path), levels=(1,), out=str(out)))


def test_an_agent_that_crashes_breaks_only_its_episode(db_path, tmp_path, monkeypatch):
    """A crash of our own code (here the scripted solver) is a harness error of that episode alone
    (tests/test_harness_errors.py checks the exit status and the report)."""
    run = crashed_run(db_path, tmp_path / "crash", monkeypatch)
    rows = by_instance(run.run_dir)
    assert rows["L1-0002"]["error_kind"] == "harness_error" and "boom" in rows["L1-0002"]["error"]
    assert run.harness_errors == 1 and run.infrastructure_errors == 0
    assert all(rows[i]["exact_match"] for i in ("L1-0001", "L1-0003", "L1-0004"))


def test_a_replay_raises_a_recorded_error_again_from_the_records_fields(db_path, tmp_path, monkeypatch):
    """The replay takes a recorded error's kind and message from the record (`error_kind`,
    `end_detail`), and from its text only in a journal written before the message was kept."""
    source = crashed_run(db_path, tmp_path / "crash", monkeypatch).run_dir
    journal = source / "journal.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    crashed = next(r for r in records if r["error"])
    assert (crashed["error_kind"], crashed["end_detail"]) == ("harness_error", "RuntimeError: boom: the solver")

    def replayed(name: str) -> dict:
        result = run_eval(EvalConfig(agent="replay", replay_from=str(source), db=str(db_path),
                                     out=str(tmp_path / name)))
        return by_instance(result.run_dir)["L1-0002"]

    row = replayed("replay")
    assert (row["error"], row["error_kind"]) == ("harness_error: RuntimeError: boom: the solver", "harness_error")
    # the fields, not the text: a record whose text says otherwise is raised as its fields say
    journal.write_text("".join(json.dumps({**r, "error_kind": "rate_limit", "end_detail": "HTTP 429"}
                                          if r["error"] else r) + "\n" for r in records))
    assert replayed("fields")["error"] == "rate_limit: HTTP 429"
    # a journal from before end_detail kept the message: the text after the kind
    journal.write_text("".join(json.dumps({**r, "end_detail": None}) + "\n" for r in records))
    assert replayed("old")["error"] == "harness_error: RuntimeError: boom: the solver"


# --- live endpoints (opt-in: pytest -m live) --------------------------------------------------

@pytest.mark.live
def test_live_endpoint(db_path, tmp_path):
    """MPCBENCH_LIVE_MODEL (and OPENAI_BASE_URL / OPENAI_API_KEY) name a real endpoint."""
    model = os.environ.get("MPCBENCH_LIVE_MODEL")
    if not model or not os.environ.get("OPENAI_API_KEY"):
        pytest.skip("set MPCBENCH_LIVE_MODEL and OPENAI_API_KEY (and OPENAI_BASE_URL) for a live run")
    run = run_eval(EvalConfig(agent="openai", model=model, base_url=os.environ.get("OPENAI_BASE_URL"),
                              db=str(db_path), instances=1, out=str(tmp_path / "live"), concurrency=3))
    rows = by_instance(run.run_dir)
    assert len(rows) == 3 and all(r["f1"] is not None or r["error"] for r in rows.values())


def test_the_harness_connection_runs_each_query_on_one_duckdb_thread(db_path):
    """Eval, MCP and the rollout pool open the build with `episodes=True`: their parallelism is
    their episodes, so DuckDB's worker threads would only contend with them (docs/performance.md).
    Other readers (`mpcbench sql`, a build) keep DuckDB's default, a thread per core."""
    with db.open_existing(db_path, episodes=True) as con:
        assert con.execute("select current_setting('threads')").fetchone() == (1,)
    with db.connect(None) as con:
        assert con.execute("select current_setting('threads')").fetchone()[0] >= min(2, len(os.sched_getaffinity(0)))
