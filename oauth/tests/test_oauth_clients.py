"""OAuth for clients that sign themselves in (MCP clients), over HTTP with Django's test client:
the metadata documents, registration, the consent page, the code exchange with PKCE and what
the hub refuses. The browser journey with a real MCP client is tests/e2e/test_mcp_oauth.py."""

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_application_model

from core.testing import signed_in
from oauth.testing import LOOPBACK, MCP, approve, authorize_query, exchange, make_access_token, pkce, register


def test_the_metadata_documents(db):
    resource = Client().get("/.well-known/oauth-protected-resource/mcp").json()
    assert resource["resource"] == MCP
    assert resource["authorization_servers"] == ["http://testserver"]
    assert resource["scopes_supported"] == ["offline_access", "read", "write"]
    assert Client().get("/.well-known/oauth-protected-resource").json()["resource"] == "http://testserver"

    server = Client().get("/.well-known/oauth-authorization-server").json()
    assert server["issuer"] == "http://testserver"
    assert server["authorization_endpoint"] == "http://testserver/oauth/authorize"
    assert server["token_endpoint"] == "http://testserver/oauth/token"
    assert server["registration_endpoint"] == "http://testserver/oauth/register"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert "offline_access" in server["scopes_supported"]  # ChatGPT asks for it to get a refresh token
    assert server["response_types_supported"] == ["code"]
    assert server["client_id_metadata_document_supported"] is True
    assert server["authorization_response_iss_parameter_supported"] is True


def test_registration_takes_https_and_loopback_redirects_only(db):
    response = register(redirect_uris=[LOOPBACK, "https://agent.example/cb", "http://[::1]/cb"])
    assert response.status_code == 201, response.content
    assert response.json()["token_endpoint_auth_method"] == "none"
    app = get_application_model().objects.get(client_id=response.json()["client_id"])
    assert app.name == "Test Agent" and app.client_type == "public"

    for bad in ("http://evil.example/cb", "javascript:alert(1)", "ftp://x/cb"):
        refused = register(redirect_uris=[LOOPBACK, bad])
        assert refused.status_code == 400
        assert refused.json()["error"] == "invalid_redirect_uri"
    assert register(redirect_uris=[]).status_code == 400


