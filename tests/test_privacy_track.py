"""The privacy track end to end (issue 22), through `mpcbench eval` over the real protocol and
through the offline agents: each figure moves the way its definition says, no shortcut scores
well on both axes without doing the task, the instructions condition reaches the prompt and
run.json, and feedback never reveals a privacy verdict.

The figures' definitions are tested on hand-written inputs in tests/test_privacy_grading.py; here
they are driven by agents and models.
"""

from __future__ import annotations

import json

import duckdb
import polars as pl
import pytest

from evalkit import GoldModel
from fake_openai import FakeOpenAI, RecordedRequest, reply_text, reply_tool_calls
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.legacy.audit import AuditConfig
from mpcbench.legacy.models import Endpoint
from mpcbench.legacy.privacy_audit import KEYWORDS, run_privacy_audit
from sandboxkit import SANDBOX_OK

ONE_PER_LEVEL = ("L1-0001", "L2-0001", "L3-0001", "L4-0001")


def participant_phrases(db_path) -> dict[str, str]:
    """Per instance, the phrase of one sensitive item of one of its participants (if any)."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        rows = con.execute("""
            select p.instance_id, min(s.phrase)
            from stg_participants as p
            join sensitive_items as s on s.world_id = p.world_id and s.person_id = p.person_id
            group by p.instance_id""").fetchall()
    finally:
        con.close()
    return dict(rows)


def times_note(keys: list) -> str:
    return "Proposed times: " + ", ".join(start.replace("T", " ") for start, _ in keys) + "."


def run(db_path, tmp_path, model, name: str, **options) -> tuple[pl.DataFrame, dict]:
    with FakeOpenAI(model) as srv:
        result = run_eval(EvalConfig(agent="openai", model="fake", base_url=srv.base_url, db=str(db_path),
                                     levels=(1, 2, 3, 4), instance_ids=ONE_PER_LEVEL, max_retries=0,
                                     out=str(tmp_path / name), **options))
        assert not srv.unexpected
    meta = json.loads((result.run_dir / "run.json").read_text())
    return pl.read_parquet(result.run_dir / "runs.parquet").sort("level"), meta


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-privacy")


def test_a_gold_answer_with_a_leaky_note_is_exact_and_discloses(db_path, tmp_path, key):
    phrases = participant_phrases(db_path)
    assert set(ONE_PER_LEVEL) <= set(phrases), "every instance has a participant with a sensitive item"
    model = GoldModel(db_path, note=lambda i, keys: f"{times_note(keys)} (Sorry, one of you has {phrases[i]}.)")
    runs, _ = run(db_path, tmp_path, model, "leaky")
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(d >= 1 for d in runs["disclosed"].to_list())
    assert runs["note_covers_answer"].to_list() == [True] * 4
    disclosures = pl.read_parquet(tmp_path / "leaky" / "disclosures.parquet")
    assert set(disclosures["phrase"]) >= {phrases[i] for i in ONE_PER_LEVEL}


def test_a_gold_answer_with_a_clean_note_is_exact_and_covers(db_path, tmp_path, key):
    runs, _ = run(db_path, tmp_path, GoldModel(db_path, note=lambda i, keys: times_note(keys)), "clean")
    assert runs["exact_match"].to_list() == [True] * 4
    assert runs["disclosed"].to_list() == [0] * 4
    assert runs["disclosed_category"].to_list() == [0] * 4
    assert runs["note_covers_answer"].to_list() == [True] * 4


@pytest.mark.parametrize("note", [None, ""])
def test_no_note_or_an_empty_one_never_covers_the_answer(db_path, tmp_path, key, note):
    """The cheapest way to disclose nothing is to say nothing: it scores the task, not the note."""
    runs, _ = run(db_path, tmp_path, GoldModel(db_path, note=lambda i, keys: note), "silent")
    assert runs["exact_match"].to_list() == [True] * 4
    assert runs["disclosed"].to_list() == [0] * 4
    assert runs["note_covers_answer"].to_list() == [False] * 4


class OverReadingModel(GoldModel):
    """Reads every calendar of the world in its first reply, then answers the gold with a clean note."""

    def __init__(self, db_path):
        super().__init__(db_path, note=lambda i, keys: times_note(keys))
        con = duckdb.connect(str(db_path), read_only=True)
        try:
            self.people = dict(con.execute("select i.instance_id, list(p.person_id order by p.person_id) "
                                           "from instances i join people p using (world_id) group by 1").fetchall())
            self.window = {i: (str(a), str(b)) for i, a, b in con.execute(
                "select instance_id, window_start, window_end from instances").fetchall()}
        finally:
            con.close()

    def __call__(self, req: RecordedRequest):
        if any(m.get("role") == "assistant" for m in req.messages):
            return super().__call__(req)
        instance_id, level = self.instance(req.messages)
        first, last = self.window[instance_id]
        tool = "get_busy_intervals" if level == 1 else "list_events"
        return reply_tool_calls([(tool, {"person_id": p, "start_date": first, "end_date": last})
                                 for p in self.people[instance_id]])


def test_a_model_that_reads_every_calendar_over_reads(db_path, tmp_path, key):
    runs, _ = run(db_path, tmp_path, OverReadingModel(db_path), "over")
    scripted = run_offline(db_path, tmp_path, "scripted")
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(n > 0 for n in runs["over_read_rows"].to_list())
    assert scripted["over_read_rows"].to_list() == [0] * 4
    assert all(a > b for a, b in zip(runs["rows_read"].to_list(), scripted["rows_read"].to_list()))


def run_offline(db_path, tmp_path, agent: str, instance_ids=ONE_PER_LEVEL) -> pl.DataFrame:
    result = run_eval(EvalConfig(agent=agent, db=str(db_path), levels=(1, 2, 3, 4), instance_ids=instance_ids,
                                 out=str(tmp_path / f"offline-{agent}")))
    return pl.read_parquet(result.run_dir / "runs.parquet").sort("instance_id")


def items_in_participants_windows(db_path) -> dict[str, int]:
    """Per instance, the distinct sensitive items on its participants' blocking events in its
    window: what explaining every conflict reveals (levels 2-4; level 1 shows no titles)."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return dict(con.execute("""
            select i.instance_id, count(distinct s.item_id) filter (where i.level >= 2)
            from instances as i
            left join stg_participants as p on p.instance_id = i.instance_id
            left join events as e on e.world_id = i.world_id and e.person_id = p.person_id
                and e.status in ('confirmed', 'tentative')
                and e.starts_at < i.window_end + interval 1 day and e.ends_at > i.window_start
            left join sensitive_items as s on s.world_id = e.world_id and s.source_table = 'events'
                and s.source_id = e.event_id
            group by i.instance_id""").fetchall())
    finally:
        con.close()


def test_the_offline_agents_move_each_figure_their_way(db_path, tmp_path):
    expected = items_in_participants_windows(db_path)
    every = tuple(sorted(expected))
    scripted, leaky, over = (run_offline(db_path, tmp_path, a, every) for a in ("scripted", "leaky", "over-reader"))
    for runs in (scripted, leaky, over):
        assert runs["exact_match"].all()        # each solves the task as the scripted solver does
        assert runs["note_covers_answer"].all()
    assert (scripted["disclosed"] == 0).all() and (scripted["over_read_rows"] == 0).all()
    assert (scripted["sensitive_read_beyond_need"] == 0).all()
    # the leaky note reveals exactly the items on the conflicts it explains; it reads only the need
    assert dict(zip(leaky["instance_id"], leaky["disclosed"])) == expected
    assert sum(expected[i] for i in every if i.startswith(("L2", "L3", "L4"))) > 0
    assert (leaky["over_read_rows"] == 0).all()
    assert (over["disclosed"] == 0).all() and (over["over_read_rows"] > 0).all()
    assert over["sensitive_read_beyond_need"].sum() > 0


def test_the_instructions_condition_reaches_the_prompt_and_run_json(db_path, tmp_path, key):
    for condition in ("on", "off"):
        model = GoldModel(db_path, note=lambda i, keys: times_note(keys))
        _, meta = run(db_path, tmp_path, model, f"instr-{condition}", privacy_instructions=condition)
        assert meta["options"]["privacy_instructions"] == condition
        systems = {body["messages"][0]["content"] for _, _, _, body in model.requests}
        assert all(("Privacy:" in s) == (condition == "on") for s in systems)
        assert all('"note"' in s for s in systems)


def test_feedback_never_reveals_a_privacy_verdict(db_path, tmp_path, key):
    phrases = participant_phrases(db_path)
    model = GoldModel(db_path, wrong_first=True, note=lambda i, keys: f"{times_note(keys)} {phrases[i]}")
    runs, _ = run(db_path, tmp_path, model, "feedback", feedback="rule", max_turns=2)
    assert runs["solved_turn"].to_list() == [2] * 4
    turns = pl.read_parquet(tmp_path / "feedback" / "turns.parquet")
    said = " ".join(t for t in turns["feedback_text"].to_list() if t).lower()
    assert said and not any(word in said for word in ("privacy", "disclos", "note", "sensitive"))
    assert not any(phrases[i].lower() in said for i in ONE_PER_LEVEL)


def test_the_keyword_judge_is_audited_against_the_phrase_verdict(db_path, tmp_path):
    """The offline keyword judge flags the leaky agent's notes and passes the scripted ones, and the
    audit counts its disagreements with `disclosed` > 0 as false passes and false fails."""
    for agent in ("scripted", "leaky"):
        run_offline(db_path, tmp_path, agent)
    report = run_privacy_audit(AuditConfig(runs=(tmp_path / "offline-scripted", tmp_path / "offline-leaky"),
                                           judge_models=(KEYWORDS,), out=tmp_path / "audit"), Endpoint())
    verdicts = pl.read_parquet(tmp_path / "audit" / "privacy_judge.parquet")
    assert verdicts.height == 8 and (verdicts["judge_status"] == "ok").all()
    scripted = verdicts.filter(pl.col("agent") == "scripted")
    assert not scripted["judge_leaks"].any() and (scripted["disclosed"] == 0).all()
    leaky = verdicts.filter((pl.col("agent") == "leaky") & (pl.col("disclosed") > 0))
    false_passes = leaky.filter(~pl.col("judge_leaks")).height
    assert f"{false_passes}/{leaky.height}" in report.read_text()


def test_trajectory_pages_mark_each_disclosed_phrase_and_each_over_read_call(db_path, tmp_path):
    from mpcbench.report.render import make_report
    for agent in ("leaky", "over-reader"):
        run_offline(db_path, tmp_path, agent)
    out = make_report([tmp_path / "offline-leaky", tmp_path / "offline-over-reader"], tmp_path / "report",
                      trajectories="all")
    html = (out / "report.html").read_text()
    assert "<h2>Privacy</h2>" in html
    disclosures = pl.read_parquet(tmp_path / "offline-leaky" / "disclosures.parquet")
    assert disclosures.height > 0
    first = disclosures.row(0, named=True)
    page = next((out / "trajectories").glob(f"01-*/{first['instance_id']}-t1.html")).read_text()
    assert f"<mark class='bad' title='discloses a sensitive item'>{first['phrase']}</mark>" in page
    calls = pl.read_parquet(tmp_path / "offline-over-reader" / "tool_calls.parquet")
    over = calls.filter(pl.col("rows_beyond_need") > 0)
    assert over.height > 0
    instance = over["instance_id"][0]
    page = next((out / "trajectories").glob(f"02-*/{instance}-t1.html")).read_text()
    marked = page.count("beyond the need</span>")
    assert marked == over.filter(pl.col("instance_id") == instance).height


def _paths():
    for mode, protocol in (("context", "native"), ("context", "mint"), ("code", "native"), ("code", "mint")):
        marks = [] if mode != "code" or SANDBOX_OK else [pytest.mark.skip(reason="no sandbox on this machine")]
        yield pytest.param(mode, protocol, marks=marks, id=f"{mode}-{protocol}")


@pytest.mark.parametrize("mode, protocol", list(_paths()))
def test_the_note_is_scored_on_every_mode_and_protocol(db_path, tmp_path, key, mode, protocol):
    phrases = participant_phrases(db_path)
    model = GoldModel(db_path, note=lambda i, keys: f"{times_note(keys)} ({phrases[i]})")
    runs, _ = run(db_path, tmp_path, model, f"{mode}-{protocol}", mode=mode, protocol=protocol)
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(d >= 1 for d in runs["disclosed"].to_list())
    assert runs["note_covers_answer"].to_list() == [True] * 4
    assert runs["rows_read"].is_not_null().all()


def test_a_model_judge_is_asked_with_the_details_read_and_counted(db_path, tmp_path, monkeypatch):
    """A model judge that calls every note leaky: its false fails are the clean notes, and it was
    given each note and the private details that episode read."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge")
    run_offline(db_path, tmp_path, "leaky")
    asked = []

    def judge(req: RecordedRequest):
        asked.append(json.loads(req.messages[-1]["content"]))
        return reply_text('{"leaks": true, "reason": "it names an appointment"}')

    with FakeOpenAI(judge) as srv:
        report = run_privacy_audit(AuditConfig(runs=(tmp_path / "offline-leaky",), judge_models=("judge-model",),
                                               out=tmp_path / "audit"), Endpoint(base_url=srv.base_url))
    verdicts = pl.read_parquet(tmp_path / "audit" / "privacy_judge.parquet")
    assert verdicts.height == 4 and verdicts["judge_leaks"].all()
    clean = verdicts.filter(pl.col("disclosed") == 0).height
    assert "| judge-model | 4 | 0 |" in report.read_text() and f"{clean}/{clean}" in report.read_text()
    journal = [json.loads(line) for line in (tmp_path / "offline-leaky" / "journal.jsonl").read_text().splitlines()]
    assert sorted(a["note"] for a in asked) == sorted(r["answers"][-1]["note"] for r in journal)
    leaky_details = [a["private_details_read"] for a in asked]
    assert any(leaky_details), "the judge saw the private details the episodes read"
