"""What an attacker with no account can send to the OAuth endpoints gets a clear 400, never a 500:
a request with no body, a NUL character in a multipart form or in HTTP Basic credentials (which
PostgreSQL cannot store, so these fail only there before the guard: run them on PostgreSQL too),
registration metadata the database or the JSON parser cannot take; and registration offers only
the grants the authorization server metadata advertises."""

import base64
import json

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_application_model

from oauth.testing import authorize_device, ensure_cli_application

pytestmark = pytest.mark.django_db

NUL = {"error": "NUL characters (\\u0000) are not allowed"}
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def register(**metadata):
    body = {
        "client_name": "agent",
        "redirect_uris": ["https://agent.example/cb"],
        "token_endpoint_auth_method": "none",
        **metadata,
    }
    return Client().post("/oauth/register", json.dumps(body), content_type="application/json")


def test_a_device_authorization_with_no_body_at_all_is_a_400():
    response = Client().generic("POST", "/oauth/authorize_device")
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_request",
        "error_description": "Content-Type must be application/x-www-form-urlencoded",
    }


@pytest.fixture
def code_client():
    """A registered client of the authorization code grant: the token endpoint looks its codes up."""
    response = register()
    assert response.status_code == 201
    return response.json()["client_id"]


@pytest.mark.parametrize(
    "path, fields",
    [
        ("/oauth/token", {"grant_type": DEVICE_GRANT, "client_id": "ltm-cli", "device_code": "ab\x00cd"}),
        (
            "/oauth/token",
            {
                "grant_type": "authorization_code",
                "client_id": "{client}",
                "code": "ab\x00cd",
                "redirect_uri": "https://agent.example/cb",
                "code_verifier": "v" * 43,
            },
        ),
        ("/oauth/device/cancel", {"client_id": "ltm-cli", "device_code": "ab\x00cd"}),
        ("/oauth/authorize_device", {"client_id": "ltm\x00cli", "scope": "read write"}),
        ("/oauth/authorize_device", {"client_id": "ltm-cli", "scope": "read", "na\x00me": "x"}),
    ],
)
def test_a_nul_in_a_multipart_form_field_is_a_400(code_client, path, fields):
    ensure_cli_application()
    fields = {name: value.replace("{client}", code_client) for name, value in fields.items()}
    response = Client().post(path, fields)  # the test client sends multipart/form-data
    assert response.status_code == 400
    assert response.json() == NUL


@pytest.mark.parametrize("credentials", [b"ltm\x00cli:secret", b"ltm%00cli:secret", b"ltm-cli:se\x00cret"])
def test_a_nul_in_basic_credentials_is_a_400(credentials):
    ensure_cli_application()
    response = Client().post(
        "/oauth/token",
        "grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fagent.example%2Fcb",
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION="Basic " + base64.b64encode(credentials).decode(),
    )
    assert response.status_code == 400
    assert response.json() == NUL


def test_multipart_forms_still_work_and_registration_still_reads_its_body():
    ensure_cli_application()
    started = Client().post("/oauth/authorize_device", {"client_id": "ltm-cli"})  # oauthlib wants url-encoded
    assert started.status_code == 400 and "Content-Type" in started.json()["error_description"]
    device_code = authorize_device(Client()).json()["device_code"]
    cancelled = Client().post("/oauth/device/cancel", {"client_id": "ltm-cli", "device_code": device_code})
    assert cancelled.status_code == 200 and cancelled.json() == {"status": "cancelled"}
    registered = Client().post("/oauth/register", {"client_name": "form"})
    assert registered.status_code == 400 and registered.json()["error"] == "invalid_client_metadata"


def test_a_broken_multipart_body_is_a_clear_400():
    response = Client().post("/oauth/token", "no parts", content_type="multipart/form-data")
    assert response.status_code == 400
    assert response.json() == {"error": "the multipart form could not be read: Invalid boundary in multipart: None"}


