"""A share: one packet handed to one person by name (packets.sharing)."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.ids import new_id

SHARE_NOTE_MAX_LENGTH = 500


class Share(models.Model):
    """One packet handed to one person by name: the recipient may read it wherever reading
    happens (READ), never change it. One share per packet, sender and recipient; sharing again
    updates the note. It ends when withdrawn or dismissed, when the packet goes, or when its
    sender no longer may share the packet (SHARE)."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    # On PostgreSQL the database deletes a packet's shares with it (migration 0010): the packet's
    # delete is one plain statement, and a share made meanwhile must not block it.
    packet = models.ForeignKey("packets.Packet", on_delete=models.CASCADE, related_name="shares")
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shares_sent")
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shares_received")
    note = models.CharField(max_length=SHARE_NOTE_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(null=True, blank=True, help_text="When the recipient first read the packet.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["packet", "sender", "recipient"], name="one_share_per_sender_and_recipient")
        ]
        indexes = [
            # The inbox (and READ's test of a packet): what was shared with one person, newest first.
            models.Index(fields=["recipient", "-created_at"], name="share_inbox_newest"),
            models.Index(fields=["sender", "-created_at"], name="share_sent_newest"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"share of {self.packet_id} with {self.recipient_id}"
