"""`mpcbench eval --dry-run`: the plan of a run and what it would send, without sending anything.

    plan = dry_run(EvalConfig(agent="openai", model="gpt-4o-mini", levels=(1, 4)), like=None)
    plan.levels[0].first_request_chars    # the first request of level 1's first episode

For each level: its episodes, the first request of its first episode (built as the run builds it:
`prompt_sizes.first_request` with the run's options) in characters and tokens: counted by the
server's own tokenizer where the run names a server that offers one (`endpoint.server_token_count`:
vLLM's, SGLang's and llama.cpp's `/tokenize`), else characters / 4, with its margin,
and an estimate of an episode's tokens and the run's cost (`prices.toml`, `--prices`). The
estimate takes each level's mean steps and tokens per episode from an earlier run (`--like RUN`,
its runs.parquet), or else assumes every episode spends its `--max-steps`, each step adding a
reply and a tool result of `STEP_TOKENS` to the conversation that every later request sends again:
an upper bound more than a forecast, and said so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ..errors import UserError
from ..interrupt import run_async
from .endpoint import TokenCount, server_token_count
from ..sandbox import sandbox_status
from ..warehouse import db
from .config import RUN_JSON, EvalConfig
from .cost import episode_cost, model_price
from .plans import agent_options, endpoint_config, plan_episodes
from .prompt_sizes import first_request, request_chars

CHARS_PER_TOKEN = 4      # what tokens are estimated from without the server's tokenizer
TOKEN_MARGIN = 0.15      # how far characters / 4 is from real tokenizers on these prompts (o200k_base: 4.2
                         # characters a token, docs/mint.md; Qwen2.5's: 4-15 % more tokens)
STEP_TOKENS = 500        # without --like: a step's reply and tool result, in tokens
REPLY_TOKENS = 200       # without --like: a reply's completion tokens


@dataclass
class LevelPlan:
    level: int
    episodes: list[tuple[str, int]]   # (instance_id, trial)
    first_request_chars: int
    steps: float                      # per episode: measured (--like) or assumed (--max-steps)
    prompt_tokens: float              # per episode
    completion_tokens: float          # per episode
    measured: bool                    # taken from the --like run
    counted: TokenCount | None = None # the server's own count of the first request's tokens
    request: dict = field(default_factory=dict)  # the first request's body, as the run sends it

    @property
    def first_request_tokens(self) -> int:
        return self.counted.tokens if self.counted else round(self.first_request_chars / CHARS_PER_TOKEN)


@dataclass
class DryRun:
    config: EvalConfig
    levels: list[LevelPlan]
    price: dict | None
    like: str | None
    warnings: list[str] = field(default_factory=list)

    def cost(self, plan: LevelPlan) -> float | None:
        cost = episode_cost(self.price, round(plan.prompt_tokens), round(plan.completion_tokens))
        return None if cost is None else cost * len(plan.episodes)


def like_means(run: Path) -> dict[int, tuple[float, float, float]]:
    """Per level of an earlier run: mean steps, prompt tokens and completion tokens per episode."""
    path = run / "runs.parquet"
    if not (run / RUN_JSON).is_file() or not path.is_file():
        raise UserError(f"--like {run}: not a finished run directory (no run.json and runs.parquet there)")
    runs = pl.read_parquet(path, columns=["level", "steps", "prompt_tokens", "completion_tokens"])
    means = runs.group_by("level").agg(pl.col("steps", "prompt_tokens", "completion_tokens").cast(pl.Float64).mean())
    return {row["level"]: (row["steps"] or 0.0, row["prompt_tokens"] or 0.0, row["completion_tokens"] or 0.0)
            for row in means.iter_rows(named=True)}


def assumed(config: EvalConfig, first_tokens: int) -> tuple[float, float, float]:
    """(steps, prompt tokens, completion tokens) of an episode that spends every step: request k
    sends the first request and k - 1 steps' growth."""
    steps = config.max_steps
    reply = config.max_tokens or REPLY_TOKENS
    return float(steps), steps * first_tokens + steps * (steps - 1) / 2 * STEP_TOKENS, float(steps * reply)


def server_count(config: EvalConfig, request: dict) -> TokenCount | None:
    """The tokens of `request` by the tokenizer of the server an `openai` run names; None without one."""
    model = config.model
    if config.agent != "openai" or not model:
        return None
    return run_async(lambda: server_token_count(endpoint_config(config, model), request, timeout_s=5.0))


def dry_run(config: EvalConfig, like: Path | None = None, *, count_tokens: bool = True) -> DryRun:
    """Plan the run and size what it would send (see the module docstring); no chat request is
    sent (`count_tokens`: ask the server's tokenizer)."""
    if config.agent == "replay":
        raise UserError("--dry-run plans a new run; a replay sends nothing (--agent replay)", 2)
    config.validate()
    means = like_means(like) if like is not None else {}
    con = db.open_existing(Path(config.db))
    try:
        episodes = plan_episodes(con, config)
        if not episodes:
            raise UserError("no instances match --levels / --instances / --instance")
        levels = []
        for level in sorted({level for _, level, _ in episodes}):
            mine = [(i, t) for i, lv, t in episodes if lv == level]
            request = first_request(con, mine[0][0], config.episode_spec(), agent_options(config, mine[0][1]))
            chars = request_chars(request, config.model or "")
            counted = server_count(config, request) if count_tokens else None
            level_plan = LevelPlan(level, mine, chars, 0.0, 0.0, 0.0, level in means, counted,
                                   {"model": config.model or "", **request})
            level_plan.steps, level_plan.prompt_tokens, level_plan.completion_tokens = (
                means.get(level) or assumed(config, level_plan.first_request_tokens))
            levels.append(level_plan)
    finally:
        con.close()
    plan = DryRun(config, levels, model_price(config.model, config.prices) if config.agent == "openai" else None,
                  str(like) if like is not None else None)
    if config.mode == "code" and not (status := sandbox_status())[0]:
        plan.warnings.append(f"the run itself would be refused: --mode code needs a sandbox: {status[1]}")
    if like is not None and (missing := [lp.level for lp in levels if not lp.measured]):
        plan.warnings.append(f"--like {like} has no episode at level(s) {', '.join(map(str, missing))}: "
                             f"those assume every step of --max-steps {config.max_steps}")
    return plan
