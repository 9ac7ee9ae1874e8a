"""Test helpers: the device flow's HTTP calls made as the `ltm` client makes them (form-encoded,
the same fields), through Django's test client."""

import importlib
from datetime import timedelta
from urllib.parse import urlencode

import json

from django.apps import apps
from django.test import Client
from django.db.models import F
from oauth2_provider.models import get_device_grant_model

FORM = "application/x-www-form-urlencoded"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def form_post(client, path, fields, content_type=FORM):
    return client.post(path, data=urlencode(fields), content_type=content_type)


def authorize_device(client, client_id="ltm-cli", scope="read write"):
    fields = {"client_id": client_id}
    if scope is not None:
        fields["scope"] = scope
    return form_post(client, "/oauth/authorize_device", fields)


def poll(client, device_code, client_id="ltm-cli"):
    return form_post(
        client, "/oauth/token", {"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": client_id}
    )


def grant_of(device_code):
    return get_device_grant_model().objects.get(device_code=device_code)


def let_interval_pass(device_code, seconds=None):
    """As if the client had waited its interval since its last poll (moves the grant's clock)."""
    grant = grant_of(device_code)
    step = timedelta(seconds=seconds if seconds is not None else grant.interval)
    get_device_grant_model().objects.filter(pk=grant.pk).update(last_checked=F("last_checked") - step)


def expire(device_code):
    get_device_grant_model().objects.filter(device_code=device_code).update(
        expires=F("expires") - timedelta(minutes=11)
    )


def device_token(client, user, scope="read write") -> str:
    """A token through the whole device flow, approved by `user`."""
    from accounts import services

    started = authorize_device(client, scope=scope).json()
    code = grant_of(started["device_code"]).user_code
    services.device_grant_decide(actor=user, address="127.0.0.1", raw_code=code, approve=True)
    response = poll(client, started["device_code"])
    assert response.status_code == 200, response.content
    return response.json()["access_token"]


def ensure_cli_application():
    """The live server's tests flush the database after each test, and with it the `ltm-cli`
    row the migrations made: put it back with the migration's own code."""
    migration = importlib.import_module("accounts.migrations.0002_ltm_cli_application")
    migration.create_cli_application(apps, None)


class Bearer:
    """Calls /v1 with `Authorization: Bearer <token>`, as the client does."""

    def __init__(self, token):
        self.client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")

    def get(self, path):
        return self.client.get(path)

    def post(self, path, body):
        return self.client.post(path, data=json.dumps(body), content_type="application/json")

    def delete(self, path):
        return self.client.delete(path)
