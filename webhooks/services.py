"""Changes to webhooks; each function is one transaction. A team's webhooks are changed by its
owner and admins (webhooks.selectors holds the rule), and each change is a line of the team's
activity log (teams.events) naming the webhook's host only: its URL may carry a credential."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core import outbound
from core.errors import BadRequest, Conflict, NotFound
from teams.events import team_event_record
from teams.models import TeamEvent
from teams.services import team_hold
from webhooks import emit, signing
from webhooks.delivery import deliveries_end
from webhooks.models import EVENTS, FORMATS, STANDARD, TEAM_ONLY_EVENTS, WEBHOOK_PING, Delivery, Webhook
from webhooks.selectors import team_webhooks_refusal, webhook_get

# At most this many webhooks per person (their own) and per team.
WEBHOOKS_PER_SCOPE = 20
# How long a rotated-out secret still signs beside the new one.
ROTATION_OVERLAP = timedelta(hours=24)
DESCRIPTION_CHARS = 200
URL_CHARS = 2000


def url_refusal(url: str) -> str | None:
    """Why the hub would not call `url` now (the outbound guard, with this hub's allow list)."""
    if len(url) > URL_CHARS:
        return f"url is longer than {URL_CHARS} characters"
    try:
        outbound.check(url, allow_hosts=settings.LTM_WEBHOOK_ALLOW_HOSTS, only_listed=settings.LTM_WEBHOOK_ONLY_LISTED)
    except outbound.Refused as refused:
        return f"url is refused: {refused}"
    return None


def _checked_url(url: str) -> str:
    if problem := url_refusal(url):
        raise BadRequest(problem)
    return url


def _checked_events(events, *, personal: bool) -> list[str]:
    if not isinstance(events, list | tuple) or not events or not all(isinstance(name, str) for name in events):
        raise BadRequest(f"events must be a list of one or more of: {', '.join(EVENTS)}")
    if unknown := [name for name in events if name not in EVENTS]:
        raise BadRequest(f"unknown event {unknown[0]!r}; the events are: {', '.join(EVENTS)}")
    if personal and (team_only := [name for name in events if name in TEAM_ONLY_EVENTS]):
        raise BadRequest(f"{team_only[0]} is a team's event, which a personal webhook never hears (give a team)")
    return list(dict.fromkeys(events))


def _checked_description(description: str) -> str:
    if len(description) > DESCRIPTION_CHARS:
        raise BadRequest(f"description is longer than {DESCRIPTION_CHARS} characters")
    return description


def _log(webhook, *, actor, kind: str, **detail) -> None:
    """A line of the team's activity log about a team's webhook (a person's has no log)."""
    if webhook.team_id is not None:
        team_event_record(
            team_id=webhook.team_id, actor=actor, kind=kind, webhook_id=webhook.pk, host=webhook.host, **detail
        )


def webhook_create(
    *, actor, url: str, events, team=None, description: str = "", format: str = STANDARD, hub_url: str = ""
) -> tuple[Webhook, str]:
    """A new webhook of `actor` (or of `team`, which they own or administer) and its secret, which
    is never shown again. The URL is checked (a DNS lookup) before the transaction begins."""
    if team is not None:
        team_webhooks_refusal(viewer=actor, team=team)
    if format not in FORMATS:
        raise BadRequest(f"format must be one of: {', '.join(FORMATS)}")
    webhook = Webhook(
        owner=None if team is not None else actor,
        team=team,
        created_by=actor,
        url=_checked_url(url),
        events=_checked_events(events, personal=team is None),
        description=_checked_description(description),
        format=format,
        hub_url=hub_url,
    )
    secret = signing.secret_new()
    webhook.secret = signing.secret_seal(secret)
    with transaction.atomic():
        if team is not None:
            team_hold(team_id=team.pk)
        scope = Webhook.objects.filter(team=team) if team is not None else Webhook.objects.filter(owner=actor)
        if scope.count() >= WEBHOOKS_PER_SCOPE:
            raise Conflict(
                f"at most {WEBHOOKS_PER_SCOPE} webhooks per {'team' if team else 'person'}; remove one first"
            )
        webhook.save()
        _log(webhook, actor=actor, kind=TeamEvent.WEBHOOK_ADDED, events=", ".join(webhook.events))
    return webhook, secret


def webhook_update(*, actor, webhook_id: str, url=None, events=None, active=None, description=None) -> Webhook:
    """Change what is given (None: unchanged). Turning a webhook off ends its pending deliveries;
    turning it on again starts afresh. A new URL is checked before the transaction begins."""
    found = webhook_get(viewer=actor, webhook_id=webhook_id)  # 404 or 403 before anything about the body
    asked = {
        "url": None if url is None else _checked_url(url),
        "events": None if events is None else _checked_events(events, personal=found.team_id is None),
        "description": None if description is None else _checked_description(description),
    }
    with transaction.atomic():
        webhook = _locked(actor=actor, webhook_id=webhook_id)
        changed = {
            name: value for name, value in asked.items() if value is not None and value != getattr(webhook, name)
        }
        for name, value in changed.items():
            setattr(webhook, name, value)
        if active is not None and active != webhook.active:
            webhook.active = changed["active"] = active
            webhook.off_reason, webhook.failing_since = "", None
            if not active:
                deliveries_end(webhook_id=webhook.pk, why="the webhook was turned off")
        if changed:
            webhook.updated_at = timezone.now()
            webhook.save()
            # The log names what changed, not the new URL or description.
            _log(webhook, actor=actor, kind=TeamEvent.WEBHOOK_CHANGED, changed=", ".join(sorted(changed)))
    return webhook


@transaction.atomic
def webhook_delete(*, actor, webhook_id: str) -> None:
    webhook = _locked(actor=actor, webhook_id=webhook_id)
    _log(webhook, actor=actor, kind=TeamEvent.WEBHOOK_REMOVED)
    webhook.delete()


@transaction.atomic
def webhook_rotate(*, actor, webhook_id: str) -> tuple[Webhook, str]:
    """A new secret, shown once; the one it replaces signs beside it for ROTATION_OVERLAP."""
    webhook = _locked(actor=actor, webhook_id=webhook_id)
    secret = signing.secret_new()
    webhook.previous_secret, webhook.secret = webhook.secret, signing.secret_seal(secret)
    webhook.previous_until = timezone.now() + ROTATION_OVERLAP
    webhook.updated_at = timezone.now()
    webhook.save()
    _log(webhook, actor=actor, kind=TeamEvent.WEBHOOK_CHANGED, changed="secret")
    return webhook, secret


@transaction.atomic
def webhook_ping(*, actor, webhook_id: str) -> Delivery:
    """A `webhook.ping` delivery to the webhook, whatever events it hears."""
    webhook = _locked(actor=actor, webhook_id=webhook_id)
    _require_on(webhook)
    data = {"webhook": webhook.pk, "who": {"id": actor.pk, "name": actor.display_name}}
    [delivery] = emit.deliveries_create(webhooks=[webhook], event=WEBHOOK_PING, data=data)
    return delivery


@transaction.atomic
def delivery_redeliver(*, actor, webhook_id: str, delivery_id: str) -> Delivery:
    """Send a delivery again, with the same id (the `webhook-id` receivers deduplicate by), its
    attempts counted afresh."""
    webhook = _locked(actor=actor, webhook_id=webhook_id)
    _require_on(webhook)
    delivery = Delivery.objects.select_for_update().filter(webhook=webhook, pk=delivery_id).first()
    if delivery is None:
        raise NotFound("delivery not found")
    delivery.status, delivery.attempts, delivery.turn = Delivery.PENDING, 0, delivery.turn + 1
    delivery.next_attempt_at, delivery.error = timezone.now(), ""
    delivery.save(update_fields=["status", "attempts", "turn", "next_attempt_at", "error"])
    emit.deliveries_queue([delivery])
    return delivery


def _locked(*, actor, webhook_id: str) -> Webhook:
    """The webhook, if `actor` may change it, locked for the change."""
    webhook = webhook_get(viewer=actor, webhook_id=webhook_id)
    return Webhook.objects.select_for_update(of=("self",)).select_related("team").get(pk=webhook.pk)


def _require_on(webhook) -> None:
    if not webhook.active:
        raise Conflict("the webhook is off; turn it on first")
