"""Sentence skeletons (issue 32): the wording of a build with its facts masked, to measure how much
wording two builds share apart from their instances.

    skeleton("Block Tue 2026-03-03 09:00–10:00 for Ana Lima.")   # -> 'Block # # for # #'
    found = build_skeletons(con)          # {family: {skeleton, ...}}
    share = shared_share(found_a, found_b)  # the share of a's skeletons that b holds too

A skeleton is a sentence with every token holding a digit, and every capitalised word after the
first, replaced by `#`. Tags (`[[...]]`) are facts in the one machine syntax that every split
shares by design, so they are left out before splitting. A build's text families are its
messages, handbooks, prompts and titles (FAMILY_QUERIES).
"""

from __future__ import annotations

import re
import string

import duckdb

_TAG = re.compile(r"\[\[[a-z_]+(?:[^\[\]]|\[[^\]]*\])*\]\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
MASK = "#"

FAMILY_QUERIES = {
    "messages": "select text from messages",
    "handbooks": "select text from policy_docs",
    "prompts": "select prompt from instances",
    "event titles": "select title from events union all select title from event_series",
    "thread titles": "select title from threads",
    "room names": "select name from rooms",
    "policy names": "select name from policies",
}


def _masked(token: str, first: bool) -> bool:
    return any(c.isdigit() for c in token) or (not first and token[:1].isupper())


def skeleton(sentence: str) -> str:
    tokens = sentence.split()
    return " ".join(MASK if _masked(t, i == 0) else t for i, t in enumerate(tokens))


def sentences(text: str) -> list[str]:
    """The sentences of a text, its tags left out."""
    return [s.strip() for s in _SENTENCE_END.split(_TAG.sub("", text)) if s and s.strip()]


def text_skeletons(texts) -> set[str]:
    return {skeleton(s) for text in texts if text for s in sentences(text)}


def build_skeletons(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """{family: the distinct skeletons of its text} of one build."""
    found = {}
    for family, query in FAMILY_QUERIES.items():
        try:
            texts = [t for (t,) in con.execute(query).fetchall()]
        except duckdb.CatalogException:   # a build without the table (no level that has it)
            texts = []
        found[family] = text_skeletons(texts)
    return found


def shared_share(mine: dict[str, set[str]], theirs: dict[str, set[str]]) -> dict[str, tuple[int, int]]:
    """{family: (my skeletons that `theirs` holds, my skeletons)}, and "all" over every family."""
    out = {family: (len(skels & theirs.get(family, set())), len(skels)) for family, skels in mine.items()}
    out["all"] = (sum(n for n, _ in out.values()), sum(total for _, total in out.values()))
    return out


def template_pattern(template: str) -> re.Pattern | None:
    """A pool entry as a pattern over skeletons: its literal words masked as a skeleton masks
    them, each {field} any run of tokens. None for an entry that is one field or a few masked
    words (it says nothing of wording)."""
    parts = []
    tokens = string.Formatter().parse(template.replace(" {tag}", "").replace("{tag}", ""))
    text = "".join(literal + ("\x00" if field is not None else "") for literal, field, _, _ in tokens)
    words = text.split()
    literal_words = 0
    for i, word in enumerate(words):
        if "\x00" in word:   # a field: any run of tokens (a fact is masked, a reason is not)
            parts.append(r"\S+(?: \S+)*?")
        elif _masked(word, i == 0):
            parts.append(re.escape(MASK))
        else:
            parts.append(re.escape(word))
            literal_words += 1
    if literal_words < 2:
        return None
    return re.compile(" ".join(parts))


def pool_patterns(pools) -> list[re.Pattern]:
    """The patterns of every sentence of every entry of the given pools."""
    found = []
    for pool in pools:
        for entry in pool:
            for sentence in sentences(entry):
                pattern = template_pattern(sentence)
                if pattern is not None:
                    found.append(pattern)
    return found


def matching_pools(found: dict[str, set[str]], patterns: list[re.Pattern]) -> tuple[int, int]:
    """(skeletons of a build that some pool pattern matches in full, its skeletons)."""
    every = set().union(*found.values())
    return sum(any(p.fullmatch(s) for p in patterns) for s in every), len(every)
