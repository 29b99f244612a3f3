"""`mpcbench mcp`: the tools of a level as an MCP server (the official `mcp` SDK), for any agent
that speaks MCP.

    run = open_external_run(EvalConfig(agent="mcp", instance_ids=("L3-0007",), levels=(3,)))
    server = make_server(run)
    asyncio.run(serve_stdio(server))            # or serve_http(server, port=8765)

The server lists the tools the episode engine offers for the current instance: the level's
catalog with each tool's description and input schema taken from its `sql/tools/*.sql` file (as
`mpcbench tools list --json` gives them) plus `submit_candidates`, with `maxItems` = N at levels
1-2, as `mpcbench eval` offers them; after each submission the list may change (N is the next
instance's), and the server says so (`notifications/tools/list_changed`). A call returns exactly
the text `mpcbench tools call` prints, and an `error: ...` text comes back with `isError`. The
rules (the eval agent's system prompt) and the first task are the server's instructions; the
prompt `task` gives the current task. Each call is a step of the instance's episode: a valid
submission, or the last call of the step budget (`--max-steps`), ends it as in eval (journaled;
see `harness.session`), and its reply says so and carries the next task.
"""

from __future__ import annotations

import asyncio

import mcp_types as types
import uvicorn
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server

from .. import __version__
from ..harness.session import ExternalRun

TASK_PROMPT = "task"


def make_server(run: ExternalRun) -> Server:

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=f["name"], description=f["description"], input_schema=f["parameters"])
            for f in (entry["function"] for entry in run.tool_entries())])

    one_at_a_time = asyncio.Lock()  # HTTP clients may call side by side; the run has one current instance

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        # in a worker thread: the call runs its own event loop, and the tables (once the run is complete)
        # run the scripted reference with one
        async with one_at_a_time:
            current = run.instance_id
            text, is_error = await asyncio.to_thread(run.call, params.name, params.arguments)
            if run.instance_id != current:
                await ctx.session.send_tool_list_changed()   # the next instance's N
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)

    async def list_prompts(ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=TASK_PROMPT, description="The scheduling rules and the current task (the next one after each "
                                          "submission).")])

    async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != TASK_PROMPT:
            raise ValueError(f"there is no prompt named {params.name!r}; the prompt is {TASK_PROMPT!r}")
        return types.GetPromptResult(description=f"MPCBench level {run.level}", messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=run.instructions()))])

    return Server("mpcbench", version=__version__, instructions=run.instructions(),
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)


async def serve_stdio(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream,
                         server.create_initialization_options(NotificationOptions(tools_changed=True)))


async def serve_http(server: Server, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp."""
    app = server.streamable_http_app(host=host)
    await uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).serve()
