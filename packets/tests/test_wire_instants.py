"""An instant the database writes as the list reads it (core.timestamps.rfc3339_column) is the
text rfc3339() writes."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection

from core.timestamps import rfc3339, rfc3339_column
from packets.models import Packet
from packets.testing import push_packet

pytestmark = pytest.mark.django_db

INSTANTS = [
    datetime(2026, 11, 26, 6, 50, 30, tzinfo=UTC),  # no fraction: none written
    datetime(2026, 11, 26, 6, 50, 30, 100000, tzinfo=UTC),  # trailing zeros kept
    datetime(2026, 11, 26, 6, 50, 30, 1, tzinfo=UTC),
    datetime(2026, 1, 2, 3, 4, 5, 999999, tzinfo=timezone(timedelta(hours=-7))),  # stored in UTC
    datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC),  # a year of three digits
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
]


@pytest.mark.parametrize("moment", INSTANTS, ids=str)
def test_the_column_reads_as_the_wire_writes_it(alice, moment):
    packet = push_packet(alice)
    Packet.objects.filter(pk=packet.pk).update(created_at=moment)
    sql = rfc3339_column("created_at", connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql} FROM {Packet._meta.db_table} WHERE id = %s", [packet.pk])
        written = cursor.fetchone()[0]
    assert written == rfc3339(moment.astimezone(UTC))
