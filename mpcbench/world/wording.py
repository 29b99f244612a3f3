"""The wording of a build (issue 32): every family of text the generator writes, with its public
pool (the dev, train and test splits) and its ood pool (the private `ood` split) side by side in
`FAMILIES`, and the one way a build draws from them, `Wording`.

    words = wording_for(config)            # the config's side: "public" or "ood"
    title = words.pick(rng, "event_titles")
    key, name = words.keyed(rng, "first_names")   # key: the public text at the same draw

A draw consumes the generator exactly as the public draw does (`rng.randrange(len(public))`),
whichever side writes the text, so the facts drawn after it do not depend on the wording: one
world rendered with either pool has the same facts and the same answers (tests/test_ood.py). The
ood side then writes entry `i + P * m` of its pool (P the public pool's size, i the public
draw, m taken from the generator's state without consuming it), so every ood entry is used and
the entry written tells the public one: distinct public keys give distinct ood texts (what keeps
names and chatter unique). Public builds never read an ood pool.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import ood_privacy, ood_prose, ood_words, privacy_words, prose, prose_level4

@dataclass(frozen=True)
class Pool:
    public: tuple[str, ...]
    ood: tuple[str, ...]


def _pools() -> dict[str, Pool]:
    found = {
        "first_names": Pool(prose.FIRST_NAMES, ood_words.FIRST_NAMES),
        "shared_first_names": Pool(prose.SHARED_FIRST_NAMES, ood_words.SHARED_FIRST_NAMES),
        "last_names": Pool(prose.LAST_NAMES, ood_words.LAST_NAMES),
        "teams": Pool(prose.TEAMS, ood_words.TEAMS),
        "titles": Pool(prose.TITLES, ood_words.TITLES),
        "event_titles": Pool(prose.EVENT_TITLES, ood_words.EVENT_TITLES),
        "series_titles": Pool(prose.SERIES_TITLES, ood_words.SERIES_TITLES),
        "project_words": Pool(prose.PROJECT_WORDS, ood_words.PROJECT_WORDS),
        "project_kinds": Pool(prose.PROJECT_KINDS, ood_words.PROJECT_KINDS),
        "channel_suffixes": Pool(prose.CHANNEL_SUFFIXES, ood_words.CHANNEL_SUFFIXES),
        "topics": Pool(prose.TOPICS, ood_words.TOPICS),
        "chatter": Pool(prose.CHATTER, ood_words.CHATTER),
        "policy_nouns": Pool(prose.POLICY_NOUNS, ood_words.POLICY_NOUNS),
        "handbook_filler": Pool(prose.HANDBOOK_FILLER, ood_words.HANDBOOK_FILLER),
        "handbook_titles": Pool(prose.HANDBOOK_TITLES, ood_words.HANDBOOK_TITLES),
        "handbook_section": Pool((prose.HANDBOOK_SECTION,), (ood_words.HANDBOOK_SECTION,)),
        "handbook_closing": Pool((prose.HANDBOOK_CLOSING,), (ood_words.HANDBOOK_CLOSING,)),
        "prompt_l1": Pool(prose.PROMPT_L1, ood_words.PROMPT_L1),
        "prompt_l2": Pool(prose.PROMPT_L2, ood_words.PROMPT_L2),
        "prompt_l3": Pool(prose.PROMPT_L3, ood_words.PROMPT_L3),
        "prompt_l4": Pool(prose.PROMPT_L4, ood_words.PROMPT_L4),
        "ban_reasons": Pool(prose.BAN_REASONS, ood_prose.BAN_REASONS),
        "ooo_reasons": Pool(prose.OOO_REASONS, ood_prose.OOO_REASONS),
        "revision": Pool(prose.REVISION_TEXT, ood_prose.REVISION_TEXT),
        "owner": Pool(prose.OWNER_TEXT + prose_level4.OWNER_TEXT_MORE, ood_prose.OWNER_TEXT),
        "blackout_labels": Pool(prose.BLACKOUT_LABELS, ood_prose.BLACKOUT_LABELS),
        "private_title_prefixes": Pool(privacy_words.TITLE_PREFIXES, ood_privacy.TITLE_PREFIXES),
        "private_messages": Pool(privacy_words.MESSAGE_TEXT, ood_privacy.MESSAGE_TEXT),
        # privacy_words.phrase reads the detail templates and name syllables by side (privacy_words.POOLS)
        "sensitive_templates": Pool(tuple(text for _, text in privacy_words.TEMPLATES),
                                    tuple(text for _, text in ood_privacy.TEMPLATES)),
        **{f"name_syllables:{part}": Pool(public, ood) for part, public, ood in (
            ("onsets", privacy_words.ONSETS, ood_privacy.ONSETS), ("inner", privacy_words.INNER, ood_privacy.INNER),
            ("middles", privacy_words.MIDDLES, ood_privacy.MIDDLES),
            ("endings", privacy_words.ENDINGS, ood_privacy.ENDINGS))},
    }
    # The facts said in threads and handbooks: `<kind>` at levels 2-3 (with a tag), `<kind>/l4`
    # at level 4 (prose only, at least ten phrasings).
    Sides = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]   # public, its l4 extras, ood, its
    facts: dict[str, Sides] = {
        "ban": (prose.BAN_TEXT, prose_level4.BAN_TEXT_MORE, ood_prose.BAN_TEXT, ood_prose.BAN_TEXT_MORE),
        "ooo": (prose.OOO_TEXT, prose_level4.OOO_TEXT_MORE, ood_prose.OOO_TEXT, ood_prose.OOO_TEXT_MORE),
        "deadline": (prose.DEADLINE_TEXT, prose_level4.DEADLINE_TEXT_MORE, ood_prose.DEADLINE_TEXT,
                     ood_prose.DEADLINE_TEXT_MORE),
    }
    facts.update({kind: (prose.REQUIREMENT_TEXT[kind], prose_level4.REQUIREMENT_TEXT_MORE[kind],
                         ood_prose.REQUIREMENT_TEXT[kind], ood_prose.REQUIREMENT_TEXT_MORE[kind])
                  for kind in prose.REQUIREMENT_TEXT})
    facts.update({f"rule:{kind}": (prose.RULE_PROSE[kind], prose.RULE_PROSE_MORE[kind] + prose_level4.RULE_PROSE_MORE[kind],
                                   ood_prose.RULE_PROSE[kind], ood_prose.RULE_PROSE_MORE[kind])
                  for kind in prose.RULE_PROSE})
    # what a rule counts, said after its sentence (prose.RULE_NOTES)
    facts.update({f"rule_note:{kind}": (prose.RULE_NOTES[kind], prose_level4.RULE_NOTES_MORE[kind],
                                        ood_prose.RULE_NOTES[kind], ood_prose.RULE_NOTES_MORE[kind])
                  for kind in prose.RULE_NOTES})
    for name, (public, public_more, ood, ood_more) in facts.items():
        found[name] = Pool(public, ood)
        found[f"{name}/l4"] = Pool(public + public_more, ood + ood_more)
    found.update({f"room_words:{key}": Pool((text,), (ood_prose.ROOM_WORDS[key],))
                  for key, text in prose.ROOM_WORDS.items()})
    found.update({f"tie_break:{key}": Pool((text,), (ood_prose.TIE_BREAK_WORDS[key],))
                  for key, text in prose.TIE_BREAK_WORDS.items()})
    return found


FAMILIES = _pools()


def _spread(word: int) -> int:
    return (word * 0x9E3779B1 >> 13) & 0xFFFFFFFF


def _state_word(rng: random.Random) -> int:
    """A word of the generator's state, read without drawing (so the stream does not move)."""
    state = rng.getstate()[1]
    return state[state[-1] % (len(state) - 1)]


