"""What an export reads: every packet the viewer may read (or one team's), threads together, a
batch at a time."""

from typing import NamedTuple

from django.db import connection

from packets.models import Packet, content_readable_sql
from teams.models import Team


def _content_scope_sql(alias: str, viewer, team) -> tuple[str, list]:
    """Whose content the viewer may read (READ, not HELD), of all their packets or only of `team`'s
    when a team is given (nothing of a team whose packets they may not read)."""
    scope, params = content_readable_sql(alias, viewer)
    if team is not None:
        return f"({alias}.team_id = %s AND {scope})", [team.pk, *params]
    return scope, params


EXPORT_BATCH = 500  # packets read at a time: the web process holds no more than this many


class ExportRow(NamedTuple):
    id: str
    body: str
    parent_id: str
    team_name: str | None


def packets_for_export(*, viewer, team=None, batch: int = EXPORT_BATCH) -> "ExportRows":
    """Every packet the viewer may read (or only `team`'s), threads together: threads in the order
    their first packet was created, each thread's packets oldest first; a thread starts at a
    packet whose parent is not in the export, and packets no start leads to (a parent_id cycle)
    come last, oldest first. A packet the secret scan holds back from the viewer (HELD) is left
    out. Iterate the result for ExportRows; close it when done."""
    packets = Packet._meta.db_table
    scope, scope_params = _content_scope_sql("p", viewer, team)
    parent_scope, parent_params = _content_scope_sql("q", viewer, team)
    order_sql = (
        "WITH RECURSIVE tree(id, created_at, start_created_at, start_id) AS ("
        f"  SELECT p.id, p.created_at, p.created_at, p.id FROM {packets} p WHERE {scope} AND NOT EXISTS "
        f"    (SELECT 1 FROM {packets} q WHERE q.id = p.parent_id AND {parent_scope})"
        "  UNION SELECT p.id, p.created_at, tree.start_created_at, tree.start_id "
        f"  FROM {packets} p JOIN tree ON p.parent_id = tree.id WHERE {scope}"
        ") "
        "SELECT id FROM ("
        "  SELECT id, 0 AS unreached, start_created_at, start_id, created_at FROM tree "
        "  UNION ALL "
        f" SELECT p.id, 1, p.created_at, p.id, p.created_at FROM {packets} p WHERE {scope} "
        "  AND NOT EXISTS (SELECT 1 FROM tree WHERE tree.id = p.id)"
        ") ordered ORDER BY unreached, start_created_at, start_id, created_at, id"
    )
    return ExportRows(order_sql, [*scope_params, *parent_params, *scope_params, *scope_params], batch)


class ExportRows:
    """The packets of an export, in order. One query orders the ids (a recursive walk of every
    thread, sorted by the database) and is read through a server-side cursor (PostgreSQL; SQLite
    steps through its result); the packets themselves are read `batch` ids at a time, so memory
    stays flat however many there are.

    The ordering query, the expensive part, runs when this is made: a failure there is an error
    answer, not a download cut short. Django calls close() when the response is done."""

    def __init__(self, order_sql: str, params: list, batch: int):
        self.batch = batch
        self.ordered = connection.chunked_cursor()
        try:
            self.ordered.execute(order_sql, params)
        except Exception:
            self.ordered.close()
            raise

    def __iter__(self):
        packets, teams = Packet._meta.db_table, Team._meta.db_table
        with connection.cursor() as cursor:
            while ids := [row[0] for row in self.ordered.fetchmany(self.batch)]:
                cursor.execute(
                    f"SELECT p.id, p.body, p.parent_id, t.name FROM {packets} p "
                    f"LEFT JOIN {teams} t ON t.id = p.team_id WHERE p.id IN ({', '.join(['%s'] * len(ids))})",
                    ids,
                )
                found = {row[0]: ExportRow(*row) for row in cursor.fetchall()}
                yield from (found[packet_id] for packet_id in ids if packet_id in found)  # deleted meanwhile: gone
        self.close()

    def close(self) -> None:
        self.ordered.close()


def packet_export_count(*, viewer, team=None) -> int:
    """How many packets an export holds (for the client's progress bar)."""
    packets = Packet.objects.content_visible_to(viewer)
    return (packets.filter(team=team) if team is not None else packets).count()
