"""Ranking by meaning within what a viewer may read.

The matrix of every stored vector (packets.search.matrix) ranks the rows within the viewer's
reach, as READ draws it (their personal packets, their teams', those shared with them, read from
the database at each search); the read rule itself, and whatever narrows the search, is then a
SQL condition on the packets row `p` that the best candidates are checked against in growing
batches, until enough pass or none is left. Nothing about who may read what is cached."""

from dataclasses import dataclass

import numpy as np
from django.db import connection

from packets.models import READ, Packet, Share
from packets.search import vectors
from packets.search.matrix import matrix
from teams.models import Team

FIRST_BATCH = 64
MAX_BATCH = 4096  # ids in one IN (...) list


@dataclass(frozen=True)
class Reach:
    """The packets a viewer may read, as the matrix can tell them apart: those personal to `owner`,
    those of the teams `team_ids`, and `packet_ids` (shared with them)."""

    owner: object = None
    team_ids: tuple = ()
    packet_ids: tuple = ()


def reach(viewer, *, team_name: str | None = None, personal: bool = False) -> Reach:
    """What READ lets `viewer` read, narrowed to their personal packets or to one team's."""
    if personal:
        return Reach(owner=viewer.pk)
    teams_sql, params = READ.teams_sql(viewer)
    if team_name is not None:
        teams_sql = f"SELECT id FROM {Team._meta.db_table} WHERE name = %s AND id IN ({teams_sql})"
        with connection.cursor() as cursor:
            cursor.execute(teams_sql, [team_name, *params])
            return Reach(team_ids=tuple(row[0] for row in cursor.fetchall()))
    # The teams and the shares in one statement: one round trip less for every search.
    sql = (
        f"SELECT 'team', team_id FROM ({teams_sql}) teams UNION ALL "
        f"SELECT 'share', packet_id FROM {Share._meta.db_table} WHERE recipient_id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, viewer.pk])
        rows = cursor.fetchall()
    team_ids = tuple(key for kind, key in rows if kind == "team")
    return Reach(owner=viewer.pk, team_ids=team_ids, packet_ids=tuple(key for kind, key in rows if kind == "share"))


def nearest(
    *, vector: np.ndarray, within: Reach, scope_sql: str, scope_params: list, limit: int, leave_out: str = ""
) -> list[tuple[str, float]]:
    """Up to `limit` (packet id, cosine) of the packets within reach that pass `scope_sql`, best
    first, `leave_out` left out."""
    if matrix.refresh():
        # Packets wait for their vector: embed a few (the thread of the process that pushed would
        # a moment later), so that a search finds what was pushed just before it.
        vectors.catch_up()
        matrix.refresh()
    found: list[tuple[str, float]] = []
    batch: list[tuple[str, float]] = []
    size = max(FIRST_BATCH, limit * 2)
    ranked = matrix.ranked(vector, owner=within.owner, team_ids=within.team_ids, packet_ids=within.packet_ids)
    for packet_id, score in ranked:
        if packet_id == leave_out:
            continue
        batch.append((packet_id, score))
        if len(batch) >= size:
            found += _passing(batch, scope_sql, scope_params)
            if len(found) >= limit:
                return found[:limit]
            batch, size = [], min(size * 4, MAX_BATCH)
    found += _passing(batch, scope_sql, scope_params)
    return found[:limit]


def _passing(batch: list[tuple[str, float]], scope_sql: str, scope_params: list) -> list[tuple[str, float]]:
    """The candidates of `batch` that pass the condition, in the batch's order."""
    if not batch:
        return []
    table = connection.ops.quote_name(Packet._meta.db_table)
    ids = [packet_id for packet_id, _ in batch]
    sql = f"SELECT p.id FROM {table} p WHERE p.id IN ({', '.join(['%s'] * len(ids))}) AND {scope_sql}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*ids, *scope_params])
        passing = {row[0] for row in cursor.fetchall()}
    return [(packet_id, score) for packet_id, score in batch if packet_id in passing]
