"""member.joined and member.left reach a team's webhooks, with the change that made them."""

import pytest
from django.db import transaction

from teams.models import Membership
from teams.services import invite_accept, membership_remove, team_leave
from teams.testing import make_invite, make_team
from webhooks.models import Delivery
from webhooks.testing import Receiver, make_webhook


@pytest.mark.django_db
def test_joining_leaving_and_removal_are_told(alice, bob, carol, django_capture_on_commit_callbacks):
    team = make_team(alice, "alpha", members=[carol])
    with Receiver() as receiver:
        webhook, secret = make_webhook(alice, receiver.url, events=["member.joined", "member.left"], team=team)
        with django_capture_on_commit_callbacks(execute=True):
            _, code = make_invite(team)
            invite_accept(code=code, actor=bob)
        with django_capture_on_commit_callbacks(execute=True):
            team_leave(actor=bob, team=team)
        with django_capture_on_commit_callbacks(execute=True):
            membership_remove(actor=alice, team=team, user_id=carol.pk)
        joined, left, removed = (call.verified(secret) for call in receiver.wait_for(3))

    assert joined["type"] == "member.joined"
    assert joined["data"] == {
        "team": "alpha",
        "member": {"id": bob.pk, "name": "bob"},
        "who": {"id": bob.pk, "name": "bob"},
    }
    assert left["type"] == "member.left" and left["data"]["member"]["id"] == bob.pk
    assert removed["type"] == "member.left" and removed["data"]["removed"] is True
    assert removed["data"]["member"]["id"] == carol.pk and removed["data"]["who"]["id"] == alice.pk
    assert not Membership.objects.filter(team=team, user__in=[bob, carol]).exists()


@pytest.mark.django_db
def test_a_change_rolled_back_delivers_nothing(alice, bob, django_capture_on_commit_callbacks):
    """The delivery rows are written in the change's transaction: a join undone leaves none."""
    team = make_team(alice, "alpha")
    with Receiver() as receiver:
        make_webhook(alice, receiver.url, events=["member.joined"], team=team)
        _, code = make_invite(team)
        with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
            invite_accept(code=code, actor=bob)
            raise RuntimeError("the change fails after the join")

    assert not Delivery.objects.exists() and receiver.calls == []
