"""What the legacy package takes from the rest of MPCBench, imported here and nowhere else in it,
so that a move of those modules means editing this one file.

    >>> from mpcbench.legacy.project import ChatClient, UserError
"""

from __future__ import annotations

from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.arguments import _describe as describe_argument_error
from ..episode.contract import ToolSpec
from ..episode.render import Result, fetch_rows, render_json, render_markdown
from ..episode.toolfiles import Tool, ToolDefinitionError, ToolError, strip_comments
from ..episode.toolfiles import _header as tool_file_header
from ..episode.toolfiles import _param as tool_file_param
from ..episode.tools import ToolEnvironment
from ..errors import UserError
from ..harness.config import JOURNAL, RUN_JSON
from ..harness.journal import read_journal
from ..harness.provenance import build_content_hash, url_host
from ..llm import ChatClient, EndpointConfig, InfrastructureError, ResponseCache
from ..warehouse.db import SQL_DIR, connect, layer_views

__all__ = [
    "ChatClient", "EndpointConfig", "InfrastructureError", "JOURNAL", "RUN_JSON", "ResponseCache", "Result",
    "SQL_DIR", "SUBMIT_TOOL_NAME", "Tool", "ToolDefinitionError", "ToolEnvironment", "ToolError", "ToolSpec",
    "UserError", "build_content_hash", "connect", "describe_argument_error", "fetch_rows", "layer_views",
    "read_journal", "render_json", "render_markdown", "strip_comments", "tool_file_header",
    "tool_file_param", "url_host",
]
