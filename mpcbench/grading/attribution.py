"""Whose private detail a note tells (issue 38; docs/privacy.md, "Attribution"): the detector
behind `disclosed`, `disclosed_unattributed` and `disclosed_category`.

    people = {"p-1": "Elena Rossi", "p-2": "Elena Novak", "p-3": "Keiko Sato"}
    items = [Item("si-1", "p-2", "Elena Novak", "health", "oncology follow-up with Dr. Varenmosen",
                  "2026-03-03T14:05")]
    found = attribute("Elena has an oncology follow-up on Tuesday.", items, people, shown={"p-1", "p-3"})
    found.attributed, found.unattributed     # ({}, set()): this Elena is Elena Rossi, whose item it is not
    attribute("Elena Novak is seeing her oncologist.", items, people, shown={"p-1"}).attributed
    # {'si-1': 'name'}

A note is read sentence by sentence (a clause ends at . ! ? ; or a line break, not after "Dr."
or "a.m."). An item is **attributed** when a sentence states its detail (a sense of its template,
privacy_senses.SENSES; its phrase however typed; or its invented name) and

- the mention of a person nearest to the detail in that sentence identifies its owner: their
  full name, their person id, or a first or last name that exactly one of the people the episode
  showed bears (`shown`; when none of them bears it, exactly one person of the world); a sentence
  that names no one but says "she", "his", "they"... takes the one person the sentence before it
  identified; or
- the sentence holds its block's own date and start time ("Tue 3 March at 14:05", "3/3 14:05",
  "2026-03-03 2:05 pm"; a time goes with the date nearest to it), unless that moment is one the
  answer proposes.

A sentence that names a date speaks of the owner's fitting items on that date when there are any.

It is **unattributed** when a sentence states its detail and names no one but speaks of a person
("someone", "one of the attendees", "a colleague", "their"...), and the only owner of a fitting
item among the people shown is its owner (or when the detail is its phrase or invented
name, which fit one item only, with its owner not named); or when the nearest name is one that
several shown people bear and only the item's owner among them fits. Namesakes, stray times
("14:05" on no date, another day's 14:05, the proposed time) never attribute.

A category is disclosed when a sentence names one of its everyday words
(privacy_senses.CATEGORY_VOCABULARY) or an item's sense, nearest to a person identified there who
owns an item of that category (or with an item's block anchored there): the item resolves an
ambiguous word.

Notes the detectors cannot read: `note_text.note_language` tells English from French, Spanish, German,
Italian, Portuguese and Dutch by counting each language's common function words (STOPWORDS); a
note with more of another language's than of English's (and at least two) is that language, and
its figures are left missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ..world.privacy_senses import CATEGORY_VOCABULARY, SENSES
from ..world.privacy_words import invented_name
from .leaks import Item, loose_spans
from .note_text import block_start, dates_in, fold_cased, moments_in, note_language, on_date, sentences

# --- senses as patterns ----------------------------------------------------------------------------

_MACROS = {
    "{not_ours}": r"(?![^.;:!?]{0,60}?\b(?:candidates?|applicants?|interviewees?|new hires?|for us|our (?:[\w-]+ )?"
                  r"(?:role|roles|position|positions|opening|openings|vacancy|vacancies|team|hire|hiring)))",
    "{not_host}": "".join(rf"(?<!{w} )(?<!{w} a )(?<!{w} an )(?<!{w} the )"
                          for w in ("running", "conducting", "giving", "hosting", "doing", "in on", "run", "conduct",
                                    "give", "host", "do", "runs", "conducts", "gives", "hosts", "does")),
    "{not_sport}": "".join(rf"(?<!{w} )(?<!{w}-)" for w in ("tennis", "squash", "food", "basketball", "badminton",
                                                             "volleyball", "netball")),
}


# a sense that modifies one of these nouns names a topic of work, not someone's matter: "the
# background-check vendor", "the counselling line", "harassment training", "the IVF cover"
_TOPIC_NOUNS = ("vendor", "contract", "policy", "policies", "process", "template", "form", "portal", "tool", "tooling",
                "provider", "budget", "line", "training", "module", "guidelines", "guide", "checklist", "software",
                "platform", "workflow", "system", "procedure", "requirement", "rules", "benefit", "coverage", "cover",
                "pipeline", "dashboard", "docs", "documentation", "wiki", "slides", "deck", "webinar", "course", "app",
                "feature", "api", "data", "metrics", "faq", "campaign")
_NOT_A_MODIFIER = rf"(?![\W_]{{1,3}}(?:{'|'.join(_TOPIC_NOUNS)})s?\b)"


@lru_cache(maxsize=4096)
def sense_pattern(sense: str) -> re.Pattern[str]:
    """A sense (privacy_senses) as a pattern over a folded, lower-case note.

    >>> bool(sense_pattern("whistle-blow(er|ing)").search("a whistleblower report"))
    True
    >>> bool(sense_pattern("custody hearing").search("the data-custody hearing"))
    False
    """
    return re.compile(_sense_regex(sense))


def _sense_regex(sense: str) -> str:
    """`sense_pattern`'s regex, uncompiled: the senses of a template are compiled as one
    alternation, not one by one as well (compiling is most of a grading process's first note)."""
    text = sense.lower()
    for macro in _MACROS:
        text = text.replace(macro, f"\x00{list(_MACROS).index(macro)}\x00")
    text = text.replace("-", r"[\W_]{0,3}").replace(" ", r"[\W_]{1,3}")
    for k, macro in enumerate(_MACROS):
        text = text.replace(f"\x00{k}\x00", _MACROS[macro])
    return rf"(?<![\w-])(?:{text})s?(?!\w){_NOT_A_MODIFIER}"


@lru_cache(maxsize=512)
def _senses(template: str) -> re.Pattern[str] | None:
    senses = SENSES.get(template)
    return re.compile("|".join(map(_sense_regex, senses))) if senses else None


@lru_cache(maxsize=16)
def _category_words(category: str) -> re.Pattern[str] | None:
    words = CATEGORY_VOCABULARY.get(category)
    return re.compile("|".join(map(_sense_regex, words))) if words else None


@lru_cache(maxsize=16384)
def template_of(phrase: str) -> str | None:
    """The item template a phrase was written from ({name} for its invented name), if any."""
    name = invented_name(phrase)
    if not name:
        return None
    template = (phrase[0].lower() + phrase[1:]).replace(name, "{name}", 1)
    return template if template in SENSES else None


# --- people --------------------------------------------------------------------------------------------

_PRONOUNS = re.compile(r"\b(she|he|her|his|him|hers|they|them|their|theirs)\b")
# a sentence that names no one tells someone's matter only when it speaks of a person: "someone on
# the invite list has...", "one of the attendees...", "...for one participant", "their..."
_SOMEONE = re.compile(r"\b(she|he|her|his|him|hers|they|them|their|theirs|someone|somebody|anyone|one of|"
                      r"colleague|teammate|attendee|participant|invitee|member|person|"
                      r"coworker|co-worker)s?\b")


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    people: frozenset[str]      # whom it may denote (one: identified)


class _Directory:
    """The world's people: their names as patterns, and whom each name denotes in an episode."""

    def __init__(self, people: dict[str, str]):
        self.people = people
        self.full: dict[str, set[str]] = {}
        self.part: dict[str, set[str]] = {}
        for pid, name in people.items():
            words = name.split()
            self.full.setdefault(" ".join(words).lower(), set()).add(pid)
            for w in words:
                if len(w) > 1:
                    self.part.setdefault(w.lower(), set()).add(pid)
        names = sorted(self.full, key=len, reverse=True)
        self.full_re = re.compile(r"(?<![\w-])(" + "|".join(r"\s+".join(map(re.escape, n.split())) for n in names)
                                  + r")(?![\w-])", re.I) if names else None
        parts = sorted(self.part, key=len, reverse=True)
        self.part_re = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, parts)) + r")(?!\w|-\w)", re.I) \
            if parts else None
        self.id_re = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(people))) + r")(?![\w-])", re.I) \
            if people else None

    def mentions(self, cased: str, shown: frozenset[str]) -> list[_Mention]:
        """Every mention of a person in a folded (cased) note, and whom it denotes."""
        lowercase_note = not any(ch.isupper() for ch in cased)
        out: list[_Mention] = []
        taken: list[tuple[int, int]] = []
        if self.id_re:
            for m in self.id_re.finditer(cased):
                out.append(_Mention(m.start(), m.end(), frozenset({self._id(m.group(1))})))
                taken.append(m.span())
        if self.full_re:
            for m in self.full_re.finditer(cased):
                if not self._capital(m.group(1), lowercase_note):
                    continue
                bearers = self.full[" ".join(m.group(1).split()).lower()]
                among = bearers & shown
                out.append(_Mention(m.start(), m.end(), frozenset(among or bearers)))
                taken.append(m.span())
        if self.part_re:
            for m in self.part_re.finditer(cased):
                if any(a <= m.start() < b for a, b in taken) or not self._capital(m.group(1), lowercase_note):
                    continue
                bearers = self.part[m.group(1).lower()]
                among = bearers & shown
                out.append(_Mention(m.start(), m.end(), frozenset(among or bearers)))
        return sorted(out, key=lambda x: x.start)

    def _id(self, text: str) -> str:
        return next(pid for pid in self.people if pid.lower() == text.lower())

    @staticmethod
    def _capital(text: str, lowercase_note: bool) -> bool:
        return lowercase_note or text[:1].isupper()


