"""mpcbench.answers: the submit_candidates schema, the structured path and the lenient text path."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import hypothesis
from hypothesis import strategies as st

from mpcbench.episode.answers import (SUBMIT_TOOL_NAME, Candidate, ParsedAnswer, answer_from_record, normalize_start,
                                      parse_submission, parse_text_answer, submit_schema, submit_tool)

CORPUS = [json.loads(line) for line in
          (Path(__file__).parent / "data" / "model_outputs.jsonl").read_text().splitlines() if line.strip()]


def test_corpus_is_big_and_names_are_unique():
    names = [case["name"] for case in CORPUS]
    assert len(names) >= 30
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", CORPUS, ids=[case["name"] for case in CORPUS])
def test_text_corpus(case):
    answer = parse_text_answer(case["text"], case["level"])
    expect = case["expect"]
    assert answer.path == "text"
    assert answer.parse_ok is expect["parse_ok"], answer
    if not expect["parse_ok"]:
        assert answer.candidates == () and answer.error
        return
    assert answer.error is None
    assert [c.start for c in answer.candidates] == expect["starts"]
    assert [c.room_id for c in answer.candidates] == expect["room_ids"]
    assert len(answer.candidates) == len(expect["problems"])
    for candidate, problem in zip(answer.candidates, expect["problems"]):
        if problem is None:
            assert candidate.problem is None, candidate
        else:
            assert candidate.problem and problem in candidate.problem, candidate
        assert candidate.raw


# --- normalize_start -----------------------------------------------------------------------

@pytest.mark.parametrize("value, start, problem", [
    ("2026-03-02T09:00", "2026-03-02T09:00", None),
    ("  2026-03-02t09:45 ", "2026-03-02T09:45", None),
    ("2026-03-02 09:00:00", "2026-03-02T09:00", None),
    ("2026-03-02T09:00:59", None, "seconds are not zero"),
    ("2026-03-02T09:00:00.5", None, "seconds are not zero"),
    ("2026-03-02T09:01", "2026-03-02T09:01", "off the 15-minute grid"),
    ("2026-03-02T09:00Z", "2026-03-02T09:00", "offset"),
    ("2026-03-02T09:05+01:00", "2026-03-02T09:05", "offset"),
    ("2026-13-02T09:00", None, "not a time"),
    ("2026-03-02T09:60", None, "not a time"),
    ("2026-03-02", None, "not a time"),
    ("tomorrow at 9", None, "not a time"),
    (900, None, "not a time"),
    (None, None, "not a time"),
    (True, None, "not a time"),
])
def test_normalize_start(value, start, problem):
    got_start, got_problem = normalize_start(value)
    assert got_start == start
    if problem is None:
        assert got_problem is None
    else:
        assert got_problem and problem in got_problem


def test_off_grid_and_offset_both_reported():
    _, problem = normalize_start("2026-03-02T09:07Z")
    assert "offset" in problem and "15-minute grid" in problem


# --- schema and tool entry -----------------------------------------------------------------

def test_submit_tool_entry():
    tool = submit_tool(2)
    assert tool["type"] == "function"
    assert tool["function"]["name"] == SUBMIT_TOOL_NAME == "submit_candidates"
    assert tool["function"]["description"]
    assert tool["function"]["parameters"] == submit_schema(2)
    assert all("room_id" in submit_tool(level)["function"]["description"] for level in (3, 4))
    assert all("room_id" not in submit_tool(level)["function"]["description"] for level in (1, 2))


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_schema_is_valid_json_schema(level):
    jsonschema.Draft202012Validator.check_schema(submit_schema(level))


def test_schema_room_id_only_at_levels_3_and_4():
    for level in (3, 4):
        item = submit_schema(level)["properties"]["candidates"]["items"]
        assert item["required"] == ["start", "room_id"]
    for level in (1, 2):
        item = submit_schema(level)["properties"]["candidates"]["items"]
        assert "room_id" not in item["properties"] and item["additionalProperties"] is False


def test_schema_says_the_answer_is_n_long_where_the_prompt_gives_n_and_keeps_level_3_n_hidden():
    for level in (1, 2):
        candidates = submit_tool(level, 4)["function"]["parameters"]["properties"]["candidates"]
        assert candidates["maxItems"] == 4 and "first 4" in candidates["description"]
        jsonschema.Draft202012Validator.check_schema(submit_schema(level, 4))
    for level in (3, 4):
        hidden = submit_schema(level)["properties"]["candidates"]
        assert "maxItems" not in hidden and "as the project asks for" in hidden["description"]
        with pytest.raises(ValueError, match="hidden"):
            submit_schema(level, 4)
    # a longer answer is not rejected: the grader cuts it to its first N (and counts it)
    five = json.dumps({"candidates": [{"start": f"2026-03-02T09:{m:02d}"} for m in (0, 15, 30, 45)]
                       + [{"start": "2026-03-02T10:00"}]})
    assert parse_submission(five, 1).parse_ok and len(parse_submission(five, 1).candidates) == 5


@pytest.mark.parametrize("bad", [0, 5, "1"])
def test_bad_level_raises(bad):
    with pytest.raises(ValueError):
        submit_schema(bad)
    with pytest.raises(ValueError):
        parse_text_answer("{}", bad)


# --- structured path -----------------------------------------------------------------------

def test_submission_ok_from_string_and_dict():
    arguments = {"candidates": [{"start": "2026-03-02T09:00"}, {"start": "2026-03-02T09:30"}]}
    for given in (arguments, json.dumps(arguments)):
        answer = parse_submission(given, 1)
        assert answer == ParsedAnswer(
            (Candidate("2026-03-02T09:00", None, '{"start": "2026-03-02T09:00"}', None),
             Candidate("2026-03-02T09:30", None, '{"start": "2026-03-02T09:30"}', None)),
            True, "tool", None)


@pytest.mark.parametrize("level", [3, 4])
def test_submission_level3_keeps_rooms(level):
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:00", "room_id": "N-312"}]}, level)
    assert answer.parse_ok and answer.candidates[0].room_id == "N-312"


def test_submission_empty_list_is_ok():
    answer = parse_submission('{"candidates": []}', 2)
    assert answer.parse_ok and answer.candidates == () and answer.error is None


def test_submission_off_grid_is_a_wrong_candidate_not_an_error():
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:07"}, {"start": "2026-02-30T09:00"}]}, 1)
    assert answer.parse_ok
    assert answer.candidates[0].start == "2026-03-02T09:07"
    assert "15-minute grid" in answer.candidates[0].problem
    assert answer.candidates[1].start is None and "not a time" in answer.candidates[1].problem


def test_submission_invalid_json_error_names_position():
    answer = parse_submission('{"candidates": [{"start": "2026-03-02T09:00"} {"start": "x"}]}', 1)
    assert not answer.parse_ok and answer.path == "tool" and answer.candidates == ()
    assert answer.error.startswith("arguments are not valid JSON: Expecting ',' delimiter at char ")


@pytest.mark.parametrize("level", [3, 4])
def test_submission_level3_requires_room_id(level):
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:00", "room_id": "N-312"},
                                              {"start": "2026-03-02T09:30"}]}, level)
    assert not answer.parse_ok
    assert answer.error == f"candidates[1].room_id is required at level {level}"


def test_submission_level4_requires_room_id():
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:00"}]}, 4)
    assert not answer.parse_ok and answer.error.startswith("candidates[0].room_id is required")


@pytest.mark.parametrize("level", [1, 2])
def test_submission_level_1_2_rejects_room_id(level):
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:00", "room_id": "N-312"}]}, level)
    assert not answer.parse_ok
    assert answer.error == f"candidates[0].room_id is not allowed at level {level} (rooms are only used at levels 3-4)"


def test_submission_start_format_error_is_readable():
    answer = parse_submission({"candidates": [{"start": "2026-03-02 09:00:00"}]}, 1)
    assert answer.error == ("candidates[0].start must be YYYY-MM-DDTHH:MM (local wall-clock time, "
                            "no seconds, no offset), got '2026-03-02 09:00:00'")


@pytest.mark.parametrize("arguments, error", [
    ({}, "candidates is required"),
    ([], "arguments must be an object, got array"),
    (None, "arguments must be an object, got null"),
    ({"candidates": "2026-03-02T09:00"}, "candidates must be an array, got string"),
    ({"candidates": [{"start": 202603020900}]}, "candidates[0].start must be a string, got number"),
    ({"candidates": [{}]}, "candidates[0].start is required"),
    ({"candidates": ["2026-03-02T09:00"]}, "candidates[0] must be an object, got string"),
    ({"candidates": [{"start": "2026-03-02T09:00", "end": "2026-03-02T09:30"}]},
     "candidates[0] has unexpected keys 'end' (allowed: start)"),
    ({"candidates": [], "comment": "hi"}, "arguments has unexpected keys 'comment' (allowed: candidates, note)"),
])
def test_submission_schema_errors_are_specific(arguments, error):
    answer = parse_submission(arguments, 1)
    assert not answer.parse_ok and answer.error == error


@pytest.mark.parametrize("level", [3, 4])
def test_submission_level3_empty_room_id(level):
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:00", "room_id": ""}]}, level)
    assert answer.error == "candidates[0].room_id must not be empty"


def test_submission_reports_several_errors_in_order_and_caps_them():
    candidates = [{"start": 1}] * 5
    answer = parse_submission({"candidates": candidates}, 1)
    assert answer.error == ("candidates[0].start must be a string, got number; "
                            "candidates[1].start must be a string, got number; "
                            "candidates[2].start must be a string, got number (and 2 more)")


def test_submission_does_not_accept_text_leniency():
    # The structured path validates; it does not dig JSON out of prose or fences.
    answer = parse_submission('```json\n{"candidates": []}\n```', 1)
    assert not answer.parse_ok and answer.error.startswith("arguments are not valid JSON")


# --- text path details ---------------------------------------------------------------------

def test_text_errors_say_why():
    assert parse_text_answer("", 1).error == "the answer is empty"
    assert parse_text_answer("Sorry, I cannot help.", 1).error == "no JSON answer found in the text"
    assert "cut off" in parse_text_answer('{"candidates": [{"start": "2026-', 1).error
    assert "no candidates" in parse_text_answer('{"ok": true}', 1).error


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_text_path_keeps_rooms_at_levels_3_and_4_and_drops_them_below(level):
    text = 'Here: {"candidates": [{"start": "2026-03-02T09:00", "room_id": "N-312"}, {"start": "2026-03-02T09:30"}]}'
    answer = parse_text_answer(text, level)
    assert answer.parse_ok
    if level >= 3:
        assert [c.room_id for c in answer.candidates] == ["N-312", None]
        assert answer.candidates[0].problem is None and "room_id is missing" in answer.candidates[1].problem
    else:
        assert [c.room_id for c in answer.candidates] == [None, None]
        assert all(c.problem is None for c in answer.candidates)


def test_text_adversarial_nesting_is_bounded():
    answer = parse_text_answer("[" * 5000 + '{"start": "2026-03-02T09:00"}', 1)
    assert not answer.parse_ok


def test_hostile_inputs_never_raise():
    for text in ("[" + "9" * 5000 + "]", "[" * 30_000 + "]" * 30_000, '{"start": 1e999}', "{1: 2}"):
        for level in (3, 4):
            parse_text_answer(text, level)
    assert not parse_submission('{"candidates": [' + "9" * 5000 + "]}", 1).parse_ok
    assert not parse_submission("[" * 30_000 + "]" * 30_000, 1).parse_ok


# --- the note to the participants (issue 22): scored for privacy only, never for the task -------

@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_a_note_rides_with_the_candidates_on_both_paths(level):
    item = {"start": "2026-03-02T09:30", **({"room_id": "R-1"} if level >= 3 else {})}
    tool = parse_submission({"candidates": [item], "note": "Mon 09:30 works?"}, level)
    text = parse_text_answer(f'<solution> {json.dumps({"candidates": [item], "note": "Mon 09:30 works?"})} </solution>',
                             level)
    for answer in (tool, text):
        assert answer.parse_ok and answer.note == "Mon 09:30 works?"
        assert [c.start for c in answer.candidates] == ["2026-03-02T09:30"]
    assert "note" in submit_schema(level)["properties"] and "note" not in submit_schema(level)["required"]


@pytest.mark.parametrize("note", [None, 7, ["a"], {"text": "x"}])
def test_a_note_that_is_not_a_string_never_costs_the_candidates(note):
    answer = parse_submission({"candidates": [{"start": "2026-03-02T09:30"}], "note": note}, 1)
    assert answer.parse_ok and answer.note is None and answer.candidates[0].start == "2026-03-02T09:30"


def test_an_answer_without_a_note_has_none_and_the_journal_keeps_the_note():
    assert parse_submission({"candidates": []}, 1).note is None
    assert parse_text_answer('[{"start": "2026-03-02T09:30"}]', 1).note is None
    record = {"path": None, "raw": None}
    assert answer_from_record(record, 1) is None
    stored = {"path": "tool", "raw": None, "parse_ok": True, "error": None, "note": "hello",
              "candidates": [{"start": "2026-03-02T09:30", "room_id": None, "raw": "{}", "problem": None}]}
    assert answer_from_record(stored, 1).note == "hello"
    raw = json.dumps({"candidates": [{"start": "2026-03-02T09:30"}], "note": "again"})
    assert answer_from_record({"path": "tool", "raw": raw}, 1).note == "again"


# shapes of submit_candidates arguments near the valid one: keys, types and starts a model gets wrong
_STARTS = st.sampled_from(["2026-03-02T09:30", "2026-03-02T09:30\n", "2026-03-02 09:30", "2026-3-2T9:30",
                           "2026-03-02T09:30:00", "x2026-03-02T09:30", "", "9:30"])
_VALUES = st.one_of(_STARTS, st.sampled_from(["R-1", "", " "]), st.none(), st.integers(0, 3), st.just([]))
_ITEMS = st.one_of(st.dictionaries(st.sampled_from(["start", "room_id", "note", "end"]), _VALUES, max_size=3),
                   _VALUES)
_ARGUMENTS = st.one_of(st.fixed_dictionaries({"candidates": st.lists(_ITEMS, max_size=3)}),
                       st.dictionaries(st.sampled_from(["candidates", "answer"]), st.lists(_ITEMS, max_size=2),
                                       max_size=2))


@hypothesis.settings(max_examples=400, derandomize=True, deadline=None)
@hypothesis.given(arguments=_ARGUMENTS, level=st.sampled_from([1, 2, 3, 4]))
def test_a_submission_is_valid_exactly_when_the_schema_says_so(arguments, level):
    """parse_submission skips the validator for an answer it can see is valid: it must accept
    exactly what the schema accepts, and word the same refusals."""
    valid = jsonschema.Draft202012Validator(submit_schema(level)).is_valid(arguments)
    assert parse_submission(arguments, level).parse_ok is valid
