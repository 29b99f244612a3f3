"""What the legacy package takes from the rest of MPCBench, imported here and nowhere else in it,
so that a move of those modules means editing this one file.

    >>> from mpcbench.legacy.project import ChatClient, UserError
"""

from __future__ import annotations

from ..agents.base import ToolSpec
from ..answers import SUBMIT_TOOL_NAME
from ..db import SQL_DIR, connect, layer_views, referenced_tables
from ..errors import UserError
from ..eval import JOURNAL, RUN_JSON, read_journal, url_host
from ..llm import ChatClient, EndpointConfig, InfrastructureError, ResponseCache
from ..tools import (Result, Tool, ToolDefinitionError, ToolEnvironment, ToolError, render_json, render_markdown,
                     strip_comments)
from ..tools import _describe as describe_argument_error
from ..tools import _header as tool_file_header
from ..tools import _param as tool_file_param
from ..tools import _rows as fetch_rows

__all__ = [
    "ChatClient", "EndpointConfig", "InfrastructureError", "JOURNAL", "RUN_JSON", "ResponseCache", "Result",
    "SQL_DIR", "SUBMIT_TOOL_NAME", "Tool", "ToolDefinitionError", "ToolEnvironment", "ToolError", "ToolSpec",
    "UserError", "connect", "describe_argument_error", "fetch_rows", "layer_views", "read_journal",
    "referenced_tables", "render_json", "render_markdown", "strip_comments", "tool_file_header",
    "tool_file_param", "url_host",
]
