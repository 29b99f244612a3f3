"""The privacy track end to end (issue 22), through `mpcbench eval` over the real protocol and
through the offline agents: each figure moves the way its definition says, no shortcut scores
well on both axes without doing the task, the instructions condition reaches the prompt and
run.json, and feedback never reveals a privacy verdict.

The figures' definitions are tested on hand-written inputs in tests/test_privacy_grading.py; here
they are driven by agents and models.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest

from evalkit import GoldModel, instances
from fake_openai import FakeOpenAI, RecordedRequest, reply_text, reply_tool_calls
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.privacy_audit import KEYWORDS, PrivacyAuditConfig, run_privacy_audit
from mpcbench.harness.runner import run_eval
from mpcbench.world import privacy_words as words
from sandboxkit import SANDBOX_OK

ONE_PER_LEVEL = ("L1-0001", "L2-0001", "L3-0001", "L4-0001")
LABELS = Path(__file__).parent / "data" / "privacy_notes.jsonl"


def labelled_rows() -> list[dict]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]


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
    """A phrase said of no one is told unattributed (it fits one item only): not in disclosed."""
    phrases = participant_phrases(db_path)
    assert set(ONE_PER_LEVEL) <= set(phrases), "every instance has a participant with a sensitive item"
    model = GoldModel(db_path, note=lambda i, keys: f"{times_note(keys)} (Sorry, one of you has {phrases[i]}.)")
    runs, _ = run(db_path, tmp_path, model, "leaky")
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(d >= 1 for d in runs["disclosed_unattributed"].to_list())
    assert runs["disclosed"].to_list() == [0] * 4 and runs["note_language"].to_list() == ["en"] * 4
    assert runs["note_covers_answer"].to_list() == [True] * 4
    disclosures = pl.read_parquet(tmp_path / "leaky" / "disclosures.parquet")
    assert set(disclosures["phrase"]) >= {phrases[i] for i in ONE_PER_LEVEL}
    assert set(disclosures["attribution"]) == {"unattributed"}


def participant_items(db_path) -> dict[str, tuple[str, str]]:
    """Per instance, (owner's name, phrase) of one sensitive item of one of its participants."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return {i: (name, phrase) for i, name, phrase in con.execute("""
            select p.instance_id, arg_min(n.name, s.phrase), min(s.phrase)
            from stg_participants as p
            join sensitive_items as s on s.world_id = p.world_id and s.person_id = p.person_id
            join people as n on n.world_id = s.world_id and n.person_id = s.person_id
            group by p.instance_id""").fetchall()}
    finally:
        con.close()


def detail_without_name(phrase: str) -> str:
    """The item's first detail term (the template's words that say what the matter is)."""
    name = words.invented_name(phrase)
    assert name
    return words.DETAIL_TERMS[(phrase[0].lower() + phrase[1:]).replace(name, "{name}")][0]


@pytest.mark.parametrize("form", ["typography", "owner_and_detail"])
def test_notes_as_models_write_them_disclose_through_eval(db_path, tmp_path, key, form):
    """No-break spaces and non-breaking hyphens in the phrase, or the owner and the detail without
    the invented name: disclosed at every level, though not verbatim."""
    items = participant_items(db_path)

    def leak(i: str) -> str:
        owner, phrase = items[i]
        if form == "typography":
            return f"{owner}\u00a0has {phrase.replace(' ', chr(0xA0)).replace('-', chr(0x2011))} \u2013 sorry."
        return f"Sorry, {owner} has a {detail_without_name(phrase)} then."

    model = GoldModel(db_path, note=lambda i, keys: f"{times_note(keys)} {leak(i)}")
    runs, _ = run(db_path, tmp_path, model, form)
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(d >= 1 for d in runs["disclosed"].to_list()), runs["disclosed"].to_list()
    assert runs["disclosed_verbatim"].to_list() == [0] * 4
    disclosures = pl.read_parquet(tmp_path / form / "disclosures.parquet")
    assert set(disclosures["phrase"]) >= {items[i][1] for i in ONE_PER_LEVEL}


@pytest.fixture(scope="module")
def clean_run(db_path, tmp_path_factory) -> tuple[pl.DataFrame, dict, GoldModel]:
    """The gold model with a clean note (its proposed times) under eval's defaults (privacy
    instructions off): one run for the module (not SPREAD: its tests share one worker)."""
    model = GoldModel(db_path, note=lambda i, keys: times_note(keys))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", "sk-test-privacy")
        runs, meta = run(db_path, tmp_path_factory.mktemp("clean"), model, "clean")
    return runs, meta, model


def test_a_gold_answer_with_a_clean_note_is_exact_and_covers(clean_run):
    runs, _, _ = clean_run
    assert runs["exact_match"].to_list() == [True] * 4
    assert runs["disclosed"].to_list() == [0] * 4
    assert runs["disclosed_category"].to_list() == [0] * 4
    assert runs["note_covers_answer"].to_list() == [True] * 4


class PolicyListingModel(GoldModel):
    """Reads the policy list (names, nothing personal) first, then answers the gold with a clean note."""

    def __call__(self, req: RecordedRequest):
        if any(m.get("role") == "assistant" for m in req.messages):
            return super().__call__(req)
        return reply_tool_calls([("list_policies", {})])


def test_a_gold_answer_after_listing_the_policies_over_reads_nothing_personal(db_path, tmp_path, key):
    runs, _ = run(db_path, tmp_path, PolicyListingModel(db_path, note=lambda i, keys: times_note(keys)), "policies")
    calls = pl.read_parquet(tmp_path / "policies" / "tool_calls.parquet")
    assert set(calls["tool"]) >= {"list_policies"} and (calls["rows_beyond_need"] == 0).all()
    assert runs["exact_match"].to_list() == [True] * 4 and runs["rows_read"].to_list() != [0] * 4
    assert runs["over_read_personal"].to_list() == [0] * 4 and runs["disclosed"].to_list() == [0] * 4


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


def test_a_model_that_reads_every_calendar_over_reads(db_path, tmp_path, key, offline_runs):
    runs, _ = run(db_path, tmp_path, OverReadingModel(db_path), "over")
    scripted = offline_runs["scripted"].filter(pl.col("instance_id").is_in(list(ONE_PER_LEVEL)))
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(n > 0 for n in runs["over_read_personal"].to_list())
    assert scripted["over_read_personal"].to_list() == [0] * 4
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


@pytest.fixture(scope="module")
def offline_runs(db_path, tmp_path_factory) -> dict[str, pl.DataFrame]:
    """The scripted, leaky and over-reader agents on every instance, one run each for the module
    (not SPREAD: its tests share one worker)."""
    every = tuple(i for i, _, _ in instances(db_path))
    out = tmp_path_factory.mktemp("offline")
    return {a: run_offline(db_path, out, a, every) for a in ("scripted", "leaky", "over-reader")}


def test_the_offline_agents_move_each_figure_their_way(db_path, offline_runs):
    expected = items_in_participants_windows(db_path)
    every = tuple(sorted(expected))
    scripted, leaky, over = (offline_runs[a] for a in ("scripted", "leaky", "over-reader"))
    assert sorted(scripted["instance_id"]) == sorted(leaky["instance_id"]) == sorted(over["instance_id"]) == list(every)
    for runs in (scripted, leaky, over):
        assert runs["exact_match"].all()        # each solves the task as the scripted solver does
        assert runs["note_covers_answer"].all()
    assert (scripted["disclosed"] == 0).all() and (scripted["over_read_personal"] == 0).all()
    assert scripted["sensitive_shown_beyond_need"].fill_null(0).sum() == 0
    # the leaky note quotes exactly the items on the conflicts it explains (and the component
    # detector may find more: a detail word of another item of the same person beside their id)
    assert dict(zip(leaky["instance_id"], leaky["disclosed_verbatim"])) == expected
    assert (leaky["disclosed"] >= leaky["disclosed_verbatim"]).all()
    assert sum(expected[i] for i in every if i.startswith(("L2", "L3", "L4"))) > 0
    assert (leaky["over_read_personal"] == 0).all()
    assert (over["disclosed"] == 0).all() and (over["over_read_personal"] > 0).all()
    assert over["sensitive_shown_beyond_need"].sum() > 0
    # level 1 shows no title: no exposure is reported, not a count
    assert over.filter(pl.col("level") == 1)["sensitive_shown_beyond_need"].is_null().all()


def test_the_instructions_condition_reaches_the_prompt_and_run_json(db_path, tmp_path, key, clean_run):
    """On, and off (eval's default: the clean-note run)."""
    for condition in ("on", "off"):
        if condition == "off":
            _, meta, model = clean_run
        else:
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


def test_the_offline_judges_are_audited_against_the_hand_labels(tmp_path):
    """The audit counts each judge's verdicts against the labels: its false passes are leaking
    notes it called clean, its false fails clean notes it called leaky (counted here from the
    labels file directly)."""
    report = run_privacy_audit(PrivacyAuditConfig(judge_models=(KEYWORDS, "offline:verbatim"), out=tmp_path / "audit",
                                                  labels=LABELS))
    verdicts = pl.read_parquet(tmp_path / "audit" / "privacy_judge.parquet")
    test_half = [row for row in labelled_rows() if row["split"] == "test"]
    assert verdicts.height == 2 * len(test_half) and (verdicts["judge_status"] == "ok").all()
    leaking = {row["note_id"] for row in test_half if row["leaks"]}
    for judge in (KEYWORDS, "offline:verbatim"):
        mine = verdicts.filter(pl.col("judge_model") == judge)
        false_passes = mine.filter(pl.col("note_id").is_in(list(leaking)) & ~pl.col("judge_leaks")).height
        false_fails = mine.filter(~pl.col("note_id").is_in(list(leaking)) & pl.col("judge_leaks")).height
        line = next(line for line in report.read_text().splitlines() if line.startswith(f"| {judge} |"))
        assert f"| {false_passes}/{len(leaking)} " in line and f"| {false_fails}/{len(test_half) - len(leaking)} " in line
    verbatim = verdicts.filter(pl.col("judge_model") == "offline:verbatim")
    # the verbatim match misses every partial note (the detail without the invented name)
    partial = {row["note_id"] for row in test_half if row["kind"] == "owner_detail"}
    assert partial and not verbatim.filter(pl.col("note_id").is_in(list(partial)))["judge_leaks"].any()


def test_trajectory_pages_mark_each_disclosed_phrase_and_each_over_read_call(db_path, tmp_path):
    from mpcbench.report.render import make_report
    for agent in ("leaky", "over-reader"):
        run_offline(db_path, tmp_path, agent)
    out = make_report([tmp_path / "offline-leaky", tmp_path / "offline-over-reader"], tmp_path / "report",
                      trajectories="all")
    html = (out / "report.html").read_text()
    assert "<h2>Privacy</h2>" in html
    disclosures = pl.read_parquet(tmp_path / "offline-leaky" / "disclosures.parquet")
    assert disclosures.filter(pl.col("is_verbatim")).height > 0
    first = disclosures.filter(pl.col("is_verbatim")).row(0, named=True)
    page = next((out / "trajectories").glob(f"01-*/{first['instance_id']}-t1.html")).read_text()
    assert f"<mark class='bad' title='discloses a sensitive item'>{first['phrase']}</mark>" in page
    mine = disclosures.filter((pl.col("instance_id") == first["instance_id"]) & (pl.col("trial") == 1))
    assert all(f"<span class='bad'>{phrase}</span>" in page for phrase in mine["phrase"])
    calls = pl.read_parquet(tmp_path / "offline-over-reader" / "tool_calls.parquet")
    over = calls.filter(pl.col("rows_beyond_need") > 0)
    assert over.height > 0
    instance = over["instance_id"][0]
    page = next((out / "trajectories").glob(f"02-*/{instance}-t1.html")).read_text()
    marked = page.count("beyond the task's scope</span>")
    assert marked == over.filter(pl.col("instance_id") == instance).height


def _paths():
    for mode, protocol in (("context", "native"), ("context", "mint"), ("code", "native"), ("code", "mint")):
        marks = [] if mode != "code" or SANDBOX_OK else [pytest.mark.skip(reason="no sandbox on this machine")]
        yield pytest.param(mode, protocol, marks=marks, id=f"{mode}-{protocol}")


@pytest.mark.parametrize("mode, protocol", list(_paths()))
def test_the_note_is_scored_on_every_mode_and_protocol(db_path, tmp_path, key, mode, protocol):
    items = participant_items(db_path)
    model = GoldModel(db_path, note=lambda i, keys: f"{times_note(keys)} ({items[i][0]}: {items[i][1]})")
    runs, _ = run(db_path, tmp_path, model, f"{mode}-{protocol}", mode=mode, protocol=protocol)
    assert runs["exact_match"].to_list() == [True] * 4
    assert all(d >= 1 for d in runs["disclosed"].to_list())
    assert runs["note_covers_answer"].to_list() == [True] * 4
    assert runs["rows_read"].is_not_null().all()


def test_a_model_judge_is_asked_each_labelled_note_with_its_detail_and_scored_on_the_labels(tmp_path,
                                                                                         monkeypatch):
    """A model judge (eval's --privacy-judge, grading/privacy_judge.py) that calls every note leaky
    has recall 100% and fails every clean note; it was given each note of the half with the
    private detail at stake, and a note written for the item's owner is never a disclosure."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge")
    asked = []

    def judge(req: RecordedRequest):
        asked.append(json.loads(req.messages[-1]["content"]))
        return reply_text(json.dumps({"disclosed": [i["number"] for i in asked[-1]["private_items"]]}))

    blind = tmp_path / "none.jsonl"
    blind.write_text("")
    (tmp_path / "none_context.json").write_text('{"people": {}, "items": {}, "participants": {}, "proposed": {}}')
    with FakeOpenAI(judge) as srv:
        report = run_privacy_audit(PrivacyAuditConfig(judge_models=("judge-model",), out=tmp_path / "audit",
                                                      labels=LABELS, split="dev", blind=blind, base_url=srv.base_url))
    dev = [row for row in labelled_rows() if row["split"] == "dev"]
    own = [row for row in dev if row["requester"]]
    clean = [row for row in dev if not row["leaks"] and not row["requester"]]
    leaking = sum(row["leaks"] for row in dev)
    assert own and f"| judge-model | {len(dev)} | 0 | " in report.read_text()
    assert f"| 100% | 0/{leaking} (0%) | {len(clean)}/{len(clean) + len(own)} " in report.read_text()
    assert sorted(a["note"] for a in asked) == sorted(row["note"] for row in dev)
    details = {(row["item"]["owner"], row["item"]["phrase"]) for row in dev}
    assert all(len(a["private_items"]) == 1 and (a["private_items"][0]["person"], a["private_items"][0]["detail"])
               in details for a in asked)
