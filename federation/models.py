"""Federation's records: the hubs it met (Peer), the packets shared with people on them
(RemoteShare) and the messages that carry them (Message), the packets received from them
(Received) and the ids of the messages already received (Seen)."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.ids import new_id

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
STATES = [(PENDING, PENDING), (DELIVERED, DELIVERED), (FAILED, FAILED)]
SHARE, UPDATE, WITHDRAW = "share", "update", "withdraw"
KINDS = [(SHARE, SHARE), (UPDATE, UPDATE), (WITHDRAW, WITHDRAW)]


class Peer(models.Model):
    """Another hub this one sent to or heard from: its keys as last fetched, its counts and its
    last error, and whether the operator blocked it (the admin page)."""

    host = models.CharField(max_length=260, unique=True, help_text="host[:port], as addresses name it")
    name = models.CharField(max_length=200, blank=True)
    blocked = models.BooleanField(default=False, help_text="Refuse its messages and send it none.")
    inbox = models.URLField(max_length=500, blank=True)
    keys = models.JSONField(default=list, blank=True, help_text="Its published keys, as last fetched.")
    keys_fetched_at = models.DateTimeField(null=True, blank=True)
    sent = models.PositiveIntegerField(default=0, help_text="Messages it accepted.")
    failed = models.PositiveIntegerField(default=0, help_text="Messages that failed for good.")
    received = models.PositiveIntegerField(default=0, help_text="Messages accepted from it.")
    refused = models.PositiveIntegerField(default=0, help_text="Messages refused from it.")
    last_error = models.CharField(max_length=500, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["host"]

    def __str__(self) -> str:
        return self.host


class RemoteShare(models.Model):
    """A packet handed to a person on another hub. Pending until the other hub accepts it
    (delivered) or refuses it (failed, with its reason); it ends when withdrawn."""

    remote = True  # what the shares' serializers tell it apart by

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    packet_id = models.CharField(max_length=64, db_index=True)
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="remote_shares")
    address = models.CharField(max_length=420, help_text="username@host[:port]")
    note = models.CharField(max_length=500, blank=True)
    state = models.CharField(max_length=10, choices=STATES, default=PENDING)
    reason = models.CharField(max_length=500, blank=True, help_text="Why it failed.")
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["packet_id", "sender", "address"], name="one_remote_share_per_address")
        ]
        indexes = [models.Index(fields=["sender", "-created_at"], name="remote_share_sent_newest")]

    def __str__(self) -> str:
        return f"share of {self.packet_id} with {self.address}"

    @property
    def host(self) -> str:
        return self.address.rsplit("@", 1)[1]


class Message(models.Model):
    """One message to another hub's inbox, sent by the worker with retries. `body` is the JSON sent
    (signed anew at each attempt, its `created` fresh); `share_id` names the RemoteShare it is
    about, whose messages go out in order."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    share_id = models.CharField(max_length=26, db_index=True)
    host = models.CharField(max_length=260)
    kind = models.CharField(max_length=10, choices=KINDS)
    body = models.TextField()
    state = models.CharField(max_length=10, choices=STATES, default=PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} to {self.host}: {self.state}"


class Received(models.Model):
    """A packet this hub holds because another hub shared it: where from, and the signature it
    came with. The packet itself is a packets.Packet owned by the sender's stand-in (an inactive
    user named by the address), shared with each recipient here."""

    packet_id = models.CharField(primary_key=True, max_length=64)
    host = models.CharField(max_length=260)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kid = models.CharField(max_length=100)
    signature = models.CharField(max_length=200)
    received_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.packet_id} from {self.host}"


class Seen(models.Model):
    """A message id already received from a hub: the same id again is a replay."""

    host = models.CharField(max_length=260)
    message_id = models.CharField(max_length=100)
    received_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["host", "message_id"], name="one_message_per_id")]


class StandIn(models.Model):
    """The user that stands for a person of another hub here (federation.inbox.stand_in): the
    sender of the shares and the owner of the packets received from them. Inactive, without a
    password: nobody signs in as them."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    address = models.CharField(max_length=420, unique=True)

    def __str__(self) -> str:
        return self.address
