"""Invites by e-mail: the mail the task sends (test settings keep mail in memory and run tasks in
the process), what it links to, resend, and the task's skip and retry rules."""

import re
import smtplib
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from core.errors import BadRequest, Forbidden, Gone
from core.models import OutboxTask
from core.outbox import outbox_sweep
from core.testing import refusal
from teams import services, tasks
from teams.models import Invite, Membership
from teams.testing import make_team

pytestmark = pytest.mark.django_db

LINK = re.compile(r"http://hub\.test/v1/invites/[0-9a-f]{48}")


def link(code):
    return f"http://hub.test/v1/invites/{code}"


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


@pytest.fixture
def mail_invite(alice, alpha, django_capture_on_commit_callbacks):
    def send(email="sam@example.org", actor=alice):
        with django_capture_on_commit_callbacks(execute=True):
            return services.invite_create(actor=actor, team=alpha, email=email, link=link)

    return send


def test_the_mail_carries_the_link_the_team_and_who_invited(alice, alpha, mail_invite, mailoutbox):
    alice.display = "Alice Martin"
    alice.save()
    invite, code = mail_invite()
    [mail] = mailoutbox
    assert mail.to == ["sam@example.org"] and "alpha" in mail.subject
    assert link(code) in mail.body and f"ltm join {link(code)}" in mail.body
    assert "Alice Martin invited you to the team alpha" in mail.body
    html, mimetype = mail.alternatives[0]
    assert mimetype == "text/html" and f'href="{link(code)}"' in html
    assert Invite.objects.get(pk=invite.pk).mailed_at is not None


def test_the_mailed_link_joins_once(mail_invite, mailoutbox, carol, alpha):
    mail_invite()
    code = LINK.search(mailoutbox[0].body).group(0).rsplit("/", 1)[1]
    services.invite_accept(code=code, actor=carol)
    assert Membership.objects.filter(team=alpha, user=carol).exists()
    with pytest.raises(Gone):
        services.invite_accept(code=code)


def test_nothing_is_mailed_when_the_invite_is_not_committed(
    alice, alpha, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.invite_create(actor=alice, team=alpha, email="sam@example.org", link=link)
    assert len(callbacks) == 1 and mailoutbox == []


def test_a_plain_member_may_not_mail_an_invite(bob, alpha, mail_invite, mailoutbox):
    assert refusal(Forbidden, lambda: mail_invite(actor=bob)) == "only the team owner or an admin can do this"
    assert mailoutbox == [] and not Invite.objects.exists()


def test_resend_mails_a_fresh_link_keeps_the_expiry_and_kills_the_old_link(
    alice, carol, alpha, mail_invite, mailoutbox, django_capture_on_commit_callbacks
):
    invite, first_code = mail_invite()
    with django_capture_on_commit_callbacks(execute=True):
        services.invite_resend(actor=alice, team=alpha, invite_id=invite.pk, link=link)
    assert len(mailoutbox) == 2
    second_code = LINK.search(mailoutbox[1].body).group(0).rsplit("/", 1)[1]
    assert second_code != first_code
    assert Invite.objects.get(pk=invite.pk).expires_at == invite.expires_at
    with pytest.raises(Gone):
        services.invite_accept(code=first_code, actor=carol)
    services.invite_accept(code=second_code, actor=carol)
    assert Membership.objects.filter(team=alpha, user=carol).exists()


def test_resend_of_a_link_without_an_address_is_refused(alice, alpha):
    invite, _ = services.invite_create(actor=alice, team=alpha, label="Kim")
    assert refusal(
        BadRequest, lambda: services.invite_resend(actor=alice, team=alpha, invite_id=invite.pk, link=link)
    ) == ("this invite has no e-mail address; make a new invite to send one")


def test_the_task_skips_an_invite_revoked_used_or_resent_meanwhile(alice, alpha, mailoutbox):
    invite, code = services.invite_create(actor=alice, team=alpha, label="x")
    Invite.objects.filter(pk=invite.pk).update(email="sam@example.org")
    assert tasks.send_invite_mail(invite.pk, link("0" * 48)) is False  # not the invite's code
    Invite.objects.filter(pk=invite.pk).update(revoked_at=timezone.now())
    assert tasks.send_invite_mail(invite.pk, link(code)) is False
    assert tasks.send_invite_mail("nope", link(code)) is False
    assert mailoutbox == []


def test_the_task_retries_when_the_mail_server_fails(alice, alpha, mailoutbox, monkeypatch):
    """Unit test: the SMTP failure is simulated; Celery retries (eagerly here) until it goes out."""
    # Run eagerly, a retry is raised to the caller unless eager errors stay in the result.
    monkeypatch.setitem(tasks.send_invite_mail.app.conf, "task_eager_propagates", False)
    invite, code = services.invite_create(actor=alice, team=alpha, label="x")
    Invite.objects.filter(pk=invite.pk).update(email="sam@example.org")
    real_send = tasks.send_mail
    failures = [smtplib.SMTPServerDisconnected("connection lost"), ConnectionRefusedError()]

    def flaky(**kwargs):
        if failures:
            raise failures.pop(0)
        return real_send(**kwargs)

    with mock.patch.object(tasks, "send_mail", side_effect=flaky) as sending:
        assert tasks.send_invite_mail.apply(args=[invite.pk, link(code)]).get() is True
    assert sending.call_count == 3 and len(mailoutbox) == 1


def test_a_broker_that_is_away_does_not_fail_the_invite(
    api_as, alice, alpha, mailoutbox, django_capture_on_commit_callbacks
):
    """Unit test: the broker's refusal is simulated. The invite stands, unmailed, for the outbox's
    sweep (or a Resend)."""
    from kombu.exceptions import OperationalError

    with mock.patch.object(tasks.send_invite_mail, "apply_async", side_effect=OperationalError("redis is away")):
        with django_capture_on_commit_callbacks(execute=True):
            response = api_as(alice).post("/v1/teams/alpha/invites", {"email": "sam@example.org"})
    assert response.status_code == 201
    assert Invite.objects.get().mailed_at is None and mailoutbox == []
    assert OutboxTask.objects.count() == 1


def test_services_enqueue_the_mail_task_by_its_registered_name():
    """Services name the task instead of importing it; the name must stay the task's."""
    assert services.SEND_INVITE_MAIL_TASK == tasks.send_invite_mail.name


def test_a_mail_only_the_outbox_sweep_sends_carries_a_new_code(
    alice, carol, alpha, mailoutbox, django_capture_on_commit_callbacks
):
    """The process died before queueing the mail: the outbox kept the link without its code (a
    credential the database never keeps), so the sweep's mail carries a new one."""
    with django_capture_on_commit_callbacks(execute=False):
        invite, first_code = services.invite_create(actor=alice, team=alpha, email="sam@example.org", link=link)
    assert first_code not in str(OutboxTask.objects.values_list("args", "kwargs").get())
    assert outbox_sweep(now=timezone.now() + timedelta(hours=1)) == 1
    [mail] = mailoutbox
    code = LINK.search(mail.body).group(0).rsplit("/", 1)[1]
    assert code != first_code
    with pytest.raises(Gone):
        services.invite_accept(code=first_code, actor=carol)
    services.invite_accept(code=code, actor=carol)
    assert Membership.objects.filter(team=alpha, user=carol).exists()


def test_the_sweep_mails_no_invite_revoked_meanwhile(alice, alpha, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        invite, _ = services.invite_create(actor=alice, team=alpha, email="sam@example.org", link=link)
    Invite.objects.filter(pk=invite.pk).update(revoked_at=timezone.now())
    assert outbox_sweep(now=timezone.now() + timedelta(hours=1)) == 1  # queued, and the task skips it
    assert mailoutbox == []
