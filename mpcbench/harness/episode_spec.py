"""What an episode takes, declared once: `EpisodeSpec`, each field with its default, its help and
its check. Every surface that plays episodes takes its episode options from here — `mpcbench
eval`, `mpcbench mcp` and `mpcbench serve-env` (their command-line options are made from the
fields: `cli.episode_options`), the verifiers taskset's config, the Inspect task's parameters and
the rollout pool — and builds the episode with `EpisodeSpec.episode`. A value a surface cannot
carry is refused there with the reason (`SURFACES`), never ignored.

    spec = EpisodeSpec(mode="code", max_turns=2, feedback="rule").checked("mcp")
    episode = spec.episode(env, policy, feedback=spec.feedback_giver(con))
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..episode.codecs import CODECS, Codec, codec_for
from ..episode.engine import DEFAULT_MAX_STEPS, Episode, Policy
from ..episode.environment import TASKS, Environment, Mode
from ..episode.modes import MODES, make_mode
from ..episode.tools import HiddenFacts
from ..errors import UserError
from ..grading.feedback import DETAILS, KINDS, FeedbackGiver

PROTOCOLS = tuple(CODECS)
PRIVACY_INSTRUCTIONS = ("off", "on")


def option(default, help: str, *, choices: tuple | None = None, minimum: float | None = None,
           flag: str | None = None, rewards: bool = False):
    """A field of the spec: its default, the help its option shows, the values it takes, and its
    option's name where it is not --field-name. `rewards`: only surfaces that compute a reward
    take it."""
    meta = {"help": help, "choices": choices, "minimum": minimum, "flag": flag, "rewards": rewards}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class EpisodeSpec:
    """The options of an episode (the surfaces' names and defaults for them)."""
    task: str = option("propose", "propose: list the N earliest valid starts (submit_candidates) | book: book the "
                                  "earliest one with the write tools (create_event, reserve_room, post_message, "
                                  "cancel_event) and post a confirmation; graded by the state it leaves "
                                  "(docs/semantics.md, \"The booking task\").", choices=TASKS)
    mode: str = option("tools", "tools: the level's tools; context: no tools, every source in the prompt; code: one "
                                "python tool, the data tools as functions inside a sandbox.", choices=MODES)
    protocol: str = option("native", "native (tool calling) | mint (MINT's <execute>/<solution> text protocol, no "
                                     "tools field; implies --mode code unless --mode context).", choices=PROTOCOLS)
    code_timeout_s: float = option(30.0, "Code mode: wall seconds per cell before the worker is killed and "
                                         "restarted.", minimum=0.001, flag="--code-timeout")
    max_steps: int = option(DEFAULT_MAX_STEPS, "Replies per episode, all turns together: a model call, or a tool "
                                               "call an outside agent sends. The default lets an agent that makes "
                                               "one tool call a reply read 1.5x what the scripted reference reads, "
                                               "at every level (docs/evaluating.md).", minimum=1)
    max_turns: int = option(1, "Answers per episode: after a wrong one, feedback and another turn (needs "
                               "--feedback).", minimum=1)
    feedback: str = option("none", "none | binary | rule (from the violation views) | llm (--feedback-model "
                                   "rewrites the rule facts).", choices=KINDS)
    feedback_detail: str = option("why", "count (how many are wrong) | which (which ones) | why (which constraint "
                                         "and source each breaks).", choices=DETAILS)
    feedback_model: str | None = option(None, "The model that writes llm feedback (same endpoint).")
    privacy_instructions: str = option("off", "on: the system prompt states the privacy norm (tell the participants "
                                              "only what scheduling needs) | off: it is silent.",
                                       choices=PRIVACY_INSTRUCTIONS)
    privacy_metrics: bool = option(False, "The privacy track's figures among the metrics (on when a weight names "
                                          "one).", rewards=True)
    weights: dict[str, float] | None = option(None, "The reward's weight of a metric, NAME=W (repeatable; default "
                                                    "f1=1.0).", rewards=True,
                                              flag="--weight")

    def checked(self, surface: str = "eval") -> EpisodeSpec:
        """This spec with --protocol mint's implied mode, after its checks and `surface`'s
        refusals (a UserError naming the option)."""
        for f in fields(rewards=True):
            if not SURFACES[surface].rewards and getattr(self, f.name) != f.default:
                raise UserError(f"{flag(f.name)}: {surface} computes no reward (it writes every metric)", 2)
        for f in fields():
            value, meta = getattr(self, f.name), f.metadata
            if meta["choices"] and value not in meta["choices"]:
                raise UserError(f"{flag(f.name)} must be one of {', '.join(meta['choices'])}, not {value!r}", 2)
            if meta["minimum"] is not None and value < meta["minimum"]:
                raise UserError(f"{flag(f.name)} must be at least {meta['minimum']:g}, not {value!r}", 2)
        if (self.max_turns > 1) != (self.feedback != "none"):
            raise UserError("--max-turns above 1 and --feedback other than none go together: a later turn "
                            "starts only from feedback", 2)
        if self.feedback == "llm" and not self.feedback_model:
            raise UserError("--feedback llm needs --feedback-model (a model on the same endpoint)", 2)
        if self.task == "book" and (self.mode == "context" or self.max_turns > 1 or self.protocol == "mint"):
            raise UserError("--task book needs tools to write with (--mode tools or code, --protocol native: "
                            "MINT's examples answer with candidates) and one turn: it is graded by the state it "
                            "leaves, not by answers after feedback", 2)
        for (name, value), reason in SURFACES[surface].refuses.items():
            if getattr(self, name) == value:
                raise UserError(f"{surface} cannot take {flag(name)} {value}: {reason}", 2)
        if self.protocol == "mint" and self.mode == "tools":   # MINT's <execute> runs code
            return dataclasses.replace(self, mode="code")
        return self

    def options(self) -> dict:
        """The episode fields by name (not the reward's): what EvalConfig and run.json keep."""
        return {f.name: getattr(self, f.name) for f in fields()}

    def make_mode(self, *, answer_calls: bool = False) -> Mode:
        return make_mode(self.mode, code_timeout_s=self.code_timeout_s, answer_calls=answer_calls)

    def environment(self, con, instance_id: str, *, answer_calls: bool = False) -> Environment:
        """The environment of an episode of this spec (its mode and task) on `con`."""
        return Environment(con, instance_id, self.make_mode(answer_calls=answer_calls), task=self.task)

    def codec(self) -> Codec:
        return codec_for(self.protocol, privacy=self.privacy_instructions == "on")

    def feedback_giver(self, con, client=None, grader=None) -> FeedbackGiver | None:
        """The feedback between turns (None with one turn); llm feedback needs its `client`."""
        if self.max_turns == 1:
            return None
        return FeedbackGiver(con, self.feedback, self.feedback_detail, client, grader=grader, protocol=self.protocol)

    def episode(self, env: Environment, policy: Policy, *, feedback=None, hidden: HiddenFacts | None = None) -> Episode:
        """The episode of this spec on an open environment (made with `make_mode`)."""
        return Episode(env, policy, self.codec(), max_steps=self.max_steps, max_turns=self.max_turns,
                       feedback=feedback, hidden=hidden)


def fields(*, rewards: bool = False) -> tuple[dataclasses.Field, ...]:
    """The spec's episode fields, or (`rewards`) its reward fields."""
    return tuple(f for f in dataclasses.fields(EpisodeSpec) if f.metadata["rewards"] == rewards)


def flag(name: str) -> str:
    """A field's option on the command line."""
    meta = EpisodeSpec.__dataclass_fields__[name].metadata
    return meta["flag"] or "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Surface:
    """A surface that plays episodes: whether it computes a reward, and the values it refuses."""
    rewards: bool
    refuses: dict[tuple[str, object], str] = field(default_factory=dict)


_NO_FEEDBACK_ENDPOINT = ("the feedback model needs an endpoint, and only mpcbench eval is given one (--base-url); "
                         "rule feedback words the same facts")
_TOOL_CALLS_ONLY = ("its agent calls tools; MINT's <execute>/<solution> text protocol is for a model behind a chat "
                    "endpoint (mpcbench eval --protocol mint)")
SURFACES = {
    "eval": Surface(rewards=False),
    "mcp": Surface(rewards=False, refuses={("protocol", "mint"): _TOOL_CALLS_ONLY,
                                           ("feedback", "llm"): _NO_FEEDBACK_ENDPOINT}),
    "serve-env": Surface(rewards=True, refuses={("feedback", "llm"): _NO_FEEDBACK_ENDPOINT}),
    "verifiers": Surface(rewards=True, refuses={("feedback", "llm"): _NO_FEEDBACK_ENDPOINT}),
    "inspect": Surface(rewards=False, refuses={("protocol", "mint"): "Inspect gives its model tools; "
                                                                     + _TOOL_CALLS_ONLY.split("; ", 1)[1],
                                               ("feedback", "llm"): _NO_FEEDBACK_ENDPOINT}),
}


def surface_table() -> list[str]:
    """docs/evaluating.md's table: each option on each surface, and what a surface refuses."""
    names = list(SURFACES)
    lines = ["| option | " + " | ".join(names) + " |", "|" + " --- |" * (len(names) + 1)]
    for f in fields() + fields(rewards=True):
        cells = []
        for name in names:
            surface = SURFACES[name]
            refused = [str(value) for (field_name, value) in surface.refuses if field_name == f.name]
            if f.metadata["rewards"] and not surface.rewards:
                cells.append("no reward")
            else:
                cells.append("yes" + (f", not {', '.join(refused)}" if refused else ""))
        lines.append(f"| `{flag(f.name)}` | " + " | ".join(cells) + " |")
    return lines
