"""The views generated from the constraint-kind registry rather than written in `sql/`: the
union of every kind's violation view (`int_framed_violations`)."""

from __future__ import annotations

from functools import cache

from ..kinds import constraint_kinds


def framed_violations_sql(view_names: list[str]) -> str:
    """The view `int_framed_violations`: the union of every `int_violations_<kind>` view of
    20_intermediate whose kind does not frame the grid (the frame's starts are reported apart),
    in the registry's bit order (views of unregistered kinds last: a test refuses them)."""
    return ("-- Every (candidate, constraint) pair that removes a candidate inside working hours, with the\n"
            "-- source row that kills it: generated, the union of every int_violations_<kind> view but the\n"
            "-- frame's. Rooms are judged later, on feasible starts only.\n"
            + union_all(violation_views(view_names)))


def violation_views(view_names: list[str], source: str | None = None) -> list[str]:
    """The `int_violations_<kind>` views among `view_names` of kinds that do not frame the grid
    (of one source, if given), in the registry's bit order (unregistered kinds last)."""
    kinds = _violation_view_kinds()
    unregistered = (float("inf"), False, None)    # bit, is_frame, source
    names = [n for n in view_names if n.startswith("int_violations_") and not kinds.get(n, unregistered)[1]
             and source in (None, kinds.get(n, unregistered)[2])]
    return sorted(names, key=lambda n: (kinds.get(n, unregistered)[0], n))


@cache
def _violation_view_kinds() -> dict[str, tuple[int, bool, str]]:
    """(bit, is_frame, source) of each registered kind's view `int_violations_<kind>`."""
    return {f"int_violations_{k.name}": (k.bit, k.is_frame, k.source) for k in constraint_kinds()}


def union_all(views: list[str]) -> str:
    return "\nunion all ".join(f"select * from {name}" for name in views)


GENERATED_VIEWS = {"20_intermediate": {"int_framed_violations": framed_violations_sql}}
