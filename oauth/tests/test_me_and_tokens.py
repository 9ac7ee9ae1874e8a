"""GET and PATCH /v1/me (who a bearer is; the display name), and personal API tokens with an
expiry and a scope."""

import json
from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone
from jsonschema import Draft202012Validator, FormatChecker

from accounts.models import ApiToken
from accounts.services import api_token_create
from accounts.testing import passwordless_user
from core.errors import BadRequest
from core.testing import ApiClient, assert_described, openapi_document, openapi_resolve, refusal, signed_in
from ltm.protocol.tokens import token_checksum
from oauth.testing import device_token

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def document(django_db_blocker):
    with django_db_blocker.unblock():
        return openapi_document()


def patch_me(token, body, content_type="application/json"):
    data = body if isinstance(body, str) else json.dumps(body)
    return Client().patch("/v1/me", data=data, content_type=content_type, HTTP_AUTHORIZATION=f"Bearer {token}")


# GET /v1/me


def test_me_with_a_personal_token(alice):
    alice.email, alice.display = "alice@example.org", "Alice A."
    alice.save()
    token, plaintext = api_token_create(actor=alice, name="ci", scope="read", expires_in_days=30)
    response = ApiClient(plaintext).get("/v1/me")
    assert response.status_code == 200
    me = response.json()
    assert {key: me[key] for key in ("id", "username", "display_name", "email")} == {
        "id": alice.pk,
        "username": "alice",
        "display_name": "Alice A.",
        "email": "alice@example.org",
    }
    assert me["token"]["kind"] == "personal" and me["token"]["name"] == "ci"
    assert me["token"]["hint"] == token_checksum(plaintext)[:8]
    assert me["token"]["scopes"] == ["read"]
    assert me["token"]["expires_at"].startswith(str(token.expires_at.date()))


def test_me_with_a_device_token(client, alice):
    token = device_token(client, alice)
    me = ApiClient(token).get("/v1/me").json()
    assert me["display_name"] == "alice"
    assert me["token"]["kind"] == "oauth"
    assert me["token"]["hint"] == token_checksum(token)[:8]
    assert me["token"]["scopes"] == ["read", "write"]


def test_me_of_an_account_made_by_join_has_no_email():
    _user, token = passwordless_user(display="Dana")
    me = ApiClient(token).get("/v1/me").json()
    assert (me["display_name"], me["email"], me["token"]["expires_at"]) == ("Dana", "", None)


def test_me_without_or_with_a_bad_token_is_401():
    assert Client().get("/v1/me").json() == {"error": "missing bearer token"}
    assert ApiClient("ltm_nope").get("/v1/me").status_code == 401


# PATCH /v1/me


def test_set_the_display_name_teammates_see(alice, api_as):
    _user, token = passwordless_user(username="user-259fb1", display="")
    response = patch_me(token, {"display_name": "  Dana Scully "})
    assert response.status_code == 200 and response.json()["display_name"] == "Dana Scully"
    owner = api_as(alice)
    owner.post("/v1/teams", {"name": "xfiles"})
    code = owner.post("/v1/teams/xfiles/invites", {}).json()["code"]
    ApiClient(token).post(f"/v1/invites/{code}/accept", {})
    members = owner.get("/v1/teams/xfiles/members").json()["members"]
    assert sorted(member["display"] for member in members) == ["Dana Scully", "alice"]
    assert patch_me(token, {"display_name": ""}).json()["display_name"] == "user-259fb1"


@pytest.mark.parametrize(
    "body,message",
    [
        ({"display_name": "a\nb"}, "control characters"),
        ({"display_name": "tab\there"}, "control characters"),
        ({"display_name": "bidi\u202eevil"}, "control characters"),
        ({"display_name": "x" * 81}, "at most 80 characters"),
        ({"display_name": 5}, "must be a string"),
        ({"display_name": None}, "must be a string"),
        ({"display": "Ada"}, 'send {"display_name"'),
        ({"display_name": "Ada", "email": "x@example.org"}, "unknown field: email"),
        ([], 'send {"display_name"'),
        ("{not json", "invalid JSON"),
    ],
)
def test_bad_display_names_are_400(alice, make_token, body, message):
    token = make_token(alice)
    response = patch_me(token, body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    alice.refresh_from_db()
    assert alice.display == ""


def test_a_read_only_token_cannot_change_the_name(alice):
    _token, plaintext = api_token_create(actor=alice, name="ro", scope="read")
    response = patch_me(plaintext, {"display_name": "Ada"})
    assert response.status_code == 403
    assert response.json() == {"error": "this token's scope does not allow this request (it needs 'write')"}


def test_the_account_page_refuses_control_characters(alice):
    response = signed_in(alice).post("/account", {"display": "Ada\u0007"})
    assert response.status_code == 400
    assert "control characters" in response.content.decode()
    assert refusal(
        BadRequest,
        lambda: __import__("accounts.services", fromlist=["x"]).user_update_display(actor=alice, display="a\x00b"),
    )


def assert_patch_valid(document, response):
    """core.testing.assert_described, for PATCH (which that module's operations leave out)."""
    schema = document["paths"]["/v1/me"]["patch"]["responses"][str(response.status_code)]
    schema = schema["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": document["components"]}, format_checker=FormatChecker())
    assert not [error.message for error in validator.iter_errors(response.json())]


