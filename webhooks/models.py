"""Webhooks (where to tell what) and their deliveries (each call to make, and how it went)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.ids import new_id
from teams.models import Team, person_link

# What a delivery says happened, each the name of the event it carries.
PACKET_CREATED = "packet.created"
PACKET_UPDATED = "packet.updated"
PACKET_DELETED = "packet.deleted"
PACKET_PUBLISHED = "packet.published"
PACKET_UNPUBLISHED = "packet.unpublished"
PACKET_SHARED = "packet.shared"
PACKET_FLAGGED = "packet.flagged"
FINDING_CLEARED = "finding.cleared"
MEMBER_JOINED = "member.joined"
MEMBER_LEFT = "member.left"
WEBHOOK_PING = "webhook.ping"
EVENTS = (
    PACKET_CREATED,
    PACKET_UPDATED,
    PACKET_DELETED,
    PACKET_PUBLISHED,
    PACKET_UNPUBLISHED,
    PACKET_SHARED,
    PACKET_FLAGGED,
    FINDING_CLEARED,
    MEMBER_JOINED,
    MEMBER_LEFT,
    WEBHOOK_PING,
)

# A team's alone: a person's webhook hears the events of their personal packets.
TEAM_ONLY_EVENTS = (MEMBER_JOINED, MEMBER_LEFT)
PERSONAL_EVENTS = tuple(name for name in EVENTS if name not in TEAM_ONLY_EVENTS and name != WEBHOOK_PING)

# What a delivery's body looks like: the Standard Webhooks body, or a Slack message.
STANDARD, SLACK = "standard", "slack"
FORMATS = (STANDARD, SLACK)

# Why a webhook is off (empty while it is on, or when a person turned it off).
OFF_GONE = "gone"  # its URL answered 410 Gone
OFF_FAILING = "failing"  # every call failed for LTM_WEBHOOK_FAILING_DAYS


class Webhook(models.Model):
    """An address that hears events: a person's (their personal packets) or a team's (its packets
    and members). Exactly one of `owner` and `team` is set."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks"
    )
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    created_by = person_link("+")
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list)
    format = models.CharField(max_length=8, default=STANDARD, choices=[(name, name) for name in FORMATS])
    active = models.BooleanField(default=True)
    off_reason = models.CharField(max_length=8, blank=True)
    # The signing secret, encrypted with a key of the settings (webhooks.signing): a copy of the
    # database cannot sign. After a rotation the previous one signs beside it until
    # `previous_until`.
    secret = models.TextField()
    previous_secret = models.TextField(blank=True)
    previous_until = models.DateTimeField(null=True, blank=True)
    # The hub's address when the webhook was added: links in deliveries start with it unless
    # LTM_EXTERNAL_URL says otherwise (a Celery worker has no request to ask).
    hub_url = models.CharField(max_length=300, blank=True)
    # Since when every call has failed (None once one succeeds).
    failing_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(owner__isnull=True, team__isnull=False) | Q(owner__isnull=False, team__isnull=True),
                name="webhook_of_a_person_or_a_team",
            )
        ]

    def __str__(self) -> str:
        return f"webhook {self.id} ({self.host})"

    @property
    def host(self) -> str:
        """How the hub names the webhook where others read it (a team's log): its URL's host, as
        the rest of the URL may carry a credential (a Slack address does)."""
        return urlsplit(self.url).hostname or ""


DELIVERY_STATES = ["pending", "delivered", "failed"]


class Delivery(models.Model):
    """One event for one webhook: its body, kept as sent (every attempt signs the same bytes), and
    how its attempts went. The id is the `webhook-id` header, the same on every attempt."""

    PENDING, DELIVERED, FAILED = DELIVERY_STATES
    STATUSES = [(state, state) for state in DELIVERY_STATES]

    id = models.CharField(primary_key=True, max_length=40)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32)
    body = models.TextField()
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # Whoever hands the delivery on (to the queue, or to the network) first moves `turn` on, in
    # one conditional UPDATE: a stale task or a second sweep finds it moved and does nothing.
    turn = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due"),
            models.Index(fields=["webhook", "-created_at"], name="delivery_newest"),
            models.Index(fields=["webhook", "last_attempt_at"], name="delivery_recent_attempts"),
            models.Index(fields=["created_at"], name="delivery_age"),
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.id} ({self.status})"
