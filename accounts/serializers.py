"""Wire shapes about people (the views build their answers with these)."""

from rest_framework import serializers


class UserRefSerializer(serializers.Serializer):
    """A person as other people see them: `{"id", "display"}`."""

    id = serializers.CharField()
    display = serializers.CharField(source="display_name")


class ClaimLinkSerializer(serializers.Serializer):
    url = serializers.URLField(help_text="open it in a browser to give this account an email and a password")
    expires_at = serializers.DateTimeField()

