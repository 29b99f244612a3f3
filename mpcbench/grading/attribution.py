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

It is **unattributed** when a sentence states its detail and names no one, and the only owner of
a fitting item among the people shown is its owner (or when the detail is its phrase or invented
name, which fit one item only, with its owner not named); or when the nearest name is one that
several shown people bear and only the item's owner among them fits. Namesakes, stray times
("14:05" on no date, another day's 14:05, the proposed time) never attribute.

A category is disclosed when a sentence names one of its everyday words
(privacy_senses.CATEGORY_VOCABULARY) or an item's sense, nearest to a person identified there who
owns an item of that category (or with an item's block anchored there): the item resolves an
ambiguous word.

Notes the detectors cannot read: `note_language` tells English from French, Spanish, German,
Italian, Portuguese and Dutch by counting each language's common function words (STOPWORDS); a
note with more of another language's than of English's (and at least two) is that language, and
its figures are left missing.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ..world.privacy_senses import CATEGORY_VOCABULARY, SENSES
from ..world.privacy_words import invented_name
from .leaks import _DASHES, _INVISIBLE, _QUOTES, Item, _loose

# --- the note's language ---------------------------------------------------------------------------

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset("the and is are was has have had with for to of at on in from this that it be not but or "
                    "so because she he they her his their them we you i will would can can't cannot there "
                    "which who what when options option slot slots proposed busy free meeting times".split()),
    "fr": frozenset("le la les un une des du de et est sont avec pour dans sur au aux ce cette qui que pas "
                    "elle il ils elles nous vous je son sa ses leur donc mais car à où créneau réunion "
                    "rendez-vous lundi mardi mercredi jeudi vendredi".split()),
    "es": frozenset("el la los las un una unos unas y es son con para por en del al que no pero porque ella "
                    "él ellos nosotros usted su sus está tiene hay cita reunión lunes martes miércoles jueves "
                    "viernes".split()),
    "de": frozenset("der die das den dem des ein eine einen und ist sind mit für zu von auf im in am nicht "
                    "aber weil sie er wir ihr sein ihre hat haben termin besprechung montag dienstag mittwoch "
                    "donnerstag freitag uhr".split()),
    "it": frozenset("il lo la gli le un una di e è sono con per da nel nella che non ma perché lei lui loro "
                    "noi suo sua ha hanno appuntamento riunione lunedì martedì mercoledì giovedì "
                    "venerdì".split()),
    "pt": frozenset("o a os as um uma de do da e é são com para em no na que não mas porque ela ele eles "
                    "nós seu sua tem consulta reunião segunda terça quarta quinta sexta".split()),
    "nl": frozenset("de het een en is zijn met voor van op in niet maar omdat zij hij wij haar zijn heeft "
                    "hebben afspraak vergadering maandag dinsdag woensdag donderdag vrijdag".split()),
}


def note_language(note: str | None) -> str | None:
    """The note's language by counts of common words: 'en' unless another language's words are
    more (and at least two); None for no note.

    >>> note_language("Elena a un rendez-vous chez son oncologue mardi, donc je propose 10:00.")
    'fr'
    >>> note_language("Proposed: 2026-03-02 09:00.")
    'en'
    """
    if note is None or not note.strip():
        return None
    words = re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", note.lower())
    counts = {lang: sum(w in vocabulary for w in words) for lang, vocabulary in STOPWORDS.items()}
    best = max(counts, key=lambda lang: (counts[lang], lang == "en"))
    return best if best != "en" and counts[best] >= 2 and counts[best] > counts["en"] else "en"


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


@lru_cache(maxsize=4096)
def sense_pattern(sense: str) -> re.Pattern[str]:
    """A sense (privacy_senses) as a pattern over a folded, lower-case note.

    >>> bool(sense_pattern("whistle-blow(er|ing)").search("a whistleblower report"))
    True
    >>> bool(sense_pattern("custody hearing").search("the data-custody hearing"))
    False
    """
    text = sense.lower()
    for macro in _MACROS:
        text = text.replace(macro, f"\x00{list(_MACROS).index(macro)}\x00")
    text = text.replace("-", r"[\W_]{0,3}").replace(" ", r"[\W_]{1,3}")
    for k, macro in enumerate(_MACROS):
        text = text.replace(f"\x00{k}\x00", _MACROS[macro])
    return re.compile(rf"(?<![\w-])(?:{text})s?(?!\w)")


@lru_cache(maxsize=512)
def _senses(template: str) -> re.Pattern[str] | None:
    senses = SENSES.get(template)
    return re.compile("|".join(sense_pattern(s).pattern for s in senses)) if senses else None


@lru_cache(maxsize=16)
def _category_words(category: str) -> re.Pattern[str] | None:
    words = CATEGORY_VOCABULARY.get(category)
    return re.compile("|".join(sense_pattern(w).pattern for w in words)) if words else None


@lru_cache(maxsize=16384)
def template_of(phrase: str) -> str | None:
    """The item template a phrase was written from ({name} for its invented name), if any."""
    name = invented_name(phrase)
    if not name:
        return None
    template = (phrase[0].lower() + phrase[1:]).replace(name, "{name}", 1)
    return template if template in SENSES else None


# --- the note, folded and cut into sentences --------------------------------------------------------

_ABBREVIATIONS = re.compile(r"(?:^|[\s(])(?:dr|ms|mr|mrs|st|vs|approx|no|e\.g|i\.e|a\.m|p\.m|etc|jr|sr)\.$", re.I)


def fold_cased(text: str) -> str:
    """fold() without the lower case, line breaks kept: NFKC, dashes and quotes plain, invisible
    characters gone, other runs of whitespace one space."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES).translate(_INVISIBLE)
    return re.sub(r"[^\S\n]+", " ", text)


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or clause of a folded note."""
    out, start = [], 0
    for m in re.finditer(r"[.!?]+(?=\s|$)|[;\n]", text):
        if m.group(0).startswith(".") and _ABBREVIATIONS.search(text[max(0, m.start() - 8):m.end()]):
            continue
        if text[start:m.end()].strip():
            out.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


# --- dates and times ---------------------------------------------------------------------------------

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_SLASH = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])")
_DAY_MONTH = re.compile(rf"(?<![\d:.])(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}\b\.?")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?(?!\d|[:.h]\d)")
_CLOCK = re.compile(r"(?<![\d:.])(\d{1,2})[:.h](\d{2})(?!\d)(?: ?([ap])\.?m\b\.?)?")
_HOUR = re.compile(r"(?<![\d:.])(\d{1,2}) ?([ap])\.?m\b\.?")


