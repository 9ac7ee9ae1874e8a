"""Wire shapes of an export: its query."""

from rest_framework import serializers

from core.params import ChoiceParam
from packets.export.stream import FORMATS
from packets.serializers import team_param


class ExportQuerySerializer(serializers.Serializer):
    format = ChoiceParam(FORMATS, required=False, default="jsonl", help_text="jsonl (the default) or markdown")
    team = team_param("a team's name: only that team's packets (404 for a non-member)")
