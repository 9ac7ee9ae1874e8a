"""How a person connects to this hub: the exact lines the home page and /client/ show, with the
hub's own URL where the lines say `<hub>`.

Written once, here. The manual's docs/how-to/connect-an-agent.md shows the same agent lines with
`https://hub.example` for `<hub>`, and connect/tests/test_client_page.py checks that it does, so
the manual and the pages cannot drift apart. A line changes here and in the manual together.
"""

from dataclasses import dataclass

HUB = "<hub>"
# What docs/how-to/connect-an-agent.md writes for HUB.
DOCS_HUB = "https://hub.example"


@dataclass(frozen=True)
class AgentLine:
    """One agent: where the line goes (after the agent's name: "Cursor, in ..."), the line, and
    what happens the first time. `where` and `then` are text for people, commands in backticks
    (the `code_spans` filter)."""

    agent: str
    where: str
    line: str
    then: str

    def for_hub(self, hub: str) -> "AgentLine":
        return AgentLine(self.agent, self.where.replace(HUB, hub), self.line.replace(HUB, hub), self.then)


REMOTE_ONLY = "Its servers call the hub, so the hub must be reachable from the internet over https."

AGENT_LINES = (
    AgentLine(
        "Claude Code",
        "in a terminal:",
        "claude mcp add --transport http ltm <hub>/mcp",
        "Then `/mcp` in Claude Code lists `ltm`: choose Authenticate, sign in here and allow it.",
    ),
    AgentLine(
        "Cursor",
        "in `~/.cursor/mcp.json`:",
        '{"mcpServers": {"ltm": {"url": "<hub>/mcp"}}}',
        "Cursor shows Needs login: click it and allow Cursor on this hub's page.",
    ),
    AgentLine(
        "VS Code (Copilot agent mode)",
        "in a terminal:",
        """code --add-mcp '{"name":"ltm","type":"http","url":"<hub>/mcp"}'""",
        "VS Code asks to allow authentication with the hub; allow it in the browser.",
    ),
    AgentLine(
        "ChatGPT",
        "in Settings → Apps & Connectors → Advanced → Developer mode, then Create, authentication OAuth, with the URL:",
        "<hub>/mcp",
        REMOTE_ONLY,
    ),
    AgentLine(
        "Claude Desktop / claude.ai",
        "in Settings → Connectors → Add custom connector, with the URL:",
        "<hub>/mcp",
        REMOTE_ONLY,
    ),
    AgentLine(
        "Any agent on this machine (stdio)",
        "with the `ltm` client installed and signed in (`ltm auth <hub>`), e.g. for Claude Code:",
        "claude mcp add ltm -- ltm mcp",
        'Other agents: `"command": "ltm", "args": ["mcp"]`. `ltm mcp` serves the same tools on this machine.',
    ),
)


def agent_lines(hub: str) -> list[AgentLine]:
    """The agent lines for the hub at `hub` (no trailing slash)."""
    return [line.for_hub(hub) for line in AGENT_LINES]
