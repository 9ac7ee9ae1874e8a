"""What each MCP tool does, written once for both servers: `ltm mcp` (ltm.mcp_server) runs it over
the hub's HTTP API, the hub's /mcp (mcp_remote.tools) over its own services. Each server supplies a
backend, the few reads and writes the tools need (see Backend); this module checks the arguments
against the declarations of ltm.protocol.tools, runs the redaction pre-flight and shapes every
answer, so both servers answer alike. A new tool is one ToolSpec there and one function in ANSWERS.

Like the rest of ltm.protocol it imports nothing else of ltm.
"""

from __future__ import annotations

import json
from typing import Protocol

from . import tools as specs
from .packet import PacketError, check_packet, fresh_example, with_defaults
from .recall import render_recall
from .redact import finding_line, scan_packet
from .resume import render_resume, render_thread_resume
from .summary import summary


class ToolError(Exception):
    """A call refused or failed: its text goes back to the agent as a tool error."""


class Backend(Protocol):
    """Where the tools read and write packets: the hub's API for `ltm mcp`, its services for /mcp.
    Lists come back as the wire API shapes them (search results as `search_result` shapes them)."""

    # (host, packet id, the hub's secret-scan findings [{path, kind}]: empty when clean); a push
    # the hub's scan refuses raises ToolError(tools.secrets_refused_message(findings)).
    def push(self, packet: dict, team: str | None) -> tuple[str, str, list[dict]]: ...
    def packet(self, packet_id: str) -> dict: ...
    def pull(self, packet_id: str) -> str: ...  # the stored JSON text
    def show(self, packet_id: str) -> tuple[dict, str | None, str | None]: ...  # packet, public URL, since
    def thread(self, packet_id: str) -> list[dict]: ...
    def search(self, q: str, team: str | None, limit: int | None, mode: str = "hybrid") -> list[dict]: ...
    def packets(self, limit: int | None, team: str | None) -> list[dict]: ...
    def delete(self, packet_id: str) -> None: ...
    def publish(self, packet_id: str) -> str: ...  # the public URL
    def unpublish(self, packet_id: str) -> None: ...
    def share(self, packet_id: str, to: str, note: str | None) -> tuple[dict, bool]: ...  # the share, created
    def shares(self, direction: str, limit: int | None) -> list[dict]: ...  # "in": the inbox; "out": sent
    def whoami(self) -> dict: ...  # token_identity(...) plus what the side knows of the person
    def dashboard_url(self) -> str: ...  # only for `platform`, a tool of `ltm mcp` alone


