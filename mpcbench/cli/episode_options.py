"""The episode's command-line options, made from `harness.episode_spec.EpisodeSpec`: a command
decorated with `episode_options(surface)` offers every field of the spec (and, where the surface
computes rewards, the reward fields) with the spec's default and help, and receives them as one
checked `episode: EpisodeSpec` argument.

    @episode_options("mcp")
    def mcp_command(..., episode: EpisodeSpec) -> None: ...
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Annotated, Any

import typer

from ..errors import UserError
from ..harness.episode_spec import SURFACES, EpisodeSpec, fields, flag

_TYPES: dict[str, Any] = {"str": str, "str | None": str | None, "int": int, "float": float, "bool": bool}


def _parameter(f: dataclasses.Field) -> inspect.Parameter:
    help_text = f.metadata["help"]
    kind: Any
    if f.name == "weights":   # NAME=W, repeatable: a list on the command line
        kind, default = list[str] | None, None
        info = typer.Option(flag(f.name), help=help_text)
    elif f.type == "bool":
        kind, default = bool, f.default
        info = typer.Option(f"{flag(f.name)}/--no-{flag(f.name)[2:]}", help=help_text)
    else:
        kind, default = _TYPES[str(f.type)], f.default
        info = typer.Option(flag(f.name), help=help_text)   # the spec checks the value (`checked`)
    return inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, info])


def parse_weights(values: list[str] | None) -> dict[str, float] | None:
    """--weight NAME=W options as a dict (None when none is given)."""
    if not values:
        return None
    weights = {}
    for value in values:
        name, _, weight = value.partition("=")
        try:
            weights[name.strip()] = float(weight)
        except ValueError:
            raise UserError(f"--weight takes NAME=W (e.g. f1=0.8), not {value!r}", 2) from None
    return weights


def episode_options(surface: str):
    """Give the decorated command the spec's options for `surface`; it receives them as
    `episode`, checked (a bad value is a UserError that names the option)."""
    offered = fields() + (fields(rewards=True) if SURFACES[surface].rewards else ())

    def decorate(command):
        base = inspect.signature(command, eval_str=True)

        @functools.wraps(command)
        def run(*args, **kwargs):
            values = {f.name: kwargs.pop(f.name) for f in offered}
            if "weights" in values:
                values["weights"] = parse_weights(values["weights"])
            return command(*args, **kwargs, episode=EpisodeSpec(**values).checked(surface))

        kept = [p for p in base.parameters.values() if p.name != "episode"]
        run.__signature__ = base.replace(parameters=kept + [_parameter(f) for f in offered])  # type: ignore[attr-defined]
        return run
    return decorate
