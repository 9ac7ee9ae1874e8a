"""Fixtures of the CLI tests: a clean config folder, and the real hub (pytest-django's live server)
with the client signed in to it (live.py)."""

import pytest

from cli.testing.command_line import numbered, out_of, packet_with, write_packet
from cli.testing.live import LiveHub, hub_missing


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    """An empty config folder that the client will create; no host from the environment."""
    folder = tmp_path / "ltm-config"
    monkeypatch.setenv("LTM_CONFIG_DIR", str(folder))
    for name in ("LTM_HUB_URL", "LTM_HOST", "LTM_USER", "LTM_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    return folder


MISSING = hub_missing()

if MISSING is None:

    @pytest.fixture
    def hub(transactional_db, live_server, config_dir, monkeypatch):
        """The real hub, on the suite's database; the client signed in to it as alice (her token
        in `config_dir`, the host in LTM_HUB_URL), each request it sends recorded in `hub.sent`."""
        live = LiveHub(live_server.url, config_dir, monkeypatch)
        live.as_user("alice")
        return live

else:

    @pytest.fixture
    def hub():
        pytest.skip(MISSING)


@pytest.fixture
def two_packets(hub, tmp_path, capsys):
    """Two of alice's packets, the second continuing the first."""
    first = packet_with(id="01HV00000000000000000000A1", goal="First goal")
    second = packet_with(id="01HV00000000000000000000B2", goal="Second goal", parent_id=first["id"])
    for packet in (first, second):
        out_of(capsys, ["push", write_packet(tmp_path, packet, packet["id"])])
    return first, second


@pytest.fixture
def chain(hub, tmp_path, capsys):
    """Three of alice's packets, each continuing the one before; the first has a locked decision
    and a failed attempt the last does not repeat."""
    first = numbered(
        1,
        decisions=[{"what": "Keep SQLite", "why": "one file", "locked": True}],
        attempts=[{"tried": "A cache", "outcome": "failed", "learned": "stale reads"}],
    )
    second = numbered(2, parent_id=first["id"])
    third = numbered(3, parent_id=second["id"], decisions=[], attempts=[])
    for body in (first, second, third):
        out_of(capsys, ["push", write_packet(tmp_path, body, body["id"])])
    return first, second, third
