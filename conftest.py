"""Fixtures shared by every test of the hub: people, tokens and an API client that speaks as them."""

import uuid

import pytest
from axes.handlers.proxy import AxesProxyHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from accounts.services import api_token_create, user_upsert
from core.testing import ApiClient


@pytest.fixture
def make_user(db):
    def make(username="alice", password="correct-horse-battery", email=None):
        user, _ = user_upsert(username=username, password=password, email=email)
        return user

    return make


@pytest.fixture
def make_token(db):
    def make(user, name="laptop"):
        return api_token_create(actor=user, name=name)[1]

    return make


def _person(username):
    """The fixture of one person: the user `username`, made with make_user's defaults."""

    def person(make_user):
        return make_user(username)

    person.__doc__ = f"The user {username!r}."
    return pytest.fixture(person, name=username)


# alice, bob and carol are everywhere; adam and dave join the teams that need more people.
alice, bob, carol, adam, dave = map(_person, ["alice", "bob", "carol", "adam", "dave"])


@pytest.fixture
def api_as(make_token):
    """api_as(user) -> an ApiClient carrying a fresh personal token of that user."""

    def make(user):
        return ApiClient(make_token(user))

    return make


@pytest.fixture
def anon_api():
    return ApiClient()


@pytest.fixture
def api_with_token():
    """api_with_token(token) -> an ApiClient carrying that bearer (e.g. a token `ltm join` got)."""
    return ApiClient


@pytest.fixture(autouse=True)
def _cache_of_its_own(settings):
    """Rate limits and other cached state must not leak from one test to the next. Each test gets
    a fresh key prefix rather than a cleared cache: with Redis (CI), clearing would flush the whole
    database, which is also the Celery broker and may be shared with another run. A fixture, not a
    line in hub/settings/test.py: settings are read once per run, the prefix changes per test."""
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    # django-axes's cache handler holds on to the cache it first saw: give it this test's.
    AxesProxyHandler.get_implementation(force=True)


@pytest.fixture
def signals_keep_connection():
    """For tests that call a WSGI application themselves: the request signals would close the
    database connection the test's transaction holds, so they are kept from it, as Django's test
    client does."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)
