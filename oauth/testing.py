"""Builders for tests of the OAuth server and of every app above it: the device flow's HTTP calls
made as the `ltm` client makes them (form-encoded, the same fields), grants and access tokens."""

import importlib
from datetime import timedelta
from urllib.parse import urlencode

from django.apps import apps
from django.db.models import F
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, get_device_grant_model

from accounts.testing import FORM
from oauth import services
from oauth.device_flow import device_code_digest

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


def _grants(device_code):
    """The grant of a device_code, given as the client holds it or as the table keeps it
    (`grant.device_code`, its digest)."""
    return get_device_grant_model().objects.filter(device_code__in=[device_code_digest(device_code), device_code])


def grant_of(device_code):
    return _grants(device_code).get()


def let_interval_pass(device_code, seconds=None):
    """As if the client had waited its interval since its last poll (moves the grant's clock)."""
    grant = grant_of(device_code)
    step = timedelta(seconds=seconds if seconds is not None else grant.interval)
    get_device_grant_model().objects.filter(pk=grant.pk).update(last_checked=F("last_checked") - step)


def expire(device_code):
    _grants(device_code).update(expires=F("expires") - timedelta(minutes=11))


def device_token(client, user, scope="read write") -> str:
    """A token through the whole device flow, approved by `user`."""
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


def make_grant(*, status=None, user_code="BCDFGHJK", device_code="device-code", client_id="ltm-cli", expires_in=None):
    """A device grant of the `ltm-cli` client, stored directly (pending unless `status` says
    otherwise; ten minutes to live unless `expires_in`). The table keeps the digest of
    `device_code`, as for every grant; a client redeems it with `device_code` itself."""
    model = get_device_grant_model()
    return model.objects.create(
        client_id=client_id,
        device_code=device_code,
        user_code=user_code,
        status=status or model.AUTHORIZATION_PENDING,
        expires=timezone.now() + (expires_in if expires_in is not None else timedelta(minutes=10)),
    )


def make_access_token(user, token="device-token-value", scope="read write"):
    """A device's OAuth access token of `user` (as the device flow leaves it), stored directly."""
    application = get_application_model().objects.get(client_id="ltm-cli")
    return get_access_token_model().objects.create(
        user=user,
        application=application,
        token=token,
        scope=scope,
        expires=timezone.now() + timedelta(days=30),
    )
