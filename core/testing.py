"""Test helpers shared by the apps' tests (imported by the root conftest.py)."""

import json
import os
import re
import threading
from collections.abc import Callable
from contextlib import contextmanager
from http.server import ThreadingHTTPServer

import pytest
from django.db import connection
from django.test import Client
from jsonschema import Draft202012Validator, FormatChecker


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


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def skip_unless_services(reason: str) -> None:
    """Skip a test that needs PostgreSQL or Redis when they are not configured; fail instead in
    CI's run on the services, so a missing DATABASE_URL or REDIS_URL shows. CI's run on the
    embedded default (LTM_TEST_EMBEDDED=1) skips them as a laptop does."""
    if in_ci() and os.environ.get("LTM_TEST_EMBEDDED") != "1":
        pytest.fail(reason)
    pytest.skip(reason)


NO_RACE_ON_SQLITE = "concurrency test needs PostgreSQL (SQLite serialises writers, so there is no race to test)"


def require_postgresql(what: str = NO_RACE_ON_SQLITE) -> None:
    """Skip a test of PostgreSQL's behaviour elsewhere (by default a concurrency test: SQLite
    serialises writers, there is no race to test)."""
    if connection.vendor != "postgresql":
        skip_unless_services(f"{what}; run with DATABASE_URL=postgres://..., as CI does")


def run_at_once(calls: list[Callable[[], object]]) -> list[object]:
    """Run each call in its own thread (with its own database connection), released together by
    a barrier; returns what each returned, in order."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


# The OpenAPI description (/v1/openapi.json), for tests that hold answers to it.
OPENAPI_METHODS = ("get", "post", "patch", "delete")


def openapi_document() -> dict:
    """The description as the hub serves it (a test with database access calls it)."""
    response = Client().get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def path_template(path: str) -> str:
    """A path with its parameters unnamed: the contract says {id}, the hub's URLs {packet_id}."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def openapi_operations(document) -> dict:
    return {
        (method, path_template(path)): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in OPENAPI_METHODS
    }


def openapi_resolve(document, schema):
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def openapi_response_schema(document, method, path, status) -> dict:
    response = openapi_operations(document)[(method, path_template(path))]["responses"][str(status)]
    return response["content"]["application/json"]["schema"]


def assert_described(document, method, path, response):
    """The answer's body validates against what the description says for its status."""
    schema = openapi_response_schema(document, method, path, response.status_code)
    validator = Draft202012Validator({**schema, "components": document["components"]}, format_checker=FormatChecker())
    errors = [error.message for error in validator.iter_errors(json.loads(response.content))]
    assert not errors, (method, path, response.status_code, errors)


@contextmanager
def serving_on_loopback(handler_class):
    """An HTTP server answering with `handler_class` on 127.0.0.1 (a free port), in a thread, for
    the tests of the calls the hub makes (core.outbound and its users); stopped at the end."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
