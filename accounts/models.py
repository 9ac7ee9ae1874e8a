import hashlib
from datetime import timedelta

from django.contrib.auth.models import AbstractUser
from django.db import models

from core.ids import new_id

DISPLAY_MAX_LENGTH = 80
TOKEN_NAME_MAX_LENGTH = 64
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
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A personal API token. Only its sha256 is stored; the plaintext is shown once."""

    PREFIX = "ltm_"

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=TOKEN_NAME_MAX_LENGTH)
    token_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=16, help_text="The first characters, to recognise it.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
