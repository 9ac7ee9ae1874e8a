"""Everything a person may read, as one streamed document: GET /v1/export and the dashboard's
download buttons. The rows come from packets.export.selectors.packets_for_export a page at a time and
leave as text in chunks, so memory stays flat however many packets there are."""

import json
import re

from django.http import StreamingHttpResponse
from django.utils import timezone

from core.timestamps import rfc3339
from ltm.protocol.resume import render_section
from packets.export import selectors

FORMATS = {
    "jsonl": ("application/x-ndjson; charset=utf-8", "jsonl"),
    "markdown": ("text/markdown; charset=utf-8", "md"),
}
CHUNK_BYTES = 64 * 1024


def export_response(*, viewer, team=None, format: str) -> StreamingHttpResponse:
    """The export as a download; `format` is a key of FORMATS (the caller checked it). The header
    X-LTM-Export-Count says how many packets follow, for a progress bar."""
    content_type, extension = FORMATS[format]
    rows = selectors.packets_for_export(viewer=viewer, team=team)
    parts = _jsonl(rows) if format == "jsonl" else _markdown(rows, team)
    response = StreamingHttpResponse(_Body(_chunks(parts), rows), content_type=content_type)
    scope = f"team-{team.name}" if team is not None else "all"
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="ltm-export-{scope}-{stamp}.{extension}"'
    response["X-LTM-Export-Count"] = str(selectors.packet_export_count(viewer=viewer, team=team))
    response["Cache-Control"] = "no-store"
    return response


# A raw line break cannot occur inside a JSON string (it must be escaped there), so every line
# break of a stored body, and the indentation after it, is whitespace between tokens.
_LINE_BREAK = re.compile(r"\n *")


class _Body:
    """The response's body: Django calls close() when the response is done (read to the end, or
    the client left), which frees the export's cursor even if nothing was read."""

    def __init__(self, chunks, rows):
        self.chunks, self.rows = chunks, rows

    def __iter__(self):
        return self.chunks

    def close(self) -> None:
        self.rows.close()


def _jsonl(rows):
    """One packet a line: the body pull returns for it with its line breaks and indentation taken
    out (no parsing, so an export costs little more than reading its packets)."""
    for row in rows:
        yield _LINE_BREAK.sub("", row.body) + "\n"


def _markdown(rows, team):
    where = f"team {team.name}" if team is not None else "your personal packets and your teams'"
    yield (
        f"# ltm export\n\nExported {rfc3339(timezone.now().replace(microsecond=0))}: {where}. Packets of a thread (linked by "
        "parent_id) follow each other, oldest first; threads are in the order they began.\n"
    )
    for row in rows:
        packet = json.loads(row.body)
        facts = [f"Packet: `{row.id}`", f"Created: {packet.get('created_at', '')}"]
        facts.append(f"Team: {row.team_name}" if row.team_name else "Personal")
        if row.parent_id:
            facts.append(f"Continues: `{row.parent_id}`")
        yield "\n---\n\n" + render_section(packet, facts)


def _chunks(parts):
    """Join small parts into chunks of about CHUNK_BYTES: fewer writes to the socket."""
    buffer, size = [], 0
    for part in parts:
        data = part.encode("utf-8")
        buffer.append(data)
        size += len(data)
        if size >= CHUNK_BYTES:
            yield b"".join(buffer)
            buffer, size = [], 0
    if buffer:
        yield b"".join(buffer)
