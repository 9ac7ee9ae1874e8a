"""The hub as a remote MCP server: /mcp speaks the MCP Streamable HTTP transport (official SDK,
stateless, JSON responses) inside the hub's own WSGI process, with the tools of
ltm.protocol.tools done by the hub's services and selectors.

A package of its own above `packets` in the layers: it is the one part of the hub that imports
the MCP SDK, and it uses every app below it (packets, teams, accounts)."""
