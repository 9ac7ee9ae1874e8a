"""The bench's database (bench/bench.py): created if missing, migrated, the users `bench` and
`bench-search` with their tokens, and their packets seeded by bulk inserts (not the API); and
--without-search-index's database of its own, whose packets are never indexed for search.

It re-seeds the packets of those two users: never point it at production.
"""

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
# Rows to an INSERT: PostgreSQL takes at most 65,535 parameters in a statement (16 columns a row).
BULK_ROWS = 2000
sys.path.insert(0, str(ROOT))


def _postgresql_admin(url: str):
    """A connection to the `postgres` database of the server `url` names, for creating and
    dropping databases; None when `url` is not PostgreSQL's."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        return None
    import psycopg

    return psycopg.connect(parts._replace(scheme="postgresql", path="/postgres").geturl(), autocommit=True)


def create_database_if_missing(url: str) -> None:
    if (admin := _postgresql_admin(url)) is None:
        return
    from psycopg import sql

    name = urlsplit(url).path.lstrip("/")
    with admin as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def setup_database() -> str:
    """Migrate and create the bench user and its token. Returns the token."""
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.services import api_token_create, user_upsert

    call_command("migrate", verbosity=0)
    user, _ = user_upsert(username="bench")
    _, token = api_token_create(actor=user, name="bench")
    return token


def database_without_search_index(url: str, scratch: str) -> str:
    """The URL of a database of its own for --without-search-index, dropped if it exists (the bench
    creates it), so that no later run of the bench meets a database whose search index is gone."""
    if (admin := _postgresql_admin(url)) is None:
        return f"sqlite:///{scratch}/bench-without-search-index.sqlite3"
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/") + "_without_search_index"
    with admin as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return parts._replace(path=f"/{name}").geturl()


def drop_search_index() -> None:
    """Packets written from now on are not indexed for search: PostgreSQL loses the stored search
    vector (and its GIN index), SQLite the triggers that name a packet for its FTS5 index
    (packets/migrations/0016), once the index holds what is there. Search itself no longer works
    in this database."""
    from django.db import connection

    from packets.models import Packet
    from packets.search import sqlite_index

    table = connection.ops.quote_name(Packet._meta.db_table)
    if connection.vendor == "postgresql":
        statements = [f"ALTER TABLE {table} DROP COLUMN search_vector"]
    else:
        sqlite_index.catch_up()  # else the first search would build it from every packet there
        statements = ["DROP TRIGGER packets_search_insert", "DROP TRIGGER packets_search_update"]
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def delete_packets(owner) -> None:
    """Every packet of `owner`. Rows that cascade from a packet make Django collect the packets
    first, one parameter each: in chunks, under PostgreSQL's limit of 65,535 parameters."""
    from packets.models import Packet

    while ids := list(Packet.objects.filter(owner=owner).values_list("id", flat=True)[:10_000]):
        Packet.objects.filter(id__in=ids).delete()


def seed(count: int) -> str:
    """Replace the bench user's packets with `count` 3 KB packets (bulk insert, not the API), a
    second apart. Returns the id of one in the middle."""
    from accounts.models import User
    from packets.models import Packet

    user = User.objects.get(username="bench")
    delete_packets(user)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    body = packet_template()
    vector = vector_columns(json.loads(body))  # every body is the same but for its id
    for first in range(0, count, 5000):
        ids = [f"01BENCH{i:019d}" for i in range(first, min(count, first + 5000))]
        Packet.objects.bulk_create(
            (
                Packet(
                    id=pid,
                    owner=user,
                    ltm_version="0.2",
                    created_at=start + timedelta(seconds=first + n),
                    goal=f"bench goal {first + n}",
                    next_step="next",
                    body=body.replace("__ID__", pid),
                    **vector,
                )
                for n, pid in enumerate(ids)
            ),
            batch_size=BULK_ROWS,
        )
    vacuum()
    return f"01BENCH{count // 2:019d}"


# Queries of the search row, from narrow (a few hundred matches in 100,000 packets) to broad
# (thousands): what a person types, a phrase, an exclusion and a pasted id prefix.
SEARCH_QUERIES = [
    "flaky test 107",
    "cache stampede",
    "deadlock invoice numbers",
    "memory leak thumbnail worker",
    '"connection pool exhausted"',
    "dark mode -android",
    "retried uploads",
    "kafka consumer lag",
    "slow queries postgresql",
    "flaky tests",
    "01SEARCH000000000000004",
    "token bucket redis",
]

