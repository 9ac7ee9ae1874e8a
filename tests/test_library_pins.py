"""Pins on the third-party internals the hub relies on.

Where the hub's code overrides or calls a library's private (underscore) member, or leans on an
undocumented behaviour, and no public extension point serves, a test here fails when the library
changes under it: the installed version is the one requirements.txt pins, the member still has
the signature we override, and the behaviour we rely on still happens. Each failure message names
the override and why it exists, so an upgrade that breaks one fails CI loudly instead of the hub
misbehaving quietly.

PRIVATE_USES lists every use of a library's private member in the hub's code (the apps, core and
hub; not tests or migrations); `test_no_new_private_use_of_a_library` fails on one it does not
list. Django's documented `_meta` and `_state`, and namedtuple's `_replace`, are public API.
"""

import ast
import asyncio
import concurrent.futures
import importlib
import importlib.metadata
import inspect
import re
import socket
import threading
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest
from django.core.cache import caches
from django.http import HttpResponse, JsonResponse

from core.testing import skip_unless_services

ROOT = Path(__file__).resolve().parents[1]
HUB_PACKAGES = ("accounts", "oauth", "packets", "teams", "mcp_remote", "core", "hub")
OUR_MODULES = (*HUB_PACKAGES, "ltm", "tests", "conftest")

# Every private member of a library the hub's code touches: where, what, and what pins it. A new
# one fails test_no_new_private_use_of_a_library until it is listed here with a pin, or replaced
# by the library's public extension point.
PRIVATE_USES = {
    "core/postgresql/base.py:module:_WaitTimeout": (
        "psycopg.errors._WaitTimeout, what Connection.wait raises when its timeout expires: the "
        "answer timeout turns it into OperationalError (test_psycopg_*)"
    ),
    "accounts/sessions.py:SessionStore._session_key": (
        "django SessionBase._session_key setter: an unknown session key is dropped, not adopted, "
        "as Django's own engines do (test_django_session_*)"
    ),
    "oauth/client_views.py:ClientConfigurationView._authenticate_registration_request": (
        "django-oauth-toolkit's registration-token check, run before our redirect URI rule "
        "(test_dot_registration_token_check_*)"
    ),
    "oauth/client_views.py:module:_csp_update": (
        "django-csp's per-response policy update, what csp.decorators.csp_update sets: the consent "
        "page's form-action names the client's origin (test_django_csp_*)"
    ),
    "packets/models.py:module:_iterable_class": (
        "django QuerySet._iterable_class, the class that turns rows into models: with_held hands out "
        "each packet held out for its reader, however the queryset is chained (test_django_queryset_*)"
    ),
    "core/middleware.py:ApiHandler._get_response": (
        "django BaseHandler._get_response, what load_middleware wraps in the middleware: the wire "
        "API's own chain is built around it (test_django_handler_*)"
    ),
    "core/middleware.py:ApiHandler._view_middleware": (
        "django BaseHandler's list of process_view hooks, which _get_response runs (test_django_handler_*)"
    ),
    "core/middleware.py:ApiHandler._template_response_middleware": (
        "django BaseHandler's list of process_template_response hooks (test_django_handler_*)"
    ),
    "core/middleware.py:ApiHandler._exception_middleware": (
        "django BaseHandler's list of process_exception hooks (test_django_handler_*)"
    ),
}
# Underscore names that are public API: Django documents Model._meta and Model._state,
# namedtuple documents _replace, _asdict, _fields and _make.
DOCUMENTED = {"_meta", "_state", "_replace", "_asdict", "_fields", "_make"}


