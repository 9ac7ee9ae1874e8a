"""The pages of sharing: the Share form on a packet's page, the inbox (Shared with me), what the
viewer shared (Shared by me), and dismissing or withdrawing a share."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from core.dashboard import Confirm, dashboard_action
from core.errors import BadRequest, NotFound
from packets.pages import from_visible_packet
from packets.sharing import selectors, services


@dashboard_action(from_visible_packet)
def packet_share(request, packet_id):
    """Share with the person named in the form. Who may share is the service's rule: its refusal
    (403, 429, yourself) is shown on the packet's page, as is an unknown name."""
    to = request.POST.get("to", "")
    if services.shares_remote(to):
        share = services.share_remote_create(
            actor=request.user, packet_id=packet_id, to=to, note=request.POST.get("note", "")
        )
        return f"Sending it to {share.address}: Shared by me shows when their hub has taken it."
    try:
        share, created = services.share_create(
            actor=request.user,
            packet_id=packet_id,
            to=to,
            note=request.POST.get("note", ""),
            link=services.packet_page_link(request),
        )
    except NotFound as exc:
        if exc.message != services.NO_SUCH_USER:  # the packet itself: a 404, as for anyone
            raise
        raise BadRequest(f"Nobody is called {to.strip()} on this hub.") from None
    who = share.recipient.display_name
    if created:
        return f"Shared with {who}. They find it under Shared with me, and can read it until you withdraw it."
    return f"{who} already has this packet from you; its note is now the one you gave."


# Shares: what others shared with the viewer (the inbox) and what the viewer shared.


@login_required
def shares_inbox(request):
    return _shares_page(request, selectors.IN)


@login_required
def shares_sent(request):
    return _shares_page(request, selectors.OUT)


def _shares_page(request, direction: str):
    listed = selectors.shares_list(viewer=request.user, direction=direction, limit=selectors.MAX_LIMIT)
    context = {"direction": direction, "shares": listed, "limit": selectors.MAX_LIMIT}
    return render(request, "packets/shares.html", context)


DISMISS_SHARE = Confirm(
    "Dismiss this share?",
    button="Dismiss",
    message="It leaves your inbox and you can no longer open the packet, unless it reaches you another way.",
)

WITHDRAW_SHARE = Confirm(
    "Withdraw this share?",
    button="Withdraw",
    message="The person you shared it with can no longer open the packet, from their next request on.",
)


@dashboard_action("shares-inbox", confirm=DISMISS_SHARE)
def share_dismiss(request, share_id):
    services.share_delete(actor=request.user, share_id=share_id)
    return "Share dismissed."


@dashboard_action("shares-sent", confirm=WITHDRAW_SHARE)
def share_withdraw(request, share_id):
    services.share_delete(actor=request.user, share_id=share_id)
    return "Share withdrawn: they can no longer open the packet."
