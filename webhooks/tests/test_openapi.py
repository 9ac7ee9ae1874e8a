"""/v1/webhooks in the OpenAPI description: every operation, and real answers, refusals included,
as described."""

import json

import pytest

from core.testing import assert_described, openapi_document, openapi_operations

OPERATIONS = [
    ("post", "/v1/webhooks"),
    ("get", "/v1/webhooks"),
    ("get", "/v1/webhooks/{}"),
    ("patch", "/v1/webhooks/{}"),
    ("delete", "/v1/webhooks/{}"),
    ("post", "/v1/webhooks/{}/rotate"),
    ("post", "/v1/webhooks/{}/ping"),
    ("get", "/v1/webhooks/{}/deliveries"),
    ("post", "/v1/webhooks/{}/deliveries/{}/redeliver"),
]


@pytest.fixture(scope="module")
def document(django_db_blocker):
    with django_db_blocker.unblock():
        return openapi_document()


def test_every_webhook_operation_is_described(document):
    described = openapi_operations(document)
    for operation in OPERATIONS:
        assert operation in described, operation


@pytest.mark.django_db
def test_real_answers_validate_against_the_description(
    document, api_as, alice, bob, django_capture_on_commit_callbacks
):
    api = api_as(alice)
    made = api.post("/v1/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["packet.created"]})
    assert_described(document, "post", "/v1/webhooks", made)
    hook = made.json()["id"]
    assert_described(document, "get", "/v1/webhooks", api.get("/v1/webhooks"))
    assert_described(document, "get", "/v1/webhooks/{}", api.get(f"/v1/webhooks/{hook}"))
    changed = api.client.patch(
        f"/v1/webhooks/{hook}", json.dumps({"description": "CI"}), content_type="application/json", **api._headers({})
    )
    assert_described(document, "patch", "/v1/webhooks/{}", changed)
    assert_described(document, "post", "/v1/webhooks/{}/rotate", api.post(f"/v1/webhooks/{hook}/rotate"))
    with django_capture_on_commit_callbacks(execute=True):  # sent to a closed port: it fails
        pinged = api.post(f"/v1/webhooks/{hook}/ping")
    assert_described(document, "post", "/v1/webhooks/{}/ping", pinged)
    assert_described(document, "get", "/v1/webhooks/{}/deliveries", api.get(f"/v1/webhooks/{hook}/deliveries?limit=5"))
    redelivered = api.post(f"/v1/webhooks/{hook}/deliveries/{pinged.json()['id']}/redeliver")
    assert_described(document, "post", "/v1/webhooks/{}/deliveries/{}/redeliver", redelivered)
    refusals = {
        ("post", "/v1/webhooks", 400): api.post("/v1/webhooks", {"url": "http://10.0.0.1/", "events": ["x"]}),
        ("get", "/v1/webhooks/{}", 404): api_as(bob).get(f"/v1/webhooks/{hook}"),
        ("get", "/v1/webhooks/{}/deliveries", 400): api.get(f"/v1/webhooks/{hook}/deliveries?limit=0"),
    }
    for (method, path, status), refused in refusals.items():
        assert refused.status_code == status
        assert_described(document, method, path, refused)
    assert api.delete(f"/v1/webhooks/{hook}").status_code == 204
