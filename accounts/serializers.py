"""Wire shapes about people (the views build their answers with these)."""

from rest_framework import serializers

from core.serializers import InstantField


class UserRefSerializer(serializers.Serializer):
    """A person as other people see them: `{"id", "display"}`."""

    id = serializers.CharField()
    display = serializers.CharField(source="display_name")


class ClaimLinkSerializer(serializers.Serializer):
    url = serializers.URLField(help_text="open it in a browser to give this account an email and a password")
    expires_at = InstantField()


class TokenFactsSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        ["personal", "oauth"],
        help_text="`personal`: a personal API token; `oauth`: an OAuth access token, e.g. a device signed in with `ltm auth`",
    )
    name = serializers.CharField(help_text="the token's name, or the device's")
    hint = serializers.CharField(
        help_text="the first 8 hex digits of sha256(token): what `ltm auth whoami` prints as token_hash8"
    )
    scopes = serializers.ListField(child=serializers.ChoiceField(["read", "write"]))
    created_at = InstantField()
    expires_at = InstantField(allow_null=True, help_text="null: never expires")


class MeSerializer(serializers.Serializer):
    """`GET /v1/me`: the bearer's account and token."""

    id = serializers.CharField()
    username = serializers.CharField()
    display_name = serializers.CharField(help_text="the name teammates see (the username when none was set)")
    email = serializers.CharField(allow_blank=True, help_text="empty for an account made by `ltm join`")
    token = TokenFactsSerializer()


class MeUpdateSerializer(serializers.Serializer):
    """`PATCH /v1/me`: validated by accounts.services.display_name_clean."""

    display_name = serializers.CharField(
        allow_blank=True, help_text="at most 80 printable characters; empty: show the username"
    )