def pinned_version(distribution: str) -> str:
    """The version requirements.txt pins for `distribution` (`name==version`, extras allowed)."""
    wanted = re.sub(r"[-_.]+", "-", distribution).lower()
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        match = re.match(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s#;]+)", line)
        if match and re.sub(r"[-_.]+", "-", match[1]).lower() == wanted:
            return match[3]
    raise AssertionError(f"requirements.txt pins no version of {distribution}")


# What each library is pinned for: the overrides of its internals that a new version may break.
PINNED_FOR = {
    "psycopg": "core.postgresql.BoundedConnection overrides Connection.wait and catches errors._WaitTimeout",
    "Django": "accounts.sessions.SessionStore drops unknown keys through SessionBase._session_key; "
    "core.postgresql.DatabaseWrapper.get_new_connection stands in for Django's; "
    "core.middleware.ApiHandler builds a chain as BaseHandler.load_middleware does; "
    "packets.models.PacketQuerySet.with_held sets QuerySet._iterable_class",
    "django-redis": "core.cache.FailOpenRedisCache wraps RedisCache.client and overrides add",
    "django-allauth": "core.cache.is_rate_limit_lock recognises allauth's internal rate-limit lock key; "
    "packets.shares reads the share limit's window through allauth.core.internal.ratelimit.get_rates",
    "django-oauth-toolkit": "oauth.client_views calls _authenticate_registration_request; "
    "oauth.apps replaces Application.get_allowed_schemes",
    "django-csp": "oauth.client_views sets response._csp_update",
    "mcp": "mcp_remote.server names serverInfo.version through Server(version=...)",
}


@pytest.mark.parametrize("distribution", sorted(PINNED_FOR))
def test_the_installed_version_is_the_one_requirements_txt_pins(distribution):
    installed, pinned = importlib.metadata.version(distribution), pinned_version(distribution)
    assert installed == pinned, (
        f"{distribution} {installed} is installed, requirements.txt pins {pinned}: the pins in "
        f"tests/test_library_pins.py check the internals {PINNED_FOR[distribution]}; run them "
        "against the version the hub ships"
    )


# --- psycopg: core/postgresql/base.py ----------------------------------------------------------

PSYCOPG_WHY = (
    "core.postgresql.BoundedConnection overrides psycopg's Connection.wait to bound every wait for "
    "the server by OPTIONS['answer_timeout'] and catches psycopg.errors._WaitTimeout (psycopg has "
    "no public client-side timeout for a statement): "
)


def test_psycopg_connection_wait_keeps_the_signature_bounded_connection_overrides():
    parameters = list(inspect.signature(psycopg.Connection.wait).parameters)
    assert parameters[:4] == ["self", "gen", "interval", "timeout"], PSYCOPG_WHY + f"wait{parameters}"
    from psycopg import errors

    timeout_error = getattr(errors, "_WaitTimeout", None)
    assert isinstance(timeout_error, type) and issubclass(timeout_error, psycopg.OperationalError), (
        PSYCOPG_WHY + "psycopg.errors._WaitTimeout is gone or no longer an OperationalError"
    )


def _never_answered():
    """A psycopg generator waiting to read what never comes (psycopg sends READY_NONE on ticks)."""
    from psycopg.waiting import Wait

    while True:
        ready = yield Wait.R
        if ready:
            return "answered"


@pytest.fixture
def bounded_connection(monkeypatch):
    """A BoundedConnection on one end of a socket pair, without a server: (connection, peer)."""
    from core.postgresql.base import BoundedConnection, Breaker

    monkeypatch.setattr(Breaker, "down_until", 0.0)
    ours, peer = socket.socketpair()
    connection = BoundedConnection.__new__(BoundedConnection)
    connection.pgconn = SimpleNamespace(socket=ours.fileno())
    connection.closed_by_us = False
    connection.close = lambda: setattr(connection, "closed_by_us", True)
    connection.answer_timeout = 0.2
    yield connection, peer
    del connection.pgconn  # so psycopg's __del__ leaves the half-built connection alone
    ours.close()
    peer.close()


def test_psycopg_a_wait_past_the_answer_timeout_closes_the_connection_and_trips_the_breaker(bounded_connection):
    from core.postgresql.base import Breaker

    connection, peer = bounded_connection
    started = time.monotonic()
    with pytest.raises(psycopg.OperationalError, match="did not answer within 0.2 seconds"):
        connection.wait(_never_answered())
    assert time.monotonic() - started < 2, PSYCOPG_WHY + "the wait outlived the answer timeout"
    assert connection.closed_by_us and Breaker.is_open(), PSYCOPG_WHY + "the timeout was not seen"

    peer.send(b"x")  # an answer in time is returned as psycopg returns it
    assert connection.wait(_never_answered()) == "answered"


def test_psycopg_its_own_timed_waits_are_left_to_psycopg(bounded_connection):
    """psycopg times some waits itself (notifies, cancel): those raise _WaitTimeout to psycopg's
    own caller, which converts it; the connection stays open."""
    from psycopg import errors

    connection, _ = bounded_connection
    with pytest.raises(errors._WaitTimeout):
        connection.wait(_never_answered(), timeout=0.05)
    assert not connection.closed_by_us


@pytest.fixture
def postgresql(db):
    from django.db import connection

    if connection.vendor != "postgresql":
        skip_unless_services("needs PostgreSQL (DATABASE_URL=postgres://...), as CI does")
    return connection


def test_psycopg_a_statement_waits_through_connection_wait(postgresql, monkeypatch):
    """The real path: cursor.execute waits through Connection.wait with no timeout of its own, so
    the answer timeout bounds a statement the server takes too long to answer."""
    from core.postgresql.base import BoundedConnection, Breaker

    monkeypatch.setattr(Breaker, "down_until", 0.0)
    params = postgresql.get_connection_params()
    with BoundedConnection.connect(**params) as connection:
        connection.answer_timeout = 0.3
        started = time.monotonic()
        with pytest.raises(psycopg.OperationalError, match="did not answer within 0.3 seconds"):
            connection.execute("SELECT pg_sleep(3)")
        assert time.monotonic() - started < 2, PSYCOPG_WHY + "a statement did not wait through Connection.wait"
        assert connection.closed


def test_django_new_connection_is_djangos_but_bounded(postgresql):
    """core.postgresql.DatabaseWrapper.get_new_connection opens the connection itself (Django
    calls psycopg.connect, with no hook for the connection class): it must keep what Django's
    sets up."""
    from django.db.backends.postgresql.base import DatabaseWrapper as DjangoWrapper

    from core.postgresql.base import BoundedConnection, DatabaseWrapper

    settings_dict = dict(postgresql.settings_dict)
    theirs_options = {k: v for k, v in settings_dict["OPTIONS"].items() if k != "answer_timeout"}
    ours = DatabaseWrapper(settings_dict, alias="pin_ours")
    theirs = DjangoWrapper({**settings_dict, "OPTIONS": theirs_options}, alias="pin_theirs")
    try:
        ours.ensure_connection()
        theirs.ensure_connection()
        why = "core.postgresql.DatabaseWrapper.get_new_connection no longer matches Django's: "
        assert type(ours.connection) is BoundedConnection, why + "the connection is not bounded"
        assert ours.isolation_level == theirs.isolation_level, why + "isolation_level"
        assert ours.connection.cursor_factory is theirs.connection.cursor_factory, why + "cursor_factory"
        assert ours.connection.prepare_threshold == theirs.connection.prepare_threshold, why + "prepare_threshold"
        assert ours.connection.autocommit == theirs.connection.autocommit, why + "autocommit"
        assert ours.connection.isolation_level == theirs.connection.isolation_level, why + "the connection's level"
    finally:
        ours.close()
        theirs.close()


# --- Django sessions: accounts/sessions.py -----------------------------------------------------

SESSION_WHY = (
    "accounts.sessions.SessionStore keeps only a digest of each session key and, like Django's own "
    "engines, drops an unknown key through SessionBase's `_session_key` setter (no public setter "
    "exists) so a key the client made up is never adopted: "
)


def test_django_session_key_has_the_private_setter_the_store_uses():
    from django.contrib.sessions.backends.base import SessionBase

    attribute = inspect.getattr_static(SessionBase, "_session_key", None)
    assert isinstance(attribute, property) and attribute.fset is not None, SESSION_WHY + "no _session_key setter"
    from django.contrib.sessions.backends import db

    for name in ("load", "aload", "exists", "aexists", "delete", "adelete"):
        assert callable(getattr(db.SessionStore, name, None)), SESSION_WHY + f"db.SessionStore.{name} is gone"
    for name in ("create_model_instance", "acreate_model_instance"):
        parameters = list(inspect.signature(getattr(db.SessionStore, name)).parameters)
        assert parameters == ["self", "data"], SESSION_WHY + f"{name}{parameters}"


def test_django_session_an_unknown_key_is_dropped_and_a_saved_one_is_stored_as_its_digest(db):
    from django.contrib.sessions.models import Session

    from accounts.sessions import SessionStore, stored_key

    made_up = "a" * 32
    store = SessionStore(made_up)
    assert store.load() == {}
    assert store.session_key is None, SESSION_WHY + "a made-up key was kept"
    store["seen"] = 1
    store.save()  # Django's save: a fresh key, through our create_model_instance
    assert store.session_key not in (None, made_up), SESSION_WHY + "a made-up key was adopted"
    assert Session.objects.filter(session_key=stored_key(store.session_key)).exists()
    assert not Session.objects.filter(session_key=store.session_key).exists(), SESSION_WHY + "key stored"
    assert SessionStore(store.session_key).load() == {"seen": 1}
    assert SessionStore(stored_key(store.session_key)).load() == {}  # a digest is no session


@pytest.mark.django_db(transaction=True)
def test_django_session_async_reads_by_digest_too():
    from accounts.sessions import SessionStore

    def run(coroutine_function):
        # In a thread of its own: a browser test earlier in the run may leave an event loop in
        # this one, where asgiref refuses to start another.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coroutine_function()).result()

    store = SessionStore()
    store["seen"] = 2
    store.save()
    assert run(SessionStore(store.session_key).aload) == {"seen": 2}
    unknown = SessionStore("b" * 32)
    assert run(unknown.aload) == {}
    assert unknown.session_key is None, SESSION_WHY + "aload kept a made-up key"


# --- Django's handler: core/middleware.py ------------------------------------------------------

HANDLER_WHY = (
    "core.middleware.ApiHandler builds the wire API's middleware chain (settings.API_MIDDLEWARE) as "
    "BaseHandler.load_middleware builds MIDDLEWARE's, around _get_response and its hook lists: "
)


class EveryHook:
    """A middleware with each hook Django's loader hands to the handler rather than chaining."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view, args, kwargs):
        return None

    def process_template_response(self, request, response):
        return response

    def process_exception(self, request, exception):
        return None


def test_django_handler_loads_middleware_into_the_lists_the_api_handler_fills():
    from django.core.handlers.base import BaseHandler
    from django.test import override_settings

    from core.middleware import ApiHandler

    path = f"{__name__}.EveryHook"
    django = BaseHandler()
    with override_settings(MIDDLEWARE=[path], API_MIDDLEWARE=[path]):
        django.load_middleware()
        ours = ApiHandler()
    for hooks, hook in (
        ("_view_middleware", "process_view"),
        ("_template_response_middleware", "process_template_response"),
        ("_exception_middleware", "process_exception"),
    ):
        loaded = [method.__name__ for method in getattr(django, hooks)]
        assert loaded == [method.__name__ for method in getattr(ours, hooks)] == [hook], HANDLER_WHY + hooks
    assert "self._get_response" in inspect.getsource(BaseHandler.load_middleware), HANDLER_WHY + "_get_response"
    source = inspect.getsource(BaseHandler._get_response)
    assert "self._view_middleware" in source and "self._template_response_middleware" in source, HANDLER_WHY
    assert "self._exception_middleware" in inspect.getsource(BaseHandler.process_exception_by_middleware), HANDLER_WHY


# --- django-redis and allauth: core/cache.py ---------------------------------------------------

CACHE_WHY = (
    "core.cache.FailOpenRedisCache wraps django-redis's RedisCache.client (every cache call reads "
    "it inside django-redis's omit_exception) to stop asking a Redis that failed for a while: "
)


def test_django_redis_keeps_the_members_fail_open_cache_overrides():
    from django_redis.cache import RedisCache
    from django_redis.client import DefaultClient

    assert isinstance(inspect.getattr_static(RedisCache, "client"), property), CACHE_WHY + "client is no property"
    parameters = list(inspect.signature(DefaultClient.add).parameters)
    assert parameters[:6] == ["self", "key", "value", "timeout", "version", "client"], (
        "core.cache.FailOpenRedisCache.add passes key, value, timeout, version and client on: " + f"add{parameters}"
    )


class _SilentServer:
    """A TCP server that accepts connections and never answers: a stalled Redis."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.accepted = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                self.accepted.append(self.socket.accept()[0])
            except OSError:
                return

    def close(self):
        self.socket.close()
        for peer in self.accepted:
            peer.close()


def test_django_redis_every_call_goes_through_the_client_property(monkeypatch):
    from core.cache import FailOpenRedisCache

    monkeypatch.setattr(FailOpenRedisCache, "down_until", 0.0)
    server = _SilentServer()
    options = {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2}
    cache = FailOpenRedisCache(f"redis://127.0.0.1:{server.port}/0", {"OPTIONS": options})
    try:
        assert cache.get("key", "missed") == "missed", CACHE_WHY + "a stalled Redis was no miss"
        assert FailOpenRedisCache.down_until > time.monotonic(), CACHE_WHY + "the failed call was not seen"
        asked, started = len(server.accepted), time.monotonic()
        assert cache.get("key", "missed") == "missed"
        assert cache.add("key", 1) is True  # an add that could not reach Redis counts as done
        assert time.monotonic() - started < 0.15, CACHE_WHY + "calls during the break still asked Redis"
        assert len(server.accepted) == asked, CACHE_WHY + "calls during the break still connected"
    finally:
        server.close()


ALLAUTH_WHY = (
    "core.cache.is_rate_limit_lock shortens the lock allauth's rate limiter takes with cache.add "
    "(allauth.core.internal.ratelimit.cache_lock, `<key>:lock` for CACHE_LOCK_TIMEOUT seconds; "
    "no setting changes it) so a lock landing late on a stalled Redis refuses no sign-in: "
)


def test_allauth_takes_its_rate_limit_lock_with_cache_add(rf):
    from allauth.core import ratelimit
    from allauth.core.internal import ratelimit as internal

    from core.cache import RATE_LIMIT_LOCK_SECONDS, is_rate_limit_lock

    default = caches["default"]
    real_add, added = default.add, []

    def spy(key, value, timeout=None, *args, **kwargs):
        added.append((key, timeout))
        return real_add(key, value, timeout, *args, **kwargs)

    default.add = spy
    try:
        assert ratelimit.consume(
            rf.post("/oauth/authorize_device", REMOTE_ADDR="203.0.113.7"), action="device_authorization"
        )
    finally:
        del default.add
    locks = [(key, timeout) for key, timeout in added if is_rate_limit_lock(key)]
    assert locks, ALLAUTH_WHY + f"no add matched; allauth added {[key for key, _ in added]}"
    assert all(timeout == internal.CACHE_LOCK_TIMEOUT for _, timeout in locks), ALLAUTH_WHY + f"{locks}"
    assert RATE_LIMIT_LOCK_SECONDS < internal.CACHE_LOCK_WAIT_TIMEOUT, (
        ALLAUTH_WHY + "a short lock must still expire before allauth stops waiting for it"
    )


def test_redis_the_rate_limit_lock_lives_shorter_than_allauth_asks():
    from django.conf import settings

    from core.cache import RATE_LIMIT_LOCK_SECONDS, FailOpenRedisCache

    if not settings.CACHES["default"]["BACKEND"].endswith("FailOpenRedisCache"):
        skip_unless_services("needs Redis (REDIS_URL=redis://...), as CI does")
    cache = caches["default"]
    assert isinstance(cache, FailOpenRedisCache)
    lock, plain = "allauth:rl:pin:lock", "allauth:rl:pin"
    try:
        assert cache.add(lock, True, timeout=10) is True
        assert cache.add(plain, True, timeout=10) is True
        assert 0 < cache.pttl(lock) <= RATE_LIMIT_LOCK_SECONDS * 1000, ALLAUTH_WHY + "the lock kept its 10 s"
        assert cache.pttl(plain) > 5000  # other keys keep the timeout asked for
    finally:
        cache.delete_many([lock, plain])


# --- django-oauth-toolkit: oauth/client_views.py and oauth/apps.py ----------------------------

DOT_WHY = (
    "oauth.client_views.ClientConfigurationView.put calls django-oauth-toolkit's private "
    "DynamicClientRegistrationManagementView._authenticate_registration_request to check the "
    "registration token before our redirect URI rule (the toolkit's put checks it inside, after "
    "the body has been read; it has no public hook between): "
)


def test_dot_registration_token_check_keeps_its_signature_and_answers():
    from oauth2_provider.views import DynamicClientRegistrationManagementView

    method = getattr(DynamicClientRegistrationManagementView, "_authenticate_registration_request", None)
    assert callable(method), DOT_WHY + "it is gone"
    parameters = list(inspect.signature(method).parameters)
    assert parameters == ["self", "request", "client_id"], DOT_WHY + f"_authenticate_registration_request{parameters}"


def test_dot_registration_token_check_refuses_with_a_json_response_and_passes_a_good_token(db, rf):
    import json

    from django.test import Client

    from oauth.client_views import ClientConfigurationView

    body = {"client_name": "pin", "token_endpoint_auth_method": "none", "redirect_uris": ["https://ok.example/cb"]}
    registered = Client().post("/oauth/register", json.dumps(body), content_type="application/json")
    assert registered.status_code == 201, registered.content
    client_id, token = registered.json()["client_id"], registered.json()["registration_access_token"]
    view = ClientConfigurationView()

    refused = view._authenticate_registration_request(rf.put("/"), client_id)
    assert isinstance(refused, JsonResponse) and refused.status_code == 401, DOT_WHY + f"no token: {refused!r}"
    wrong = view._authenticate_registration_request(rf.put("/", HTTP_AUTHORIZATION="Bearer nope"), client_id)
    assert isinstance(wrong, JsonResponse) and wrong.status_code == 401, DOT_WHY + f"a wrong token: {wrong!r}"
    passed = view._authenticate_registration_request(rf.put("/", HTTP_AUTHORIZATION=f"Bearer {token}"), client_id)
    assert not isinstance(passed, HttpResponse), DOT_WHY + f"a good token was refused: {passed!r}"


def test_dot_application_asks_get_allowed_schemes_which_oauth_apps_replaces(db):
    """Not private, but a replacement on the toolkit's class (oauth.apps): the toolkit's hook is
    a method of a custom application model, and swapping the model needs a fresh database."""
    from oauth2_provider.models import AbstractApplication, get_application_model
    from oauth2_provider.settings import oauth2_settings

    from oauth.server import application_redirect_schemes

    why = "oauth.apps sets Application.get_allowed_schemes for per-application private-use schemes: "
    assert list(inspect.signature(AbstractApplication.get_allowed_schemes).parameters) == ["self"], why
    Application = get_application_model()
    assert Application.get_allowed_schemes is application_redirect_schemes, why + "not installed"
    assert "cursor" not in oauth2_settings.ALLOWED_REDIRECT_URI_SCHEMES
    application = Application(
        name="pin",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris="cursor://anysphere.cursor-mcp/oauth/callback",
    )
    application.clean()  # the toolkit validates redirect URIs against get_allowed_schemes()


# --- django-csp: oauth/client_views.py ---------------------------------------------------------


def test_django_csp_merges_the_update_a_response_carries(rf):
    from csp.middleware import CSPMiddleware

    why = (
        "oauth.client_views sets response._csp_update (what csp.decorators.csp_update sets) so the "
        "consent page's form-action names the client's origin: "
    )
    response = HttpResponse()
    response._csp_update = {"form-action": ["https://client.example"]}
    answered = CSPMiddleware(lambda request: response)(rf.get("/oauth/authorize"))
    policy = answered.get("Content-Security-Policy") or answered.get("Content-Security-Policy-Report-Only", "")
    form_action = next((d for d in policy.split(";") if d.strip().startswith("form-action")), "")
    assert "https://client.example" in form_action, why + policy


# --- drf-spectacular: core/openapi.py ----------------------------------------------------------


def test_drf_spectacular_runs_its_own_schema_and_the_shared_errors_hook():
    """The errors every operation shares come from a postprocessing hook (public), not from an
    override of AutoSchema._get_response_bodies."""
    from drf_spectacular.openapi import AutoSchema
    from drf_spectacular.settings import spectacular_settings
    from rest_framework.settings import api_settings

    from core.openapi import add_server_limits, add_shared_errors

    assert api_settings.DEFAULT_SCHEMA_CLASS is AutoSchema
    hooks = list(spectacular_settings.POSTPROCESSING_HOOKS)
    assert add_shared_errors in hooks and hooks.index(add_shared_errors) < hooks.index(add_server_limits)
    names = [getattr(hook, "__module__", "") for hook in hooks]
    assert names.index("core.openapi") < names.index("oauth.openapi"), "shared errors go on /v1 views only"


# --- every private use is listed -----------------------------------------------------------------


def _hub_files():
    for package in HUB_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if "tests" not in parts and "migrations" not in parts:
                yield path


def _is_ours(module_name: str) -> bool:
    return module_name.split(".")[0] in OUR_MODULES


def _library_classes(cls) -> list[type]:
    return [base for base in cls.__mro__[1:] if base is not object and not _is_ours(base.__module__)]


def _library_defines(cls, name: str) -> bool:
    """Whether a library class `cls` inherits from has `name`, as a class member or in its source
    (attributes its methods set on instances)."""
    for base in _library_classes(cls):
        if name in vars(base):
            return True
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):
            continue
        if re.search(rf"\b{re.escape(name)}\b", source):
            return True
    return False


