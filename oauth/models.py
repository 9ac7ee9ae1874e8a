"""What the hub keeps about OAuth beside django-oauth-toolkit's own tables.

Both models were made by the accounts app and keep its table names: the move between apps
changed Django's state only (migrations 0001 here and 0006 in accounts), not the database."""

from django.db import models
from oauth2_provider.settings import oauth2_settings

from core.ids import new_id

# The toolkit's Application.registration_source of a client that registered itself (Dynamic
# Client Registration, a Client ID Metadata Document); any other is one of the hub's own clients.
SELF_REGISTERED_SOURCES = ("dcr", "cimd")

DEVICE_NAME_MAX_LENGTH = 64
USER_AGENT_MAX_LENGTH = 256
CLIENT_VERSION_MAX_LENGTH = 32


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
        oauth2_settings.ACCESS_TOKEN_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="device_details",
    )
    name = models.CharField(
        max_length=DEVICE_NAME_MAX_LENGTH, help_text="The machine's name: its hostname or what its owner chose."
    )
    user_agent = models.CharField(max_length=USER_AGENT_MAX_LENGTH, blank=True)
    client_version = models.CharField(max_length=CLIENT_VERSION_MAX_LENGTH, blank=True)
    requested_from = models.GenericIPAddressField(
        null=True, blank=True, help_text="The address that asked for the code."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_address = models.GenericIPAddressField(null=True, blank=True)
    # Approved on /device in a session that had signed in with a second factor: the token it is
    # redeemed for gets a SecondFactorToken.
    second_factor = models.BooleanField(default=False)

    class Meta:
        db_table = "accounts_devicedetails"
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

    class Meta:
        db_table = "accounts_spentauthorizationcode"


class SecondFactorToken(models.Model):
    """An OAuth access token issued after a sign-in with a second factor: approved on /device or
    on the consent page in a session that had passed one (accounts.mfa.second_factor_passed), or
    refreshed from such a token. Only these read the packets of a team that requires a second
    factor (teams.second_factor). The consent page's grant holds the row until its code is
    exchanged; each token issued for it, or refreshed from it, gets its own."""

    grant = models.OneToOneField(
        oauth2_settings.GRANT_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    access_token = models.OneToOneField(
        oauth2_settings.ACCESS_TOKEN_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="second_factor",
    )
