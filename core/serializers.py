"""Shapes every /v1 endpoint shares: the error body and the health check (readiness: ops.serializers)."""

from rest_framework import serializers

from core.timestamps import rfc3339


class InstantField(serializers.DateTimeField):
    """A stored instant as the wire carries it (RFC 3339, UTC written `Z`). Values come from the
    database already in UTC, so DRF's per-value timezone lookup, the dearest part of a 50-packet
    list, is skipped."""

    def to_representation(self, value):
        return rfc3339(value) if value is not None else None


class ErrorSerializer(serializers.Serializer):
    """Every /v1 error body: `{"error": "<human readable message>"}`."""

    error = serializers.CharField()


class HealthSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    version = serializers.CharField(help_text="the newest packet version this hub accepts")
    hub = serializers.CharField(help_text="the hub's own version (a hub extension)")