def test_code_flow_with_pkce_gives_a_token_for_mcp(alice, make_token):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    browser = signed_in(alice)
    page = browser.get(authorize_query(client_id, challenge))
    assert b"Test Agent" in page.content and b"127.0.0.1:47123" in page.content and b"alice" in page.content
    assert "form-action 'self' http://127.0.0.1:47123" in page["Content-Security-Policy"]

    answer = approve(browser, client_id, challenge)
    assert answer["iss"] == ["http://testserver"]  # RFC 9207
    assert answer["state"] == ["st4te"]
    token = exchange(client_id, answer["code"][0], verifier)
    assert token.status_code == 200, token.content
    body = token.json()
    assert body["access_token"].startswith("ltm_") and body["refresh_token"]
    stored = get_access_token_model().objects.get(user=alice, application__client_id=client_id)
    assert stored.resource == [MCP]

    # The code is single use.
    again = exchange(client_id, answer["code"][0], verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_a_wrong_verifier_is_refused(alice):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    answer = approve(signed_in(alice), client_id, challenge)
    refused = exchange(client_id, answer["code"][0], "x" * 50)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


def test_plain_pkce_and_no_pkce_are_refused(alice):
    client_id = register().json()["client_id"]
    verifier, _ = pkce()
    browser = signed_in(alice)
    plain = browser.get(authorize_query(client_id, verifier, method="plain"))
    assert plain.status_code == 302 and "error=invalid_request" in plain["Location"]
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": LOOPBACK, "scope": "read"}
    missing = browser.get("/oauth/authorize?" + urlencode(params))
    assert missing.status_code == 302 and "error=invalid_request" in missing["Location"]


def test_deny_sends_access_denied_back(alice):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    browser = signed_in(alice)
    page = browser.get(authorize_query(client_id, challenge))
    form = {field: page.context["form"][field].value() or "" for field in page.context["form"].fields}
    answer = browser.post("/oauth/authorize", form)
    query = parse_qs(urlsplit(answer["Location"]).query)
    assert query["error"] == ["access_denied"] and query["iss"] == ["http://testserver"]


def test_signed_out_the_consent_page_asks_to_sign_in_first(db):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    response = Client().get(authorize_query(client_id, challenge))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("redirect_uri", ["http://127.0.0.1:9/other", "https://evil.example/callback"])
def test_an_unregistered_redirect_uri_is_an_error_page_not_a_redirect(alice, redirect_uri):
    client_id = register().json()["client_id"]
    _, challenge = pkce()
    response = signed_in(alice).get(authorize_query(client_id, challenge, redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert b"cannot connect" in response.content


def test_the_connected_app_is_listed_and_revoking_it_stops_its_token_and_refresh(alice, bob):
    client_id = register(client_name="Claude Code").json()["client_id"]
    verifier, challenge = pkce()
    browser = signed_in(alice)
    answer = approve(browser, client_id, challenge)
    tokens = exchange(client_id, answer["code"][0], verifier).json()

    def mcp_status():
        return (
            Client()
            .post(
                "/mcp",
                data="{}",
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}",
            )
            .status_code
        )

    assert mcp_status() != 401
    page = browser.get("/tokens")
    apps = page.context["connected_apps"]
    assert [(app.name, app.redirect_hosts) for app in apps] == [("Claude Code", ("127.0.0.1:47123",))]
    assert page.context["devices"] == []  # not listed twice
    assert b"Claude Code" in page.content

    assert signed_in(bob).post(f"/connected-apps/{apps[0].id}/revoke", {"confirmed": "yes"}).status_code == 404
    revoked = browser.post(f"/connected-apps/{apps[0].id}/revoke", {"confirmed": "yes"})
    assert revoked.status_code == 302
    assert mcp_status() == 401
    refreshed = Client().post(
        "/oauth/token",
        urlencode(
            {
                "grant_type": "refresh_token",
                "refresh_token": tokens["refresh_token"],
                "client_id": client_id,
            }
        ),
        content_type="application/x-www-form-urlencoded",
    )
    assert refreshed.status_code == 400
    assert browser.get("/tokens").context["connected_apps"] == []


def test_a_token_for_another_resource_is_refused_at_mcp(alice):
    # The consent page gives no such token (test_resource_indicators.py); one issued elsewhere.
    token = make_access_token(alice, token="other-resource-token")
    token.resource = ["https://other.example/mcp"]
    token.save()
    refused = Client().post(
        "/mcp", data="{}", content_type="application/json", HTTP_AUTHORIZATION="Bearer other-resource-token"
    )
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused["WWW-Authenticate"]
    assert "another resource" in refused.json()["error_description"]


def test_with_an_external_url_the_documents_name_it(db, settings):
    from oauth2_provider.settings import oauth2_settings

    settings.LTM_EXTERNAL_URL = "https://hub.example"
    settings.OAUTH2_PROVIDER = {
        **settings.OAUTH2_PROVIDER,
        "OIDC_ISS_ENDPOINT": "https://hub.example",
        "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": "https://hub.example/mcp",
    }
    oauth2_settings.reload()
    try:
        resource = Client().get("/.well-known/oauth-protected-resource/mcp").json()
        server = Client().get("/.well-known/oauth-authorization-server").json()
        refused = Client().post("/mcp", data="{}", content_type="application/json")
    finally:
        oauth2_settings.reload()
    assert resource["resource"] == "https://hub.example/mcp"
    assert resource["authorization_servers"] == ["https://hub.example"]
    assert server["issuer"] == "https://hub.example"
    assert server["token_endpoint"] == "https://hub.example/oauth/token"
    assert (
        'resource_metadata="https://hub.example/.well-known/oauth-protected-resource/mcp"'
        in refused["WWW-Authenticate"]
    )


def test_unused_self_registered_clients_are_purged_after_a_day(alice):
    from datetime import timedelta

    from django.utils import timezone

    from oauth.services import unused_clients_purge

    unused = register().json()["client_id"]
    used = register().json()["client_id"]
    verifier, challenge = pkce()
    answer = approve(signed_in(alice), used, challenge)
    assert exchange(used, answer["code"][0], verifier).status_code == 200
    assert unused_clients_purge() == 0  # younger than a day
    assert unused_clients_purge(now=timezone.now() + timedelta(days=2)) == 1
    assert set(get_application_model().objects.values_list("client_id", flat=True)) >= {used}
    assert not get_application_model().objects.filter(client_id=unused).exists()


def test_a_token_issued_for_mcp_is_refused_on_v1(alice):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    answer = approve(signed_in(alice), client_id, challenge)
    token = exchange(client_id, answer["code"][0], verifier).json()["access_token"]
    refused = Client().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert refused.status_code == 401
    assert refused.json()["error"] == "this token was issued for another resource"
