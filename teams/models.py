from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from hub.ids import new_id

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
