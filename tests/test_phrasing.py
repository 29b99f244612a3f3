"""Thread facts read the way their tags mean them (issue 36). At level 4 a message is its prose
alone, so a phrasing whose plain-English reading differs from its tag misleads every reader:

- a ban (a period the meeting must not overlap) never sounds like time that is free, open or
  kept for the meeting;
- an absence (ooo) is never called a day: the same phrasings and reasons say one-hour absences;
- a deadline is never "before" its time (a meeting ending exactly then is in time);
- a span is never "through" its end (the tags' periods are half-open, [start, end));
- a requirement's first statement never sounds like a correction, and a revision opener never
  claims the author's own earlier message or someone's approval: at level 3 anyone in the thread
  may revise, at level 4 a non-owner's revision is a decoy;
- in a build, a requirement said again follows its first statement in the same thread, and only
  the later statements carry a revision opener;
- no ood phrasing reads, to the phrasing memoriser, as a public one (the same key: its words with
  every fact atom masked, a leading capitalised word included).

Every pool is checked, public and ood, levels 2-3 and level 4's (`<kind>/l4` holds both).
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from evalkit import shared_build, tiny_db
from mpcbench.agents.memoriser import analyse
from mpcbench.warehouse import db
from mpcbench.world import prose
from mpcbench.world.wording import FAMILIES

SIDES = ("public", "ood")
REQUIREMENTS = tuple(prose.REQUIREMENT_TEXT)
HOURS_LONG = dt.timedelta(hours=20)   # shorter absences are said with their hours (generate._fill)
SPAN = [(r"\bthrough\b|\bthru\b|\binclusive\b|\bincluding\b", "a span's end is not in it ([start, end))")]
# What would make each family read otherwise: (a pattern over the lower-cased template, why).
MISREADINGS: dict[str, list[tuple[str, str]]] = {
    "ban": SPAN + [
        (r"\b(free|available|open|reserved)\b", "a ban is time the meeting must avoid, not time it may use"),
        (r"\bfor (our|the|this) (meeting|session)\b|\b(clear|closed|kept|blocked|held|reserved|set aside|free) for\b",
         "\"kept/blocked/closed for us\" reads as held for the meeting"),
    ],
    "ban_reasons": [(r"\b(free|available|open)\b", "a ban's reason never sounds like an opening")],
    "ooo": SPAN + [
        (r"\bdays?\b|\ball-day\b", "the same phrasing says an absence of an hour"),
        (r"\b(free|available)\b", "an absence is not availability"),
    ],
    "ooo_reasons": [(r"\bdays?\b|\bweek\b|\bholiday\b|\bvacation\b",
                     "a one-hour absence is said with the same reasons")],
    "deadline": SPAN + [
        (r"\bbefore \{end_by\}", "a meeting ending exactly at the deadline is in time: \"by\", not \"before\""),
        (r"\b(start|begin)s? (by|before)\b", "a deadline bounds the end, not the start"),
    ],
    **{kind: SPAN + [
        (r"\b(update|correction|correct|scratch|revis\w*|replac\w*|overrid\w*|amend\w*|edit|instead|fix|"
         r"change of plan|new info|earlier|previous|last note|after all)\b",
         "a first statement never sounds like a revision"),
    ] for kind in REQUIREMENTS},
    "revision": [
        (r"\b(i|i'm|i've|my|mine|me)\b", "the revision's author may not have said the earlier message"),
        (r"\b(talk\w*|chat\w*|spoke|agreed with|approv\w*|sign\w*[- ]off|leads?|sponsor|owner|manager|boss)\b",
         "a revision never claims approval: a non-owner's revision is a decoy at level 4"),
    ],
}
# What each family must say (a pattern over the lower-cased template, why).
MUST_SAY: dict[str, list[tuple[str, str]]] = {
    "revision": [(r"\b(update|correction|change|revis\w*|fix|replac\w*|amendment|edit|overrid\w*|new info)\b",
                  "a revision says that it changes what was said")],
    **{kind: [(r"\{(day|start|end|when|end_by|value)\}", "the fact's value is in the text")]
       for kind in ("ban", "ooo", "deadline", *REQUIREMENTS)},
}


def _pool(family: str, side: str) -> tuple[str, ...]:
    pool = FAMILIES[f"{family}/l4"] if f"{family}/l4" in FAMILIES else FAMILIES[family]
    return getattr(pool, side)


def misreadings(family: str, template: str) -> list[str]:
    """Why `template` (an entry of `family`'s pool) reads otherwise than its tag; [] if it does not."""
    text = template.lower()
    found = [f"{why}: {re.search(pattern, text)[0]!r}" for pattern, why in MISREADINGS[family]
             if re.search(pattern, text)]
    found += [why for pattern, why in MUST_SAY.get(family, []) if not re.search(pattern, text)]
    return found


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("family", sorted(MISREADINGS))
def test_every_phrasing_reads_as_its_tag_means(family, side):
    pool = _pool(family, side)
    assert pool, family
    wrong = {template: why for template in pool if (why := misreadings(family, template))}
    assert wrong == {}


def test_the_checks_catch_phrasings_that_read_otherwise():
    """Issue 36's findings, one per check, are caught (the check is not vacuous)."""
    caught = {
        "ban": ("Flagging {reason}: from {start} through {end} on {day} we stay free. {tag}",
                "Mark {day}, {start} until {end}, as closed for our meeting ({reason}). {tag}",
                "Heads up: {reason} on {day}, so please keep {start}–{end} clear for this project. {tag}",
                "Reminder that {day} from {start} until {end} is blocked for us because of {reason}. {tag}"),
        "ooo_reasons": ("a leave day", "a day off"),
        "deadline": ("Finance needs the decision before {end_by}, so the meeting has to end by then. {tag}",),
        "revision": ("Replacing my last note: ", "Sorry, one fix to what I said before: ",
                     "Small change after talking to the leads: ", "Overriding what I posted earlier: "),
        "count": ("Replacing the earlier note on this: aim for {value} options. {tag}",),
    }
    for family, templates in caught.items():
        for template in templates:
            assert misreadings(family, template), (family, template)


def _keys(side: str, kind: str) -> dict[str, str]:
    """{the memoriser's key: a message} of every level-4 phrasing of `kind`, with each revision opener."""
    words = dict(reason="the all-hands", day="Mon 2026-03-02", start="09:00", end="10:00", name="Ana Lima",
                 when="Mon 2026-03-02 09:00–10:00", end_by="Mon 2026-03-02 17:00", tag="",
                 value={"participants": "Ana Lima, Ben Chen", "duration": "45", "count": "5", "policy": "POL-1A2B3C",
                        "tie_break": FAMILIES["tie_break:capacity"], "room": FAMILIES["room_words:any"]}.get(kind, ""))
    if not isinstance(words["value"], str):
        words["value"] = getattr(words["value"], side)[0]
    found = {}
    for template in _pool(kind, side):
        text = template.format(**words).rstrip()
        for opener in ("", *getattr(FAMILIES["revision"], side)) if kind in REQUIREMENTS else ("",):
            said = opener + text[0].lower() + text[1:] if opener else text
            found[analyse(said)[0]] = said
    return found


def test_no_ood_phrasing_reads_as_a_public_one_to_the_memoriser():
    kinds = ("ban", "ooo", "deadline", *REQUIREMENTS)
    public = {key: text for kind in kinds for key, text in _keys("public", kind).items()}
    shared = {text: public[key] for kind in kinds for key, text in _keys("ood", kind).items() if key in public}
    assert shared == {}


@pytest.fixture(scope="module", params=SIDES)
def build(request, tmp_path_factory):
    """(side, a connection): the tiny public build, or test_ood.py's ood build (shared on disk)."""
    path = (tiny_db(tmp_path_factory) if request.param == "public" else
            shared_build(tmp_path_factory, (1, 2, 3, 4), 3, split="ood", secret="unit-test-ood-secret"))
    con = db.connect(path, read_only=True)
    yield request.param, con
    con.close()


def _said(con, kinds: tuple[str, ...]) -> list[tuple]:
    marks = ", ".join(f"'{k}'" for k in kinds)
    return con.execute(f"""
        select w.world_id, th.project_id, m.thread_id, m.ts, m.message_id, t.tag_type, t.params, m.text
        from messages m join threads th using (world_id, thread_id) join worlds w using (world_id)
        join message_tags t using (world_id, message_id)
        where t.tag_type in ({marks}) order by w.world_id, th.project_id, m.ts, m.message_id""").fetchall()


def test_a_revision_follows_the_statement_it_revises_in_its_thread(build):
    side, con = build
    openers = tuple(o.lower() for o in getattr(FAMILIES["revision"], side))
    first: dict[tuple, tuple] = {}
    revised = 0
    for world, project, thread, ts, message_id, kind, _, text in _said(con, REQUIREMENTS):
        opens = text.lower().startswith(openers)
        earlier = first.get((world, project, kind))
        if earlier is None:
            assert not opens, (message_id, text)
            first[(world, project, kind)] = (thread, ts)
        else:
            revised += 1
            assert opens and earlier[0] == thread and earlier[1] < ts, (message_id, text)
    assert first and revised   # the builds hold revisions


def test_said_absences_and_bans_read_as_their_tags(build):
    """The rendered messages: a ban says no availability, an absence of hours calls nothing a day."""
    _, con = build
    rows = _said(con, ("ban", "ooo"))
    hours = 0
    for *_, message_id, kind, params, text in rows:
        params = json.loads(params)
        prose_only = re.sub(r"\[\[.*\]\]", "", text).lower()
        if kind == "ban":
            assert not [p for p, _ in MISREADINGS["ban"] if re.search(p, prose_only)], (message_id, text)
        elif dt.datetime.fromisoformat(params["end"]) - dt.datetime.fromisoformat(params["start"]) < HOURS_LONG:
            hours += 1
            assert not re.search(r"\bdays?\b", prose_only), (message_id, text)
    assert rows and hours
