"""The edges of the packets wire API: methods, paths, headers and odd input the contract covers
(sections 2 and 3 of the protocol), each answered with its status and a `{"error": ...}` body."""

import json
from urllib.parse import quote

import pytest
from django.test import Client, RequestFactory

from core.views import not_found
from packets.models import Packet
from packets.testing import packet_v02, seed_packets, store_directly

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_as, alice):
    return api_as(alice)


def _push(api, raw: bytes, **meta):
    return api.client.generic("POST", "/v1/packets", raw, **api._headers(meta))


# Health check.


def test_healthz_answers_head_and_a_wrong_method_in_json():
    client = Client(enforce_csrf_checks=True)  # as a real client: no CSRF token, ever
    assert client.head("/v1/healthz").status_code == 200
    response = client.post("/v1/healthz")
    assert response.status_code == 405
    assert response.json() == {"error": "method POST not allowed"}
    assert response["Allow"] == "GET, HEAD"


# Methods, paths and authentication on every packet endpoint.

ENDPOINTS = [
    ("get", "/v1/packets"),
    ("post", "/v1/packets"),
    ("get", "/v1/packets/01TESTSOMEID0001"),
    ("delete", "/v1/packets/01TESTSOMEID0001"),
    ("post", "/v1/packets/01TESTSOMEID0001/publish"),
    ("delete", "/v1/packets/01TESTSOMEID0001/publish"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_every_packet_endpoint_needs_a_valid_bearer(anon_api, method, path):
    response = getattr(anon_api, method)(path)
    assert (response.status_code, response.json()) == (401, {"error": "missing bearer token"})
    stale = anon_api.__class__("ltm_stale-or-made-up")
    response = getattr(stale, method)(path)
    assert (response.status_code, response.json()) == (401, {"error": "invalid token"})


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("put", "/v1/packets"),
        ("patch", "/v1/packets/01TESTSOMEID0001"),
        ("get", "/v1/packets/01TESTSOMEID0001/publish"),
    ],
)
def test_a_wrong_method_is_405_in_json(api, method, path):
    response = getattr(api.client, method)(path, **api._headers(None))
    assert response.status_code == 405
    assert response.json() == {"error": f"method {method.upper()} not allowed"}


@pytest.mark.parametrize(
    "path", ["/v1/packets/", "/v1/packets/01TESTSOMEID0001/", "/v1/packets/01TESTSOMEID0001/publish/"]
)
def test_a_trailing_slash_is_off_the_contract_and_answers_in_json(api, path):
    api.post("/v1/packets", packet_v02(id="01TESTSOMEID0001"))
    response = api.get(path)
    assert response.status_code == 404
    assert "error" in response.json()
    response = api.post(path, packet_v02())
    assert response.status_code in (404, 405)
    assert "error" in response.json()
    assert Packet.objects.count() == 1


def test_a_doubled_leading_slash_gets_a_json_404():
    """A client whose hub URL ends in "/" asks for //v1/...; Django's test client cannot send
    that path, so the 404 handler is called as Django would call it."""
    request = RequestFactory().get("/")
    request.path = request.path_info = "//v1/packets"
    response = not_found(request)
    assert (response.status_code, json.loads(response.content)) == (404, {"error": "not found"})


def test_head_of_a_packet_carries_the_headers_and_no_body(api):
    packet = packet_v02()
    api.post("/v1/packets", packet)
    api.post(f"/v1/packets/{packet['id']}/publish")
    response = api.client.head(f"/v1/packets/{packet['id']}", **api._headers(None))
    assert response.status_code == 200
    assert response.content == b""
    assert response["X-LTM-Public-URL"].startswith("http://testserver/p/")


@pytest.mark.parametrize(
    "packet_id",
    [
        "feature/login/0001",  # a "/" the URLs would split
        "01JABCDEFGH/publish",  # would read as the publish route
        "01JABCDEFGHK\n",  # listed but neither readable nor deletable
        "01JABCDEFGHK.json",  # the dashboard's download route
        "-01JABCDEFGHK",  # the client would read it as an option
        "01JABCDEF GHK",
        "01JABCDEF?GHK",
        "01JABCDEF%2FGHK",
    ],
)
def test_an_id_the_urls_cannot_address_is_refused_at_push_naming_the_rule(api, packet_id):
    response = api.post("/v1/packets", packet_v02(id=packet_id))

    assert response.status_code == 400
    assert response.json()["error"].startswith("a packet id is letters, digits, '-' and '_'")
    assert not Packet.objects.exists()


@pytest.mark.parametrize(
    "packet_id", ["01JC3Z8Q4M5N6P7R8S9T0V1W2X", "0f8fad5b-d9cb-469f-a165-70867728950e", "x_y-z_0123"]
)
def test_ulids_uuids_and_other_safe_ids_are_pushed(api, packet_id):
    assert api.post("/v1/packets", packet_v02(id=packet_id)).json() == {"id": packet_id}


