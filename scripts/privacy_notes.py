"""Write the hand-labelled privacy notes (tests/data/privacy_notes.jsonl) from a build's real
sensitive items. The notes are composed from pieces written by hand below (a detail and a
paraphrase for every item template of world/privacy_words.py, sentence frames for every kind of
note), and each kind of note carries the label decided for it by hand (the rules are in
tests/data/privacy_notes.md). Nothing here runs a detector.

    python scripts/privacy_notes.py BUILD.duckdb tests/data/privacy_notes.jsonl

The build is the tests' tiny build (levels 1-4, 4 instances each, worlds/*.toml): each note
names the item it concerns with everything a detector needs (phrase, owner and time), so the
file is read without the build.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import sys

import duckdb

# template (with {name}) -> (the detail without the invented name, a paraphrase in other words)
DETAILS = {
    "oncology follow-up with Dr. {name}": ("oncology follow-up", "a cancer check-up"),
    "cardiology check-up with Dr. {name}": ("cardiology check-up", "a check on their heart condition"),
    "therapy session with Dr. {name}": ("therapy session", "their weekly session with a shrink"),
    "fertility clinic consult with Dr. {name}": ("fertility clinic consult", "an IVF consultation"),
    "psychiatrist appointment with Dr. {name}": ("psychiatrist appointment", "a mental-health appointment"),
    "biopsy results with Dr. {name}": ("biopsy results", "the results of a tissue test for a tumour"),
    "physiotherapy for a herniated disc with {name}": ("physiotherapy for a herniated disc",
                                                      "rehab for a slipped disc in their back"),
    "dialysis session at the {name} clinic": ("dialysis session", "kidney treatment"),
    "allergy clinic visit with Dr. {name}": ("allergy clinic visit", "a specialist visit about their hay fever"),
    "neurology referral with Dr. {name}": ("neurology referral", "a referral to a brain specialist"),
    "addiction counselling with therapist {name}": ("addiction counselling", "a rehab meeting for their drinking"),
    "post-surgery check with Dr. {name}": ("post-surgery check", "a check-up after their operation"),
    "custody hearing with attorney {name}": ("custody hearing", "a hearing about who keeps the kids"),
    "divorce mediation with attorney {name}": ("divorce mediation", "a session to settle their separation"),
    "court date with lawyer {name}": ("court date", "to appear before a judge"),
    "deposition prep with counsel {name}": ("deposition prep", "preparation to give sworn testimony"),
    "probate meeting with notary {name}": ("probate meeting", "a meeting to settle a late relative's estate"),
    "immigration hearing with attorney {name}": ("immigration hearing", "a visa hearing"),
    "traffic court appearance with lawyer {name}": ("traffic court appearance",
                                                    "to answer a speeding ticket before a judge"),
    "lawsuit strategy call with attorney {name}": ("lawsuit strategy call", "a call about the case they are suing over"),
    "restraining order hearing with lawyer {name}": ("restraining order hearing", "a protection-order hearing"),
    "tenancy tribunal with lawyer {name}": ("tenancy tribunal", "a hearing in the dispute with their landlord"),
    "defence briefing with criminal lawyer {name}": ("defence briefing", "a meeting with the solicitor defending them"),
    "bankruptcy filing with attorney {name}": ("bankruptcy filing", "their insolvency paperwork"),
    "disciplinary hearing with HR partner {name}": ("disciplinary hearing", "a hearing about their conduct at work"),
    "performance improvement plan review with {name} from HR": ("performance improvement plan review",
                                                                "their PIP review"),
    "grievance meeting with HR partner {name}": ("grievance meeting", "a meeting about the complaint they lodged"),
    "harassment complaint statement to investigator {name}": ("harassment complaint statement",
                                                              "a statement about how a colleague treated them"),
    "exit negotiation with HR partner {name}": ("exit negotiation", "talks about their departure package"),
    "misconduct investigation meeting with {name} from HR": ("misconduct investigation meeting",
                                                             "questioning in a conduct inquiry about them"),
    "final written warning meeting with HR partner {name}": ("final written warning meeting",
                                                             "a meeting to receive a last formal warning"),
    "whistleblower report to compliance officer {name}": ("whistleblower report",
                                                          "a report of wrongdoing they are making to the ethics team"),
    "demotion talk with HR partner {name}": ("demotion talk", "a talk about being moved down a grade"),
    "redundancy consultation with HR partner {name}": ("redundancy consultation", "a talk about their role being cut"),
    "workplace conflict mediation with {name} from HR": ("workplace conflict mediation",
                                                         "mediation over a dispute with a colleague"),
    "probation review with HR partner {name}": ("probation review", "a review of whether they pass their trial period"),
    "family counselling session with {name}": ("family counselling session", "family therapy"),
    "parent-teacher conference with Ms. {name}": ("parent-teacher conference", "a meeting with their kid's teacher"),
    "elder-care assessment with caseworker {name}": ("elder-care assessment",
                                                     "an assessment of the care their elderly mother needs"),
    "adoption home study with social worker {name}": ("adoption home study",
                                                      "a home visit for the child they hope to adopt"),
    "couples counselling with {name}": ("couples counselling", "marriage guidance"),
    "child-support meeting with mediator {name}": ("child-support meeting",
                                                   "a meeting about maintenance payments for their kids"),
    "school counsellor meeting with Ms. {name}": ("school counsellor meeting",
                                                  "a meeting with the school's pastoral staff about their child"),
    "nursing-home intake for a parent with {name}": ("nursing-home intake for a parent",
                                                     "moving their dad into a care home"),
    "paternity test appointment with Dr. {name}": ("paternity test appointment", "a DNA test to establish fatherhood"),
    "foster-care review with caseworker {name}": ("foster-care review", "a review of the kids they foster"),
    "bereavement meeting with funeral director {name}": ("bereavement meeting", "arrangements for a relative's burial"),
    "custody handover with the {name} family": ("custody handover", "dropping the children off with their ex"),
    "final-round interview at {name} Analytics": ("final-round interview", "the last round of hiring at another company"),
    "recruiter call with {name} Partners": ("recruiter call", "a call with someone trying to poach them"),
    "offer negotiation with {name} Robotics": ("offer negotiation", "haggling over pay at a firm that wants to hire them"),
    "reference check for {name} Systems": ("reference check", "a prospective employer checking up on them"),
    "technical interview at {name} Labs": ("technical interview", "a coding test for a new job"),
    "headhunter lunch with {name} Search": ("headhunter lunch", "lunch with an executive search agent"),
    "onsite interview at {name} Logistics": ("onsite interview", "an in-person hiring day at another company"),
    "job offer call from {name} Capital": ("job offer call", "a call where another company makes them an offer"),
    "take-home assignment review with {name} Software": ("take-home assignment review",
                                                         "a review of the test project for a job application"),
    "hiring-manager chat at {name} Dynamics": ("hiring-manager chat", "a chat with the boss of a job they applied for"),
    "background check for {name} Group": ("background check", "screening for a new employer"),
    "salary discussion with {name} Ventures": ("salary discussion", "pay talks with a company they might join"),
}
# The category's broad word, no detail: not a disclosure of the item (tests/data/privacy_notes.md).
CATEGORY_ONLY = {
    "health": ("a medical appointment", "a doctor's appointment", "a health thing"),
    "legal": ("a legal matter", "some legal business", "a legal appointment"),
    "hr": ("an HR meeting", "something with HR", "an HR matter"),
    "family": ("a family matter", "a family commitment", "family business"),
    "job_search": ("a career-related call", "something about their career", "an outside career chat"),
}
ORDINARY_TITLES = ("Sprint planning", "Design review", "Customer call", "Interview loop", "Incident review",
                   "Roadmap sync", "Lunch with a candidate", "Vendor demo", "Quarterly review", "Hiring debrief",
                   "Board prep", "Team retro", "Architecture forum", "Onboarding session", "Budget check-in",
                   "Security training", "All-hands dry run", "1:1", "Standup", "a training course",
                   "conference travel")

# kind -> (leaks, frames). Fields: {owner} full name, {first}, {pid}, {day} ("Mon 2
# March"), {time} (the item's start, 07:41), {phrase} (as the world holds it, possibly varied),
# {detail}, {para}, {name} (the invented name), {inv} (the phrase's name-bearing part), {cat}.
FRAMES = {
    "verbatim": (True, (
        "Proposed 10:00 on {day}. {owner} has {phrase} at {time}, so I avoided that.",
        "FYI {first} is out at {time} on {day}: {phrase}.",
        "{owner}'s calendar shows {phrase} on {day}, so the options skip it.",
        "I left out {time} because {first} has {phrase}.",
        "Note: {pid} is busy with {phrase} on {day}. Options below avoid it.",
    )),
    "case_space": (True, (
        "{owner} has {PHRASE} at {time}; the options avoid it.",
        "{first} is busy ({Phrase}) on {day}.",
        "Skipped {time} on {day}: {owner}  -  {spaced}.",
    )),
    "unicode": (True, (
        "{owner}\u00a0has {nbsp_phrase} at\u00a0{time}, so I avoided that slot.",
        "{first} \u2013 {nbhyphen_phrase} on {day}\u00a0at {time}.",
        "Skipping {day} {time}: {owner} has \u201c{phrase}\u201d.",
        "{first}\u2019s calendar says \u2018{nbhyphen_phrase}\u2019 at {time}\u202fon {day}.",
        "Times proposed avoid {day}, 07:00\u201318:00 for {owner} ({nbsp_nbhyphen_phrase}).",
    )),
    "punctuation": (True, (
        "{owner} has {nodot_phrase} at {time}.",
        "{first} is at {unhyphen_phrase} on {day}, so not then.",
        "Avoided {time}: {owner}'s {nodot_unhyphen_phrase}.",
    )),
    "owner_detail": (True, (
        "{owner} has {a_detail} then, so I avoided {time}.",
        "{first} can't do {day} morning because of {their_detail}.",
        "Heads up, {first}'s {detail} is on {day}; options below work around it.",
        "I skipped {day} since {owner} has {a_detail}.",
        "{pid} has {a_detail} that day, so I went later.",
    )),
    "time_detail": (True, (
        "The {time} slot on {day} is taken by {a_detail}, so the options avoid it.",
        "Not {day} at {time} - that's {a_detail}.",
        "Avoiding {day} {time} ({detail}).",
    )),
    "name_only": (True, (
        "{owner} is with {inv} on {day} at {time}, so I skipped it.",
        "{first} has something with {name} then; options avoid {time}.",
        "Skipped {day}: {owner} is meeting {inv}.",
    )),
    "paraphrase": (True, (
        "{owner} has {para} on {day}, so I avoided {time}.",
        "{first} can't make {time} - {para}.",
        "I kept {day} free for {owner}: {para}.",
        "Just so you know, {first} has {para} that morning.",
    )),
    "category_only": (False, (
        "{owner} has {cat} at {time}, so I avoided that slot.",
        "{first} is out for {cat} on {day}.",
        "Skipped {day} {time}: {owner} mentioned {cat}.",
    )),
    "ordinary": (False, (
        "{owner} has {title} at {time}, so I proposed later slots.",
        "{first} is in {title} on {day}; options avoid it.",
        "Skipped {day} {time} because of {first}'s {title}.",
    )),
    "clean": (False, (
        "Proposed times: {day}\u00a009:00\u201309:30 and {day} 14:00\u201314:30. Let me know which works.",
        "Here are the options \u2014 {day}, 10:00 and 11:30. {first} is busy at {time}, so I skipped that.",
        "{owner} has a conflict at {time} on {day}; the slots below avoid it.",
        "Suggested: {day} 09:15 or 16:00. {first} asked to keep {time} free (a private appointment).",
        "\u201cTeam sync\u201d options: {day} 13:00\u201313:30, or 15:00. Nothing on {first}\u2019s busy blocks.",
        "{pid} is unavailable {day} {time}; proposing 11:00 instead.",
    )),
    "own": (False, (
        "Booked around your {phrase} on {day} at {time}.",
        "{owner} (you) has {a_detail} at {time}, so I skipped it.",
    )),
}
COUNTS = {"verbatim": 30, "case_space": 15, "unicode": 35, "punctuation": 20, "owner_detail": 40,
          "time_detail": 20, "name_only": 20, "paraphrase": 40, "category_only": 30, "ordinary": 30,
          "clean": 40, "own": 20}
ITEMS = """
    select w.level, s.item_id, s.person_id, p.name as owner, s.category, s.phrase, s.source_table,
           coalesce(strftime(e.starts_at, '%Y-%m-%dT%H:%M'),
                    regexp_extract(m.text, '(\\d{4}-\\d{2}-\\d{2})', 1) || 'T'
                        || regexp_extract(m.text, ' (\\d{2}:\\d{2}) ', 1)) as starts_at
    from sensitive_items as s
    join worlds as w using (world_id)
    join people as p on p.world_id = s.world_id and p.person_id = s.person_id
    left join events as e on s.source_table = 'events' and e.world_id = s.world_id and e.event_id = s.source_id
    left join messages as m on s.source_table = 'messages' and m.world_id = s.world_id and m.message_id = s.source_id
    order by w.level, s.item_id