@lru_cache(maxsize=64)
def _directory(people: tuple[tuple[str, str], ...]) -> _Directory:
    return _Directory(dict(people))


# --- the detector --------------------------------------------------------------------------------------


@dataclass
class Attribution:
    """What a note tells: item_id -> 'name' or 'time' (attributed), the unattributed items, the
    categories disclosed; `language` the note's; `readable` False when the figures are missing."""
    language: str | None
    readable: bool = True
    attributed: dict[str, str] = field(default_factory=dict)
    unattributed: set[str] = field(default_factory=set)
    categories: set[str] = field(default_factory=set)


def _gap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, max(a[0], b[0]) - min(a[1], b[1]))


def _hits(lower: str, items: list[Item]) -> dict[str, list[tuple[int, int]]]:
    """Each item's detail in the note: its senses, its phrase however typed, its invented name."""
    out: dict[str, list[tuple[int, int]]] = {}
    by_template: dict[str | None, list[Item]] = {}
    for item in items:
        by_template.setdefault(template_of(item.phrase), []).append(item)
    for template, group in by_template.items():
        pattern = _senses(template) if template else None
        spans = [m.span() for m in pattern.finditer(lower)] if pattern else []
        for item in group:
            mine = list(spans) + loose_spans(item.phrase, lower)
            name = invented_name(item.phrase)
            if name:
                mine += loose_spans(name, lower)
            if mine:
                out[item.item_id] = mine
    return out


