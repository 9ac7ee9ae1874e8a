"""PostgreSQL's search vector is computed by a PL/pgSQL function (migration 0007), which must give
every packet the vector the first definition (migration 0005, a SQL function) gave it: the vectors
stored before the change are not recomputed."""

import importlib
import json

import pytest
from django.db import connection

from core.testing import require_postgresql
from packets.services import packet_push
from packets.testing.search import CORPUS

pytestmark = pytest.mark.django_db

first_search_migration = importlib.import_module("packets.migrations.0005_search")


@pytest.fixture(autouse=True)
def _postgresql_only():
    require_postgresql("the search vector's function is PostgreSQL's")


def test_every_corpus_packet_gets_the_vector_the_first_definition_gave(alice):
    for line in CORPUS.read_text().splitlines():
        packet_push(actor=alice, packet=json.loads(line))
    first_definition = first_search_migration.PG_FORWARD[0].replace(
        "FUNCTION packets_search_vector(", "FUNCTION first_search_vector(", 1
    )
    with connection.cursor() as cursor:
        cursor.execute(first_definition)  # dropped with the test's transaction
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE search_vector = "
            "first_search_vector(goal, tags, next_step, project, body)) FROM packets_packet"
        )
        packets, same = cursor.fetchone()

    assert packets == len(CORPUS.read_text().splitlines()) > 200
    assert same == packets


def test_the_function_is_plpgsql_which_plans_once_per_connection():
    """A SQL function with a FROM clause is parsed and planned again in every INSERT that calls it
    (it cannot be inlined); PL/pgSQL plans its statements once per connection."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
            "WHERE p.proname = 'packets_search_vector'"
        )
        assert cursor.fetchall() == [("plpgsql",)]
