"""What defines an eval run: `EvalConfig` (saved in run.json, so a resume needs only the
directory), the agents and modes it accepts, and the names of a run directory's files.

    config = EvalConfig(agent="scripted", db="build/mpcbench.duckdb", levels=(1, 2), instances=5)
    config.validate()                          # UserError on a bad option
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..agents.openai_agent import TOOL_CHOICES, AgentOptions
from ..agents import OFFLINE_AGENTS
from ..errors import UserError
from ..levels import LEVEL_NAMES, LEVELS
from ..warehouse import db
from .episode_spec import EpisodeSpec
from .episode_spec import fields as episode_fields


AGENTS = ("openai", *OFFLINE_AGENTS, "memoriser", "replay")   # memoriser: agents/memoriser.py, fitted on --train-db
EXTERNAL = ("mcp",)                         # agents outside the harness, served by `mpcbench mcp`
CODE_AGENTS = ("openai", "scripted", "replay", "mcp")   # mcp: the outside agent calls the python tool
JOURNAL = "journal.jsonl"
CACHE = "llm_cache.jsonl"
FEEDBACK_CACHE = "feedback_cache.jsonl"
PRIVACY_JUDGE_CACHE = "privacy_judge_cache.jsonl"
RUN_JSON = "run.json"
DEFAULT_RUNS_DIR = Path("build/runs")
RUN_FILES = (RUN_JSON, JOURNAL, CACHE, FEEDBACK_CACHE, PRIVACY_JUDGE_CACHE, "reference_calls.json", "runs.parquet",
             "candidates.parquet", "tool_calls.parquet", "failures.parquet", "turns.parquet", "disclosures.parquet")


# Options a resume may change: how the run talks to the endpoint, not what it measures.
RESUME_MAY_CHANGE = ("out", "concurrency", "base_url", "timeout_s", "max_retries", "max_cost_usd", "prices")
# The fields whose `mpcbench eval` option is not named after them (the rest: --field-name).
OPTION_NAMES = {"instance_ids": "--instance", "timeout_s": "--timeout", "code_timeout_s": "--code-timeout",
                "replay_from": "--from", "max_cost_usd": "--max-cost"}


def option_name(field: str) -> str:
    """The `mpcbench eval` option that sets an EvalConfig field."""
    return OPTION_NAMES.get(field, "--" + field.replace("_", "-"))


def _shown(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def url_host(url: str | None) -> str | None:
    """host[:port] of a URL: no scheme, user, password, path or query (they may hold secrets)."""
    if not url:
        return None
    parts = urlsplit(url if "//" in url else f"//{url}")
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


_EPISODE = EpisodeSpec()


@dataclass
class EvalConfig:
    """Everything that defines a run (saved in run.json, so a resume needs only the directory).
    Each field but the backoff's is an option of `mpcbench eval` (`option_name`), whose help
    text says what it means and whose default is the field's; the sampling options' defaults are
    the openai agent's (`AgentOptions`)."""
    agent: str = "scripted"
    db: str = str(db.DEFAULT_DB)
    levels: tuple[int, ...] = LEVELS
    instances: int | None = None            # per level: the first N (by position)
    instance_ids: tuple[str, ...] = ()      # or exactly these
    shard: str | None = None                # "i/n": every n-th instance of the plan, from the i-th (parse_shard)
    trials: int = 1
    concurrency: int = 8
    out: str | None = None                  # the run directory (default build/runs/<run_id>)
    # the episode's options: their defaults and meaning are the EpisodeSpec's (`episode_spec`)
    task: str = _EPISODE.task
    mode: str = _EPISODE.mode
    protocol: str = _EPISODE.protocol
    code_timeout_s: float = _EPISODE.code_timeout_s
    privacy_instructions: str = _EPISODE.privacy_instructions
    max_turns: int = _EPISODE.max_turns
    feedback: str = _EPISODE.feedback
    feedback_detail: str = _EPISODE.feedback_detail
    feedback_model: str | None = _EPISODE.feedback_model
    privacy_judge: str | None = None        # a model, on the same endpoint, judging each note's disclosures
    # the openai agent
    model: str | None = None
    base_url: str | None = None             # only its host goes to run.json
    api_key_env: str = "OPENAI_API_KEY"     # the variable's name, never its value
    temperature: float | None = AgentOptions.temperature
    seed: int | None = AgentOptions.seed    # trial t sends seed + t - 1
    max_steps: int = _EPISODE.max_steps
    timeout_s: float = 60.0
    max_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    tool_choice: str = AgentOptions.tool_choice
    parallel_tool_calls: bool | None = AgentOptions.parallel_tool_calls
    max_tokens: int | None = AgentOptions.max_tokens
    # replay
    replay_from: str | None = None
    # the memoriser: the (train) builds it learns its phrasings from
    train_db: tuple[str, ...] = ()
    # cost
    prices: str | None = None               # a price table extending the shipped one (harness/prices.toml)
    max_cost_usd: float | None = None       # stop starting episodes before this budget would be passed

    def validate(self) -> None:
        if self.agent not in AGENTS + EXTERNAL:
            raise UserError(f"--agent must be one of {', '.join(AGENTS)}, not {self.agent!r}")
        if self.agent == "openai" and not self.model:
            raise UserError("--agent openai needs --model")
        if (self.agent == "memoriser") != bool(self.train_db):
            raise UserError("--agent memoriser and --train-db (the build it learns from) go together")
        if self.agent == "replay" and not self.replay_from:
            raise UserError("--agent replay needs --from RUN_DIR")
        self.mode = self.episode_spec().checked("eval").mode   # --protocol mint implies --mode code
        if self.mode == "code" and self.agent not in CODE_AGENTS:
            raise UserError(f"--mode code runs the agents {', '.join(CODE_AGENTS)}, not {self.agent!r}")
        if self.protocol == "mint" and self.agent not in CODE_AGENTS:
            raise UserError(f"--protocol mint runs the agents {', '.join(CODE_AGENTS)}, not {self.agent!r}")
        if self.trials < 1 or self.concurrency < 1:
            raise UserError("--trials and --concurrency must be at least 1")
        if not set(self.levels) <= set(LEVELS) or not self.levels:
            raise UserError(f"--levels takes a subset of {LEVEL_NAMES}")
        if self.max_cost_usd is not None and (self.max_cost_usd <= 0 or self.agent != "openai"):
            raise UserError("--max-cost takes a positive amount in US$ and applies to --agent openai")
        if self.tool_choice not in TOOL_CHOICES:
            raise UserError(f"--tool-choice must be one of {', '.join(TOOL_CHOICES)}")

    def episode_spec(self) -> EpisodeSpec:
        """The run's episode options."""
        return EpisodeSpec(**{f.name: getattr(self, f.name) for f in episode_fields()})

    def differences(self, saved: "EvalConfig", given: frozenset[str]) -> list[str]:
        """The options in `given` (field names the user set) that differ from the saved run's,
        as `--option value (the run: value)`; those a resume may change are left out."""
        return [f"{option_name(f)} {_shown(getattr(self, f))} (the run: {_shown(getattr(saved, f))})"
                for f in sorted(given - set(RESUME_MAY_CHANGE)) if getattr(self, f) != getattr(saved, f)]

    def public(self) -> dict:
        """The options as saved: the base URL reduced to its host."""
        out = dataclasses.asdict(self)
        out["levels"], out["instance_ids"] = list(self.levels), list(self.instance_ids)
        out["train_db"] = list(self.train_db)
        out.pop("base_url")
        out["base_url_host"] = url_host(self.base_url)
        return out

    def resumed(self, saved: dict, given: frozenset[str], run_dir: Path) -> "EvalConfig":
        """The config of the run saved in `run_dir` (its run.json's options, `saved`), with the
        options of RESUME_MAY_CHANGE taken from this one; a UserError when an option in `given`
        (those the user set) differs from the saved run's, or the endpoint is not the run's."""
        budget = {k: getattr(self, k) for k in ("max_cost_usd", "prices") if getattr(self, k) is not None}
        config = EvalConfig.from_public(saved, base_url=self.base_url, out=str(run_dir), concurrency=self.concurrency,
                                        timeout_s=self.timeout_s, max_retries=self.max_retries, **budget)
        differ = self.differences(config, given)
        if differ:
            raise UserError(f"{run_dir} holds a run with other options: {'; '.join(differ)}. Continue it "
                            "without them, or start a new run in another directory", 2)
        host = saved.get("base_url_host")
        if host and url_host(self.base_url) != host:
            raise UserError(f"--resume: this run used an endpoint at {host}; pass its --base-url again "
                            "(run.json keeps only the host)")
        return config

    @classmethod
    def from_public(cls, saved: dict, **override) -> "EvalConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in saved.items() if k in known}
        values["levels"] = tuple(values.get("levels") or LEVELS)
        values["instance_ids"] = tuple(values.get("instance_ids") or ())
        values["train_db"] = tuple(values.get("train_db") or ())
        values.update(override)
        return cls(**values)
