"""Two hubs side by side: the suite's own (pytest-django's live server on the suite's database,
"hub A") and another in a process of its own ("hub B", federation.testing), each with its key,
talking to each other over http on loopback."""

import os
from urllib.parse import urlsplit

import pytest

from federation.testing import migrated_template, other_hub


@pytest.fixture(scope="session")
def hubs_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("hubs")


@pytest.fixture(scope="session")
def hub_template(hubs_folder):
    return migrated_template(hubs_folder)


@pytest.fixture(scope="session")
def hub_b(live_server, hubs_folder, hub_template):
    second = os.environ.get("FEDERATION_SECOND_DATABASE_URL")
    hub = other_hub(hubs_folder, hub_template, peers=[urlsplit(live_server.url).netloc], database=second).start()
    yield hub
    hub.stop()


@pytest.fixture
def hub_a(live_server, settings, hub_b):
    """The suite's hub, federating with hub B (allowlist); its URL."""
    settings.LTM_EXTERNAL_URL = live_server.url
    settings.LTM_FEDERATION = "allowlist"
    settings.LTM_FEDERATION_PEERS = [hub_b.host]
    return live_server.url
