from datetime import timedelta

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from oauth2_provider.settings import oauth2_settings

from core.ids import new_id
from ltm.protocol.tokens import token_checksum, token_hint

DISPLAY_MAX_LENGTH = 80
TOKEN_NAME_MAX_LENGTH = 64
DEVICE_NAME_MAX_LENGTH = 64
USER_AGENT_MAX_LENGTH = 256
CLIENT_VERSION_MAX_LENGTH = 32
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


class DeviceDetails(models.Model):
    """What the hub knows of a machine signed in through the device flow, beyond the toolkit's
    grant and access token: made when the client asks for a code (name, client, address), tied to
    the access token when the client redeems the code, and touched when the token is used.

    The grant goes away at the hourly purge (SET_NULL); the row lives as long as its token."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    grant = models.OneToOneField(
        oauth2_settings.DEVICE_GRANT_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="details"
    )
    access_token = models.OneToOneField(
        oauth2_settings.ACCESS_TOKEN_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="device_details"
    )
    name = models.CharField(max_length=DEVICE_NAME_MAX_LENGTH, help_text="The machine's name: its hostname or what its owner chose.")
    user_agent = models.CharField(max_length=USER_AGENT_MAX_LENGTH, blank=True)
    client_version = models.CharField(max_length=CLIENT_VERSION_MAX_LENGTH, blank=True)
    requested_from = models.GenericIPAddressField(null=True, blank=True, help_text="The address that asked for the code.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "device details"

    def __str__(self) -> str:
        return self.name


class SpentAuthorizationCode(models.Model):
    """An authorization code already exchanged for tokens, kept (as its checksum) until the
    hourly purge after it would have expired: a second exchange of the same code means it leaked,
    and the tokens the first exchange issued are revoked (RFC 6749 section 4.1.2)."""

    code_hash = models.CharField(max_length=64, unique=True)
    application = models.ForeignKey(oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+")
    access_token = models.ForeignKey(
        oauth2_settings.ACCESS_TOKEN_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The refresh tokens rotated from the first one share its family: all of them are revoked.
    token_family = models.UUIDField(null=True, blank=True)
    expires_at = models.DateTimeField()