def test_me_is_described_in_openapi(document, alice):
    _token, plaintext = api_token_create(actor=alice, name="ci")
    assert {"get", "patch"} <= set(document["paths"]["/v1/me"])
    (request_body,) = document["paths"]["/v1/me"]["patch"]["requestBody"]["content"].values()
    assert "display_name" in openapi_resolve(document, request_body["schema"])["properties"]
    assert_described(document, "get", "/v1/me", ApiClient(plaintext).get("/v1/me"))
    assert_described(document, "get", "/v1/me", Client().get("/v1/me"))
    assert_patch_valid(document, patch_me(plaintext, {"display_name": "Ada"}))
    assert_patch_valid(document, patch_me(plaintext, {"display_name": 5}))


# Personal API tokens: expiry and scope


def test_an_expired_token_answers_invalid_token(alice):
    token, plaintext = api_token_create(actor=alice, name="short", expires_in_days=30)
    api = ApiClient(plaintext)
    assert api.get("/v1/packets").status_code == 200
    with mock.patch("django.utils.timezone.now", return_value=token.expires_at + timedelta(seconds=1)):
        response = api.get("/v1/packets")
    assert (response.status_code, response.json()) == (401, {"error": "invalid token"})


def test_a_token_without_expiry_keeps_working(alice):
    token, plaintext = api_token_create(actor=alice, name="forever")
    assert token.expires_at is None
    with mock.patch("django.utils.timezone.now", return_value=timezone.now() + timedelta(days=3650)):
        assert ApiClient(plaintext).get("/v1/packets").status_code == 200


def test_a_read_only_token_reads_but_cannot_write(alice):
    _token, plaintext = api_token_create(actor=alice, name="reader", scope="read")
    api = ApiClient(plaintext)
    assert api.get("/v1/packets").status_code == 200
    refused = api.post("/v1/teams", {"name": "readers"})
    assert (refused.status_code, refused.json()) == (
        403,
        {"error": "this token's scope does not allow this request (it needs 'write')"},
    )


@pytest.mark.parametrize(
    "options,message",
    [
        ({"scope": "write"}, "scope is one of"),
        ({"scope": "admin"}, "scope is one of"),
        ({"expires_in_days": 0}, "positive number of days"),
    ],
)
def test_token_options_are_checked(alice, options, message):
    assert message in refusal(BadRequest, lambda: api_token_create(actor=alice, name="x", **options))


@pytest.mark.parametrize("expiry,days", [("30", 30), ("90", 90), ("365", 365), ("never", None)])
def test_the_dashboard_form_sets_expiry_and_scope(alice, expiry, days):
    response = signed_in(alice).post("/tokens", {"name": "ci", "expiry": expiry, "scope": "read"})
    assert response.status_code == 201
    token = ApiToken.objects.get(user=alice)
    assert token.scope == "read"
    if days is None:
        assert token.expires_at is None
    else:
        assert abs(token.expires_at - (timezone.now() + timedelta(days=days))) < timedelta(minutes=1)
    body = response.content.decode()
    assert token.checksum_hint in body  # the fingerprint, as `ltm auth whoami` prints it


def test_the_dashboard_form_refuses_unknown_choices(alice):
    response = signed_in(alice).post("/tokens", {"name": "ci", "expiry": "7", "scope": "admin"})
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_the_list_shows_scope_expiry_and_expired_tokens(alice):
    api_token_create(actor=alice, name="reader", scope="read", expires_in_days=30)
    expired, _ = api_token_create(actor=alice, name="old", expires_in_days=1)
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(days=1))
    body = signed_in(alice).get("/tokens").content.decode()
    assert "expired</span>" in body
    assert body.count('class="badge neutral">write') == 1  # the expired read-write one only


def test_the_management_command_takes_scope_and_expiry(alice, capsys):
    from django.core.management import CommandError, call_command

    call_command("ltm_token", "alice", "--name", "ci", "--scope", "read", "--expires-days", "30")
    plaintext = capsys.readouterr().out.strip()
    me = ApiClient(plaintext).get("/v1/me").json()
    assert me["token"]["scopes"] == ["read"] and me["token"]["expires_at"]
    with pytest.raises(CommandError, match="positive number of days"):
        call_command("ltm_token", "alice", "--expires-days", "0")
