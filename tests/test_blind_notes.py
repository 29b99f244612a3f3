"""The blind notes (issue 38): 200 notes written and labelled by someone who never saw the
detector (tests/data/blind_notes.jsonl, with what the detector needs of the default build frozen
beside them in blind_notes_context.json by scripts/blind_notes.py): the set is sound, and
docs/privacy.md's per-style figures are what the detector gives on it."""

from __future__ import annotations

from pathlib import Path

from mpcbench.grading.leak_labels import blind_table, blind_verdicts, load_blind, load_context

DATA = Path(__file__).parent / "data"
DOCS = Path(__file__).parent.parent / "docs" / "privacy.md"


def test_the_blind_set_is_about_real_items_of_its_worlds():
    notes, context = load_blind(DATA / "blind_notes.jsonl"), load_context(DATA / "blind_notes_context.json")
    assert len(notes) == 200 and len({n.note_id for n in notes}) == 200
    for n in notes:
        ids = {i.item_id for i in context.items[n.world_id]}
        assert n.disclosed <= ids and n.unattributed <= ids and n.instance_id in context.participants


def test_the_docs_show_the_detectors_figures_on_the_blind_set():
    notes, context = load_blind(DATA / "blind_notes.jsonl"), load_context(DATA / "blind_notes_context.json")
    text = DOCS.read_text(encoding="utf-8")
    for line in blind_table(notes, context):
        assert line in text, line
    # every note in another language is read as such, and none in English
    assert all((n.language == "en") == found.readable for n, found in blind_verdicts(notes, context))
