"""Push, list and pull of packets are plain Django views (packets.api: push_view, list_view,
pull_view), behind one decorator that checks what DRF's dispatch checks for the API's DRF views
(oauth.authentication.bearer_view), beside the DRF views that declare them for the OpenAPI
description and answer their URLs' other methods (core.api.by_method). Their answers, refusals
included, are those the DRF views gave: the same status, body and headers."""

import json

import pytest
from django.core.wsgi import get_wsgi_application
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework.views import APIView

from accounts.services import api_token_create
from core.testing import ApiClient
from packets import api, services
from packets.models import Packet
from packets.publishing import services as publishing
from packets.testing import packet_v02, push_packet, store_directly
from teams.testing import make_team

pytestmark = pytest.mark.django_db

COLLECTION = "GET, POST, HEAD, OPTIONS"
ITEM = "GET, DELETE, HEAD, OPTIONS"
CHALLENGE = 'Bearer realm="ltm"'
WRITE_REFUSED = b'{"error":"this token\'s scope does not allow this request (it needs \'write\')"}'


@pytest.fixture
def world(alice, bob, make_token):
    team = make_team(alice, "core", members=[bob])
    published = push_packet(alice)
    publishing.packet_publish(actor=alice, packet_id=published.id)
    return {
        "alice": make_token(alice),
        "bob": make_token(bob),
        "reader": api_token_create(actor=alice, name="reader", scope="read")[1],
        "own": push_packet(alice).id,
        "published": published.id,
        "team": push_packet(bob, team=team).id,
        "bobs": push_packet(bob).id,
        "slashed": store_directly(alice, packet_v02(id="01SLASHED/000000000000000")).id,
    }


def call(method, path, token=None, body=b"", **extra):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client().generic(method, path, body, "application/json", **headers, **extra)