@dataclass(frozen=True)
class Wording:
    side: str

    def _entry(self, family: str, index: int, word: int) -> str:
        pool = FAMILIES[family]
        if self.side == "public":
            return pool.public[index]
        size = len(pool.public)
        choices = (len(pool.ood) - index + size - 1) // size
        return pool.ood[index + size * (_spread(word) % choices)]

    def keyed(self, rng: random.Random, family: str) -> tuple[str, str]:
        """(the public entry the draw picks, the entry this side writes): one draw."""
        word = _state_word(rng) if self.side == "ood" else 0
        index = rng.randrange(len(FAMILIES[family].public))
        return FAMILIES[family].public[index], self._entry(family, index, word)

    def pick(self, rng: random.Random, family: str) -> str:
        return self.keyed(rng, family)[1]

    def sample(self, rng: random.Random, family: str, count: int) -> list[str]:
        """`count` distinct entries, drawn as rng.sample(public pool, count) draws."""
        word = _state_word(rng) if self.side == "ood" else 0
        indices = rng.sample(range(len(FAMILIES[family].public)), count)
        return [self._entry(family, i, word + n) for n, i in enumerate(indices)]

    def project_name(self, rng: random.Random) -> str:
        return f"{self.pick(rng, 'project_words')} {self.pick(rng, 'project_kinds')}"

    def chatter(self, rng: random.Random, names: list[str]) -> tuple[str, str]:
        """(its public twin, an ordinary message): `{name}` one of `names`, `{topic}` a topic."""
        key, template = self.keyed(rng, "chatter")
        name = names[rng.randrange(len(names))]
        topic_key, topic = self.keyed(rng, "topics")
        return key.format(name=name, topic=topic_key), template.format(name=name, topic=topic)

    def fixed(self, family: str, index: int = 0) -> str:
        """Entry `index` of a family said without a draw (a heading, a label, a joiner)."""
        return FAMILIES[family].public[index] if self.side == "public" else FAMILIES[family].ood[index]


PUBLIC = Wording("public")
OOD = Wording("ood")


def wording_for(config) -> Wording:
    """The wording a world config is rendered in (`WorldConfig.wording`)."""
    return OOD if config.wording == "ood" else PUBLIC