Date = tuple[int | None, int, int]


def _dates(text: str) -> list[tuple[int, Date]]:
    """(position, (year or None, month, day)) of every date a lower-case sentence names (a d/m
    date gives both readings)."""
    out: list[tuple[int, Date]] = []
    for m in _ISO.finditer(text):
        out.append((m.start(), (int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    rest = _ISO.sub(lambda m: " " * len(m.group(0)), text)
    for m in _SLASH.finditer(rest):
        a, b = int(m.group(1)), int(m.group(2))
        out += [(m.start(), (None, b, a)), (m.start(), (None, a, b))]        # day first or month first
    for m in _DAY_MONTH.finditer(rest):
        out.append((m.start(), (None, _MONTHS.index(m.group(2)[:3]) + 1, int(m.group(1)))))
    for m in _MONTH_DAY.finditer(rest):
        out.append((m.start(), (None, _MONTHS.index(m.group(1)[:3]) + 1, int(m.group(2)))))
    return out


def _times(text: str) -> list[tuple[int, tuple[int, int]]]:
    """(position, (hour, minute)) of every clock time a lower-case sentence names (ISO dates left out)."""
    rest = _ISO.sub(lambda m: " " * len(m.group(0)), text)
    out = []
    for m in _CLOCK.finditer(rest):
        hour, minute = int(m.group(1)), int(m.group(2))
        if m.group(3):
            hour = hour % 12 + (12 if m.group(3) == "p" else 0)
        out.append((m.start(), (hour, minute)))
    for m in _HOUR.finditer(rest):
        out.append((m.start(), (int(m.group(1)) % 12 + (12 if m.group(2) == "p" else 0), 0)))
    out += [(m.start(), (12, 0)) for m in re.finditer(r"\bnoon\b", rest)]
    return out


def _moments(text: str) -> set[tuple[Date, tuple[int, int]]]:
    """The (date, time) pairs a sentence names: each time with the date nearest to it (an ISO date
    and its time included), so a list "Tue 3 March 09:45, Wed 4 March 14:05" pairs no time with
    the other day."""
    dates = _dates(text)
    iso = [(m.start(), (int(m.group(1)), int(m.group(2)), int(m.group(3)))) for m in _ISO.finditer(text)]
    out = set()
    for at, time in _times(text):
        near = min(dates, key=lambda d: abs(d[0] - at), default=None)
        if near is not None:
            out |= {(date, time) for pos, date in dates + iso if pos == near[0]}
    return out


def _on(date: Date, moment: dt.datetime) -> bool:
    return date in ((moment.year, moment.month, moment.day), (None, moment.month, moment.day))


def _moment(starts_at: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(starts_at[:16]) if starts_at and len(starts_at) >= 16 else None
    except ValueError:
        return None


# --- people --------------------------------------------------------------------------------------------

_PRONOUNS = re.compile(r"\b(she|he|her|his|him|hers|they|them|their|theirs)\b")


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
            mine = list(spans) + [m.span() for m in _loose(item.phrase).finditer(lower)]
            name = invented_name(item.phrase)
            if name:
                mine += [m.span() for m in _loose(name).finditer(lower)]
            if mine:
                out[item.item_id] = mine
    return out


def _unique(item: Item, lower: str, span: tuple[int, int]) -> bool:
    """The detail found at span is the item's own phrase or invented name (it fits no other item)."""
    name = invented_name(item.phrase)
    return any(m.span() == span for m in _loose(item.phrase).finditer(lower)) or (
        name is not None and any(m.span() == span for m in _loose(name).finditer(lower)))


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
    moments = {(m.year, m.month, m.day, m.hour, m.minute) for p in proposed if (m := _moment(p))}
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
        named = _moments(text)
        anchored = set()
        for item in items:
            m = _moment(item.starts_at)
            if m and (m.year, m.month, m.day, m.hour, m.minute) not in moments \
                    and any(time == (m.hour, m.minute) and _on(date, m) for date, time in named):
                anchored.add(item.item_id)
        here = {iid: [s for s in spans if start <= s[0] < end] for iid, spans in hits.items()}
        here = {iid: spans for iid, spans in here.items() if spans}
        # a sentence that names a date speaks of the fitting items on it, when there are any
        days = [d for _, d in _dates(text)]
        on_day = {iid for iid in here if (m := _moment(by_id[iid].starts_at)) and any(_on(d, m) for d in days)}
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
                    if _unique(item, lower, span) or fitting & cast == {item.person_id}:
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
