"""The lean lane (core.lean) answers push, list and pull of packets in front of Django, and gives
every request the answer Django alone would give: the same status, headers and body. It answers
what succeeds itself; whatever is refused, or not one of its routes, Django answers."""

import json

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.wsgi import WSGIHandler
from django.test import RequestFactory, override_settings

from accounts.services import api_token_create
from core.lean import LeanLane
from hub.wsgi import build_application
from ltm.protocol.packet import canonical_json
from packets import services
from packets.api_urls import lean_routes
from packets.testing import packet_v02, push_packet, store_directly
from teams.testing import make_team

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("signals_keep_connection")]


class Django:
    """Django's WSGI handler, noting the paths it was asked to answer."""

    def __init__(self):
        self.handler = WSGIHandler()
        self.asked = []

    def __call__(self, environ, start_response):
        self.asked.append(environ["PATH_INFO"])
        return self.handler(environ, start_response)


def answer(app, environ) -> tuple:
    """(status, headers in order, body) of one call of a WSGI application."""
    started = {}
    response = app(environ, lambda status, headers, exc_info=None: started.update(status=status, headers=headers))
    try:
        body = b"".join(response)
    finally:
        response.close()
    return started["status"], started["headers"], body


def request(method, path, token=None, body=None, **extra):
    """A function making the WSGI environ of one request, afresh for each path it goes down."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = body.encode() if isinstance(body, str) else body or b""
    return lambda: RequestFactory().generic(method, path, data, "application/json", headers=headers, **extra).environ


def both(environ_of):
    """(the lane's answer, Django's alone, whether the lane handed the request to Django)."""
    django = Django()
    through_lane = answer(LeanLane(django, lean_routes), environ_of())
    handed_on = bool(django.asked)
    alone = answer(WSGIHandler(), environ_of())
    return through_lane, alone, handed_on


@pytest.fixture
def world(alice, bob, make_token):
    team = make_team(alice, "core", members=[bob])
    published = push_packet(alice)
    services.packet_publish(actor=alice, packet_id=published.id)
    return {
        "alice": make_token(alice),
        "bob": make_token(bob),
        "reader": api_token_create(actor=alice, name="reader", scope="read")[1],
        "own": push_packet(alice).id,
        "published": published.id,
        "team": push_packet(bob, team=team).id,
        "bobs": push_packet(bob).id,
        "slashed": store_directly(alice, packet_v02(id="01SLASHED/000000000000000")).id,
        "team_name": team.name,
    }


ANSWERED_BY_THE_LANE = {
    "pull": lambda w: request("GET", f"/v1/packets/{w['own']}", w["alice"]),
    "pull, published": lambda w: request("GET", f"/v1/packets/{w['published']}", w["alice"]),
    "pull, a team's": lambda w: request("GET", f"/v1/packets/{w['team']}", w["alice"]),
    "pull, a read-only token": lambda w: request("GET", f"/v1/packets/{w['own']}", w["reader"]),
    "list": lambda w: request("GET", "/v1/packets", w["alice"]),
    "list, limit": lambda w: request("GET", "/v1/packets?limit=2", w["alice"]),
    "list, a limit read as the default": lambda w: request("GET", "/v1/packets?limit=many", w["alice"]),
    "list, a team's": lambda w: request("GET", f"/v1/packets?team={w['team_name']}", w["bob"]),
    # The lane pushes first, then Django re-pushes the same packet: the same answer.
    "push": lambda w: request("POST", "/v1/packets", w["alice"], canonical_json(packet_v02(id="01LANEPUSH0000000001"))),
    "push, to a team": lambda w: request(
        "POST", f"/v1/packets?team={w['team_name']}", w["bob"], json.dumps(packet_v02(id="01LANEPUSH0000000002"))
    ),
    "push, a re-push": lambda w: request("POST", "/v1/packets", w["alice"], json.dumps(packet_v02(id=w["own"]))),
    # The secret scan flags it (the default policy): 201 with the findings.
    "push, a secret found": lambda w: request(
        "POST",
        "/v1/packets",
        w["alice"],
        json.dumps(packet_v02(id="01LANEPUSH0000000003", next_step=f"export AWS_ACCESS_KEY_ID=AKIA{'Q7' * 8}")),
    ),
}

HANDED_TO_DJANGO = {
    "no token": lambda w: request("GET", f"/v1/packets/{w['own']}"),
    "an unknown token": lambda w: request("GET", "/v1/packets", "ltm_pat_not-a-token"),
    "someone else's packet": lambda w: request("GET", f"/v1/packets/{w['bobs']}", w["alice"]),
    "no such packet": lambda w: request("GET", "/v1/packets/01NOSUCHPACKET0000000000", w["alice"]),
    "a team one is not in": lambda w: request("GET", "/v1/packets?team=nosuch", w["alice"]),
    "a push with a read-only token": lambda w: request(
        "POST", "/v1/packets", w["reader"], json.dumps(packet_v02(id="01LANEREFUSED00000001"))
    ),
    "a push over someone else's id": lambda w: request(
        "POST", "/v1/packets", w["alice"], json.dumps(packet_v02(id=w["bobs"]))
    ),
    "a push that is not JSON": lambda w: request("POST", "/v1/packets", w["alice"], "{not json"),
    "a push that is not a packet": lambda w: request("POST", "/v1/packets", w["alice"], '{"id": "01NOTAPACKET000000"}'),
    "a push with no length": lambda w: request(
        "POST", "/v1/packets", w["alice"], HTTP_TRANSFER_ENCODING="chunked", CONTENT_LENGTH=""
    ),
    "a push too large": lambda w: request("POST", "/v1/packets", w["alice"], "{}", CONTENT_LENGTH="999999"),
    "a host not allowed": lambda w: request("GET", "/v1/packets", w["alice"], HTTP_HOST="evil.example"),
    "a NUL in the query": lambda w: request("GET", "/v1/packets?team=a%00b", w["alice"]),
}

NOT_THE_LANES = {
    "healthz": lambda w: request("GET", "/v1/healthz"),
    "HEAD of a pull": lambda w: request("HEAD", f"/v1/packets/{w['own']}", w["alice"]),
    "a delete": lambda w: request("DELETE", f"/v1/packets/{w['bobs']}", w["alice"]),
    "a packet's thread": lambda w: request("GET", f"/v1/packets/{w['own']}/thread", w["alice"]),
    "an id with a slash": lambda w: request("GET", f"/v1/packets/{w['slashed']}", w["alice"]),
    "a trailing slash": lambda w: request("GET", "/v1/packets/", w["alice"]),
}


@pytest.mark.parametrize("case", ANSWERED_BY_THE_LANE)
def test_the_lane_answers_what_succeeds_as_django_would(world, case):
    through_lane, alone, handed_on = both(ANSWERED_BY_THE_LANE[case](world))
    assert not handed_on
    assert through_lane[0].startswith("20")
    assert through_lane == alone


def test_a_push_the_scan_flags_comes_back_through_the_lane_with_its_findings(world):
    through_lane, _, handed_on = both(ANSWERED_BY_THE_LANE["push, a secret found"](world))
    assert not handed_on and through_lane[0] == "201 Created"
    assert json.loads(through_lane[2])["findings"] == [{"path": "next_step", "kind": "aws-access-key"}]


@pytest.mark.parametrize("case", HANDED_TO_DJANGO)
def test_what_is_refused_is_answered_by_django(world, case):
    through_lane, alone, handed_on = both(HANDED_TO_DJANGO[case](world))
    assert handed_on
    assert through_lane[0][:1] == "4"
    assert through_lane == alone


@pytest.mark.parametrize("case", NOT_THE_LANES)
def test_other_requests_go_to_django_untouched(world, case):
    django = Django()
    environ = NOT_THE_LANES[case](world)()
    answer(LeanLane(django, lean_routes), environ)
    assert django.asked == [environ["PATH_INFO"]]


def test_a_pull_of_a_published_packet_carries_its_public_page(world):
    status, headers, body = answer(
        build_application(), request("GET", f"/v1/packets/{world['published']}", world["alice"])()
    )
    assert status == "200 OK"
    assert {"X-LTM-Published-At", "X-LTM-Public-URL"} <= dict(headers).keys()
    assert json.loads(body)["id"] == world["published"]


@override_settings(SECURE_HSTS_SECONDS=31536000, SECURE_SSL_REDIRECT=True)
def test_over_https_the_lane_sends_hsts_and_over_http_django_redirects(world):
    secure = request("GET", f"/v1/packets/{world['own']}", world["alice"], secure=True)
    through_lane, alone, handed_on = both(secure)
    assert not handed_on and through_lane == alone
    assert dict(through_lane[1])["Strict-Transport-Security"].startswith("max-age=31536000")
    through_lane, alone, handed_on = both(request("GET", f"/v1/packets/{world['own']}", world["alice"]))
    assert handed_on and through_lane == alone and through_lane[0].startswith("301")


def test_an_unexpected_error_in_the_lane_is_left_to_django_and_logged(world, monkeypatch, caplog):
    read = services.packet_read
    calls = []

    def fails_once(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise RuntimeError("the lane's attempt")
        return read(**kwargs)

    monkeypatch.setattr(services, "packet_read", fails_once)
    django = Django()
    status, _, body = answer(
        LeanLane(django, lean_routes), request("GET", f"/v1/packets/{world['own']}", world["alice"])()
    )
    assert status == "200 OK" and json.loads(body)["id"] == world["own"]
    assert django.asked and len(calls) == 2
    assert "lean lane: GET" in caplog.text and "after RuntimeError" in caplog.text


def test_a_push_the_lane_read_is_read_again_by_django(world, alice):
    """A push refused by the service after the lane read its body: Django reads the same bytes."""
    packet = packet_v02(id="01LANEREREAD0000000001")
    packet["goal"] = ""  # too short: refused once read
    django = Django()
    status, _, body = answer(
        LeanLane(django, lean_routes), request("POST", "/v1/packets", world["alice"], json.dumps(packet))()
    )
    assert django.asked and status == "400 Bad Request"
    assert "goal" in json.loads(body)["error"]


def test_a_middleware_the_lane_cannot_run_stops_it_at_start():
    with override_settings(API_MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"]):
        with pytest.raises(ImproperlyConfigured, match="CsrfViewMiddleware"):
            LeanLane(WSGIHandler(), lean_routes)


def test_the_setting_turns_the_lane_off():
    assert isinstance(build_application(), LeanLane)
    with override_settings(LTM_LEAN_API=False):
        assert isinstance(build_application(), WSGIHandler)
