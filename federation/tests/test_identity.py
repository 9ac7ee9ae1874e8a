"""GET /.well-known/ltm-hub: the hub's identity for other hubs, its keys from LTM_HUB_KEY."""

from django.test import Client

from federation import keys


def test_the_document_names_the_hub_its_inbox_and_its_key_open_to_any_origin(settings, db):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "open", "https://hub-a.example"
    answer = Client().get("/.well-known/ltm-hub")
    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == "*" and "max-age=" in answer["Cache-Control"]
    document = answer.json()
    assert document == {
        "url": "https://hub-a.example",
        "name": "hub-a.example",
        "protocol": "0.2",
        "software": {"name": "ltm-hub", "version": settings.LTM_VERSION},
        "inbox": "https://hub-a.example/v1/federation/inbox",
        "keys": [keys.jwk(keys.key_pair(settings.LTM_HUB_KEY)[1].public_key())],
    }


def test_the_next_key_is_published_beside_the_one_that_signs(settings, db):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "open", "https://hub-a.example"
    current, following = keys.new_key_pem(), keys.new_key_pem()
    settings.LTM_HUB_KEY = current + following
    published = Client().get("/.well-known/ltm-hub").json()["keys"]
    assert [entry["kid"] for entry in published] == [keys.key_pair(current)[0], keys.key_pair(following)[0]]
    assert keys.packet_sign({"id": "x"})["kid"] == keys.key_pair(current)[0]


def test_with_federation_off_there_is_no_document(settings, db):
    settings.LTM_FEDERATION = "off"
    answer = Client().get("/.well-known/ltm-hub")
    assert answer.status_code == 404 and "LTM_FEDERATION=off" in answer.json()["error"]


def test_the_inbox_refuses_everything_with_federation_off(settings, db):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "off", "https://hub-a.example"
    answer = Client().post("/v1/federation/inbox", data=b"{}", content_type="application/json")
    assert answer.status_code == 403 and "LTM_FEDERATION=off" in answer.json()["error"]
