from datetime import timedelta

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

from core.ids import new_id
from ltm.protocol.tokens import token_checksum, token_hint

DISPLAY_MAX_LENGTH = 80
TOKEN_NAME_MAX_LENGTH = 64
# What a personal API token may do: its `scope`, as OAuth tokens say it.
TOKEN_SCOPES = ("read", "read write")
# A token's last use is recorded at most this often, so reads don't write on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class User(AbstractUser):
    """A person. The id is a ULID string, as every id on the wire."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    display = models.CharField(
        max_length=DISPLAY_MAX_LENGTH, blank=True, help_text="The name teams see. Empty: the username."
    )
    share_mail = models.BooleanField(
        default=True, help_text="Mail me when someone shares a packet with me (to a verified address)."
    )

    # Whether this person, as the request at hand knows them, has shown a second factor (None:
    # not asked yet). Not a field: accounts.mfa.second_factor_shown sets it.
    shown_second_factor = None

    @property
    def display_name(self) -> str:
        return self.display or self.username


def hash_token(plaintext: str) -> str:
    """What the hub stores of a token (the same checksum django-oauth-toolkit keeps)."""
    return token_checksum(plaintext)


class ApiToken(models.Model):
    """A personal API token. Only its sha256 is stored; the plaintext is shown once."""

    PREFIX = "ltm_"

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=TOKEN_NAME_MAX_LENGTH)
    token_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=16, help_text="The first characters, to recognise it.")
    scope = models.CharField(max_length=32, default="read write", help_text="read, or read write")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: never expires.")
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_address = models.GenericIPAddressField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Made on the dashboard in a session that had signed in with a second factor (accounts.mfa):
    # only such a token reads the packets of a team that requires one (teams.second_factor).
    second_factor = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def checksum_hint(self) -> str:
        """What `ltm auth whoami` prints as token_hash8 for this token."""
        return token_hint(self.token_hash)

    @property
    def has_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
