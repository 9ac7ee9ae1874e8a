"""The short summary of one packet (`ltm show`, and the `show` tool of both MCP servers)."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """`1 attempt`, `2 attempts`, `0 attempts`."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary(
    packet: dict, *, public_url: str | None = None, published_at: str | None = None, read_from: str | None = None
) -> str:
    """`read_from`: the public link the packet was read from, which its resume hint then names, so
    that it works for a reader with no account (the id alone needs one, with access)."""
    lines = [f"{packet['id']}  ltm {packet['ltm_version']}  {packet['created_at']}"]
    if packet.get("parent_id"):
        lines.append(f"continues  {packet['parent_id']}")
    project = packet.get("project") or {}
    if project:
        lines.append(f"project    {project.get('name', '')} {project.get('ref', '')}".rstrip())
    lines.append(f"goal       {packet['goal']}")
    lines.append(f"next step  {packet['next_step']}")
    decisions = packet.get("decisions") or []
    locked = sum(1 for d in decisions if d.get("locked"))
    counts = [
        f"{plural(len(decisions), 'decision')} ({locked} locked)",
        plural(len(packet.get("attempts") or []), "attempt"),
        plural(len(packet.get("methods") or []), "method"),
        plural(len(packet.get("open_questions") or []), "open question"),
    ]
    lines.append("contains   " + ", ".join(counts))
    if packet.get("tags"):
        lines.append(f"tags       {', '.join(packet['tags'])}")
    if public_url:
        lines.append(f"published  {public_url}" + (f" (since {published_at})" if published_at else ""))
    if read_from:
        lines.append(f"\nresume it with `ltm resume {read_from}` (no account needed)")
    else:
        lines.append(f"\nresume it with `ltm resume {packet['id']}`")
    return "\n".join(lines)
