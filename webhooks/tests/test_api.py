"""/v1/webhooks: adding (the secret once), listing, reading, changing, removing, and who may."""

import json

import pytest

from teams.models import Membership, TeamEvent
from teams.testing import make_team
from webhooks.models import EVENTS, Webhook
from webhooks.services import WEBHOOKS_PER_SCOPE
from webhooks.signing import secret_open

HOOK = "http://127.0.0.1:9/hook"


def patch(api, path, body):
    return api.client.patch(path, data=json.dumps(body), content_type="application/json", **api._headers({}))


@pytest.fixture
def alice_api(api_as, alice):
    return api_as(alice)


@pytest.mark.django_db
def test_adding_shows_the_secret_once_and_keeps_it_encrypted(alice_api):
    answer = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created", "packet.flagged"]})

    assert answer.status_code == 201
    assert "no-store" in answer["Cache-Control"]
    made = answer.json()
    assert made["secret"].startswith("whsec_") and len(made["secret"]) >= 6 + 32
    assert made["url"] == HOOK and made["team"] is None and made["active"] is True and made["format"] == "standard"
    assert made["events"] == ["packet.created", "packet.flagged"]
    stored = Webhook.objects.get(pk=made["id"])
    assert made["secret"] not in stored.secret  # encrypted at rest
    assert secret_open(stored.secret) == made["secret"]

    listed = alice_api.get("/v1/webhooks").json()["webhooks"]
    assert [hook["id"] for hook in listed] == [made["id"]]
    assert "secret" not in listed[0] and "secret" not in alice_api.get(f"/v1/webhooks/{made['id']}").json()


@pytest.mark.django_db
def test_an_unknown_event_is_refused_with_the_known_ones(alice_api):
    answer = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created", "packet.eaten"]})

    assert answer.status_code == 400
    message = answer.json()["error"]
    assert "packet.eaten" in message and all(name in message for name in EVENTS)
    assert alice_api.post("/v1/webhooks", {"url": HOOK, "events": []}).status_code == 400
    assert alice_api.post("/v1/webhooks", {"url": HOOK, "events": "packet.created"}).status_code == 400
    assert alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["x"], "format": "xml"}).status_code == 400
    personal = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["member.joined"]})
    assert personal.status_code == 400 and "a team's event" in personal.json()["error"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ftp://127.0.0.1/x", "http:// or https://"),
        ("http://user:pw@127.0.0.1/x", "user name or password"),
        ("http://10.0.0.7/x", "private address"),
        ("http://169.254.169.254/latest/meta-data", "link-local address"),
        ("http://[::ffff:10.0.0.7]/x", "private address"),
    ],
)
def test_a_url_the_hub_would_not_call_is_a_400_saying_why(alice_api, url, said):
    answer = alice_api.post("/v1/webhooks", {"url": url, "events": ["packet.created"]})

    assert answer.status_code == 400
    assert said in answer.json()["error"]
    assert not Webhook.objects.exists()


@pytest.mark.django_db
def test_changing_and_removing(alice_api):
    made = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created"]}).json()

    changed = patch(
        alice_api,
        f"/v1/webhooks/{made['id']}",
        {"events": ["packet.deleted"], "active": False, "description": "CI", "url": "http://127.0.0.1:8/h"},
    )

    assert changed.status_code == 200
    assert changed.json()["events"] == ["packet.deleted"] and changed.json()["active"] is False
    assert changed.json()["description"] == "CI" and changed.json()["url"] == "http://127.0.0.1:8/h"
    assert patch(alice_api, f"/v1/webhooks/{made['id']}", {"url": "http://10.1.1.1/"}).status_code == 400
    assert alice_api.delete(f"/v1/webhooks/{made['id']}").status_code == 204
    assert alice_api.get(f"/v1/webhooks/{made['id']}").status_code == 404


@pytest.mark.django_db
def test_at_most_twenty_per_person(alice_api):
    for _ in range(WEBHOOKS_PER_SCOPE):
        assert alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created"]}).status_code == 201

    answer = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created"]})

    assert answer.status_code == 409 and "20" in answer.json()["error"]


