"""Wire shapes of packets (section 3 of the protocol): the query parameters the views read
(through core.params) and the answers they write. The OpenAPI description is generated from the
same classes; the hottest answers are written directly (see packets.api), and
tests/test_answers_match_serializers.py holds them to what these serializers write."""

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

from accounts.serializers import UserRefSerializer
from core.params import ChoiceParam, TextField, WholeNumberField
from core.serializers import InstantField
from ltm.protocol.packet import SUPPORTED_VERSIONS, schema
from packets import search, selectors, shares
from packets.export import FORMATS
from packets.models import HELD_GOAL, SHARE_NOTE_MAX_LENGTH


def team_param(description: str) -> TextField:
    """?team=NAME: a team's name (absent or empty: no team; unknown or not the caller's: 404)."""
    return TextField(required=False, default=None, allow_blank=True, help_text=description)


class PushQuerySerializer(serializers.Serializer):
    team = team_param("a team's name: the team's packets instead of the caller's personal ones")


class ListQuerySerializer(PushQuerySerializer):
    limit = WholeNumberField(
        min_value=1,
        max_value=selectors.MAX_LIMIT,
        default=selectors.DEFAULT_LIMIT,
        fallback=True,  # the public Go client relies on it (protocol, section 3)
        help_text="1 to 500, default 50; anything else (not a number, 0 or less, over 500) means 50",
    )


class ExportQuerySerializer(serializers.Serializer):
    format = ChoiceParam(FORMATS, required=False, default="jsonl", help_text="jsonl (the default) or markdown")
    team = team_param("a team's name: only that team's packets (404 for a non-member)")


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

    def validate_q(self, text: str) -> str:
        if not text.strip():
            raise serializers.ValidationError(SEARCH_TEXT_REQUIRED)
        if len(text) > search.MAX_QUERY_CHARS:
            raise serializers.ValidationError(f"q is {len(text)} characters; the maximum is {search.MAX_QUERY_CHARS}")
        return text


class PacketSerializer(serializers.Serializer):
    """A packet, exactly as pushed and served. It stands for the protocol's own JSON Schemas in
    the OpenAPI description (see PacketSchema below); the hub validates packets with
    ltm.protocol.packet and serves the stored body as it is, so this never reads or writes one."""


class PacketSchema(OpenApiSerializerExtension):
    """The packet body as `oneOf` the v0.1 and v0.2 JSON Schemas of ltm.protocol, each embedded
    as a component (the OpenAPI document is 3.1, whose schemas are JSON Schema 2020-12). Each
    branch also pins `ltm_version`, as the hub routes a packet: the v0.1 schema takes any "N.N",
    so a v0.2 packet with none of v0.2's own fields would match both, and `oneOf` none."""

    target_class = PacketSerializer

    def map_serializer(self, auto_schema, direction):
        branches = []
        for version in SUPPORTED_VERSIONS:
            # "$schema" and "$id" would make the embedded schema a separate resource.
            body = {key: value for key, value in schema(version).items() if key not in ("$schema", "$id")}
            component = ResolvedComponent(
                name=f"PacketV{version.replace('.', '')}",
                type=ResolvedComponent.SCHEMA,
                object=f"packet-v{version}",
                schema=body,
            )
            auto_schema.registry.register_on_missing(component)
            branches.append({**component.ref, "properties": {"ltm_version": {"const": version}}})
        return {"oneOf": branches}


class PacketIdSerializer(serializers.Serializer):
    id = serializers.CharField()


class HeldField(serializers.BooleanField):
    """`held`: true, and there only, on a packet the hub's secret scan holds back from the caller
    (packets.models HELD); absent on every other."""

    def __init__(self, **kwargs):
        help_text = (
            f"only on a packet the hub's secret scan holds back from the caller: its goal reads "
            f'"{HELD_GOAL}" and reading it answers 409 until its findings are fixed or cleared'
        )
        super().__init__(required=False, help_text=help_text, **kwargs)

    def get_attribute(self, instance):
        if not super().get_attribute(instance):
            raise serializers.SkipField()
        return True


