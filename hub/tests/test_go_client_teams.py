"""The hub called exactly as the public Go `ltm` client calls it (hub/testing/go_client.py):
the team and invite commands. The docstring of each test names the Go function it mirrors."""

import json

import pytest

from hub.testing.go_client import (
    GoClient,
    accept,
    go_decode,
    go_error_message,
    go_rfc3339,
    go_success,
    mint_invite,
    parse_invite,
)

pytestmark = pytest.mark.django_db


# --- teams -------------------------------------------------------------------------------------


def test_teams_create(go):
    """mirrors teams create (cli/teams.go): POST /v1/teams, body {"name": ...}, any 2xx."""
    response = go.do("POST", "/v1/teams", json.dumps({"name": "core"}).encode())
    assert response.status_code == 201
    go_decode(response.json()["team"], {"id": str, "name": str, "owner_id": str})
    taken = go.do("POST", "/v1/teams", json.dumps({"name": "core"}).encode())
    assert taken.status_code == 409 and go_error_message(taken)


def test_teams_ls(go, core, alice):
    """mirrors teams ls (cli/teams.go): GET /v1/teams, decoded into teamRow (all strings)."""
    response = go.do("GET", "/v1/teams")
    assert response.status_code == 200
    (row,) = response.json()["teams"]
    go_decode(row, {"id": str, "name": str, "owner_id": str, "created_at": str})
    assert row["name"] == "core" and row["owner_id"] == str(alice.pk)
    go_rfc3339(row["created_at"])


def test_teams_rm(go, core):
    """mirrors teams rm (cli/teams.go): DELETE /v1/teams/<url.PathEscape(name)>, any 2xx."""
    response = go.do("DELETE", "/v1/teams/core")
    assert response.status_code == 204
    assert go.do("GET", "/v1/teams").json() == {"teams": []}


def test_teams_members(go, core):
    """mirrors teams members (cli/teams.go): GET /v1/teams/<name>/members, decoded into memberRow
    (user_id, display, email, role, joined_at: all strings)."""
    response = go.do("GET", "/v1/teams/core/members")
    assert response.status_code == 200
    (row,) = response.json()["members"]
    go_decode(row, {"user_id": str, "display": str, "email": str, "role": str, "joined_at": str})
    assert row["role"] == "owner"
    go_rfc3339(row["joined_at"])


def test_teams_leave(go, core, api_as, bob):
    """mirrors teams leave (cli/teams.go): POST /v1/teams/<name>/leave, body {}, any 2xx; the
    owner's refusal reaches the person through the `error` field."""
    code = mint_invite(go, core)["code"]
    bob_go = GoClient(api_as(bob).token)
    assert go_success(accept("http://testserver", code, token=bob_go.token))
    response = bob_go.do("POST", "/v1/teams/core/leave", b"{}")
    assert response.status_code == 204
    owner = go.do("POST", "/v1/teams/core/leave", b"{}")
    assert owner.status_code == 400 and go_error_message(owner)


# --- invites -----------------------------------------------------------------------------------


def test_invite(go, core):
    """mirrors invite -t (cli/teams.go newInviteCmd): POST /v1/teams/<name>/invites, body {},
    any 2xx, decoded as {code, url, expires_at}; it prints url and `expires: <expires_at>`."""
    response = go.do("POST", "/v1/teams/core/invites", b"{}")
    assert response.status_code == 201
    body = go_decode(response.json(), {"code": str, "url": str, "expires_at": str})
    go_rfc3339(body["expires_at"])
    host, code = parse_invite(body["url"])
    assert host == "http://testserver" and code == body["code"]


def test_join_on_a_clean_machine(go, core):
    """mirrors redeemInvite (cli/join.go) without a stored token: POST .../accept, body {},
    Content-Type application/json, no Authorization; any 2xx; it stores `token` when present and
    prints team.name."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    response = accept(host, code)
    assert response.status_code == 201
    body = go_decode(response.json(), {"token": str, "user": {"id": str, "display": str}, "team": {"name": str}})
    assert body["team"]["name"] == "core" and body["token"]
    assert not body["token"].startswith("-")  # it may be pasted as `ltm auth <host> <token>`
    joined = GoClient(body["token"])
    assert joined.do("GET", "/v1/packets?limit=1").status_code == 200
    assert [t["name"] for t in joined.do("GET", "/v1/teams").json()["teams"]] == ["core"]


def test_join_with_a_stale_stored_token(go, core):
    """mirrors redeemInvite with a stored token the hub no longer knows: treated as no token (a
    new user and a token), not a 401."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    response = accept(host, code, token="ltm_revoked-long-ago")
    assert response.status_code == 201
    assert response.json()["token"]


def test_join_with_a_valid_stored_token(go, core, api_as, bob):
    """mirrors redeemInvite with a stored token: the bearer's user joins, no new token."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    response = accept(host, code, token=api_as(bob).token)
    assert response.status_code == 201
    body = go_decode(response.json(), {"user": {"id": str, "display": str}, "team": {"name": str}})
    assert "token" not in body and body["user"]["id"] == str(bob.pk)


def test_join_of_a_used_invite_is_410(go, core):
    """mirrors redeemInvite's special case: 410 Gone means `invite expired or already consumed`."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    assert go_success(accept(host, code))
    again = accept(host, code)
    assert again.status_code == 410
    assert go_error_message(again) == "invite expired or already consumed"
