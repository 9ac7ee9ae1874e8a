"""What /v1/readyz answers."""

from rest_framework import serializers

from core.serializers import ErrorSerializer
from ops import health

DEPENDENCY_STATES = [health.OK, health.UNAVAILABLE, health.NOT_CONFIGURED]
MIGRATION_STATES = [health.OK, health.UNAPPLIED, health.UNAVAILABLE]
MANUAL_STATES = [health.OK, health.MISSING]


class ReadinessSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    database = serializers.ChoiceField(DEPENDENCY_STATES)
    cache = serializers.ChoiceField(DEPENDENCY_STATES, help_text="Redis; `not configured` without REDIS_URL")
    migrations = serializers.ChoiceField(MIGRATION_STATES, help_text="whether the database has run this code's")
    manual = serializers.ChoiceField(MANUAL_STATES, help_text="the manual at /docs/, built by `make docs`")


class NotReadySerializer(ErrorSerializer):
    database = serializers.ChoiceField(DEPENDENCY_STATES)
    cache = serializers.ChoiceField(DEPENDENCY_STATES)
    migrations = serializers.ChoiceField(MIGRATION_STATES)
    manual = serializers.ChoiceField(MANUAL_STATES)
    unapplied = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="the migrations not run yet, as app.name"
    )
