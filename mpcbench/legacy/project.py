"""What the legacy package takes from the rest of MPCBench, imported here and nowhere else in it,
so that a move of those modules means editing this one file.

    >>> from mpcbench.legacy.project import ChatClient, UserError
"""

from __future__ import annotations

from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.arguments import check_arguments
from ..episode.contract import ToolSpec
from ..episode.render import Result, fetch_rows, render_json, render_markdown
from ..episode.toolfiles import Tool, ToolDefinitionError, ToolError, header_entries, parse_param, strip_comments
from ..episode.environment import Environment
from ..errors import ModelLimitError, UserError
from ..harness.config import JOURNAL, RUN_JSON, url_host
from ..harness.journal import read_journal
from ..harness.privacy_audit import OFFLINE_PREFIX, KEYWORDS, PrivacyAuditConfig, run_privacy_audit
from ..harness.provenance import build_content_hash
from ..llm import ChatClient, EndpointConfig, InfrastructureError, ResponseCache
from ..warehouse.db import SQL_DIR, connect, layer_views

__all__ = [
    "ChatClient", "EndpointConfig", "InfrastructureError", "JOURNAL", "KEYWORDS", "ModelLimitError", "OFFLINE_PREFIX",
    "PrivacyAuditConfig", "RUN_JSON", "ResponseCache", "Result",
    "Environment", "SQL_DIR", "SUBMIT_TOOL_NAME", "Tool", "ToolDefinitionError", "ToolError", "ToolSpec",
    "UserError", "build_content_hash", "check_arguments", "connect", "fetch_rows", "header_entries", "layer_views",
    "parse_param", "read_journal", "render_json", "render_markdown", "run_privacy_audit", "strip_comments", "url_host",
]
