"""The mail a share sends its recipient (test settings keep mail in memory and run tasks in the
process): after the commit, to a verified address, with who, what, the note and the link; and
not when the recipient turned it off, has no verified address, or the share ended meanwhile."""

import smtplib
from unittest import mock

import pytest
from allauth.account.models import EmailAddress

from core.testing import signed_in
from packets.models import Share
from packets.sharing import services, tasks
from packets.testing import push_packet

pytestmark = pytest.mark.django_db

PAGE = "http://hub.test/packets/{}"


def link(packet_id):
    return PAGE.format(packet_id)


@pytest.fixture
def packet(alice):
    alice.display = "Alice Martin"
    alice.save()
    return push_packet(alice, goal="Make the importer idempotent")


@pytest.fixture
def verified_bob(bob):
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=True, primary=True)
    return bob


@pytest.fixture
def share_with(alice, django_capture_on_commit_callbacks):
    def share(packet, to="bob", note="Start with the retry loop"):
        with django_capture_on_commit_callbacks(execute=True):
            return services.share_create(actor=alice, packet_id=packet.id, to=to, note=note, link=link)[0]

    return share


def test_the_mail_says_who_shared_what_with_the_note_and_the_link(packet, verified_bob, share_with, mailoutbox):
    share_with(packet)
    [mail] = mailoutbox
    assert mail.to == ["bob@example.org"]
    assert mail.subject == "Alice Martin shared a packet with you on the ltm hub"
    assert "Alice Martin shared a packet with you" in mail.body
    assert "Make the importer idempotent" in mail.body and "Start with the retry loop" in mail.body
    assert link(packet.id) in mail.body
    html, mimetype = mail.alternatives[0]
    assert mimetype == "text/html" and f'href="{link(packet.id)}"' in html and "Start with the retry loop" in html


def test_the_mail_goes_to_the_primary_verified_address(packet, bob, share_with, mailoutbox):
    EmailAddress.objects.create(user=bob, email="old@example.org", verified=True, primary=False)
    EmailAddress.objects.create(user=bob, email="unconfirmed@example.org", verified=False, primary=False)
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=True, primary=True)
    share_with(packet)
    assert [mail.to for mail in mailoutbox] == [["bob@example.org"]]


def test_nothing_is_mailed_before_the_commit(
    alice, packet, verified_bob, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.share_create(actor=alice, packet_id=packet.id, to="bob", link=link)
    assert callbacks and mailoutbox == []
    for callback in callbacks:  # what the commit runs
        callback()
    assert len(mailoutbox) == 1


def test_sharing_again_mails_nothing_more(packet, verified_bob, share_with, mailoutbox):
    share_with(packet)
    share_with(packet, note="a new note")
    assert len(mailoutbox) == 1


def test_no_mail_when_the_recipient_turned_it_off(packet, verified_bob, share_with, mailoutbox):
    verified_bob.share_mail = False
    verified_bob.save()
    share = share_with(packet)
    assert mailoutbox == [] and Share.objects.filter(pk=share.pk).exists()


def test_no_mail_without_a_verified_address(packet, bob, share_with, mailoutbox):
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=False, primary=True)
    share_with(packet)
    assert mailoutbox == []


def test_the_task_skips_a_share_withdrawn_before_it_ran(alice, packet, verified_bob, mailoutbox):
    share, _ = services.share_create(actor=alice, packet_id=packet.id, to="bob")
    services.share_delete(actor=alice, share_id=share.pk)
    assert tasks.send_share_mail(share.pk, link(packet.id)) is False
    assert tasks.send_share_mail("nope") is False
    assert mailoutbox == []


def test_the_task_asks_when_it_runs_not_when_it_was_queued(alice, packet, verified_bob, mailoutbox):
    share, _ = services.share_create(actor=alice, packet_id=packet.id, to="bob")
    verified_bob.share_mail = False
    verified_bob.save()
    assert tasks.send_share_mail(share.pk, link(packet.id)) is False and mailoutbox == []


def test_without_a_link_the_mail_names_the_external_url_or_the_inbox(settings, alice, packet, verified_bob, mailoutbox):
    share, _ = services.share_create(actor=alice, packet_id=packet.id, to="bob")
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    assert tasks.send_share_mail(share.pk) is True
    assert f"https://hub.example.org/packets/{packet.id}" in mailoutbox[0].body
    settings.LTM_EXTERNAL_URL = ""
    assert tasks.send_share_mail(share.pk) is True
    assert "http" not in mailoutbox[1].body and 'Find it under "Shared with me" on the hub.' in mailoutbox[1].body


def test_the_dashboard_and_the_api_link_to_the_packets_page(
    settings, alice, packet, verified_bob, api_as, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        signed_in(alice).post(f"/packets/{packet.id}/share", {"to": "bob", "note": "n"})
    other = push_packet(alice)
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    with django_capture_on_commit_callbacks(execute=True):
        assert api_as(alice).post(f"/v1/packets/{other.id}/shares", {"to": "bob"}).status_code == 201
    assert f"http://testserver/packets/{packet.id}\n" in mailoutbox[0].body
    assert f"https://hub.example.org/packets/{other.id}\n" in mailoutbox[1].body


def test_the_task_retries_when_the_mail_server_fails(alice, packet, verified_bob, mailoutbox, monkeypatch):
    """Unit test: the SMTP failure is simulated; Celery retries (eagerly here) until it goes out."""
    monkeypatch.setitem(tasks.send_share_mail.app.conf, "task_eager_propagates", False)
    share, _ = services.share_create(actor=alice, packet_id=packet.id, to="bob")
    real_send = tasks.send_mail
    failures = [smtplib.SMTPServerDisconnected("connection lost")]

    def flaky(**kwargs):
        if failures:
            raise failures.pop(0)
        return real_send(**kwargs)

    with mock.patch.object(tasks, "send_mail", side_effect=flaky) as sending:
        assert tasks.send_share_mail.apply(args=[share.pk, link(packet.id)]).get() is True
    assert sending.call_count == 2 and len(mailoutbox) == 1


def test_a_broker_that_is_away_does_not_fail_the_share(
    alice, packet, verified_bob, api_as, mailoutbox, django_capture_on_commit_callbacks
):
    """Unit test: the broker's refusal is simulated. The share stands, unmailed; the inbox shows it."""
    from kombu.exceptions import OperationalError

    with mock.patch("celery.canvas.Signature.apply_async", side_effect=OperationalError("redis is away")):
        with django_capture_on_commit_callbacks(execute=True):
            response = api_as(alice).post(f"/v1/packets/{packet.id}/shares", {"to": "bob"})
    assert response.status_code == 201
    assert Share.objects.filter(recipient=verified_bob).exists() and mailoutbox == []


def test_the_share_service_enqueues_the_task_by_its_registered_name():
    assert services.SEND_SHARE_MAIL_TASK == tasks.send_share_mail.name
