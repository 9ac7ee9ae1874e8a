"""Recall by meaning: the packets nearest in meaning to one (`ltm related`), and the briefing of
the packets most related to a task (`ltm recall`, the `recall` tool's text)."""

from __future__ import annotations

from ..errors import UsageError
from ..protocol.recall import render_recall
from .packets import pull, search
from .session import connect, packet_call


def related(packet_id: str, limit: int | None = None) -> list[dict]:
    """The packets the person may read nearest in meaning to `packet_id`, best first, in the
    search result shape."""
    hub = connect()
    return packet_call(lambda pid: hub.related(pid, limit=limit), hub, packet_id)


def recall(text: str, team: str | None = None, limit: int | None = None) -> str:
    """The briefing (markdown) of the packets most related to the task `text`."""
    if not text.strip():
        raise UsageError('what is the task at hand? e.g. `ltm recall "tests hang when the suite runs in parallel"`')
    results = [result for result in search(text, team=team, limit=limit or 5, mode="hybrid") if not result.get("held")]
    return render_recall(" ".join(text.split()), [(result, pull(result["id"])) for result in results])
