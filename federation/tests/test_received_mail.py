"""The mail a share from another hub sends its recipient here: as a share made here (a new share
is mailed, once, to a verified address, unless they turned these mails off), saying which hub it
came from; an update or a withdraw mails nothing. Hub B (a real process) signs what hub A takes."""

import pytest
from allauth.account.models import EmailAddress

from federation.testing import share_message
from packets.testing import packet_v02


@pytest.fixture
def verified_bob(bob):
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=True, primary=True)
    return bob


def accepted(answer) -> None:
    assert answer.status_code == 200, answer.content


def test_a_new_share_mails_who_shared_what_from_which_hub_with_the_note_and_the_link(
    send, hub_a, hub_b, verified_bob, mailoutbox
):
    packet = packet_v02(goal="Teach the importer to resume.")
    accepted(send(share_message(hub_b, packet=packet, note="for your importer")))
    [mail] = mailoutbox
    assert mail.to == ["bob@example.org"]
    assert mail.subject == f"carol@{hub_b.host} shared a packet with you on the ltm hub"
    assert f"It comes from another hub, {hub_b.host}, whose signature on it was verified." in mail.body
    assert "Teach the importer to resume." in mail.body and "for your importer" in mail.body
    assert f"{hub_a}/packets/{packet['id']}\n" in mail.body  # the packet's page on this hub
    html, _ = mail.alternatives[0]
    assert f"It comes from another hub, {hub_b.host}" in html and f'href="{hub_a}/packets/{packet["id"]}"' in html


def test_sharing_again_an_update_and_a_withdraw_mail_nothing_more(send, hub_b, verified_bob, mailoutbox):
    message = share_message(hub_b)
    accepted(send(message))
    accepted(send({**message, "id": "msg-again", "note": "a new note"}))
    accepted(send({**message, "id": "msg-update", "type": "update", "packet": {**message["packet"]}}))
    withdraw = {"type": "withdraw", "id": "msg-withdraw", "from": message["from"], "to": "bob"}
    accepted(send({**withdraw, "packet_id": message["packet"]["id"]}))
    assert len(mailoutbox) == 1


def test_no_mail_when_the_recipient_turned_it_off_or_has_no_verified_address(send, hub_b, bob, carol, mailoutbox):
    bob.share_mail = False
    bob.save()
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=True, primary=True)
    EmailAddress.objects.create(user=carol, email="carol@example.org", verified=False, primary=True)
    accepted(send(share_message(hub_b, to="bob")))
    accepted(send(share_message(hub_b, to="carol", sender="dave")))
    assert mailoutbox == []
