"""Pins on the internals of django-redis, django-allauth, django-oauth-toolkit, django-csp and
drf-spectacular that the hub relies on (the list of every private use: test_library_pins.py)."""

import inspect
import socket
import threading
import time

from django.core.cache import caches
from django.http import HttpResponse, JsonResponse

from core.testing import skip_unless_services

# --- django-redis and allauth: hub/backends/cache.py ---------------------------------------------------

CACHE_WHY = (
    "hub.backends.cache.FailOpenRedisCache wraps django-redis's RedisCache.client (every cache call reads "
    "it inside django-redis's omit_exception) to stop asking a Redis that failed for a while: "
)


def test_django_redis_keeps_the_members_fail_open_cache_overrides():
    from django_redis.cache import RedisCache
    from django_redis.client import DefaultClient

    assert isinstance(inspect.getattr_static(RedisCache, "client"), property), CACHE_WHY + "client is no property"
    parameters = list(inspect.signature(DefaultClient.add).parameters)
    assert parameters[:6] == ["self", "key", "value", "timeout", "version", "client"], (
        "hub.backends.cache.FailOpenRedisCache.add passes key, value, timeout, version and client on: "
        + f"add{parameters}"
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
    from hub.backends.cache import FailOpenRedisCache

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
    "hub.backends.cache.is_rate_limit_lock shortens the lock allauth's rate limiter takes with cache.add "
    "(allauth.core.internal.ratelimit.cache_lock, `<key>:lock` for CACHE_LOCK_TIMEOUT seconds; "
    "no setting changes it) so a lock landing late on a stalled Redis refuses no sign-in: "
)


def test_allauth_takes_its_rate_limit_lock_with_cache_add(rf):
    from allauth.core import ratelimit
    from allauth.core.internal import ratelimit as internal

    from hub.backends.cache import RATE_LIMIT_LOCK_SECONDS, is_rate_limit_lock

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

    from hub.backends.cache import RATE_LIMIT_LOCK_SECONDS, FailOpenRedisCache

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

    from oauth.redirect_uris import application_redirect_schemes

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


def test_allauth_oidc_decodes_the_id_token_in_the_method_the_hub_overrides():
    """accounts.oidc.views.HubOIDCAdapter overrides _decode_id_token(app, id_token) to check the
    ID token's signature always; allauth's complete_login must still call it, with the switch
    that skips the signature there."""
    from allauth.socialaccount.providers.openid_connect.views import OpenIDConnectOAuth2Adapter

    assert list(inspect.signature(OpenIDConnectOAuth2Adapter._decode_id_token).parameters) == [
        "self",
        "app",
        "id_token",
    ]
    assert "self._decode_id_token(" in inspect.getsource(OpenIDConnectOAuth2Adapter.complete_login)
    assert "verify_signature" in inspect.getsource(OpenIDConnectOAuth2Adapter._decode_id_token)