# Packets of `bench-search` whose related packets the `related` row asks for, across the corpus.
RELATED_IDS = [f"01SEARCH{n:018d}" for n in range(7, 100_000, 9_973)]


def semantic_on() -> bool:
    from packets.search import meaning

    return meaning.enabled()


def seed_search(count: int) -> str:
    """Give a second user, `bench-search`, `count` varied packets: each mixes the goal, next step,
    decisions, attempts and tags of different packets of the search corpus, so a word is in a few
    hundred to a few thousand packets, as in a real hub, not in all of them. Returns its token."""
    import random

    from accounts.services import api_token_create, user_upsert
    from ltm.protocol.packet import canonical_json
    from packets.models import Packet

    corpus = [json.loads(line) for line in (ROOT / "packets/tests/search/search_corpus.jsonl").read_text().splitlines()]
    user, _ = user_upsert(username="bench-search")
    delete_packets(user)
    rng = random.Random(14)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for first in range(0, count, 5000):
        rows = []
        for n in range(first, min(count, first + 5000)):
            goal, step, more, other = (rng.choice(corpus) for _ in range(4))
            packet = {
                "ltm_version": "0.2",
                "id": f"01SEARCH{n:018d}",
                "goal": goal["goal"],
                "next_step": step["next_step"],
                "created_at": (start + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "project": goal.get("project", {}),
                "tags": sorted(set(goal.get("tags", []) + other.get("tags", []))),
                "decisions": more.get("decisions", []) + other.get("decisions", []),
                "attempts": more.get("attempts", []) + other.get("attempts", []),
                "open_questions": other.get("open_questions", []),
            }
            rows.append(
                Packet(
                    id=packet["id"],
                    owner=user,
                    ltm_version="0.2",
                    created_at=start + timedelta(seconds=n),
                    goal=packet["goal"],
                    next_step=packet["next_step"],
                    project=packet["project"].get("name", ""),
                    tags=" " + " ".join(packet["tags"]) + " " if packet["tags"] else "",
                    body=canonical_json(packet),
                    **vector_columns(packet),
                )
            )
        Packet.objects.bulk_create(rows, batch_size=BULK_ROWS)
    vacuum()
    return api_token_create(actor=user, name="bench")[1]


def vector_columns(packet: dict) -> dict:
    """The packet's vector for recall by meaning, stored as the hub stores it after a push
    (packets/search/vectors.py), so that no seeded packet waits for one; none with LTM_SEMANTIC=off."""
    from django.utils import timezone

    from packets.search import embedding, meaning

    if not meaning.enabled():
        return {}
    return {"embedding": embedding.packet_vector(packet), "embedded_at": timezone.now()}


def vacuum() -> None:
    """Settle what the bulk inserts left for later writes, so the measured calls do not pay it."""
    from django.db import connection

    from packets.models import Packet

    if connection.vendor == "postgresql":
        # What autovacuum would reach by itself, done now rather than in the middle of a measurement.
        # After 100,000 rows were replaced it may take longer than the hub's statement timeout.
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
            connection.connection.answer_timeout = None  # nor does the hub stop waiting (hub.backends.postgresql)
            cursor.execute(f"VACUUM ANALYZE {Packet._meta.db_table}")
    else:
        # Index the seeded packets, which wait for the search index (packets/search/queue.py: only
        # a push wakes the hub's indexing thread), then merge the FTS5 segments that leaves, which
        # FTS5 would otherwise merge a little at a time on later writes: right after the seed, the
        # occasional batch that pays for a merge takes many times longer than the others (a hub
        # grown by pushes merges as it goes; figures in bench/README.md).
        from packets.search import sqlite_index

        sqlite_index.catch_up()
        sqlite_index.optimize()


def packet_count() -> int:
    from packets.models import Packet

    return Packet.objects.filter(owner__username="bench").count()


def packet_template() -> str:
    """The protocol's example packet (3 KB of canonical JSON) with "__ID__" for its id."""
    from ltm.protocol.packet import canonical_json, example_packet

    return canonical_json(dict(example_packet(), id="__ID__"))
