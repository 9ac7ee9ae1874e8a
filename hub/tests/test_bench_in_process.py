"""The bench's in-process pass (bench/in_process.py) measures the calls it is given, through
the hub's WSGI application as the web server runs it (hub/wsgi.py), and stops on a call that fails rather than timing an error."""

import pytest

from bench.in_process import cpu_per_call
from packets.testing import SEEDED, seed_packets

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("signals_keep_connection")]


def test_a_pull_costs_more_than_healthz_and_healthz_counts_no_database_cpu(alice, make_token):
    seed_packets(alice, 3)
    auth = {"Authorization": f"Bearer {make_token(alice)}"}
    costs = cpu_per_call(
        {
            "healthz": lambda: ("GET", "/v1/healthz", None, {}),
            "pull": lambda: ("GET", f"/v1/packets/{SEEDED}alice00000001", None, auth),
        },
        batches=3,
        batch_seconds=0.05,
    )
    assert set(costs) == {"healthz", "pull"}
    assert 0 < costs["healthz"]["us"] < costs["pull"]["us"]
    # A healthz never reaches the database: no backend CPU is counted for it (SQLite has no backend).
    assert costs["healthz"]["backend_us"] == 0


def test_a_call_that_does_not_succeed_stops_the_pass(alice):
    with pytest.raises(SystemExit, match="401"):
        cpu_per_call({"pull": lambda: ("GET", f"/v1/packets/{SEEDED}alice00000001", None, {})}, batches=1)
