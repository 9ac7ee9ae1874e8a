"""The bench's --without-search-index (bench/bench.py): after drop_search_index(), pushes still
work and what they store is left out of the search index, so the bench measures what the index
costs a push. The test's transaction puts the index back."""

import importlib.util
from pathlib import Path

import pytest
from django.db import connection

from packets.models import Packet
from packets.search.selectors import search_packets
from packets.testing import push_packet

pytestmark = pytest.mark.django_db


@pytest.fixture
def bench(monkeypatch):
    """bench/bench.py, a script: loaded from its file, with its folder on the path for live_hub."""
    folder = Path(__file__).resolve().parents[3] / "bench"
    monkeypatch.syspath_prepend(str(folder))
    spec = importlib.util.spec_from_file_location("bench_script", folder / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_packets_pushed_after_the_drop_are_stored_but_not_indexed(bench, alice):
    bench.drop_search_index()
    push_packet(alice, goal="zebra crossing")

    assert Packet.objects.filter(owner=alice).count() == 1
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            columns = {
                column.name for column in connection.introspection.get_table_description(cursor, "packets_packet")
            }
        assert "search_vector" not in columns
    else:
        # A search first indexes what waits (packets/search/selectors.py): nothing was named to wait.
        assert search_packets(viewer=alice, text="zebra", mode="keyword") == []


def test_a_sqlite_bench_without_the_index_gets_a_file_of_its_own(bench, tmp_path):
    url = bench.database_without_search_index("sqlite:///somewhere/bench.sqlite3", str(tmp_path))
    assert url == f"sqlite:///{tmp_path}/bench-without-search-index.sqlite3"
