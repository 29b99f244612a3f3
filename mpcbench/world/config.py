"""World configs (`worlds/*.toml`): what the generator is asked to make, read and checked."""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..levels import LEVEL_NAMES, LEVELS, level_spec
from .policies import check_distribution



# The tables a level-4 config must have, with their keys (see world/level4.py).
LEVEL4_TABLES = {
    "zones": ("other", "other_share", "home_start", "other_start", "minutes"),
    "series": ("per_person", "durations", "day_start", "day_end", "tentative_share", "exception_share"),
}


class ConfigError(ValueError):
    """A world config that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class WorldConfig:
    path: str
    world_id: str
    level: int
    seed: int
    timezone: str
    start_date: dt.date
    days: int
    people: int
    instances: int
    calendar: dict
    instance: dict
    noise: dict
    policy_distribution: dict           # [policy_distribution]: see world/policies.py
    rooms: dict = field(default_factory=dict)
    requirements: dict = field(default_factory=dict)
    zones: dict = field(default_factory=dict)            # level 4: [zones] (world/level4.py)
    series: dict = field(default_factory=dict)           # level 4: [series] (world/level4.py)
    privacy: dict = field(default_factory=dict)          # [privacy]: sensitive items (world/privacy.py)
    wording: str = "public"                              # the text pools: public, or ood (world/wording.py)


def _default_worlds_dir() -> Path:
    package = Path(__file__).resolve().parent.parent   # mpcbench/: worlds/ is in it (installed) or beside it
    for candidate in (Path("worlds"), package / "worlds", package.parent / "worlds"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no worlds/ directory with world configs was found")


def world_config_path(level: int, worlds_dir: Path | None = None) -> Path:
    return (worlds_dir or _default_worlds_dir()) / f"world_level{level}.toml"


def _check_privacy(path: Path, privacy: dict) -> None:
    """[privacy]: `sensitive_items` (true or false; off without the section), and when on
    `event_share` and optionally `thread_message_share` (default 0), each from 0 to 1."""
    if not isinstance(privacy, dict):
        raise ConfigError(f"{path}: [privacy] must be a table")
    switch = privacy.get("sensitive_items", False)
    if not isinstance(switch, bool):
        raise ConfigError(f"{path}: privacy.sensitive_items must be true or false")
    unknown = sorted(set(privacy) - {"sensitive_items", "event_share", "thread_message_share"})
    if unknown:
        raise ConfigError(f"{path}: unknown key privacy.{unknown[0]}")
    for key, required in (("event_share", True), ("thread_message_share", False)):
        value = privacy.get(key, None if required else 0)
        if switch and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
            raise ConfigError(f"{path}: privacy.{key} must be a number from 0 to 1 when privacy.sensitive_items is true")


def load_world_config(path: Path) -> WorldConfig:
    try:
        raw = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such world config") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    try:
        world = raw["world"]
        problems = check_distribution(raw["policy_distribution"])
        if problems:
            raise ConfigError(f"{path}: policy_distribution: {problems[0]}")
        config = WorldConfig(
            path=str(path), world_id=world["world_id"], level=int(world["level"]),
            seed=int(world["seed"]), timezone=world["timezone"],
            start_date=dt.date.fromisoformat(str(world["start_date"])), days=int(world["days"]),
            people=int(world["people"]), instances=int(world["instances"]),
            calendar=raw["calendar"], instance=raw["instance"], noise=raw.get("noise", {}),
            policy_distribution=raw["policy_distribution"], rooms=raw.get("rooms", {}),
            requirements=raw.get("requirements", {}), zones=raw.get("zones", {}),
            series=raw.get("series", {}), privacy=raw.get("privacy", {}),
        )
    except ConfigError:
        raise
    except KeyError as err:
        raise ConfigError(f"{path}: missing key {err}") from None
    except (TypeError, ValueError, AttributeError) as err:
        raise ConfigError(f"{path}: a value has the wrong type or format: {err}") from None
    if config.level not in LEVELS:
        raise ConfigError(f"{path}: world.level must be one of {LEVEL_NAMES}")
    _check_privacy(path, config.privacy)
    if level_spec(config.level).rooms and not config.rooms:
        raise ConfigError(f"{path}: a level-{config.level} world needs a [rooms] table")
    if level_spec(config.level).zones_and_series:
        for table, keys in LEVEL4_TABLES.items():
            missing = [k for k in keys if k not in getattr(config, table)]
            if missing:
                raise ConfigError(f"{path}: a level-4 world needs [{table}] with {', '.join(missing)}")
    return config