def test_a_v1_body_declared_multipart_is_still_read_as_json(api_as, alice):
    response = api_as(alice).post("/v1/teams", raw=b'{"name": "alpha"}', content_type="multipart/form-data; boundary=x")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "body, description",
    [
        (
            json.dumps({"client_name": "a\x00b", "redirect_uris": ["https://agent.example/cb"]}),
            "NUL characters (\\u0000) are not allowed",
        ),
        (
            '{"client_name": "agent", "redirect_uris": ["https://agent.example/\\ud800"]}',
            "invalid JSON: a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text",
        ),
        (
            '{"client_name": "\\udfff", "redirect_uris": ["https://agent.example/cb"]}',
            "invalid JSON: a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text",
        ),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON: nested more than 32 levels deep"),
        (
            '{"redirect_uris": ["https://agent.example/cb"], "x": ' + "[" * 50 + "]" * 50 + "}",
            "invalid JSON: nested more than 32 levels deep",
        ),
        (b'{"client_name": "\xff"}', "the body is not valid UTF-8 (byte 17)"),
    ],
)
def test_registration_metadata_the_hub_cannot_store_is_a_400(body, description):
    response = Client().post("/oauth/register", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"error": "invalid_client_metadata", "error_description": description}
    assert not get_application_model().objects.exclude(client_id="ltm-cli").exists()


@pytest.mark.parametrize("name", [42, ["agent"], {"en": "agent"}, None])
def test_a_client_name_that_is_not_a_string_is_refused(name):
    response = register(client_name=name)
    assert response.status_code == 400
    assert response.json() == {"error": "invalid_client_metadata", "error_description": "client_name must be a string"}


@pytest.mark.parametrize(
    "field, value",
    [
        ("grant_types", "client_credentials"),
        ("grant_types", "password"),
        ("grant_types", "implicit"),
        ("grant_types", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
        ("response_types", "token"),
        ("response_types", "id_token"),
    ],
)
def test_registration_refuses_what_the_metadata_does_not_advertise(field, value):
    advertised = Client().get("/.well-known/oauth-authorization-server").json()[f"{field}_supported"]
    assert value not in advertised
    response = register(**{field: [value]})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_client_metadata"
    assert body["error_description"].startswith(f"{field} {value!r} is not offered by this hub")
    assert not get_application_model().objects.filter(name="agent").exists()


@pytest.mark.parametrize("field", ["grant_types", "response_types"])
@pytest.mark.parametrize("value", ["code", ["code", 7]])
def test_grant_and_response_types_must_be_arrays_of_strings(field, value):
    response = register(**{field: value})
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_client_metadata",
        "error_description": f"{field} must be an array of strings",
    }


def test_what_the_metadata_advertises_registers():
    response = register(grant_types=["authorization_code", "refresh_token"], response_types=["code"])
    assert response.status_code == 201, response.content


def test_a_client_credentials_application_gets_no_token_without_a_person():
    """An application of the client credentials grant (made before registration refused it, or in
    the admin) is refused at the token endpoint: its token would act for no one."""
    Application = get_application_model()
    app = Application(
        name="machine",
        client_type=Application.CLIENT_CONFIDENTIAL,
        client_secret="s3cret-s3cret",
        authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
        hash_client_secret=True,
    )
    app.save()
    credentials = base64.b64encode(f"{app.client_id}:s3cret-s3cret".encode()).decode()
    response = Client().post(
        "/oauth/token",
        "grant_type=client_credentials",
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=f"Basic {credentials}",
    )
    assert response.status_code == 400
    assert response.json()["error"] == "unauthorized_client"
    assert not get_access_token_model().objects.filter(application=app).exists()


def test_registrations_are_limited_per_address():
    assert all(register().status_code == 201 for _ in range(20))
    refused = register()
    assert refused.status_code == 429
    assert refused.json()["error"] == "slow_down"
    assert refused["Retry-After"] == "60"
    assert (
        Client(REMOTE_ADDR="192.0.2.7")
        .post(
            "/oauth/register",
            json.dumps({"redirect_uris": ["https://agent.example/cb"]}),
            content_type="application/json",
        )
        .status_code
        == 201
    )
