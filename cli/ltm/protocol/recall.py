"""The recall briefing: the earlier packets most related to the task at hand, each with its goal,
the attempts that did not work with what they taught, and the decisions that were locked. What an
agent reads before it starts, so that it does not retry what failed or reopen what was settled.
Written once for the `recall` tool of both MCP servers and for `ltm recall`.

Like the rest of ltm.protocol it imports nothing else of ltm."""

from __future__ import annotations

HOW = {("keyword",): "its words", ("semantic",): "its meaning", ("keyword", "semantic"): "its words and meaning"}


def render_recall(task: str, found: list[tuple[dict, dict]]) -> str:
    """Markdown for the packets `found` for `task`: (search result, packet) pairs, best first."""
    if not found:
        return (
            f"# Recall: {task}\n\nNo earlier packet you may read is related to this task. "
            "Start fresh, and save a packet when you stop.\n"
        )
    parts = [
        f"# Recall: {task}",
        f"{len(found)} earlier packet{'s' if len(found) != 1 else ''} related to this task, most related first. "
        "Do not retry what failed without new information; locked decisions are settled. "
        "`resume` the one that fits to continue its work.",
    ]
    for number, (result, packet) in enumerate(found, start=1):
        parts.append(_one(number, result, packet))
    return "\n\n".join(parts) + "\n"


def _one(number: int, result: dict, packet: dict) -> str:
    where = f"team {result['team']}" if result.get("team") else "personal"
    if result.get("shared_by"):
        where = f"shared by {result['shared_by']}"
    how = HOW.get(tuple(result.get("matched") or ()), "")
    lines = [f"## {number}. {_text(packet.get('goal')) or result.get('goal', '')}"]
    lines.append(
        f"id `{result['id']}` · {where} · {str(result.get('created_at', ''))[:10]}"
        + (f" · found by {how}" if how else "")
    )
    failed = [a for a in _items(packet, "attempts") if a.get("outcome") != "succeeded"]
    if failed:
        lines.append("\nWhat did not work:")
        for attempt in failed:
            lesson = _text(attempt.get("learned"))
            outcome = _text(attempt.get("outcome")) or "failed"
            lines.append(f"- {_text(attempt.get('tried'))} ({outcome})" + (f": {lesson}" if lesson else ""))
    locked = [d for d in _items(packet, "decisions") if d.get("locked")]
    if locked:
        lines.append("\nLocked decisions:")
        for decision in locked:
            why = _text(decision.get("why"))
            lines.append(f"- {_text(decision.get('what'))}" + (f" (why: {why})" if why else ""))
    next_step = _text(packet.get("next_step"))
    if next_step:
        lines.append(f"\nIts next step was: {next_step}")
    return "\n".join(lines)


def _items(packet: dict, key: str) -> list[dict]:
    value = packet.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text(value) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""
