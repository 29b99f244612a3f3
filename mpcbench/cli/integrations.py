"""`mpcbench mcp`: serve the tools to an outside agent over MCP (needs `pip install 'mpcbench[mcp]'`);
`mpcbench serve-env`: the OpenEnv training environment over HTTP (needs `pip install 'mpcbench[openenv]'`);
`mpcbench trajectories`: the scripted solver's episodes as an SFT dataset (needs `datasets`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from ..harness.config import EvalConfig
from ..harness.episode_spec import EpisodeSpec
from ..harness.rollout import RolloutPool
from ..harness.session import open_external_run
from ..sources import LEVELS
from ..warehouse import db
from .common import DbOption, err, fail
from .episode_options import episode_options


@episode_options("mcp")
def mcp_command(
    instance: Annotated[str | None, typer.Option(help="Serve this one instance, e.g. L3-0007.")] = None,
    level: Annotated[int | None, typer.Option(min=min(LEVELS), max=max(LEVELS), help="Serve the instances of this level, one after "
                                                                 "another.")] = None,
    instances: Annotated[int | None, typer.Option(min=1, help="With --level: the first N instances.")] = None,
    run: Annotated[Path | None, typer.Option(help="The run directory (default build/runs/<run_id>); a run "
                                                  "already there is continued.")] = None,
    model: Annotated[str | None, typer.Option(help="A label for the agent's model in runs.parquet.")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Serve streamable HTTP on this port "
                                                                     "(http://HOST:PORT/mcp) instead of stdio.")] = None,
    host: Annotated[str, typer.Option(help="With --port: the address to listen on.")] = "127.0.0.1",
    db_path: DbOption = db.DEFAULT_DB,
    *,
    episode: EpisodeSpec,
) -> None:
    """Serve a level's tools and submit_candidates over MCP (stdio, or streamable HTTP with --port).
    Each instance is an eval episode with eval's episode options: a right submission (or, with
    --max-turns 1, any valid one; after a wrong one, the feedback and the next turn), or the
    --max-steps-th call, ends it; the run's Parquet tables are written when it is complete and when
    the server stops."""
    if (instance is None) == (level is None):
        fail("pass --instance ID (one instance) or --level N (a run of that level's instances)", 2)
    try:
        from ..integrations.mcp_server import make_server, serve_http, serve_stdio  # optional dependency
    except ImportError as e:
        fail(f"the MCP server needs the mcp package ({e.name} is missing): pip install 'mpcbench[mcp]'")
    config = EvalConfig(agent="mcp", db=str(db_path), levels=(level,) if level else LEVELS,
                        instances=instances, instance_ids=(instance,) if instance else (), model=model,
                        out=str(run) if run else None, **episode.options())
    session = open_external_run(config)
    where = f"http://{host}:{port}/mcp" if port else "stdio"
    err.print(f"Serving level {session.level}: {len(session.todo)} of {len(session.episodes)} instances to answer, "
              f"over {where}; results in {session.run_dir}/", markup=False, highlight=False)
    server = make_server(session)
    try:
        asyncio.run(serve_http(server, host=host, port=port) if port else serve_stdio(server))
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
    done = len(session.episodes) - len(session.todo)
    err.print(f"Stopped: {done} of {len(session.episodes)} instances answered; tables in {session.run_dir}/ "
              f"(serve the rest with `mpcbench mcp --run {session.run_dir} ...` and the same selection)",
              markup=False, highlight=False)


@episode_options("serve-env")
def serve_env_command(
    level: Annotated[int | None, typer.Option(min=min(LEVELS), max=max(LEVELS), help="Serve the instances of this level (default: "
                                                                 "all).")] = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="The port to listen on.")] = 8000,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    max_sessions: Annotated[int, typer.Option(min=1, help="Sessions (episodes) side by side.")] = 64,
    db_path: DbOption = db.DEFAULT_DB,
    *,
    episode: EpisodeSpec,
) -> None:
    """Serve MPCBench as an OpenEnv environment (reset/step over OpenEnv's HTTP and WebSocket
    server; one episode per session, sessions side by side): see docs/training.md."""
    try:
        import uvicorn

        from ..integrations.openenv_env import make_app  # optional dependency
    except ImportError as e:
        fail(f"serve-env needs OpenEnv ({e.name} is missing): pip install 'mpcbench[openenv]' (in an environment "
             "without the train extra: their mcp pins conflict)")
    pool = RolloutPool(db_path, episode)
    app = make_app(pool, level, max_sessions=max_sessions)
    err.print(f"Serving {db_path} ({pool.split()} split{f', level {level}' if level else ''}) as an OpenEnv "
              f"environment at http://{host}:{port} (WebSocket /ws; up to {max_sessions} sessions)",
              markup=False, highlight=False)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        pool.close()


def trajectories_command(
    out: Annotated[Path, typer.Option(help="The directory to write the Hugging Face dataset to (save_to_disk).")],
    agent: Annotated[str, typer.Option(help="The offline agent whose episodes are written.")] = "scripted",
    level: Annotated[int | None, typer.Option(min=min(LEVELS), max=max(LEVELS), help="Only this level (default: all).")] = None,
    db_path: DbOption = db.DEFAULT_DB,
) -> None:
    """Write the scripted solver's episodes of a train (or dev) warehouse as a Hugging Face dataset
    of chat messages with tool calls and the tools offered, the format TRL's SFTTrainer takes
    (`messages`, `tools`). A test split is refused. Needs `datasets` (pip install 'mpcbench[train]')."""
    try:
        from datasets import Dataset  # optional dependency

        from ..integrations.trl_data import sft_rows
    except ImportError as e:
        fail(f"trajectories needs the datasets package ({e.name} is missing): pip install 'mpcbench[train]'")
    pool = RolloutPool(db_path, EpisodeSpec(max_steps=200))   # one call a reply: more replies than eval's batched steps
    try:
        rows = sft_rows(pool, agent, level)
    finally:
        pool.close()
    Dataset.from_list(rows).save_to_disk(str(out))
    err.print(f"Wrote {len(rows)} trajectories of {agent} to {out}", markup=False, highlight=False)