# name: (the request, made from the world; its status; its body, or None when checked below; Allow).
# A 401 names the bearer scheme (WWW-Authenticate), as DRF's dispatch has it.
REFUSALS = {
    "a pull without a token": (
        lambda w: call("GET", f"/v1/packets/{w['own']}"),
        401,
        b'{"error":"missing bearer token"}',
        ITEM,
    ),
    "a list with an unknown token": (
        lambda w: call("GET", "/v1/packets", "ltm_pat_not-a-token"),
        401,
        b'{"error":"invalid token"}',
        COLLECTION,
    ),
    "a push without a token": (
        lambda w: call("POST", "/v1/packets", None, json.dumps(packet_v02())),
        401,
        b'{"error":"missing bearer token"}',
        COLLECTION,
    ),
    "a push with a read-only token": (
        lambda w: call("POST", "/v1/packets", w["reader"], json.dumps(packet_v02())),
        403,
        WRITE_REFUSED,
        COLLECTION,
    ),
    "a pull of someone else's packet": (
        lambda w: call("GET", f"/v1/packets/{w['bobs']}", w["alice"]),
        404,
        b'{"error":"packet not found"}',
        ITEM,
    ),
    "a list of a team one is not in": (
        lambda w: call("GET", "/v1/packets?team=nosuch", w["alice"]),
        404,
        b'{"error":"team not found"}',
        COLLECTION,
    ),
    "a push that is not JSON": (
        lambda w: call("POST", "/v1/packets", w["alice"], "{not json"),
        400,
        b'{"error":"invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2"}',
        COLLECTION,
    ),
    "a push without a length": (
        lambda w: call("POST", "/v1/packets", w["alice"], HTTP_TRANSFER_ENCODING="chunked", CONTENT_LENGTH=""),
        411,
        b'{"error":"send the packet with a Content-Length header (chunked bodies are not read)"}',
        COLLECTION,
    ),
    "a push over someone else's id": (
        lambda w: call("POST", "/v1/packets", w["alice"], json.dumps(packet_v02(id=w["bobs"]))),
        409,
        None,
        COLLECTION,
    ),
    # Answered by the DRF views, as before.
    "a PUT": (lambda w: call("PUT", "/v1/packets", w["alice"]), 405, b'{"error":"method PUT not allowed"}', COLLECTION),
    "a PUT without a token": (
        lambda w: call("PUT", "/v1/packets"),
        401,
        b'{"error":"missing bearer token"}',
        COLLECTION,
    ),
    "a delete with a read-only token": (
        lambda w: call("DELETE", f"/v1/packets/{w['own']}", w["reader"]),
        403,
        WRITE_REFUSED,
        ITEM,
    ),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_each_refusal_is_answered_as_the_drf_views_answered_it(world, case):
    request, status, body, allow = REFUSALS[case]
    response = request(world)
    assert response.status_code == status
    if body is not None:
        assert response.content == body
    else:
        assert json.loads(response.content)["error"].startswith("packet id ")
    assert response["Content-Type"] == "application/json"
    assert response["Allow"] == allow
    assert response.get("WWW-Authenticate") == (CHALLENGE if status == 401 else None)
    assert (
        response["X-Content-Type-Options"] == "nosniff" and "default-src 'none'" in response["Content-Security-Policy"]
    )


@pytest.mark.parametrize("token", ["alice", "reader"])
@pytest.mark.parametrize("packet", ["own", "team", "published", "slashed"])
def test_a_pull_is_the_packet_as_stored(world, token, packet):
    response = call("GET", f"/v1/packets/{world[packet]}", world[token])
    assert response.status_code == 200 and response["Allow"] == ITEM
    assert response.content == Packet.objects.get(id=world[packet]).body.encode()
    assert ("X-LTM-Public-URL" in response) == (packet == "published")
    head = call("HEAD", f"/v1/packets/{world[packet]}", world[token])
    assert head.status_code == 200 and head["Content-Length"] == response["Content-Length"] and not head.content


def test_a_list_and_a_push_answer_as_before(world):
    listed = call("GET", "/v1/packets?limit=2", world["alice"])
    assert listed.status_code == 200 and listed["Allow"] == COLLECTION
    assert len(json.loads(listed.content)["packets"]) == 2
    packet = packet_v02()
    pushed = call("POST", "/v1/packets", world["alice"], json.dumps(packet))
    assert (pushed.status_code, pushed.content) == (201, f'{{"id":"{packet["id"]}"}}'.encode())
    assert pushed["Allow"] == COLLECTION
    options = call("OPTIONS", "/v1/packets", world["alice"])
    assert options.status_code == 200 and json.loads(options.content)["name"] == "Packet Collection"


def test_the_hot_calls_skip_drfs_dispatch_and_the_other_methods_keep_it(world, monkeypatch):
    dispatched = []
    dispatch = APIView.dispatch

    def noted(view, request, *args, **kwargs):
        dispatched.append(request.method)
        return dispatch(view, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "dispatch", noted)
    api_client = ApiClient(world["alice"])
    assert api_client.get("/v1/packets").status_code == 200
    assert api_client.get(f"/v1/packets/{world['own']}").status_code == 200
    assert api_client.post("/v1/packets", packet_v02()).status_code == 201
    assert api_client.get("/v1/packets/01NOSUCHPACKET0000000000").status_code == 404
    assert dispatched == []
    assert api_client.delete(f"/v1/packets/{world['own']}").status_code == 204
    assert call("OPTIONS", "/v1/packets", world["alice"]).status_code == 200
    assert dispatched == ["DELETE", "OPTIONS"]


def test_the_urls_are_described_by_their_drf_views():
    """drf-spectacular reads a view's `cls`, as for DRF's own views (hub/tests/test_openapi.py checks
    what it describes)."""
    assert api.packet_collection.cls is api.PacketCollection and api.packet_item.cls is api.PacketItem
    assert api.packet_collection.csrf_exempt and api.packet_item.csrf_exempt


def answer(environ) -> tuple[str, bytes]:
    """(status, body) of one request answered by Django's WSGI application, the one the web server
    runs (hub.wsgi builds it with get_wsgi_application; packets may not import hub)."""
    statuses = []
    response = get_wsgi_application()(environ, lambda status, headers, exc_info=None: statuses.append(status))
    try:
        return statuses[0], b"".join(response)
    finally:
        response.close()


def environ(method, path, token, body=b""):
    headers = {"Authorization": f"Bearer {token}"}
    return RequestFactory().generic(method, path, body, "application/json", headers=headers).environ


@pytest.mark.usefixtures("signals_keep_connection")
def test_the_web_servers_application_reads_a_refused_pull_once(world):
    assert (
        answer(environ("GET", f"/v1/packets/{world['own']}", world["alice"]))[0] == "200 OK"
    )  # the token's use is noted
    with CaptureQueriesContext(connection) as through_the_application:
        assert answer(environ("GET", f"/v1/packets/{world['bobs']}", world["alice"]))[0] == "404 Not Found"
    # Last: the test client puts back the signal handler that closes the connection after a request.
    with CaptureQueriesContext(connection) as through_the_test_client:
        assert call("GET", f"/v1/packets/{world['bobs']}", world["alice"]).status_code == 404
    assert len(through_the_application) == len(through_the_test_client)


@pytest.mark.usefixtures("signals_keep_connection")
def test_the_web_servers_application_scans_a_refused_push_once(world, monkeypatch):
    scans = []
    scan = services.findings_of_push

    def noted(packet, **kwargs):
        scans.append(packet["id"])
        return scan(packet, **kwargs)

    monkeypatch.setattr(services, "findings_of_push", noted)
    refused = environ("POST", "/v1/packets", world["alice"], json.dumps(packet_v02(id=world["bobs"])))
    assert answer(refused)[0] == "409 Conflict"
    assert scans == [world["bobs"]]
