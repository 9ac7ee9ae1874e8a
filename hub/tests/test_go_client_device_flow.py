"""The hub called exactly as the public Go `ltm` client calls it (hub/testing/go_client.py):
the OAuth device flow of `ltm auth`. The docstring of each test names the Go function it mirrors."""

import json

import pytest

from hub.testing.go_client import (
    GoClient,
    go_decode,
)
from oauth import services
from oauth.testing import DEVICE_GRANT, expire, grant_of, let_interval_pass
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db


# --- OAuth device flow --------------------------------------------------------------------------


def start_device_flow():
    response = GoClient().post_form("/oauth/authorize_device", {"client_id": "ltm-cli", "scope": "read write"})
    assert response.status_code == 200
    return response.json()


def poll_token(device_code):
    """pollToken: the JSON body is decoded whatever the status."""
    response = GoClient().post_form(
        "/oauth/token", {"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": "ltm-cli"}
    )
    return go_decode(
        json.loads(response.content),
        {
            "access_token": str,
            "token_type": str,
            "scope": str,
            "error": str,
            "error_description": str,
        },
    )


def test_device_authorization():
    """mirrors runDeviceFlow step 1 (cli/auth.go): PostForm /oauth/authorize_device with
    client_id=ltm-cli and scope="read write"; exactly 200; device_code, user_code and
    verification_uri non-empty; expires_in and interval decode as Go ints."""
    body = go_decode(
        start_device_flow(),
        {
            "device_code": str,
            "user_code": str,
            "verification_uri": str,
            "verification_uri_complete": str,
            "expires_in": int,
            "interval": int,
        },
    )
    assert body["device_code"] and body["verification_uri"].startswith("http://testserver/")
    assert len(body["user_code"].strip()) == 8  # formatUserCode shows it as XXXX-XXXX
    assert body["interval"] > 0 and body["expires_in"] > 0
    assert body["verification_uri_complete"].startswith(body["verification_uri"])


def test_device_token_polling_until_approved(alice):
    """mirrors runDeviceFlow's loop and pollToken (cli/auth.go): sleep `interval`, then PostForm
    /oauth/token; `authorization_pending` → again; success → `access_token`, stored as is and
    sent as a Bearer from then on."""
    started = start_device_flow()
    code = started["device_code"]
    let_interval_pass(code)
    assert poll_token(code)["error"] == "authorization_pending"
    grant = grant_of(code)
    services.device_grant_decide(actor=alice, address="127.0.0.1", raw_code=grant.user_code, approve=True)
    let_interval_pass(code)
    answer = poll_token(code)
    assert "error" not in answer and answer["access_token"]
    assert answer["token_type"].lower() == "bearer"
    assert not answer["access_token"].startswith("-")
    assert GoClient(answer["access_token"]).do("GET", "/v1/packets?limit=50").status_code == 200
    created = GoClient(answer["access_token"]).do("POST", "/v1/packets", json.dumps(packet_v02()).encode())
    assert created.status_code == 201  # scope "read write" allows the writes the client makes


def test_device_token_polling_too_fast_is_slow_down():
    """mirrors runDeviceFlow's `slow_down` case: the client adds 5 s to its interval and polls
    on; polling at the new interval is pending again, not another slow_down."""
    code = start_device_flow()["device_code"]
    assert poll_token(code)["error"] == "slow_down"  # no wait at all since the start
    let_interval_pass(code, seconds=grant_of(code).interval)  # the client's interval + 5 s
    assert poll_token(code)["error"] == "authorization_pending"


def test_device_token_polling_denied_and_expired(alice):
    """mirrors runDeviceFlow's `access_denied` and `expired_token` cases."""
    denied = start_device_flow()["device_code"]
    services.device_grant_decide(actor=alice, address="127.0.0.1", raw_code=grant_of(denied).user_code, approve=False)
    let_interval_pass(denied)
    assert poll_token(denied)["error"] == "access_denied"

    late = start_device_flow()["device_code"]
    expire(late)
    assert poll_token(late)["error"] == "expired_token"


def test_device_flow_other_errors_carry_error_description():
    """mirrors runDeviceFlow's default case: `authorization failed: <error> (<error_description>)`."""
    answer = poll_token("no-such-device-code")
    assert answer["error"] == "invalid_grant" and answer["error_description"]
