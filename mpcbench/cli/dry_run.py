"""What `mpcbench eval` prints without running: the plan and estimate of `--dry-run`, and the
first request of `--show-request` (text to read, or the JSON body)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from ..harness.dry_run import CHARS_PER_TOKEN, REPLY_TOKENS, STEP_TOKENS, TOKEN_MARGIN, DryRun
from ..harness.prompt_sizes import compact
from .common import console, err

REQUEST_FORMATS = ("text", "json")


def print_dry_run(plan: DryRun) -> None:
    """The plan of `eval --dry-run`: the episodes, each level's first request and the estimate."""
    c = plan.config
    console.print(f"Dry run (no chat request is sent): {sum(len(lp.episodes) for lp in plan.levels)} episodes of "
                  f"{c.agent}{f' ({c.model})' if c.model else ''}, mode {c.mode}, protocol {c.protocol}",
                  markup=False, highlight=False)
    for lp in plan.levels:
        names = " ".join(i if c.trials == 1 else f"{i}#{t}" for i, t in lp.episodes)
        console.print(f"level {lp.level}: {names}", markup=False, highlight=False, soft_wrap=True)
    table = Table(title="Per level: the first request in characters and tokens, and per episode: steps and "
                        "tokens; the level's cost")
    for column in ("level", "episodes", "first request", "tokens", "steps", "prompt tokens", "completion tokens",
                   "US$"):
        table.add_column(column, justify="right")
    for lp in plan.levels:
        cost = plan.cost(lp)
        table.add_row(str(lp.level), str(len(lp.episodes)), str(lp.first_request_chars),
                      f"{lp.first_request_tokens}" if lp.counted else f"≈ {lp.first_request_tokens}",
                      f"{lp.steps:.1f}", f"{lp.prompt_tokens:,.0f}", f"{lp.completion_tokens:,.0f}",
                      "n/a" if cost is None else f"{cost:.4f}")
    console.print(table)
    basis = (f"steps and tokens per episode as measured in {plan.like}" if plan.like else
             f"every episode spending --max-steps {c.max_steps}, each step adding {STEP_TOKENS} tokens to the "
             f"conversation and {c.max_tokens or REPLY_TOKENS} of reply: an upper bound")
    price = plan.price
    counted = sorted({lp.counted.how for lp in plan.levels if lp.counted})
    if counted:
        tokens = f"tokens are counted by {' and '.join(counted)}" + (
            "" if all(lp.counted for lp in plan.levels) else f" (≈: characters / {CHARS_PER_TOKEN} where it did not answer)")
    else:
        tokens = (f"tokens are characters / {CHARS_PER_TOKEN}, within about ±{TOKEN_MARGIN:.0%} of real tokenizers (a "
                  "server with a /tokenize endpoint, named by --base-url, counts them exactly)")
    console.print(f"Estimate: {tokens}; {basis}; "
                  + (f"prices of {price['model']}: US$ {price['input']:g} / {price['output']:g} per million "
                     "prompt / completion tokens." if price else "no price for this model (--prices FILE)."),
                  markup=False, highlight=False, soft_wrap=True)
    for warning in plan.warnings:
        err.print(f"note: {warning}", markup=False, highlight=False, soft_wrap=True)


def request_text(instance_id: str, level: int, body: dict) -> str:
    """A first request for reading: each message whole, each tool with its arguments' schema,
    then the other fields of the body."""
    lines = [f"=== {instance_id} (level {level}): the first request, as sent to POST /chat/completions"]
    for m in body["messages"]:
        lines += [f"--- {m['role']} ({len(m['content']):,} characters)", m["content"]]
    if body.get("tools"):
        lines.append(f"--- tools ({len(body['tools'])})")
        for tool in body["tools"]:
            f = tool["function"]
            lines += [f"{f['name']}: {f.get('description', '')}",
                      f"    arguments: {json.dumps(f.get('parameters', {}), ensure_ascii=False)}"]
    rest = {k: v for k, v in body.items() if k not in ("messages", "tools")}
    lines.append(f"--- and: {json.dumps(rest, ensure_ascii=False)}")
    return "\n".join(lines)


def print_requests(plan: DryRun, fmt: str) -> None:
    """`--show-request`: the first request of each level of the plan, in `fmt`."""
    for lp in plan.levels:
        typer.echo(compact(lp.request) if fmt == "json" else request_text(lp.episodes[0][0], lp.level, lp.request))
