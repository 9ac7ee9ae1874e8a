"""The hub called exactly as the public Go `ltm` client calls it (hub/testing/go_client.py):
signing in with a token, the packet commands, and a configured host with a trailing slash. The
docstring of each test names the Go function it mirrors."""

import json

import pytest
from django.test import Client

from hub.testing.go_client import (
    FORM,
    GO_HEADERS,
    GoClient,
    go_decode,
    go_error_message,
    go_rfc3339,
    go_success,
)
from ltm.protocol.packet import parse_packet
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db


# --- auth --------------------------------------------------------------------------------------


def test_static_token_auth_health_check(anon_api):
    """mirrors runStaticTokenAuth (cli/auth.go), step 1: GET /v1/healthz, no token, must be 200."""
    response = GoClient().do("GET", "/v1/healthz")
    assert response.status_code == 200


def test_static_token_auth_token_check(go):
    """mirrors runStaticTokenAuth (cli/auth.go), step 2: GET /v1/packets?limit=1 with the pasted
    token must be exactly 200; 401 means rejected (the body is shown to the person)."""
    assert go.do("GET", "/v1/packets?limit=1").status_code == 200
    rejected = go.do("GET", "/v1/packets?limit=1", token="ltm_not-a-real-token")
    assert rejected.status_code == 401
    assert go_error_message(rejected) == "invalid token"


def test_any_call_with_a_revoked_or_unknown_token_is_a_401_error_body(go, pushed):
    """mirrors errFromResponse (cli/root.go) on 401: `server returned 401: <error>`."""
    for method, path in (
        ("GET", "/v1/packets?limit=50"),
        ("GET", f"/v1/packets/{pushed['id']}"),
        ("DELETE", f"/v1/packets/{pushed['id']}"),
        ("GET", "/v1/teams"),
    ):
        response = go.do(method, path, token="ltm_stale")
        assert response.status_code == 401
        assert go_error_message(response) == "invalid token"
    missing = GoClient().do("GET", "/v1/teams")
    assert missing.status_code == 401 and go_error_message(missing) == "missing bearer token"


# --- packets -----------------------------------------------------------------------------------


def test_push(go):
    """mirrors validateAndPushPacket (cli/push.go, shared by push, save and the MCP push/save
    tools): POST /v1/packets, the file's bytes as they are, Content-Type application/json; any
    2xx (it prints the local packet's id, not the answer)."""
    packet = packet_v02()
    raw = json.dumps(packet, indent=2).encode()
    response = go.do("POST", "/v1/packets", raw)
    assert response.status_code == 201
    go_decode(response.json(), {"id": str})
    assert response.json()["id"] == packet["id"]
    again = go.do("POST", "/v1/packets", raw)  # a re-push of one's own packet is fine too
    assert go_success(again)


def test_push_into_a_team(go, core):
    """mirrors validateAndPushPacket with -t: POST /v1/packets?team=<url.QueryEscape(name)>."""
    packet = packet_v02()
    response = go.do("POST", "/v1/packets?team=core", json.dumps(packet).encode())
    assert response.status_code == 201
    listed = go.do("GET", "/v1/packets?limit=50&team=core").json()["packets"]
    assert [p["id"] for p in listed] == [packet["id"]]
    unknown = go.do("POST", "/v1/packets?team=nope", json.dumps(packet_v02()).encode())
    assert unknown.status_code == 404 and go_error_message(unknown) == "team not found"


def test_push_of_an_invalid_packet_is_an_error_body(go):
    """mirrors validateAndPushPacket with --lenient: the hub's 400 reaches the person through
    errFromResponse's `error` field."""
    response = go.do("POST", "/v1/packets", b'{"ltm_version": "9.9"}')
    assert response.status_code == 400
    assert "unsupported ltm_version" in go_error_message(response)


def test_ls(go, pushed):
    """mirrors fetchPacketList (cli/ls.go, also the MCP ls tool and the resume picker
    pickPacketID): GET /v1/packets?limit=50, decoded as {packets: [{id, created_at, goal}]}."""
    response = go.do("GET", "/v1/packets?limit=50")
    assert response.status_code == 200
    rows = response.json()["packets"]
    assert len(rows) == 1
    go_decode(rows[0], {"id": str, "created_at": str, "goal": str})
    go_rfc3339(rows[0]["created_at"])  # humanRelTime parses it
    assert rows[0]["id"] == pushed["id"]


