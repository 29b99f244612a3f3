"""Bridges to other ecosystems: an MCP server of the tools (`mcp_server`) and an Inspect AI task
(`inspect_task`). Each needs its optional dependency (`pip install 'mpcbench[mcp]'`,
`'mpcbench[inspect]'`); the rest of the package never imports them."""
