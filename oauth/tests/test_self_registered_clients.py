"""What a client that registers itself (Dynamic Client Registration, a Client ID Metadata
Document) may hold: tokens for the hub's MCP endpoint, and nothing else. The `resource` it asks
for (RFC 8707) is compared once normalised, and anything but /mcp is invalid_target, on the
consent page and when its form comes back; its tokens reach /mcp only at the bearer door, also
those issued before; the device grant, and the names, are the hub's own clients'."""

import json
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
)

from core.testing import signed_in
from oauth.testing import (
    LOOPBACK,
    MCP,
    approve,
    authorize_device,
    authorize_query,
    ensure_cli_application,
    exchange,
    make_grant,
    pkce,
    poll,
    register,
)

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

pytestmark = pytest.mark.django_db


def _mcp_status(token) -> int:
    return (
        Client()
        .post(
            "/mcp",
            data=json.dumps(TOOLS_LIST),
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        .status_code
    )


def _v1_teams(token):
    return Client().get("/v1/teams", HTTP_AUTHORIZATION=f"Bearer {token}")


def _refused_as_another_resource(response):
    return response.status_code == 401 and response.json() == {"error": "this token was issued for another resource"}


@pytest.mark.parametrize(
    "resource",
    [
        "http://testserver/v1",
        "http://testserver",  # the bare origin: the hub as a whole
        "http://testserver/",
        "http://testserver/mcp/../v1",
        "http://testserver/mcp/%2e%2e/v1",
        "http://testserver/mcp/%2E%2E/v1/teams",
        "http://testserver/mcp/",
        "http://testserver/mcp?all=1",
        "https://testserver/mcp",
        "http://testserver:8000/mcp",
        "https://other.example/mcp",
    ],
)
def test_a_resource_other_than_mcp_is_invalid_target_before_the_person_is_asked(alice, resource):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    answer = signed_in(alice).get(authorize_query(client_id, challenge, resource=resource))
    assert answer.status_code == 302, answer.content
    assert answer["Location"].startswith(LOOPBACK + "?")
    query = parse_qs(urlsplit(answer["Location"]).query)
    assert query["error"] == ["invalid_target"]
    assert "MCP endpoint only" in query["error_description"][0] and MCP in query["error_description"][0]
    assert query["state"] == ["st4te"] and query["iss"] == ["http://testserver"]
    assert not get_grant_model().objects.exists()


def test_an_app_with_its_own_scheme_hears_invalid_target_too(alice):
    cursor = "cursor://anysphere.cursor-mcp/oauth/callback"
    client_id = register(redirect_uris=[cursor]).json()["client_id"]
    _, challenge = pkce()
    query = authorize_query(client_id, challenge, resource="http://testserver/v1", redirect_uri=cursor)
    answer = signed_in(alice).get(query)
    assert answer.status_code == 302, answer.content
    assert answer["Location"].startswith(cursor + "?")
    assert parse_qs(urlsplit(answer["Location"]).query)["error"] == ["invalid_target"]


def test_one_resource_other_than_mcp_among_several_is_refused(alice):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    query = authorize_query(client_id, challenge) + "&" + urlencode({"resource": "http://testserver/v1"})
    answer = signed_in(alice).get(query)
    assert answer.status_code == 302
    assert parse_qs(urlsplit(answer["Location"]).query)["error"] == ["invalid_target"]


@pytest.mark.parametrize(
    "resource",
    ["HTTP://TestServer/mcp", "http://testserver:80/mcp", "http://testserver/%6Dcp", "http://testserver/v1/../mcp"],
)
def test_the_mcp_endpoint_however_written_gives_a_token_for_mcp_only(alice, resource):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    answer = approve(signed_in(alice), client_id, challenge, resource=resource)
    token = exchange(client_id, answer["code"][0], verifier, resource=None)
    assert token.status_code == 200, token.content
    assert get_access_token_model().objects.get(user=alice).resource == [MCP]  # as the hub writes it
    access = token.json()["access_token"]
    assert _mcp_status(access) == 200
    assert _refused_as_another_resource(_v1_teams(access))


def _consent_form(browser, client_id, challenge):
    page = browser.get(authorize_query(client_id, challenge))
    assert page.status_code == 200, page.content
    return {field: page.context["form"][field].value() or "" for field in page.context["form"].fields}


@pytest.mark.parametrize("edited", ["http://testserver/v1", "http://testserver", "http://testserver/mcp/../v1"])
def test_an_edited_consent_form_cannot_widen_the_token(alice, edited):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    browser = signed_in(alice)
    form = _consent_form(browser, client_id, challenge)
    answer = browser.post("/oauth/authorize", {**form, "resource": edited, "allow": "on"})
    assert answer.status_code == 302
    assert parse_qs(urlsplit(answer["Location"]).query)["error"] == ["invalid_target"]
    assert not get_grant_model().objects.exists()


def test_an_emptied_resource_field_still_gives_a_token_for_mcp(alice):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    browser = signed_in(alice)
    form = _consent_form(browser, client_id, challenge)
    answer = browser.post("/oauth/authorize", {**form, "resource": "", "allow": "on"})
    code = parse_qs(urlsplit(answer["Location"]).query)["code"][0]
    token = exchange(client_id, code, verifier, resource=None)
    assert token.status_code == 200, token.content
    assert get_access_token_model().objects.get(user=alice).resource == [MCP]
    assert _refused_as_another_resource(_v1_teams(token.json()["access_token"]))


def test_the_token_endpoint_does_not_widen_it_either(alice):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    answer = approve(signed_in(alice), client_id, challenge)
    refused = exchange(client_id, answer["code"][0], verifier, resource="http://testserver/v1")
    # (The toolkit sends this one JSON without its Content-Type.)
    assert refused.status_code == 400 and json.loads(refused.content)["error"] == "invalid_target"


def test_an_app_allowed_before_gets_a_token_for_mcp_without_asking_again(alice):
    """approval_prompt=auto: the toolkit makes the grant without the page, from the request's
    own resource (or none); it is /mcp all the same."""
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    browser = signed_in(alice)
    first = approve(browser, client_id, challenge)
    assert exchange(client_id, first["code"][0], verifier).status_code == 200
    verifier, challenge = pkce()
    again = browser.get(authorize_query(client_id, challenge, resource=None) + "&approval_prompt=auto")
    assert again.status_code == 302
    code = parse_qs(urlsplit(again["Location"]).query)["code"][0]
    assert exchange(client_id, code, verifier, resource=None).status_code == 200
    assert [token.resource for token in get_access_token_model().objects.filter(user=alice)] == [[MCP], [MCP]]


def _self_registered_token(user, *, resource, token="self-registered-token"):
    """A token of a client that registered itself, as one issued before every such token was held
    to /mcp could be: naming no resource, the hub as a whole, or /v1."""
    application = get_application_model().objects.get(client_id=register().json()["client_id"])
    stored = get_access_token_model().objects.create(
        user=user, application=application, token=token, scope="read write", expires="2999-01-01T00:00:00Z"
    )
    stored.resource = resource
    stored.save()
    return token


@pytest.mark.parametrize("resource", [None, [], ["http://testserver"], ["http://testserver/"]])
def test_an_older_token_of_a_self_registered_client_reaches_mcp_only(alice, resource):
    token = _self_registered_token(alice, resource=resource)
    assert _refused_as_another_resource(_v1_teams(token))
    assert _refused_as_another_resource(Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {token}"))
    assert _mcp_status(token) == 200


def test_an_older_token_of_a_self_registered_client_for_v1_reaches_nothing(alice):
    token = _self_registered_token(alice, resource=["http://testserver/v1"])
    assert _refused_as_another_resource(_v1_teams(token))
    assert _mcp_status(token) == 401


def test_a_device_flow_token_of_the_hubs_own_client_still_reaches_v1(alice):
    from oauth.testing import device_token

    ensure_cli_application()
    token = device_token(Client(), alice)
    assert _v1_teams(token).status_code == 200
    assert _mcp_status(token) == 200


# The device grant is the hub's own clients'.


def test_registration_refuses_the_device_grant(db):
    response = register(grant_types=[DEVICE_GRANT], redirect_uris=[LOOPBACK])
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_client_metadata"
    assert "this hub's own command-line client" in body["error_description"]
    assert not get_application_model().objects.filter(name="Test Agent").exists()


def test_an_update_of_the_registration_cannot_take_the_device_grant(db):
    registered = register().json()
    response = Client().put(
        f"/oauth/register/{registered['client_id']}",
        json.dumps({"client_name": "Test Agent", "redirect_uris": [LOOPBACK], "grant_types": [DEVICE_GRANT]}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {registered['registration_access_token']}",
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"
    application = get_application_model().objects.get(client_id=registered["client_id"])
    assert application.authorization_grant_type == get_application_model().GRANT_AUTHORIZATION_CODE


def _device_client_registered_before():
    """A client that registered itself with the device grant and the CLI's name, as registration
    let it before."""
    Application = get_application_model()
    return Application.objects.create(
        name="ltm command-line client",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_DEVICE_CODE,
        registration_source=Application.RegistrationSource.DCR,
        client_secret="",
        hash_client_secret=False,
    )


def test_a_self_registered_client_cannot_start_the_device_flow(db):
    application = _device_client_registered_before()
    response = authorize_device(Client(), client_id=application.client_id)
    assert response.status_code == 400
    assert response.json()["error"] == "unauthorized_client"


def test_a_device_grant_of_a_self_registered_client_gives_no_token(alice):
    """Approved before the device flow refused such clients: the token endpoint refuses it."""
    application = _device_client_registered_before()
    grant = make_grant(client_id=application.client_id, device_code="old-device-code")
    grants = get_device_grant_model().objects.filter(pk=grant.pk)
    grants.update(status=get_device_grant_model().AUTHORIZED, user=alice, scope="read write")
    response = poll(Client(), "old-device-code", client_id=application.client_id)
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "unauthorized_client"
    assert not get_access_token_model().objects.filter(application=application).exists()


# Names


@pytest.mark.parametrize(
    "name",
    [
        "ltm command-line client",
        "  LTM Command-Line Client ",
        "ltm  command-line\u00a0client",  # runs of whitespace, a no-break space
        "ltm command-line client\u200b",  # an invisible character
        "\uff4c\uff54\uff4d command-line client",  # fullwidth letters
    ],
)
def test_a_client_may_not_register_under_the_name_of_the_hubs_own(name):
    ensure_cli_application()
    response = register(client_name=name)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_client_metadata"
    assert "the name of one of this hub's own clients" in body["error_description"]
    assert not get_application_model().objects.exclude(client_id="ltm-cli").exists()


def test_an_update_of_the_registration_may_not_take_the_name_either():
    ensure_cli_application()
    registered = register().json()
    response = Client().put(
        f"/oauth/register/{registered['client_id']}",
        json.dumps({"client_name": "LTM command-line client", "redirect_uris": [LOOPBACK]}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {registered['registration_access_token']}",
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"
    assert get_application_model().objects.get(client_id=registered["client_id"]).name == "Test Agent"


def test_other_names_register():
    ensure_cli_application()
    for name in ("ltm command-line client for Cursor", "Claude Code (ltm)", ""):
        assert register(client_name=name).status_code == 201, name


# The consent page says what the token reaches.


def test_the_consent_page_says_the_token_reaches_the_mcp_tools_only(alice):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    page = signed_in(alice).get(authorize_query(client_id, challenge))
    text = page.content.decode()
    assert "only\n      through this hub's MCP tools, at <code>http://testserver/mcp</code>" in text
    assert "It cannot use the hub's API (<code>/v1</code>)" in text
    assert "create, join or manage teams" in text
    assert "(tools: save, rm, publish, unpublish, share)" in text
    assert "manage teams" not in text.split("It may:")[1]  # not in what the scopes allow
