"""The packets' vectors: written beside each packet off the push, read into one matrix per process.

Writing. A push stores its packet with no vector (a re-push clears the old one), so that it
waits; packets.search.vector_queue embeds what waits a moment later, in batches, off the push
(docs/search.md promises 5 seconds), and `manage.py ltm_embed` fills in the packets
pushed before the hub had vectors or while LTM_SEMANTIC was off. A vector is stored only if the
packet was not pushed again while it was computed (its pushed_at unchanged).

Reading: packets.search.matrix keeps every stored vector in memory, and packets.search.semantic
ranks by it within what a viewer may read."""

import json
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from packets.models import Packet
from packets.search import embedding
from packets.sqlite_writers import write_turn

BATCH = 64
CATCH_UP = 16  # at most this many embedded by a search, so that one after a burst of pushes stays quick
# Packets waiting longer than this are left to `ltm_embed` rather than to the web processes.
RECENT = timedelta(days=1)


def waiting(
    *, limit: int = BATCH, recent_only: bool = True, team=None, ids=None, pushed_before=None
) -> list[tuple[str, str, object]]:
    """Up to `limit` packets with no vector, (id, body, pushed_at), oldest push first: only those
    pushed in the last RECENT when `recent_only`, only `team`'s when given, only those of `ids`
    when given, only those pushed before `pushed_before` when given."""
    packets = waiting_packets(recent_only=recent_only, team=team)
    if ids is not None:
        packets = packets.filter(id__in=ids)
    if pushed_before is not None:
        packets = packets.filter(pushed_at__lt=pushed_before)
    return list(packets.order_by("pushed_at", "id").values_list("id", "body", "pushed_at")[:limit])


def waiting_packets(*, recent_only: bool = True, team=None):
    """The packets with no vector (see waiting), as a queryset."""
    packets = Packet.objects.filter(waiting_condition(recent_only=recent_only))
    return packets if team is None else packets.filter(team=team)


def waiting_condition(*, recent_only: bool = True) -> Q:
    """What a packet waiting for its vector is, as a filter."""
    condition = Q(embedding__isnull=True)
    return condition & Q(pushed_at__gte=timezone.now() - RECENT) if recent_only else condition


def embed_rows(rows, *, before_each=None) -> int:
    """Compute and store the vectors of `rows` ((id, body, pushed_at)) in one transaction, each
    only if its packet was not pushed again meanwhile; how many were stored. `before_each()`, when
    given, is called before each vector is computed (packets.search.vector_queue gives way there)."""
    computed = []
    for packet_id, body, pushed_at in rows:
        if before_each:
            before_each()
        computed.append((packet_id, embedding.packet_vector(json.loads(body)), pushed_at))
    # One statement for the batch: a push may be waiting for the writers' turn this holds.
    fields = [Packet._meta.get_field(name) for name in ("embedding", "embedded_at", "id", "pushed_at")]
    columns = [connection.ops.quote_name(field.column) for field in fields]
    sql = (
        f"UPDATE {connection.ops.quote_name(Packet._meta.db_table)} SET {columns[0]} = %s, {columns[1]} = %s "
        f"WHERE {columns[2]} = %s AND {columns[3]} = %s"
    )
    with write_turn(connection, durable=False), transaction.atomic(), connection.cursor() as cursor:
        # The time once the turn is ours, just before the commit: each process's matrix reads what
        # was written since its last look by this time (packets.search.matrix.OVERLAP).
        now = timezone.now()
        params = [
            [field.get_db_prep_value(value, connection) for field, value in zip(fields, row, strict=True)]
            for row in ((vector, now, packet_id, pushed_at) for packet_id, vector, pushed_at in computed)
        ]
        cursor.executemany(sql, params)
        return cursor.rowcount


def vectors_fill(*, missing: bool, team=None, progress=None) -> int:
    """Store the vector of every packet (of `team` only, when given) that has none (`missing`),
    or of every packet, a batch to a transaction; `progress(count)` after each batch. Running it
    again stores the same vectors. How many were stored."""
    stored, after = 0, ""
    while True:
        if missing:
            rows = waiting(recent_only=False, team=team)
        else:
            packets = Packet.objects.filter(id__gt=after).order_by("id")
            rows = list((packets.filter(team=team) if team else packets).values_list("id", "body", "pushed_at")[:BATCH])
        if not rows:
            return stored
        done = embed_rows(rows)
        stored += done
        after = rows[-1][0]
        if progress:
            progress(stored)
        if missing and not done:  # each was pushed again meanwhile: its push embeds it
            return stored


def catch_up() -> None:
    """Embed a few of what waits (the thread of the process that pushed would a moment later), so
    that a search by meaning finds what was pushed just before it, as a keyword search does."""
    rows = waiting(limit=CATCH_UP)
    if rows:
        embed_rows(rows)
