"""The run's privacy judge (`mpcbench eval --privacy-judge MODEL`; grading/privacy_judge.py): one
request per note, answered from the run directory's cache (PRIVACY_JUDGE_CACHE) where it holds
the request. `mpcbench rescore` (and any finalize without eval's client) reads the cache alone: a
request it lacks is a missing figure, never a call."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..grading.leaks import Item
from ..grading.privacy import Judge
from ..grading.privacy_judge import judge_note
from ..interrupt import run_async
from ..llm import ChatClient, EndpointConfig, ResponseCache
from .config import PRIVACY_JUDGE_CACHE

CONCURRENCY = 8   # judge requests in flight (the client's limit, when eval passes one, caps them too)


def run_judge(run_dir: Path, options: dict, client=None) -> Judge | None:
    """The judge of a run made with --privacy-judge (None for one without): `client` when eval
    gives one, else a replay of the run's cache."""
    model = options.get("privacy_judge")
    if not model:
        return None
    if client is None:
        client = ChatClient(EndpointConfig(model), cache=ResponseCache(run_dir / PRIVACY_JUDGE_CACHE),
                            replay_only=True)

    def judge(cases: dict[tuple[str, int], tuple[str, list[Item]]]) -> dict[tuple[str, int], dict[str, bool] | None]:
        async def everything() -> dict:
            limit = asyncio.Semaphore(CONCURRENCY)

            async def one(note: str, items: list[Item]):
                async with limit:
                    return await judge_note(client, note, items)
            try:
                answers = await asyncio.gather(*(one(*case) for case in cases.values()))
            finally:
                await client.aclose()
            return dict(zip(cases, answers))
        return run_async(everything) if cases else {}
    return judge
