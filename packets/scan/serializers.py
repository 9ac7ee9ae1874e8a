"""Wire shapes of the hub's secret scan (a hub extension): a packet's findings, clearing them and
the review queue. What a push answers of them is packets.serializers.PushedSerializer."""

from rest_framework import serializers

from accounts.serializers import UserRefSerializer
from core.params import TextField
from core.serializers import InstantField
from packets.serializers import FindingRefSerializer, team_param


class FindingSerializer(FindingRefSerializer):
    created_at = InstantField(help_text="when the scan found it")
    cleared_by = UserRefSerializer(allow_null=True, help_text="who cleared it; null while open")
    cleared_at = InstantField(allow_null=True)
    reason = serializers.CharField(help_text="why it was cleared; empty while open")


class FindingListSerializer(serializers.Serializer):
    findings = FindingSerializer(many=True)


class FindingClearRequestSerializer(serializers.Serializer):
    reason = TextField(
        help_text="why these findings are not secrets, or no longer matter (kept in the team's log)",
        error_messages={"required": "reason is required: why these findings are not secrets (or no longer matter)"},
    )


class QueuedFindingSerializer(serializers.Serializer):
    packet_id = serializers.CharField(source="packet.id")
    goal = serializers.CharField(source="packet.goal")
    team = serializers.CharField(source="packet.team.name", allow_null=True, default=None)
    path = serializers.CharField(help_text="the JSON path of the field")
    kind = serializers.CharField(help_text="what it looks like (never the secret itself)")
    created_at = InstantField(source="packet.scanned_at")


class ReviewQueueSerializer(serializers.Serializer):
    findings = QueuedFindingSerializer(many=True, help_text="open findings, the newest packets first")


class ReviewQueueQuerySerializer(serializers.Serializer):
    team = team_param("a team's name: only that team's packets (404 for a non-member)")