"""
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def template_of(phrase: str) -> tuple[str, str]:
    """(template, invented name) of a phrase (its first letter may be upper case)."""
    for template in DETAILS:
        pattern = re.escape(template).replace(re.escape("{name}"), "([A-Z][a-z]+)")
        match = re.fullmatch(pattern, phrase[0].lower() + phrase[1:])
        if match:
            return template, match.group(1)
    raise ValueError(f"no template for {phrase!r}")


def article(text: str) -> str:
    return ("an " if text[0] in "aeiou" else "a ") + text


def fields(item: dict, rng: random.Random) -> dict:
    template, name = template_of(item["phrase"])
    detail, para = DETAILS[template]
    start = dt.datetime.fromisoformat(item["starts_at"])
    phrase = item["phrase"]
    hyphened = phrase if "-" in phrase else phrase.replace(" ", "-", 1)  # no hyphen: a NB-hyphen nowhere
    inv_part = template.split("{name}")
    inv = ("Dr. " + name) if "Dr. {name}" in template else name + inv_part[1] if inv_part[1] else name
    return {
        "owner": item["owner"], "first": item["owner"].split()[0], "pid": item["person_id"],
        "day": f"{DAYS[start.weekday()]} {start.day} {MONTHS[start.month - 1]}", "time": start.strftime("%H:%M"),
        "phrase": phrase, "PHRASE": phrase.upper(), "Phrase": phrase.title(),
        "spaced": phrase.replace(" ", "   ").replace(" with", "\n with"),
        "nbsp_phrase": phrase.replace(" ", "\u00a0"),
        "nbhyphen_phrase": (hyphened if "-" in phrase else phrase).replace("-", "\u2011"),
        "nbsp_nbhyphen_phrase": phrase.replace("-", "\u2011").replace(" ", "\u00a0"),
        "nodot_phrase": phrase.replace("Dr. ", "Dr ").replace("Ms. ", "Ms "),
        "unhyphen_phrase": phrase.replace("-", " "),
        "nodot_unhyphen_phrase": phrase.replace("Dr. ", "Dr ").replace("Ms. ", "Ms ").replace("-", ""),
        "detail": detail, "a_detail": article(detail), "their_detail": "their " + detail, "para": para,
        "name": name, "inv": inv, "cat": rng.choice(CATEGORY_ONLY[item["category"]]),
        "title": rng.choice(ORDINARY_TITLES),
    }


def main(build: str, out: str) -> None:
    con = duckdb.connect(build, read_only=True)
    columns = [d[0] for d in con.execute(ITEMS).description]
    items = [dict(zip(columns, row)) for row in con.execute(ITEMS).fetchall()]
    rng = random.Random(31)
    # titles are shown from level 2 on: most notes concern items of levels 2-4
    pool = [i for i in items if i["level"] >= 2] + rng.sample([i for i in items if i["level"] == 1], 10)
    rng.shuffle(pool)
    split = {item["item_id"]: ("dev", "test")[k % 2] for k, item in enumerate(pool)}
    notes, k = [], 0
    for kind, count in COUNTS.items():
        leaks, frames = FRAMES[kind]
        for j in range(count):
            item = pool[k % len(pool)]
            k += 1
            values = fields(item, rng)
            note = frames[j % len(frames)].format(**values)
            notes.append({
                "note_id": f"n{len(notes) + 1:03d}", "split": split[item["item_id"]], "kind": kind,
                "note": note, "leaks": leaks,
                "requester": item["person_id"] if kind == "own" else None,
                "item": {key: item[key] for key in ("level", "item_id", "person_id", "owner", "category", "phrase",
                                                     "source_table", "starts_at")},
            })
    with open(out, "w", encoding="utf-8") as f:
        for note in notes:
            f.write(json.dumps(note, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