def to_json(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def rounded_score(score: float) -> float:
    """A search score to four decimals: what orders the results, without the float noise of a rank
    function (a vanishing keyword rank reads 0.0, not 1.999996000008e-06)."""
    return round(score, 4)


def search_result(
    *,
    id: str,
    created_at: str,
    goal: str,
    team: str | None,
    snippet: str,
    score: float,
    shared_by: str | None = None,
    held: bool = False,
    matched: list[str] | None = None,
) -> dict:
    """One search result as /v1/search and both `search` tools list it; `shared_by` names who
    shared the packet with the caller (None when nobody did); `held`, only when true, says the
    hub's secret scan holds the packet back from the caller (its goal is not shown, no snippet);
    `matched`, when given, how the hub found it ("keyword", "semantic" or both)."""
    result = {
        "id": id,
        "created_at": created_at,
        "goal": goal,
        "team": team,
        "snippet": snippet,
        "score": rounded_score(score),
        "shared_by": shared_by,
    }
    if held:
        result["held"] = True
    if matched:
        result["matched"] = matched
    return result


def checked(offered: dict, name: str, arguments) -> tuple[specs.ToolSpec, dict]:
    """The tool's declaration and its arguments, without nulls and with the declared defaults;
    ToolError when the tool is not offered or the arguments do not fit its schema."""
    spec = offered.get(name)
    if spec is None:
        raise ToolError(f"unknown tool {name!r}; the tools are: {', '.join(offered)}")
    arguments = specs.present(arguments)
    problems = specs.argument_errors(spec, arguments)
    if problems:
        raise ToolError(
            f"invalid arguments for {name}:\n"
            + "\n".join(f"- {p}" for p in problems)
            + ("\n" + specs.PACKET_SHAPE if "packet" in spec.properties else "")
        )
    defaults = {key: schema["default"] for key, schema in spec.properties.items() if "default" in schema}
    return spec, {**defaults, **arguments}


def answer(backend: Backend, name: str, arguments: dict) -> str:
    """The text of one call whose arguments `checked` let through."""
    return ANSWERS[name](backend, **arguments)


def prepared_packet(packet: dict, allow_unredacted: bool = False) -> dict:
    """The packet with its defaults, validated as a pushed one is (the 32 KiB cap among the
    checks) and, unless allowed, through the redaction pre-flight; ToolError says what to fix."""
    try:
        packet = check_packet(with_defaults(packet))
    except PacketError as error:
        raise ToolError(specs.rejected_message(error.errors)) from None
    if not allow_unredacted:
        findings = scan_packet(packet)
        if findings:
            raise ToolError(specs.redaction_message([finding_line(finding) for finding in findings]))
    return packet


def save(backend: Backend, *, packet: dict, allow_unredacted: bool, team: str | None = None) -> str:
    host, packet_id, findings = backend.push(prepared_packet(packet, allow_unredacted), team)
    saved = (
        f"saved packet {packet_id} on {host}"
        + (f" in team {team}" if team else "")
        + f". Resume it with the `resume` tool, id {packet_id!r}."
    )
    return saved + "\n" + specs.flagged_message(packet_id, findings) if findings else saved


def resume(backend: Backend, *, id: str, thread: bool) -> str:
    if thread:
        return render_thread_resume(backend.thread(id), backend.packet)
    return render_resume(backend.packet(id))


def search(backend: Backend, *, q: str, team: str | None = None, limit: int | None = None, mode: str = "hybrid") -> str:
    if not q.strip():
        raise ToolError("q is required: the words to search for")
    return to_json(backend.search(q, team, limit, mode))


def recall(backend: Backend, *, text: str, team: str | None = None, limit: int = 5) -> str:
    """The briefing of ltm.protocol.recall: the most related packets (found in hybrid mode), each
    read whole; one the hub's secret scan holds back from the caller is left out."""
    if not text.strip():
        raise ToolError("text is required: the task at hand, in a sentence or two")
    results = [result for result in backend.search(text, team, limit, "hybrid") if not result.get("held")]
    return render_recall(" ".join(text.split()), [(result, backend.packet(result["id"])) for result in results])


def show(backend: Backend, *, id: str) -> str:
    packet, public_url, published_at = backend.show(id)
    return summary(packet, public_url=public_url, published_at=published_at)


def rm(backend: Backend, *, id: str) -> str:
    backend.delete(id)
    return f"deleted {id}"


def unpublish(backend: Backend, *, id: str) -> str:
    backend.unpublish(id)
    return f"unpublished {id}"


def share(backend: Backend, *, id: str, to: str, note: str | None = None) -> str:
    shared, created = backend.share(id, to, note)
    recipient = shared["to"]["display"]
    if not created:
        return f"{recipient} already had packet {id} from the person; share {shared['id']} stays, its note replaced."
    return f"shared packet {id} with {recipient} (share {shared['id']}); it is in their inbox."


# Each tool of ltm.protocol.tools (TOOLS and LOCAL_TOOLS) with what it answers.
ANSWERS = {
    "save": save,
    "push": save,
    "resume": resume,
    "thread": lambda backend, *, id: to_json(backend.thread(id)),
    "search": search,
    "recall": recall,
    "ls": lambda backend, *, limit=None, team=None: to_json(backend.packets(limit, team)),
    "show": show,
    "pull": lambda backend, *, id: backend.pull(id),
    "rm": rm,
    "publish": lambda backend, *, id: backend.publish(id),
    "unpublish": unpublish,
    "share": share,
    "inbox": lambda backend, *, direction, limit=None: to_json(backend.shares(direction, limit)),
    "example": lambda backend: to_json(fresh_example()),
    "whoami": lambda backend: to_json(backend.whoami()),
    "platform": lambda backend: backend.dashboard_url(),
}
