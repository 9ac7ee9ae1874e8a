"""LTM_TRUST_PROXY_HEADERS, read by the settings, decides whether invite links follow the proxy's
forwarded host and scheme."""

import pytest

from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


def settings_with_env(monkeypatch, **env):
    """hub/settings/base.py evaluated afresh with these environment variables (Django's own settings
    object is left alone). Named inside hub.settings so that its relative imports resolve; the
    topic modules it gathers are the ones already loaded, and LTM_TRUST_PROXY_HEADERS is read by
    base.py itself."""
    import importlib.util

    import hub.settings.base

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("hub.settings.settings_probe", hub.settings.base.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("trusted", ["1", "0"])
def test_ltm_trust_proxy_headers_decides_whether_the_url_follows_the_proxy(
    api_as, alice, alpha, settings, monkeypatch, trusted
):
    probe = settings_with_env(monkeypatch, LTM_TRUST_PROXY_HEADERS=trusted)
    settings.USE_X_FORWARDED_HOST = getattr(probe, "USE_X_FORWARDED_HOST", False)
    settings.SECURE_PROXY_SSL_HEADER = getattr(probe, "SECURE_PROXY_SSL_HEADER", None)
    settings.ALLOWED_HOSTS = ["hub.example.net", "testserver"]
    body = (
        api_as(alice)
        .post("/v1/teams/alpha/invites", {}, HTTP_X_FORWARDED_HOST="hub.example.net", HTTP_X_FORWARDED_PROTO="https")
        .json()
    )
    base = "https://hub.example.net" if trusted == "1" else "http://testserver"
    assert body["url"] == f"{base}/v1/invites/{body['code']}"
