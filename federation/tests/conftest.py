"""Two hubs side by side: the suite's own (pytest-django's live server on the suite's database,
"hub A") and another in a process of its own ("hub B", federation.testing), each with its key,
talking to each other over http on loopback."""

import os
from urllib.parse import urlsplit

import pytest
from django.test import Client

from federation.testing import migrated_template, other_hub, signed_message

INBOX = "/v1/federation/inbox"


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


@pytest.fixture
def send(hub_a, hub_b):
    """send(message, key_pem=B's, created=now, body=None) -> hub A's inbox's answer to a message
    signed as B (or with another key), its body replaced by `body` after signing if given."""

    def post(message, *, key_pem=None, created=None, body=None, headers=None):
        signed_body, signed = signed_message(
            message, url=hub_a + INBOX, key_pem=key_pem or hub_b.key_pem, created=created
        )
        sent_headers = {**signed, **(headers or {})}
        return Client().post(INBOX, data=body or signed_body, content_type="application/json", headers=sent_headers)

    return post