def test_pull_and_show(go, pushed):
    """mirrors the pull and show commands and fetchPacketBody (cli/pull.go, show.go, resume.go):
    GET /v1/packets/<id>, exactly 2xx, the body is the packet and nothing else."""
    response = go.do("GET", f"/v1/packets/{pushed['id']}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert json.loads(response.content) == pushed
    go_decode(
        json.loads(response.content), {"id": str, "created_at": str, "ltm_version": str, "goal": str, "next_step": str}
    )


def test_pull_of_a_packet_shared_with_the_caller(go, pushed, api_as, bob):
    """mirrors pull, show and resume (fetchPacketBody) of a packet someone shared with the person
    by name (a hub extension the client does not know): the same GET /v1/packets/<id>, exactly
    200, the body the packet as pushed, valid for packet.Parse; fetchPacketList
    (GET /v1/packets?limit=50) stays the person's own packets."""
    bob_go = GoClient(api_as(bob).token)
    assert bob_go.do("GET", f"/v1/packets/{pushed['id']}").status_code == 404
    shared = go.do("POST", f"/v1/packets/{pushed['id']}/shares", json.dumps({"to": "bob"}).encode())
    assert shared.status_code == 201
    response = bob_go.do("GET", f"/v1/packets/{pushed['id']}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response.content == go.do("GET", f"/v1/packets/{pushed['id']}").content
    assert json.loads(response.content) == pushed
    parse_packet(response.content)
    assert bob_go.do("GET", "/v1/packets?limit=50").json() == {"packets": []}
    withdrawn = go.do("DELETE", f"/v1/shares/{shared.json()['share']['id']}")
    assert withdrawn.status_code == 204
    gone = bob_go.do("GET", f"/v1/packets/{pushed['id']}")
    assert gone.status_code == 404 and go_error_message(gone) == "packet not found"


def test_resume_revalidates_the_served_packet(go, pushed):
    """mirrors resume (cli/resume.go): packet.Parse(body) re-validates what the hub served against
    the schema (additionalProperties false), so the body must be a valid packet, published or not."""
    assert go_success(go.do("POST", f"/v1/packets/{pushed['id']}/publish"))
    response = go.do("GET", f"/v1/packets/{pushed['id']}")
    parse_packet(response.content)  # raises on any server-side field in the body
    go_rfc3339(response["X-LTM-Published-At"])
    assert response["X-LTM-Public-URL"].startswith("http://testserver/")


def test_rm(go, pushed):
    """mirrors rm (cli/rm.go, also the MCP rm tool): DELETE /v1/packets/<id>, no body, any 2xx."""
    response = go.do("DELETE", f"/v1/packets/{pushed['id']}")
    assert response.status_code == 204
    gone = go.do("DELETE", f"/v1/packets/{pushed['id']}")
    assert gone.status_code == 404 and "not found" in go_error_message(gone)


def test_publish(go, pushed):
    """mirrors publish (cli/publish.go): POST .../publish with no body and no Content-Type, any
    2xx, decoded as {id, public_url} (it prints public_url)."""
    response = go.do("POST", f"/v1/packets/{pushed['id']}/publish")
    assert response.status_code in (200, 201)
    body = go_decode(response.json(), {"id": str, "public_url": str})
    assert body["id"] == pushed["id"]
    assert body["public_url"].startswith("http://testserver/")
    assert Client().get(body["public_url"]).status_code == 200


def test_unpublish(go, pushed):
    """mirrors unpublish (cli/publish.go): DELETE .../publish, no body, any 2xx."""
    url = go.do("POST", f"/v1/packets/{pushed['id']}/publish").json()["public_url"]
    response = go.do("DELETE", f"/v1/packets/{pushed['id']}/publish")
    assert response.status_code in (200, 204)
    assert Client().get(url).status_code == 404
    assert go.do("GET", f"/v1/packets/{pushed['id']}").status_code == 200


# --- a configured host with a trailing slash ---------------------------------------------------


def test_a_host_with_a_trailing_slash_doubles_the_slash(go, pushed):
    """mirrors client.do (cli/root.go) with `host = "https://hub/"` (set by `ltm config set host`
    or LTM_HOST; only `ltm auth` trims the slash): it sends c.host+path as is, so every path
    starts with "//". Go's own server cleans such paths; the hub must answer them too."""

    def doubled(method, path, body=None):
        # Django's test client would read "//v1" as a host; the WSGI path is set by hand.
        headers = dict(GO_HEADERS, HTTP_AUTHORIZATION="Bearer " + go.token, PATH_INFO="/" + path.split("?")[0])
        if body:
            return go.client.generic(method, path, data=body, content_type="application/json", **headers)
        return go.client.generic(method, path, **headers)

    assert doubled("GET", "/v1/packets?limit=50").json()["packets"][0]["id"] == pushed["id"]
    assert doubled("POST", "/v1/packets", json.dumps(packet_v02()).encode()).status_code == 201
    assert doubled("GET", "/v1/healthz").status_code == 200
    assert doubled("DELETE", f"/v1/packets/{pushed['id']}").status_code == 204
    form = GoClient().client.generic(
        "POST",
        "/oauth/authorize_device",
        data="client_id=ltm-cli&scope=read+write",
        content_type=FORM,
        PATH_INFO="//oauth/authorize_device",
        **GO_HEADERS,
    )
    assert form.status_code == 200
