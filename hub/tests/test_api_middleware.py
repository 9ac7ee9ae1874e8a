"""The wire API runs its own middleware list (settings.API_MIDDLEWARE, core.middleware.ApiMiddleware):
a request for /v1 runs that list and nothing else of MIDDLEWARE; pages, the pages under /v1
among them, run the whole of MIDDLEWARE. The API's chain is built as Django builds its own, with
no setting assigned. What the API keeps: its security headers, the host check, bearer
authentication checked against the database on every request."""

import re

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.utils.module_loading import import_string

from accounts.services import api_token_revoke
from core.middleware import ApiHandler, is_api_path
from core.testing import ApiClient, signed_in
from packets.testing import push_packet
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db

HOOKS = ("process_view", "process_exception", "process_template_response")
SPLIT = "core.middleware.ApiMiddleware"


def before_the_split() -> list[str]:
    """What MIDDLEWARE runs for every request, up to the one that sends /v1 to API_MIDDLEWARE."""
    return settings.MIDDLEWARE[: settings.MIDDLEWARE.index(SPLIT) + 1]


@pytest.fixture
def ran(monkeypatch):
    """The middleware (by its settings path) whose code ran, for the clients made after it: each
    middleware factory of both lists is replaced by one that notes every call of what it makes."""
    seen = set()
    for path in {*settings.MIDDLEWARE, *settings.API_MIDDLEWARE}:
        module, name = path.rsplit(".", 1)
        monkeypatch.setattr(f"{module}.{name}", _recording(import_string(path), path, seen))
    return seen


def _recording(factory, path, seen):
    def noted(call):
        def run(*args, **kwargs):
            seen.add(path)
            return call(*args, **kwargs)

        return run

    def make(get_response):
        middleware = factory(get_response)
        recorded = noted(middleware)
        for hook in HOOKS:
            if hasattr(middleware, hook):
                setattr(recorded, hook, noted(getattr(middleware, hook)))
        return recorded

    return make


def test_a_request_for_the_wire_api_runs_only_the_api_middleware(ran, alice, make_token):
    token = make_token(alice)
    packet = push_packet(alice)
    api = ApiClient(token)
    assert api.get("/v1/healthz").status_code == 200
    assert api.get("/v1/packets?limit=50").status_code == 200
    assert api.get(f"/v1/packets/{packet.id}").status_code == 200
    assert api.get("/v1/packets/01NOSUCHPACKET00000000000000").status_code == 404
    # A doubled slash, as the Go client sends with a host saved with a trailing slash (the test
    # client would read "//v1" as a host: the WSGI path is set by hand).
    assert Client().get("/v1/healthz", PATH_INFO="//v1/healthz").status_code == 200
    assert ran == {*before_the_split(), *settings.API_MIDDLEWARE}
    assert not {"django.middleware.csrf.CsrfViewMiddleware", "axes.middleware.AxesMiddleware"} & ran


def test_pages_run_every_middleware(ran, alice):
    assert signed_in(alice).get("/tokens").status_code == 200
    assert ran == set(settings.MIDDLEWARE)


@pytest.mark.parametrize("page", ["invite", "docs"])
def test_the_pages_under_v1_run_every_middleware(ran, alice, page):
    _, code = make_invite(make_team(alice, "core"))
    path = {"invite": f"/v1/invites/{code}", "docs": "/v1/docs"}[page]
    response = Client().get(path)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert ran == set(settings.MIDDLEWARE)


def test_the_api_list_is_built_without_assigning_a_setting(monkeypatch):
    """Django's loader reads settings.MIDDLEWARE only; the API's chain is built beside it, so a
    handler built at the same time (a test client in another thread) never meets another list."""
    assigned = []
    assign = type(settings).__setattr__

    def noted(holder, name, value):
        assigned.append(name)
        assign(holder, name, value)

    monkeypatch.setattr(type(settings), "__setattr__", noted)
    ApiHandler()
    assert assigned == []


class NotesItsHooks:
    """A middleware with the hooks Django's loader hands to the handler rather than chaining."""

    seen = []

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view, args, kwargs):
        self.seen.append(("view", view.cls.__name__))

    def process_exception(self, request, exception):
        self.seen.append(("exception", type(exception).__name__))
        return HttpResponse(status=418)


def test_the_api_list_runs_each_hook_as_djangos_own_list_would(alice, make_token, monkeypatch):
    token = make_token(alice)
    packet = push_packet(alice)

    def fails(**kwargs):
        raise RuntimeError("a bug in the service")

    with override_settings(API_MIDDLEWARE=[*settings.API_MIDDLEWARE, f"{__name__}.NotesItsHooks"]):
        api = ApiClient(token)
        assert api.get("/v1/healthz").status_code == 200
        monkeypatch.setattr("packets.services.packet_read", fails)
        assert api.get(f"/v1/packets/{packet.id}").status_code == 418
    assert NotesItsHooks.seen == [("view", "Healthz"), ("view", "PacketItem"), ("exception", "RuntimeError")]


def _routes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and not str(pattern.pattern).startswith("^"):
            yield prefix + str(pattern.pattern)


def test_every_route_the_api_list_serves_is_csrf_exempt_and_every_other_one_under_v1_is_a_page():
    """A page added under /v1 without its place in core.middleware.PAGES_UNDER_V1 would lose CSRF
    and sessions: its view is not CSRF-exempt, which fails here."""
    routes = [route for route in _routes(get_resolver().url_patterns) if route.startswith("v1/")]
    assert len(routes) > 20
    pages = set()
    for route in routes:
        path = "/" + re.sub(r"<[^>]+>", "x", route)
        view = resolve(path).func
        if is_api_path(path):
            assert getattr(view, "csrf_exempt", False), route
        else:
            pages.add(route)
    assert pages == {"v1/invites/<str:code>", "v1/docs"}
    assert is_api_path("/v1/invites/x/accept") and is_api_path("/v1/anything-else")


def test_api_answers_keep_their_security_headers_and_set_no_cookie(anon_api):
    response = anon_api.get("/v1/healthz")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert "default-src 'none'" in response["Content-Security-Policy"]
    assert response["Content-Length"] == str(len(response.content))
    assert not response.cookies and "Cookie" not in response.get("Vary", "")


def test_the_api_still_refuses_a_host_it_does_not_serve():
    assert Client(HTTP_HOST="evil.example").get("/v1/healthz").status_code == 400


def test_a_signed_in_browser_session_does_not_authenticate_the_api(alice):
    assert signed_in(alice).get("/v1/packets").status_code == 401


def test_a_revoked_token_is_refused_on_its_next_request(alice, make_token):
    token = make_token(alice)
    api = ApiClient(token)
    assert api.get("/v1/packets").status_code == 200
    [row] = alice.api_tokens.all()
    api_token_revoke(actor=alice, token_id=row.id)
    assert api.get("/v1/packets").status_code == 401
