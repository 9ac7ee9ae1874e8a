"""Mail that leaves the web request: telling a person that a packet was shared with them."""

import logging

from allauth.account.models import EmailAddress
from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse

from packets.sharing import remote
from packets.sharing.selectors import share_for_mail
from packets.sharing.services import SEND_SHARE_MAIL_TASK

logger = logging.getLogger(__name__)


def _verified_address(user) -> str | None:
    """The recipient's verified address, the primary one first; None without one (an address
    nobody confirmed may be someone else's)."""
    address = EmailAddress.objects.filter(user=user, verified=True).order_by("-primary", "id").first()
    return address.email if address else None


def _page_link(packet_id: str, url: str | None) -> str | None:
    """The link the surface that shared built (packets.sharing.services.packet_page_link); else the page
    under LTM_EXTERNAL_URL; else none: a relative link means nothing in a mail."""
    if url:
        return url
    if settings.LTM_EXTERNAL_URL:
        return settings.LTM_EXTERNAL_URL + reverse("packet-detail", args=[packet_id])
    return None


# An SMTP server that is down or refuses for a moment (smtplib's errors are OSErrors) is tried
# again, waiting longer each time (1, 2, 4 ... seconds, at most 10 minutes), for about an hour.
@shared_task(
    name=SEND_SHARE_MAIL_TASK, autoretry_for=(OSError,), retry_backoff=True, retry_backoff_max=600, max_retries=8
)
def send_share_mail(share_id: str, url: str | None = None) -> bool:
    """Tell the recipient who shared which packet, with the note and a link to it. Skipped
    (False) when, by the time it runs, the share was withdrawn or dismissed, the recipient turned
    these mails off, or they have no verified address."""
    share = share_for_mail(share_id=share_id)
    address = _verified_address(share.recipient) if share is not None else None
    if address is None:
        logger.info("share %s no longer wants a mail, or has no verified address; not sent", share_id)
        return False
    context = {
        "sender": share.sender.display_name,
        "goal": share.packet.goal,
        "note": share.note,
        "url": _page_link(share.packet_id, url),
        "origin": remote.origin(share.packet_id),  # shared from another hub: which one
    }
    send_mail(
        subject=f"{share.sender.display_name} shared a packet with you on the ltm hub",
        message=render_to_string("packets/mail/share.txt", context),
        html_message=render_to_string("packets/mail/share.html", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[address],
    )
    logger.info("share %s mailed", share_id)
    return True
