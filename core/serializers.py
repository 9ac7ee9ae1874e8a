"""Shapes every /v1 endpoint shares: the error body and the health check."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """Every /v1 error body: `{"error": "<human readable message>"}`."""

    error = serializers.CharField()


class HealthSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    version = serializers.CharField(help_text="the newest packet version this hub accepts")


DEPENDENCY_STATES = ["ok", "unavailable", "not configured"]


class ReadinessSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    database = serializers.ChoiceField(DEPENDENCY_STATES)
    cache = serializers.ChoiceField(DEPENDENCY_STATES, help_text="Redis; `not configured` without REDIS_URL")


class NotReadySerializer(ErrorSerializer):
    database = serializers.ChoiceField(DEPENDENCY_STATES)
    cache = serializers.ChoiceField(DEPENDENCY_STATES)
