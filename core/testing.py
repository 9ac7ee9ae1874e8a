"""Test helpers shared by the apps' tests (imported by the root conftest.py)."""

import json

import pytest
from django.test import Client


def signed_in(user, **options) -> Client:
    """Django's test client with `user` signed in (a session, as the dashboard uses)."""
    client = Client(**options)
    client.force_login(user)
    return client


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


def refusal(error, call):
    """The message of the `error` (exactly that class, not a subclass) that `call()` raises."""
    with pytest.raises(error) as raised:
        call()
    assert type(raised.value) is error
    return raised.value.message
