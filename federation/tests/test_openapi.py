"""Federation in the OpenAPI description: the identity document, the inbox, and the remote share
of POST /v1/packets/{id}/shares and GET /v1/shares, real answers checked against it."""

import pytest

from core.testing import assert_described, openapi_document, openapi_operations
from packets.testing import push_packet
from packets.testing.sharing import share

pytestmark = pytest.mark.django_db


@pytest.fixture
def document():
    return openapi_document()


def test_the_identity_document_and_the_inbox_are_described_with_their_refusals(document):
    described = openapi_operations(document)
    assert set(described[("get", "/.well-known/ltm-hub")]["responses"]) >= {"200", "404"}
    inbox = described[("post", "/v1/federation/inbox")]
    assert set(inbox["responses"]) >= {"200", "400", "401", "403", "404", "409", "422"}
    assert {parameter["name"] for parameter in inbox["parameters"]} >= {
        "Signature",
        "Signature-Input",
        "Content-Digest",
    }


def test_a_remote_share_and_the_document_answer_as_described(
    document, settings, api_as, alice, client, django_capture_on_commit_callbacks
):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "open", "http://127.0.0.1:8000"
    assert_described(document, "get", "/.well-known/ltm-hub", client.get("/.well-known/ltm-hub"))
    api = api_as(alice)
    packet = push_packet(alice)
    # Nothing listens on port 9: the share stays pending, its reason the failed attempt.
    with django_capture_on_commit_callbacks(execute=True):
        created = share(api, packet.pk, "bob@127.0.0.1:9")
    assert created.status_code == 202, created.content
    assert_described(document, "post", "/v1/packets/{}/shares", created)
    share(api, push_packet(alice).pk, "bob")  # unknown here: a 404, no share
    listed = api.get("/v1/shares?direction=out")
    assert_described(document, "get", "/v1/shares", listed)
    [remote] = listed.json()["shares"]
    assert remote["state"] == "pending" and "refused" in remote["reason"]
