"""The phrasing memoriser (issue 32): an offline agent that reads level 4's prose with extractors
learned from train builds, to measure what a score owes to knowing the public phrasings.

    memory = fit_from(["build/train.duckdb"])     # learned from the builds' text and label tables
    found = scripted_plan(env, MemorisedFacts(env, memory))
    mpcbench eval --agent memoriser --train-db build/train.duckdb --db /secret/ood.duckdb

`fit` aligns every message that carries a tag, and every handbook paragraph of a policy, with the
facts the build's label tables (message_tags, policy_rules) hold for it, and learns, per key (the
text's skeleton: every token holding a fact atom masked, each run of them one mark naming the
atoms' kinds, `analyse`), which atoms (dates, times, numbers, ids, capitalised words) give each
fact: a recipe is kept only if every training text of that key agrees with it. Nothing is read
from the generator's templates. At level 4 the agent is the scripted solver with
`MemorisedFacts` in place of the hidden facts: a text whose key it has learned yields its facts,
any other none. Levels 1-3 state their facts as tags and in structured tools, which it reads as
the scripted solver does.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field

import duckdb

from ..dataset.skeletons import sentences
from ..episode.environment import Environment
from ..warehouse import db
from .scripted import Hidden, ToolFailed, plan as scripted_plan, submission as scripted_submission

ATOM = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|[A-Z]+-[A-Z0-9]+|\d+|[A-Z][\w-]*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
Slots = list[list[str]]
# A recipe reads a fact from the slots (the atoms of each run of masked tokens): ("int"|"str", s, i),
# ("pair", s, i) two atoms as a name, ("dt", s, i, t, j) a date and a time, ("day", s, i, days) a
# day's midnight, ("all"|"pairs", s, e, k) the atoms of slots s..e from the k-th on (as names,
# paired), ("weekdays", s, e, span) the weekday names among slots s..e (span: every day from the
# first to the last), ("const", json).
Recipe = tuple
WEEK = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _weekdays(slots: Slots, s: int, e: int, span: bool) -> list[str]:
    """The weekdays named in slots s..e, as Mon .. Sun; `span`: every day from the first to the last."""
    index = [WEEK.index(a) for r in slots[s:e + 1] for a in r if a in WEEK]
    if span and index:
        index = list(range(index[0], index[-1] + 1))
    return [WEEK[i][:3] for i in index]


def _kind(atom: str) -> str:
    return "D" if _DATE.fullmatch(atom) else "T" if ":" in atom else "N" if atom.isdigit() else "W"


def analyse(text: str) -> tuple[str, Slots]:
    """A text's key and slots: its tokens (tags left out) with every token that holds an atom
    masked and each run of masked tokens one mark, and the atoms of each run. The mark gives
    the kinds of the run's atoms in order, repeats as one (`<WDT>`: words, a date, times), so a
    list of any length is one mark and a day is told from a span of it."""
    words: list[str | None] = []
    slots: Slots = []
    for token in " ".join(sentences(text)).split():
        found = ATOM.findall(token)
        if not found:
            words.append(token)
            continue
        if not (slots and words[-1] is None):
            words.append(None)
            slots.append([])
        slots[-1].extend(found)
    marks = iter(slots)
    key = []
    for word in words:
        if word is not None:
            key.append(word)
            continue
        kinds = [_kind(a) for a in next(marks)]
        key.append("<" + "".join(k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k) + ">")
    return " ".join(key), slots


def _places(slots: Slots):
    return [(s, i, atom) for s, run in enumerate(slots) for i, atom in enumerate(run)]


def _paired(run: list[str]) -> list[str] | None:
    """Atoms two by two as names ("Ana", "Lima", ... -> "Ana Lima", ...); None for an odd count."""
    return [f"{a} {b}" for a, b in zip(run[::2], run[1::2])] if len(run) % 2 == 0 else None


def _recipes(value, slots: Slots) -> set[Recipe]:
    """Every way the slots give `value`, the constant included."""
    out: set[Recipe] = {("const", json.dumps(value))}
    places = _places(slots)
    if isinstance(value, list):
        for s in range(len(slots)):
            for e in range(s, len(slots)):
                for k in (0, 1):   # a list may follow a capitalised first word in its run
                    run = [a for r in slots[s:e + 1] for a in r][k:]
                    out |= {("all", s, e, k)} if run == value else set()
                    out |= {("pairs", s, e, k)} if _paired(run) == value else set()
                out |= {("weekdays", s, e, span) for span in (False, True) if _weekdays(slots, s, e, span) == value}
        return out
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return out
    text = str(value)
    out |= {("int" if isinstance(value, int) else "str", s, i) for s, i, a in places if a == text}
    if isinstance(value, int):
        return out
    out |= {("pair", s, i) for s, i, a in places if i + 1 < len(slots[s]) and f"{a} {slots[s][i + 1]}" == value}
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", value):
        day, clock = value.split("T")
        dates = [(s, i, a) for s, i, a in places if _DATE.fullmatch(a)]
        out |= {("dt", s, i, t, j) for s, i, a in dates if a == day for t, j, b in places if b == clock}
        if clock == "00:00":
            for s, i, a in dates:
                days = (dt.date.fromisoformat(day) - dt.date.fromisoformat(a)).days
                out |= {("day", s, i, days)} if 0 <= days <= 1 else set()
    return out


def _apply(recipe: Recipe, slots: Slots):
    kind, *args = recipe
    if kind == "const":
        return json.loads(args[0])
    if kind == "weekdays":
        return _weekdays(slots, *args)
    if kind in ("all", "pairs"):
        run = [a for r in slots[args[0]:args[1] + 1] for a in r][args[2]:]
        return run if kind == "all" else _paired(run)
    atom = slots[args[0]][args[1]]
    if kind == "int":
        return int(atom)
    if kind == "str":
        return atom
    if kind == "pair":
        return f"{atom} {slots[args[0]][args[1] + 1]}"
    if kind == "dt":
        return f"{atom}T{slots[args[2]][args[3]]}"
    return f"{dt.date.fromisoformat(atom) + dt.timedelta(days=args[2])}T00:00"


def _candidates(params: dict, slots: Slots) -> dict[str, set[Recipe]]:
    return {name: _recipes(value, slots) for name, value in params.items()}


def _derived(options: set[Recipe]) -> bool:
    """Whether a param's options hold a recipe read from the text (not a constant)."""
    return any(r[0] != "const" for r in options)


