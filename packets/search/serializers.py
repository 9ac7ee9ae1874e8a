"""Wire shapes of search: its query and its results."""

from rest_framework import serializers

from core.params import ChoiceParam, TextField, WholeNumberField
from core.serializers import InstantField
from ltm.protocol.tool_calls import rounded_score
from packets.search import selectors as search
from packets.serializers import HeldField, team_param

SEARCH_TEXT_REQUIRED = "q is required: the words to search for"


class SearchQuerySerializer(serializers.Serializer):
    q = TextField(
        help_text=f"what to search for (1 to {search.MAX_QUERY_CHARS} characters)",
        error_messages={"required": SEARCH_TEXT_REQUIRED},
    )
    team = team_param(
        "a team's name: only that team's packets (default: the caller's personal packets and every team's)"
    )
    limit = WholeNumberField(
        min_value=1,
        max_value=search.MAX_LIMIT,
        default=search.DEFAULT_LIMIT,
        empty_is_absent=False,  # `?limit=` is a 400 too: another number of results would mislead
        help_text=f"1 to {search.MAX_LIMIT}, default {search.DEFAULT_LIMIT}; anything else is a 400",
    )
    mode = ChoiceParam(
        search.MODES,
        default="hybrid",
        empty_is_absent=False,  # `?mode=` is a 400 too: it names no mode
        help_text=(
            "hybrid (the default): by words and by meaning, the two rankings fused; keyword: by words "
            "alone (full-text search); semantic: by meaning alone. Anything else is a 400. On a hub "
            "with LTM_SEMANTIC=off every search is keyword"
        ),
    )

    def validate_q(self, text: str) -> str:
        if not text.strip():
            raise serializers.ValidationError(SEARCH_TEXT_REQUIRED)
        if len(text) > search.MAX_QUERY_CHARS:
            raise serializers.ValidationError(f"q is {len(text)} characters; the maximum is {search.MAX_QUERY_CHARS}")
        return text


class ScoreField(serializers.FloatField):
    def to_representation(self, value):
        return rounded_score(float(value))


class SearchResultSerializer(serializers.Serializer):
    # Reads a packets.search.selectors.Hit; the view writes Hit.result() instead, the same JSON.
    id = serializers.CharField(source="packet.id")
    created_at = InstantField(source="packet.created_at")
    goal = serializers.CharField(source="packet.goal")
    team = serializers.CharField(allow_null=True, help_text="the team's name; null for a personal packet")
    snippet = serializers.CharField(source="snippet_text", help_text="plain text around the match")
    score = ScoreField(help_text="0 to 1, higher is better, to four decimals; 1 for the packet whose id was searched")
    shared_by = serializers.CharField(
        allow_null=True, help_text="who shared the packet with the caller (their name); null when nobody did"
    )
    held = HeldField(source="packet.held")
    matched = serializers.ListField(
        child=serializers.ChoiceField(choices=["keyword", "semantic"]),
        required=False,
        help_text="how the packet was found: by its words (keyword), by meaning (semantic) or both",
    )


class SearchResultsSerializer(serializers.Serializer):
    results = SearchResultSerializer(many=True, help_text="best first")


class RelatedQuerySerializer(serializers.Serializer):
    limit = WholeNumberField(
        min_value=1,
        max_value=search.RELATED_MAX_LIMIT,
        default=search.RELATED_DEFAULT_LIMIT,
        empty_is_absent=False,
        help_text=f"1 to {search.RELATED_MAX_LIMIT}, default {search.RELATED_DEFAULT_LIMIT}; anything else is a 400",
    )
