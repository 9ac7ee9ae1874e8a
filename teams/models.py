import hashlib
from datetime import timedelta

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from core.ids import new_id

TEAM_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"


class Team(models.Model):
    """A fixed set of people who share packets. Names are unique on a hub."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    name = models.CharField(max_length=40, unique=True, validators=[RegexValidator(TEAM_NAME_PATTERN)])
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_teams")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    OWNER = "owner"
    MEMBER = "member"
    ROLES = [(OWNER, "owner"), (MEMBER, "member")]

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=ROLES, default=MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="one_membership_per_person")]
        ordering = ["joined_at"]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


INVITE_LIFETIME = timedelta(days=7)


def invite_code_hash(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


class InviteQuerySet(models.QuerySet):
    def usable(self, now=None):
        """Invites that can still be accepted: unused, unrevoked and unexpired."""
        now = now or timezone.now()
        return self.filter(used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now)


class Invite(models.Model):
    """A single-use link into a team, valid for 7 days after it was minted.

    Only the sha256 of the code is stored: the code is a credential (whoever holds it may join),
    and looking it up by hash is all the hub ever needs (the accept call and the browser page
    both arrive with the code). The plaintext is returned once, when the invite is created.
    """

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invites")
    code_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="invites_created"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="invites_used",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"invite {self.id} to {self.team_id}"

    def state(self, now=None) -> str:
        """"used", "revoked", "expired" or "valid" (the first that applies)."""
        if self.used_at is not None:
            return "used"
        if self.revoked_at is not None:
            return "revoked"
        if (now or timezone.now()) >= self.expires_at:
            return "expired"
        return "valid"

    def is_usable(self, now=None) -> bool:
        return self.state(now) == "valid"