@dataclass
class Extractor:
    """What one key says: the fact kind and each param's recipes that every text of it agrees with."""
    kind: str
    params: dict[str, set[Recipe]]
    seen: int = 0

    def agree(self, kind: str, slots: Slots, params: dict) -> bool:
        if kind != self.kind:
            return False
        for name, options in _candidates(params, slots).items():
            self.params[name] &= options
        self.seen += 1
        return all(self.params.values())

    def guessed(self) -> int:
        """How many params it can only give as a constant (a value the text does not hold)."""
        return sum(not _derived(options) for options in self.params.values())

    def read(self, slots: Slots) -> tuple[str, dict] | None:
        try:
            return self.kind, {name: _apply(min(options, key=lambda r: (r[0] == "const", repr(r))), slots)
                               for name, options in self.params.items()}
        except (IndexError, ValueError):
            return None


Table = dict[str, dict[tuple[str, ...], Extractor]]


@dataclass
class Memory:
    """Key -> extractors (one per set of param names: a level-2 absence names a person id, a
    level-3 one a name), for thread messages and for handbook paragraphs."""
    messages: Table = field(default_factory=dict)
    rules: Table = field(default_factory=dict)
    dropped: set[tuple[str, tuple[str, ...]]] = field(default_factory=set)

    def learn(self, table: Table, text: str, kind: str, params: dict) -> None:
        key, slots = analyse(text)
        names = tuple(sorted(params))
        if (key, names) in self.dropped:
            return
        extractors = table.setdefault(key, {})
        if names not in extractors:
            extractors[names] = Extractor(kind, _candidates(params, slots))
        if not extractors[names].agree(kind, slots, params):
            del extractors[names]
            self.dropped.add((key, names))

    def read(self, table: Table, text: str) -> tuple[str, dict] | None:
        """The fact a text states, by the extractor of its key that guesses least (then the most
        seen); None for a key never learned."""
        key, slots = analyse(text)
        extractors = sorted(table.get(key, {}).values(), key=lambda e: (e.guessed(), -e.seen))
        return extractors[0].read(slots) if extractors else None


def _policy_sections(text: str) -> dict[str, list[str]]:
    """{policy id: the paragraphs of its section} of a handbook."""
    found = {}
    for section in text.split("\n## ")[1:]:
        head, _, body = section.partition("\n")
        if m := re.match(r"Policy (\S+):", head):
            found[m.group(1)] = [p.strip() for p in body.split("\n\n") if p.strip()]
    return found


