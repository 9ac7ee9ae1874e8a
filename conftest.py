"""Fixtures shared by every test of the hub: people, tokens and an API client that speaks as them."""

import json

import pytest
from django.test import Client

from accounts.services import api_token_create, user_upsert


@pytest.fixture
def make_user(db):
    def make(username="alice", password="correct-horse-battery", email=None):
        user, _ = user_upsert(username=username, password=password, email=email)
        return user

    return make


@pytest.fixture
def make_token(db):
    def make(user, name="laptop"):
        return api_token_create(user=user, name=name)[1]

    return make


class ApiClient:
    """Django's test client with a bearer token and JSON helpers, as the ltm client calls the hub."""

    def __init__(self, token=None):
        self.client = Client()
        self.token = token

    def _headers(self, headers):
        base = {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if self.token else {}
        base.update(headers or {})
        return base

    def get(self, path, **headers):
        return self.client.get(path, **self._headers(headers))

    def delete(self, path, **headers):
        return self.client.delete(path, **self._headers(headers))

    def post(self, path, body=None, raw=None, content_type="application/json", **headers):
        data = raw if raw is not None else (json.dumps(body) if body is not None else "")
        return self.client.post(path, data=data, content_type=content_type, **self._headers(headers))


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def api_as(make_token):
    """api_as(user) -> an ApiClient carrying a fresh personal token of that user."""

    def make(user):
        return ApiClient(make_token(user))

    return make


@pytest.fixture
def anon_api():
    return ApiClient()


@pytest.fixture(autouse=True)
def _clear_cache():
    """Rate limits and other cached state must not leak from one test to the next (in CI the
    cache is the shared Redis)."""
    from django.core.cache import cache

    cache.clear()
    yield
