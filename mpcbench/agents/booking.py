"""How the offline agents act in a booking episode (`--task book`): book the first of the
starts they found for the participants they know, and post one confirmation in the project's
thread (where the level has threads and they know the project).

    book(env, task, found)     # through env.call, as a model would: create_event, post_message
"""

from __future__ import annotations

import datetime as dt

from ..episode.environment import Environment
from ..levels import level_spec
from .scripted import Reader, Task

TITLE = "Project meeting"


def book(env: Environment, task: Task, found: list[tuple[dt.datetime, str | None]], *, confirm: bool = True) -> None:
    """Book `found[0]` (with its room where the level books rooms) for the task's participants;
    with `confirm`, post the confirmation in the project's first thread. A write the environment
    refuses stays refused: the agent's traced error, the state it leaves graded as it is."""
    if not found:
        return
    start, room = found[0]
    spec = level_spec(env.level)
    args: dict = {"title": TITLE, "start": f"{start:%Y-%m-%dT%H:%M}", "duration_minutes": task.duration_min or 60,
                  "attendees": task.participants}
    if spec.rooms and room:
        args["room_id"] = room
    if env.call("create_event", args).startswith("error:") or not (confirm and spec.threads and task.project_id):
        return
    threads = Reader(env).json("list_threads", project_id=task.project_id).get("threads") or []
    if threads:
        env.call("post_message", {"thread_id": threads[0]["thread_id"], "text": confirmation(start, room)})


def confirmation(start: dt.datetime, room: str | None) -> str:
    """The confirmation: the time (and room), nothing about anyone's calendar."""
    where = f" in room {room}" if room else ""
    return f"Hi all, the meeting is booked for {start:%a %Y-%m-%d %H:%M}{where}. See you there."