def fit(con: duckdb.DuckDBPyConnection, memory: Memory | None = None) -> Memory:
    """Learn the extractors from a build's messages and handbooks aligned with its label tables
    (into `memory`, to learn from several builds)."""
    memory = memory or Memory()
    tagged = con.execute("""
        select m.text, any_value(t.tag_type), any_value(t.params) from messages m
        join message_tags t using (world_id, message_id) group by m.world_id, m.message_id, m.text
        having count(*) = 1 order by m.world_id, m.message_id""").fetchall()
    for text, kind, params in tagged:
        memory.learn(memory.messages, text, kind, json.loads(params))
    rules: dict[tuple[str, str], list[tuple[str, dict]]] = {}
    for world_id, policy_id, kind, params in con.execute(
            "select world_id, policy_id, rule_type, params from policy_rules order by all").fetchall():
        rules.setdefault((world_id, policy_id), []).append((kind, json.loads(params)))
    for world_id, text in con.execute("select world_id, text from policy_docs order by all").fetchall():
        for policy_id, paragraphs in _policy_sections(text).items():
            for paragraph in paragraphs:
                slots = analyse(paragraph)[1]
                fits = [(k, p) for k, p in rules.get((world_id, policy_id), [])
                        if all(_derived(o) for o in _candidates(p, slots).values())]
                if len(fits) == 1:
                    memory.learn(memory.rules, paragraph, *fits[0])
    return memory


def fit_from(paths) -> Memory:
    """`fit` on the builds at `paths` (DuckDB files or `build --out` directories), in order."""
    memory = Memory()
    for path in paths:
        con = db.open_existing(path)
        try:
            fit(con, memory)
        finally:
            con.close()
    return memory


# --- reading the text the tools showed (also tests/prose_agent.py's) --------------------------

_HEAD = re.compile(r"^\[\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}\] .+ \(([^()\s]+)\)$")


def thread_texts(trace) -> dict[str, str]:
    """message_id -> text of every message the trace has read (read_thread pages)."""
    texts: dict[str, str] = {}
    for call in trace:
        if call.tool != "read_thread" or call.error:
            continue
        current = None
        for line in call.result.splitlines():
            if m := _HEAD.match(line):
                current = m.group(1)
                texts[current] = ""
            elif line.startswith("  ") and current:
                texts[current] += line[2:]
    return texts


def handbook_sections(pages: list[str]) -> dict[str, list[str]]:
    """{policy id: the paragraphs of its section} of read_policy_doc pages, in order."""
    texts = []
    for text in pages:
        lines = text.splitlines()[1:]   # the page header, then the text, then a trailer in brackets
        texts.append("\n".join(line for line in lines if not (line.startswith("[") and line.endswith("]"))))
    return _policy_sections("\n" + "\n".join(texts))


def policy_paragraphs(env, policy_id: str) -> list[str]:
    """The paragraphs of the policy's section of the handbooks, read through the tools."""
    pages = []
    for doc in json.loads(env.call("search_policy_docs", {"query": policy_id}))["documents"]:
        page = 1
        while not (text := env.call("read_policy_doc", {"doc_id": doc["doc_id"], "page": page})).startswith("error:"):
            pages.append(text)
            page += 1
    return handbook_sections(pages).get(policy_id, [])


class MemorisedFacts:
    """Level 4's facts read from the text the episode has shown, by the memorised extractors."""

    def __init__(self, env: Environment, memory: Memory):
        self.env, self.memory = env, memory

    def message_tags(self, message_ids: list[str]) -> dict[str, list[tuple[str, dict]]]:
        texts = thread_texts(self.env.trace)
        found = {}
        for message_id in message_ids:
            read = self.memory.read(self.memory.messages, texts.get(message_id, ""))
            if read:
                found[message_id] = [read]
        return found

    def policy_rules(self, policy_id: str) -> dict[str, dict]:
        rules = {}
        for paragraph in policy_paragraphs(self.env, policy_id):
            read = self.memory.read(self.memory.rules, paragraph)
            if read:
                rules[read[0]] = read[1]
        return rules


class MemoriserAgent:
    """The scripted solver reading level 4's prose with a Memory (`fit`) instead of the hidden facts."""

    name = "memoriser"

    def __init__(self, memory: Memory):
        self.memory = memory

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        if feedback is None:
            try:
                self.found = scripted_plan(env, MemorisedFacts(env, self.memory))
            except (ValueError, KeyError, TypeError, ToolFailed):
                self.found = []   # it could not read what it needed: it answers nothing
        return scripted_submission(env.level, self.found)
