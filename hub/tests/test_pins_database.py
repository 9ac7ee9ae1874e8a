"""Pins on the internals of psycopg and Django that the hub's database backend, its session store
and the wire API's handler rely on (the list of every private use: test_library_pins.py)."""

import asyncio
import concurrent.futures
import inspect
import socket
import time
from types import SimpleNamespace

import psycopg
import pytest

from core.testing import skip_unless_services

# --- psycopg: hub/backends/postgresql/base.py ----------------------------------------------------------

PSYCOPG_WHY = (
    "hub.backends.postgresql.BoundedConnection overrides psycopg's Connection.wait to bound every wait for "
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
    from hub.backends.postgresql.base import BoundedConnection, Breaker

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
    from hub.backends.postgresql.base import Breaker

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
    from hub.backends.postgresql.base import BoundedConnection, Breaker

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
    """hub.backends.postgresql.DatabaseWrapper.get_new_connection opens the connection itself (Django
    calls psycopg.connect, with no hook for the connection class): it must keep what Django's
    sets up."""
    from django.db.backends.postgresql.base import DatabaseWrapper as DjangoWrapper

    from hub.backends.postgresql.base import BoundedConnection, DatabaseWrapper

    settings_dict = dict(postgresql.settings_dict)
    theirs_options = {k: v for k, v in settings_dict["OPTIONS"].items() if k != "answer_timeout"}
    ours = DatabaseWrapper(settings_dict, alias="pin_ours")
    theirs = DjangoWrapper({**settings_dict, "OPTIONS": theirs_options}, alias="pin_theirs")
    try:
        ours.ensure_connection()
        theirs.ensure_connection()
        why = "hub.backends.postgresql.DatabaseWrapper.get_new_connection no longer matches Django's: "
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
