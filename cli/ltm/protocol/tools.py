"""The MCP tools of ltm, declared once: names, descriptions, input schemas and the scope each
needs. `ltm mcp` (ltm.mcp_server, over stdio) and the hub's /mcp endpoint (mcp_remote, over
HTTP) both list their tools from here; what each tool answers is ltm.protocol.tool_calls, over a
backend each server supplies. A new tool is one more ToolSpec here plus its answer there.

It imports nothing else of ltm and not the MCP SDK: the schemas are plain JSON Schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import jsonschema

from .redact import finding_line

READ = "read"
WRITE = "write"

PACKET_SHAPE = """\
The packet is one JSON object, an ltm Core Memory Packet v0.2, at most 32 KiB as JSON. Fields not \
listed here are rejected, at every level.
Required:
- ltm_version: the string "0.2".
- id: string of 10 to 64 characters, unique on the hub (a ULID). Leave it out for a new packet: \
a fresh ULID is filled in. Reuse an id only to update a packet of your own.
- created_at: RFC 3339 date-time with a zone, e.g. "2026-04-22T09:30:00Z". May be omitted: the \
current time is filled in.
- goal: string, 1 to 1024 characters: the obstacle being worked on.
- next_step: string, 1 to 1024 characters: the first action for whoever resumes.
Optional:
- parent_id: string of 10 to 64 characters: the id of the packet this one continues.
- project: object {"name": string up to 128, "ref": string up to 256 (e.g. the repository URL)}.
- success_criteria: array of up to 16 strings (each up to 1024): observable done-conditions.
- constraints: array of up to 32 strings (each up to 1024).
- decisions: array of up to 64 objects {"what": string up to 1024 (required), "why": string up to \
1024 (required), "consequences": string up to 1024, "locked": boolean (true: settled, not to be \
reopened)}.
- methods: array of up to 32 objects {"name": slug matching ^[a-z0-9][a-z0-9-]{0,127}$ (required), \
"when_applicable": string up to 1024 (required), "how": string up to 2048 (required)}.
- attempts: array of up to 64 objects {"tried": string up to 1024 (required), "outcome": one of \
"succeeded", "failed", "partial" (required), "learned": string up to 1024, "confidence": one of \
"low", "medium", "high"}.
- open_questions: array of up to 32 strings (each up to 1024).
- tags: array of up to 16 slugs matching ^[a-z0-9][a-z0-9-]{0,31}$.
- provenance: object {"author_model": string up to 128, "author_human": string up to 128, \
"source_hash": "sha256:" then 64 lower-case hex digits, "confidence": one of "low", "medium", "high"}.
Keep secrets and absolute machine paths (/home/..., /Users/..., C:\\...) out of every text field: \
the redaction pre-flight refuses the packet otherwise."""

INSTRUCTIONS = (
    "Save the state of a coding session as an ltm packet and resume it later or elsewhere. "
    "Call `example` to see a complete valid packet."
)

# The arguments several tools share.
PACKET = {"type": "object", "description": "The packet, shaped as the tool description says."}
ALLOW_UNREDACTED = {
    "type": "boolean",
    "default": False,
    "description": "Save even if the redaction pre-flight finds secrets or absolute paths. Only when "
    "the person explicitly agreed.",
}
TEAM = {"type": "string", "description": "Team name: act on that team's packets instead of the person's own."}
ID = {"type": "string", "description": "The packet id (its `id` field), as listed by `ls`."}
LIMIT = {"type": "integer", "minimum": 1, "maximum": 500, "description": "How many, 1 to 500 (default 50)."}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    properties: dict = field(default_factory=dict)
    required: tuple = ()
    scope: str = READ  # what a hub token needs for this tool

    @property
    def input_schema(self) -> dict:
        schema = {"type": "object", "properties": self.properties, "additionalProperties": False}
        if self.required:
            schema["required"] = list(self.required)
        return schema


def _specs(*specs: ToolSpec) -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in specs}


PACKET_ARGS = {"packet": PACKET, "allow_unredacted": ALLOW_UNREDACTED, "team": TEAM}

# The tools both servers offer.
TOOLS = _specs(
    ToolSpec(
        "save",
        "Save a packet (the state of this session) to the person's ltm hub. " + PACKET_SHAPE,
        PACKET_ARGS,
        ("packet",),
        WRITE,
    ),
    ToolSpec(
        "resume",
        "The resume block of a packet: markdown to read before continuing the work it "
        "describes. Locked decisions are settled; failed attempts are not to be retried "
        "without new information; start with its first action.",
        {
            "id": ID,
            "thread": {
                "type": "boolean",
                "default": False,
                "description": "Resume the newest packet of the thread that holds `id` instead, with the "
                "locked decisions and failed attempts of the packets it continues carried in.",
            },
        },
        ("id",),
    ),
    ToolSpec(
        "thread",
        "The thread a packet belongs to: the packets linked to it by parent_id (what it "
        "continues and what continues it) that the person may read, oldest first, as JSON "
        "[{id, parent_id, created_at, goal, team}]. Resume the newest with `resume` and "
        "thread: true.",
        {"id": ID},
        ("id",),
    ),
    ToolSpec("ls", "List packets, newest first, as JSON [{id, created_at, goal}].", {"limit": LIMIT, "team": TEAM}),
    ToolSpec(
        "search",
        "Search the person's packets and their teams' by words and by meaning, best first, as JSON "
        "[{id, created_at, goal, team, snippet, score, matched}] (matched: how each was found, "
        '"keyword", "semantic" or both). Words match in any order with English stemming; '
        '"quoted phrases", -word to exclude and OR work as in web search; a packet id (or its '
        "first 10+ characters) finds that packet. Then `resume` the one that fits. To brief "
        "yourself before a new task, `recall` is the better call.",
        {
            "q": {"type": "string", "maxLength": 1000, "description": "What to search for."},
            "team": {"type": "string", "description": "Team name: only that team's packets."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "How many, 1 to 100 (default 20).",
            },
            "mode": {
                "type": "string",
                "enum": ["hybrid", "keyword", "semantic"],
                "default": "hybrid",
                "description": "hybrid: words and meaning, fused (the default); keyword: the words alone; "
                "semantic: meaning alone, whatever words the packets use.",
            },
        },
        ("q",),
    ),
    ToolSpec(
        "recall",
        "Call this first, when you start a task: give the task at hand in your own words and get "
        "the earlier packets of the person and their teams most related to it (by meaning, not "
        "only by words), each with its goal, the attempts that did not work and what they taught, "
        "and its locked decisions. Read it before you plan, so that you do not retry what failed "
        "or reopen what was settled; then `resume` the packet that fits, if one does.",
        {
            "text": {
                "type": "string",
                "minLength": 1,
                "maxLength": 1000,
                "description": "The task at hand, as you would describe it (a sentence or two).",
            },
            "team": {"type": "string", "description": "Team name: only that team's packets."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
                "default": 5,
                "description": "How many packets, 1 to 10 (default 5).",
            },
        },
        ("text",),
    ),
    ToolSpec("show", "A short summary of one packet, with its public URL when published.", {"id": ID}, ("id",)),
    ToolSpec("pull", "The full JSON of one packet.", {"id": ID}, ("id",)),
    ToolSpec("rm", "Delete a packet from the hub. Only when the person asked for it.", {"id": ID}, ("id",), WRITE),
    ToolSpec(
        "publish",
        "Make a public, read-only web page of a packet (anyone with the link can read it). "
        "Only when the person asked for it. Returns the URL.",
        {"id": ID},
        ("id",),
        WRITE,
    ),
    ToolSpec("unpublish", "Take a packet's public page down; the packet itself stays.", {"id": ID}, ("id",), WRITE),
    ToolSpec(
        "share",
        "Hand a packet to one person on the hub by their username: they may then read it (it shows "
        "in their `inbox`), never change it. Only when the person asked for it. Sharing it again "
        "with the same person keeps the one share and replaces its note.",
        {
            "id": ID,
            "to": {"type": "string", "minLength": 1, "description": "The username of the person to share with."},
            "note": {"type": "string", "maxLength": 500, "description": "A word for them, shown with the share."},
        },
        ("id", "to"),
        WRITE,
    ),
    ToolSpec(
        "inbox",
        "The packets shared with the person, newest first, as JSON [{id, packet_id, goal, from, to, "
        "note, created_at, seen}] (`from` and `to` are {id, display}; seen: the recipient has read "
        "the packet since). Read one with `resume` and its packet_id, which marks it seen.",
        {
            "direction": {
                "type": "string",
                "enum": ["in", "out"],
                "default": "in",
                "description": "in: shared with the person (their inbox); out: the shares they made.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 200,
                "description": "How many, 1 to 200 (default 50).",
            },
        },
    ),
    ToolSpec(
        "example",
        "A complete, valid example packet (v0.2) to model a new packet on, with a fresh `id` and `created_at`.",
    ),
    ToolSpec(
        "whoami",
        'Which hub the tools talk to and which token they use, as JSON {"host", '
        '"token_hash8"} (the first 8 hex digits of sha256(token)), plus "user" and "scopes" '
        'where the hub itself answers. Fails with "not signed in" when there is no sign-in: '
        "then ask the person to sign in (`ltm auth <host>`).",
    ),
)

# Only `ltm mcp` offers these: the Go client's names for the same things.
LOCAL_TOOLS = _specs(
    ToolSpec(
        "push",
        "Push a packet to the person's ltm hub (the same as `save`). " + PACKET_SHAPE,
        PACKET_ARGS,
        ("packet",),
        WRITE,
    ),
    ToolSpec("platform", "The URL of the hub's web dashboard, for the person to open."),
)


def present(arguments) -> dict:
    """A call's arguments without those sent as null: agents often send null for an optional
    argument they mean to leave out."""
    if not isinstance(arguments, dict):
        return arguments if arguments is not None else {}
    return {name: value for name, value in arguments.items() if value is not None}


def argument_errors(spec: ToolSpec, arguments) -> list[str]:
    """What is wrong with a call's arguments (after `present`), one line each (empty: nothing)."""
    validator = jsonschema.Draft202012Validator(spec.input_schema)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    return [f"{'.'.join(str(p) for p in error.path) or 'arguments'}: {error.message}" for error in errors]


