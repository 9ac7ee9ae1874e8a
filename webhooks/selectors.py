"""Reads about webhooks, always for a viewer, and the one rule of who may see and change one:
a person's webhook is theirs alone; a team's, its owner's and admins' (its URL may carry a
credential, as a Slack address does, so plain members are refused too). Anyone else gets 404, a
plain member of the team 403."""

from django.db.models import Q

from core.errors import Forbidden, NotFound
from teams.models import Membership
from webhooks.models import Delivery, Webhook

NOT_A_MANAGER = "only the team owner or an admin can manage the team's webhooks"
DELIVERIES_DEFAULT_LIMIT = 20
DELIVERIES_MAX_LIMIT = 100


def _managed_teams(viewer):
    return Membership.objects.filter(user=viewer, role__in=Membership.MANAGERS).values("team_id")


def team_webhooks_refusal(*, viewer, team) -> None:
    """Raise unless `viewer` may manage `team`'s webhooks (404 outside the team, 403 for a plain
    member)."""
    role = Membership.objects.filter(team=team, user=viewer).values_list("role", flat=True).first()
    if role is None:
        raise NotFound("team not found")
    if role not in Membership.MANAGERS:
        raise Forbidden(NOT_A_MANAGER)


def webhook_list(*, viewer, team=None):
    """`team`'s webhooks, or without one every webhook the viewer manages: their own and those of
    the teams they own or administer; oldest first."""
    hooks = Webhook.objects.select_related("team")
    if team is not None:
        team_webhooks_refusal(viewer=viewer, team=team)
        return hooks.filter(team=team)
    return hooks.filter(Q(owner=viewer) | Q(team__in=_managed_teams(viewer)))


def webhook_get(*, viewer, webhook_id: str) -> Webhook:
    """The webhook, if the viewer may manage it (see the module's docstring)."""
    webhook = Webhook.objects.select_related("team", "owner").filter(pk=webhook_id).first()
    if webhook is None or (webhook.team_id is None and webhook.owner_id != viewer.pk):
        raise NotFound("webhook not found")
    if webhook.team_id is not None:
        try:
            team_webhooks_refusal(viewer=viewer, team=webhook.team)
        except NotFound:
            raise NotFound("webhook not found") from None
    return webhook


def delivery_list(*, viewer, webhook_id: str, limit: int = DELIVERIES_DEFAULT_LIMIT) -> list[Delivery]:
    """The webhook's deliveries, newest first."""
    webhook = webhook_get(viewer=viewer, webhook_id=webhook_id)
    return list(Delivery.objects.filter(webhook=webhook).defer("body")[:limit])


def delivery_get(*, viewer, webhook_id: str, delivery_id: str) -> Delivery:
    webhook = webhook_get(viewer=viewer, webhook_id=webhook_id)
    delivery = Delivery.objects.filter(webhook=webhook, pk=delivery_id).first()
    if delivery is None:
        raise NotFound("delivery not found")
    return delivery