@pytest.mark.django_db
def test_a_teams_webhooks_are_its_owners_and_admins(api_as, alice, bob, carol, dave):
    team = make_team(alice, "alpha", members=[bob, carol])
    Membership.objects.filter(team=team, user=carol).update(role=Membership.ADMIN)
    body = {"url": HOOK, "events": ["member.joined"], "team": "alpha"}

    made = api_as(carol).post("/v1/webhooks", body)
    assert made.status_code == 201 and made.json()["team"] == "alpha"
    hook = made.json()["id"]
    # A plain member: 403 on everything; someone outside the team: 404, as if there were none.
    bob_api, dave_api = api_as(bob), api_as(dave)
    assert bob_api.post("/v1/webhooks", body).status_code == 403
    assert bob_api.get("/v1/webhooks?team=alpha").status_code == 403
    assert bob_api.get(f"/v1/webhooks/{hook}").status_code == 403
    assert bob_api.post(f"/v1/webhooks/{hook}/ping").status_code == 403
    assert bob_api.get("/v1/webhooks").json()["webhooks"] == []
    assert dave_api.post("/v1/webhooks", body).status_code == 404
    assert dave_api.get(f"/v1/webhooks/{hook}").status_code == 404
    assert dave_api.delete(f"/v1/webhooks/{hook}").status_code == 404
    assert dave_api.get(f"/v1/webhooks/{hook}/deliveries").status_code == 404
    # The owner sees it among theirs; the team's log names its host, not its URL.
    assert [h["id"] for h in api_as(alice).get("/v1/webhooks").json()["webhooks"]] == [hook]
    line = TeamEvent.objects.get(team=team, kind=TeamEvent.WEBHOOK_ADDED)
    assert line.detail["host"] == "127.0.0.1" and "/hook" not in json.dumps(line.detail)
    assert "added a webhook to 127.0.0.1" in line.summary


@pytest.mark.django_db
def test_another_persons_webhook_is_not_found(api_as, alice, bob):
    hook = api_as(alice).post("/v1/webhooks", {"url": HOOK, "events": ["packet.created"]}).json()["id"]
    bob_api = api_as(bob)

    for answer in (
        bob_api.get(f"/v1/webhooks/{hook}"),
        patch(bob_api, f"/v1/webhooks/{hook}", {"active": False}),
        bob_api.post(f"/v1/webhooks/{hook}/rotate"),
        bob_api.post(f"/v1/webhooks/{hook}/deliveries/msg_x/redeliver"),
        bob_api.delete(f"/v1/webhooks/{hook}"),
    ):
        assert answer.status_code == 404, answer.content
    assert bob_api.get("/v1/webhooks").json()["webhooks"] == []


@pytest.mark.django_db
def test_rotating_shows_a_new_secret_once(alice_api):
    made = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created"]}).json()

    rotated = alice_api.post(f"/v1/webhooks/{made['id']}/rotate")

    assert rotated.status_code == 200 and "no-store" in rotated["Cache-Control"]
    assert rotated.json()["secret"].startswith("whsec_") and rotated.json()["secret"] != made["secret"]
    stored = Webhook.objects.get(pk=made["id"])
    assert secret_open(stored.previous_secret) == made["secret"] and stored.previous_until is not None


@pytest.mark.django_db
def test_the_teams_log_names_each_change_and_removal_by_host(api_as, alice):
    make_team(alice, "alpha")
    api = api_as(alice)
    secret_url = "http://127.0.0.1:9/services/T0/B0/credential"
    hook = api.post("/v1/webhooks", {"url": secret_url, "events": ["member.joined"], "team": "alpha"}).json()["id"]

    patch(api, f"/v1/webhooks/{hook}", {"events": ["member.left"], "active": False, "description": "chat"})
    api.post(f"/v1/webhooks/{hook}/rotate")
    api.delete(f"/v1/webhooks/{hook}")

    lines = TeamEvent.objects.filter(kind__startswith="webhook.").order_by("created_at", "pk")
    assert [line.kind for line in lines] == [
        TeamEvent.WEBHOOK_ADDED,
        TeamEvent.WEBHOOK_CHANGED,
        TeamEvent.WEBHOOK_CHANGED,
        TeamEvent.WEBHOOK_REMOVED,
    ]
    assert lines[1].detail["changed"] == "active, description, events" and lines[2].detail["changed"] == "secret"
    assert all(line.actor == alice and line.detail["host"] == "127.0.0.1" for line in lines)
    assert "credential" not in json.dumps([line.detail for line in lines] + [line.summary for line in lines])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [
        {"events": None},
        {"events": [1]},
        {"events": "packet.created"},
        {"events": ["member.joined"]},
        {"url": 5},
        {"url": "http://127.0.0.1:9/" + "x" * 2000},
        {"active": "maybe"},
        {"description": "x" * 201},
        ["active", False],
    ],
)
def test_a_bad_change_is_a_400_and_changes_nothing(alice_api, change):
    made = alice_api.post("/v1/webhooks", {"url": HOOK, "events": ["packet.created"]}).json()

    answer = patch(alice_api, f"/v1/webhooks/{made['id']}", change)

    assert answer.status_code == 400, answer.content
    assert alice_api.get(f"/v1/webhooks/{made['id']}").json() == {k: v for k, v in made.items() if k != "secret"}
