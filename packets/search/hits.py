"""A search's results (a Hit each) and their snippets: the piece of text around the matched
words, the words marked. Made from the packet's JSON, the same way on both databases; a packet
found by meaning alone, with no word in common, shows the start of its next step."""

import json
import re
from dataclasses import dataclass, field

from core.timestamps import rfc3339
from ltm.protocol.tool_calls import search_result
from packets.models import Packet
from packets.search.query import WORD, stem

SNIPPET_CHARS = 200


@dataclass
class Hit:
    packet: Packet  # id, created_at, goal, next_step, body, tags, project, owner_id, team_id, public_slug, quarantined, held
    team: str | None
    score: float  # 0 to 1, higher is better; 1 for a packet named by its id
    snippet: list[tuple[str, bool]]  # (text, is a match) pieces; their texts joined are the snippet
    goal: list[tuple[str, bool]]  # the goal, in the same pieces
    shared_by: str | None = None  # who shared it with the viewer, if someone did
    matched: tuple[str, ...] = field(default=())  # how it was found: "keyword", "semantic"

    @property
    def snippet_text(self) -> str:
        return "".join(text for text, _ in self.snippet)

    def result(self) -> dict:
        """The hit as /v1/search lists it: ltm.protocol's `search_result`, the shape of both
        `search` tools (SearchResultSerializer describes it)."""
        packet = self.packet
        return search_result(
            id=packet.id,
            created_at=rfc3339(packet.created_at),
            goal=packet.goal,
            team=self.team,
            snippet=self.snippet_text,
            score=self.score,
            shared_by=self.shared_by,
            held=self.packet.held,
            matched=list(self.matched) or None,
        )


# Snippets: the piece of text around the match, and the matched words marked.


def _texts(packet: Packet) -> list[str]:
    """The packet's searched texts, in the order a snippet prefers them on a tie (the goal late:
    it is shown anyway)."""
    try:
        body = json.loads(packet.body)
    except ValueError:
        body = {}

    def strings(key, *names):
        items = body.get(key) if isinstance(body.get(key), list) else []
        if not names:
            return [item for item in items if isinstance(item, str)]
        return [
            item.get(name)
            for item in items
            if isinstance(item, dict)
            for name in names
            if isinstance(item.get(name), str)
        ]

    return [
        packet.next_step,
        *strings("decisions", "what", "why", "consequences"),
        *strings("attempts", "tried", "learned"),
        *strings("success_criteria"),
        *strings("constraints"),
        *strings("methods", "name", "when_applicable", "how"),
        *strings("open_questions"),
        packet.goal,
        packet.project,
        " ".join(packet.tags.split()),
    ]


def _matches(text: str, stems: set[str]) -> list[re.Match]:
    return [word for word in WORD.finditer(text) if stem(word[0]) in stems]


def snippet(packet: Packet, stems: set[str]) -> list[tuple[str, bool]]:
    """About SNIPPET_CHARS of the text that matches the most query words, around its first
    match; the next step when nothing matches word for word (a packet found by its id)."""
    best, best_count = packet.next_step, 0
    for text in _texts(packet):
        count = len({stem(m[0]) for m in _matches(text, stems)}) if text else 0
        if count > best_count:
            best, best_count = text, count
    matches = _matches(best, stems)
    start = 0
    if matches and matches[0].start() > SNIPPET_CHARS // 3:
        start = best.rfind(" ", 0, matches[0].start() - SNIPPET_CHARS // 3) + 1
    end = len(best)
    if end - start > SNIPPET_CHARS:
        end = best.rfind(" ", start, start + SNIPPET_CHARS)
        end = end if end > start else start + SNIPPET_CHARS
    pieces = marked(best[start:end], stems)
    if start > 0:
        pieces.insert(0, ("…", False))
    if end < len(best):
        pieces.append(("…", False))
    return pieces


def marked(text: str, stems: set[str]) -> list[tuple[str, bool]]:
    """`text` cut into pieces, the words whose stem was searched marked True."""
    pieces, at = [], 0
    for word in _matches(text, stems):
        if word.start() > at:
            pieces.append((text[at : word.start()], False))
        pieces.append((word[0], True))
        at = word.end()
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces
