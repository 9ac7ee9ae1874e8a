"""Mail that leaves the web request: invites sent to an e-mail address."""

import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string

from teams.services import CODE_IN_LINK, invite_code_renew, invite_mailed

logger = logging.getLogger(__name__)


# An SMTP server that is down or refuses for a moment (smtplib's errors are OSErrors) is tried
# again, waiting longer each time (1, 2, 4 ... seconds, at most 10 minutes), for about an hour.
@shared_task(autoretry_for=(OSError,), retry_backoff=True, retry_backoff_max=600, max_retries=8)
def send_invite_mail(invite_id: str, url: str, new_code: bool = False) -> bool:
    """Mail the invite link `url` to the invite's address. Skipped (False) when the invite was
    used, revoked or expired meanwhile, or resent with a newer link. With `new_code` (the outbox's
    sweep sends it, and the database never kept the code) `url` holds CODE_IN_LINK where the code
    goes, and the invite gets a new code."""
    if new_code:
        code = invite_code_renew(invite_id=invite_id)
        if code is None:
            logger.info("invite %s no longer wants a mail; not sent", invite_id)
            return False
        url = url.replace(CODE_IN_LINK, code)
    code = url.rstrip("/").rsplit("/", 1)[-1]
    invite = invite_mailed(invite_id=invite_id, code=code)
    if invite is None:
        logger.info("invite %s no longer wants this mail; not sent", invite_id)
        return False
    context = {
        "team": invite.team.name,
        "inviter": invite.created_by.display_name if invite.created_by else "A member",
        "url": url,
        "expires_at": invite.expires_at,
    }
    send_mail(
        subject=f"Join the team {invite.team.name} on the ltm hub",
        message=render_to_string("teams/mail/invite.txt", context),
        html_message=render_to_string("teams/mail/invite.html", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[invite.email],
    )
    logger.info("invite %s mailed", invite_id)
    return True