def _is_self(node) -> bool:
    if isinstance(node, ast.Name) and node.id in ("self", "cls"):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in DOCUMENTED


def _our_names() -> set[str]:
    """Underscore names the hub's code defines itself (functions, classes, attributes it sets)."""
    names = set()
    for path in _hub_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {name for name in names if _private(name)}


def _private_uses() -> set[str]:
    ours = _our_names()
    found = set()
    for path in _hub_files():
        relative = path.relative_to(ROOT).as_posix()
        module_name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        tree = ast.parse(path.read_text())
        module = None
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not _is_ours(node.module) and node.level == 0:
                found.update(f"{relative}:module:{alias.name}" for alias in node.names if _private(alias.name))
        for cls_node in [node for node in tree.body if isinstance(node, ast.ClassDef)]:
            module = module or importlib.import_module(module_name)
            cls = getattr(module, cls_node.name, None)
            if not isinstance(cls, type) or not _library_classes(cls):
                continue
            for node in ast.walk(cls_node):
                name = None
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in cls_node.body:
                    name = node.name
                elif isinstance(node, ast.Attribute) and _is_self(node.value):
                    name = node.attr
                if name and _private(name) and _library_defines(cls, name):
                    found.add(f"{relative}:{cls_node.name}.{name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and not _is_self(node.value) and _private(node.attr):
                if node.attr not in ours:
                    found.add(f"{relative}:module:{node.attr}")
    return found


def test_no_new_private_use_of_a_library():
    found = _private_uses()
    new = sorted(found - set(PRIVATE_USES))
    assert not new, (
        "the hub's code uses a library's private member that PRIVATE_USES in "
        f"tests/test_library_pins.py does not list: {new}. Use the library's public extension "
        "point instead, or list it there with a test that fails when the library changes under it."
    )
    gone = sorted(set(PRIVATE_USES) - found)
    if gone:
        warnings.warn(f"PRIVATE_USES lists uses the code no longer has; remove them: {gone}", stacklevel=1)


def test_django_queryset_keeps_its_iterable_class_through_chaining(db, alice):
    from django.db.models.query import ModelIterable, QuerySet

    from packets.models import Packet

    assert issubclass(QuerySet(model=Packet)._iterable_class, ModelIterable), "QuerySet._iterable_class is gone"
    chained = Packet.objects.with_held(alice).filter(pk="none").order_by("pk")
    assert chained._iterable_class.__name__ == "_HeldOut", "a chained queryset lost its iterable class"
