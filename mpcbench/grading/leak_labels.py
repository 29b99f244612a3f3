"""The hand-labelled notes (tests/data/privacy_notes.jsonl, its rules in privacy_notes.md) and
every leak detector's precision and recall on them (docs/privacy.md, "Detectors, measured"):

    notes = load_labels(Path("tests/data/privacy_notes.jsonl"))
    score([n for n in notes if n.split == "test"], DETECTORS["components"])
    # Confusion(true_pos=..., false_pos=..., false_neg=..., true_neg=...)

A detector is asked whether a note discloses the one item it concerns; a note about the
requester's own item never does (grading_disclosures leaves those out).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from ..errors import UserError
from .attribution import Attribution, attribute
from .leaks import Item, categories, components, verbatim

SPLITS = ("dev", "test")
# the kinds of issue 31 (n001-n340), measured one item at a time; issue 38's styles are read in
# their world (issue 38)
ORIGINAL_KINDS = ("verbatim", "case_space", "unicode", "punctuation", "owner_detail", "time_detail", "name_only",
                  "paraphrase", "category_only", "ordinary", "clean", "own")


@dataclass(frozen=True)
class Labelled:
    note_id: str
    split: str
    kind: str
    note: str
    leaks: bool
    requester: str | None
    item: Item
    # issue 38's styles: the world the note is read in (None: the owner alone shown, nothing proposed)
    world_id: str | None = None
    shown: tuple[str, ...] | None = None
    proposed: tuple[str, ...] = ()
    unattributed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Confusion:
    true_pos: int
    false_pos: int
    false_neg: int
    true_neg: int

    @property
    def precision(self) -> float | None:
        flagged = self.true_pos + self.false_pos
        return self.true_pos / flagged if flagged else None

    @property
    def recall(self) -> float | None:
        leaking = self.true_pos + self.false_neg
        return self.true_pos / leaking if leaking else None


def _labelled(line: str) -> Labelled:
    row = json.loads(line)
    item = row["item"]
    if row["split"] not in SPLITS or not isinstance(row["leaks"], bool) or not row["note"]:
        raise ValueError("split, leaks and note must be dev|test, a boolean and a text")
    return Labelled(row["note_id"], row["split"], row["kind"], row["note"], row["leaks"], row.get("requester"),
                    Item(item["item_id"], item["person_id"], item["owner"], item["category"], item["phrase"],
                         item.get("starts_at")),
                    row.get("world_id"), tuple(row["shown"]) if row.get("shown") else None,
                    tuple(row.get("proposed") or ()), frozenset(row.get("unattributed") or ()))


def load_labels(path: Path) -> list[Labelled]:
    """The labelled notes of a JSON-lines file; a clear error for a missing or malformed one."""
    if not path.is_file():
        raise UserError(f"{path}: no such labels file (the repository's is tests/data/privacy_notes.jsonl)")
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(_labelled(line))
            except (ValueError, KeyError, TypeError) as e:
                raise UserError(f"{path}:{number}: not a labelled note ({e})") from None
    return out


def is_own(note: Labelled) -> bool:
    return note.requester is not None and note.requester == note.item.person_id


def attributed(note: Labelled) -> bool:
    """The attribution detector (`disclosed`) on a labelled note: its one item, in a world of its
    owner alone (the labels name no namesake), with the owner shown."""
    found = attribute(note.note, [note.item], {note.item.person_id: note.item.owner}, {note.item.person_id},
                      requester=note.requester)
    return note.item.item_id in found.attributed


DETECTORS: dict[str, Callable[[Labelled], bool]] = {
    "verbatim": lambda n: verbatim(n.note, n.item),
    "components": lambda n: components(n.note, n.item),
    "attribution": attributed,
    "category": lambda n: n.item.category in categories(n.note),
}


def confusion(said: list[tuple[Labelled, bool]]) -> Confusion:
    """Verdicts on labelled notes against their labels (the requester's own items are never a
    disclosure, whatever the verdict)."""
    pairs = [(n.leaks, v and not is_own(n)) for n, v in said]
    return Confusion(sum(label and v for label, v in pairs), sum(not label and v for label, v in pairs),
                     sum(label and not v for label, v in pairs), sum(not label and not v for label, v in pairs))


def score(notes: list[Labelled], detector: Callable[[Labelled], bool]) -> Confusion:
    return confusion([(n, detector(n)) for n in notes])


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def detector_table(notes: list[Labelled], split: str = "test") -> list[str]:
    """docs/privacy.md's table: each deterministic detector on one half of the labels (issue 31's kinds)."""
    half = [n for n in notes if n.split == split and n.kind in ORIGINAL_KINDS]
    lines = ["| detector | precision | recall | true pos. | false pos. | false neg. | true neg. |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, detector in DETECTORS.items():
        c = score(half, detector)
        lines.append(f"| `{name}` | {percent(c.precision)} | {percent(c.recall)} | {c.true_pos} | {c.false_pos} | "
                     f"{c.false_neg} | {c.true_neg} |")
    return lines


# --- the blind set (issue 38): notes written and labelled apart from the code -----------------------

@dataclass(frozen=True)
class BlindNote:
    note_id: str
    instance_id: str
    world_id: str
    language: str
    style: str
    note: str
    disclosed: frozenset[str]       # item_ids attributed to their owner, by the labeller
    unattributed: frozenset[str]


@dataclass(frozen=True)
class Context:
    """What the detector needs of a build for the blind notes: per world its people and items, per
    instance its participants (the people shown) and the starts its answer proposes (the gold)."""
    people: dict[str, dict[str, str]]
    items: dict[str, list[Item]]
    participants: dict[str, list[str]]
    proposed: dict[str, list[str]]


def load_blind(path: Path) -> list[BlindNote]:
    if not path.is_file():
        raise UserError(f"{path}: no such blind notes file")
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out.append(BlindNote(r["note_id"], r["instance_id"], r["world_id"], r["language"], r["style"], r["note"],
                                 frozenset(r["disclosed"]), frozenset(r["unattributed"])))
    return out


def load_context(path: Path) -> Context:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Context(raw["people"], {w: [Item(**i) for i in items] for w, items in raw["items"].items()},
                   raw["participants"], raw["proposed"])


def blind_verdicts(notes: list[BlindNote], context: Context) -> Iterator[tuple[BlindNote, Attribution]]:
    """(note, attribute()'s answer) for every blind note: the instance's participants as the people
    shown, its gold starts as the proposed ones."""
    for n in notes:
        yield n, attribute(n.note, context.items[n.world_id], context.people[n.world_id],
                           context.participants[n.instance_id], context.proposed[n.instance_id])


def blind_table(notes: list[BlindNote], context: Context) -> list[str]:
    """docs/privacy.md's blind-set table: per style, attributed disclosures per (note, item) pair
    (precision, recall, counts), unattributed ones, and the notes read as not English."""
    rows: dict[str, list[int]] = {}
    for n, found in blind_verdicts(notes, context):
        r = rows.setdefault(n.style, [0] * 9)
        r[0] += 1
        if not found.readable:
            r[8] += 1
            r[7] += len(n.disclosed)        # labelled, not read
            continue
        said = set(found.attributed)
        r[1] += len(said & n.disclosed)
        r[2] += len(said - n.disclosed)
        r[3] += len(n.disclosed - said)
        r[4] += len(found.unattributed & n.unattributed)
        r[5] += len(found.unattributed - n.unattributed)
        r[6] += len(n.unattributed - found.unattributed)
    total = [sum(r[k] for r in rows.values()) for k in range(9)]
    english = [sum(r[k] for s, r in rows.items() if s != "other_language") for k in range(9)]
    lines = ["| style | notes | precision | recall | true pos. | false pos. | false neg. | unattributed: "
             "right / wrong / missed | not read (labelled leaks) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]

    def line(name: str, r: list[int]) -> str:
        c = Confusion(r[1], r[2], r[3], 0)
        return (f"| {name} | {r[0]} | {percent(c.precision)} | {percent(c.recall)} | {r[1]} | {r[2]} | {r[3]} | "
                f"{r[4]} / {r[5]} / {r[6]} | {r[8]} ({r[7]}) |")
    lines += [line(style, rows[style]) for style in sorted(rows)]
    lines += [line("all but other_language", english), line("all", total)]
    return lines


# --- the labelled notes read in their world (issue 38, item 6) --------------------------------------

def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The 95% Wilson score interval of k successes in n."""
    if not n:
        return None
    p = k / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share(k: int, n: int) -> str:
    """'k/n, p% [lo, hi]' with the Wilson interval; '—' for nothing."""
    ci = wilson(k, n)
    return "—" if ci is None else f"{k}/{n}, {k / n:.0%} [{ci[0]:.0%}, {ci[1]:.0%}]"


def load_world(path: Path) -> dict[str, tuple[dict[str, str], list[Item]]]:
    """privacy_notes_context.json: per world (people, items)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {w: (ctx["people"], [Item(i["item_id"], i["person_id"], i["owner"], i["category"], i["phrase"],
                                     i["starts_at"]) for i in ctx["items"]]) for w, ctx in raw.items()}


def in_world(note: Labelled, worlds: dict[str, tuple[dict[str, str], list[Item]]]) -> Attribution:
    """attribute() over every item of the note's world: its shown people (the owner alone for
    issue 31's notes), its proposed starts, its requester."""
    world = note.world_id or next(w for w, (_, items) in worlds.items()
                                  if any(i.item_id == note.item.item_id for i in items))
    people, items = worlds[world]
    return attribute(note.note, items, people, note.shown or (note.item.person_id,), note.proposed,
                     requester=note.requester)


def world_table(notes: list[Labelled], worlds: dict[str, tuple[dict[str, str], list[Item]]],
                split: str = "test") -> list[str]:
    """docs/privacy.md's table of one half read in the world: per style the own item's recall,
    own items flagged against their label, the (note, item) pairs flagged and how many are right
    (the note's own item, labelled a leak), unattributed items right / wrong / missed, notes read as
    not English; then over English notes the own-item precision and recall and the pairs'
    precision, each k/n with its 95% Wilson interval."""
    rows: dict[str, list[int]] = {}
    for n in (n for n in notes if n.split == split):
        found = in_world(n, worlds)
        r = rows.setdefault(n.kind, [0] * 11)
        r[0] += 1
        if not found.readable:
            r[10] += 1
            continue
        said = set(found.attributed)
        own = n.item.item_id in said and not is_own(n)
        r[1] += n.leaks and own                 # own item: true positive
        r[2] += n.leaks                         # own item labelled a leak
        r[3] += own and not n.leaks             # own item flagged, labelled clean
        r[4] += own                             # own item flagged
        r[5] += len(said)                       # pairs flagged
        r[6] += int(own and n.leaks)            # of them right
        r[7] += len(found.unattributed & n.unattributed)
        r[8] += len(found.unattributed - n.unattributed)
        r[9] += len(n.unattributed - found.unattributed)
    lines = ["| style | notes | own item found (recall) | own item flagged wrongly | flagged (note, item) pairs right "
             "| unattributed: right / wrong / missed | read as not English |",
             "| --- | --- | --- | --- | --- | --- | --- |"]

    def line(name: str, r: list[int]) -> str:
        return (f"| {name} | {r[0]} | {share(r[1], r[2])} | {r[3]} of {r[4]} | {share(r[6], r[5])} | "
                f"{r[7]} / {r[8]} / {r[9]} | {r[10]} |")
    lines += [line(kind, rows[kind]) for kind in sorted(rows)]
    english = [sum(r[k] for kind, r in rows.items() if kind != "other_language") for k in range(11)]
    lines.append(line("all but other_language", english))
    lines += ["", f"Over the English notes of the {split} half: own-item precision {share(english[1], english[4])}, "
              f"recall {share(english[1], english[2])}, flagged (note, item) pairs right {share(english[6], english[5])}, "
              f"innocent notes with anything flagged: {rows.get('innocent', [0] * 11)[5]} pairs."]
    return lines