# The texts of the refusals both servers send back as tool errors.


def rejected_message(details: list[str]) -> str:
    count = len(details)
    return (
        f"packet rejected with {count} error{'' if count == 1 else 's'}; fix all of them and call again:\n"
        + "\n".join(f"- {detail}" for detail in details)
    )


def redaction_message(details: list[str]) -> str:
    return (
        "packet refused: it contains secrets or absolute paths. Remove or generalise them and "
        "call again (or pass allow_unredacted: true only if the person explicitly agreed):\n"
        + "\n".join(f"- {detail}" for detail in details)
    )


def finding_list(findings: list[dict]) -> str:
    return "\n".join(f"- {finding_line(finding)}" for finding in findings)


def flagged_message(packet_id: str, findings: list[dict]) -> str:
    """A save the hub's secret scan stored but flagged: which fields, and the way out."""
    return (
        "Warning: the hub's secret scan found what looks like secrets in these fields (path: kind), so "
        "it holds the packet back: it cannot be published or shared.\n"
        + finding_list(findings)
        + f"\nRemove or generalise them and call `save` again with the same id ({packet_id!r}): that "
        "replaces the packet and ends the hold. If they are not secrets, ask the person to clear them "
        f'(`ltm findings clear {packet_id} --reason "..."`, or on the packet\'s page in the dashboard).'
    )


def secrets_refused_message(findings: list[dict]) -> str:
    """A save the hub's secret scan refused: nothing was stored."""
    return (
        "packet refused by the hub: its secret scan found what looks like secrets in these fields "
        "(path: kind), and this hub (or team) stores no such packet; nothing was saved. Remove or "
        "generalise them and call again (allow_unredacted does not override the hub's scan):\n" + finding_list(findings)
    )


def id_taken_message(packet_id: str) -> str:
    return (
        f"packet id {packet_id} is already taken on the hub by someone else; leave `id` out "
        "(a fresh one is filled in) or use a new ULID, and call again"
    )
