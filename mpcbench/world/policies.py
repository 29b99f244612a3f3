"""Each world's own policies, drawn from the `[policy_distribution]` table of its config, so that
no policy can be memorised from the repository: another seed gives other policies.

    problems = check_distribution(table)      # [] when the table can be used
    policies = draw_policies(config)          # [{"policy_id": "POL-7F3A2C", "name": ..., "rules": [...]}]

The table gives how many policies a world has (`policies = [low, high]`) and, per policy rule
kind of the registry (sql/05_seeds/constraint_kinds.sql), the share of policies that have the
rule and its params' ranges; the registry's param types say how a param is drawn:

- a pair of clock params `start`, `end`: `start = [earliest, latest, step]` (step in minutes,
  default 5) and `minutes = [low, high, step]`, the length; end = start + length;
- an integer param: `<param> = [low, high]` or `[low, high, step]`, inside the registry's bounds;
- a weekdays param: `<param> = [low, high]` weekdays drawn from `among` (default Mon-Fri), plus
  every weekday in `always` (default none).

Every policy has working hours (its share is 1 and may not be given) and working days: `days` maps
each working week, written as a run of weekdays (`Mon-Fri`, `Mon-Sat`, `Mon-Sun`), to its share of
the policies (the shares add up to 1; default: every policy Mon-Fri), drawn from a generator of its own so that the other draws do
not move. A blackout is drawn inside the hours. Policy ids are a keyed permutation of the index (ids.py) and carry no meaning; a rule's id is
`<policy_id>.<kind>`; names are generated.
"""

from __future__ import annotations

import random
from typing import Any, TypeGuard

from . import prose
from .ids import id_key, opaque_id
from .wording import wording_for
from ..kinds import WEEKDAYS, Param, kind, policy_rule_kinds

DEFAULT_CLOCK_STEP = 5
BLACKOUT_TRIES = 20
DEFAULT_WEEKS = {"Mon-Fri": 1.0}   # working_hours.days when a config gives none


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _is_range(value: object, size: tuple[int, ...] = (2, 3)) -> TypeGuard[list[Any]]:
    return isinstance(value, list) and len(value) in size


def _is_span(params: tuple[Param, ...]) -> bool:
    return [(p.name, p.type) for p in params][:2] == [("start", "clock"), ("end", "clock")]


def week_days(run: str) -> list[str] | None:
    """The weekdays of a run such as `Mon-Fri` (Monday first), or None if it is not one."""
    first, _, last = run.partition("-")
    if first not in WEEKDAYS or last not in WEEKDAYS or WEEKDAYS.index(first) > WEEKDAYS.index(last):
        return None
    return list(WEEKDAYS[WEEKDAYS.index(first): WEEKDAYS.index(last) + 1])


def _days_problems(days: object) -> list[str]:
    if not (isinstance(days, dict) and days
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in days.values())
            and abs(sum(days.values()) - 1) < 1e-9):
        return ["working_hours.days must map working weeks (Mon-Fri, Mon-Sat, ...) to shares that add up to 1"]
    return [f"working_hours.days: {run!r} is not a run of weekdays such as Mon-Fri"
            for run in days if week_days(run) is None]


