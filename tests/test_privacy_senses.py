"""The senses of each item template and the everyday words of each category (issue 38,
world/privacy_senses.py): every template has its senses, every sense reads as a pattern, and no
sense (nor category word) occurs in a built world's ordinary titles, reasons, messages or prompts,
so a name beside an ordinary title never makes a disclosure."""

from __future__ import annotations

import re

import pytest

from mpcbench.grading.attribution import sense_pattern
from mpcbench.world import ood_privacy, privacy_words
from mpcbench.world.privacy_senses import CATEGORY_VOCABULARY, OOD_SENSES, PUBLIC_SENSES, SENSES

# every text an agent reads that is no sensitive item's (titles, series titles, messages: the
# out-of-office reasons and chatter, prompts)
ORDINARY = """
    select t.text
    from (
        select world_id, 'events' as source_table, event_id as source_id, title as text from events
        union all select world_id, 'event_series', series_id, title from event_series
        union all select world_id, 'messages', message_id, text from messages
        union all select world_id, 'instances', instance_id, prompt from instances
    ) as t
    left join sensitive_items as s
        on s.world_id = t.world_id and s.source_table = t.source_table and s.source_id = t.source_id
    where s.item_id is null
"""


def test_every_template_has_its_senses():
    assert set(PUBLIC_SENSES) == {t for _, t in privacy_words.TEMPLATES}
    assert set(OOD_SENSES) == {t for _, t in ood_privacy.TEMPLATES}
    assert all(senses and all(s == s.strip() and s for s in senses) for senses in SENSES.values())
    assert set(CATEGORY_VOCABULARY) == set(privacy_words.CATEGORIES)


@pytest.mark.parametrize("sense, text, found", [
    ("whistle-blow(er|ers|ing)", "a whistleblower report", True),
    ("whistle-blow(er|ers|ing)", "a whistle blower", True),
    ("check-up", "a checkup", True),
    ("custody hearing", "the data-custody hearing", False),
    ("custody hearing", "custody hearings", True),
    ("oncolog(y|ist|ists|ical)", "her oncologist's office", True),
    ("oncolog(y|ist|ists|ical)", "oncologyx", False),
    ("{not_host}technical interview{not_ours}", "a technical interview for our backend role", False),
    ("{not_host}technical interview{not_ours}", "she is running a technical interview", False),
    ("{not_host}technical interview{not_ours}", "a technical interview at 11:00", True),
    ("reference check{not_ours}", "a reference check on a candidate", False),
    ("{not_sport}court(?!yard)", "the tennis court", False),
    ("{not_sport}court(?!yard)", "a day in court", True),
])
def test_a_sense_is_a_pattern_over_the_folded_note(sense, text, found):
    assert bool(sense_pattern(sense).search(text)) is found


def _ordinary(con) -> str:
    texts = [t.lower() for (t,) in con.execute(ORDINARY).fetchall()]
    assert len(texts) > 1000
    return "\n".join(texts)


def test_no_sense_occurs_in_the_worlds_ordinary_text(con):
    """No sense, of one word or more, is found in any ordinary title, reason, message or prompt of
    the tests' build (the default and ood builds were checked alike when the senses were written:
    docs/privacy.md)."""
    text = _ordinary(con)
    found = {s for senses in SENSES.values() for s in senses if sense_pattern(s).search(text)}
    assert found == set()


def test_no_category_word_occurs_in_the_worlds_ordinary_text(con):
    text = _ordinary(con)
    found = {(c, w) for c, words in CATEGORY_VOCABULARY.items() for w in words if sense_pattern(w).search(text)}
    assert found == set()


def test_single_word_senses_are_few_and_specific():
    """A sense of one word names the matter itself (oncology, dialysis, probate), never a role or a
    broad word alone (lawyer, doctor, hearing, interview, meeting, family)."""
    broad = re.compile(r"^(lawyer|attorney|doctor|dr|hearing|interview|meeting|family|legal|medical|health|hr|"
                       r"custody|court|salary|appointment|check|review)s?$")
    singles = {s for senses in SENSES.values() for s in senses if " " not in s}
    assert singles and not {s for s in singles if broad.match(s)}
