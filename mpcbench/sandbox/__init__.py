"""Model-written Python, run in a bubblewrap sandbox: one persistent worker per episode.

    >>> from mpcbench.sandbox import CodeWorker, ToolFunction
    >>> tools = [ToolFunction("get_person", {"type": "object", "properties": {"person_id": {"type": "string"}}})]
    >>> with CodeWorker(tools, env.call, timeout_s=30) as worker:        # doctest: +SKIP
    ...     result = worker.run_cell("print(get_person('p-004')[:40])")
    >>> result.output, result.tool_calls                                 # doctest: +SKIP

`sandbox_status()` says, without raising, whether a sandbox can start on this machine.
"""

from ._bwrap import Limits, SandboxUnavailable
from ._code_worker import CellResult, CodeWorker, ToolCall, ToolFunction, sandbox_status

__all__ = ["CellResult", "CodeWorker", "Limits", "SandboxUnavailable", "ToolCall", "ToolFunction",
           "sandbox_status"]