class PacketListItemSerializer(PacketIdSerializer):
    created_at = InstantField()
    goal = serializers.CharField()
    held = HeldField()


class PacketListSerializer(serializers.Serializer):
    packets = PacketListItemSerializer(many=True, help_text="newest first")


class PublishedSerializer(PacketIdSerializer):
    public_url = serializers.URLField(help_text="the packet's public page; anyone with the link can read it")


class ThreadItemSerializer(PacketListItemSerializer):
    parent_id = serializers.CharField(allow_null=True, help_text="the packet it continues; null for none")
    team = serializers.CharField(allow_null=True, help_text="the team's name; null for a personal packet")


class ThreadSerializer(serializers.Serializer):
    packets = ThreadItemSerializer(many=True, help_text="oldest first")


class SearchResultSerializer(serializers.Serializer):
    # Reads a packets.search.Hit; the view writes Hit.result() instead, the same JSON.
    id = serializers.CharField(source="packet.id")
    created_at = InstantField(source="packet.created_at")
    goal = serializers.CharField(source="packet.goal")
    team = serializers.CharField(allow_null=True, help_text="the team's name; null for a personal packet")
    snippet = serializers.CharField(source="snippet_text", help_text="plain text around the match")
    score = serializers.FloatField(help_text="0 to 1, higher is better; 1 for the packet whose id was searched")
    shared_by = serializers.CharField(
        allow_null=True, help_text="who shared the packet with the caller (their name); null when nobody did"
    )
    held = HeldField(source="packet.held")


class SearchResultsSerializer(serializers.Serializer):
    results = SearchResultSerializer(many=True, help_text="best first")


# Shares (a hub extension): a packet handed to one person by name.


class ShareCreateRequestSerializer(serializers.Serializer):
    to = TextField(
        help_text="the username of the person to share with",
        error_messages={
            "required": "to is required: the username of the person to share with",
            "invalid": "to must be a string: a username; got {got}",
        },
    )
    note = TextField(
        required=False,
        default="",
        described={"maxLength": SHARE_NOTE_MAX_LENGTH},
        help_text="a word for the recipient; sharing again replaces it",
    )


class ShareSerializer(serializers.Serializer):
    id = serializers.CharField()
    packet_id = serializers.CharField()
    goal = serializers.CharField(source="packet.goal")
    from_ = UserRefSerializer(source="sender")
    to = UserRefSerializer(source="recipient")
    note = serializers.CharField(help_text="empty when none was given")
    created_at = InstantField()

    def get_fields(self):
        # `from` is a Python keyword: declared as from_, answered as from (in its place).
        return {("from" if name == "from_" else name): field for name, field in super().get_fields().items()}


class ShareCreatedSerializer(serializers.Serializer):
    share = ShareSerializer()


class ShareListItemSerializer(ShareSerializer):
    seen = serializers.SerializerMethodField(help_text="whether the recipient has read the packet since")

    def get_seen(self, share) -> bool:
        return share.seen_at is not None


class ShareListSerializer(serializers.Serializer):
    shares = ShareListItemSerializer(many=True, help_text="newest first")


class SharesQuerySerializer(serializers.Serializer):
    direction = ChoiceParam(
        (shares.IN, shares.OUT),
        required=False,
        default=shares.IN,
        help_text="in (the default): shared with the caller, their inbox; out: shared by the caller",
    )
    limit = WholeNumberField(
        min_value=1,
        max_value=shares.MAX_LIMIT,
        required=False,
        default=shares.DEFAULT_LIMIT,
        help_text=f"how many, newest first (default {shares.DEFAULT_LIMIT}, at most {shares.MAX_LIMIT})",
    )


# The hub's secret scan (a hub extension).


class FindingRefSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="the JSON path of the field, e.g. decisions[2].why")
    kind = serializers.CharField(help_text="what it looks like, e.g. aws-access-key (never the secret itself)")


class PushedSerializer(PacketIdSerializer):
    findings = FindingRefSerializer(
        many=True,
        required=False,
        help_text="only when the hub's secret scan found something: the packet is stored but quarantined",
    )


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
