"""READ, and every right on a team's packets, for a team that requires a second factor
(teams.second_factor): closed on the dashboard to a member whose account has none, and to a
token not issued after a sign-in with one; other teams and personal packets stay open."""

import pytest
from django.test import Client

from accounts.services import api_token_create
from accounts.testing import add_totp
from core.testing import ApiClient, signed_in
from oauth import services as oauth_services
from oauth.testing import authorize_device, grant_of, poll
from packets.testing import push_packet
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, members=[bob])


def token(user, *, second_factor):
    return ApiClient(api_token_create(actor=user, name="t", second_factor=second_factor)[1])


def test_tokens_read_the_teams_packets_only_after_a_second_factor(alice, bob, alpha):
    packet = push_packet(alice, team=alpha)
    add_totp(bob)
    before, after = token(bob, second_factor=False), token(bob, second_factor=True)
    alpha.require_mfa = True
    alpha.save(update_fields=["require_mfa"])

    refused = before.get("/v1/packets?team=alpha")
    assert refused.status_code == 403 and "requires a second factor" in refused.json()["error"]
    assert before.get(f"/v1/packets/{packet.pk}").status_code == 404

    assert [p["id"] for p in after.get("/v1/packets?team=alpha").json()["packets"]] == [packet.pk]
    assert after.get(f"/v1/packets/{packet.pk}").status_code == 200


def test_other_teams_and_personal_packets_stay_open(alice, bob, carol, alpha):
    beta = make_team(carol, name="beta", members=[bob])
    theirs = push_packet(carol, team=beta)
    own = push_packet(bob)
    alpha.require_mfa = True
    alpha.save(update_fields=["require_mfa"])
    api = token(bob, second_factor=False)
    assert [p["id"] for p in api.get("/v1/packets?team=beta").json()["packets"]] == [theirs.pk]
    assert api.get(f"/v1/packets/{own.pk}").status_code == 200


def device_token(user, *, second_factor) -> str:
    client = Client()
    started = authorize_device(client).json()
    code = grant_of(started["device_code"]).user_code
    oauth_services.device_grant_decide(
        actor=user, address="127.0.0.1", raw_code=code, approve=True, second_factor=second_factor
    )
    return poll(client, started["device_code"]).json()["access_token"]


def test_a_device_signed_in_after_a_second_factor_reads_them(alice, bob, alpha):
    packet = push_packet(alice, team=alpha)
    with_factor, without = device_token(bob, second_factor=True), device_token(bob, second_factor=False)
    alpha.require_mfa = True
    alpha.save(update_fields=["require_mfa"])
    assert ApiClient(with_factor).get(f"/v1/packets/{packet.pk}").status_code == 200
    assert ApiClient(without).get(f"/v1/packets/{packet.pk}").status_code == 404


def test_the_dashboard_closes_them_and_says_why_until_the_member_adds_one(alice, bob, alpha):
    packet = push_packet(alice, team=alpha)
    alpha.require_mfa = True
    alpha.save(update_fields=["require_mfa"])
    browser = signed_in(bob)
    for path in ("/", "/teams/alpha", "/teams/alpha/activity"):
        body = browser.get(path).content.decode()
        assert 'id="second-factor-notice"' in body, path
        assert "<strong>alpha</strong> requires a second factor" in body
    assert browser.get(f"/packets/{packet.pk}").status_code == 404
    add_totp(bob)
    browser = signed_in(bob)
    assert browser.get(f"/packets/{packet.pk}").status_code == 200
    assert 'id="second-factor-notice"' not in browser.get("/teams/alpha").content.decode()