def test_a_stored_id_holding_a_slash_still_works_on_every_endpoint(api, alice):
    """A packet stored before ids were restricted: the client percent-encodes the id and the
    server decodes it."""
    packet = packet_v02(id="feature/login/0001")
    store_directly(alice, packet)
    path = "/v1/packets/" + quote(packet["id"], safe="")
    assert json.loads(api.get(path).content) == packet
    published = api.post(path + "/publish")
    assert published.status_code == 200
    assert published.json()["id"] == packet["id"]
    assert api.get(path)["X-LTM-Public-URL"] == published.json()["public_url"]
    assert api.delete(path + "/publish").status_code == 204
    assert "X-LTM-Public-URL" not in api.get(path)
    assert api.delete(path).status_code == 204
    assert not Packet.objects.exists()


def test_every_id_on_the_wire_is_a_string(api):
    packet = packet_v02(id="0000000042")  # digits only: still a string
    assert api.post("/v1/packets", packet).json() == {"id": "0000000042"}
    assert api.get("/v1/packets").json()["packets"][0]["id"] == "0000000042"
    assert api.post("/v1/packets/0000000042/publish").json()["id"] == "0000000042"


# The body of a push.


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", ""],
)
def test_the_body_is_the_packet_whatever_the_content_type(api, content_type):
    """The Go client sends application/json; curl -d sends a form type. Both push the packet."""
    packet = packet_v02()
    response = _push(api, json.dumps(packet).encode(), content_type=content_type)
    assert (response.status_code, response.json()) == (201, {"id": packet["id"]})
    assert json.loads(api.get(f"/v1/packets/{packet['id']}").content) == packet


def test_a_chunked_body_without_content_length_is_411(api):
    response = _push(
        api,
        json.dumps(packet_v02()).encode(),
        content_type="application/json",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert response.status_code == 411
    assert "Content-Length" in response.json()["error"]
    assert not Packet.objects.exists()


def test_an_invalid_content_length_is_400(api):
    response = _push(api, b"{}", content_type="application/json", CONTENT_LENGTH="abc")
    assert response.status_code == 400
    assert response.json() == {"error": "invalid Content-Length header 'abc'"}


def test_a_content_length_shorter_than_the_body_never_reads_past_it(api):
    """The cap counts what is read, and Django reads Content-Length bytes, never more."""
    body = json.dumps(packet_v02()).encode() + b" " * 40_000
    response = _push(api, body, content_type="application/json", CONTENT_LENGTH="100")
    assert response.status_code == 400
    assert response.json()["error"].startswith("invalid JSON")
    assert not Packet.objects.exists()


@pytest.mark.parametrize("created_at", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:30:00+01:00"])
def test_a_created_at_outside_the_storable_range_is_400(api, created_at):
    packet = packet_v02(created_at=created_at)
    response = api.post("/v1/packets", packet)
    assert response.status_code == 400
    message = f"$.created_at: {created_at!r} is not an RFC 3339 date-time with a zone, in years 1 to 9999 UTC"
    assert response.json() == {"error": message}
    assert not Packet.objects.exists()


def test_created_at_keeps_its_zone_and_microseconds_in_the_pulled_packet(api):
    packet = packet_v02(created_at="2026-04-18T22:41:03.123456+02:00")
    api.post("/v1/packets", packet)
    pulled = json.loads(api.get(f"/v1/packets/{packet['id']}").content)
    assert pulled["created_at"] == "2026-04-18T22:41:03.123456+02:00"
    listed = api.get("/v1/packets").json()["packets"]
    assert listed == [{"id": packet["id"], "created_at": "2026-04-18T20:41:03.123456Z", "goal": packet["goal"]}]


# The list.


@pytest.mark.parametrize("limit", ["%201", "%D9%A1", "1_0", "1.0", "1e1", ""])
def test_a_limit_that_is_not_a_plain_number_falls_back_to_50(api, alice, limit):
    seed_packets(alice, 60)  # more than 50: a limit read as 1, 10 or "all" shows
    assert len(api.get(f"/v1/packets?limit={limit}").json()["packets"]) == 50


def test_the_list_is_newest_first_and_ties_go_to_the_greater_id(api):
    for packet_id in ["01TIEB00000000", "01TIEC00000000", "01TIEA00000000"]:
        api.post("/v1/packets", packet_v02(id=packet_id, created_at="2026-02-01T00:00:00Z"))
    api.post("/v1/packets", packet_v02(id="01OLDER0000000", created_at="2026-01-01T00:00:00Z"))
    api.post("/v1/packets", packet_v02(id="01NEWER0000000", created_at="2026-01-31T23:00:00-02:00"))
    listed = [p["id"] for p in api.get("/v1/packets").json()["packets"]]
    assert listed == ["01NEWER0000000", "01TIEC00000000", "01TIEB00000000", "01TIEA00000000", "01OLDER0000000"]
