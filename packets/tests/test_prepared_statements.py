"""On PostgreSQL, the statements of the calls every agent makes (the bearer lookup, pull, list,
push) are prepared on the connection once it has run them a few times: the server then neither
parses nor plans them again, which was most of a pull's database time (hub/settings/base.py)."""

import pytest
from django.db import connection

from core.testing import require_postgresql
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def test_the_hot_calls_run_as_prepared_statements(api_as, alice):
    require_postgresql("prepared statements are PostgreSQL's")
    api = api_as(alice)
    packet = packet_v02()
    assert api.post("/v1/packets", packet).status_code == 201
    before = prepared_statements()

    for _ in range(6):
        assert api.get(f"/v1/packets/{packet['id']}").status_code == 200
        assert api.get("/v1/packets?limit=50").status_code == 200
        assert api.post("/v1/packets", packet_v02()).status_code == 201
    prepared = prepared_statements()

    assert not any("token_hash" in statement for statement in before)
    hot = {
        "bearer lookup": "token_hash = $",
        "pull": "FROM packets_packet WHERE id = $",
        "list": "ORDER BY created_at DESC, id DESC LIMIT ",
        "push": "ON CONFLICT (id) DO UPDATE",
    }
    missing = {call: text for call, text in hot.items() if not any(text in statement for statement in prepared)}
    assert missing == {}, prepared


def test_the_list_and_the_pull_are_planned_once(api_as, alice):
    # PostgreSQL plans a prepared statement anew on every call unless its generic plan looks no
    # worse than the plans made for the values: a bound LIMIT made the list's look worse.
    require_postgresql("prepared statements are PostgreSQL's")
    api = api_as(alice)
    packet = packet_v02()
    assert api.post("/v1/packets", packet).status_code == 201
    for _ in range(12):
        assert api.get(f"/v1/packets/{packet['id']}").status_code == 200
        assert api.get("/v1/packets?limit=50").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        plans = cursor.fetchall()
    hot = {"pull": "FROM packets_packet WHERE id = $", "list": "ORDER BY created_at DESC, id DESC LIMIT 50"}
    replanned = {
        call: [(generic, custom) for statement, generic, custom in plans if text in statement]
        for call, text in hot.items()
    }
    assert all(found and all(generic > 0 for generic, _ in found) for found in replanned.values()), replanned
