"""A note's text as the detectors read it (`attribution`): its language (`note_language`), its
sentences or clauses (`sentences`), and the dates, times and (date, time) moments a sentence
names (`dates_in`, `times_in`, `moments_in`)."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from .leaks import _DASHES, _INVISIBLE, _QUOTES

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


def dates_in(text: str) -> list[tuple[int, Date]]:
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


def times_in(text: str) -> list[tuple[int, tuple[int, int]]]:
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


def moments_in(text: str) -> set[tuple[Date, tuple[int, int]]]:
    """The (date, time) pairs a sentence names: each time with the date nearest to it (an ISO date
    and its time included), so a list "Tue 3 March 09:45, Wed 4 March 14:05" pairs no time with
    the other day."""
    dates = dates_in(text)
    iso = [(m.start(), (int(m.group(1)), int(m.group(2)), int(m.group(3)))) for m in _ISO.finditer(text)]
    out = set()
    for at, time in times_in(text):
        near = min(dates, key=lambda d: abs(d[0] - at), default=None)
        if near is not None:
            out |= {(date, time) for pos, date in dates + iso if pos == near[0]}
    return out


def on_date(date: Date, moment: dt.datetime) -> bool:
    return date in ((moment.year, moment.month, moment.day), (None, moment.month, moment.day))


def block_start(starts_at: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(starts_at[:16]) if starts_at and len(starts_at) >= 16 else None
    except ValueError:
        return None