def _check_int_range(name: str, value: object, low_bound: int, high_bound: int) -> str | None:
    if not (_is_range(value) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        return f"{name} must be [low, high] or [low, high, step] of integers"
    low, high, *step = value
    if not low_bound <= low <= high <= high_bound or (step and step[0] < 1):
        return f"{name} must be a range from {low_bound} to {high_bound} with low <= high and step >= 1"
    return None


def _kind_problems(name: str, spec: object) -> list[str]:
    """What is wrong with one kind's entry of the table."""
    if not isinstance(spec, dict):
        return [f"{name} must be a table"]
    params = kind(name).rule_params
    problems = []
    allowed = {"share"}
    if name == "working_hours":
        allowed = {"days"}
        problems += _days_problems(spec.get("days", DEFAULT_WEEKS))
    elif not (isinstance(spec.get("share"), (int, float)) and not isinstance(spec.get("share"), bool)
              and 0 <= spec["share"] <= 1):
        problems.append(f"{name}.share must be a number from 0 to 1")
    if _is_span(params):
        allowed |= {"start", "minutes"}
        start = spec.get("start")
        if not (_is_range(start) and all(isinstance(v, str) for v in start[:2])
                and all(p.problem(v) is None for p, v in zip(params, start[:2]))
                and _minutes(start[0]) <= _minutes(start[1])
                and (len(start) == 2 or (isinstance(start[2], int) and start[2] >= 1))):
            problems.append(f"{name}.start must be [earliest, latest] or [earliest, latest, step] "
                            "with HH:MM times, earliest <= latest")
        length = _check_int_range(f"{name}.minutes", spec.get("minutes"), 1, 1439)
        if length:
            problems.append(length)
        elif not problems and _minutes(spec["start"][1]) + spec["minutes"][1] > 1439:
            problems.append(f"{name}: the latest start plus the longest length must end by 23:59")
    else:
        for p in params:
            allowed.add(p.name)
            if p.type == "integer":
                problem = _check_int_range(f"{name}.{p.name}", spec.get(p.name), *p.bounds)
                if problem:
                    problems.append(problem)
            elif p.type == "weekdays":
                allowed |= {"among", "always"}
                among, always = spec.get("among", list(WEEKDAYS[:5])), spec.get("always", [])
                for key, days in (("among", among), ("always", always)):
                    if not isinstance(days, list) or not set(days) <= set(WEEKDAYS) or len(set(days)) != len(days):
                        problems.append(f"{name}.{key} must be a list of distinct weekdays among {', '.join(WEEKDAYS)}")
                problem = _check_int_range(f"{name}.{p.name}", spec.get(p.name), 0 if always else 1,
                                           len(among) if isinstance(among, list) else 0)
                if problem:
                    problems.append(problem + " (how many weekdays from `among`)")
                elif isinstance(always, list) and set(always) & set(among):
                    problems.append(f"{name}: among and always share a weekday")
            else:
                problems.append(f"{name}.{p.name}: params of type {p.type} cannot be drawn")
    problems += [f"{name} has no key {key!r} (its keys: {', '.join(sorted(allowed))})"
                 for key in spec if key not in allowed]
    return problems


def check_distribution(table: object) -> list[str]:
    """What is wrong with a `[policy_distribution]` table; [] if nothing."""
    if not isinstance(table, dict):
        return ["policy_distribution must be a table"]
    kinds = [k.name for k in policy_rule_kinds()]
    problems = []
    count = _check_int_range("policies", table.get("policies"), 2, len(prose.TEAMS) * len(prose.POLICY_NOUNS))
    if count:
        problems.append(count + " (how many policies a world has)")
    if "working_hours" not in table:
        problems.append("needs working_hours: every policy has working hours")
    for key, spec in table.items():
        if key == "policies":
            continue
        if key not in kinds:
            problems.append(f"unknown rule type {key!r} (known: {', '.join(kinds)})")
            continue
        problems += _kind_problems(key, spec)
    return problems


def _draw_int(rng: random.Random, bounds: list[int]) -> int:
    low, high, *steps = bounds
    step = steps[0] if steps else 1
    return low + step * rng.randint(0, (high - low) // step)


def _draw_span(rng: random.Random, spec: dict) -> tuple[int, int]:
    earliest, latest, *step = spec["start"]
    start = _draw_int(rng, [_minutes(earliest), _minutes(latest), step[0] if step else DEFAULT_CLOCK_STEP])
    return start, start + _draw_int(rng, spec["minutes"])


def _draw_params(rng: random.Random, name: str, spec: dict, hours: tuple[int, int] | None) -> dict | None:
    """One rule's params; None when no blackout fits inside the working hours."""
    params = kind(name).rule_params
    if _is_span(params):
        for _ in range(BLACKOUT_TRIES if hours else 1):
            start, end = _draw_span(rng, spec)
            if hours is None or hours[0] < start and end < hours[1]:
                return {"start": _clock(start), "end": _clock(end)}
        return None
    drawn: dict[str, int | list[str]] = {}
    for p in params:
        if p.type == "integer":
            drawn[p.name] = _draw_int(rng, spec[p.name])
        else:
            among = spec.get("among", list(WEEKDAYS[:5]))
            chosen = set(rng.sample(among, _draw_int(rng, spec[p.name]))) | set(spec.get("always", []))
            drawn[p.name] = [day for day in WEEKDAYS if day in chosen]
    return drawn


def draw_policies(config) -> list[dict]:
    """The world's policies: a function of (seed, level) and the distribution only."""
    table = config.policy_distribution
    rng = random.Random(f"{config.seed}/{config.level}/policies")
    words = wording_for(config)
    week_rng = random.Random(f"{config.seed}/{config.level}/working-days")
    weeks = table["working_hours"].get("days", DEFAULT_WEEKS)
    names = [(team, noun) for team in range(len(prose.TEAMS)) for noun in range(len(prose.POLICY_NOUNS))]
    count = _draw_int(rng, table["policies"])
    chosen_names = [f"{words.fixed('teams', team)} {words.fixed('policy_nouns', noun)}"
                    for team, noun in (names[i] for i in rng.sample(range(len(names)), count))]
    policies = []
    for index in range(count):
        pid = f"POL-{opaque_id(id_key(config, 'policy'), index).upper()}"
        start, end = _draw_span(rng, table["working_hours"])
        week = week_rng.choices(list(weeks), list(weeks.values()))[0]
        rules = [("working_hours", {"start": _clock(start), "end": _clock(end), "days": week_days(week)})]
        for k in policy_rule_kinds():
            spec = table.get(k.name)
            if k.name == "working_hours" or spec is None or rng.random() >= spec["share"]:
                continue
            params = _draw_params(rng, k.name, spec, (start, end) if k.name == "blackout" else None)
            if params is not None:
                rules.append((k.name, params))
        policies.append({
            "policy_id": pid,
            "name": chosen_names[index],
            "rules": [{"rule_id": f"{pid}.{name}", "type": name, "params": params} for name, params in rules],
        })
    return policies


def working_week(policies: list[dict]) -> set[int]:
    """The world's working week (weekday numbers, Monday 0): the days that most of its policies
    name as working days. Calendars fill those days; the others hold only the odd weekend entry."""
    counts = [0] * 7
    for policy in policies:
        for rule in policy["rules"]:
            if rule["type"] == "working_hours":
                for day in rule["params"]["days"]:
                    counts[WEEKDAYS.index(day)] += 1
    return {day for day, count in enumerate(counts) if 2 * count > len(policies)}


def blackout_kind(start: str, end: str) -> int:
    """What a daily blackout is for, by its time of day, as an index of prose.BLACKOUT_LABELS:
    only one around midday is lunch (0), then morning (1), afternoon (2) or any focus time (3)."""
    first, last = _minutes(start), _minutes(end)
    if first >= _minutes("11:00") and last <= _minutes("14:30"):
        return 0
    if last <= _minutes("12:00"):
        return 1
    if first >= _minutes("13:00"):
        return 2
    return 3


def blackout_label(start: str, end: str) -> str:
    """The public words for what a daily blackout is for (see blackout_kind)."""
    return prose.BLACKOUT_LABELS[blackout_kind(start, end)]
