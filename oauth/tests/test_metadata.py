"""The authorization server metadata names where the device grant it advertises starts
(`device_authorization_endpoint`, RFC 8628 §4), on the same origin as its token endpoint."""

from django.test import Client

from oauth.device_flow import DEVICE_GRANT_TYPE
from oauth.testing import FORM, ensure_cli_application


def test_the_metadata_names_the_device_authorization_endpoint(db):
    server = Client().get("/.well-known/oauth-authorization-server").json()
    assert DEVICE_GRANT_TYPE in server["grant_types_supported"]
    assert server["device_authorization_endpoint"] == "http://testserver/oauth/authorize_device"
    assert server["token_endpoint"] == "http://testserver/oauth/token"


def test_a_client_that_reads_the_metadata_starts_a_device_sign_in_there(db, settings):
    settings.ALLOWED_HOSTS = ["hub.example.com"]
    ensure_cli_application()
    server = Client().get("/.well-known/oauth-authorization-server", HTTP_HOST="hub.example.com").json()
    endpoint = server["device_authorization_endpoint"]
    assert endpoint == "http://hub.example.com/oauth/authorize_device"
    started = Client().post(
        endpoint.removeprefix("http://hub.example.com"),
        "client_id=ltm-cli&scope=read",
        content_type=FORM,
        HTTP_HOST="hub.example.com",
    )
    assert started.status_code == 200, started.content
    assert {"device_code", "user_code", "verification_uri"} <= set(started.json())


def test_the_metadata_stays_readable_from_any_origin(db):
    answer = Client().get("/.well-known/oauth-authorization-server")
    assert answer["Access-Control-Allow-Origin"] == "*"
    assert answer["Content-Type"] == "application/json"