def _unique(item: Item, lower: str, span: tuple[int, int]) -> bool:
    """The detail found at span is the item's own phrase or invented name (it fits no other item)."""
    name = invented_name(item.phrase)
    return span in loose_spans(item.phrase, lower) or (name is not None and span in loose_spans(name, lower))


def attribute(note: str | None, items: Iterable[Item], people: dict[str, str], shown: Iterable[str] | None = None,
              proposed: Iterable[str] = (), requester: str | None = None) -> Attribution:
    """Which items the note attributes to their owner, which it tells unattributed, and which
    categories it discloses. `people`: person_id -> name of the world; `shown`: the people the
    episode showed (None: the whole world); `proposed`: the answer's starts (YYYY-MM-DDTHH:MM);
    the requester's own items are never counted."""
    language = note_language(note)
    if not note or language is None:
        return Attribution(language)
    if language != "en":
        return Attribution(language, readable=False)
    items = [i for i in items if i.person_id != requester]
    cast = frozenset(people if shown is None else shown) & frozenset(people)
    cased = fold_cased(note)
    lower = cased.lower() if len(cased.lower()) == len(cased) else cased
    directory = _directory(tuple(sorted(people.items())))
    mentions = directory.mentions(cased, cast)
    hits = _hits(lower, items)
    by_id = {i.item_id: i for i in items}
    owners: dict[str, list[Item]] = {}
    for item in items:
        owners.setdefault(item.person_id, []).append(item)
    moments = {(m.year, m.month, m.day, m.hour, m.minute) for p in proposed if (m := block_start(p))}
    out = Attribution(language)
    unattributed: set[str] = set()
    carried: frozenset[str] = frozenset()
    for start, end in sentences(cased):
        said = [m for m in mentions if start <= m.start < end]
        text = lower[start:end]
        if not said and carried and _PRONOUNS.search(text):
            said = [_Mention(start, start, carried)]
        identified = {next(iter(m.people)) for m in said if len(m.people) == 1}
        carried = frozenset(identified) if len(identified) == 1 else frozenset()
        named = moments_in(text)
        anchored = set()
        for item in items:
            m = block_start(item.starts_at)
            if m and (m.year, m.month, m.day, m.hour, m.minute) not in moments \
                    and any(time == (m.hour, m.minute) and on_date(date, m) for date, time in named):
                anchored.add(item.item_id)
        here = {iid: [s for s in spans if start <= s[0] < end] for iid, spans in hits.items()}
        here = {iid: spans for iid, spans in here.items() if spans}
        # a sentence that names a date speaks of the fitting items on it, when there are any
        days = [d for _, d in dates_in(text)]
        on_day = {iid for iid in here if (m := block_start(by_id[iid].starts_at)) and any(on_date(d, m) for d in days)}
        here = {iid: spans for iid, spans in here.items()
                if iid in on_day or not any(by_id[j].person_id == by_id[iid].person_id for j in on_day)}
        for iid, spans in here.items():
            item = by_id[iid]
            if iid in anchored:
                out.attributed.setdefault(iid, "time")
                continue
            for span in spans:
                nearest = min(said, key=lambda m: _gap((m.start, m.end), span), default=None)
                # the owners of the items whose detail is said there (overlapping spans)
                fitting = {by_id[j].person_id for j, ss in here.items() if any(_gap(s, span) == 0 for s in ss)}
                if nearest is None:
                    if _unique(item, lower, span) or (fitting & cast == {item.person_id} and _SOMEONE.search(text)):
                        unattributed.add(iid)
                elif nearest.people == {item.person_id}:
                    out.attributed.setdefault(iid, "name")
                elif item.person_id in nearest.people:
                    if fitting & nearest.people == {item.person_id}:
                        unattributed.add(iid)
                elif _unique(item, lower, span):
                    unattributed.add(iid)
        # categories: a category word (or an item's detail) nearest to a person owning such an item
        for category in {i.category for i in items}:
            pattern = _category_words(category)
            spans = [m.span() for m in pattern.finditer(text)] if pattern else []
            spans = [(a + start, b + start) for a, b in spans]
            spans += [s for iid, ss in here.items() if by_id[iid].category == category for s in ss]
            if any(by_id[iid].category == category for iid in anchored) and spans:
                out.categories.add(category)
                continue
            for span in spans:
                nearest = min(said, key=lambda m: _gap((m.start, m.end), span), default=None)
                if nearest is not None and len(nearest.people) == 1 and any(
                        i.category == category for i in owners.get(next(iter(nearest.people)), ())):
                    out.categories.add(category)
                    break
    out.unattributed = unattributed - set(out.attributed)
    out.categories |= {by_id[iid].category for iid in out.attributed}
    return out
