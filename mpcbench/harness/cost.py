"""What an episode costs: a price table (US$ per million prompt and completion tokens, per model)
shipped as `prices.toml` and extended by the user's own file, and the budget of `--max-cost`.

    price = model_price("gpt-4o-mini-2024-07-18", Path("my_prices.toml"))   # {"model": ..., "input": 0.15, "output": 0.6}
    episode_cost(price, prompt_tokens=12_000, completion_tokens=800)       # 0.00228

A model without a price has cost None (never 0): the tables and the report say "n/a".
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..errors import UserError

PRICES = Path(__file__).resolve().parent / "prices.toml"
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def _read(path: Path) -> dict[str, dict]:
    try:
        models = tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
        return {str(name): {"input": float(p["input"]), "output": float(p["output"])} for name, p in models.items()}
    except FileNotFoundError:
        raise UserError(f"--prices: {path} does not exist") from None
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
        raise UserError(f"--prices: {path} is not a price table ([models.\"NAME\"] with input and output, "
                        f"US$ per million tokens): {e}") from None


def price_table(extra: str | Path | None = None) -> dict[str, dict]:
    """The shipped prices, extended (and overridden) by the user's file."""
    table = _read(PRICES)
    if extra:
        table.update(_read(Path(extra)))
    return table


def model_price(model: str | None, extra: str | Path | None = None) -> dict | None:
    """{"model", "input", "output"} for a model (a dated snapshot takes its model's price), or None."""
    if not model:
        return None
    table = price_table(extra)
    for name in (model, _SNAPSHOT.sub("", model)):
        if name in table:
            return {"model": name, **table[name]}
    return None


def episode_cost(price: dict | None, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    if price is None:
        return None
    return ((prompt_tokens or 0) * price["input"] + (completion_tokens or 0) * price["output"]) / 1e6


class Budget:
    """`--max-cost`: an episode starts only while the money spent, plus what the episodes in flight
    and this one are expected to cost (the mean cost of the finished ones), stays within the limit."""

    def __init__(self, limit_usd: float | None, spent: list[float]):
        self.limit = limit_usd
        self.costs = list(spent)
        self.in_flight = 0
        self.skipped = 0

    @property
    def spent(self) -> float:
        return sum(self.costs)

    def admit(self) -> bool:
        if self.limit is None:
            return True
        expected = self.spent / len(self.costs) if self.costs else 0.0
        if self.spent + (self.in_flight + 1) * expected > self.limit or self.spent >= self.limit:
            self.skipped += 1
            return False
        self.in_flight += 1
        return True

    def finish(self, cost: float | None) -> None:
        if self.limit is not None:
            self.in_flight -= 1
            self.costs.append(cost or 0.0)
