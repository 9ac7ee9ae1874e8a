"""What the hub records about each device-flow sign-in (name, client, version, address), how the
approval page and the device rows show it, renaming and revoking, and cancelling a code from the
client (POST /oauth/device/cancel)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_device_grant_model

from core.errors import BadRequest
from core.testing import ApiClient, refusal, signed_in
from ltm.protocol.tokens import token_checksum, token_hint
from oauth import selectors, services
from oauth.device_flow import CANCELLED, parse_user_agent, same_network
from oauth.models import DeviceDetails
from oauth.tasks import purge_expired_oauth
from oauth.testing import authorize_device, form_post, grant_of, let_interval_pass, make_access_token, poll

pytestmark = pytest.mark.django_db

PYTHON_UA = "ltm-hub-cli/0.1.0 (python)"
GO_UA = "Go-http-client/1.1"


def start(client, *, name=None, user_agent=PYTHON_UA, address="198.51.100.7", **extra):
    fields = {"client_id": "ltm-cli", "scope": "read write", **extra}
    if name is not None:
        fields["device_name"] = name
    from urllib.parse import urlencode

    response = client.post(
        "/oauth/authorize_device",
        data=urlencode(fields),
        content_type="application/x-www-form-urlencoded",
        HTTP_USER_AGENT=user_agent,
        REMOTE_ADDR=address,
    )
    assert response.status_code == 200, response.content
    return response.json()


def approve_and_redeem(client, user, started):
    services.device_grant_decide(actor=user, address="127.0.0.1", raw_code=started["user_code"], approve=True)
    response = poll(client, started["device_code"])
    assert response.status_code == 200, response.content
    return response.json()["access_token"]


# What is recorded


def test_the_python_client_is_recorded_with_its_hostname_version_and_address(client):
    started = start(client, name="ada-laptop")
    details = DeviceDetails.objects.get(grant=grant_of(started["device_code"]))
    assert (details.name, details.user_agent, details.client_version, details.requested_from) == (
        "ada-laptop",
        PYTHON_UA,
        "0.1.0",
        "198.51.100.7",
    )
    assert details.access_token is None


def test_the_go_client_sends_no_name_and_is_named_from_its_user_agent(client):
    started = start(client, user_agent=GO_UA)
    details = DeviceDetails.objects.get(grant=grant_of(started["device_code"]))
    # Go's default User-Agent carries the HTTP library's version, not the client's
    assert (details.name, details.client_version) == ("ltm Go client", "")


def test_unknown_form_fields_and_odd_names_are_harmless(client):
    started = start(client, name="evil\n\x1b[31mhost\u202e" + "x" * 100, color="blue")
    details = DeviceDetails.objects.get(grant=grant_of(started["device_code"]))
    assert details.name.startswith("evil [31mhost x")  # the escape and the newline are gone
    assert len(details.name) == 64 and details.name.isprintable()


@pytest.mark.parametrize(
    "user_agent,parsed",
    [
        ("ltm-hub-cli/0.3.1 (python)", ("ltm Python client", "0.3.1")),
        ("ltm/1.2.3 (darwin; arm64)", ("ltm client", "1.2.3")),
        ("Go-http-client/2.0", ("ltm Go client", "")),
        ("curl/8.5.0", ("curl", "8.5.0")),
        ("", ("unknown client", "")),
        ("(weird)", ("unknown client", "")),
    ],
)
def test_user_agents(user_agent, parsed):
    assert parse_user_agent(user_agent) == parsed


@pytest.mark.parametrize(
    "first,second,same",
    [
        ("198.51.100.7", "198.51.100.200", True),  # same /24
        ("198.51.100.7", "198.51.101.7", False),
        ("127.0.0.1", "::1", True),  # both loopback
        ("127.0.0.1", "198.51.100.7", False),
        ("2001:db8:1:aa::1", "2001:db8:1:bb::2", True),  # same /48
        ("2001:db8:1::1", "2001:db8:2::1", False),
        ("::ffff:198.51.100.7", "198.51.100.9", True),  # IPv4 mapped into IPv6
        ("198.51.100.7", "2001:db8::1", False),
        ("0.0.0.0", "198.51.100.7", None),  # unknown: no claim
        (None, "198.51.100.7", None),
    ],
)
def test_same_network(first, second, same):
    assert same_network(first, second) is same


def test_redeeming_ties_the_details_to_the_token_and_the_row_shows_the_whoami_hint(client, alice):
    started = start(client, name="ada-laptop")
    token = approve_and_redeem(client, alice, started)
    (device,) = selectors.device_list(viewer=alice)
    assert device.hint == token_hint(token_checksum(token)) == token_checksum(token)[:8]
    assert (device.name, device.client, device.client_version, device.requested_from) == (
        "ada-laptop",
        "ltm Python client",
        "0.1.0",
        "198.51.100.7",
    )
    page = signed_in(alice).get("/tokens").content.decode()
    assert "ada-laptop" in page and device.hint in page and "198.51.100.7" in page


def test_last_use_shows_time_and_address_on_the_row(client, alice):
    token = approve_and_redeem(client, alice, start(client, name="ada-laptop"))
    # signed in two minutes ago: the next use is recorded (at most one write a minute)
    get_access_token_model().objects.update(updated=timezone.now() - timedelta(minutes=2))
    ApiClient(token).get("/v1/packets", REMOTE_ADDR="203.0.113.50")
    (device,) = selectors.device_list(viewer=alice)
    assert device.last_used_address == "203.0.113.50"
    assert "from 203.0.113.50" in signed_in(alice).get("/tokens").content.decode()


def test_purge_drops_the_details_of_codes_never_redeemed(client, alice):
    approve_and_redeem(client, alice, start(client, name="kept"))
    start(client, name="abandoned")
    get_device_grant_model().objects.update(expires=timezone.now() - timedelta(minutes=1))
    purge_expired_oauth()
    assert list(DeviceDetails.objects.values_list("name", flat=True)) == ["kept"]


# The approval page


def test_the_approval_page_shows_name_client_and_address_and_warns_across_networks(client, alice):
    started = start(client, name="build-server", address="203.0.113.9")
    page = signed_in(alice, REMOTE_ADDR="198.51.100.7").get(f"/device?user_code={started['user_code']}")
    body = page.content.decode()
    assert page.status_code == 200
    assert "build-server" in body and "ltm Python client 0.1.0" in body and "203.0.113.9" in body
    assert "another network than this browser" in body


def test_no_warning_from_the_same_network(client, alice):
    started = start(client, name="ada-laptop", address="198.51.100.7")
    body = (
        signed_in(alice, REMOTE_ADDR="198.51.100.99").get(f"/device?user_code={started['user_code']}").content.decode()
    )
    assert "ada-laptop" in body and "another network" not in body


def test_the_done_page_shows_the_next_commands_and_the_dashboard(alice):
    body = signed_in(alice).get("/device/done/approved").content.decode()
    for command in ("ltm save", "ltm ls", "ltm resume"):
        assert command in body
    assert 'href="/"' in body


# Cancel


def cancel(client, device_code, client_id="ltm-cli"):
    return form_post(client, "/oauth/device/cancel", {"device_code": device_code, "client_id": client_id})


def test_a_cancelled_code_cannot_be_approved_and_the_page_says_why(client, alice):
    started = start(client)
    response = cancel(client, started["device_code"])
    assert (response.status_code, response.json()) == (200, {"status": "cancelled"})
    assert response["Cache-Control"] == "no-store"
    assert grant_of(started["device_code"]).status == CANCELLED

    page = signed_in(alice).get(f"/device?user_code={started['user_code']}")
    assert page.status_code == 400
    assert "cancelled in the terminal" in page.content.decode()
    message = refusal(
        BadRequest,
        lambda: services.device_grant_decide(
            actor=alice, address="127.0.0.1", raw_code=started["user_code"], approve=True
        ),
    )
    assert "cancelled" in message
    let_interval_pass(started["device_code"])
    assert poll(client, started["device_code"]).json()["error"] == "access_denied"
    assert cancel(client, started["device_code"]).status_code == 200  # again: still fine


def test_cancel_after_approval_but_before_the_token_yields_no_token(client, alice):
    started = start(client)
    services.device_grant_decide(actor=alice, address="127.0.0.1", raw_code=started["user_code"], approve=True)
    assert cancel(client, started["device_code"]).status_code == 200
    answer = poll(client, started["device_code"])
    assert (answer.status_code, answer.json()["error"]) == (400, "access_denied")
    assert not get_access_token_model().objects.exists()


def test_cancel_refusals(client, alice):
    started = start(client)
    assert (cancel(client, "no-such-code").status_code, cancel(client, "no-such-code").json()["error"]) == (
        400,
        "invalid_grant",
    )
    assert cancel(client, started["device_code"], client_id="other").status_code == 401
    assert cancel(client, "", client_id="ltm-cli").json()["error"] == "invalid_request"
    assert client.get("/oauth/device/cancel").status_code == 405
    approve_and_redeem(client, alice, started)
    redeemed = cancel(client, started["device_code"])
    assert (redeemed.status_code, redeemed.json()["error"]) == (400, "invalid_grant")


# Rename and revoke on the dashboard


def test_rename_a_device(client, alice, bob):
    token = approve_and_redeem(client, alice, start(client, name="old-name"))
    (device,) = selectors.device_list(viewer=alice)
    page = signed_in(alice)
    response = page.post(f"/devices/{device.id}/rename", {"name": "  work laptop "})
    assert response.status_code == 302
    assert selectors.device_get(viewer=alice, device_id=device.id).name == "work laptop"
    page.post(f"/devices/{device.id}/rename", {"name": ""})
    assert selectors.device_get(viewer=alice, device_id=device.id).name == "work laptop"
    assert "a device needs a name" in page.get("/tokens").content.decode()
    assert signed_in(bob).post(f"/devices/{device.id}/rename", {"name": "mine"}).status_code == 404
    assert signed_in(alice).post("/devices/nope/rename", {"name": "x"}).status_code == 404
    assert ApiClient(token).get("/v1/packets").status_code == 200


def test_rename_a_token_made_without_details(alice):
    token = make_access_token(alice)
    signed_in(alice).post(f"/devices/{token.pk}/rename", {"name": "old laptop"})
    assert selectors.device_get(viewer=alice, device_id=token.pk).name == "old laptop"


def test_revoke_is_effective_on_the_next_request(client, alice):
    token = approve_and_redeem(client, alice, start(client, name="stolen-laptop"))
    api = ApiClient(token)
    assert api.get("/v1/packets").status_code == 200
    (device,) = selectors.device_list(viewer=alice)
    signed_in(alice).post(f"/devices/{device.id}/revoke", {"confirmed": "yes"})
    assert api.get("/v1/packets").json() == {"error": "invalid token"}
    assert not DeviceDetails.objects.exists()


def test_authorize_device_as_the_test_builder_makes_it_still_works(client):
    """Without User-Agent or device_name (the test builders' call): a row named after no client."""
    started = authorize_device(client).json()
    assert DeviceDetails.objects.get(grant=grant_of(started["device_code"])).name == "unknown client"
